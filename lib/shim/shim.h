/* lib/shim/shim.h - what the preload shims share: libloopfarm-gomp (lib/gomp, GCC's libgomp
 * ABI) and libloopfarm-kmp (lib/kmp, LLVM's libomp ABI) decide alike which loops they take,
 * read LF_SCHEDULE / LF_REPLACE alike, name and remember a loop by its call site alike and
 * hand out chunks of the same logical iteration space.  Each shim keeps only what its ABI
 * dictates: the entry points, how a team meets, and how a chunk is written back.
 *
 * Compiled into each shim (it is not part of libloopfarm): every shim has its own
 * configuration and its own table of call sites.
 */
#ifndef LF_SHIM_H
#define LF_SHIM_H

#include <omp.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <loopfarm.h>

/* The shims link no OpenMP runtime: a preloaded library that lists libgomp among the libraries
 * it needs made libgomp's team barriers sleep instead of spin (lib/gomp/gomp.mk).  The
 * runtime's names they call are the program's runtime's, referenced weakly, so that a program
 * without OpenMP run with a shim preloaded loads even under LD_BIND_NOW (they are called only
 * from the runtime's entry points, which such a program never reaches). */
#pragma weak omp_get_level
#pragma weak omp_get_thread_num
#pragma weak omp_get_num_threads
#pragma weak omp_get_schedule

/* Deepest omp_get_level() at which a shim takes loops (a thread keeps state per level). */
#define LF__SHIM_LEVELS 16

typedef unsigned long long lf__ull;

/* Initial-exec TLS for a shim's per-thread state: a plain offset from the thread pointer
 * instead of a call to __tls_get_addr on every chunk.  Right for a library that is preloaded
 * or linked ahead of the runtime (loaded at start-up), which is how the shims are used; a late
 * dlopen of a shim could fail for want of static TLS. */
#define LF__SHIM_TLS __thread __attribute__((tls_model("initial-exec")))

/* The schedule entries: what a taken loop's schedule was in the program. */
enum lf__shim_entry {
    LF__SHIM_DYNAMIC,
    LF__SHIM_GUIDED,
    LF__SHIM_RT_DYNAMIC,
    LF__SHIM_RT_GUIDED,
    LF__SHIM_RT_AUTO,
    LF__SHIM_ENTRIES
};

/* The source kinds of the entry points (runtime: the run-sched ICV picks the entry). */
enum lf__shim_src { LF__SHIM_SRC_DYNAMIC, LF__SHIM_SRC_GUIDED, LF__SHIM_SRC_RUNTIME };

/* Keys of LF_REPLACE: the map that lf__shim_parse_replace fills has LF__SHIM_KEYS entries. */
enum lf__shim_key {
    LF__SHIM_K_DYNAMIC,
    LF__SHIM_K_GUIDED,
    LF__SHIM_K_RUNTIME,
    LF__SHIM_K_AUTO,
    LF__SHIM_K_STATIC, /* static:weighted (a shim that offers it: takes_static) */
    LF__SHIM_K_CHUNK,
    LF__SHIM_K_CAP,
    LF__SHIM_KEYS
};

/* One shim's configuration, read once per process by lf__shim_configure. */
struct lf__shim {
    const char *name;    /* "gomp", "kmp": messages say loopfarm-NAME, sites NAME:kind@... */
    const char *runtime; /* "libgomp", "libomp": who keeps the loops not taken */
    int configured;      /* LF_SCHEDULE or LF_REPLACE set: otherwise every call is forwarded */
    atomic_int enabled;  /* configured, and not switched off by lf_shim_enable(0) */
    atomic_int configured_once; /* lf__shim_configure has read the environment */
    int honour_chunk; /* explicit chunks are units of scheduling (chunk:honour, default) */
    int guided_cap;   /* schedule(guided) loops keep OpenMP's guided bound (default) */
    int verbose;
    int takes_static;    /* set by the caller: the runtime's static loops reach the shim */
    int static_weighted; /* LF_REPLACE has static:weighted (only when takes_static) */
    const char *spec[LF__SHIM_ENTRIES];        /* NULL: the runtime's own */
    struct lf_site fallback[LF__SHIM_ENTRIES]; /* when the table of call sites is full */
    char fallback_label[LF__SHIM_ENTRIES][32];
};

/* A thread's loop at one nesting level, when the loop is the shim's. */
struct lf__shim_loop {
    lf_loop *loop; /* NULL: the runtime's loop, or none */
    lf_omp_loan *loan;
    struct lf_site *site;
    int tid;
    int entry;
    bool refused;             /* bounds other than the team's: this member takes no chunks */
    bool entered;             /* in the lf loop (lf_loop_begin succeeded) */
    bool ran_last;            /* it was handed the last unit: it takes no chunk after it */
    bool monotonic;           /* OpenMP's monotonic modifier applies (LF_SITE_MONOTONIC) */
    lf__ull n, unit, units;   /* iterations; iterations per scheduled unit; units */
    lf__ull start, end, incr; /* the program's bounds, as 64-bit patterns */
};

/* The bounds a team's first member publishes and the others compare theirs with. */
struct lf__shim_bounds {
    lf__ull n, start, end, incr, unit;
};

/* Make the OpenMP runtime's names visible to dlsym(RTLD_NEXT) and to the weak references
 * above when the runtime is in the process but outside its global scope: a library that uses
 * OpenMP was dlopen'ed with RTLD_LOCAL (as Python loads extension modules) and brought it.
 * sonames: the runtime's file names, NULL-terminated, of which the first loaded one is
 * promoted (dlopen with RTLD_NOLOAD | RTLD_GLOBAL: nothing is loaded that was not). */
void lf__shim_find_runtime(const char *const *sonames);

/* Read LF_SCHEDULE, LF_REPLACE and LF_VERBOSE into s (s->name and s->runtime set by the
 * caller) and, under LF_VERBOSE, print what each kind of loop will run under; once per
 * process: later calls (a shim's set-up, lf__shim_set_enabled) return at once. */
void lf__shim_configure(struct lf__shim *s);

/* Whether the shim takes loops now (read at each loop's start; relaxed: it changes only
 * while no team runs, and a team's start orders the change before its members' reads). */
static inline int lf__shim_enabled(const struct lf__shim *s)
{
    return atomic_load_explicit(&s->enabled, memory_order_relaxed);
}

/* lf_shim_enable's work for shim s (configured first if it is not yet): 1 switches taking loops
 * back on, 0 leaves every loop to the runtime; returns the previous state (0 or 1), -EINVAL for
 * another value of on, -EBUSY when called inside a parallel region (omp_get_level() > 0), -ENOENT
 * for on = 1 when neither LF_SCHEDULE nor LF_REPLACE configured the shim. */
int lf__shim_set_enabled(struct lf__shim *s, int on);

/* Parse LF_REPLACE's text into map[LF__SHIM_K_DYNAMIC..LF__SHIM_K_STATIC] (heap strings) and
 * s's chunk and cap switches; each error is reported once with the accepted forms. */
void lf__shim_parse_replace(struct lf__shim *s, const char *text, char **map);

/* Iterations of a loop whose bounds differ by d (> 0) with a step of magnitude step,
 * the far bound excluded. */
static inline lf__ull lf__shim_steps(lf__ull d, lf__ull step)
{
    return step ? d / step + (d % step != 0) : 0;
}

/* Decide whether the shim takes a loop of source kind src with the program's chunk (>= 1)
 * and n iterations at nesting level `level`, entered through an entry point that says whether
 * the schedule is monotonic; fills st's n, unit, units, entry and monotonic (also set when a
 * runtime loop's run-sched ICV carries the monotonic modifier) and returns the entry, or -1
 * when the runtime keeps the loop (not configured, kind left to the runtime, empty, nested too
 * deep, more than LONG_MAX units). */
int lf__shim_decide(const struct lf__shim *s, enum lf__shim_src src, bool monotonic, lf__ull chunk,
                    lf__ull n, int level, struct lf__shim_loop *st);

/* The site of the loop of entry e called from ra (the return address of the shim's entry
 * point: an address in the program's code), made on its first loop; flagged LF_SITE_MONOTONIC
 * when the loop's schedule is monotonic (a monotonic and a nonmonotonic loop never share a
 * site; the fallback sites, used when the table is full, are always monotonic). */
struct lf_site *lf__shim_site(struct lf__shim *s, int e, bool monotonic, const void *ra);

/* Write "what@object+0xOFFSET" for code address ra (which addr2line resolves) into buf. */
void lf__shim_where(char *buf, size_t len, const char *what, const void *ra);

/* One entry of a lock-free open-addressed table whose keys are never removed: claim it for
 * want (1: the caller fills the entry, then stores 1 to ready with release), find it holding
 * want and filled (0), or find another key there (-1: probe on). */
int lf__shim_slot(atomic_uintptr_t *key, atomic_int *ready, uintptr_t want);

/* The bounds of st, as a team's first member publishes them. */
void lf__shim_bounds_of(const struct lf__shim_loop *st, struct lf__shim_bounds *b);

/* Join the loop the team loaned (loan) at site, with `same` telling whether the member's
 * bounds are the team's: begins the lf loop (a member with other bounds takes no chunk,
 * reported) and, under LF_VERBOSE, names the call site the first time it is taken. */
void lf__shim_join(struct lf__shim *s, struct lf__shim_loop *st, struct lf_site *site,
                   lf_omp_loan *loan, bool same);

/* The member's next chunk as logical iterations [*j0, *j1) of [0, n); false when the loop
 * is done for it.  The lf loop schedules every unit but the last; the loop's last unit
 * goes, once every other unit is handed out, to the first member that finds nothing more
 * (lf_loop_once), and that member takes no chunk after it.  Both ABIs copy lastprivate
 * variables out of the member whose last chunk held the last iteration (GCC tests each
 * thread's own iterator against the end; libomp's ABI, the p_last flag of the last chunk a
 * thread was handed), and a nonmonotonic schedule (split blocks, leases, steals) could
 * otherwise hand that member another chunk after it, so that no member copied the value
 * out.  Holding the unit back costs at most one unit at the loop's end, the granularity of
 * the program's own schedule; ending the loop instead for the member that ran it left the
 * rest of the others' leases to them alone. */
bool lf__shim_next(struct lf__shim_loop *st, lf__ull *j0, lf__ull *j1);

/* The thread's shim loop at its current nesting level among levels[LF__SHIM_LEVELS] (nours of
 * them in use), or NULL when the runtime owns the loop it is in. */
static inline struct lf__shim_loop *lf__shim_current(struct lf__shim_loop *levels, int nours)
{
    if (!nours)
        return NULL;
    int level = omp_get_level();
    if (level < 0 || level >= LF__SHIM_LEVELS || !levels[level].loop)
        return NULL;
    return &levels[level];
}

/* The member leaves its loop and gives its part of the loan back; st->loop becomes NULL. */
void lf__shim_leave(struct lf__shim_loop *st);

#endif
