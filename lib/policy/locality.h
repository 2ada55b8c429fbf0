/* lib/policy/locality.h - the pure rules of locality-aware dispatch and of
 * the run-time cost model, shared by the OpenMP dispatcher and lf-sim so
 * that both make the same decisions.
 *
 * Locality.  A loop's iterations are split into one range per NUMA domain
 * (its home: where the range's input lives).  A worker takes chunks from
 * its own domain's range while it has any; then it helps the domain with
 * the most iterations left.  The chunk the policy sized is then scaled so
 * that it lasts as long as a local one would (a remote iteration costs the
 * worker x more ns), and it takes at most an equal share of the victim's
 * remainder with the victim's own workers, so that the owners are not left
 * idle by a thief that took their data.
 *
 * Cost model (Yang & Casanova, seed 003 §3, eqs. 1-2).  A chunk of c
 * iterations costs alpha + c t to compute and, when staged, beta + c s to copy
 * (s = bytes per iteration / B).  The executor fits both lines to its measured
 * chunks by least squares (lf__affine_*).
 *
 * References: Y. Yang & H. Casanova, "Multi-Round Algorithms for Scheduling
 * Divisible Loads", IEEE Transactions on Parallel and Distributed Systems,
 * 2005 (seed 003), for the affine cost model only; the locality rules are
 * the library's own.
 */
#ifndef LF_POLICY_LOCALITY_H
#define LF_POLICY_LOCALITY_H

#include <stdint.h>

/* Most domains a loop is split over. */
#define LF__MAXDOM 64

/* The domain whose range worker of domain self takes from: self when
 * remaining[self] > 0; else the domain with the most left (lowest index on
 * ties); -1 when nothing is left anywhere.  self may be out of range (a
 * worker with no domain), and then only the second rule applies. */
int lf__loc_pick(const uint64_t *remaining, int ndom, int self);

/* Size of a chunk a worker takes from another domain's range: the policy's
 * c, times t_local / (t_local + x) when the worker's local time per
 * iteration t_local > 0 and a remote iteration's extra cost x > 0 are
 * known; at most ceil(r / (owners + 1)) when the victim's domain has
 * owners > 0 workers; within [1, r] (r >= 1 iterations left there). */
uint64_t lf__loc_remote_chunk(uint64_t c, double t_local, double x, uint64_t r, int owners);

/* What a worker measured of its chunks' compute times: on local data (its
 * own domain's, or a staged copy on it) and on another domain's data read
 * in place. */
struct lf__loc_times {
    double loc_ns, loc_it, rem_ns, rem_it;
};

static inline void lf__loc_times_add(struct lf__loc_times *t, int remote, double ns, double iters)
{
    if (remote) {
        t->rem_ns += ns;
        t->rem_it += iters;
    } else {
        t->loc_ns += ns;
        t->loc_it += iters;
    }
}

/* The chunk a worker with times t takes from another domain's range of r
 * iterations (owners workers there): lf__loc_remote_chunk with t_local its
 * mean local time per iteration and x what a remote one costs it more
 * (both 0 while unknown).  Under staging only the share cap applies: the
 * policies see the staging costs through the view. */
uint64_t lf__loc_steal(uint64_t c, const struct lf__loc_times *t, int staging, uint64_t r,
                       int owners);

/* Learn the home ranges of n iterations over ndom domains from where their
 * data lies: node_at(i, ctx) is the domain of iteration i's data (-1
 * unknown).  Samples 64 evenly spaced iterations; when each domain's
 * samples are contiguous (a blocked placement, any order), finds every
 * boundary by bisection (O(log n) queries each) and sets lo[d], hi[d] for
 * every domain (lo == hi for a domain that holds nothing).  Returns the
 * number of domains that hold iterations, or -1 when the placement is not
 * blocked, a sample is unknown or out of range (then nothing is set). */
int lf__loc_learn(uint64_t n, int ndom, int (*node_at)(uint64_t i, void *ctx), void *ctx,
                  uint64_t *lo, uint64_t *hi);

/* Running least-squares line y = c0 + c1 x over (x, y) observations. */
struct lf__affine {
    double n, sx, sy, sxx, sxy;
};

static inline void lf__affine_add(struct lf__affine *a, double x, double y)
{
    a->n += 1.0;
    a->sx += x;
    a->sy += y;
    a->sxx += x * x;
    a->sxy += x * y;
}

/* Intercept *c0 >= 0 and slope *c1 >= 0 of the fit.  With one distinct x
 * (or a negative intercept) the line goes through the origin: c0 = 0,
 * c1 = sxy / sxx; a negative slope gives c1 = 0, c0 = mean y.  Returns 0,
 * or -1 with nothing set when there is no observation with x > 0. */
int lf__affine_solve(const struct lf__affine *a, double *c0, double *c1);

#endif
