/* bench/lf-sim.c - command line of the simulator: loopfarm's policies on
 * modelled platforms of up to thousands of workers, in virtual time. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "policy/fit.h"
#include "policy/rounds.h"
#include "sim/sim.h"
#include "../tools/json_str.h"

#define EXIT_USAGE 2

static const char usage_text[] =
    "usage: lf-sim (--platform FILE | --speeds LIST) --tasks N --schedule SPEC [options]\n"
    "       lf-sim --k-table [--tasks S] [--cv LIST] [--format F]\n"
    "       lf-sim --umr-mstar [--workers N] [--tasks W] [--format F]\n"
    "\n"
    "Runs one of loopfarm's real chunk-size policies (the code the OpenMP runtime\n"
    "uses) on a modelled platform in virtual time, and reports how well it balanced\n"
    "the load.  Each claimed chunk of c iterations is staged (stage_lat + c *\n"
    "bytes_per_iter / bandwidth seconds, through the master's single port with\n"
    "--staging oneport) and computed (latency + work / speed seconds, the speed\n"
    "scaled by the worker's profile over time).  Iteration costs are 1 each, or\n"
    "drawn from --cost with --seed.\n"
    "\n"
    "With NUMA domains (--nodes, or 'domains N' in the file) each iteration's input\n"
    "has a home domain (--home); only input homed elsewhere than the worker's domain\n"
    "costs anything, through that home domain's port (one transfer at a time):\n"
    "unstaged, the chunk's remote reads, --passes times bytes_per_iter / bandwidth\n"
    "per iteration, inside its compute; staged (stage=on, the chunk's home is not\n"
    "the worker's domain), one copy of stage_lat + c * bytes_per_iter / bandwidth\n"
    "before it.  Locality (numa=on): one range per domain, a worker takes from its\n"
    "own until it is empty (lib/policy/locality.h, as the runtime does).\n"
    "\n"
    "platform:\n"
    "  --platform FILE      one worker per line: speed=S [latency=A] [stage_lat=B]\n"
    "                       [bandwidth=BW] [profile=t0:f0,t1:f1,...] [count=N]\n"
    "                       [domain=D]; also 'staging oneport|free',\n"
    "                       'bytes_per_iter X', 'domains N'\n"
    "                       (see doc/lf-sim.md)\n"
    "  --speeds LIST        worker speeds in units of work per second, e.g. 1,0.5,1/3\n"
    "  --workers N          N workers cycling through the --speeds list\n"
    "  --latency S          compute latency per chunk, seconds (every worker)\n"
    "  --stage-lat S        staging latency per chunk, seconds (every worker)\n"
    "  --bandwidth B        staging bandwidth, bytes per second; 0 = unlimited\n"
    "  --bytes-per-iter X   input bytes per iteration (default 0)\n"
    "  --staging MODE       oneport (one staging at a time) or free (default)\n"
    "  --profile P          speed profile t0:f0,t1:f1,... for every worker\n"
    "  --link-profile P     the same for every worker's link: from t_j its bandwidth\n"
    "                       is f_j x bandwidth (staging, sends, results)\n"
    "  --nodes N            NUMA domains (1 to 64): the workers split in order into N\n"
    "                       equal groups; stage_lat and bandwidth are then each\n"
    "                       worker's link to the other domains' memory, and staging\n"
    "                       is oneport (per domain) unless --staging free\n"
    "  --workers-per-node K with --speeds and --nodes N: N*K workers\n"
    "two levels (ranks of threads, as lib/mpi runs a loop across MPI ranks;\n"
    "doc/lf-sim.md, \"Ranks of threads\"):\n"
    "  --threads-per-rank T every worker is a rank whose team has T threads (1 to\n"
    "                       4096), each at the worker's speed (or its line's\n"
    "                       thread_speeds=S1,S2,...; a file's threads=T does the\n"
    "                       same per line); a rank's speed is its team's sum.\n"
    "                       The rank level claims rank chunks under --rank-schedule\n"
    "                       paying --claim-ns, staging and --latency per rank\n"
    "                       chunk; each rank chunk is a sub-loop of the rank's\n"
    "                       threads under --schedule (the node level), whose\n"
    "                       memory carries from one sub-loop to the next: there\n"
    "                       auto runs each sub-loop under the plan the\n"
    "                       dispatcher would choose (dealt, own, self-scheduled\n"
    "                       or tiny, by the sub-loops' simulated times), and\n"
    "                       says how many ran under each ('plans')\n"
    "  --rank-schedule SPEC the rank level's schedule (LF_MPI_SCHEDULE's grammar;\n"
    "                       default fac2, as lib/mpi)\n"
    "  --thread-latency S   compute latency per thread chunk, seconds (every thread)\n"
    "  --thread-claim-ns NS cost of one thread claim in a rank's sub-loop, ns\n"
    "                       (default 0)\n"
    "workload and schedule:\n"
    "  --tasks N            iterations of the loop\n"
    "  --schedule SPEC      a loopfarm schedule, e.g. dynamic,1000  fac2  guided\n"
    "                       multi,k=2,cal=paper,min=1 (--list shows all)\n"
    "  --cost C             const (default) | lognormal[,sigma=0.5] | exp |\n"
    "                       uniform[,lo=0.5,hi=1.5] | linear (all mean 1)\n"
    "  --seed S             seed of the cost distribution (default 1)\n"
    "  --home H             with domains, where the input lives: blocked (default;\n"
    "                       equal ranges, domain d holds the d-th), node0 (all on\n"
    "                       domain 0) or interleave (4 KiB pages round-robin)\n"
    "  --passes K           with domains, times an iteration reads its input\n"
    "                       (default 1 stream-like; 4 stencil-like): unstaged remote\n"
    "                       chunks pay the remote read K times, staged ones once\n"
    "  schedule keys        numa=on|off (locality-aware dispatch) and stage=on|off\n"
    "                       (copy a chunk homed on another domain first); both on\n"
    "                       by default, in force with >= 2 domains and a blocked\n"
    "                       home (stage: and bytes_per_iter > 0), e.g.\n"
    "                       --schedule fac2,numa=on,stage=off; lease=on|force is\n"
    "                       not simulated: chunks run whole (a note says so)\n"
    "  --claim-ns NS        cost of one claim, ns (default 0)\n"
    "  --known              the policies start from the model's exact costs (speeds,\n"
    "                       latencies, staging) instead of calibrating, as the papers\n"
    "                       assume known parameters (not with cal=paper or memory=off)\n"
    "protocol (doc/lf-sim.md, \"Push\"):\n"
    "  --protocol P         pull (default: a worker claims a chunk when it is idle,\n"
    "                       as the runtime does) or push (a master sends chunks over\n"
    "                       one port while the workers compute; no NUMA domains)\n"
    "  --order O            push: round-robin (default; the master serves workers\n"
    "                       strictly in turn and waits for the next one) or\n"
    "                       first-ready (whoever can take a chunk first)\n"
    "  --inflight N         push: messages a worker may hold sent but not reported\n"
    "                       back, 1 to 64 (default 2: the next chunk travels while\n"
    "                       the current one computes)\n"
    "  --results D          push: each computed piece returns D times its input\n"
    "                       bytes (plus stage_lat) over the master's receive port,\n"
    "                       and the master learns of it then (default: no results)\n"
    "  --split T            push: send each chunk as two sub-chunks, the first T of\n"
    "                       it (0 < T < 1); the policy hears of the chunk when the\n"
    "                       first is computed (seed 001 eqs. 2-4)\n"
    "  --start-delay S      worker i joins at i*S seconds (or start= per worker in\n"
    "                       the platform file); both protocols\n"
    "  --window A:B         also report the CPU efficiency (useful compute, latencies\n"
    "                       excluded) inside [A, B) seconds, for streams\n"
    "output:\n"
    "  --trace FILE         per-chunk CSV: worker,seq,start,end,size (seconds;\n"
    "                       seq 0 is the calibration chunk when there is one);\n"
    "                       with domains also lo,home,remote,staged; on two levels\n"
    "                       one row per rank chunk (worker: the rank)\n"
    "  --thread-trace FILE  two levels: per-thread-chunk CSV:\n"
    "                       rank,thread,seq,start,end,lo,size\n"
    "  --format F           table (default), csv (one row per worker) or json\n"
    "  --per-worker         list every worker in the table even when there are\n"
    "                       more than 64\n"
    "  --timing             print the simulator's own run time on stderr\n"
    "  --k-table            print seed 000's installment factor k = ln(S)^CV\n"
    "                       (eq. (8), Fig. 2) over S (or only --tasks) and CV,\n"
    "                       and exit\n"
    "  --cv LIST            the CVs of --k-table (default 0,0.2,0.4,0.6,0.8,1)\n"
    "  --umr-mstar          print UMR's number of rounds M* (seed 003 eq. (9)) for N\n"
    "                       workers (--workers, default 5) and load W (--tasks,\n"
    "                       default 2000), S = 1: over alpha and beta at R = B/S = 5\n"
    "                       (Fig. 5) and over R for three (alpha, beta) (Fig. 6);\n"
    "                       with --speeds S, --latency (alpha), --stage-lat (beta),\n"
    "                       --bandwidth and --bytes-per-iter (B = bandwidth /\n"
    "                       bytes, default 1 byte) M* and chunk_0 for those values\n"
    "  --list               list the schedules\n"
    "  --help               this text\n"
    "\n"
    "Summary: makespan, ideal = total work / sum of speeds, efficiency =\n"
    "ideal / makespan, CPU efficiency = useful compute (latencies excluded) /\n"
    "(workers x makespan) (seed 001), chunks, and each worker's busy fraction\n"
    "(compute time / makespan).  On two levels: rank and thread chunks, and the\n"
    "threads' busy fractions (threads busy: their compute / (threads x makespan)).\n"
    "Bad input exits with status 2.\n"
    "\n"
    "example (seed 000, Table 1):\n"
    "  lf-sim --speeds 1,1/2,1/3,1/4 --tasks 68 \\\n"
    "         --schedule multi,k=2,cal=paper,min=1 --trace t.csv\n"
    "example (seed 001: a master pushing to 100 workers in round-robin, AS4DR's\n"
    "sub-chunks, results returned):\n"
    "  lf-sim --speeds 1e4,5e3 --workers 100 --bandwidth 1e8 --bytes-per-iter 1 \\\n"
    "         --stage-lat 1e-4 --latency 1e-4 --tasks 1e8 --protocol push \\\n"
    "         --split 0.5 --results 1 --schedule as4dr,tau=3\n"
    "example (1000 ranks x 16 threads, 64 KiB of input per iteration fetched per\n"
    "rank chunk; rank schedule af, node schedule auto):\n"
    "  lf-sim --speeds 138785 --workers 1000 --threads-per-rank 16 \\\n"
    "         --latency 7.62e-06 --bandwidth 8.90818e+09 --bytes-per-iter 65536 \\\n"
    "         --claim-ns 1012 --tasks 25e6 --rank-schedule af --schedule auto\n"
    "example (4 NUMA nodes x 16 workers, all data on node 0, a stencil staged):\n"
    "  lf-sim --speeds 5e7 --nodes 4 --workers-per-node 16 --bytes-per-iter 64 \\\n"
    "         --bandwidth 3.2e10 --stage-lat 1e-6 --home node0 --passes 4 \\\n"
    "         --tasks 4e6 --schedule af,numa=on,stage=on\n";

/* Report bad input (printf-style) and exit with status 2. */
static void __attribute__((format(printf, 1, 2), noreturn)) die_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "lf-sim: ");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(lf-sim --help explains the options)\n");
    exit(EXIT_USAGE);
}

static double opt_double(const char *opt, const char *s, double lo)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo)
        die_usage("%s %s: expected a number", opt, s);
    return v;
}

static uint64_t opt_u64(const char *opt, const char *s)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        die_usage("%s %s: expected a non-negative integer", opt, s);
    double d = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end == 'e' || *end == 'E' || *end == '.') { /* 1e6 */
        d = strtod(s, &end);
        if (*end || d < 0 || d > 1.8e19 || d != floor(d))
            die_usage("%s %s: expected a non-negative integer", opt, s);
        v = (unsigned long long)d;
    } else if (errno || *end)
        die_usage("%s %s: expected a non-negative integer", opt, s);
    return v;
}

/* ---- --k-table ---- */

/* Print k = ln(S)^CV (seed 000 eq. (8)) for each S and each CV of cvs. */
static void k_table(const char *fmt, uint64_t only_S, const double *cv, int ncv)
{
    static const double Ss[] = {3, 10, 64, 100, 1000, 9600, 1e4, 1e5, 1e6, 1e7};
    int nS = (int)(sizeof Ss / sizeof Ss[0]);
    double one[1];
    const double *S = Ss;
    if (only_S) {
        one[0] = (double)only_S;
        S = one;
        nS = 1;
    }
    if (strcmp(fmt, "csv") == 0) {
        printf("S,cv,k\n");
        for (int i = 0; i < nS; i++)
            for (int c = 0; c < ncv; c++)
                printf("%.0f,%g,%.6f\n", S[i], cv[c], lf__install_factor(S[i], cv[c]));
        return;
    }
    if (strcmp(fmt, "json") == 0) {
        printf("{\"formula\": \"k = ln(S)^CV\", \"source\": \"seed 000 eq. (8)\", \"rows\": [");
        for (int i = 0; i < nS; i++)
            for (int c = 0; c < ncv; c++)
                printf("%s\n  {\"S\": %.0f, \"cv\": %g, \"k\": %.6f}", i || c ? "," : "", S[i],
                       cv[c], lf__install_factor(S[i], cv[c]));
        printf("\n]}\n");
        return;
    }
    printf("installment factor k = ln(S)^CV (seed 000 eq. (8), Fig. 2)\n");
    printf("%10s", "S");
    for (int c = 0; c < ncv; c++)
        printf(" CV=%-6g", cv[c]);
    printf("\n");
    for (int i = 0; i < nS; i++) {
        printf("%10.0f", S[i]);
        for (int c = 0; c < ncv; c++)
            printf(" %9.4f", lf__install_factor(S[i], cv[c]));
        printf("\n");
    }
}

/* ---- --umr-mstar ---- */

/* Print M* (continuous, and the integer UMR uses) of seed 003 eq. (9) for
 * N workers of speed 1 and load W: Fig. 5's grid and Fig. 6's curves. */
static void umr_mstar(const char *fmt, double N, double W)
{
    static const double ab[][2] = {{5, 0}, {0, 5}, {5, 5}};
    int csv = strcmp(fmt, "table") != 0;
    double ms;
    int M;
    if (csv)
        printf("figure,R,alpha,beta,mstar,M\n");
    else
        printf("UMR rounds M* (seed 003 eq. (9)), N = %g, W = %g, S = 1\n"
               "Fig. 5: R = 5; rows alpha, columns beta; integer M used (M* in brackets)\n%6s",
               N, W, "a\\b");
    for (int b = 0; !csv && b <= 10; b++)
        printf(" %11d", b);
    for (int a = 0; a <= 10; a++) {
        if (!csv)
            printf("\n%6d", a);
        for (int b = 0; b <= 10; b++) {
            lf__umr_homog_chunk(N, 1, 5, a, b, W, 0, &ms, &M);
            if (csv)
                printf("5,5,%d,%d,%.6g,%d\n", a, b, ms, M);
            else
                printf(" %4d(%5.1f)", M, ms);
        }
    }
    if (!csv)
        printf("\n\nFig. 6: M against R = B/S\n%6s %14s %14s %14s\n", "R", "a=5,b=0", "a=0,b=5",
               "a=5,b=5");
    /* From R = N = 5 (theta = 1) through R = 6, where theta > 1 first caps M
     * (chunk_0 > Delta), to 80 as in the paper. */
    for (int R = 5; R <= 80; R += R < 8 ? 1 : R < 10 ? 2 : 5) {
        if (!csv)
            printf("%6d", R);
        for (int k = 0; k < 3; k++) {
            lf__umr_homog_chunk(N, 1, R, ab[k][0], ab[k][1], W, 0, &ms, &M);
            if (csv)
                printf("6,%d,%g,%g,%.6g,%d\n", R, ab[k][0], ab[k][1], ms, M);
            else
                printf("      %3d(%5.1f)", M, ms);
        }
        if (!csv)
            printf("\n");
    }
}

/* M* and the plan of UMR for one homogeneous platform: N workers of speed
 * S, compute latency alpha, staging latency beta, bandwidth B units per
 * second (B = inf: nothing to stage), load W. */
static void umr_mstar_one(const char *fmt, double N, double S, double alpha, double beta, double B,
                          double W)
{
    int M_one;
    double ms, c0 = lf__umr_homog_chunk(N, S, B, alpha, beta, W, 0, &ms, &M_one);
    if (strcmp(fmt, "table") == 0)
        printf("UMR rounds M* (seed 003 eq. (9)): N = %g, W = %g, S = %g, alpha = %g, beta = %g, "
               "B = %g (R = B/S = %g)\n  M* = %.6g, M = %d, chunk_0 = %.6g\n",
               N, W, S, alpha, beta, B, B / S, ms, M_one, c0);
    else if (strcmp(fmt, "csv") == 0)
        printf("N,W,S,alpha,beta,B,R,mstar,M,chunk0\n%g,%g,%g,%g,%g,%g,%g,%.6g,%d,%.6g\n", N, W, S,
               alpha, beta, B, B / S, ms, M_one, c0);
    else
        printf("{\"N\": %g, \"W\": %g, \"S\": %g, \"alpha\": %g, \"beta\": %g, \"B\": %g, "
               "\"R\": %g, \"mstar\": %.6g, \"M\": %d, \"chunk0\": %.6g}\n",
               N, W, S, alpha, beta, B, B / S, ms, M_one, c0);
}

/* ---- trace ---- */

struct trace {
    FILE *f;
    FILE *tf; /* --thread-trace */
    int failed;
    int numa; /* the platform has domains: four more columns */
};

static void trace_chunk(void *ctx, const struct lf__sim_chunk *c)
{
    struct trace *t = ctx;
    if (fprintf(t->f, "%d,%llu,%.9f,%.9f,%llu", c->worker, (unsigned long long)c->seq, c->start,
                c->end, (unsigned long long)c->size) < 0)
        t->failed = 1;
    if (t->numa && fprintf(t->f, ",%llu,%d,%llu,%d", (unsigned long long)c->lo, c->home,
                           (unsigned long long)c->remote, c->staged) < 0)
        t->failed = 1;
    if (fputc('\n', t->f) == EOF)
        t->failed = 1;
}

/* Two levels: one row per thread chunk, the rank and its thread. */
static void trace_thread_chunk(void *ctx, int rank, const struct lf__sim_chunk *c)
{
    struct trace *t = ctx;
    if (t->tf && fprintf(t->tf, "%d,%d,%llu,%.9f,%.9f,%llu,%llu\n", rank, c->worker,
                         (unsigned long long)c->seq, c->start, c->end, (unsigned long long)c->lo,
                         (unsigned long long)c->size) < 0)
        t->failed = 1;
}

/* ---- report ---- */

static const char *staging_name(const struct lf__sim_platform *pf)
{
    return pf->staging == LF__SIM_STAGE_ONEPORT ? "oneport" : "free";
}

static const char *protocol_name(const struct lf__sim_opts *o)
{
    static char buf[160];
    if (o->protocol != LF__SIM_PUSH)
        return "pull";
    int n = snprintf(buf, sizeof buf, "push, %s, inflight %d",
                     o->order == LF__SIM_FIRST_READY ? "first-ready" : "round-robin",
                     o->inflight ? o->inflight : 2);
    if (o->split > 0)
        n += snprintf(buf + n, sizeof buf - (size_t)n, ", split %g", o->split);
    if (o->results >= 0)
        snprintf(buf + n, sizeof buf - (size_t)n, ", results %g", o->results);
    return buf;
}

/* Two levels: threads in all, and a rank's threads' busy fraction. */
static long total_threads(const struct lf__sim_platform *pf)
{
    long n = 0;
    for (int i = 0; i < pf->nworkers; i++)
        n += pf->w[i].threads;
    return n;
}

static double thread_busy(const struct lf__sim_platform *pf, const struct lf__sim_result *r, int i,
                          double mk)
{
    return r->w[i].tbusy / ((double)pf->w[i].threads * mk);
}

static void report(const char *fmt, const struct lf__sim_platform *pf, const struct lf__sched *s,
                   const char *cost, const struct lf__sim_workload *wl,
                   const struct lf__sim_opts *o, const struct lf__sim_result *r, int all)
{
    int extra = o->protocol == LF__SIM_PUSH || o->win_end > o->win_start;
    int P = r->nworkers, two = pf->teams;
    long nthr = two ? total_threads(pf) : 0;
    uint64_t seed = wl->seed;
    unsigned passes = wl->passes ? wl->passes : 1;
    double mk = r->makespan > 0 ? r->makespan : 1;
    if (strcmp(fmt, "csv") == 0) {
        /* Columns are only ever appended: scripts count them from the end. */
        printf("schedule,workers,tasks,cost,seed,makespan,ideal,efficiency,chunks,calib_chunks,"
               "worker,speed,worker_chunks,worker_iters,busy,busy_frac%s%s%s\n",
               pf->ndom ? ",domain,numa,stage,worker_remote_iters,worker_staged_iters" : "",
               extra ? ",protocol,cpu_eff,window_eff,worker_useful" : "",
               two ? ",threads,node_schedule,thread_chunks,worker_threads,worker_thread_chunks,"
                     "worker_thread_busy_frac"
                   : "");
        for (int i = 0; i < P; i++) {
            printf("\"%s\",%d,%llu,\"%s\",%llu,%.9f,%.9f,%.6f,%llu,%llu,%d,%.9g,%llu,%llu,%.9f,"
                   "%.6f",
                   s->spec, P, (unsigned long long)r->tasks, cost, (unsigned long long)seed,
                   r->makespan, r->ideal, r->efficiency, (unsigned long long)r->chunks,
                   (unsigned long long)r->calib_chunks, i, pf->w[i].speed,
                   (unsigned long long)r->w[i].chunks, (unsigned long long)r->w[i].iters,
                   r->w[i].busy, r->w[i].busy / mk);
            if (pf->ndom)
                printf(",%d,%d,%d,%llu,%llu", pf->w[i].domain, r->numa, r->stage,
                       (unsigned long long)r->w[i].remote_iters,
                       (unsigned long long)r->w[i].staged_iters);
            if (extra)
                printf(",%s,%.6f,%.6f,%.9f", o->protocol == LF__SIM_PUSH ? "push" : "pull",
                       r->cpu_eff, r->window_eff, r->w[i].useful);
            if (two)
                printf(",%ld,\"%s\",%llu,%d,%llu,%.6f", nthr, o->node->spec,
                       (unsigned long long)r->tchunks, pf->w[i].threads,
                       (unsigned long long)r->w[i].tchunks, thread_busy(pf, r, i, mk));
            printf("\n");
        }
        return;
    }
    if (strcmp(fmt, "json") == 0) {
        printf("{\"schedule\": ");
        json_str(s->spec);
        printf(", \"workers\": %d, \"tasks\": %llu, \"cost\": ", P, (unsigned long long)r->tasks);
        json_str(cost);
        printf(",\n \"seed\": %llu, \"staging\": \"%s\", \"makespan\": %.9f, \"ideal\": %.9f, "
               "\"efficiency\": %.6f,\n \"chunks\": %llu, \"calib_chunks\": %llu, "
               "\"calibrated_at\": %.9f,\n",
               (unsigned long long)seed, staging_name(pf), r->makespan, r->ideal, r->efficiency,
               (unsigned long long)r->chunks, (unsigned long long)r->calib_chunks, r->calib_end);
        if (pf->ndom)
            printf(" \"domains\": %d, \"home\": \"%s\", \"passes\": %u, \"numa\": %d, "
                   "\"stage\": %d,\n \"remote_iters\": %llu, \"staged_iters\": %llu, "
                   "\"staged_bytes\": %.17g, \"remote_bytes\": %.17g, \"port_busy\": %.9f,\n",
                   pf->ndom, lf__sim_home_name(wl->home), passes, r->numa, r->stage,
                   (unsigned long long)r->remote_iters, (unsigned long long)r->staged_iters,
                   r->staged_bytes, r->remote_bytes, r->port_busy);
        if (two) {
            double tb = 0;
            for (int i = 0; i < P; i++)
                tb += r->w[i].tbusy;
            printf(" \"ranks\": %d, \"threads\": %ld, \"rank_schedule\": ", P, nthr);
            json_str(s->spec);
            printf(", \"node_schedule\": ");
            json_str(o->node->spec);
            printf(",\n \"rank_chunks\": %llu, \"thread_chunks\": %llu, "
                   "\"thread_calib_chunks\": %llu, \"subloop_plans\": {",
                   (unsigned long long)r->chunks, (unsigned long long)r->tchunks,
                   (unsigned long long)r->tcalib_chunks);
            for (int k = 0; k < LF__PLANS; k++)
                printf("%s\"%s\": %llu", k ? ", " : "", lf__plan_names[k],
                       (unsigned long long)r->tplans[k]);
            printf("}, \"thread_busy\": %.6f,\n", tb / ((double)nthr * mk));
        }
        printf(" \"protocol\": \"%s\", \"cpu_eff\": %.6f,", protocol_name(o), r->cpu_eff);
        if (o->win_end > o->win_start)
            printf(" \"window\": [%.9g, %.9g], \"window_eff\": %.6f,", o->win_start, o->win_end,
                   r->window_eff);
        if (o->protocol == LF__SIM_PUSH)
            printf(" \"send_busy\": %.9f, \"recv_busy\": %.9f,", r->send_busy, r->recv_busy);
        printf("\n \"per_worker\": [");
        for (int i = 0; i < P; i++) {
            printf("%s\n  {\"worker\": %d, \"speed\": %.9g, \"chunks\": %llu, \"iters\": %llu, "
                   "\"busy\": %.9f, \"busy_frac\": %.6f, \"end\": %.9f",
                   i ? "," : "", i, pf->w[i].speed, (unsigned long long)r->w[i].chunks,
                   (unsigned long long)r->w[i].iters, r->w[i].busy, r->w[i].busy / mk, r->w[i].end);
            if (pf->ndom)
                printf(", \"domain\": %d, \"remote_iters\": %llu, \"staged_iters\": %llu",
                       pf->w[i].domain, (unsigned long long)r->w[i].remote_iters,
                       (unsigned long long)r->w[i].staged_iters);
            if (two)
                printf(", \"threads\": %d, \"thread_chunks\": %llu, \"thread_busy\": %.6f",
                       pf->w[i].threads, (unsigned long long)r->w[i].tchunks,
                       thread_busy(pf, r, i, mk));
            printf("}");
        }
        printf("\n]}\n");
        return;
    }
    if (two)
        printf("schedule     rank %s, node %s\n", s->spec, o->node->spec);
    else
        printf("schedule     %s\n", s->spec);
    if (two) {
        int tmin = pf->w[0].threads, tmax = tmin;
        for (int i = 1; i < P; i++) {
            tmin = pf->w[i].threads < tmin ? pf->w[i].threads : tmin;
            tmax = pf->w[i].threads > tmax ? pf->w[i].threads : tmax;
        }
        if (tmin == tmax)
            printf("platform     %d ranks x %d threads (%ld in all), staging %s\n", P, tmin, nthr,
                   staging_name(pf));
        else
            printf("platform     %d ranks of %d to %d threads (%ld in all), staging %s\n", P, tmin,
                   tmax, nthr, staging_name(pf));
    } else if (pf->ndom)
        printf("platform     %d workers in %d NUMA domains, ports %s\n", P, pf->ndom,
               staging_name(pf));
    else
        printf("platform     %d workers, staging %s\n", P, staging_name(pf));
    printf("workload     %llu tasks, cost %s, seed %llu\n", (unsigned long long)r->tasks, cost,
           (unsigned long long)seed);
    if (pf->ndom) {
        double n = r->tasks ? (double)r->tasks : 1;
        printf("data         home %s, %u pass%s; locality %s, staging %s\n",
               lf__sim_home_name(wl->home), passes, passes == 1 ? "" : "es", r->numa ? "on" : "off",
               r->stage ? "on" : "off");
        printf("remote       %llu iterations (%.2f%%), %llu staged (%.6g bytes), %.6g bytes "
               "read unstaged; ports busy %.6f s\n",
               (unsigned long long)r->remote_iters, 100.0 * (double)r->remote_iters / n,
               (unsigned long long)r->staged_iters, r->staged_bytes, r->remote_bytes, r->port_busy);
    }
    printf("protocol     %s\n", protocol_name(o));
    if (o->protocol == LF__SIM_PUSH)
        printf("ports        send busy %.6f s, receive busy %.6f s\n", r->send_busy, r->recv_busy);
    printf("makespan     %.6f s\n", r->makespan);
    printf("ideal        %.6f s\n", r->ideal);
    printf("efficiency   %.4f\n", r->efficiency);
    printf("cpu eff      %.6f (useful compute / workers x makespan)\n", r->cpu_eff);
    if (o->win_end > o->win_start)
        printf("window eff   %.6f in [%g, %g) s\n", r->window_eff, o->win_start, o->win_end);
    if (two) {
        printf("chunks       %llu rank (%llu calibration), %llu thread (%llu calibration)\n",
               (unsigned long long)r->chunks, (unsigned long long)r->calib_chunks,
               (unsigned long long)r->tchunks, (unsigned long long)r->tcalib_chunks);
        if (r->tplans[LF__PLAN_DEALT] != r->chunks) {
            printf("plans        ");
            for (int k = 0; k < LF__PLANS; k++)
                printf("%s%llu %s", k ? ", " : "", (unsigned long long)r->tplans[k],
                       lf__plan_names[k]);
            printf(" sub-loops of %llu (the node schedule's plans, as the dispatcher "
                   "chooses them)\n",
                   (unsigned long long)r->chunks);
        }
    } else
        printf("chunks       %llu (%llu calibration)\n", (unsigned long long)r->chunks,
               (unsigned long long)r->calib_chunks);
    if (r->calib_end >= 0)
        printf("calibrated   at %.6f s\n", r->calib_end);
    double bmin = INFINITY, bmax = 0, bsum = 0;
    for (int i = 0; i < P; i++) {
        double b = r->w[i].busy / mk;
        bmin = b < bmin ? b : bmin;
        bmax = b > bmax ? b : bmax;
        bsum += b;
    }
    printf("busy         min %.4f  mean %.4f  max %.4f%s\n", bmin, bsum / P, bmax,
           two ? " (ranks: staging to last thread out)" : "");
    if (two) {
        double tmin = INFINITY, tmax = 0, tsum = 0;
        for (int i = 0; i < P; i++) {
            double b = thread_busy(pf, r, i, mk);
            tmin = b < tmin ? b : tmin;
            tmax = b > tmax ? b : tmax;
            tsum += r->w[i].tbusy;
        }
        printf("threads busy min %.4f  mean %.4f  max %.4f (per rank; mean over all threads)\n",
               tmin, tsum / ((double)nthr * mk), tmax);
    }
    if (P > 64 && !all) {
        printf("(%d workers: --per-worker lists each one)\n", P);
        return;
    }
    printf("\n%6s %12s %8s %12s %14s %7s %14s", "worker", "speed", "chunks", "iters", "busy_s",
           "busy%", "end_s");
    if (pf->ndom)
        printf(" %6s %12s %12s", "domain", "remote", "staged");
    if (two)
        printf(" %7s %10s %8s", "threads", "t_chunks", "t_busy%");
    printf("\n");
    for (int i = 0; i < P; i++) {
        printf("%6d %12.6g %8llu %12llu %14.6f %7.2f %14.6f", i, pf->w[i].speed,
               (unsigned long long)r->w[i].chunks, (unsigned long long)r->w[i].iters, r->w[i].busy,
               100.0 * r->w[i].busy / mk, r->w[i].end);
        if (pf->ndom)
            printf(" %6d %12llu %12llu", pf->w[i].domain, (unsigned long long)r->w[i].remote_iters,
                   (unsigned long long)r->w[i].staged_iters);
        if (two)
            printf(" %7d %10llu %8.2f", pf->w[i].threads, (unsigned long long)r->w[i].tchunks,
                   100.0 * thread_busy(pf, r, i, mk));
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    enum {
        O_PLATFORM = 256,
        O_SPEEDS,
        O_WORKERS,
        O_LATENCY,
        O_STAGE_LAT,
        O_BANDWIDTH,
        O_BPI,
        O_STAGING,
        O_PROFILE,
        O_NODES,
        O_WPN,
        O_HOME,
        O_PASSES,
        O_TASKS,
        O_SCHEDULE,
        O_COST,
        O_SEED,
        O_CLAIM,
        O_TRACE,
        O_FORMAT,
        O_PERWORKER,
        O_TIMING,
        O_KTABLE,
        O_CV,
        O_UMR_MSTAR,
        O_LIST,
        O_PROTOCOL,
        O_ORDER,
        O_INFLIGHT,
        O_RESULTS,
        O_SPLIT,
        O_START_DELAY,
        O_WINDOW,
        O_LINK_PROFILE,
        O_KNOWN,
        O_TPR,
        O_RANK_SCHED,
        O_TLAT,
        O_TCLAIM,
        O_TTRACE,
        O_HELP
    };
    static const struct option opts[] = {
        {"platform", required_argument, 0, O_PLATFORM},
        {"speeds", required_argument, 0, O_SPEEDS},
        {"workers", required_argument, 0, O_WORKERS},
        {"latency", required_argument, 0, O_LATENCY},
        {"stage-lat", required_argument, 0, O_STAGE_LAT},
        {"bandwidth", required_argument, 0, O_BANDWIDTH},
        {"bytes-per-iter", required_argument, 0, O_BPI},
        {"staging", required_argument, 0, O_STAGING},
        {"profile", required_argument, 0, O_PROFILE},
        {"nodes", required_argument, 0, O_NODES},
        {"workers-per-node", required_argument, 0, O_WPN},
        {"home", required_argument, 0, O_HOME},
        {"passes", required_argument, 0, O_PASSES},
        {"tasks", required_argument, 0, O_TASKS},
        {"schedule", required_argument, 0, O_SCHEDULE},
        {"cost", required_argument, 0, O_COST},
        {"seed", required_argument, 0, O_SEED},
        {"claim-ns", required_argument, 0, O_CLAIM},
        {"trace", required_argument, 0, O_TRACE},
        {"format", required_argument, 0, O_FORMAT},
        {"per-worker", no_argument, 0, O_PERWORKER},
        {"timing", no_argument, 0, O_TIMING},
        {"k-table", no_argument, 0, O_KTABLE},
        {"cv", required_argument, 0, O_CV},
        {"umr-mstar", no_argument, 0, O_UMR_MSTAR},
        {"list", no_argument, 0, O_LIST},
        {"protocol", required_argument, 0, O_PROTOCOL},
        {"order", required_argument, 0, O_ORDER},
        {"inflight", required_argument, 0, O_INFLIGHT},
        {"results", required_argument, 0, O_RESULTS},
        {"split", required_argument, 0, O_SPLIT},
        {"start-delay", required_argument, 0, O_START_DELAY},
        {"window", required_argument, 0, O_WINDOW},
        {"link-profile", required_argument, 0, O_LINK_PROFILE},
        {"known", no_argument, 0, O_KNOWN},
        {"threads-per-rank", required_argument, 0, O_TPR},
        {"rank-schedule", required_argument, 0, O_RANK_SCHED},
        {"thread-latency", required_argument, 0, O_TLAT},
        {"thread-claim-ns", required_argument, 0, O_TCLAIM},
        {"thread-trace", required_argument, 0, O_TTRACE},
        {"help", no_argument, 0, O_HELP},
        {0, 0, 0, 0},
    };
    const char *platform = NULL, *speeds = NULL, *profile = NULL, *schedule = NULL;
    const char *link_profile = NULL;
    const char *cost = "const", *trace_path = NULL, *fmt = "table", *staging = NULL;
    const char *home = NULL, *rank_schedule = NULL, *ttrace_path = NULL;
    uint64_t tpr = 0;
    double tlatency = -1, tclaim_ns = -1;
    double latency = -1, stage_lat = -1, bandwidth = -1, bpi = -1, claim_ns = 0;
    uint64_t tasks = 0, seed = 1, nworkers = 0, nodes = 0, per_node = 0, passes = 0;
    double cvs[32] = {0, 0.2, 0.4, 0.6, 0.8, 1.0};
    int ncv = 6;
    int have_tasks = 0, per_worker = 0, timing = 0, ktable = 0, mstar = 0, c;
    struct lf__sim_opts o = {.results = -1};
    const char *push_opt = NULL; /* a push-only option given */
    double start_delay = -1;
    char err[1024];

    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_PLATFORM:
            platform = optarg;
            break;
        case O_SPEEDS:
            speeds = optarg;
            break;
        case O_WORKERS:
            nworkers = opt_u64("--workers", optarg);
            if (nworkers < 1 || nworkers > 1000000)
                die_usage("--workers %s: expected 1 to 1000000", optarg);
            break;
        case O_LATENCY:
            latency = opt_double("--latency", optarg, 0);
            break;
        case O_STAGE_LAT:
            stage_lat = opt_double("--stage-lat", optarg, 0);
            break;
        case O_BANDWIDTH:
            bandwidth = opt_double("--bandwidth", optarg, 0);
            break;
        case O_BPI:
            bpi = opt_double("--bytes-per-iter", optarg, 0);
            break;
        case O_STAGING:
            if (strcmp(optarg, "oneport") && strcmp(optarg, "free"))
                die_usage("--staging %s: expected oneport or free", optarg);
            staging = optarg;
            break;
        case O_PROFILE:
            profile = optarg;
            break;
        case O_LINK_PROFILE:
            link_profile = optarg;
            break;
        case O_KNOWN:
            o.known = 1;
            break;
        case O_TPR:
            tpr = opt_u64("--threads-per-rank", optarg);
            if (tpr < 1 || tpr > LF__SIM_MAX_THREADS)
                die_usage("--threads-per-rank %s: expected 1 to %d threads", optarg,
                          LF__SIM_MAX_THREADS);
            break;
        case O_RANK_SCHED:
            rank_schedule = optarg;
            break;
        case O_TLAT:
            tlatency = opt_double("--thread-latency", optarg, 0);
            if (tlatency > 1e6)
                die_usage("--thread-latency %s: expected 0 to 1e6 seconds", optarg);
            break;
        case O_TCLAIM:
            tclaim_ns = opt_double("--thread-claim-ns", optarg, 0);
            break;
        case O_TTRACE:
            ttrace_path = optarg;
            break;
        case O_NODES:
            nodes = opt_u64("--nodes", optarg);
            if (nodes < 1 || nodes > LF__SIM_MAXDOM)
                die_usage("--nodes %s: expected 1 to %d NUMA domains", optarg, LF__SIM_MAXDOM);
            break;
        case O_WPN:
            per_node = opt_u64("--workers-per-node", optarg);
            if (per_node < 1 || per_node > 1000000)
                die_usage("--workers-per-node %s: expected 1 to 1000000", optarg);
            break;
        case O_HOME: {
            struct lf__sim_workload probe = {0};
            if (lf__sim_home_parse(&probe, optarg, err, sizeof err))
                die_usage("%s", err);
            home = optarg;
            break;
        }
        case O_PASSES:
            passes = opt_u64("--passes", optarg);
            if (passes < 1 || passes > 1000000)
                die_usage("--passes %s: expected an integer from 1 to 1000000 (reads of an "
                          "iteration's input)",
                          optarg);
            break;
        case O_TASKS:
            tasks = opt_u64("--tasks", optarg), have_tasks = 1;
            break;
        case O_SCHEDULE:
            schedule = optarg;
            break;
        case O_COST:
            cost = optarg;
            break;
        case O_SEED:
            seed = opt_u64("--seed", optarg);
            break;
        case O_CLAIM:
            claim_ns = opt_double("--claim-ns", optarg, 0);
            break;
        case O_TRACE:
            trace_path = optarg;
            break;
        case O_FORMAT:
            if (strcmp(optarg, "table") && strcmp(optarg, "csv") && strcmp(optarg, "json"))
                die_usage("--format %s: expected table, csv or json", optarg);
            fmt = optarg;
            break;
        case O_PERWORKER:
            per_worker = 1;
            break;
        case O_TIMING:
            timing = 1;
            break;
        case O_KTABLE:
            ktable = 1;
            break;
        case O_UMR_MSTAR:
            mstar = 1;
            break;
        case O_PROTOCOL:
            if (strcmp(optarg, "pull") && strcmp(optarg, "push"))
                die_usage("--protocol %s: expected pull or push", optarg);
            o.protocol = strcmp(optarg, "push") == 0 ? LF__SIM_PUSH : LF__SIM_PULL;
            break;
        case O_ORDER:
            if (strcmp(optarg, "round-robin") && strcmp(optarg, "first-ready"))
                die_usage("--order %s: expected round-robin or first-ready", optarg);
            o.order =
                strcmp(optarg, "first-ready") == 0 ? LF__SIM_FIRST_READY : LF__SIM_ROUND_ROBIN;
            push_opt = "--order";
            break;
        case O_INFLIGHT:
            o.inflight = (int)opt_u64("--inflight", optarg);
            if (o.inflight < 1 || o.inflight > LF__SIM_MAX_INFLIGHT)
                die_usage("--inflight %s: expected 1 to %d messages", optarg, LF__SIM_MAX_INFLIGHT);
            push_opt = "--inflight";
            break;
        case O_RESULTS:
            o.results = opt_double("--results", optarg, 0);
            if (o.results > 1e6)
                die_usage("--results %s: expected 0 to 1e6 (result bytes per input byte)", optarg);
            push_opt = "--results";
            break;
        case O_SPLIT:
            o.split = opt_double("--split", optarg, 0);
            if (!(o.split > 0 && o.split < 1))
                die_usage("--split %s: expected a share strictly between 0 and 1", optarg);
            push_opt = "--split";
            break;
        case O_START_DELAY:
            start_delay = opt_double("--start-delay", optarg, 0);
            if (start_delay > 1e6)
                die_usage("--start-delay %s: expected 0 to 1e6 seconds", optarg);
            break;
        case O_WINDOW: {
            char *end;
            errno = 0;
            o.win_start = strtod(optarg, &end);
            if (errno || end == optarg || *end != ':' || !(o.win_start >= 0))
                die_usage("--window %s: expected A:B, 0 <= A < B seconds", optarg);
            const char *b = end + 1;
            o.win_end = strtod(b, &end);
            if (errno || end == b || *end || !(o.win_end > o.win_start) || !isfinite(o.win_end))
                die_usage("--window %s: expected A:B, 0 <= A < B seconds", optarg);
            break;
        }
        case O_CV: {
            char *save = NULL, buf[512];
            snprintf(buf, sizeof buf, "%s", optarg);
            ncv = 0;
            for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                if (ncv == 32)
                    die_usage("--cv: at most 32 values");
                cvs[ncv++] = opt_double("--cv", t, 0);
            }
            if (ncv == 0)
                die_usage("--cv: expected a list such as 0,0.5,1");
            break;
        }
        case O_LIST: {
            static char list[4096];
            lf__policy_list(list, sizeof list);
            printf("schedules: %s\n", list);
            for (const struct lf__policy *const *p = lf__policies; *p; p++)
                printf("  %-22s %s\n", (*p)->synopsis, (*p)->help ? (*p)->help : "");
            printf("every schedule also accepts cal=auto|paper, calns=N, memory=on|off, and\n"
                   "numa=on|off, stage=on|off (NUMA platforms: --nodes, 'domains N')\n");
            return 0;
        }
        case O_HELP:
        case 'h':
            fputs(usage_text, stdout);
            return 0;
        default:
            die_usage("unknown or incomplete option \"%s\"", argv[optind - 1]);
        }
    }
    if (optind < argc)
        die_usage("unexpected argument \"%s\"", argv[optind]);
    if (ktable) {
        if (have_tasks && tasks < 3)
            die_usage("--k-table: S must be >= 3 (eq. (8) assumes S > e)");
        k_table(fmt, have_tasks ? tasks : 0, cvs, ncv);
        return 0;
    }
    if (mstar) {
        double N = nworkers ? (double)nworkers : 5, W = have_tasks ? (double)tasks : 2000;
        if (platform || profile || link_profile || staging || nodes)
            die_usage("--umr-mstar takes --workers, --tasks, --speeds, --latency, --stage-lat, "
                      "--bandwidth and --bytes-per-iter (a homogeneous platform)");
        if (latency < 0 && stage_lat < 0 && bandwidth < 0 && !speeds && bpi < 0) {
            umr_mstar(fmt, N, W);
            return 0;
        }
        /* One point: the options describe N identical workers. */
        double S = 1;
        if (speeds) {
            struct lf__sim_platform sp;
            if (lf__sim_platform_speeds(&sp, speeds, 0, err, sizeof err))
                die_usage("%s", err);
            S = sp.w[0].speed;
            for (int i = 1; i < sp.nworkers; i++)
                if (sp.w[i].speed != S)
                    die_usage("--umr-mstar: --speeds %s: expected one speed (the workers are "
                              "identical)",
                              speeds);
            lf__sim_platform_free(&sp);
        }
        double B = bandwidth > 0 ? bandwidth / (bpi > 0 ? bpi : 1.0) : INFINITY;
        umr_mstar_one(fmt, N, S, latency > 0 ? latency : 0, stage_lat > 0 ? stage_lat : 0, B, W);
        return 0;
    }
    if (!platform == !speeds)
        die_usage("give exactly one of --platform FILE and --speeds LIST");
    if (!have_tasks)
        die_usage("--tasks N is required");
    if (!schedule)
        die_usage("--schedule SPEC is required (lf-sim --list shows them)");
    if (platform && nworkers)
        die_usage("--workers goes with --speeds, not --platform");
    if (per_node) {
        if (!nodes || !speeds)
            die_usage("--workers-per-node goes with --speeds and --nodes N, e.g. --speeds 1 "
                      "--nodes 4 --workers-per-node 16");
        if (nworkers && nworkers != nodes * per_node)
            die_usage("--workers %llu disagrees with --nodes %llu x --workers-per-node %llu",
                      (unsigned long long)nworkers, (unsigned long long)nodes,
                      (unsigned long long)per_node);
        if (nodes * per_node > 1000000)
            die_usage("--nodes x --workers-per-node: at most 1000000 workers");
        nworkers = nodes * per_node;
    }

    struct lf__sched sched;
    if (lf__sched_parse(schedule, &sched, err, sizeof err) != 0)
        die_usage("--schedule %s: %s", schedule, err);
    if (sched.lease > 0)
        fprintf(stderr,
                "lf-sim: note: --schedule %s: leases are the real-time dispatcher's; the "
                "simulator runs every chunk whole\n",
                schedule);
    struct lf__sim_platform pf;
    int rc = platform ? lf__sim_platform_load(&pf, platform, err, sizeof err)
                      : lf__sim_platform_speeds(&pf, speeds, (int)nworkers, err, sizeof err);
    if (rc)
        die_usage("%s", err);
    if (nodes) {
        if (lf__sim_platform_domains(&pf, (int)nodes, err, sizeof err))
            die_usage("--nodes: %s", err);
        pf.staging = LF__SIM_STAGE_ONEPORT; /* one transfer at a time per domain */
    }
    if (push_opt && o.protocol != LF__SIM_PUSH)
        die_usage("%s is an option of the push protocol (add --protocol push)", push_opt);
    if (o.protocol == LF__SIM_PUSH && (pf.ndom || nodes))
        die_usage("--protocol push models one master without NUMA domains (drop --nodes or "
                  "the 'domains' line)");
    if (!pf.ndom && (home || passes))
        die_usage("%s needs NUMA domains (--nodes N, or a 'domains N' line in the platform)",
                  home ? "--home" : "--passes");
    lf__sim_platform_set(&pf, latency, stage_lat, bandwidth, bpi);
    for (int i = 0; i < pf.nworkers; i++) {
        struct lf__sim_worker *w = &pf.w[i];
        if (profile && lf__sim_profile_parse(w, profile, err, sizeof err))
            die_usage("--profile: %s", err);
        if (link_profile && lf__sim_link_profile_parse(w, link_profile, err, sizeof err))
            die_usage("--link-profile: %s", err);
        if (start_delay >= 0)
            w->start = start_delay * i;
    }
    if (staging)
        pf.staging = strcmp(staging, "oneport") == 0 ? LF__SIM_STAGE_ONEPORT : LF__SIM_STAGE_FREE;
    /* Two levels: ranks of threads (a file's threads= lines made pf so). */
    if (tpr && pf.ndom)
        die_usage("--threads-per-rank: ranks of threads and NUMA domains exclude each other "
                  "(drop --nodes or the 'domains' line)");
    if (lf__sim_platform_teams(&pf, (int)tpr, err, sizeof err))
        die_usage("--threads-per-rank: %s", err);
    struct lf__sched rsched;
    if (pf.teams) {
        if (o.protocol == LF__SIM_PUSH)
            die_usage("ranks of threads run the pull protocol (drop --protocol push)");
        const char *rs = rank_schedule ? rank_schedule : "fac2";
        if (lf__sched_parse(rs, &rsched, err, sizeof err) != 0)
            die_usage("--rank-schedule %s: %s", rs, err);
        for (int i = 0; tlatency >= 0 && i < pf.nworkers; i++)
            pf.w[i].tlatency = tlatency;
        o.node = &sched;
        o.thread_claim_ns = tclaim_ns > 0 ? tclaim_ns : 0;
    } else if (rank_schedule || tlatency >= 0 || tclaim_ns >= 0 || ttrace_path) {
        die_usage("%s needs ranks of threads (--threads-per-rank T, or threads= in the platform)",
                  rank_schedule    ? "--rank-schedule"
                  : tlatency >= 0  ? "--thread-latency"
                  : tclaim_ns >= 0 ? "--thread-claim-ns"
                                   : "--thread-trace");
    }
    const struct lf__sched *top = pf.teams ? &rsched : &sched;

    struct lf__sim_workload wl = {.tasks = tasks, .seed = seed, .passes = (unsigned)passes};
    if (lf__sim_cost_parse(&wl, cost, err, sizeof err))
        die_usage("%s", err);
    if (home && lf__sim_home_parse(&wl, home, err, sizeof err))
        die_usage("%s", err);
    struct timespec t0, t1, t2;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (lf__sim_workload_init(&wl)) {
        fprintf(stderr, "lf-sim: out of memory for %llu tasks\n", (unsigned long long)tasks);
        return 1;
    }
    struct trace tr = {.numa = pf.ndom > 0};
    if (trace_path) {
        tr.f = fopen(trace_path, "w");
        if (!tr.f)
            die_usage("--trace %s: %s", trace_path, strerror(errno));
        setvbuf(tr.f, NULL, _IOFBF, 1 << 20);
        fprintf(tr.f, "worker,seq,start,end,size%s\n", tr.numa ? ",lo,home,remote,staged" : "");
    }
    if (ttrace_path) {
        tr.tf = fopen(ttrace_path, "w");
        if (!tr.tf)
            die_usage("--thread-trace %s: %s", ttrace_path, strerror(errno));
        setvbuf(tr.tf, NULL, _IOFBF, 1 << 20);
        fprintf(tr.tf, "rank,thread,seq,start,end,lo,size\n");
        o.on_tchunk = trace_thread_chunk;
    }
    o.claim_ns = claim_ns;
    o.on_chunk = tr.f ? trace_chunk : NULL;
    o.ctx = &tr;
    struct lf__sim_result res;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rc = lf__sim_run(&pf, top, &wl, &o, &res, err, sizeof err);
    clock_gettime(CLOCK_MONOTONIC, &t2);
    if (tr.f && (fclose(tr.f) != 0 || tr.failed)) {
        fprintf(stderr, "lf-sim: --trace %s: write failed\n", trace_path);
        rc = rc ? rc : -EIO;
    }
    if (tr.tf && (fclose(tr.tf) != 0 || tr.failed)) {
        fprintf(stderr, "lf-sim: --thread-trace %s: write failed\n", ttrace_path);
        rc = rc ? rc : -EIO;
    }
    if (rc) {
        if (rc != -EIO)
            fprintf(stderr, "lf-sim: %s\n", err);
        return 1;
    }
    report(fmt, &pf, top, cost, &wl, &o, &res, per_worker);
    if (timing)
        fprintf(stderr, "lf-sim: workload set-up %.3f s, simulation %.3f s (%llu events)\n",
                (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec),
                (double)(t2.tv_sec - t1.tv_sec) + 1e-9 * (double)(t2.tv_nsec - t1.tv_nsec),
                (unsigned long long)res.events);
    lf__sim_result_free(&res);
    lf__sim_workload_free(&wl);
    lf__sim_platform_free(&pf);
    return 0;
}
