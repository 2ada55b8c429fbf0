/* unsigned long long loops (GOMP_loop_ull_*), counting up and down, near ULLONG_MAX (hi - lo
 * is a multiple of the step, so the program's own last step does not wrap). */
#include <limits.h>

#include "check.h"

typedef unsigned long long ull;

static void run(ull lo, ull hi, ull step, long n, int *c, const char *what)
{
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 2)
        for (ull u = lo; u < hi; u += step)
            cov_hit(c, (long)((u - lo) / step));
#pragma omp single
        cov_check(c, n, what);
#pragma omp for schedule(guided)
        for (ull u = hi; u > lo; u -= step)
            cov_hit(c, (long)((hi - u) / step));
#pragma omp single
        cov_check(c, n, what);
#pragma omp for schedule(runtime)
        for (ull u = lo; u < hi; u += step)
            cov_hit(c, (long)((u - lo) / step));
    }
    cov_check(c, n, what);
}

int main(void)
{
    int *c = cov_new(3000);
    volatile ull lo = 5, top = ULLONG_MAX;
    run(lo, lo + 3000, 1, 3000, c, "ull small up/down");
    run(top - 3000 * 7 - 7, top - 7, 7, 3000, c, "ull near ULLONG_MAX step 7");
    run(0, 999 * (top / 1000), top / 1000, 999, c, "ull whole range");
    return 0;
}
