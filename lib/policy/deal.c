/* lib/policy/deal.c - seed 000 SCH_DEAL: one round of equal shares
 * (González-Vélez & Cole, Table 2: eq. 3 with k = 1 and F_i = 1/N).
 *
 * References: H. González-Vélez & M. Cole, "Adaptive statistical
 * scheduling of divisible workloads in heterogeneous systems", Journal of
 * Scheduling (Springer), 2009 (seed 000).
 *
 * The n iterations are cut into P consecutive blocks whose sizes differ by
 * at most one (ceil(n/P) for the first n mod P blocks, floor(n/P) after),
 * and a request takes the rest of the block that the first unclaimed
 * iteration falls in.  The answer depends only on how much is claimed, not
 * on who asks, so the loop finishes correctly in any arrival order: a
 * worker that comes back while blocks remain (because a teammate has not
 * arrived yet) simply takes the next block, and no block is ever split
 * unevenly by rounding.
 */
#include <errno.h>
#include <stdio.h>

#include "policy/policy.h"

static int deal_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    (void)state;
    if (p->has_chunk) {
        snprintf(err, errlen,
                 "deal takes no chunk size (each thread's share is n/P); use static,c");
        return -EINVAL;
    }
    return 0;
}

/* Iterations from logical position pos (= n - r) to the end of its block. */
static uint64_t deal_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                           double now)
{
    (void)state;
    (void)w;
    uint64_t n = v->n, p = (uint64_t)v->nworkers;
    if (r == 0 || r > n)
        return r ? r : 1; /* outside the contract: anything >= 1 is safe */
    uint64_t pos = n - r, q = n / p, rem = n % p;
    uint64_t big = rem * (q + 1); /* iterations in the ceil(n/P)-sized blocks */
    uint64_t end;
    if (pos < big)
        end = (pos / (q + 1) + 1) * (q + 1);
    else
        end = big + ((pos - big) / q + 1) * q; /* q > 0 here: pos < n = big when q == 0 */
    return end - pos;
}

const struct lf__policy lf__policy_deal = {
    .name = "deal",
    .synopsis = "deal",
    .help = "one round of equal shares, ceil(n/P) or floor(n/P) each (seed 000 Table 2, "
            "SCH_DEAL)",
    .flags = 0,
    .state_size = 0,
    .parse = deal_parse,
    .chunk = deal_chunk,
};
