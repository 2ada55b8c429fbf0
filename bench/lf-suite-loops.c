/* bench/lf-suite-loops.c - loops written to trip a schedule that learns from
 * earlier executions, as plain OpenMP programs write them: each case is a
 * `#pragma omp parallel for schedule(dynamic, c)` or `schedule(guided)` loop
 * run a number of times in one process.  Nothing here knows loopfarm; run it
 * bare (libgomp's own schedule) and through the preload shim
 * (LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto) and compare the times
 * (scripts/bench-suite.sh does).
 *
 *   lf-suite-loops --case NAME [--execs E] [--size N] [--slow T:F]
 *
 * An iteration's cost is a chain of dependent integer steps (about a
 * nanosecond each here); its result, which every case sums, is a hash of the
 * execution and the iteration alone, so the sum over each execution is
 * compared with a sequential sum: an iteration lost or run twice exits 3.
 * --slow T:F makes thread T's iterations cost F times more (an emulated
 * big/little team) without changing any result.
 *
 * Prints one row: the case, its executions, size and threads, the summed
 * time of all its executions (the first included) and their median, in ms.
 */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A case: its loops, its default executions and size (iterations of its
 * main loop), sized for at least 100 ms a process at 2 threads here. */
struct suite_case {
    const char *name;
    const char *what; /* one line for --help */
    int execs;
    long size;
};

static const struct suite_case cases[] = {
    {"moving",
     "dynamic,64: a tenth of the range costs 30x the rest, starting elsewhere each "
     "execution",
     40, 50000},
    {"flip", "guided: cost rising along the range in even executions, falling in odd ones", 40,
     25000},
    {"tripcount", "dynamic,32: a trip count that changes every execution (0.25 to 1.75 of N)", 60,
     30000},
    {"outliers",
     "dynamic,16: one iteration in a thousand, at new places each execution, costs "
     "300x",
     40, 60000},
    {"few", "dynamic,8: a rising-cost loop run only 1-3 times per process", 2, 1000000},
    {"twograin",
     "dynamic,256 over N fine iterations, then dynamic,1 over N/500 coarse ones, each "
     "step",
     40, 150000},
    {"triangular", "guided: iteration i costs i (a triangular nest)", 20, 3000},
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static int slow_thread = -1, slow_factor = 1; /* --slow T:F */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* A 64-bit mix (splitmix64's finaliser): the value an iteration adds. */
static uint64_t mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* The value of iteration i of execution e (of loop `loop` in a step). */
static uint64_t value(int loop, int e, long i)
{
    return mix(((uint64_t)loop << 56) ^ ((uint64_t)e << 40) ^ (uint64_t)i);
}

/* Spend `steps` dependent xorshift steps, F times over on the slow thread;
 * the result is kept from the optimiser and changes nothing. */
static void burn(long steps, uint64_t seed)
{
    if (slow_factor > 1 && omp_get_thread_num() == slow_thread)
        steps *= slow_factor;
    uint64_t x = seed | 1;
    for (long k = 0; k < steps; k++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    __asm__ volatile("" : : "r"(x));
}

/* Where execution e's hot region starts: the golden-ratio sequence, so
 * each execution's region lies away from the last one's. */
static long hot_start(int e, long n)
{
    double f = fmod(0.6180339887498949 * (e + 1), 1.0);
    return (long)(f * (double)n) % n;
}

/* Execution e's trip count in `tripcount`: from n/4 to 7n/4, drawn. */
static long trips(int e, long n)
{
    return n / 4 + (long)(mix((uint64_t)e + 77) % (uint64_t)(3 * n / 2 + 1));
}

/* Whether iteration i of execution e is an outlier (one in a thousand). */
static int outlier(int e, long i)
{
    return mix(((uint64_t)e << 40) ^ (uint64_t)i ^ 0x5eed) % 1000 == 0;
}

/* Run case c's execution e over n iterations (its main loop's); returns
 * the sum of the values of the iterations run (all of its loops'). */
static uint64_t run_once(int c, int e, long n)
{
    uint64_t sum = 0;
    switch (c) {
    case 0: { /* moving */
        long h = hot_start(e, n), width = n / 10 > 0 ? n / 10 : 1;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            burn((i - h + n) % n < width ? 600 : 20, (uint64_t)i);
            sum += value(0, e, i);
        }
        break;
    }
    case 1: /* flip */
#pragma omp parallel for schedule(guided) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            long pos = e % 2 ? n - 1 - i : i;
            burn(10 + 390 * pos / n, (uint64_t)i);
            sum += value(0, e, i);
        }
        break;
    case 2: { /* tripcount */
        long m = trips(e, n);
#pragma omp parallel for schedule(dynamic, 32) reduction(+ : sum)
        for (long i = 0; i < m; i++) {
            burn(60 + i % 61, (uint64_t)i);
            sum += value(0, e, i);
        }
        break;
    }
    case 3: /* outliers */
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            burn(outlier(e, i) ? 12000 : 40, (uint64_t)i);
            sum += value(0, e, i);
        }
        break;
    case 4: /* few */
#pragma omp parallel for schedule(dynamic, 8) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            burn(10 + 90 * i / n, (uint64_t)i);
            sum += value(0, e, i);
        }
        break;
    case 5: { /* twograin */
        long coarse = n / 500 > 0 ? n / 500 : 1;
#pragma omp parallel for schedule(dynamic, 256) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            burn(10, (uint64_t)i);
            sum += value(0, e, i);
        }
#pragma omp parallel for schedule(dynamic, 1) reduction(+ : sum)
        for (long i = 0; i < coarse; i++) {
            burn(5000, (uint64_t)i);
            sum += value(1, e, i);
        }
        break;
    }
    default: /* triangular */
#pragma omp parallel for schedule(guided) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            burn(2 * i, (uint64_t)i);
            sum += value(0, e, i);
        }
    }
    return sum;
}

/* The same sum on one thread, without the work: what run_once must give. */
static uint64_t expected(int c, int e, long n)
{
    uint64_t sum = 0;
    long m = c == 2 ? trips(e, n) : n;
    for (long i = 0; i < m; i++)
        sum += value(0, e, i);
    if (c == 5)
        for (long i = 0; i < (n / 500 > 0 ? n / 500 : 1); i++)
            sum += value(1, e, i);
    return sum;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: lf-suite-loops --case NAME [--execs E] [--size N] [--slow T:F]\n"
               "  Loops written to trip a schedule that learns from earlier executions,\n"
               "  as plain OpenMP: run bare and under the preload shim, compare times.\n"
               "  Each execution's sum of iteration values is checked against a\n"
               "  sequential sum (a lost or repeated iteration exits 3).  Prints the\n"
               "  case, executions, size, threads, the summed time of all executions\n"
               "  (total_ms) and their median (exec_ms).\n"
               "  --case NAME  one of:\n");
    for (int c = 0; c < NCASES; c++)
        fprintf(f, "      %-11s %s [E %d, N %ld]\n", cases[c].name, cases[c].what, cases[c].execs,
                cases[c].size);
    fprintf(f, "  --execs E    executions of the case's loops in this process [the case's E]\n"
               "  --size N     iterations of the case's main loop [the case's N]\n"
               "  --slow T:F   thread T's iterations cost F times more (F an integer >= 1):\n"
               "               an emulated big/little team\n"
               "example: LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto OMP_NUM_THREADS=2 \\\n"
               "             lf-suite-loops --case moving --slow 1:3\n");
}

static long option(int argc, char **argv, int *a, long lo, long hi)
{
    char *end;
    long v = *a + 1 < argc ? strtol(argv[*a + 1], &end, 10) : 0;
    if (*a + 1 >= argc || *end || end == argv[*a + 1] || v < lo || v > hi) {
        fprintf(stderr, "lf-suite-loops: %s: expected an integer in [%ld, %ld]\n", argv[*a], lo,
                hi);
        exit(2);
    }
    ++*a;
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int c = -1, execs = 0;
    long size = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[a], "--case")) {
            if (a + 1 < argc)
                for (c = NCASES - 1; c >= 0 && strcmp(cases[c].name, argv[a + 1]); c--)
                    ;
            if (c < 0) {
                fprintf(stderr, "lf-suite-loops: --case: expected one of");
                for (int k = 0; k < NCASES; k++)
                    fprintf(stderr, " %s", cases[k].name);
                fprintf(stderr, "%s%s\n", a + 1 < argc ? ", not " : "",
                        a + 1 < argc ? argv[a + 1] : "");
                return 2;
            }
            a++;
        } else if (!strcmp(argv[a], "--execs")) {
            execs = (int)option(argc, argv, &a, 1, 1000000);
        } else if (!strcmp(argv[a], "--size")) {
            size = option(argc, argv, &a, 1, 1L << 40);
        } else if (!strcmp(argv[a], "--slow")) {
            int t, f, used = 0;
            if (a + 1 >= argc || sscanf(argv[a + 1], "%d:%d%n", &t, &f, &used) != 2 ||
                argv[a + 1][used] || t < 0 || f < 1) {
                fprintf(stderr, "lf-suite-loops: --slow: expected T:F, thread T >= 0 and an "
                                "integer factor F >= 1 (e.g. 1:3)\n");
                return 2;
            }
            slow_thread = t;
            slow_factor = f;
            a++;
        } else {
            fprintf(stderr, "lf-suite-loops: unknown option %s\n", argv[a]);
            usage(stderr);
            return 2;
        }
    }
    if (c < 0) {
        fprintf(stderr, "lf-suite-loops: --case NAME is required (--help lists the cases)\n");
        return 2;
    }
    if (!execs)
        execs = cases[c].execs;
    if (!size)
        size = cases[c].size;
    if (slow_thread >= omp_get_max_threads()) {
        fprintf(stderr, "lf-suite-loops: --slow %d:%d: no thread %d in a team of %d\n", slow_thread,
                slow_factor, slow_thread, omp_get_max_threads());
        return 2;
    }
    double *t = (double *)malloc((size_t)execs * sizeof *t), total = 0.0;
    if (!t) {
        fprintf(stderr, "lf-suite-loops: out of memory\n");
        return 1;
    }
    int bad = 0;
    for (int e = 0; e < execs; e++) {
        double t0 = now_ms();
        uint64_t sum = run_once(c, e, size);
        t[e] = now_ms() - t0;
        total += t[e];
        if (sum != expected(c, e, size)) {
            fprintf(stderr,
                    "lf-suite-loops: %s, execution %d: the iterations' sum differs from the "
                    "sequential one (an iteration lost or run twice)\n",
                    cases[c].name, e);
            bad = 1;
        }
    }
    qsort(t, (size_t)execs, sizeof *t, cmp_double);
    double med = execs % 2 ? t[execs / 2] : 0.5 * (t[execs / 2 - 1] + t[execs / 2]);
    printf("%-11s %6s %9s %4s %10s %10s\n", "case", "execs", "size", "thr", "total_ms", "exec_ms");
    printf("%-11s %6d %9ld %4d %10.3f %10.3f\n", cases[c].name, execs, size, omp_get_max_threads(),
           total, med);
    free(t);
    return bad ? 3 : 0;
}
