/* bench/lf-bench.c - compare parallel-for schedules on one kernel under one
 * scenario, side by side in one run.
 *
 * Procedure (doc/design.md, "Measuring"):
 *   1. calibrate the spin kernel's steps per nanosecond and build the kernel;
 *   2. T1: the kernel on one thread, on an unloaded core, before any
 *      background load starts and again after it stopped (the fastest run);
 *   3. start the scenario, then one warm-up round and --reps rounds, each
 *      round running every schedule once (ABAB...), checking every result
 *      against the sequential run;
 *   4. ideal = T1 / sum(s_i), efficiency = ideal / median makespan.
 * The data kernels (stream, stencil) read an input placed on NUMA domains;
 * their lf: loops declare it (LF_FOR_DATA), so that loopfarm can take
 * chunks near their data and stage remote ones, and their T1 reads a copy
 * on the T1 thread's own domain: the ideal is that of all-local data, and
 * the efficiency shows what remote reads cost each schedule.
 * Peer runtimes.  Two OpenMP runtimes cannot share a process, so the rows of
 * libomp: (LLVM), lb4omp: (LB4OMP) and tbb: (oneTBB) run in children: this
 * same file built against that runtime (lf-bench-libomp, lf-bench-lb4omp,
 * lf-bench-tbb), started with --serve before T1 is measured; and so do the
 * omp: and lf: rows, in a child of this very program, which also measures T1
 * ("t1 R"), so that every row runs in a fresh process started the same way
 * and none in the one that calibrated, built the reference and started the
 * others (--own-rows here keeps them, and T1, in this process: the old way).
 * A child builds the same kernel, checks its sequential result against ours,
 * starts its team (pinned as ours) and then waits on a pipe: "run I" runs
 * its schedule I once (--execs loops), checks the result and answers with
 * the makespan.  This process drives the rounds, so every round runs every
 * schedule of every runtime once, in the order given (ABAB...), under the
 * same background load.  The kernels are compiled once into libbench.la,
 * which every child links, so they run the same machine code everywhere;
 * yet one process can run them 10-20 % slower than another, its
 * sequential loop as much as its rows (doc/benchmarks-method.md), so
 * every child times T1 too and each row's ideal derives from the T1 of the
 * process that ran it (--t1 own; --t1 one: the first for all).  While one
 * runtime runs, the others' threads must not spin: every runtime keeps its
 * own defaults (its idle threads spin a while, then sleep), and a row of one
 * process starts only when the threads of the process that ran the row
 * before it are idle.
 * Each measured round runs the rows in an order of its own (--order), so
 * that no row always follows the same one.  A schedule that an OpenMP
 * runtime takes from OMP_SCHEDULE at start-up only (libomp:static_steal,
 * every lb4omp: technique) gets a child of its own.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CPU_SET */
#endif
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <limits.h>
#include <loopfarm.h>
#ifndef LF_BENCH_TBB
#include <loopfarm/omp.h>
#endif
#include <math.h>
#include <omp.h> /* lf-bench-tbb: for omp_sched_t only; it runs no OpenMP loop */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <dlfcn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The runtimes lf-bench compares; this program is one of them. */
enum runtime { RT_GOMP, RT_LIBOMP, RT_LB4OMP, RT_TBB, RT_KMP, RT_COUNT };

#if defined LF_BENCH_LIBOMP
#define PROG    "lf-bench-libomp"
#define SELF_RT RT_LIBOMP
#elif defined LF_BENCH_LB4OMP
#define PROG    "lf-bench-lb4omp"
#define SELF_RT RT_LB4OMP
#elif defined LF_BENCH_TBB
#define PROG    "lf-bench-tbb"
#define SELF_RT RT_TBB
#else
#define PROG         "lf-bench"
#define SELF_RT      RT_GOMP
#define BENCH_PARENT 1 /* lf-bench itself: it drives the rounds */
#endif
#ifndef LF_BENCH_TBB
#define BENCH_OPENMP 1 /* this program runs OpenMP loops */
#endif

static const struct runtime_desc {
    const char *prefix;  /* of its --schedules items (lf: is RT_GOMP's too) */
    const char *program; /* the child that runs its rows (lf-bench: itself) */
    const char *built;   /* when that child is built */
} runtimes[RT_COUNT] = {
    {"omp:", "lf-bench", NULL},
    {"libomp:", "lf-bench-libomp", "configure finds clang with libomp"},
    {"lb4omp:", "lf-bench-lb4omp",
     "configure --with-lb4omp=PREFIX, or a build/lb4omp made by scripts/build-lb4omp.sh"},
    {"tbb:", "lf-bench-tbb", "configure finds oneTBB: apt-get install libtbb-dev"},
    /* libomp's static loops with libloopfarm-kmp.so preloaded (LF_REPLACE=static:weighted),
     * switched off (kmp:static) or on (kmp:static,weighted) per row by lf_shim_enable. */
    {"kmp:", "lf-bench-libomp", "configure finds clang with libomp"},
};

enum sched_kind { SK_OMP, SK_LF, SK_TBB };

struct sched {
    char label[64]; /* as given: "omp:dynamic,1" */
    enum runtime rt;
    enum sched_kind kind;
    int okind;                       /* omp:, libomp:, lb4omp: an omp_sched_t */
    int chunk;                       /* the same (0: the runtime's default) */
    char env[64];                    /* non-empty: the runtime takes the schedule from
                                      * OMP_SCHEDULE=env at start-up only; a child of its own */
    int lb4omp_kind;                 /* lb4omp: the kind omp_get_schedule must answer; 0: unknown */
    int weighted;                    /* kmp: the shim's weighted static (1) or libomp's (0) */
    const char *spec;                /* lf: the spec after the prefix */
    int slot;                        /* lf: which LF_FOR_SCHED call site runs it */
    enum bench_tbb_partitioner part; /* tbb: */
    long tgrain;                     /* tbb: blocked_range's grain size */
    int skip;                        /* not run: its runtime was not built, or it needs a profile */
    char why[160];                   /* why, when parsing found it */
    int child;                       /* lf-bench: the child that runs it, -1: this process */
    int index;                       /* in the child's own list */
};

/* Copies of each child process (--procs) at most. */
#define BENCH_MAX_PROCS 8

struct config {
    int kernel;
    long n;
    long grain;
    int passes;                     /* stencil sweeps; 0 before the default applies */
    enum bench_placement placement; /* stream, stencil */
    int threads;
    struct bench_scenario sc;
    struct sched s[BENCH_MAX_SCHEDS];
    int ns;
    int reps;
    int shuffled;    /* --order shuffled: each measured round in its own order */
    int own_here;    /* --own-rows here: omp: and lf: rows (and T1) in this process */
    int procs;       /* --procs: copies of each child process, rounds rotated over them */
    int t1_all;      /* --t1-all: report every child's own sequential time */
    int t1_own;      /* --t1 own: each row against its own process's T1 */
    int execs;       /* executions of the loop per measurement */
    double stall_ms; /* --stall-ms: iteration n/2 sleeps this long (0: none) */
    enum bench_format fmt;
    const char *out;
    const char *plot;
    uint64_t seed;
    double spin_rate;
    int serve; /* a child: wait for "run I" on standard input */
    const char *hog_cores;
    char *sched_text; /* the --schedules text; the labels point into it */
};

static const char *const default_schedules =
    "omp:static,omp:dynamic,1,omp:guided,lf:dynamic,lf:guided,lf:af,lf:multi";
/* The data kernels' default: factoring without locality, with locality
 * only, with locality and staging; the staging-aware policies. */
static const char *const default_data_schedules =
    "omp:static,omp:dynamic,1,omp:guided,lf:fac2,numa=off,stage=off,lf:fac2,stage=off,lf:fac2,"
    "lf:umr,lf:rumr,lf:af";

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, PROG ": ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry '" PROG " --help'.\n");
    exit(BENCH_EXIT_USAGE);
}

static void help(void)
{
    printf(
        "Usage: " PROG " [OPTION]...\n"
        "Run one kernel under one scenario with several loop schedules, side by side,\n"
        "and report each schedule's makespan against the ideal T1 / sum(s_i).\n"
        "\n"
        "  --kernel K        spin | triangle | random | mandelbrot | spmv | calcium | graph |\n"
        "                    stream | stencil  [spin]\n"
        "                      spin: uniform cost; triangle: cost grows with i;\n"
        "                      random: log-normal costs (seeded); mandelbrot: one image row\n"
        "                      per iteration; spmv: one CSR row per iteration, power-law row\n"
        "                      lengths; calcium: one stochastic calcium-channel experiment\n"
        "                      per iteration (a parameter sweep, seed 000 section 5);\n"
        "                      graph: the triangles through vertex i of an R-MAT graph\n"
        "                      (power-law degrees; iteration cost: the sum of deg(i) + deg(u)\n"
        "                      over its neighbours u);\n"
        "                      stream, stencil: data kernels (below)    e.g. --kernel mandelbrot\n"
        "  --n N             iterations of the loop [sized so T1 is ~100 ms]   e.g. --n 200000\n"
        "  --grain G         the kernel's size knob:                            e.g. --grain 500\n"
        "                      spin, triangle, random: mean ns of arithmetic per iteration\n"
        "                      (calibrated at start) [500]; mandelbrot: escape limit [256];\n"
        "                      spmv: mean nonzeros per row [32]; calcium: time steps of\n"
        "                      100 channels per experiment [100]; graph: mean degree [16];\n"
        "                      stream, stencil: doubles\n"
        "                      per iteration (one block of the input) [512, 4 KiB]\n"
        "  --threads T       team size [the number of cores; oversub: twice that]\n"
        "                      thread t is pinned to core t mod ncores     e.g. --threads 2\n"
        "  --scenario S      dedicated | hog | biglittle | varying | oversub  [dedicated]\n"
        "                      hog: a spinning process on each --hog-cores core, for the run;\n"
        "                      biglittle: the last --little threads pay --factor x per\n"
        "                      iteration; varying: a process on --hog-cores that spins for\n"
        "                      --duty of every --period-ms; oversub: more threads than cores\n"
        "                      e.g. --scenario hog\n"
        "  --hog-cores LIST  CPUs that carry a background process [the last CPU]\n"
        "                      (a CPU listed twice carries two)             e.g. --hog-cores 0,1\n"
        "  --little L        biglittle: number of little threads [1]       e.g. --little 1\n"
        "  --factor F        biglittle: integer cost factor of a little thread [3]\n"
        "                                                                 e.g. --factor 3\n"
        "  --period-ms P     varying: on+off period of the background process [50]\n"
        "  --duty D          varying: fraction of the period it is on [0.5]  e.g. --duty 0.25\n"
        "  --placement P     stream, stencil: where the input lies  node0 | blocked  [node0]\n"
        "                      node0: all on NUMA domain 0; blocked: domain d holds the d-th\n"
        "                      of equal ranges of blocks (lf_numa_place)\n"
        "                                                         e.g. --placement blocked\n"
        "  --passes P        stencil: Jacobi sweeps per iteration, each re-reading the block\n"
        "                      (and the halo: P doubles each side) [4]      e.g. --passes 8\n"
        "  --schedules LIST  schedules to compare [%s]\n"
        "                      omp:KIND[,CHUNK]  the compiler's runtime: schedule(runtime) set\n"
        "                                        by omp_set_schedule; KIND static | dynamic |\n"
        "                                        guided | auto\n"
        "                      lf:SPEC           loopfarm, LF_FOR_SCHED(i, 0, n, 1, SPEC)\n"
        "                      libomp:KIND[,CHUNK]  LLVM's runtime (lf-bench-libomp); KIND\n"
        "                                        static | dynamic | guided | auto | static_steal\n"
        "                      lb4omp:TECH[,CHUNK]  LB4OMP (lf-bench-lb4omp, loops written\n"
        "                                        schedule(monotonic:runtime), OMP_SCHEDULE=TECH\n"
        "                                        in a process of its own); TECH static |\n"
        "                                        dynamic | guided | trapezoidal | static_steal\n"
        "                                        | fac2 | fac2a | fac2b | wf | awf | awf_b |\n"
        "                                        awf_c | awf_d | awf_e | af | af_a | pls | tfss\n"
        "                                        | mfsc | fiss | viss | rnd | auto[,SELECTOR];\n"
        "                                        fsc | tap | fac | faca | bold need\n"
        "                                        KMP_PROFILE_DATA=FILE (a profiling run's);\n"
        "                                        rnd without CHUNK hands out 1 iteration;\n"
        "                                        KMP_CPU_SPEED (from /proc/cpuinfo) and\n"
        "                                        KMP_FISS_STAGES (>= 2) are set unless given\n"
        "                      tbb:PART[,GRAIN]  oneTBB parallel_for (lf-bench-tbb) over a\n"
        "                                        blocked_range of grain size GRAIN [1]; PART\n"
        "                                        auto | simple | affinity | static (the\n"
        "                                        partitioner; affinity's is kept per row)\n"
        "                      kmp:static[,weighted]  a schedule(static) loop under LLVM's libomp\n"
        "                                        (lf-bench-libomp) with libloopfarm-kmp.so\n"
        "                                        preloaded, LF_REPLACE=static:weighted: libomp's\n"
        "                                        even split (kmp:static, the shim switched off)\n"
        "                                        or the shim's split by measured speed; both\n"
        "                                        rows run in one child (LF_BENCH_KMP_SHIM: the\n"
        "                                        shim's path, else found beside the child)\n"
        "                      An item starts at omp:, lf:, libomp:, lb4omp:, tbb: or kmp: and\n"
        "                      runs to the next one, so a chunk's comma needs no quoting.  At\n"
        "                      most %d.\n"
        "                      e.g. --schedules omp:static,omp:dynamic,1,lf:multi,lf:dynamic,8\n"
        "  --reps R          measured rounds after one warm-up round [5]    e.g. --reps 9\n"
        "  --order O         shuffled: every measured round runs the rows in an order of\n"
        "                      its own, drawn from --seed, so that no row always follows\n"
        "                      the same one (a row can pay for the one before it: see\n"
        "                      below); given: every round in the order of --schedules\n"
        "                      [shuffled]                              e.g. --order given\n"
        "  --own-rows W      where the omp: and lf: rows and T1 run: child: in a child\n"
        "                      process of this program, started like the peers' (every\n"
        "                      row then runs in a fresh process built the same way);\n"
        "                      here: in lf-bench's own process, which also calibrates,\n"
        "                      builds the reference and drives the rounds [child]\n"
        "                                                             e.g. --own-rows here\n"
        "  --procs K         start every child process K times (at most %d); measured\n"
        "                      round r runs each row in copy (r - 1) mod K, the warm-up\n"
        "                      round in every copy, so that a row's median spans K\n"
        "                      processes (on memory-bound kernels one process of a\n"
        "                      runtime can run 2-6 %% apart from another); with\n"
        "                      LF_TRACE, put %%p in its name to keep the copies' traces\n"
        "                      apart (--plot draws the first copy's) [1]  e.g. --procs 3\n"
        "  --t1 W            which T1 a row's ideal derives from.  own: every process\n"
        "                      times the sequential run itself, before and after the\n"
        "                      rounds, and each measurement counts against the T1 of\n"
        "                      the process that ran it (one process of a program can run\n"
        "                      a memory-bound kernel 10-20 %% slower than another, T1 and\n"
        "                      rows alike: doc/benchmarks-method.md); stderr lists\n"
        "                      each process's T1.  one: every row against the one T1 of\n"
        "                      the process that runs the omp: and lf: rows [own]\n"
        "                                                                e.g. --t1 one\n"
        "  --t1-all          with --t1 one: still time the sequential run in every\n"
        "                      process and list it on stderr (rows keep the one T1)\n"
        "  --execs E         executions of the loop per measurement, back to back at the\n"
        "                      same call site, so that what a schedule learns across\n"
        "                      executions shows [1]                         e.g. --execs 10\n"
        "  --stall-ms MS     iteration n/2 of every execution sleeps MS ms inside its body,\n"
        "                      on whichever thread runs it (a thread stalled half-way); T1\n"
        "                      does not stall, and the ideal becomes (T1 + MS) / sum(s_i):\n"
        "                      at best the others absorb the stall's length of work [0]\n"
        "                                                               e.g. --stall-ms 100\n"
        "  --format F        table | csv | json  [table]                    e.g. --format csv\n"
        "  --out FILE        write the --format output to FILE (the table still goes to\n"
        "                      standard output)                         e.g. --out run.json\n"
        "  --plot DIR        write DIR/efficiency.png (and, when LF_TRACE=FILE is set, chunk\n"
        "                      timelines DIR/trace-SCHEDULE.png, with the cost profile\n"
        "                      that auto learned, from FILE.profile, beside them) with\n"
        "                      gnuplot                                  e.g. --plot plots\n"
        "  --seed S          seed of the random kernels [42]\n"
        "  --spin-rate R     spin steps per ns instead of calibrating (lf-bench passes its\n"
        "                      own to its children so all do the same work)\n"
        "  --serve           run schedules on request from standard input (how lf-bench\n"
        "                      runs its children; not for interactive use)\n"
        "  --mpi             run across MPI ranks instead: mpirun -np P lf-bench --mpi ...\n"
        "                      (lf-bench-mpi, built when configure finds MPI; its options:\n"
        "                      lf-bench --mpi --help)\n"
        "  --help            this text\n"
        "\n"
        "Columns: median/min/max makespan of the rounds (s), as measured; T1 = the\n"
        "fastest sequential run on an unloaded core, before and after the rounds, in the\n"
        "process that ran the row (--t1 own; with --procs, each round against its own\n"
        "copy's T1, and ideal = eff x median); ideal = T1 / sum(s_i) with\n"
        "s_i = 1 for a dedicated core, 1/(k+1) on a core shared with k busy processes,\n"
        "1/f for a little thread, duty/2 + (1 - duty) on the varying core, and each\n"
        "thread's share when threads outnumber cores; eff = ideal / median; chunks =\n"
        "contiguous runs of iterations per thread, summed (median over rounds): the\n"
        "chunks handed out, except that back-to-back chunks of one thread count once, per\n"
        "execution; speedup = execs x T1 / median; vs_best = this row's eff / the\n"
        "highest eff of the run (1: the best row; the smallest median / this median when\n"
        "all rows share one T1).  CSV and JSON add t1_s, the T1 of the process that ran\n"
        "the omp: and lf: rows, and t1_own_s, the row's own.  With --execs E, a\n"
        "measurement is E executions and ideal is E x T1 / sum(s_i).  Every runtime's\n"
        "rows run in a child process of their own: libomp:, lb4omp: and tbb: rows in\n"
        "this program built against that runtime, with the same kernel code, omp: and\n"
        "lf: rows (and the first T1) in this program itself (unless --own-rows here);\n"
        "their rounds interleave (every round runs every row once), under the same\n"
        "background load, each against its own process's T1.  Every runtime keeps its\n"
        "own wait policy (a passive one made libgomp's own loops here up to 2.8 times\n"
        "slower); so that no runtime's idle threads spin while another's run, a row\n"
        "waits until the threads of the process that ran the row before it are idle (at\n"
        "most 0.5 s; stderr says when they were not).  Rounds run the rows in a shuffled\n"
        "order (--order): a row that followed the same row every round would pay for it\n"
        "every time (on a core shared with a busy process, the row after oneTBB's ran up\n"
        "to 9 %% slower).  A row whose child was not built, or that needs what is\n"
        "missing, is skipped with one line on stderr.\n"
        "Exit status: 0 ok, 2 usage error, 3 a wrong kernel result, 1 other failures.\n"
        "\n"
        "Data kernels.  The input (64 MiB by default) is allocated with lf_numa_alloc and\n"
        "placed by --placement; iteration i reads block i (--grain doubles).  stream: one\n"
        "pass, y = a x + b summed over the block; stencil: --passes Jacobi sweeps over the\n"
        "block and a halo of --passes doubles each side, every sweep re-reading the input\n"
        "(reuse = passes).  lf: rows run LF_FOR_DATA with the input declared (one block an\n"
        "element, a halo of one block for stencil; home learned from the pages), so that\n"
        "numa=on takes chunks near their data and stage=on copies a remote chunk to the\n"
        "thread's domain first.  Remote cost: every schedule charges the same way, block\n"
        "by block: each iteration calls lf_numa_charge(address read, bytes read) once per\n"
        "pass, on the address it actually reads (the input in place, or the staged copy),\n"
        "so under LF_FAKE_NUMA=N[,lat=NS][,gbps=G] a remote read waits lat + bytes/G ns\n"
        "per block and pass, a staged chunk once (inside the library, for the whole chunk\n"
        "and its halo), and local data nothing.  Without fake NUMA, real memory costs for\n"
        "itself.  T1 reads a copy on the T1 thread's domain: ideal = T1 of all-local data /\n"
        "sum(s_i).  Under the table, per schedule: the fraction of iterations that read\n"
        "remote data in place (remote) or a staged copy (staged), and the ms the kernel's\n"
        "reads waited, summed over threads (wait_ms; staging's own waits not included).\n"
        "Default schedules for them: %s\n"
        "\n"
        "Examples:\n"
        "  " PROG " --kernel spin --grain 500 --threads 2 --scenario hog \\\n"
        "      --schedules omp:static,omp:dynamic,1,omp:guided,lf:dynamic --reps 5\n"
        "  LF_FAKE_NUMA=2 LF_BIND=close " PROG " --kernel stencil --placement node0 \\\n"
        "      --threads 2 --reps 5 --schedules \\\n"
        "      omp:dynamic,1,lf:fac2,numa=off,stage=off,lf:fac2,stage=off,lf:fac2,lf:rumr\n",
        default_schedules, BENCH_MAX_SCHEDS, BENCH_MAX_PROCS, default_data_schedules);
    char buf[4096];
    if (lf_schedule_help(buf, sizeof buf) > 0)
        printf("\nloopfarm schedules (lf:SPEC):\n%s", buf);
}

/* ---- Option values ---- */

/* Parse v as an integer in [min, max] exactly: decimal digits with an
 * optional sign, optionally followed by a power of ten ("2e5"); anything
 * else, or a value out of range, is a usage error naming opt. */
static long parse_long(const char *opt, const char *v, long min, long max)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    int ok = errno == 0 && end != v && (*v == '-' || *v == '+' || (*v >= '0' && *v <= '9'));
    if (ok && (*end == 'e' || *end == 'E')) {
        const char *e = end + 1;
        errno = 0;
        long p = strtol(e, &end, 10);
        ok = errno == 0 && end != e && *e >= '0' && *e <= '9' && p <= 18;
        for (long j = 0; ok && j < p; j++) {
            if (x > LONG_MAX / 10 || x < LONG_MIN / 10)
                ok = 0;
            else
                x *= 10;
        }
    }
    if (!ok || *end || x < min || x > max)
        usage_error("%s: '%s' is not an integer in [%ld, %ld]", opt, v, min, max);
    return x;
}

/* v as one of two words: 0 for no, 1 for yes; anything else is a usage
 * error naming opt. */
static int parse_either(const char *opt, const char *v, const char *no, const char *yes)
{
    if (strcmp(v, no) == 0)
        return 0;
    if (strcmp(v, yes) != 0)
        usage_error("%s: '%s' is not '%s' or '%s'", opt, v, yes, no);
    return 1;
}

static double parse_double(const char *opt, const char *v, double min, double max)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (errno || end == v || *end || !(d >= min && d <= max))
        usage_error("%s: '%s' is not a number in [%g, %g]", opt, v, min, max);
    return d;
}

/* The runtime whose prefix (or lf:) starts p, or -1. */
static int prefix_at(const char *p)
{
    if (strncmp(p, "lf:", 3) == 0)
        return RT_GOMP;
    for (int r = 0; r < RT_COUNT; r++)
        if (strncmp(p, runtimes[r].prefix, strlen(runtimes[r].prefix)) == 0)
            return r;
    return -1;
}

/* Split "NAME[,NUMBER]" (body) into name[len] and *num (0 when absent;
 * NUMBER parsed as an integer in [1, INT_MAX], a usage error naming what
 * otherwise). */
static void split_item(const struct sched *s, const char *body, char *name, size_t len, int *num)
{
    const char *comma = strchr(body, ',');
    size_t l = comma ? (size_t)(comma - body) : strlen(body);
    if (l >= len)
        l = len - 1;
    memcpy(name, body, l);
    name[l] = 0;
    *num = comma ? (int)parse_long(s->label, comma + 1, 1, INT_MAX) : 0;
}

/* Parse "KIND[,CHUNK]" of an omp: or libomp: item into s. */
static void parse_omp_kind(struct sched *s, const char *body)
{
    char kind[32];
    int libomp = s->rt == RT_LIBOMP;
    split_item(s, body, kind, sizeof kind, &s->chunk);
    if (strcmp(kind, "static") == 0)
        s->okind = omp_sched_static;
    else if (strcmp(kind, "dynamic") == 0)
        /* monotonic: libomp runs a nonmonotonic dynamic as static stealing */
        s->okind = omp_sched_dynamic | (int)omp_sched_monotonic;
    else if (strcmp(kind, "guided") == 0)
        s->okind = omp_sched_guided;
    else if (strcmp(kind, "auto") == 0)
        s->okind = omp_sched_auto;
    else if (libomp && strcmp(kind, "static_steal") == 0) {
        /* libomp 14 rejects its kmp_sched_static_steal (102) in
         * omp_set_schedule; only OMP_SCHEDULE=static_steal selects it. */
        if (s->chunk > 0)
            snprintf(s->env, sizeof s->env, "static_steal,%d", s->chunk);
        else
            snprintf(s->env, sizeof s->env, "static_steal");
    } else
        usage_error("--schedules: unknown kind '%s' in '%s'; accepted: static, dynamic, guided, "
                    "auto%s, each optionally followed by ,CHUNK",
                    kind, s->label, libomp ? ", static_steal" : " (static_steal: use libomp:)");
}

/* LB4OMP's techniques by their OMP_SCHEDULE names, with the kmp_sched_t
 * value that its omp_get_schedule answers for each (0: it has none, and
 * asking aborts), and whether the technique reads a profile
 * (KMP_PROFILE_DATA) that it cannot run without.  The values are those of
 * LB4OMP's kmp.h (enum kmp_sched) at master bd45b1e. */
static const struct lb4omp_tech {
    const char *name;
    int kind;
    int profile;
} lb4omp_techs[] = {
    {"static", 1, 0},        {"dynamic", 2, 0},        {"guided", 3, 0},  {"auto", 4, 0},
    {"trapezoidal", 101, 0}, {"static_steal", 102, 0}, {"fsc", 103, 1},   {"tap", 104, 1},
    {"fac", 105, 1},         {"faca", 106, 1},         {"fac2", 107, 0},  {"fac2a", 108, 0},
    {"wf", 109, 0},          {"bold", 110, 1},         {"awf_b", 111, 0}, {"awf_c", 112, 0},
    {"awf_d", 113, 0},       {"awf_e", 114, 0},        {"af", 115, 0},    {"af_a", 116, 0},
    {"awf", 118, 0},         {"pls", 119, 0},          {"tfss", 120, 0},  {"mfsc", 121, 0},
    {"fiss", 122, 0},        {"viss", 0, 0},           {"rnd", 0, 0},     {"fac2b", 0, 0},
};

/* Parse "TECH[,CHUNK]" of an lb4omp: item into s: LB4OMP takes it from
 * OMP_SCHEDULE (its omp_set_schedule maps the kinds from 102 on to the next
 * technique, and refuses the monotonic bit). */
static void parse_lb4omp(struct sched *s, const char *body)
{
    char tech[32];
    const struct lb4omp_tech *t = NULL;
    split_item(s, body, tech, sizeof tech, &s->chunk);
    for (size_t i = 0; i < sizeof lb4omp_techs / sizeof lb4omp_techs[0]; i++)
        if (strcmp(tech, lb4omp_techs[i].name) == 0)
            t = &lb4omp_techs[i];
    if (!t) {
        char list[512] = "";
        for (size_t i = 0; i < sizeof lb4omp_techs / sizeof lb4omp_techs[0]; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     lb4omp_techs[i].name);
        usage_error("--schedules: unknown LB4OMP technique '%s' in '%s'; accepted: %s, each "
                    "optionally followed by ,CHUNK (auto: ,SELECTOR)",
                    tech, s->label, list);
    }
    const char *profile = getenv("KMP_PROFILE_DATA");
    if (t->profile && !(profile && *profile)) {
        snprintf(s->why, sizeof s->why,
                 "LB4OMP's %s needs a profile, KMP_PROFILE_DATA=FILE written by a run under "
                 "OMP_SCHEDULE=profiling",
                 tech);
        s->skip = 1;
    }
    s->lb4omp_kind = t->kind;
    if (s->chunk > 0)
        snprintf(s->env, sizeof s->env, "%s,%d", tech, s->chunk);
    else
        snprintf(s->env, sizeof s->env, "%s", tech);
}

/* Parse "PART[,GRAIN]" of a tbb: item into s. */
static void parse_tbb(struct sched *s, const char *body)
{
    static const char *const parts[] = {"auto", "simple", "affinity", "static"};
    char part[32];
    int grain;
    split_item(s, body, part, sizeof part, &grain);
    s->tgrain = grain > 0 ? grain : 1;
    for (int i = 0; i < 4; i++)
        if (strcmp(part, parts[i]) == 0) {
            s->part = (enum bench_tbb_partitioner)i;
            return;
        }
    usage_error("--schedules: unknown oneTBB partitioner '%s' in '%s'; accepted: auto, simple, "
                "affinity, static, each optionally followed by ,GRAIN",
                part, s->label);
}

/* Split the --schedules list: an item starts at a runtime's prefix or lf:
 * (at the start or after a comma) and runs to the comma before the next
 * such prefix.  A child accepts its own runtime's items only. */
static void parse_schedules(struct config *c, char *list)
{
    char *rest = list;
    int lf_slots = 0;
    c->ns = 0;
    if (!*rest && c->serve)
        return; /* the child that measures T1 only */
    if (!*rest)
        usage_error("--schedules: empty list");
    while (*rest) {
        char *p = bench_list_next(&rest, prefix_at);
        int rt = prefix_at(p);
        if (rt < 0)
            usage_error(
                "--schedules: '%s' does not start with omp:, lf:, libomp:, lb4omp:, tbb: or kmp:",
                p);
        if (c->ns == BENCH_MAX_SCHEDS)
            usage_error("--schedules: more than %d schedules", BENCH_MAX_SCHEDS);
        struct sched *s = &c->s[c->ns++];
        memset(s, 0, sizeof *s);
        if (strlen(p) >= sizeof s->label)
            usage_error("--schedules: '%s' is too long", p);
        strcpy(s->label, p);
        s->rt = (enum runtime)rt;
        s->child = -1;
        if (c->serve && s->rt != SELF_RT && !(s->rt == RT_KMP && SELF_RT == RT_LIBOMP))
            usage_error("--schedules: %s is not a schedule of " PROG, p);
        const char *body = p + strlen(runtimes[rt].prefix);
        if (strncmp(p, "lf:", 3) == 0) {
            char err[512];
            lf_schedule *ls;
            s->kind = SK_LF;
            s->spec = s->label + 3;
            if (lf_schedule_parse(s->spec, &ls, err, sizeof err) != 0)
                usage_error("--schedules: bad loopfarm schedule '%s': %s", s->spec, err);
            lf_schedule_free(ls);
            if (lf_slots == BENCH_MAX_SCHEDS)
                usage_error("--schedules: more than %d lf: schedules (one call site each)",
                            BENCH_MAX_SCHEDS);
            s->slot = lf_slots++;
        } else if (rt == RT_TBB) {
            s->kind = SK_TBB;
            parse_tbb(s, body);
        } else if (rt == RT_LB4OMP) {
            s->kind = SK_OMP;
            parse_lb4omp(s, body);
        } else if (rt == RT_KMP) {
            s->kind = SK_OMP;
            s->okind = omp_sched_static;
            if (strcmp(body, "static,weighted") == 0)
                s->weighted = 1;
            else if (strcmp(body, "static") != 0)
                usage_error("--schedules: '%s': kmp: takes static (libomp's) or static,weighted "
                            "(libloopfarm-kmp.so's)",
                            s->label);
        } else {
            s->kind = SK_OMP;
            parse_omp_kind(s, body);
        }
    }
}

/* Parse --hog-cores (CPU ids of the affinity mask) into sc. */
static void parse_hog_cores(struct bench_scenario *sc, const char *list)
{
    const char *p = list;
    sc->nhogs = 0;
    while (*p) {
        char *end;
        long cpu = strtol(p, &end, 10);
        int idx = -1;
        if (end == p || (*end && *end != ','))
            usage_error("--hog-cores: '%s' is not a comma-separated list of CPU ids", list);
        for (int i = 0; i < sc->ncores; i++)
            if (sc->cpus[i] == cpu)
                idx = i;
        if (idx < 0)
            usage_error("--hog-cores: CPU %ld is not one this process may use (0..%d)", cpu,
                        sc->cpus[sc->ncores - 1]);
        if (sc->nhogs == BENCH_MAX_HOGS)
            usage_error("--hog-cores: more than %d entries", BENCH_MAX_HOGS);
        sc->hog_core[sc->nhogs++] = idx;
        p = *end ? end + 1 : end;
    }
    if (sc->nhogs == 0)
        usage_error("--hog-cores: empty list");
}

enum {
    OPT_KERNEL = 256,
    OPT_N,
    OPT_GRAIN,
    OPT_THREADS,
    OPT_SCENARIO,
    OPT_SCHEDULES,
    OPT_REPS,
    OPT_FORMAT,
    OPT_OUT,
    OPT_PLOT,
    OPT_HOGCORES,
    OPT_LITTLE,
    OPT_FACTOR,
    OPT_PERIOD,
    OPT_DUTY,
    OPT_PLACEMENT,
    OPT_PASSES,
    OPT_SEED,
    OPT_ORDER,
    OPT_OWNROWS,
    OPT_PROCS,
    OPT_T1ALL,
    OPT_T1,
    OPT_SPINRATE,
    OPT_EXECS,
    OPT_SERVE,
    OPT_STALL,
    OPT_HELP
};

static void parse_options(struct config *c, int argc, char **argv)
{
    static const struct option opts[] = {
        {"kernel", required_argument, 0, OPT_KERNEL},
        {"n", required_argument, 0, OPT_N},
        {"grain", required_argument, 0, OPT_GRAIN},
        {"threads", required_argument, 0, OPT_THREADS},
        {"scenario", required_argument, 0, OPT_SCENARIO},
        {"schedules", required_argument, 0, OPT_SCHEDULES},
        {"reps", required_argument, 0, OPT_REPS},
        {"format", required_argument, 0, OPT_FORMAT},
        {"out", required_argument, 0, OPT_OUT},
        {"plot", required_argument, 0, OPT_PLOT},
        {"hog-cores", required_argument, 0, OPT_HOGCORES},
        {"little", required_argument, 0, OPT_LITTLE},
        {"factor", required_argument, 0, OPT_FACTOR},
        {"period-ms", required_argument, 0, OPT_PERIOD},
        {"duty", required_argument, 0, OPT_DUTY},
        {"placement", required_argument, 0, OPT_PLACEMENT},
        {"passes", required_argument, 0, OPT_PASSES},
        {"seed", required_argument, 0, OPT_SEED},
        {"order", required_argument, 0, OPT_ORDER},
        {"own-rows", required_argument, 0, OPT_OWNROWS},
        {"procs", required_argument, 0, OPT_PROCS},
        {"t1-all", no_argument, 0, OPT_T1ALL},
        {"t1", required_argument, 0, OPT_T1},
        {"spin-rate", required_argument, 0, OPT_SPINRATE},
        {"execs", required_argument, 0, OPT_EXECS},
        {"stall-ms", required_argument, 0, OPT_STALL},
        {"serve", no_argument, 0, OPT_SERVE},
        {"help", no_argument, 0, OPT_HELP},
        {0, 0, 0, 0},
    };
    char *schedules = NULL;
    int opt, scen = SCEN_DEDICATED, placement = -1;
    memset(c, 0, sizeof *c);
    c->kernel = KERNEL_SPIN;
    c->reps = 5;
    c->execs = 1;
    c->seed = 42;
    c->shuffled = 1;
    c->procs = 1;
    c->t1_own = 1;
    c->sc.little = 1;
    c->sc.factor = 3;
    c->sc.period_ms = 50;
    c->sc.duty = 0.5;
    bench_scenario_probe(&c->sc);
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case OPT_KERNEL:
            if ((c->kernel = bench_kernel_lookup(optarg)) < 0)
                usage_error("--kernel: unknown kernel '%s'; accepted: spin, triangle, random, "
                            "mandelbrot, spmv, calcium, graph, stream, stencil",
                            optarg);
            break;
        case OPT_N:
            c->n = parse_long("--n", optarg, 1, 1L << 40);
            break;
        case OPT_GRAIN:
            c->grain = parse_long("--grain", optarg, 1, 1L << 32);
            break;
        case OPT_THREADS:
            c->threads = (int)parse_long("--threads", optarg, 1, BENCH_MAX_THREADS);
            break;
        case OPT_SCENARIO:
            if ((scen = bench_scenario_lookup(optarg)) < 0)
                usage_error("--scenario: unknown scenario '%s'; accepted: dedicated, hog, "
                            "biglittle, varying, oversub",
                            optarg);
            break;
        case OPT_SCHEDULES:
            free(schedules);
            schedules = strdup(optarg);
            break;
        case OPT_REPS:
            c->reps = (int)parse_long("--reps", optarg, 1, 100000);
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "table") == 0)
                c->fmt = FORMAT_TABLE;
            else if (strcmp(optarg, "csv") == 0)
                c->fmt = FORMAT_CSV;
            else if (strcmp(optarg, "json") == 0)
                c->fmt = FORMAT_JSON;
            else
                usage_error("--format: unknown format '%s'; accepted: table, csv, json", optarg);
            break;
        case OPT_OUT:
            c->out = optarg;
            break;
        case OPT_PLOT:
            c->plot = optarg;
            break;
        case OPT_HOGCORES:
            c->hog_cores = optarg;
            break;
        case OPT_LITTLE:
            c->sc.little = (int)parse_long("--little", optarg, 0, BENCH_MAX_THREADS);
            break;
        case OPT_FACTOR:
            c->sc.factor = (int)parse_long("--factor", optarg, 1, 1000);
            break;
        case OPT_PERIOD:
            c->sc.period_ms = parse_double("--period-ms", optarg, 0.1, 1e6);
            break;
        case OPT_DUTY:
            c->sc.duty = parse_double("--duty", optarg, 0.0, 1.0);
            break;
        case OPT_PLACEMENT:
            if ((placement = bench_placement_lookup(optarg)) < 0)
                usage_error("--placement: unknown placement '%s'; accepted: node0, blocked",
                            optarg);
            break;
        case OPT_PASSES:
            c->passes = (int)parse_long("--passes", optarg, 1, 1000);
            break;
        case OPT_SEED:
            c->seed = (uint64_t)parse_long("--seed", optarg, 0, LONG_MAX);
            break;
        case OPT_ORDER:
            c->shuffled = parse_either("--order", optarg, "given", "shuffled");
            break;
        case OPT_OWNROWS:
            c->own_here = parse_either("--own-rows", optarg, "child", "here");
            break;
        case OPT_PROCS:
            c->procs = (int)parse_long("--procs", optarg, 1, BENCH_MAX_PROCS);
            break;
        case OPT_T1ALL:
            c->t1_all = 1;
            break;
        case OPT_T1:
            c->t1_own = parse_either("--t1", optarg, "one", "own");
            break;
        case OPT_SPINRATE:
            c->spin_rate = parse_double("--spin-rate", optarg, 1e-6, 1e6);
            break;
        case OPT_EXECS:
            c->execs = (int)parse_long("--execs", optarg, 1, 1000000);
            break;
        case OPT_SERVE:
            c->serve = 1;
            break;
        case OPT_STALL:
            c->stall_ms = parse_double("--stall-ms", optarg, 0.0, 1e6);
            break;
        case OPT_HELP:
        case 'h':
            help();
            exit(0);
        default:
            usage_error("unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        usage_error("unexpected argument '%s'", argv[optind]);
    c->sc.id = (enum bench_scenario_id)scen;
    if (c->grain == 0)
        c->grain = bench_kernel_default_grain(c->kernel);
    if (placement >= 0 && !bench_kernel_has_data(c->kernel))
        usage_error("--placement applies to the data kernels (stream, stencil) only");
    if (c->passes > 0 && c->kernel != KERNEL_STENCIL)
        usage_error("--passes applies to --kernel stencil only");
    c->placement = placement >= 0 ? (enum bench_placement)placement : PLACE_NODE0;
    if (c->kernel == KERNEL_STENCIL) {
        if (c->passes == 0)
            c->passes = BENCH_DEFAULT_PASSES;
        if (c->grain < c->passes)
            usage_error("--grain %ld: a stencil block must hold at least --passes (%d) doubles, "
                        "its halo's reach",
                        c->grain, c->passes);
    }
    if (bench_kernel_has_data(c->kernel) && c->grain > (1L << 24))
        usage_error("--grain %ld: at most %ld doubles per block", c->grain, 1L << 24);
    if (c->n == 0)
        c->n = bench_kernel_default_n(c->kernel, c->grain);
    if (c->stall_ms > 0) {
        bench_stall_at = c->n / 2;
        bench_stall_ns = (long)(c->stall_ms * 1e6);
    }
    if (c->threads == 0)
        c->threads = scen == SCEN_OVERSUB ? 2 * c->sc.ncores : c->sc.ncores;
    if (scen == SCEN_OVERSUB && c->threads <= c->sc.ncores)
        fprintf(stderr, PROG ": note: oversub with %d threads on %d cores is not oversubscribed\n",
                c->threads, c->sc.ncores);
    if (scen == SCEN_BIGLITTLE && c->sc.little > c->threads)
        usage_error("--little %d: more little threads than --threads %d", c->sc.little, c->threads);
    if (c->hog_cores) {
        parse_hog_cores(&c->sc, c->hog_cores);
    } else {
        c->sc.nhogs = 1;
        c->sc.hog_core[0] = c->sc.ncores - 1;
    }
    if (!schedules && !(schedules = strdup(bench_kernel_has_data(c->kernel) ? default_data_schedules
                                                                            : default_schedules)))
        usage_error("out of memory");
    c->sched_text = schedules;
    parse_schedules(c, schedules); /* the labels point into it: freed at exit */
}

/* ---- Measurement ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#ifdef BENCH_OPENMP
/* The description of a data kernel's input that its lf: loops pass:
 * one block an element, and for the stencil a halo of one block (the
 * description counts halos in elements; the stencil reaches --passes
 * doubles into each neighbour).  The home is learned from the pages. */
static void data_describe(const struct bench_kernel *k, struct lf_data *d)
{
    memset(d, 0, sizeof *d);
    d->learn = 1;
    d->ninputs = 1;
    d->in[0].base = k->xin;
    d->in[0].size = (size_t)k->grain * sizeof(double);
    d->in[0].stride = 1;
    d->in[0].halo = k->id == KERNEL_STENCIL ? 1 : 0;
}

/* The OpenMP loop of the omp:, libomp: and lb4omp: rows.  LB4OMP runs its
 * techniques only in loops marked monotonic: clang 14 marks a bare
 * schedule(runtime) nonmonotonic, which LB4OMP runs as static_steal. */
#ifdef LF_BENCH_LB4OMP
#define BENCH_OMP_FOR _Pragma("omp for schedule(monotonic : runtime)")
#else
#define BENCH_OMP_FOR _Pragma("omp for schedule(runtime)")
#endif

/* The call sites of the lf: rows, one per slot, named as a trace names
 * them ("lf-bench.c:slotK" and "lf-bench.c:dataK"); set up in main. */
static struct lf_site lf_sites[BENCH_MAX_SCHEDS], lf_sites_data[BENCH_MAX_SCHEDS];
static char lf_site_names[2][BENCH_MAX_SCHEDS][32]; /* "lf-bench.c:slot" and any int */

static void lf_sites_init(void)
{
    for (int k = 0; k < BENCH_MAX_SCHEDS; k++) {
        snprintf(lf_site_names[0][k], sizeof lf_site_names[0][k], "lf-bench.c:slot%d", k);
        snprintf(lf_site_names[1][k], sizeof lf_site_names[1][k], "lf-bench.c:data%d", k);
        lf_sites[k] = (struct lf_site)LF_SITE_INIT(lf_site_names[0][k], 0);
        lf_sites_data[k] = (struct lf_site)LF_SITE_INIT(lf_site_names[1][k], 0);
    }
}

/* Before a kmp: row: libloopfarm-kmp.so's static loops switched on (kmp:static,weighted) or
 * off (kmp:static, libomp's own) through the lf_shim_enable the preloaded shim defines; exits
 * when the process has no such shim. */
static void kmp_shim_switch(const struct sched *s)
{
    static int (*enable)(int);
    if (!enable) {
        enable = (int (*)(int))dlsym(RTLD_DEFAULT, "lf_shim_enable");
        if (!enable) {
            fprintf(stderr,
                    PROG ": %s: libloopfarm-kmp.so is not preloaded (lf-bench preloads it "
                         "for kmp: rows)\n",
                    s->label);
            exit(1);
        }
    }
    enable(s->weighted);
}

/* Run the loop once under schedule s; returns its makespan in seconds. */
static double run_parallel(const struct config *c, const struct bench_kernel *k,
                           const struct sched *s, struct bench_tally *tl)
{
    const struct bench_scenario *sc = &c->sc;
    const long n = k->n;
    const char *spec = s->spec;
    const int slot = s->slot, lf = s->kind == SK_LF, data = k->iter_at != NULL;
    const int kmp = s->rt == RT_KMP; /* a schedule(static) loop, weighted by the shim or not */
    const uintptr_t in_lo = (uintptr_t)k->xin;
    const size_t in_len = (size_t)k->n * (size_t)k->grain * sizeof(double);
    const long g = k->grain;
    struct lf_data din; /* the other kernels ignore it */
    long truns = 0, titers = 0, tremote = 0, tstaged = 0;
    uint64_t tsum = 0;
    double t0 = 0, t1 = 0, twaited = 0;
    data_describe(k, &din);
    if (kmp)
        kmp_shim_switch(s);
        /* The region runs inside an undeferred task whose run-sched-var is the
         * schedule's: the initial task keeps the value OMP_SCHEDULE gave it,
         * which is the only way to libomp's static_steal and LB4OMP's
         * techniques. */
#pragma omp task if (0) shared(truns, titers, tsum, tremote, tstaged, twaited, t0, t1, din)
    {
        if (!lf && !s->env[0])
            omp_set_schedule((omp_sched_t)s->okind, s->chunk);
        t0 = now_s();
#pragma omp parallel num_threads(c->threads)                                                       \
    reduction(+ : truns, titers, tsum, tremote, tstaged, twaited)
        {
            int t = omp_get_thread_num();
            int rep = bench_thread_factor(sc, t, c->threads);
            long next = -1, runs = 0, iters = 0, remote = 0, staged = 0;
            uint64_t sum = 0;
            double waited = 0;
            bench_bind_thread(sc, t);
            if (kmp && data) {
                /* schedule(static) as written: __kmpc_for_static_init, which the shim weights. */
#pragma omp for schedule(static)
                for (long i = 0; i < n; i++)
                    BENCH_DATA_BODY(i, k->xin + i * g);
            } else if (kmp) {
#pragma omp for schedule(static)
                for (long i = 0; i < n; i++)
                    BENCH_BODY(i);
            } else if (!lf && data) {
                /* In place: an omp: loop cannot declare its data. */
                BENCH_OMP_FOR
                for (long i = 0; i < n; i++)
                    BENCH_DATA_BODY(i, k->xin + i * g);
            } else if (lf && data) {
                /* As below, a call site per slot; the body reads block i
                 * where LF_IN says: staged, or in place. */
                LF_FOR_DATA_AT(&lf_sites_data[slot], i, 0, n, 1, spec, &din)
                BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i));
            } else if (!lf) {
                BENCH_OMP_FOR
                for (long i = 0; i < n; i++)
                    BENCH_BODY(i);
            } else {
                /* One call site per lf: schedule (loopfarm remembers what a
                 * loop learned per site, and schedules must not share that
                 * memory), all on this one line: every row runs the same
                 * machine code, so that no row gains or loses by where the
                 * compiler placed its copy of the loop (measured: up to 4 %
                 * on spmv between rows of one schedule on lines of their own). */
                LF_FOR_AT(&lf_sites[slot], i, 0, n, 1, spec)
                BENCH_BODY(i);
            }
            truns += runs;
            titers += iters;
            tsum += sum;
            tremote += remote;
            tstaged += staged;
            twaited += waited;
        }
        t1 = now_s();
    }
    double t = t1 - t0;
    tl->runs = truns;
    tl->iters = titers;
    tl->sum = tsum;
    tl->remote = tremote;
    tl->staged = tstaged;
    tl->waited = twaited;
    return t;
}
#endif

/* The sequential loop of T1 on the calling (pinned) thread, with the same
 * body as the team's loops so that fine grains cost the same in both.  A
 * data kernel reads the copy on this thread's domain: all local. */
static double run_sequential(const struct bench_kernel *k, struct bench_tally *tl)
{
    const long n = k->n;
    const int rep = 1;
    long next = -1, runs = 0, iters = 0, remote = 0, staged = 0;
    uint64_t sum = 0;
    double waited = 0;
    const uintptr_t in_lo = (uintptr_t)k->xloc; /* nothing is staged here */
    const size_t in_len = (size_t)k->n * (size_t)k->grain * sizeof(double);
    long stall_at = bench_stall_at; /* T1 is the work alone: no stall */
    bench_stall_at = -1;
    double t0 = now_s();
    if (k->iter_at) {
        for (long i = 0; i < n; i++)
            BENCH_DATA_BODY(i, k->xloc + i * k->grain);
    } else {
        for (long i = 0; i < n; i++)
            BENCH_BODY(i);
    }
    double t = now_s() - t0;
    bench_stall_at = stall_at;
    tl->runs = runs;
    tl->iters = iters;
    tl->sum = sum;
    tl->remote = remote;
    tl->staged = staged;
    tl->waited = waited;
    return t;
}

/* Check a tally of `times` executions against the sequential run's; exit
 * loudly when wrong. */
static void check_result(const struct config *c, const char *what, const struct bench_tally *ref,
                         long times, const struct bench_tally *got)
{
    if (got->iters != ref->iters * times) {
        fprintf(stderr, PROG ": WRONG RESULT: kernel %s, %s: %ld iterations ran, expected %ld\n",
                bench_kernel_name(c->kernel), what, got->iters, ref->iters * times);
        exit(BENCH_EXIT_WRONG);
    }
    if (got->sum != ref->sum * (uint64_t)times) {
        fprintf(stderr,
                PROG ": WRONG RESULT: kernel %s, %s: the checksum of the iterations' values is "
                     "%016llx, the sequential run's %016llx\n",
                bench_kernel_name(c->kernel), what, (unsigned long long)got->sum,
                (unsigned long long)(ref->sum * (uint64_t)times));
        exit(BENCH_EXIT_WRONG);
    }
}

/* One measurement of schedule s (index i of this process's list): --execs
 * executions back to back, each checked against ref; returns their summed
 * makespan, and the tallies summed in tl. */
static double measure(const struct config *c, const struct bench_kernel *k, const struct sched *s,
                      int i, const struct bench_tally *ref, struct bench_tally *tl)
{
    double total = 0;
    memset(tl, 0, sizeof *tl);
    for (int e = 0; e < c->execs; e++) {
        struct bench_tally one;
#ifdef BENCH_OPENMP
        (void)i;
        total += run_parallel(c, k, s, &one);
#else
        total += bench_tbb_run(k, &c->sc, c->threads, s->part, s->tgrain, i, &one);
#endif
        check_result(c, s->label, ref, 1, &one);
        tl->runs += one.runs;
        tl->iters += one.iters;
        tl->sum += one.sum;
        tl->remote += one.remote;
        tl->staged += one.staged;
        tl->waited += one.waited;
    }
    return total;
}

/* Start this process's team once, so that every member is pinned before
 * anything is timed. */
static void start_team(const struct config *c)
{
#ifdef BENCH_OPENMP
#pragma omp parallel num_threads(c->threads)
    {
        bench_bind_thread(&c->sc, omp_get_thread_num());
#pragma omp single
        if (omp_get_num_threads() != c->threads) {
            fprintf(stderr, PROG ": the OpenMP runtime gave %d threads, not %d\n",
                    omp_get_num_threads(), c->threads);
            exit(1);
        }
    }
#else
    if (bench_tbb_start(&c->sc, c->threads) != 0)
        exit(1);
#endif
}

/* Build the kernel on the calling thread (calibrating the spin rate unless
 * given) and its sequential reference result; exits on failure. */
static void build_kernel(const struct config *c, struct bench_kernel *k, struct bench_tally *ref,
                         double *rate)
{
    *rate = c->spin_rate > 0 ? c->spin_rate : bench_spin_calibrate(c->grain);
    int krc =
        bench_kernel_init(k, c->kernel, c->n, c->grain, c->seed, *rate, c->passes, c->placement);
    if (krc == -ENOMEM) {
        fprintf(stderr, PROG ": out of memory building kernel %s with n=%ld\n",
                bench_kernel_name(c->kernel), c->n);
        exit(1);
    } else if (krc != 0) {
        fprintf(stderr, PROG ": cannot build kernel %s (placement %s): %s\n",
                bench_kernel_name(c->kernel), bench_placement_name(c->placement), strerror(-krc));
        exit(1);
    }
    run_sequential(k, ref); /* warm-up, and the reference result */
}

/* The fastest of best and reps sequential runs, each checked. */
static double t1_runs(const struct config *c, const struct bench_kernel *k,
                      const struct bench_tally *ref, int reps, double best)
{
    for (int r = 0; r < reps; r++) {
        struct bench_tally tl;
        double t = run_sequential(k, &tl);
        check_result(c, "sequential repeat", ref, 1, &tl);
        if (t < best)
            best = t;
    }
    return best;
}

/* ---- A child: serve lf-bench's requests ---- */

/* Run this process's schedules as lf-bench asks, on standard input: "run I"
 * measures schedule I once and answers "T RUNS ITERS SUM REMOTE STAGED
 * WAITED" (seconds; the tally of its executions); "t1 R" answers the
 * fastest of R sequential runs (seconds), each checked; "quit" or the end
 * of the input ends.  Before the first request: "ready ITERS SUM", the
 * reference result of the sequential run, which lf-bench compares with its
 * own. */
static int serve(const struct config *c)
{
    struct bench_kernel kern;
    struct bench_tally ref;
    double rate;
    char line[256];
    if (c->spin_rate <= 0) {
        fprintf(stderr, PROG ": --serve needs --spin-rate (lf-bench passes its own)\n");
        return BENCH_EXIT_USAGE;
    }
    bench_bind_thread(&c->sc, 0);
    build_kernel(c, &kern, &ref, &rate);
    start_team(c);
#ifdef LF_BENCH_LB4OMP
    /* LB4OMP's kinds and names do not line up everywhere: check that the
     * technique OMP_SCHEDULE named is the one that runs. */
    for (int i = 0; i < c->ns; i++) {
        omp_sched_t kind;
        int chunk;
        if (c->s[i].lb4omp_kind == 0)
            continue; /* LB4OMP's omp_get_schedule aborts on these */
        omp_get_schedule(&kind, &chunk);
        if (((int)kind & ~(int)omp_sched_monotonic) != c->s[i].lb4omp_kind) {
            fprintf(stderr,
                    PROG ": %s: LB4OMP selected schedule kind %d, not %d (OMP_SCHEDULE=%s)\n",
                    c->s[i].label, (int)kind, c->s[i].lb4omp_kind, getenv("OMP_SCHEDULE"));
            return 1;
        }
    }
#endif
    printf("ready %ld %llu\n", ref.iters, (unsigned long long)ref.sum);
    fflush(stdout);
    while (fgets(line, sizeof line, stdin)) {
        int i;
        struct bench_tally tl;
        if (strncmp(line, "quit", 4) == 0)
            break;
        if (sscanf(line, "t1 %d", &i) == 1 && i > 0) {
            printf("%.9g\n", t1_runs(c, &kern, &ref, i, 1e300));
            fflush(stdout);
            continue;
        }
        if (sscanf(line, "run %d", &i) != 1 || i < 0 || i >= c->ns) {
            fprintf(stderr, PROG ": bad request '%s'\n", line);
            return 1;
        }
        double t = measure(c, &kern, &c->s[i], i, &ref, &tl);
        printf("%.9g %ld %ld %llu %ld %ld %.9g\n", t, tl.runs, tl.iters, (unsigned long long)tl.sum,
               tl.remote, tl.staged, tl.waited);
        fflush(stdout);
    }
#ifndef BENCH_OPENMP
    bench_tbb_stop();
#endif
    bench_kernel_free(&kern);
    return 0;
}

/* ---- lf-bench: the children of the peer rows ---- */

#ifdef BENCH_PARENT
static int progress_on;

static void progress(const char *fmt, ...)
{
    if (!progress_on)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K" PROG ": ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

static void progress_done(void)
{
    if (progress_on)
        fprintf(stderr, "\r\033[K");
}

/* A row from its rounds: times[r] measured in a process whose T1 is t1s[r]
 * (all t1 under --t1 one).  Each time counts against its own process's T1:
 * scaled to t1 by (t1 + stall) / (t1s[r] + stall), the efficiency is the
 * ideal of t1 over the median of the scaled times, and the row's ideal (and
 * its own T1) is what that efficiency makes of the median as measured: with
 * one process per row, exactly that process's.  Sorts times and chunks;
 * t1s becomes the scaled times. */
static void fill_row(const struct config *c, struct bench_row *r, const char *label, double *times,
                     double *t1s, double *chunks, int reps, double t1, double sum_speeds)
{
    memset(r, 0, sizeof *r);
    snprintf(r->kernel, sizeof r->kernel, "%s", bench_kernel_name(c->kernel));
    r->n = c->n;
    r->grain = c->grain;
    r->threads = c->threads;
    snprintf(r->scenario, sizeof r->scenario, "%s", bench_scenario_name(c->sc.id));
    snprintf(r->schedule, sizeof r->schedule, "%s", label);
    r->execs = c->execs;
    /* A stalled iteration (--stall-ms) idles its thread: the others can at
     * best share the work of the stall's length on top of T1. */
    double stall = c->stall_ms * 1e-3;
    double *scaled = t1s;
    for (int k = 0; k < reps; k++)
        scaled[k] = times[k] * (t1 + stall) / (t1s[k] + stall);
    r->median = bench_median(times, reps);
    r->min = times[0];
    r->max = times[reps - 1];
    r->t1 = t1;
    r->efficiency = c->execs * (t1 + stall) / sum_speeds / bench_median(scaled, reps);
    r->ideal = r->efficiency * r->median;
    r->t1_own = r->ideal * sum_speeds / c->execs - stall;
    r->speedup = c->execs * r->t1_own / r->median;
    r->chunks = chunks ? (long)(bench_median(chunks, reps) / c->execs + 0.5) : -1;
}

/* Rows after which a process's threads did not go idle within
 * SETTLE_MAX_NS (unsettled), or /proc could not tell (blind). */
struct settling {
    int unsettled, blind;
};

struct child {
    enum runtime rt;
    char env[64]; /* OMP_SCHEDULE for it; empty: none */
    char list[BENCH_MAX_SCHEDS * 65];
    int pid;
    FILE *to, *from;
    struct settling settled; /* how waiting for its threads went */
    double t1;               /* its fastest sequential run so far (s); 0: none */
};

/* children[m * nbase + j] is copy m of child j (--procs); copy 0 of the
 * child of lf-bench's own program measures T1. */
static struct child children[(BENCH_MAX_SCHEDS + 1) * BENCH_MAX_PROCS];
static int nchildren, nbase;

/* Path of a child program: $LF_BENCH_<RUNTIME> (LF_BENCH_LIBOMP,
 * LF_BENCH_LB4OMP, LF_BENCH_TBB), else beside this program (or beside the
 * libtool wrapper when this is bench/.libs/lt-lf-bench); 0 when it is
 * there and executable. */
/* The program name installed next to this one (or where LF_BENCH_SUFFIX
 * says, SUFFIX the part after "lf-bench-" in capitals): 0 with its path,
 * -1 when there is none. */
static int find_program(const char *name, char *path, size_t len)
{
    char var[32], self[4096];
    snprintf(var, sizeof var, "LF_BENCH_%s", name + strlen("lf-bench-"));
    for (char *v = var; *v; v++)
        *v = (char)(*v >= 'a' && *v <= 'z' ? *v - 'a' + 'A' : *v);
    const char *env = getenv(var);
    if (env && *env) {
        snprintf(path, len, "%s", env);
        return access(path, X_OK) == 0 ? 0 : -1;
    }
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l <= 0)
        return -1;
    self[l] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return -1;
    *slash = 0;
    size_t dl = strlen(self);
    if (dl >= 6 && strcmp(self + dl - 6, "/.libs") == 0) {
        snprintf(path, len, "%.*s/%s", (int)(dl - 6), self, name);
        if (access(path, X_OK) == 0)
            return 0;
    }
    snprintf(path, len, "%s/%s", self, name);
    return access(path, X_OK) == 0 ? 0 : -1;
}

/* The program of runtime rt's child: lf-bench's own rows run in this very
 * program (as the kernel's /proc/self/exe, not the libtool wrapper). */
static int find_child_program(enum runtime rt, char *path, size_t len)
{
    if (rt == RT_GOMP) {
        ssize_t l = readlink("/proc/self/exe", path, len - 1);
        if (l <= 0)
            return -1;
        path[l] = 0;
        return 0;
    }
    return find_program(runtimes[rt].program, path, len);
}

/* The libloopfarm-kmp.so that kmp: rows preload: $LF_BENCH_KMP_SHIM, else the build tree's
 * (.libs beside the child's directory) or the installed one (lib beside it); 0 with its path,
 * -1 when there is none. */
static int find_kmp_shim(char *path, size_t len)
{
    const char *env = getenv("LF_BENCH_KMP_SHIM");
    if (env && *env) {
        snprintf(path, len, "%s", env);
        return access(path, R_OK) == 0 ? 0 : -1;
    }
    char prog[4096];
    if (find_child_program(RT_KMP, prog, sizeof prog) != 0)
        return -1;
    char *slash = strrchr(prog, '/');
    if (!slash)
        return -1;
    *slash = 0;
    static const char *const beside[] = {"../.libs", "../lib"};
    for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
        int k = snprintf(path, len, "%s/%s/libloopfarm-kmp.so", prog, beside[i]);
        if (k > 0 && (size_t)k < len && access(path, R_OK) == 0)
            return 0;
    }
    return -1;
}

#ifdef BENCH_PARENT
/* lf-bench --mpi ...: this process becomes lf-bench-mpi (built with
 * libloopfarm-mpi), each rank of `mpirun -np P lf-bench --mpi` alike. */
static void __attribute__((noreturn)) become_mpi(char **argv)
{
    char path[4096];
    if (find_program("lf-bench-mpi", path, sizeof path) != 0) {
        fprintf(stderr,
                PROG ": --mpi: lf-bench-mpi is not installed next to lf-bench "
                     "(configure builds it when it finds MPI) and LF_BENCH_MPI names none\n");
        exit(BENCH_EXIT_USAGE);
    }
    execv(path, argv);
    fprintf(stderr, PROG ": --mpi: cannot run %s: %s\n", path, strerror(errno));
    exit(BENCH_EXIT_USAGE);
}
#endif

/* The TSC frequency in MHz as LB4OMP's KMP_CPU_SPEED wants it: the first
 * "cpu MHz" of /proc/cpuinfo (on this x86 the TSC runs at the nominal
 * clock); 0 when unknown. */
static long cpu_mhz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    double mhz = 0;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0 && sscanf(strchr(line, ':') + 1, "%lf", &mhz) == 1)
            break;
    if (f)
        fclose(f);
    return (long)(mhz + 0.5);
}

/* The child of lf-bench's own program that measures T1 (and runs the
 * omp: and lf: rows), -1 under --own-rows here: this process does. */
static int t1_child = -1;

/* Group the rows into children: one per runtime (lf-bench's own rows in
 * one of this program, unless --own-rows here keeps them in this process),
 * and one of its own for each row that its runtime takes from OMP_SCHEDULE;
 * skip the rows whose child program was not built; say in one line why each
 * skipped row is.  Without --own-rows here, a child of this program
 * measures T1 even when no omp: or lf: row is given. */
static void plan_children(struct config *c)
{
    for (int i = 0; i < c->ns; i++) {
        struct sched *s = &c->s[i];
        char path[4096];
        if (s->skip)
            fprintf(stderr, PROG ": %s skipped: %s\n", s->label, s->why);
        if (s->skip || (s->rt == RT_GOMP && c->own_here))
            continue;
        if (find_child_program(s->rt, path, sizeof path) != 0) {
            fprintf(stderr, PROG ": %s skipped: %s was not built (it is when %s)\n", s->label,
                    runtimes[s->rt].program, runtimes[s->rt].built);
            s->skip = 1;
            continue;
        }
        if (s->rt == RT_KMP && find_kmp_shim(path, sizeof path) != 0) {
            fprintf(stderr,
                    PROG ": %s skipped: no libloopfarm-kmp.so beside %s and LF_BENCH_KMP_SHIM "
                         "names none\n",
                    s->label, runtimes[s->rt].program);
            s->skip = 1;
            continue;
        }
        int j = 0;
        while (j < nchildren && (children[j].rt != s->rt || s->env[0] || children[j].env[0]))
            j++;
        if (j == nchildren) {
            memset(&children[j], 0, sizeof children[j]);
            children[j].rt = s->rt;
            snprintf(children[j].env, sizeof children[j].env, "%s", s->env);
            nchildren++;
        }
        struct child *ch = &children[j];
        s->child = j;
        s->index = 0;
        for (int k = 0; k < i; k++)
            s->index += c->s[k].child == j;
        if (ch->list[0])
            strcat(ch->list, ",");
        strcat(ch->list, s->label);
    }
    if (!c->own_here) {
        for (t1_child = 0; t1_child < nchildren; t1_child++)
            if (children[t1_child].rt == RT_GOMP)
                break;
        if (t1_child == nchildren) {
            memset(&children[nchildren], 0, sizeof children[0]); /* one with no rows */
            children[nchildren++].rt = RT_GOMP;
        }
    }
    nbase = nchildren;
    for (int m = 1; m < c->procs; m++)
        for (int j = 0; j < nbase; j++)
            children[nchildren++] = children[j]; /* not started yet: no pid, no pipes */
}

/* Child j stopped answering: reap it, say how it ended, and exit with its
 * verdict (a wrong result stays a wrong result). */
static void __attribute__((noreturn)) child_failed(int j)
{
    struct child *ch = &children[j];
    int status = 0;
    if (ch->to)
        fclose(ch->to);
    ch->to = NULL;
    while (waitpid(ch->pid, &status, 0) < 0 && errno == EINTR)
        ;
    bench_child_unregister(ch->pid);
    fprintf(stderr, PROG ": %s (%s) failed (%s %d)\n", runtimes[ch->rt].program, ch->list,
            WIFEXITED(status) ? "exit status" : "signal",
            WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    exit(WIFEXITED(status) && WEXITSTATUS(status) == BENCH_EXIT_WRONG ? BENCH_EXIT_WRONG : 1);
}

/* Start child j with the same options and its schedules, in --serve mode,
 * and wait for its "ready" line; its reference result must be ours. */
static void start_child(const struct config *c, int j, double rate, const struct bench_tally *ref)
{
    struct child *ch = &children[j];
    char path[4096], a[16][64], line[256];
    char *argv[48];
    int argc = 0, na = 0, in[2], out[2];
    find_child_program(ch->rt, path, sizeof path);
    argv[argc++] = path;
    argv[argc++] = "--serve";
#define ARG(opt, fmt, val)                                                                         \
    do {                                                                                           \
        snprintf(a[na], sizeof a[0], fmt, val);                                                    \
        argv[argc++] = opt;                                                                        \
        argv[argc++] = a[na++];                                                                    \
    } while (0)
    ARG("--kernel", "%s", bench_kernel_name(c->kernel));
    ARG("--n", "%ld", c->n);
    ARG("--grain", "%ld", c->grain);
    ARG("--threads", "%d", c->threads);
    ARG("--scenario", "%s", bench_scenario_name(c->sc.id));
    ARG("--execs", "%d", c->execs);
    ARG("--seed", "%llu", (unsigned long long)c->seed);
    ARG("--spin-rate", "%.17g", rate);
    ARG("--little", "%d", c->sc.little);
    ARG("--factor", "%d", c->sc.factor);
    ARG("--period-ms", "%.17g", c->sc.period_ms);
    ARG("--duty", "%.17g", c->sc.duty);
    ARG("--stall-ms", "%.17g", c->stall_ms);
    if (bench_kernel_has_data(c->kernel))
        ARG("--placement", "%s", bench_placement_name(c->placement));
    if (c->kernel == KERNEL_STENCIL)
        ARG("--passes", "%d", c->passes);
#undef ARG
    argv[argc++] = "--schedules";
    argv[argc++] = ch->list;
    argv[argc] = NULL;

    if (pipe(in) != 0 || pipe(out) != 0) {
        perror(PROG ": pipe");
        exit(1);
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        perror(PROG ": fork");
        exit(1);
    }
    if (pid == 0) {
        cpu_set_t all;
        char mhz[32];
        prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
        if (getppid() != parent)
            _exit(1);
        /* This thread is pinned to one CPU; the child must see them all. */
        CPU_ZERO(&all);
        for (int i = 0; i < c->sc.ncores; i++)
            CPU_SET(c->sc.cpus[i], &all);
        sched_setaffinity(0, sizeof all, &all);
        if (ch->rt != RT_GOMP && ch->rt != RT_KMP)
            unsetenv("LF_TRACE"); /* it runs no lf: loop */
        if (ch->rt == RT_KMP) {
            /* The shim under libomp, taking static loops only (LF_TRACE records their ranges). */
            char shim[4096];
            if (find_kmp_shim(shim, sizeof shim) == 0)
                setenv("LD_PRELOAD", shim, 1);
            setenv("LF_REPLACE", "static:weighted", 1);
            unsetenv("LF_SCHEDULE");
        }
        if (ch->env[0])
            setenv("OMP_SCHEDULE", ch->env, 1);
        if (ch->rt == RT_LB4OMP) {
            /* LB4OMP's timers divide the TSC by it (2400 MHz if unset) */
            snprintf(mhz, sizeof mhz, "%ld", cpu_mhz());
            if (atol(mhz) > 0)
                setenv("KMP_CPU_SPEED", mhz, 0);
            /* fiss divides by stages * (stages - 1): its default, threads
             * - 1, is 1 at 2 threads */
            snprintf(mhz, sizeof mhz, "%d", c->threads - 1 < 2 ? 2 : c->threads - 1);
            setenv("KMP_FISS_STAGES", mhz, 0);
        }
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execv(path, argv);
        fprintf(stderr, PROG ": cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    bench_child_register(pid);
    close(in[0]);
    close(out[1]);
    ch->pid = pid;
    ch->to = fdopen(in[1], "w");
    ch->from = fdopen(out[0], "r");
    unsigned long long sum;
    long iters;
    if (!ch->to || !ch->from || !fgets(line, sizeof line, ch->from) ||
        sscanf(line, "ready %ld %llu", &iters, &sum) != 2)
        child_failed(j);
    if (iters != ref->iters || sum != ref->sum) {
        fprintf(stderr,
                PROG ": WRONG RESULT: kernel %s: %s's sequential run gives %ld iterations, "
                     "checksum %016llx; ours %ld, %016llx (not the same kernel?)\n",
                bench_kernel_name(c->kernel), runtimes[ch->rt].program, iters, sum, ref->iters,
                (unsigned long long)ref->sum);
        exit(BENCH_EXIT_WRONG);
    }
}

/* Have schedule s measured by child j (a copy of its child); returns the
 * makespan, the tally in tl. */
static double child_measure(int j, const struct sched *s, struct bench_tally *tl)
{
    struct child *ch = &children[j];
    char line[256];
    unsigned long long sum;
    double t;
    memset(tl, 0, sizeof *tl);
    if (fprintf(ch->to, "run %d\n", s->index) < 0 || fflush(ch->to) != 0 ||
        !fgets(line, sizeof line, ch->from) ||
        sscanf(line, "%lf %ld %ld %llu %ld %ld %lf", &t, &tl->runs, &tl->iters, &sum, &tl->remote,
               &tl->staged, &tl->waited) != 7)
        child_failed(j);
    tl->sum = sum;
    return t;
}

/* The fastest of reps sequential runs in child j, and of those it ran
 * before (kept in its t1). */
static double child_t1(int j, int reps)
{
    struct child *ch = &children[j];
    char line[256];
    double t;
    if (fprintf(ch->to, "t1 %d\n", reps) < 0 || fflush(ch->to) != 0 ||
        !fgets(line, sizeof line, ch->from) || sscanf(line, "%lf", &t) != 1)
        child_failed(j);
    if (ch->t1 == 0 || t < ch->t1)
        ch->t1 = t;
    return ch->t1;
}

/* T1: the fastest of best and reps sequential runs, in the T1 child or in
 * this process (--own-rows here). */
static double t1_measure(const struct config *c, const struct bench_kernel *k,
                         const struct bench_tally *ref, int reps, double best)
{
    if (t1_child < 0)
        return t1_runs(c, k, ref, reps, best);
    double t = child_t1(t1_child, reps);
    return t < best ? t : best;
}

/* --t1-all: the sequential run's time in every child other than the T1
 * child, before and after the rounds, so that a process that runs the
 * kernel faster or slower than the one that measured T1 shows. */
static void t1_all(int reps)
{
    for (int j = 0; j < nchildren; j++)
        if (j != t1_child)
            child_t1(j, reps);
}

static void report_t1_all(const struct config *c, double t1)
{
    fprintf(stderr, PROG ": T1 per process (s, fastest sequential run%s): %s %.4f",
            c->t1_own ? "; each row against its own process's" : "; rows keep the first",
            t1_child < 0 ? "lf-bench" : runtimes[children[t1_child].rt].program, t1);
    for (int j = 0; j < nchildren; j++)
        if (j != t1_child)
            fprintf(stderr, "; %s%s%s%s %.4f", runtimes[children[j].rt].program,
                    children[j].env[0] ? " (" : "", children[j].env, children[j].env[0] ? ")" : "",
                    children[j].t1);
    fprintf(stderr, "\n");
}

/* How many threads of process pid other than skip (0: none) are running or
 * want to run: state R in /proc/PID/task/TID/stat (a thread that ended
 * meanwhile does not count); -1 when the process's threads cannot be
 * listed. */
static int process_running(int pid, int skip)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int running = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char stat[320], line[512];
        if (e->d_name[0] == '.' || atoi(e->d_name) == skip)
            continue;
        snprintf(stat, sizeof stat, "/proc/%d/task/%.255s/stat", pid, e->d_name);
        FILE *f = fopen(stat, "r");
        if (!f)
            continue; /* the thread ended between readdir and fopen */
        /* "TID (COMM) S ...": the state follows the last ')' */
        if (fgets(line, sizeof line, f)) {
            const char *close = strrchr(line, ')');
            running += close && close[1] == ' ' && close[2] == 'R';
        }
        fclose(f);
    }
    closedir(d);
    return running;
}

/* A row is over when its loops are, but the idle threads of the process
 * that ran it may still run a while: libgomp's spin before they block, an
 * LLVM runtime's KMP_BLOCKTIME (200 ms by default), oneTBB's workers
 * looking for work.  A row of another process started beside them would
 * share its cores with them and pay for the row before.  So, between rows
 * of two processes, wait until no thread of the one that ran last (but the
 * caller's own, skip) is running or runnable, at two looks SETTLE_STEP_NS
 * apart, at most SETTLE_MAX_NS; returns the time waited (ns), -1 when that
 * ran out, -2 when /proc cannot tell.  The threads' states, not their CPU
 * time: /proc's CPU time of a thread that keeps running is brought up to
 * date only at the scheduler's tick (4 ms at HZ=250), so over a 0.5-ms step
 * a spinning libgomp worker looked idle, and the row after libgomp's ran
 * beside it (measured: a 5-ms loop of libomp's took 11.6 ms after a row of
 * libgomp's, 5.2 ms after one of oneTBB's). */
#define SETTLE_STEP_NS 500000L
#define SETTLE_MAX_NS  500000000L
static long settle(int pid, int skip)
{
    long waited = 0;
    int quiet = 0; /* consecutive looks that found no thread running */
    for (;;) {
        int running = process_running(pid, skip);
        if (running < 0)
            return -2;
        quiet = running == 0 ? quiet + 1 : 0;
        if (quiet == 2)
            return waited;
        if (waited >= SETTLE_MAX_NS)
            return -1;
        struct timespec step = {0, SETTLE_STEP_NS};
        nanosleep(&step, NULL);
        waited += SETTLE_STEP_NS;
    }
}

/* How waiting for this process's own threads went (a child's is in its
 * struct child). */
static struct settling self_settled;

/* Wait for the process that ran the last row to go idle: child j, or this
 * process when j < 0 (all its threads but the calling one). */
static void settle_after(int j)
{
    long w = j < 0 ? settle(getpid(), gettid()) : settle(children[j].pid, 0);
    struct settling *st = j < 0 ? &self_settled : &children[j].settled;
    if (w == -2)
        st->blind++;
    else if (w == -1)
        st->unsettled++;
}
/* The order of a round's rows: 0..n-1, shuffled (Fisher-Yates, drawing
 * from the splitmix64 state *draw) unless draw is NULL.  A row can pay for the row
 * before it: on a core shared with a busy process, a member that slept
 * through another process's row got less of the core for several
 * executions after it (doc/benchmarks-method.md, "Shuffled rounds"), so with one
 * order every round the same row would pay every time. */
static void round_order(int *order, int n, uint64_t *draw)
{
    for (int i = 0; i < n; i++)
        order[i] = i;
    if (!draw)
        return;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)(bench_splitmix64(draw) % (uint64_t)(i + 1));
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

/* Say where a row may have started beside another process's threads:
 * those of who, as st counted. */
static void report_settling_of(const char *who, const struct settling *st)
{
    if (st->unsettled)
        fprintf(stderr,
                PROG ": note: %s's threads still ran %ld ms after %d of its rows; the row after "
                     "each started beside them\n",
                who, SETTLE_MAX_NS / 1000000, st->unsettled);
    if (st->blind)
        fprintf(stderr,
                PROG ": note: /proc could not list %s's threads after %d of its rows: the row "
                     "after each started without waiting for them to go idle\n",
                who, st->blind);
}

static void report_settling(void)
{
    report_settling_of(PROG, &self_settled);
    for (int j = 0; j < nchildren; j++)
        report_settling_of(runtimes[children[j].rt].program, &children[j].settled);
}

/* Ask every child to end and reap it; a child that fails is an error. */
static void stop_children(void)
{
    for (int j = 0; j < nchildren; j++) {
        struct child *ch = &children[j];
        int status = 0;
        fprintf(ch->to, "quit\n");
        fclose(ch->to);
        ch->to = NULL;
        while (waitpid(ch->pid, &status, 0) < 0 && errno == EINTR)
            ;
        bench_child_unregister(ch->pid);
        fclose(ch->from);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, PROG ": %s (%s) failed at exit (%s %d)\n", runtimes[ch->rt].program,
                    ch->list, WIFEXITED(status) ? "exit status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            exit(1);
        }
    }
    nchildren = 0;
}

/* Write the rows in c->fmt to --out (or standard output) and the table to
 * standard output; 0, or -1 with a message when a write failed. */
static int write_results(const struct config *c, const struct bench_row *rows, int nrows)
{
    FILE *f = stdout;
    if (c->out && !(f = fopen(c->out, "w"))) {
        fprintf(stderr, PROG ": cannot write %s: %s\n", c->out, strerror(errno));
        return -1;
    }
    bench_write_rows(f, c->fmt, rows, nrows, 1);
    if (c->out) {
        int bad = ferror(f);
        errno = 0;
        if (fclose(f) != 0 || bad) {
            fprintf(stderr, PROG ": cannot write %s: %s\n", c->out,
                    errno ? strerror(errno) : "write error");
            return -1;
        }
        if (c->fmt != FORMAT_TABLE)
            bench_write_rows(stdout, FORMAT_TABLE, rows, nrows, 1);
    }
    return 0;
}
#endif

int main(int argc, char **argv)
{
    static struct config cfg;
    struct config *c = &cfg;

#ifdef BENCH_PARENT
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--mpi") == 0)
            become_mpi(argv);
#endif
    parse_options(c, argc, argv);
    bench_cleanup_install();
#ifdef BENCH_OPENMP
    lf_sites_init();
    omp_set_dynamic(0);
#endif
#ifndef BENCH_PARENT
    if (!c->serve)
        usage_error("this program runs the %s rows for lf-bench, which starts it with --serve; "
                    "run lf-bench --schedules %s...",
                    runtimes[SELF_RT].prefix, runtimes[SELF_RT].prefix);
    return serve(c);
#else
    struct bench_kernel kern;
    struct bench_tally ref;
    static struct bench_row rows[BENCH_MAX_SCHEDS];
    int nrows = 0;
    double rate;
    if (c->serve)
        return serve(c);
    plan_children(c);
    int nrun = 0;
    for (int i = 0; i < c->ns; i++)
        nrun += !c->s[i].skip;
    if (nrun == 0) {
        fprintf(stderr, PROG ": no schedule left to run\n");
        return BENCH_EXIT_USAGE;
    }
    progress_on = isatty(2);

    /* Calibration and T1 run on the first core, before any load starts;
     * the children build their kernels before T1 too. */
    bench_bind_thread(&c->sc, 0);
    build_kernel(c, &kern, &ref, &rate);
    double *times = calloc((size_t)(c->ns * c->reps) + 1, sizeof *times);
    double *chunks = calloc((size_t)(c->ns * c->reps) + 1, sizeof *chunks);
    double *t1s = calloc((size_t)(c->ns * c->reps) + 1, sizeof *t1s);
    int *whos = calloc((size_t)(c->ns * c->reps) + 1, sizeof *whos); /* who ran each */
    struct bench_data_row drows[BENCH_MAX_SCHEDS];
    int ndrows = 0;
    memset(drows, 0, sizeof drows);
    if (!times || !chunks || !t1s || !whos) {
        fprintf(stderr, PROG ": out of memory (n=%ld)\n", c->n);
        return 1;
    }
    int here = 0; /* rows this process runs (--own-rows here) */
    for (int i = 0; i < c->ns; i++)
        here += !c->s[i].skip && c->s[i].child < 0;
    for (int j = 0; j < nchildren; j++) {
        progress("starting %s (%s)", runtimes[children[j].rt].program,
                 children[j].list[0] ? children[j].list : "T1");
        start_child(c, j, rate, &ref);
    }
    if (here)
        start_team(c);
    for (int j = 0; j < nchildren; j++)
        settle_after(j); /* their teams just started */

    /* T1 stands for an unloaded core: take the fastest of its runs (noise
     * from other processes only ever slows a run), some before the rounds
     * and as many after them, so that drifting load cannot inflate it.  It
     * runs where lf-bench's own rows run: in a process started like every
     * other row's, unless --own-rows here (in one run the same static split
     * on graph ran 7-8 % faster in children than in this process;
     * doc/benchmarks-method.md, "One process per runtime"). */
    int t1_reps = c->reps < 3 ? 3 : c->reps > 5 ? 5 : c->reps;
    progress("T1 (one thread, unloaded)");
    double t1 = t1_measure(c, &kern, &ref, t1_reps, 1e300);
    int each_t1 = c->t1_all || c->t1_own; /* every process times T1 */
    if (each_t1)
        t1_all(t1_reps);

    int rc = bench_scenario_start(&c->sc);
    if (rc != 0) {
        fprintf(stderr, PROG ": cannot start scenario %s: %s\n", bench_scenario_name(c->sc.id),
                strerror(-rc));
        return 1;
    }
    /* Round 0 is the warm-up; every round runs every schedule once,
     * whichever process runs it: the warm-up in the order given (and in
     * every copy of its child), each measured round in the order given or
     * its own shuffled one, measured round r in copy (r - 1) mod --procs. */
    int order[BENCH_MAX_SCHEDS];
    uint64_t draw = c->seed;
    int last = -2; /* who ran the last row: child j, -1 this process, -2 nobody */
    for (int r = 0; r <= c->reps; r++) {
        round_order(order, c->ns, r > 0 && c->shuffled ? &draw : NULL);
        for (int k = 0; k < c->ns; k++) {
            int i = order[k];
            const struct sched *s = &c->s[i];
            struct bench_tally tl;
            double t;
            if (s->skip)
                continue;
            if (r == 0)
                progress("warm-up  %s", s->label);
            else
                progress("round %d/%d  %s", r, c->reps, s->label);
            int copies = r == 0 && s->child >= 0 ? c->procs : 1;
            int who = -1; /* a measured round's: the one copy that ran it */
            for (int m = 0; m < copies; m++) {
                int copy = r == 0 ? m : (r - 1) % c->procs;
                who = s->child < 0 ? -1 : s->child + copy * nbase;
                if (last != -2 && last != who)
                    settle_after(last);
                last = who;
                if (who < 0)
                    t = measure(c, &kern, s, i, &ref, &tl);
                else
                    t = child_measure(who, s, &tl);
                check_result(c, s->label, &ref, c->execs, &tl);
            }
            if (r > 0) {
                double it = (double)tl.iters * c->reps;
                times[i * c->reps + r - 1] = t;
                whos[i * c->reps + r - 1] = who;
                chunks[i * c->reps + r - 1] = (double)tl.runs;
                drows[i].remote += (double)tl.remote / it;
                drows[i].staged += (double)tl.staged / it;
                drows[i].wait_ms += tl.waited * 1e-6 / c->reps / c->execs;
            }
        }
    }
    bench_scenario_stop();
    if (last != -2)
        settle_after(last); /* T1 again, beside nobody's idle threads */
    report_settling();
    progress("T1 again");
    t1 = t1_measure(c, &kern, &ref, t1_reps, t1);
    if (each_t1) {
        t1_all(t1_reps);
        if (c->t1_all || nchildren > (t1_child >= 0))
            report_t1_all(c, t1); /* with own, only when rows ran in other processes */
    }
    int lf_pid = t1_child < 0 ? getpid() : children[t1_child].pid;
    stop_children();
    progress_done();
    double sumspeeds = bench_sum_speeds(&c->sc, c->threads);
    for (int k = 0; k < c->ns * c->reps; k++) {
        int who = whos[k];
        t1s[k] = !c->t1_own || who < 0 || who == t1_child ? t1 : children[who].t1;
    }
    for (int i = 0; i < c->ns; i++)
        if (!c->s[i].skip) {
            fill_row(c, &rows[nrows++], c->s[i].label, &times[i * c->reps], &t1s[i * c->reps],
                     &chunks[i * c->reps], c->reps, t1, sumspeeds);
            drows[ndrows] = drows[i];
            snprintf(drows[ndrows].schedule, sizeof drows[0].schedule, "%s", c->s[i].label);
            ndrows++;
        }
    bench_rank_rows(rows, nrows);

    if (write_results(c, rows, nrows) != 0)
        return 1;
    if (kern.iter_at && ndrows > 0 && (c->out || c->fmt == FORMAT_TABLE)) {
        /* Under the table on standard output (never inside CSV or JSON). */
        char passes[32] = "";
        if (c->kernel == KERNEL_STENCIL)
            snprintf(passes, sizeof passes, " (%d passes)", c->passes);
        printf("\n%s%s, placement %s over %d NUMA domain%s (%s)%s\n", bench_kernel_name(c->kernel),
               passes, bench_placement_name(c->placement), lf_numa_count(),
               lf_numa_count() == 1 ? "" : "s", lf_numa_fake() ? "LF_FAKE_NUMA" : "real",
               lf_numa_count() == 1 ? ": no remote reads" : "");
        bench_write_data_rows(stdout, drows, ndrows);
    }
    if (c->plot) {
        /* Name each lf: schedule's call site as the trace does. */
        static char site[BENCH_MAX_SCHEDS][32];
        const char *sites[BENCH_MAX_SCHEDS], *labels[BENCH_MAX_SCHEDS];
        int nsites = 0;
        for (int i = 0; i < c->ns; i++)
            if (c->s[i].kind == SK_LF) {
                snprintf(site[nsites], sizeof site[0], "%s",
                         lf_site_names[kern.iter_at != NULL][c->s[i].slot]);
                sites[nsites] = site[nsites];
                labels[nsites++] = c->s[i].label;
            }
        /* The trace of the process that ran the lf: rows (LF_TRACE's %p is
         * its pid); none without LF_TRACE. */
        char trace[4096];
        int trc = lf_trace_file(lf_pid, trace, sizeof trace);
        if (trc == -ENAMETOOLONG) {
            fprintf(stderr, PROG ": LF_TRACE: the file name is too long\n");
            return 1;
        }
        if (bench_plot(c->plot, rows, nrows, trc == 0 ? trace : NULL, sites, labels, nsites) != 0)
            return 1;
    }
    bench_kernel_free(&kern);
    free(times);
    free(chunks);
    free(t1s);
    free(whos);
    free(c->sched_text);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, PROG ": cannot write standard output: %s\n", strerror(errno));
        return 1;
    }
    return 0;
#endif
}
