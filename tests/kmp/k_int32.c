/* 32-bit induction variables (__kmpc_dispatch_*_4 and _4u): int and unsigned loops counting
 * up and down, with steps, chunks and bounds near INT_MIN, INT_MAX and UINT_MAX; every
 * iteration once, and the sums equal the sequential ones. */
#include <limits.h>

#include "check.h"

/* The loop i = lo, lo + step, ... while i < hi (step > 0) or i > hi (step < 0), int. */
static void run_int(int lo, int hi, int step, int *c, const char *what)
{
    long n = step > 0 ? ((long)hi - lo + step - 1) / step : ((long)lo - hi - step - 1) / -step;
    long sum = 0, want = 0;
    for (long k = 0; k < n; k++)
        want += (long)lo + k * step;
#pragma omp parallel reduction(+ : sum)
    {
        if (step > 0) {
#pragma omp for schedule(dynamic, 3)
            for (int i = lo; i < hi; i += step) {
                cov_hit(c, ((long)i - lo) / step);
                sum += i;
            }
        } else {
#pragma omp for schedule(guided, 2)
            for (int i = lo; i > hi; i += step) {
                cov_hit(c, ((long)i - lo) / step);
                sum += i;
            }
        }
    }
    cov_check(c, n, what);
    if (sum != want)
        FAIL("%s: sum %ld, expected %ld", what, sum, want);
}

/* The same with unsigned int bounds. */
static void run_uint(unsigned lo, unsigned hi, unsigned step, int up, int *c, const char *what)
{
    unsigned long long d = up ? (unsigned long long)hi - lo : (unsigned long long)lo - hi;
    long n = (long)((d + step - 1) / step);
    unsigned long long sum = 0, want = 0;
    for (long k = 0; k < n; k++)
        want += up ? lo + (unsigned long long)k * step : lo - (unsigned long long)k * step;
#pragma omp parallel reduction(+ : sum)
    {
        if (up) {
#pragma omp for schedule(dynamic)
            for (unsigned i = lo; i < hi; i += step) {
                cov_hit(c, (long)((i - lo) / step));
                sum += i;
            }
        } else {
#pragma omp for schedule(runtime)
            for (unsigned i = lo; i > hi; i -= step) {
                cov_hit(c, (long)((lo - i) / step));
                sum += i;
            }
        }
    }
    cov_check(c, n, what);
    if (sum != want)
        FAIL("%s: sum %llu, expected %llu", what, sum, want);
}

int main(void)
{
    const long n = 2000;
    int *c = cov_new(n);
    omp_set_schedule(omp_sched_dynamic, 5);
    const int wide = (INT_MAX / 1000) * 2; /* 1000 steps span nearly all of int */
    run_int(0, (int)n, 1, c, "int up");
    run_int((int)n - 1, -1, -1, c, "int down");
    run_int(-7, 3 * (int)n - 7, 3, c, "int step 3");
    run_int(INT_MAX - (int)n + 1, INT_MAX, 1, c, "int up to INT_MAX");
    run_int(INT_MIN + (int)n, INT_MIN, -1, c, "int down to INT_MIN");
    run_int(INT_MIN + 5, (int)(INT_MIN + 5 + 999L * wide + 1), wide, c, "int across the range");
    run_int(INT_MAX - 5, (int)(INT_MAX - 5 - 999L * wide - 1), -wide, c, "int down across");
    run_uint(0, (unsigned)n, 1, 1, c, "unsigned up");
    run_uint((unsigned)n, 0, 1, 0, c, "unsigned down");
    run_uint(UINT_MAX - (unsigned)n + 1, UINT_MAX, 1, 1, c, "unsigned up to UINT_MAX");
    run_uint(UINT_MAX, UINT_MAX - 3 * (unsigned)n, 3, 0, c, "unsigned down from UINT_MAX");
    /* clang computes the trip count as (hi - lo + step - 1) / step in unsigned: keep it from
     * wrapping, as a program must. */
    run_uint(1, UINT_MAX - UINT_MAX / 1001, UINT_MAX / 1001, 1, c, "unsigned across the range");
    return 0;
}
