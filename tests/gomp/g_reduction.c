/* Reductions on taken loops, and task reductions (GOMP_loop_start with a reduction block,
 * which stays with libgomp). */
#include "check.h"

int main(void)
{
    const long n = 4000;
    int *c = cov_new(n);
    long sum = 0, tsum = 0, mx = -1;
    double prod = 1.0;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 3) reduction(+ : sum) reduction(max : mx)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            sum += i;
            if (i > mx)
                mx = i;
        }
#pragma omp for schedule(guided) reduction(* : prod)
        for (long i = 0; i < 20; i++)
            prod *= 2.0;
#pragma omp for schedule(dynamic) reduction(task, + : tsum)
        for (long i = 0; i < n; i++) {
#pragma omp task in_reduction(+ : tsum)
            tsum += i;
        }
    }
    cov_check(c, n, "reduction dynamic,3");
    if (sum != n * (n - 1) / 2 || mx != n - 1)
        FAIL("reduction: sum %ld max %ld", sum, mx);
    if (prod != 1048576.0)
        FAIL("reduction: product %g", prod);
    if (tsum != n * (n - 1) / 2)
        FAIL("task reduction: sum %ld", tsum);
    return 0;
}
