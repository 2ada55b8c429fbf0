/* bench/lf-graph.c - graph kernels as an unmodified OpenMP application
 * writes them (the GAP benchmark's BFS, PageRank, connected components,
 * single-source shortest paths, betweenness centrality and triangle
 * counting over an R-MAT graph), for running under libgomp as built and
 * under the preload shim (LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto).
 *
 * Nothing here knows loopfarm: the loops are plain `omp for
 * schedule(dynamic, CHUNK)` loops with the chunk sizes the GAP benchmark
 * writes (64 for frontier, label, shortest-path, centrality and triangle
 * loops, 16384 for PageRank's vertex sweeps: a few scheduling units per
 * loop); SSSP's loop is an orphaned `omp for nowait` inside one parallel
 * region, as GAP's delta-stepping writes it.  Every kernel's result is
 * checked against a sequential computation; a wrong result exits 3.  The
 * file compiles as C and as C++ (bench/lf-graph-cxx.cc includes it), so
 * the same kernels run as a g++ -fopenmp program.
 *
 *   lf-graph [--scale S] [--degree D] [--trials T] [--seed X] [--alternate]
 *            [--block B] [--kernels LIST] [--no-check]
 *
 * Prints per kernel the median and minimum time of the trials after the
 * first (steady state) and the sum over all trials, the first included
 * (what the process spent in the kernel), in ms.  With --alternate (the shim preloaded and
 * configured) each trial runs every kernel twice in a row, once with the
 * shim switched off (lf_shim_enable(0): libgomp's own schedule) and once
 * on, the order swapped from one trial to the next, and prints both
 * medians and the median of the per-trial ratios: the two run on the same
 * graph in the same process, so what differs between processes (page
 * placement, where the arrays fall) cancels; only the harness looks the
 * switch up, the kernels stay as they are.
 */
#ifndef _GNU_SOURCE /* g++ defines it */
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PR_ITERS   20
#define PR_DAMPING 0.85
#define BC_SOURCES 4 /* Brandes passes, one per source, summed */
#define KERNELS    6

/* The graph as the GAP benchmark's builder leaves it: undirected, each
 * vertex's neighbours sorted, without duplicates or self-loops. */
struct graph {
    long n;
    long *row; /* n + 1 offsets */
    long *adj; /* neighbours, both directions, sorted per vertex */
    int *wt;   /* wt[e]: the weight in [1, 255] of edge adj[e], equal in both directions */
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

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/* The weight of edge {u, v}: a hash of its two ends, so both directions
 * agree, in [1, 255] as the GAP benchmark's weights are. */
static int edge_weight(long u, long v)
{
    uint64_t s = (uint64_t)(u < v ? u : v) * 0x100000001b3ULL ^ (uint64_t)(u < v ? v : u);
    return 1 + (int)(next_random(&s) % 255);
}

/* Sort each vertex's neighbours and drop duplicates and self-loops,
 * compacting adj and row in place; then weigh every edge.  keep[v] is
 * scratch (n longs).  The per-vertex loops are schedule(static), as the
 * GAP benchmark's builder writes them, which the shim leaves to libgomp. */
static int squish(struct graph *g, long *keep)
{
#pragma omp parallel for schedule(static)
    for (long v = 0; v < g->n; v++) {
        long start = g->row[v], end = g->row[v + 1], out = start, prev = -1;
        qsort(g->adj + start, (size_t)(end - start), sizeof *g->adj, cmp_long);
        for (long e = start; e < end; e++) {
            if (g->adj[e] != v && g->adj[e] != prev)
                g->adj[out++] = g->adj[e];
            prev = g->adj[e];
        }
        keep[v] = out - start;
    }
    long out = 0; /* where vertex v's kept neighbours move to (never right of where they are) */
    for (long v = 0; v < g->n; v++) {
        memmove(g->adj + out, g->adj + g->row[v], (size_t)keep[v] * sizeof *g->adj);
        g->row[v] = out;
        out += keep[v];
    }
    g->row[g->n] = out;
    g->wt = (int *)malloc((size_t)(out ? out : 1) * sizeof *g->wt);
    if (!g->wt)
        return -1;
#pragma omp parallel for schedule(static)
    for (long v = 0; v < g->n; v++)
        for (long e = g->row[v]; e < g->row[v + 1]; e++)
            g->wt[e] = edge_weight(v, g->adj[e]);
    return 0;
}

/* The undirected graph of n * degree / 2 R-MAT edges, as squished CSR.
 * Edge e is drawn from the random stream at e * scale (each edge takes
 * scale draws), so the graph does not depend on the threads. */
static int build(struct graph *g, int scale, int degree, uint64_t seed)
{
    long n = 1L << scale, m = n * degree / 2;
    long *eu = (long *)malloc((size_t)m * sizeof *eu), *ev = (long *)malloc((size_t)m * sizeof *ev);
    g->n = n;
    g->row = (long *)calloc((size_t)n + 1, sizeof *g->row);
    g->adj = (long *)malloc((size_t)(2 * m) * sizeof *g->adj);
    g->wt = NULL;
    long *fill = (long *)calloc((size_t)n, sizeof *fill);
    if (!eu || !ev || !g->row || !g->adj || !fill)
        return -1;
#pragma omp parallel for schedule(static)
    for (long e = 0; e < m; e++) {
        uint64_t s = seed + (uint64_t)e * (uint64_t)scale * 0x9e3779b97f4a7c15ULL;
        rmat(&s, scale, &eu[e], &ev[e]);
        __atomic_fetch_add(&g->row[eu[e] + 1], 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&g->row[ev[e] + 1], 1, __ATOMIC_RELAXED);
    }
    for (long v = 0; v < n; v++)
        g->row[v + 1] += g->row[v];
        /* Each vertex's slots in any order: squish sorts them. */
#pragma omp parallel for schedule(static)
    for (long e = 0; e < m; e++) {
        g->adj[g->row[eu[e]] + __atomic_fetch_add(&fill[eu[e]], 1, __ATOMIC_RELAXED)] = ev[e];
        g->adj[g->row[ev[e]] + __atomic_fetch_add(&fill[ev[e]], 1, __ATOMIC_RELAXED)] = eu[e];
    }
    free(eu);
    free(ev);
    int rc = squish(g, fill);
    free(fill);
    return rc;
}

/* ---- BFS: level by level, the frontier's vertices in chunks of 64 ---- */

/* Visit u's neighbours in a level-synchronous search: each one still
 * unseen (depth -1) that this thread claims gets depth `level` and is
 * appended to out at the atomic count *tail (by any thread concurrently). */
static void expand(const struct graph *g, long u, long *depth, long level, long *out, long *tail)
{
    for (long e = g->row[u]; e < g->row[u + 1]; e++) {
        long v = g->adj[e], unseen = -1;
        if (__atomic_load_n(&depth[v], __ATOMIC_RELAXED) == -1 &&
            __atomic_compare_exchange_n(&depth[v], &unseen, level, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            out[__atomic_fetch_add(tail, 1, __ATOMIC_RELAXED)] = v;
    }
}

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
        for (long k = 0; k < nf; k++)
            expand(g, front[k], depth, level + 1, next, &nn);
        long *t = front;
        front = next;
        next = t;
        nf = nn;
        level++;
    }
}

static int bfs_ok(const struct graph *g, long src, const long *depth)
{
    long *want = (long *)malloc((size_t)g->n * sizeof *want),
         *q = (long *)malloc((size_t)g->n * sizeof *q);
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
    long *root = (long *)malloc((size_t)g->n * sizeof *root);
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

/* ---- SSSP: label-correcting rounds over a frontier, chunks of 64 ---- */

/* Bellman-Ford by frontiers: each round relaxes the out-edges of the
 * vertices whose distance fell in the round before.  As the GAP benchmark's
 * delta-stepping, it is one parallel region whose frontier loop is an
 * orphaned `omp for nowait schedule(dynamic, 64)` followed by a barrier.
 * stamp[v] is the last round whose frontier v was put on, so that a vertex
 * improved twice in a round is queued once. */
static void sssp(const struct graph *g, long src, long *dist, long *front, long *next, long *stamp)
{
    long nf = 1, nn = 0, round = 0;
    for (long v = 0; v < g->n; v++) {
        dist[v] = LONG_MAX;
        stamp[v] = 0;
    }
    dist[src] = 0;
    front[0] = src;
#pragma omp parallel
    for (;;) {
#pragma omp for nowait schedule(dynamic, 64)
        for (long k = 0; k < nf; k++) {
            long u = front[k], du = __atomic_load_n(&dist[u], __ATOMIC_RELAXED);
            for (long e = g->row[u]; e < g->row[u + 1]; e++) {
                long v = g->adj[e], nd = du + g->wt[e];
                long old = __atomic_load_n(&dist[v], __ATOMIC_RELAXED);
                while (nd < old) {
                    if (__atomic_compare_exchange_n(&dist[v], &old, nd, 0, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED)) {
                        if (__atomic_exchange_n(&stamp[v], round + 1, __ATOMIC_RELAXED) !=
                            round + 1)
                            next[__atomic_fetch_add(&nn, 1, __ATOMIC_RELAXED)] = v;
                        break;
                    }
                }
            }
        }
#pragma omp barrier
#pragma omp single
        {
            long *t = front;
            front = next;
            next = t;
            nf = nn;
            nn = 0;
            round++;
        }
        /* The single's barrier: every thread reads the same nf. */
        if (nf == 0)
            break;
    }
}

/* The reference: a sequential FIFO label-correcting search (each vertex
 * queued at most once at a time), a different order than the rounds'. */
static int sssp_reference(const struct graph *g, long src, long *dist)
{
    long n = g->n, head = 0, tail = 0;
    long *q = (long *)malloc((size_t)(n + 1) * sizeof *q); /* a ring: empty when head == tail */
    char *queued = (char *)calloc((size_t)n, 1);
    if (!q || !queued) {
        free(q);
        free(queued);
        return -1;
    }
    for (long v = 0; v < n; v++)
        dist[v] = LONG_MAX;
    dist[src] = 0;
    q[tail++] = src;
    queued[src] = 1;
    while (head != tail) {
        long u = q[head];
        head = (head + 1) % (n + 1);
        queued[u] = 0;
        for (long e = g->row[u]; e < g->row[u + 1]; e++) {
            long v = g->adj[e];
            if (dist[u] + g->wt[e] < dist[v]) {
                dist[v] = dist[u] + g->wt[e];
                if (!queued[v]) {
                    queued[v] = 1;
                    q[tail] = v;
                    tail = (tail + 1) % (n + 1);
                }
            }
        }
    }
    free(q);
    free(queued);
    return 0;
}

/* ---- BC: Brandes from a few sources, level loops in chunks of 64 ---- */

/* Brandes' betweenness centrality (U. Brandes, "A faster algorithm for
 * betweenness centrality", J. Mathematical Sociology 25(2), 2001) summed
 * over srcs[0..ns).  Per source: a level-synchronous BFS (each level's
 * expansion one loop, its vertices' shortest-path counts sigma pulled from
 * the level above in a second loop), then the dependencies delta pulled
 * level by level from the deepest.  Each vertex sums its neighbours in
 * adjacency order, so the sums do not depend on the schedule; par = 0
 * runs every loop on one thread (the reference).  order[] holds the
 * vertices level by level, lvl[d] where level d starts. */
static void bc(const struct graph *g, const long *srcs, int ns, long *depth, long *order, long *lvl,
               double *sigma, double *delta, double *score, int par)
{
    long n = g->n;
    for (long v = 0; v < n; v++)
        score[v] = 0.0;
    for (int s = 0; s < ns; s++) {
        long levels = 0, tail = 1;
        for (long v = 0; v < n; v++) {
            depth[v] = -1;
            sigma[v] = 0.0;
            delta[v] = 0.0;
        }
        depth[srcs[s]] = 0;
        sigma[srcs[s]] = 1.0;
        order[0] = srcs[s];
        lvl[0] = 0;
        lvl[1] = 1;
        for (long d = 0; lvl[d + 1] > lvl[d]; d++) {
            long lo = lvl[d], hi = lvl[d + 1];
#pragma omp parallel for schedule(dynamic, 64) if (par)
            for (long k = lo; k < hi; k++)
                expand(g, order[k], depth, d + 1, order, &tail);
            lvl[d + 2] = tail;
#pragma omp parallel for schedule(dynamic, 64) if (par)
            for (long k = hi; k < tail; k++) {
                long v = order[k];
                double sv = 0.0;
                for (long e = g->row[v]; e < g->row[v + 1]; e++)
                    if (depth[g->adj[e]] == d)
                        sv += sigma[g->adj[e]];
                sigma[v] = sv;
            }
            levels = d + 1;
        }
        for (long d = levels - 1; d >= 0; d--) {
#pragma omp parallel for schedule(dynamic, 64) if (par)
            for (long k = lvl[d]; k < lvl[d + 1]; k++) {
                long u = order[k];
                double du = 0.0;
                for (long e = g->row[u]; e < g->row[u + 1]; e++) {
                    long v = g->adj[e];
                    if (depth[v] == d + 1)
                        du += sigma[u] / sigma[v] * (1.0 + delta[v]);
                }
                delta[u] = du;
                score[u] += du;
            }
        }
    }
}

/* ---- TC: ordered triangle counting, chunks of 64 ---- */

/* Each triangle w < v < u counted once, at u, by merging u's and v's
 * sorted neighbour lists (as the GAP benchmark's OrderedCount). */
static long triangles(const struct graph *g)
{
    long total = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : total)
    for (long u = 0; u < g->n; u++) {
        for (long e = g->row[u]; e < g->row[u + 1] && g->adj[e] < u; e++) {
            long v = g->adj[e], f = g->row[v];
            for (long x = g->row[u]; x < g->row[u + 1] && g->adj[x] < v; x++) {
                while (g->adj[f] < g->adj[x])
                    f++;
                total += g->adj[f] == g->adj[x];
            }
        }
    }
    return total;
}

/* The reference: for each u, mark its neighbours, then count the marked
 * neighbours w < v of each neighbour v < u (no merging); -1 when out of
 * memory. */
static long triangles_reference(const struct graph *g)
{
    long total = 0;
    char *mark = (char *)calloc((size_t)g->n, 1);
    if (!mark)
        return -1;
    for (long u = 0; u < g->n; u++) {
        for (long e = g->row[u]; e < g->row[u + 1]; e++)
            mark[g->adj[e]] = 1;
        for (long e = g->row[u]; e < g->row[u + 1]; e++) {
            long v = g->adj[e];
            if (v >= u)
                continue;
            for (long x = g->row[v]; x < g->row[v + 1]; x++)
                total += g->adj[x] < v && mark[g->adj[x]];
        }
        for (long e = g->row[u]; e < g->row[u + 1]; e++)
            mark[g->adj[e]] = 0;
    }
    free(mark);
    return total;
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
            "                [--block B] [--kernels LIST] [--no-check]\n"
            "  The GAP benchmark's kernels over an R-MAT graph of 2^S vertices and mean\n"
            "  degree D (duplicate edges and self-loops dropped, weights in [1, 255]),\n"
            "  written as plain OpenMP loops with the GAP benchmark's schedules: BFS\n"
            "  (frontiers, schedule(dynamic, 64)), PageRank (%d sweeps, dynamic, 16384),\n"
            "  connected components (label propagation, dynamic, 64), SSSP (frontier\n"
            "  rounds, an orphaned omp for nowait with dynamic, 64), BC (Brandes from %d\n"
            "  sources, dynamic, 64) and triangle counting (dynamic, 64), to run under\n"
            "  libgomp and under the preload shim.  Prints each kernel's median and\n"
            "  minimum over the trials after the first and the sum over all trials, in\n"
            "  ms; a result that differs from the sequential one exits 3.\n"
            "  --scale S   log2 of the vertices [17]\n"
            "  --degree D  mean degree [16]\n"
            "  --trials T  runs of each kernel, the first not counted in the median [11]\n"
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
            "  --kernels LIST  the kernels to run, comma-separated, of bfs, pagerank,\n"
            "              cc, sssp, bc and tc, or all [bfs,pagerank,cc]: one kernel\n"
            "              alone makes a trial short, so many trials fit in a run;\n"
            "              an item name:T gives that kernel T trials (T >= 1; one\n"
            "              trial is its own median) instead of --trials's\n"
            "  --no-check  skip the comparisons with the sequential results (for\n"
            "              timing runs after a checked one: the references of a large\n"
            "              graph take longer than the kernels)\n"
            "example: LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto lf-graph --trials 21\n"
            "         LD_PRELOAD=libloopfarm-gomp.so LF_SCHEDULE=auto lf-graph --alternate\n",
            PR_ITERS, BC_SOURCES);
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

/* What the kernels run on, their outputs (scratch shared between kernels:
 * each kernel is checked right after it ran) and the sequential references,
 * each computed once, when first needed. */
struct work {
    struct graph g;
    long src;              /* BFS's and SSSP's source: the best-connected vertex */
    long srcs[BC_SOURCES]; /* BC's sources, src first */
    long *a, *b, *c, *d;   /* n + 2 longs each */
    double *x, *y, *z;     /* n doubles each */
    long tri;              /* TC's count */
    double *ref_rank, *ref_score;
    long *ref_dist;
    long ref_tri; /* -2: not computed yet */
};

static const char *const names[KERNELS] = {"bfs", "pagerank", "cc", "sssp", "bc", "tc"};
#define KERNELS_EXPECTED                                                                           \
    "expected a comma-separated list of bfs, pagerank, cc, sssp, bc and tc, or all"

/* --kernels LIST: sets want[k] for each kernel named in the comma-separated
 * LIST ("all": every one) to its trials, T of an item "name:T", -1 (--trials)
 * for a bare name, and the others to 0; 0, or -1 after a message naming what
 * was expected. */
static int kernels_of(const char *list, int want[KERNELS])
{
    for (int k = 0; k < KERNELS; k++)
        want[k] = strcmp(list, "all") ? 0 : -1;
    if (!strcmp(list, "all"))
        return 0;
    for (const char *p = list;;) {
        size_t len = strcspn(p, ","), name = strcspn(p, ",:");
        int k = 0;
        while (k < KERNELS && !(strlen(names[k]) == name && !strncmp(p, names[k], name)))
            k++;
        if (k == KERNELS) {
            fprintf(stderr, "lf-graph: --kernels: '%.*s' is not a kernel: " KERNELS_EXPECTED "\n",
                    (int)name, p);
            return -1;
        }
        want[k] = -1;
        if (name < len) {
            char *end;
            long t = strtol(p + name + 1, &end, 10);
            if (end != p + len || end == p + name + 1 || t < 1 || t > 100000) {
                fprintf(stderr,
                        "lf-graph: --kernels: '%.*s': expected name:T with T trials in "
                        "[1, 100000]\n",
                        (int)len, p);
                return -1;
            }
            want[k] = (int)t;
        }
        if (!p[len])
            return 0;
        p += len + 1;
    }
}

/* Run kernel k (an index of names[]) once; its time in ms. */
static double run_kernel(struct work *w, int k)
{
    double t0 = now_ms();
    switch (k) {
    case 0:
        bfs(&w->g, w->src, w->a, w->b, w->c);
        break;
    case 1:
        pagerank(&w->g, w->x, w->y, 1);
        break;
    case 2:
        components(&w->g, w->b, w->c);
        break;
    case 3:
        sssp(&w->g, w->src, w->a, w->b, w->c, w->d);
        break;
    case 4:
        bc(&w->g, w->srcs, BC_SOURCES, w->a, w->b, w->d, w->x, w->y, w->z, 1);
        break;
    default:
        w->tri = triangles(&w->g);
    }
    return now_ms() - t0;
}

/* BC's reference scores, by the same passes on one thread into fresh
 * arrays; NULL when out of memory. */
static double *bc_reference(const struct work *w)
{
    size_t n = (size_t)w->g.n;
    long *depth = (long *)malloc(n * sizeof *depth), *order = (long *)malloc(n * sizeof *order),
         *lvl = (long *)malloc((n + 2) * sizeof *lvl);
    double *sigma = (double *)malloc(n * sizeof *sigma),
           *delta = (double *)malloc(n * sizeof *delta),
           *score = (double *)malloc(n * sizeof *score);
    if (depth && order && lvl && sigma && delta && score)
        bc(&w->g, w->srcs, BC_SOURCES, depth, order, lvl, sigma, delta, score, 0);
    else {
        free(score);
        score = NULL;
    }
    free(depth);
    free(order);
    free(lvl);
    free(sigma);
    free(delta);
    return score;
}

/* Whether x[0..n) and y[0..n) hold equal values. */
static int same_doubles(const double *x, const double *y, long n)
{
    for (long v = 0; v < n; v++)
        if (x[v] != y[v])
            return 0;
    return 1;
}

/* Whether kernel k's latest output is the sequential one (kernels share
 * scratch arrays: each is checked right after it ran).  A reference that
 * does not fit in memory fails the check, with a message. */
static int kernel_ok(struct work *w, int k)
{
    long n = w->g.n;
    switch (k) {
    case 0:
        return bfs_ok(&w->g, w->src, w->a);
    case 1:
        if (!w->ref_rank) {
            double *c = (double *)malloc((size_t)n * sizeof *c);
            w->ref_rank = (double *)malloc((size_t)n * sizeof *w->ref_rank);
            if (c && w->ref_rank)
                pagerank(&w->g, w->ref_rank, c, 0);
            free(c);
            if (!c) {
                free(w->ref_rank);
                w->ref_rank = NULL;
            }
        }
        if (!w->ref_rank)
            break;
        return same_doubles(w->x, w->ref_rank, n);
    case 2:
        return components_ok(&w->g, w->b);
    case 3:
        if (!w->ref_dist) {
            w->ref_dist = (long *)malloc((size_t)n * sizeof *w->ref_dist);
            if (w->ref_dist && sssp_reference(&w->g, w->src, w->ref_dist) < 0) {
                free(w->ref_dist);
                w->ref_dist = NULL;
            }
        }
        if (!w->ref_dist)
            break;
        return !memcmp(w->a, w->ref_dist, (size_t)n * sizeof *w->a);
    case 4:
        if (!w->ref_score)
            w->ref_score = bc_reference(w);
        if (!w->ref_score)
            break;
        return same_doubles(w->z, w->ref_score, n);
    default:
        if (w->ref_tri == -2)
            w->ref_tri = triangles_reference(&w->g);
        if (w->ref_tri < 0)
            break;
        return w->tri == w->ref_tri;
    }
    fprintf(stderr, "lf-graph: out of memory for %s's sequential reference\n", names[k]);
    return 0;
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
    int block = 0; /* --block B; 0: not given (10 blocks a row under --alternate) */
    int want[KERNELS] = {-1, -1, -1, 0, 0, 0}; /* --kernels: trials, -1 --trials's, 0 none */
    int check = 1;                             /* 0: --no-check */
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
        } else if (!strcmp(argv[a], "--no-check")) {
            check = 0;
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
    int kt[KERNELS], most = 0; /* each kernel's trials, and the most of them */
    for (int k = 0; k < KERNELS; k++) {
        kt[k] = want[k] < 0 ? trials : want[k];
        most = kt[k] > most ? kt[k] : most;
        if (alternate && kt[k] == 1) {
            fprintf(stderr,
                    "lf-graph: --alternate compares trials after the first: give %s "
                    "at least 2 trials\n",
                    names[k]);
            return 2;
        }
    }
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
    /* BC's other sources: vertices drawn from the seed, skipping isolated ones. */
    w.srcs[0] = w.src;
    for (int s = 1; s < BC_SOURCES; s++) {
        uint64_t draw = seed + (uint64_t)s;
        do
            w.srcs[s] = (long)(next_random(&draw) % (uint64_t)n);
        while (w.g.row[w.srcs[s] + 1] == w.g.row[w.srcs[s]]);
    }
    size_t longs = ((size_t)n + 2) * sizeof(long), doubles = (size_t)n * sizeof(double);
    w.a = (long *)malloc(longs);
    w.b = (long *)malloc(longs);
    w.c = (long *)malloc(longs);
    w.d = (long *)malloc(longs);
    w.x = (double *)malloc(doubles);
    w.y = (double *)malloc(doubles);
    w.z = (double *)malloc(doubles);
    w.ref_rank = w.ref_score = NULL;
    w.ref_dist = NULL;
    w.ref_tri = -2;
    int modes = alternate ? 2 : 1;
    /* t[mode][k][r]: mode 0 the shim off (or not asked for), 1 on. */
    double *t[2][KERNELS] = {{NULL}};
    int short_of_memory = !w.a || !w.b || !w.c || !w.d || !w.x || !w.y || !w.z;
    for (int m = 0; m < modes; m++)
        for (int k = 0; k < KERNELS; k++)
            short_of_memory |= !(t[m][k] = (double *)malloc((size_t)most * sizeof(double)));
    if (short_of_memory) {
        fprintf(stderr, "lf-graph: out of memory\n");
        return 1;
    }
    int ok = 1;
    for (int r = 0; r < most; r++)
        for (int k = 0; k < KERNELS; k++)
            for (int i = 0; i < modes && r < kt[k]; i++) {
                /* Alternating: off then on in even trials, on then off in odd ones. */
                int m = alternate ? (i + r) % 2 : 0;
                if (alternate && shim_enable(m) < 0) {
                    fprintf(stderr, "lf-graph: lf_shim_enable(%d) refused\n", m);
                    return 1;
                }
                t[m][k][r] = run_kernel(&w, k);
                if (check && (r == 0 || r == kt[k] - 1) && !kernel_ok(&w, k)) {
                    fprintf(stderr, "lf-graph: %s's result%s differs from the sequential one\n",
                            names[k], alternate ? (m ? " (shim on)" : " (shim off)") : "");
                    ok = 0;
                }
            }
    if (alternate)
        shim_enable(1);
    if (ok && !alternate)
        printf("%-10s %8s %6s %4s %10s %10s %10s\n", "kernel", "vertices", "degree", "thr",
               "median_ms", "min_ms", "sum_ms");
    if (ok && alternate)
        printf("%-10s %8s %6s %4s %10s %10s %8s %8s %8s %8s %8s %8s %8s\n", "kernel", "vertices",
               "degree", "thr", "off_ms", "on_ms", "on/off", "q1", "q3", "total", "blk", "bq1",
               "bq3");
    for (int k = 0; ok && k < KERNELS; k++) {
        if (!kt[k])
            continue;
        int counted = kt[k] - 1, first = counted > 0; /* the first trial is a warm-up */
        if (!alternate) {
            double sum = 0.0;
            for (int r = 0; r < kt[k]; r++)
                sum += t[0][k][r];
            /* One trial alone: its time is the median and the minimum. */
            double med = median(t[0][k] + first, counted + !first);
            printf("%-10s %8ld %6d %4d %10.3f %10.3f %10.3f\n", names[k], n, degree,
                   omp_get_max_threads(), med, t[0][k][first], sum);
            continue;
        }
        double *ratio = (double *)malloc((size_t)counted * sizeof *ratio);
        /* Blocks of `block` counted trials in a row (a last partial block
         * counts when it holds at least half a block). */
        int nblk = 0;
        double *bratio = (double *)malloc((size_t)(counted / block + 1) * sizeof *bratio);
        if (!ratio || !bratio) {
            fprintf(stderr, "lf-graph: out of memory\n");
            return 1;
        }
        double on = 0.0, off = 0.0, bon = 0.0, boff = 0.0;
        for (int r = 1; r < kt[k]; r++) {
            ratio[r - 1] = t[1][k][r] / t[0][k][r];
            on += t[1][k][r];
            off += t[0][k][r];
            bon += t[1][k][r];
            boff += t[0][k][r];
            int in_block = (r - 1) % block + 1;
            if (in_block == block || (r == kt[k] - 1 && 2 * in_block >= block)) {
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
        for (int k = 0; k < KERNELS; k++)
            free(t[m][k]);
    free(w.a);
    free(w.b);
    free(w.c);
    free(w.d);
    free(w.x);
    free(w.y);
    free(w.z);
    free(w.ref_rank);
    free(w.ref_score);
    free(w.ref_dist);
    free(w.g.row);
    free(w.g.adj);
    free(w.g.wt);
    return ok ? 0 : 3;
}
