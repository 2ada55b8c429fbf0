/* lib/dispatch/loop.c - entry, chunk claim, calibration and exit of a team's loops. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "platform/clock.h"
#include "platform/platform.h"

/* Spin politely; after a while give the core away, since a waiting member
 * may be keeping the one it waits for off the CPU. */
static void backoff(unsigned *spins)
{
    if (++*spins < 64)
        lf__cpu_relax();
    else
        sched_yield();
}

unsigned long lf_trip_count(long lo, long hi, long incr, int *ok)
{
    if (ok)
        *ok = incr != 0;
    if (incr > 0)
        return lo < hi ? ((unsigned long)hi - (unsigned long)lo - 1) / (unsigned long)incr + 1 : 0;
    if (incr < 0)
        return lo > hi ? ((unsigned long)lo - (unsigned long)hi - 1) / (0UL - (unsigned long)incr) + 1
                       : 0;
    return 0;
}

/* Cost of one claim on an uncontended line: a first guess until the loop has
 * measured its own. */
static double estimate_claim_ns(void)
{
    lf__au64 word = 0;
    uint64_t t0 = lf__ticks();
    for (int i = 0; i < 256; i++) {
        uint64_t cur = lf__load_relaxed(&word);
        while (!lf__cas_weak_relaxed(&word, &cur, cur + 1))
            ;
        (void)lf__ticks();
    }
    return (double)lf__ticks_to_ns(lf__ticks() - t0) / 256.0;
}

int lf_loop_create(lf_loop **out, int nthreads, const lf_schedule *s, const char *name)
{
    if (!out || nthreads < 1)
        return -EINVAL;
    lf__clock_init();
    (void)lf__topo(); /* load the topology now, not inside a loop's calibration */
    size_t bytes = sizeof(struct lf_loop) + (size_t)nthreads * sizeof(struct lf__thr);
    struct lf_loop *l = aligned_alloc(LF__CACHELINE, bytes);
    if (!l)
        return -ENOMEM;
    memset(l, 0, bytes);
    pthread_mutex_init(&l->mem_lock, NULL);
    l->P = nthreads;
    l->ndom_max = lf_numa_count();
    if (l->ndom_max > LF__MAXDOM)
        l->ndom_max = LF__MAXDOM;
    l->sched = (s ? s : lf_schedule_default())->s;
    snprintf(l->name, sizeof l->name, "%s", name ? name : "loop");
    l->tracing = lf__trace_enabled();
    size_t P = (size_t)nthreads;
    l->wmem = aligned_alloc(LF__CACHELINE, LF__RING * P * sizeof *l->wmem);
    l->mem_ipt = calloc(P, sizeof *l->mem_ipt);
    l->mem_cal = calloc(P, sizeof *l->mem_cal);
    l->mem_cost = calloc(P, sizeof *l->mem_cost);
    if (!l->wmem || !l->mem_ipt || !l->mem_cal || !l->mem_cost) {
        lf_loop_destroy(l);
        return -ENOMEM;
    }
    memset(l->wmem, 0, LF__RING * P * sizeof *l->wmem);
    for (int r = 0; r < LF__RING; r++) {
        struct lf__slot *sl = &l->ring[r];
        atomic_init(&sl->state, ((uint64_t)r << 2) | LF__SLOT_FREE);
        sl->view.w = l->wmem + (size_t)r * P;
        sl->view.nworkers = nthreads;
        sl->cal0 = calloc(P, sizeof *sl->cal0);
        if (!sl->cal0) {
            lf_loop_destroy(l);
            return -ENOMEM;
        }
        if (l->ndom_max >= 2) {
            /* Domain ranges: only a machine with several domains uses them. */
            sl->dom = aligned_alloc(LF__CACHELINE, (size_t)l->ndom_max * sizeof *sl->dom);
            if (!sl->dom) {
                lf_loop_destroy(l);
                return -ENOMEM;
            }
            memset(sl->dom, 0, (size_t)l->ndom_max * sizeof *sl->dom);
        }
        if (l->tracing) {
            sl->trace = aligned_alloc(LF__CACHELINE, P * sizeof *sl->trace);
            if (!sl->trace) {
                lf_loop_destroy(l);
                return -ENOMEM;
            }
            memset(sl->trace, 0, P * sizeof *sl->trace);
        }
    }
    l->claim_ns = estimate_claim_ns();
    if (lf__verbose())
        fprintf(stderr, "loopfarm: %s: team of %d, schedule %s\n", l->name, nthreads,
                l->sched.spec);
    *out = l;
    return 0;
}

void lf_loop_destroy(lf_loop *l)
{
    if (!l)
        return;
    /* A loop instance still alive (a member inside, or yet to come) would
     * use the memory after it is freed: refuse, and say so (cheap: one load
     * per slot). */
    for (int r = 0; r < LF__RING; r++)
        if ((lf__load_acquire(&l->ring[r].state) & 3) != LF__SLOT_FREE) {
            fprintf(stderr,
                    "loopfarm: lf_loop_destroy(\"%s\"): a loop of this handle is still running "
                    "(members inside or yet to enter); the handle is not destroyed\n",
                    l->name);
            return;
        }
    for (int r = 0; r < LF__RING; r++) {
        if (l->ring[r].trace) {
            for (int t = 0; t < l->P; t++)
                free(l->ring[r].trace[t].rec);
            free(l->ring[r].trace);
        }
        free(l->ring[r].cal0);
        free(l->ring[r].dom);
    }
    lf__loc_free(l);
    free(l->wmem);
    free(l->mem_ipt);
    free(l->mem_cal);
    free(l->mem_cost);
    pthread_mutex_destroy(&l->mem_lock);
    free(l);
}

/* Prepare slot s for a new instance (the initialising member, alone). */
static void slot_init(struct lf_loop *l, struct lf__slot *s, uint64_t g, uint64_t n, long lo,
                      long incr, uint64_t now, const struct lf_data *data)
{
    const struct lf__policy *pol = l->sched.pol;
    size_t P = (size_t)l->P;
    s->n = n;
    s->lo = lo;
    s->incr = incr;
    s->t_begin = now;
    s->instance = g;
    memset(s->view.w, 0, P * sizeof *s->view.w);
    /* What the site learned matters only to schedules that calibrate or
     * read times; the others skip the lock. */
    double claim_ns = 0.0;
    int use_mem = 0;
    if (pol->flags & (LF__P_CALIB | LF__P_MEASURE | LF__P_MAYSTOP)) {
        pthread_mutex_lock(&l->mem_lock);
        claim_ns = l->claim_ns;
        use_mem = l->mem_valid && l->sched.memory && !l->sched.cal_paper;
        for (size_t t = 0; t < P; t++) {
            s->cal0[t] = l->sched.cal_paper ? 1 : (l->mem_cal[t] ? l->mem_cal[t] : 1);
            if (use_mem) {
                lf__stored_relaxed(&s->view.w[t].calib_ipt, l->mem_ipt[t]);
                lf__stored_relaxed(&s->view.w[t].comp_lat_ns, l->mem_cost[t][0]);
                lf__stored_relaxed(&s->view.w[t].stage_lat_ns, l->mem_cost[t][1]);
                lf__stored_relaxed(&s->view.w[t].stage_ns_per_iter, l->mem_cost[t][2]);
            }
        }
        pthread_mutex_unlock(&l->mem_lock);
    }
    s->view.n = n;
    s->view.claim_ns = claim_ns;
    s->view.calibrated_from_memory = 0;
    /* Where the data lives, and whether to claim and stage by it. */
    lf__loc_init(l, s, data);
    memcpy(s->pstate, l->sched.state, pol->state_size);
    atomic_init(&s->next, 0);
    atomic_init(&s->done, 0);
    atomic_init(&s->calib_reports, 0);
    atomic_init(&s->calib_claimed, 0);
    atomic_init(&s->active, P);
    atomic_init(&s->phase, LF__PHASE_RUN);
    if (s->trace)
        for (size_t t = 0; t < P; t++)
            s->trace[t].len = 0;
    /* Fetch-and-add only where the counter cannot wrap: each member
     * overshoots n by at most one chunk before it sees the end. */
    s->fa_chunk = 0;
    int located = s->homed || s->data.ninputs > 0; /* every chunk goes through locality.c */
    if ((pol->flags & LF__P_FIXED) && !(pol->flags & LF__P_CALIB) && !located) {
        uint64_t c = pol->chunk(s->pstate, &s->view, 0, n ? n : 1);
        if (c == 0)
            c = 1;
        if (c <= (UINT64_MAX - n) / (P + 1))
            s->fa_chunk = c;
    }
    s->untimed = !s->trace && !pol->feedback && !located &&
                 !(pol->flags & (LF__P_CALIB | LF__P_MAYSTOP | LF__P_MEASURE));
    s->solo = P == 1;
    s->capped = l->guided_cap && !located;
    if (s->capped)
        s->fa_chunk = 0; /* every claim is sized against what is left */
    if (pol->start)
        pol->start(s->pstate, &s->view);
    if (pol->flags & LF__P_CALIB) {
        if (use_mem) {
            /* Start from what this call site learned last time. */
            for (size_t t = 0; t < P; t++) {
                lf__stored_relaxed(&s->view.w[t].avail, 1.0);
                lf__stored_relaxed(&s->view.w[t].bm, 1.0);
            }
            s->view.calibrated_from_memory = 1;
            atomic_store_explicit(&s->calib_claimed, 1, memory_order_relaxed);
            if (pol->calibrated)
                pol->calibrated(s->pstate, &s->view, n);
        } else {
            atomic_init(&s->phase, LF__PHASE_CALIB);
        }
    }
}

int lf_loop_begin(lf_loop *l, int tid, long lo, long hi, long incr)
{
    return lf_loop_begin_data(l, tid, lo, hi, incr, NULL);
}

int lf_loop_begin_data(lf_loop *l, int tid, long lo, long hi, long incr,
                       const struct lf_data *data)
{
    if (!l || tid < 0 || tid >= l->P || incr == 0)
        return -EINVAL;
    if (lf__data_check(data, lf_trip_count(lo, hi, incr, NULL)) != 0)
        return -EINVAL;
    struct lf__thr *th = &l->thr[tid];
    if (th->cur)
        return -EINVAL;
    uint64_t g = th->entered++;
    struct lf__slot *s = &l->ring[g % LF__RING];
    uint64_t ready = (g << 2) | LF__SLOT_READY, fresh = (g << 2) | LF__SLOT_FREE;
    unsigned spins = 0;
    uint64_t now = lf__ticks();
    for (;;) {
        /* Acquire: the initialiser's writes to the slot happen before we read them. */
        uint64_t st = lf__load_acquire(&s->state);
        if (st == ready)
            break;
        if (st == fresh) {
            uint64_t expect = fresh;
            if (lf__cas_acq_rel(&s->state, &expect, (g << 2) | LF__SLOT_INIT)) {
                slot_init(l, s, g, lf_trip_count(lo, hi, incr, NULL), lo, incr, now, data);
                /* Release: publish the initialised slot to the members that join. */
                lf__store_release(&s->state, ready);
                break;
            }
            continue;
        }
        backoff(&spins); /* previous user of the slot still inside, or init running */
    }
    if (!th->bound) {
        /* LF_BIND: pin this member once per handle (a no-op when unset). */
        th->bound = 1;
        if (lf__bind_mode() != LF__BIND_NONE)
            lf__bind_self(tid, l->P);
    }
    th->cur = s;
    th->chunk_n = 0;
    th->pend_n = 0;
    th->fast_chunks = th->fast_iters = 0;
    th->stopped = 0;
    th->k = 0;
    th->t_prev_end = spins ? lf__ticks() : now; /* a wait for the slot is not scheduling */
    th->calibrating = lf__load_relaxed(&s->phase) == LF__PHASE_CALIB;
    th->cal_size = s->cal0[tid];
    th->chunk_home = -1;
    if (s->homed || s->data.ninputs > 0)
        lf__loc_join(l, s, tid);
    if (s->n != lf_trip_count(lo, hi, incr, NULL) || (s->n && (s->lo != lo || s->incr != incr))) {
        /* Not this instance's bounds: the member leaves at once, so that the
         * others run the instance and the slot is recycled. */
        lf_loop_end(l, tid);
        return -ERANGE;
    }
    return 0;
}

/* Iterations nobody has claimed yet: the shared counter's remainder, or
 * the domain ranges' under locality-aware dispatch. */
static uint64_t unclaimed(const struct lf__slot *s)
{
    if (s->loc)
        return lf__loc_unclaimed(s);
    uint64_t used = lf__load_relaxed(&s->next);
    return used < s->n ? s->n - used : 0;
}

/* Run policy->calibrated() once; whoever gets here first does it. */
static void finish_calibration(struct lf_loop *l, struct lf__slot *s)
{
    uint64_t zero = 0;
    if (!lf__cas_acq_rel(&s->calib_claimed, &zero, 1))
        return;
    uint64_t r = unclaimed(s);
    if (l->sched.pol->calibrated)
        l->sched.pol->calibrated(s->pstate, &s->view, r);
    /* Release: the policy state written above is visible to every member
     * that sees the RUN phase (they load it with acquire). */
    lf__store_release(&s->phase, LF__PHASE_RUN);
}

/* Book the chunk member tid just finished: statistics, trace, calibration. */
static void complete_chunk(struct lf_loop *l, struct lf__slot *s, struct lf__thr *th, int tid,
                           uint64_t now)
{
    struct lf__wstat *w = &s->view.w[tid];
    uint64_t busy = lf__ticks_to_ns(now - th->t_start);
    uint64_t total = lf__ticks_to_ns(now - th->t_prev_end);
    lf__store_relaxed(&w->cur_iters, 0);
    if (th->stage_later && th->stage_later < busy) /* later pieces' copies */
        busy -= th->stage_later;
    lf__wstat_record(w, th->chunk_n, busy, total, th->chunk_calib);
    if (s->homed || s->data.ninputs > 0)
        lf__loc_chunk_done(l, s, tid, busy);
    if (s->trace) {
        struct lf__trace_buf *b = &s->trace[tid];
        if (b->len == b->cap) {
            size_t cap = b->cap ? 2 * b->cap : 256;
            struct lf__trace_rec *r = realloc(b->rec, cap * sizeof *r);
            if (r) {
                b->rec = r;
                b->cap = cap;
            }
        }
        if (b->len < b->cap)
            b->rec[b->len++] = (struct lf__trace_rec){th->chunk_lo, th->chunk_lo + th->chunk_n,
                                                      th->t_start, now};
    }
    if (th->calibrating) {
        if (l->sched.cal_paper || busy >= l->sched.cal_ns) {
            /* Calibration of this member is in (seed 000 §3.1: t_i, a_i, l_i),
             * over all its calibration chunks: the time per iteration, and the
             * share of the wall time it had a CPU (availability). */
            uint64_t cpu = lf__thread_cpu_ns() - th->cal_cpu0;
            uint64_t wall = lf__ticks_to_ns(now - th->cal_t0);
            lf__stored_relaxed(&w->calib_ipt, (double)lf__load_relaxed(&w->busy_ns) /
                                                  (double)lf__load_relaxed(&w->iters));
            lf__stored_relaxed(&w->avail, wall ? fmin(1.0, (double)cpu / (double)wall) : 1.0);
            lf__stored_relaxed(&w->latency_ns, (double)(total - busy));
            lf__stored_relaxed(&w->bm, lf__perf_bm_self());
            th->calibrating = 0;
            /* acq_rel: our calibration values are visible to the member that
             * sees the count complete and runs calibrated(). */
            if (lf__fetch_add_acq_rel(&s->calib_reports, 1) + 1 == (uint64_t)l->P)
                finish_calibration(l, s);
        } else if (th->cal_size < (UINT64_MAX >> 2)) {
            th->cal_size *= 2; /* too short to time: grow geometrically */
        }
    }
    if (l->sched.pol->feedback)
        l->sched.pol->feedback(s->pstate, &s->view, tid);
    th->t_prev_end = now;
}

/* Chunk size c within OpenMP's guided bound when the slot is capped: at most
 * ceil(r / P) of the r unclaimed iterations (lf_loop_set_guided_cap). */
static inline uint64_t guided_cap(const struct lf__slot *s, uint64_t c, uint64_t r)
{
    if (s->capped) {
        uint64_t bound = lf__div_ceil(r, (uint64_t)s->view.nworkers);
        return c < bound ? c : bound;
    }
    return c;
}

/* Claim up to want iterations with a CAS loop; return the size obtained. */
static uint64_t claim_fixed_cas(struct lf__slot *s, uint64_t want, uint64_t *lo)
{
    uint64_t cur = lf__load_relaxed(&s->next);
    while (cur < s->n) {
        uint64_t r = s->n - cur, c = guided_cap(s, want < r ? want : r, r);
        /* Relaxed: the range is the only thing the counter hands out. */
        if (lf__cas_weak_relaxed(&s->next, &cur, cur + c)) {
            *lo = cur;
            return c;
        }
    }
    return 0;
}

/* Let member tid stop when its policy says the others finish the rest: only
 * while another member is still active, so that someone always does. */
int lf__try_stop(struct lf_loop *l, struct lf__slot *s, int tid)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t a = lf__load_relaxed(&s->active);
    while (a > 1)
        /* acq_rel: a stop is decided against the latest count of the others. */
        if (lf__cas_acq_rel(&s->active, &a, a - 1)) {
            th->stopped = 1;
            lf__store_relaxed(&s->view.w[tid].stopped, 1);
            return 1;
        }
    return 0;
}

/* Claim a chunk sized by the policy from the remaining count (CAS loop);
 * 0 when nothing is left or the policy stopped this member. */
static uint64_t claim_policy(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo)
{
    const struct lf__policy *pol = l->sched.pol;
    uint64_t cur = lf__load_relaxed(&s->next);
    while (cur < s->n) {
        uint64_t r = s->n - cur;
        /* A capped static schedule claims what is left, down to the cap. */
        uint64_t c = pol->flags & LF__P_STATIC ? r : pol->chunk(s->pstate, &s->view, tid, r);
        if (c == 0 && (pol->flags & LF__P_MAYSTOP) && lf__try_stop(l, s, tid))
            return 0;
        if (c == 0)
            c = 1;
        c = guided_cap(s, c > r ? r : c, r);
        if (lf__cas_weak_relaxed(&s->next, &cur, cur + c)) {
            *lo = cur;
            return c;
        }
    }
    return 0;
}

/* Fetch-and-add claim of the slot's fixed chunk; a team of one needs no RMW. */
static inline uint64_t claim_fa(struct lf__slot *s, uint64_t *lo)
{
    uint64_t c = s->fa_chunk, at;
    if (s->solo) {
        at = lf__load_relaxed(&s->next);
        lf__store_relaxed(&s->next, at < s->n ? at + c : at);
    } else {
        /* Relaxed: the range is the only thing the counter hands out. */
        at = lf__fetch_add_relaxed(&s->next, c);
    }
    *lo = at;
    return at < s->n ? (s->n - at < c ? s->n - at : c) : 0;
}

/* The loop index of logical iteration k of slot s (wrapping arithmetic: the
 * result is in range by construction). */
static inline long index_of(const struct lf__slot *s, uint64_t k)
{
    return (long)((unsigned long)s->lo + (unsigned long)k * (unsigned long)s->incr);
}

/* Everything but the untimed fixed-size claim: kept out of line so that the
 * fast path in lf_loop_next needs no stack frame. */
static __attribute__((noinline)) int next_slow(lf_loop *l, int tid, long *first,
                                               unsigned long *count)
{
    struct lf__thr *th = &l->thr[tid];
    struct lf__slot *s = th->cur;
    if (!s)
        return 0;
    if (s->untimed) {
        /* Nobody reads this schedule's times: claim, count, no clock (the
         * fixed-size case never gets here, see lf_loop_next). */
        uint64_t lo = 0, c;
        if ((l->sched.pol->flags & LF__P_STATIC) && !s->capped)
            c = l->sched.pol->partition(s->pstate, &s->view, tid, th->k++, &lo);
        else
            c = claim_policy(l, s, tid, &lo);
        if (!c)
            return 0;
        th->fast_chunks++;
        th->fast_iters += c;
        *first = index_of(s, lo);
        *count = c;
        return 1;
    }
    if (th->pend_n) {
        /* The next piece of a staged chunk: the chunk is not over. */
        uint64_t lo = 0, c = lf__loc_next_piece(l, s, tid, &lo);
        *first = index_of(s, lo);
        *count = c;
        return 1;
    }
    const struct lf__policy *pol = l->sched.pol;
    uint64_t now = lf__ticks();
    if (th->chunk_n)
        complete_chunk(l, s, th, tid, now);
    if (th->stopped)
        return 0;
    /* The request time, for policies that weigh who finishes when. */
    double now_ns = (double)lf__ticks_to_ns(now - s->t_begin);
    lf__stored_relaxed(&s->view.w[tid].now_ns, now_ns);
    uint64_t lo = 0, c = 0;
    int calib = 0;
    if (s->fa_chunk) {
        /* Fixed size: one fetch-and-add (overflow excluded at init). */
        c = claim_fa(s, &lo);
    } else if ((pol->flags & LF__P_STATIC) && !s->capped) {
        c = pol->partition(s->pstate, &s->view, tid, th->k++, &lo);
    } else if (lf__load_acquire(&s->phase) == LF__PHASE_CALIB) {
        /* Calibration: sized by the executor, never by the policy.  A member
         * whose calibration is in keeps taking such chunks until the team's
         * is (nobody idles), except in the paper's mode, where it waits. */
        if (!th->calibrating && l->sched.cal_paper) {
            unsigned spins = 0;
            while (lf__load_acquire(&s->phase) == LF__PHASE_CALIB && unclaimed(s) > 0)
                backoff(&spins);
        }
        if (lf__load_acquire(&s->phase) == LF__PHASE_CALIB) {
            c = s->loc ? lf__loc_claim(l, s, tid, th->cal_size, &lo)
                       : claim_fixed_cas(s, th->cal_size, &lo);
            calib = 1;
            if (th->calibrating && c && lf__load_relaxed(&s->view.w[tid].chunks) == 0) {
                th->cal_t0 = now;
                th->cal_cpu0 = lf__thread_cpu_ns();
            }
        } else {
            c = s->loc ? lf__loc_claim(l, s, tid, 0, &lo) : claim_policy(l, s, tid, &lo);
        }
    } else {
        c = s->loc ? lf__loc_claim(l, s, tid, 0, &lo) : claim_policy(l, s, tid, &lo);
    }
    if (!c) {
        th->chunk_n = 0;
        return 0;
    }
    th->chunk_lo = lo;
    th->chunk_n = c;
    th->chunk_calib = calib;
    lf__stored_relaxed(&s->view.w[tid].cur_start_ns, now_ns);
    lf__store_relaxed(&s->view.w[tid].cur_iters, c);
    th->chunk_staged = 0;
    th->stage_later = 0;
    uint64_t give = c;
    if (s->homed || s->data.ninputs > 0)
        give = lf__loc_inputs(l, s, tid, lo, c); /* may stage: compute starts after */
    th->t_start = th->chunk_staged ? th->t_staged : lf__ticks();
    *first = index_of(s, lo);
    *count = give;
    return 1;
}

int lf_loop_next(lf_loop *l, int tid, long *first, unsigned long *count)
{
    if (!l || (unsigned)tid >= (unsigned)l->P)
        return 0; /* misuse: no chunk, nothing touched */
    struct lf__thr *th = &l->thr[tid];
    struct lf__slot *s = th->cur;
    if (s && s->untimed && s->fa_chunk) {
        /* The fast path: a fixed-size claim nobody times. */
        uint64_t lo, c = claim_fa(s, &lo);
        if (!c)
            return 0;
        *first = index_of(s, lo);
        *count = c;
        return 1;
    }
    return next_slow(l, tid, first, count);
}

/* Remember what this execution measured, or drop the memory when the rates
 * drifted beyond LF__RECAL_DRIFT (the next execution recalibrates); return 1
 * in that case. */
static int update_memory(struct lf_loop *l, struct lf__slot *s)
{
    if (!(l->sched.pol->flags & LF__P_CALIB) || !l->sched.memory || l->sched.cal_paper)
        return 0;
    int all = 1;
    double drift = 0.0;
    for (int t = 0; t < l->P; t++) {
        uint64_t it = lf__load_relaxed(&s->view.w[t].iters);
        if (!it) {
            /* This member got nothing this time (it came late to a short
             * loop): keep what was known of it, if anything. */
            all &= l->mem_valid && l->mem_ipt[t] > 0;
            continue;
        }
        double ipt = (double)lf__load_relaxed(&s->view.w[t].busy_ns) / (double)it;
        /* The affine costs the member fitted (0 where it measured none). */
        l->mem_cost[t][0] = lf__loadd_relaxed(&s->view.w[t].comp_lat_ns);
        l->mem_cost[t][1] = lf__loadd_relaxed(&s->view.w[t].stage_lat_ns);
        l->mem_cost[t][2] = lf__loadd_relaxed(&s->view.w[t].stage_ns_per_iter);
        if (l->mem_valid && l->mem_ipt[t] > 0)
            drift = fmax(drift, fabs(ipt / l->mem_ipt[t] - 1.0));
        l->mem_ipt[t] = ipt > 0 ? ipt : 1e-3;
        if (ipt > 0) {
            /* Smallest power-of-two chunk that lasts cal_ns at this rate. */
            uint64_t c = 1;
            while ((double)c * ipt < (double)l->sched.cal_ns && c < (1ULL << 40))
                c *= 2;
            l->mem_cal[t] = c;
        }
    }
    if (l->mem_valid && drift > LF__RECAL_DRIFT) {
        l->mem_valid = 0;
        if (lf__verbose())
            fprintf(stderr, "loopfarm: %s: rates drifted by %.0f%%, recalibrating next time\n",
                    l->name, 100.0 * drift);
        return 1;
    }
    l->mem_valid = all;
    return 0;
}

void lf_loop_end(lf_loop *l, int tid)
{
    if (!l || tid < 0 || tid >= l->P)
        return;
    struct lf__thr *th = &l->thr[tid];
    struct lf__slot *s = th->cur;
    if (!s)
        return;
    if (th->chunk_n) /* left early: still account for the last chunk */
        complete_chunk(l, s, th, tid, lf__ticks());
    if (s->untimed) {
        /* Untimed path: book the counts, and the time since entry as busy. */
        struct lf__wstat *w = &s->view.w[tid];
        uint64_t ns = lf__ticks_to_ns(lf__ticks() - th->t_prev_end);
        lf__store_relaxed(&w->chunks, th->fast_chunks);
        lf__store_relaxed(&w->iters, th->fast_iters);
        lf__store_relaxed(&w->busy_ns, ns);
        lf__store_relaxed(&w->total_ns, ns);
    }
    th->chunk_n = 0;
    th->pend_n = 0; /* pieces never handed out are abandoned with the chunk */
    th->cur = NULL;
    if (s->homed || s->data.ninputs > 0)
        lf__loc_leave(l, s, tid);
    if (!th->stopped) {
        /* Gone: policies must not count on this member any more. */
        lf__store_relaxed(&s->view.w[tid].stopped, 1);
        lf__fetch_sub_acq_rel(&s->active, 1);
    }
    /* acq_rel: everything this member wrote to the slot (statistics, trace)
     * happens before the last member's clean-up below. */
    uint64_t gone = lf__fetch_add_acq_rel(&s->done, 1) + 1;
    if (gone < (uint64_t)l->P)
        return;
    /* Last member out: if calibration never completed (members that never
     * got a chunk), there is nothing to finish; record and recycle. */
    uint64_t end = lf__ticks();
    struct lf_loop_stats st = {s->n, 0, 0, (double)lf__ticks_to_ns(end - s->t_begin) * 1e-9,
                               s->view.calibrated_from_memory, 0};
    double over = 0.0;
    for (int t = 0; t < l->P; t++) {
        struct lf__wstat *w = &s->view.w[t];
        st.chunks += lf__load_relaxed(&w->chunks);
        st.calib_chunks += lf__load_relaxed(&w->calib_chunks);
        over += (double)(lf__load_relaxed(&w->total_ns) - lf__load_relaxed(&w->busy_ns));
    }
    pthread_mutex_lock(&l->mem_lock);
    if (s->untimed && s->fa_chunk) /* fixed size: every chunk but the last is full */
        st.chunks = s->n / s->fa_chunk + (s->n % s->fa_chunk != 0);
    else if (st.chunks)
        l->claim_ns = 0.5 * l->claim_ns + 0.5 * over / (double)st.chunks;
    st.drifted = update_memory(l, s);
    l->last = st;
    l->last_numa = (struct lf_loop_numa_stats){
        lf__load_relaxed(&s->n_local), lf__load_relaxed(&s->n_remote),
        lf__load_relaxed(&s->n_staged), lf__load_relaxed(&s->b_staged), s->loc ? s->ndom : 1};
    pthread_mutex_unlock(&l->mem_lock);
    if (s->trace)
        lf__trace_flush(l, s);
    uint64_t g = lf__load_relaxed(&s->state) >> 2;
    /* Release: the slot's clean state is visible to the member that
     * initialises instance g + LF__RING. */
    lf__store_release(&s->state, ((g + LF__RING) << 2) | LF__SLOT_FREE);
}

int lf_loop_set_guided_cap(lf_loop *l, int on)
{
    if (!l)
        return -EINVAL;
    l->guided_cap = on != 0;
    return 0;
}

int lf_loop_last_stats(const lf_loop *l, struct lf_loop_stats *out)
{
    if (!l || !out)
        return -EINVAL;
    pthread_mutex_lock((pthread_mutex_t *)&l->mem_lock);
    *out = l->last;
    pthread_mutex_unlock((pthread_mutex_t *)&l->mem_lock);
    return 0;
}

int lf_loop_last_numa_stats(const lf_loop *l, struct lf_loop_numa_stats *out)
{
    if (!l || !out)
        return -EINVAL;
    pthread_mutex_lock((pthread_mutex_t *)&l->mem_lock);
    *out = l->last_numa;
    pthread_mutex_unlock((pthread_mutex_t *)&l->mem_lock);
    return 0;
}

const void *lf_loop_input(lf_loop *l, int tid, int k)
{
    if (!l || tid < 0 || tid >= l->P || k < 0 || k >= LF_MAX_INPUTS)
        return NULL;
    const struct lf__thr *th = &l->thr[tid];
    if (!th->cur || !th->chunk_n || k >= th->cur->data.ninputs)
        return NULL;
    return th->in[k];
}
