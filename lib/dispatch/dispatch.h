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
    uint64_t t_begin;  /* ticks at the first entry */
    uint64_t instance;
    struct lf__view view;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8] LF__ALIGNED;
    struct lf__trace_buf *trace; /* P buffers, when tracing */
    uint64_t *cal0;              /* P: first calibration chunk size per member */
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
} LF__ALIGNED;

struct lf_schedule {
    struct lf__sched s;
};

struct lf_loop {
    int P;
    int tracing;
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
    double claim_ns;
    struct lf_loop_stats last;
    /* P members, inline so that a claim reaches its slot in one load. */
    struct lf__thr thr[];
};

/* Ticks → nanoseconds since the clock's epoch (for traces). */
uint64_t lf__dispatch_ns(uint64_t ticks);
/* Append worker w's trace records of slot s to LF_TRACE (last member out). */
void lf__trace_flush(struct lf_loop *loop, struct lf__slot *s);
/* Whether LF_TRACE is set (read once). */
int lf__trace_enabled(void);
/* LF_VERBOSE level (read once). */
int lf__verbose(void);

#endif
