/* Orphaned loops: `omp for` in a function called from a parallel region and from serial code. */
#include "check.h"

static void work(int *c, long n, int guided)
{
    if (guided) {
#pragma omp for schedule(guided, 2)
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
    } else {
#pragma omp for schedule(dynamic)
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
    }
}

int main(void)
{
    const long n = 2222;
    int *c = cov_new(n);
    work(c, n, 0);
    cov_check(c, n, "orphaned dynamic, serial");
    work(c, n, 1);
    cov_check(c, n, "orphaned guided, serial");
#pragma omp parallel
    work(c, n, 0);
    cov_check(c, n, "orphaned dynamic, in parallel");
#pragma omp parallel
    {
        work(c, n, 1);
        work(c, n, 0);
    }
    for (long i = 0; i < n; i++)
        if (c[i] != 2)
            FAIL("orphaned twice: iteration %ld ran %d times", i, c[i]);
    return 0;
}
