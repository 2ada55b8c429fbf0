/* lib/kmp/shim.c - libloopfarm-kmp: loopfarm's schedules under the worksharing loops of
 * unmodified binaries built for LLVM's OpenMP runtime (libomp: clang, Intel icx/ifx, AMD
 * AOCC).
 *
 * Preloaded (LD_PRELOAD) ahead of libomp, this library defines the dispatch entry points a
 * compiler emits for a loop with a dynamic schedule:
 *     __kmpc_dispatch_init_{4,4u,8,8u}(loc, gtid, schedule, lb, ub, st, chunk)
 *     __kmpc_dispatch_next_{4,4u,8,8u}(loc, gtid, &last, &lb, &ub, &st)   (1: a chunk, 0: done)
 * (LLVM 14 runtime, kmp.h; what clang 14 emits was checked with `clang -fopenmp -S`), and
 * __kmpc_doacross_init / _fini, which it only notes.  For each loop it either schedules the loop
 * with loopfarm or hands every call unchanged to libomp's own definition (dlsym(RTLD_NEXT),
 * all names at once, on the first call, under pthread_once).  Static loops do not reach
 * these entry points: lib/kmp/static.c takes them under LF_REPLACE=static:weighted, else they
 * stay libomp's, as tasks and teams do.
 *
 * Never worse than absent.  With neither LF_SCHEDULE nor LF_REPLACE set (or both empty), every
 * call is forwarded: one acquire load and a call.
 *
 * Which loops are taken (lib/shim/common.c decides for both shims).  The schedule argument is
 * an enum sched_type of kmp.h with the modifier bits monotonic (1 << 29) and nonmonotonic
 * (1 << 30):
 *   - kmp_sch_dynamic_chunked (35) and kmp_sch_guided_chunked (36, and the guided variants
 *     42, 43 libomp itself may be handed), with either modifier: LF_REPLACE's entry for the
 *     kind, else LF_SCHEDULE;
 *   - kmp_sch_runtime (37): the run-sched ICV (omp_get_schedule) picks the kind; dynamic,
 *     guided and auto are taken under LF_REPLACE's "runtime:" entry, else LF_SCHEDULE, else
 *     LF_REPLACE's entry for that kind; static and libomp's own kinds stay libomp's;
 *   - never taken: static kinds,
 *     loops whose trip count does not fit their form's width (libomp counts them modulo
 *     2^32 or 2^64: clang hands it 0 .. UINT_MAX when its own count wrapped), schedule(auto) in the
 * source (38), the ordered kinds (kmp_ord_*, 64-72: their __kmpc_dispatch_fini_* and __kmpc_ordered
 * stay libomp's), the nomerge kinds (kmp_nm_*, 160-199), simd-adjusted kinds (46, 47), doacross
 * loops (the dispatch init that follows __kmpc_doacross_init), empty loops, loops nested deeper
 * than LF__SHIM_LEVELS, and loops of more than LONG_MAX scheduling units.
 *   - an LF_REPLACE entry "kind:kmp" (or "kind:libomp") leaves that kind to libomp.
 *
 * Iteration spaces.  A dispatch loop runs from lb to ub inclusive in steps of st (clang
 * passes 0, trip count - 1 and 1; other compilers may pass the source bounds and a negative
 * stride).  The shim schedules the logical space [0, n) in units of the program's chunk
 * (unless chunk:ignore) and writes a chunk [j0, j1) back as lb + j0*st .. lb + (j1-1)*st,
 * computed modulo 2^64 and truncated to the form's width, so bounds near the type's limits do
 * not overflow; *last is set on the chunk that holds the loop's last iteration (lastprivate).
 * A loop whose schedule carries the monotonic modifier (1 << 29), or a runtime loop whose ICV
 * says monotonic, is scheduled with lf_loop_set_monotonic (no chunk taken from another
 * member's loan or block: each thread's chunks come in increasing order); the others may use
 * loans and, for fixed sizes, one block per member.
 *
 * Teams.  libomp gives a library no memory that a team's members alone share for one loop (as
 * libgomp's work share does), so the members meet as `#pragma omp single copyprivate` makes
 * them meet: thread 0 loans a handle of the loop's call site and team size and broadcasts it,
 * with its bounds, through __kmpc_copyprivate (the ABI of that construct, whose barriers make
 * every member wait for the slowest at the loop's entry).  A member whose bounds differ takes
 * no chunk (reported).  The last member out of the loop (its _next returning 0) gives the
 * loan back.
 *
 * Per-thread state.  _next is shared by the loops the shim takes and those it does not, so
 * each thread keeps, per nesting level (omp_get_level()), the loop it is in if that loop is
 * the shim's; a count of such levels lets _next skip the lookup when it is zero.
 *
 * Call sites.  Each loop learns on its own: its handles, and what they remember, belong to
 * the call site of its __kmpc_dispatch_init_* (the return address) and its team size.
 * LF_VERBOSE=1 prints the configuration and names each call site the first time a loop there
 * is taken.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kmp/kmp.h"

/* enum sched_type of LLVM 14's kmp.h: the kinds the shim reads, and the modifier bits. */
#define KMP_SCH_DYNAMIC_CHUNKED           35
#define KMP_SCH_GUIDED_CHUNKED            36
#define KMP_SCH_RUNTIME                   37
#define KMP_SCH_GUIDED_ITERATIVE_CHUNKED  42
#define KMP_SCH_GUIDED_ANALYTICAL_CHUNKED 43

typedef lf__ull ull;

typedef void (*init4_fn)(ident_t *, kmp_int32, kmp_int32, kmp_int32, kmp_int32, kmp_int32,
                         kmp_int32);
typedef void (*init4u_fn)(ident_t *, kmp_int32, kmp_int32, kmp_uint32, kmp_uint32, kmp_int32,
                          kmp_int32);
typedef void (*init8_fn)(ident_t *, kmp_int32, kmp_int32, kmp_int64, kmp_int64, kmp_int64,
                         kmp_int64);
typedef void (*init8u_fn)(ident_t *, kmp_int32, kmp_int32, kmp_uint64, kmp_uint64, kmp_int64,
                          kmp_int64);
typedef int (*next4_fn)(ident_t *, kmp_int32, kmp_int32 *, kmp_int32 *, kmp_int32 *, kmp_int32 *);
typedef int (*next4u_fn)(ident_t *, kmp_int32, kmp_int32 *, kmp_uint32 *, kmp_uint32 *,
                         kmp_int32 *);
typedef int (*next8_fn)(ident_t *, kmp_int32, kmp_int32 *, kmp_int64 *, kmp_int64 *, kmp_int64 *);
typedef int (*next8u_fn)(ident_t *, kmp_int32, kmp_int32 *, kmp_uint64 *, kmp_uint64 *,
                         kmp_int64 *);
typedef void (*doacross_fn)(ident_t *, kmp_int32, kmp_int32, const void *);
typedef void (*doacross_fini_fn)(ident_t *, kmp_int32);
typedef void (*copyprivate_fn)(ident_t *, kmp_int32, size_t, void *, void (*)(void *, void *),
                               kmp_int32);

/* Every entry point the shim defines or calls, with the type of libomp's definition. */
#define SHIM_ENTRIES(X)                                                                            \
    X(__kmpc_dispatch_init_4, init4_fn)                                                            \
    X(__kmpc_dispatch_init_4u, init4u_fn)                                                          \
    X(__kmpc_dispatch_init_8, init8_fn)                                                            \
    X(__kmpc_dispatch_init_8u, init8u_fn)                                                          \
    X(__kmpc_dispatch_next_4, next4_fn)                                                            \
    X(__kmpc_dispatch_next_4u, next4u_fn)                                                          \
    X(__kmpc_dispatch_next_8, next8_fn)                                                            \
    X(__kmpc_dispatch_next_8u, next8u_fn)                                                          \
    X(__kmpc_doacross_init, doacross_fn)                                                           \
    X(__kmpc_doacross_fini, doacross_fini_fn)                                                      \
    X(__kmpc_copyprivate, copyprivate_fn)

static struct {
#define X(name, type) type name;
    SHIM_ENTRIES(X)
#undef X
} real;

struct lf__shim lf__kmp_cfg = {.name = "kmp", .runtime = "libomp", .takes_static = 1};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static atomic_int init_done; /* set (release) at the end of shim_init */

/* Per thread (initial-exec TLS, shim.h). */
#define SHIM_TLS LF__SHIM_TLS
static SHIM_TLS struct lf__shim_loop levels[LF__SHIM_LEVELS];
static SHIM_TLS int nours;         /* levels with loop != NULL */
static SHIM_TLS unsigned doacross; /* bit L: in a doacross loop at level L */

/* ---- Set-up ---- */

/* Resolve libomp's definitions and read the environment (once per process, at the first
 * entry point called: libomp is in the process by then). */
static void shim_init(void)
{
    static const char *const runtime[] = {"libomp.so.5", "libomp.so", "libiomp5.so", NULL};
    lf__shim_find_runtime(runtime);
#define X(name, type) real.name = (type)dlsym(RTLD_NEXT, #name);
    SHIM_ENTRIES(X)
#undef X
    lf__kmp_static_resolve();
    lf__shim_configure(&lf__kmp_cfg);
    if (lf__kmp_cfg.configured && !real.__kmpc_copyprivate) {
        fprintf(stderr, "loopfarm-kmp: the OpenMP runtime defines no __kmpc_copyprivate; every "
                        "loop stays the runtime's\n");
        lf__kmp_cfg.configured = 0;
        atomic_store_explicit(&lf__kmp_cfg.enabled, 0, memory_order_relaxed);
    }
    /* Release: the configuration is written before shim_ready's fast check sees it. */
    atomic_store_explicit(&init_done, 1, memory_order_release);
}

/* Make sure the shim is initialised: one acquire load once it is. */
static inline void shim_ready(void)
{
    if (__builtin_expect(!atomic_load_explicit(&init_done, memory_order_acquire), 0))
        pthread_once(&init_once, shim_init);
}

/* shim_ready for lib/kmp/static.c. */
void lf__kmp_ready(void)
{
    shim_ready();
}

_Noreturn void lf__kmp_missing(const char *name)
{
    fprintf(stderr,
            "loopfarm-kmp: the OpenMP runtime defines no %s; cannot forward (is the "
            "program built for libomp?)\n",
            name);
    abort();
}

/* ---- Taking a loop ---- */

/* The source kind of a dispatch schedule; -1 for the kinds libomp keeps. */
static int src_of_sched(kmp_int32 sched)
{
    switch (sched & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC)) {
    case KMP_SCH_DYNAMIC_CHUNKED:
        return LF__SHIM_SRC_DYNAMIC;
    case KMP_SCH_GUIDED_CHUNKED:
    case KMP_SCH_GUIDED_ITERATIVE_CHUNKED:
    case KMP_SCH_GUIDED_ANALYTICAL_CHUNKED:
        return LF__SHIM_SRC_GUIDED;
    case KMP_SCH_RUNTIME:
        return LF__SHIM_SRC_RUNTIME;
    default:
        return -1;
    }
}

/* Iterations of lb..ub inclusive in steps of magnitude step in the loop's direction, given
 * whether ub lies in that direction from lb and their distance d; ULLONG_MAX when the count
 * is 2^64 (it does not fit). */
static ull trip_incl(bool ahead, ull d, ull step)
{
    if (!ahead || !step)
        return 0;
    ull q = d / step;
    return q == ULLONG_MAX ? ULLONG_MAX : q + 1;
}

/* What every member's team receives from thread 0 at a loop's entry. */
struct meet {
    lf_omp_loan *loan;
    struct lf__shim_bounds bounds;
};

/* __kmpc_copyprivate's copy function: dst is this member's, src thread 0's. */
static void copy_meet(void *dst, void *src)
{
    memcpy(dst, src, sizeof(struct meet));
}

/* The member's loop at its level is over for it (left after the last chunk, or abandoned by
 * a cancelled loop when the next one at the level starts). */
static void leave(struct lf__shim_loop *st)
{
    lf__shim_leave(st);
    nours--;
}

/* Take the loop if the shim schedules it: n iterations of lb, lb + st, ... (64-bit patterns),
 * the program's chunk, called from ra.  False when libomp keeps it. */
static bool take(ident_t *loc, kmp_int32 gtid, kmp_int32 sched, ull lb, ull ub, ull st, ull n,
                 kmp_int64 chunk, const void *ra)
{
    int src = src_of_sched(sched);
    if (src < 0 || n == 0 || n == ULLONG_MAX)
        return false;
    int level = omp_get_level();
    if (level >= 0 && level < LF__SHIM_LEVELS && (doacross >> level & 1))
        return false; /* a doacross loop: libomp's, with its dependences */
    struct lf__shim_loop tmp;
    int e = lf__shim_decide(&lf__kmp_cfg, (enum lf__shim_src)src,
                            (sched & KMP_SCH_MODIFIER_MONOTONIC) != 0, chunk > 0 ? (ull)chunk : 1,
                            n, level, &tmp);
    if (e < 0)
        return false;
    struct lf__shim_loop *s = &levels[level];
    if (s->loop) /* a loop left without its last _next (cancelled) */
        leave(s);
    *s = tmp;
    s->start = lb;
    s->end = ub;
    s->incr = st;
    s->tid = omp_get_thread_num();
    struct lf_site *site = lf__shim_site(&lf__kmp_cfg, e, s->monotonic, ra);
    int nthreads = omp_get_num_threads();
    struct meet m = {0};
    lf__shim_bounds_of(s, &m.bounds);
    struct lf__shim_bounds mine = m.bounds;
    if (nthreads > 1) {
        kmp_int32 didit = s->tid == 0;
        if (didit)
            m.loan = lf_omp_loan_get(site, lf__kmp_cfg.spec[e], nthreads);
        /* Its barriers order thread 0's loan before every member's use of it. */
        real.__kmpc_copyprivate(loc, gtid, sizeof m, &m, copy_meet, didit);
    } else {
        m.loan = lf_omp_loan_get(site, lf__kmp_cfg.spec[e], 1);
    }
    lf__shim_join(&lf__kmp_cfg, s, site, m.loan, memcmp(&m.bounds, &mine, sizeof mine) == 0);
    nours++;
    return true;
}

/* The calling thread's shim loop at its current level, or NULL when libomp owns the loop. */
static inline struct lf__shim_loop *current(void)
{
    return lf__shim_current(levels, nours);
}

/* The member's next chunk as the first and last (inclusive) iteration, 64-bit patterns, and
 * whether it holds the loop's last iteration; false (the member has left) when it is done. */
static bool next_chunk(struct lf__shim_loop *st, ull *lb, ull *ub, bool *last)
{
    ull j0, j1;
    if (!lf__shim_next(st, &j0, &j1)) {
        leave(st);
        return false;
    }
    *lb = st->start + j0 * st->incr;
    *ub = st->start + (j1 - 1) * st->incr;
    *last = j1 == st->n;
    return true;
}

/* Switch taking loops off (0) or back on (1) between parallel regions (loopfarm.h). */
SHIM_API int lf_shim_enable(int on)
{
    return lf__shim_set_enabled(&lf__kmp_cfg, on);
}

/* ---- Entry points ---- */

/* _init for the form with bounds of type T and stride and chunk of type S.  Bounds become
 * 64-bit patterns through int64 (sign-extended for the signed forms, zero-extended for
 * kmp_uint32, unchanged for kmp_uint64), whose difference modulo 2^64 is exact. */
#define KMP_INIT(name, T, S)                                                                       \
    SHIM_API void name(ident_t *loc, kmp_int32 gtid, kmp_int32 sched, T lb, T ub, S st, S chunk)   \
    {                                                                                              \
        shim_ready();                                                                              \
        if (lf__shim_enabled(&lf__kmp_cfg)) {                                                      \
            ull l = (ull)(kmp_int64)lb, u = (ull)(kmp_int64)ub;                                    \
            bool ahead = st > 0 ? ub >= lb : lb >= ub;                                             \
            ull n =                                                                                \
                trip_incl(ahead, st > 0 ? u - l : l - u, st > 0 ? (ull)st : -(ull)(kmp_int64)st);  \
            /* A count beyond the form's width (2^32 iterations of a 32-bit loop) is no count      \
             * for libomp, which keeps the loop. */                                                \
            if ((sizeof(T) == 8 || n <= UINT32_MAX) &&                                             \
                take(loc, gtid, sched, l, u, (ull)(kmp_int64)st, n, chunk,                         \
                     __builtin_return_address(0)))                                                 \
                return;                                                                            \
        }                                                                                          \
        REAL(name)(loc, gtid, sched, lb, ub, st, chunk);                                           \
    }

KMP_INIT(__kmpc_dispatch_init_4, kmp_int32, kmp_int32)
KMP_INIT(__kmpc_dispatch_init_4u, kmp_uint32, kmp_int32)
KMP_INIT(__kmpc_dispatch_init_8, kmp_int64, kmp_int64)
KMP_INIT(__kmpc_dispatch_init_8u, kmp_uint64, kmp_int64)

/* _next for the form with bounds of type T and stride of type S. */
#define KMP_NEXT(name, T, S)                                                                       \
    SHIM_API int name(ident_t *loc, kmp_int32 gtid, kmp_int32 *p_last, T *p_lb, T *p_ub, S *p_st)  \
    {                                                                                              \
        shim_ready();                                                                              \
        struct lf__shim_loop *st = current();                                                      \
        if (!st)                                                                                   \
            return REAL(name)(loc, gtid, p_last, p_lb, p_ub, p_st);                                \
        ull lb, ub;                                                                                \
        bool last;                                                                                 \
        if (!next_chunk(st, &lb, &ub, &last))                                                      \
            return 0;                                                                              \
        *p_lb = (T)lb;                                                                             \
        *p_ub = (T)ub;                                                                             \
        if (p_st)                                                                                  \
            *p_st = (S)st->incr;                                                                   \
        if (p_last)                                                                                \
            *p_last = last;                                                                        \
        return 1;                                                                                  \
    }

KMP_NEXT(__kmpc_dispatch_next_4, kmp_int32, kmp_int32)
KMP_NEXT(__kmpc_dispatch_next_4u, kmp_uint32, kmp_int32)
KMP_NEXT(__kmpc_dispatch_next_8, kmp_int64, kmp_int64)
KMP_NEXT(__kmpc_dispatch_next_8u, kmp_uint64, kmp_int64)

/* A doacross loop (ordered(n) with depend clauses) is opened here before its dispatch init
 * and closed by __kmpc_doacross_fini: in between, the thread's dispatch loops at that level are
 * libomp's, whose dispatch buffers carry the dependences. */
SHIM_API void __kmpc_doacross_init(ident_t *loc, kmp_int32 gtid, kmp_int32 num_dims,
                                   const void *dims)
{
    shim_ready();
    int level = omp_get_level();
    if (lf__shim_enabled(&lf__kmp_cfg) && level >= 0 && level < LF__SHIM_LEVELS)
        doacross |= 1u << level;
    REAL(__kmpc_doacross_init)(loc, gtid, num_dims, dims);
}

SHIM_API void __kmpc_doacross_fini(ident_t *loc, kmp_int32 gtid)
{
    shim_ready();
    int level = omp_get_level();
    if (level >= 0 && level < LF__SHIM_LEVELS)
        doacross &= ~(1u << level);
    REAL(__kmpc_doacross_fini)(loc, gtid);
}
