/* lib/exec/exec.h - the executor protocol: everything an executor does
 * around a policy, written once.
 *
 * Three executors drive the policies of lib/policy/: the OpenMP dispatcher
 * (lib/dispatch/, real time, threads), the simulator (lib/sim/, virtual
 * time, one thread), the MPI executor (lib/mpi/) and the test rigs.
 * They differ in how they store shared words, keep time and run workers;
 * they agree on the rules below, which therefore live here and nowhere
 * else: how a claim is sized and clipped, when a stop is honoured, which
 * claim variant a loop instance uses, how calibration chunks grow and what
 * a calibration reports, when the team's calibration ends, what a chunk
 * records, the locality modes and the chunk taken from a domain's range,
 * the lease mode and the size of a lease's pieces and of a thief's take,
 * the affine costs measured and when a fetch of another owner's data pays,
 * and what a call site remembers between executions (with its drift rule
 * and, for auto, its cost profile: lib/exec/profile.c).
 *
 * Pure: no atomics, clocks, threads or OS calls.  Times are plain numbers
 * the executor measured (ns).  Statistics words are written through the
 * view's accessors (lib/policy/policy.h), so a worker's own slot may be
 * updated here while other workers read it.
 */
#ifndef LF_EXEC_H
#define LF_EXEC_H

#include <stdint.h>

#include "exec/select.h"
#include "policy/locality.h"
#include "policy/policy.h"

/* One loop instance as the protocol sees it: the parsed schedule, the
 * instance's policy state (a copy of the schedule's template) and the view
 * the policy decides from.  The executor owns all three. */
/* Team sums of a policy's contributions (policy.h, contrib), for an
 * executor that runs one worker at a time: each worker's latest
 * contributions (P x LF__PSUMS, executor-owned) and their sums.  Kept from
 * LF__PSUM_MIN_P workers on, where the policy's loop over the team is what
 * a chunk costs; below it the policy loops, in the same order as always. */
struct lf__psum {
    double *per;
    double sum[LF__PSUMS];
    uint64_t updates; /* since the sums were last recomputed from scratch */
};
#ifndef LF__PSUM_MIN_P
#define LF__PSUM_MIN_P 256
#endif

struct lf__exec {
    const struct lf__sched *sched;
    void *pstate;
    struct lf__view *view;
    int cap;               /* every claim within OpenMP's guided bound, ceil(r / P): set by an
                              executor that runs a schedule(guided) loop under another policy */
    struct lf__psum *psum; /* NULL: none kept (see lf__exec_psum_wanted) */
    /* LF__P_PROFILE (else NULL): P accumulators of where each worker's
     * chunks lay and what they took, and the instance's copy of the call
     * site's profile (what view->prof points at when it is trusted). */
    struct lf__prof_acc *acc;
    struct lf__profile *prof;
};

/* Whether an executor that runs one worker at a time should keep team sums
 * for this schedule on P workers (then it points x->psum at a struct whose
 * per holds P * LF__PSUMS doubles before lf__exec_start). */
int lf__exec_psum_wanted(const struct lf__sched *s, int P);

/* One worker's chunk times by profile bin during an instance. */
struct lf__prof_acc {
    double it[LF__PROF_BINS]; /* iterations it ran in each bin */
    double ns[LF__PROF_BINS]; /* compute time booked to each bin */
} __attribute__((aligned(64)));

/* ---- Claims ---- */

/* How a loop instance claims its chunks, decided once when it starts. */
enum lf__claim_kind {
    LF__CLAIM_FETCH_ADD, /* fixed size, no calibration: one fetch-and-add */
    LF__CLAIM_CAS,       /* sized by the policy from the remainder: a CAS loop */
    LF__CLAIM_STATIC,    /* partition() decides every chunk: no shared counter */
    LF__CLAIM_DOMAINS,   /* one range per NUMA domain, each with its own counter */
};

/* The claim variant of an instance of n iterations for P workers: domains
 * when locality-aware dispatch is on (loc), a static partition for
 * LF__P_STATIC policies, a fetch-and-add of *fa_chunk iterations when the
 * policy's chunk is fixed, nothing calibrates, the chunks need no locality
 * handling (located == 0) and P + 1 overshoots of the counter cannot wrap
 * it; a CAS loop otherwise, and always under x->cap.  Calls the policy's
 * chunk() once for the fixed size. */
enum lf__claim_kind lf__exec_claim_kind(const struct lf__exec *x, int loc, int located,
                                        uint64_t *fa_chunk);

/* The size of worker w's claim when r >= 1 iterations are unclaimed, at
 * time now (ns since the instance began): the policy's chunk clipped to
 * [1, r]; or 0 when the policy stops w (LF__P_MAYSTOP: "the others finish
 * the rest no later").  The executor honours a stop unless w is the last
 * active worker, and then claims lf__exec_clip(x, 0, r) = 1 instead. */
uint64_t lf__exec_claim_size(const struct lf__exec *x, int w, uint64_t r, double now);

/* A chunk size within [1, r] (r >= 1): 0 becomes 1, more than r becomes r;
 * under x->cap at most ceil(r / P) (OpenMP 5.2 §11.5.3, guided: "each
 * chunk ... proportional to the number of unassigned iterations divided
 * by the number of threads"). */
static inline uint64_t lf__exec_clip(const struct lf__exec *x, uint64_t c, uint64_t r)
{
    c = c == 0 ? 1 : c > r ? r : c;
    if (x->cap) {
        uint64_t bound = lf__div_ceil(r, (uint64_t)x->view->nworkers);
        c = c < bound ? c : bound;
    }
    return c;
}

/* ---- Leases ----
 *
 * A leased chunk [lo, hi) is run by its owner in pieces from the front; a
 * worker that finds the shared counter exhausted takes the back half of the
 * fullest lease, which becomes a lease of its own.  So a worker that turns
 * out slow, stalls or is newly loaded holds up the loop by at most one
 * piece, whatever size its chunk was given. */

enum lf__lease_mode {
    LF__LEASE_OFF = 0,
    LF__LEASE_ON = 1,
    LF__LEASE_FORCE = 2, /* steal before every claim, >= 4 pieces a chunk: tests */
};

/* Largest trip count whose chunks can be leased: a lease packs its two
 * ends, logical iterations, into one 64-bit word. */
#define LF__LEASE_MAXN 0xfffffffeULL

/* Compute time a piece aims at (ns): long enough that handing it out (a
 * CAS on a line only thieves share, a clock read, a return to the body's
 * loop) is a small part of it, short enough that an owner that stalls
 * holds back little (doc/design.md). */
#define LF__PIECE_NS 50000.0

/* Compute time a worker's first piece of a loop instance aims at (ns), by
 * the time per iteration its call site's memory expects: a twenty-fifth
 * of LF__PIECE_NS, so that an expectation 25 times too low (a call site
 * whose instances differ, as a BFS's levels) still gives a first piece no
 * longer than a regular one (lf__exec_piece). */
#define LF__PIECE_FIRST_NS 2000.0

/* The most lf__exec_piece takes an iteration to cost over its worker's
 * mean where a site's costs move (lf__view's piece_peak): so that no
 * piece aims below LF__PIECE_FIRST_NS of the mean time per iteration. */
#define LF__PIECE_PEAK_MAX (LF__PIECE_NS / LF__PIECE_FIRST_NS)

/* The lease mode of an instance of n iterations for P workers whose claim
 * variant is kind: the schedule's lease= (or its policy's default,
 * LF__P_LEASE), but off for a team of one, a static or locality-aware
 * claim, located chunks (staging has pieces of its own), a loop whose
 * chunks must come in increasing order to each worker (monotonic), and
 * trip counts above LF__LEASE_MAXN. */
enum lf__lease_mode lf__exec_lease_mode(const struct lf__sched *s, uint64_t n, int P,
                                        enum lf__claim_kind kind, int located, int monotonic);

/* The piece worker w runs next of a lease with rem >= 1 iterations left
 * (c: the size of the chunk it holds; prev: the piece w ran before this
 * one in this loop instance, 0 for its first): LF__PIECE_NS of compute at
 * w's latest time per iteration, an eighth of the chunk while w has none;
 * under LF__LEASE_FORCE at most a quarter of the chunk; and where the call
 * site's memory expects a time per iteration of w (calib_ipt), a ramp:
 * the first piece at most LF__PIECE_FIRST_NS of that, each later one at
 * most twice the one before (or that first size, if larger).  The ramp
 * keeps the promise of one piece held back while no time of this instance
 * is known: a worker that loses its core just after its first claim
 * (beside a busy process), or whose first iterations turn out the
 * expensive ones, holds a couple of microseconds' worth by the memory, not
 * an eighth of its chunk (doc/design.md).  On a loop of cheap iterations the
 * first size covers the chunk, and nothing changes; without a memory (a
 * first execution, a schedule that keeps none) neither.  Where no later
 * execution has confirmed the site's profile (one just built or replaced
 * because it stopped predicting: the costs may move between executions;
 * view's piece_peak > 1), every piece aims at LF__PIECE_NS at the
 * calib_ipt the memory expects times piece_peak, the costliest bin the
 * profile saw over its mean: the latest piece's time per iteration says
 * nothing of where the next one lies, and a piece sized by a cheap one can
 * land on iterations that cost many times more.  In [1, rem]. */
uint64_t lf__exec_piece(const struct lf__exec *x, int w, enum lf__lease_mode mode, uint64_t c,
                        uint64_t rem, uint64_t prev);

/* The part a thief takes of a lease with rem >= 1 iterations left: the
 * back half, rounded up (a lease of two or more keeps at least one for its
 * owner, so work moves between leases without ever leaving them all
 * empty). */
static inline uint64_t lf__exec_steal_size(uint64_t rem)
{
    return rem - rem / 2;
}

/* A calibration chunk of want >= 1 iterations when r >= 1 are unclaimed:
 * clipped as lf__exec_clip does and to the even share ceil(r / P), so
 * that calibration chunks grown geometrically (an iteration too short to
 * time) never stake more than a worker's share of a short loop. */
static inline uint64_t lf__exec_calib_size(const struct lf__exec *x, uint64_t want, uint64_t r)
{
    uint64_t share = lf__div_ceil(r, (uint64_t)x->view->nworkers);
    return lf__exec_clip(x, want < share ? want : share, r);
}

/* Locality-aware dispatch: the chunk a worker of domain self takes from
 * domain d's range, where rem >= 1 iterations are left, when the claim was
 * sized c >= 1 against the whole loop.  From its own range, c clipped to
 * rem; from another, lf__loc_steal's size, with the victim's owners (a
 * domain none of whose workers has arrived yet counts as holding the
 * team's even share, P / ndom, so that a thief does not take a late
 * domain's whole range).  t: the worker's local and remote compute times. */
uint64_t lf__exec_domain_chunk(uint64_t c, int self, int d, uint64_t rem, int owners, int P,
                               int ndom, const struct lf__loc_times *t, int staging);

/* Whether the executor must time every chunk of an instance on P workers:
 * the policy reads measured times (calibration, stops, LF__P_MEASURE, a
 * feedback hook), unless a team of one runs it whole (lf__exec_solo).
 * Executors add their own reasons (a trace, locality bookkeeping). */
int lf__exec_needs_times(const struct lf__sched *s, int P);

/* Whether an instance of schedule s on P workers needs nothing but a shared counter:
 * its policy sizes every chunk from the remainder, the team size and its
 * parameters alone (no times, calibration, memory, stop, static partition,
 * profile or lease, no start hook, so its state is the parsed template and
 * never changes), and no lease= asks for leases; or a team of one runs it
 * whole (lf__exec_solo: its one chunk is the remainder, sized without the
 * policy's state).  An executor may run such an instance without a handle
 * (lib/dispatch/light.c). */
int lf__exec_light(const struct lf__sched *s, int P);

/* Whether a team of P = 1 runs schedule s as one untimed chunk: a policy
 * that learns a cost profile (auto) has nobody to balance a lone worker
 * against, so it calibrates nothing, hands out all that is left, and its
 * times would teach a team of one nothing it uses; an executor then reads
 * no clock and keeps no memory for the instance (lf__exec_start and
 * lf__exec_mem_end leave the memory alone). */
int lf__exec_solo(const struct lf__sched *s, int P);

/* ---- Loop instance and chunks ---- */

struct lf__site_mem;

/* A loop instance of v->n iterations starts, its workers' statistics
 * zeroed.  When the call site's memory m (NULL: none) is valid and the
 * schedule uses it (memory=on, cal=auto), the view is seeded with what was
 * learned (t_i, the affine costs).  Then the schedule's policy state
 * template is copied into x->pstate and start() runs; when memory stands
 * in for calibration, a_i = bm_i = 1 and calibrated() plans from all n
 * iterations; a team of one under LF__P_PROFILE does not calibrate.  cal0
 * (P entries, or NULL) gets each worker's first
 * calibration chunk: 1, or the size that lasted calns last time.  Returns
 * 1 when the instance begins with a calibration phase. */
int lf__exec_start(const struct lf__exec *x, const struct lf__site_mem *m, uint64_t *cal0);

/* Worker w was handed a chunk of iters iterations at start_ns (ns since
 * the instance began): what the other workers see of its chunk in flight. */
void lf__exec_chunk_begin(const struct lf__exec *x, int w, double start_ns, uint64_t iters);

/* Worker w completed its chunk of iters >= 1 iterations after busy_ns of
 * compute; total_ns adds the scheduling time since its previous chunk
 * ended; calib: the chunk was claimed during the calibration phase.
 * Records it in w's own statistics (the one place chunk statistics are
 * written) and runs the policy's feedback (on w).  When w is still
 * calibrating, applies lf__exec_calib_step to *cal_size and returns 1 when
 * this chunk completes w's calibration: the executor then reports it
 * (lf__exec_calib_report) and, after the team's last report, ends the
 * calibration (lf__exec_calib_end).  Returns 0 otherwise. */
int lf__exec_chunk_done(const struct lf__exec *x, int w, uint64_t iters, uint64_t busy_ns,
                        uint64_t total_ns, int calib, int calibrating, uint64_t *cal_size);

/* Worker w takes no more chunks of this instance (stopped or gone):
 * policies must not count on it. */
void lf__exec_worker_gone(const struct lf__exec *x, int w);

/* ---- Calibration (seed 000 §3.1) ---- */

/* Whether instances of this schedule start with a calibration phase. */
int lf__exec_calibrates(const struct lf__sched *s);

/* A calibration chunk of iters iterations of worker w ended after busy_ns
 * of compute: 1 when its calibration is in (cal=paper: its first chunk;
 * otherwise a chunk that lasted at least calns), else 0 after doubling
 * *cal_size, the worker's next calibration chunk (an iteration too short
 * to time).  Once it is in (not in the paper's mode), *cal_size is at least
 * what lasts calns at the chunk's rate, ceil(calns iters / busy_ns): the
 * size of the calibration-phase chunks the worker takes while the team's
 * calibration is not complete.  That changes nothing after chunks that
 * doubled up to calns; after a spread first lease (lf__exec_spread_first),
 * which is far longer than its starting size, it keeps the chunks that
 * follow from being single iterations. */
int lf__exec_calib_step(const struct lf__sched *s, uint64_t iters, uint64_t busy_ns,
                        uint64_t *cal_size);

/* The first claim of a member of a calibrating execution whose plan
 * spreads (struct lf__plan.spread), when u iterations are unclaimed and its
 * calibration chunk is want: a lease of ceil(u / 2P) iterations, the first
 * chunk of trapezoid self-scheduling (Tzen & Ni, "Trapezoid
 * self-scheduling: a practical scheduling scheme for parallel compilers",
 * IEEE TPDS 1993), or want where that is not larger.  Members that
 * calibrate on adjacent small chunks work side by side on the same cache
 * lines and pages, and a loop whose iterations write across memory not
 * yet touched (each a column of a row-major array) has both fault in the
 * same pages at once, each page taken and zeroed twice; first leases this
 * far apart keep them apart as the program's own static or guided first
 * chunks do.  The lease is timed as one calibration chunk, its first piece
 * is want, and thieves may take its back half as of any lease
 * (doc/auto.md). */
uint64_t lf__exec_spread_first(uint64_t want, uint64_t u, int P);

/* Publish worker w's calibration: t_i = its time per iteration over all
 * its calibration chunks (busy / iters), a_i = avail, l_i = latency_ns,
 * bm_i = bm (González-Vélez & Cole, "Adaptive statistical scheduling of
 * divisible workloads in heterogeneous systems", J. Scheduling, 2009, §3.1). */
void lf__exec_calib_report(const struct lf__exec *x, int w, double avail, double latency_ns,
                           double bm);

/* The team's calibration is in (every worker reported) with r iterations
 * unclaimed: the policy plans its first round. */
void lf__exec_calib_end(const struct lf__exec *x, uint64_t r);

/* ---- Locality modes ---- */

struct lf__loc_modes {
    int loc;     /* claim from one range per domain, own domain first */
    int staging; /* copy a remote chunk's inputs before computing it */
};

/* The modes of an instance whose iterations have a home over >= 2 domains
 * (homed), whose inputs are declared (has_inputs): loc when numa=on and
 * the policy is not static (a partition decides every chunk), staging when
 * stage=on and there are inputs to copy.  Neither without a home. */
struct lf__loc_modes lf__exec_loc_modes(const struct lf__sched *s, int homed, int has_inputs);

/* A worker of domain self computed a chunk of iters iterations whose data
 * is homed on domain home (-1: no home) in busy_ns: book it in t as remote
 * or local (a staged copy is local data).  Returns 1 when it was remote. */
int lf__exec_loc_chunk_done(struct lf__loc_times *t, int home, int self, int staged, double busy_ns,
                            double iters);

/* ---- Affine costs measured at run time (seed 003 eqs. 1-2) ---- */

/* One worker's fits: compute ns and staging ns against iterations, and
 * how many of its chunks and iterations were staged.  Owned by the
 * executor, one per worker; zero it when the worker joins a loop. */
struct lf__exec_costs {
    struct lf__affine comp;  /* alpha + c t, from chunks computed on local data */
    struct lf__affine stage; /* beta + c s, from staged chunks */
    uint64_t k_all, k_staged;
    double i_all, i_staged;
};

/* Worker w's chunk of iters iterations ended: staged (its inputs were
 * copied to it first, in stage_ns for all its copies), computed in busy_ns
 * on local data (local: a staged copy is local) or not.  Refits and
 * publishes w's comp_lat_ns (alpha, local chunks only), stage_lat_ns and
 * stage_ns_per_iter (beta and 1/B weighted by the share of its chunks and
 * iterations that were staged: a worker whose own memory holds its data is
 * not ranked as one with a slow link, umr's resource selection, Yang &
 * Casanova, "UMR: a multi-round algorithm for scheduling divisible
 * workloads", IPDPS 2003, §5.2). */
void lf__exec_costs_add(const struct lf__exec *x, struct lf__exec_costs *c, int w, double iters,
                        double busy_ns, int staged, double stage_ns, int local);

/* Fewest chunks a fitted line rests on before it is published (by
 * lf__exec_costs_add) or planned with: a line through one or two chunks is
 * a first fetch's window set-up or a cold cache, not a cost model. */
#define LF__COSTS_MIN 4

/* The staging line of c, beta (ns per chunk) and s (ns per iteration),
 * unweighted: 0 once it rests on LF__COSTS_MIN staged chunks, else -1 with
 * nothing set. */
int lf__exec_costs_stage(const struct lf__exec_costs *c, double *beta, double *s);
/* Its compute line, alpha (ns per chunk) and t (ns per iteration), by the
 * same rule. */
int lf__exec_costs_comp(const struct lf__exec_costs *c, double *alpha, double *t);

/* ---- Fetching another owner's data (seed 003 eqs. 1-2) ---- */

/* What a worker knows when it may fetch a chunk of data another owner
 * holds (ns; 0 where unknown): its own compute time per iteration t_self
 * and staging cost beta + c s (costs: beta and s rest on LF__COSTS_MIN
 * staged chunks; staged: how many it fitted so far), and the owner's
 * compute time per iteration (0: unknown, or the owner is gone and will
 * compute nothing more).  A chunk's compute latency alpha is left out: the
 * owner pays one for the rest of its range too. */
struct lf__fetch {
    double t_self, beta, s;
    int costs;
    uint64_t staged;
    double t_owner;
};

/* A fetch's latency beta is at most 1/LF__FETCH_AMORTISE of the chunk's
 * transfer and compute, where the owner's remainder allows. */
#define LF__FETCH_AMORTISE 8.0

/* The chunk a worker fetches from an owner's range of rem >= 1 iterations
 * that lf__exec_domain_chunk sized c >= 1, the owner claiming the same
 * range from its other end.  While the staging costs are unknown, a probe
 * of at most 2^staged iterations (1, 2, 4, 8: the fetches that measure
 * them, at distinct sizes, stake little on a link that may cost far more
 * than the compute); c while the rates are unknown.  Else at least
 * LF__FETCH_AMORTISE beta / (s + t_self), and at most the balance
 * k = (rem t_owner - beta) / (t_owner + s + t_self), where the worker's k
 * fetched and computed end when the owner's rem - k do; 0 when k < 1: the
 * owner alone ends its range before one fetched iteration would be done,
 * so the worker leaves it to the owner (Yang & Casanova, "UMR: a
 * multi-round algorithm for scheduling divisible workloads", IPDPS 2003,
 * eqs. 1-2, the costs of a chunk on a worker). */
uint64_t lf__exec_fetch_size(uint64_t c, uint64_t rem, const struct lf__fetch *f);

/* ---- What a call site remembers between executions ---- */

/* Relative change of a worker's time per iteration between two executions
 * beyond which the memory is dropped and the next execution calibrates
 * afresh (documented in README.md). */
#define LF__RECAL_DRIFT 0.5

/* ---- Execution plans (lib/exec/plan.c) ----
 *
 * How one execution of a loop runs is one value, a plan, decided before
 * the execution starts by lf__exec_plan and carried to the executor, which
 * runs it and decides nothing.  A call site of a learning schedule (auto)
 * keeps several candidate plans and chooses between them by the wall time
 * its executions took under each (lf__exec_plan_book): a way of running
 * that does not pay at a site is not used there.  The kinds: */
enum lf__plan_kind {
    /* The site's schedule as written: the policy starts (calibrated, or
     * from the memory), times its chunks, deals by the site's profile,
     * leases; the site's memory learns from it. */
    LF__PLAN_DEALT,
    /* The loop's own schedule: the program's kind and chunk (through a
     * preload shim), or guided self-scheduling where the program named
     * none (LF_FOR, the explicit API).  Untimed: nothing is learned. */
    LF__PLAN_OWN,
    /* Self-scheduled: fixed chunks of about LF__SELF_NS of one worker's
     * compute (one iteration when iterations are longer), claimed from one
     * block per worker where the order of chunks is free.  Untimed. */
    LF__PLAN_SELF,
    /* Serial: the first member to claim takes the whole execution as one
     * fixed chunk and the others find nothing.  Where the members' claims,
     * atomics and shared lines cost more than the second core gives (a
     * frontier of a few hundred vertices whose updates contend), one
     * member alone is faster; it stays in the team, so the region's
     * barriers and thread count are the program's.  Untimed. */
    LF__PLAN_SERIAL,
    /* 2P equal fixed chunks, untimed: an execution whose whole compute is
     * expected below LF__TINY_NS, too short for anything to pay.  Decided
     * by that rule, not by selection, and booked to no plan. */
    LF__PLAN_TINY,
    LF__PLANS
};

/* Names of the kinds, for messages, traces and the plan= key. */
extern const char *const lf__plan_names[LF__PLANS];

/* Compute a self-scheduled chunk aims at (ns of one worker): a claim that
 * moves the counter's line between cores costs a few per cent of it. */
#define LF__SELF_NS 5000.0
#define LF__TINY_NS 10000.0
/* The most SERIAL's first trial may cost of a site's booked executions (a
 * quick arm, select.h: one execution at P times the team's time and the
 * rest of a trial at 1 + LF__SEL_QUICK at most; it is tried only once a
 * site has booked that many): a site that runs only a few times never
 * tries it. */
#define LF__SERIAL_FIRST_SHARE 0.015
/* Every LF__TINY_RECHECK-th execution a site would run tiny runs its
 * chosen plan instead, so that a loop that grew is noticed. */
#define LF__TINY_RECHECK 32

/* The selection between a site's candidate plans: lib/exec/select.h. */
_Static_assert(LF__PLANS <= LF__SEL_ARMS, "a selection holds an arm for every plan kind");

/* Bands of trip counts a call site chooses its plans in separately
 * (lf__exec_site_sel). */
#define LF__SITE_BANDS 4

/* Per worker: ns per iteration, the calibration chunk that was long enough,
 * and the affine costs alpha, beta, s of seed 003 eqs. 1-2 (ns).  P
 * entries each, owned by the executor (which also serialises access). */
struct lf__site_mem {
    int valid;
    double *ipt;
    uint64_t *cal;
    double (*cost)[3];
    struct lf__profile prof; /* LF__P_PROFILE: the cost profile (lib/exec/profile.c) */
    /* LF__P_PROFILE: one worker's compute time per iteration in the
     * latest DEALT execution (ns, the team's busy time over its
     * iterations; 0: unknown), and the tiny executions since the latest
     * execution that was not. */
    double team_ns_per_iter;
    unsigned tiny_runs;
    /* The choice between the site's plans (arm k: plan kind k), one per
     * band of trip counts (lf__exec_site_sel); band[i]: the band sel[i]
     * chooses for, plus one (0: not yet given to one). */
    struct lf__select sel[LF__SITE_BANDS];
    unsigned char band[LF__SITE_BANDS];
};

/* The band of trip count n: b for 4^b <= n < 4^(b+1) (0 for n = 0). */
int lf__exec_band(uint64_t n);

/* The selection that chooses the plan of an execution of n iterations at
 * the site whose memory is m.  A site chooses separately for each band of
 * trip counts (lf__exec_band), band b holding counts 4^b to 4^(b+1) - 1:
 * executions of a few and of many iterations can favour different plans
 * (a frontier's small and large steps), and one choice for both pays the
 * worse plan in one of them.  The first LF__SITE_BANDS bands to occur get
 * a selection each, a band after the site's first starting from the plan
 * the nearest band has chosen (it settles on that one, as the first band
 * settles on DEALT); a later band shares the selection of the nearest
 * band that has one (the lower on a tie).  Every band's selection treats
 * SERIAL as a quick arm (lib/exec/select.h).  Pure; the caller serialises
 * m. */
struct lf__select *lf__exec_site_sel(struct lf__site_mem *m, uint64_t n);

/* Whether a fixed-size execution of P workers, n iterations in chunks of
 * c, claims from one block per worker (lib/dispatch/claim.c) instead of
 * one counter: only where the order of chunks is free (not monotonic, not
 * leased) and there are at least LF__SPLIT_CHUNKS chunks per worker, where
 * the claims and not the loop's tail are what costs. */
#define LF__SPLIT_CHUNKS 16
int lf__exec_split_wanted(int P, uint64_t n, uint64_t c, int monotonic, int leasing);

/* What the plan of an execution depends on besides the site's memory. */
struct lf__plan_in {
    const struct lf__sched *sched; /* the site's schedule */
    const struct lf__sched *own;   /* the loop's own schedule; NULL: guided */
    int workers;
    uint64_t n;
    int monotonic;  /* chunks must come to each worker in increasing order */
    int guided_cap; /* every claim within OpenMP's guided bound */
    int located;    /* chunks go through locality or staging bookkeeping */
    int loc;        /* claims from one range per NUMA domain */
    int traced;     /* LF_TRACE records every chunk (so chunks are timed) */
    int no_tiny;    /* the entry that borrowed the handle decided it is not tiny */
};

/* One execution's plan. */
struct lf__plan { /* every field is compared by lf__exec_plan_same */
    enum lf__plan_kind kind;
    const struct lf__sched *sched; /* the policy it runs: the site's, the own, or dynamic */
    enum lf__claim_kind claim;
    uint64_t chunk; /* LF__CLAIM_FETCH_ADD: the fixed size */
    enum lf__lease_mode lease;
    int split;  /* fixed chunks from one block per worker (lib/dispatch/claim.c) */
    int cap;    /* OpenMP's guided bound on every claim */
    int timed;  /* every chunk is timed (the policy reads times, a trace, leases, locality) */
    int learns; /* the site's memory seeds the policy and learns at the end (DEALT only) */
    int booked; /* its wall time is booked to its kind (lf__exec_plan_book) */
    int spread; /* leased DEALT of auto: first claims of a calibration by lf__exec_spread_first */
};

/* Whether P workers can claim n iterations in fixed chunks of c with
 * fetch-and-add without the counter wrapping. */
int lf__exec_fa_fits(uint64_t n, uint64_t c, int P);

/* The plan of the next execution at a site whose memory is m (NULL: none,
 * as for a schedule that keeps none; then the site's schedule as written).
 * A schedule that learns a cost profile (auto), on a team of two or more
 * with its memory on, no explicit lease= and no paper calibration, chooses:
 * tiny by the rule above; else the plan its selection exploits, or one
 * on trial (DEALT for its first LF__SEL_SETTLE executions; then OWN and
 * SELF are tried, each for a trial of LF__SEL_TRIAL executions, longer
 * where the choice flips under load that comes and goes, and a losing one
 * is tried again when due; SERIAL too once the site has booked enough
 * executions, LF__SERIAL_FIRST_SHARE, as a quick arm whose trial stops
 * once it loses clearly; a site that chose SERIAL runs its
 * tiny executions serially).  plan=KIND in the schedule forces a kind, but
 * SELF only once the site has a time per iteration to size its chunks by
 * (DEALT measures it), as choosing admits SELF.  The constraints narrow
 * the candidates: located chunks run DEALT only; the guided bound rules
 * out SELF, SERIAL and TINY; a monotonic loop's fixed chunks
 * come from one counter.  Counts a tiny execution in m.  Pure; the caller
 * serialises m. */
struct lf__plan lf__exec_plan(const struct lf__plan_in *in, struct lf__site_mem *m);

/* Whether plans a and b run an execution alike: every field equal (their
 * padding bytes, which memcmp would read, do not count). */
int lf__exec_plan_same(const struct lf__plan *a, const struct lf__plan *b);

/* Whether an execution of n iterations at a site whose team computes
 * team_ns per iteration, after tiny_runs tiny executions in a row, runs
 * tiny (schedule s on P workers, no constraint against it): for an entry
 * that decides tiny executions itself, without a handle (lib/omp/team.c). */
int lf__exec_tiny_due(const struct lf__sched *s, int P, double team_ns, unsigned tiny_runs,
                      uint64_t n);
/* Whether schedule s on P workers chooses its plans (see lf__exec_plan). */
int lf__exec_plan_chooses(const struct lf__sched *s, int P);
/* A tiny execution's fixed chunk: ceil(n / 2P), at least 1. */
uint64_t lf__exec_tiny_size(int P, uint64_t n);

/* An execution of n >= 1 iterations under plan p took wall_ns from its
 * first worker's entry to its last worker's exit: book wall_ns / n to p's
 * kind in the site's selection (a no-op unless p->booked), which updates
 * the choice by the rule of lib/exec/select.h.  Pure; the caller
 * serialises m. */
void lf__exec_plan_book(struct lf__site_mem *m, const struct lf__plan *p, double wall_ns,
                        uint64_t n);

/* ---- Cost profile of a call site (LF__P_PROFILE; lib/exec/profile.c) ---- */

/* A profile that predicted the last execution at least this well (1 minus
 * its relative error) is trusted: the next execution deals by it. */
#define LF__PROF_TRUST 0.5
/* Forgetting factor: the weight of what the profile said before against
 * what one more execution observed. */
#define LF__PROF_KEEP 0.5
/* An execution whose chunks took less compute than this (ns, all workers)
 * teaches the profile nothing: its times are mostly the clock's and the
 * claims' own, and chunks that short are sized by the claim cost anyway. */
#define LF__PROF_MIN_NS 100000.0

/* Worker w ran the iterations [lo, lo + iters) of the instance (a piece
 * of a lease, or a whole chunk) in busy_ns of compute: book them and
 * their time into the bins they span, the time split as the instance's
 * profile expects it (evenly without one).  A no-op without x->acc. */
void lf__exec_profile_book(const struct lf__exec *x, int w, uint64_t lo, uint64_t iters,
                           double busy_ns);

/* Worker w completed the chunk whose part it ran is [lo, lo + iters): set
 * its last_units (the chunk's expected units under the instance's profile,
 * iters without one).  A no-op without x->acc.  Call it before
 * lf__exec_chunk_done, whose feedback may read last_units. */
void lf__exec_profile_chunk(const struct lf__exec *x, int w, uint64_t lo, uint64_t iters);

/* The instance ended (under the executor's serialisation of m): fold what
 * it observed into m->prof.  Each worker's time per unit and each bin's
 * relative cost are estimated together (alternating twice: speeds against
 * the costs, costs against the speeds), so that a slow worker is not taken
 * for an expensive region.  A profile that predicted this execution with
 * a relative error above 1 - LF__PROF_TRUST is replaced by the
 * observation and not trusted next time; otherwise it moves towards the
 * observation by 1 - LF__PROF_KEEP, its confidence is 1 - the error, and
 * its d2 takes in the mean squared error (lf__exec_profile_weight).
 * An execution of less than LF__PROF_MIN_NS of compute changes nothing.
 * Returns 1 when a trusted profile was dropped. */
int lf__exec_profile_learn(const struct lf__exec *x, struct lf__site_mem *m);

/* The share, in [0, 1], of profile p's spread over its bins that its
 * squared errors (p->d2) do not explain as noise; 1 for a profile built
 * from one execution.  An instance that trusts p deals by
 * 1 + weight (cost - 1) (lf__exec_start; the estimate in profile.c). */
double lf__exec_profile_weight(const struct lf__profile *p);

/* Worker w's compute time per unit of profile p over the instance's
 * chunks (busy time over their expected units; flat without p); 0 when
 * it ran nothing. */
double lf__exec_unit_time(const struct lf__exec *x, int w, const struct lf__profile *p);

/* Whether an instance of schedule s on P workers reads the site's memory
 * at all (schedules that neither calibrate nor read times skip it, and so
 * does a team of one that runs it whole, lf__exec_solo). */
int lf__exec_mem_wanted(const struct lf__sched *s, int P);

/* The instance ended: remember what it measured (a worker that got no
 * iterations keeps what was known of it), or, when some worker's time per
 * iteration moved by more than LF__RECAL_DRIFT since the last execution,
 * drop the memory and return 1 with the largest drift in *drift.  Under
 * LF__P_PROFILE the profile is learned first (lf__exec_profile_learn), a
 * worker's rate is its time per unit of it, and drift only sets *drift:
 * such a schedule refreshes rates from every chunk and keeps its memory. */
int lf__exec_mem_end(const struct lf__exec *x, struct lf__site_mem *m, double *drift);

#endif
