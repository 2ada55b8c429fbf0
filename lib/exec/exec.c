/* lib/exec/exec.c - the executor protocol (contracts in exec.h). */
#include <math.h>
#include <string.h>

#include "exec/exec.h"
#include "policy/fmath.h"

enum lf__claim_kind lf__exec_claim_kind(const struct lf__exec *x, int loc, int located,
                                        uint64_t *fa_chunk)
{
    const struct lf__policy *pol = x->sched->pol;
    const struct lf__view *v = x->view;
    *fa_chunk = 0;
    if (loc)
        return LF__CLAIM_DOMAINS;
    if (x->cap)
        return LF__CLAIM_CAS; /* every claim sized against what is left */
    if (pol->flags & LF__P_STATIC)
        return LF__CLAIM_STATIC;
    if ((pol->flags & LF__P_FIXED) && !lf__exec_calibrates(x->sched) && !located) {
        uint64_t c = pol->chunk(x->pstate, v, 0, v->n ? v->n : 1, 0.0);
        if (c == 0)
            c = 1;
        if (lf__exec_fa_fits(v->n, c, v->nworkers)) {
            *fa_chunk = c;
            return LF__CLAIM_FETCH_ADD;
        }
    }
    return LF__CLAIM_CAS;
}

int lf__exec_fa_fits(uint64_t n, uint64_t c, int P)
{
    /* Each worker overshoots n by at most one chunk before it sees the
     * end, so the counter stays below n + (P + 1) c. */
    return c <= (UINT64_MAX - n) / ((uint64_t)P + 1);
}

uint64_t lf__exec_claim_size(const struct lf__exec *x, int w, uint64_t r, double now)
{
    const struct lf__policy *pol = x->sched->pol;
    /* A capped static schedule claims what is left, down to the cap. */
    uint64_t c =
        x->cap && (pol->flags & LF__P_STATIC) ? r : pol->chunk(x->pstate, x->view, w, r, now);
    if (c == 0 && (pol->flags & LF__P_MAYSTOP))
        return 0;
    return lf__exec_clip(x, c, r);
}

enum lf__lease_mode lf__exec_lease_mode(const struct lf__sched *s, uint64_t n, int P,
                                        enum lf__claim_kind kind, int located, int monotonic)
{
    int want = s->lease >= 0 ? s->lease : (s->pol->flags & LF__P_LEASE) ? LF__LEASE_ON : 0;
    if (!want || P < 2 || located || monotonic || n > LF__LEASE_MAXN)
        return LF__LEASE_OFF;
    if (kind == LF__CLAIM_STATIC || kind == LF__CLAIM_DOMAINS)
        return LF__LEASE_OFF;
    return want == 2 ? LF__LEASE_FORCE : LF__LEASE_ON;
}

uint64_t lf__exec_piece(const struct lf__exec *x, int w, enum lf__lease_mode mode, uint64_t c,
                        uint64_t rem, uint64_t prev)
{
    double ipt = lf__view_last_ipt(x->view, w);
    uint64_t p = ipt > 0.0 ? lf__chunk_clamp(ceil(LF__PIECE_NS / ipt), rem) : lf__div_ceil(c, 8);
    if (mode == LF__LEASE_FORCE && p > lf__div_ceil(c, 4))
        p = lf__div_ceil(c, 4);
    /* Costs whose places move: a piece aims at LF__PIECE_NS should it lie
     * where the site's iterations cost the most. */
    double peak = x->view->piece_peak;
    if (peak > 1.0) {
        double expect = lf__word_getd(&x->view->w[w].calib_ipt);
        if (expect > 0.0) {
            uint64_t most = lf__chunk_clamp(ceil(LF__PIECE_NS / (expect * peak)), rem);
            if (p > most)
                p = most;
        }
    }
    /* The ramp, where the memory expects a time per iteration: the first
     * piece LF__PIECE_FIRST_NS of it, each later one at most twice the one
     * before (or that first size, if larger).  Only a piece above twice
     * the one before can be cut, so a steady lease pays one compare. */
    if (p > prev && p - prev > prev) {
        double expect = lf__word_getd(&x->view->w[w].calib_ipt);
        if (expect > 0.0) {
            uint64_t first = lf__chunk_clamp(ceil(LF__PIECE_FIRST_NS / expect), rem);
            uint64_t ramp = prev && 2 * prev > first ? 2 * prev : first;
            if (p > ramp)
                p = ramp;
        }
    }
    return p == 0 ? 1 : p > rem ? rem : p;
}

uint64_t lf__exec_domain_chunk(uint64_t c, int self, int d, uint64_t rem, int owners, int P,
                               int ndom, const struct lf__loc_times *t, int staging)
{
    if (d == self)
        return c < rem ? c : rem;
    if (owners <= 0)
        owners = P / ndom;
    return lf__loc_steal(c, t, staging, rem, owners);
}

int lf__exec_needs_times(const struct lf__sched *s, int P)
{
    return !lf__exec_solo(s, P) &&
           (s->pol->feedback || (s->pol->flags & (LF__P_CALIB | LF__P_MAYSTOP | LF__P_MEASURE)));
}

int lf__exec_light(const struct lf__sched *s, int P)
{
    const struct lf__policy *pol = s->pol;
    unsigned heavy = LF__P_STATIC | LF__P_LEASE | LF__P_PROFILE;
    if (lf__exec_solo(s, P))
        return 1;
    return !lf__exec_needs_times(s, P) && !lf__exec_calibrates(s) && !lf__exec_mem_wanted(s, P) &&
           !(pol->flags & heavy) && !pol->start && s->lease <= 0;
}

int lf__exec_solo(const struct lf__sched *s, int P)
{
    return P == 1 && (s->pol->flags & LF__P_PROFILE);
}

int lf__exec_calibrates(const struct lf__sched *s)
{
    return (s->pol->flags & LF__P_CALIB) && !(s->pol->flags & LF__P_STATIC);
}

int lf__exec_mem_wanted(const struct lf__sched *s, int P)
{
    return !lf__exec_solo(s, P) && (s->pol->flags & (LF__P_CALIB | LF__P_MEASURE | LF__P_MAYSTOP));
}

int lf__exec_psum_wanted(const struct lf__sched *s, int P)
{
    return s->pol->contrib && P >= LF__PSUM_MIN_P;
}

/* Recompute the team sums from every worker's contributions. */
static void psum_all(const struct lf__exec *x)
{
    struct lf__psum *ps = x->psum;
    const struct lf__policy *pol = x->sched->pol;
    memset(ps->sum, 0, sizeof ps->sum);
    for (int w = 0; w < x->view->nworkers; w++) {
        double *c = ps->per + (size_t)w * LF__PSUMS;
        memset(c, 0, LF__PSUMS * sizeof *c);
        pol->contrib(x->pstate, x->view, w, c);
        for (int k = 0; k < LF__PSUMS; k++)
            ps->sum[k] += c[k];
    }
    ps->updates = 0;
    x->view->psum = ps->sum;
}

/* Worker w's statistics changed: move its contributions in the sums, and
 * every P updates recompute them (O(1) amortised; the rounding of the
 * differences never accumulates over more than P of them). */
static void psum_update(const struct lf__exec *x, int w)
{
    struct lf__psum *ps = x->psum;
    if (!ps)
        return;
    if (++ps->updates >= (uint64_t)x->view->nworkers) {
        psum_all(x);
        return;
    }
    double *c = ps->per + (size_t)w * LF__PSUMS, n[LF__PSUMS] = {0};
    x->sched->pol->contrib(x->pstate, x->view, w, n);
    for (int k = 0; k < LF__PSUMS; k++) {
        ps->sum[k] += n[k] - c[k];
        c[k] = n[k];
    }
}

/* The costliest bin of profile p over its mean bin, within
 * [1, LF__PIECE_PEAK_MAX]. */
static double profile_peak(const struct lf__profile *p)
{
    double lo, hi;
    lf__profile_range(p, &lo, &hi);
    return lf__fmin(lf__fmax(hi, 1.0), LF__PIECE_PEAK_MAX);
}

int lf__exec_start(const struct lf__exec *x, const struct lf__site_mem *m, uint64_t *cal0)
{
    const struct lf__sched *s = x->sched;
    const struct lf__policy *pol = s->pol;
    struct lf__view *v = x->view;
    int P = v->nworkers;
    int wanted = m && lf__exec_mem_wanted(s, P);
    int use_mem = wanted && m->valid && s->memory && !s->cal_paper;
    /* Values that the previous execution left in place are not stored
     * again: a dispatcher's members keep the lines in their caches. */
    for (int t = 0; t < P; t++) {
        uint64_t c0 = !wanted || s->cal_paper || !m->cal[t] ? 1 : m->cal[t];
        if (cal0 && cal0[t] != c0)
            cal0[t] = c0;
        if (use_mem) {
            lf__word_putd(&v->w[t].calib_ipt, m->ipt[t]);
            lf__word_putd(&v->w[t].comp_lat_ns, m->cost[t][0]);
            lf__word_putd(&v->w[t].stage_lat_ns, m->cost[t][1]);
            lf__word_putd(&v->w[t].stage_ns_per_iter, m->cost[t][2]);
        }
    }
    if (v->calibrated_from_memory)
        v->calibrated_from_memory = 0;
    if (v->psum)
        v->psum = NULL;
    /* The profile: this instance reads its own copy, trusted or not at all. */
    if (v->prof)
        v->prof = NULL;
    double peak = 1.0;
    if (x->acc) {
        memset(x->acc, 0, (size_t)P * sizeof *x->acc);
        if (wanted && s->memory && m->prof.valid && m->prof.conf >= LF__PROF_TRUST) {
            /* Dealt by the part of the profile that is signal (profile.c). */
            double w = lf__exec_profile_weight(&m->prof);
            *x->prof = m->prof;
            for (int b = 0; b < LF__PROF_BINS; b++)
                if (x->prof->cost[b] > 0.0)
                    x->prof->cost[b] = 1.0 + w * (x->prof->cost[b] - 1.0);
            v->prof = x->prof;
        }
        if (use_mem && m->prof.valid && m->prof.execs < 2)
            peak = profile_peak(&m->prof);
    }
    if (v->piece_peak != peak)
        v->piece_peak = peak;
    if (memcmp(x->pstate, s->state, pol->state_size) != 0)
        memcpy(x->pstate, s->state, pol->state_size);
    if (pol->start)
        pol->start(x->pstate, v);
    if (x->psum)
        psum_all(x);
    if (!lf__exec_calibrates(s) || lf__exec_solo(s, P))
        return 0;
    if (!use_mem)
        return 1;
    /* What this call site learned last time stands in for calibration. */
    for (int t = 0; t < P; t++) {
        lf__word_putd(&v->w[t].avail, 1.0);
        lf__word_putd(&v->w[t].bm, 1.0);
    }
    v->calibrated_from_memory = 1;
    if (pol->calibrated)
        pol->calibrated(x->pstate, v, v->n);
    return 0;
}

void lf__exec_chunk_begin(const struct lf__exec *x, int w, double start_ns, uint64_t iters)
{
    struct lf__wstat *s = &x->view->w[w];
    lf__word_putd(&s->cur_start_ns, start_ns);
    lf__word_put(&s->cur_iters, iters);
    lf__word_put(&s->inflight, lf__word_get(&s->inflight) + 1);
}

int lf__exec_chunk_done(const struct lf__exec *x, int w, uint64_t iters, uint64_t busy_ns,
                        uint64_t total_ns, int calib, int calibrating, uint64_t *cal_size)
{
    struct lf__wstat *s = &x->view->w[w];
    double ipt = (double)busy_ns / (double)iters;
    uint64_t in = lf__word_get(&s->inflight);
    lf__word_put(&s->inflight, in ? in - 1 : 0);
    lf__word_put(&s->cur_iters, 0);
    lf__word_put(&s->chunks, lf__word_get(&s->chunks) + 1);
    if (calib)
        lf__word_put(&s->calib_chunks, lf__word_get(&s->calib_chunks) + 1);
    lf__word_put(&s->iters, lf__word_get(&s->iters) + iters);
    lf__word_put(&s->busy_ns, lf__word_get(&s->busy_ns) + busy_ns);
    lf__word_put(&s->total_ns, lf__word_get(&s->total_ns) + total_ns);
    lf__word_put(&s->last_iters, iters);
    lf__word_put(&s->last_ns, busy_ns);
    lf__word_put(&s->ipt_n, lf__word_get(&s->ipt_n) + 1);
    lf__word_putd(&s->ipt_sum, lf__word_getd(&s->ipt_sum) + ipt);
    lf__word_putd(&s->ipt_sq, lf__word_getd(&s->ipt_sq) + ipt * ipt);
    if (x->sched->pol->feedback)
        x->sched->pol->feedback(x->pstate, x->view, w);
    psum_update(x, w);
    return calibrating && lf__exec_calib_step(x->sched, iters, busy_ns, cal_size);
}

void lf__exec_worker_gone(const struct lf__exec *x, int w)
{
    lf__word_put(&x->view->w[w].stopped, 1);
    psum_update(x, w);
}

int lf__exec_calib_step(const struct lf__sched *s, uint64_t iters, uint64_t busy_ns,
                        uint64_t *cal_size)
{
    if (s->cal_paper)
        return 1;
    if (busy_ns >= s->cal_ns) {
        double last = ceil((double)s->cal_ns * (double)iters / (double)busy_ns);
        if (last > (double)*cal_size)
            *cal_size = last < (double)(UINT64_MAX >> 2) ? (uint64_t)last : UINT64_MAX >> 2;
        return 1;
    }
    if (*cal_size < (UINT64_MAX >> 2))
        *cal_size *= 2; /* too short to time: grow geometrically */
    return 0;
}

uint64_t lf__exec_spread_first(uint64_t want, uint64_t u, int P)
{
    uint64_t first = lf__div_ceil(u, 2 * (uint64_t)P);
    return first > want ? first : want;
}

void lf__exec_calib_report(const struct lf__exec *x, int w, double avail, double latency_ns,
                           double bm)
{
    struct lf__wstat *s = &x->view->w[w];
    lf__word_putd(&s->calib_ipt,
                  (double)lf__word_get(&s->busy_ns) / (double)lf__word_get(&s->iters));
    lf__word_putd(&s->avail, avail);
    lf__word_putd(&s->latency_ns, latency_ns);
    lf__word_putd(&s->bm, bm);
    psum_update(x, w);
}

void lf__exec_calib_end(const struct lf__exec *x, uint64_t r)
{
    if (x->sched->pol->calibrated)
        x->sched->pol->calibrated(x->pstate, x->view, r);
}

struct lf__loc_modes lf__exec_loc_modes(const struct lf__sched *s, int homed, int has_inputs)
{
    struct lf__loc_modes m = {0, 0};
    if (!homed)
        return m;
    m.loc = s->numa && !(s->pol->flags & LF__P_STATIC);
    m.staging = s->stage && has_inputs;
    return m;
}

int lf__exec_loc_chunk_done(struct lf__loc_times *t, int home, int self, int staged, double busy_ns,
                            double iters)
{
    int remote = home >= 0 && home != self && !staged;
    lf__loc_times_add(t, remote, busy_ns, iters);
    return remote;
}

void lf__exec_costs_add(const struct lf__exec *x, struct lf__exec_costs *c, int w, double iters,
                        double busy_ns, int staged, double stage_ns, int local)
{
    struct lf__wstat *ws = &x->view->w[w];
    c->k_all++;
    c->i_all += iters;
    if (staged) {
        /* Staging cost beta + c s (seed 003 eq. 2), fitted to every staged
         * chunk's copies. */
        lf__affine_add(&c->stage, iters, stage_ns);
        c->k_staged++;
        c->i_staged += iters;
    }
    double beta, sl;
    if (lf__exec_costs_stage(c, &beta, &sl) == 0) {
        lf__word_putd(&ws->stage_lat_ns, beta * (double)c->k_staged / (double)c->k_all);
        lf__word_putd(&ws->stage_ns_per_iter, sl * c->i_staged / c->i_all);
    }
    if (local) {
        /* Compute cost alpha + c t (seed 003 eq. 1). */
        double alpha, t;
        lf__affine_add(&c->comp, iters, busy_ns);
        if (lf__exec_costs_comp(c, &alpha, &t) == 0)
            lf__word_putd(&ws->comp_lat_ns, alpha);
    }
}

int lf__exec_costs_comp(const struct lf__exec_costs *c, double *alpha, double *t)
{
    if (c->comp.n < LF__COSTS_MIN)
        return -1;
    return lf__affine_solve(&c->comp, alpha, t);
}

int lf__exec_costs_stage(const struct lf__exec_costs *c, double *beta, double *s)
{
    if (c->stage.n < LF__COSTS_MIN)
        return -1;
    return lf__affine_solve(&c->stage, beta, s);
}

uint64_t lf__exec_fetch_size(uint64_t c, uint64_t rem, const struct lf__fetch *f)
{
    if (!f->costs) {
        uint64_t probe = 1ULL << (f->staged < 62 ? f->staged : 62);
        return c < probe ? c : probe;
    }
    if (!(f->t_owner > 0.0) || !(f->t_self > 0.0))
        return c;
    double per = f->s + f->t_self; /* a fetched iteration: its transfer and compute */
    double k = ((double)rem * f->t_owner - f->beta) / (f->t_owner + per);
    if (!(k >= 1.0))
        return 0;
    double want = lf__fmax((double)c, ceil(LF__FETCH_AMORTISE * f->beta / per));
    want = lf__fmin(want, floor(k));
    return want >= (double)rem ? rem : (uint64_t)want;
}

int lf__exec_mem_end(const struct lf__exec *x, struct lf__site_mem *m, double *drift)
{
    const struct lf__sched *s = x->sched;
    const struct lf__view *v = x->view;
    *drift = 0.0;
    /* Schedules that calibrate learn here, and so does a static partition
     * that measures its blocks (static-weighted: its next partition is
     * sized by what this one measured). */
    unsigned sm = LF__P_STATIC | LF__P_MEASURE;
    int learns = lf__exec_calibrates(s) || (s->pol->flags & sm) == sm;
    if (!learns || !s->memory || s->cal_paper || lf__exec_solo(s, v->nworkers))
        return 0;
    /* With a profile, a worker's rate is its time per unit: which part of
     * the loop it happened to run does not count as drift. */
    m->prof.dropped = lf__exec_profile_learn(x, m);
    if (s->pol->flags & LF__P_PROFILE) {
        /* What the team computed, per iteration: the estimate tiny
         * executions and self-scheduled chunks are sized by. */
        double busy = 0.0, iters = 0.0;
        for (int t = 0; t < v->nworkers; t++) {
            busy += (double)lf__word_get(&v->w[t].busy_ns);
            iters += (double)lf__word_get(&v->w[t].iters);
        }
        m->team_ns_per_iter = iters > 0.0 ? busy / iters : 0.0;
    }
    int all = 1;
    for (int t = 0; t < v->nworkers; t++) {
        uint64_t it = lf__word_get(&v->w[t].iters);
        if (!it) {
            /* This worker got nothing this time (it came late to a short
             * loop): keep what was known of it, if anything. */
            all &= m->valid && m->ipt[t] > 0;
            continue;
        }
        double ipt = x->acc ? lf__exec_unit_time(x, t, &m->prof)
                            : (double)lf__word_get(&v->w[t].busy_ns) / (double)it;
        /* The affine costs the worker fitted (0 where it measured none). */
        m->cost[t][0] = lf__word_getd(&v->w[t].comp_lat_ns);
        m->cost[t][1] = lf__word_getd(&v->w[t].stage_lat_ns);
        m->cost[t][2] = lf__word_getd(&v->w[t].stage_ns_per_iter);
        if (m->valid && m->ipt[t] > 0)
            *drift = lf__fmax(*drift, fabs(ipt / m->ipt[t] - 1.0));
        m->ipt[t] = ipt > 0 ? ipt : 1e-3;
        if (ipt > 0) {
            /* Smallest power-of-two chunk that lasts calns at this rate. */
            uint64_t c = 1;
            while ((double)c * ipt < (double)s->cal_ns && c < (1ULL << 40))
                c *= 2;
            m->cal[t] = c;
        }
    }
    /* A schedule with a profile refreshes every rate from each chunk, so
     * stale rates cost it one first chunk (a lease): it keeps its memory. */
    if (m->valid && *drift > LF__RECAL_DRIFT && !x->acc) {
        m->valid = 0;
        return 1;
    }
    m->valid = all;
    return 0;
}
