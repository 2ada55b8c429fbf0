/* loopfarm.h - adaptive parallel-for schedulers for heterogeneous nodes.
 *
 * Two ways in:
 *   - the LF_FOR macros of <loopfarm/omp.h>, which stand where
 *     `#pragma omp for schedule(dynamic)` stood inside an OpenMP parallel
 *     region;
 *   - this header's explicit API, for any team of threads: a team creates one
 *     lf_loop, and each member brackets every loop it runs with
 *     lf_loop_begin / lf_loop_next / lf_loop_end.
 *
 * Set-up calls return 0 or a negative errno value (-EINVAL for misuse,
 * -ENOMEM).  Schedules are written as "kind[,chunk][,key=value]..." (see
 * lf_schedule_parse and README.md).
 */
#ifndef LOOPFARM_H
#define LOOPFARM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(LF_BUILDING) && defined(__GNUC__)
#define LF_API __attribute__((visibility("default")))
#else
#define LF_API
#endif

#define LF_VERSION_STRING "0.1.0"

/* ---- Schedules ---- */

/* A parsed schedule specification (opaque). */
typedef struct lf_schedule lf_schedule;

/* Parse spec ("multi", "dynamic,8", "dealdyn,calib=lr", ...) into *out.
 * Returns 0; or -EINVAL and, when err is not NULL, a message naming what was
 * expected (at most errlen bytes, NUL-terminated); or -ENOMEM.  A spec is at
 * most 127 characters long (a longer one is -EINVAL, never cut). */
LF_API int lf_schedule_parse(const char *spec, lf_schedule **out, char *err, size_t errlen);
/* The schedule's kind ("multi"), and the spec it was parsed from. */
LF_API const char *lf_schedule_name(const lf_schedule *s);
LF_API const char *lf_schedule_spec(const lf_schedule *s);
LF_API void lf_schedule_free(lf_schedule *s);
/* The schedule LF_SCHEDULE names, parsed once per process.  When the
 * variable is unset it is "auto"; when it is malformed, one message goes
 * to stderr and the result is "dynamic".  Never NULL. */
LF_API const lf_schedule *lf_schedule_default(void);
/* Write the accepted schedule forms, one per line with a description, to a
 * buffer (like snprintf: returns the length it needed). */
LF_API size_t lf_schedule_help(char *buf, size_t len);

/* ---- Loops ---- */

/* A team's loop handle (opaque).  One handle serves any number of
 * consecutive loops of the same team; members may run ahead into the next
 * loop (no barrier is needed between loops).
 *
 * What the explicit API requires of a team's members:
 *   - every member enters every loop of the handle (lf_loop_begin), in the
 *     same order and with the same bounds, and leaves it (lf_loop_end);
 *     members need not enter at the same time;
 *   - a member that never enters a loop holds it open: the others finish
 *     that loop without it, but 8 loops later (a handle keeps the state of
 *     8 loops, each recycled only when all members have left it) every
 *     member's lf_loop_begin waits for it forever;
 *   - one handle belongs to one team at a time: two teams running at the
 *     same time need two handles (the LF_FOR macros lease one per loop
 *     execution for this reason). */
typedef struct lf_loop lf_loop;

/* Create a handle for a team of nthreads (>= 1) members numbered
 * 0..nthreads-1 that schedules its loops with s (NULL: lf_schedule_default()).
 * name labels the loops in traces and remembers what they learned (may be
 * NULL).  The schedule is copied. */
LF_API int lf_loop_create(lf_loop **out, int nthreads, const lf_schedule *s, const char *name);
/* Free a handle.  Precondition: no loop of it is running, i.e. every
 * member that entered a loop has left it and no member is still to enter
 * one that others entered.  A handle whose loop is still running is
 * detected, reported on stderr and not freed (a later use would read freed
 * memory); destroying a handle while another thread may still call
 * lf_loop_begin on it is a use after free that cannot be detected. */
LF_API void lf_loop_destroy(lf_loop *loop);

/* Member tid enters the team's next loop, over i = lo, lo+incr, ... while
 * i < hi (incr > 0) or i > hi (incr < 0): the bounds of a canonical OpenMP
 * loop.  Every member must enter every loop, with the same bounds; no member
 * waits for another here.  Returns 0; -EINVAL (incr == 0, tid out of range,
 * a member entering twice without lf_loop_end: nothing happened); or
 * -ERANGE when the loop was started by another member with other bounds:
 * the member has entered and left it at once (it gets no chunks; the others
 * run the loop as started). */
LF_API int lf_loop_begin(lf_loop *loop, int tid, long lo, long hi, long incr);
/* Hand member tid its next chunk: the iterations first, first+incr, ...
 * (count of them).  Returns 1 with a chunk, 0 when the loop has no more work
 * for tid.  The time between two calls is what adaptive schedules measure. */
LF_API int lf_loop_next(lf_loop *loop, int tid, long *first, unsigned long *count);
/* After lf_loop_next has returned 0 to member tid, before its lf_loop_end:
 * 1 for exactly one member of the loop (the first to ask), 0 for the others
 * and on misuse.  A runtime that holds back work to be done last (the
 * preload shims hold back a loop's last unit, so that lastprivate holds)
 * hands it to that member. */
LF_API int lf_loop_once(lf_loop *loop, int tid);
/* Member tid leaves the loop (after lf_loop_next returned 0, or early).  It
 * does not wait for the others. */
LF_API void lf_loop_end(lf_loop *loop, int tid);

/* Keep every chunk of the handle's later loops within OpenMP's bound for
 * schedule(guided): at most ceil(r / nthreads) of the r iterations not yet
 * handed out, whatever the schedule (static then claims guided-like chunks
 * from the shared counter; loops with a data description are not capped).
 * on = 0 lifts it.  0, or -EINVAL for a NULL handle.  Not while a member is
 * inside a loop of the handle. */
LF_API int lf_loop_set_guided_cap(lf_loop *loop, int on);

/* Hand each member the chunks of the handle's later loops in increasing
 * order (OpenMP's monotonic modifier): no chunk is ever taken from another
 * member's lease (lease=on, the default of auto), since a stolen chunk
 * precedes chunks its thief already ran, and fixed-size loops claim from
 * one counter instead of one block per member.  on = 0 lifts it.  0, or -EINVAL
 * for a NULL handle.  Not while a member is inside a loop of the handle. */
LF_API int lf_loop_set_monotonic(lf_loop *loop, int on);

/* Number of iterations of a canonical loop (0 for an empty one); -EINVAL
 * through *ok == 0 when incr == 0. */
LF_API unsigned long lf_trip_count(long lo, long hi, long incr, int *ok);

/* ---- Statistics of the latest completed loop of a handle ---- */

struct lf_loop_stats {
    unsigned long iterations; /* trip count */
    unsigned long chunks;     /* chunks handed out, calibration included */
    unsigned long calib_chunks;
    double seconds;  /* from the first member's entry to the last's exit */
    int from_memory; /* it started from what the call site learned before */
    int drifted;     /* its rates drifted from that memory beyond the threshold
                        (50 %), so the next execution calibrates afresh */
    /* Leases (lease=on, the default of auto): pieces the bodies got, chunks
     * taken from another member's lease, and the iterations they held. */
    unsigned long pieces;
    unsigned long steals;
    unsigned long stolen;
};
LF_API int lf_loop_last_stats(const lf_loop *loop, struct lf_loop_stats *out);

/* ---- Data locality: NUMA domains, placement, staging ---- */

/* The NUMA domains loopfarm schedules over: hwloc's NUMA nodes, or the
 * domains LF_FAKE_NUMA=N[,lat=NS][,gbps=G] pretends the PUs form (split in
 * topology order; a remote read then costs an emulated lat + bytes/G ns,
 * served one at a time per domain: see lf_numa_charge).  >= 1. */
LF_API int lf_numa_count(void);
/* The domain of the PU the calling thread runs on now (0 when unknown). */
LF_API int lf_numa_self(void);
/* Whether LF_FAKE_NUMA is in force (1) or the domains are the machine's (0). */
LF_API int lf_numa_fake(void);
/* The domain holding the page at addr: hwloc's memory-location query, or,
 * under LF_FAKE_NUMA, the domain lf_numa_alloc placed it on (0 for other
 * memory).  -1 when unknown (a page not yet touched); 0 on a machine of
 * one domain, or built without hwloc. */
LF_API int lf_numa_node_of(const void *addr);
/* bytes of zeroed memory bound to domain node (0 .. lf_numa_count()-1),
 * page aligned; NULL (errno set) on failure or a bad node.  Free with
 * lf_numa_free and the same size. */
LF_API void *lf_numa_alloc(size_t bytes, int node);
LF_API void lf_numa_free(void *p, size_t bytes);
/* Move the pages of [addr, addr + bytes) to domain node, as a first touch
 * from that domain would have placed them (hwloc_set_area_membind with
 * migration; under LF_FAKE_NUMA the range is recorded as node's, so that
 * lf_numa_node_of answers node for it).  Page granular: the pages that
 * overlap the range move.  0, or -EINVAL (bad node or range), -ENOTSUP
 * (real domains without hwloc), -errno. */
LF_API int lf_numa_place(void *addr, size_t bytes, int node);
/* Under LF_FAKE_NUMA: the calling thread reads bytes at addr; when addr
 * lies on another domain, wait the emulated transfer time (the domain's
 * port serves one transfer at a time).  Returns the ns charged; 0 when the
 * data is local or the domains are real (real memory costs for itself). */
LF_API double lf_numa_charge(const void *addr, size_t bytes);

#define LF_MAX_INPUTS 4

/* One input of a loop: iteration i reads the element at
 * (const char *)base + i * stride * size, and halo elements on each side of
 * a chunk's own (a stencil's reach).  Or, when span is set, span() says
 * where the input of loop indices [first, last] lies (first <= last), and
 * base/size/stride/halo are ignored. */
struct lf_input {
    const void *base;
    size_t size; /* bytes per element (>= 1) */
    long stride; /* elements between the data of index i and of i + 1 (>= 1) */
    long halo;   /* elements read beyond each end of a chunk (>= 0) */
    void (*span)(long first, long last, const void **addr, size_t *bytes, void *arg);
    void *arg;
};

/* What a loop says about its data (all optional: zero means "nothing").
 *   home/nhome  the iteration ranges the domains hold: domain d owns
 *               logical iterations [home[d], home[d+1]) of the loop
 *               (nhome + 1 ascending entries, home[0] = 0, home[nhome] = n;
 *               more ranges than lf_numa_count() domains: no locality);
 *   learn       no home given: learn it from where input 0's pages lie
 *               (lf_numa_node_of), remembered while base, bounds and trip
 *               count stay the same;
 *   inputs      what a chunk reads; with staging on, a chunk whose home is
 *               another domain is first copied to a buffer on the thread's
 *               own domain, and lf_loop_input points there. */
struct lf_data {
    const unsigned long *home;
    int nhome;
    int learn;
    int ninputs; /* 0 .. LF_MAX_INPUTS */
    struct lf_input in[LF_MAX_INPUTS];
};

/* lf_loop_begin with a description of the loop's data (NULL: none).  Every
 * member passes the same description; the first one in reads it.  Locality
 * (threads take chunks from their own domain's range first) and staging are
 * schedule keys, numa=on|off and stage=on|off (on when the data says
 * enough and there are >= 2 domains).  -EINVAL for a malformed description. */
LF_API int lf_loop_begin_data(lf_loop *loop, int tid, long lo, long hi, long incr,
                              const struct lf_data *data);
/* Input k of member tid's current chunk (from the latest lf_loop_next):
 * the address of the element of the chunk's first index, in the staged
 * copy or in place.  The element of index i of the chunk is at
 * (const char *)result + (i - first) * stride * size, halo included; for a
 * span input, the start of the span.  NULL without a current chunk. */
LF_API const void *lf_loop_input(lf_loop *loop, int tid, int k);

/* What the latest completed loop of a handle did about locality. */
struct lf_loop_numa_stats {
    unsigned long local_iters;  /* iterations computed on their home domain */
    unsigned long remote_iters; /* taken from another domain's range */
    unsigned long staged_iters; /* of which staged into a local buffer */
    unsigned long staged_bytes;
    int domains; /* domains the loop was split over (1: no locality) */
};
LF_API int lf_loop_last_numa_stats(const lf_loop *loop, struct lf_loop_numa_stats *out);

/* ---- Traces ---- */

/* The file that LF_TRACE names for the process pid (<= 0: this one), its
 * "%p" expanded to pid and "%%" to "%" as the library does when that
 * process writes its trace (a program that drives children through a
 * shared LF_TRACE finds each child's file); FILE.profile beside it holds
 * the cost profiles that auto learned.  0 with the name in buf; -ENOENT when
 * LF_TRACE was not set when this process first read it (its first loop or
 * this call); -ENAMETOOLONG when buf's len bytes cannot hold the name;
 * -EINVAL for a NULL buf or len 0. */
LF_API int lf_trace_file(long pid, char *buf, size_t len);

/* Append to LF_TRACE one record of a contiguous range that thread ran
 * outside a loop handle (the shims' static loops): the logical iterations
 * [lo, hi) of execution instance of the loop named site, run from start_ns
 * to end_ns (CLOCK_MONOTONIC), under plan (e.g. "static", "weighted").  The
 * record has the trace's columns, with pieces 1 and from -1; its times
 * count from the trace's epoch, set when the process first reads LF_TRACE
 * (its first loop, or its first call of lf_trace_file or lf_trace_range),
 * and a time before the epoch is written as 0.  One write of
 * one whole line, so records of threads and processes never interleave
 * within a line.  0 when written; -ENOENT when LF_TRACE is not set
 * (whatever the arguments); else -EINVAL for a NULL or empty site or plan,
 * a name holding a comma or a newline, thread < 0, hi < lo or end_ns <
 * start_ns; -ENAMETOOLONG when the record exceeds 4096 bytes; -EIO when
 * tracing has stopped (said once, as for every record). */
LF_API int lf_trace_range(const char *site, unsigned long long instance, int thread,
                          unsigned long long lo, unsigned long long hi, unsigned long long start_ns,
                          unsigned long long end_ns, const char *plan);

/* ---- Preload shims ---- */

/* libloopfarm-gomp and libloopfarm-kmp (not libloopfarm) define
 *   int lf_shim_enable(int on);
 * for programs that find it at run time, when a shim is preloaded:
 *   lf_shim_enable_fn *f = (lf_shim_enable_fn *)dlsym(RTLD_DEFAULT, LF_SHIM_ENABLE);
 * 0 leaves every loop that starts afterwards to the OpenMP runtime, as if
 * neither LF_SCHEDULE nor LF_REPLACE were set; 1 takes them again as those
 * variables say.  Returns the previous state (0 or 1); -EBUSY inside a
 * parallel region (call it between regions, from the thread that starts
 * them: every member of a team must see one state), -ENOENT for 1 when
 * neither variable configured the shim, -EINVAL for another value.  For
 * comparing a schedule with the runtime's own within one process
 * (bench/lf-graph --alternate). */
typedef int lf_shim_enable_fn(int on);
#define LF_SHIM_ENABLE "lf_shim_enable"

/* ---- OpenMP binding (used by <loopfarm/omp.h>; not called directly) ---- */

/* A call site of LF_FOR: static storage, zero-initialised apart from the
 * label; the library keeps what the site's loops learned behind it. */
struct lf_site {
    const char *file;
    int line;
    void *priv; /* read and published by the library with atomic builtins only */
    int flags;  /* LF_SITE_*: how the site's handles are made */
    /* The loop's own schedule as the program wrote it (a schedule spec, such
     * as "dynamic" for a preload shim's schedule(dynamic) loop), which auto
     * measures itself against; NULL: guided self-scheduling. */
    const char *own;
};
/* The site's handles keep their chunks within OpenMP's guided bound
 * (lf_loop_set_guided_cap): the preload shim's schedule(guided) loops. */
#define LF_SITE_GUIDED_CAP 1
/* The site's handles hand each member its chunks in increasing order
 * (lf_loop_set_monotonic: no chunk taken from another's lease or block): the preload
 * shims' loops that ask for monotonic order (schedule(monotonic:...),
 * ordered). */
#define LF_SITE_MONOTONIC 2
/* A loop handle loaned to one execution of a site's loop (opaque). */
typedef struct lf_omp_loan lf_omp_loan;
/* Lease an idle handle of the site for a team of nthreads running schedule
 * spec (NULL: LF_SCHEDULE), or make one.  Never NULL: a failure to allocate
 * is reported and aborts.  A bad spec is reported once per site and runs
 * under "dynamic". */
LF_API lf_omp_loan *lf_omp_loan_get(struct lf_site *site, const char *spec, int nthreads);
/* Under libgomp: all members of the calling team call it and receive one
 * lease, chosen by the first of them, through the memory of an empty work
 * share of the team's (no barrier).  NULL, for every member, when the
 * runtime offers no such memory (libomp): then one member leases and
 * `omp single copyprivate` hands its lease to the others. */
LF_API lf_omp_loan *lf_omp_team_loan(struct lf_site *site, const char *spec, int nthreads);
/* The same meeting on a zeroed, pointer-aligned block that the team's
 * members alone share (the preload shim's work shares). */
LF_API lf_omp_loan *lf_omp_meet(void *block, struct lf_site *site, const char *spec, int nthreads);
LF_API lf_loop *lf_omp_loan_loop(const lf_omp_loan *lease);
/* Member tid enters the lease's loop (lf_loop_begin_data).  What the member
 * cannot run is reported once per site, and answered NULL (the member runs
 * no iteration): increment 0, or bounds that differ from those its team
 * started the loop with.  A malformed data description is reported and the
 * loop runs without it. */
LF_API lf_loop *lf_omp_enter(struct lf_site *site, lf_omp_loan *lease, int tid, long lo, long hi,
                             long incr, const struct lf_data *data);
/* Member tid leaves: lf_loop_end when loop is not NULL, then its share of
 * the lease; the last of the team's members gives the handle back. */
LF_API void lf_omp_exit(struct lf_site *site, lf_omp_loan *lease, lf_loop *loop, int tid);

/* A loop that runs without a handle: a schedule that needs nothing but a
 * shared counter and sizes its claims from what is left (guided: no
 * times, nothing learned) costs its claims and the team's meeting only.
 * The storage is the library's, in the member's own LF_FOR cursor. */
struct lf_omp_light {
    void *lf__w[32];
};
/* Member tid of a team of nthreads enters the site's loop over
 * [lo, hi) by incr: 1 when it runs here (then lf_omp_light_next and
 * lf_omp_light_end, even when its bounds differ from its team's, which is
 * reported once per site and gives it no iteration), 0 when the loop
 * needs a handle (the schedule times or learns, LF_TRACE or LF_BIND is
 * set, the team is larger than one and the runtime is not libgomp,
 * increment 0): then lf_omp_team_loan or lf_omp_loan_get, and
 * lf_omp_enter.  Under libgomp a schedule with tiny executions (auto)
 * meets its team here and runs a tiny one here; for a timed one the
 * member's next lf_omp_team_loan or lf_omp_loan_get of the site
 * returns the lease the team met for, without meeting again. */
LF_API int lf_omp_light_begin(struct lf_site *site, const char *spec, int nthreads, int tid,
                              long lo, long hi, long incr, struct lf_omp_light *lt);
LF_API int lf_omp_light_next(struct lf_omp_light *lt, long *first, unsigned long *count);
LF_API void lf_omp_light_end(struct lf_omp_light *lt);

#ifdef __cplusplus
}
#endif

#endif
