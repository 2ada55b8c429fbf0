/* schedule(runtime) under every omp_set_schedule kind, with and without a chunk and the
 * monotonic modifier: every iteration once. */
#include "check.h"

int main(void)
{
    const long n = 2503;
    int *c = cov_new(2 * n);
    omp_sched_t kinds[] = {omp_sched_static, omp_sched_dynamic, omp_sched_guided, omp_sched_auto};
    const char *names[] = {"static", "dynamic", "guided", "auto"};
    for (int k = 0; k < 4; k++)
        for (int mono = 0; mono < 2; mono++)
            for (int chunk = 0; chunk <= 3; chunk += 3) {
                char what[64];
                snprintf(what, sizeof what, "runtime %s%s,%d", mono ? "monotonic:" : "", names[k],
                         chunk);
                omp_set_schedule(mono ? (omp_sched_t)(kinds[k] | omp_sched_monotonic) : kinds[k],
                                 chunk);
                long sum = 0;
#pragma omp parallel
                {
#pragma omp for schedule(runtime) reduction(+ : sum)
                    for (long i = 0; i < n; i++) {
                        cov_hit(c, i);
                        sum += i;
                    }
#pragma omp for schedule(runtime) nowait
                    for (long i = 3 * n - 1; i >= 0; i -= 3)
                        cov_hit(c, n + i / 3);
                }
                cov_check(c, n, what);
                int *c2 = c + n;
                for (long i = 0; i < n; i++)
                    if (c2[i] != 1)
                        FAIL("%s: down loop iteration %ld ran %d times", what, i, c2[i]);
                memset(c2, 0, n * sizeof *c2);
                if (sum != n * (n - 1) / 2)
                    FAIL("%s: sum %ld", what, sum);
            }
    return 0;
}
