/* bench/bench_output.c - lf-bench's rows as a table, CSV or JSON, and plots.
 *
 * The CSV and JSON forms carry the same columns as the table, in the same
 * order, plus t1_s (the reference single-thread time of one execution),
 * t1_own_s (the row's own process's, from which its ideal derives) and execs
 * (executions of the loop per measurement).
 * Plots are gnuplot scripts written next to their data, then run when
 * configure found gnuplot (LF_GNUPLOT).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "bench.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const csv_columns =
    "kernel,n,grain,threads,scenario,schedule,median_s,min_s,max_s,ideal_s,efficiency,chunks,"
    "speedup,vs_best,t1_s,execs,t1_own_s";

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    if (n <= 0)
        return 0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

char *bench_list_next(char **list, int (*prefix_at)(const char *))
{
    char *p = *list, *q = p + (*p != '\0');
    while (*q && !(q[0] == ',' && prefix_at(q + 1) >= 0))
        q++;
    *list = *q ? q + 1 : q;
    *q = 0;
    return p;
}

void bench_rank_rows(struct bench_row *rows, int nrows)
{
    double best = 0;
    for (int i = 0; i < nrows; i++)
        if (rows[i].efficiency > best)
            best = rows[i].efficiency;
    for (int i = 0; i < nrows; i++)
        rows[i].ratio = best > 0 ? rows[i].efficiency / best : 0;
}

/* Width of the schedule column: 22, or the longest label of the rows. */
static int schedule_width(const struct bench_row *r, int nrows)
{
    int w = 22;
    for (int i = 0; i < nrows; i++)
        if ((int)strlen(r[i].schedule) > w)
            w = (int)strlen(r[i].schedule);
    return w;
}

static void write_table(FILE *f, const struct bench_row *r, int nrows, int header)
{
    int sw = schedule_width(r, nrows);
    if (header)
        fprintf(f, "%-10s %9s %6s %3s %-9s %-*s %9s %9s %9s %9s %6s %8s %7s %7s\n", "kernel", "n",
                "grain", "thr", "scenario", sw, "schedule", "median_s", "min_s", "max_s", "ideal_s",
                "eff", "chunks", "speedup", "vs_best");
    for (int i = 0; i < nrows; i++, r++) {
        char chunks[24];
        if (r->chunks >= 0)
            snprintf(chunks, sizeof chunks, "%ld", r->chunks);
        else
            snprintf(chunks, sizeof chunks, "-");
        fprintf(f, "%-10s %9ld %6ld %3d %-9s %-*s %9.5f %9.5f %9.5f %9.5f %6.3f %8s %7.3f %7.3f\n",
                r->kernel, r->n, r->grain, r->threads, r->scenario, sw, r->schedule, r->median,
                r->min, r->max, r->ideal, r->efficiency, chunks, r->speedup, r->ratio);
    }
}

void bench_write_data_rows(FILE *f, const struct bench_data_row *r, int nrows)
{
    int sw = 22;
    for (int i = 0; i < nrows; i++)
        if ((int)strlen(r[i].schedule) > sw)
            sw = (int)strlen(r[i].schedule);
    fprintf(f, "%-*s %8s %8s %10s\n", sw, "schedule", "remote", "staged", "wait_ms");
    for (int i = 0; i < nrows; i++, r++)
        fprintf(f, "%-*s %8.3f %8.3f %10.2f\n", sw, r->schedule, r->remote, r->staged, r->wait_ms);
}

static void write_csv(FILE *f, const struct bench_row *r, int nrows, int header)
{
    if (header)
        fprintf(f, "%s\n", csv_columns);
    for (int i = 0; i < nrows; i++, r++)
        fprintf(f, "%s,%ld,%ld,%d,%s,\"%s\",%.6g,%.6g,%.6g,%.6g,%.4f,%ld,%.4f,%.4f,%.6g,%d,%.6g\n",
                r->kernel, r->n, r->grain, r->threads, r->scenario, r->schedule, r->median, r->min,
                r->max, r->ideal, r->efficiency, r->chunks, r->speedup, r->ratio, r->t1, r->execs,
                r->t1_own);
}

static void write_json(FILE *f, const struct bench_row *r, int nrows, int header)
{
    if (header)
        fprintf(f, "{\"tool\": \"lf-bench\", \"rows\": [\n");
    for (int i = 0; i < nrows; i++, r++) {
        fprintf(f,
                "  {\"kernel\": \"%s\", \"n\": %ld, \"grain\": %ld, \"threads\": %d, "
                "\"scenario\": \"%s\", \"schedule\": \"%s\", \"median_s\": %.6g, "
                "\"min_s\": %.6g, \"max_s\": %.6g, \"ideal_s\": %.6g, \"efficiency\": %.4f, ",
                r->kernel, r->n, r->grain, r->threads, r->scenario, r->schedule, r->median, r->min,
                r->max, r->ideal, r->efficiency);
        if (r->chunks >= 0)
            fprintf(f, "\"chunks\": %ld, ", r->chunks);
        else
            fprintf(f, "\"chunks\": null, ");
        fprintf(f,
                "\"speedup\": %.4f, \"vs_best\": %.4f, \"t1_s\": %.6g, \"execs\": %d, "
                "\"t1_own_s\": %.6g}%s\n",
                r->speedup, r->ratio, r->t1, r->execs, r->t1_own, i + 1 < nrows ? "," : "");
    }
    if (header)
        fprintf(f, "]}\n");
}

void bench_write_rows(FILE *f, enum bench_format fmt, const struct bench_row *rows, int nrows,
                      int header)
{
    switch (fmt) {
    case FORMAT_CSV:
        write_csv(f, rows, nrows, header);
        break;
    case FORMAT_JSON:
        write_json(f, rows, nrows, header);
        break;
    default:
        write_table(f, rows, nrows, header);
        break;
    }
}

/* Copy the next CSV field of *p (quoted or not) into buf; 0 or -1. */
static int csv_field(const char **p, char *buf, size_t len)
{
    const char *s = *p;
    size_t k = 0;
    if (*s == '"') {
        s++;
        while (*s && *s != '"')
            if (k + 1 < len)
                buf[k++] = *s++;
            else
                return -1;
        if (*s != '"')
            return -1;
        s++;
    } else {
        while (*s && *s != ',' && *s != '\n' && *s != '\r')
            if (k + 1 < len)
                buf[k++] = *s++;
            else
                return -1;
    }
    buf[k] = 0;
    if (*s == ',')
        s++;
    *p = s;
    return 0;
}

/* ---- Plots ---- */

#ifdef LF_GNUPLOT
/* Run gnuplot on script; 0 or -1. */
static int run_gnuplot(const char *script)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "'%s' '%s'", LF_GNUPLOT, script);
    int rc = system(cmd);
    if (rc != 0) {
        fprintf(stderr, "lf-bench: gnuplot failed on %s\n", script);
        return -1;
    }
    return 0;
}

/* Efficiency per schedule: one bar per row, the scenario in the title. */
static int plot_efficiency(const char *dir, const struct bench_row *rows, int nrows)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/efficiency.dat", dir);
    FILE *d = fopen(path, "w");
    if (!d)
        return -1;
    fprintf(d, "# schedule efficiency min_eff max_eff\n");
    for (int i = 0; i < nrows; i++) {
        const struct bench_row *r = &rows[i];
        /* per-rep spread of the efficiency: ideal over the slowest/fastest rep */
        fprintf(d, "\"%s\" %.4f %.4f %.4f\n", r->schedule, r->efficiency, r->ideal / r->max,
                r->ideal / r->min);
    }
    fclose(d);
    snprintf(path, sizeof path, "%s/efficiency.gp", dir);
    FILE *g = fopen(path, "w");
    if (!g)
        return -1;
    fprintf(g,
            "set terminal pngcairo size 900,500 noenhanced\n"
            "set output '%s/efficiency.png'\n"
            "set title 'lf-bench: %s, n=%ld, grain=%ld, %d threads, scenario %s'\n"
            "set ylabel 'efficiency (ideal / median makespan)'\n"
            "set yrange [0:1.2]\nset grid ytics\nset style fill solid 0.6 border -1\n"
            "set boxwidth 0.6\nset xtics rotate by -30\nunset key\n"
            "plot '%s/efficiency.dat' using 0:2:xtic(1) with boxes, \\\n"
            "     '' using 0:2:3:4 with yerrorbars lc rgb 'black' pt -1, \\\n"
            "     1 with lines dt 2 lc rgb 'gray'\n",
            dir, rows[0].kernel, rows[0].n, rows[0].grain, rows[0].threads, rows[0].scenario, dir);
    fclose(g);
    return run_gnuplot(path);
}

#define TRACE_MAX_SITES 64

/* The profile site learned after its instance inst, from LF_TRACE's
 * FILE.profile (site,instance,bin,lo,hi,cost,confidence), into dat as
 * "lo hi cost" lines; its confidence goes to *conf.  Returns the number
 * of bins written (0: no such profile, or no file). */
static int write_profile(const char *trace, const char *site, long inst, const char *dat,
                         double *conf)
{
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s.profile", trace);
    FILE *in = fopen(path, "r");
    if (!in)
        return 0;
    FILE *out = fopen(dat, "w");
    int bins = 0;
    while (out && fgets(line, sizeof line, in)) {
        char f[7][256];
        const char *p = line;
        int bad = 0;
        for (int i = 0; i < 7 && !bad; i++)
            bad = csv_field(&p, f[i], sizeof f[i]) != 0;
        if (bad || strcmp(f[0], site) != 0 || strtol(f[1], NULL, 10) != inst)
            continue;
        fprintf(out, "%s %s %s\n", f[3], f[4], f[5]);
        *conf = strtod(f[6], NULL);
        bins++;
    }
    if (out)
        fclose(out);
    fclose(in);
    return bins;
}

/* Chunk size over time for every thread of the last instance of each site
 * in an LF_TRACE file (site,instance,thread,lo,hi,start_ns,end_ns,pieces,from,plan). */
/* The plans of LF_TRACE's last column, in the order of lib/exec's kinds. */
static const char *const plan_names[4] = {"dealt", "own", "self", "tiny"};

static int plot_trace(const char *dir, const char *trace, const char *const *sites,
                      const char *const *labels, int nlabels)
{
    char site[TRACE_MAX_SITES][256];
    long last[TRACE_MAX_SITES];
    double t0[TRACE_MAX_SITES];
    int maxthr[TRACE_MAX_SITES];
    int nsites = 0, rc = 0;
    char line[1024], path[4096];
    FILE *in = fopen(trace, "r");
    if (!in) {
        fprintf(stderr, "lf-bench: cannot read trace %s: %s\n", trace, strerror(errno));
        return -1;
    }
    /* Pass 1: the sites, the last instance of each and its start time.
     * Pass 2: the last instance's chunks, and every instance's plan (the
     * tenth column, when the trace has one). */
    int planned[TRACE_MAX_SITES] = {0};
    for (int pass = 0; pass < 2; pass++) {
        FILE *out[TRACE_MAX_SITES] = {0}, *pout[TRACE_MAX_SITES] = {0};
        rewind(in);
        while (fgets(line, sizeof line, in)) {
            char f[10][256];
            const char *p = line;
            int bad = 0, nf = 0;
            for (; nf < 10 && *p && *p != '\n' && !bad; nf++)
                bad = csv_field(&p, f[nf], sizeof f[nf]) != 0;
            if (bad || nf < 7 || strcmp(f[0], "site") == 0)
                continue;
            long inst = strtol(f[1], NULL, 10);
            int thr = (int)strtol(f[2], NULL, 10);
            double lo = strtod(f[3], NULL), hi = strtod(f[4], NULL);
            double start = strtod(f[5], NULL);
            int s = 0;
            while (s < nsites && strcmp(site[s], f[0]) != 0)
                s++;
            if (pass == 0) {
                if (s == nsites) {
                    if (nsites == TRACE_MAX_SITES)
                        continue;
                    snprintf(site[nsites], sizeof site[0], "%s", f[0]);
                    last[nsites] = inst;
                    t0[nsites] = start;
                    maxthr[nsites++] = thr;
                } else if (inst > last[s]) {
                    last[s] = inst;
                    t0[s] = start;
                    maxthr[s] = thr;
                } else if (inst == last[s]) {
                    if (start < t0[s])
                        t0[s] = start;
                    if (thr > maxthr[s])
                        maxthr[s] = thr;
                }
                continue;
            }
            if (s == nsites)
                continue;
            int plan = -1;
            for (int k = 0; nf == 10 && k < 4; k++)
                if (strcmp(f[9], plan_names[k]) == 0)
                    plan = k;
            if (plan >= 0) {
                if (!pout[s]) {
                    snprintf(path, sizeof path, "%s/plans-%d.dat", dir, s);
                    if ((pout[s] = fopen(path, "w")) != NULL)
                        fprintf(pout[s], "# instance plan (0 dealt, 1 own, 2 self, 3 tiny)\n");
                }
                if (pout[s] && lo == 0.0) /* one line per instance: its chunk at 0 */
                    planned[s] += fprintf(pout[s], "%ld %d\n", inst, plan) > 0;
            }
            if (inst != last[s])
                continue;
            if (!out[s]) {
                snprintf(path, sizeof path, "%s/trace-%d.dat", dir, s);
                if (!(out[s] = fopen(path, "w")))
                    continue;
                fprintf(out[s], "# thread start_ms chunk_size (site %s instance %ld)\n", site[s],
                        last[s]);
            }
            fprintf(out[s], "%d %.6f %.0f\n", thr, (start - t0[s]) / 1e6, hi - lo);
        }
        for (int s = 0; pass == 1 && s < nsites; s++) {
            if (out[s])
                fclose(out[s]);
            if (pout[s])
                fclose(pout[s]);
        }
    }
    fclose(in);
    if (nsites == 0) {
        fprintf(stderr, "lf-bench: trace %s has no chunks\n", trace);
        return -1;
    }
    for (int s = 0; s < nsites; s++) {
        char name[256], title[300];
        const char *label = site[s];
        for (int k = 0; k < nlabels; k++)
            if (strcmp(sites[k], site[s]) == 0)
                label = labels[k];
        /* a file name from the label: lf:dynamic,8 -> lf_dynamic_8 */
        size_t j = 0;
        for (; label[j] && j + 1 < sizeof name; j++)
            name[j] = isalnum((unsigned char)label[j]) || label[j] == '-' ? label[j] : '_';
        name[j] = 0;
        if (label == site[s])
            snprintf(title, sizeof title, "%.200s", site[s]);
        else
            snprintf(title, sizeof title, "%.120s (%.120s)", label, site[s]);
        char pdat[4096];
        double conf = 0.0;
        snprintf(pdat, sizeof pdat, "%s/profile-%d.dat", dir, s);
        int bins = write_profile(trace, site[s], last[s], pdat, &conf);
        snprintf(path, sizeof path, "%s/trace-%s.gp", dir, name);
        FILE *g = fopen(path, "w");
        if (!g)
            return -1;
        fprintf(g, "set terminal pngcairo size %d,500 noenhanced\nset output '%s/trace-%s.png'\n",
                bins ? 1500 : 900, dir, name);
        if (bins)
            /* the learned profile beside the chunk timeline */
            fprintf(g, "set multiplot layout 1,2\n");
        fprintf(g,
                "set title 'chunks of %s, the last run (instance %ld)'\n"
                "set xlabel 'time since the loop began (ms)'\nset ylabel 'chunk size "
                "(iterations)'\n"
                "set grid\nset key outside right\n"
                "plot for [t=0:%d] '%s/trace-%d.dat' using ($1==t ? $2 : 1/0):3 "
                "with linespoints pt 7 ps 0.5 title sprintf('thread %%d', t)\n",
                title, last[s], maxthr[s], dir, s);
        if (bins)
            fprintf(g,
                    "set title 'cost profile learned after it (confidence %.2f)'\n"
                    "set xlabel 'iteration'\nset ylabel 'time per iteration / the mean'\n"
                    "set yrange [0:*]\nunset key\n"
                    "plot '%s' using (($1+$2)/2):3:1:2 with xerrorbars pt 7 ps 0.4, "
                    "'' using 1:3 with steps lc rgb 'gray'\nunset multiplot\n",
                    conf, pdat);
        fclose(g);
        if (run_gnuplot(path) != 0)
            rc = -1;
        if (!planned[s])
            continue;
        /* The plan each execution ran (auto's choice over executions). */
        snprintf(path, sizeof path, "%s/plans-%s.gp", dir, name);
        if (!(g = fopen(path, "w")))
            return -1;
        fprintf(g,
                "set terminal pngcairo size 900,300 noenhanced\nset output '%s/plans-%s.png'\n"
                "set title 'execution plan of %s, by execution'\nset xlabel 'execution'\n"
                "set yrange [-0.5:3.5]\nset ytics ('dealt' 0, 'own' 1, 'self' 2, 'tiny' 3)\n"
                "set grid\nunset key\nplot '%s/plans-%d.dat' using 1:2 with points pt 7 ps 0.6\n",
                dir, name, title, dir, s);
        fclose(g);
        if (run_gnuplot(path) != 0)
            rc = -1;
    }
    return rc;
}
#endif

int bench_plot(const char *dir, const struct bench_row *rows, int nrows, const char *trace,
               const char *const *sites, const char *const *labels, int nlabels)
{
#ifdef LF_GNUPLOT
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "lf-bench: cannot create %s: %s\n", dir, strerror(errno));
        return -1;
    }
    int rc = nrows > 0 ? plot_efficiency(dir, rows, nrows) : 0;
    if (trace && *trace && plot_trace(dir, trace, sites, labels, nlabels) != 0)
        rc = -1;
    return rc;
#else
    (void)rows;
    (void)nrows;
    (void)trace;
    (void)sites;
    (void)labels;
    (void)nlabels;
    fprintf(stderr, "lf-bench: --plot %s: built without gnuplot (configure did not find it)\n",
            dir);
    return -1;
#endif
}
