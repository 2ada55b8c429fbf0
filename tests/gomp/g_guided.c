/* schedule(guided) and schedule(guided, c): every iteration once; multiples of c where expected. */
#include "check.h"

int main(void)
{
    const long n = 4099;
    int *c = cov_new(n), *owner = cov_new(n);
    double sum = 0;
#pragma omp parallel
    {
#pragma omp for schedule(guided) reduction(+ : sum)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            sum += 0.5 * (double)i;
        }
#pragma omp single
        cov_check(c, n, "guided");
#pragma omp for schedule(guided, 5)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            owner[i] = omp_get_thread_num();
        }
#pragma omp single
        {
            cov_check(c, n, "guided,5");
            if (expect_multiples("guided"))
                check_blocks(owner, n, 5, "guided,5");
        }
#pragma omp for schedule(guided, 3)
        for (long i = 2 * n; i > 0; i -= 2)
            cov_hit(c, i / 2 - 1);
#pragma omp single
        cov_check(c, n, "guided,3 step -2");
    }
    if (sum != 0.25 * (double)n * (double)(n - 1))
        FAIL("guided: sum %g", sum);
    return 0;
}
