/* Two different dynamic loops, one cheap and one 40 times dearer per iteration, run in turn 30
 * times: every iteration once each time.  Under a preloaded shim each loop must keep its own
 * memory (its call site's), which run.sh checks in LF_VERBOSE's output: two call sites named,
 * and no "rates drifted" recalibration back and forth between them. */
#include "check.h"

#define ROUNDS 30

/* Work of about `cost` units, whose result the compiler cannot drop. */
static double work(long i, int cost)
{
    double x = (double)i;
    for (int k = 0; k < cost; k++)
        x = x * 0.999999 + 1.0;
    return x;
}

int main(void)
{
    const long n = 2000;
    int *c = cov_new(n);
    double sink = 0;
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel for schedule(dynamic) reduction(+ : sink)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            sink += work(i, 50);
        }
        cov_check(c, n, "cheap loop");
#pragma omp parallel for schedule(dynamic) reduction(+ : sink)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            sink += work(i, 2000);
        }
        cov_check(c, n, "dear loop");
    }
    if (!(sink > 0))
        FAIL("no work done");
    return 0;
}
