/* lib/policy/deal.h - the block arithmetic of a single-round deal (seed 000's SCH_DEAL), equal
 * or weighted, shared by the policies of lib/policy/deal.c and by libloopfarm-kmp's weighted
 * static loops (lib/kmp/static.c).  Pure and header-only: the shim does not link the policies.
 *
 * References: H. González-Vélez & M. Cole, "Adaptive statistical scheduling of divisible
 * workloads in heterogeneous systems", Journal of Scheduling (Springer), 2009 (seed 000):
 * eq. 3 with one installment (k = 1) gives worker i the share R * F_i of the R iterations, F_i
 * its fitness, (1/t_i) / sum_j (1/t_j), t_i its time per iteration.
 */
#ifndef LF_POLICY_DEAL_H
#define LF_POLICY_DEAL_H

#include <math.h>
#include <stdint.h>

/* Worker t's block [*j0, *j1) of [0, n) among P >= 1 workers.
 * Equal (weighted 0): the first n % P workers take ceil(n / P), the others floor(n / P).
 * Weighted (n >= P): one iteration each, and the other n - P split in proportion to the
 * workers' shares: lo and hi are the sums of the shares of workers 0 .. t-1 and 0 .. t, as
 * fractions of the whole (0 <= lo <= hi <= 1), computed by the caller as running sums in
 * worker order, so that worker t's hi is worker t+1's lo bit for bit.
 * Either way blocks are contiguous, in worker order, and tile [0, n). */
static inline void lf__deal_block(uint64_t n, int P, int t, int weighted, double lo, double hi,
                                  uint64_t *j0, uint64_t *j1)
{
    uint64_t p = (uint64_t)P, ut = (uint64_t)t;
    if (!weighted || n < p) {
        uint64_t q = n / p, rem = n % p;
        *j0 = ut * q + (ut < rem ? ut : rem);
        *j1 = *j0 + q + (ut < rem);
        return;
    }
    uint64_t m = n - p;
    /* long double holds every integer below 2^64: m * 1.0 is m exactly. */
    long double a = floorl((long double)m * lo), b = floorl((long double)m * hi);
    uint64_t fa = a <= 0 ? 0 : a >= (long double)m ? m : (uint64_t)a;
    uint64_t fb = b <= 0 ? 0 : b >= (long double)m ? m : (uint64_t)b;
    if (t == P - 1)
        fb = m;
    *j0 = ut + fa;
    *j1 = ut + 1 + fb;
}

#endif
