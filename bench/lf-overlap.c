/* bench/lf-overlap.c - does overlapping the staging of a chunk with compute
 * pay?  Per element of a chunk of C doubles and a kernel of K multiply-adds
 * per element, six ways to run a stream of chunks are timed side by side in
 * one run, repetitions interleaved (ABCDEF ABCDEF ...), medians:
 *
 *   none      copy the whole chunk into a local buffer, then compute on it
 *             (what loopfarm does today when it stages a remote chunk);
 *   inplace   compute on the source, no copy (the floor: no staging at all);
 *   prefetch  AS4DR's two sub-chunks (seed 001, Fig. 3) with software
 *             prefetch instead of a second thread: while computing one half,
 *             prefetch the source lines of the next half (the chunk's second
 *             half, or the next chunk's first), then copy it (from cache now);
 *   pf-cap    as prefetch, but with sub-chunks of at most --piece bytes
 *             (default 256K), so that what is prefetched ahead fits in L2;
 *             the same as prefetch for chunks up to twice the piece;
 *   helper    AS4DR's two sub-chunks with a helper thread per worker: the
 *             helper copies half j+1 (up to three halves ahead, two chunk
 *             buffers) while the worker computes half j; handed over by
 *             counters on their own cache lines (spin, then yield);
 *   node      as helper, but one helper for the whole node (this machine has
 *             one) stages for every worker, round robin; only when W > 1.
 *
 * With --workers 2 every core runs a worker, as in a real run: helper then
 * puts 4 threads on 2 cores, node 3.  Worker w is pinned to the w-th CPU of
 * the process's affinity mask and its helper to the next one, because
 * unpinned workers of an oversubscribed sample stay stacked on one CPU into
 * the next sample; the node helper is not pinned.  Times are per element of one
 * worker's stream (wall time / elements per worker).  Every variant adds
 * the kernel over the same lines into the same accumulators in the same
 * order, so the checksums must be equal bit for bit; a mismatch (a broken
 * hand-over) exits 1.
 *
 *   lf-overlap [--sizes LIST] [--flops LIST] [--reps R] [--workers LIST]
 *              [--source warm,cold] [--mib M] [--piece SIZE]
 *              [--format table|csv]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#endif
#include <omp.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_CLFLUSH 1
#endif

#define CACHE_LINE   64
#define LINE_DOUBLES (CACHE_LINE / (int)sizeof(double))
#define MAX_LIST     16
#define MAX_DEGREE   4096

enum variant { V_NONE, V_INPLACE, V_PREFETCH, V_PFCAP, V_HELPER, V_NODE, NVARIANT };
static const char *const vnames[NVARIANT] = {"none",   "inplace", "prefetch",
                                             "pf-cap", "helper",  "node"};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

/* Polynomial coefficients: degree K has K + 1 of them.  Small and of
 * alternating sign so that Horner over x in [0, 1) stays of order one. */
static double coef[MAX_DEGREE + 1];

/* Add to acc[j] the degree-K polynomial by Horner (K multiply-adds) of
 * x[i + j] for every line i of x[0..n); eight independent chains so that
 * even K = 1 is not latency bound.  The accumulators live across calls, so
 * the sum does not depend on how a stream is cut into calls.  If pf is not
 * NULL, one prefetch of pf's line per line of x: the source of the next
 * sub-chunk, which has as many lines.  n is a multiple of LINE_DOUBLES. */
static void kernel(const double *restrict x, long n, int K, const double *pf, double *restrict acc)
{
    for (long i = 0; i < n; i += LINE_DOUBLES) {
        if (pf)
            __builtin_prefetch(pf + i, 0, 3);
        double y[LINE_DOUBLES];
        for (int j = 0; j < LINE_DOUBLES; j++)
            y[j] = coef[K];
        for (int k = K - 1; k >= 0; k--)
            for (int j = 0; j < LINE_DOUBLES; j++)
                y[j] = y[j] * x[i + j] + coef[k];
        for (int j = 0; j < LINE_DOUBLES; j++)
            acc[j] += y[j];
    }
}

static double total(const double *acc)
{
    double s = 0;
    for (int j = 0; j < LINE_DOUBLES; j++)
        s += acc[j];
    return s;
}

/* One worker's stream and its hand-over counters.  staged (written by the
 * helper) and done (written by the worker) sit on their own cache lines so
 * that a spin on one does not take the other's line away. */
struct lane {
    const double *src; /* span doubles: cold streams over it, warm reuses 2 chunks */
    double *buf;       /* 2 chunks = 4 half slots (none/prefetch use the first) */
    double sum;        /* the worker's checksum */
    _Alignas(CACHE_LINE) atomic_long staged; /* halves copied into buf */
    char pad1[CACHE_LINE - sizeof(atomic_long)];
    _Alignas(CACHE_LINE) atomic_long done; /* halves the worker has finished */
    char pad2[CACHE_LINE - sizeof(atomic_long)];
};

struct config {
    long n;      /* chunk, doubles */
    long chunks; /* per worker per sample */
    long pieces; /* sub-chunks per chunk for pf-cap (2 or more, divides n) */
    int K;
    int cold;
};

/* Source of sub-chunk j of a stream cut into per chunk sub-chunks per chunk:
 * cold streams over the source, warm alternates between two chunks. */
static const double *sub_src(const struct lane *l, const struct config *c, long per, long j)
{
    long chunk = j / per;
    return l->src + (c->cold ? chunk : chunk % 2) * c->n + (j % per) * (c->n / per);
}

static const double *half_src(const struct lane *l, const struct config *c, long j)
{
    return sub_src(l, c, 2, j);
}

/* Spin until *a >= v; after a while yield the core, which an oversubscribed
 * run needs (the thread we wait for may be queued behind us). */
static void wait_at_least(atomic_long *a, long v)
{
    unsigned spins = 0;
    /* acquire: pairs with the release that published the value we wait for,
     * so the buffer contents (staged) or the end of reads (done) are seen. */
    while (atomic_load_explicit(a, memory_order_acquire) < v) {
        if (++spins < 2048)
            cpu_relax();
        else
            sched_yield();
    }
}

/* The worker's side for variants without a helper. */
static double work_alone(enum variant v, const struct lane *l, const struct config *c)
{
    long per = v == V_PFCAP ? c->pieces : 2, p = c->n / per, subs = per * c->chunks;
    size_t pb = (size_t)p * sizeof(double);
    double acc[LINE_DOUBLES] = {0};
    for (long j = 0; j < subs; j++) {
        const double *src = sub_src(l, c, per, j);
        double *slot = l->buf + (j % per) * p;
        switch (v) {
        case V_NONE: /* whole chunk copied before any of it is computed */
            if (j % 2 == 0)
                memcpy(l->buf, src, 2 * pb);
            kernel(slot, p, c->K, NULL, acc);
            break;
        case V_INPLACE:
            kernel(src, p, c->K, NULL, acc);
            break;
        case V_PREFETCH:
        case V_PFCAP: /* copy this sub-chunk (prefetched during the last) */
            memcpy(slot, src, pb);
            kernel(slot, p, c->K, j + 1 < subs ? sub_src(l, c, per, j + 1) : NULL, acc);
            break;
        default:
            break;
        }
    }
    return total(acc);
}

/* The worker's side with a helper: compute half j once it is staged. */
static double work_helped(struct lane *l, const struct config *c)
{
    long h = c->n / 2, halves = 2 * c->chunks;
    double acc[LINE_DOUBLES] = {0};
    for (long j = 0; j < halves; j++) {
        wait_at_least(&l->staged, j + 1);
        kernel(l->buf + (j % 4) * h, h, c->K, NULL, acc);
        /* release: our reads of slot j % 4 happen before the helper, having
         * seen done >= j + 1, overwrites it with half j + 4. */
        atomic_store_explicit(&l->done, j + 1, memory_order_release);
    }
    return total(acc);
}

/* A helper staging half after half for lanes[0..nl), round robin: half j
 * goes to slot j % 4 once the worker has finished half j - 4 there. */
static void help(struct lane *lanes, int nl, const struct config *c)
{
    long h = c->n / 2, halves = 2 * c->chunks;
    size_t hb = (size_t)h * sizeof(double);
    for (long j = 0; j < halves; j++)
        for (int w = 0; w < nl; w++) {
            struct lane *l = &lanes[w];
            wait_at_least(&l->done, j - 3);
            memcpy(l->buf + (j % 4) * h, half_src(l, c, j), hb);
            /* release: the copy into the slot is visible before the
             * worker, having seen staged >= j + 1, reads it. */
            atomic_store_explicit(&l->staged, j + 1, memory_order_release);
        }
}

/* The CPUs the process may use, in order; threads are pinned among them. */
static cpu_set_t allowed;
static int cpus[CPU_SETSIZE], ncpus;

/* Pin the calling thread to the k-th allowed CPU (modulo), or to all of
 * them if k < 0. */
static void pin(int k)
{
    cpu_set_t set = allowed;
    if (k >= 0) {
        CPU_ZERO(&set);
        CPU_SET(cpus[k % ncpus], &set);
    }
    sched_setaffinity(0, sizeof set, &set);
}

/* Evict a cold source from every cache level so that it comes from DRAM. */
static void flush(const double *p, long n)
{
#ifdef HAVE_CLFLUSH
    for (long i = 0; i < n; i += LINE_DOUBLES)
        _mm_clflush(p + i);
    _mm_mfence();
#else
    (void)p;
    (void)n;
#endif
}

/* One sample: W workers (plus helpers) over their streams; returns seconds
 * per element of one worker's stream, and stores the checksums in lanes. */
static double run(enum variant v, struct lane *lanes, int W, const struct config *c, long span)
{
    int helpers = v == V_HELPER ? W : v == V_NODE ? 1 : 0, team = W + helpers, short_team = 0;
    for (int w = 0; w < W; w++) {
        atomic_store_explicit(&lanes[w].staged, 0, memory_order_relaxed);
        atomic_store_explicit(&lanes[w].done, 0, memory_order_relaxed);
        if (c->cold)
            flush(lanes[w].src, span);
    }
    double t0 = now(); /* pinning is inside: a few microseconds in samples of milliseconds */
#pragma omp parallel num_threads(team)
    {
        int id = omp_get_thread_num();
        if (omp_get_num_threads() != team) { /* a helper missing would hang us */
#pragma omp single
            short_team = 1;
        } else if (id < W) {
            pin(id);
            lanes[id].sum = helpers ? work_helped(&lanes[id], c) : work_alone(v, &lanes[id], c);
        } else if (v == V_HELPER) {
            pin(id - W + 1); /* the CPU after its worker's */
            help(&lanes[id - W], 1, c);
        } else {
            pin(-1);
            help(lanes, W, c);
        }
    }
    double t = now() - t0;
    if (short_team) {
        fprintf(stderr, "lf-overlap: got fewer than %d threads (OMP_THREAD_LIMIT?)\n", team);
        exit(1);
    }
    return t / (double)(c->chunks * c->n);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lf-overlap [--sizes LIST] [--flops LIST] [--reps R] [--workers LIST]\n"
            "                  [--source warm,cold] [--mib M] [--piece SIZE] [--format table|csv]\n"
            "  Staging a chunk (copy to a local buffer) and computing on it: copy then compute\n"
            "  (none), no copy (inplace), AS4DR's two halves overlapped by software prefetch\n"
            "  (prefetch; pf-cap: sub-chunks of at most SIZE), by a helper thread per worker\n"
            "  (helper) or one per node (node).  Worker w is pinned to the w-th allowed CPU.\n"
            "  Prints median ns per element of one worker's stream and the ratio to none.\n"
            "  --sizes L    chunk sizes in bytes, suffix K/M/G = KiB/MiB/GiB, multiples of\n"
            "               1K (default 4K,64K,1M,8M)\n"
            "  --flops L    polynomial degrees: K multiply-adds per element, 0..%d\n"
            "               (default 1,8,64)\n"
            "  --reps R     repetitions per variant, interleaved, median taken (default 7)\n"
            "  --workers L  workers, each with its own stream, 1 or 2 (default 1,2); with 2 the\n"
            "               helpers oversubscribe a 2-core machine\n"
            "  --source L   warm: two chunks of source reused, cache resident as far as the\n"
            "               size allows; cold: streamed over M MiB flushed from the caches\n"
            "               before every sample, so read from DRAM (default warm,cold)\n"
            "  --mib M      data per worker per sample, MiB (default 64; at least 2 chunks)\n"
            "  --piece S    largest sub-chunk of pf-cap, bytes, suffix K/M (default 256K)\n"
            "  --format F   table (default) or csv\n"
            "examples:\n"
            "  OMP_WAIT_POLICY=passive lf-overlap\n"
            "  lf-overlap --sizes 64K,8M --flops 8 --workers 1 --source cold --reps 11\n"
            "  lf-overlap --format csv > overlap.csv\n",
            MAX_DEGREE);
}

/* Parse a comma-separated list with parse_one; 0 or the offending token. */
static const char *parse_list(char *s, long *out, int *n, int (*parse_one)(const char *, long *))
{
    *n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (*n == MAX_LIST || !parse_one(tok, &out[*n]))
            return tok;
        (*n)++;
    }
    return *n ? NULL : "(empty)";
}

static int parse_size(const char *s, long *v)
{
    char *end;
    long x = strtol(s, &end, 10);
    long mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1L << 10, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1L << 20, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1L << 30, end++;
    if (end == s || *end || x <= 0 || x > (1L << 40) / mul)
        return 0;
    *v = x * mul;
    return *v % 1024 == 0;
}

static int parse_degree(const char *s, long *v)
{
    char *end;
    *v = strtol(s, &end, 10);
    return end != s && !*end && *v >= 0 && *v <= MAX_DEGREE;
}

static int parse_workers(const char *s, long *v)
{
    char *end;
    *v = strtol(s, &end, 10);
    return end != s && !*end && (*v == 1 || *v == 2);
}

static int parse_source(const char *s, long *v)
{
    *v = !strcmp(s, "cold") ? 1 : !strcmp(s, "warm") ? 0 : -1;
    return *v >= 0;
}

static void print_size(char *out, size_t len, long bytes)
{
    if (bytes % (1L << 20) == 0)
        snprintf(out, len, "%ldM", bytes >> 20);
    else
        snprintf(out, len, "%ldK", bytes >> 10);
}

int main(int argc, char **argv)
{
    char sizes_s[256] = "4K,64K,1M,8M", flops_s[256] = "1,8,64", workers_s[64] = "1,2",
         source_s[64] = "warm,cold";
    long reps = 7, mib = 64, piece = 256L << 10;
    int csv = 0;
    for (int a = 1; a < argc; a++) {
        const char *o = argv[a];
        char *end;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        } else if (a + 1 >= argc) {
            fprintf(stderr, "lf-overlap: unknown or incomplete option %s\n", o);
            usage(stderr);
            return 2;
        } else if (!strcmp(o, "--sizes")) {
            snprintf(sizes_s, sizeof sizes_s, "%s", argv[++a]);
        } else if (!strcmp(o, "--flops")) {
            snprintf(flops_s, sizeof flops_s, "%s", argv[++a]);
        } else if (!strcmp(o, "--workers")) {
            snprintf(workers_s, sizeof workers_s, "%s", argv[++a]);
        } else if (!strcmp(o, "--source")) {
            snprintf(source_s, sizeof source_s, "%s", argv[++a]);
        } else if (!strcmp(o, "--reps")) {
            reps = strtol(argv[++a], &end, 10);
            if (*end || end == argv[a] || reps < 1 || reps > 1001) {
                fprintf(stderr, "lf-overlap: --reps %s: expected an integer 1..1001\n", argv[a]);
                return 2;
            }
        } else if (!strcmp(o, "--mib")) {
            mib = strtol(argv[++a], &end, 10);
            if (*end || end == argv[a] || mib < 1 || mib > 65536) {
                fprintf(stderr, "lf-overlap: --mib %s: expected an integer 1..65536\n", argv[a]);
                return 2;
            }
        } else if (!strcmp(o, "--piece")) {
            if (!parse_size(argv[++a], &piece)) {
                fprintf(stderr,
                        "lf-overlap: --piece %s: expected a positive multiple of 1K, e.g. 256K\n",
                        argv[a]);
                return 2;
            }
        } else if (!strcmp(o, "--format")) {
            a++;
            if (!strcmp(argv[a], "csv"))
                csv = 1;
            else if (strcmp(argv[a], "table")) {
                fprintf(stderr, "lf-overlap: --format %s: expected table or csv\n", argv[a]);
                return 2;
            }
        } else {
            fprintf(stderr, "lf-overlap: unknown option %s\n", o);
            usage(stderr);
            return 2;
        }
    }

    long sizes[MAX_LIST], degs[MAX_LIST], workers[MAX_LIST], sources[MAX_LIST];
    int nsizes, ndegs, nworkers, nsources;
    const char *bad;
    if ((bad = parse_list(sizes_s, sizes, &nsizes, parse_size))) {
        fprintf(stderr,
                "lf-overlap: --sizes: %s: expected a positive multiple of 1K, e.g. 4K,64K,1M,8M\n",
                bad);
        return 2;
    }
    if ((bad = parse_list(flops_s, degs, &ndegs, parse_degree))) {
        fprintf(stderr, "lf-overlap: --flops: %s: expected a degree 0..%d, e.g. 1,8,64\n", bad,
                MAX_DEGREE);
        return 2;
    }
    if ((bad = parse_list(workers_s, workers, &nworkers, parse_workers))) {
        fprintf(stderr, "lf-overlap: --workers: %s: expected 1 or 2, e.g. 1,2\n", bad);
        return 2;
    }
    if ((bad = parse_list(source_s, sources, &nsources, parse_source))) {
        fprintf(stderr, "lf-overlap: --source: %s: expected warm or cold, e.g. warm,cold\n", bad);
        return 2;
    }

    for (int k = 0; k <= MAX_DEGREE; k++)
        coef[k] = (k % 2 ? -1.0 : 1.0) / (double)(k + 2);
    omp_set_dynamic(0);
    sched_getaffinity(0, sizeof allowed, &allowed);
    for (int i = 0; i < CPU_SETSIZE; i++)
        if (CPU_ISSET(i, &allowed))
            cpus[ncpus++] = i;
    if (!ncpus) {
        fprintf(stderr, "lf-overlap: no CPU in the affinity mask\n");
        return 1;
    }

    long maxsize = 0, maxw = 0;
    for (int i = 0; i < nsizes; i++)
        maxsize = sizes[i] > maxsize ? sizes[i] : maxsize;
    for (int i = 0; i < nworkers; i++)
        maxw = workers[i] > maxw ? workers[i] : maxw;
    long span_bytes = mib << 20;
    if (span_bytes < 2 * maxsize)
        span_bytes = 2 * maxsize;
    long span = span_bytes / (long)sizeof(double);

    struct lane *lanes = aligned_alloc(CACHE_LINE, (size_t)maxw * sizeof *lanes);
    if (!lanes) {
        fprintf(stderr, "lf-overlap: out of memory\n");
        return 1;
    }
    for (int w = 0; w < maxw; w++) {
        memset(&lanes[w], 0, sizeof lanes[w]);
        double *src = aligned_alloc(4096, (size_t)span_bytes);
        lanes[w].buf = aligned_alloc(4096, (size_t)(2 * maxsize));
        if (!src || !lanes[w].buf) {
            fprintf(stderr, "lf-overlap: out of memory for %ld MiB per worker\n", span_bytes >> 20);
            return 1;
        }
        uint64_t r = 0x9e3779b97f4a7c15ull * (uint64_t)(w + 1);
        for (long i = 0; i < span; i++) { /* x in [0, 1), xorshift */
            r ^= r << 13, r ^= r >> 7, r ^= r << 17;
            src[i] = (double)(r >> 11) * 0x1p-53;
        }
        memset(lanes[w].buf, 0, (size_t)(2 * maxsize));
        lanes[w].src = src;
    }

    if (csv)
        printf("source,size_bytes,flops,workers,variant,median_ns_per_elem,min_ns_per_elem,ratio_"
               "to_none\n");
    else
        printf("%-6s %5s %5s %2s | %8s %8s %8s %8s %8s %8s | %7s %7s %7s %7s %7s\n", "source",
               "size", "flops", "W", "none", "inplace", "prefetch", "pf-cap", "helper", "node",
               "inpl/n", "pref/n", "pfcap/n", "help/n", "node/n");
    double *t[NVARIANT];
    for (int v = 0; v < NVARIANT; v++)
        t[v] = malloc((size_t)reps * sizeof(double));
    int status = 0;
    for (int si = 0; si < nsources; si++)
        for (int zi = 0; zi < nsizes; zi++)
            for (int ki = 0; ki < ndegs; ki++)
                for (int wi = 0; wi < nworkers; wi++) {
                    int W = (int)workers[wi], nv = W > 1 ? NVARIANT : V_NODE;
                    struct config c = {.n = sizes[zi] / (long)sizeof(double),
                                       .K = (int)degs[ki],
                                       .cold = (int)sources[si]};
                    c.chunks = span / c.n;
                    long capd = piece / (long)sizeof(double);
                    c.pieces = c.n / capd > 2 ? (c.n + capd - 1) / capd : 2;
                    while (c.n % c.pieces || (c.n / c.pieces) % LINE_DOUBLES)
                        c.pieces++;
                    struct config warmup = c;
                    warmup.chunks = c.chunks / 8 > 2 ? c.chunks / 8 : 2;
                    double ref[2] = {0, 0};
                    for (int v = 0; v < nv; v++)
                        run((enum variant)v, lanes, W, &warmup, span);
                    for (long r = 0; r < reps; r++)
                        for (int v = 0; v < nv; v++) {
                            t[v][r] = run((enum variant)v, lanes, W, &c, span);
                            for (int w = 0; w < W; w++) {
                                if (v == 0 && r == 0)
                                    ref[w] = lanes[w].sum;
                                else if (lanes[w].sum != ref[w]) {
                                    fprintf(stderr,
                                            "lf-overlap: %s worker %d: checksum %.17g, expected "
                                            "%.17g\n",
                                            vnames[v], w, lanes[w].sum, ref[w]);
                                    status = 1;
                                }
                            }
                        }
                    double med[NVARIANT];
                    for (int v = 0; v < nv; v++) {
                        qsort(t[v], (size_t)reps, sizeof(double), cmp);
                        med[v] = t[v][reps / 2];
                    }
                    char sz[32];
                    print_size(sz, sizeof sz, sizes[zi]);
                    const char *src_name = c.cold ? "cold" : "warm";
                    if (csv) {
                        for (int v = 0; v < nv; v++)
                            printf("%s,%ld,%d,%d,%s,%.4f,%.4f,%.4f\n", src_name, sizes[zi], c.K, W,
                                   vnames[v], med[v] * 1e9, t[v][0] * 1e9, med[v] / med[V_NONE]);
                    } else {
                        printf("%-6s %5s %5d %2d |", src_name, sz, c.K, W);
                        for (int v = 0; v < NVARIANT; v++)
                            if (v < nv)
                                printf(" %8.3f", med[v] * 1e9);
                            else
                                printf(" %8s", "-");
                        printf(" |");
                        for (int v = V_INPLACE; v < NVARIANT; v++)
                            if (v < nv)
                                printf(" %7.3f", med[v] / med[V_NONE]);
                            else
                                printf(" %7s", "-");
                        printf("\n");
                    }
                    fflush(stdout);
                }
    for (int v = 0; v < NVARIANT; v++)
        free(t[v]);
    for (int w = 0; w < maxw; w++) {
        free((void *)lanes[w].src);
        free(lanes[w].buf);
    }
    free(lanes);
    return status;
}
