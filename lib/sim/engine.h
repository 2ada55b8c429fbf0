/* lib/sim/engine.h - what the simulator's two protocols share (internal to
 * lib/sim/): the state of a run, its event heap, compute times under speed
 * profiles and the calibration steps.  engine.c runs the pull protocol (a
 * worker claims when idle, as the runtime does) and push.c the master that
 * sends chunks (seeds 001-004).
 */
#ifndef LF_SIM_ENGINE_H
#define LF_SIM_ENGINE_H

#include <stdint.h>

#include "exec/exec.h"
#include "policy/locality.h"
#include "sim/sim.h"

/* W_READY: released from a wait, its claim event is queued. */
enum { W_IDLE, W_BUSY, W_WAIT, W_READY, W_DONE };

/* What the engine keeps per worker beside its lf__wstat slot. */
struct wsim {
    int state;       /* W_* */
    int cal_pending; /* still calibrating: its current chunk may report */
    int seg;         /* current segment of the speed profile */
    uint64_t cal_size;
    uint64_t seq;    /* chunks claimed so far */
    uint64_t k;      /* LF__P_STATIC: index of the next partition() call */
    double prev_end; /* end of its previous chunk (0 at loop entry) */
    /* Domains: compute ns and iterations of its local or staged chunks and
     * of its unstaged remote ones (by the chunk's home), for t_local and x. */
    struct lf__loc_times times;
    struct lf__sim_chunk cur;
    /* Push (push.c): the chunks sent to it and not yet fully reported
     * back, oldest first, in a ring of inflight + 1; the one it computes
     * (or computes next) is ring[(rhead + ccur) % cap]. */
    struct pchunk *ring;
    int rhead, rcount, ccur;
    int outstanding; /* messages (pieces) sent and not yet reported back */
    int computing;   /* a piece's compute-end event is queued */
    int gone;        /* gets no more chunks */
    int in_ready;    /* first-ready: queued in the ready heap at ready_t */
    double ready_t;
    double cstart;    /* compute start of the piece it computes */
    double prev_note; /* when the master last heard of a chunk's first piece */
};

/* Push: a chunk on its way to, or on, a worker, in one or two pieces. */
struct pchunk {
    uint64_t lo, size, size1; /* size1: the first piece (size when whole) */
    uint64_t seq, order;
    int calib, npieces, computed, notified;
    double sent, arrive[2]; /* sent from the master; each piece there */
    double busy, busy1;     /* compute time of the pieces computed; of the first */
    double end;             /* compute end of its last piece so far */
};

/* An event: worker w's (or, w == P, the master's) next step at time t;
 * kind orders events of one time (pull uses only 0). */
struct ev {
    double t;
    int kind;
    int w;
};

/* Two levels: what a rank's team keeps from one rank chunk to the next. */
#define LF__SIM_TEAM_RING 8 /* rank chunks a team may have in flight (lib/mpi: LF__MPI_RING) */
struct team {
    double *avail;                  /* when each thread is free for the next rank chunk */
    double ends[LF__SIM_TEAM_RING]; /* ends of its latest rank chunks, by k % ring */
    uint64_t k;                     /* rank chunks it took */
    struct lf__site_mem *mem;       /* the node level's memory of its sub-loops, or NULL */
};

/* Min-heap of (t, kind, w): a strict order. */
struct heap {
    struct ev *a;
    int n;
};

struct sim {
    const struct lf__sim_platform *pf;
    const struct lf__policy *pol;
    const struct lf__sched *sched;
    const struct lf__sim_workload *wl;
    const struct lf__sim_opts *o;
    struct lf__sim_result *res;
    void *pstate;
    struct lf__view view;
    struct lf__exec ex; /* the protocol's handle on sched, pstate and view */
    struct wsim *ws;
    struct heap h;
    uint64_t n, next;    /* trip count; shared counter (iterations claimed) */
    uint64_t static_sum; /* LF__P_STATIC: iterations partition() handed out */
    int calibrating;     /* team in the calibration phase */
    uint64_t fixed;      /* an untimed execution's fixed chunk (lf__exec_untimed), 0: none */
    int nreported;       /* workers whose calibration is in */
    int active;          /* workers not done nor stopped (LF__P_MAYSTOP) */
    double port_free;    /* one-port staging: when the master's port is free */
    double claim_s;
    double max_speed;
    uint64_t left;  /* iterations not yet claimed (shared counter or ranges) */
    uint64_t order; /* claims so far */
    /* Domains (D = 0: none). */
    int D;
    int homed;       /* >= 2 domains and a blocked placement: the runtime knows the home */
    int loc, stage;  /* numa=on, stage=on in force */
    int home;        /* LF__SIM_HOME_* */
    unsigned passes; /* reads of a remote input without staging */
    uint64_t page;   /* LF__SIM_HOME_INTERLEAVE: iterations per page */
    uint64_t hlo[LF__SIM_MAXDOM], hhi[LF__SIM_MAXDOM]; /* blocked homes: [hlo, hhi) */
    uint64_t rem[LF__SIM_MAXDOM]; /* numa on: unclaimed iterations of each range */
    int owners[LF__SIM_MAXDOM];   /* workers of each domain */
    double port[LF__SIM_MAXDOM];  /* when each domain's port is free */
    /* Push (push.c). */
    int cap;             /* ring entries per worker */
    int rr;              /* round-robin: whose turn it is */
    double sport, rport; /* when the master's send and receive ports are free */
    struct heap ready;   /* first-ready: (time it could take a chunk, worker) */
    struct pchunk *rings;
    /* Two levels (team.c): a team per worker, a scratch platform of threads. */
    uint64_t base; /* the run's iterations start here in the cost table */
    double origin; /* the policies' clock origin, seconds */
    struct team *teams;
    struct lf__sim_worker *tw;
    struct lf__site_mem *mems;
    void *tpool;
};

void lf__sim_heap_push(struct heap *h, struct ev e);
struct ev lf__sim_heap_pop(struct heap *h);

/* Time at which worker i, starting compute work at t0, has done work units
 * of it under its speed profile (a worker's own times never decrease). */
double lf__sim_work_end(struct sim *S, int i, double t0, double work);

/* Seconds to whole ns, at least 1. */
uint64_t lf__sim_to_ns(double s);

/* Book a chunk's statistics into the result (worker i, compute busy_s
 * seconds of which useful_s without latencies, staging stage_s) and pass it
 * to the on_chunk callback. */
void lf__sim_record(struct sim *S, int i, const struct lf__sim_chunk *c, double busy_s,
                    double useful_s);

/* Useful compute [t0, t1) of a worker: add its part inside the window. */
void lf__sim_window(struct sim *S, double t0, double t1);

/* Worker i's calibration is in: report it (seed 000 §3.1, times only). */
void lf__sim_calib_report(struct sim *S, int i);

/* Every worker has reported at t: end the calibration phase.  Returns 1
 * when it ended now. */
int lf__sim_calib_done(struct sim *S, double t);

/* LF__P_STATIC: worker i's next chunk from partition() into *lo, *c.
 * Returns 1, 0 when it has no more, or -EPROTO (message in err) when the
 * chunk lies outside [0, n) or beyond the trip count in all. */
int lf__sim_partition(struct sim *S, int i, uint64_t *lo, uint64_t *c, char *err, size_t errlen);

/* Two levels: set up S->teams for S->pf (every worker a rank of threads,
 * o->node the node schedule).  0, -ENOMEM or -EINVAL (message in err). */
int lf__sim_teams_init(struct sim *S, char *err, size_t errlen);
void lf__sim_teams_free(struct sim *S);

/* Two levels: rank i's team computes its rank chunk [lo, lo + c) of the
 * run, its threads free from t0 on (claim, staging and the rank's compute
 * latency done): a sub-loop of the node schedule over the chunk, each
 * thread joining when it has left its previous rank chunk.  Returns 0 with
 * *end (the team's last thread out) and *next (when the rank claims again:
 * its first thread out of this chunk, held back while LF__SIM_TEAM_RING
 * chunks are in flight), or -ENOMEM / -EPROTO (message in err). */
int lf__sim_team_chunk(struct sim *S, int i, double t0, uint64_t lo, uint64_t c, double *end,
                       double *next, char *err, size_t errlen);

/* Run the push protocol on S, set up by lf__sim_run.  0, -ENOMEM or
 * -EPROTO (message in err). */
int lf__sim_push_run(struct sim *S, char *err, size_t errlen);

#endif
