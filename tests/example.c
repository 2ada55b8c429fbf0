/* tests/example.c - a small real program written with LF_FOR: a skewed
 * workload (iteration i costs ~i steps) summed in parallel and checked
 * against the sequential sum.  Exit 0 when they agree.
 *
 *   gcc -fopenmp example.c $(pkg-config --cflags --libs loopfarm)
 *   LF_SCHEDULE=multi ./a.out
 */
#include <stdio.h>
#include <stdlib.h>

#include <loopfarm/omp.h>

/* Deterministic work whose cost grows with i. */
static double work(long i)
{
    double x = 0.0;
    for (long k = 0; k <= i % 4096; k++)
        x += (double)((i * 31 + k) % 7) * 0.5;
    return x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    double seq = 0.0, par = 0.0;
    for (long i = 0; i < n; i++)
        seq += work(i);
#pragma omp parallel
    {
        double mine = 0.0;
        LF_FOR(i, 0, n)
        {
            mine += work(i);
        }
#pragma omp atomic
        par += mine;
    }
    printf("sum %.1f (sequential %.1f): %s\n", par, seq, par == seq ? "ok" : "WRONG");
    return par == seq ? 0 : 1;
}
