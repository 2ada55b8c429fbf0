/* doacross (ordered(1) with depend(sink/source)) loops stay with libgomp and stay correct. */
#include "check.h"

int main(void)
{
    const long n = 3000;
    long *a = calloc(n, sizeof *a);
    int *c = cov_new(n);
    if (!a)
        FAIL("out of memory");
#pragma omp parallel
    {
#pragma omp for schedule(dynamic) nowait
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
#pragma omp for ordered(1) schedule(dynamic, 2)
        for (long i = 1; i < n; i++) {
#pragma omp ordered depend(sink : i - 1)
            a[i] = a[i - 1] + 1;
#pragma omp ordered depend(source)
        }
    }
    cov_check(c, n, "dynamic before doacross");
    for (long i = 0; i < n; i++)
        if (a[i] != i)
            FAIL("doacross: a[%ld] = %ld", i, a[i]);
    free(a);
    return 0;
}
