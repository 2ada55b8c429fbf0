/* lib/mpi/mpi.h - the executor for MPI ranks: internal header.
 *
 * A rank is one worker of the rank-level schedule; the rules around the
 * policy (claim sizes, stops, calibration) are lib/exec/'s, this layer adds
 * where the shared words live and how they are reached.  Files by job:
 *   window.c  the host window on rank 0 of the communicator: the ring of
 *             loop slots (counter, bounds, phase, reports) and each rank's
 *             statistics, reached by passive-target atomics only
 *   rank.c    one rank's side of a loop instance: entry, claim (from the
 *             loop's counter, or owner-first from the ranks' blocks),
 *             completed chunk (statistics published one-sided), exit
 *   master.c  the two-sided mode: rank 0 serves claims by message
 *   staging.c data owned by ranks: windows over their blocks, a rank
 *             chunk's inputs fetched by MPI_Get, its results returned by
 *             MPI_Put
 *   team.c    the public API: the rank's threads share each rank chunk
 *             through the node dispatcher's public lf_loop
 * Calls go one way: team uses rank and staging; rank uses window and
 * master.
 *
 * The slot ring mirrors the node dispatcher's (lib/dispatch/dispatch.h):
 * instance g of a handle's loops uses slot g % LF__MPI_RING; every rank
 * knows the bounds itself, so no rank initialises anything at entry; the
 * last rank out resets the slot and opens it for instance g + LF__MPI_RING.
 *
 * Call-site memory (memory=on): each slot keeps what its loops learned.
 * The last rank out of instance g updates the slot's memory from every
 * rank's final statistics before it opens the slot for g + LF__MPI_RING,
 * so every rank of that instance starts from the same memory (a loop
 * remembers what it learned LF__MPI_RING executions ago: the price of
 * agreeing without a collective).
 *
 * Owner-first (a loop whose data ranks own, under lib/exec's locality
 * mode): rank j's block of iterations [home[j], home[j + 1]) is its
 * domain, with one word in the slot that counts what was claimed from its
 * front (by its owner) and from its back (by other ranks, once their own
 * blocks are empty).  The instance's counter is then not used.
 */
#ifndef LF_MPI_H
#define LF_MPI_H

#include <mpi.h>
#include <stdint.h>

#include "exec/exec.h"
#include "policy/policy.h"

#define LF__MPI_RING 8

/* Words of a slot's control block in the host window (uint64 each). */
enum {
    LF__MW_STATE,   /* the instance the slot is open for */
    LF__MW_NEXT,    /* the claim counter: next logical iteration */
    LF__MW_FP,      /* fingerprint of the bounds (0: no rank entered yet) */
    LF__MW_T0,      /* instance start, MPI_Wtime as double bits (0: none yet) */
    LF__MW_DONE,    /* ranks that have left */
    LF__MW_PHASE,   /* 0 calibrating, 1 first round begun */
    LF__MW_REPORTS, /* ranks whose calibration is in */
    LF__MW_RCAL,    /* iterations unclaimed when calibration ended */
    LF__MW_ACTIVE,  /* ranks neither stopped nor gone (LF__P_MAYSTOP) */
    LF__MW_AVAIL,   /* a stream: items appended so far */
    LF__MW_CLOSED,  /* a stream: 1 once no more will come */
    LF__MW_CTL = 16 /* words per control block (two cache lines) */
};

/* Words of one rank's statistics slot. */
#define LF__MPI_WSTAT_WORDS (sizeof(struct lf__wstat) / sizeof(uint64_t))

/* The host window: LF__MPI_RING slots of LF__MW_CTL control words and P
 * statistics slots each, on rank 0; every rank holds a passive-target
 * epoch on it (MPI_Win_lock_all) for the handle's life. */
struct lf__mpi_win {
    MPI_Comm comm;
    MPI_Win win;
    int rank, P;
    uint64_t *base; /* the window's memory on this rank (rank 0's is the host) */
};

/* Collective: allocate and open the host window of comm.  0 or -ENOMEM
 * (the result is agreed by all ranks). */
int lf__mpi_win_open(struct lf__mpi_win *w, MPI_Comm comm);
/* Collective: close and free it. */
void lf__mpi_win_close(struct lf__mpi_win *w);
/* What a slot remembers of its loops per rank (lib/exec/exec.h's
 * lf__site_mem): ns per iteration, calibration chunk, alpha, beta, 1/B. */
#define LF__MPI_MEM_WORDS 5

/* Offset (in words) of slot s's control word k, of rank j's statistics,
 * of the slot's memory (a valid word, then LF__MPI_MEM_WORDS per rank), and
 * of rank j's block word (P of them in a row; owner-first). */
MPI_Aint lf__mpi_ctl(const struct lf__mpi_win *w, int s, int k);
MPI_Aint lf__mpi_stat(const struct lf__mpi_win *w, int s, int j);
MPI_Aint lf__mpi_mem(const struct lf__mpi_win *w, int s);
MPI_Aint lf__mpi_blk(const struct lf__mpi_win *w, int s, int j);
/* A block word: iterations claimed from the block's front in its low 32
 * bits, from its back in its high 32 (0: none yet, the reset state), so
 * one compare-and-swap claims from either end and the two never overlap.
 * Blocks larger than this run without owner-first. */
#define LF__MPI_BLK_MAX 0xffffffffULL
/* One-sided operations on the host's words, each complete at the host when
 * it returns (flushed): read, write, add (returns the old value),
 * compare-and-swap (returns the old value).  Element-wise atomic against
 * each other, which plain MPI_Get / MPI_Put would not be. */
uint64_t lf__mpi_get(const struct lf__mpi_win *w, MPI_Aint off);
void lf__mpi_put(const struct lf__mpi_win *w, MPI_Aint off, uint64_t v);
uint64_t lf__mpi_fadd(const struct lf__mpi_win *w, MPI_Aint off, uint64_t v);
uint64_t lf__mpi_cas(const struct lf__mpi_win *w, MPI_Aint off, uint64_t expect, uint64_t desired);
/* Read or write n consecutive words. */
void lf__mpi_get_block(const struct lf__mpi_win *w, MPI_Aint off, int n, uint64_t *out);
void lf__mpi_put_block(const struct lf__mpi_win *w, MPI_Aint off, int n, const uint64_t *in);

/* A rank chunk: logical iterations [lo, lo + n) of the instance. */
struct lf__mpi_chunk {
    uint64_t lo, n;
    double t_claim;  /* MPI_Wtime when it was handed out */
    int calib;       /* claimed during the calibration phase */
    uint64_t remote; /* iterations whose data other ranks own */
    double stage_ns; /* time fetching its inputs and returning its results */
    int last;        /* the last piece of what the rank claimed (see piece) */
};

struct lf__mpi_master;

/* One rank's side of a handle's loops. */
struct lf__mpi_rank {
    struct lf__mpi_win win;
    struct lf__mpi_master *master; /* two-sided mode, else NULL */
    struct lf__sched sched;
    uint64_t entered; /* instances entered */
    /* The current instance (valid while inside). */
    int inside;
    int slot;
    uint64_t n;            /* trip count; a stream's: UINT64_MAX, its end unknown */
    int stream;            /* the instance is a stream: claims end at AVAIL */
    uint64_t stream_items; /* a stream's items, as this rank left it */
    enum lf__claim_kind kind;
    uint64_t fa_chunk;
    int timed;       /* the policy reads times: statistics travel */
    int calibrating; /* this rank's calibration is not in yet */
    int run;         /* this rank has seen the first round begin */
    int stopped;
    uint64_t k;                           /* its next static chunk */
    uint64_t cal_size;                    /* its calibration chunk size */
    double t_begin;                       /* the instance's start, common to all ranks */
    double t_entry;                       /* this rank's entry */
    double t_prev_end;                    /* when its previous chunk ended */
    double claim_s;                       /* time spent claiming */
    double busy_s;                        /* time its team computed */
    double stage_s;                       /* time staging */
    uint64_t claims;                      /* claims from the rank level */
    uint64_t chunks, iters, staged_iters; /* rank chunks (pieces) its team ran */
    uint64_t local_chunks, remote_chunks; /* of a loop with data: in its own block, or not */
    uint64_t owner_waits;                 /* claims that left a remainder to its owner */
    /* Owner-first (loc): the data's homes (P + 1), the block words as last
     * read and what each block has left (P each). */
    int loc;
    int homed; /* the loop has data owned by ranks */
    const unsigned long *home;
    uint64_t *blk, *blk_rem;
    double wait_ns; /* LF__MPI_WAIT for an owner: about how long it needs */
    /* A claim whose data other ranks own runs in pieces of at most piece
     * iterations (lf__mpi_stage_piece; 0: no data); [rest_lo, rest_lo +
     * rest_n) is what is left of the claim being handed out.  The policy
     * and the statistics see the whole claim: its pieces' iterations and
     * busy time add up (acc_n, acc_busy) until its last is done. */
    uint64_t piece, rest_lo, rest_n;
    int rest_calib;
    uint64_t acc_n, acc_busy;
    uint64_t iter_bytes; /* an iteration's input and result */
    uint64_t stage_peak; /* the most bytes one staged piece held */
    /* Other ranks may be fetching from this rank's block: always without
     * owner-first; with it, once another rank took from its block's back. */
    int served;
    /* Its affine costs (seed 003), kept over the handle's loops while they
     * use the same data (costs_data: its id), so that a fit rests on more
     * than one loop's few fetches; otherwise per loop. */
    struct lf__exec_costs costs;
    uint64_t costs_data;
    struct lf__view view;
    struct lf__wstat *w;     /* P statistics slots: this rank's own, the others' as last read */
    uint64_t *cal0;          /* P */
    struct lf__site_mem mem; /* the slot's memory as read at entry (P entries each) */
    int use_mem;             /* the schedule reads it (memory=on, calibrates or measures) */
    int from_memory;         /* the instance started from it */
    struct lf__exec ex;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8];
};

/* lf__mpi_rank_claim's answer when a stream has nothing to hand out yet
 * but is not closed, or when what is left is best left to its owners
 * (owner-first; r->wait_ns says about how long they need): let go of any
 * lock, wait, and ask again. */
#define LF__MPI_WAIT (-1)

/* Collective: set up r over comm for schedule s (copied).  0, or -ENOMEM. */
int lf__mpi_rank_init(struct lf__mpi_rank *r, MPI_Comm comm, const struct lf__sched *s, int master);
/* Collective: release it. */
void lf__mpi_rank_free(struct lf__mpi_rank *r);
/* The rank enters its next instance, of n iterations (stream: items
 * appended while it runs) with bounds fingerprint fp and data d (NULL:
 * none; else d->home[P] == n): 0, or -ERANGE when the instance was entered
 * by another rank with other bounds (the rank has then left it).  With d,
 * the instance runs owner-first when lib/exec's locality mode says so for
 * the rank schedule (numa=on, the default, and a policy that is not
 * static), on >= 2 ranks, in one-sided mode, every block within
 * LF__MPI_BLK_MAX. */
struct lf_mpi_data;
int lf__mpi_rank_begin(struct lf__mpi_rank *r, uint64_t n, int stream, uint64_t fp,
                       const struct lf_mpi_data *d);
/* Whether schedule s can size a stream's chunks: its policy must not need
 * the trip count (NULL), else a message naming those that can. */
const char *lf__mpi_stream_refused(const struct lf__sched *s);
/* Append count items to the stream of instance g (0 or more), or close it
 * (count ignored); waits until the instance's slot is open. */
void lf__mpi_stream_append(struct lf__mpi_rank *r, uint64_t g, uint64_t count, int close);
/* Claim the rank's next chunk into *c: 1, 0 when nothing is left for this
 * rank (or the policy stopped it), LF__MPI_WAIT (a stream, for now). */
int lf__mpi_rank_claim(struct lf__mpi_rank *r, struct lf__mpi_chunk *c);
/* Whether other ranks may be fetching from this rank's block now (see
 * served); under owner-first, until one is seen, reads the block's word
 * (one atomic on the host window). */
int lf__mpi_rank_served(struct lf__mpi_rank *r);
/* The rank's team completed chunk c (in claim order). */
void lf__mpi_rank_done(struct lf__mpi_rank *r, const struct lf__mpi_chunk *c);
/* The rank leaves the instance. */
void lf__mpi_rank_end(struct lf__mpi_rank *r);

/* ---- Data owned by ranks (staging.c) ---- */

struct lf_mpi_loop;
/* The communicator of a handle (team.c); MPI_COMM_NULL for NULL. */
MPI_Comm lf__mpi_loop_comm(const struct lf_mpi_loop *ml);

/* What loopfarm/mpi.h's lf_mpi_data is. */
struct lf_mpi_data {
    MPI_Comm comm;
    int P, me;
    unsigned long *home; /* P + 1 */
    const char *in;
    char *out;
    size_t in_elem, out_elem;
    MPI_Win win_in, win_out; /* MPI_WIN_NULL when there is no input, output */
    uint64_t id;             /* this process's number for it (never 0) */
    uint64_t piece;          /* the most iterations one staged rank chunk holds */
};

/* The most iterations a rank chunk whose data other ranks own may hold
 * when an iteration's input and result are in_elem + out_elem bytes:
 * LF_MPI_STAGE_BYTES (16 MiB when unset; read, and a malformed value
 * reported, once per process) over that, at least 1.  A larger claim is
 * staged and run in pieces of this size (rank.c), so a rank's staging
 * buffers stay within LF__MPI_RING times LF_MPI_STAGE_BYTES whatever the
 * rank schedule claims. */
uint64_t lf__mpi_stage_piece(size_t in_elem, size_t out_elem);

/* A rank chunk's buffers: where its input is (in_at: the copy, or the
 * owner's block in place when this rank owns the whole chunk) and where
 * its results go (out_at: likewise). */
struct lf__mpi_buf {
    char *in, *out;
    size_t in_cap, out_cap;
    const char *in_at;
    char *out_at;
    MPI_Request *req; /* fetches in flight (prefetch), nreq of them */
    int nreq, req_cap;
};

/* Make chunk [lo, lo + n)'s input reachable at b->in_at, fetching what
 * other ranks own, and point b->out_at where its results are to be
 * written.  The fetches are complete when it returns, or, with ahead,
 * in flight (MPI_Rget) until lf__mpi_stage_wait.  Returns the iterations
 * whose data other ranks own.  A buffer that cannot be allocated is
 * reported and the job aborted (the input has nowhere else to go). */
uint64_t lf__mpi_stage_in(const struct lf_mpi_data *d, uint64_t lo, uint64_t n,
                          struct lf__mpi_buf *b, int ahead);
/* Complete the fetches lf__mpi_stage_in left in flight. */
void lf__mpi_stage_wait(struct lf__mpi_buf *b);
/* The results of chunk [lo, lo + n), written at b->out_at, go to their
 * owners (MPI_Put, complete at the owners when it returns). */
void lf__mpi_stage_out(const struct lf_mpi_data *d, uint64_t lo, uint64_t n,
                       const struct lf__mpi_buf *b);

/* ---- Two-sided mode (master.c) ---- */

/* Collective: set up the master's state over r's communicator (>= 2
 * ranks).  0 or -ENOMEM. */
int lf__mpi_master_init(struct lf__mpi_rank *r);
void lf__mpi_master_free(struct lf__mpi_rank *r);
/* Rank 0: serve the other ranks' claims of the current instance until each
 * of them has said it is done. */
void lf__mpi_master_serve(struct lf__mpi_rank *r);
/* A worker rank's claim through the master: 1 with *c, 0 when the loop is
 * over for it.  Asks for the following chunk before returning this one. */
int lf__mpi_master_claim(struct lf__mpi_rank *r, struct lf__mpi_chunk *c);
/* A worker rank's team completed a chunk of iters iterations in busy_ns:
 * the news goes to the master with its next request. */
void lf__mpi_master_done(struct lf__mpi_rank *r, uint64_t iters, uint64_t busy_ns);
/* A worker rank leaves the instance: tells the master, drains its
 * outstanding request. */
void lf__mpi_master_leave(struct lf__mpi_rank *r);

#endif
