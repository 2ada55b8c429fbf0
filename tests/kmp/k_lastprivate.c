/* lastprivate on dynamic, guided and runtime loops of int, long and unsigned long long: the
 * value after the loop is the sequentially last iteration's (the chunk that holds it is the
 * one the runtime marks last), and firstprivate values reach every chunk.  The dynamic loop
 * asks for monotonic order: LLVM 14's libomp itself loses the lastprivate value of a
 * schedule(nonmonotonic: dynamic, 7) loop (its static_steal) at 3 threads, bare. */
#include "check.h"

int main(void)
{
    const long n = 3001;
    int *c = cov_new(n);
    int li = -1;
    long ll = -1;
    unsigned long long lu = 0;
    int base = 11, wrong = 0;
    omp_set_schedule(omp_sched_guided, 3);
#pragma omp parallel firstprivate(base) reduction(+ : wrong)
    {
#pragma omp for schedule(monotonic : dynamic, 7) lastprivate(li)
        for (int i = 0; i < (int)n; i++) {
            cov_hit(c, i);
            li = i * 2 + base;
        }
#pragma omp for schedule(guided) lastprivate(ll)
        for (long i = n - 1; i >= 0; i--) {
            cov_hit(c, i);
            ll = i + base;
        }
#pragma omp for schedule(runtime) lastprivate(lu)
        for (unsigned long long i = 5; i < 5 + 3 * (unsigned long long)n; i += 3) {
            cov_hit(c, (long)((i - 5) / 3));
            lu = i;
            wrong += base != 11;
        }
    }
    for (long i = 0; i < n; i++)
        if (c[i] != 3)
            FAIL("iteration %ld ran %d times in 3 loops", i, c[i]);
    if (li != 2 * ((int)n - 1) + 11)
        FAIL("lastprivate int: %d, expected %d", li, 2 * ((int)n - 1) + 11);
    if (ll != 11)
        FAIL("lastprivate long counting down: %ld, expected 11", ll);
    if (lu != 5 + 3 * (unsigned long long)(n - 1))
        FAIL("lastprivate unsigned long long: %llu, expected %llu", lu,
             5 + 3 * (unsigned long long)(n - 1));
    if (wrong)
        FAIL("firstprivate: %d iterations saw another value", wrong);
    return 0;
}
