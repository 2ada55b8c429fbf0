/* lib/policy/dealdyn.c - seed 000 SCH_DEALDYN_{SM,LR,MV}: one round (k = 1)
 * in shares proportional to calibrated fitness, F_i = (1/t_i)/sum_j(1/t_j)
 * (González-Vélez & Cole, eq. 4), where t_i is
 *   calib=times  the calibration time per iteration itself (SCH_DEALDYN_SM);
 *   calib=lr     t fitted as c0 + c1*a' (eq. 5), a'_i = a_i * bm_i / max bm;
 *   calib=mv     t fitted as c0 + c1*l + c2*a'^2 (eq. 6), l_i the latency.
 *
 * Only the fitted coefficients are kept (the state must not grow with the
 * team), and every worker's fitted t is re-evaluated from its own wstat when
 * it asks.  Rules for imperfect inputs, chosen so that no chunk is ever 0
 * or NaN:
 *   - a worker without a calibration time uses the mean of the others';
 *   - a worker lacking a predictor (avail, or latency for mv, is 0 =
 *     unknown) keeps its measured time unfitted; bm 0 counts as 1;
 *   - a fit with fewer workers than coefficients, or a singular one (all
 *     predictors equal, collinear predictors), falls back to times-only;
 *   - a fitted t <= 1% of the mean calibration time is clamped to that 1%.
 * After its share, a worker that still finds work (rounding left a rest, or
 * a teammate has not arrived) takes floor(R*F_i + 1/2) of the remaining R.
 *
 * References: H. González-Vélez & M. Cole, "Adaptive statistical
 * scheduling of divisible workloads in heterogeneous systems", Journal of
 * Scheduling (Springer), 2009 (seed 000).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "policy/fit.h"
#include "policy/policy.h"

enum { CAL_TIMES, CAL_LR, CAL_MV };

struct dealdyn {
    int mode;       /* calib= as requested */
    int used;       /* what calibrated() could do: mode, or CAL_TIMES */
    int ready;      /* calibrated() ran */
    double c[3];    /* fitted coefficients of eq. (5) or (6) */
    double maxbm;   /* max bm over the calibrated workers */
    double tmean;   /* mean calibration time per iteration */
    double tfloor;  /* smallest fitted t accepted */
    double sum_inv; /* sum_j 1/t_j over the team */
    double r0;      /* iterations unclaimed when calibration ended */
};

static const char *const mode_names[] = {"times", "lr", "mv"};

static int dealdyn_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct dealdyn *st = state;
    const char *s;
    if (p->has_chunk) {
        snprintf(err, errlen, "dealdyn takes no chunk size; accepted: dealdyn[,calib=times|lr|mv]");
        return -EINVAL;
    }
    st->mode = CAL_TIMES;
    if (lf__params_get_str(p, "calib", &s) == 1) {
        int found = 0;
        for (int i = 0; i < 3; i++)
            if (strcmp(s, mode_names[i]) == 0) {
                st->mode = i;
                found = 1;
            }
        if (!found) {
            snprintf(err, errlen,
                     "dealdyn: calib=%s is not understood; accepted: calib=times (default), "
                     "calib=lr (t = c0 + c1 a'), calib=mv (t = c0 + c1 l + c2 a'^2)",
                     s);
            return -EINVAL;
        }
    }
    return 0;
}

/* Scaled availability a'_j = a_j * bm_j / max bm (seed 000 §3.1.1); 0 when
 * a_j is unknown. */
static double scaled_avail(const struct dealdyn *st, const struct lf__view *v, int j)
{
    double a = lf__word_getd(&v->w[j].avail);
    double bm = lf__word_getd(&v->w[j].bm);
    if (!(a > 0.0) || !isfinite(a))
        return 0.0;
    if (!(bm > 0.0) || !isfinite(bm))
        bm = 1.0;
    return a * bm / st->maxbm;
}

/* Does worker j carry every predictor mode needs (and a measured time)? */
static int has_predictors(const struct dealdyn *st, const struct lf__view *v, int j, int mode)
{
    double t = lf__word_getd(&v->w[j].calib_ipt);
    if (!(t > 0.0) || !isfinite(t))
        return 0;
    if (mode == CAL_TIMES)
        return 1;
    if (!(scaled_avail(st, v, j) > 0.0))
        return 0;
    if (mode == CAL_MV) {
        double l = lf__word_getd(&v->w[j].latency_ns);
        return l > 0.0 && isfinite(l);
    }
    return 1;
}

/* Worker j's time per iteration as used in eq. (4) under st->used. */
static double t_of(const struct dealdyn *st, const struct lf__view *v, int j)
{
    double t = lf__t_or(lf__word_getd(&v->w[j].calib_ipt), st->tmean);
    if (st->used == CAL_TIMES || !has_predictors(st, v, j, st->used))
        return t;
    double ap = scaled_avail(st, v, j), f;
    if (st->used == CAL_LR)
        f = st->c[0] + st->c[1] * ap; /* eq. (5) */
    else
        f = st->c[0] + st->c[1] * lf__word_getd(&v->w[j].latency_ns) +
            st->c[2] * ap * ap; /* eq. (6) */
    return (f > st->tfloor && isfinite(f)) ? f : st->tfloor;
}

/* Fit eq. (5) or (6) over the workers that have the predictors; on
 * success set st->c and return 0. */
static int fit(struct dealdyn *st, const struct lf__view *v)
{
    enum { MAXOBS = 256 };
    double x[MAXOBS * 2], y[MAXOBS];
    int m = st->mode == CAL_LR ? 1 : 2, n = 0;
    /* A team larger than MAXOBS is fitted on its first MAXOBS workers with
     * data: plenty for two or three coefficients. */
    for (int j = 0; j < v->nworkers && n < MAXOBS; j++) {
        if (!has_predictors(st, v, j, st->mode))
            continue;
        double ap = scaled_avail(st, v, j);
        y[n] = lf__word_getd(&v->w[j].calib_ipt);
        if (m == 1) {
            x[n] = ap;
        } else {
            x[2 * n] = lf__word_getd(&v->w[j].latency_ns);
            x[2 * n + 1] = ap * ap;
        }
        n++;
    }
    double c[3] = {0, 0, 0};
    if (lf__fit_affine(x, m, y, n, c) != 0)
        return -EDOM;
    memcpy(st->c, c, sizeof c);
    return 0;
}

/* Calibration is in: fit if asked, then fix sum_j 1/t_j for eq. (4). */
static void dealdyn_calibrated(void *state, const struct lf__view *v, uint64_t r)
{
    struct dealdyn *st = state;
    st->tmean = lf__mean_calib_ipt(v);
    if (!(st->tmean > 0.0))
        st->tmean = 1.0; /* nothing measured: every t equal, F_i = 1/P */
    st->tfloor = 0.01 * st->tmean;
    st->maxbm = 0.0;
    for (int j = 0; j < v->nworkers; j++) {
        double bm = lf__word_getd(&v->w[j].bm);
        if (!(bm > 0.0) || !isfinite(bm))
            bm = 1.0;
        if (bm > st->maxbm)
            st->maxbm = bm;
    }
    if (!(st->maxbm > 0.0))
        st->maxbm = 1.0;
    st->used = CAL_TIMES;
    if (st->mode != CAL_TIMES && fit(st, v) == 0)
        st->used = st->mode;
    st->sum_inv = 0.0;
    for (int j = 0; j < v->nworkers; j++)
        st->sum_inv += 1.0 / t_of(st, v, j);
    st->r0 = (double)r;
    st->ready = 1;
}

static uint64_t dealdyn_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                              double now)
{
    const struct dealdyn *st = state;
    if (!st->ready || !(st->sum_inv > 0.0)) /* no calibration: equal shares */
        return lf__install_size((double)r, 1.0, 1.0 / v->nworkers);
    double f = (1.0 / t_of(st, v, w)) / st->sum_inv; /* eq. (4) */
    uint64_t done = lf__word_get(&v->w[w].chunks) - lf__word_get(&v->w[w].calib_chunks);
    /* First chunk after calibration: the single round, eq. (3) with k = 1. */
    return lf__install_size(done == 0 ? st->r0 : (double)r, 1.0, f);
}

const struct lf__policy lf__policy_dealdyn = {
    .name = "dealdyn",
    .synopsis = "dealdyn[,calib=times|lr|mv]",
    .help = "one round in shares F_i = (1/t_i)/sum(1/t_j) from calibration, t measured or "
            "fitted on availability/latency (seed 000 eqs. 4-6, SCH_DEALDYN_*)",
    .flags = LF__P_CALIB,
    .state_size = sizeof(struct dealdyn),
    .parse = dealdyn_parse,
    .calibrated = dealdyn_calibrated,
    .chunk = dealdyn_chunk,
};
