/* lib/sim/engine.c - the discrete-event engine behind lf-sim: the
 * virtual-time executor.
 *
 * The engine applies the executor protocol (lib/exec/) with one
 * event per worker at a time in a min-heap ordered by (virtual time, worker
 * index), so that equal times resolve to the lower index and every run is
 * reproducible.  Popping worker w's event completes its chunk (statistics,
 * calibration, feedback) and lets it claim the next one at that same time.
 * Nothing here is O(P) per event (O(domains) on a NUMA platform); the
 * policies may be.
 *
 * Domains (doc/lf-sim.md, "NUMA domains").  Which chunks are local, remote
 * or staged, and how they are claimed, follow lib/dispatch/locality.c: with
 * numa on the policy sizes a chunk for the whole loop's remainder,
 * lf__loc_pick chooses the range and lf__loc_remote_chunk resizes a chunk
 * from another domain's range; a chunk's home is its range or its first
 * iteration's domain; t_local and x come from the worker's compute times.
 * What a chunk costs is physical instead: each iteration's input costs
 * according to where it lives.  Ports are claimed in claim order, which is
 * time order, so each port's transfers queue first come, first served.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

static int ev_less(struct ev x, struct ev y)
{
    return x.t < y.t || (x.t == y.t && (x.kind < y.kind || (x.kind == y.kind && x.w < y.w)));
}

void lf__sim_heap_push(struct heap *h, struct ev e)
{
    int i = h->n++;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!ev_less(e, h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = e;
}

struct ev lf__sim_heap_pop(struct heap *h)
{
    struct ev top = h->a[0], last = h->a[--h->n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && ev_less(h->a[c + 1], h->a[c]))
            c++;
        if (!ev_less(h->a[c], last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

/* Iterations of [0, x) that an interleaved placement puts on domain d. */
static uint64_t interleave_below(const struct sim *S, int d, uint64_t x)
{
    uint64_t cycle = S->page * (uint64_t)S->D, off = (uint64_t)d * S->page;
    uint64_t part = x % cycle > off ? x % cycle - off : 0;
    return x / cycle * S->page + (part < S->page ? part : S->page);
}

/* Iterations of [lo, hi) whose input lives on domain d. */
static uint64_t home_count(const struct sim *S, int d, uint64_t lo, uint64_t hi)
{
    if (S->home == LF__SIM_HOME_INTERLEAVE)
        return interleave_below(S, d, hi) - interleave_below(S, d, lo);
    uint64_t a = lo > S->hlo[d] ? lo : S->hlo[d], b = hi < S->hhi[d] ? hi : S->hhi[d];
    return b > a ? b - a : 0;
}

/* The domain holding iteration i's input. */
static int home_of(const struct sim *S, uint64_t i)
{
    if (S->home == LF__SIM_HOME_INTERLEAVE)
        return (int)(i / S->page % (uint64_t)S->D);
    for (int d = 0; d < S->D; d++)
        if (i >= S->hlo[d] && i < S->hhi[d])
            return d;
    return 0;
}

/* Set the home ranges of the workload's placement over the S->D domains. */
static void place(struct sim *S)
{
    double bpi = S->pf->bytes_per_iter;
    S->page = bpi > 0 && bpi < 4096 ? (uint64_t)(4096 / bpi) : 1;
    for (int d = 0; d < S->D; d++) {
        if (S->home == LF__SIM_HOME_NODE0) {
            S->hlo[d] = 0;
            S->hhi[d] = d == 0 ? S->n : 0;
        } else if (S->home == LF__SIM_HOME_BLOCKED) {
            /* n d / D without overflow: n < 2^64, D <= 64 */
            S->hlo[d] = S->n / (uint64_t)S->D * (uint64_t)d +
                        S->n % (uint64_t)S->D * (uint64_t)d / (uint64_t)S->D;
            S->hhi[d] = S->n / (uint64_t)S->D * (uint64_t)(d + 1) +
                        S->n % (uint64_t)S->D * (uint64_t)(d + 1) / (uint64_t)S->D;
        }
    }
}

/* Expected share of worker i's iterations that live on other domains, for
 * the staging costs a policy sees: with numa on, the part of its speed
 * share of the loop its own domain's range does not cover; otherwise the
 * part of the loop homed elsewhere. */
static double remote_share(const struct sim *S, int i, const double *dom_speed, double sum_speed)
{
    int d = S->pf->w[i].domain;
    if (S->n == 0)
        return 0.0;
    double held = (double)home_count(S, d, 0, S->n) / (double)S->n;
    if (!S->loc)
        return 1.0 - held;
    double f = 1.0 - held * sum_speed / dom_speed[d];
    return f > 0.0 ? f : 0.0;
}

double lf__sim_work_end(struct sim *S, int i, double t0, double work)
{
    const struct lf__sim_worker *w = &S->pf->w[i];
    if (w->nseg == 0)
        return t0 + work / w->speed;
    struct wsim *x = &S->ws[i];
    double t = t0;
    while (x->seg + 1 < w->nseg && w->prof[x->seg + 1].t <= t)
        x->seg++;
    for (;;) {
        double rate = w->speed * w->prof[x->seg].f;
        double seg_end = x->seg + 1 < w->nseg ? w->prof[x->seg + 1].t : INFINITY;
        if (rate > 0 && t + work / rate <= seg_end)
            return t + work / rate;
        if (rate > 0)
            work -= rate * (seg_end - t);
        t = seg_end;
        x->seg++; /* the last factor is > 0, so this ends */
    }
}

uint64_t lf__sim_to_ns(double s)
{
    double ns = s * 1e9;
    return ns < 1.0 ? 1 : ns > 1.8e19 ? UINT64_MAX : (uint64_t)llround(ns);
}

/* Serve a transfer of bytes for worker i on domain d's port from time t
 * (one at a time per port when the platform is one-port); returns its end. */
static double transfer(struct sim *S, int i, int d, double t, uint64_t iters, double bytes,
                       int staged)
{
    double xs = t;
    if (S->pf->staging == LF__SIM_STAGE_ONEPORT)
        xs = S->port[d] > t ? S->port[d] : t;
    double dur = lf__sim_link_time(&S->pf->w[i], xs, bytes, staged);
    if (S->pf->staging == LF__SIM_STAGE_ONEPORT)
        S->port[d] = xs + dur;
    S->res->port_busy += dur;
    if (staged)
        S->res->staged_bytes += bytes;
    else
        S->res->remote_bytes += bytes;
    if (S->o && S->o->on_xfer)
        S->o->on_xfer(S->o->ctx, &(struct lf__sim_xfer){.worker = i,
                                                        .home = d,
                                                        .start = xs,
                                                        .end = xs + dur,
                                                        .iters = iters,
                                                        .bytes = bytes,
                                                        .staged = staged});
    return xs + dur;
}

/* Domains: from time t, move what worker i's chunk [lo, lo+c) of home
 * domain home needs.  Staged (stage on, home not the worker's domain): the
 * whole chunk is copied once from home's memory, beta_i + c bytes/B_i
 * (seed 003 eq. (2)), as the runtime copies the chunk's span.  Otherwise
 * the iterations whose input lives on another domain d are read in place,
 * passes times: passes k bytes/B_i on d's port, one domain after the other.
 * Returns when the last transfer ends (t when nothing moves); *remote gets
 * the iterations not homed on the worker's domain, *staged 1 if copied. */
static double move_input(struct sim *S, int i, double t, uint64_t lo, uint64_t c, int home,
                         uint64_t *remote, int *staged)
{
    int me = S->pf->w[i].domain;
    double bpi = S->pf->bytes_per_iter;
    *remote = 0;
    for (int d = 0; d < S->D; d++)
        *remote += d == me ? 0 : home_count(S, d, lo, lo + c);
    *staged = S->stage && home >= 0 && home != me;
    if (*staged)
        return transfer(S, i, home, t, c, (double)c * bpi, 1);
    for (int d = 0; d < S->D && *remote; d++) {
        uint64_t k = d == me ? 0 : home_count(S, d, lo, lo + c);
        if (k)
            t = transfer(S, i, d, t, k, (double)k * bpi * (double)S->passes, 0);
    }
    return t;
}

/* Give worker i the chunk [lo, lo+c) at time t, taken from domain from's
 * range (-1: the shared counter): stage it, compute it (on two levels: its
 * team's sub-loop), and queue its completion, or on two levels the rank's
 * next claim.  0, or a sub-loop's error (message in err). */
static int start_chunk(struct sim *S, int i, double t, uint64_t lo, uint64_t c, int from, char *err,
                       size_t errlen)
{
    const struct lf__sim_worker *w = &S->pf->w[i];
    struct wsim *x = &S->ws[i];
    double ts = t + S->claim_s, te, tc; /* staging done; compute (or remote reads) begins */
    uint64_t remote = 0;
    int staged = 0, home = -1;
    if (S->D > 0) {
        if (S->homed)
            home = from >= 0 ? from : home_of(S, lo);
        /* Unstaged remote reads are part of the compute the worker times. */
        tc = move_input(S, i, ts, lo, c, home, &remote, &staged);
        te = staged ? tc : ts;
    } else {
        if (S->pf->staging == LF__SIM_STAGE_ONEPORT && S->port_free > ts)
            ts = S->port_free; /* seed 003 §3.2: the master sends one chunk at a time */
        /* seed 003 eq. (2): Tcomm = beta + size/B (B in bytes/s here) */
        te = tc = ts + lf__sim_link_time(w, ts, (double)c * S->pf->bytes_per_iter, 1);
        if (S->pf->staging == LF__SIM_STAGE_ONEPORT)
            S->port_free = te;
    }
    /* seed 003 eq. (1): Tcomp = alpha + size/S, with size in units of work */
    double end, next;
    if (S->teams) {
        int rc = lf__sim_team_chunk(S, i, tc + w->latency, lo, c, &end, &next, err, errlen);
        if (rc)
            return rc;
    } else {
        end = next = lf__sim_work_end(S, i, tc + w->latency,
                                      lf__sim_work(S->wl, S->base + lo, S->base + lo + c));
    }
    /* Like the dispatcher: the phase at claim time decides the calib flag. */
    x->cur = (struct lf__sim_chunk){.worker = i,
                                    .calib = S->calibrating,
                                    .seq = x->seq++,
                                    .start = t,
                                    .stage_end = te,
                                    .end = end,
                                    .lo = lo,
                                    .size = c,
                                    .order = S->order++,
                                    .remote = remote,
                                    .home = home,
                                    .staged = staged};
    x->state = W_BUSY;
    lf__exec_chunk_begin(&S->ex, i, (t - S->origin) * 1e9, c);
    /* On two levels the rank hears of its chunk when it claims again (its
     * first thread out), which is the chunk's end for a team of one. */
    lf__sim_heap_push(&S->h, (struct ev){.t = next, .w = i});
    return 0;
}

/* Worker i's calibration is in (seed 000 §3.1, times only): the model's
 * availability is 1, its latency the staging latency, its performance
 * figure its speed relative to the fastest. */
void lf__sim_calib_report(struct sim *S, int i)
{
    lf__exec_calib_report(&S->ex, i, 1.0, lf__word_getd(&S->view.w[i].stage_lat_ns),
                          S->pf->w[i].speed / S->max_speed);
    S->ws[i].cal_pending = 0;
    S->nreported++;
}

int lf__sim_calib_done(struct sim *S, double t)
{
    if (!S->calibrating || S->nreported != S->view.nworkers)
        return 0;
    S->calibrating = 0;
    S->res->calib_end = t;
    lf__exec_calib_end(&S->ex, S->left);
    return 1;
}

void lf__sim_window(struct sim *S, double t0, double t1)
{
    double a = S->o ? S->o->win_start : 0, b = S->o ? S->o->win_end : 0;
    if (b > a && t1 > a && t0 < b)
        S->res->window_eff += (t1 < b ? t1 : b) - (t0 > a ? t0 : a);
}

void lf__sim_record(struct sim *S, int i, const struct lf__sim_chunk *c, double busy_s,
                    double useful_s)
{
    struct lf__sim_wres *r = &S->res->w[i];
    r->busy += busy_s;
    r->useful += useful_s;
    r->stage += c->stage_end - c->start;
    r->end = c->end;
    r->chunks++;
    r->iters += c->size;
    r->calib_chunks += (uint64_t)c->calib;
    r->remote_iters += c->remote;
    r->staged_iters += c->staged ? c->size : 0;
    S->res->remote_iters += c->remote;
    S->res->staged_iters += c->staged ? c->size : 0;
    S->res->chunks++;
    S->res->calib_chunks += (uint64_t)c->calib;
    if (c->end > S->res->makespan)
        S->res->makespan = c->end;
    if (S->o && S->o->on_chunk)
        S->o->on_chunk(S->o->ctx, c);
}

/* Worker i's chunk ends at t: record it as the dispatcher would. */
static void complete(struct sim *S, int i, double t)
{
    struct wsim *x = &S->ws[i];
    struct lf__sim_chunk *c = &x->cur;
    double busy_s = c->end - c->stage_end, lat = S->pf->w[i].latency;
    uint64_t busy = lf__sim_to_ns(busy_s), total = lf__sim_to_ns(c->end - x->prev_end);
    if (total < busy)
        total = busy;
    /* An untimed execution's chunks are nobody's measurement (the policy
     * never started). */
    int reported = !S->fixed && lf__exec_chunk_done(&S->ex, i, c->size, busy, total, c->calib,
                                                    S->calibrating && x->cal_pending, &x->cal_size);
    lf__exec_loc_chunk_done(&x->times, c->home, S->pf->w[i].domain, c->staged, (double)busy,
                            (double)c->size);
    double u0 = c->stage_end + lat < c->end ? c->stage_end + lat : c->end;
    lf__sim_window(S, u0, c->end);
    lf__sim_record(S, i, c, busy_s, c->end - u0);
    x->prev_end = t;
    x->state = W_IDLE;
    if (reported)
        lf__sim_calib_report(S, i);
    if (lf__sim_calib_done(S, t) && S->sched->cal_paper) {
        /* Everyone waited: the whole team claims now, in index order
         * (the heap's tie rule), this worker included. */
        x->state = W_WAIT;
        for (int j = 0; j < S->view.nworkers; j++)
            if (S->ws[j].state == W_WAIT) {
                S->ws[j].state = W_READY;
                lf__sim_heap_push(&S->h, (struct ev){.t = t, .w = j});
            }
    }
}

int lf__sim_partition(struct sim *S, int i, uint64_t *lo, uint64_t *c, char *err, size_t errlen)
{
    struct wsim *x = &S->ws[i];
    *c = S->pol->partition(S->pstate, &S->view, i, x->k++, lo);
    if (*c == 0)
        return 0;
    if (*lo >= S->n || *c > S->n - *lo || *c > S->n - S->static_sum) {
        snprintf(err, errlen,
                 "%s: partition gave worker %d chunk %llu = [%llu, +%llu) outside [0, %llu) "
                 "or beyond the trip count in all",
                 S->pol->name, i, (unsigned long long)(x->k - 1), (unsigned long long)*lo,
                 (unsigned long long)*c, (unsigned long long)S->n);
        return -EPROTO;
    }
    S->static_sum += *c;
    return 1;
}

/* Worker i is idle at t: claim its next chunk, wait, or stop. */
static int claim(struct sim *S, int i, double t, char *err, size_t errlen)
{
    struct wsim *x = &S->ws[i];
    uint64_t lo, c;
    if (S->pol->flags & LF__P_STATIC) {
        int rc = lf__sim_partition(S, i, &lo, &c, err, errlen);
        if (rc < 0)
            return rc;
        if (rc == 0) {
            x->state = W_DONE;
            S->active--;
            S->res->w[i].left = t;
            return 0;
        }
        return start_chunk(S, i, t, lo, c, -1, err, errlen);
    }
    uint64_t r = S->left;
    if (r == 0) {
        x->state = W_DONE;
        S->active--;
        S->res->w[i].left = t;
        return 0;
    }
    if (S->calibrating) {
        if (!x->cal_pending && S->sched->cal_paper) {
            x->state = W_WAIT; /* seed 000: the team waits for the last report */
            return 0;
        }
        c = lf__exec_calib_size(&S->ex, x->cal_size, r);
    } else if (S->fixed) {
        c = S->fixed < r ? S->fixed : r;
    } else {
        c = lf__exec_claim_size(&S->ex, i, r, (t - S->origin) * 1e9);
        if (c == 0 && S->active > 1) {
            /* The policy says the others finish the rest no later. */
            lf__exec_worker_gone(&S->ex, i);
            x->state = W_DONE;
            S->active--;
            S->res->w[i].left = t;
            return 0;
        }
        c = lf__exec_clip(&S->ex, c, r);
    }
    int from = -1;
    if (S->loc) {
        /* The same pick and chunk rules as the dispatcher's domain claim. */
        int me = S->pf->w[i].domain;
        from = lf__loc_pick(S->rem, S->D, me);
        c = lf__exec_domain_chunk(c, me, from, S->rem[from], S->owners[from], S->view.nworkers,
                                  S->D, &x->times, S->stage);
        lo = S->hhi[from] - S->rem[from];
        S->rem[from] -= c;
    } else {
        lo = S->next;
        S->next += c;
    }
    S->left -= c;
    return start_chunk(S, i, t, lo, c, from, err, errlen);
}

int lf__sim_run(const struct lf__sim_platform *pf, const struct lf__sched *s,
                const struct lf__sim_workload *wl, const struct lf__sim_opts *o,
                struct lf__sim_result *res, char *err, size_t errlen)
{
    int P = pf->nworkers, rc = 0;
    struct sim S = {0};
    struct lf__psum psum = {0};
    memset(res, 0, sizeof *res);
    if (P <= 0 || !s->pol) {
        snprintf(err, errlen, "no workers, or no schedule");
        return -EINVAL;
    }
    if (pf->ndom < 0 || pf->ndom > LF__SIM_MAXDOM) {
        snprintf(err, errlen, "%d NUMA domains: expected 0 to %d", pf->ndom, LF__SIM_MAXDOM);
        return -EINVAL;
    }
    for (int i = 0; i < P && pf->ndom > 0; i++)
        if (pf->w[i].domain < 0 || pf->w[i].domain >= pf->ndom) {
            snprintf(err, errlen, "worker %d: domain %d outside 0..%d", i, pf->w[i].domain,
                     pf->ndom - 1);
            return -EINVAL;
        }
    int push = o && o->protocol == LF__SIM_PUSH;
    if (pf->teams && (push || pf->ndom > 0 || !o || !o->node || !o->node->pol)) {
        snprintf(err, errlen,
                 "ranks of threads need the pull protocol, no NUMA domains and a node "
                 "schedule");
        return -EINVAL;
    }
    if (o && o->known && o->mem) {
        snprintf(err, errlen, "known costs and a call site's memory exclude each other");
        return -EINVAL;
    }
    if (push && pf->ndom > 0) {
        snprintf(err, errlen,
                 "the push protocol models one master without NUMA domains; use "
                 "the pull protocol on a platform with domains");
        return -EINVAL;
    }
    if (push && (o->inflight < 0 || o->inflight > LF__SIM_MAX_INFLIGHT || !(o->split >= 0) ||
                 o->split >= 1 || o->order < 0 || o->order > LF__SIM_FIRST_READY)) {
        snprintf(err, errlen,
                 "push: inflight 1 to %d, split 0 (whole chunks) or in (0, 1), order "
                 "round-robin or first-ready",
                 LF__SIM_MAX_INFLIGHT);
        return -EINVAL;
    }
    res->nworkers = P;
    res->tasks = wl->span ? wl->span : wl->tasks;
    res->calib_end = -1;
    S.pf = pf;
    S.pol = s->pol;
    S.sched = s;
    S.wl = wl;
    S.o = o;
    S.res = res;
    S.n = S.left = wl->span ? wl->span : wl->tasks;
    S.base = wl->span ? wl->base : 0;
    S.origin = o ? o->origin : 0;
    S.claim_s = o ? o->claim_ns * 1e-9 : 0;
    S.D = pf->ndom;
    S.home = wl->home;
    S.passes = wl->passes ? wl->passes : 1;
    if (S.D > 0)
        place(&S);
    /* The runtime learns a blocked home only, and stages only a loop that
     * declares inputs (bytes_per_iter > 0 here). */
    S.homed = S.D >= 2 && S.n > 0 && S.home != LF__SIM_HOME_INTERLEAVE;
    struct lf__loc_modes modes = lf__exec_loc_modes(s, S.homed, pf->bytes_per_iter > 0);
    S.loc = modes.loc;
    S.stage = modes.staging;
    res->ndom = S.D;
    res->numa = S.homed && s->numa; /* the key in force (a static partition ignores it) */
    res->stage = S.stage;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8];
    S.pstate = pstate; /* lf__exec_start copies the template: it stays untouched */
    res->w = calloc((size_t)P, sizeof *res->w);
    S.ws = calloc((size_t)P, sizeof *S.ws);
    int inflight = push ? (o->inflight ? o->inflight : 2) : 0;
    S.cap = inflight + 1;
    /* Push: each worker has at most one compute event and S.cap result
     * arrivals queued, the master one port event. */
    S.h.a = malloc((size_t)P * (size_t)(push ? 2 * S.cap + 2 : 1) * sizeof *S.h.a + sizeof *S.h.a);
    if (push) {
        S.ready.a = malloc((size_t)P * 2 * sizeof *S.ready.a);
        S.rings = calloc((size_t)P * (size_t)S.cap, sizeof *S.rings);
    }
    S.view.w = aligned_alloc(_Alignof(struct lf__wstat), (size_t)P * sizeof *S.view.w);
    if (!res->w || !S.ws || !S.h.a || !S.view.w || (push && (!S.ready.a || !S.rings))) {
        snprintf(err, errlen, "out of memory for %d workers", P);
        rc = -ENOMEM;
        goto out;
    }
    memset(S.view.w, 0, (size_t)P * sizeof *S.view.w);
    S.view.n = S.n;
    S.view.nworkers = P;
    S.view.claim_ns = o ? o->claim_ns : 0;
    S.view.calibrated_from_memory = 0;
    S.view.one_port = pf->staging == LF__SIM_STAGE_ONEPORT && (S.D == 0 || S.stage);
    if (push) {
        S.view.one_port = 1; /* the master sends one message at a time */
        S.view.split = o->split;
        S.view.overlap = inflight >= 2 || o->split > 0;
    }
    S.active = P;
    double sum_speed = 0, dom_speed[LF__SIM_MAXDOM] = {0};
    for (int i = 0; i < P; i++) {
        sum_speed += pf->w[i].speed;
        if (S.D > 0) {
            dom_speed[pf->w[i].domain] += pf->w[i].speed;
            S.owners[pf->w[i].domain]++;
        }
    }
    for (int d = 0; d < S.D && S.loc; d++)
        S.rem[d] = S.hhi[d] - S.hlo[d];
    for (int i = 0; i < P; i++) {
        if (pf->w[i].speed > S.max_speed)
            S.max_speed = pf->w[i].speed;
        /* The model's affine costs are known estimates (seed 003 §3).  With
         * domains, staging costs are those of the worker's expected remote
         * share, and only when it stages (unstaged, they are compute). */
        double share = S.D == 0 ? 1.0 : S.stage ? remote_share(&S, i, dom_speed, sum_speed) : 0.0;
        lf__word_putd(&S.view.w[i].comp_lat_ns, pf->w[i].latency * 1e9);
        lf__word_putd(&S.view.w[i].stage_lat_ns, share * pf->w[i].stage_lat * 1e9);
        if (pf->w[i].bandwidth > 0)
            lf__word_putd(&S.view.w[i].stage_ns_per_iter,
                          share * pf->bytes_per_iter / pf->w[i].bandwidth * 1e9);
        S.ws[i].cal_size = 1;
        S.ws[i].cal_pending = 1;
        res->w[i].left = -1;
        S.ws[i].prev_end = S.ws[i].prev_note = pf->w[i].start;
        S.ws[i].ring = S.rings ? S.rings + (size_t)i * (size_t)S.cap : NULL;
        /* A worker arrives at its start time (0: loop entry, in index order). */
        lf__sim_heap_push(&S.h, (struct ev){.t = pf->w[i].start, .w = i});
    }
    S.ex = (struct lf__exec){.sched = s, .pstate = S.pstate, .view = &S.view};
    /* One worker at a time: keep the policy's team sums (O(1) chunks). */
    if (lf__exec_psum_wanted(s, P)) {
        psum.per = malloc((size_t)P * LF__PSUMS * sizeof *psum.per);
        if (!psum.per) {
            snprintf(err, errlen, "out of memory for %d workers", P);
            rc = -ENOMEM;
            goto out;
        }
        S.ex.psum = &psum;
    }
    /* --known: the model's costs stand in for calibration, through the
     * executor's call-site memory. */
    struct lf__site_mem mem = {0};
    if (o && o->known) {
        mem.ipt = malloc((size_t)P * sizeof *mem.ipt);
        mem.cal = calloc((size_t)P, sizeof *mem.cal);
        mem.cost = malloc((size_t)P * sizeof *mem.cost);
        if (!mem.ipt || !mem.cal || !mem.cost) {
            free(mem.ipt);
            free(mem.cal);
            free(mem.cost);
            snprintf(err, errlen, "out of memory for %d workers", P);
            rc = -ENOMEM;
            goto out;
        }
        for (int i = 0; i < P; i++) {
            mem.ipt[i] = 1e9 / pf->w[i].speed; /* ns per unit of work */
            mem.cost[i][0] = lf__word_getd(&S.view.w[i].comp_lat_ns);
            mem.cost[i][1] = lf__word_getd(&S.view.w[i].stage_lat_ns);
            mem.cost[i][2] = lf__word_getd(&S.view.w[i].stage_ns_per_iter);
        }
        mem.valid = 1;
    }
    /* A call site's memory also gives each worker's first calibration
     * chunk, as the dispatcher's does. */
    uint64_t *cal0 = o && o->mem ? malloc((size_t)P * sizeof *cal0) : NULL;
    if (o && o->mem && !cal0) {
        snprintf(err, errlen, "out of memory for %d workers", P);
        rc = -ENOMEM;
        goto out;
    }
    /* At a call site with a memory, an execution runs the plan the
     * dispatcher's would (lf__exec_plan): a tiny, serial or self-scheduled one
     * untimed, in fixed chunks from the counter (the split blocks that the
     * dispatcher gives a self-scheduled execution's workers are not
     * modelled: they change which iterations a worker computes, not its
     * claims), the loop's own schedule (guided: a sub-loop has no program's
     * own) without the memory, and its virtual makespan booked to its plan
     * at the end. */
    struct lf__plan plan = {.kind = LF__PLAN_DEALT, .sched = s};
    if (o && o->mem && !push && !S.loc) {
        struct lf__plan_in in = {.sched = s, .workers = P, .n = S.n};
        plan = lf__exec_plan(&in, o->mem);
        if (plan.kind == LF__PLAN_SELF || plan.kind == LF__PLAN_SERIAL ||
            plan.kind == LF__PLAN_TINY)
            S.fixed = plan.chunk;
        if (plan.sched != s) { /* the plan's policy, started afresh, keeps no team sums */
            S.ex.sched = plan.sched;
            S.ex.psum = NULL;
        }
    }
    res->plan = plan.kind;
    struct lf__site_mem *site = o && o->known ? &mem : o && plan.learns ? o->mem : NULL;
    S.calibrating = !S.fixed && lf__exec_start(&S.ex, site, cal0);
    for (int i = 0; cal0 && !S.fixed && i < P; i++)
        S.ws[i].cal_size = cal0[i];
    free(cal0);
    free(mem.ipt);
    free(mem.cal);
    free(mem.cost);
    if (pf->teams && (rc = lf__sim_teams_init(&S, err, errlen)) != 0)
        goto out;
    if (push) {
        rc = lf__sim_push_run(&S, err, errlen);
        if (rc)
            goto out;
    }
    while (!push && S.h.n) {
        struct ev e = lf__sim_heap_pop(&S.h);
        res->events++;
        struct wsim *x = &S.ws[e.w];
        /* W_IDLE at loop entry; W_READY when released from the paper's wait */
        int claims = x->state == W_IDLE || x->state == W_READY;
        if (x->state == W_BUSY) {
            complete(&S, e.w, e.t);
            claims = x->state == W_IDLE; /* not if it now waits or was released */
        }
        if (claims && (rc = claim(&S, e.w, e.t, err, errlen)) != 0)
            goto out;
    }
    if ((S.pol->flags & LF__P_STATIC) && S.static_sum != S.n) {
        snprintf(err, errlen, "%s: partition handed out %llu of %llu iterations", S.pol->name,
                 (unsigned long long)S.static_sum, (unsigned long long)S.n);
        rc = -EPROTO;
        goto out;
    }
    if (o && o->mem && plan.learns) {
        double drift;
        (void)lf__exec_mem_end(&S.ex, o->mem, &drift);
    }
    if (o && o->mem)
        lf__exec_plan_book(o->mem, &plan, (res->makespan - S.origin) * 1e9, S.n);
    res->total_work = wl->span ? lf__sim_work(wl, S.base, S.base + S.n) : wl->total;
    res->ideal = sum_speed > 0 ? res->total_work / sum_speed : 0;
    res->efficiency = res->makespan > 0 ? res->ideal / res->makespan : 1.0;
    double useful = 0, units = 0;
    for (int i = 0; i < P; i++) {
        useful += S.teams ? res->w[i].tuseful : res->w[i].useful;
        units += S.teams ? pf->w[i].threads : 1;
    }
    res->cpu_eff = res->makespan > 0 ? useful / (units * res->makespan) : 1.0;
    if (o && o->win_end > o->win_start)
        res->window_eff /= (double)P * (o->win_end - o->win_start);
out:
    lf__sim_teams_free(&S);
    free(psum.per);
    free(S.ws);
    free(S.h.a);
    free(S.ready.a);
    free(S.rings);
    free(S.view.w);
    if (rc) {
        free(res->w);
        res->w = NULL;
    }
    return rc;
}

void lf__sim_result_free(struct lf__sim_result *res)
{
    free(res->w);
    res->w = NULL;
}
