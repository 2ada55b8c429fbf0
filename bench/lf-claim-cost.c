/* bench/lf-claim-cost.c - per-chunk cost of a claim on an empty-body loop
 * (or, --body count, one whose body counts runs of consecutive iterations):
 * loopfarm's fixed-size (fetch-and-add) and size-dependent (CAS) claims
 * against the compiler's schedule(dynamic,1) and schedule(guided), measured
 * side by side in one run, repetitions interleaved (ABAB...), medians; and
 * loopfarm's default, auto (timed chunks, leases, the call site's memory),
 * against schedule(guided); and the floor of any library that meets its team
 * through libgomp's public ABI (floor:guided and floor:tiny, see run_floor).
 * The rows made of many loops (guided, auto, the floors) are also compared
 * per loop, since auto hands out fewer chunks a loop than guided does.
 *
 *   lf-claim-cost [--n N] [--reps R] [--threads 1,2] [--body empty|count]
 *                 [--format table|csv]
 */
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <loopfarm/omp.h>

enum kind {
    OMP_DYNAMIC1,
    OMP_GUIDED,
    LF_DYNAMIC1,
    LF_GUIDED,
    LF_AUTO,
    FLOOR_GUIDED,
    FLOOR_TINY,
    NKIND
};
static const char *const names[NKIND] = {"omp:dynamic,1", "omp:guided",   "lf:dynamic", "lf:guided",
                                         "lf:auto",       "floor:guided", "floor:tiny"};
/* The compiler's row each other row is compared with. */
static const enum kind peer[NKIND] = {OMP_DYNAMIC1, OMP_GUIDED, OMP_DYNAMIC1, OMP_GUIDED,
                                      OMP_GUIDED,   OMP_GUIDED, OMP_GUIDED};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The chunk of floor:tiny, as auto's tiny executions size theirs
 * (lf__exec_tiny_size): ceil(n / 2P). */
static unsigned long tiny_chunk(unsigned long n, int P)
{
    return (n + 2UL * (unsigned long)P - 1) / (2UL * (unsigned long)P);
}

/* Chunks a schedule hands out for n iterations and P threads: n for
 * dynamic,1; for guided, both libgomp and loopfarm take ceil(r/P) of the r
 * remaining each time (GSS), a sequence independent of who claims. */
static long chunk_count(enum kind k, long n, int P)
{
    if (k == OMP_DYNAMIC1 || k == LF_DYNAMIC1)
        return n;
    if (k == FLOOR_TINY) { /* 2P chunks, fewer when they cover n sooner */
        long c = (long)tiny_chunk((unsigned long)n, P);
        return (n + c - 1) / c;
    }
    long c = 0;
    for (long r = n; r > 0; c++)
        r -= (r + P - 1) / P;
    return c;
}

/* Guided hands out only ~P ln(n/P) chunks per loop, too few to time one by
 * one; it is measured over many back-to-back nowait loops of this size. */
#define GUIDED_LOOP 4096

/* libgomp's public entry points (GCC >= 9), as a library outside libgomp
 * reaches them. */
bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart,
                     long *iend, uintptr_t *reductions, void **mem);
void GOMP_loop_end_nowait(void);

/* floor:guided and floor:tiny, one thread's part of one loop of n
 * iterations as a library outside libgomp could run it with nothing but
 * the claims: the team meets in the zeroed memory of an empty work share
 * of its own, held open for the loop (the one piece of storage libgomp's
 * ABI gives a team for one loop alone), claims from a counter there, and
 * leaves with GOMP_loop_end_nowait.  guided (tiny = 0): each member claims
 * ceil(r / P) with a CAS that expects the value its previous claim left;
 * tiny: each claims ceil(n / 2P) with a fetch-and-add, the shape of
 * auto's tiny executions (lf__exec_tiny_size).  No call site, no policy,
 * no statistics: what any such library pays at least for a loop dealt in
 * that shape, so the gap between these rows and omp:guided is what
 * meeting through the ABI costs, and the gap between lf:auto and
 * floor:tiny is what auto adds to it.  With count, returns the runs of
 * consecutive iterations the member got, as the other rows' counting
 * bodies do; else 0 (an empty body). */
static inline __attribute__((always_inline)) long floor_loop(long n, int P, int count,
                                                             const int tiny)
{
    void *mem = (void *)(uintptr_t)sizeof(unsigned long);
    long s, e, c = 0, last = -2;
    GOMP_loop_start(0, 0, 1, 1 /* GFS_STATIC */, 0, &s, &e, NULL, &mem);
    unsigned long *next = mem, N = (unsigned long)n, fixed = tiny_chunk(N, P);
    /* guided: each CAS expects where the member last left the counter (0
     * at first), never reading it first: one transfer of its line per
     * claim. */
    unsigned long cur = 0, k;
    for (;;) {
        if (tiny) {
            cur = __atomic_fetch_add(next, fixed, __ATOMIC_RELAXED);
            if (cur >= N)
                break;
            k = N - cur < fixed ? N - cur : fixed;
        } else {
            if (cur >= N)
                break;
            k = (N - cur + (unsigned long)P - 1) / (unsigned long)P;
            if (!__atomic_compare_exchange_n(next, &cur, cur + k, 1, __ATOMIC_RELAXED,
                                             __ATOMIC_RELAXED))
                continue;
        }
        for (long i = (long)cur; count && i < (long)(cur + k); i++) {
            c += i != last + 1;
            last = i;
        }
        if (!tiny)
            cur += k;
    }
    GOMP_loop_end_nowait();
    return c;
}

/* The floor's loop specialised for each shape, so that neither floor pays
 * a test of the other's per claim. */
static long run_floor(long n, int P, int count, int tiny)
{
    return tiny ? floor_loop(n, P, count, 1) : floor_loop(n, P, count, 0);
}

/* The loops of a sample of n iterations under kind: one loop of n for the
 * dynamic rows, n / GUIDED_LOOP back-to-back loops of GUIDED_LOOP for the
 * others (guided, auto, the floor). */
static void loop_shape(enum kind k, long n, long *loops, long *len)
{
    int one = k == OMP_DYNAMIC1 || k == LF_DYNAMIC1;
    *loops = one ? 1 : n / GUIDED_LOOP;
    *len = one ? n : GUIDED_LOOP;
}

/* n iterations under kind (loop_shape), the body BODY run for each
 * iteration i with c and last in scope (AUTO_BODY for auto's loop);
 * returns the seconds taken and adds what the bodies counted to *total_c.
 * Defined three times: with an empty body (the claims alone: the compiler
 * removes the loop over a chunk's iterations, never the claims), with a
 * body that counts runs of consecutive iterations (--body count), and,
 * untimed, with an empty body and an auto body that counts the chunks
 * auto handed out (each iteration that begins one).  The pragmas stay on
 * lines of their own, so clang-format leaves this alone. */
/* clang-format off */
#define CLAIM_RUN(name, BODY, AUTO_BODY, COUNT)                                                    \
    static double name(enum kind k, long n, int threads, long *total_c)                            \
    {                                                                                              \
        long total = 0, loops, len;                                                                \
        loop_shape(k, n, &loops, &len);                                                            \
        double t0 = now();                                                                         \
        _Pragma("omp parallel num_threads(threads) reduction(+ : total)")                          \
        for (long l = 0; l < loops; l++) {                                                         \
            long last = -2, c = 0;                                                                 \
            long n = len;                                                                          \
            (void)last; /* the empty body never reads it */                                        \
            switch (k) {                                                                           \
            case OMP_DYNAMIC1:                                                                     \
                _Pragma("omp for schedule(dynamic, 1) nowait")                                     \
                for (long i = 0; i < n; i++)                                                       \
                    BODY;                                                                          \
                break;                                                                             \
            case OMP_GUIDED:                                                                       \
                _Pragma("omp for schedule(guided) nowait")                                         \
                for (long i = 0; i < n; i++)                                                       \
                    BODY;                                                                          \
                break;                                                                             \
            case LF_DYNAMIC1:                                                                      \
                LF_FOR_SCHED_NOWAIT(i, 0, n, 1, "dynamic") BODY;                                   \
                break;                                                                             \
            case LF_GUIDED:                                                                        \
                LF_FOR_SCHED_NOWAIT(i, 0, n, 1, "guided") BODY;                                    \
                break;                                                                             \
            case LF_AUTO:                                                                          \
                LF_FOR_SCHED_NOWAIT(i, 0, n, 1, "auto") AUTO_BODY;                                 \
                break;                                                                             \
            case FLOOR_GUIDED:                                                                     \
            case FLOOR_TINY:                                                                       \
                c = run_floor(n, omp_get_num_threads(), COUNT, k == FLOOR_TINY);                   \
                break;                                                                             \
            default:                                                                               \
                break;                                                                             \
            }                                                                                      \
            total += c;                                                                            \
        }                                                                                          \
        double t = now() - t0;                                                                     \
        *total_c += total;                                                                         \
        return t;                                                                                  \
    }

CLAIM_RUN(run_empty, {}, {}, 0)
CLAIM_RUN(run_count, { c += i != last + 1; last = i; }, { c += i != last + 1; last = i; }, 1)
CLAIM_RUN(run_chunks, {}, { c += i == LF_CHUNK_FIRST(); }, 0)
/* clang-format on */

/* The body of the timed loops: empty (--body empty, the claims alone) or
 * counting runs (--body count, as the figures before 2026-11-25 were taken:
 * each iteration costs a compare and an add, about a cycle). */
static int count_body;

/* One sample of kind; returns seconds and sets *chunks (auto: the chunks
 * its team got, counted in a separate untimed sample). */
static double run(enum kind k, long n, int threads, long *chunks)
{
    long counted = 0, loops, len;
    double t = count_body ? run_count(k, n, threads, &counted) : run_empty(k, n, threads, &counted);
    if (k == LF_AUTO) {
        /* auto's chunks depend on what it measures: counted, each chunk
         * (each piece of a lease) once, by the iteration that begins it. */
        counted = 0;
        run_chunks(k, n, threads, &counted);
    }
    loop_shape(k, n, &loops, &len);
    *chunks = k == LF_AUTO ? counted : chunk_count(k, len, threads) * loops;
    return t;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: lf-claim-cost [--n N] [--reps R] [--threads LIST] [--body empty|count]\n"
               "                     [--format table|csv]\n"
               "  Per-chunk claim cost (ns) of an empty loop: loopfarm's dynamic (fetch-and-add)\n"
               "  and guided (CAS loop) against the compiler's schedule(dynamic,1) and guided,\n"
               "  and loopfarm's auto against guided (its chunks, lease pieces included, counted\n"
               "  in an untimed sample by LF_CHUNK_FIRST); floor:guided is the least any\n"
               "  library pays for a guided loop when its team meets through libgomp's ABI (a\n"
               "  work share's memory held open for the loop and one CAS per chunk, nothing\n"
               "  else); floor:tiny the same for a loop dealt as auto's tiny executions are\n"
               "  (2P fetch-and-add chunks).\n"
               "  The last column compares the rows of many loops per loop instead of per chunk.\n"
               "  --n N          iterations per sample (default 2000000): one loop for dynamic,\n"
               "                 n/4096 back-to-back nowait loops of 4096 for guided and auto\n"
               "  --reps R       repetitions per schedule, interleaved (default 15)\n"
               "  --threads L    comma-separated team sizes (default 1,2)\n"
               "  --body B       empty (default): the claims alone, no code per iteration;\n"
               "                 count: each iteration counts runs of consecutive iterations\n"
               "                 (about a cycle each; each row's copy of that loop is its own\n"
               "                 machine code, so the rows' ratios also carry code placement)\n"
               "  --format F     table (default) or csv (the schedule field quoted: it may\n"
               "                 hold a comma)\n"
               "example: lf-claim-cost --threads 1,2 --reps 21\n");
}

/* Option opt's value v, one of two words: 0 for no, 1 for yes; -1 (said)
 * for anything else. */
static int one_of(const char *opt, const char *v, const char *no, const char *yes)
{
    if (!strcmp(v, no) || !strcmp(v, yes))
        return !strcmp(v, yes);
    fprintf(stderr, "lf-claim-cost: %s %s: expected %s or %s\n", opt, v, no, yes);
    return -1;
}

int main(int argc, char **argv)
{
    long n = 2000000;
    int reps = 15, csv = 0;
    char threads_list[128] = "1,2";
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[a], "--n") && a + 1 < argc) {
            n = atol(argv[++a]);
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--threads") && a + 1 < argc) {
            snprintf(threads_list, sizeof threads_list, "%s", argv[++a]);
        } else if (!strcmp(argv[a], "--body") && a + 1 < argc) {
            if ((count_body = one_of("--body", argv[++a], "empty", "count")) < 0)
                return 2;
        } else if (!strcmp(argv[a], "--format") && a + 1 < argc) {
            if ((csv = one_of("--format", argv[++a], "table", "csv")) < 0)
                return 2;
        } else {
            fprintf(stderr, "lf-claim-cost: unknown or incomplete option %s\n", argv[a]);
            usage(stderr);
            return 2;
        }
    }
    if (n < 1000 || reps < 1) {
        fprintf(stderr, "lf-claim-cost: expected --n >= 1000 and --reps >= 1\n");
        return 2;
    }
    if (csv)
        printf("threads,body,schedule,chunks,median_ns_per_chunk,min_ns_per_chunk,ratio,"
               "ratio_per_loop\n");
    else
        printf("body: %s\n%-8s %-15s %10s %15s %10s %14s %14s\n", count_body ? "count" : "empty",
               "threads", "schedule", "chunks", "median ns/chunk", "min", "ratio (chunk)",
               "ratio (loop)");
    for (char *tok = strtok(threads_list, ","); tok; tok = strtok(NULL, ",")) {
        int th = atoi(tok);
        if (th < 1) {
            fprintf(stderr, "lf-claim-cost: --threads: %s is not a team size\n", tok);
            return 2;
        }
        double *t[NKIND];
        long ch[NKIND] = {0};
        for (int k = 0; k < NKIND; k++)
            t[k] = calloc((size_t)reps, sizeof(double));
        for (int k = 0; k < NKIND; k++) /* warm-up */
            run((enum kind)k, n / 4, th, &ch[k]);
        for (int r = 0; r < reps; r++)
            for (int k = 0; k < NKIND; k++) {
                long c;
                t[k][r] = run((enum kind)k, n, th, &c);
                ch[k] = c;
                t[k][r] /= (double)(c ? c : 1);
            }
        double med[NKIND];
        for (int k = 0; k < NKIND; k++) {
            qsort(t[k], (size_t)reps, sizeof(double), cmp);
            med[k] = t[k][reps / 2];
        }
        for (int k = 0; k < NKIND; k++) {
            double ratio = med[k] / med[peer[k]];
            /* Per loop: both rows run the same loops, so the ratio of the
             * medians scaled by the chunks each handed out. */
            double per_loop = ratio * (double)ch[k] / (double)(ch[peer[k]] ? ch[peer[k]] : 1);
            if (csv)
                printf("%d,%s,\"%s\",%ld,%.2f,%.2f,%.3f,%.3f\n", th, count_body ? "count" : "empty",
                       names[k], ch[k], med[k] * 1e9, t[k][0] * 1e9, ratio, per_loop);
            else
                printf("%-8d %-15s %10ld %15.2f %10.2f %14.3f %14.3f\n", th, names[k], ch[k],
                       med[k] * 1e9, t[k][0] * 1e9, ratio, per_loop);
            free(t[k]);
        }
    }
    return 0;
}
