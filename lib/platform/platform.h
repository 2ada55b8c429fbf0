/* lib/platform/platform.h - what the platform layer measures, apart from the
 * clock (lib/platform/clock.h, included here for convenience).
 *
 *   topology   cores, PUs, NUMA nodes, core kinds, SMT, where the calling
 *              thread runs (hwloc when built with it, else sysconf and
 *              sched_getcpu);
 *   binding    LF_BIND=close|spread|none applied to one thread at a time;
 *   bm         a relative performance figure for the calling thread's core
 *              (seed 000 bm_i, 1.0 when nothing is known);
 *   counters   per-thread cycles and instructions through PAPI when the
 *              machine has them; otherwise -ENOTSUP and a status string;
 *   avail      a_i = thread CPU time / wall time over an interval (seed 000
 *              §3.1.1, the availability the statistical calibration uses).
 *
 * Every query is safe from any thread; process-wide state is set up once
 * (pthread_once) on first use.  Nothing here prints except lf__bind_policy()
 * on a malformed LF_BIND (once per process).
 */
#ifndef LF_PLATFORM_H
#define LF_PLATFORM_H

#include <stdint.h>

#include "platform/clock.h"
#include "platform/env.h"

/* ---- Topology ---- */

struct lf__topo_info {
    int ncores;         /* physical cores (>= 1) */
    int npus;           /* processing units, i.e. hardware threads (>= 1) */
    int nnuma;          /* NUMA nodes (>= 1) */
    int nkinds;         /* distinct core kinds; 0 when hwloc reports none, or
                           only one uniform kind (a homogeneous machine) */
    int hw_kinds;       /* what hwloc_cpukinds_get_nr said (0 without hwloc) */
    int smt;            /* PUs per core, the largest over all cores (>= 1) */
    int have_hwloc;     /* 1 when the figures come from an hwloc topology */
    const char *source; /* "hwloc 2.9.0", or why sysconf() was used instead */
};

/* The process-wide topology summary (loaded on first call); never NULL. */
const struct lf__topo_info *lf__topo(void);
/* 1 when the topology has been loaded (by lf__topo or a query needing it):
 * start-up loads it only for what needs it (binding, NUMA, calibration). */
int lf__topo_loaded(void);

struct lf__kind_info {
    int efficiency;      /* hwloc's abstract efficiency, -1 when unknown */
    int npus;            /* PUs of this kind */
    double freq_max_mhz; /* "FrequencyMaxMHz", 0 when not reported */
    char core_type[32];  /* "CoreType" ("IntelAtom", ...), "" when not reported */
};

/* Describe core kind idx (0 .. nkinds-1, ordered from least to most
 * performant as hwloc orders them).  Returns 0, -ENOENT for a bad index,
 * -ENOTSUP without hwloc. */
int lf__topo_kind(int idx, struct lf__kind_info *out);

/* The OS index of the PU at position pos (0 .. npus-1) of topology order,
 * the order LF_BIND=close fills; -1 for a bad position. */
int lf__topo_pu_at(int pos);
/* The loaded hwloc topology (an hwloc_topology_t), or NULL when built
 * without hwloc or when it failed to load.  Read-only for callers. */
void *lf__topo_hwloc(void);

/* Where the calling thread runs now (the PU it last ran on). */
struct lf__where {
    int pu;        /* OS index of the PU, -1 when unknown */
    int core;      /* logical index of its core, -1 when unknown */
    int kind;      /* index of its core kind, -1 when hwloc reports none */
    int kind_rank; /* efficiency rank of that kind: 0 = least performant
                      of the kinds present, -1 when there are no kinds */
    int smt;       /* PUs sharing its core (>= 1) */
    int numa;      /* logical index of its NUMA node (0 without hwloc) */
};

/* Fill *out for the calling thread.  Returns 0, or -errno when even the PU
 * is unknown (the fields then hold the documented "unknown" values). */
int lf__where_self(struct lf__where *out);

/* Relative performance of the calling thread's core, in (0, 1]: its kind's
 * FrequencyMaxMHz over the largest one, else (efficiency+1)/(max+1), else
 * 1.0 (homogeneous or unknown).  Seed 000 §3.1.1 uses it as bm_i. */
double lf__perf_bm_self(void);
/* 1 when lf__perf_bm_self needs the topology: the kernel shows cores of
 * different kinds (cpu_atom, or unequal cpu_capacity or maximum cpufreq).
 * A homogeneous machine answers 1.0 without loading it. */
int lf__perf_needs_topo(void);

/* ---- Binding (LF_BIND) ---- */

enum lf__bind_mode {
    LF__BIND_NONE = 0, /* leave threads where the OS puts them */
    LF__BIND_CLOSE,    /* thread t on PU t mod nPU, in topology order */
    LF__BIND_SPREAD,   /* threads spread over cores first, SMT siblings last */
};

/* The mode LF_BIND names, read once per process.  Unset or "none" gives
 * LF__BIND_NONE; a malformed value prints one message naming the accepted
 * values and gives LF__BIND_NONE. */
enum lf__bind_mode lf__bind_mode(void);
/* Parse an LF_BIND value (NULL or "" is none).  0, or -EINVAL (and none). */
int lf__bind_parse(const char *s, enum lf__bind_mode *out);
const char *lf__bind_mode_name(enum lf__bind_mode m);
/* The PU (OS index) that thread tid of nthreads gets under mode m, or -1
 * for LF__BIND_NONE.  Pure function of the topology; used by lf__bind_self
 * and by tests. */
int lf__bind_target(enum lf__bind_mode m, int tid, int nthreads);
/* Bind the calling thread, member tid of a team of nthreads, as LF_BIND
 * says.  The dispatcher calls it once per thread.  Returns 1 when the
 * thread was bound, 0 when the mode is none, -errno when binding failed
 * (the thread then runs unbound). */
int lf__bind_self(int tid, int nthreads);

/* ---- Hardware counters (PAPI) ---- */

/* 1 once the counters have been probed (only lf-info and the calls
 * below probe them; a loop never does). */
int lf__counters_probed(void);
/* 1 when per-thread cycle and instruction counters work here, else 0. */
int lf__counters_available(void);
/* One line for lf-info: which counters are used, or why none are. */
const char *lf__counters_status(void);

/* Load hwloc (lib/platform/hwloc-load.c) once; 0, or -1 with *why (when why
 * is not NULL) naming the reason.  Only with LF_HAVE_HWLOC. */
int lf__hwloc_load(const char **why);

/* The text of file path (at most size - 1 bytes, NUL-terminated in buf), read
 * with open and read alone (lib/platform/sysfile.c): the count of bytes read,
 * or -1 when the file cannot be opened (or buf is NULL or size 0). */
long lf__read_text(const char *path, char *buf, size_t size);

/* The non-negative decimal number a file such as a sysfs attribute starts
 * with, or -1 when it cannot be read or does not start with one. */
long lf__read_long(const char *path);

/* Open the library soname (lib/platform/dl.c) and look up its functions
 * names[0..n-1] into fns; 0, or -1 with the reason in why (whylen bytes) and
 * the library closed.  Only with LF_HAVE_PAPI or LF_HAVE_HWLOC. */
int lf__dl_open(const char *soname, const char *const *names, void **fns, size_t n, char *why,
                size_t whylen);
/* Start counting on the calling thread (idempotent).  0, or -ENOTSUP when
 * counters are unavailable, or -EIO when PAPI refuses this thread. */
int lf__counters_start(void);
/* Cycles and instructions of the calling thread since its
 * lf__counters_start (either pointer may be NULL).  0, -ENOTSUP, -EINVAL
 * (this thread did not start), -EIO. */
int lf__counters_read(uint64_t *cycles, uint64_t *instructions);
/* Stop counting on the calling thread and release its event set. */
int lf__counters_stop(void);

/* ---- Availability a_i ---- */

/* An interval over which the calling thread's CPU share is measured. */
struct lf__avail {
    uint64_t wall0; /* lf__clock_ns() at start */
    uint64_t cpu0;  /* lf__thread_cpu_ns() at start */
};

static inline void lf__avail_start(struct lf__avail *a)
{
    /* wall first, CPU second here and the reverse in stop: the wall interval
     * then contains the CPU one, so a busy thread reads close to 1. */
    a->wall0 = lf__clock_ns();
    a->cpu0 = lf__thread_cpu_ns();
}

/* a_i for the interval since lf__avail_start on the same thread: CPU time
 * over wall time, clamped to [0, 1]; 1.0 when no wall time elapsed (an
 * interval too short to tell says nothing against the thread). */
static inline double lf__avail_stop(const struct lf__avail *a)
{
    uint64_t cpu = lf__thread_cpu_ns() - a->cpu0;
    uint64_t wall = lf__clock_ns() - a->wall0;
    if (wall == 0)
        return 1.0;
    double r = (double)cpu / (double)wall;
    return r > 1.0 ? 1.0 : r;
}

#endif
