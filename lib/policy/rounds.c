/* lib/policy/rounds.c - the cost model and UMR arithmetic shared by the
 * round-based policies of seeds 001-003 (see rounds.h).
 *
 * References: Y. Yang & H. Casanova, "Multi-Round Algorithms for Scheduling
 * Divisible Loads", IEEE Transactions on Parallel and Distributed Systems,
 * 2005 (seed 003): the affine costs (eqs. 1-2) and UMR's plan (eqs. 7-10,
 * §5).  Seeds 001 and 002 are cited where their formulas are used, in
 * as4dr.c and fifo.c.
 *
 * UMR's plan (Yang & Casanova, §5).  With the per-worker costs of rounds.h,
 * fixing the compute time t_j of round j for every selected worker (§5.2:
 * alpha_i + chunk_ji / S_i = t_j) gives chunk_ji = S_i (t_j - alpha_i) and
 * round_j = A t_j - C.  Asking that the master sends round j+1 while the
 * workers compute round j (eq. 7 generalised: sum_i (chunk_{j+1,i}/B_i +
 * beta_i) = t_j) gives
 *     round_{j+1} = theta round_j + K,  theta = 1/D,
 *     K = C/D + A (E - Bsum)/D - C,
 * so round_j = theta^j (round_0 - eta) + eta with eta = K/(1 - theta).
 * Homogeneous: theta = B/(NS), K = B(alpha - N beta), eta = N Delta: eq. (8).
 * The makespan Ex = W/A + M C/A + (D (round_0 + C)/A - E + Bsum)/2 (§5.1,
 * with the last round's 1/2) under sum_j round_j = W: minimising over M
 * gives eq. (9) with alpha B replaced by a = C/D; round_0 then follows from
 * the constraint (eq. 10).  For theta = 1 the minimum is at
 * M = sqrt(2W / (4C - K)), i.e. sqrt(2W / (B (3 alpha + N beta))) when
 * homogeneous: the paper's eq. (9) prints an extra factor N there, but its
 * eq. (10) (which we reproduce) only agrees with the form without it.
 */
#include <float.h>
#include <math.h>

#include "policy/rounds.h"
#include "policy/fmath.h"

#define UMR_MMAX 1000.0 /* more rounds than this never pay off with integer chunks */

void lf__rounds_feedback(const void *state, const struct lf__view *v, int w)
{
    (void)state;
    struct lf__wstat *s = &v->w[w];
    uint64_t it = lf__word_get(&s->last_iters);
    double ns = (double)lf__word_get(&s->last_ns);
    double a = lf__word_getd(&s->comp_lat_ns);
    if (it) {
        /* seed 003 eq. (1): busy = alpha + chunk t, so t = (busy - alpha) / chunk. */
        double t = (ns - a) / (double)it;
        lf__word_putd(&s->pol[LF__RP_IPT], t > 0.0 ? t : ns / (double)it);
    }
    uint64_t tot = lf__word_get(&s->total_ns);
    double prev = lf__word_getd(&s->pol[LF__RP_TOTAL]);
    lf__word_putd(&s->pol[LF__RP_PERIOD], (double)tot - prev);
    lf__word_putd(&s->pol[LF__RP_TOTAL], (double)tot);
}

double lf__rounds_ipt(const struct lf__view *v, int j)
{
    double t = lf__word_getd(&v->w[j].pol[LF__RP_IPT]);
    if (t > 0.0 && isfinite(t))
        return t;
    /* No chunk seen by the hook (calibration from the call site's memory). */
    t = lf__word_getd(&v->w[j].calib_ipt);
    return t > 0.0 && isfinite(t) ? t : 0.0;
}

double lf__rounds_overhead(const struct lf__view *v, int j)
{
    double a = lf__word_getd(&v->w[j].comp_lat_ns);
    double b = lf__word_getd(&v->w[j].stage_lat_ns);
    double l = lf__word_getd(&v->w[j].latency_ns);
    double o = a + (b > l ? b : l) + (v->claim_ns > 0.0 ? v->claim_ns : 0.0);
    return isfinite(o) && o > 0.0 ? o : 0.0;
}

void lf__umr_sums_add(struct lf__umr_sums *s, double t, double alpha, double beta, double s_inv)
{
    double S = 1.0 / t;
    s->A += S;
    s->C += S * alpha;
    s->D += S * s_inv;
    s->E += S * alpha * s_inv;
    s->Bsum += beta;
    s->m++;
}

double lf__umr_eq9(double theta, double eta, double W, double a, double M)
{
    double tm = lf__pow(theta, M), lt = lf__log(theta);
    return eta - (W - M * eta) * tm * lt / (1.0 - tm) - 2.0 * a * (1.0 - tm) / (1.0 - theta);
}

double lf__umr_mstar(double theta, double eta, double W, double a, double mmax)
{
    double lo = 1e-3, hi = mmax;
    if (!(lf__umr_eq9(theta, eta, W, a, lo) > 0.0))
        return lo;
    if (lf__umr_eq9(theta, eta, W, a, hi) > 0.0)
        return hi;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (lf__umr_eq9(theta, eta, W, a, mid) > 0.0)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

/* round_0 that makes M rounds of plan p sum to p->W (eq. 10). */
static double round0_for(const struct lf__umr_plan *p, double M)
{
    if (M <= 1.0 || isinf(p->theta))
        return p->W;
    if (fabs(p->theta - 1.0) < 1e-9)
        return p->W / M - p->K * (M - 1.0) / 2.0;
    return p->eta + (p->W - M * p->eta) * (1.0 - p->theta) / (1.0 - lf__pow(p->theta, M));
}

/* Objective Ex of plan p with M rounds and first round r0, in ns. */
static double ex_of(const struct lf__umr_plan *p, const struct lf__umr_sums *s, double M, double r0)
{
    return p->W / s->A + M * s->C / s->A + 0.5 * (s->D * (r0 + s->C) / s->A - s->E + s->Bsum);
}

double lf__umr_round(const struct lf__umr_plan *p, int j)
{
    if (j <= 0 || isinf(p->theta))
        return p->round0;
    if (fabs(p->theta - 1.0) < 1e-9)
        return p->round0 + (double)j * p->K;
    return lf__pow(p->theta, (double)j) * (p->round0 - p->eta) + p->eta;
}

/* Whether every round of p (with p->M rounds) gives each of m workers >= 1. */
static int feasible(const struct lf__umr_plan *p, int m)
{
    double first = lf__umr_round(p, 0), last = lf__umr_round(p, p->M - 1);
    return first >= (double)m && last >= (double)m && isfinite(first) && isfinite(last);
}

int lf__umr_plan_make(struct lf__umr_plan *p, const struct lf__umr_sums *s, double W)
{
    *p = (struct lf__umr_plan){.W = W, .theta = INFINITY, .mstar = 1.0, .M = 1, .round0 = W};
    if (s->m <= 0 || !(W > 0.0) || !(s->A > 0.0))
        return -1;
    p->A = s->A;
    p->C = s->C;
    if (!(s->D > 0.0)) {
        /* Nothing to stage (B = inf): every extra round only adds alpha. */
        p->ex = ex_of(p, s, 1.0, W);
        return 0;
    }
    p->theta = 1.0 / s->D;
    p->K = s->C / s->D + s->A * (s->E - s->Bsum) / s->D - s->C;
    p->a = s->C / s->D;
    double mmax = UMR_MMAX;
    if (p->theta > 1.0)
        mmax = lf__fmin(mmax, 600.0 / lf__log(p->theta)); /* theta^M stays finite */
    if (mmax < 1.0)
        mmax = 1.0;
    if (fabs(p->theta - 1.0) < 1e-9) {
        double q = 4.0 * s->C - p->K;
        p->mstar = q > 0.0 ? lf__fmin(sqrt(2.0 * W / q), mmax) : mmax;
    } else {
        p->eta = p->K / (1.0 - p->theta);
        /* Rounds must grow (seed 003 §6.2, Fig. 6 #2: "chunk_0 must be
         * greater than Delta"): with theta > 1 a round_0 below eta starts a
         * decreasing series, so round0_for(M) >= eta, i.e. M eta <= W. */
        if (p->theta > 1.0 && p->eta > 0.0)
            mmax = lf__fmax(1.0, lf__fmin(mmax, W / p->eta));
        p->mstar = lf__umr_mstar(p->theta, p->eta, W, p->a, mmax);
    }
    /* The integer next to M* with the smaller Ex, among feasible ones. */
    double best = INFINITY;
    int bestM = 1;
    double cand[2] = {floor(p->mstar), ceil(p->mstar)};
    for (int k = 0; k < 2; k++) {
        int M = cand[k] < 1.0 ? 1 : cand[k] > mmax ? (int)mmax : (int)cand[k];
        for (;;) {
            p->M = M;
            p->round0 = round0_for(p, M);
            if (M == 1 || feasible(p, s->m))
                break;
            M--;
        }
        double e = ex_of(p, s, M, p->round0);
        if (e < best) {
            best = e;
            bestM = M;
        }
    }
    p->M = bestM;
    p->round0 = round0_for(p, bestM);
    p->ex = best;
    return 0;
}

double lf__umr_homog_chunk(double N, double S, double B, double alpha, double beta, double W, int j,
                           double *mstar, int *M)
{
    struct lf__umr_sums s = {0};
    struct lf__umr_plan p;
    for (int i = 0; i < (int)N; i++)
        lf__umr_sums_add(&s, 1.0 / S, alpha, beta, B > 0.0 && isfinite(B) ? 1.0 / B : 0.0);
    lf__umr_plan_make(&p, &s, W);
    if (mstar)
        *mstar = p.mstar;
    if (M)
        *M = p.M;
    return lf__umr_round(&p, j) / N;
}
