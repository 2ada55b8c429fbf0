/* lib/policy/tss.c - "tss": trapezoid self-scheduling (Tzen & Ni, IEEE
 * TPDS 4(1), 1993).
 *
 * References: T. H. Tzen & L. M. Ni, "Trapezoid self-scheduling: a practical
 * scheduling scheme for parallel compilers", IEEE Transactions on Parallel
 * and Distributed Systems 4(1), 1993.
 *
 * Tzen & Ni's chunks decrease linearly from f = ceil(n / 2P) to l = 1 over
 * C = ceil(2n / (f + l)) chunks, by d = (f - l) / (C - 1) each.
 *
 * The executor claims with a CAS on a shared counter and can only tell us
 * r, the unclaimed count, not which chunk this is.  So the size is expressed
 * as a function of the consumed work x = n - r, by inverting the series.
 *
 * Continuous view first: sizes s(t) = f - d t after t chunks consume
 * x(t) = integral_0^t s = f t - d t^2 / 2, and eliminating t gives
 *     s^2 = f^2 - 2 f d t + d^2 t^2 = f^2 - 2 d (f t - d t^2 / 2) = f^2 - 2 d x,
 * i.e. s(x) = sqrt(f^2 - 2 d x).  That form under-counts the work each chunk
 * consumes (the integral of a decreasing line over [k, k+1] is below its
 * value at k), and it reaches l after only (C-1)(f+l)/2 = n (C-1)/C
 * iterations: the last n/C would go in chunks of l, which for small C (one
 * worker: C = 4) is a quarter of the loop at size 1.
 *
 * So we invert the discrete series exactly instead.  Before chunk k the
 * consumed work is x_k = sum_{j<k} (f - j d) = k f - d k (k-1) / 2
 *                      = g k - d k^2 / 2   with g = f + d/2,
 * hence k = (g - sqrt(g^2 - 2 d x)) / d and the k-th size f - k d is
 *     s(x) = sqrt(g^2 - 2 d x) - d / 2,
 * the continuous formula with f shifted by d/2.  It gives f at x = 0 and
 * exactly f - k d at every x_k; the C chunks cover C (f + l) / 2 >= n.
 * Sizes are rounded up (so the loop ends in at most C chunks), and anything
 * below l, including a negative radicand past the trapezoid, becomes l.
 */
#include <math.h>

#include "policy/factoring.h"

struct tss_state {
    uint64_t n; /* the loop the fields below describe */
    int nworkers;
    double f; /* first chunk */
    double d; /* decrement per chunk */
};

#define TSS_LAST 1.0 /* l: the paper's default last chunk */

static int tss_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return lf__no_chunk(p, "tss", err, errlen);
}

/* Fill f and d for v's loop. */
static void tss_setup(struct tss_state *s, const struct lf__view *v)
{
    uint64_t P = (uint64_t)v->nworkers;
    uint64_t f = lf__div_ceil(v->n, 2 * P);
    s->n = v->n;
    s->nworkers = v->nworkers;
    s->f = f > 1 ? (double)f : 1.0;
    /* C = ceil(2n / (f + l)); in double because 2n can exceed 2^64. */
    double C = ceil(2.0 * (double)v->n / (s->f + TSS_LAST));
    s->d = C > 1.0 ? (s->f - TSS_LAST) / (C - 1.0) : 0.0;
}

static void tss_start(void *state, const struct lf__view *v)
{
    tss_setup(state, v);
}

static uint64_t tss_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                          double now)
{
    struct tss_state local;
    const struct tss_state *s = state;
    if (s->n != v->n || s->nworkers != v->nworkers) { /* start() not run for this loop */
        tss_setup(&local, v);
        s = &local;
    }
    double x = r < v->n ? (double)(v->n - r) : 0.0;
    double g = s->f + 0.5 * s->d;
    double rad = g * g - 2.0 * s->d * x;
    /* The small epsilon keeps an exact integer f - k d from rounding up by
     * one when sqrt lands a hair above it. */
    double size = rad > 0.0 ? ceil(sqrt(rad) - 0.5 * s->d - 1e-9 * g) : 0.0;
    return lf__chunk_clamp(size > TSS_LAST ? size : TSS_LAST, r);
}

const struct lf__policy lf__policy_tss = {
    .name = "tss",
    .synopsis = "tss",
    .help = "trapezoid self-scheduling: linear decrease from n/2P to 1 (Tzen & Ni 1993)",
    .flags = 0,
    .state_size = sizeof(struct tss_state),
    .parse = tss_parse,
    .start = tss_start,
    .chunk = tss_chunk,
};
