/* lib/policy/fifo.c - "fifo" and "lifo" (seed 002, Beaumont & Rosenberg:
 * single-round worksharing with result return on a one-port platform).
 *
 * References: O. Beaumont & A. L. Rosenberg, "Link-Heterogeneity vs.
 * Node-Heterogeneity in Clusters", HiPC 2010 (Int. Conf. on High Performance
 * Computing), Goa, December 2010 (seed 002).  Theorem and equation numbers
 * below are that paper's.
 *
 * Notation.  Beaumont & Rosenberg's worker C_k (k-th in the startup order)
 * receives w_k units in tau_k w_k, computes them in rho w_k, and returns delta
 * w_k units of results in delta tau_k w_k; R = rho + (1+delta) pi with
 * packaging pi = 0 here.  Mapping: a unit is an iteration; tau_k =
 * stage_ns_per_iter of worker k; R_k = calib_ipt of worker k (frozen at
 * calibration, so that every request computes the same shares; it includes the
 * compute latency spread over the calibration chunk); delta = ret=<x> (default
 * 0).  The paper's nodes are identical (one R); we keep R_k per worker, which
 * the same linear systems allow.  Latencies are ignored, as in the paper.
 *
 * Shares.  The startup order is the worker index order (lf-sim serves
 * claims in index order at equal times, e.g. with cal=paper).  Subtracting
 * adjacent rows of the linear systems (1) and (5):
 *   LIFO (Theorem 1, eq. 3):  w_k = w_{k-1} R_{k-1} / (R_k + (1+delta) tau_k)
 *   FIFO (Theorem 2, eq. 9):  w_k = w_{k-1} (R_{k-1} + delta tau_{k-1}) / (R_k + tau_k)
 * (for one R: R/(R + tau~_k) and (R + delta tau_{k-1})/(R + tau_k) as
 * printed).  The lifespan L only scales them: w_1 is chosen so that the
 * shares add up to r, the iterations unclaimed when calibration ends, and
 * they are rounded by cumulative sums so that they add up exactly.  With
 * delta = 0 both give the same one-round divisible-load allocation.
 *
 * Handing out.  The executor is a shared counter: worker w's first request
 * after calibration gets exactly its share (at whatever position the
 * counter is; who gets which range does not matter, how much each computes
 * does).  A later request returns 0 (LF__P_MAYSTOP: the worker stops) while
 * another worker has still to take its share, and takes all that is left
 * when every other worker has stopped.  A deal-like positional partition
 * (piece k to the k-th request) would give the k-th arrival the k-th share
 * whoever it is; identity is what the theorems' heterogeneous shares need.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "policy/factoring.h"
#include "policy/fit.h"
#include "policy/rounds.h"

struct fifo {
    int lifo;
    int ready;
    double ret;   /* delta */
    double W;     /* iterations shared out */
    double total; /* sum of the relative shares x_k = w_k / w_1 */
    double tmean;
};

static int parse(void *state, struct lf__params *p, int lifo, char *err, size_t errlen)
{
    struct fifo *st = state;
    int rc = lf__no_chunk(p, lifo ? "lifo[,ret=x]" : "fifo[,ret=x]", err, errlen);
    if (rc)
        return rc;
    st->lifo = lifo;
    rc = lf__params_get_double(p, "ret", 0.0, 0.999999, &st->ret, err, errlen);
    return rc < 0 ? rc : 0;
}

static int fifo_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return parse(state, p, 0, err, errlen);
}

static int lifo_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return parse(state, p, 1, err, errlen);
}

static double R_of(const struct fifo *st, const struct lf__view *v, int k)
{
    double t = lf__word_getd(&v->w[k].calib_ipt);
    return t > 0.0 && isfinite(t) ? t : st->tmean;
}

/* x_k / x_{k-1}: the ratio of consecutive shares (Theorems 1-2). */
static double ratio(const struct fifo *st, const struct lf__view *v, int k)
{
    double tk = lf__word_getd(&v->w[k].stage_ns_per_iter);
    double tp = lf__word_getd(&v->w[k - 1].stage_ns_per_iter);
    double Rk = R_of(st, v, k), Rp = R_of(st, v, k - 1), d = st->ret;
    if (st->lifo)
        return Rp / (Rk + (1.0 + d) * tk);
    return (Rp + d * tp) / (Rk + tk);
}

static void fifo_calibrated(void *state, const struct lf__view *v, uint64_t r)
{
    struct fifo *st = state;
    st->tmean = lf__mean_calib_ipt(v);
    if (!(st->tmean > 0.0))
        st->tmean = 1.0; /* nothing measured: all equal */
    double x = 1.0;
    st->total = 1.0;
    for (int k = 1; k < v->nworkers; k++) {
        x *= ratio(st, v, k);
        st->total += x;
    }
    st->W = (double)r;
    st->ready = 1;
}

/* Worker w's share in iterations: difference of rounded cumulative sums. */
static double share_of(const struct fifo *st, const struct lf__view *v, int w)
{
    double x = 1.0, cum = 0.0;
    for (int k = 0; k < w; k++) {
        cum += x;
        x *= ratio(st, v, k + 1);
    }
    double lo = floor(st->W * cum / st->total + 0.5);
    double hi = w + 1 == v->nworkers ? st->W : floor(st->W * (cum + x) / st->total + 0.5);
    if (hi > st->W)
        hi = st->W;
    return hi > lo ? hi - lo : 0.0;
}

/* Whether every worker but w has stopped. */
static int alone(const struct lf__view *v, int w)
{
    for (int j = 0; j < v->nworkers; j++)
        if (j != w && !lf__word_get(&v->w[j].stopped))
            return 0;
    return 1;
}

static uint64_t fifo_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                           double now)
{
    const struct fifo *st = state;
    if (!st->ready)
        return lf__div_ceil(r, (uint64_t)v->nworkers);
    if (lf__rounds_begun(v, w) == 0) {
        double s = share_of(st, v, w);
        if (s >= 1.0)
            return lf__chunk_clamp(s, r);
        return alone(v, w) ? r : 0;
    }
    return alone(v, w) ? r : 0;
}

const struct lf__policy lf__policy_fifo = {
    .name = "fifo",
    .synopsis = "fifo[,ret=x]",
    .help = "one round, results returned first-in first-out on one port: "
            "w_k = w_{k-1} (R + ret tau_{k-1})/(R + tau_k) (seed 002 Theorem 2)",
    .flags = LF__P_CALIB | LF__P_MAYSTOP,
    .state_size = sizeof(struct fifo),
    .parse = fifo_parse,
    .calibrated = fifo_calibrated,
    .chunk = fifo_chunk,
};

const struct lf__policy lf__policy_lifo = {
    .name = "lifo",
    .synopsis = "lifo[,ret=x]",
    .help = "one round, results returned last-in first-out on one port: "
            "w_k = w_{k-1} R/(R + (1+ret) tau_k) (seed 002 Theorem 1)",
    .flags = LF__P_CALIB | LF__P_MAYSTOP,
    .state_size = sizeof(struct fifo),
    .parse = lifo_parse,
    .calibrated = fifo_calibrated,
    .chunk = fifo_chunk,
};
