/* lib/dispatch/dispatch.h - the shared loop: internal header of the dispatch
 * layer, the real-time executor for threads.
 *
 * A team's lf_loop keeps a ring of LF__RING loop slots.  Instance g of the
 * team's loops lives in slot g % LF__RING; the first member to arrive
 * initialises it, the others join without waiting for anybody, and the last
 * member out recycles it for instance g + LF__RING.  So members may run up
 * to LF__RING loops apart (nowait), and no lock is taken anywhere.  A
 * handle loaned to an OpenMP team (lib/omp/team.c) runs one execution at a
 * time, in slot 0 alone: the loan counts its members out, and the last
 * one finishes the slot (lf__loop_finish).
 *
 * The rules around the policy (claim sizes, stops, calibration, memory) are
 * lib/exec/'s; this layer adds concurrency, clocks and data.  Files by job:
 *   loop.c      life of a handle and of a loop instance (entry, exit, ring)
 *   claim.c     lf_loop_next and the claim variants, one chosen per instance
 *   measure.c   timing a completed chunk, calibration reports, its end
 *   locality.c  the domain ranges of a loop whose data has a home
 *   staging.c   inputs of a chunk, copied near the member when remote
 *   lease.c     chunks as leases: pieces for the owner, the back for a thief
 *   schedule.c  public schedule objects and LF_SCHEDULE
 *   trace.c     LF_TRACE
 * Calls go one way: loop and claim use measure, staging and locality;
 * measure uses staging and locality; staging uses locality.
 */
#ifndef LF_DISPATCH_H
#define LF_DISPATCH_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "atomics.h"
#include "exec/exec.h"
#include "loopfarm.h"
#include "policy/locality.h"
#include "policy/policy.h"

#define LF__RING 8

/* Slot life: the state word holds (instance << 2) | one of these. */
enum { LF__SLOT_FREE = 0, LF__SLOT_INIT = 1, LF__SLOT_READY = 2 };
enum { LF__PHASE_CALIB = 0, LF__PHASE_RUN = 1 };

struct lf__trace_rec {
    uint64_t lo, hi, start, end; /* logical [lo, hi); ticks */
    uint32_t pieces;             /* pieces the body got it in */
    int32_t from;                /* member it was stolen from, -1: the shared counter */
};

/* A member's lease (lib/dispatch/lease.c), alone on its line. */
struct lf__lease {
    lf__au64 range;
} LF__ALIGNED;
/* A member's own block of a split fixed-size claim (claim.c): the counter
 * its claims advance and the block's end, on a line of their own. */
struct lf__own {
    lf__au64 next;
    uint64_t hi;
} LF__ALIGNED;
struct lf__trace_buf {
    struct lf__trace_rec *rec;
    size_t len, cap;
} LF__ALIGNED;

/* One NUMA domain's range of a loop instance (locality-aware dispatch). */
struct lf__dom {
    lf__au64 next;   /* next logical iteration of the range: its claim counter */
    lf__au64 owners; /* members of this domain in the loop */
    uint64_t lo, hi; /* the range [lo, hi), read-only after initialisation */
} LF__ALIGNED;

struct lf_loop;
struct lf__slot;
/* A claim variant: up to want iterations (0: as many as the policy says)
 * for member tid at now (ns since the instance began); sets *lo and returns
 * the size, 0 when nothing is left or the policy stopped tid. */
typedef uint64_t (*lf__claim_fn)(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want,
                                 double now, uint64_t *lo);

struct lf__slot {
    /* The claim counter, the only word every chunk writes; on its line what
     * the initialiser writes for every instance, which each joining member
     * reads just before its first claim: one line crosses to a joining core
     * at entry, not two. */
    lf__au64 next LF__ALIGNED;
    lf__au64 state;   /* life of the slot: (instance << 2) | LF__SLOT_* */
    uint64_t t_begin; /* ticks at the first entry */
    uint64_t instance;
    /* Written at entry (when they change) and at exit. */
    lf__au64 done LF__ALIGNED; /* members that have left this instance */
    lf__au64 phase;            /* LF__PHASE_* */
    lf__au64 calib_reports;    /* members whose calibration is in */
    lf__au64 calib_claimed;    /* 1 once somebody has run policy->calibrated() */
    lf__au64 active;           /* members neither stopped nor gone (LF__P_MAYSTOP) */
    /* Read-only after initialisation (published by the READY store), and
     * stored only when they change (LF__SET): the next execution of a call
     * site mostly finds the same values, so the lines stay in the joining
     * members' caches. */
    uint64_t n;
    long lo, incr;
    /* The execution's plan (lf__exec_plan, at initialisation), and what
     * the claim path reads of it, beside the bounds. */
    enum lf__claim_kind kind;
    lf__claim_fn claim; /* its function */
    uint64_t fa_chunk;  /* LF__CLAIM_FETCH_ADD: the fixed size */
    int untimed;        /* chunks not timed: counts kept by the member, booked at exit */
    int solo;           /* team of one: the counter has no other writer */
    int split;          /* LF__CLAIM_FETCH_ADD from own blocks (claim.c), not next */
    int spread; /* plan.spread: a calibrating member's first claim is lf__exec_spread_first's */
    struct lf__plan plan;
    struct lf__view view;
    struct lf__exec ex; /* the protocol's handle on the plan's sched, pstate and view */
    /* LF__P_PROFILE sites: where each member's chunks lay, and the
     * instance's copy of the profile; ex.acc and ex.prof point here in a
     * DEALT execution, which alone learns. */
    struct lf__prof_acc *acc;
    struct lf__profile *prof;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8] LF__ALIGNED;
    struct lf__trace_buf *trace; /* P buffers, when tracing */
    uint64_t *cal0;              /* P: first calibration chunk size per member */
    /* Data locality (lib/dispatch/locality.c), read-only after init:
     * homed: the ranges in dom[] say where the iterations live;
     * loc: members claim from their domain's range first (numa=on);
     * staging: remote chunks' inputs are copied first (stage=on). */
    int homed, loc, staging;
    int ndom;
    struct lf__dom *dom; /* LF loop's ndom_max entries */
    struct lf_data data; /* the loop's description (inputs), when given */
    /* Locality totals, added by each member as it leaves. */
    lf__au64 n_local, n_remote, n_staged, b_staged;
    /* Leases (lib/dispatch/lease.c): the mode, decided at initialisation,
     * P lease words, and the totals each member adds as it leaves. */
    int lease_mode;
    struct lf__lease *lease;
    lf__au64 n_pieces, n_steals, n_stolen;
    lf__au64 once; /* lf_loop_once's count of askers in this instance */
    /* Split fixed-size claims: P blocks, one per member (claim.c). */
    struct lf__own *own;
};

/* What one member keeps for itself (its own cache lines). */
struct lf__thr {
    uint64_t entered;     /* instances entered */
    struct lf__slot *cur; /* slot of the loop it is in, NULL outside */
    int from;             /* split claims: the block it claims from (its own first) */
    uint64_t chunk_lo;    /* logical start of its outstanding chunk */
    uint64_t chunk_n;     /* its size, 0 when none is outstanding */
    uint64_t t_begin;     /* the instance's s->t_begin, copied at entry (off the
                             claim counter's line, which every chunk writes) */
    uint64_t t_prev_end;  /* ticks when the previous chunk ended (or entry) */
    uint64_t t_start;     /* ticks when the outstanding chunk was handed out */
    uint64_t cal_t0;      /* ticks and thread CPU ns when its calibration began */
    uint64_t cal_cpu0;
    uint64_t k;           /* index of its next static chunk */
    uint64_t cal_size;    /* calibration chunk size */
    uint64_t fast_chunks; /* untimed size-dependent path: chunks and iterations
                             taken (the fixed-size path counts nothing: its
                             loop has ceil(n / c) chunks) */
    uint64_t fast_iters;
    int calibrating; /* 1 until its calibration is reported */
    int chunk_calib; /* its outstanding chunk was claimed during calibration */
    int stopped;     /* the policy stopped it (LF__P_MAYSTOP) */
    int bound;       /* binding done */
    /* Leases: of the outstanding chunk, iterations handed out as pieces
     * and how many pieces; where it came from (-1: the shared counter,
     * else the member it was stolen from); this instance's totals. */
    uint64_t run_n;
    uint64_t piece_lo, piece_n, piece_t0; /* the piece its body has: [lo, lo + n), since */
    uint32_t chunk_pieces;
    int chunk_from;
    uint64_t pieces, steals, stolen;
    /* Locality (only used when the slot is homed). */
    int dom;                       /* its domain in the current loop */
    int chunk_home;                /* home domain of its outstanding chunk, -1 unknown */
    int chunk_staged;              /* the outstanding chunk was staged */
    int sbuf_dom;                  /* domain its staging buffers were allocated on */
    uint64_t t_staged;             /* ticks when the outstanding chunk's staging ended */
    uint64_t stage_ns;             /* staging time of the outstanding chunk, all pieces */
    uint64_t stage_later;          /* of which after its compute began (later pieces) */
    uint64_t pend_lo, pend_n;      /* pieces of the outstanding chunk not handed out */
    uint64_t piece;                /* iterations per piece */
    const void *in[LF_MAX_INPUTS]; /* inputs of the outstanding chunk */
    void *sbuf[LF_MAX_INPUTS];     /* staging buffers (lf_numa_alloc) */
    size_t scap[LF_MAX_INPUTS];    /* their sizes */
    struct lf__loc_times times;    /* compute time of local / remote chunks */
    struct lf__exec_costs costs;   /* its affine costs (lib/exec/exec.h) */
    uint64_t n_local, n_remote, n_staged, b_staged; /* this loop's totals */
} LF__ALIGNED;

struct lf_schedule {
    struct lf__sched s;
};

struct lf_loop {
    int P;
    int tracing;
    int guided_cap;     /* lf_loop_set_guided_cap */
    int monotonic;      /* lf_loop_set_monotonic: no leases */
    int loaned;         /* lf__loop_set_loaned: one execution at a time, whose
                           members' exits the loan counts (lib/omp/team.c) */
    unsigned ring_mask; /* slots in use - 1: LF__RING - 1, or 0 when loaned
                           (one execution at a time keeps one slot's lines hot) */
    struct lf__sched sched;
    char name[128];
    struct lf__slot ring[LF__RING];

    struct lf__wstat *wmem; /* LF__RING * P statistics slots */
    /* What the call site learned: written by the last member out of a loop,
     * read by the initialiser of another, possibly at the same time, so
     * under mem_lock (never taken on a chunk's path); a loaned handle's
     * finisher takes no lock, its executions never overlapping. */
    pthread_mutex_t mem_lock;
    struct lf__site_mem mem; /* P entries each (lib/exec/exec.h) */
    double claim_ns;
    unsigned long runs;      /* timed loop instances completed (under mem_lock) */
    unsigned long tiny_done; /* tiny executions started (under mem_lock), for LF_VERBOSE */
    /* lf__loop_skip_tiny: the borrower decided the next execution is not
     * tiny (0 or 1; its initialiser resets it).  Beside the memory, off the
     * line that every member reads at every entry. */
    int no_tiny;
    /* The loop's own schedule (lf__loop_set_own), the OWN candidate of a
     * site that chooses its plans; has_own 0: guided (lf__exec_plan). */
    struct lf__sched own;
    int has_own;
    /* Leased: the slot of the execution in progress, written by its
     * initialiser and its finisher (off the line every claim reads). */
    struct lf__slot *open;
    struct lf_loop_stats last;
    struct lf_loop_numa_stats last_numa;
    int ndom_max; /* lf_numa_count() when the handle was made */
    /* What the last learned home was learned for (under mem_lock). */
    struct {
        const void *base;
        long lo, incr;
        uint64_t n;
        size_t size;
        long stride;
        int valid, held;
        uint64_t lo_d[LF__MAXDOM], hi_d[LF__MAXDOM];
    } learned;
    /* P members, inline so that a claim reaches its slot in one load. */
    struct lf__thr thr[];
};

/* The loop index of logical iteration k of a loop from lo by incr
 * (wrapping arithmetic: the result is in range by construction). */
static inline long lf__index_at(long lo, long incr, uint64_t k)
{
    return (long)((unsigned long)lo + (unsigned long)k * (unsigned long)incr);
}

/* The loop index of logical iteration k of slot s. */
static inline long lf__index_of(const struct lf__slot *s, uint64_t k)
{
    return lf__index_at(s->lo, s->incr, k);
}

/* The claim on a counter of n iterations that a slot's CAS variant
 * (claim.c) and a handle-free instance (light.c) share: a size from what
 * is left, size(ctx, r) for the r >= 1 unclaimed iterations (0: the member
 * takes none), then a CAS loop; sets *lo and returns the size of
 * [*lo, *lo + size), 0 when nothing is left.
 *
 * *cur is a value the counter held (the counter only grows): the CAS
 * expects it, and on failure learns the counter's value and sizes again;
 * after a claim it is where the claim left the counter, so a member that
 * keeps it between claims claims without reading the counter first.  On a
 * counter that another core wrote last, a read followed by a CAS moves the
 * line twice (shared, then exclusive), a CAS alone once (doc/design.md). */
static inline uint64_t lf__counter_cas(lf__au64 *next, uint64_t n,
                                       uint64_t (*size)(void *ctx, uint64_t r), void *ctx,
                                       uint64_t *cur, uint64_t *lo)
{
    uint64_t at = *cur;
    while (at < n) {
        uint64_t c = size(ctx, n - at);
        if (!c)
            break;
        /* Relaxed: the range is the only thing the counter hands out. */
        if (lf__cas_weak_relaxed(next, &at, at + c)) {
            *lo = at;
            *cur = at + c;
            return c;
        }
    }
    *cur = at;
    return 0;
}

/* ---- Instances without a handle (light.c) ----
 *
 * An instance of a schedule that needs nothing but a counter
 * (lf__exec_light) runs without a handle: each member keeps the view, the
 * protocol's handle and the bounds in its own cursor (the same for every
 * member), and the team shares only the counter, which lives where the
 * team met (a libgomp work share's memory, lib/omp) or, for a team of one,
 * in the cursor.  Nothing is timed, learned or recorded. */
struct lf__light {
    struct lf__view v;
    struct lf__exec x; /* x.view is set on each use: the cursor may be copied */
    lf__au64 *next;    /* the team's counter; NULL: a team of one, whose
                          counter is at alone */
    uint64_t at;       /* where this member's latest claim left the counter (0 first) */
    uint64_t gss;      /* the policy's lf__gss minimum (gss_min), 0: none */
    uint64_t fixed;    /* a fixed size instead (a tiny execution, lf__exec_tiny_size), 0: none */
    uint64_t n;        /* trip count; 0 for a member that runs nothing */
    long lo, incr;
    int tid;
    int met; /* lib/omp: the member holds the work share the team met in */
};

/* Whether the loops of schedule s on a team of P may run without a
 * handle: lf__exec_light, claims sized from the remainder (a fixed size
 * keeps a slot's fetch-and-add), and nothing the dispatcher does per
 * handle is asked for (LF_TRACE, LF_BIND). */
int lf__light_ok(const struct lf__sched *s, int P);
/* Whether s on a team of P may run its tiny executions (lf__exec_tiny_due)
 * without a handle, as a fixed-size handle-free instance (lt->fixed),
 * where the team can meet: nothing per handle asked for, as above. */
int lf__light_tiny_ok(const struct lf__sched *s, int P);

/* Member tid of a team of P starts an instance of s over n iterations
 * from lo by incr (n = 0: the member takes none); cap: OpenMP's guided
 * bound; next: the team's zeroed counter, NULL for a team of one. */
void lf__light_start(struct lf__light *lt, const struct lf__sched *s, int P, int tid, int cap,
                     long lo, long incr, uint64_t n, lf__au64 *next);

static inline uint64_t lf__light_size(void *ctx, uint64_t r)
{
    struct lf__light *lt = ctx;
    if (lt->fixed)
        return lt->fixed < r ? lt->fixed : r;
    /* What lf__exec_claim_size computes, without the calls (GSS). */
    if (lt->gss)
        return lf__exec_clip(&lt->x, lf__gss(r, (uint64_t)lt->v.nworkers, lt->gss), r);
    return lf__exec_claim_size(&lt->x, lt->tid, r, 0.0);
}

/* The member's next chunk, as lf_loop_next; 0 when the loop is done
 * (inline: lib/omp's lf_omp_light_next is the whole per-chunk path). */
static inline int lf__light_next(struct lf__light *lt, long *first, unsigned long *count)
{
    uint64_t lo, c;
    if (lt->next) {
        lt->x.view = &lt->v; /* for lf__light_size */
        c = lf__counter_cas(lt->next, lt->n, lf__light_size, lt, &lt->at, &lo);
    } else { /* a team of one: the whole loop, one chunk, no atomic */
        lo = lt->at;
        c = lt->n - lo;
        lt->at = lt->n;
    }
    if (!c)
        return 0;
    *first = lf__index_at(lt->lo, lt->incr, lo);
    *count = c;
    return 1;
}

/* The address of the data of loop index i of input in. */
static inline const char *lf__elem_addr(const struct lf_input *in, long i)
{
    return (const char *)in->base + i * in->stride * (long)in->size;
}

/* Whether chunks of slot s go through locality and staging bookkeeping. */
static inline int lf__located(const struct lf__slot *s)
{
    return s->homed || s->data.ninputs > 0;
}

/* Store v in a field of a slot's read-mostly part unless it holds v
 * already (see struct lf__slot). */
#define LF__SET(field, v)                                                                          \
    do {                                                                                           \
        __typeof__(field) lf__v_ = (v);                                                            \
        if ((field) != lf__v_)                                                                     \
            (field) = lf__v_;                                                                      \
    } while (0)

/* The same for a slot's shared word, reset by its initialiser before the
 * slot is published (relaxed: the READY store orders it). */
static inline void lf__reset(lf__au64 *p, uint64_t v)
{
    if (lf__load_relaxed(p) != v)
        lf__store_relaxed(p, v);
}

/* ---- Handles loaned to OpenMP teams (lib/omp/team.c) ---- */

/* Mark handle l as loaned (before its first instance): it runs one
 * execution at a time, in slot 0; each member leaves it with lf_loop_end as
 * usual, but the loan counts the exits (one count per loop instead of
 * two) and its last member calls lf__loop_finish.  Nothing else can run in
 * the handle meanwhile, so the finisher takes no mem_lock, and nobody reads
 * an untimed execution's times or statistics, so it reads no clock. */
void lf__loop_set_loaned(lf_loop *l);
/* Record and recycle the execution in progress of loaned handle l, after
 * every member has left it (ordered before by the loan's count). */
void lf__loop_finish(lf_loop *l);
/* Of loaned handle l: one worker's time per iteration that its latest
 * DEALT execution measured (0: none yet; read by its finisher), for an
 * entry that decides tiny executions itself and runs them without the
 * handle (lib/omp/team.c); and, told by that entry before the members
 * enter, that its next execution is not tiny (the handle then runs the
 * plan its selection gives). */
double lf__loop_team_ns(const lf_loop *l);
void lf__loop_skip_tiny(lf_loop *l);
/* The loop's own schedule for handle l's OWN plan (before its first
 * instance): a spec that lf_schedule_parse accepts; 0, or -EINVAL (the
 * handle keeps guided). */
int lf__loop_set_own(lf_loop *l, const char *spec);

/* ---- Claims (lib/dispatch/claim.c) ---- */

/* The claim function of a variant. */
lf__claim_fn lf__claim_of(enum lf__claim_kind kind);
/* Give each of s's P members its block of the n iterations, chunk-aligned
 * for chunks of c. */
void lf__split_init(struct lf__slot *s, int P, uint64_t n, uint64_t c);

/* ---- Leases (lib/dispatch/lease.c) ---- */

/* Member tid is about to claim from the shared counter: mark its lease. */
void lf__lease_mark(struct lf__slot *s, int tid);
/* Member tid got the chunk [lo, lo + c) (c = 0: nothing): keep all but
 * its first piece as its lease (or clear the mark); returns the piece,
 * of at most first iterations when first > 0 (a spread first lease's
 * first piece is its calibration chunk; the pieces after it are sized as
 * any lease's, lf__exec_piece). */
uint64_t lf__lease_install(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t c,
                           uint64_t first);
/* The next piece of member tid's lease: sets *lo, returns its size, or 0
 * when the lease is empty (thieves took the rest, or it ran it all). */
uint64_t lf__lease_piece(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo);
/* Take the back of the fullest other lease: sets *lo and *victim and
 * returns its size, or 0 when no lease holds anything (after waiting out
 * claims in progress). */
uint64_t lf__lease_steal(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo, int *victim);

/* ---- Measurement (lib/dispatch/measure.c) ---- */

/* Book the chunk member tid finished at ticks now: statistics, trace,
 * calibration report (the last one ends the team's calibration), feedback. */
void lf__chunk_complete(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t now);
/* Iterations nobody has claimed yet. */
uint64_t lf__unclaimed(const struct lf__slot *s);

/* ---- Locality (lib/dispatch/locality.c) ---- */

/* Check a loop's data description for the n iterations lo, lo + incr, ...:
 * 0, or -EINVAL when it is malformed or an element address of an index
 * (halo included) or a chunk's byte span would not fit the arithmetic. */
int lf__data_check(const struct lf_data *d, long lo, long incr, uint64_t n);
/* Set up slot s's homes and modes for this instance (initialiser, alone,
 * mem_lock not held). */
void lf__loc_init(struct lf_loop *l, struct lf__slot *s, const struct lf_data *d);
/* Member tid joins a homed slot: its domain, the owners count. */
void lf__loc_join(struct lf_loop *l, struct lf__slot *s, int tid);
/* Iterations of a homed slot's domain ranges nobody has claimed yet. */
uint64_t lf__loc_unclaimed(const struct lf__slot *s);
/* Home domain of logical iteration k of a homed slot (-1 none). */
int lf__loc_home_of(const struct lf__slot *s, uint64_t k);

/* ---- Staging (lib/dispatch/staging.c) ---- */

/* Point th->in[] at the chunk [lo, lo+c)'s inputs, staging them first when
 * the chunk is remote and staging is on (timed).  Returns how many of the
 * c iterations to hand out now: all, or the first piece of a staged chunk
 * whose input exceeds stage_piece bytes (the rest is pending). */
uint64_t lf__stage_inputs(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t c);
/* Stage the next pending piece of member tid's chunk (prefetched when the
 * previous one was handed out); sets *lo, returns its size. */
uint64_t lf__stage_next_piece(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo);
/* The chunk of member tid ended after busy_ns of compute: refit alpha and
 * t, keep the local / remote times. */
void lf__stage_chunk_done(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t busy_ns);
/* Member tid joins a slot whose chunks are located: reset its cost model. */
void lf__stage_join(struct lf_loop *l, int tid);
/* Member tid leaves: add its totals to the slot's. */
void lf__stage_leave(struct lf_loop *l, struct lf__slot *s, int tid);
/* Free member buffers (lf_loop_destroy). */
void lf__stage_free(struct lf_loop *l);

/* Ticks → nanoseconds since the clock's epoch (for traces). */
uint64_t lf__dispatch_ns(uint64_t ticks);
/* Append worker w's trace records of slot s to LF_TRACE (last member out). */
void lf__trace_flush(struct lf_loop *loop, struct lf__slot *s);
/* Record member tid's chunk [lo, lo + n) run from start to end (ticks). */
void lf__trace_add(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t n,
                   uint64_t start, uint64_t end, uint32_t pieces, int from);
/* Append the profile p that a loop of n iterations (instance) left its
 * site with to LF_TRACE's FILE.profile (the last member out). */
void lf__trace_profile(struct lf_loop *l, uint64_t instance, uint64_t n,
                       const struct lf__profile *p);
/* Expand LF_TRACE's pattern ("%p": pid, "%%": %) into out; 0 or -ENAMETOOLONG. */
int lf__trace_name(const char *pattern, long pid, char *out, size_t len);
/* Whether LF_TRACE is set (read once). */
int lf__trace_enabled(void);
/* LF_VERBOSE level (read once). */
int lf__verbose(void);

#endif
