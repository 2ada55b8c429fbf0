/* bench/lf-graph.c - graph kernels as an unmodified OpenMP application
 * writes them (GAP-benchmark-like BFS, PageRank and connected components
 * over an R-MAT graph), for running under libgomp as built and under the
 * preload shim (LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto).
 *
 * Nothing here knows loopfarm: the loops are plain `omp parallel for
 * schedule(dynamic, CHUNK)` loops with the chunk sizes such codes use (64
 * for frontier and label loops, 16384 for PageRank's vertex sweeps: a few
 * scheduling units per loop).  Every kernel's result is checked against a
 * sequential computation; a wrong result exits 3.
 *
 *   lf-graph [--scale S] [--degree D] [--trials T] [--seed X] [--alternate]
 *            [--block B] [--kernels LIST]
 *
 * Prints per kernel the median and minimum time of the trials after the
 * first (steady state), in ms.  With --alternate (the shim preloaded and
 * configured) each trial runs every kernel twice in a row, once with the
 * shim switched off (lf_shim_enable(0): libgomp's own schedule) and once
 * on, the order swapped from one trial to the next, and prints both
 * medians and the median of the per-trial ratios: the two run on the same
 * graph in the same process, so what differs between processes (page
 * placement, where the arrays fall) cancels; only the harness looks the
 * switch up, the kernels stay as they are.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PR_ITERS   20
#define PR_DAMPING 0.85

struct graph {
    long n;
    long *row; /* n + 1 offsets */
    long *adj; /* neighbours, both directions */
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* An R-MAT edge of a 2^scale-vertex graph (quadrant weights 0.57, 0.19,
 * 0.19, 0.05, the Graph500 ones): skewed degrees, as real graphs have. */
static void rmat(uint64_t *s, int scale, long *u, long *v)
{
    long a = 0, b = 0;
    for (int bit = 0; bit < scale; bit++) {
        double r = (double)(next_random(s) >> 11) * 0x1p-53;
        if (r >= 0.95) {
            a |= 1L << bit;
            b |= 1L << bit;
        } else if (r >= 0.76) {
            a |= 1L << bit;
        } else if (r >= 0.57) {
            b |= 1L << bit;
        }
    }
    *u = a;
    *v = b;
}

/* The undirected graph of n * degree / 2 R-MAT edges, as CSR. */
static int build(struct graph *g, int scale, int degree, uint64_t seed)
{
    long n = 1L << scale, m = n * degree / 2;
    long *eu = malloc((size_t)m * sizeof *eu), *ev = malloc((size_t)m * sizeof *ev);
    g->n = n;
    g->row = calloc((size_t)n + 1, sizeof *g->row);
    g->adj = malloc((size_t)(2 * m) * sizeof *g->adj);
    long *fill = calloc((size_t)n, sizeof *fill);
    if (!eu || !ev || !g->row || !g->adj || !fill)
        return -1;
    for (long e = 0; e < m; e++) {
        rmat(&seed, scale, &eu[e], &ev[e]);
        g->row[eu[e] + 1]++;
        g->row[ev[e] + 1]++;
    }
    for (long v = 0; v < n; v++)
        g->row[v + 1] += g->row[v];
    for (long e = 0; e < m; e++) {
        g->adj[g->row[eu[e]] + fill[eu[e]]++] = ev[e];
        g->adj[g->row[ev[e]] + fill[ev[e]]++] = eu[e];
    }
    free(eu);
    free(ev);
    free(fill);
    return 0;
}

/* ---- BFS: level by level, the frontier's vertices in chunks of 64 ---- */

static void bfs(const struct graph *g, long src, long *depth, long *front, long *next)
{
    long nf = 1, level = 0;
    for (long v = 0; v < g->n; v++)
        depth[v] = -1;
    depth[src] = 0;
    front[0] = src;
    while (nf > 0) {
        long nn = 0;
#pragma omp parallel for schedule(dynamic, 64)
        for (long k = 0; k < nf; k++) {
            long v = front[k];
            for (long e = g->row[v]; e < g->row[v + 1]; e++) {
                long u = g->adj[e], unseen = -1;
                if (__atomic_load_n(&depth[u], __ATOMIC_RELAXED) == -1 &&
                    __atomic_compare_exchange_n(&depth[u], &unseen, level + 1, 0, __ATOMIC_RELAXED,
                                                __ATOMIC_RELAXED))
                    next[__atomic_fetch_add(&nn, 1, __ATOMIC_RELAXED)] = u;
            }
        }
        long *t = front;
        front = next;
        next = t;
        nf = nn;
        level++;
    }
}

static int bfs_ok(const struct graph *g, long src, const long *depth)
{
    long *want = malloc((size_t)g->n * sizeof *want), *q = malloc((size_t)g->n * sizeof *q);
    long head = 0, tail = 0;
    int ok = want && q;
    for (long v = 0; ok && v < g->n; v++)
        want[v] = -1;
    if (ok) {
        want[src] = 0;
        q[tail++] = src;
    }
    while (ok && head < tail) {
        long v = q[head++];
        for (long e = g->row[v]; e < g->row[v + 1]; e++)
            if (want[g->adj[e]] < 0) {
                want[g->adj[e]] = want[v] + 1;
                q[tail++] = g->adj[e];
            }
    }
    for (long v = 0; ok && v < g->n; v++)
        ok = want[v] == depth[v];
    free(want);
    free(q);
    return ok;
}

/* ---- PageRank: pull sweeps over all vertices in chunks of 16384 ---- */

/* PR_ITERS sweeps; par = 0 runs them on one thread (the reference: each
 * vertex sums its neighbours in the same order, so results are equal). */
static void pagerank(const struct graph *g, double *rank, double *contrib, int par)
{
    long n = g->n;
    for (long v = 0; v < n; v++)
        rank[v] = 1.0 / (double)n;
    for (int it = 0; it < PR_ITERS; it++) {
#pragma omp parallel for schedule(dynamic, 16384) if (par)
        for (long v = 0; v < n; v++) {
            long d = g->row[v + 1] - g->row[v];
            contrib[v] = d ? rank[v] / (double)d : 0.0;
        }
#pragma omp parallel for schedule(dynamic, 16384) if (par)
        for (long v = 0; v < n; v++) {
            double s = 0.0;
            for (long e = g->row[v]; e < g->row[v + 1]; e++)
                s += contrib[g->adj[e]];
            rank[v] = (1.0 - PR_DAMPING) / (double)n + PR_DAMPING * s;
        }
    }
}

static int pagerank_ok(const struct graph *g, const double *rank)
{
    double *r = malloc((size_t)g->n * sizeof *r), *c = malloc((size_t)g->n * sizeof *c);
    int ok = r && c;
    if (ok)
        pagerank(g, r, c, 0);
    for (long v = 0; ok && v < g->n; v++)
        ok = r[v] == rank[v];
    free(r);
    free(c);
    return ok;
}

/* ---- Connected components: min-label propagation, chunks of 64 ---- */

static long components(const struct graph *g, long *label, long *fresh)
{
    long rounds = 0, changed = 1;
    for (long v = 0; v < g->n; v++)
        label[v] = v;
    while (changed) {
        changed = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(| : changed)
        for (long v = 0; v < g->n; v++) {
            long m = label[v];
            for (long e = g->row[v]; e < g->row[v + 1]; e++)
                if (label[g->adj[e]] < m)
                    m = label[g->adj[e]];
            fresh[v] = m;
            changed |= m != label[v];
        }
        memcpy(label, fresh, (size_t)g->n * sizeof *label);
        rounds++;
    }
    return rounds;
}

/* Each vertex's label is the smallest vertex of its component. */
static int components_ok(const struct graph *g, const long *label)
{
    long *root = malloc((size_t)g->n * sizeof *root);
    int ok = root != NULL;
    for (long v = 0; ok && v < g->n; v++)
        root[v] = v;
    for (long v = 0; ok && v < g->n; v++)
        for (long e = g->row[v]; e < g->row[v + 1]; e++) {
            long a = v, b = g->adj[e];
            while (root[a] != a)
                a = root[a] = root[root[a]];
            while (root[b] != b)
                b = root[b] = root[root[b]];
            if (a != b)
                root[a < b ? b : a] = a < b ? a : b;
        }
    for (long v = 0; ok && v < g->n; v++) {
        long a = v;
        while (root[a] != a)
            a = root[a];
        ok = label[v] == a;
    }
    free(root);
    return ok;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: lf-graph [--scale S] [--degree D] [--trials T] [--seed X] [--alternate]\n"
            "                [--block B] [--kernels LIST]\n"
            "  BFS, PageRank (%d sweeps) and connected components over an R-MAT graph of\n"
            "  2^S vertices and mean degree D, written as plain OpenMP loops with\n"
            "  schedule(dynamic, 64) (BFS frontiers, component labels) and\n"
            "  schedule(dynamic, 16384) (PageRank), to run under libgomp and under the\n"
            "  preload shim.  Prints each kernel's median and minimum over the trials\n"
            "  after the first, in ms; a result that differs from the sequential one\n"
            "  exits 3.\n"
            "  --scale S   log2 of the vertices [17]\n"
            "  --degree D  mean degree [16]\n"
            "  --trials T  runs of each kernel, the first not counted [11]\n"
            "  --seed X    the graph's seed [1]\n"
            "  --alternate run each kernel with the preloaded shim switched off\n"
            "              (libgomp's own schedule) and on, back to back, in every\n"
            "              trial (order swapped each trial); print both medians and\n"
            "              the median of the trials' on/off ratios (needs the shim\n"
            "              preloaded with LF_SCHEDULE or LF_REPLACE set); then the\n"
            "              ratio of the summed times (total) and, over blocks of B\n"
            "              trials in a row, the median of the blocks' summed-time\n"
            "              ratios with its quartiles (blk, bq1, bq3).  Beside a busy\n"
            "              process a trial lasts about one of its 4-ms time slices,\n"
            "              so single trials are bimodal and their median ratio can\n"
            "              flip between modes from run to run; a block spans many\n"
            "              slices\n"
            "  --block B   trials per block of --alternate's block ratios [10]\n"
            "  --kernels LIST  the kernels to run, comma-separated, of bfs, pagerank\n"
            "              and cc [all three]: one kernel alone makes a trial short,\n"
            "              so many trials fit in a run\n"
            "example: LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto lf-graph --trials 21\n"
            "         LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto lf-graph --alternate\n",
            PR_ITERS);
}

static long option(int argc, char **argv, int *a, long lo, long hi)
{
    char *end;
    long v = *a + 1 < argc ? strtol(argv[*a + 1], &end, 10) : 0;
    if (*a + 1 >= argc || *end || v < lo || v > hi) {
        fprintf(stderr, "lf-graph: %s: expected an integer in [%ld, %ld]\n", argv[*a], lo, hi);
        exit(2);
    }
    ++*a;
    return v;
}

/* What the kernels run on, and their outputs. */
struct work {
    struct graph g;
    long src;
    long *a, *b, *c;
    double *rank, *contrib;
};

static const char *const names[3] = {"bfs", "pagerank", "cc"};
#define KERNELS_EXPECTED "expected a comma-separated list of bfs, pagerank and cc"

/* --kernels LIST: sets want[k] for each kernel named in the comma-separated
 * LIST; 0, or -1 after a message naming what was expected. */
static int kernels_of(const char *list, int want[3])
{
    want[0] = want[1] = want[2] = 0;
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        int k = 0;
        while (k < 3 && !(strlen(names[k]) == len && !strncmp(p, names[k], len)))
            k++;
        if (k == 3) {
            fprintf(stderr, "lf-graph: --kernels: '%.*s' is not a kernel: " KERNELS_EXPECTED "\n",
                    (int)len, p);
            return -1;
        }
        want[k] = 1;
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* Run kernel k (0 BFS, 1 PageRank, 2 CC) once; its time in ms. */
static double run_kernel(struct work *w, int k)
{
    double t0 = now_ms();
    if (k == 0)
        bfs(&w->g, w->src, w->a, w->b, w->c);
    else if (k == 1)
        pagerank(&w->g, w->rank, w->contrib, 1);
    else
        components(&w->g, w->b, w->c);
    return now_ms() - t0;
}

/* Whether kernel k's latest output is the sequential one (CC overwrites BFS's depths: the
 * kernels are checked in the order they ran). */
static int kernel_ok(const struct work *w, int k)
{
    if (k == 0)
        return bfs_ok(&w->g, w->src, w->a);
    if (k == 1)
        return pagerank_ok(&w->g, w->rank);
    return components_ok(&w->g, w->b);
}

/* The median of v[0..n) (sorted in place). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The median, lower and upper quartiles of v[0..n), n >= 1 (sorts v in place). */
static void quartiles(double *v, int n, double q[3])
{
    q[0] = median(v, n);
    q[1] = v[(n - 1) / 4];
    q[2] = v[(3 * (n - 1)) / 4];
}

int main(int argc, char **argv)
{
    int scale = 17, degree = 16, trials = 11, alternate = 0;
    int block = 0;           /* --block B; 0: not given (10 blocks a row under --alternate) */
    int want[3] = {1, 1, 1}; /* --kernels */
    uint64_t seed = 1;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[a], "--scale")) {
            scale = (int)option(argc, argv, &a, 4, 28);
        } else if (!strcmp(argv[a], "--degree")) {
            degree = (int)option(argc, argv, &a, 1, 1024);
        } else if (!strcmp(argv[a], "--trials")) {
            trials = (int)option(argc, argv, &a, 2, 100000);
        } else if (!strcmp(argv[a], "--seed")) {
            seed = (uint64_t)option(argc, argv, &a, 0, 1L << 62);
        } else if (!strcmp(argv[a], "--alternate")) {
            alternate = 1;
        } else if (!strcmp(argv[a], "--block")) {
            block = (int)option(argc, argv, &a, 1, 100000);
        } else if (!strcmp(argv[a], "--kernels")) {
            if (a + 1 >= argc) {
                fprintf(stderr, "lf-graph: --kernels: " KERNELS_EXPECTED "\n");
                return 2;
            }
            if (kernels_of(argv[++a], want) < 0)
                return 2;
        } else {
            fprintf(stderr, "lf-graph: unknown option %s\n", argv[a]);
            usage(stderr);
            return 2;
        }
    }
    if (block && !alternate) {
        fprintf(stderr,
                "lf-graph: --block sizes --alternate's block ratios: give --alternate too\n");
        return 2;
    }
    if (!block)
        block = 10;
    /* The shim's switch, looked up as any program would (no link to loopfarm). */
    int (*shim_enable)(int) = NULL;
    if (alternate) {
        *(void **)&shim_enable = dlsym(RTLD_DEFAULT, "lf_shim_enable");
        int rc = shim_enable ? shim_enable(1) : 0;
        if (!shim_enable || rc < 0) {
            fprintf(stderr,
                    "lf-graph: --alternate needs the preload shim with a schedule: "
                    "LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto lf-graph --alternate "
                    "(%s)\n",
                    shim_enable ? "the shim is preloaded, but neither LF_SCHEDULE nor LF_REPLACE "
                                  "is set"
                                : "no lf_shim_enable in this process: the shim is not preloaded");
            return 2;
        }
    }
    struct work w;
    if (build(&w.g, scale, degree, seed) != 0) {
        fprintf(stderr, "lf-graph: out of memory for a graph of 2^%d vertices\n", scale);
        return 1;
    }
    long n = w.g.n;
    w.src = 0;
    for (long v = 0; v < n; v++) /* the best-connected vertex */
        if (w.g.row[v + 1] - w.g.row[v] > w.g.row[w.src + 1] - w.g.row[w.src])
            w.src = v;
    w.a = malloc((size_t)n * sizeof *w.a);
    w.b = malloc((size_t)n * sizeof *w.b);
    w.c = malloc((size_t)n * sizeof *w.c);
    w.rank = malloc((size_t)n * sizeof *w.rank);
    w.contrib = malloc((size_t)n * sizeof *w.contrib);
    int modes = alternate ? 2 : 1;
    /* t[mode][k][r]: mode 0 the shim off (or not asked for), 1 on. */
    double *t[2][3] = {{NULL}};
    int short_of_memory = !w.a || !w.b || !w.c || !w.rank || !w.contrib;
    for (int m = 0; m < modes; m++)
        for (int k = 0; k < 3; k++)
            short_of_memory |= !(t[m][k] = malloc((size_t)trials * sizeof(double)));
    if (short_of_memory) {
        fprintf(stderr, "lf-graph: out of memory\n");
        return 1;
    }
    int ok = 1;
    for (int r = 0; r < trials; r++)
        for (int k = 0; k < 3; k++)
            for (int i = 0; i < modes && want[k]; i++) {
                /* Alternating: off then on in even trials, on then off in odd ones. */
                int m = alternate ? (i + r) % 2 : 0;
                if (alternate && shim_enable(m) < 0) {
                    fprintf(stderr, "lf-graph: lf_shim_enable(%d) refused\n", m);
                    return 1;
                }
                t[m][k][r] = run_kernel(&w, k);
                if ((r == 0 || r == trials - 1) && !kernel_ok(&w, k)) {
                    fprintf(stderr, "lf-graph: %s's result%s differs from the sequential one\n",
                            names[k], alternate ? (m ? " (shim on)" : " (shim off)") : "");
                    ok = 0;
                }
            }
    if (alternate)
        shim_enable(1);
    int counted = trials - 1; /* the first trial is a warm-up */
    if (ok && !alternate)
        printf("%-10s %8s %6s %4s %10s %10s\n", "kernel", "vertices", "degree", "thr", "median_ms",
               "min_ms");
    if (ok && alternate)
        printf("%-10s %8s %6s %4s %10s %10s %8s %8s %8s %8s %8s %8s %8s\n", "kernel", "vertices",
               "degree", "thr", "off_ms", "on_ms", "on/off", "q1", "q3", "total", "blk", "bq1",
               "bq3");
    for (int k = 0; ok && k < 3; k++) {
        if (!want[k])
            continue;
        if (!alternate) {
            double med = median(t[0][k] + 1, counted);
            printf("%-10s %8ld %6d %4d %10.3f %10.3f\n", names[k], n, degree, omp_get_max_threads(),
                   med, t[0][k][1]);
            continue;
        }
        double *ratio = malloc((size_t)counted * sizeof *ratio);
        /* Blocks of `block` counted trials in a row (a last partial block
         * counts when it holds at least half a block). */
        int nblk = 0;
        double *bratio = malloc((size_t)(counted / block + 1) * sizeof *bratio);
        if (!ratio || !bratio) {
            fprintf(stderr, "lf-graph: out of memory\n");
            return 1;
        }
        double on = 0.0, off = 0.0, bon = 0.0, boff = 0.0;
        for (int r = 1; r < trials; r++) {
            ratio[r - 1] = t[1][k][r] / t[0][k][r];
            on += t[1][k][r];
            off += t[0][k][r];
            bon += t[1][k][r];
            boff += t[0][k][r];
            int in_block = (r - 1) % block + 1;
            if (in_block == block || (r == trials - 1 && 2 * in_block >= block)) {
                bratio[nblk++] = bon / boff;
                bon = boff = 0.0;
            }
        }
        double rq[3], bq[3];
        quartiles(ratio, counted, rq);
        printf("%-10s %8ld %6d %4d %10.3f %10.3f %8.3f %8.3f %8.3f %8.3f", names[k], n, degree,
               omp_get_max_threads(), median(t[0][k] + 1, counted), median(t[1][k] + 1, counted),
               rq[0], rq[1], rq[2], on / off);
        if (nblk) {
            quartiles(bratio, nblk, bq);
            printf(" %8.3f %8.3f %8.3f\n", bq[0], bq[1], bq[2]);
        } else /* fewer counted trials than half a block */
            printf(" %8s %8s %8s\n", "-", "-", "-");
        free(ratio);
        free(bratio);
    }
    for (int m = 0; m < modes; m++)
        for (int k = 0; k < 3; k++)
            free(t[m][k]);
    free(w.a);
    free(w.b);
    free(w.c);
    free(w.rank);
    free(w.contrib);
    free(w.g.row);
    free(w.g.adj);
    return ok ? 0 : 3;
}
