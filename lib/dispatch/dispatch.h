/* lib/dispatch/dispatch.h - the shared loop: internal header of the dispatch layer.
 *
 * A team's lf_loop keeps a ring of LF__RING loop slots.  Instance g of the
 * team's loops lives in slot g % LF__RING; the first member to arrive
 * initialises it, the others join without waiting for anybody, and the last
 * member out recycles it for instance g + LF__RING.  So members may run up
 * to LF__RING loops apart (nowait), and no lock is taken anywhere.
 */
#ifndef LF_DISPATCH_H
#define LF_DISPATCH_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "atomics.h"
#include "loopfarm.h"
#include "policy/locality.h"
#include "policy/policy.h"

#define LF__RING 8

/* Relative change of a worker's time per iteration between two executions of
 * a loop beyond which the call site's memory is dropped and the next
 * execution calibrates afresh (documented in README.md). */
#define LF__RECAL_DRIFT 0.5

/* Slot life: the state word holds (instance << 2) | one of these. */
enum { LF__SLOT_FREE = 0, LF__SLOT_INIT = 1, LF__SLOT_READY = 2 };
enum { LF__PHASE_CALIB = 0, LF__PHASE_RUN = 1 };

struct lf__trace_rec {
    uint64_t lo, hi, start, end; /* logical [lo, hi); ticks */
};
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

struct lf__slot {
    /* The claim counter: the only word every chunk writes, alone on its line. */
    lf__au64 next LF__ALIGNED;
    /* Life of the slot; written at entry/exit only. */
    lf__au64 state LF__ALIGNED;
    lf__au64 done;          /* members that have left this instance */
    lf__au64 phase;         /* LF__PHASE_* */
    lf__au64 calib_reports; /* members whose calibration is in */
    lf__au64 calib_claimed; /* 1 once somebody has run policy->calibrated() */
    lf__au64 active;        /* members neither stopped nor gone (LF__P_MAYSTOP) */
    /* Read-only after initialisation (published by the READY store). */
    uint64_t n;
    long lo, incr;
    uint64_t fa_chunk; /* > 0: claims are fetch-and-add of this size */
    int untimed;       /* a schedule whose policy reads no times, and no trace: no
                          clock per chunk, counts kept by the member, booked at exit */
    int solo;          /* team of one: the counter has no other writer */
    int capped;        /* claims within OpenMP's guided bound (lf_loop_set_guided_cap) */
    uint64_t t_begin;  /* ticks at the first entry */
    uint64_t instance;
    struct lf__view view;
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
};

/* What one member keeps for itself (its own cache lines). */
struct lf__thr {
    uint64_t entered;       /* instances entered */
    struct lf__slot *cur;   /* slot of the loop it is in, NULL outside */
    uint64_t chunk_lo;      /* logical start of its outstanding chunk */
    uint64_t chunk_n;       /* its size, 0 when none is outstanding */
    uint64_t t_prev_end;    /* ticks when the previous chunk ended (or entry) */
    uint64_t t_start;       /* ticks when the outstanding chunk was handed out */
    uint64_t cal_t0;        /* ticks and thread CPU ns when its calibration began */
    uint64_t cal_cpu0;
    uint64_t k;             /* index of its next static chunk */
    uint64_t cal_size;      /* calibration chunk size */
    uint64_t fast_chunks;   /* untimed size-dependent path: chunks and iterations
                               taken (the fixed-size path counts nothing: its
                               loop has ceil(n / c) chunks) */
    uint64_t fast_iters;
    int calibrating;        /* 1 until its calibration is reported */
    int chunk_calib;        /* its outstanding chunk was claimed during calibration */
    int stopped;            /* the policy stopped it (LF__P_MAYSTOP) */
    int bound;              /* binding done */
    /* Locality (only used when the slot is homed). */
    int dom;                /* its domain in the current loop */
    int chunk_home;         /* home domain of its outstanding chunk, -1 unknown */
    int chunk_staged;       /* the outstanding chunk was staged */
    int sbuf_dom;           /* domain its staging buffers were allocated on */
    uint64_t t_staged;      /* ticks when the outstanding chunk's staging ended */
    uint64_t stage_ns;      /* staging time of the outstanding chunk, all pieces */
    uint64_t stage_later;   /* of which after its compute began (later pieces) */
    uint64_t pend_lo, pend_n; /* pieces of the outstanding chunk not handed out */
    uint64_t piece;         /* iterations per piece */
    const void *in[LF_MAX_INPUTS];   /* inputs of the outstanding chunk */
    void *sbuf[LF_MAX_INPUTS];       /* staging buffers (lf_numa_alloc) */
    size_t scap[LF_MAX_INPUTS];      /* their sizes */
    struct lf__loc_times times; /* compute time of local / remote chunks */
    struct lf__affine comp_fit;  /* compute ns against iterations (alpha, t) */
    struct lf__affine stage_fit; /* staging ns against iterations (beta, s) */
    uint64_t k_all, k_staged;    /* chunks completed, of which staged */
    double i_all, i_staged;      /* the same in iterations */
    uint64_t n_local, n_remote, n_staged, b_staged; /* this loop's totals */
} LF__ALIGNED;

struct lf_schedule {
    struct lf__sched s;
};

struct lf_loop {
    int P;
    int tracing;
    int guided_cap; /* lf_loop_set_guided_cap */
    struct lf__sched sched;
    char name[128];
    struct lf__slot ring[LF__RING];

    struct lf__wstat *wmem;  /* LF__RING * P statistics slots */
    /* What the call site learned: written by the last member out of a loop,
     * read by the initialiser of another, possibly at the same time, so
     * under mem_lock (never taken on a chunk's path). */
    pthread_mutex_t mem_lock;
    int mem_valid;
    double *mem_ipt;         /* P: ns per iteration */
    uint64_t *mem_cal;       /* P: calibration chunk size that was long enough */
    double (*mem_cost)[3];   /* P: alpha, beta, s (seed 003 eqs. 1-2), ns */
    double claim_ns;
    struct lf_loop_stats last;
    struct lf_loop_numa_stats last_numa;
    int ndom_max;            /* lf_numa_count() when the handle was made */
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

/* ---- Locality (lib/dispatch/locality.c) ---- */

/* Check a loop's data description; 0 or -EINVAL. */
int lf__data_check(const struct lf_data *d, uint64_t n);
/* Set up slot s's homes and modes for this instance (initialiser, alone,
 * mem_lock not held). */
void lf__loc_init(struct lf_loop *l, struct lf__slot *s, const struct lf_data *d);
/* Member tid joins a homed slot: its domain, the owners count. */
void lf__loc_join(struct lf_loop *l, struct lf__slot *s, int tid);
/* Claim for member tid from the domain ranges: want > 0 is a fixed size
 * (calibration), 0 asks the policy.  Sets *lo and th->chunk_home; returns
 * the size, 0 when nothing is left or the policy stopped tid. */
uint64_t lf__loc_claim(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want,
                       uint64_t *lo);
/* Iterations of a homed slot's domain ranges nobody has claimed yet. */
uint64_t lf__loc_unclaimed(const struct lf__slot *s);
/* Home domain of logical iteration k of a homed slot (-1 none). */
int lf__loc_home_of(const struct lf__slot *s, uint64_t k);
/* Point th->in[] at the chunk [lo, lo+c)'s inputs, staging them first when
 * the chunk is remote and staging is on (timed).  Returns how many of the
 * c iterations to hand out now: all, or the first piece of a staged chunk
 * whose input exceeds stage_piece bytes (the rest is pending). */
uint64_t lf__loc_inputs(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t c);
/* Stage the next pending piece of member tid's chunk (prefetched when the
 * previous one was handed out); sets *lo, returns its size. */
uint64_t lf__loc_next_piece(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo);
/* The chunk of member tid ended after busy_ns of compute: refit alpha and
 * t, keep the local / remote times. */
void lf__loc_chunk_done(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t busy_ns);
/* Member tid leaves: add its totals to the slot's. */
void lf__loc_leave(struct lf_loop *l, struct lf__slot *s, int tid);
/* Free member buffers (lf_loop_destroy). */
void lf__loc_free(struct lf_loop *l);
/* Let member tid stop when its policy says so, unless it is the last
 * active member (LF__P_MAYSTOP); 1 when it stopped. */
int lf__try_stop(struct lf_loop *l, struct lf__slot *s, int tid);

/* Ticks → nanoseconds since the clock's epoch (for traces). */
uint64_t lf__dispatch_ns(uint64_t ticks);
/* Append worker w's trace records of slot s to LF_TRACE (last member out). */
void lf__trace_flush(struct lf_loop *loop, struct lf__slot *s);
/* Whether LF_TRACE is set (read once). */
int lf__trace_enabled(void);
/* LF_VERBOSE level (read once). */
int lf__verbose(void);

#endif
