/* lib/policy/policy.h - the contract between chunk-size policies and the
 * executors that drive them (the OpenMP dispatcher in real time, the
 * simulator in virtual time, through the rules of lib/exec/).
 *
 * A policy is pure: it never touches threads, clocks, atomics or OS calls.
 * It sees a read-only view of the loop (trip count, team size of at least
 * one, each worker's measured statistics, read through the accessors below)
 * and answers "how many iterations does worker w take now, at time now,
 * when r are still unclaimed".  The executor owns concurrency (it calls
 * chunk() from any worker, possibly several times for one claim when a CAS
 * retries), measurement and time.
 */
#ifndef LF_POLICY_H
#define LF_POLICY_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- Parameters of a schedule spec: "name[,chunk][,key=value]..." ---- */

#define LF__SPEC_MAXKV  12
#define LF__SPEC_KEYLEN 16
#define LF__SPEC_VALLEN 64

struct lf__params {
    char name[24];
    int has_chunk;  /* a bare positive integer followed the name */
    uint64_t chunk; /* its value (>= 1) */
    int nkv;
    struct {
        char key[LF__SPEC_KEYLEN];
        char val[LF__SPEC_VALLEN];
        int used; /* set by the lf__params_get_* helpers: unused keys are errors */
    } kv[LF__SPEC_MAXKV];
};

/* Split a spec string into p.  Returns 0, or -EINVAL with a message in err. */
int lf__params_split(const char *spec, struct lf__params *p, char *err, size_t errlen);
/* Look up key; return 1 and set *out when present and well formed, 0 when
 * absent, -EINVAL (message in err) when present but malformed or outside
 * [lo, hi]. */
int lf__params_get_double(struct lf__params *p, const char *key, double lo, double hi, double *out,
                          char *err, size_t errlen);
int lf__params_get_u64(struct lf__params *p, const char *key, uint64_t lo, uint64_t hi,
                       uint64_t *out, char *err, size_t errlen);
/* key=on|off (or 1|0): 1 and *out set when present and well formed, 0 when
 * absent, -EINVAL (message in err) otherwise. */
int lf__params_get_onoff(struct lf__params *p, const char *key, int *out, char *err, size_t errlen);
/* String value; returns 1 and a pointer into p when present, 0 otherwise. */
int lf__params_get_str(struct lf__params *p, const char *key, const char **out);
/* The smallest chunk of a policy whose form is "name[,<n>][,min=<n>]":
 * *out = n from either form (0 when neither is given), -EINVAL (message
 * in err) when both are given or min= is malformed, else 0. */
int lf__params_get_min(struct lf__params *p, uint64_t *out, char *err, size_t errlen);
/* -EINVAL naming the first key no policy consumed, else 0. */
int lf__params_check_unused(const struct lf__params *p, char *err, size_t errlen);

/* ---- What the executor measures for each worker ----
 *
 * One slot per worker on its own cache lines.  Each word has one writer (its
 * worker, or a single-threaded executor) and readers that may run at the
 * same time, so a word is only ever stored and loaded whole, through the
 * four accessors below; a stale value only makes a chunk size slightly out
 * of date.  Doubles travel as their bit patterns.  These accessors are the
 * only place where the storage of a word shows: policies read
 * lf__word_get(&v->w[j].iters) and never the field itself.
 */
static inline uint64_t lf__word_get(const uint64_t *p)
{
    return __atomic_load_n(p, __ATOMIC_RELAXED);
}
static inline void lf__word_put(uint64_t *p, uint64_t v)
{
    __atomic_store_n(p, v, __ATOMIC_RELAXED);
}
static inline double lf__word_getd(const uint64_t *p)
{
    uint64_t u = lf__word_get(p);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static inline void lf__word_putd(uint64_t *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    lf__word_put(p, u);
}

struct lf__wstat {
    /* First line: what every loop's exit writes (the totals, stopped). */
    uint64_t chunks;       /* chunks completed, calibration included */
    uint64_t calib_chunks; /* of which taken during the calibration phase */
    uint64_t iters;        /* iterations completed */
    uint64_t busy_ns;      /* sum of chunk compute times */
    uint64_t total_ns;     /* sum of times from previous chunk's end (or loop
                              entry) to this chunk's end: compute + scheduling */
    uint64_t stopped;      /* 1 once the executor honoured a 0 from chunk() for
                              the worker, or it left the loop */
    uint64_t last_iters;   /* size of the latest completed chunk */
    uint64_t last_ns;      /* its compute time */
    /* Per-chunk time per iteration, in ns as doubles: running sums over the
     * chunks completed, for the mean and variance adaptive factoring needs. */
    uint64_t ipt_n;   /* number of chunks in the sums (uint64) */
    uint64_t ipt_sum; /* double: sum of (ns / iters) */
    uint64_t ipt_sq;  /* double: sum of (ns / iters)^2 */
    /* Calibration results (doubles, 0 when unknown):
     * calib_ipt: measured ns per iteration when calibration ended (seed 000 t_i);
     * avail: CPU time / wall time over the calibration chunks (a_i);
     * latency_ns: measured dispatch latency (l_i);
     * bm: relative performance figure (bm_i, 1 when nothing is known). */
    uint64_t calib_ipt;
    uint64_t avail;
    uint64_t latency_ns;
    uint64_t bm;
    /* The chunk the worker computes: cur_start_ns, when it was handed out,
     * in ns since the loop instance started (double); cur_iters, its size (0
     * when it has none). */
    uint64_t cur_start_ns;
    uint64_t cur_iters;
    /* Chunks handed to the worker and not yet reported done (uint64): 0
     * when a worker claims for itself; up to the executor's limit when a
     * master sends the next chunks while the worker computes (push). */
    uint64_t inflight;
    /* Affine costs of seed 003 §3 where the executor knows or measured them
     * (doubles, 0 when unknown): compute latency alpha_i, staging latency
     * beta_i, and staging time per iteration (bytes per iteration / B_i). */
    uint64_t comp_lat_ns;
    uint64_t stage_lat_ns;
    uint64_t stage_ns_per_iter;
    /* LF__P_PROFILE: the latest chunk's expected cost in profile units
     * (double; its iterations when no profile is in use, 0 before any). */
    uint64_t last_units;
    /* Words owned by the policy's feedback hook (written by this worker only). */
    uint64_t pol[4];
} __attribute__((aligned(64))); /* a cache line of its own */

/* ---- Cost profile of a loop over its iteration space ----
 *
 * What an iteration costs along the loop, learned per call site across
 * executions (lib/exec/profile.c): the normalised space [0, 1) of a loop
 * of n iterations is cut into LF__PROF_BINS bins of n / LF__PROF_BINS
 * iterations, and cost[b] is the time of an iteration of bin b relative to
 * the mean iteration (so the mean over the iterations is 1 and a loop
 * costs n units).  A worker's speed is then its time per unit.  Because
 * bins are fractions of the space, a trip count that changes between
 * executions still maps. */
#define LF__PROF_BINS 32

struct lf__profile {
    double cost[LF__PROF_BINS];
    double conf;    /* 1 - the relative error with which it predicted the last
                       execution's per-bin costs; 0.5 after the first */
    unsigned execs; /* executions it was built from */
    /* A running mean of the squared error with which it predicted
     * executions' per-bin costs: what lf__exec_profile_weight (lib/exec)
     * reads as its noise. */
    double d2;
    int valid;
    int dropped; /* the latest execution replaced it: it had stopped predicting */
};

/* Expected cost, in units, of the logical iterations [a, b) of a loop of
 * n iterations (a <= b <= n); b - a when p is NULL. */
double lf__profile_units(const struct lf__profile *p, uint64_t n, uint64_t a, uint64_t b);

/* The number of iterations from a (a < n) whose expected cost reaches
 * units, at least 1 and at most n - a; units iterations when p is NULL. */
uint64_t lf__profile_span(const struct lf__profile *p, uint64_t n, uint64_t a, double units);

/* The cheapest (*lo) and the costliest (*hi) bin of p over its mean bin
 * (the bins hold equal shares of the iterations); 1 and 1 when p costs
 * nothing. */
void lf__profile_range(const struct lf__profile *p, double *lo, double *hi);

/* The read-only view a policy decides from. */
struct lf__view {
    uint64_t n;                 /* trip count of this loop instance */
    int nworkers;               /* team size P >= 1 */
    struct lf__wstat *w;        /* P slots, see above */
    double claim_ns;            /* measured cost of one claim, 0 if unknown */
    int calibrated_from_memory; /* calibration values came from the call site's memory */
    /* The most an iteration of this instance may cost over its worker's
     * mean time per iteration (calib_ipt), where no execution has yet
     * confirmed the call site's profile; 0 or 1: nothing known beyond the
     * latest times (lib/exec/exec.h, lf__exec_piece). */
    double piece_peak;
    int one_port; /* stagings are served one at a time (seed 003 §3.2) */
    /* A master that pushes chunks (lf-sim --protocol push): overlap is 1 when
     * a worker receives its next chunk while it computes, so a chunk's
     * period is its compute time, not staging plus compute; split is the
     * share of a chunk sent as its first sub-chunk (seed 001 eq. 3), whose
     * compute time, extrapolated by eq. 4, is what the worker's statistics
     * record when it ends (0: whole chunks).  Both 0 for executors that
     * hand out work on request (the dispatcher). */
    int overlap;
    double split;
    /* Team sums of the policy's contributions (see contrib below), kept by
     * an executor that runs one worker at a time; NULL when it keeps none
     * (the dispatcher), and then the policy loops over the team. */
    const double *psum;
    const struct lf__profile *prof; /* LF__P_PROFILE: the call site's profile when it is
                                       trusted (lib/exec/exec.h, LF__PROF_TRUST), else NULL */
};

/* Words of a policy's team sums (psum, contrib). */
#define LF__PSUMS 8

/* Time per iteration of worker j as last measured, in ns (0 if nothing yet). */
static inline double lf__view_last_ipt(const struct lf__view *v, int j)
{
    uint64_t it = lf__word_get(&v->w[j].last_iters);
    return it ? (double)lf__word_get(&v->w[j].last_ns) / (double)it : 0.0;
}

/* ---- The descriptor ---- */

enum {
    LF__P_FIXED = 1u << 0,   /* chunk() ignores r and state: a fetch-and-add claim */
    LF__P_STATIC = 1u << 1,  /* no shared counter: partition() decides every chunk */
    LF__P_CALIB = 1u << 2,   /* run the calibration phase, then calibrated(), then chunk() */
    LF__P_MAYSTOP = 1u << 3, /* chunk() may return 0: "worker w should stop, the others
                                finish the rest no later"; the executor honours it unless
                                w is the last worker still active, and then uses 1 */
    LF__P_MEASURE = 1u << 4, /* chunk() reads measured times from the view.  The runtime
                                times every chunk only for policies that consume times
                                (this flag, LF__P_CALIB, LF__P_MAYSTOP or a feedback hook)
                                or when LF_TRACE is set; others are counted, not timed. */
    LF__P_LEASE = 1u << 5,   /* chunks are leases by default (lease=on): the owner runs
                                its chunk in pieces and an idle worker may take the back */
    LF__P_PROFILE = 1u << 6, /* the executor books each chunk's position and time into
                                the call site's cost profile (struct lf__profile) */
};

#define LF__POLICY_STATE_MAX 512 /* bytes; every state_size must fit */

struct lf__policy {
    const char *name;     /* as written in a spec */
    const char *synopsis; /* accepted form, e.g. "guided[,c]" */
    const char *help;     /* one line, with the formula's source */
    unsigned flags;
    size_t state_size;
    /* Read parameters into state (exclusive; state is zeroed first).  Return 0,
     * or -EINVAL with a message in err naming the accepted forms. */
    int (*parse)(void *state, struct lf__params *p, char *err, size_t errlen);
    /* A loop instance starts (exclusive): size-dependent set-up from v. Optional. */
    void (*start)(void *state, const struct lf__view *v);
    /* Calibration is over (exclusive): every worker that calibrated has
     * calib_ipt etc. set; r iterations are unclaimed.  Optional. */
    void (*calibrated)(void *state, const struct lf__view *v, uint64_t r);
    /* Chunk for worker w when r >= 1 iterations are unclaimed and the time
     * is now (ns since the loop instance started, on the executor's clock;
     * concurrent, state read-only).  Must return >= 1 (or 0 under
     * LF__P_MAYSTOP); the executor clips it to r (lf__exec_claim_size). */
    uint64_t (*chunk)(const void *state, const struct lf__view *v, int w, uint64_t r, double now);
    /* Worker w completed a chunk and its lf__wstat is up to date; the hook may
     * write v->w[w].pol[] and nothing else (runs on worker w).  Optional. */
    void (*feedback)(const void *state, const struct lf__view *v, int w);
    /* LF__P_STATIC only: the k-th chunk (k = 0, 1, ...) of worker w; return its
     * size and set *start (logical index), or 0 when w has no more. */
    uint64_t (*partition)(const void *state, const struct lf__view *v, int w, uint64_t k,
                          uint64_t *start);
    /* Optional: worker w's contributions to the team sums chunk() needs,
     * written to out[0 .. LF__PSUMS-1] from v->w[w] alone (state read-only).
     * An executor that keeps them offers v->psum[k] = sum over the team of
     * out[k], so that chunk() costs O(1) instead of O(P). */
    void (*contrib)(const void *state, const struct lf__view *v, int w, double *out);
    /* Optional: when chunk() is guided self-scheduling's lf__gss(r, P, c),
     * whatever the view, the minimum c its state holds, so that an executor
     * sizing claims between a failed CAS and the next may compute lf__gss
     * inline instead of calling chunk() (lib/dispatch/light.c). */
    uint64_t (*gss_min)(const void *state);
};

/* The registry: every policy in one table, in the order --help lists them. */
extern const struct lf__policy *const lf__policies[];
/* Look a policy up by name; NULL when unknown. */
const struct lf__policy *lf__policy_find(const char *name);
/* Write "name1, name2[,c], ..." (the accepted forms) into buf. */
void lf__policy_list(char *buf, size_t len);

/* A parsed schedule: descriptor plus its configured state template, and the
 * executor-level keys every schedule accepts (consumed before the policy's
 * parse sees the rest):
 *   cal=auto   calibration chunks grow until they take >= calns nanoseconds, and
 *              a worker that is done calibrating keeps taking such chunks
 *              until the whole team has reported (nobody idles);
 *   cal=paper  seed 000's calibration: one iteration per worker, the team
 *              waits until every worker has reported, then the first round;
 *   calns=N    target calibration time per worker (default 20000 ns);
 *   memory=on|off  start from what this call site learned last time (on);
 *   numa=on|off    locality-aware dispatch when the loop's data has a home
 *                  and there are >= 2 NUMA domains (on);
 *   stage=on|off   copy a remote chunk's declared inputs to the thread's
 *                  domain before its body runs (on);
 *   piece=BYTES    a staged chunk with more input than this goes to the body
 *                  in pieces, the next one prefetched (262144; 0: whole);
 *   lease=on|off|force  chunks are leases: the owner runs each in pieces
 *                  and a worker that finds nothing left takes the back half
 *                  of the fullest lease (default: the policy's, on for
 *                  auto); force also steals before every claim, with at
 *                  least four pieces a chunk (a test mode);
 *   plan=choose|dealt|own|self|serial|tiny  for a schedule that chooses its
 *                  execution plans (auto): choose by measurement (the
 *                  default), or run every execution under the one named
 *                  (lib/exec/exec.h, lf__plan_kind, in this order from
 *                  dealt = 0; choose = -1). */
struct lf__sched {
    const struct lf__policy *pol;
    char spec[128];
    int cal_paper;
    int memory;
    int numa;
    int stage;
    uint64_t stage_piece;
    int lease; /* -1: the policy's default, 0 off, 1 on, 2 force */
    int plan;  /* -1: choose; else a forced lf__plan_kind */
    uint64_t cal_ns;
    uint64_t state[LF__POLICY_STATE_MAX / 8];
};
/* Parse spec into s.  Returns 0, or -EINVAL with a message in err. */
int lf__sched_parse(const char *spec, struct lf__sched *s, char *err, size_t errlen);

/* Small helpers shared by policies. */
static inline uint64_t lf__div_ceil(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Guided self-scheduling's claim when r iterations are left for P >= 1
 * workers: max(c, ceil(r / P)) (C. D. Polychronopoulos & D. J. Kuck,
 * "Guided self-scheduling: a practical scheduling scheme for parallel
 * supercomputers", IEEE Transactions on Computers C-36(12), 1987). */
static inline uint64_t lf__gss(uint64_t r, uint64_t P, uint64_t c)
{
    uint64_t g = lf__div_ceil(r, P);
    return g > c ? g : c;
}

/* Turn a real chunk size into one the executor can use: at least 1, at most
 * r, and 1 for NaN (a policy's arithmetic must never hand out 0 or garbage). */
static inline uint64_t lf__chunk_clamp(double x, uint64_t r)
{
    if (!(x >= 1.0)) /* also catches NaN */
        return 1;
    if (x >= (double)r) /* (double)r rounds up at most to 2^64: no UB below */
        return r;
    return (uint64_t)x;
}

/* Round half up, then clamp as above. */
static inline uint64_t lf__chunk_round(double x, uint64_t r)
{
    return lf__chunk_clamp(x + 0.5, r);
}

/* Reject a bare chunk size for a policy whose form has none. */
static inline int lf__no_chunk(const struct lf__params *p, const char *form, char *err,
                               size_t errlen)
{
    if (!p->has_chunk)
        return 0;
    snprintf(err, errlen, "%s takes no chunk size; accepted: %s", p->name, form);
    return -EINVAL;
}

#endif
