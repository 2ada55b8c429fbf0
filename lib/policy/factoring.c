/* lib/policy/factoring.c - "fac2" and "wf": factoring with x = 2 (Hummel,
 * Schonberg & Flynn, CACM 35(8), 1992) and weighted factoring (Hummel,
 * Schmidt, Uma & Wein, SPAA 1996), plus the batch arithmetic that awf.c and
 * af.c share.
 *
 * References: S. F. Hummel, E. Schonberg & L. E. Flynn, "Factoring: a
 * method for scheduling parallel loops", Communications of the ACM 35(8),
 * 1992; S. F. Hummel, J. Schmidt, R. N. Uma & J. Wein, "Load-sharing in
 * heterogeneous systems via weighted factoring", Proc. 8th ACM Symposium on
 * Parallel Algorithms and Architectures (SPAA), 1996.
 *
 * fac2 hands out work in batches.  Batch b starts with R_b unclaimed
 * iterations (R_0 = n) and consists of P chunks of c_b = ceil(R_b / 2P), so
 * R_{b+1} = R_b - P c_b, about half of R_b; once R_b < P the last batch is
 * R_b chunks of 1.  The executor only tells us r, so the batch is recovered
 * from r: it is the b with R_b >= r > R_{b+1}.  When claims happen one after
 * another this reproduces the paper's sequence exactly (P chunks of c_b per
 * batch); when weighted chunks overshoot a boundary the next claim simply
 * falls in the next batch.  R_b is tabulated at loop start (at most
 * LF__FAC_TAB batches; past the table the recurrence runs on).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "policy/factoring.h"

/* Unclaimed count after a whole batch that started at R.  P c_b is at most
 * R/2 + P, so nothing here can wrap. */
static uint64_t fac_next(uint64_t R, uint64_t P)
{
    uint64_t batch = P * lf__div_ceil(R, 2 * P);
    return batch < R ? R - batch : 0;
}

static uint64_t team(const struct lf__view *v)
{
    return (uint64_t)v->nworkers;
}

void lf__fac_start(struct lf__fac *f, const struct lf__view *v)
{
    uint64_t P = team(v), R = v->n;
    f->n = v->n;
    f->nworkers = v->nworkers;
    f->nb = 0;
    while (R > 0 && f->nb < LF__FAC_TAB) {
        f->R[f->nb++] = R;
        R = fac_next(R, P);
    }
}

uint64_t lf__fac_chunk(const struct lf__fac *f, const struct lf__view *v, uint64_t r,
                       unsigned *batch)
{
    uint64_t P = team(v), R;
    unsigned b = 0;
    if (f && f->nb > 0 && f->n == v->n && f->nworkers == v->nworkers && r <= f->R[0]) {
        /* Last table entry with R[b] >= r (R[] strictly decreases). */
        int lo = 0, hi = f->nb - 1;
        while (lo < hi) {
            int mid = (lo + hi + 1) / 2;
            if (f->R[mid] >= r)
                lo = mid;
            else
                hi = mid - 1;
        }
        b = (unsigned)lo;
        R = f->R[lo];
    } else {
        R = v->n > r ? v->n : r;
    }
    /* Past the table (or without one): follow the recurrence. */
    for (;;) {
        uint64_t next = fac_next(R, P);
        if (next < r)
            break;
        R = next;
        b++;
    }
    if (batch)
        *batch = b;
    return lf__div_ceil(R, 2 * P);
}

double lf__speed_weight(const struct lf__view *v, int w,
                        double (*rate)(const void *ctx, const struct lf__view *v, int j),
                        const void *ctx)
{
    double sum = 0.0, mine = 0.0;
    int known = 0;
    for (int j = 0; j < v->nworkers; j++) {
        double x = rate(ctx, v, j);
        if (x > 0.0 && isfinite(x)) {
            sum += x;
            known++;
            if (j == w)
                mine = x;
        }
    }
    if (mine == 0.0 || known == 0)
        return 1.0;
    /* Unknown workers count as the known mean m, so sum_j rate = P m and
     * P * rate(w) / (P m) = rate(w) / m. */
    double wt = mine / (sum / known);
    return isfinite(wt) ? wt : 1.0;
}

/* ---- fac2 ---- */

struct fac2_state {
    struct lf__fac fac;
};

static int fac2_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return lf__no_chunk(p, "fac2", err, errlen);
}

static void fac2_start(void *state, const struct lf__view *v)
{
    struct fac2_state *s = state;
    lf__fac_start(&s->fac, v);
}

static uint64_t fac2_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                           double now)
{
    const struct fac2_state *s = state;
    return lf__fac_chunk(&s->fac, v, r, NULL);
}

const struct lf__policy lf__policy_fac2 = {
    .name = "fac2",
    .synopsis = "fac2",
    .help = "factoring, x=2: batches of P chunks ceil(R/2P) (Hummel, Schonberg & Flynn 1992)",
    .flags = 0,
    .state_size = sizeof(struct fac2_state),
    .parse = fac2_parse,
    .start = fac2_start,
    .chunk = fac2_chunk,
};

/* ---- wf ----
 *
 * Worker i's chunk in batch b is w_i c_b with w_i = P W_i / sum_j W_j, so the
 * batch still totals about P c_b = R_b / 2 (Hummel et al. 1996).  The W_i
 * come from weights=a:b:..., applied cyclically when fewer than P are given
 * (worker i gets entry i mod count); without weights=, W_i = 1 / calib_ipt_i
 * as the calibration phase measured it.  Flags are fixed per descriptor, so
 * wf always asks for calibration; with explicit weights its result is unused.
 */

#define WF_MAXW 24 /* explicit weights kept in the state (fits LF__POLICY_STATE_MAX) */

struct wf_state {
    struct lf__fac fac;
    int nw; /* explicit weights given; 0: measure */
    double wt[WF_MAXW];
};

static const char wf_form[] = "wf[,weights=a:b:...] (positive numbers, at most 24)";

static int wf_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct wf_state *s = state;
    const char *val;
    int rc = lf__no_chunk(p, wf_form, err, errlen);
    if (rc)
        return rc;
    if (!lf__params_get_str(p, "weights", &val))
        return 0;
    const char *q = val;
    for (;;) {
        char *end;
        double x = strtod(q, &end);
        if (end == q || !isfinite(x) || x <= 0.0 || (*end != ':' && *end != '\0')) {
            snprintf(err, errlen,
                     "wf: weights=%s: each weight must be a positive number; "
                     "accepted: %s",
                     val, wf_form);
            return -EINVAL;
        }
        if (s->nw == WF_MAXW) {
            snprintf(err, errlen, "wf: weights=%s: more than %d weights; accepted: %s", val,
                     WF_MAXW, wf_form);
            return -EINVAL;
        }
        s->wt[s->nw++] = x;
        if (*end == '\0')
            break;
        q = end + 1;
    }
    return 0;
}

static void wf_start(void *state, const struct lf__view *v)
{
    struct wf_state *s = state;
    lf__fac_start(&s->fac, v);
}

/* W_j: the explicit weight (cyclic), or the measured speed 1 / calib_ipt. */
static double wf_rate(const void *ctx, const struct lf__view *v, int j)
{
    const struct wf_state *s = ctx;
    if (s->nw > 0)
        return s->wt[j % s->nw];
    double ipt = lf__word_getd(&v->w[j].calib_ipt);
    return ipt > 0.0 ? 1.0 / ipt : 0.0;
}

static uint64_t wf_chunk(const void *state, const struct lf__view *v, int w, uint64_t r, double now)
{
    const struct wf_state *s = state;
    uint64_t cb = lf__fac_chunk(&s->fac, v, r, NULL);
    return lf__chunk_round(lf__speed_weight(v, w, wf_rate, s) * (double)cb, r);
}

const struct lf__policy lf__policy_wf = {
    .name = "wf",
    .synopsis = "wf[,weights=a:b:...]",
    .help = "weighted factoring: fac2 chunks scaled by P w_i / sum w (Hummel et al. 1996)",
    .flags = LF__P_CALIB,
    .state_size = sizeof(struct wf_state),
    .parse = wf_parse,
    .start = wf_start,
    .chunk = wf_chunk,
};
