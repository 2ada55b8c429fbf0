/* tests/startup-time.c - what a process's first loop costs: the same small
 * loop runs twice, as an LF_FOR or as `omp for schedule(dynamic)`, after
 * the OpenMP team is up; prints the first and the second run's times in
 * ms.  first - second is the start-up cost (BENCHMARKS.md, "Start-up").
 * Not a test: timings are compared by a person, as medians of many runs.
 *
 *   tests/startup-time lf|omp [n]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <loopfarm/omp.h>

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static volatile double sink;

/* One pass over n iterations of a few flops each, under loopfarm or libgomp. */
static double one_loop(int lf, long n)
{
    double t0 = now_ms();
    if (lf) {
#pragma omp parallel
        {
            double m = 0.0;
            LF_FOR(i, 0, n)
            {
                m += (double)i * 0.5;
            }
#pragma omp atomic
            sink += m;
        }
    } else {
#pragma omp parallel
        {
            double m = 0.0;
#pragma omp for schedule(dynamic, 64)
            for (long i = 0; i < n; i++)
                m += (double)i * 0.5;
#pragma omp atomic
            sink += m;
        }
    }
    return now_ms() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "lf") != 0 && strcmp(argv[1], "omp") != 0)) {
        fprintf(stderr, "usage: startup-time lf|omp [iterations]\n");
        return 2;
    }
    int lf = strcmp(argv[1], "lf") == 0;
    long n = argc > 2 ? atol(argv[2]) : 100000;
#pragma omp parallel
    {
        sink += 0.0; /* the team exists before either timed loop */
    }
    double first = one_loop(lf, n);
    double second = one_loop(lf, n);
    printf("%s first %.3f second %.3f ms\n", argv[1], first, second);
    return 0;
}
