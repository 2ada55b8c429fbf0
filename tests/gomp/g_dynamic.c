/* schedule(dynamic) and schedule(dynamic, c): every iteration once; chunks are multiples of c. */
#include "check.h"

int main(void)
{
    const long n = 3001;
    int *c = cov_new(n), *owner = cov_new(n);
    long sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp for schedule(dynamic)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            sum += i;
        }
#pragma omp single
        cov_check(c, n, "dynamic");
#pragma omp for schedule(dynamic, 7)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            owner[i] = omp_get_thread_num();
        }
#pragma omp single
        {
            cov_check(c, n, "dynamic,7");
            if (expect_multiples("dynamic"))
                check_blocks(owner, n, 7, "dynamic,7");
        }
        /* A step of 3 and a negative step, chunk 4. */
#pragma omp for schedule(dynamic, 4)
        for (long i = 5; i < 3 * n + 5; i += 3)
            cov_hit(c, (i - 5) / 3);
#pragma omp single
        cov_check(c, n, "dynamic,4 step 3");
#pragma omp for schedule(dynamic, 4)
        for (long i = n - 1; i >= 0; i--)
            cov_hit(c, i);
#pragma omp single
        cov_check(c, n, "dynamic,4 step -1");
        /* Empty loops and a loop shorter than the team. */
#pragma omp for schedule(dynamic)
        for (long i = 10; i < 10; i++)
            cov_hit(c, 0);
#pragma omp for schedule(dynamic)
        for (long i = 0; i < 1; i++)
            cov_hit(c, i);
#pragma omp single
        cov_check(c, 1, "dynamic one iteration");
    }
    if (sum != n * (n - 1) / 2)
        FAIL("dynamic: sum %ld, expected %ld", sum, n * (n - 1) / 2);
    return 0;
}
