/* lib/policy/auto.c - "auto", the default schedule: it learns each call
 * site's cost profile and each thread's speed, and sizes chunks in
 * expected time.
 *
 * References: H. González-Vélez & M. Cole, "Adaptive statistical
 * scheduling of divisible workloads in heterogeneous systems", Journal of
 * Scheduling (Springer), 2009 (seed 000: calibration, fitness eq. 4,
 * installment factor eqs. 7-8, installment eq. 9); I. Banicescu & Z. Liu,
 * "Adaptive factoring: a dynamic scheduling method tuned to the rate of
 * weight changes", Proc. HPC Symposium, 2000 (the variance bound); S. F.
 * Hummel, E. Schonberg & L. E. Flynn, "Factoring: a method for scheduling
 * parallel loops", CACM 35(8), 1992 (halving rounds).
 *
 * With a trusted profile (the executor's view->prof: what this call site's
 * earlier executions taught, lib/exec/profile.c) and the workers' times
 * per unit from the same memory, chunks are sized in units of expected
 * cost rather than in iterations: worker w's first chunk holds
 * U0 / k1 * F_w units (U0 the units of the loop, F_w = (1/g_w) / sum_j
 * (1/g_j) its fitness from its time per unit g_w; seed 000 eq. 9 with the
 * cost-weighted boundaries of the profile, exact for an irregular loop
 * when k1 = 1), at most its share U_R * F_w of the U_R units left; every
 * later chunk U_R / 2 * F_w units with g refreshed from each worker's
 * latest chunk (its time over the units the profile expected of it, so a
 * slow worker is not mistaken for an expensive region), down to the
 * claim-cost floor: a chunk is at least claim_ns / 0.02 of expected
 * compute.  Units become iterations by walking the profile from the first
 * unclaimed iteration (lf__profile_span).
 *
 * Without one (a first execution, or a profile that stopped predicting),
 * auto calibrates as multi does and takes the smaller of multi's chunk
 * (k = max(2, ln(S)^CV) installments, fitness from the latest chunks) and
 * af's (the batch time X with X + sqrt(D X) = T R, D = sum_j sigma_j^2 /
 * mu_j over each worker's per-chunk times per iteration), so that a loop
 * whose times per iteration scatter never stakes a large chunk blindly;
 * the stop rule of multi (seed 000 Table 1) stays.  Both are called
 * through their descriptors, on states of their own inside auto's.
 *
 * A loop of at most FEW_PER_WORKER iterations per worker is
 * self-scheduled instead (one iteration per claim, or the claim-cost
 * floor), since whole iterations are all a deal or a lease can move.
 *
 * Leases are on by default (LF__P_LEASE): whatever a chunk's size, a
 * worker that falls behind holds the loop up by one piece.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "policy/fit.h"
#include "policy/policy.h"
#include "policy/fmath.h"

extern const struct lf__policy lf__policy_multi, lf__policy_af;

/* The claim may cost at most this fraction of a chunk's compute time. */
#define CLAIM_SHARE 0.02
/* A loop of at most this many iterations per worker is self-scheduled:
 * one iteration per claim (or the claim-cost floor, for iterations that
 * cost less than a claim).  Dealing rounds each worker's share to whole
 * iterations and a lease is never split below one, so there an error of
 * one iteration is a large part of a worker's share (a schedule(dynamic,
 * 16384) loop of 8 chunks met through the shim is such a loop), while the
 * claims, at most this many per worker, are few. */
#define FEW_PER_WORKER 8
/* Room for the states of the policies auto delegates to. */
#define MULTI_STATE_MAX 96
#define AF_STATE_MAX    288

struct autop {
    uint64_t min; /* min=<n>: smallest chunk, 0 derived */
    double k1;    /* k1=<x>: the first round's installment factor with a profile */
    int prof;     /* this instance deals by the profile */
    double u0;    /* units of the loop when it started */
    uint64_t multi[MULTI_STATE_MAX / 8];
    uint64_t af[AF_STATE_MAX / 8];
};

static int auto_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct autop *st = state;
    struct lf__params none = {.name = "auto"};
    int rc;
    if (lf__policy_multi.state_size > sizeof st->multi ||
        lf__policy_af.state_size > sizeof st->af) {
        snprintf(err, errlen, "auto: internal error: multi's or af's state outgrew auto's");
        return -EINVAL;
    }
    rc = lf__params_get_double(p, "k1", 1.0, 1e9, &st->k1, err, errlen);
    if (rc < 0)
        return rc;
    if (rc == 0)
        st->k1 = 1.5;
    if ((rc = lf__params_get_min(p, &st->min, err, errlen)) != 0)
        return rc;
    /* multi and af with their defaults (multi: kmin=2, derived minimum). */
    if ((rc = lf__policy_multi.parse(st->multi, &none, err, errlen)) != 0 ||
        (rc = lf__policy_af.parse(st->af, &none, err, errlen)) != 0)
        return rc;
    return 0;
}

static void auto_start(void *state, const struct lf__view *v)
{
    struct autop *st = state;
    st->prof = 0;
    if (lf__policy_af.start)
        lf__policy_af.start(st->af, v);
    if (lf__policy_multi.start)
        lf__policy_multi.start(st->multi, v);
}

/* Calibration is in, or the call site's memory stands in for it: deal by
 * the profile when the memory gave both it and the times per unit. */
static void auto_calibrated(void *state, const struct lf__view *v, uint64_t r)
{
    struct autop *st = state;
    lf__policy_multi.calibrated(st->multi, v, r);
    st->prof = v->prof && v->calibrated_from_memory;
    st->u0 = lf__profile_units(v->prof, v->n, v->n - r, v->n);
}

/* Worker j's time per unit: over its latest chunk, else from memory. */
static double unit_time(const struct lf__view *v, int j)
{
    double u = lf__word_getd(&v->w[j].last_units), ns = (double)lf__word_get(&v->w[j].last_ns);
    return u > 0.0 && ns > 0.0 ? ns / u : lf__word_getd(&v->w[j].calib_ipt);
}

/* The profile's chunk for worker w with r unclaimed (see the header). */
static uint64_t profile_chunk(const struct autop *st, const struct lf__view *v, int w, uint64_t r)
{
    double mean = lf__mean_known(v, unit_time);
    if (!(mean > 0.0))
        mean = 1.0;
    double inv = 0.0;
    for (int j = 0; j < v->nworkers; j++)
        if (!lf__word_get(&v->w[j].stopped) || j == w)
            inv += 1.0 / lf__t_or(unit_time(v, j), mean);
    double g = lf__t_or(unit_time(v, w), mean), f = (1.0 / g) / inv;
    uint64_t pos = v->n - r;
    double left = lf__profile_units(v->prof, v->n, pos, v->n);
    uint64_t done = lf__word_get(&v->w[w].chunks) - lf__word_get(&v->w[w].calib_chunks);
    double units = done == 0 ? lf__fmin(st->u0 / st->k1 * f, left * f) : left / 2.0 * f;
    if (v->claim_ns > 0.0)
        units = lf__fmax(units, v->claim_ns / CLAIM_SHARE / g);
    return lf__profile_span(v->prof, v->n, pos, units);
}

/* The smallest chunk whose claim costs at most CLAIM_SHARE of its compute
 * at worker w's latest time per iteration (1 while either is unknown). */
static uint64_t claim_floor(const struct lf__view *v, int w, uint64_t r)
{
    double t = lf__view_last_ipt(v, w);
    return v->claim_ns > 0.0 && t > 0.0 ? lf__chunk_clamp(ceil(v->claim_ns / (CLAIM_SHARE * t)), r)
                                        : 1;
}

static uint64_t auto_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                           double now)
{
    const struct autop *st = state;
    uint64_t c;
    if (v->nworkers == 1)
        return r; /* nobody to balance against */
    if (v->n && v->n <= (uint64_t)FEW_PER_WORKER * (uint64_t)v->nworkers) {
        c = claim_floor(v, w, r);
    } else if (st->prof) {
        c = profile_chunk(st, v, w, r);
    } else {
        c = lf__policy_multi.chunk(st->multi, v, w, r, now);
        if (c == 0)
            return 0; /* multi's stop: the others finish the rest no later */
        uint64_t a = lf__policy_af.chunk(st->af, v, w, r, now), floor = claim_floor(v, w, r);
        c = c < a ? c : a;
        c = c > floor ? c : floor;
    }
    return st->min && c < st->min ? st->min : c;
}

const struct lf__policy lf__policy_auto = {
    .name = "auto",
    .synopsis = "auto[,k1=x][,min=n]",
    .help = "the default: chunks sized in expected time from the call site's learned cost profile "
            "and thread speeds (first round U/k1*F_i units, then halving), else min(multi, af); "
            "chunks are leases (seed 000 eqs. 4, 7-9; Banicescu & Liu 2000)",
    .flags = LF__P_CALIB | LF__P_MAYSTOP | LF__P_MEASURE | LF__P_LEASE | LF__P_PROFILE,
    .state_size = sizeof(struct autop),
    .parse = auto_parse,
    .start = auto_start,
    .calibrated = auto_calibrated,
    .chunk = auto_chunk,
};
