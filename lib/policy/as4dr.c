/* lib/policy/as4dr.c - "as4dr" (seed 001, Millot & Parrot: Adaptive
 * Scheduling for Distributed Resources, divisible load with a target period).
 *
 * References: D. Millot & C. Parrot, "Some tests of adaptivity for the AS4DR
 * scheduler", ICPPW '12 (workshops of the 41st Int. Conf. on Parallel
 * Processing), IEEE, 2012, pp. 323-331 (seed 001).  Equation numbers below
 * are that paper's.
 *
 * Notation.  Millot & Parrot's worker w computes a chunk of alpha units in
 * alpha/F_w + f_w and receives it in alpha/B^D_w + b^D_w.  Here a unit is an
 * iteration and time is in ns: 1/F_w = t_w (compute time per iteration,
 * calibrated, then measured on every chunk with the compute latency taken
 * out; rounds.h), 1/B^D_w = stage_ns_per_iter, and the per-chunk overhead
 * f'_w = comp_lat_ns + max(stage_lat_ns, measured dispatch latency) +
 * claim_ns stands for the paper's latencies f_w + b^D_w.  Results are not
 * returned (B^R, b^R: none).
 *
 * Rule.  Round i of worker w is its i-th chunk after calibration.
 *  - Round 1 (CIP, Millot & Parrot eq. 13):
 *    alpha_w = (tau - f'_w) / (t_w + 1/B^D_w), the
 *    chunk whose period (staging + compute, the executor does not overlap
 *    them) is tau.  iota=x perturbs it to (1 +- x) alpha_w with a sign fixed
 *    per worker (eq. 20, Table II), to reproduce the paper's inaccuracy runs.
 *  - Round i > 1 (eq. 1): alpha_i = alpha_{i-1} tau / sigma_{i-1}, sigma being
 *    the worker's measured period of its previous chunk: the time from the
 *    end of the chunk before it to its end (lf__wstat total_ns increments:
 *    claim, port wait, staging, compute).  With sigma_i = k alpha_i + f'
 *    this is sigma_i = tau + f' - f' tau / sigma_{i-1}, eq. (6) with one
 *    latency per round instead of two: sigma -> tau when tau >= f' (the
 *    paper's tau >= 2 f_w suffices).
 *  - adapt=off is the paper's Baseline: every round is round 1's size (the
 *    size of the worker's previous chunk, not recomputed from its speed).
 * Push (view.overlap: lf-sim --protocol push, a master that sends the next
 * chunk while the current one computes).  Then a period is the chunk's
 * compute: round 1 is eq. (13) itself, (tau - k f_w) / t_w with k compute
 * latencies f_w (k = 2 with sub-chunks), and sigma is the compute time the
 * executor records, eq. (5); with sub-chunks (view.split) the executor
 * splits each chunk (eqs. 2-3) and records eq. (4)'s extrapolation from
 * the first one, so the next chunk is sized while the second computes.
 * Pull (the runtime, lf-sim's default): a worker claims only when idle, so
 * splitting would buy no overlap; sigma is the measured period.  The
 * start-up delays d_w (eq. 8) are the executor's (lf-sim --start-delay);
 * a one-port pull executor staggers the first stagings by itself.
 *
 * tau.  tau=<seconds> or tau_ns=<ns>.  Otherwise (documented default) tau =
 * max(100 f'_max, 20 us): latencies cost at most ~1% of a period, and a
 * period is no shorter than the executor's calibration target; and, on a
 * one-port platform, at least the CIP bound of eq. (18) with d_w the
 * staging time of w's first chunk (times 1 + lambda, lambda=<x>, default 0):
 * tau >= (1+lambda) sum_w (beta_w + (tau - f'_w)/(t_w + s_w) s_w), solved for
 * tau in closed form (the paper's loop with an infinitesimal step); under
 * push, with eq. (13)'s chunk and each piece's send latency:
 * tau >= (1+lambda) sum_w (k beta_w + (tau - k f_w)/t_w s_w).  On seed 001's
 * Table I with sub-chunks and lambda = 5 this gives the paper's tau = 3 s.  When
 * the port cannot serve every worker once per period whatever tau is, the
 * bound is dropped.
 *
 * Streams.  Nothing depends on n: the remaining count r only clips, and
 * with tail=on (default) a chunk is also capped at r S_w / sum S, the
 * worker's fair share of what is left, so that the end of a finite loop
 * balances; tail=off is the pure rule.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policy/factoring.h"
#include "policy/fit.h"
#include "policy/rounds.h"

#define TAU_OVERHEADS 100.0 /* default tau, in per-chunk overheads */
#define TAU_FLOOR_NS  20000.0

struct as4dr {
    double tau_set; /* tau from the spec, ns; 0: derive */
    double iota;    /* eq. (20) inaccuracy of the first chunk */
    double lambda;  /* eq. (8) slack of the start-up delays */
    int adapt;      /* eq. (1) on (AS4DR) or off (Baseline) */
    int tail;
    int ready;
    double tau;   /* the period in use, ns */
    double sum_s; /* sum_w 1/t_w */
    double tmean;
};

static const char as4dr_form[] =
    "as4dr[,tau=seconds|tau_ns=ns][,adapt=on|off][,iota=x][,lambda=x][,tail=on|off]";

static int as4dr_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct as4dr *st = state;
    double x;
    int rc = lf__no_chunk(p, as4dr_form, err, errlen);
    if (rc)
        return rc;
    st->adapt = 1;
    st->tail = 1;
    if ((rc = lf__params_get_double(p, "tau", 1e-9, 1e6, &x, err, errlen)) < 0)
        return rc;
    if (rc)
        st->tau_set = x * 1e9;
    if ((rc = lf__params_get_double(p, "tau_ns", 1.0, 1e15, &x, err, errlen)) < 0)
        return rc;
    if (rc) {
        if (st->tau_set > 0.0) {
            snprintf(err, errlen, "as4dr: give tau= or tau_ns=, not both; accepted: %s",
                     as4dr_form);
            return -EINVAL;
        }
        st->tau_set = x;
    }
    if ((rc = lf__params_get_double(p, "iota", 0.0, 0.99, &st->iota, err, errlen)) < 0)
        return rc;
    if ((rc = lf__params_get_double(p, "lambda", 0.0, 100.0, &st->lambda, err, errlen)) < 0)
        return rc;
    if ((rc = lf__params_get_onoff(p, "adapt", &st->adapt, err, errlen)) < 0)
        return rc;
    rc = lf__params_get_onoff(p, "tail", &st->tail, err, errlen);
    return rc < 0 ? rc : 0;
}

static double t_of(const struct as4dr *st, const struct lf__view *v, int j)
{
    double t = lf__rounds_ipt(v, j);
    return t > 0.0 ? t : st->tmean;
}

/* Messages per chunk: 2 when the executor sends sub-chunks (eq. 2). */
static double pieces(const struct lf__view *v)
{
    return v->split > 0.0 ? 2.0 : 1.0;
}

/* The per-chunk overhead f'_w a period pays: with a master that overlaps,
 * only the compute latency of each piece (eq. 5: sigma = alpha/F + 2 f);
 * otherwise staging and claim too (lf__rounds_overhead). */
static double overhead(const struct lf__view *v, int w)
{
    if (v->overlap)
        return pieces(v) * lf__word_getd(&v->w[w].comp_lat_ns);
    return lf__rounds_overhead(v, w);
}

/* Fix tau (see the header) and the team's speed sum. */
static void as4dr_calibrated(void *state, const struct lf__view *v, uint64_t r)
{
    struct as4dr *st = state;
    (void)r;
    int P = v->nworkers;
    double fmax = 0.0;
    for (int j = 0; j < P; j++) {
        double f = lf__rounds_overhead(v, j);
        fmax = f > fmax ? f : fmax;
    }
    st->tmean = lf__mean_known(v, lf__rounds_ipt);
    if (!(st->tmean > 0.0))
        st->tmean = 1.0; /* nothing measured: all equal */
    st->sum_s = 0.0;
    for (int j = 0; j < P; j++)
        st->sum_s += 1.0 / t_of(st, v, j);
    if (st->tau_set > 0.0) {
        st->tau = st->tau_set;
    } else {
        st->tau = fmax * TAU_OVERHEADS;
        if (st->tau < TAU_FLOOR_NS)
            st->tau = TAU_FLOOR_NS;
        if (v->one_port) {
            /* eq. (18) with eq. (13): tau (1 - L sum q_w) >= L sum (k beta_w - q_w f_w),
             * L = 1 + lambda.  A master that overlaps (v->overlap) sends
             * alpha_w = (tau - k f_w) / t_w in k pieces (k = 2 with
             * sub-chunks: eq. (8)'s d_w counts both sends, each with its
             * latency beta_w), so q_w = s_w / t_w and f_w is k compute
             * latencies; otherwise a period is staging plus compute, q_w =
             * s_w / (t_w + s_w), f_w the whole overhead and k = 1. */
            double L = 1.0 + st->lambda, q = 0.0, rhs = 0.0, k = pieces(v);
            for (int j = 0; j < P; j++) {
                double s = lf__word_getd(&v->w[j].stage_ns_per_iter), t = t_of(st, v, j);
                double qw = v->overlap ? s / t : s / (t + s);
                q += qw;
                rhs += (v->overlap ? k : 1.0) * lf__word_getd(&v->w[j].stage_lat_ns) -
                       qw * overhead(v, j);
            }
            double coef = 1.0 - L * q;
            if (coef > 0.0 && L * rhs / coef > st->tau)
                st->tau = L * rhs / coef;
        }
    }
    st->ready = 1;
}

/* +1 or -1, fixed per worker: the random sign of eq. (20). */
static double sign_of(int w)
{
    uint32_t h = (uint32_t)w * 2654435761u;
    h ^= h >> 15;
    return (h >> 7) & 1u ? 1.0 : -1.0;
}

static uint64_t as4dr_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                            double now)
{
    const struct as4dr *st = state;
    if (!st->ready)
        return lf__div_ceil(r, 2 * (uint64_t)v->nworkers);
    double tw = t_of(st, v, w), sw = lf__word_getd(&v->w[w].stage_ns_per_iter);
    /* Round 1: CIP's alpha_w (eq. 13), perturbed by eq. (20). */
    double c = (st->tau - overhead(v, w)) / (v->overlap ? tw : tw + sw);
    if (!(c >= 1.0))
        c = 1.0;
    c *= 1.0 + sign_of(w) * st->iota;
    if (!st->adapt && lf__rounds_done(v, w) > 0 && lf__word_get(&v->w[w].last_iters) > 0) {
        /* Baseline: every round is round 1's size, whatever the worker's
         * speed does since (seed 001 §IV: "the workload is not adapted"). */
        c = (double)lf__word_get(&v->w[w].last_iters);
    } else if (st->adapt && lf__rounds_done(v, w) > 0) {
        /* sigma: the chunk's compute (eq. 5; with sub-chunks the executor
         * records eq. 4's extrapolation) when staging overlaps it, else the
         * measured period. */
        double sigma = v->overlap ? (double)lf__word_get(&v->w[w].last_ns)
                                  : lf__word_getd(&v->w[w].pol[LF__RP_PERIOD]);
        uint64_t last = lf__word_get(&v->w[w].last_iters);
        if (sigma > 0.0 && last > 0)
            c = (double)last * st->tau / sigma; /* eq. (1) */
    }
    if (st->tail && st->sum_s > 0.0) {
        double share = (double)r / (tw * st->sum_s);
        if (c > share)
            c = share;
    }
    return lf__chunk_round(c, r);
}

const struct lf__policy lf__policy_as4dr = {
    .name = "as4dr",
    .synopsis = "as4dr[,tau=s][,adapt=on|off][,iota=x][,lambda=x][,tail=on|off]",
    .help = "target period tau: first chunk (tau - f)/(t + 1/B) (CIP), then "
            "alpha_i = alpha_{i-1} tau/sigma_{i-1} from each worker's measured period (seed 001 "
            "eqs. 1, 6, 13, 18, 20)",
    .flags = LF__P_CALIB,
    .state_size = sizeof(struct as4dr),
    .parse = as4dr_parse,
    .calibrated = as4dr_calibrated,
    .chunk = as4dr_chunk,
    .feedback = lf__rounds_feedback,
};
