/* lib/policy/af.c - "af": adaptive factoring (Banicescu & Liu, HPC
 * Symposium 2000; Carino & Banicescu, J. Supercomputing 44(1), 2008).
 *
 * References: I. Banicescu & Z. Liu, "Adaptive factoring: a dynamic
 * scheduling method tuned to the rate of weight changes", Proc. High
 * Performance Computing Symposium (HPC 2000), 2000 - the chunk formula
 * below; the fac2 fallback is S. F. Hummel, E. Schonberg & L. E. Flynn,
 * "Factoring: a method for scheduling parallel loops", Communications of
 * the ACM 35(8), 1992.
 *
 * Worker j's time per iteration has mean mu_j and variance sigma_j^2,
 * estimated from its per-chunk samples (lf__wstat ipt_n, ipt_sum, ipt_sq).
 * With R = r unclaimed,
 *     D = sum_j sigma_j^2 / mu_j,   T = 1 / sum_j (1 / mu_j),
 * worker i's chunk is x_i = X / mu_i, where X is the batch's common
 * expected time, the smaller root of X^2 - (D + 2TR) X + (TR)^2 = 0:
 *     X = (D + 2TR - sqrt(D^2 + 4DTR)) / 2,
 * i.e. X + sqrt(D X) = TR: the batch plus one standard-deviation-like margin
 * fills the ideal remaining time TR.  (This is the form of the papers and of
 * Carino & Banicescu's reference implementation; written with E = 1/T it is
 * (D + 2R/E - sqrt(D^2 + 4DR/E)) / 2, which keeps time units throughout.)
 * We evaluate it as X = TR * 2 / (2 + q + sqrt(q^2 + 4q)) with q = D / TR,
 * the same root without the cancellation of the first form when D << TR.
 *
 * Guard: with sigma = 0 the formula hands a worker its whole proportional
 * share TR / mu_i of r in one chunk, leaving nothing to balance with, and a
 * zero sample variance is usually an artefact of few samples.  So X is
 * capped at TR / 2: a chunk never exceeds half the worker's proportional
 * share, ceil(r (1/mu_i) / sum_j (1/mu_j) / 2), which is weighted fac2's
 * chunk (x = 2).  AF thus only ever hands out smaller chunks than that,
 * which it does once the measured variance is large against TR.
 *
 * Missing data: AF runs the calibration phase (LF__P_CALIB), whose chunks
 * land in the samples, so normally every worker has at least one.  A worker
 * with no sample yet gets fac2's chunk; with one sample its sigma^2 is the
 * mean of the workers that have two or more (0 if none); in the sums, a
 * worker without a sample counts with the mean mu and sigma^2 of the known.
 *
 * Cost: the sums run over the team, O(P) per chunk; an executor that keeps
 * team sums (the simulator, from LF__PSUM_MIN_P workers) gets them from
 * af_contrib's per-worker terms in O(1).
 */
#include <math.h>

#include "policy/factoring.h"
#include "policy/fmath.h"

struct af_state {
    struct lf__fac fac; /* fallback for workers not measured yet */
};

static int af_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return lf__no_chunk(p, "af", err, errlen);
}

static void af_start(void *state, const struct lf__view *v)
{
    struct af_state *s = state;
    lf__fac_start(&s->fac, v);
}

/* Mean and sample variance of worker j's time per iteration; returns how many
 * of the two are known (0: neither, 1: mean, 2: both). */
static int af_moments(const struct lf__view *v, int j, double *mu, double *var)
{
    uint64_t n = lf__word_get(&v->w[j].ipt_n);
    if (n == 0)
        return 0;
    double sum = lf__word_getd(&v->w[j].ipt_sum), sq = lf__word_getd(&v->w[j].ipt_sq);
    double m = sum / (double)n;
    if (!(m > 0.0) || !isfinite(m))
        return 0; /* a chunk too short to time says nothing about speed */
    *mu = m;
    if (n < 2)
        return 1;
    double s2 = (sq - sum * m) / (double)(n - 1); /* (sum x^2 - (sum x)^2 / n) / (n - 1) */
    *var = s2 > 0.0 && isfinite(s2) ? s2 : 0.0;
    return 2;
}

/* Team sums (policy.h, contrib): worker w's share of the counts and sums
 * that af_chunk's two passes compute. */
enum { AF_N1, AF_SUM_MU, AF_N2, AF_SUM_VAR, AF_VAR_MU, AF_INV_MU1, AF_INV_MU };

static void af_contrib(const void *state, const struct lf__view *v, int w, double *out)
{
    (void)state;
    double mu, var;
    int k = af_moments(v, w, &mu, &var);
    if (k >= 1) {
        out[AF_N1] = 1.0;
        out[AF_SUM_MU] = mu;
        out[AF_INV_MU] = 1.0 / mu;
    }
    if (k == 1)
        out[AF_INV_MU1] = 1.0 / mu; /* gets the mean variance */
    if (k == 2) {
        out[AF_N2] = 1.0;
        out[AF_SUM_VAR] = var;
        out[AF_VAR_MU] = var / mu;
    }
}

/* X over the team's D and E = 1/T (see the header), then w's chunk. */
static uint64_t af_size(double D, double E, double mu_w, uint64_t r)
{
    double TR = (double)r / E;
    double q = D / TR;
    double X = TR * 2.0 / (2.0 + q + sqrt(q * q + 4.0 * q));
    if (!(X <= 0.5 * TR)) /* the guard; also replaces a NaN X */
        X = 0.5 * TR;
    return lf__chunk_clamp(ceil(X / mu_w), r);
}

static uint64_t af_chunk(const void *state, const struct lf__view *v, int w, uint64_t r, double now)
{
    const struct af_state *s = state;
    int P = v->nworkers, nmu = 0, nvar = 0;
    double sum_mu = 0.0, sum_var = 0.0, D = 0.0, E = 0.0, mu_w = 0.0;
    if (v->psum) {
        /* The same D and E from the executor's team sums, in O(1): workers
         * with one sample take the mean variance, those with none the mean
         * mu and variance. */
        const double *ps = v->psum;
        double var_w;
        if (af_moments(v, w, &mu_w, &var_w) == 0 || !(ps[AF_N1] >= 0.5))
            return lf__fac_chunk(&s->fac, v, r, NULL);
        double mean_mu = ps[AF_SUM_MU] / ps[AF_N1];
        double mean_var = ps[AF_N2] >= 0.5 ? ps[AF_SUM_VAR] / ps[AF_N2] : 0.0;
        double unknown = (double)P - lf__rint_even(ps[AF_N1]);
        D = ps[AF_VAR_MU] + mean_var * ps[AF_INV_MU1] + unknown * mean_var / mean_mu;
        E = ps[AF_INV_MU] + unknown / mean_mu;
        return af_size(D, E, mu_w, r);
    }
    /* Pass 1: means of what is known, for the workers that lack it. */
    for (int j = 0; j < P; j++) {
        double mu, var;
        int k = af_moments(v, j, &mu, &var);
        if (k >= 1) {
            sum_mu += mu;
            nmu++;
        }
        if (k == 2) {
            sum_var += var;
            nvar++;
        }
        if (j == w && k >= 1)
            mu_w = mu;
    }
    if (mu_w == 0.0)
        return lf__fac_chunk(&s->fac, v, r, NULL);
    double mean_mu = sum_mu / nmu, mean_var = nvar ? sum_var / nvar : 0.0;
    /* Pass 2: D and E = 1/T. */
    for (int j = 0; j < P; j++) {
        double mu = mean_mu, var = mean_var;
        int k = af_moments(v, j, &mu, &var);
        if (k == 0) {
            mu = mean_mu;
            var = mean_var;
        } else if (k == 1) {
            var = mean_var;
        }
        D += var / mu;
        E += 1.0 / mu;
    }
    return af_size(D, E, mu_w, r);
}

const struct lf__policy lf__policy_af = {
    .name = "af",
    .synopsis = "af",
    .help = "adaptive factoring from per-worker mean and variance (Banicescu & Liu 2000)",
    .flags = LF__P_CALIB,
    .state_size = sizeof(struct af_state),
    .parse = af_parse,
    .start = af_start,
    .chunk = af_chunk,
    .contrib = af_contrib,
};
