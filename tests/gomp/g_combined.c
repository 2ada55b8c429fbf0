/* Combined `parallel for` (GOMP_parallel_loop_*): every iteration once, results right. */
#include "check.h"

static long n = 3333; /* not a constant, so bounds are computed at run time */

int main(void)
{
    int *c = cov_new(n), *owner = cov_new(n);
    long sum = 0;
#pragma omp parallel for schedule(dynamic, 4)
    for (long i = 0; i < n; i++) {
        cov_hit(c, i);
        owner[i] = omp_get_thread_num();
    }
    cov_check(c, n, "parallel for dynamic,4");
    if (expect_multiples("dynamic"))
        check_blocks(owner, n, 4, "parallel for dynamic,4");
#pragma omp parallel for schedule(dynamic) reduction(+ : sum)
    for (long i = 0; i < n; i++) {
        cov_hit(c, i);
        sum += i;
    }
    cov_check(c, n, "parallel for dynamic");
    if (sum != n * (n - 1) / 2)
        FAIL("parallel for dynamic: sum %ld", sum);
#pragma omp parallel for schedule(guided, 2)
    for (long i = 0; i < n; i++)
        cov_hit(c, i);
    cov_check(c, n, "parallel for guided,2");
#pragma omp parallel for schedule(runtime)
    for (long i = 2 * n - 1; i >= 0; i -= 2)
        cov_hit(c, i / 2);
    cov_check(c, n, "parallel for runtime step -2");
    omp_set_schedule(omp_sched_guided, 3);
#pragma omp parallel for schedule(monotonic : runtime)
    for (long i = 0; i < n; i++)
        cov_hit(c, i);
    cov_check(c, n, "parallel for monotonic:runtime");
#pragma omp parallel for schedule(dynamic) num_threads(3)
    for (long i = 0; i < n; i++)
        cov_hit(c, i);
    cov_check(c, n, "parallel for num_threads(3)");
    return 0;
}
