/* 1000 loops back to back in one region (some nowait), then 1000 combined loops. */
#include "check.h"

#define LOOPS 1000

int main(void)
{
    int *c = cov_new((long)LOOPS * 64);
    long total = 0;
#pragma omp parallel reduction(+ : total)
    for (int l = 0; l < LOOPS; l++) {
        long n = l % 61 + 1;
        int *cl = c + (long)l * 64;
        switch (l % 4) {
        case 0:
#pragma omp for schedule(dynamic)
            for (long i = 0; i < n; i++) {
                cov_hit(cl, i);
                total++;
            }
            break;
        case 1:
#pragma omp for schedule(guided) nowait
            for (long i = 0; i < n; i++) {
                cov_hit(cl, i);
                total++;
            }
            break;
        case 2:
#pragma omp for schedule(dynamic, 2) nowait
            for (long i = 0; i < n; i++) {
                cov_hit(cl, i);
                total++;
            }
            break;
        default:
#pragma omp for schedule(runtime)
            for (long i = 0; i < n; i++) {
                cov_hit(cl, i);
                total++;
            }
        }
    }
    long expect = 0;
    for (int l = 0; l < LOOPS; l++) {
        long n = l % 61 + 1;
        expect += n;
        cov_check(c + (long)l * 64, n, "many loops");
    }
    if (total != expect)
        FAIL("many loops: %ld iterations, expected %ld", total, expect);
    for (int l = 0; l < LOOPS; l++) {
        long n = l % 61 + 1;
#pragma omp parallel for schedule(dynamic)
        for (long i = 0; i < n; i++)
            cov_hit(c, i);
        cov_check(c, n, "many combined loops");
    }
    return 0;
}
