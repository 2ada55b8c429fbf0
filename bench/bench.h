/* bench/bench.h - what the parts of lf-bench share.
 *
 * lf-bench runs one kernel under one scenario with several schedules and
 * reports each schedule's makespan against the ideal T1 / sum(s_i) (doc/design.md,
 * "Measuring").  The parts:
 *   bench_kernels.c   the kernels, their sequential reference, spin calibration
 *   bench_scenario.c  background processes, thread binding, nominal speeds
 *   bench_output.c    table / CSV / JSON rows, gnuplot plots
 *   lf-bench.c        options, schedules, the measurement loop, and the peer
 *                     runtimes' children (lf-bench-libomp, lf-bench-lb4omp,
 *                     lf-bench-tbb: the same file built against another runtime)
 *   bench_tbb.cc      oneTBB's parallel_for rows (lf-bench-tbb only)
 * bench_kernels.c, bench_scenario.c and bench_output.c are compiled once, by
 * the C compiler, into bench/libbench.la, which every child links: the kernels
 * run the same machine code under every runtime, so that one T1 measured by
 * lf-bench is the T1 of every row.
 */
#ifndef LF_BENCH_H
#define LF_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_MAX_THREADS 256
#define BENCH_MAX_SCHEDS  64
#define BENCH_MAX_HOGS    64

/* Exit status of a usage error (bad option or value). */
#define BENCH_EXIT_USAGE 2
/* Exit status of a wrong kernel result. */
#define BENCH_EXIT_WRONG 3

/* ---- Kernels ---- */

enum bench_kernel_id {
    KERNEL_SPIN,
    KERNEL_TRIANGLE,
    KERNEL_RANDOM,
    KERNEL_MANDELBROT,
    KERNEL_SPMV,
    KERNEL_CALCIUM,
    KERNEL_STREAM,
    KERNEL_STENCIL,
    KERNEL_GRAPH,
    KERNEL_COUNT
};

/* Where the input of the data kernels (stream, stencil) lies under NUMA:
 * all on domain 0, or one equal range of blocks per domain. */
enum bench_placement { PLACE_NODE0, PLACE_BLOCKED, PLACE_COUNT };

/* Stencil sweeps per iteration unless --passes says otherwise. */
#define BENCH_DEFAULT_PASSES 4

/* A kernel prepared for n iterations: iter(k, i) computes iteration i's
 * value, a pure function of i and the kernel's data.  The data kernels
 * (stream, stencil) have iter_at instead: iteration i reads block i of the
 * input where blk points (in place, or a staged copy of it), and adds to
 * *waited the ns it waited for remote reads (lf_numa_charge). */
struct bench_kernel {
    enum bench_kernel_id id;
    long n;
    long grain;
    uint64_t seed;
    double (*iter)(const struct bench_kernel *k, long i);
    /* spin family: arithmetic steps of each iteration */
    double steps_per_ns;
    uint32_t *steps; /* triangle, random: per-iteration steps; spin: NULL */
    long spin_steps;
    /* mandelbrot */
    int width;
    int maxiter;
    /* spmv (CSR); graph: rowptr/col are the sorted adjacency lists */
    long *rowptr;
    int32_t *col;
    double *val;
    double *x;
    /* calcium */
    int channels;
    int csteps;
    /* stream, stencil: block i is grain doubles at xin + i * grain, with one
     * block of zeros before block 0 and after block n - 1 (the halo's reach
     * at the ends); xloc holds the same values on the T1 thread's domain */
    double (*iter_at)(const struct bench_kernel *k, long i, const double *blk, double *waited);
    int passes; /* stencil: sweeps per iteration (its halo, in doubles) */
    enum bench_placement placement;
    double *xin;
    double *xloc;
    void *xin_map, *xloc_map; /* lf_numa_alloc'd, map_bytes each */
    size_t map_bytes;
};

const char *bench_kernel_name(enum bench_kernel_id id);
/* The kernel named name, or -1. */
int bench_kernel_lookup(const char *name);
/* Whether the kernel reads a NUMA-placed input (stream, stencil). */
int bench_kernel_has_data(enum bench_kernel_id id);
const char *bench_placement_name(enum bench_placement p);
/* The placement named name, or -1. */
int bench_placement_lookup(const char *name);
/* What --grain means for the kernel, and its default. */
const char *bench_kernel_grain_unit(enum bench_kernel_id id);
long bench_kernel_default_grain(enum bench_kernel_id id);
/* A default n that makes one sequential loop take roughly 100 ms. */
long bench_kernel_default_n(enum bench_kernel_id id, long grain);
/* Measure how many spin steps per nanosecond make iterations of grain ns
 * on the calling thread (its core unloaded). */
double bench_spin_calibrate(long grain);
/* The next number of the splitmix64 sequence whose state is *s (Steele,
 * Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
 * 2014): the random kernels and lf-bench's shuffled rounds draw from it. */
uint64_t bench_splitmix64(uint64_t *s);
/* Build k's data for n iterations; passes and placement matter to the data
 * kernels only (whose inputs are placed here, the calling thread's domain
 * holding xloc).  Returns 0, -ENOMEM, or -errno of a failed placement. */
int bench_kernel_init(struct bench_kernel *k, enum bench_kernel_id id, long n, long grain,
                      uint64_t seed, double steps_per_ns, int passes,
                      enum bench_placement placement);
void bench_kernel_free(struct bench_kernel *k);

/* ---- Scenarios ---- */

enum bench_scenario_id {
    SCEN_DEDICATED,
    SCEN_HOG,
    SCEN_BIGLITTLE,
    SCEN_VARYING,
    SCEN_OVERSUB,
    SCEN_COUNT
};

struct bench_scenario {
    enum bench_scenario_id id;
    int ncores;                   /* CPUs this process may use */
    int cpus[BENCH_MAX_THREADS];  /* their ids */
    int nhogs;                    /* hog, varying: background processes */
    int hog_core[BENCH_MAX_HOGS]; /* index into cpus[] */
    int little;                   /* biglittle: the last `little` threads are slow */
    int factor;                   /* biglittle: their per-iteration cost factor */
    double period_ms;             /* varying: on+off period */
    double duty;                  /* varying: fraction of the period the hog is on */
};

const char *bench_scenario_name(enum bench_scenario_id id);
int bench_scenario_lookup(const char *name);
/* Fill ncores and cpus[] from the process's affinity mask. */
void bench_scenario_probe(struct bench_scenario *sc);
/* The cost factor (1 or f) of thread t of a team of nthreads. */
int bench_thread_factor(const struct bench_scenario *sc, int t, int nthreads);
/* Sum of the nominal speeds s_i of a team of nthreads under sc. */
double bench_sum_speeds(const struct bench_scenario *sc, int nthreads);
/* Start the scenario's background processes (none for some); 0 or -errno. */
int bench_scenario_start(const struct bench_scenario *sc);
/* Kill and reap every background process started so far. */
void bench_scenario_stop(void);
/* Install SIGINT/SIGTERM/SIGHUP handlers and an atexit hook that stop the
 * scenario and any child registered with bench_child_register. */
void bench_cleanup_install(void);
void bench_child_register(int pid);
void bench_child_unregister(int pid);
/* Pin the calling thread to cpus[t mod ncores] (cached per thread). */
void bench_bind_thread(const struct bench_scenario *sc, int t);

/* ---- Results ---- */

struct bench_row {
    char kernel[16];
    long n;
    long grain;
    int threads;
    char scenario[16];
    char schedule[64];
    int execs;               /* executions of the loop per measurement */
    double median, min, max; /* seconds */
    double ideal;            /* seconds */
    double efficiency;       /* ideal / median */
    long chunks;             /* median over reps; -1 when unknown */
    double speedup;          /* execs x T1 of its own process / median */
    double t1;               /* seconds, of one execution: the run's reference T1 */
    double t1_own;           /* the T1 of the row's own process (t1 when all share it) */
    double ratio;            /* this efficiency / the run's best (1: the best) */
};

enum bench_format { FORMAT_TABLE, FORMAT_CSV, FORMAT_JSON };

/* Write rows in fmt; header selects a CSV header line / the JSON wrapper. */
void bench_write_rows(FILE *f, enum bench_format fmt, const struct bench_row *rows, int nrows,
                      int header);
/* Write efficiency.dat/.gp/.png in dir, and per-site chunk timelines of the
 * LF_TRACE file trace (may be NULL) as trace-NAME.png, NAME the label that
 * labels[k] gives site sites[k] (else the site).  0, or -1 with a message. */
int bench_plot(const char *dir, const struct bench_row *rows, int nrows, const char *trace,
               const char *const *sites, const char *const *labels, int nlabels);

/* What the data kernels' reads did under one schedule, averaged over the
 * rounds: the fractions of iterations that read another domain's input in
 * place, and that read a staged copy; the ms the kernel's own reads waited
 * (lf_numa_charge), summed over the threads.  Staging's copies wait inside
 * the library's chunk hand-out and are not in wait_ms. */
struct bench_data_row {
    char schedule[64];
    double remote;
    double staged;
    double wait_ms;
};

/* Write the data rows as a small table under the main one. */
void bench_write_data_rows(FILE *f, const struct bench_data_row *r, int nrows);

/* Median / min / max of v[0..n-1] (v is reordered). */
double bench_median(double *v, int n);
/* Set every row's ratio: its efficiency over the best of the rows (with one
 * ideal for all, the smallest median over its own). */
void bench_rank_rows(struct bench_row *rows, int nrows);

/* Cut the next item off a comma-separated --schedules list at *list, whose
 * items start with a prefix that prefix_at recognises (>= 0) and may
 * contain commas themselves ("omp:dynamic,1"): the item runs to the comma
 * before the next such prefix.  Terminates the item in place, advances
 * *list past it and returns it; the caller checks that it starts with a
 * prefix. */
char *bench_list_next(char **list, int (*prefix_at)(const char *));

/* ---- One execution of a loop, as every runtime's driver counts it ---- */

/* What a team's loop did: contiguous runs of iterations (chunks), iterations,
 * an order-independent checksum of their values; data kernels: iterations
 * read remotely in place / from a staged copy, and ns the kernel's reads
 * waited. */
struct bench_tally {
    long runs;
    long iters;
    uint64_t sum;
    long remote, staged;
    double waited;
};

/* Fold iteration i's value v into an order-independent checksum term: the
 * loops keep no result array, so threads never share a cache line for
 * results (dynamic,1 would otherwise pay for false sharing at every
 * iteration), and a wrong, missing or repeated iteration changes the sum. */
static inline uint64_t bench_check_term(long i, double v)
{
    uint64_t x;
    memcpy(&x, &v, sizeof x);
    x ^= (uint64_t)i * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    return x ^ (x >> 27);
}

/* --stall-ms: the iteration that sleeps (-1: none) and for how long (ns),
 * set once before the first loop; bench_stall() sleeps that long. */
extern long bench_stall_at;
extern long bench_stall_ns;
void bench_stall(void);

/* One iteration as a team member runs it, on the locals k, rep (the thread's
 * cost factor), sum, runs, next, iters: a little thread repeats the work; a
 * jump in i starts a new contiguous run (a chunk); the stalled iteration
 * (--stall-ms) sleeps first, on whichever thread runs it. */
#define BENCH_BODY(i)                                                                              \
    do {                                                                                           \
        if ((i) == bench_stall_at)                                                                 \
            bench_stall();                                                                         \
        double v_ = k->iter(k, (i));                                                               \
        for (int r_ = 1; r_ < rep; r_++)                                                           \
            v_ = k->iter(k, (i));                                                                  \
        sum += bench_check_term((i), v_);                                                          \
        runs += (i) != next;                                                                       \
        next = (i) + 1;                                                                            \
        iters++;                                                                                   \
    } while (0)

/* A data kernel's iteration: iteration i reads the block at blk (in place
 * or staged); it counts as remote when its reads waited (another domain's
 * data, read in place), as staged when blk is not in the placed input
 * [in_lo, in_lo + in_len).  A little thread repeats it, reads and waits
 * included.  Locals as BENCH_BODY's, plus remote, staged, waited. */
#define BENCH_DATA_BODY(i, blk)                                                                    \
    do {                                                                                           \
        const double *b_ = (blk);                                                                  \
        double w_ = 0;                                                                             \
        double v_ = k->iter_at(k, (i), b_, &w_);                                                   \
        for (int r_ = 1; r_ < rep; r_++)                                                           \
            v_ = k->iter_at(k, (i), b_, &w_);                                                      \
        sum += bench_check_term((i), v_);                                                          \
        runs += (i) != next;                                                                       \
        next = (i) + 1;                                                                            \
        iters++;                                                                                   \
        remote += w_ > 0;                                                                          \
        staged += (uintptr_t)b_ - in_lo >= in_len;                                                 \
        waited += w_;                                                                              \
    } while (0)

/* oneTBB rows (bench_tbb.cc): how a tbb: schedule partitions the range. */
enum bench_tbb_partitioner { TBB_AUTO, TBB_SIMPLE, TBB_AFFINITY, TBB_STATIC };

/* Start oneTBB with a team of threads pinned as bench_bind_thread pins
 * OpenMP's (thread t of the arena on cpus[t mod ncores]); 0 or -1 with a
 * message. */
int bench_tbb_start(const struct bench_scenario *sc, int threads);
/* Run k's loop once with parallel_for under partitioner p with grain size
 * grain (blocked_range's; >= 1); slot names the schedule (an affinity
 * partitioner is kept per slot, so that it learns across executions).
 * Returns the makespan in seconds and fills tl. */
double bench_tbb_run(const struct bench_kernel *k, const struct bench_scenario *sc, int threads,
                     enum bench_tbb_partitioner p, long grain, int slot, struct bench_tally *tl);
/* Stop oneTBB's team. */
void bench_tbb_stop(void);

#ifdef __cplusplus
}
#endif

#endif
