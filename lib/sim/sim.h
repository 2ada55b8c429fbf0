/* lib/sim/sim.h - lf-sim's engine: the library's real policies driven on a
 * modelled platform in virtual time.
 *
 * A platform is a set of workers with affine costs (seed 003 §3.2): a chunk of
 * c iterations claimed by worker i is first staged (beta_i + c*bytes/B_i
 * seconds, through the master's single port or in parallel), then computed
 * (alpha_i + work/S_i seconds, where S_i may change over time through a
 * piecewise-constant profile).  A workload gives each iteration a cost in
 * units of work (1 = one iteration of unit cost), drawn from a seeded
 * distribution.  lf__sim_run() plays the dispatcher's rules (lib/dispatch/
 * loop.c) event by event and reports makespan, efficiency and each chunk.
 *
 * A platform may instead be split into NUMA domains.  Then each iteration's
 * input has a home domain (the workload's placement), only iterations whose
 * home is not the worker's own domain cost anything to move, and every
 * domain's memory is a port serving one transfer at a time: the remote reads
 * of an unstaged chunk (passes times its bytes) or the staging copy of a
 * staged one (beta_i + bytes/B_i, once).  The schedule keys numa= and stage=
 * (struct lf__sched) act as in the runtime (lib/dispatch/locality.c): with
 * numa on the loop is one range per domain and workers take from their own
 * first, by the rules of lib/policy/locality.h; with stage on a chunk whose
 * home is another domain is copied before it is computed.
 */
#ifndef LF_SIM_SIM_H
#define LF_SIM_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "exec/exec.h" /* struct lf__site_mem, enum lf__run_kind */
#include "policy/policy.h"

/* ---- Platform ---- */

/* From time t (seconds) on, the worker runs at factor f of its speed. */
struct lf__sim_seg {
    double t;
    double f;
};

struct lf__sim_worker {
    double speed;     /* S_i: units of work per second (> 0) */
    double latency;   /* alpha_i: compute start-up per chunk, seconds (seed 003 eq. (1)) */
    double stage_lat; /* beta_i: staging start-up per chunk, seconds (seed 003 eq. (2)) */
    double bandwidth; /* B_i: staging rate, bytes per second; 0 = unlimited */
    int nseg;         /* speed profile, sorted by t, first t == 0; nseg 0 = constant */
    struct lf__sim_seg *prof;
    int domain;   /* NUMA domain, 0 .. ndom-1 (platforms with domains only) */
    double start; /* joins the loop at this time, seconds (a start-up delay; 0) */
    int nlseg;    /* link profile, as prof: from t its bandwidth is f x bandwidth */
    struct lf__sim_seg *lprof;
    /* Two levels (doc/lf-sim.md, "Ranks of threads"): this worker is a rank
     * whose team has `threads` threads (0: one level).  Thread j computes at
     * tl[j % ntl] (ntl > 0) or tspeed units per second, under the rank's
     * profile, with compute start-up tlatency per thread chunk; speed is
     * then the team's, the sum of its threads' speeds.  tl is owned by the
     * platform (pf->tlists) and shared by the workers of one line. */
    int threads;
    int ntl;
    const double *tl;
    double tspeed;
    double tlatency;
};

enum { LF__SIM_STAGE_FREE = 0, LF__SIM_STAGE_ONEPORT = 1 };

/* Most NUMA domains a platform has (lib/policy/locality.h's limit). */
#define LF__SIM_MAXDOM 64

struct lf__sim_platform {
    int nworkers;
    struct lf__sim_worker *w;
    int staging;           /* LF__SIM_STAGE_*: one staging at a time (seed 003 §3.2) or free;
                              with domains: one transfer at a time per home domain, or free */
    double bytes_per_iter; /* input bytes one iteration needs */
    /* NUMA domains, 0: none (every chunk is staged from the master, as in
     * seed 003).  With ndom >= 1, a worker's stage_lat and bandwidth are its
     * link to the other domains' memory (beta_i, B_i) and only iterations
     * homed on another domain than the worker's pay for it. */
    int ndom;
    /* Two levels: every worker is a rank of threads (lf__sim_platform_teams). */
    int teams;
    int ntlists; /* the thread speed lists of the file's lines */
    double **tlists;
};

/* Read a platform file (format: doc/lf-sim.md) into pf.  Returns 0, or -EINVAL
 * / -ENOMEM / -errno with "FILE:LINE: what" in err. */
int lf__sim_platform_load(struct lf__sim_platform *pf, const char *path, char *err, size_t errlen);
/* Parse platform text (same format) from a stream; name labels messages. */
int lf__sim_platform_read(struct lf__sim_platform *pf, FILE *f, const char *name, char *err,
                          size_t errlen);
/* Build nworkers workers whose speeds cycle through the comma-separated list
 * (nworkers 0: one worker per listed speed).  Returns 0 or -EINVAL/-ENOMEM. */
int lf__sim_platform_speeds(struct lf__sim_platform *pf, const char *list, int nworkers, char *err,
                            size_t errlen);
/* Split pf's workers into ndom NUMA domains of (nearly) equal size, in
 * worker order (1 <= ndom <= min(LF__SIM_MAXDOM, nworkers)).  Returns 0 or
 * -EINVAL with the accepted range in err. */
int lf__sim_platform_domains(struct lf__sim_platform *pf, int ndom, char *err, size_t errlen);
/* Parse a profile "t0:f0,t1:f1,..." into w (replacing any previous one). */
int lf__sim_profile_parse(struct lf__sim_worker *w, const char *text, char *err, size_t errlen);
/* The same for w's link (its bandwidth, staging and results). */
int lf__sim_link_profile_parse(struct lf__sim_worker *w, const char *text, char *err,
                               size_t errlen);
/* The command line's overrides: each value >= 0 replaces that cost on every
 * worker (bytes_per_iter: the platform's); a negative one keeps the file's. */
void lf__sim_platform_set(struct lf__sim_platform *pf, double latency, double stage_lat,
                          double bandwidth, double bytes_per_iter);
/* How long worker w's link, starting at t0, takes to move bytes: its
 * latency stage_lat first when latency is 1, then the bytes at its
 * bandwidth times its link profile's factor (0 bytes or an unlimited
 * bandwidth: no time). */
double lf__sim_link_time(const struct lf__sim_worker *w, double t0, double bytes, int latency);
/* Make pf two-level: with threads > 0 every worker becomes a rank of that
 * many threads (replacing the file's threads=); with threads == 0 only when
 * some worker line said threads= (the others are then ranks of one thread).
 * Each worker's speed so far is each of its threads' speed (unless its line
 * lists thread_speeds); its speed becomes the team's sum.  Idempotent for
 * threads == 0.  Returns 0, or -EINVAL with the accepted range in err
 * (1 to LF__SIM_MAX_THREADS threads a rank, at most LF__SIM_MAX_TEAM
 * threads in all). */
int lf__sim_platform_teams(struct lf__sim_platform *pf, int threads, char *err, size_t errlen);
#define LF__SIM_MAX_THREADS 4096
#define LF__SIM_MAX_TEAM    4000000
void lf__sim_platform_free(struct lf__sim_platform *pf);
/* Parse a finite number as platform files write it: decimal or exponent
 * notation, or a fraction "a/b" (no hexadecimal, inf or nan).  0, or -1. */
int lf__sim_num_parse(const char *s, double *out);

/* ---- Workload ---- */

enum {
    LF__SIM_COST_CONST,     /* every iteration costs 1 */
    LF__SIM_COST_LOGNORMAL, /* lognormal, mean 1, log-space deviation a */
    LF__SIM_COST_EXP,       /* exponential, mean 1 */
    LF__SIM_COST_UNIFORM,   /* uniform on [a, b] */
    LF__SIM_COST_LINEAR,    /* deterministic ramp 2(i+1/2)/n: mean 1, triangular loop */
};

/* Where the loop's input lives, on a platform with NUMA domains. */
enum {
    LF__SIM_HOME_BLOCKED,    /* domain d holds iterations [n d / D, n (d+1) / D) */
    LF__SIM_HOME_NODE0,      /* everything on domain 0 (first touch by one thread) */
    LF__SIM_HOME_INTERLEAVE, /* round-robin over the domains in 4 KiB pages */
};

struct lf__sim_workload {
    uint64_t tasks;
    int kind;        /* LF__SIM_COST_* */
    double a, b;     /* parameters of the distribution */
    uint64_t seed;   /* iteration i's cost depends on (seed, i) only */
    int home;        /* LF__SIM_HOME_*: placement of the input (domains only) */
    unsigned passes; /* times an iteration reads its input (stencil-like > 1); 0 = 1 */
    /* A run covers iterations [base, base + span) of the cost table (span
     * 0: all tasks), as a rank's team runs one rank chunk (pull only). */
    uint64_t base, span;
    /* Filled by lf__sim_workload_init: prefix sums of the costs at every
     * block boundary (block iterations per block). */
    uint64_t block;
    uint64_t nblocks;
    double *prefix;
    double total;
};

/* Parse a cost spec ("const", "lognormal[,sigma=S]", "exp", "uniform[,lo=A,hi=B]",
 * "linear") into wl->kind/a/b.  Returns 0 or -EINVAL with a message. */
int lf__sim_cost_parse(struct lf__sim_workload *wl, const char *spec, char *err, size_t errlen);
/* Parse a placement ("blocked", "node0", "interleave") into wl->home.
 * Returns 0 or -EINVAL with the accepted forms in err. */
int lf__sim_home_parse(struct lf__sim_workload *wl, const char *spec, char *err, size_t errlen);
const char *lf__sim_home_name(int home);
/* Prepare the cost tables of wl (tasks, kind, a, b, seed set).  Returns 0 or -ENOMEM. */
int lf__sim_workload_init(struct lf__sim_workload *wl);
/* Total cost of iterations [lo, hi). */
double lf__sim_work(const struct lf__sim_workload *wl, uint64_t lo, uint64_t hi);
void lf__sim_workload_free(struct lf__sim_workload *wl);

/* ---- Running ---- */

/* One completed chunk, as the trace sees it.  (No padding: tests compare
 * runs with memcmp.) */
struct lf__sim_chunk {
    int worker;
    int calib;        /* recorded as a calibration chunk */
    uint64_t seq;     /* 0, 1, ... per worker */
    double start;     /* claim time (the worker is occupied from here), seconds */
    double stage_end; /* staging done, compute begins */
    double end;       /* compute done */
    uint64_t lo, size;
    uint64_t order; /* claims before this one, all workers together */
    /* Domains only (else 0, -1, 0).  remote: its iterations whose input
     * lives elsewhere than on the worker's domain.  home: as the runtime
     * sees it, the domain whose range it was taken from (numa on) or that
     * holds its first iteration (-1: the loop has no blocked home).
     * staged: home is not the worker's domain and stage is on, so the whole
     * chunk was copied first (stage_end is when the copy was done). */
    uint64_t remote;
    int home;
    int staged;
};

/* One use of a home domain's port: the staging copy of a chunk (all its
 * iterations), or the remote reads of an unstaged chunk's iterations homed
 * there. */
struct lf__sim_xfer {
    int worker, home;
    double start, end; /* the port serves it in [start, end), seconds */
    uint64_t iters;    /* iterations moved */
    double bytes;      /* bytes moved (unstaged: passes times the input) */
    int staged;
    int pad_; /* 0: no padding bytes, for memcmp */
};

/* How work reaches the workers. */
enum {
    LF__SIM_PULL = 0, /* a worker claims its next chunk when it is idle (the runtime's rule) */
    LF__SIM_PUSH =
        1, /* a master sends chunks over one port while workers compute (seeds 001-004) */
};
/* Push: most messages a worker may hold (--inflight). */
#define LF__SIM_MAX_INFLIGHT 64
/* Push: the order in which the master serves the workers that may take a chunk. */
enum {
    LF__SIM_ROUND_ROBIN = 0, /* strictly in index order: the master waits for the next one's turn */
    LF__SIM_FIRST_READY = 1, /* whoever could take a chunk first (ties: lower index) */
};

struct lf__sim_opts {
    double claim_ns; /* cost of one claim, added to the worker's time; also view.claim_ns */
    /* The master-worker protocol (doc/lf-sim.md, "Push"): pull (0, default)
     * or push.  Push only, no NUMA domains: order (LF__SIM_*), inflight (a
     * worker holds at most this many messages sent but not computed, >= 1;
     * 0 = 2), results (< 0: no result messages; else each computed piece
     * returns results * its input bytes, plus stage_lat, over the master's
     * receive port, and the master learns of the piece when they arrive),
     * split (0: whole chunks; else a chunk of c >= 2 goes as two sub-chunks,
     * the first round(split c) iterations, and the policy hears of the
     * chunk when the first one is computed, seed 001 eqs. 2-4). */
    int protocol;
    int order;
    int inflight;
    double results;
    double split;
    /* Efficiency over [win_start, win_end) seconds, for streams of unknown
     * size (win_end <= win_start: none). */
    double win_start, win_end;
    /* 1: the policies start from the model's exact costs (time per unit of
     * work, latencies, staging) as from a call site's memory, instead of
     * calibrating: the papers' assumption that the parameters are known.
     * Schedules with cal=paper or memory=off still calibrate. */
    int known;
    void (*on_chunk)(void *ctx, const struct lf__sim_chunk *c); /* optional, in time order */
    void *ctx;
    void (*on_xfer)(void *ctx, const struct lf__sim_xfer *x); /* optional, in claim order */
    /* Two levels (pf->teams; pull, no domains): each rank chunk is a
     * sub-loop of the rank's team under node (the node level's schedule),
     * a thread claim costing thread_claim_ns; on_tchunk, optional, gets
     * every thread chunk (c->worker: the thread in its team, c->lo: the
     * loop's iteration), each rank chunk's in time order. */
    const struct lf__sched *node;
    double thread_claim_ns;
    void (*on_tchunk)(void *ctx, int rank, const struct lf__sim_chunk *c);
    /* The call site's memory (NULL: none), read when the run starts and
     * updated when it ends, as the dispatcher keeps a loop handle's
     * (lf__exec_start, lf__exec_mem_end): P entries each.  Not with known. */
    struct lf__site_mem *mem;
    /* Virtual time at which the instance begins (the policies' clock origin). */
    double origin;
};

struct lf__sim_wres {
    double busy;   /* compute time (alpha + work/S; unstaged remote reads included), seconds */
    double useful; /* busy less the compute latencies (seed 001's useful CPU time) */
    double stage;  /* staging time (port waits included), seconds */
    double end;    /* end of its last chunk */
    uint64_t chunks, calib_chunks, iters;
    uint64_t remote_iters, staged_iters; /* domains only */
    double left; /* when it took no more chunks (found none, or stopped); -1: never */
    /* Two levels: its threads' compute time (and less the compute
     * latencies) and thread chunks. */
    double tbusy, tuseful;
    uint64_t tchunks;
};

struct lf__sim_result {
    int nworkers;
    uint64_t tasks;
    double makespan;   /* end of the last chunk, seconds */
    double total_work; /* sum of iteration costs */
    double ideal;      /* total_work / sum of speeds */
    double efficiency; /* ideal / makespan */
    double calib_end;  /* when calibrated() ran (-1: never) */
    uint64_t chunks, calib_chunks, events;
    struct lf__sim_wres *w; /* nworkers entries; lf__sim_result_free */
    /* Domains only. */
    int ndom;
    int numa, stage;       /* in force (0 / 1) */
    uint64_t remote_iters; /* computed away from their home domain */
    uint64_t staged_iters; /* in staged chunks */
    double staged_bytes;   /* bytes copied by staging */
    double remote_bytes;   /* bytes read across domains without staging */
    double port_busy;      /* sum over domains of the time their port served transfers */
    /* Seed 001's CPU efficiency: sum of useful / (P makespan), on two
     * levels the threads' useful / (all threads x makespan); over the
     * window of the options, useful time inside it / (P window). */
    double cpu_eff;
    double window_eff;
    /* Push: the time the master's send port and receive port were busy. */
    double send_busy, recv_busy;
    /* Two levels: thread chunks (all ranks' sub-loops) and calibration ones. */
    uint64_t tchunks, tcalib_chunks;
    /* The plan the run ran at its call site's memory (lf__sim_opts.mem),
     * as the dispatcher's would (lf__exec_plan); two levels: the rank
     * sub-loops that ran under each plan. */
    enum lf__plan_kind plan;
    uint64_t tplans[LF__PLANS];
};

/* Run schedule s over workload wl on platform pf in virtual time.  Returns 0;
 * -ENOMEM; or -EPROTO (message in err) when a static policy's partition hands
 * out a chunk outside [0, n), more than n iterations in all, or fewer. */
int lf__sim_run(const struct lf__sim_platform *pf, const struct lf__sched *s,
                const struct lf__sim_workload *wl, const struct lf__sim_opts *o,
                struct lf__sim_result *res, char *err, size_t errlen);
void lf__sim_result_free(struct lf__sim_result *res);

#endif
