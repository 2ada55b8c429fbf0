/* lib/policy/umr.c - "umr" (seed 003, Yang & Casanova: Uniform Multi-Round)
 * and "rumr" (UMR's increasing rounds, then factoring for the tail, after
 * the same authors' RUMR, seed 003 ref. [28]).
 *
 * References: Y. Yang & H. Casanova, "Multi-Round Algorithms for Scheduling
 * Divisible Loads", IEEE Transactions on Parallel and Distributed Systems,
 * 2005 (seed 003; equation and section numbers below are its own); Y. Yang &
 * H. Casanova, "RUMR: Robust Scheduling for Divisible Workloads", Proc. 12th
 * IEEE Int. Symposium on High-Performance Distributed Computing (HPDC-12),
 * 2003 (seed 003 ref. [28]); for rumr's tail, S. F. Hummel, E. Schonberg &
 * L. E. Flynn, "Factoring: a method for scheduling parallel loops",
 * Communications of the ACM 35(8), 1992.
 *
 * Notation.  Yang & Casanova's worker i computes a chunk in alpha_i + chunk/S_i
 * (eq. 1) and receives it in beta_i + chunk/B_i (eq. 2).  Here the load unit
 * is one iteration and time is in ns: alpha_i = comp_lat_ns, beta_i =
 * stage_lat_ns, 1/B_i = stage_ns_per_iter, 1/S_i = t_i, the worker's compute
 * time per iteration as calibration (LF__P_CALIB) and then every chunk
 * measure it, compute latency removed (rounds.h).  W_total is r, the
 * iterations unclaimed when calibration ends.
 *
 * Plan (calibrated(), exclusive).  Resource selection (§5.2): workers are
 * ranked by link, fastest first (stage_ns_per_iter ascending, then index),
 * and the first m are used, m minimising the plan's predicted makespan Ex
 * (select=off: all P).  For those m the plan of rounds.c gives theta, eta,
 * M* by bisection on eq. (9), an integer M beside it and round_0 (eq. 10).
 *
 * Chunks (chunk(), concurrent).  The executor is a shared counter, so a
 * worker's round is the number of chunks it completed since calibration.
 * Rounds j < M-1: worker w gets chunk_jw = S_w (t_j - alpha_w) with
 * t_j = (round_j + C)/A (§5.2; chunk_j of eq. 8 when homogeneous).  The last
 * round (and anything after it): chunks decrease so that the workers finish
 * together (§5.1's "1/2" optimisation): w gets rho_w (T - now - o_w) where
 * rho_i = 1/(t_i + 1/B_i), o_i = alpha_i + beta_i, and T solves
 * sum_i rho_i (T - free_i - o_i)^+ = r over the selected workers still
 * active, free_i being when worker i is done with its chunk in flight (for
 * w itself: now, or on a one-port platform when the stagings in flight
 * end; waits of stagings still to come are not predicted).  A
 * worker that would get nothing stops (LF__P_MAYSTOP); so does an
 * unselected one, on its first request; the executor never stops the last
 * active worker.
 *
 * Runtime.  The dispatcher knows no staging costs (all 0): D = 0, there is
 * nothing to overlap, and the plan degenerates to M = 1 - one round sized
 * by the finish-together rule from the measured speeds, then the same rule
 * for whatever is left.  rumr is the variant for noisy speeds.
 *
 * The model's assumption that round j+1 is staged while round j computes
 * holds on a real master-worker platform; lf-sim's workers claim only when
 * idle, so there the plan is followed but staging does not overlap.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/factoring.h"
#include "policy/rounds.h"
#include "policy/fmath.h"

struct umr {
    int select;    /* select=on|off (resource selection, §5.2) */
    double phase1; /* rumr: share of the load planned as UMR rounds */
    int rumr;
    int ready;
    struct lf__umr_plan plan;
    double tmean; /* substitute t for workers without a measurement */
    double thr_s; /* selection: stage_ns_per_iter of the last selected worker */
    int thr_idx;  /* ... and its index (ties broken by index) */
    int nsel;
    double tail0; /* rumr: iterations left for factoring */
};

static int parse_common(struct umr *st, struct lf__params *p, const char *form, char *err,
                        size_t errlen)
{
    int rc = lf__no_chunk(p, form, err, errlen);
    if (rc)
        return rc;
    st->select = 1;
    if ((rc = lf__params_get_onoff(p, "select", &st->select, err, errlen)) < 0)
        return rc;
    return 0;
}

static int umr_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return parse_common(state, p, "umr[,select=on|off]", err, errlen);
}

static int rumr_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct umr *st = state;
    static const char form[] = "rumr[,phase1=x (0 < x <= 1, default 0.9)][,select=on|off]";
    int rc = parse_common(st, p, form, err, errlen);
    if (rc)
        return rc;
    st->rumr = 1;
    rc = lf__params_get_double(p, "phase1", 1e-6, 1.0, &st->phase1, err, errlen);
    if (rc < 0)
        return rc;
    if (rc == 0)
        st->phase1 = 0.9;
    return 0;
}

static double t_of(const struct umr *st, const struct lf__view *v, int j)
{
    double t = lf__rounds_ipt(v, j);
    return t > 0.0 ? t : st->tmean;
}

static int selected(const struct umr *st, const struct lf__view *v, int j)
{
    double s = lf__word_getd(&v->w[j].stage_ns_per_iter);
    return s < st->thr_s || (s == st->thr_s && j <= st->thr_idx);
}

struct cand {
    double s, t, a, b;
    int idx;
};

static int cand_cmp(const void *x, const void *y)
{
    const struct cand *a = x, *b = y;
    if (a->s != b->s)
        return a->s < b->s ? -1 : 1;
    return (a->idx > b->idx) - (a->idx < b->idx);
}

/* Whether prefix size m is worth evaluating among P (all when P is small). */
static int probe(int m, int P)
{
    if (P <= 256 || m == P || m <= 16)
        return 1;
    /* About 40 sizes per factor of 10 beyond that. */
    return floor(40.0 * lf__log10((double)m)) != floor(40.0 * lf__log10((double)(m - 1)));
}

/* Select workers and plan the rounds for r iterations (see the header). */
static void umr_calibrated(void *state, const struct lf__view *v, uint64_t r)
{
    struct umr *st = state;
    int P = v->nworkers;
    double sum = 0.0;
    int known = 0;
    for (int j = 0; j < P; j++) {
        double t = lf__rounds_ipt(v, j);
        if (t > 0.0) {
            sum += t;
            known++;
        }
    }
    st->tmean = known ? sum / known : 1.0;
    double W = (double)r * (st->rumr ? st->phase1 : 1.0);
    st->tail0 = (double)r - floor(W);
    W = floor(W);
    struct cand *c = malloc((size_t)P * sizeof *c);
    struct lf__umr_sums s = {0};
    if (!c) {
        /* No room to rank: everybody, planned as one team. */
        for (int j = 0; j < P; j++)
            lf__umr_sums_add(&s, t_of(st, v, j), lf__word_getd(&v->w[j].comp_lat_ns),
                             lf__word_getd(&v->w[j].stage_lat_ns),
                             lf__word_getd(&v->w[j].stage_ns_per_iter));
        lf__umr_plan_make(&st->plan, &s, W);
        st->thr_s = INFINITY;
        st->thr_idx = P;
        st->nsel = P;
        st->ready = 1;
        return;
    }
    for (int j = 0; j < P; j++)
        c[j] = (struct cand){lf__word_getd(&v->w[j].stage_ns_per_iter), t_of(st, v, j),
                             lf__word_getd(&v->w[j].comp_lat_ns),
                             lf__word_getd(&v->w[j].stage_lat_ns), j};
    qsort(c, (size_t)P, sizeof *c, cand_cmp);
    double best = INFINITY;
    int bestm = P;
    struct lf__umr_plan p;
    for (int m = 1; m <= P; m++) {
        lf__umr_sums_add(&s, c[m - 1].t, c[m - 1].a, c[m - 1].b, c[m - 1].s);
        if (!st->select && m < P)
            continue;
        if (!probe(m, P))
            continue;
        lf__umr_plan_make(&p, &s, W);
        if (p.ex < best * (1.0 - 1e-9) || (m == P && !st->select)) {
            best = p.ex;
            bestm = m;
        }
    }
    s = (struct lf__umr_sums){0};
    for (int m = 0; m < bestm; m++)
        lf__umr_sums_add(&s, c[m].t, c[m].a, c[m].b, c[m].s);
    lf__umr_plan_make(&st->plan, &s, W);
    st->thr_s = c[bestm - 1].s;
    st->thr_idx = c[bestm - 1].idx;
    st->nsel = bestm;
    free(c);
    st->ready = 1;
}

/* The last round: w's share of r so that the active selected workers
 * finish together (see the header), planned at time now; 0 when the
 * others finish r sooner. */
static uint64_t finish_together(const struct umr *st, const struct lf__view *v, int w, uint64_t r,
                                double now)
{
    double T = INFINITY, rw = 0.0, ow = 0.0;
    /* T solves sum_i rho_i (T - g_i)^+ = r with g_i = free_i + o_i: start
     * from everybody and drop those that would get nothing (a few passes). */
    double cut = -INFINITY, port = now;
    if (v->one_port) {
        /* One port: w's staging waits for the stagings in flight to end. */
        for (int i = 0; i < v->nworkers; i++) {
            uint64_t busy = i == w ? 0 : lf__word_get(&v->w[i].cur_iters);
            double e = lf__word_getd(&v->w[i].cur_start_ns) + lf__word_getd(&v->w[i].stage_lat_ns) +
                       (double)busy * lf__word_getd(&v->w[i].stage_ns_per_iter);
            if (busy && e > port)
                port = e;
        }
    }
    for (int pass = 0; pass < 8; pass++) {
        double srho = 0.0, sg = 0.0, maxg = -INFINITY;
        for (int i = 0; i < v->nworkers; i++) {
            if (i != w && (lf__word_get(&v->w[i].stopped) || !selected(st, v, i)))
                continue;
            double t = t_of(st, v, i), si = lf__word_getd(&v->w[i].stage_ns_per_iter);
            double o = lf__word_getd(&v->w[i].comp_lat_ns) + lf__word_getd(&v->w[i].stage_lat_ns);
            double rho = 1.0 / (t + si), g = now;
            uint64_t busy = lf__word_get(&v->w[i].cur_iters); /* w's own: pushed ahead */
            if (busy) {
                double end = lf__word_getd(&v->w[i].cur_start_ns) + o + (double)busy / rho;
                g = end > now ? end : now;
            }
            g += o;
            if (i == w) {
                g = (g - o > port ? g - o : port) + o;
                rw = rho;
                ow = o;
            }
            if (pass > 0 && g >= cut)
                continue;
            srho += rho;
            sg += rho * g;
            maxg = g > maxg ? g : maxg;
        }
        if (!(srho > 0.0))
            break;
        T = ((double)r + sg) / srho;
        if (T >= maxg)
            break;
        cut = T; /* workers free only after T get nothing */
    }
    double c = rw * (T - port - ow);
    if (!(c >= 0.5))
        return 0;
    return lf__chunk_round(c, r);
}

static uint64_t umr_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                          double now)
{
    const struct umr *st = state;
    if (!st->ready)
        return lf__div_ceil(r, 2 * (uint64_t)v->nworkers);
    if (!selected(st, v, w))
        return 0;
    uint64_t j = lf__rounds_begun(v, w);
    const struct lf__umr_plan *p = &st->plan;
    if (st->rumr && ((double)r <= st->tail0 || j >= (uint64_t)p->M)) {
        /* Phase 2: factoring, x = 2, over the tail (batches from tail0). */
        struct lf__view tv = *v;
        tv.n = (double)r <= st->tail0 ? (uint64_t)st->tail0 : r;
        tv.nworkers = st->nsel;
        return lf__fac_chunk(NULL, &tv, r, NULL);
    }
    if (!st->rumr && j + 1 >= (uint64_t)p->M)
        return finish_together(st, v, w, r, now);
    /* Round j < M-1 (rumr: j < M): equal compute time t_j (§5.2, eq. 8). */
    double tj = (lf__umr_round(p, (int)j) + p->C) / p->A;
    double c = (tj - lf__word_getd(&v->w[w].comp_lat_ns)) / t_of(st, v, w);
    return lf__chunk_round(c, r);
}

const struct lf__policy lf__policy_umr = {
    .name = "umr",
    .synopsis = "umr[,select=on|off]",
    .help = "uniform multi-round: rounds of equal compute time growing as theta^j, M* by "
            "bisection, fastest links selected, last round finishing together (seed 003 "
            "eqs. 7-10, §5.2)",
    .flags = LF__P_CALIB | LF__P_MAYSTOP,
    .state_size = sizeof(struct umr),
    .parse = umr_parse,
    .calibrated = umr_calibrated,
    .chunk = umr_chunk,
    .feedback = lf__rounds_feedback,
};

const struct lf__policy lf__policy_rumr = {
    .name = "rumr",
    .synopsis = "rumr[,phase1=x][,select=on|off]",
    .help = "robust UMR: UMR's increasing rounds for phase1 (0.9) of the load, then factoring "
            "(x=2) for the rest (seed 003 ref. [28])",
    .flags = LF__P_CALIB | LF__P_MAYSTOP,
    .state_size = sizeof(struct umr),
    .parse = rumr_parse,
    .calibrated = umr_calibrated,
    .chunk = umr_chunk,
    .feedback = lf__rounds_feedback,
};
