/* lib/dispatch/loop.c - the life of a team's loop handle and of each loop
 * instance: create and destroy, entry (the slot's initialisation and the
 * member's join), exit (the last member out records and recycles). */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "platform/clock.h"
#include "platform/platform.h"

unsigned long lf_trip_count(long lo, long hi, long incr, int *ok)
{
    if (ok)
        *ok = incr != 0;
    if (incr > 0)
        return lo < hi ? ((unsigned long)hi - (unsigned long)lo - 1) / (unsigned long)incr + 1 : 0;
    if (incr < 0)
        return lo > hi
                   ? ((unsigned long)lo - (unsigned long)hi - 1) / (0UL - (unsigned long)incr) + 1
                   : 0;
    return 0;
}

/* Cost of one claim on an uncontended line: a first guess until the loop has
 * measured its own.  Measured once per process: handles are made per loop
 * execution when a team's members drift apart (lib/omp/team.c), and 256
 * clock reads each time would be most of a handle's cost. */
static double claim_ns_guess;
static pthread_once_t claim_ns_once = PTHREAD_ONCE_INIT;

static void estimate_claim_ns(void)
{
    lf__au64 word = 0;
    uint64_t t0 = lf__ticks();
    for (int i = 0; i < 256; i++) {
        uint64_t cur = lf__load_relaxed(&word);
        while (!lf__cas_weak_relaxed(&word, &cur, cur + 1))
            ;
        (void)lf__ticks();
    }
    claim_ns_guess = (double)lf__ticks_to_ns(lf__ticks() - t0) / 256.0;
}

int lf_loop_create(lf_loop **out, int nthreads, const lf_schedule *s, const char *name)
{
    if (!out || nthreads < 1)
        return -EINVAL;
    lf__clock_init();
    size_t bytes = sizeof(struct lf_loop) + (size_t)nthreads * sizeof(struct lf__thr);
    struct lf_loop *l = aligned_alloc(LF__CACHELINE, bytes);
    if (!l)
        return -ENOMEM;
    memset(l, 0, bytes);
    pthread_mutex_init(&l->mem_lock, NULL);
    l->P = nthreads;
    l->ring_mask = LF__RING - 1;
    l->ndom_max = lf_numa_count();
    if (l->ndom_max > LF__MAXDOM)
        l->ndom_max = LF__MAXDOM;
    l->sched = (s ? s : lf_schedule_default())->s;
    if ((l->sched.pol->flags & LF__P_CALIB) && lf__perf_needs_topo())
        (void)lf__topo(); /* calibration reads bm_i: load the topology now, not inside it */
    snprintf(l->name, sizeof l->name, "%s", name ? name : "loop");
    l->tracing = lf__trace_enabled();
    size_t P = (size_t)nthreads;
    l->wmem = aligned_alloc(LF__CACHELINE, LF__RING * P * sizeof *l->wmem);
    l->mem.ipt = calloc(P, sizeof *l->mem.ipt);
    l->mem.cal = calloc(P, sizeof *l->mem.cal);
    l->mem.cost = calloc(P, sizeof *l->mem.cost);
    if (!l->wmem || !l->mem.ipt || !l->mem.cal || !l->mem.cost) {
        lf_loop_destroy(l);
        return -ENOMEM;
    }
    memset(l->wmem, 0, LF__RING * P * sizeof *l->wmem);
    for (int r = 0; r < LF__RING; r++) {
        struct lf__slot *sl = &l->ring[r];
        atomic_init(&sl->state, ((uint64_t)r << 2) | LF__SLOT_FREE);
        sl->view.w = l->wmem + (size_t)r * P;
        sl->view.nworkers = nthreads;
        sl->ex = (struct lf__exec){.sched = &l->sched, .pstate = sl->pstate, .view = &sl->view};
        sl->plan.sched = &l->sched;
        sl->cal0 = calloc(P, sizeof *sl->cal0);
        sl->lease = aligned_alloc(LF__CACHELINE, P * sizeof *sl->lease);
        sl->own = aligned_alloc(LF__CACHELINE, P * sizeof *sl->own);
        if ((l->sched.pol->flags & LF__P_PROFILE) && P > 1) {
            /* Where each member's chunks lay, for the call site's profile. */
            sl->acc = aligned_alloc(LF__CACHELINE, P * sizeof *sl->acc);
            sl->prof = calloc(1, sizeof *sl->prof);
            if (!sl->acc || !sl->prof) {
                lf_loop_destroy(l);
                return -ENOMEM;
            }
        }
        if (!sl->cal0 || !sl->lease || !sl->own) {
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
    pthread_once(&claim_ns_once, estimate_claim_ns);
    l->claim_ns = claim_ns_guess;
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
        free(l->ring[r].lease);
        free(l->ring[r].own);
        free(l->ring[r].acc);
        free(l->ring[r].prof);
        free(l->ring[r].dom);
    }
    lf__stage_free(l);
    free(l->wmem);
    free(l->mem.ipt);
    free(l->mem.cal);
    free(l->mem.cost);
    pthread_mutex_destroy(&l->mem_lock);
    free(l);
}

/* Zero n bytes at p (whole cache lines), storing only to the lines that
 * are not zero: a line nobody wrote stays shared in the members' caches.
 * The members' statistics of a slot are cleared so between instances. */
static void zero_written_lines(void *p, size_t n)
{
    static const char zero[LF__CACHELINE];
    for (char *c = p, *end = c + n; c < end; c += LF__CACHELINE)
        if (memcmp(c, zero, LF__CACHELINE) != 0)
            memset(c, 0, LF__CACHELINE);
}

/* Prepare slot s for a new instance (the initialising member, alone). */
static void slot_init(struct lf_loop *l, struct lf__slot *s, uint64_t g, uint64_t n, long lo,
                      long incr, uint64_t now, const struct lf_data *data)
{
    size_t P = (size_t)l->P;
    if (!l->loaned) /* the previous instance's statistics, readable until now */
        zero_written_lines(s->view.w, P * sizeof *s->view.w);
    LF__SET(s->n, n);
    LF__SET(s->lo, lo);
    LF__SET(s->incr, incr);
    s->instance = g;
    LF__SET(s->view.n, n);
    /* Where the data lives, and whether to claim and stage by it. */
    lf__loc_init(l, s, data);
    atomic_init(&s->next, 0);
    /* The counts beside the bounds, which joining members read, keep their
     * values from one instance to the next unless the instance used them. */
    lf__reset(&s->done, 0);
    lf__reset(&s->calib_reports, 0);
    lf__reset(&s->active, P);
    if (s->trace)
        for (size_t t = 0; t < P; t++)
            s->trace[t].len = 0;
    /* The plan: what the site learned matters only to schedules that
     * calibrate or read times; the others skip the lock. */
    struct lf__plan_in in = {.sched = &l->sched,
                             .own = l->has_own ? &l->own : NULL,
                             .workers = l->P,
                             .n = n,
                             .monotonic = l->monotonic,
                             .guided_cap = l->guided_cap,
                             .located = lf__located(s),
                             .loc = s->loc,
                             .traced = s->trace != NULL,
                             .no_tiny = l->no_tiny};
    int calib;
    const struct lf__plan *pl = &s->plan;
    struct lf__plan np;
    int mem = lf__exec_mem_wanted(&l->sched, l->P);
    if (mem) {
        pthread_mutex_lock(&l->mem_lock);
        s->view.claim_ns = l->claim_ns;
        np = lf__exec_plan(&in, &l->mem);
        if (np.kind == LF__PLAN_TINY) /* counted where decided, for LF_VERBOSE */
            l->tiny_done++;
    } else {
        LF__SET(s->view.claim_ns, 0.0);
        np = lf__exec_plan(&in, NULL);
    }
    /* Stored when it changed, as the fields beside it (most executions of
     * a site run the plan its previous one ran). */
    if (!lf__exec_plan_same(&s->plan, &np))
        s->plan = np;
    LF__SET(s->ex.sched, pl->sched);
    LF__SET(s->ex.acc, pl->learns ? s->acc : NULL);
    LF__SET(s->ex.prof, pl->learns ? s->prof : NULL);
    calib = lf__exec_start(&s->ex, mem && pl->learns ? &l->mem : NULL, s->cal0);
    if (mem)
        pthread_mutex_unlock(&l->mem_lock);
    if (l->no_tiny)
        l->no_tiny = 0;
    lf__reset(&s->calib_claimed, !calib); /* calibrated() ran, or never will */
    lf__reset(&s->phase, calib ? LF__PHASE_CALIB : LF__PHASE_RUN);
    LF__SET(s->ex.cap, pl->cap);
    LF__SET(s->fa_chunk, pl->chunk);
    LF__SET(s->kind, pl->claim);
    LF__SET(s->claim, lf__claim_of(pl->claim));
    LF__SET(s->lease_mode, (int)pl->lease);
    if (pl->lease != LF__LEASE_OFF) /* only a leasing instance reads the words */
        for (size_t t = 0; t < P; t++)
            atomic_init(&s->lease[t].range, 0);
    LF__SET(s->split, pl->split);
    LF__SET(s->spread, pl->spread);
    if (pl->split)
        lf__split_init(s, l->P, n, pl->chunk);
    lf__reset(&s->n_pieces, 0);
    lf__reset(&s->once, 0);
    lf__reset(&s->n_steals, 0);
    lf__reset(&s->n_stolen, 0);
    LF__SET(s->untimed, !pl->timed);
    LF__SET(s->solo, P == 1);
    /* An untimed instance of a loaned handle reads no clock (its t_begin
     * is 0) unless its wall time is booked to its plan: none of its chunks
     * is timed, and nobody sees its statistics. */
    if (l->loaned)
        now = s->untimed && !pl->booked ? 0 : lf__ticks();
    s->t_begin = now;
}

int lf_loop_begin(lf_loop *l, int tid, long lo, long hi, long incr)
{
    return lf_loop_begin_data(l, tid, lo, hi, incr, NULL);
}

int lf_loop_begin_data(lf_loop *l, int tid, long lo, long hi, long incr, const struct lf_data *data)
{
    if (!l || tid < 0 || tid >= l->P || incr == 0)
        return -EINVAL;
    uint64_t n = lf_trip_count(lo, hi, incr, NULL);
    if (lf__data_check(data, lo, incr, n) != 0)
        return -EINVAL;
    struct lf__thr *th = &l->thr[tid];
    if (th->cur)
        return -EINVAL;
    uint64_t g = th->entered++;
    struct lf__slot *s = &l->ring[g & l->ring_mask];
    uint64_t ready = (g << 2) | LF__SLOT_READY, fresh = (g << 2) | LF__SLOT_FREE;
    unsigned spins = 0;
    /* Leased: the clock is read once the instance is known to be timed. */
    uint64_t now = l->loaned ? 0 : lf__ticks();
    for (;;) {
        /* Acquire: the initialiser's writes to the slot happen before we read them. */
        uint64_t st = lf__load_acquire(&s->state);
        if (st == ready)
            break;
        if (st == fresh) {
            uint64_t expect = fresh;
            /* acq_rel: one initialiser; a team of one has no rival. */
            if (l->P == 1 || lf__cas_acq_rel(&s->state, &expect, (g << 2) | LF__SLOT_INIT)) {
                slot_init(l, s, g, n, lo, incr, now, data);
                if (l->loaned)
                    l->open = s; /* read by lf__loop_finish, after every member's exit */
                /* Release: publish the initialised slot to the members that join. */
                lf__store_release(&s->state, ready);
                break;
            }
            continue;
        }
        if (st == ((g << 2) | LF__SLOT_INIT))
            lf__wait_brief(&spins); /* another member initialises it */
        else
            lf__backoff(&spins); /* its previous user is still inside */
    }
    if (!th->bound) {
        /* LF_BIND: pin this member once per handle (a no-op when unset). */
        th->bound = 1;
        if (lf__bind_mode() != LF__BIND_NONE)
            lf__bind_self(tid, l->P);
    }
    th->cur = s;
    th->from = tid;
    th->chunk_n = 0;
    th->piece_n = 0; /* no piece yet: the ramp of its pieces starts afresh */
    th->pend_n = 0;
    th->fast_chunks = th->fast_iters = 0;
    th->stopped = 0;
    th->k = 0;
    th->pieces = th->steals = th->stolen = 0;
    if (!now && !s->untimed)
        now = lf__ticks();
    th->t_begin = s->t_begin;
    /* A wait for the slot is not scheduling. */
    th->t_prev_end = spins && now ? lf__ticks() : now;
    th->calibrating = lf__load_relaxed(&s->phase) == LF__PHASE_CALIB;
    th->cal_size = s->cal0[tid];
    th->chunk_home = -1;
    if (s->homed)
        lf__loc_join(l, s, tid);
    if (lf__located(s))
        lf__stage_join(l, tid);
    if (s->n != n || (n && (s->lo != lo || s->incr != incr))) {
        /* Not this instance's bounds: the member leaves at once, so that the
         * others run the instance and the slot is recycled. */
        lf_loop_end(l, tid);
        return -ERANGE;
    }
    return 0;
}

/* Remember what this execution measured, or drop the memory when the rates
 * drifted (lf__exec_mem_end); return 1 in that case.  Under mem_lock. */
static int update_memory(struct lf_loop *l, struct lf__slot *s)
{
    double drift;
    if (!lf__exec_mem_end(&s->ex, &l->mem, &drift))
        return 0;
    if (lf__verbose())
        fprintf(stderr, "loopfarm: %s: rates drifted by %.0f%%, recalibrating next time\n", l->name,
                100.0 * drift);
    return 1;
}

/* LF_VERBOSE: in the band of trip counts of an execution of n
 * iterations, each candidate plan's median wall time per iteration and
 * executions, and the plan chosen, at a site that chooses (under
 * mem_lock); into buf. */
static void describe_plans(struct lf_loop *l, uint64_t n, char *buf, size_t len)
{
    const struct lf__select *sel = lf__exec_site_sel(&l->mem, n);
    int b = lf__exec_band(n);
    size_t off = (size_t)snprintf(buf, len, "plans for trip counts 4^%d..4^%d-1 (%lu booked):", b,
                                  b + 1, sel->execs);
    for (int k = 0; k < LF__PLAN_TINY && off < len; k++)
        off += (size_t)snprintf(buf + off, len - off, " %s %.4g ns/iter x%lu%s,", lf__plan_names[k],
                                lf__select_median(&sel->arm[k]), sel->arm[k].runs,
                                k == sel->chosen ? " (chosen)" : "");
    if (off < len)
        snprintf(buf + off, len - off, " tiny x%lu; %lu switches; trials of %u", l->tiny_done,
                 sel->switches, lf__select_trial(sel));
}

/* LF_VERBOSE: what a learning schedule knows of this call site after
 * executions 1, 2, 4, 8, ... (under mem_lock). */
static void report_learned(struct lf_loop *l, const struct lf__slot *s,
                           const struct lf_loop_stats *st)
{
    unsigned long k = ++l->runs;
    if (!lf__verbose() || !(l->sched.pol->flags & LF__P_PROFILE) || (k & (k - 1)) != 0 ||
        lf__exec_solo(&l->sched, l->P))
        return;
    const struct lf__profile *p = &l->mem.prof;
    char rates[256], plans[400];
    size_t off = 0;
    for (int t = 0; t < l->P && off < sizeof rates - 24; t++)
        off += (size_t)snprintf(rates + off, sizeof rates - off, "%s%.3g", t ? " " : "",
                                l->mem.valid ? l->mem.ipt[t] : 0.0);
    double lo, hi;
    lf__profile_range(p, &lo, &hi);
    describe_plans(l, s->n, plans, sizeof plans);
    fprintf(
        stderr,
        "loopfarm: %s: execution %lu of %s: %s (plan %s); ns per unit by thread [%s]; profile "
        "over %d bins, cost %.2f..%.2f of the mean, dealt at weight %.2f, confidence %.2f after "
        "%u execution%s%s; "
        "%lu chunks in %lu pieces, %lu steals (%lu iterations); %s\n",
        l->name, k, l->sched.spec,
        s->view.prof ? "dealt by the profile"
                     : (st->from_memory ? "rates from memory" : "calibrated"),
        lf__plan_names[s->plan.kind], rates, LF__PROF_BINS, p->valid ? lo : 1.0,
        p->valid ? hi : 1.0, p->valid ? lf__exec_profile_weight(p) : 0.0, p->conf, p->execs,
        p->execs == 1 ? "" : "s", p->dropped ? " (replaced: it stopped predicting)" : "",
        st->chunks, st->pieces, st->steals, st->stolen, plans);
}

/* LF_VERBOSE: a site that chooses its plans, after the booked executions
 * 1, 2, 4, 8, ... of a band of trip counts that were not DEALT ones (those
 * report_learned tells). */
static void report_plans(struct lf_loop *l, const struct lf__slot *s)
{
    unsigned long k = lf__exec_site_sel(&l->mem, s->n)->execs;
    if (!lf__verbose() || !s->plan.booked || s->plan.kind == LF__PLAN_DEALT || (k & (k - 1)) != 0)
        return;
    char plans[400];
    describe_plans(l, s->n, plans, sizeof plans);
    fprintf(stderr, "loopfarm: %s: %s ran plan %s; %s\n", l->name, l->sched.spec,
            lf__plan_names[s->plan.kind], plans);
}

/* Free slot s for the instance that follows (its clean-up done). */
static void release_slot(struct lf_loop *l, struct lf__slot *s)
{
    uint64_t g = lf__load_relaxed(&s->state) >> 2;
    /* Release: the slot's clean state is visible to the member that
     * initialises its next instance, g + LF__RING (g + 1 when loaned). */
    lf__store_release(&s->state, ((g + l->ring_mask + 1) << 2) | LF__SLOT_FREE);
}

/* Record instance s and recycle its slot, after every member has left it.
 * If calibration never completed (members that never got a chunk), there
 * is nothing to finish. */
static void slot_finish(struct lf_loop *l, struct lf__slot *s)
{
    const struct lf__plan *pl = &s->plan;
    uint64_t end = s->t_begin ? lf__ticks() : 0; /* 0: an untimed loaned instance */
    double wall_ns = (double)lf__ticks_to_ns(end - s->t_begin);
    if (l->loaned && s->untimed) {
        /* Nothing to record but the wall time its plan is booked: an
         * untimed instance learns nothing, and a loaned handle's
         * statistics are read by nobody (its members did not book them).
         * Clear what the members wrote (stopped words). */
        if (pl->booked) {
            lf__exec_plan_book(&l->mem, pl, wall_ns, s->n);
            report_plans(l, s);
        }
        zero_written_lines(s->view.w, (size_t)l->P * sizeof *s->view.w);
        release_slot(l, s);
        return;
    }
    struct lf_loop_stats st = {s->n,
                               0,
                               0,
                               wall_ns * 1e-9,
                               s->view.calibrated_from_memory,
                               0,
                               lf__load_relaxed(&s->n_pieces),
                               lf__load_relaxed(&s->n_steals),
                               lf__load_relaxed(&s->n_stolen)};
    double over = 0.0;
    for (int t = 0; t < l->P; t++) {
        struct lf__wstat *w = &s->view.w[t];
        st.chunks += lf__word_get(&w->chunks);
        st.calib_chunks += lf__word_get(&w->calib_chunks);
        over += (double)(lf__word_get(&w->total_ns) - lf__word_get(&w->busy_ns));
    }
    /* A loaned handle's executions never overlap: its finisher alone
     * writes what follows, and its next initialiser reads it after the
     * lease has passed (lf_loop_last_stats is for handles of one's own). */
    if (!l->loaned)
        pthread_mutex_lock(&l->mem_lock);
    if (s->untimed &&
        s->kind == LF__CLAIM_FETCH_ADD) /* fixed size: every chunk but the last is full */
        st.chunks = s->n / s->fa_chunk + (s->n % s->fa_chunk != 0);
    else if (st.chunks && !s->untimed) /* untimed: no claim was timed */
        l->claim_ns = 0.5 * l->claim_ns + 0.5 * over / (double)st.chunks;
    lf__exec_plan_book(&l->mem, pl, wall_ns, s->n);
    if (pl->learns) { /* only the site's own policy measured what it learns from */
        st.drifted = update_memory(l, s);
        report_learned(l, s, &st);
    } else {
        report_plans(l, s);
    }
    l->last = st;
    l->last_numa = (struct lf_loop_numa_stats){
        lf__load_relaxed(&s->n_local), lf__load_relaxed(&s->n_remote),
        lf__load_relaxed(&s->n_staged), lf__load_relaxed(&s->b_staged), s->loc ? s->ndom : 1};
    struct lf__profile prof;
    if (s->trace && s->ex.acc)
        prof = l->mem.prof; /* copied under the lock, written after */
    if (!l->loaned)
        pthread_mutex_unlock(&l->mem_lock);
    if (s->trace) {
        lf__trace_flush(l, s);
        if (s->ex.acc)
            lf__trace_profile(l, s->instance, s->n, &prof);
    }
    /* A loaned handle's slots are seen by nobody after the execution: its
     * members' statistics are cleared here, where they were just read,
     * rather than on the next instance's entry path (doc/design.md). */
    if (l->loaned)
        zero_written_lines(s->view.w, (size_t)l->P * sizeof *s->view.w);
    release_slot(l, s);
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
        lf__chunk_complete(l, s, tid, lf__ticks());
    if (s->untimed && !l->loaned) {
        /* Untimed path: book the counts (its times stay 0: nothing reads
         * them, and a claim's overhead is not measured without a clock);
         * a loaned handle's statistics are read by nobody. */
        struct lf__wstat *w = &s->view.w[tid];
        lf__word_put(&w->chunks, th->fast_chunks);
        lf__word_put(&w->iters, th->fast_iters);
    }
    th->chunk_n = 0;
    th->pend_n = 0; /* pieces never handed out are abandoned with the chunk */
    th->cur = NULL;
    if (lf__located(s))
        lf__stage_leave(l, s, tid);
    if (s->lease_mode) {
        /* What is left of its lease stays there for the members still in. */
        lf__fetch_add_relaxed(&s->n_pieces, th->pieces);
        lf__fetch_add_relaxed(&s->n_steals, th->steals);
        lf__fetch_add_relaxed(&s->n_stolen, th->stolen);
    }
    if (!th->stopped) {
        /* Gone: policies must not count on this member any more; the count
         * of active members matters only to a policy that may stop one. */
        lf__exec_worker_gone(&s->ex, tid);
        if (s->ex.sched->pol->flags & LF__P_MAYSTOP)
            lf__fetch_sub_acq_rel(&s->active, 1);
    }
    if (l->loaned)
        return; /* the loan counts the exits, and its last one finishes */
    /* acq_rel: everything this member wrote to the slot (statistics, trace)
     * happens before the last member's clean-up. */
    uint64_t gone = lf__fetch_add_acq_rel(&s->done, 1) + 1;
    if (gone == (uint64_t)l->P)
        slot_finish(l, s);
}

void lf__loop_set_loaned(lf_loop *l)
{
    l->loaned = 1;
    l->ring_mask = 0; /* before any instance: slot 0 is FREE for instance 0 */
}

void lf__loop_finish(lf_loop *l)
{
    struct lf__slot *s = l->open;
    if (!s)
        return; /* no member entered */
    l->open = NULL;
    slot_finish(l, s);
}

double lf__loop_team_ns(const lf_loop *l)
{
    return l->mem.team_ns_per_iter;
}

void lf__loop_skip_tiny(lf_loop *l)
{
    l->no_tiny = 1;
}

int lf__loop_set_own(lf_loop *l, const char *spec)
{
    char err[256];
    lf_schedule *parsed = NULL;
    if (!l || !spec || lf_schedule_parse(spec, &parsed, err, sizeof err) != 0)
        return -EINVAL;
    l->own = parsed->s;
    l->has_own = 1;
    lf_schedule_free(parsed);
    return 0;
}

int lf_loop_set_guided_cap(lf_loop *l, int on)
{
    if (!l)
        return -EINVAL;
    l->guided_cap = on != 0;
    return 0;
}

int lf_loop_set_monotonic(lf_loop *l, int on)
{
    if (!l)
        return -EINVAL;
    l->monotonic = on != 0;
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
