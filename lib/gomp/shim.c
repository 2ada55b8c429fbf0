/* lib/gomp/shim.c - libloopfarm-gomp: loopfarm's schedules under the worksharing loops of
 * unmodified GCC binaries.
 *
 * Preloaded (LD_PRELOAD) or linked ahead of libgomp, this library defines the loop entry
 * points GCC emits and, for each loop, either schedules it with loopfarm or hands every call
 * unchanged to libgomp's own definition (found with dlsym(RTLD_NEXT, ...), all names at once,
 * on the first call, under pthread_once).
 *
 * Never worse than absent.  With neither LF_SCHEDULE nor LF_REPLACE set (or both empty),
 * every entry point forwards its arguments to libgomp and returns its result: the shim is one
 * pthread_once check and a call.
 *
 * Which loops are taken.  The decision is made at a loop's start (or, for the combined
 * `parallel for` forms, before the team starts) from the schedule the program gave, the
 * environment and the bounds only, so all members of a team decide alike:
 *   - schedule(dynamic[,c]), schedule(guided[,c]), monotonic or not: taken under
 *     LF_REPLACE's entry for that kind when there is one, else under LF_SCHEDULE;
 *   - schedule(runtime) (and the generic GOMP_loop_start with code GFS_RUNTIME): the run-sched
 *     ICV (omp_get_schedule) picks the kind; dynamic, guided and auto are taken under
 *     LF_REPLACE's "runtime:" entry, else LF_SCHEDULE, else LF_REPLACE's entry for that kind;
 *     static stays with libgomp;
 *   - an entry "kind:gomp" leaves that kind to libgomp;
 *   - never taken: static and auto in the source, ordered, doacross (they have entry points
 *     of their own that the shim does not define), GOMP_loop_start / GOMP_loop_ull_start with
 *     task reductions or a `mem` block (lastprivate(conditional), scan: libgomp keeps state
 *     in the work share for them) or with istart == NULL, loops nested deeper than
 *     SHIM_LEVELS levels, and loops of more than LONG_MAX scheduling units.
 * LF_REPLACE's grammar: entries "kind:spec" separated by ',' or ';', where kind is dynamic,
 * guided, runtime or auto and spec a loopfarm schedule ("multi", "dynamic,4", "af,k=2": the
 * tokens that follow an entry up to the next "kind:" belong to its spec), plus "chunk:honour"
 * (default) or "chunk:ignore", and "cap:guided" (default) or "cap:ignore".
 *
 * Guided loops.  OpenMP bounds a guided chunk by the unassigned iterations divided by the
 * team size; the handles of schedule(guided) loops (and runtime loops whose kind is guided)
 * are made with lf_loop_set_guided_cap, so every claim, whatever the schedule, stays within
 * ceil(unassigned units / threads).  cap:ignore lifts it.
 *
 * Chunk sizes.  An explicit chunk c is honoured by scheduling the loop in units of c
 * iterations: loopfarm sees ceil(n/c) units and every chunk it hands out is expanded back, so
 * every chunk but the loop's last is a multiple of c.  chunk:ignore lets loopfarm size chunks
 * in single iterations.  A loopfarm spec's own chunk ("dynamic,4") then counts units.
 *
 * Monotonic loops.  loopfarm claims chunks from one shared counter that only moves forward,
 * so a thread's chunks come in increasing order, except where a schedule loans each member a
 * range of its own (auto's loan, loan=on|force) and a member that finishes early takes the
 * tail of another's, or a fixed-size loop gives each member a block of its own and a member
 * that finishes its block claims from another's (lib/dispatch/claim.c): that is allowed under
 * OpenMP's nonmonotonic modifier only.  Loops entered
 * through the monotonic entry points (GOMP_loop_dynamic_start, _guided_, _runtime_, their
 * ull and combined `parallel for` forms, the GOMP 1.0 forms, GOMP_loop_start with
 * GFS_MONOTONIC) and runtime loops whose ICV says monotonic (OMP_SCHEDULE=monotonic:dynamic)
 * are scheduled with lf_loop_set_monotonic (their sites carry LF_SITE_MONOTONIC): no loan,
 * one counter.
 * GCC 9 and later emit the nonmonotonic and maybe_nonmonotonic entry points for schedule(
 * dynamic), schedule(guided) and schedule(runtime) without a modifier (OpenMP 5.0's default).
 *
 * Iteration spaces.  Every taken loop, long or unsigned long long, counting up or down, is
 * scheduled as the logical space [0, units) with step 1; a chunk [u0, u1) of units becomes
 * iterations [u0*c, min(u1*c, n)) and is returned in GOMP's convention: istart = start +
 * j0*incr, iend = start + j1*incr (exclusive, below istart when counting down), except that
 * the loop's last chunk ends at the program's own end, as libgomp's do.  Trip counts are
 * computed in unsigned arithmetic, so bounds near LONG_MAX or ULLONG_MAX do not overflow.
 *
 * Teams.  A taken loop is also a libgomp work share of its own: each member opens it with
 * libgomp's GOMP_loop_start (static, no iterations), whose `mem` block is zeroed memory that
 * this team's members alone share while the loop runs.  There they meet (lf_omp_meet): the
 * first loans a loop handle of the loop's call site (the return address of the entry point)
 * and team size, the others take the same, and the last member out gives it back.  So teams
 * that different threads start at the same time never share a handle, members enter loops
 * without a barrier and may run ahead through nowait loops, and a member whose bounds differ
 * from those the first member wrote in the block takes no chunk (reported).  A libgomp without
 * GOMP_loop_start (older than GCC 9) keeps every loop.
 *
 * Per-thread state.  _next and _end are shared by the loops the shim takes and those it does
 * not, so each thread keeps, per nesting level (omp_get_level()), the loop it is in if that
 * loop is the shim's; a count of such levels lets _next skip the lookup when it is zero.
 *
 * Ends.  GOMP_loop_end, GOMP_loop_end_nowait and GOMP_loop_end_cancel leave the loopfarm loop
 * and then call libgomp's own, which closes the loop's work share (with the closing barrier,
 * without, or with the barrier's cancellation answer).
 *
 * Combined forms.  GOMP_parallel_loop_{dynamic,guided,runtime,...}: when taken, the shim calls
 * GOMP_parallel with a wrapper that enters the loopfarm loop on each member and then runs the
 * program's function, whose first _next gets the first chunk.  The GOMP 1.0 forms
 * GOMP_parallel_loop_*_start are handled alike through GOMP_parallel_start: the calling thread
 * enters the loop before returning (it runs the function itself), and the wrapper's context is
 * freed in GOMP_parallel_end.
 *
 * Call sites.  Each loop learns on its own: its handles, and what they remember, belong to
 * the call site of its start (the return address of the entry point) and its team size.
 *
 * Linking.  The shim needs no OpenMP runtime of its own (no -fopenmp, no libgomp in its
 * DT_NEEDED entries): a preloaded library that needs libgomp made libgomp's barriers sleep
 * instead of spin (lib/gomp/gomp.mk).  The omp_ and GOMP_ names it calls are the program's
 * libgomp's, referenced weakly (lib/shim/shim.h); a libgomp that a dlopen'ed library brought
 * outside the global scope is promoted to it at the first call (lf__shim_find_runtime).
 * lf_shim_enable(on) switches taking loops off and on between parallel regions (loopfarm.h).
 *
 * LF_VERBOSE=1 prints the configuration once and names each call site the first time the
 * shim takes a loop there.  The configuration, the choice of loops, call sites and the
 * logical iteration space are shared with libloopfarm-kmp (lib/shim/common.c).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loopfarm.h>
#include "atomics.h"
#include "shim/shim.h"

#define SHIM_API __attribute__((visibility("default")))

#define SHIM_LEVELS LF__SHIM_LEVELS

/* libgomp's schedule codes (libgomp.h, enum gomp_schedule_type, GCC 9-14). */
#define GFS_RUNTIME   0
#define GFS_STATIC    1
#define GFS_DYNAMIC   2
#define GFS_GUIDED    3
#define GFS_AUTO      4
#define GFS_MONOTONIC 0x80000000UL

typedef lf__ull ull;
typedef void (*body_fn)(void *);

/* libgomp functions the shim calls but does not define. */
extern void GOMP_parallel(body_fn fn, void *data, unsigned nthreads, unsigned flags);
extern void GOMP_parallel_start(body_fn fn, void *data, unsigned nthreads);
extern void GOMP_barrier(void);
extern bool GOMP_barrier_cancel(void);
/* Weak, as the omp_ names in shim.h: libgomp is the program's, not a library this one needs. */
#pragma weak GOMP_parallel
#pragma weak GOMP_parallel_start

typedef bool (*start_fn)(long, long, long, long, long *, long *);
typedef bool (*rstart_fn)(long, long, long, long *, long *);
typedef bool (*gstart_fn)(long, long, long, long, long, long *, long *, uintptr_t *, void **);
typedef bool (*next_fn)(long *, long *);
typedef bool (*ustart_fn)(bool, ull, ull, ull, ull, ull *, ull *);
typedef bool (*urstart_fn)(bool, ull, ull, ull, ull *, ull *);
typedef bool (*ugstart_fn)(bool, ull, ull, ull, long, ull, ull *, ull *, uintptr_t *, void **);
typedef bool (*unext_fn)(ull *, ull *);
typedef void (*end_fn)(void);
typedef bool (*endc_fn)(void);
typedef void (*pl_fn)(body_fn, void *, unsigned, long, long, long, long, unsigned);
typedef void (*plr_fn)(body_fn, void *, unsigned, long, long, long, unsigned);
typedef void (*pls_fn)(body_fn, void *, unsigned, long, long, long, long);
typedef void (*plrs_fn)(body_fn, void *, unsigned, long, long, long);

/* Every entry point the shim defines, with the type of libgomp's definition. */
#define SHIM_ENTRIES(X)                                                                            \
    X(GOMP_loop_dynamic_start, start_fn)                                                           \
    X(GOMP_loop_guided_start, start_fn)                                                            \
    X(GOMP_loop_nonmonotonic_dynamic_start, start_fn)                                              \
    X(GOMP_loop_nonmonotonic_guided_start, start_fn)                                               \
    X(GOMP_loop_runtime_start, rstart_fn)                                                          \
    X(GOMP_loop_nonmonotonic_runtime_start, rstart_fn)                                             \
    X(GOMP_loop_maybe_nonmonotonic_runtime_start, rstart_fn)                                       \
    X(GOMP_loop_start, gstart_fn)                                                                  \
    X(GOMP_loop_dynamic_next, next_fn)                                                             \
    X(GOMP_loop_guided_next, next_fn)                                                              \
    X(GOMP_loop_nonmonotonic_dynamic_next, next_fn)                                                \
    X(GOMP_loop_nonmonotonic_guided_next, next_fn)                                                 \
    X(GOMP_loop_runtime_next, next_fn)                                                             \
    X(GOMP_loop_nonmonotonic_runtime_next, next_fn)                                                \
    X(GOMP_loop_maybe_nonmonotonic_runtime_next, next_fn)                                          \
    X(GOMP_loop_ull_dynamic_start, ustart_fn)                                                      \
    X(GOMP_loop_ull_guided_start, ustart_fn)                                                       \
    X(GOMP_loop_ull_nonmonotonic_dynamic_start, ustart_fn)                                         \
    X(GOMP_loop_ull_nonmonotonic_guided_start, ustart_fn)                                          \
    X(GOMP_loop_ull_runtime_start, urstart_fn)                                                     \
    X(GOMP_loop_ull_nonmonotonic_runtime_start, urstart_fn)                                        \
    X(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, urstart_fn)                                  \
    X(GOMP_loop_ull_start, ugstart_fn)                                                             \
    X(GOMP_loop_ull_dynamic_next, unext_fn)                                                        \
    X(GOMP_loop_ull_guided_next, unext_fn)                                                         \
    X(GOMP_loop_ull_nonmonotonic_dynamic_next, unext_fn)                                           \
    X(GOMP_loop_ull_nonmonotonic_guided_next, unext_fn)                                            \
    X(GOMP_loop_ull_runtime_next, unext_fn)                                                        \
    X(GOMP_loop_ull_nonmonotonic_runtime_next, unext_fn)                                           \
    X(GOMP_loop_ull_maybe_nonmonotonic_runtime_next, unext_fn)                                     \
    X(GOMP_loop_end, end_fn)                                                                       \
    X(GOMP_loop_end_nowait, end_fn)                                                                \
    X(GOMP_loop_end_cancel, endc_fn)                                                               \
    X(GOMP_parallel_loop_dynamic, pl_fn)                                                           \
    X(GOMP_parallel_loop_guided, pl_fn)                                                            \
    X(GOMP_parallel_loop_nonmonotonic_dynamic, pl_fn)                                              \
    X(GOMP_parallel_loop_nonmonotonic_guided, pl_fn)                                               \
    X(GOMP_parallel_loop_runtime, plr_fn)                                                          \
    X(GOMP_parallel_loop_nonmonotonic_runtime, plr_fn)                                             \
    X(GOMP_parallel_loop_maybe_nonmonotonic_runtime, plr_fn)                                       \
    X(GOMP_parallel_loop_dynamic_start, pls_fn)                                                    \
    X(GOMP_parallel_loop_guided_start, pls_fn)                                                     \
    X(GOMP_parallel_loop_runtime_start, plrs_fn)                                                   \
    X(GOMP_parallel_end, end_fn)

static struct {
#define X(name, type) type name;
    SHIM_ENTRIES(X)
#undef X
} real;

/* The source kinds of the entry points, with S_MONO added for the monotonic ones (the
 * entry points without "nonmonotonic" in their name, and GOMP_loop_start's GFS_MONOTONIC). */
enum src {
    S_DYNAMIC = LF__SHIM_SRC_DYNAMIC,
    S_GUIDED = LF__SHIM_SRC_GUIDED,
    S_RUNTIME = LF__SHIM_SRC_RUNTIME,
    S_KIND = 7,
    S_MONO = 8
};

static struct lf__shim cfg = {.name = "gomp", .runtime = "libgomp"};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_int init_done; /* set (release) at the end of shim_init */

/* Per thread (initial-exec TLS, shim.h): about 1.2 KiB. */
#define SHIM_TLS LF__SHIM_TLS
static SHIM_TLS struct lf__shim_loop levels[SHIM_LEVELS];
static SHIM_TLS int nours;                     /* levels with loop != NULL */
static SHIM_TLS void *legacy_ctx[SHIM_LEVELS]; /* GOMP 1.0 combined forms, for parallel_end */
static SHIM_TLS int nlegacy;

/* ---- Configuration ---- */

/* Resolve libgomp's definitions and read the environment (once per process, at the first
 * entry point called: libgomp is in the process by then). */
static void shim_setup(void)
{
    static const char *const runtime[] = {"libgomp.so.1", NULL};
    lf__shim_find_runtime(runtime);
#define X(name, type) real.name = (type)dlsym(RTLD_NEXT, #name);
    SHIM_ENTRIES(X)
#undef X
    lf__shim_configure(&cfg);
}

/* pthread_once's routine: set up, then publish (release) for shim_ready's fast check. */
static void shim_init(void)
{
    shim_setup();
    atomic_store_explicit(&init_done, 1, memory_order_release);
}

/* Make sure the shim is initialised (libgomp resolved, environment read): one
 * acquire load once it is. */
static inline void shim_ready(void)
{
    if (__builtin_expect(!atomic_load_explicit(&init_done, memory_order_acquire), 0))
        pthread_once(&init_once, shim_init);
}

static _Noreturn void missing(const char *name)
{
    fprintf(stderr, "loopfarm-gomp: libgomp defines no %s; cannot forward\n", name);
    abort();
}

/* libgomp's definition of name, which must exist. */
#define REAL(name) (real.name ? real.name : (missing(#name), real.name))

/* ---- Taking a loop ---- */

/* Iterations of a loop whose bounds differ by d (> 0) with a step of magnitude step. */
static ull steps(ull d, ull step)
{
    return step ? d / step + (d % step != 0) : 0;
}

/* Number of iterations of an unsigned long long loop (incr is negative, as a pattern, when
 * counting down), in unsigned arithmetic. */
static ull trip(bool up, ull start, ull end, ull incr)
{
    if (up)
        return start < end ? steps(end - start, incr) : 0;
    return start > end ? steps(start - end, -incr) : 0;
}

/* Number of iterations of a long loop; the bounds' difference is taken modulo 2^64, where it
 * is exact even when it exceeds LONG_MAX. */
static ull trip_long(long start, long end, long incr)
{
    if (incr > 0)
        return start < end ? steps((ull)end - (ull)start, (ull)incr) : 0;
    return start > end ? steps((ull)start - (ull)end, -(ull)incr) : 0;
}

/* Decide whether the shim takes a loop of n iterations at nesting level `level`, filling st's
 * scheduling fields; returns the entry, or -1 for libgomp. */
static int decide(int src, ull chunk, ull n, int level, struct lf__shim_loop *st)
{
    if (!real.GOMP_loop_start)
        return -1; /* no GOMP_loop_start: a libgomp older than GCC 9 keeps every loop */
    return lf__shim_decide(&cfg, (enum lf__shim_src)(src & S_KIND), (src & S_MONO) != 0, chunk, n,
                           level, st);
}

/* What a team's members share about one taken loop: the block of the libgomp work share
 * the shim opens for it (zeroed by libgomp, seen by this team's members alone). */
struct meet_block {
    void *_Atomic loan;      /* lf_omp_meet's slot: first, pointer-aligned */
    atomic_int bounds_state; /* 0, 1: being written, 2: written */
    struct lf__shim_bounds bounds;
};

/* Whether the member's loop is the one its team started: the first member writes its bounds,
 * the others compare theirs. */
static bool same_bounds(struct meet_block *b, const struct lf__shim_loop *st)
{
    int zero = 0;
    struct lf__shim_bounds mine;
    lf__shim_bounds_of(st, &mine);
    /* acq_rel: one member writes the bounds; the others learn that one does. */
    if (atomic_compare_exchange_strong_explicit(&b->bounds_state, &zero, 1, memory_order_acq_rel,
                                                memory_order_acquire)) {
        b->bounds = mine;
        /* Release: the bounds are written before the state says so. */
        atomic_store_explicit(&b->bounds_state, 2, memory_order_release);
        return true;
    }
    /* Acquire: pairs with the release above.  The writer is between two
     * stores: a brief wait. */
    unsigned spins = 0;
    while (atomic_load_explicit(&b->bounds_state, memory_order_acquire) != 2)
        lf__wait_brief(&spins);
    return memcmp(&b->bounds, &mine, sizeof mine) == 0;
}

/* Enter the calling member into its team's loopfarm loop for entry e, called from ra; st is
 * filled.  The loop is a libgomp work share of its own (static, no iterations: it only gives
 * the team a block to meet in and keeps libgomp's count of work shares); the shim's ends
 * close it with libgomp's own GOMP_loop_end*. */
static void enter(int e, struct lf__shim_loop *st, const void *ra)
{
    void *mem = (void *)(uintptr_t)sizeof(struct meet_block);
    long s0, s1;
    REAL(GOMP_loop_start)(0, 0, 1, GFS_STATIC, 0, &s0, &s1, NULL, &mem);
    struct lf_site *site = lf__shim_site(&cfg, e, st->monotonic, ra);
    int nthreads = omp_get_num_threads();
    st->tid = omp_get_thread_num();
    lf_omp_loan *loan = nthreads > 1 ? lf_omp_meet(mem, site, cfg.spec[e], nthreads)
                                     : lf_omp_loan_get(site, cfg.spec[e], 1);
    lf__shim_join(&cfg, st, site, loan, same_bounds(mem, st));
    nours++;
}

/* Hand the member its next chunk in GOMP's convention; false when the loop is done for it. */
static bool next_chunk(struct lf__shim_loop *st, ull *istart, ull *iend)
{
    ull j0, j1;
    if (!lf__shim_next(st, &j0, &j1))
        return false;
    *istart = st->start + j0 * st->incr;
    /* The last chunk ends at the program's end, as libgomp's does. */
    *iend = j1 >= st->n ? st->end : st->start + j1 * st->incr;
    return true;
}

/* The calling thread's shim loop at its current level, or NULL when libgomp owns the loop. */
static inline struct lf__shim_loop *current(void)
{
    return lf__shim_current(levels, nours);
}

/* The member leaves its shim loop (the caller then closes the libgomp work share). */
static void leave(struct lf__shim_loop *st)
{
    lf__shim_leave(st);
    nours--;
}

/* Start a long loop if the shim takes it: true in *taken, and the first chunk's answer. */
static bool start_long(int src, long start, long end, long incr, ull chunk, long *istart,
                       long *iend, bool *taken, const void *ra)
{
    int level = omp_get_level();
    struct lf__shim_loop tmp;
    int e = decide(src, chunk, trip_long(start, end, incr), level, &tmp);
    *taken = e >= 0;
    if (e < 0)
        return false;
    struct lf__shim_loop *st = &levels[level];
    *st = tmp;
    st->start = (ull)start;
    st->end = (ull)end;
    st->incr = (ull)incr;
    enter(e, st, ra);
    ull s, t;
    if (!next_chunk(st, &s, &t))
        return false;
    *istart = (long)s;
    *iend = (long)t;
    return true;
}

static bool start_ull(int src, bool up, ull start, ull end, ull incr, ull chunk, ull *istart,
                      ull *iend, bool *taken, const void *ra)
{
    int level = omp_get_level();
    struct lf__shim_loop tmp;
    int e = decide(src, chunk, trip(up, start, end, incr), level, &tmp);
    *taken = e >= 0;
    if (e < 0)
        return false;
    struct lf__shim_loop *st = &levels[level];
    *st = tmp;
    st->start = start;
    st->end = end;
    st->incr = incr;
    enter(e, st, ra);
    return next_chunk(st, istart, iend);
}

/* Switch taking loops off (0) or back on (1) between parallel regions (loopfarm.h). */
SHIM_API int lf_shim_enable(int on)
{
    return lf__shim_set_enabled(&cfg, on);
}

/* ---- Worksharing loop entry points ---- */

#define LONG_START(name, src)                                                                      \
    SHIM_API bool name(long start, long end, long incr, long chunk, long *istart, long *iend)      \
    {                                                                                              \
        bool taken, r;                                                                             \
        shim_ready();                                                                              \
        if (lf__shim_enabled(&cfg)) {                                                              \
            r = start_long(src, start, end, incr, chunk > 0 ? (ull)chunk : 1, istart, iend,        \
                           &taken, __builtin_return_address(0));                                   \
            if (taken)                                                                             \
                return r;                                                                          \
        }                                                                                          \
        return REAL(name)(start, end, incr, chunk, istart, iend);                                  \
    }

#define LONG_RSTART(name, src)                                                                     \
    SHIM_API bool name(long start, long end, long incr, long *istart, long *iend)                  \
    {                                                                                              \
        bool taken, r;                                                                             \
        shim_ready();                                                                              \
        if (lf__shim_enabled(&cfg)) {                                                              \
            r = start_long(src, start, end, incr, 1, istart, iend, &taken,                         \
                           __builtin_return_address(0));                                           \
            if (taken)                                                                             \
                return r;                                                                          \
        }                                                                                          \
        return REAL(name)(start, end, incr, istart, iend);                                         \
    }

#define LONG_NEXT(name)                                                                            \
    SHIM_API bool name(long *istart, long *iend)                                                   \
    {                                                                                              \
        shim_ready();                                                                              \
        struct lf__shim_loop *st = current();                                                      \
        if (st) {                                                                                  \
            ull s, t;                                                                              \
            if (!next_chunk(st, &s, &t))                                                           \
                return false;                                                                      \
            *istart = (long)s;                                                                     \
            *iend = (long)t;                                                                       \
            return true;                                                                           \
        }                                                                                          \
        return REAL(name)(istart, iend);                                                           \
    }

#define ULL_START(name, src)                                                                       \
    SHIM_API bool name(bool up, ull start, ull end, ull incr, ull chunk, ull *istart, ull *iend)   \
    {                                                                                              \
        bool taken, r;                                                                             \
        shim_ready();                                                                              \
        if (lf__shim_enabled(&cfg)) {                                                              \
            r = start_ull(src, up, start, end, incr, chunk ? chunk : 1, istart, iend, &taken,      \
                          __builtin_return_address(0));                                            \
            if (taken)                                                                             \
                return r;                                                                          \
        }                                                                                          \
        return REAL(name)(up, start, end, incr, chunk, istart, iend);                              \
    }

#define ULL_RSTART(name, src)                                                                      \
    SHIM_API bool name(bool up, ull start, ull end, ull incr, ull *istart, ull *iend)              \
    {                                                                                              \
        bool taken, r;                                                                             \
        shim_ready();                                                                              \
        if (lf__shim_enabled(&cfg)) {                                                              \
            r = start_ull(src, up, start, end, incr, 1, istart, iend, &taken,                      \
                          __builtin_return_address(0));                                            \
            if (taken)                                                                             \
                return r;                                                                          \
        }                                                                                          \
        return REAL(name)(up, start, end, incr, istart, iend);                                     \
    }

#define ULL_NEXT(name)                                                                             \
    SHIM_API bool name(ull *istart, ull *iend)                                                     \
    {                                                                                              \
        shim_ready();                                                                              \
        struct lf__shim_loop *st = current();                                                      \
        if (st)                                                                                    \
            return next_chunk(st, istart, iend);                                                   \
        return REAL(name)(istart, iend);                                                           \
    }

LONG_START(GOMP_loop_dynamic_start, S_DYNAMIC | S_MONO)
LONG_START(GOMP_loop_guided_start, S_GUIDED | S_MONO)
LONG_START(GOMP_loop_nonmonotonic_dynamic_start, S_DYNAMIC)
LONG_START(GOMP_loop_nonmonotonic_guided_start, S_GUIDED)
LONG_RSTART(GOMP_loop_runtime_start, S_RUNTIME | S_MONO)
LONG_RSTART(GOMP_loop_nonmonotonic_runtime_start, S_RUNTIME)
LONG_RSTART(GOMP_loop_maybe_nonmonotonic_runtime_start, S_RUNTIME)
LONG_NEXT(GOMP_loop_dynamic_next)
LONG_NEXT(GOMP_loop_guided_next)
LONG_NEXT(GOMP_loop_nonmonotonic_dynamic_next)
LONG_NEXT(GOMP_loop_nonmonotonic_guided_next)
LONG_NEXT(GOMP_loop_runtime_next)
LONG_NEXT(GOMP_loop_nonmonotonic_runtime_next)
LONG_NEXT(GOMP_loop_maybe_nonmonotonic_runtime_next)

ULL_START(GOMP_loop_ull_dynamic_start, S_DYNAMIC | S_MONO)
ULL_START(GOMP_loop_ull_guided_start, S_GUIDED | S_MONO)
ULL_START(GOMP_loop_ull_nonmonotonic_dynamic_start, S_DYNAMIC)
ULL_START(GOMP_loop_ull_nonmonotonic_guided_start, S_GUIDED)
ULL_RSTART(GOMP_loop_ull_runtime_start, S_RUNTIME | S_MONO)
ULL_RSTART(GOMP_loop_ull_nonmonotonic_runtime_start, S_RUNTIME)
ULL_RSTART(GOMP_loop_ull_maybe_nonmonotonic_runtime_start, S_RUNTIME)
ULL_NEXT(GOMP_loop_ull_dynamic_next)
ULL_NEXT(GOMP_loop_ull_guided_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_dynamic_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_guided_next)
ULL_NEXT(GOMP_loop_ull_runtime_next)
ULL_NEXT(GOMP_loop_ull_nonmonotonic_runtime_next)
ULL_NEXT(GOMP_loop_ull_maybe_nonmonotonic_runtime_next)

/* The source kind of a generic start's schedule code; -1 for the kinds libgomp keeps. */
static int src_of_code(long sched)
{
    int mono = (unsigned long)sched & GFS_MONOTONIC ? S_MONO : 0;
    switch ((unsigned long)sched & ~GFS_MONOTONIC) {
    case GFS_RUNTIME:
        return S_RUNTIME | mono;
    case GFS_DYNAMIC:
        return S_DYNAMIC | mono;
    case GFS_GUIDED:
        return S_GUIDED | mono;
    default:
        return -1;
    }
}

SHIM_API bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart,
                              long *iend, uintptr_t *reductions, void **mem)
{
    shim_ready();
    int src = src_of_code(sched);
    if (lf__shim_enabled(&cfg) && !reductions && !mem && istart && src >= 0) {
        bool taken, r;
        r = start_long(src, start, end, incr, chunk > 0 ? (ull)chunk : 1, istart, iend, &taken,
                       __builtin_return_address(0));
        if (taken)
            return r;
    }
    return REAL(GOMP_loop_start)(start, end, incr, sched, chunk, istart, iend, reductions, mem);
}

SHIM_API bool GOMP_loop_ull_start(bool up, ull start, ull end, ull incr, long sched, ull chunk,
                                  ull *istart, ull *iend, uintptr_t *reductions, void **mem)
{
    shim_ready();
    int src = src_of_code(sched);
    if (lf__shim_enabled(&cfg) && !reductions && !mem && istart && src >= 0) {
        bool taken, r;
        r = start_ull(src, up, start, end, incr, chunk ? chunk : 1, istart, iend, &taken,
                      __builtin_return_address(0));
        if (taken)
            return r;
    }
    return REAL(GOMP_loop_ull_start)(up, start, end, incr, sched, chunk, istart, iend, reductions,
                                     mem);
}

SHIM_API void GOMP_loop_end(void)
{
    shim_ready();
    struct lf__shim_loop *st = current();
    if (!st) {
        REAL(GOMP_loop_end)();
        return;
    }
    leave(st);
    REAL(GOMP_loop_end)(); /* closes the work share with the loop's barrier */
}

SHIM_API void GOMP_loop_end_nowait(void)
{
    shim_ready();
    struct lf__shim_loop *st = current();
    if (!st) {
        REAL(GOMP_loop_end_nowait)();
        return;
    }
    leave(st);
    REAL(GOMP_loop_end_nowait)();
}

SHIM_API bool GOMP_loop_end_cancel(void)
{
    shim_ready();
    struct lf__shim_loop *st = current();
    if (!st)
        return REAL(GOMP_loop_end_cancel)();
    leave(st);
    return REAL(GOMP_loop_end_cancel)();
}

/* ---- Combined parallel loops ---- */

/* What each member of a team started for a combined `parallel for` needs. */
struct par_ctx {
    body_fn fn;
    void *data;
    int entry;
    const void *ra;             /* the call site */
    struct lf__shim_loop proto; /* scheduling fields and bounds; loop and tid unset */
};

/* Enter the member into the combined loop at its level, so that fn's _next calls get chunks. */
static void par_enter(struct par_ctx *x)
{
    int level = omp_get_level();
    struct lf__shim_loop *st = &levels[level];
    *st = x->proto;
    enter(x->entry, st, x->ra);
}

/* Run by every member of a combined loop's team (GOMP_parallel). */
static void par_body(void *p)
{
    struct par_ctx *x = p;
    par_enter(x);
    x->fn(x->data);
    struct lf__shim_loop *st = current();
    if (st) { /* fn returned without GOMP_loop_end_nowait */
        leave(st);
        REAL(GOMP_loop_end_nowait)();
    }
}

/* Fill x for a combined loop if the shim takes it; false for libgomp. */
static bool par_decide(struct par_ctx *x, int src, body_fn fn, void *data, long start, long end,
                       long incr, ull chunk, const void *ra)
{
    if (!lf__shim_enabled(&cfg))
        return false;
    int e = decide(src, chunk, trip_long(start, end, incr), omp_get_level() + 1, &x->proto);
    if (e < 0)
        return false;
    x->fn = fn;
    x->data = data;
    x->entry = e;
    x->ra = ra;
    x->proto.loop = NULL;
    x->proto.start = (ull)start;
    x->proto.end = (ull)end;
    x->proto.incr = (ull)incr;
    return true;
}

#define PAR_LOOP(name, src)                                                                        \
    SHIM_API void name(body_fn fn, void *data, unsigned nthreads, long start, long end, long incr, \
                       long chunk, unsigned flags)                                                 \
    {                                                                                              \
        struct par_ctx x;                                                                          \
        shim_ready();                                                                              \
        if (par_decide(&x, src, fn, data, start, end, incr, chunk > 0 ? (ull)chunk : 1,            \
                       __builtin_return_address(0))) {                                             \
            GOMP_parallel(par_body, &x, nthreads, flags);                                          \
            return;                                                                                \
        }                                                                                          \
        REAL(name)(fn, data, nthreads, start, end, incr, chunk, flags);                            \
    }

#define PAR_LOOP_RT(name, src)                                                                     \
    SHIM_API void name(body_fn fn, void *data, unsigned nthreads, long start, long end, long incr, \
                       unsigned flags)                                                             \
    {                                                                                              \
        struct par_ctx x;                                                                          \
        shim_ready();                                                                              \
        if (par_decide(&x, src, fn, data, start, end, incr, 1, __builtin_return_address(0))) {     \
            GOMP_parallel(par_body, &x, nthreads, flags);                                          \
            return;                                                                                \
        }                                                                                          \
        REAL(name)(fn, data, nthreads, start, end, incr, flags);                                   \
    }

PAR_LOOP(GOMP_parallel_loop_dynamic, S_DYNAMIC | S_MONO)
PAR_LOOP(GOMP_parallel_loop_guided, S_GUIDED | S_MONO)
PAR_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, S_DYNAMIC)
PAR_LOOP(GOMP_parallel_loop_nonmonotonic_guided, S_GUIDED)
PAR_LOOP_RT(GOMP_parallel_loop_runtime, S_RUNTIME | S_MONO)
PAR_LOOP_RT(GOMP_parallel_loop_nonmonotonic_runtime, S_RUNTIME)
PAR_LOOP_RT(GOMP_parallel_loop_maybe_nonmonotonic_runtime, S_RUNTIME)

/* GOMP 1.0: the caller runs fn itself between the start and GOMP_parallel_end, so it enters
 * the loop here, inside the new team; the context lives until GOMP_parallel_end. */
static bool legacy_start(int src, body_fn fn, void *data, unsigned nthreads, long start, long end,
                         long incr, ull chunk, const void *ra)
{
    if (!lf__shim_enabled(&cfg) || omp_get_level() + 1 >= SHIM_LEVELS)
        return false;
    struct par_ctx *x = malloc(sizeof *x);
    if (!x)
        return false;
    if (!par_decide(x, src, fn, data, start, end, incr, chunk, ra)) {
        free(x);
        return false;
    }
    GOMP_parallel_start(par_body, x, nthreads);
    int level = omp_get_level();
    legacy_ctx[level] = x;
    nlegacy++;
    par_enter(x);
    return true;
}

SHIM_API void GOMP_parallel_loop_dynamic_start(body_fn fn, void *data, unsigned nthreads,
                                               long start, long end, long incr, long chunk)
{
    shim_ready();
    if (!legacy_start(S_DYNAMIC | S_MONO, fn, data, nthreads, start, end, incr,
                      chunk > 0 ? (ull)chunk : 1, __builtin_return_address(0)))
        REAL(GOMP_parallel_loop_dynamic_start)(fn, data, nthreads, start, end, incr, chunk);
}

SHIM_API void GOMP_parallel_loop_guided_start(body_fn fn, void *data, unsigned nthreads, long start,
                                              long end, long incr, long chunk)
{
    shim_ready();
    if (!legacy_start(S_GUIDED | S_MONO, fn, data, nthreads, start, end, incr,
                      chunk > 0 ? (ull)chunk : 1, __builtin_return_address(0)))
        REAL(GOMP_parallel_loop_guided_start)(fn, data, nthreads, start, end, incr, chunk);
}

SHIM_API void GOMP_parallel_loop_runtime_start(body_fn fn, void *data, unsigned nthreads,
                                               long start, long end, long incr)
{
    shim_ready();
    if (!legacy_start(S_RUNTIME | S_MONO, fn, data, nthreads, start, end, incr, 1,
                      __builtin_return_address(0)))
        REAL(GOMP_parallel_loop_runtime_start)(fn, data, nthreads, start, end, incr);
}

SHIM_API void GOMP_parallel_end(void)
{
    shim_ready();
    void *x = NULL;
    if (nlegacy) {
        int level = omp_get_level();
        if (level >= 0 && level < SHIM_LEVELS && legacy_ctx[level]) {
            x = legacy_ctx[level];
            legacy_ctx[level] = NULL;
            nlegacy--;
            struct lf__shim_loop *st = current();
            if (st) { /* the caller's fn returned without GOMP_loop_end_nowait */
                leave(st);
                REAL(GOMP_loop_end_nowait)();
            }
        }
    }
    REAL(GOMP_parallel_end)();
    free(x); /* every member has left par_body */
}
