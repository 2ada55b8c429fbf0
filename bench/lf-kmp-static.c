/* bench/lf-kmp-static.c - static loops as most OpenMP programs write them, for timing libomp's
 * static schedule against libloopfarm-kmp's weighted one on the same clang-built binary: plain
 * OpenMP, no loopfarm header.  Run bare it measures libomp's static; preloaded with
 * LF_REPLACE=static:weighted, the shim's.  scripts/bench-static.sh runs the rows in turn.
 *
 * Kernels (each a `parallel for` with no schedule clause, executed --reps times, by default 300
 * for the stencil, 150 for matvec and 100 for irregular, so that a run on two dedicated cores of
 * the development machine lasts over 100 ms):
 *   stencil    a five-point Jacobi sweep of an N x N grid (rows split among threads);
 *   matvec     a dense N x N matrix-vector product (rows split);
 *   irregular  N iterations whose costs differ along the loop but are the same at every
 *              execution (a fixed pseudo-random number of rounds per iteration).
 * --loop steal runs the same kernels under schedule(nonmonotonic: dynamic), which libomp 14
 * runs as its static_steal schedule.
 * --load hog|varying forks a background process pinned to the process's last allowed CPU (so
 * beside the last thread of a team bound with OMP_PLACES=threads): spinning, or
 * spinning for half of each 50 ms period and sleeping for the rest (lf-bench's hog and
 * varying); it dies with the program.
 *
 * Prints one line: "kernel K loop L load S threads T time_s X check C": the wall time of all
 * executions, and a checksum of the results (equal for every schedule). */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plain-prog.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: lf-kmp-static [--kernel stencil|matvec|irregular] [--loop static|steal]\n"
               "                     [--load dedicated|hog|varying] [--reps R] [--size N]\n"
               "  Times R executions (default 300 of stencil, 150 of matvec, 100 of irregular:\n"
               "  each run over 100 ms on a dedicated core pair) of a static\n"
               "  loop with no schedule clause\n"
               "  (--loop steal: schedule(nonmonotonic: dynamic)) and prints the wall time.\n"
               "  Run it bare (libomp's static) and with LD_PRELOAD=libloopfarm-kmp.so\n"
               "  LF_REPLACE=static:weighted (the shim's); OMP_NUM_THREADS sets the team.\n");
}

/* One of the accepted words, by index; exit naming them otherwise. */
static int word(const char *opt, const char *v, const char *const *words, int nwords)
{
    for (int i = 0; v && i < nwords; i++)
        if (strcmp(v, words[i]) == 0)
            return i;
    fprintf(stderr, "lf-kmp-static: %s takes", opt);
    for (int i = 0; i < nwords; i++)
        fprintf(stderr, "%s %s", i ? "," : "", words[i]);
    fprintf(stderr, ", not \"%s\"\n", v ? v : "");
    exit(2);
}

/* ---- Background load ---- */

static pid_t loader;

static void stop_load(void)
{
    if (loader > 0) {
        kill(loader, SIGKILL);
        waitpid(loader, NULL, 0);
        loader = 0;
    }
}

/* The last CPU the process may run on, or -1: called before the first parallel region, since
 * OMP_PROC_BIND then narrows the initial thread's own set to its place. */
static int last_cpu(void)
{
    cpu_set_t set;
    int cpu = -1;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpu = c;
    return cpu;
}

/* Fork the background process of load 1 (hog) or 2 (varying) on CPU cpu (-1: anywhere). */
static void start_load(int load, int cpu)
{
    cpu_set_t set;
    loader = fork();
    if (loader < 0) {
        perror("lf-kmp-static: fork");
        exit(1);
    }
    if (loader == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (cpu >= 0) {
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
        }
        volatile double x = 1;
        for (;;) {
            double end = plain_now() + 0.025;
            while (load == 1 || plain_now() < end)
                x = x * 1.0000001 + 1e-9;
            struct timespec off = {0, 25000000};
            nanosleep(&off, NULL);
        }
    }
    atexit(stop_load);
}

/* ---- Kernels ---- */

/* Rounds of iteration i of the irregular loop: 40 to 400, fixed per i. */
static int rounds_of(long i)
{
    uint64_t h = (uint64_t)i * 0x9E3779B97F4A7C15ULL;
    return 40 + (int)((h >> 40) % 361);
}

static double irregular_body(long i)
{
    double x = (double)i;
    for (int k = rounds_of(i); k > 0; k--)
        x = x * 0.999999 + 1.0;
    return x;
}

enum { K_STENCIL, K_MATVEC, K_IRREGULAR };

int main(int argc, char **argv)
{
    static const char *const kernels[] = {"stencil", "matvec", "irregular"};
    static const char *const loops[] = {"static", "steal"};
    static const char *const loads[] = {"dedicated", "hog", "varying"};
    int kernel = K_STENCIL, loop = 0, load = 0;
    long reps = 0, size = 0;
    for (int a = 1; a < argc; a++) {
        const char *v = a + 1 < argc ? argv[a + 1] : NULL;
        if (strcmp(argv[a], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[a], "--kernel") == 0) {
            kernel = word("--kernel", v, kernels, 3);
            a++;
        } else if (strcmp(argv[a], "--loop") == 0) {
            loop = word("--loop", v, loops, 2);
            a++;
        } else if (strcmp(argv[a], "--load") == 0) {
            load = word("--load", v, loads, 3);
            a++;
        } else if (strcmp(argv[a], "--reps") == 0) {
            reps = plain_number("lf-kmp-static", "--reps", v);
            a++;
        } else if (strcmp(argv[a], "--size") == 0) {
            size = plain_number("lf-kmp-static", "--size", v);
            a++;
        } else {
            fprintf(stderr, "lf-kmp-static: unknown option \"%s\"\n", argv[a]);
            usage(stderr);
            return 2;
        }
    }
    if (!size)
        size = kernel == K_STENCIL ? 1024 : kernel == K_MATVEC ? 1536 : 20000;
    if (!reps)
        reps = kernel == K_STENCIL ? 300 : kernel == K_MATVEC ? 150 : 100;
    /* The background process starts before the arrays exist: forked later, it would share their
     * pages copy-on-write, and the timed loop would pay for copying every page it writes. */
    if (load)
        start_load(load, last_cpu());
    long n = size;
    long cells = kernel == K_IRREGULAR ? n : n * n;
    double *a = malloc((size_t)cells * sizeof *a), *b = malloc((size_t)cells * sizeof *b);
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    if (!a || !b || !x || !y) {
        fprintf(stderr, "lf-kmp-static: out of memory for size %ld\n", size);
        return 1;
    }
    /* First touch and contents, in parallel as a program would. */
#pragma omp parallel for
    for (long i = 0; i < cells; i++) {
        a[i] = (double)(i % 97) * 0.01;
        b[i] = 0;
    }
    for (long i = 0; i < n; i++)
        x[i] = 1.0 / (double)(i + 1);

    double t0 = plain_now();
    for (long r = 0; r < reps; r++) {
        switch (kernel) {
        case K_STENCIL: {
            double *src = r % 2 ? b : a, *dst = r % 2 ? a : b;
            if (loop == 0) {
#pragma omp parallel for
                for (long i = 1; i < n - 1; i++)
                    for (long j = 1; j < n - 1; j++)
                        dst[i * n + j] =
                            0.2 * (src[i * n + j] + src[(i - 1) * n + j] + src[(i + 1) * n + j] +
                                   src[i * n + j - 1] + src[i * n + j + 1]);
            } else {
#pragma omp parallel for schedule(nonmonotonic : dynamic)
                for (long i = 1; i < n - 1; i++)
                    for (long j = 1; j < n - 1; j++)
                        dst[i * n + j] =
                            0.2 * (src[i * n + j] + src[(i - 1) * n + j] + src[(i + 1) * n + j] +
                                   src[i * n + j - 1] + src[i * n + j + 1]);
            }
            break;
        }
        case K_MATVEC:
            if (loop == 0) {
#pragma omp parallel for
                for (long i = 0; i < n; i++) {
                    double s = 0;
                    for (long j = 0; j < n; j++)
                        s += a[i * n + j] * x[j];
                    y[i] = s;
                }
            } else {
#pragma omp parallel for schedule(nonmonotonic : dynamic)
                for (long i = 0; i < n; i++) {
                    double s = 0;
                    for (long j = 0; j < n; j++)
                        s += a[i * n + j] * x[j];
                    y[i] = s;
                }
            }
            break;
        default:
            if (loop == 0) {
#pragma omp parallel for
                for (long i = 0; i < n; i++)
                    b[i] = irregular_body(i);
            } else {
#pragma omp parallel for schedule(nonmonotonic : dynamic)
                for (long i = 0; i < n; i++)
                    b[i] = irregular_body(i);
            }
            break;
        }
    }
    double t = plain_now() - t0;
    stop_load();

    double check = 0;
    const double *res = kernel == K_MATVEC ? y : kernel == K_STENCIL && reps % 2 ? b : a;
    if (kernel == K_IRREGULAR)
        res = b;
    long nres = kernel == K_MATVEC || kernel == K_IRREGULAR ? n : cells;
    for (long i = 0; i < nres; i++)
        check += res[i];
    printf("kernel %s loop %s load %s threads %d time_s %.6f check %.10g\n", kernels[kernel],
           loops[loop], loads[load], omp_get_max_threads(), t, check);
    free(a);
    free(b);
    free(x);
    free(y);
    return 0;
}
