/* lib/sim/push.c - lf-sim's push protocol: a master that sends chunks to
 * the workers over one port while they compute, and hears back from them
 * over a second one (the model of seeds 001-004).
 *
 * The master serves one worker at a time through its send port: in strict
 * round-robin order (it waits for the worker whose turn it is), or to
 * whichever worker could take a chunk first.  A worker may take a chunk
 * while it holds fewer than `inflight` messages sent and not yet reported
 * back, so the next one travels while the current one computes (seed 003's
 * overlap); during calibration it holds one.  A chunk goes whole, or as two
 * sub-chunks sent back to back (Millot & Parrot, "Some tests of adaptivity
 * for the AS4DR scheduler", ICPPW 2012, seed 001, eqs. 2-3).  A worker
 * computes its pieces in the order they arrive.  When a piece is computed
 * its result, results times its input bytes (Beaumont & Rosenberg's
 * delta, seed 002), goes back through the receive port, first come first
 * served, after the link's latency; the master learns of the piece when
 * its result arrives (at once when there are no result messages).
 *
 * The policy is told of a chunk when the master learns of its first piece:
 * for a whole chunk its compute time, for a split one seed 001's eq. 4,
 * (C1 - f)/theta + 2f from the first sub-chunk's compute time C1, with f
 * the compute latency.  So the next chunk can be sized and sent while the
 * second sub-chunk computes, as in seed 001's Fig. 1.  The period the
 * statistics record is the time between two such reports.
 *
 * The chunk sizes, stops, calibration steps and the phase switch are the
 * executor protocol's (lib/exec/), as in the pull engine; only who moves
 * first differs.  A policy's stop retires the worker; in round-robin a
 * worker that cannot take a chunk yet holds the master up: the wait for a
 * turn that the pull protocol cannot express.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim/engine.h"

/* Event kinds, in the order they run at equal times: computes end, then the
 * master hears of results, workers join, and the send port frees. */
enum { K_COMPUTE, K_NOTIFY, K_JOIN, K_PORT };

static struct pchunk *ring_at(const struct sim *S, const struct wsim *x, int k)
{
    return &x->ring[(x->rhead + k) % S->cap];
}

/* Seconds to move bytes over worker i's link from t: its latency, then the
 * bytes at its bandwidth under its link profile. */
static double link_time(const struct sim *S, int i, double t, double bytes)
{
    return lf__sim_link_time(&S->pf->w[i], t, bytes, 1);
}

/* Whether worker i waits for the team's calibration (cal=paper). */
static int waits_for_team(const struct sim *S, int i)
{
    return S->calibrating && S->sched->cal_paper && !S->ws[i].cal_pending;
}

/* Whether the master may send worker i a chunk at t. */
static int eligible(const struct sim *S, int i, double t)
{
    const struct wsim *x = &S->ws[i];
    if (x->gone || t < S->pf->w[i].start || waits_for_team(S, i))
        return 0;
    return x->outstanding < (S->calibrating ? 1 : S->cap - 1);
}

/* First-ready: queue worker i at t if it may take a chunk and is not
 * queued yet. */
static void mark_ready(struct sim *S, int i, double t)
{
    struct wsim *x = &S->ws[i];
    if (S->o->order != LF__SIM_FIRST_READY || x->in_ready || !eligible(S, i, t))
        return;
    x->in_ready = 1;
    x->ready_t = t;
    lf__sim_heap_push(&S->ready, (struct ev){.t = t, .w = i});
}

/* The worker the master serves next at t, or -1 when it must wait. */
static int pick(struct sim *S, double t)
{
    int P = S->view.nworkers;
    if (S->o->order == LF__SIM_FIRST_READY) {
        while (S->ready.n) {
            struct ev e = lf__sim_heap_pop(&S->ready);
            S->ws[e.w].in_ready = 0;
            if (eligible(S, e.w, t))
                return e.w;
        }
        return -1;
    }
    for (int k = 0; k < P; k++) {
        int i = S->rr;
        if (S->ws[i].gone || waits_for_team(S, i)) {
            S->rr = (S->rr + 1) % P;
            continue;
        }
        if (!eligible(S, i, t))
            return -1; /* strict round-robin: wait for i's turn */
        S->rr = (S->rr + 1) % P;
        return i;
    }
    return -1;
}

static void retire(struct sim *S, int i)
{
    S->ws[i].gone = 1;
    S->active--;
}

/* Worker i is idle at t: start its next piece when it has one (when the
 * piece has arrived). */
static void compute_next(struct sim *S, int i, double t)
{
    struct wsim *x = &S->ws[i];
    if (x->computing || x->ccur >= x->rcount)
        return;
    struct pchunk *ch = ring_at(S, x, x->ccur);
    int p = ch->computed;
    uint64_t lo = ch->lo + (p ? ch->size1 : 0), sz = p ? ch->size - ch->size1 : ch->size1;
    x->cstart = t > ch->arrive[p] ? t : ch->arrive[p];
    /* seed 003 eq. (1): alpha + size / S, under the speed profile */
    double end =
        lf__sim_work_end(S, i, x->cstart + S->pf->w[i].latency, lf__sim_work(S->wl, lo, lo + sz));
    x->computing = 1;
    lf__sim_heap_push(&S->h, (struct ev){.t = end, .kind = K_COMPUTE, .w = i});
}

/* Send worker i its next chunk at t.  Returns 1 when a chunk went out, 0
 * when the worker was retired instead (nothing left, or the policy stopped
 * it), -EPROTO for a static partition out of range. */
static int send(struct sim *S, int i, double t, char *err, size_t errlen)
{
    struct wsim *x = &S->ws[i];
    uint64_t lo, c, r = S->left;
    int calib = S->calibrating;
    if (S->pol->flags & LF__P_STATIC) {
        int rc = lf__sim_partition(S, i, &lo, &c, err, errlen);
        if (rc <= 0) {
            if (rc == 0)
                retire(S, i);
            return rc;
        }
    } else {
        if (r == 0) {
            retire(S, i);
            return 0;
        }
        if (calib) {
            c = lf__exec_calib_size(&S->ex, x->cal_size, r);
        } else {
            c = lf__exec_claim_size(&S->ex, i, r, t * 1e9);
            if (c == 0 && S->active > 1) {
                lf__exec_worker_gone(&S->ex, i); /* the others finish the rest no later */
                retire(S, i);
                return 0;
            }
            c = lf__exec_clip(&S->ex, c, r);
        }
        lo = S->next;
        S->next += c;
        S->left -= c;
    }
    /* seed 001 eqs. (2)-(3): theta c, then the rest (calibration chunks whole) */
    uint64_t c1 = c;
    if (S->o->split > 0 && !calib && c >= 2) {
        double a = nearbyint(S->o->split * (double)c);
        c1 = a < 1 ? 1 : a > (double)(c - 1) ? c - 1 : (uint64_t)a;
    }
    struct pchunk *ch = ring_at(S, x, x->rcount++);
    *ch = (struct pchunk){.lo = lo,
                          .size = c,
                          .size1 = c1,
                          .seq = x->seq++,
                          .order = S->order++,
                          .calib = calib,
                          .npieces = c1 < c ? 2 : 1,
                          .sent = t};
    double bpi = S->pf->bytes_per_iter, d = link_time(S, i, t + S->claim_s, (double)c1 * bpi);
    ch->arrive[0] = t + S->claim_s + d;
    S->res->send_busy += d;
    if (ch->npieces == 2) {
        double d2 = link_time(S, i, ch->arrive[0], (double)(c - c1) * bpi);
        ch->arrive[1] = ch->arrive[0] + d2;
        S->res->send_busy += d2;
    }
    S->sport = ch->arrive[ch->npieces - 1];
    x->outstanding += ch->npieces;
    lf__exec_chunk_begin(&S->ex, i, t * 1e9, c);
    if (S->sport > t) /* else try_send goes on serving at t */
        lf__sim_heap_push(&S->h, (struct ev){.t = S->sport, .kind = K_PORT, .w = S->view.nworkers});
    compute_next(S, i, t);
    return 1;
}

/* While the send port is free at t, serve the next worker. */
static int try_send(struct sim *S, double t, char *err, size_t errlen)
{
    while (S->sport <= t) {
        int i = pick(S, t);
        if (i < 0)
            return 0;
        int rc = send(S, i, t, err, errlen);
        if (rc < 0)
            return rc;
        mark_ready(S, i, t);
    }
    return 0;
}

/* The master hears at t of worker i's chunk ch through its first piece:
 * the policy's feedback and, during calibration, its steps. */
static void feedback(struct sim *S, int i, const struct pchunk *ch, double t)
{
    struct wsim *x = &S->ws[i];
    double f = S->pf->w[i].latency, busy_s = ch->busy;
    if (ch->npieces == 2) /* seed 001 eq. (4): the whole chunk's compute, extrapolated */
        busy_s = (ch->busy1 - f) * (double)ch->size / (double)ch->size1 + 2.0 * f;
    uint64_t busy = lf__sim_to_ns(busy_s), total = lf__sim_to_ns(t - x->prev_note);
    if (total < busy)
        total = busy;
    x->prev_note = t;
    if (lf__exec_chunk_done(&S->ex, i, ch->size, busy, total, ch->calib,
                            S->calibrating && x->cal_pending, &x->cal_size))
        lf__sim_calib_report(S, i);
    if (lf__sim_calib_done(S, t))
        for (int j = 0; j < S->view.nworkers; j++)
            mark_ready(S, j, t);
}

/* The master hears at t of worker i's oldest piece not yet reported. */
static int notify(struct sim *S, int i, double t, char *err, size_t errlen)
{
    struct wsim *x = &S->ws[i];
    struct pchunk *ch = ring_at(S, x, 0);
    if (ch->notified++ == 0)
        feedback(S, i, ch, t);
    x->outstanding--;
    if (ch->notified == ch->npieces) {
        struct lf__sim_chunk c = {.worker = i,
                                  .calib = ch->calib,
                                  .seq = ch->seq,
                                  .start = ch->sent,
                                  .stage_end = ch->arrive[0],
                                  .end = ch->end,
                                  .lo = ch->lo,
                                  .size = ch->size,
                                  .order = ch->order,
                                  .home = -1};
        double f = S->pf->w[i].latency * ch->npieces;
        lf__sim_record(S, i, &c, ch->busy, ch->busy > f ? ch->busy - f : 0.0);
        x->rhead = (x->rhead + 1) % S->cap;
        x->rcount--;
        x->ccur--;
    }
    if (t > S->res->makespan)
        S->res->makespan = t; /* the last result is in */
    mark_ready(S, i, t);
    return try_send(S, t, err, errlen);
}

/* Worker i's piece ends computing at t. */
static int computed(struct sim *S, int i, double t, char *err, size_t errlen)
{
    struct wsim *x = &S->ws[i];
    struct pchunk *ch = ring_at(S, x, x->ccur);
    int p = ch->computed;
    double busy = t - x->cstart, lat = S->pf->w[i].latency;
    uint64_t sz = p ? ch->size - ch->size1 : ch->size1;
    ch->busy += busy;
    if (p == 0)
        ch->busy1 = busy;
    lf__sim_window(S, x->cstart + lat < t ? x->cstart + lat : t, t);
    ch->end = t;
    if (++ch->computed == ch->npieces)
        x->ccur++;
    x->computing = 0;
    compute_next(S, i, t);
    if (S->o->results < 0)
        return notify(S, i, t, err, errlen);
    /* seed 002: a result of delta times the input, through the receive port */
    double rs = S->rport > t ? S->rport : t;
    double d = link_time(S, i, rs, S->o->results * (double)sz * S->pf->bytes_per_iter);
    S->rport = rs + d;
    S->res->recv_busy += d;
    lf__sim_heap_push(&S->h, (struct ev){.t = S->rport, .kind = K_NOTIFY, .w = i});
    return 0;
}

int lf__sim_push_run(struct sim *S, char *err, size_t errlen)
{
    int P = S->view.nworkers, rc = 0;
    S->h.n = 0;
    for (int i = 0; i < P; i++)
        lf__sim_heap_push(&S->h, (struct ev){.t = S->pf->w[i].start, .kind = K_JOIN, .w = i});
    while (S->h.n && rc == 0) {
        struct ev e = lf__sim_heap_pop(&S->h);
        S->res->events++;
        switch (e.kind) {
        case K_COMPUTE:
            rc = computed(S, e.w, e.t, err, errlen);
            break;
        case K_NOTIFY:
            rc = notify(S, e.w, e.t, err, errlen);
            break;
        case K_JOIN:
            mark_ready(S, e.w, e.t);
            rc = try_send(S, e.t, err, errlen);
            break;
        default:
            rc = try_send(S, e.t, err, errlen);
            break;
        }
    }
    if (rc == 0 && S->left > 0 && !(S->pol->flags & LF__P_STATIC)) {
        snprintf(err, errlen, "push: the master stopped with %llu iterations unsent",
                 (unsigned long long)S->left);
        rc = -EPROTO;
    }
    return rc;
}
