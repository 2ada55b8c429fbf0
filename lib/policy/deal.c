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
#include <math.h>
#include <stdio.h>

#include "policy/deal.h"
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

/* "static-weighted": the same single round bound to workers, each worker's block in
 * proportion to its fitness (seed 000: F_i = (1/t_i) / sum_j (1/t_j), eq. 3 with k = 1), its
 * time per iteration t_i what the call site measured in earlier executions (calib_ipt, from
 * the site's memory).  Blocks are contiguous and in worker order, as OpenMP's static; without
 * a measured time for every worker they are equal.  One block per worker (LF__P_STATIC): no
 * shared counter; LF__P_MEASURE has the executor time each block for the site's memory. */
static int static_weighted_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    (void)state;
    return lf__no_chunk(p, "static-weighted", err, errlen);
}

static uint64_t static_weighted_chunk(const void *state, const struct lf__view *v, int w,
                                      uint64_t r, double now)
{
    return 1; /* unused under LF__P_STATIC */
}

static uint64_t static_weighted_partition(const void *state, const struct lf__view *v, int w,
                                          uint64_t k, uint64_t *start)
{
    int P = v->nworkers;
    if (w < 0 || w >= P || v->n == 0 || k != 0)
        return 0;
    /* Running sums of the fitness in worker order: worker w's hi is worker w+1's lo. */
    double sum = 0, lo = 0, hi = 0;
    int weighted = 1;
    for (int j = 0; j < P && weighted; j++) {
        double ipt = lf__word_getd(&v->w[j].calib_ipt);
        weighted = ipt > 0 && isfinite(ipt);
        if (j == w)
            lo = sum;
        sum += weighted ? 1.0 / ipt : 0;
        if (j == w)
            hi = sum;
    }
    uint64_t j0, j1;
    lf__deal_block(v->n, P, w, weighted && sum > 0, weighted ? lo / sum : 0,
                   weighted ? hi / sum : 0, &j0, &j1);
    *start = j0;
    return j1 - j0;
}

const struct lf__policy lf__policy_static_weighted = {
    .name = "static-weighted",
    .synopsis = "static-weighted",
    .help = "one contiguous block per worker, in proportion to the speed the call site measured "
            "(seed 000 fitness, one round)",
    .flags = LF__P_STATIC | LF__P_MEASURE,
    .state_size = 0,
    .parse = static_weighted_parse,
    .chunk = static_weighted_chunk,
    .partition = static_weighted_partition,
};
