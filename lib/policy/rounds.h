/* lib/policy/rounds.h - what the round-based policies of seeds 001-003
 * (as4dr, umr, rumr, fifo, lifo) share: each worker's cost model read from
 * the view, the feedback hook that keeps it current, and UMR's plan
 * arithmetic (Yang & Casanova, seed 003 eqs. 7-10 and §5.2), exposed for
 * the tests and for lf-sim --umr-mstar.
 *
 * References: Y. Yang & H. Casanova, "Multi-Round Algorithms for Scheduling
 * Divisible Loads", IEEE Transactions on Parallel and Distributed Systems,
 * 2005 (seed 003).  The formulas of seeds 001 and 002 are cited in as4dr.c
 * and fifo.c.
 *
 * Units: time in ns, load in iterations.  Seed 003's S_i (units per second)
 * is 1/t_i with t_i the worker's compute time per iteration; alpha_i is
 * comp_lat_ns; beta_i is stage_lat_ns; 1/B_i is stage_ns_per_iter (B_i = inf
 * when it is 0, as in the runtime, where nothing is staged).
 *
 * Internal to lib/policy/ (and its tests).
 */
#ifndef LF_POLICY_ROUNDS_H
#define LF_POLICY_ROUNDS_H

#include <math.h>
#include <stdint.h>

#include "policy/policy.h"

/* Words of lf__wstat.pol[] that lf__rounds_feedback keeps (doubles). */
enum {
    LF__RP_IPT = 0,    /* compute ns per iteration of the latest chunk, latency removed */
    LF__RP_PERIOD = 1, /* ns from the previous chunk's end to this one's: the period sigma */
    LF__RP_TOTAL = 2,  /* total_ns when the hook last ran */
};

/* Record worker w's latest pure time per iteration and period in its pol[]
 * (the feedback hook of every round-based policy; runs on worker w). */
void lf__rounds_feedback(const void *state, const struct lf__view *v, int w);

/* Worker j's compute time per iteration t_j (seed 003: 1/S_j), in ns: the
 * latest chunk's, or the calibration's with the compute latency of the
 * calibration chunk taken out; 0 when nothing was measured. */
double lf__rounds_ipt(const struct lf__view *v, int j);

/* Worker j's per-chunk overhead as far as it is known, in ns: compute
 * latency + max(staging latency, measured dispatch latency) + claim cost. */
double lf__rounds_overhead(const struct lf__view *v, int j);

/* Whether worker j has done no chunk since calibration ended. */
static inline uint64_t lf__rounds_done(const struct lf__view *v, int j)
{
    return lf__word_get(&v->w[j].chunks) - lf__word_get(&v->w[j].calib_chunks);
}

/* Worker j's round: chunks done since calibration plus those handed to it
 * and not done yet (a master that pushes sizes the next chunk while the
 * current one computes). */
static inline uint64_t lf__rounds_begun(const struct lf__view *v, int j)
{
    return lf__rounds_done(v, j) + lf__word_get(&v->w[j].inflight);
}

/* ---- UMR (seed 003) ---- */

/* Aggregates of the selected workers (seed 003 §5.2): A = sum S_i,
 * C = sum S_i alpha_i, D = sum S_i / B_i, E = sum S_i alpha_i / B_i,
 * Bsum = sum beta_i, m = how many. */
struct lf__umr_sums {
    double A, C, D, E, Bsum;
    int m;
};

/* Add one worker (t ns per iteration, latencies alpha and beta in ns,
 * s = 1/B in ns per iteration) to the aggregates. */
void lf__umr_sums_add(struct lf__umr_sums *s, double t, double alpha, double beta, double s_inv);

/* The plan of UMR for W iterations on the selected workers. */
struct lf__umr_plan {
    double W;     /* load planned (iterations) */
    double A, C;  /* from the sums: t_j = (round_j + C) / A */
    double theta; /* round_{j+1} = theta round_j + K (theta = inf: no staging) */
    double K;
    double eta;   /* fixed point K / (1 - theta) (theta != 1) */
    double a;     /* C / D: alpha B in the homogeneous case */
    double mstar; /* continuous solution of eq. (9) (or its theta = 1 form) */
    int M;        /* rounds used (integer, >= 1) */
    double round0;
    double ex; /* predicted makespan, ns (the objective Ex of §5.1/§5.2) */
};

/* Left-hand side of seed 003 eq. (9) generalised to §5.2:
 * eta - (W - M eta) theta^M ln(theta) / (1 - theta^M) - 2 a (1 - theta^M) / (1 - theta);
 * with eta = N Delta, theta = B/(NS), a = alpha B it is eq. (9) verbatim.
 * Positive where more rounds would shorten the makespan. */
double lf__umr_eq9(double theta, double eta, double W, double a, double M);

/* Root of eq. (9) in M by bisection over [1e-3, mmax]; mmax when the
 * left-hand side is still positive there, 1e-3 when it is negative
 * everywhere. */
double lf__umr_mstar(double theta, double eta, double W, double a, double mmax);

/* Build the plan of W iterations on the workers in s: M* (eq. 9), an
 * integer M next to it, round0 (eq. 10).  Returns 0, or -1 when s is
 * empty or W <= 0 (p->M = 1, round0 = W). */
int lf__umr_plan_make(struct lf__umr_plan *p, const struct lf__umr_sums *s, double W);

/* Load of round j of plan p (eq. 8 and §5.2: theta^j (round0 - eta) + eta). */
double lf__umr_round(const struct lf__umr_plan *p, int j);

/* Homogeneous shortcut: UMR's chunk_j for N workers of speed S, bandwidth
 * B, latencies alpha and beta (seed 003 eqs. 8-10), any consistent units;
 * sets *mstar and *M when not NULL. */
double lf__umr_homog_chunk(double N, double S, double B, double alpha, double beta, double W, int j,
                           double *mstar, int *M);

#endif
