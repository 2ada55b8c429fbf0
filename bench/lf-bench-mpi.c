/* bench/lf-bench-mpi.c - lf-bench across MPI ranks: one kernel, the same
 * scenario options on every rank (a slowed rank, a loaded rank), several
 * rank-level schedules side by side, interleaved repetitions, each row's
 * makespan against the ideal T1 / sum(s_i).  `mpirun -np 4 lf-bench --mpi
 * ...` runs it (lf-bench hands its arguments over); so does running it
 * directly.  The kernels and the table are lf-bench's (bench/libbench.la).
 *
 * Schedules (--schedules, comma-separated, each starting with a prefix):
 *   lf:SPEC      loopfarm's one-sided claims, SPEC at the rank level
 *   master:SPEC  loopfarm's two-sided master mode (rank 0 serves and
 *                computes nothing); master:dynamic,1 is the DLS4LB-style
 *                self-scheduler, one chunk per round trip
 *   block        a static block split: rank r takes [rN/P, (r+1)N/P),
 *                its threads split it with schedule(static); no runtime
 * Within a rank, loopfarm rows share each rank chunk under
 * --thread-schedule (default dynamic,1... see --help).
 *
 * Staging (--bytes-per-iter, or --regime): the input is owned by the
 * ranks in blocks; --regime bandwidth (64 KiB per 2 us iteration: moving
 * the input costs more than computing it) and --regime compute (1 KiB per
 * 50 us iteration) measure the two ends, and the table is followed by each
 * row's rank chunks: within the claiming rank's own block or fetched.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "loopfarm/mpi.h"

#define PROG     "lf-bench-mpi"
#define MAX_SLOW 64

enum kind { K_LF, K_MASTER, K_BLOCK };

struct sched {
    char label[64];
    enum kind kind;
    const char *spec; /* K_LF, K_MASTER: inside label */
    lf_mpi_loop *ml;
    lf_mpi_data *data;        /* --bytes-per-iter: the input owned by ranks */
    struct lf_mpi_stats last; /* this rank's, of the latest execution */
};

struct config {
    enum bench_kernel_id kernel;
    long n, grain;
    uint64_t seed;
    int threads, reps;
    int slow_rank[MAX_SLOW], slow_factor[MAX_SLOW], nslow;
    int hog_rank[MAX_SLOW], nhog;
    char thread_spec[64];
    long bytes; /* --bytes-per-iter (-1 until set) */
    int kernel_set;
    struct sched s[BENCH_MAX_SCHEDS];
    int ns;
    enum bench_format format;
};

static int rank, nranks;

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
    if (rank == 0) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, PROG ": ");
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fprintf(stderr, "\n(" PROG " --help lists the options)\n");
    }
    MPI_Finalize();
    exit(BENCH_EXIT_USAGE);
}

static void help(void)
{
    printf(
        "Usage: mpirun -np P lf-bench --mpi [OPTION]...   (or mpirun -np P " PROG " ...)\n"
        "Run one kernel across P MPI ranks of T threads each with several rank-level\n"
        "schedules, interleaved, and report each schedule's makespan (the slowest\n"
        "rank's) against the ideal T1 / sum(s_i) over all P x T threads.\n"
        "\n"
        "  --kernel K        spin | triangle | random | mandelbrot | spmv | calcium | graph\n"
        "                    (lf-bench's kernels; the data kernels are not offered here) [spin]\n"
        "  --n N             iterations [sized so that T1 is ~100 ms]\n"
        "  --grain G         the kernel's size knob, as in lf-bench [the kernel's default]\n"
        "  --seed S          seed of the random kernels [1]\n"
        "  --threads T       OpenMP threads per rank [1]\n"
        "  --reps R          repetitions, interleaved over the schedules; medians [5]\n"
        "  --slow R:F        rank R's iterations cost F times more (an emulated slow rank);\n"
        "                    repeatable                                   e.g. --slow 3:4\n"
        "  --hog R           a busy background process on each core rank R's threads use\n"
        "                    (a rank on a loaded core); repeatable         e.g. --hog 1\n"
        "  --schedules LIST  comma-separated, each with a prefix:\n"
        "                      lf:SPEC      loopfarm, one-sided claims, SPEC at the rank level\n"
        "                      master:SPEC  loopfarm's two-sided master mode (rank 0 serves\n"
        "                                   and computes nothing); master:dynamic,1 is the\n"
        "                                   DLS4LB-style one chunk per round trip\n"
        "                      block        static block split, no runtime at all\n"
        "                    [block,lf:fac2,lf:af,lf:multi,master:dynamic,1]\n"
        "  --thread-schedule SPEC  how a rank's threads share its rank chunks [dynamic,1]\n"
        "  --bytes-per-iter X  each iteration also reads X bytes of input owned by the ranks\n"
        "                    in blocks (rank r: iterations [rN/P, (r+1)N/P)); loopfarm rows\n"
        "                    fetch other ranks' blocks with MPI_Get; then the seed 003 costs\n"
        "                    each rank measured are printed, with an lf-sim command that\n"
        "                    models 1000 such ranks [0]\n"
        "  --regime R        staging presets for --kernel spin --grain --bytes-per-iter (each\n"
        "                    still settable): bandwidth = 2 us and 64 KiB per iteration\n"
        "                    (moving the input costs more than computing it), compute = 50 us\n"
        "                    and 1 KiB (computing costs far more); add --slow R:F to see a\n"
        "                    slowed owner's block taken by the others\n"
        "  --csv | --json    rows as CSV or JSON instead of a table\n"
        "  --help            this text\n"
        "\n"
        "Nominal speeds: 1 per thread, 1/F for a slow rank's, 1/2 for a thread on a hogged\n"
        "core.  T1 is measured on rank 0, one thread, before any load starts.\n"
        "Example: mpirun --oversubscribe -np 4 lf-bench --mpi --kernel random --slow 3:4 \\\n"
        "           --schedules block,lf:af,master:dynamic,1 --reps 3\n");
}

static long parse_long(const char *opt, const char *v, long min, long max)
{
    char *end;
    errno = 0;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || end == v || *end || errno || x < min || x > max)
        usage_error("%s: expected a whole number from %ld to %ld, got '%s'", opt, min, max,
                    v ? v : "");
    return x;
}

static const char *const prefixes[] = {"lf:", "master:", "block"};

static int prefix_at(const char *p)
{
    for (int i = 0; i < 3; i++)
        if (strncmp(p, prefixes[i], strlen(prefixes[i])) == 0)
            return i;
    return -1;
}

static void parse_schedules(struct config *c, char *rest)
{
    c->ns = 0;
    if (!*rest)
        usage_error("--schedules: empty list");
    while (*rest) {
        char *p = bench_list_next(&rest, prefix_at);
        int k = prefix_at(p);
        if (k < 0)
            usage_error("--schedules: '%s' does not start with lf:, master: or block", p);
        if (c->ns == BENCH_MAX_SCHEDS)
            usage_error("--schedules: more than %d schedules", BENCH_MAX_SCHEDS);
        struct sched *s = &c->s[c->ns++];
        if (strlen(p) >= sizeof s->label)
            usage_error("--schedules: '%s' is too long", p);
        strcpy(s->label, p);
        s->kind = (enum kind)k;
        s->spec = s->label + strlen(prefixes[k]);
        if (k == K_BLOCK && *s->spec)
            usage_error("--schedules: block takes no parameters, got '%s'", p);
        if (k != K_BLOCK && !*s->spec)
            usage_error("--schedules: '%s' names no schedule", p);
    }
}

static void parse_options(struct config *c, int argc, char **argv)
{
    static char defaults[] = "block,lf:fac2,lf:af,lf:multi,master:dynamic,1";
    c->kernel = KERNEL_SPIN;
    c->n = 0;
    c->grain = -1;
    c->seed = 1;
    c->threads = 1;
    c->reps = 5;
    c->format = FORMAT_TABLE;
    c->bytes = -1;
    long regime_grain = -1, regime_bytes = 0;
    snprintf(c->thread_spec, sizeof c->thread_spec, "dynamic,1");
    char *list = defaults;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            if (rank == 0)
                help();
            MPI_Finalize();
            exit(0);
        } else if (!strcmp(a, "--mpi")) {
            continue; /* lf-bench's switch, passed along */
        } else if (!strcmp(a, "--csv")) {
            c->format = FORMAT_CSV;
            continue;
        } else if (!strcmp(a, "--json")) {
            c->format = FORMAT_JSON;
            continue;
        }
        if (!v)
            usage_error("%s: missing value (or unknown option)", a);
        i++;
        if (!strcmp(a, "--kernel")) {
            int k = bench_kernel_lookup(v);
            if (k < 0 || bench_kernel_has_data((enum bench_kernel_id)k))
                usage_error("--kernel: '%s' is not one of spin, triangle, random, mandelbrot, "
                            "spmv, calcium, graph",
                            v);
            c->kernel = (enum bench_kernel_id)k;
            c->kernel_set = 1;
        } else if (!strcmp(a, "--regime")) {
            if (!strcmp(v, "bandwidth")) {
                regime_grain = 2000;
                regime_bytes = 65536;
            } else if (!strcmp(v, "compute")) {
                regime_grain = 50000;
                regime_bytes = 1024;
            } else {
                usage_error("--regime: expected bandwidth or compute, got '%s'", v);
            }
        } else if (!strcmp(a, "--n")) {
            c->n = parse_long(a, v, 1, LONG_MAX / 4);
        } else if (!strcmp(a, "--grain")) {
            c->grain = parse_long(a, v, 1, 1000000000);
        } else if (!strcmp(a, "--seed")) {
            c->seed = (uint64_t)parse_long(a, v, 0, LONG_MAX);
        } else if (!strcmp(a, "--threads")) {
            c->threads = (int)parse_long(a, v, 1, BENCH_MAX_THREADS);
        } else if (!strcmp(a, "--reps")) {
            c->reps = (int)parse_long(a, v, 1, 1000);
        } else if (!strcmp(a, "--slow")) {
            char *colon = strchr(v, ':');
            if (!colon || c->nslow == MAX_SLOW)
                usage_error("--slow: expected RANK:FACTOR, e.g. 3:4, got '%s'", v);
            *colon = 0;
            c->slow_rank[c->nslow] = (int)parse_long("--slow RANK", v, 0, nranks - 1);
            c->slow_factor[c->nslow++] = (int)parse_long("--slow FACTOR", colon + 1, 1, 1000);
        } else if (!strcmp(a, "--hog")) {
            if (c->nhog == MAX_SLOW)
                usage_error("--hog: more than %d", MAX_SLOW);
            c->hog_rank[c->nhog++] = (int)parse_long(a, v, 0, nranks - 1);
        } else if (!strcmp(a, "--bytes-per-iter")) {
            c->bytes = parse_long(a, v, 0, 1 << 20);
        } else if (!strcmp(a, "--schedules")) {
            list = argv[i];
        } else if (!strcmp(a, "--thread-schedule")) {
            lf_schedule *ls;
            char err[512];
            if (lf_schedule_parse(v, &ls, err, sizeof err) != 0)
                usage_error("--thread-schedule: '%s': %s", v, err);
            lf_schedule_free(ls);
            snprintf(c->thread_spec, sizeof c->thread_spec, "%s", v);
        } else {
            usage_error("unknown option '%s'", a);
        }
    }
    parse_schedules(c, list);
    if (regime_grain > 0) {
        if (c->kernel_set && c->kernel != KERNEL_SPIN)
            usage_error("--regime: sets --kernel spin; got --kernel %s",
                        bench_kernel_name(c->kernel));
        c->kernel = KERNEL_SPIN;
        if (c->grain < 0)
            c->grain = regime_grain;
        if (c->bytes < 0)
            c->bytes = regime_bytes;
    }
    if (c->bytes < 0)
        c->bytes = 0;
    if (c->grain < 0)
        c->grain = bench_kernel_default_grain(c->kernel);
    if (c->n == 0)
        c->n = bench_kernel_default_n(c->kernel, c->grain);
}

/* This rank's cost factor (1, or F under --slow) and whether it is hogged. */
static int factor_of(const struct config *c, int r)
{
    int f = 1;
    for (int i = 0; i < c->nslow; i++)
        if (c->slow_rank[i] == r)
            f = c->slow_factor[i];
    return f;
}

static int hogged(const struct config *c, int r)
{
    for (int i = 0; i < c->nhog; i++)
        if (c->hog_rank[i] == r)
            return 1;
    return 0;
}

/* One execution of the loop on this rank under schedule s: its time from
 * the common start (a barrier) to its team's exit, and its tally. */
static volatile unsigned char sink; /* input bytes read, so that the reads happen */

/* Read iteration i's input (--bytes-per-iter) at p: one byte per cache line. */
static unsigned char touch(const unsigned char *p, long bytes)
{
    unsigned char x = 0;
    for (long b = 0; b < bytes; b += 64)
        x ^= p[b];
    return x;
}

static double run_once(const struct config *c, const struct bench_kernel *k, struct sched *s,
                       const unsigned char *block, struct bench_tally *tl, long rank_chunks[3])
{
    const int rep = factor_of(c, rank);
    long runs = 0, iters = 0;
    uint64_t total = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (s->kind == K_BLOCK) {
        long lo = (long)((double)k->n * rank / nranks),
             hi = (long)((double)k->n * (rank + 1) / nranks);
#pragma omp parallel num_threads(c->threads) reduction(+ : runs, iters, total)
        {
            long next = -1;
            uint64_t sum = 0;
            unsigned char x = 0;
#pragma omp for schedule(static)
            for (long i = lo; i < hi; i++) {
                BENCH_BODY(i);
                if (c->bytes)
                    x ^= touch(block + (i - lo) * c->bytes, c->bytes); /* its own block */
            }
            sink = x;
            total += sum;
        }
        rank_chunks[0] = rank_chunks[1] = 1; /* one chunk, its own block */
        rank_chunks[2] = 0;
    } else {
#pragma omp parallel num_threads(c->threads) reduction(+ : runs, iters, total)
        {
            int tid = omp_get_thread_num();
            long next = -1, first;
            unsigned long cnt;
            uint64_t sum = 0;
            unsigned char x = 0;
            lf_mpi_loop_begin_data(s->ml, tid, 0, k->n, 1, s->data);
            while (lf_mpi_loop_next(s->ml, tid, &first, &cnt)) {
                const unsigned char *in = lf_mpi_loop_input(s->ml, tid);
                for (long i = first; i < first + (long)cnt; i++) {
                    BENCH_BODY(i);
                    if (in)
                        x ^= touch(in + (i - first) * c->bytes, c->bytes);
                }
            }
            lf_mpi_loop_end(s->ml, tid);
            sink = x;
            total += sum;
        }
        lf_mpi_loop_last_stats(s->ml, &s->last);
        rank_chunks[0] = (long)s->last.rank_chunks;
        rank_chunks[1] = (long)s->last.local_chunks;
        rank_chunks[2] = (long)s->last.remote_chunks;
    }
    double t = MPI_Wtime() - t0;
    tl->runs = runs;
    tl->iters = iters;
    tl->sum = total;
    return t;
}

/* The affine costs of seed 003 each rank measured in the latest execution
 * of the first lf: row (the one-sided claims), and the lf-sim command that
 * models 1000 ranks like the median one (a rank as one worker of its
 * team's speed: the thread level is the node dispatcher's). */
static void report_costs(const struct config *c, double t1_per_iter)
{
    const struct sched *s = NULL;
    for (int i = 0; i < c->ns && !s; i++)
        if (c->s[i].kind == K_LF)
            s = &c->s[i];
    if (!s)
        return;
    const struct lf_mpi_stats *st = &s->last;
    double mine[6] = {st->ns_per_iter,
                      st->alpha_ns,
                      st->beta_ns,
                      st->stage_ns_per_iter,
                      st->rank_chunks ? st->claim_seconds * 1e9 / (double)st->rank_chunks : 0,
                      (double)st->staged_iters};
    double *all = rank == 0 ? calloc((size_t)nranks * 6, sizeof *all) : NULL;
    MPI_Gather(mine, 6, MPI_DOUBLE, all, 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank != 0)
        return;
    printf("\n# seed 003 costs measured under %s (latest execution), per rank\n", s->label);
    printf("%5s %12s %10s %10s %14s %10s %12s\n", "rank", "ns/iter", "alpha_ns", "beta_ns",
           "stage_ns/iter", "claim_ns", "staged_iters");
    double col[6][1024];
    int nr = nranks < 1024 ? nranks : 1024;
    for (int r = 0; r < nranks; r++) {
        const double *m = all + 6 * r;
        printf("%5d %12.1f %10.0f %10.0f %14.2f %10.0f %12.0f\n", r, m[0], m[1], m[2], m[3], m[4],
               m[5]);
        for (int j = 0; j < 6 && r < nr; j++)
            col[j][r] = m[j];
    }
    double med[6];
    for (int j = 0; j < 5; j++)
        med[j] = bench_median(col[j], nr);
    /* A rank is one lf-sim worker whose speed is its team's, in iterations
     * per second; its per-iteration staging cost gives the bandwidth. */
    double ipt = med[0] > 0 ? med[0] : t1_per_iter * 1e9 / c->threads;
    printf("# lf-sim, 1000 ranks x %d threads like the median rank:\n"
           "lf-sim --workers 1000 --speeds %.6g --tasks %ld --latency %.3g --stage-lat %.3g "
           "--bandwidth %.6g --bytes-per-iter %ld --claim-ns %.0f --schedule SPEC\n",
           c->threads, 1e9 / ipt, 1000L * c->n / nranks, med[1] * 1e-9, med[2] * 1e-9,
           med[3] > 0 ? (double)c->bytes / (med[3] * 1e-9) : 0.0, c->bytes, med[4]);
    free(all);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    static struct config cfg;
    struct config *c = &cfg;
    parse_options(c, argc, argv);
    if (c->threads > 1 && provided < MPI_THREAD_SERIALIZED)
        usage_error("--threads %d needs MPI_THREAD_SERIALIZED; this MPI provides level %d",
                    c->threads, provided);
    omp_set_dynamic(0);
    bench_cleanup_install();

    /* The same work per iteration on every rank: rank 0 calibrates the
     * spin rate and T1 on one unloaded thread, the others take its rate. */
    struct bench_scenario sc;
    memset(&sc, 0, sizeof sc);
    bench_scenario_probe(&sc);
    double rate = 0;
    if (rank == 0) {
        bench_bind_thread(&sc, 0);
        rate = bench_spin_calibrate(c->grain);
    }
    MPI_Bcast(&rate, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    struct bench_kernel kern;
    int krc = bench_kernel_init(&kern, c->kernel, c->n, c->grain, c->seed, rate, 0, PLACE_NODE0);
    int ok = krc == 0, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (rank == 0)
            fprintf(stderr, PROG ": cannot build kernel %s with n=%ld on some rank\n",
                    bench_kernel_name(c->kernel), c->n);
        MPI_Finalize();
        return 1;
    }
    struct bench_kernel *k = &kern;
    double t1 = 0;
    uint64_t ref = 0;
    if (rank == 0) {
        const int rep = 1;
        long next = -1, runs = 0, iters = 0;
        uint64_t sum = 0;
        for (int pass = 0; pass < 2; pass++) { /* a warm-up, then T1 */
            sum = 0;
            double t0 = MPI_Wtime();
            for (long i = 0; i < k->n; i++)
                BENCH_BODY(i);
            t1 = MPI_Wtime() - t0;
        }
        ref = sum;
        (void)runs;
        (void)iters;
    }
    MPI_Bcast(&t1, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    /* The handles, then the load. */
    for (int i = 0; i < c->ns; i++) {
        struct sched *s = &c->s[i];
        if (s->kind == K_BLOCK)
            continue;
        char err[512];
        if (lf_mpi_loop_create_mode(
                &s->ml, MPI_COMM_WORLD, c->threads, s->spec, c->thread_spec, s->label,
                s->kind == K_MASTER ? LF_MPI_MASTER : LF_MPI_ONE_SIDED, err, sizeof err) != 0)
            usage_error("--schedules: %s: %s", s->label, err);
    }
    /* --bytes-per-iter: this rank's block of the input, in the block
     * split's ranges (so the block rows read only their own). */
    unsigned char *block = NULL;
    if (c->bytes) {
        unsigned long *home = calloc((size_t)nranks + 1, sizeof *home);
        for (int r = 0; r <= nranks; r++)
            home[r] = (unsigned long)((double)k->n * r / nranks);
        size_t mine = (size_t)(home[rank + 1] - home[rank]) * (size_t)c->bytes;
        block = malloc(mine ? mine : 1);
        if (!home || !block)
            usage_error("--bytes-per-iter %ld: no memory for this rank's block", c->bytes);
        for (size_t b = 0; b < mine; b++)
            block[b] = (unsigned char)(b * 131 + (size_t)rank);
        for (int i = 0; i < c->ns; i++) {
            char err[512];
            if (c->s[i].ml && lf_mpi_data_create(&c->s[i].data, c->s[i].ml, home, block,
                                                 (size_t)c->bytes, NULL, 0, err, sizeof err))
                usage_error("--bytes-per-iter: %s", err);
        }
        free(home);
    }
    if (hogged(c, rank)) {
        /* One busy process per core this rank's threads are pinned to. */
        struct bench_scenario hs = sc;
        hs.id = SCEN_HOG;
        hs.nhogs = c->threads < sc.ncores ? c->threads : sc.ncores;
        for (int h = 0; h < hs.nhogs; h++)
            hs.hog_core[h] = h;
        if (bench_scenario_start(&hs) != 0)
            fprintf(stderr, PROG ": rank %d: could not start its hog\n", rank);
    }
    double speeds = 0;
    for (int r = 0; r < nranks; r++)
        speeds += c->threads * (1.0 / factor_of(c, r)) * (hogged(c, r) ? 0.5 : 1.0);
    double ideal = t1 / speeds;

    double *times = calloc((size_t)c->ns * (size_t)c->reps, sizeof *times);
    /* Rank chunks over all ranks per execution: all, local, remote. */
    double *chunks = calloc((size_t)c->ns * (size_t)c->reps * 3, sizeof *chunks);
    /* The most bytes one staged rank chunk held, over the ranks and runs. */
    unsigned long *peak = calloc((size_t)c->ns, sizeof *peak);
    int wrong = 0;
    for (int r = 0; r < c->reps; r++)
        for (int i = 0; i < c->ns; i++) {
            struct bench_tally tl;
            long rc[3] = {0}, all_rc[3] = {0};
            double t = run_once(c, k, &c->s[i], block, &tl, rc), worst;
            uint64_t sum = 0;
            long iters = 0;
            MPI_Reduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            MPI_Reduce(&tl.sum, &sum, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Reduce(&tl.iters, &iters, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            MPI_Reduce(rc, all_rc, 3, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
            unsigned long pk = c->s[i].kind == K_BLOCK ? 0 : c->s[i].last.stage_peak_bytes, mpk;
            MPI_Reduce(&pk, &mpk, 1, MPI_UNSIGNED_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                peak[i] = mpk > peak[i] ? mpk : peak[i];
                times[i * c->reps + r] = worst;
                for (int j = 0; j < 3; j++)
                    chunks[(j * c->ns + i) * c->reps + r] = (double)all_rc[j];
                if (sum != ref || iters != k->n) {
                    fprintf(stderr,
                            PROG ": %s: wrong result (%ld iterations of %ld, checksum %s)\n",
                            c->s[i].label, iters, k->n, sum == ref ? "right" : "wrong");
                    wrong = 1;
                }
            }
        }
    bench_scenario_stop();
    MPI_Bcast(&wrong, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0 && !wrong) {
        static struct bench_row rows[BENCH_MAX_SCHEDS];
        char scen[16];
        snprintf(scen, sizeof scen, "%s%s",
                 c->nslow  ? "slow"
                 : c->nhog ? ""
                           : "dedicated",
                 c->nhog ? "hog" : "");
        for (int i = 0; i < c->ns; i++) {
            struct bench_row *row = &rows[i];
            memset(row, 0, sizeof *row);
            snprintf(row->kernel, sizeof row->kernel, "%s", bench_kernel_name(c->kernel));
            row->n = k->n;
            row->grain = c->grain;
            row->threads = nranks * c->threads;
            snprintf(row->scenario, sizeof row->scenario, "%s", scen);
            snprintf(row->schedule, sizeof row->schedule, "%s", c->s[i].label);
            row->execs = 1;
            row->median = bench_median(times + i * c->reps, c->reps);
            double mn = INFINITY, mx = 0;
            for (int r = 0; r < c->reps; r++) {
                mn = fmin(mn, times[i * c->reps + r]);
                mx = fmax(mx, times[i * c->reps + r]);
            }
            row->min = mn;
            row->max = mx;
            row->ideal = ideal;
            row->efficiency = ideal / row->median;
            row->chunks = (long)bench_median(chunks + i * c->reps, c->reps);
            row->speedup = t1 / row->median;
            row->t1 = t1;
            row->t1_own = t1; /* every rank's row against the one T1 */
        }
        bench_rank_rows(rows, c->ns);
        if (c->format == FORMAT_TABLE)
            printf("# %d ranks x %d threads, kernel %s, n %ld, T1 %.4f s; chunks: rank chunks\n",
                   nranks, c->threads, bench_kernel_name(c->kernel), k->n, t1);
        bench_write_rows(stdout, c->format, rows, c->ns, 1);
        if (c->format == FORMAT_TABLE && c->bytes) {
            /* Where each row's rank chunks came from (medians over the
             * repetitions, summed over the ranks). */
            printf("\n# rank chunks by where their input was: in the claiming rank's own block "
                   "or fetched; the largest staged chunk (MiB, any rank and run; at most "
                   "LF_MPI_STAGE_BYTES)\n%-24s %10s %10s %10s %12s %10s\n",
                   "schedule", "chunks", "local", "fetched", "owner_first", "stage_MiB");
            for (int i = 0; i < c->ns; i++) {
                double m[3];
                for (int j = 0; j < 3; j++)
                    m[j] = bench_median(chunks + (j * c->ns + i) * c->reps, c->reps);
                printf("%-24s %10.0f %10.0f %10.0f %12s %10.2f\n", c->s[i].label, m[0], m[1], m[2],
                       c->s[i].kind == K_BLOCK    ? "-"
                       : c->s[i].last.owner_first ? "yes"
                                                  : "no",
                       (double)peak[i] / 1048576.0);
            }
        }
    }
    if (!wrong && c->bytes)
        report_costs(c, t1 / (double)k->n);
    for (int i = 0; i < c->ns; i++) {
        lf_mpi_data_destroy(c->s[i].data);
        lf_mpi_loop_destroy(c->s[i].ml);
    }
    free(block);
    bench_kernel_free(k);
    free(times);
    free(chunks);
    free(peak);
    MPI_Finalize();
    return wrong ? BENCH_EXIT_WRONG : 0;
}
