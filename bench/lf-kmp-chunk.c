/* bench/lf-kmp-chunk.c - per-chunk cost of a schedule(dynamic, 1) loop with an empty body, as
 * an unmodified program sees it: plain OpenMP, no loopfarm header, built by clang against
 * libomp.  Run bare it measures libomp's own dynamic,1; run with libloopfarm-kmp preloaded
 * (LF_SCHEDULE=dynamic) the same binary measures the shim's.  scripts/bench-kmp-chunk.sh runs
 * both in turn and prints the ratio.
 *
 * Usage: lf-kmp-chunk [--iters N] [--reps R] [--monotonic] [--help]
 * --monotonic times schedule(monotonic: dynamic, 1) instead: clang 14 marks a plain
 * schedule(dynamic, 1) nonmonotonic, which libomp 14 runs as its static_steal schedule, so
 * the two forms measure libomp's two dynamic paths.
 * Prints one line: "ns_per_chunk MEDIAN min MIN threads T iters N reps R" (median and minimum
 * over R executions of the loop, each timed from before the parallel region to after it, less
 * an empty region's time measured alike). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "plain-prog.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: lf-kmp-chunk [--iters N] [--reps R] [--monotonic]\n"
               "  Times a schedule(dynamic, 1) loop of N iterations (default 1000000) with an\n"
               "  empty body, R times (default 21), and prints the median and minimum cost per\n"
               "  chunk in ns.  Run it bare (libomp's dynamic,1) and with\n"
               "  LD_PRELOAD=libloopfarm-kmp.so LF_SCHEDULE=dynamic (the shim's) to compare;\n"
               "  OMP_NUM_THREADS sets the team size.  --monotonic: the loop is\n"
               "  schedule(monotonic: dynamic, 1) (libomp's classic dynamic path; the plain\n"
               "  form is nonmonotonic, which libomp runs as static_steal).\n");
}

int main(int argc, char **argv)
{
    long iters = 1000000, reps = 21;
    int monotonic = 0;
    for (int a = 1; a < argc; a++) {
        if (strcmp(argv[a], "--iters") == 0)
            iters = plain_number("lf-kmp-chunk", "--iters", argv[++a]);
        else if (strcmp(argv[a], "--reps") == 0)
            reps = plain_number("lf-kmp-chunk", "--reps", argv[++a]);
        else if (strcmp(argv[a], "--monotonic") == 0)
            monotonic = 1;
        else if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "lf-kmp-chunk: unknown argument \"%s\"\n", argv[a]);
            usage(stderr);
            return 2;
        }
    }
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t)
        return 1;
    long count = 0;
    int threads = 1;
    /* The cost of a region with no loop, subtracted from each timing. */
    double empty = 1e30;
    for (long r = 0; r < reps; r++) {
        double t0 = plain_now();
#pragma omp parallel
        threads = omp_get_num_threads();
        double d = plain_now() - t0;
        empty = d < empty ? d : empty;
    }
    for (long r = 0; r < reps + 1; r++) {
        double t0 = plain_now();
#pragma omp parallel reduction(+ : count)
        {
            if (monotonic) {
#pragma omp for schedule(monotonic : dynamic, 1)
                for (long i = 0; i < iters; i++)
                    count++;
            } else {
#pragma omp for schedule(dynamic, 1)
                for (long i = 0; i < iters; i++)
                    count++;
            }
        }
        if (r > 0) /* the first execution warms up (and lets a calibrating schedule learn) */
            t[r - 1] = plain_now() - t0 - empty;
    }
    if (count != iters * (reps + 1)) {
        fprintf(stderr, "lf-kmp-chunk: %ld iterations ran, expected %ld\n", count,
                iters * (reps + 1));
        return 1;
    }
    qsort(t, (size_t)reps, sizeof *t, cmp);
    printf("ns_per_chunk %.2f min %.2f threads %d iters %ld reps %ld loop %s\n",
           1e9 * t[reps / 2] / (double)iters * threads, 1e9 * t[0] / (double)iters * threads,
           threads, iters, reps, monotonic ? "monotonic:dynamic,1" : "dynamic,1");
    free(t);
    return 0;
}
