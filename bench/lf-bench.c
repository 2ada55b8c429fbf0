/* bench/lf-bench.c - compare parallel-for schedules on one kernel under one
 * scenario, side by side in one run.
 *
 * Procedure (DESIGN.md, "Measuring"):
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
 * Rows for libomp: schedules come from bench/lf-bench-libomp, the same
 * sources built with clang against LLVM's runtime, run as a child process
 * with the same options after this process's rounds (two OpenMP runtimes
 * cannot share a process, so those rows cannot be interleaved with ours).
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
#include <loopfarm/omp.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifdef LF_BENCH_LIBOMP
#define PROG "lf-bench-libomp"
#else
#define PROG "lf-bench"
#endif

enum sched_kind { SK_OMP, SK_LF, SK_LIBOMP };

struct sched {
    char label[64]; /* as given: "omp:dynamic,1" */
    enum sched_kind kind;
    int local;         /* 1: run in this process; 0: in lf-bench-libomp */
    omp_sched_t okind; /* omp:, libomp: */
    int chunk;         /* omp:, libomp: (0: the runtime's default) */
    int steal;         /* libomp:static_steal: set through OMP_SCHEDULE only */
    const char *spec;  /* lf: the spec after the prefix */
    int slot;          /* lf: which LF_FOR_SCHED call site runs it */
};

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
    enum bench_format fmt;
    const char *out;
    const char *plot;
    uint64_t seed;
    double spin_rate;
    int child;
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
        "  --kernel K        spin | triangle | random | mandelbrot | spmv | calcium | stream |\n"
        "                    stencil  [spin]\n"
        "                      spin: uniform cost; triangle: cost grows with i;\n"
        "                      random: log-normal costs (seeded); mandelbrot: one image row\n"
        "                      per iteration; spmv: one CSR row per iteration, power-law row\n"
        "                      lengths; calcium: one stochastic calcium-channel experiment\n"
        "                      per iteration (a parameter sweep, seed 000 section 5);\n"
        "                      stream, stencil: data kernels (below)    e.g. --kernel mandelbrot\n"
        "  --n N             iterations of the loop [sized so T1 is ~100 ms]   e.g. --n 200000\n"
        "  --grain G         the kernel's size knob:                            e.g. --grain 500\n"
        "                      spin, triangle, random: mean ns of arithmetic per iteration\n"
        "                      (calibrated at start) [500]; mandelbrot: escape limit [256];\n"
        "                      spmv: mean nonzeros per row [32]; calcium: time steps of\n"
        "                      100 channels per experiment [100]; stream, stencil: doubles\n"
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
        "                      libomp:KIND[,CHUNK]  LLVM's runtime, measured by lf-bench-libomp\n"
        "                                        in a child process after the other rows; KIND\n"
        "                                        static | dynamic | guided | auto | static_steal\n"
        "                      An item starts at omp:, lf: or libomp: and runs to the next one,\n"
        "                      so a chunk's comma needs no quoting.\n"
        "                      e.g. --schedules omp:static,omp:dynamic,1,lf:multi,lf:dynamic,8\n"
        "  --reps R          measured rounds after one warm-up round [5]    e.g. --reps 9\n"
        "  --format F        table | csv | json  [table]                    e.g. --format csv\n"
        "  --out FILE        write the --format output to FILE (the table still goes to\n"
        "                      standard output)                         e.g. --out run.json\n"
        "  --plot DIR        write DIR/efficiency.png (and, when LF_TRACE=FILE is set, chunk\n"
        "                      timelines DIR/trace-SCHEDULE.png) with gnuplot  e.g. --plot plots\n"
        "  --seed S          seed of the random kernels [42]\n"
        "  --spin-rate R     spin steps per ns instead of calibrating (lf-bench passes its\n"
        "                      own to lf-bench-libomp so both do the same work)\n"
        "  --child           print CSV rows only, no header (how lf-bench runs\n"
        "                      lf-bench-libomp; not for interactive use)\n"
        "  --help            this text\n"
        "\n"
        "Columns: median/min/max makespan of the rounds (s); T1 = the fastest sequential\n"
        "run on an unloaded core, before and after the rounds; ideal = T1 / sum(s_i) with\n"
        "s_i = 1 for a dedicated core, 1/(k+1) on a core shared with k busy processes,\n"
        "1/f for a little thread, duty/2 + (1 - duty) on the varying core, and each\n"
        "thread's share when threads outnumber cores; eff = ideal / median; chunks =\n"
        "contiguous runs of iterations per thread, summed (median over rounds): the chunks\n"
        "handed out, except that back-to-back chunks of one thread count once; speedup =\n"
        "T1 / median.  libomp: rows are measured by lf-bench-libomp (its own T1) in a child\n"
        "process after the other rows, under the same scenario.\n"
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
        default_schedules, default_data_schedules);
    char buf[4096];
    if (lf_schedule_help(buf, sizeof buf) > 0)
        printf("\nloopfarm schedules (lf:SPEC):\n%s", buf);
}

/* ---- Option values ---- */

static long parse_long(const char *opt, const char *v, long min, long max)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end); /* accepts 2e5 */
    if (errno || end == v || *end || d != floor(d) || d < min || d > max)
        usage_error("%s: '%s' is not an integer in [%ld, %ld]", opt, v, min, max);
    return (long)d;
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

static int prefix_at(const char *p)
{
    return strncmp(p, "omp:", 4) == 0 || strncmp(p, "lf:", 3) == 0 || strncmp(p, "libomp:", 7) == 0;
}

/* Parse "KIND[,CHUNK]" of an omp: or libomp: item into s. */
static void parse_omp_kind(struct sched *s, const char *body, int libomp)
{
    char kind[32];
    const char *comma = strchr(body, ',');
    size_t len = comma ? (size_t)(comma - body) : strlen(body);
    if (len >= sizeof kind)
        len = sizeof kind - 1;
    memcpy(kind, body, len);
    kind[len] = 0;
    s->chunk = 0;
    if (comma)
        s->chunk = (int)parse_long(s->label, comma + 1, 1, INT_MAX);
    if (strcmp(kind, "static") == 0)
        s->okind = omp_sched_static;
    else if (strcmp(kind, "dynamic") == 0)
        /* monotonic: libomp runs a nonmonotonic dynamic as static stealing */
        s->okind = (omp_sched_t)(omp_sched_dynamic | omp_sched_monotonic);
    else if (strcmp(kind, "guided") == 0)
        s->okind = omp_sched_guided;
    else if (strcmp(kind, "auto") == 0)
        s->okind = omp_sched_auto;
    else if (libomp && strcmp(kind, "static_steal") == 0)
        /* libomp 14 rejects its kmp_sched_static_steal (102) in
         * omp_set_schedule; only OMP_SCHEDULE=static_steal selects it. */
        s->steal = 1;
    else
        usage_error("--schedules: unknown kind '%s' in '%s'; accepted: static, dynamic, guided, "
                    "auto%s, each optionally followed by ,CHUNK",
                    kind, s->label, libomp ? ", static_steal" : " (static_steal: use libomp:)");
}

/* Split the --schedules list: an item starts at omp:, lf: or libomp: (at the
 * start or after a comma) and runs to the comma before the next such prefix. */
static void parse_schedules(struct config *c, char *list)
{
    char *p = list;
    int lf_slots = 0, steals = 0;
    c->ns = 0;
    if (!*p)
        usage_error("--schedules: empty list");
    while (*p) {
        if (!prefix_at(p))
            usage_error("--schedules: '%s' does not start with omp:, lf: or libomp:", p);
        char *q = p + 1;
        while (*q && !(q[0] == ',' && prefix_at(q + 1)))
            q++;
        char *next = *q ? q + 1 : q;
        *q = 0;
        if (c->ns == BENCH_MAX_SCHEDS)
            usage_error("--schedules: more than %d schedules", BENCH_MAX_SCHEDS);
        struct sched *s = &c->s[c->ns++];
        memset(s, 0, sizeof *s);
        if (strlen(p) >= sizeof s->label)
            usage_error("--schedules: '%s' is too long", p);
        strcpy(s->label, p);
        s->local = 1;
        if (strncmp(p, "lf:", 3) == 0) {
            char err[512];
            lf_schedule *ls;
            s->kind = SK_LF;
            s->spec = s->label + 3;
            if (lf_schedule_parse(s->spec, &ls, err, sizeof err) != 0)
                usage_error("--schedules: bad loopfarm schedule '%s': %s", s->spec, err);
            lf_schedule_free(ls);
            s->slot = lf_slots++;
        } else if (strncmp(p, "omp:", 4) == 0) {
            s->kind = SK_OMP;
#ifdef LF_BENCH_LIBOMP
            parse_omp_kind(s, p + 4, 1);
#else
            parse_omp_kind(s, p + 4, 0);
#endif
        } else {
            s->kind = SK_LIBOMP;
            parse_omp_kind(s, p + 7, 1);
            if (s->steal && ++steals > 1)
                usage_error("--schedules: at most one libomp:static_steal[,CHUNK] per run (libomp "
                            "takes it from OMP_SCHEDULE at start-up only)");
#ifndef LF_BENCH_LIBOMP
            s->local = 0;
#endif
        }
        p = next;
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
    OPT_SPINRATE,
    OPT_CHILD,
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
        {"spin-rate", required_argument, 0, OPT_SPINRATE},
        {"child", no_argument, 0, OPT_CHILD},
        {"help", no_argument, 0, OPT_HELP},
        {0, 0, 0, 0},
    };
    char *schedules = NULL;
    int opt, scen = SCEN_DEDICATED, placement = -1;
    memset(c, 0, sizeof *c);
    c->kernel = KERNEL_SPIN;
    c->reps = 5;
    c->seed = 42;
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
                            "mandelbrot, spmv, calcium, stream, stencil",
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
        case OPT_SPINRATE:
            c->spin_rate = parse_double("--spin-rate", optarg, 1e-6, 1e6);
            break;
        case OPT_CHILD:
            c->child = 1;
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

/* Fold iteration i's value v into an order-independent checksum term: the
 * loops keep no result array, so threads never share a cache line for
 * results (dynamic,1 would otherwise pay for false sharing at every
 * iteration), and a wrong, missing or repeated iteration changes the sum. */
static inline uint64_t check_term(long i, double v)
{
    uint64_t x;
    memcpy(&x, &v, sizeof x);
    x ^= (uint64_t)i * 0x9e3779b97f4a7c15ULL;
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    return x ^ (x >> 27);
}

/* One iteration as a team member runs it: a little thread repeats the work;
 * a jump in i starts a new contiguous run (a chunk). */
#define BENCH_BODY(i)                                                                              \
    do {                                                                                           \
        double v_ = k->iter(k, (i));                                                               \
        for (int r_ = 1; r_ < rep; r_++)                                                           \
            v_ = k->iter(k, (i));                                                                  \
        sum += check_term((i), v_);                                                                \
        runs += (i) != next;                                                                       \
        next = (i) + 1;                                                                            \
        iters++;                                                                                   \
    } while (0)

/* A data kernel's iteration: iteration i reads the block at blk (in place
 * or staged); it counts as remote when its reads waited (another domain's
 * data, read in place), as staged when blk is not in the placed input.  A
 * little thread repeats it, reads and waits included. */
#define BENCH_DATA_BODY(i, blk)                                                                    \
    do {                                                                                           \
        const double *b_ = (blk);                                                                  \
        double w_ = 0;                                                                             \
        double v_ = k->iter_at(k, (i), b_, &w_);                                                   \
        for (int r_ = 1; r_ < rep; r_++)                                                           \
            v_ = k->iter_at(k, (i), b_, &w_);                                                      \
        sum += check_term((i), v_);                                                                \
        runs += (i) != next;                                                                       \
        next = (i) + 1;                                                                            \
        iters++;                                                                                   \
        remote += w_ > 0;                                                                          \
        staged += (uintptr_t)b_ - in_lo >= in_len;                                                 \
        waited += w_;                                                                              \
    } while (0)

struct tally {
    long runs;
    long iters;
    uint64_t sum; /* of check_term over the iterations run */
    /* data kernels: iterations read remotely in place / from a staged
     * copy, and ns the kernel's reads waited */
    long remote, staged;
    double waited;
};

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

/* The source line of the first LF_FOR_SCHED of run_parallel: slot k's site
 * is named "lf-bench.c:(line + k)" in traces. */
static int lf_slot0_line;

/* Run the loop once under schedule s; returns its makespan in seconds. */
static double run_parallel(const struct config *c, const struct bench_kernel *k,
                           const struct sched *s, struct tally *tl)
{
    const struct bench_scenario *sc = &c->sc;
    const long n = k->n;
    const char *spec = s->spec;
    const int slot = s->slot, lf = s->kind == SK_LF, data = k->iter_at != NULL;
    const uintptr_t in_lo = (uintptr_t)k->xin;
    const size_t in_len = (size_t)k->n * (size_t)k->grain * sizeof(double);
    const long g = k->grain;
    struct lf_data din; /* the other kernels ignore it */
    long truns = 0, titers = 0, tremote = 0, tstaged = 0;
    uint64_t tsum = 0;
    double t0 = 0, t1 = 0, twaited = 0;
    data_describe(k, &din);
    /* The region runs inside an undeferred task whose run-sched-var is the
     * schedule's: the initial task keeps the value OMP_SCHEDULE gave it,
     * which is the only way to libomp's static_steal. */
#pragma omp task if (0) shared(truns, titers, tsum, tremote, tstaged, twaited, t0, t1, din)
    {
        if (!lf && !s->steal)
            omp_set_schedule(s->okind, s->chunk);
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
            if (!lf && data) {
                /* In place: an omp: loop cannot declare its data. */
#pragma omp for schedule(runtime)
                for (long i = 0; i < n; i++)
                    BENCH_DATA_BODY(i, k->xin + i * g);
            } else if (lf && data) {
                /* As below, a call site per slot; the body reads block i
                 * where LF_IN says: staged, or in place. */
                /* clang-format off */
                lf_slot0_line = __LINE__ + 2;
                switch (slot) {
                case 0: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 1: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 2: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 3: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 4: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 5: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 6: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 7: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 8: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 9: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 10: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 11: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 12: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 13: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 14: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                case 15: LF_FOR_DATA(i, 0, n, 1, spec, &din) BENCH_DATA_BODY(i, (const double *)&LF_IN(char, 0, i)); break;
                }
                /* clang-format on */
            } else if (!lf) {
#pragma omp for schedule(runtime)
                for (long i = 0; i < n; i++)
                    BENCH_BODY(i);
            } else {
                /* One call site per lf: schedule, each on its own line:
                 * loopfarm remembers what a loop learned per site, and
                 * schedules must not share that memory. */
                /* one line per case: lf_slot0_line counts them */
                /* clang-format off */
                lf_slot0_line = __LINE__ + 2;
                switch (slot) {
                case 0: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 1: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 2: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 3: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 4: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 5: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 6: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 7: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 8: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 9: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 10: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 11: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 12: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 13: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 14: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                case 15: LF_FOR_SCHED(i, 0, n, 1, spec) BENCH_BODY(i); break;
                }
                /* clang-format on */
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

/* The sequential loop of T1 on the calling (pinned) thread, with the same
 * body as the team's loops so that fine grains cost the same in both.  A
 * data kernel reads the copy on this thread's domain: all local. */
static double run_sequential(const struct bench_kernel *k, struct tally *tl)
{
    const long n = k->n;
    const int rep = 1;
    long next = -1, runs = 0, iters = 0, remote = 0, staged = 0;
    uint64_t sum = 0;
    double waited = 0;
    const uintptr_t in_lo = (uintptr_t)k->xloc; /* nothing is staged here */
    const size_t in_len = (size_t)k->n * (size_t)k->grain * sizeof(double);
    double t0 = now_s();
    if (k->iter_at) {
        for (long i = 0; i < n; i++)
            BENCH_DATA_BODY(i, k->xloc + i * k->grain);
    } else {
        for (long i = 0; i < n; i++)
            BENCH_BODY(i);
    }
    double t = now_s() - t0;
    tl->runs = runs;
    tl->iters = iters;
    tl->sum = sum;
    tl->remote = remote;
    tl->staged = staged;
    tl->waited = waited;
    return t;
}

/* Check a run's tally against the sequential run's; exit loudly when wrong. */
static void check_result(const struct config *c, const char *what, const struct tally *ref,
                         const struct tally *got)
{
    if (got->iters != ref->iters) {
        fprintf(stderr, PROG ": WRONG RESULT: kernel %s, %s: %ld iterations ran, expected %ld\n",
                bench_kernel_name(c->kernel), what, got->iters, ref->iters);
        exit(BENCH_EXIT_WRONG);
    }
    if (got->sum != ref->sum) {
        fprintf(stderr,
                PROG ": WRONG RESULT: kernel %s, %s: the checksum of the iterations' values is "
                     "%016llx, the sequential run's %016llx\n",
                bench_kernel_name(c->kernel), what, (unsigned long long)got->sum,
                (unsigned long long)ref->sum);
        exit(BENCH_EXIT_WRONG);
    }
}

/* The fastest of best and reps sequential runs, each checked. */
static double t1_runs(const struct config *c, const struct bench_kernel *k, const struct tally *ref,
                      int reps, double best)
{
    for (int r = 0; r < reps; r++) {
        struct tally tl;
        double t = run_sequential(k, &tl);
        check_result(c, "sequential repeat", ref, &tl);
        if (t < best)
            best = t;
    }
    return best;
}

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

static void fill_row(const struct config *c, struct bench_row *r, const char *label, double *times,
                     double *chunks, int reps, double t1, double sum_speeds)
{
    memset(r, 0, sizeof *r);
    snprintf(r->kernel, sizeof r->kernel, "%s", bench_kernel_name(c->kernel));
    r->n = c->n;
    r->grain = c->grain;
    r->threads = c->threads;
    snprintf(r->scenario, sizeof r->scenario, "%s", bench_scenario_name(c->sc.id));
    snprintf(r->schedule, sizeof r->schedule, "%s", label);
    r->median = bench_median(times, reps);
    r->min = times[0];
    r->max = times[reps - 1];
    r->t1 = t1;
    r->ideal = t1 / sum_speeds;
    r->efficiency = r->ideal / r->median;
    r->speedup = t1 / r->median;
    r->chunks = chunks ? (long)(bench_median(chunks, reps) + 0.5) : -1;
}

/* ---- libomp rows ---- */

#ifndef LF_BENCH_LIBOMP
/* Path of lf-bench-libomp: $LF_BENCH_LIBOMP, else beside this program (or
 * beside the libtool wrapper when this is bench/.libs/lt-lf-bench). */
static int find_libomp_driver(char *path, size_t len)
{
    const char *env = getenv("LF_BENCH_LIBOMP");
    char self[4096];
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
        snprintf(path, len, "%.*s/lf-bench-libomp", (int)(dl - 6), self);
        if (access(path, X_OK) == 0)
            return 0;
    }
    snprintf(path, len, "%s/lf-bench-libomp", self);
    return access(path, X_OK) == 0 ? 0 : -1;
}

/* Measure the libomp: schedules in lf-bench-libomp with the same options and
 * append its rows; returns the number of rows appended. */
static int run_libomp_child(const struct config *c, double spin_rate, struct bench_row *rows)
{
    char path[4096], list[BENCH_MAX_SCHEDS * 64 + 1] = "", a[16][64];
    char *argv[48];
    int argc = 0, na = 0, nrows = 0, fds[2];
    for (int i = 0; i < c->ns; i++)
        if (!c->s[i].local) {
            if (*list)
                strcat(list, ",");
            strcat(list, c->s[i].label);
        }
    if (!*list)
        return 0;
    if (find_libomp_driver(path, sizeof path) != 0) {
        fprintf(stderr, PROG ": libomp: schedules need lf-bench-libomp beside lf-bench "
                             "(built when configure finds clang with libomp)\n");
        exit(1);
    }
    argv[argc++] = path;
    argv[argc++] = "--child";
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
    ARG("--reps", "%d", c->reps);
    ARG("--seed", "%llu", (unsigned long long)c->seed);
    ARG("--spin-rate", "%.9g", spin_rate);
    ARG("--little", "%d", c->sc.little);
    ARG("--factor", "%d", c->sc.factor);
    ARG("--period-ms", "%.9g", c->sc.period_ms);
    ARG("--duty", "%.9g", c->sc.duty);
    if (bench_kernel_has_data(c->kernel))
        ARG("--placement", "%s", bench_placement_name(c->placement));
    if (c->kernel == KERNEL_STENCIL)
        ARG("--passes", "%d", c->passes);
#undef ARG
    if (c->hog_cores) {
        argv[argc++] = "--hog-cores";
        argv[argc++] = (char *)c->hog_cores;
    }
    argv[argc++] = "--schedules";
    argv[argc++] = list;
    argv[argc] = NULL;

    if (pipe(fds) != 0) {
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
        prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
        if (getppid() != parent)
            _exit(1);
        /* This thread is pinned to one CPU; the child must see them all. */
        CPU_ZERO(&all);
        for (int i = 0; i < c->sc.ncores; i++)
            CPU_SET(c->sc.cpus[i], &all);
        sched_setaffinity(0, sizeof all, &all);
        unsetenv("LF_TRACE"); /* the child runs no lf: loop; the trace is ours */
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execv(path, argv);
        fprintf(stderr, PROG ": cannot run %s: %s\n", path, strerror(errno));
        _exit(127);
    }
    bench_child_register(pid);
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char line[1024];
    while (in && fgets(line, sizeof line, in))
        if (nrows < BENCH_MAX_SCHEDS && bench_parse_csv_row(line, &rows[nrows]) == 0)
            nrows++;
    if (in)
        fclose(in);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    bench_child_unregister(pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, PROG ": lf-bench-libomp failed (%s %d)\n",
                WIFEXITED(status) ? "exit status" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        exit(WIFEXITED(status) && WEXITSTATUS(status) == BENCH_EXIT_WRONG ? BENCH_EXIT_WRONG : 1);
    }
    return nrows;
}
#endif

int main(int argc, char **argv)
{
    static struct config cfg;
    struct config *c = &cfg;
    struct bench_kernel kern;
    struct bench_row rows[BENCH_MAX_SCHEDS];
    int nrows = 0;

    parse_options(c, argc, argv);
#ifndef LF_BENCH_LIBOMP
    char libomp_path[4096];
    for (int i = 0; i < c->ns; i++)
        if (!c->s[i].local && find_libomp_driver(libomp_path, sizeof libomp_path) != 0) {
            fprintf(stderr,
                    PROG ": --schedules %s needs lf-bench-libomp, which was not built "
                         "(configure found no clang with libomp) or is not beside lf-bench\n",
                    c->s[i].label);
            return BENCH_EXIT_USAGE;
        }
#else
    for (int i = 0; i < c->ns; i++)
        if (c->s[i].steal) {
            char want[64];
            const char *have = getenv("OMP_SCHEDULE");
            if (c->s[i].chunk > 0)
                snprintf(want, sizeof want, "static_steal,%d", c->s[i].chunk);
            else
                snprintf(want, sizeof want, "static_steal");
            if (!have || strcmp(have, want) != 0) {
                /* libomp reads OMP_SCHEDULE once, when it starts */
                setenv("OMP_SCHEDULE", want, 1);
                execv("/proc/self/exe", argv);
                fprintf(stderr, PROG ": cannot re-run itself with OMP_SCHEDULE=%s: %s\n", want,
                        strerror(errno));
                return 1;
            }
        }
#endif
    progress_on = isatty(2);
    bench_cleanup_install();
    omp_set_dynamic(0);

    /* Calibration and T1 run on the first core, before any load starts. */
    bench_bind_thread(&c->sc, 0);
    double rate = c->spin_rate > 0 ? c->spin_rate : bench_spin_calibrate(c->grain);
    int krc =
        bench_kernel_init(&kern, c->kernel, c->n, c->grain, c->seed, rate, c->passes, c->placement);
    if (krc == -ENOMEM) {
        fprintf(stderr, PROG ": out of memory building kernel %s with n=%ld\n",
                bench_kernel_name(c->kernel), c->n);
        return 1;
    } else if (krc != 0) {
        fprintf(stderr, PROG ": cannot build kernel %s (placement %s): %s\n",
                bench_kernel_name(c->kernel), bench_placement_name(c->placement), strerror(-krc));
        return 1;
    }
    struct tally ref;
    int nlocal = 0;
    for (int i = 0; i < c->ns; i++)
        nlocal += c->s[i].local;
    double *times = calloc((size_t)(c->ns * c->reps) + 1, sizeof *times);
    double *chunks = calloc((size_t)(c->ns * c->reps) + 1, sizeof *chunks);
    struct bench_data_row drows[BENCH_MAX_SCHEDS];
    int ndrows = 0;
    memset(drows, 0, sizeof drows);
    if (!times || !chunks) {
        fprintf(stderr, PROG ": out of memory (n=%ld)\n", c->n);
        return 1;
    }

    /* Start the team once so every member is pinned before timing. */
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

    /* T1 stands for an unloaded core: take the fastest of its runs (noise
     * from other processes only ever slows a run), some before the rounds
     * and as many after them, so that drifting load cannot inflate it. */
    double t1 = 0;
    int t1_reps = c->reps < 3 ? 3 : c->reps > 5 ? 5 : c->reps;
    if (nlocal > 0) {
        progress("T1 (one thread, unloaded)");
        run_sequential(&kern, &ref); /* warm-up, and the reference result */
        t1 = t1_runs(c, &kern, &ref, t1_reps, 1e300);

        int rc = bench_scenario_start(&c->sc);
        if (rc != 0) {
            fprintf(stderr, PROG ": cannot start scenario %s: %s\n", bench_scenario_name(c->sc.id),
                    strerror(-rc));
            return 1;
        }
        /* Round 0 is the warm-up; schedules alternate within every round. */
        for (int r = 0; r <= c->reps; r++) {
            for (int i = 0; i < c->ns; i++) {
                const struct sched *s = &c->s[i];
                struct tally tl;
                if (!s->local)
                    continue;
                if (r == 0)
                    progress("warm-up  %s", s->label);
                else
                    progress("round %d/%d  %s", r, c->reps, s->label);
                double t = run_parallel(c, &kern, s, &tl);
                check_result(c, s->label, &ref, &tl);
                if (r > 0) {
                    times[i * c->reps + r - 1] = t;
                    chunks[i * c->reps + r - 1] = (double)tl.runs;
                    drows[i].remote += (double)tl.remote / ((double)tl.iters * c->reps);
                    drows[i].staged += (double)tl.staged / ((double)tl.iters * c->reps);
                    drows[i].wait_ms += tl.waited * 1e-6 / c->reps;
                }
            }
        }
        bench_scenario_stop();
        progress("T1 again");
        t1 = t1_runs(c, &kern, &ref, t1_reps, t1);
        progress_done();
        double sum = bench_sum_speeds(&c->sc, c->threads);
        for (int i = 0; i < c->ns; i++)
            if (c->s[i].local) {
                fill_row(c, &rows[nrows++], c->s[i].label, &times[i * c->reps],
                         &chunks[i * c->reps], c->reps, t1, sum);
                drows[ndrows] = drows[i];
                snprintf(drows[ndrows].schedule, sizeof drows[0].schedule, "%s", c->s[i].label);
                ndrows++;
            }
    }
#ifndef LF_BENCH_LIBOMP
    nrows += run_libomp_child(c, rate, rows + nrows);
#endif

    if (c->child) {
        bench_write_rows(stdout, FORMAT_CSV, rows, nrows, 0);
    } else {
        FILE *f = stdout;
        if (c->out && !(f = fopen(c->out, "w"))) {
            fprintf(stderr, PROG ": cannot write %s: %s\n", c->out, strerror(errno));
            return 1;
        }
        bench_write_rows(f, c->fmt, rows, nrows, 1);
        if (c->out) {
            fclose(f);
            if (c->fmt != FORMAT_TABLE)
                bench_write_rows(stdout, FORMAT_TABLE, rows, nrows, 1);
        }
        if (kern.iter_at && ndrows > 0 && (c->out || c->fmt == FORMAT_TABLE)) {
            /* Under the table on standard output (never inside CSV or JSON). */
            char passes[32] = "";
            if (c->kernel == KERNEL_STENCIL)
                snprintf(passes, sizeof passes, " (%d passes)", c->passes);
            printf("\n%s%s, placement %s over %d NUMA domain%s (%s)%s\n",
                   bench_kernel_name(c->kernel), passes, bench_placement_name(c->placement),
                   lf_numa_count(), lf_numa_count() == 1 ? "" : "s",
                   lf_numa_fake() ? "LF_FAKE_NUMA" : "real",
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
                    snprintf(site[nsites], sizeof site[0], "lf-bench.c:%d",
                             lf_slot0_line + c->s[i].slot);
                    sites[nsites] = site[nsites];
                    labels[nsites++] = c->s[i].label;
                }
            if (bench_plot(c->plot, rows, nrows, getenv("LF_TRACE"), sites, labels, nsites) != 0)
                return 1;
        }
    }
    bench_kernel_free(&kern);
    free(times);
    free(chunks);
    free(c->sched_text);
    return 0;
}
