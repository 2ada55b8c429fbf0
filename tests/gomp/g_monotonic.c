/* schedule(monotonic:...), and schedule(runtime) under a monotonic run-sched ICV, hand each
 * thread increasing iterations (also where a schedule leases ranges: no member may take
 * another's tail); nonmonotonic covers all. */
#include "check.h"

#define MAXT 256

int main(void)
{
    const long n = 5000;
    int *c = cov_new(n);
    long last[MAXT];
    int bad = 0;
    omp_set_schedule((omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic), 2);
#pragma omp parallel
    {
        int t = omp_get_thread_num() % MAXT;
        last[t] = -1;
#pragma omp for schedule(monotonic : dynamic, 3)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            if (i <= last[t])
                bad = 1;
            last[t] = i;
        }
#pragma omp single
        cov_check(c, n, "monotonic:dynamic,3");
        last[t] = -1;
#pragma omp for schedule(monotonic : guided)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            if (i <= last[t])
                bad = 2;
            last[t] = i;
        }
#pragma omp single
        cov_check(c, n, "monotonic:guided");
        last[t] = -1;
#pragma omp for schedule(monotonic : dynamic)
        for (long i = n; i > 0; i--) {
            cov_hit(c, n - i);
            if (n - i <= last[t])
                bad = 3;
            last[t] = n - i;
        }
#pragma omp single
        cov_check(c, n, "monotonic:dynamic step -1");
        last[t] = -1;
#pragma omp for schedule(runtime)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            if (i <= last[t])
                bad = 4;
            last[t] = i;
        }
#pragma omp single
        cov_check(c, n, "runtime, ICV monotonic:dynamic,2");
#pragma omp for schedule(nonmonotonic : dynamic, 2)
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
#pragma omp single
        cov_check(c, n, "nonmonotonic:dynamic,2");
#pragma omp for schedule(nonmonotonic : guided)
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
    }
    cov_check(c, n, "nonmonotonic:guided");
    if (bad)
        FAIL("monotonic loop %d handed a thread a decreasing iteration", bad);
    return 0;
}
