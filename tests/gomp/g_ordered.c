/* ordered loops (libgomp's own entry points) still run their ordered parts in order. */
#include "check.h"

int main(void)
{
    const long n = 2000;
    int *c = cov_new(n);
    long next = 0, bad = -1;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 2) ordered
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
#pragma omp ordered
            {
                if (i != next)
                    bad = i;
                next++;
            }
        }
#pragma omp for schedule(dynamic) nowait
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
#pragma omp for schedule(runtime) ordered
        for (long i = 0; i < n; i++) {
#pragma omp ordered
            {
                if (i != next - n)
                    bad = i;
                next++;
            }
        }
    }
    for (long i = 0; i < n; i++)
        if (c[i] != 2)
            FAIL("ordered: iteration %ld ran %d times in two loops", i, c[i]);
    if (bad >= 0 || next != 2 * n)
        FAIL("ordered: iteration %ld out of order (next %ld)", bad, next);
    return 0;
}
