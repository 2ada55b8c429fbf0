/* bench/lf-plan.c - command line of lib/sim/plan.c: optimal multi-round
 * divisible-load schedules of seed 004 (LP by GLPK) beside the heuristics
 * that choose an activation sequence. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/plan.h"

#define EXIT_USAGE 2
/* Bounds that keep an LP solvable in seconds (n activations: n^2 entries). */
#define MAX_ACT     2000
#define MAX_SEARCH  200000 /* LPs an exhaustive search may solve */
#define MAX_WORKERS 10000

static const char usage_text[] =
    "usage: lf-plan (--platform FILE | --speeds LIST) (--tasks W | --deadline T)\n"
    "               [--sequence LIST] [--search N] [options]\n"
    "\n"
    "Multi-round divisible-load schedules of seed 004 (Yang, Casanova, Drozdowski,\n"
    "Lawenda, Legrand, \"On the complexity of multi-round divisible load\n"
    "scheduling\"): a master sends chunks over one port in the order of an\n"
    "activation sequence; sending x units to worker i takes S_i + x C_i, computing\n"
    "them L_i + x A_i, from the lf-sim platform: S = stage_lat, C = bytes_per_iter /\n"
    "bandwidth, A = 1 / speed, L = latency (seed 004 has L = 0).  For a given\n"
    "sequence its linear program (eq. 2, GLPK; exact rational simplex up to 64\n"
    "activations) gives the chunk sizes that minimise the makespan of W units\n"
    "(--tasks), or that maximise the load done by a deadline T (--deadline, eq. 3).\n"
    "Without --sequence, with --tasks, it compares the heuristics that choose a\n"
    "sequence, each with its makespan and its ratio to the best one found:\n"
    "  comm-first       COMMUNICATION-FIRST (§6.1): k rounds of the workers by\n"
    "                   increasing C, LP-optimal chunks, more rounds while it helps\n"
    "  periodic         PERIODIC (§6.4): the throughput LP's shares in k equal\n"
    "                   periods (k = max(sqrt(a/b), (a'-a)/b), to an integer)\n"
    "  periodic-opt     PERIODIC-OPTIMIZED: periodic's sequence, LP-optimal chunks\n"
    "  umr              UMR's rounds (seed 003 §5.2, all workers, as lf-sim's umr\n"
    "                   plans them)\n"
    "  umr-opt          UMR's sequence, LP-optimal chunks\n"
    "  search           (--search N) the best of every sequence of 1 to N\n"
    "                   activations: the optimum among them\n"
    "\n"
    "platform:\n"
    "  --platform FILE      lf-sim's platform file (doc/lf-sim.md); no speed profiles\n"
    "                       and no domains (the model has neither)\n"
    "  --speeds LIST        worker speeds (units per second), e.g. 1,1/2\n"
    "  --workers N          N workers cycling through the --speeds list\n"
    "  --latency S          compute start-up per chunk, seconds (every worker)\n"
    "  --stage-lat S        communication start-up per chunk (S_i), seconds\n"
    "  --bandwidth B        bytes per second (0: unlimited, C = 0)\n"
    "  --bytes-per-iter X   bytes per unit of load (C = X / B)\n"
    "problem:\n"
    "  --tasks W            load to schedule (units, > 0; a fraction such as 17/12\n"
    "                       is accepted): minimise the makespan\n"
    "  --deadline T         time bound (seconds, > 0): maximise the load; needs\n"
    "                       --sequence or --search\n"
    "  --sequence LIST      activation sequence, workers numbered from 1 as in\n"
    "                       seed 004 (platform order), e.g. 2,1,2,1,2\n"
    "  --search N           also try every sequence of at most N activations\n"
    "                       (workers^1 + ... + workers^N LPs, at most 200000)\n"
    "  --max-activations N  bound of comm-first and periodic (default 1000, at most\n"
    "                       2000)\n"
    "output:\n"
    "  --chunks             also list every activation: worker and load\n"
    "  --format F           table (default), csv or json\n"
    "  --help               this text\n"
    "\n"
    "Makespans and loads are printed to 12 digits and, when one lies within 1e-12\n"
    "(relative) of a fraction with a denominator up to 100000, also as that\n"
    "fraction.  An LP of n activations has about n^2 coefficients: hundreds of\n"
    "activations take seconds.  Bad input exits with status 2.\n"
    "\n"
    "example (seed 004, Fig. 1 (a): W = 2 by T = 70/12 with sequence (2, 1)):\n"
    "  printf 'bytes_per_iter 1\\nspeed=1 stage_lat=1 bandwidth=0.1\\n"
    "speed=1 stage_lat=2 bandwidth=1\\n' > fig1\n"
    "  lf-plan --platform fig1 --deadline 70/12 --sequence 2,1\n"
    "example (heuristics against the best of all sequences of up to 6 activations):\n"
    "  lf-plan --speeds 1,1/2,1/3 --stage-lat 0.5 --bandwidth 4 --bytes-per-iter 1 \\\n"
    "          --tasks 100 --search 6\n";

static void __attribute__((format(printf, 1, 2), noreturn)) die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "lf-plan: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(lf-plan --help explains the options)\n");
    exit(EXIT_USAGE);
}

static double opt_num(const char *opt, const char *s, double lo, double hi)
{
    double v;
    if (lf__sim_num_parse(s, &v) || !(v >= lo && v <= hi))
        die_usage("%s %s: expected a number from %g to %g (decimal or a fraction a/b)", opt, s, lo,
                  hi);
    return v;
}

static int opt_int(const char *opt, const char *s, int lo, int hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        die_usage("%s %s: expected an integer from %d to %d", opt, s, lo, hi);
    return (int)v;
}

/* One row of the comparison. */
struct row {
    const char *method;
    int rounds; /* 0: not a round-based plan */
    struct lf__lp_plan pl;
};

static void print_num(double x)
{
    long long a, b;
    if (lf__plan_fraction(x, &a, &b) && b > 1)
        printf("%.12g (%lld/%lld)", x, a, b);
    else
        printf("%.12g", x);
}

static void csv_frac(double x)
{
    long long a, b;
    if (lf__plan_fraction(x, &a, &b))
        printf("%lld/%lld", a, b);
}

static void report(const char *fmt, const struct row *r, int nr, int p, double W, double T,
                   int chunks)
{
    int optT = W > 0;
    double best = optT ? INFINITY : 0.0;
    for (int i = 0; i < nr; i++)
        best = optT ? fmin(best, r[i].pl.T) : fmax(best, r[i].pl.W);
    if (strcmp(fmt, "csv") == 0) {
        printf("method,activations,rounds,makespan,load,makespan_fraction,load_fraction,ratio,"
               "sequence,loads\n");
        for (int i = 0; i < nr; i++) {
            const struct lf__lp_plan *pl = &r[i].pl;
            printf("%s,%d,%d,%.12g,%.12g,", r[i].method, pl->n, r[i].rounds, pl->T, pl->W);
            csv_frac(pl->T);
            putchar(',');
            csv_frac(pl->W);
            printf(",%.9f,", optT ? pl->T / best : pl->W / best);
            for (int k = 0; k < pl->n && chunks; k++)
                printf("%s%d", k ? ";" : "", pl->seq[k] + 1);
            putchar(',');
            for (int k = 0; k < pl->n && chunks; k++)
                printf("%s%.12g", k ? ";" : "", pl->alpha[k]);
            putchar('\n');
        }
        return;
    }
    if (strcmp(fmt, "json") == 0) {
        printf(
            "{\"source\": \"seed 004 (Yang, Casanova, Drozdowski, Lawenda, Legrand), eqs. 2-3\",\n"
            " \"workers\": %d, \"objective\": \"%s\", \"%s\": %.12g,\n \"plans\": [",
            p, optT ? "makespan" : "load", optT ? "tasks" : "deadline", optT ? W : T);
        for (int i = 0; i < nr; i++) {
            const struct lf__lp_plan *pl = &r[i].pl;
            long long a, b;
            printf("%s\n  {\"method\": \"%s\", \"activations\": %d, \"rounds\": %d, "
                   "\"makespan\": %.12g, \"load\": %.12g, \"ratio\": %.9f",
                   i ? "," : "", r[i].method, pl->n, r[i].rounds, pl->T, pl->W,
                   optT ? pl->T / best : pl->W / best);
            if (lf__plan_fraction(optT ? pl->T : pl->W, &a, &b))
                printf(", \"%s_fraction\": \"%lld/%lld\"", optT ? "makespan" : "load", a, b);
            if (chunks) {
                printf(", \"sequence\": [");
                for (int k = 0; k < pl->n; k++)
                    printf("%s%d", k ? ", " : "", pl->seq[k] + 1);
                printf("], \"loads\": [");
                for (int k = 0; k < pl->n; k++)
                    printf("%s%.12g", k ? ", " : "", pl->alpha[k]);
                printf("]");
            }
            printf("}");
        }
        printf("\n]}\n");
        return;
    }
    if (optT)
        printf("lf-plan: %d workers, W = %.12g, minimum makespan (seed 004 eq. 2, one port)\n", p,
               W);
    else
        printf("lf-plan: %d workers, deadline T = %.12g, maximum load (seed 004 eq. 3, one "
               "port)\n",
               p, T);
    printf("%-14s %11s %7s %10s  %s\n", "method", "activations", "rounds", "/ best",
           optT ? "makespan" : "load");
    for (int i = 0; i < nr; i++) {
        const struct lf__lp_plan *pl = &r[i].pl;
        printf("%-14s %11d ", r[i].method, pl->n);
        if (r[i].rounds)
            printf("%7d", r[i].rounds);
        else
            printf("%7s", "-");
        printf(" %10.6f  ", optT ? pl->T / best : pl->W / best);
        print_num(optT ? pl->T : pl->W);
        putchar('\n');
        for (int k = 0; k < pl->n && chunks; k++) {
            printf("    %4d  worker %-5d load ", k + 1, pl->seq[k] + 1);
            print_num(pl->alpha[k]);
            putchar('\n');
        }
    }
}

/* Parse a 1-based activation list into pl (0-based). */
static void parse_sequence(const char *text, int p, struct lf__lp_plan *pl)
{
    int n = 1;
    for (const char *s = text; *s; s++)
        n += *s == ',';
    if (n > MAX_ACT)
        die_usage("--sequence: at most %d activations", MAX_ACT);
    if (lf__plan_alloc(pl, n))
        die_usage("--sequence: out of memory");
    const char *s = text;
    for (int k = 0; k < n; k++) {
        char *end;
        errno = 0;
        long v = strtol(s, &end, 10);
        if (errno || end == s || (*end != ',' && *end != '\0') || v < 1 || v > p)
            die_usage("--sequence %s: expected worker numbers from 1 to %d separated by commas",
                      text, p);
        pl->seq[k] = (int)v - 1;
        s = end + (*end == ',');
    }
}

int main(int argc, char **argv)
{
    enum {
        O_PLATFORM = 256,
        O_SPEEDS,
        O_WORKERS,
        O_LATENCY,
        O_STAGE_LAT,
        O_BANDWIDTH,
        O_BPI,
        O_TASKS,
        O_DEADLINE,
        O_SEQUENCE,
        O_SEARCH,
        O_MAXACT,
        O_CHUNKS,
        O_FORMAT,
        O_HELP
    };
    static const struct option opts[] = {
        {"platform", required_argument, 0, O_PLATFORM},
        {"speeds", required_argument, 0, O_SPEEDS},
        {"workers", required_argument, 0, O_WORKERS},
        {"latency", required_argument, 0, O_LATENCY},
        {"stage-lat", required_argument, 0, O_STAGE_LAT},
        {"bandwidth", required_argument, 0, O_BANDWIDTH},
        {"bytes-per-iter", required_argument, 0, O_BPI},
        {"tasks", required_argument, 0, O_TASKS},
        {"deadline", required_argument, 0, O_DEADLINE},
        {"sequence", required_argument, 0, O_SEQUENCE},
        {"search", required_argument, 0, O_SEARCH},
        {"max-activations", required_argument, 0, O_MAXACT},
        {"chunks", no_argument, 0, O_CHUNKS},
        {"format", required_argument, 0, O_FORMAT},
        {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0},
    };
    const char *platform = NULL, *speeds = NULL, *sequence = NULL, *fmt = "table";
    double latency = -1, stage_lat = -1, bandwidth = -1, bpi = -1, W = 0, T = 0;
    int nworkers = 0, search = 0, max_act = 1000, chunks = 0, c;
    char err[1024];

    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_PLATFORM:
            platform = optarg;
            break;
        case O_SPEEDS:
            speeds = optarg;
            break;
        case O_WORKERS:
            nworkers = opt_int("--workers", optarg, 1, MAX_WORKERS);
            break;
        case O_LATENCY:
            latency = opt_num("--latency", optarg, 0, 1e6);
            break;
        case O_STAGE_LAT:
            stage_lat = opt_num("--stage-lat", optarg, 0, 1e6);
            break;
        case O_BANDWIDTH:
            bandwidth = opt_num("--bandwidth", optarg, 0, 1e18);
            break;
        case O_BPI:
            bpi = opt_num("--bytes-per-iter", optarg, 0, 1e12);
            break;
        case O_TASKS:
            W = opt_num("--tasks", optarg, 1e-300, 1e15);
            break;
        case O_DEADLINE:
            T = opt_num("--deadline", optarg, 1e-300, 1e12);
            break;
        case O_SEQUENCE:
            sequence = optarg;
            break;
        case O_SEARCH:
            search = opt_int("--search", optarg, 1, 64);
            break;
        case O_MAXACT:
            max_act = opt_int("--max-activations", optarg, 1, MAX_ACT);
            break;
        case O_CHUNKS:
            chunks = 1;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "table") && strcmp(optarg, "csv") && strcmp(optarg, "json"))
                die_usage("--format %s: expected table, csv or json", optarg);
            fmt = optarg;
            break;
        case O_HELP:
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        default:
            die_usage("unknown or incomplete option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die_usage("unexpected argument \"%s\"", argv[optind]);
    if (!platform == !speeds)
        die_usage("give exactly one of --platform FILE and --speeds LIST");
    if (platform && nworkers)
        die_usage("--workers goes with --speeds, not --platform");
    if ((W > 0) == (T > 0))
        die_usage("give exactly one of --tasks W (minimise the makespan) and --deadline T "
                  "(maximise the load)");
    if (T > 0 && !sequence && !search)
        die_usage("--deadline needs --sequence LIST or --search N (the heuristics plan a load)");

    struct lf__sim_platform pf;
    int rc = platform ? lf__sim_platform_load(&pf, platform, err, sizeof err)
                      : lf__sim_platform_speeds(&pf, speeds, nworkers, err, sizeof err);
    if (rc)
        die_usage("%s", err);
    if (pf.nworkers > MAX_WORKERS)
        die_usage("%d workers: lf-plan solves LPs for at most %d", pf.nworkers, MAX_WORKERS);
    lf__sim_platform_set(&pf, latency, stage_lat, bandwidth, bpi);
    int p = pf.nworkers;
    struct lf__plan_worker *w = calloc((size_t)p, sizeof *w);
    if (!w)
        die_usage("out of memory for %d workers", p);
    if (lf__plan_workers(&pf, w, err, sizeof err))
        die_usage("%s", err);
    if (search) {
        double lps = 0, pk = 1;
        for (int k = 1; k <= search; k++)
            lps += pk *= p;
        if (lps > MAX_SEARCH)
            die_usage("--search %d: %.0f sequences on %d workers, at most %d (choose a smaller N)",
                      search, lps, p, MAX_SEARCH);
    }

    struct row rows[8];
    int nr = 0, k;
    if (sequence) {
        rows[nr] = (struct row){.method = "sequence"};
        parse_sequence(sequence, p, &rows[nr].pl);
        if ((rc = lf__plan_lp(w, p, &rows[nr].pl, W, T, err, sizeof err)) != 0)
            goto fail;
        nr++;
    } else if (W > 0) {
        rows[nr] = (struct row){.method = "comm-first"};
        if ((rc = lf__plan_comm_first(w, p, W, max_act, &rows[nr].pl, err, sizeof err)) != 0)
            goto fail;
        rows[nr].rounds = 0;
        nr++;
        rows[nr] = (struct row){.method = "periodic"};
        if ((rc = lf__plan_periodic(w, p, W, max_act, &rows[nr].pl, &k, err, sizeof err)) != 0)
            goto fail;
        rows[nr++].rounds = k;
        rows[nr] = (struct row){.method = "periodic-opt", .rounds = k};
        if ((rc = lf__plan_alloc(&rows[nr].pl, rows[nr - 1].pl.n)) != 0)
            goto fail;
        memcpy(rows[nr].pl.seq, rows[nr - 1].pl.seq, (size_t)rows[nr].pl.n * sizeof(int));
        if ((rc = lf__plan_lp(w, p, &rows[nr].pl, W, 0, err, sizeof err)) != 0)
            goto fail;
        nr++;
        rows[nr] = (struct row){.method = "umr"};
        if ((rc = lf__plan_umr(w, p, W, &rows[nr].pl, &k, err, sizeof err)) != 0)
            goto fail;
        rows[nr++].rounds = k;
        if (rows[nr - 1].pl.n <= MAX_ACT) {
            rows[nr] = (struct row){.method = "umr-opt", .rounds = k};
            if ((rc = lf__plan_alloc(&rows[nr].pl, rows[nr - 1].pl.n)) != 0)
                goto fail;
            memcpy(rows[nr].pl.seq, rows[nr - 1].pl.seq, (size_t)rows[nr].pl.n * sizeof(int));
            if ((rc = lf__plan_lp(w, p, &rows[nr].pl, W, 0, err, sizeof err)) != 0)
                goto fail;
            nr++;
        }
    }
    if (search) {
        rows[nr] = (struct row){.method = "search"};
        if ((rc = lf__plan_search(w, p, search, W, T, &rows[nr].pl, err, sizeof err)) != 0)
            goto fail;
        nr++;
    }
    report(fmt, rows, nr, p, W, T, chunks);
    for (int i = 0; i < nr; i++)
        lf__plan_free(&rows[i].pl);
    free(w);
    lf__sim_platform_free(&pf);
    return 0;
fail:
    if (rc == -ERANGE)
        die_usage("%s", err);
    fprintf(stderr, "lf-plan: %s\n", err);
    return 1;
}
