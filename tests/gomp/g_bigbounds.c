/* long loops with bounds near LONG_MAX and LONG_MIN and spans wider than LONG_MAX (the program
 * keeps its own last increment from overflowing, as OpenMP requires). */
#include <limits.h>

#include "check.h"

int main(void)
{
    int *c = cov_new(4000);
    volatile long big = LONG_MAX, small = LONG_MIN;
    long step = big / 1000;
    unsigned long span = (unsigned long)(big - step) - (unsigned long)(small + 10);
    long wide = (long)(span / (unsigned long)step + (span % (unsigned long)step != 0));
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 3)
        for (long i = big - 3000; i < big; i++)
            cov_hit(c, i - (big - 3000));
#pragma omp single
        cov_check(c, 3000, "up to LONG_MAX");
#pragma omp for schedule(guided)
        for (long i = small + 3000; i > small; i--)
            cov_hit(c, (small + 3000) - i);
#pragma omp single
        cov_check(c, 3000, "down to LONG_MIN");
#pragma omp for schedule(dynamic)
        for (long i = small + 10; i < big - step; i += step)
            cov_hit(c,
                    (long)(((unsigned long)i - (unsigned long)(small + 10)) / (unsigned long)step));
#pragma omp single
        cov_check(c, wide, "LONG_MIN..LONG_MAX step LONG_MAX/1000");
#pragma omp for schedule(runtime)
        for (long i = big - 1; i > big - 4000; i -= 1)
            cov_hit(c, big - 1 - i);
    }
    cov_check(c, 3999, "runtime down from LONG_MAX");
    return 0;
}
