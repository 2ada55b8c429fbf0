/* Loops with nowait back to back (members run ahead), mixed with static and barriers. */
#include "check.h"

int main(void)
{
    const long n = 1201;
    int *a = cov_new(n), *b = cov_new(n), *s = cov_new(n), *d = cov_new(n), *e = cov_new(n);
    for (int rep = 0; rep < 20; rep++) {
#pragma omp parallel
        {
#pragma omp for schedule(dynamic) nowait
            for (long i = 0; i < n; i++)
                cov_hit(a, i);
#pragma omp for schedule(guided) nowait
            for (long i = 0; i < n; i++)
                cov_hit(b, i);
#pragma omp for schedule(static) nowait
            for (long i = 0; i < n; i++)
                cov_hit(s, i);
#pragma omp for schedule(dynamic, 3) nowait
            for (long i = 0; i < n; i++)
                cov_hit(d, i);
#pragma omp for schedule(runtime) nowait
            for (long i = 0; i < n; i++)
                cov_hit(e, i);
        }
        cov_check(a, n, "dynamic nowait");
        cov_check(b, n, "guided nowait");
        cov_check(s, n, "static nowait");
        cov_check(d, n, "dynamic,3 nowait");
        cov_check(e, n, "runtime nowait");
    }
    return 0;
}
