/* lib/policy/locality.c - locality-aware dispatch rules and the affine cost
 * fit (see locality.h).
 *
 * References: the lines fitted by lf__affine_solve are the affine costs of
 * Y. Yang & H. Casanova, "Multi-Round Algorithms for Scheduling Divisible
 * Loads", IEEE Transactions on Parallel and Distributed Systems, 2005
 * (seed 003, eqs. 1-2). */
#include <math.h>

#include "policy/locality.h"
#include "policy/fmath.h"

int lf__loc_pick(const uint64_t *remaining, int ndom, int self)
{
    if (self >= 0 && self < ndom && remaining[self] > 0)
        return self;
    int best = -1;
    for (int d = 0; d < ndom; d++)
        if (remaining[d] > 0 && (best < 0 || remaining[d] > remaining[best]))
            best = d;
    return best;
}

uint64_t lf__loc_remote_chunk(uint64_t c, double t_local, double x, uint64_t r, int owners)
{
    double size = (double)c;
    if (t_local > 0.0 && x > 0.0 && isfinite(t_local) && isfinite(x))
        size *= t_local / (t_local + x); /* same duration as a local chunk */
    if (owners > 0) {
        /* An equal share with the owners of the range. */
        uint64_t share = r / (uint64_t)(owners + 1) + (r % (uint64_t)(owners + 1) != 0);
        if (size > (double)share)
            size = (double)share;
    }
    if (!(size >= 1.0))
        return 1;
    return size >= (double)r ? r : (uint64_t)size;
}

uint64_t lf__loc_steal(uint64_t c, const struct lf__loc_times *t, int staging, uint64_t r,
                       int owners)
{
    double tl = 0.0, x = 0.0;
    if (!staging && t->loc_it > 0) {
        tl = t->loc_ns / t->loc_it;
        if (tl > 0 && t->rem_it > 0)
            x = lf__fmax(0.0, t->rem_ns / t->rem_it - tl);
    }
    return lf__loc_remote_chunk(c, tl, x, r, owners);
}

#define LEARN_SAMPLES 64

int lf__loc_learn(uint64_t n, int ndom, int (*node_at)(uint64_t i, void *ctx), void *ctx,
                  uint64_t *lo, uint64_t *hi)
{
    if (n == 0 || ndom < 1 || ndom > LF__MAXDOM)
        return -1;
    int ns = n < LEARN_SAMPLES ? (int)n : LEARN_SAMPLES;
    uint64_t pos[LEARN_SAMPLES];
    int node[LEARN_SAMPLES];
    int seen[LF__MAXDOM] = {0};
    for (int s = 0; s < ns; s++) {
        /* Evenly spaced, first and last iteration included. */
        pos[s] = ns > 1 ? (uint64_t)((double)(n - 1) * s / (ns - 1)) : 0;
        node[s] = node_at(pos[s], ctx);
        if (node[s] < 0 || node[s] >= ndom)
            return -1;
        /* Blocked: a domain reappearing after another one breaks it. */
        if (s > 0 && node[s] != node[s - 1] && seen[node[s]])
            return -1;
        seen[node[s]] = 1;
    }
    uint64_t blo[LF__MAXDOM], bhi[LF__MAXDOM];
    for (int d = 0; d < ndom; d++)
        blo[d] = bhi[d] = 0;
    uint64_t start = 0;
    int held = 0;
    for (int s = 0; s < ns; s++) {
        if (s + 1 < ns && node[s + 1] == node[s])
            continue;
        uint64_t end = n;
        if (s + 1 < ns) {
            /* The boundary lies in (pos[s], pos[s+1]]: the first iteration
             * not on node[s]; bisect on "still on node[s]". */
            uint64_t a = pos[s], b = pos[s + 1];
            while (b - a > 1) {
                uint64_t m = a + (b - a) / 2;
                int k = node_at(m, ctx);
                if (k < 0 || k >= ndom)
                    return -1;
                if (k == node[s])
                    a = m;
                else
                    b = m;
            }
            end = b;
        }
        blo[node[s]] = start;
        bhi[node[s]] = end;
        held++;
        start = end;
    }
    for (int d = 0; d < ndom; d++) {
        lo[d] = blo[d];
        hi[d] = bhi[d];
    }
    return held;
}

int lf__affine_solve(const struct lf__affine *a, double *c0, double *c1)
{
    if (!(a->n >= 1.0) || !(a->sx > 0.0) || !(a->sxx > 0.0))
        return -1;
    double mx = a->sx / a->n, my = a->sy / a->n;
    double vxx = a->sxx / a->n - mx * mx;
    /* Relative test: one distinct x leaves only rounding noise in vxx. */
    if (a->n >= 2.0 && vxx > 1e-9 * (a->sxx / a->n)) {
        double slope = (a->sxy / a->n - mx * my) / vxx;
        double icpt = my - slope * mx;
        if (slope < 0.0) {
            *c0 = my > 0.0 ? my : 0.0;
            *c1 = 0.0;
            return 0;
        }
        if (icpt >= 0.0) {
            *c0 = icpt;
            *c1 = slope;
            return 0;
        }
    }
    double slope = a->sxy / a->sxx;
    *c0 = 0.0;
    *c1 = slope > 0.0 ? slope : 0.0;
    return 0;
}
