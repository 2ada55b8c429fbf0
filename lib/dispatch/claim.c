/* lib/dispatch/claim.c - lf_loop_next: the path every chunk takes.
 *
 * An instance's claim variant (lib/exec/exec.h, enum lf__claim_kind) is
 * chosen once when its slot is initialised and stored as a function, so
 * the per-chunk path below has no ladder: complete the previous chunk,
 * size the next (calibration, or the policy through lf__exec_claim_size),
 * claim it with the slot's function, hand it out (staged when remote).
 */
#include "config.h"

#include "dispatch/dispatch.h"
#include "platform/clock.h"

/* Let member tid stop when its policy says the others finish the rest: only
 * while another member is still active, so that someone always does. */
static int try_stop(struct lf_loop *l, struct lf__slot *s, int tid)
{
    uint64_t a = lf__load_relaxed(&s->active);
    while (a > 1)
        /* acq_rel: a stop is decided against the latest count of the others. */
        if (lf__cas_acq_rel(&s->active, &a, a - 1)) {
            l->thr[tid].stopped = 1;
            lf__exec_worker_gone(&s->ex, tid);
            return 1;
        }
    return 0;
}

/* The size of tid's claim from r >= 1 unclaimed iterations: want when
 * calibrating, else the policy's; 0 when the policy stopped tid. */
static uint64_t size_claim(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want,
                           double now, uint64_t r)
{
    if (want)
        return lf__exec_calib_size(&s->ex, want, r);
    uint64_t c = lf__exec_claim_size(&s->ex, tid, r, now);
    if (c == 0 && try_stop(l, s, tid))
        return 0;
    return c ? c : 1;
}

/* Split fixed-size claims.  With one counter, every claim of a team of two
 * or more takes the counter's cache line from the core that claimed last:
 * on a loop of cheap chunks that transfer is the whole cost of a chunk,
 * for libgomp's dynamic,1 as for us.  Where the order
 * of the chunks is free (OpenMP's nonmonotonic dynamic, which
 * schedule(dynamic) means since OpenMP 5.0), a split instance gives each
 * member a block of the loop, chunk-aligned, with a counter on a line of
 * its own: a member claims from its block with a fetch-and-add that stays
 * in its cache, and when the block is used up, from the block with the
 * most left, a chunk at a time, as any other member may, until every
 * block is used up.  Every chunk is still the fixed size (the last of the
 * loop excepted), handed out one at a time, so no member holds more than
 * one; what changes is which member meets which chunk, and which chunk
 * comes last.  That matters on loops of few chunks whose cost falls along
 * the range: one counter hands out the cheap end last, split blocks a
 * chunk from the middle, so with few chunks the tail can be a whole
 * expensive chunk (doc/design.md).  A loop splits only with LF__SPLIT_CHUNKS
 * chunks per member or more, where a chunk is a small part of a member's
 * share and the claims, not the tail, are what costs (lf__exec_split_wanted,
 * decided with the rest of the plan).  LLVM's OpenMP
 * runtime schedules nonmonotonic dynamic loops in the same spirit (its
 * static_steal schedule, which moves half a victim's range at once). */
void lf__split_init(struct lf__slot *s, int P, uint64_t n, uint64_t c)
{
    uint64_t k = lf__div_ceil(n, c); /* chunks; member m's are [m k / P, (m + 1) k / P) */
    uint64_t q = k / (uint64_t)P, r = k % (uint64_t)P, at = 0;
    for (int m = 0; m < P; m++) {
        uint64_t next_chunk = (uint64_t)(m + 1) * q + (uint64_t)(m + 1) * r / (uint64_t)P;
        uint64_t hi = m == P - 1 ? n : next_chunk * c;
        atomic_init(&s->own[m].next, at);
        s->own[m].hi = hi;
        at = hi;
    }
}

/* Of block b's counter: the chunk at *lo that a fetch-and-add took (0 when
 * the block was used up). */
static inline uint64_t claim_block(struct lf__slot *s, int b, uint64_t *lo)
{
    uint64_t c = s->fa_chunk, hi = s->own[b].hi;
    /* Relaxed: the range is the only thing the counter hands out. */
    uint64_t at = lf__fetch_add_relaxed(&s->own[b].next, c);
    *lo = at;
    return at < hi ? (hi - at < c ? hi - at : c) : 0;
}

/* Member tid's block, or the one it was helping with, is used up: claim
 * from the block with the most left until no block has any. */
static __attribute__((noinline)) uint64_t claim_other_block(struct lf_loop *l, struct lf__slot *s,
                                                            int tid, uint64_t *lo)
{
    for (;;) {
        int best = -1;
        uint64_t most = 0;
        for (int b = 0; b < l->P; b++) {
            uint64_t at = lf__load_relaxed(&s->own[b].next), hi = s->own[b].hi;
            if (at < hi && hi - at > most) {
                most = hi - at;
                best = b;
            }
        }
        if (best < 0)
            return 0;
        l->thr[tid].from = best;
        uint64_t c = claim_block(s, best, lo);
        if (c)
            return c;
    }
}

/* LF__CLAIM_FETCH_ADD: the slot's fixed size with one fetch-and-add, on
 * the member's block when split; a team of one needs no read-modify-write. */
static inline uint64_t claim_fetch_add(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo)
{
    uint64_t c = s->fa_chunk, at;
    if (s->split) {
        uint64_t got = claim_block(s, l->thr[tid].from, lo);
        return got ? got : claim_other_block(l, s, tid, lo);
    }
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

static uint64_t claim_fa(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want, double now,
                         uint64_t *lo)
{
    return claim_fetch_add(l, s, tid, lo);
}

/* What claim_cas sizes a claim with. */
struct cas_ctx {
    struct lf_loop *l;
    struct lf__slot *s;
    int tid;
    uint64_t want;
    double now;
};

static uint64_t cas_size(void *ctx, uint64_t r)
{
    struct cas_ctx *c = ctx;
    return size_claim(c->l, c->s, c->tid, c->want, c->now, r);
}

/* LF__CLAIM_CAS: sized from the remainder, claimed with a CAS loop. */
static uint64_t claim_cas(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want, double now,
                          uint64_t *lo)
{
    struct cas_ctx ctx = {l, s, tid, want, now};
    uint64_t cur = lf__load_relaxed(&s->next);
    return lf__counter_cas(&s->next, s->n, cas_size, &ctx, &cur, lo);
}

/* LF__CLAIM_STATIC: the policy's partition, no shared counter. */
static uint64_t claim_static(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want,
                             double now, uint64_t *lo)
{
    const struct lf__policy *pol = s->ex.sched->pol; /* the plan's */
    return pol->partition(s->pstate, &s->view, tid, l->thr[tid].k++, lo);
}

/* LF__CLAIM_DOMAINS: from the member's own domain's range while it has
 * any, else from the fullest (lib/policy/locality.h); the claim is sized
 * against the whole loop's remainder, then for the range it comes from. */
static uint64_t claim_domains(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want,
                              double now, uint64_t *lo)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t nx[LF__MAXDOM], rem[LF__MAXDOM];
    for (;;) {
        uint64_t r = 0;
        for (int d = 0; d < s->ndom; d++) {
            nx[d] = lf__load_relaxed(&s->dom[d].next);
            rem[d] = nx[d] < s->dom[d].hi ? s->dom[d].hi - nx[d] : 0;
            r += rem[d];
        }
        int d = lf__loc_pick(rem, s->ndom, th->dom);
        if (d < 0)
            return 0;
        uint64_t c = size_claim(l, s, tid, want, now, r);
        if (!c)
            return 0;
        c = lf__exec_domain_chunk(c, th->dom, d, rem[d], (int)lf__load_relaxed(&s->dom[d].owners),
                                  l->P, s->ndom, &th->times, s->staging);
        /* Relaxed: the range is the only thing the counter hands out. */
        if (lf__cas_weak_relaxed(&s->dom[d].next, &nx[d], nx[d] + c)) {
            *lo = nx[d];
            th->chunk_home = d;
            return c;
        }
    }
}

lf__claim_fn lf__claim_of(enum lf__claim_kind kind)
{
    switch (kind) {
    case LF__CLAIM_FETCH_ADD:
        return claim_fa;
    case LF__CLAIM_STATIC:
        return claim_static;
    case LF__CLAIM_DOMAINS:
        return claim_domains;
    case LF__CLAIM_CAS:
        break;
    }
    return claim_cas;
}

/* The calibration chunk member tid asks for now: its calibration size
 * while the team calibrates (0 once the first round has begun).  In the
 * paper's mode a member whose calibration is in waits for the team's. */
static uint64_t calibration_want(struct lf_loop *l, struct lf__slot *s, struct lf__thr *th)
{
    if (lf__load_acquire(&s->phase) != LF__PHASE_CALIB)
        return 0;
    if (!th->calibrating && l->sched.cal_paper) {
        unsigned spins = 0;
        while (lf__load_acquire(&s->phase) == LF__PHASE_CALIB && lf__unclaimed(s) > 0)
            lf__backoff(&spins);
    }
    return lf__load_acquire(&s->phase) == LF__PHASE_CALIB ? th->cal_size : 0;
}

/* A new chunk for member tid of a leasing slot: under LF__LEASE_FORCE a
 * steal first; then the shared counter (its lease marked meanwhile); then,
 * with the counter exhausted, the back of the fullest lease.  Sets *lo and
 * th->chunk_from. */
static uint64_t claim_leased(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want,
                             double now, uint64_t *lo)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t c = 0;
    th->chunk_from = -1;
    if (s->lease_mode == LF__LEASE_FORCE && !want)
        c = lf__lease_steal(l, s, tid, lo, &th->chunk_from);
    if (!c) {
        lf__lease_mark(s, tid);
        c = s->claim(l, s, tid, want, now, lo);
        if (!c) /* clear the mark before waiting on the others' */
            lf__lease_install(l, s, tid, 0, 0, 0);
    }
    if (!c && !th->stopped)
        c = lf__lease_steal(l, s, tid, lo, &th->chunk_from);
    if (c && th->chunk_from >= 0) {
        th->steals++;
        th->stolen += c;
    }
    return c;
}

/* Every chunk of a timed loop. */
static __attribute__((noinline)) int next_timed(struct lf_loop *l, struct lf__slot *s, int tid,
                                                long *first, unsigned long *count)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t lo = 0, c;
    if (th->pend_n) {
        /* The next piece of a staged chunk: the chunk is not over. */
        c = lf__stage_next_piece(l, s, tid, &lo);
        *first = lf__index_of(s, lo);
        *count = c;
        return 1;
    }
    if (th->chunk_n && s->lease_mode && (c = lf__lease_piece(l, s, tid, &lo)) != 0) {
        /* The next piece of its lease: the chunk is not over. */
        th->pieces++;
        if (s->ex.acc) {
            uint64_t t = lf__ticks(); /* the previous piece's time, for the profile */
            lf__exec_profile_book(&s->ex, tid, th->piece_lo, th->piece_n,
                                  (double)lf__ticks_to_ns(t - th->piece_t0));
            th->piece_t0 = t;
        }
        th->piece_lo = lo;
        th->piece_n = c;
        *first = lf__index_of(s, lo);
        *count = c;
        return 1;
    }
    uint64_t now = lf__ticks();
    if (th->chunk_n)
        lf__chunk_complete(l, s, tid, now);
    if (th->stopped)
        return 0;
    double now_ns = (double)lf__ticks_to_ns(now - th->t_begin);
    uint64_t want = calibration_want(l, s, th), cal_piece = 0;
    /* The member's first chunk of a calibration (the chunks word counts completed ones, and
     * claiming does not change it). */
    int cal_first = want && lf__word_get(&s->view.w[tid].chunks) == 0;
    if (cal_first && s->spread) {
        cal_piece = want;
        want = lf__exec_spread_first(want, lf__unclaimed(s), l->P);
    }
    c = s->lease_mode ? claim_leased(l, s, tid, want, now_ns, &lo)
                      : s->claim(l, s, tid, want, now_ns, &lo);
    if (!c) {
        th->chunk_n = 0;
        return 0;
    }
    if (cal_first && th->calibrating) {
        th->cal_t0 = now; /* the calibration's wall and CPU time begin */
        th->cal_cpu0 = lf__thread_cpu_ns();
    }
    th->chunk_lo = lo;
    th->chunk_n = c;
    th->chunk_calib = want != 0;
    lf__exec_chunk_begin(&s->ex, tid, now_ns, c);
    th->chunk_staged = 0;
    th->stage_later = 0;
    uint64_t give;
    if (s->lease_mode) {
        give = lf__lease_install(l, s, tid, lo, c, cal_piece);
        th->pieces++;
    } else {
        give = lf__located(s) ? lf__stage_inputs(l, s, tid, lo, c) : c;
    }
    th->t_start = th->chunk_staged ? th->t_staged : lf__ticks(); /* compute begins */
    th->piece_t0 = th->t_start;
    th->piece_lo = lo;
    th->piece_n = give;
    *first = lf__index_of(s, lo);
    *count = give;
    return 1;
}

/* A chunk of an untimed loop sized from the remainder: claimed, and
 * counted by the member (booked at exit). */
static __attribute__((noinline)) int next_untimed(struct lf_loop *l, struct lf__slot *s, int tid,
                                                  long *first, unsigned long *count)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t lo, c = s->claim(l, s, tid, 0, 0.0, &lo);
    if (!c)
        return 0;
    th->fast_chunks++;
    th->fast_iters += c;
    *first = lf__index_of(s, lo);
    *count = c;
    return 1;
}

int lf_loop_next(lf_loop *l, int tid, long *first, unsigned long *count)
{
    if (!l || (unsigned)tid >= (unsigned)l->P)
        return 0; /* misuse: no chunk, nothing touched */
    struct lf__slot *s = l->thr[tid].cur;
    if (!s)
        return 0;
    if (s->untimed && s->kind == LF__CLAIM_FETCH_ADD) {
        /* Nobody reads this schedule's times and its size is fixed: one
         * fetch-and-add, no clock, nothing counted (its loop has ceil(n / c)
         * chunks), and no stack frame; the other paths are out of line. */
        uint64_t lo, c = claim_fetch_add(l, s, tid, &lo);
        if (!c)
            return 0;
        *first = lf__index_of(s, lo);
        *count = c;
        return 1;
    }
    return s->untimed ? next_untimed(l, s, tid, first, count) : next_timed(l, s, tid, first, count);
}

int lf_loop_once(lf_loop *l, int tid)
{
    if (!l || (unsigned)tid >= (unsigned)l->P || !l->thr[tid].cur)
        return 0;
    /* Relaxed: one winner; nothing else is published through it. */
    return lf__fetch_add_relaxed(&l->thr[tid].cur->once, 1) == 0;
}
