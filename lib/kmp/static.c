/* lib/kmp/static.c - weighted static loops for unmodified binaries built for libomp (clang,
 * Intel icx/ifx, AMD AOCC), under LF_REPLACE=static:weighted.
 *
 * Such a compiler turns `schedule(static)` and a loop with no schedule clause into one call per
 * thread of __kmpc_for_static_init_{4,4u,8,8u}(loc, gtid, kmp_sch_static, &last, &lb, &ub,
 * &stride, incr, chunk), which narrows [lb, ub] to the thread's range, and one call of
 * __kmpc_for_static_fini at the range's end.  Taken, a loop gives each thread one contiguous
 * range, in thread order as OpenMP's static does, sized in proportion to the thread's speed at
 * the loop's call site, learned from earlier executions: the time from the execution's common
 * start (the first member's static_init: a thread let in late by a busy core is slow by that
 * much) to the thread's static_fini over the iterations it ran, an exponentially weighted mean per
 * thread with forgetting (LEARN_RATE), so that load that comes and goes is followed.  A site with
 * no history for every thread, or whose threads' speeds differ by less than DEAD_BAND, splits
 * evenly as libomp's balanced static does.
 *
 * OpenMP's promise.  Two static loops of one parallel region with the same trip count (and no
 * chunk) give every thread the same iterations; programs with `nowait` pairs depend on it.  So
 * weights change only between regions: the first member of a region to meet a trip count n
 * fixes the split of n for the whole region (the weights of the site it met n at), in a table
 * of the region's; every later static loop of that region with n iterations, whatever its call
 * site, uses that split.  All members meet the same worksharing loops in the same order
 * (OpenMP requires it), so they agree on which loop fixed a split without talking.  The shim
 * knows regions as an OMPT tool (ompt_start_tool, OpenMP 5.0 §4.2): it hears parallel_begin
 * and parallel_end, keeps each running region's table keyed by the value of the region's
 * parallel_data, and asks ompt_get_parallel_info for the current region.  Another tool the
 * process brings (a profiler, Archer) is started behind the shim and keeps parallel_data for
 * itself: its value then keys the shim's table.  A runtime whose tool interface does not
 * report every region keeps static loops (said once).
 *
 * Which static loops are taken: kmp_sch_static (34, either modifier bit), at a nesting level
 * below LF__SHIM_LEVELS, in a team of two or more, with at least one iteration and a trip
 * count that fits its form's width.  Every member decides alike (none of these differs within
 * a team), so either all of a team's members take a loop or none do.  Left to libomp: a team of
 * one (libomp runs the whole range), static,c (kmp_sch_static_chunked: its round robin is the
 * program's choice), simd-balanced chunks (45), ordered static loops (kmp_ord_static), and
 * distribute (__kmpc_dist_for_static_init_*, and the distribute kinds of for_static_init).
 *
 * A range is the logical iterations [j0, j1) of [0, n), written back as lb + j0*incr ..
 * lb + (j1-1)*incr in modulo 2^64 arithmetic truncated to the form's width, as the dispatch
 * entry points do; *last is set on the range holding iteration n-1 (lastprivate).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "exec/select.h"
#include "kmp/kmp.h"
#include "platform/clock.h"
#include "policy/deal.h"

#pragma weak omp_get_level

/* enum sched_type of LLVM 14's kmp.h: the one kind taken. */
#define KMP_SCH_STATIC 34

/* Weight of the latest execution in a thread's mean time per iteration: 1/2 follows load that
 * comes and goes within a few executions and still halves one execution's noise. */
#define LEARN_RATE 0.5
/* Threads whose speeds at a site differ by less than this fraction split evenly: a split that
 * would move less than this is within the noise of a loaded machine's timing. */
#define DEAD_BAND 0.05
/* Trip counts one region remembers a split for; further ones split evenly. */
#define REGION_SPLITS 16
/* Executions of one trip count in one region whose common start a member can still find: a
 * member more than this many executions behind its first teammate times from its own start. */
#define START_RING 4
/* Times LF_VERBOSE names a site's weights; later changes are not printed. */
#define VERBOSE_WEIGHTS 8
/* The arms a site's paired judgement chooses between (lib/exec/select.h): libomp's even
 * split, the control and the one a site starts with, and the split by measured speed. */
enum { ARM_EVEN, ARM_WEIGHTED };

typedef lf__ull ull;

/* ---- libomp's entry points ---- */

typedef void (*sinit4_fn)(ident_t *, kmp_int32, kmp_int32, kmp_int32 *, kmp_int32 *, kmp_int32 *,
                          kmp_int32 *, kmp_int32, kmp_int32);
typedef void (*sinit4u_fn)(ident_t *, kmp_int32, kmp_int32, kmp_int32 *, kmp_uint32 *, kmp_uint32 *,
                           kmp_int32 *, kmp_int32, kmp_int32);
typedef void (*sinit8_fn)(ident_t *, kmp_int32, kmp_int32, kmp_int32 *, kmp_int64 *, kmp_int64 *,
                          kmp_int64 *, kmp_int64, kmp_int64);
typedef void (*sinit8u_fn)(ident_t *, kmp_int32, kmp_int32, kmp_int32 *, kmp_uint64 *, kmp_uint64 *,
                           kmp_int64 *, kmp_int64, kmp_int64);
typedef void (*sfini_fn)(ident_t *, kmp_int32);

#define STATIC_ENTRIES(X)                                                                          \
    X(__kmpc_for_static_init_4, sinit4_fn)                                                         \
    X(__kmpc_for_static_init_4u, sinit4u_fn)                                                       \
    X(__kmpc_for_static_init_8, sinit8_fn)                                                         \
    X(__kmpc_for_static_init_8u, sinit8u_fn)                                                       \
    X(__kmpc_for_static_fini, sfini_fn)

static struct {
#define X(name, type) type name;
    STATIC_ENTRIES(X)
#undef X
} real;

void lf__kmp_static_resolve(void)
{
#define X(name, type) real.name = (type)dlsym(RTLD_NEXT, #name);
    STATIC_ENTRIES(X)
#undef X
}

/* ---- The OMPT tool: which region a thread is in (OpenMP 5.0 §4, omp-tools.h) ---- */

typedef union {
    uint64_t value;
    void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *);
typedef int (*ompt_initialize_t)(ompt_function_lookup_t, int, ompt_data_t *);
typedef void (*ompt_finalize_t)(ompt_data_t *);
typedef struct {
    ompt_initialize_t initialize;
    ompt_finalize_t finalize;
    ompt_data_t tool_data;
} ompt_start_tool_result_t;
typedef int (*ompt_set_callback_t)(int, ompt_interface_fn_t);
typedef int (*ompt_get_parallel_info_t)(int, ompt_data_t **, int *);
typedef ompt_start_tool_result_t *(*ompt_start_tool_t)(unsigned, const char *);

#define OMPT_CALLBACK_PARALLEL_BEGIN 3
#define OMPT_CALLBACK_PARALLEL_END   4
#define OMPT_SET_ALWAYS              5

static ompt_get_parallel_info_t parallel_info;
/* Whether LF_TRACE is set: written before tool_init's release of tracking, read by the members
 * of loops that took static loops after acquiring it. */
static bool tracing;
/* Set (release) when the tool hears every region's begin and end: only then are static loops
 * taken.  Set before the first region, never cleared. */
static atomic_int tracking;

/* Another tool the process brought (OMPT starts one tool): the shim starts it behind itself,
 * passing every callback it registers to the runtime except parallel begin and end, which the
 * shim's own callbacks hand on.  Its parallel_data stays its own: the shim keeps its regions
 * in a table of its own (below), keyed by the value the tool puts there. */
static ompt_start_tool_result_t *other;
static ompt_function_lookup_t runtime_lookup;
static ompt_set_callback_t runtime_set;
typedef void (*parallel_begin_fn)(ompt_data_t *, const void *, ompt_data_t *, unsigned, int,
                                  const void *);
typedef void (*parallel_end_fn)(ompt_data_t *, ompt_data_t *, int, const void *);
/* Written while the runtime starts its tools, read at every region by any thread: atomic,
 * because the runtime's own start-up lock, which orders them, is not seen by ThreadSanitizer. */
static _Atomic(parallel_begin_fn) other_begin;
static _Atomic(parallel_end_fn) other_end;

/* libomp's join barrier orders every member's last use of a region's table before the
 * region's end frees it.  ThreadSanitizer does not see libomp's barriers (libomp is not
 * instrumented) unless Archer tells it; under ThreadSanitizer the shim says what the barrier
 * guarantees: each member's use of the table happens before its end. */
#if defined(__SANITIZE_THREAD__)
#define SHIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SHIM_TSAN 1
#endif
#endif
#ifdef SHIM_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define region_used(r)   __tsan_release(r)
#define region_joined(r) __tsan_acquire(r)
#else
#define region_used(r)   ((void)(r))
#define region_joined(r) ((void)(r))
#endif

/* What one region remembers: the split of each trip count its static loops met, fixed by the
 * first member to meet it.  Allocated by the first member that needs it, freed at the region's
 * end, after its join barrier. */
struct split {
    atomic_ullong key; /* n + 1; 0: free */
    atomic_int ready;  /* uneven, weighted and cum are written */
    int uneven;        /* cum holds the site's uneven weights, whether or not they are run */
    int weighted;      /* 0: the even split */
    /* The start of the latest executions of n in the region, the k-th in slot k % START_RING:
     * the time the first member began it, in ns after the region's born, shifted left by 16
     * over (k mod 65535) + 1; 0 when no execution wrote the slot. */
    _Atomic uint64_t start[START_RING];
    /* The same executions' makespans as they are collected, the k-th in slot k % START_RING:
     * (the longest member's time from the common start, in units of 16 ns) << 32 | (members
     * done) << 16 | (k mod 65535) + 1; 0 when no execution wrote the slot (see finish). */
    _Atomic uint64_t done[START_RING];
    /* The same executions' makespans had they run the other split (only where uneven), as the
     * members model them, in the same slots and the same layout as done. */
    _Atomic uint64_t alt[START_RING];
};
struct region {
    uint64_t key;  /* its entry's key: unique among the process's regions */
    uint64_t seq;  /* its number among the regions that had a table (1, 2, ...): LF_TRACE's */
    uint64_t born; /* lf__clock_ns() when its table was made */
    int nthreads;
    struct split split[REGION_SPLITS];
    double cum[]; /* REGION_SPLITS rows of nthreads + 1 cumulative shares */
};

/* The regions that run now, keyed by the value of their parallel_data: a number the shim
 * gives each region at its begin, or what another tool started behind the shim put there
 * instead (a pointer to its own record of the region, as a profiler or Archer keeps one; the
 * runtime copies the value with the region's data, so every member reads the same).  Open
 * addressing; an ended region's entry is left as a tombstone that a later begin reuses.  A
 * region that finds no room (more than REGION_TABLE running at once) has no entry for any of
 * its members alike: its static loops split evenly. */
#define REGION_TABLE 1024
#define TOMBSTONE    ((uint64_t)1)
static struct {
    _Atomic uint64_t key;
    _Atomic(struct region *) region;
} regions[REGION_TABLE];
static _Atomic uint64_t region_ids = 2; /* 0 and 1 (TOMBSTONE) are no keys */
static _Atomic uint64_t region_seqs;    /* tables made so far */

static size_t region_hash(uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 40) % REGION_TABLE;
}

/* The entry of the running region keyed key; -1 when it has none. */
static long region_find(uint64_t key)
{
    if (key <= TOMBSTONE)
        return -1;
    size_t h = region_hash(key);
    for (size_t probe = 0; probe < REGION_TABLE; probe++) {
        size_t i = (h + probe) % REGION_TABLE;
        /* Acquire: pairs with the CAS that entered the key. */
        uint64_t k = atomic_load_explicit(&regions[i].key, memory_order_acquire);
        if (k == key)
            return (long)i;
        if (k == 0)
            return -1;
    }
    return -1;
}

static void on_parallel_begin(ompt_data_t *task, const void *frame, ompt_data_t *parallel,
                              unsigned requested, int flags, const void *ra)
{
    /* Acquire: pairs with chained_set's release.  The other tool sees parallel_data as the
     * runtime gave it; what it puts there keys the region, else the shim's own number. */
    parallel_begin_fn begin = atomic_load_explicit(&other_begin, memory_order_acquire);
    if (begin)
        begin(task, frame, parallel, requested, flags, ra);
    if (parallel->value <= TOMBSTONE)
        /* Relaxed: a source of distinct numbers, ordering nothing. */
        parallel->value = atomic_fetch_add_explicit(&region_ids, 1, memory_order_relaxed);
    uint64_t key = parallel->value;
    if (key <= TOMBSTONE)
        return;
    size_t h = region_hash(key);
    for (size_t probe = 0; probe < REGION_TABLE; probe++) {
        size_t i = (h + probe) % REGION_TABLE;
        uint64_t k = atomic_load_explicit(&regions[i].key, memory_order_relaxed);
        if (k != 0 && k != TOMBSTONE)
            continue;
        /* An empty or ended entry's region is NULL (on_parallel_end cleared it before its
         * tombstone).  acq_rel: one begin claims the entry; the fork orders the claim before
         * the members look for it. */
        if (atomic_compare_exchange_strong_explicit(&regions[i].key, &k, key, memory_order_acq_rel,
                                                    memory_order_relaxed))
            return;
    }
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *ra)
{
    /* The entry goes before the other tool forgets its record of the region: while the key
     * is in the table, no other region can have it. */
    long i = region_find(parallel->value);
    if (i >= 0) {
        /* After the join barrier: no member reads the region any more.  Acquire: pairs with
         * the members' release of the region they made (current_region). */
        struct region *r = atomic_exchange_explicit(&regions[i].region, NULL, memory_order_acquire);
        if (r)
            region_joined(r);
        free(r);
        /* Release: the entry is empty before a later begin reuses it. */
        atomic_store_explicit(&regions[i].key, TOMBSTONE, memory_order_release);
    }
    /* Acquire: pairs with chained_set's release. */
    parallel_end_fn end = atomic_load_explicit(&other_end, memory_order_acquire);
    if (end)
        end(parallel, task, flags, ra);
}

/* ompt_set_callback as the other tool sees it: parallel begin and end are handed on by the
 * shim's callbacks; everything else goes to the runtime. */
static int chained_set(int event, ompt_interface_fn_t cb)
{
    /* Release: the other tool's state, set up before it registers, is seen by the thread that
     * calls its callback. */
    if (event == OMPT_CALLBACK_PARALLEL_BEGIN) {
        atomic_store_explicit(&other_begin, (parallel_begin_fn)cb, memory_order_release);
        return OMPT_SET_ALWAYS;
    }
    if (event == OMPT_CALLBACK_PARALLEL_END) {
        atomic_store_explicit(&other_end, (parallel_end_fn)cb, memory_order_release);
        return OMPT_SET_ALWAYS;
    }
    return runtime_set(event, cb);
}

static ompt_interface_fn_t chained_lookup(const char *name)
{
    if (strcmp(name, "ompt_set_callback") == 0)
        return (ompt_interface_fn_t)chained_set;
    return runtime_lookup(name);
}

static int tool_init(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    runtime_lookup = lookup;
    runtime_set = (ompt_set_callback_t)lookup("ompt_set_callback");
    parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
    bool ok = runtime_set && parallel_info &&
              runtime_set(OMPT_CALLBACK_PARALLEL_BEGIN, (ompt_interface_fn_t)on_parallel_begin) ==
                  OMPT_SET_ALWAYS &&
              runtime_set(OMPT_CALLBACK_PARALLEL_END, (ompt_interface_fn_t)on_parallel_end) ==
                  OMPT_SET_ALWAYS;
    if (!ok)
        fprintf(stderr, "loopfarm-kmp: the OpenMP runtime's tool interface does not report every "
                        "parallel region; static loops stay libomp's\n");
    /* The other tool registers its callbacks through chained_set (before any region). */
    if (other && other->initialize && !other->initialize(chained_lookup, device, &other->tool_data))
        other = NULL; /* it declined: it is not started, and gets no finalize */
    if (!ok)
        return other != NULL; /* still the other tool's host */
    /* Release: parallel_info is written before a static_init that sees tracking uses it. */
    atomic_store_explicit(&tracking, 1, memory_order_release);
    return 1;
}

static void tool_fini(ompt_data_t *data)
{
    if (other && other->finalize)
        other->finalize(&other->tool_data);
}

/* Called by libomp as it starts: the shim is an OMPT tool only when static loops are taken;
 * then another tool in the process starts behind it (chained_lookup), else the next
 * definition's answer is the runtime's. */
SHIM_API ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version,
                                                   const char *runtime_version)
{
    static ompt_start_tool_result_t tool = {tool_init, tool_fini, {0}};
    lf__shim_configure(&lf__kmp_cfg);
    ompt_start_tool_t next = (ompt_start_tool_t)dlsym(RTLD_NEXT, "ompt_start_tool");
    ompt_start_tool_result_t *found = next ? next(omp_version, runtime_version) : NULL;
    if (!lf__kmp_cfg.static_weighted)
        return found;
    /* LF_TRACE's clock starts now, before any static range (its times count from there); a
     * name too long for the buffer still means tracing is on. */
    char name[8];
    tracing = lf_trace_file(0, name, sizeof name) != -ENOENT;
    other = found;
    return &tool;
}

/* The calling thread's region, made on first use; NULL when the runtime names none or the
 * table of running regions had no room for it. */
static struct region *current_region(int nthreads)
{
    ompt_data_t *pd = NULL;
    int size = 0;
    if (parallel_info(0, &pd, &size) != 2 || !pd)
        return NULL;
    long i = region_find(pd->value);
    if (i < 0)
        return NULL;
    /* Acquire: pairs with the CAS below; a region's table is zeroed before it is read. */
    struct region *r = atomic_load_explicit(&regions[i].region, memory_order_acquire);
    if (r)
        return r;
    struct region *fresh =
        calloc(1, sizeof *fresh + (size_t)REGION_SPLITS * ((size_t)nthreads + 1) * sizeof(double));
    if (!fresh) {
        /* Its teammates may have a table: a member splitting alone could lose iterations. */
        fprintf(stderr, "loopfarm-kmp: out of memory for a parallel region's static splits\n");
        abort();
    }
    fresh->nthreads = nthreads;
    fresh->key = pd->value;
    /* Relaxed: a source of distinct numbers, ordering nothing. */
    fresh->seq = atomic_fetch_add_explicit(&region_seqs, 1, memory_order_relaxed) + 1;
    fresh->born = lf__clock_ns();
    /* acq_rel: publishes the zeroed table; a loser reads the winner's. */
    if (atomic_compare_exchange_strong_explicit(&regions[i].region, &r, fresh, memory_order_acq_rel,
                                                memory_order_acquire))
        return fresh;
    free(fresh);
    return r;
}

/* ---- Call sites: each thread's speed at each static loop ---- */

/* A thread's mean time per iteration at a site: written by that thread (its team's member of
 * that number), read by any member making a split; doubles as bit patterns. */
struct tslot {
    _Atomic uint64_t ipt;       /* double: ns per iteration, filtered and weighted */
    _Atomic uint64_t samples;   /* executions folded in */
    _Atomic uint64_t recent[3]; /* doubles: the latest executions' ns per iteration */
} __attribute__((aligned(64)));

/* One static loop: (call address, team size). */
struct wsite {
    atomic_uintptr_t key; /* (address << 16) | team size; 0: free */
    atomic_int ready;     /* label and slots written */
    atomic_int shown;     /* LF_VERBOSE reports made */
    int nthreads;
    struct tslot *slot; /* nthreads slots; NULL when memory ran out (even splits) */
    /* Whether the weighted split pays at this site: each execution's makespan with the split
     * it ran and the one modelled for the other split, judged in pairs (lib/exec/select.h),
     * under lock. */
    pthread_mutex_t lock;
    struct lf__pair pair;
    char label[96];
};

#define STATIC_SITES 512
static struct wsite sites[STATIC_SITES];

/* The site of the static loop called from ra for teams of nthreads, made on its first
 * execution; NULL when the table is full (the loop still runs, split evenly). */
static struct wsite *site_of(const void *ra, int nthreads)
{
    uintptr_t key = ((uintptr_t)ra << 16) | (uintptr_t)nthreads;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 40) % STATIC_SITES;
    for (size_t probe = 0; probe < STATIC_SITES; probe++) {
        struct wsite *s = &sites[(h + probe) % STATIC_SITES];
        int got = lf__shim_slot(&s->key, &s->ready, key);
        if (got == 1) {
            s->nthreads = nthreads;
            pthread_mutex_init(&s->lock, NULL);
            s->slot = aligned_alloc(64, (size_t)nthreads * sizeof *s->slot);
            if (s->slot)
                memset(s->slot, 0, (size_t)nthreads * sizeof *s->slot);
            lf__shim_where(s->label, sizeof s->label, "kmp:static", ra);
            /* Release: label and slots are written before anyone uses them. */
            atomic_store_explicit(&s->ready, 1, memory_order_release);
        }
        if (got >= 0)
            return s;
    }
    return NULL;
}

static double getd(_Atomic uint64_t *w)
{
    uint64_t u = atomic_load_explicit(w, memory_order_relaxed);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static void putd(_Atomic uint64_t *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    atomic_store_explicit(w, u, memory_order_relaxed);
}

/* Fill cum[0..P] with the cumulative shares of site s's threads, each in proportion to its
 * speed (the inverse of its mean time per iteration); false (split evenly) when a thread has
 * no history or the speeds lie within DEAD_BAND of each other. */
static bool site_weights(struct wsite *s, int P, double *cum)
{
    if (!s || !s->slot)
        return false;
    double lo = INFINITY, hi = 0, sum = 0;
    for (int t = 0; t < P; t++) {
        double ipt = getd(&s->slot[t].ipt);
        if (!atomic_load_explicit(&s->slot[t].samples, memory_order_relaxed) || !(ipt > 0) ||
            !isfinite(ipt))
            return false;
        double v = 1.0 / ipt;
        cum[t + 1] = v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
        sum += v;
    }
    if (hi <= lo * (1.0 + DEAD_BAND))
        return false;
    cum[0] = 0;
    for (int t = 0; t < P; t++)
        cum[t + 1] = cum[t] + cum[t + 1] / sum;
    cum[P] = 1.0; /* exactly: the last range ends at n */
    for (int t = P - 1; t > 0; t--)
        if (cum[t] > cum[t + 1])
            cum[t] = cum[t + 1]; /* rounding never makes a range negative */
    return true;
}

/* Under LF_VERBOSE, once per process: say when the calling member may run on more than one
 * CPU.  A speed is learned per thread, so it describes a CPU only while the thread stays on
 * it; libomp binds one thread per place, and where CPUID shows every CPU as one core's
 * hardware threads (some virtual machines) OMP_PLACES=cores makes a single place. */
static void say_unbound(void)
{
    static atomic_int said;
    cpu_set_t set;
    /* Relaxed: one flag, ordering nothing; read first, so that once said no site asks the
     * kernel again. */
    if (atomic_load_explicit(&said, memory_order_relaxed) ||
        sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) <= 1 ||
        atomic_exchange_explicit(&said, 1, memory_order_relaxed))
        return;
    fprintf(stderr,
            "loopfarm-kmp: weighted static: this thread may run on %d CPUs, so its measured "
            "speed need not stay with it; bind one thread per CPU (OMP_PROC_BIND=true "
            "OMP_PLACES=threads)\n",
            CPU_COUNT(&set));
}

/* Under LF_VERBOSE, name site s and the split it fixed: the first one, then uneven ones (up to
 * VERBOSE_WEIGHTS reports). */
static void show(struct wsite *s, int P, ull n, bool weighted, const double *cum)
{
    if (lf__kmp_cfg.verbose <= 0 || !s)
        return;
    /* An even split is news only the first time. */
    if (!weighted && atomic_load_explicit(&s->shown, memory_order_relaxed))
        return;
    /* Relaxed: a count of reports, ordering nothing. */
    int k = atomic_fetch_add_explicit(&s->shown, 1, memory_order_relaxed);
    if (k >= VERBOSE_WEIGHTS)
        return;
    char buf[256];
    size_t off = 0;
    buf[0] = '\0';
    for (int t = 0; t < P && off + 16 < sizeof buf; t++)
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%.3f", t ? " " : "",
                                weighted ? cum[t + 1] - cum[t] : 1.0 / P);
    if (k == 0)
        say_unbound();
    fprintf(stderr,
            "loopfarm-kmp: %s the schedule(static) loop at %s (%llu iterations, %d threads): "
            "weights %s%s%s\n",
            k == 0 ? "taking" : "splitting", s->label, n, P, buf,
            weighted ? ""
                     : " (even: no history yet, speeds alike, or the even split judged faster)",
            k == VERBOSE_WEIGHTS - 1 ? "; later splits not shown" : "");
}

/* Whether the next execution at site s, whose weights are uneven, runs them (ARM_WEIGHTED) or
 * libomp's even split (ARM_EVEN): the site's paired judgement decides. */
static int judge_next(struct wsite *s)
{
    pthread_mutex_lock(&s->lock);
    int arm = s->pair.chosen;
    pthread_mutex_unlock(&s->lock);
    return arm;
}

/* Book one execution at site s, split evenly or weighted, whose longest member took ns from
 * the common start and which the members model would have taken alt ns with the other split:
 * the pair, to the site's judgement. */
static void judge_book(struct wsite *s, bool weighted, double ns, double alt)
{
    pthread_mutex_lock(&s->lock);
    unsigned long before = s->pair.switches;
    lf__pair_book(&s->pair, weighted ? alt : ns, weighted ? ns : alt);
    if (s->pair.switches != before && lf__kmp_cfg.verbose > 0)
        fprintf(stderr,
                "loopfarm-kmp: the schedule(static) loop at %s now runs the %s split: the "
                "weighted split's makespan over the even one's, a median of %.3f over the latest "
                "%u executions (%lu judged)\n",
                s->label, s->pair.chosen == ARM_WEIGHTED ? "weighted" : "even",
                lf__pair_median(&s->pair), s->pair.have, s->pair.pairs);
    pthread_mutex_unlock(&s->lock);
}

/* The region's split of n (weights in cum, P + 1 of them), fixed by the first member to get
 * here with site s's weights; false for the even split (no history, no region, table full).
 * *at is the split's index in the region, or -1 when it has none; *uneven whether cum holds
 * uneven weights, run or not. */
static bool region_split(struct region *r, struct wsite *s, int P, ull n, const double **cum,
                         int *at, bool *uneven)
{
    *at = -1;
    *uneven = false;
    if (!r || r->nthreads != P)
        return false;
    size_t h = (size_t)((n * 0x9E3779B97F4A7C15ULL) >> 40) % REGION_SPLITS;
    for (size_t probe = 0; probe < REGION_SPLITS; probe++) {
        size_t i = (h + probe) % REGION_SPLITS;
        struct split *sp = &r->split[i];
        double *row = r->cum + i * ((size_t)P + 1);
        ull k = atomic_load_explicit(&sp->key, memory_order_acquire);
        if (k == 0) {
            ull zero = 0;
            /* acq_rel: one member fixes the split of n; a loser re-reads the key. */
            if (atomic_compare_exchange_strong_explicit(
                    &sp->key, &zero, n + 1, memory_order_acq_rel, memory_order_acquire)) {
                sp->uneven = site_weights(s, P, row);
                sp->weighted = sp->uneven && judge_next(s) == ARM_WEIGHTED;
                show(s, P, n, sp->weighted, row);
                /* Release: uneven, weighted and the row are written before a member reads
                 * them. */
                atomic_store_explicit(&sp->ready, 1, memory_order_release);
                *cum = row;
                *at = (int)i;
                *uneven = sp->uneven;
                return sp->weighted;
            }
            k = zero;
        }
        if (k == n + 1) {
            /* Acquire: pairs with the release above; the fixing member is brief. */
            unsigned spins = 0;
            while (!atomic_load_explicit(&sp->ready, memory_order_acquire))
                lf__wait_brief(&spins);
            *cum = row;
            *at = (int)i;
            *uneven = sp->uneven;
            return sp->weighted;
        }
    }
    return false; /* every member finds the table full at the same loop */
}

/* ---- A thread's static loop ---- */

/* Per thread and nesting level: the static loop the shim took there and is timing. */
struct timing {
    struct wsite *site;
    int tid;
    bool weighted;          /* the split was uneven (LF_TRACE's plan, the arm booked) */
    bool other;             /* the other split differs: alt_iters is its range's length */
    ull j0, iters;          /* the range [j0, j0 + iters) */
    ull alt_iters;          /* the length of this member's range in the other split */
    uint64_t late;          /* ns from the common start to this member's own start */
    uint64_t instance;      /* LF_TRACE's: (region's seq << 32) | the execution's k in the region */
    _Atomic uint64_t *done; /* the execution's makespan record; NULL: the region has no split */
    _Atomic uint64_t *alt;  /* its record of the other split's modelled makespan */
    uint64_t t0;
};
static LF__SHIM_TLS struct timing timing[LF__SHIM_LEVELS];

/* Per thread and nesting level: how many executions of each of its region's splits the thread
 * has begun (the k of the next one), for the region keyed region. */
struct begun {
    uint64_t region;
    uint32_t count[REGION_SPLITS];
};
static LF__SHIM_TLS struct begun begun[LF__SHIM_LEVELS];

/* The common start of this member's next execution of split at in region r: the time the first
 * member began it (now, when that is this member); *k: that execution's number among the
 * region's executions of the split, the same for every member.  A member's time is measured from
 * there, not from its own start: a thread that a busy core lets in late is slow by that much,
 * although it then runs its range at full speed.  A member that finds its slot taken by a later
 * execution (it is START_RING or more behind) starts from now. */
static uint64_t common_start(struct region *r, int at, int level, uint64_t now, uint32_t *kout)
{
    struct begun *b = &begun[level];
    if (b->region != r->key) {
        memset(b, 0, sizeof *b);
        b->region = r->key;
    }
    uint32_t k = b->count[at]++;
    *kout = k;
    uint64_t tag = (uint64_t)(k % 65535u) + 1, rel = now > r->born ? now - r->born : 0;
    if (rel >> 48)
        return now; /* a region of more than 78 hours: no room for its time */
    _Atomic uint64_t *w = &r->split[at].start[k % START_RING];
    uint64_t cur = atomic_load_explicit(w, memory_order_relaxed);
    for (;;) {
        if ((cur & 0xffff) == tag)
            return r->born + (cur >> 16);
        if (cur && (uint16_t)((cur & 0xffff) - tag) < 0x8000u)
            return now; /* a later execution wrote the slot */
        /* Relaxed: the word carries the time itself; nothing else is published with it. */
        if (atomic_compare_exchange_weak_explicit(w, &cur, (rel << 16) | tag, memory_order_relaxed,
                                                  memory_order_relaxed))
            return now;
    }
}

/* The loop with n iterations (n < 2^64 - 1) of kind sched from ra, if taken: member t's range
 * [*j0, *j1); false when libomp keeps it.  Every member of a team answers alike. */
static bool take(kmp_int32 sched, ull n, const void *ra, uint64_t *j0, uint64_t *j1)
{
    if ((sched & ~(KMP_SCH_MODIFIER_MONOTONIC | KMP_SCH_MODIFIER_NONMONOTONIC)) != KMP_SCH_STATIC ||
        !lf__kmp_cfg.static_weighted || !lf__shim_enabled(&lf__kmp_cfg) ||
        /* Acquire: pairs with tool_init's release (parallel_info). */
        !atomic_load_explicit(&tracking, memory_order_acquire))
        return false;
    int P = omp_get_num_threads(), level = omp_get_level();
    if (P < 2 || P >= (1 << 16) || level < 0 || level >= LF__SHIM_LEVELS)
        return false;
    int t = omp_get_thread_num();
    struct wsite *s = site_of(ra, P);
    const double *cum = NULL;
    struct region *r = current_region(P);
    int at;
    bool uneven;
    bool weighted = region_split(r, s, P, n, &cum, &at, &uneven);
    lf__deal_block(n, P, t, weighted, weighted ? cum[t] : 0, weighted ? cum[t + 1] : 0, j0, j1);
    uint64_t a0 = 0, a1 = 0; /* the range the other split gives t, where it is uneven */
    if (uneven)
        lf__deal_block(n, P, t, !weighted, cum[t], cum[t + 1], &a0, &a1);
    if (r)
        region_used(r);
    struct timing *tm = &timing[level];
    *tm = (struct timing){.site = s,
                          .tid = t,
                          .weighted = weighted,
                          .other = uneven,
                          .j0 = *j0,
                          .iters = *j1 - *j0,
                          .alt_iters = a1 - a0};
    uint64_t now = lf__clock_ns();
    uint32_t k = 0;
    tm->t0 = at >= 0 ? common_start(r, at, level, now, &k) : now;
    tm->late = now > tm->t0 ? now - tm->t0 : 0;
    tm->instance = at >= 0 ? (r->seq << 32) | k : 0;
    tm->done = at >= 0 ? &r->split[at].done[k % START_RING] : NULL;
    tm->alt = at >= 0 ? &r->split[at].alt[k % START_RING] : NULL;
    return true;
}

/* Iterations of lb..ub inclusive with a stride of magnitude step in the loop's direction,
 * given whether ub lies in that direction and their distance d; ULLONG_MAX when it is 2^64. */
static ull trip_incl(bool ahead, ull d, ull step)
{
    if (!ahead || !step)
        return 0;
    ull q = d / step;
    return q == ULLONG_MAX ? ULLONG_MAX : q + 1;
}

/* _init for the form with bounds of type T (limits TMIN, TMAX; bits wide) and stride and chunk
 * of type S.  A range [j0, j1) is written back as lb + j0*incr .. lb + (j1-1)*incr (64-bit
 * patterns, truncated to T); an empty one (more members than iterations) as a pair of adjacent
 * values of T that the loop's own comparison finds empty in its direction, inside T's range. */
#define KMP_STATIC_INIT(name, T, S, TMIN, TMAX, bits)                                              \
    SHIM_API void name(ident_t *loc, kmp_int32 gtid, kmp_int32 sched, kmp_int32 *p_last, T *p_lb,  \
                       T *p_ub, S *p_st, S incr, S chunk)                                          \
    {                                                                                              \
        lf__kmp_ready();                                                                           \
        if (lf__kmp_cfg.static_weighted && incr != 0) {                                            \
            T lb = *p_lb, ub = *p_ub;                                                              \
            ull l = (ull)(kmp_int64)lb, u = (ull)(kmp_int64)ub;                                    \
            bool up = incr > 0;                                                                    \
            ull n = trip_incl(up ? ub >= lb : lb >= ub, up ? u - l : l - u,                        \
                              up ? (ull)incr : -(ull)(kmp_int64)incr);                             \
            uint64_t j0, j1;                                                                       \
            if (n > 0 && n != ULLONG_MAX && (bits == 64 || n <= UINT32_MAX) &&                     \
                take(sched, n, __builtin_return_address(0), &j0, &j1)) {                           \
                if (j1 > j0) {                                                                     \
                    *p_lb = (T)(l + j0 * (ull)(kmp_int64)incr);                                    \
                    *p_ub = (T)(l + (j1 - 1) * (ull)(kmp_int64)incr);                              \
                } else if (up) {                                                                   \
                    *p_lb = ub > (T)(TMIN) ? ub : (T)(ub + 1);                                     \
                    *p_ub = ub > (T)(TMIN) ? (T)(ub - 1) : ub;                                     \
                } else {                                                                           \
                    *p_lb = ub < (T)(TMAX) ? ub : (T)(ub - 1);                                     \
                    *p_ub = ub < (T)(TMAX) ? (T)(ub + 1) : ub;                                     \
                }                                                                                  \
                *p_st = (S)n; /* as libomp: the trip count; compiled code does not read it */      \
                if (p_last)                                                                        \
                    *p_last = j1 > j0 && j1 == n;                                                  \
                return;                                                                            \
            }                                                                                      \
        }                                                                                          \
        REAL(name)(loc, gtid, sched, p_last, p_lb, p_ub, p_st, incr, chunk);                       \
    }

KMP_STATIC_INIT(__kmpc_for_static_init_4, kmp_int32, kmp_int32, INT32_MIN, INT32_MAX, 32)
KMP_STATIC_INIT(__kmpc_for_static_init_4u, kmp_uint32, kmp_int32, 0, UINT32_MAX, 32)
KMP_STATIC_INIT(__kmpc_for_static_init_8, kmp_int64, kmp_int64, INT64_MIN, INT64_MAX, 64)
KMP_STATIC_INIT(__kmpc_for_static_init_8u, kmp_uint64, kmp_int64, 0, UINT64_MAX, 64)

/* Fold one execution's time per iteration into a thread's slot: the median of the latest
 * three executions (one preempted execution is an outlier, not a change of speed), then an
 * exponentially weighted mean with LEARN_RATE (load that stays is followed within a few
 * executions). */
static void learn(struct tslot *sl, double ipt)
{
    uint64_t k = atomic_load_explicit(&sl->samples, memory_order_relaxed);
    putd(&sl->recent[k % 3], ipt);
    double v = ipt;
    if (k >= 2) {
        double a = getd(&sl->recent[0]), b = getd(&sl->recent[1]), c = getd(&sl->recent[2]);
        v = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
    }
    double old = getd(&sl->ipt);
    putd(&sl->ipt, k ? old + LEARN_RATE * (v - old) : v);
    atomic_store_explicit(&sl->samples, k + 1, memory_order_relaxed);
}

/* A time of ns nanoseconds in a record's units of 16 ns, at most 2^32 - 1 (about 68 s). */
static uint64_t record_units(double ns)
{
    double u = ns / 16.0;
    return u >= 4294967295.0 ? 0xffffffffu : (uint64_t)u;
}

/* Member tm's time from the common start, had it run its range in the other split: its own
 * start as it was, then its rate over its range of this execution, kept over the other range's
 * length.  Where the splits differ, n >= P, so each split gives every member an iteration at
 * least and the rate is defined; where they do not, the range is the same and so is the time. */
static double modelled_ns(const struct timing *tm, uint64_t ns)
{
    if (tm->alt_iters == tm->iters)
        return (double)ns;
    double t = (double)ns, late = tm->late < ns ? (double)tm->late : t;
    return late + (t - late) * ((double)tm->alt_iters / (double)tm->iters);
}

/* Fold one member's time units into the execution's record w, tagged tag: the longest time,
 * the members counted so far and the tag.  Returns the record as this member left it, or 0
 * when a later execution holds it (this member is START_RING or more behind). */
static uint64_t fold(_Atomic uint64_t *w, uint64_t tag, uint64_t units)
{
    /* acq_rel on success: a member's write to the other split's record comes before its
     * count in this one, and the member that completes the count sees every member's. */
    uint64_t cur = atomic_load_explicit(w, memory_order_relaxed), next;
    do {
        uint64_t ctag = cur & 0xffff, members = (cur >> 16) & 0xffff, longest = cur >> 32;
        if (ctag == tag)
            next = (units > longest ? units : longest) << 32 | (members + 1) << 16 | tag;
        else if (!cur || (uint16_t)(ctag - tag) >= 0x8000u)
            next = units << 32 | (uint64_t)1 << 16 | tag; /* first member, or an older record */
        else
            return 0; /* a later execution holds the record */
    } while (!atomic_compare_exchange_weak_explicit(w, &cur, next, memory_order_acq_rel,
                                                    memory_order_relaxed));
    return next;
}

/* A member of the execution tm timed is done after ns from the common start: its time joins
 * the execution's record in its region's split (tagged as common_start tags the execution's
 * start), and where the region's weights are uneven, its modelled time with the other split
 * joins that split's record; the member that completes the count (the last of the team) books
 * the longest time, the execution's makespan, beside the other split's modelled one, to the
 * site's judgement.  A member that finds a record taken by a later execution (it is START_RING
 * or more behind) leaves its time out, and that execution is not booked; times over about
 * 68 s count as 68 s. */
static void finish(struct timing *tm, uint64_t ns)
{
    struct wsite *s = tm->site;
    uint64_t P = (uint64_t)s->nthreads, tag = (tm->instance & 0xffffffffu) % 65535u + 1;
    if (tm->other && !fold(tm->alt, tag, record_units(modelled_ns(tm, ns))))
        return;
    uint64_t next = fold(tm->done, tag, record_units((double)ns));
    if (!next || ((next >> 16) & 0xffff) != P || !tm->other)
        return;
    /* Relaxed: fold's acq_rel ordered every member's write to alt before its count. */
    uint64_t alt = atomic_load_explicit(tm->alt, memory_order_relaxed);
    if ((alt & 0xffff) != tag || ((alt >> 16) & 0xffff) != P)
        return; /* a later execution took the other split's record */
    judge_book(s, tm->weighted, (double)((next >> 32) << 4), (double)((alt >> 32) << 4));
}

/* The end of a thread's static range: a taken loop's time is folded into the thread's mean at
 * its site (libomp, which never saw the loop's start, is not told), and into the execution's
 * makespan; others are forwarded. */
SHIM_API void __kmpc_for_static_fini(ident_t *loc, kmp_int32 gtid)
{
    lf__kmp_ready();
    int level = lf__kmp_cfg.static_weighted ? omp_get_level() : -1;
    if (level >= 0 && level < LF__SHIM_LEVELS && timing[level].t0) {
        struct timing *tm = &timing[level];
        uint64_t end = lf__clock_ns(), dt = end - tm->t0;
        struct wsite *s = tm->site;
        if (s && s->slot && tm->iters > 0 && dt > 0)
            learn(&s->slot[tm->tid], (double)dt / (double)tm->iters);
        if (s && tm->done)
            finish(tm, dt); /* timed from the common start: a member of a region's split */
        if (tracing)        /* LF_TRACE: the range as a chunk of its own */
            lf_trace_range(s ? s->label : "kmp:static@?", tm->instance, tm->tid, tm->j0,
                           tm->j0 + tm->iters, tm->t0, end, tm->weighted ? "weighted" : "static");
        tm->t0 = 0;
        return;
    }
    REAL(__kmpc_for_static_fini)(loc, gtid);
}
