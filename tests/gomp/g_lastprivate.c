/* lastprivate on taken loops: after each loop the variable holds the sequentially last
 * iteration's value.  GCC copies it out of the thread whose own iterator ended at the loop's
 * end, so the thread that runs the chunk holding the last iteration must take no chunk after
 * it; a nonmonotonic loop (schedule(dynamic) means nonmonotonic: split blocks, leases and
 * their steals) can hand it one.  Each loop runs many times with uneven iterations, at trip
 * counts that change, and every iteration must run exactly once. */
#include "check.h"

static void work(long i)
{
    volatile double x = 0.0;
    for (long k = 0; k < (i % 13) * 16; k++)
        x += (double)k;
}

int main(void)
{
    const long reps = 60, most = 3001 + 60;
    int *c = cov_new(most);
    omp_set_schedule(omp_sched_dynamic, 3);
    for (long rep = 0; rep < reps; rep++) {
        const long n = 3001 + rep;
        long vd = -1, vg = -1, vr = -1, va = -1;
#pragma omp parallel
        {
#pragma omp for schedule(dynamic, 7) lastprivate(vd)
            for (long i = 0; i < n; i++) {
                cov_hit(c, i);
                work(i);
                vd = i;
            }
#pragma omp for schedule(guided) lastprivate(vg)
            for (long i = n - 1; i >= 0; i--) {
                work(i);
                vg = i;
            }
#pragma omp for schedule(runtime) lastprivate(vr)
            for (long i = 0; i < n; i++) {
                work(i);
                vr = 2 * i;
            }
#pragma omp for schedule(auto) lastprivate(va)
            for (long i = 0; i < n; i++) {
                work(i);
                va = i + 5;
            }
        }
        cov_check(c, n, "lastprivate dynamic,7");
        if (vd != n - 1)
            FAIL("lastprivate dynamic,7 (n=%ld): %ld, expected %ld", n, vd, n - 1);
        if (vg != 0)
            FAIL("lastprivate guided counting down (n=%ld): %ld, expected 0", n, vg);
        if (vr != 2 * (n - 1))
            FAIL("lastprivate runtime (n=%ld): %ld, expected %ld", n, vr, 2 * (n - 1));
        if (va != n + 4)
            FAIL("lastprivate auto (n=%ld): %ld, expected %ld", n, va, n + 4);
    }
    return 0;
}
