/* `cancel for` in a dynamic loop (GOMP_loop_end_cancel): no iteration runs twice, the loop
 * ends, and with OMP_CANCELLATION=true it stops early; then a normal loop still covers all. */
#include "check.h"

int main(void)
{
    const long n = 100000;
    int *c = cov_new(n);
    long ran = 0;
#pragma omp parallel reduction(+ : ran)
    {
#pragma omp for schedule(dynamic, 4)
        for (long i = 0; i < n; i++) {
            cov_hit(c, i);
            ran++;
            if (i == 100) {
#pragma omp cancel for
            }
#pragma omp cancellation point for
        }
#pragma omp atomic
        ran += 0; /* work after the loop keeps its closing (cancellable) barrier */
    }
    for (long i = 0; i < n; i++)
        if (c[i] > 1)
            FAIL("cancel: iteration %ld ran %d times", i, c[i]);
    if (omp_get_cancellation() && ran == n && omp_get_max_threads() > 1)
        fprintf(stderr, "g_cancel: note: the loop ran to the end despite cancel\n");
    memset(c, 0, n * sizeof *c);
#pragma omp parallel
    {
#pragma omp for schedule(dynamic)
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
    }
    cov_check(c, n, "dynamic after a cancelled loop");
    return 0;
}
