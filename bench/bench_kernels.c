/* bench/bench_kernels.c - lf-bench's kernels.
 *
 * Every kernel computes iteration i's value as a pure function of i and data
 * built once from a seed, so a parallel run must reproduce the sequential run
 * bit for bit.  The spin family (spin, triangle, random) does real dependent
 * arithmetic for a number of steps calibrated at start-up: no clock is read
 * and nothing sleeps inside an iteration, so a loaded core really runs it
 * slower.
 *
 * The data kernels (stream, stencil) read an input placed on NUMA domains
 * (--placement).  Iteration i is a block of `grain` doubles, and its reads
 * are charged block by block, pass by pass, with lf_numa_charge on the
 * address actually read: under LF_FAKE_NUMA a thread reading a block that
 * lies on another domain waits the emulated transfer (lat + bytes / G ns),
 * and a block the library staged into the thread's own domain costs
 * nothing more.  Charging per iteration is the one rule that every
 * schedule can follow (an omp: loop does not know its chunks), and with
 * blocks of kilobytes it is a realistic one: the latency of a transfer is
 * paid per block, not per double.
 */
#include "bench.h"

#include <errno.h>
#include <loopfarm.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const kernel_names[KERNEL_COUNT] = {
    "spin", "triangle", "random", "mandelbrot", "spmv", "calcium", "stream", "stencil", "graph",
};

static const char *const placement_names[PLACE_COUNT] = {"node0", "blocked"};

const char *bench_kernel_name(enum bench_kernel_id id)
{
    return (unsigned)id < KERNEL_COUNT ? kernel_names[id] : "?";
}

int bench_kernel_lookup(const char *name)
{
    for (int k = 0; k < KERNEL_COUNT; k++)
        if (strcmp(name, kernel_names[k]) == 0)
            return k;
    return -1;
}

int bench_kernel_has_data(enum bench_kernel_id id)
{
    return id == KERNEL_STREAM || id == KERNEL_STENCIL;
}

const char *bench_placement_name(enum bench_placement p)
{
    return (unsigned)p < PLACE_COUNT ? placement_names[p] : "?";
}

int bench_placement_lookup(const char *name)
{
    for (int p = 0; p < PLACE_COUNT; p++)
        if (strcmp(name, placement_names[p]) == 0)
            return p;
    return -1;
}

const char *bench_kernel_grain_unit(enum bench_kernel_id id)
{
    switch (id) {
    case KERNEL_STREAM:
    case KERNEL_STENCIL:
        return "doubles per iteration (block)";
    case KERNEL_MANDELBROT:
        return "escape limit (iterations per pixel)";
    case KERNEL_SPMV:
        return "mean nonzeros per row";
    case KERNEL_CALCIUM:
        return "Monte Carlo time steps per experiment";
    case KERNEL_GRAPH:
        return "mean degree of the R-MAT graph";
    default:
        return "mean nanoseconds per iteration";
    }
}

long bench_kernel_default_grain(enum bench_kernel_id id)
{
    switch (id) {
    case KERNEL_MANDELBROT:
        return 256;
    case KERNEL_SPMV:
        return 32;
    case KERNEL_CALCIUM:
        return 100;
    case KERNEL_GRAPH:
        return 16;
    case KERNEL_STREAM:
    case KERNEL_STENCIL:
        return 512; /* 4 KiB: a page per iteration */
    default:
        return 500;
    }
}

long bench_kernel_default_n(enum bench_kernel_id id, long grain)
{
    long n;
    switch (id) {
    case KERNEL_MANDELBROT:
        n = (long)(1e6 / (grain > 0 ? grain : 1)); /* rows of 256 pixels */
        break;
    case KERNEL_SPMV:
        n = (long)(1.6e7 / (grain > 0 ? grain : 1));
        break;
    case KERNEL_CALCIUM:
        n = (long)(750000.0 / (grain > 0 ? grain : 1));
        break;
    case KERNEL_GRAPH:
        /* The work grows as the sum of squared degrees, faster than n:
         * 11000 vertices of mean degree 16 take ~100 ms here. */
        n = (long)(11000.0 * 16 / (grain > 0 ? grain : 1));
        break;
    case KERNEL_STREAM:
    case KERNEL_STENCIL:
        /* A 64 MiB input, whatever the block: the memory, not T1, is the
         * limit here (two copies are kept, see data_init). */
        n = (long)((64L << 20) / 8 / (grain > 0 ? grain : 1));
        break;
    default:
        n = (long)(1e8 / (grain > 0 ? grain : 1));
        break;
    }
    return n < 64 ? 64 : n;
}

/* ---- Random numbers (deterministic, per iteration) ---- */

long bench_stall_at = -1;
long bench_stall_ns;

void bench_stall(void)
{
    struct timespec ts = {bench_stall_ns / 1000000000L, bench_stall_ns % 1000000000L};
    while (nanosleep(&ts, &ts) != 0)
        ; /* interrupted: sleep what is left */
}

uint64_t bench_splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform double in (0, 1). */
static double uniform01(uint64_t *s)
{
    return ((double)(bench_splitmix64(s) >> 11) + 0.5) * 0x1.0p-53;
}

/* ---- The spin family ---- */

/* Run steps dependent multiply-xor steps from x; their count is the work. */
static inline uint64_t spin_chain(uint64_t x, long steps)
{
    for (long s = 0; s < steps; s++)
        x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL;
    return x;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile uint64_t spin_sink;

static double iter_spin(const struct bench_kernel *k, long i);

/* Nanoseconds per iteration of k (best of three timings of >= 2 ms each),
 * each iteration called and stored as the benchmark loops do. */
static double spin_ns_per_iter(const struct bench_kernel *k)
{
    static double buf[1024];
    double best = 1e300;
    long m = 64;
    for (int r = 0; r < 3;) {
        double t0 = now_ns();
        for (long i = 0; i < m; i++)
            buf[i & 1023] = k->iter(k, i);
        double t = now_ns() - t0;
        if (t < 2e6) {
            m *= 2;
            continue;
        }
        if (t / m < best)
            best = t / m;
        r++;
    }
    spin_sink = (uint64_t)buf[0];
    return best;
}

double bench_spin_calibrate(long grain)
{
    long steps = 1000;
    double rate = 1;
    /* The rate of one long dependent chain... */
    for (;;) {
        double t0 = now_ns();
        spin_sink = spin_chain((uint64_t)t0, steps);
        double t = now_ns() - t0;
        if (t >= 2e6) {
            rate = steps / t;
            break;
        }
        steps *= 2;
    }
    /* ...then corrected at the grain itself: short independent chains
     * overlap in the core, and the call and store cost something too. */
    struct bench_kernel k;
    memset(&k, 0, sizeof k);
    k.iter = iter_spin;
    for (int r = 0; r < 3; r++) {
        k.spin_steps = (long)(rate * grain + 0.5);
        if (k.spin_steps < 1)
            k.spin_steps = 1;
        double ns = spin_ns_per_iter(&k);
        rate = k.spin_steps * ((double)grain / ns) / grain;
    }
    return rate;
}

static double iter_spin(const struct bench_kernel *k, long i)
{
    return (double)(spin_chain((uint64_t)i * 0x9e3779b97f4a7c15ULL + 1, k->spin_steps) >> 11);
}

static double iter_triangle(const struct bench_kernel *k, long i)
{
    /* Cost grows linearly with i; the mean over the loop is grain. */
    long steps = (long)(k->steps_per_ns * k->grain * (2.0 * i + 1.0) / k->n + 0.5);
    return (double)(spin_chain((uint64_t)i * 0x9e3779b97f4a7c15ULL + 1, steps) >> 11);
}

static double iter_random(const struct bench_kernel *k, long i)
{
    return (double)(spin_chain((uint64_t)i * 0x9e3779b97f4a7c15ULL + 1, k->steps[i]) >> 11);
}

/* ---- mandelbrot: iteration i is row i of an n-row image ---- */

static double iter_mandelbrot(const struct bench_kernel *k, long i)
{
    double cy = -1.5 + 3.0 * (i + 0.5) / k->n;
    long total = 0;
    for (int px = 0; px < k->width; px++) {
        double cx = -2.2 + 3.0 * (px + 0.5) / k->width;
        double zx = 0, zy = 0;
        int it = 0;
        while (it < k->maxiter && zx * zx + zy * zy <= 4.0) {
            double t = zx * zx - zy * zy + cx;
            zy = 2.0 * zx * zy + cy;
            zx = t;
            it++;
        }
        total += it;
    }
    return (double)total;
}

/* ---- spmv: iteration i is row i of y = A x, A in CSR ---- */

static double iter_spmv(const struct bench_kernel *k, long i)
{
    double s = 0;
    for (long j = k->rowptr[i]; j < k->rowptr[i + 1]; j++)
        s += k->val[j] * k->x[k->col[j]];
    return s;
}

/* Row lengths follow a Pareto law (alpha = 2, mean grain), capped at 50x the
 * mean: a few very long rows among many short ones. */
static int spmv_init(struct bench_kernel *k, uint64_t rng)
{
    long n = k->n;
    long cap = 50 * k->grain, nnz = 0;
    if (cap > n)
        cap = n;
    k->rowptr = malloc((size_t)(n + 1) * sizeof *k->rowptr);
    k->x = malloc((size_t)n * sizeof *k->x);
    if (!k->rowptr || !k->x)
        return -ENOMEM;
    k->rowptr[0] = 0;
    for (long i = 0; i < n; i++) {
        double len = (k->grain / 2.0) / sqrt(uniform01(&rng));
        long l = (long)(len + 0.5);
        l = l < 1 ? 1 : l > cap ? cap : l;
        nnz += l;
        k->rowptr[i + 1] = nnz;
    }
    k->col = malloc((size_t)nnz * sizeof *k->col);
    k->val = malloc((size_t)nnz * sizeof *k->val);
    if (!k->col || !k->val)
        return -ENOMEM;
    for (long j = 0; j < nnz; j++) {
        k->col[j] = (int32_t)(bench_splitmix64(&rng) % (uint64_t)n);
        k->val[j] = 2.0 * uniform01(&rng) - 1.0;
    }
    for (long i = 0; i < n; i++)
        k->x[i] = 2.0 * uniform01(&rng) - 1.0;
    return 0;
}

/* ---- graph: per-vertex triangle counts over an R-MAT graph ----
 *
 * Iteration v counts the triangles through vertex v of an undirected graph:
 * for every neighbour u, the size of N(v) & N(u) by a merge of the two sorted
 * lists (each triangle is seen twice).  Its cost is the sum over the
 * neighbours of deg(v) + deg(u), so the power-law degrees of an R-MAT graph
 * make a few hub iterations thousands of times dearer than most.  The graph:
 * R-MAT, D. Chakrabarti, Y. Zhan, C. Faloutsos, "R-MAT: A Recursive Model
 * for Graph Mining", SIAM SDM 2004, with the quadrant probabilities
 * a, b, c, d = 0.57, 0.19, 0.19, 0.05 of the Graph 500 benchmark; n * grain / 2
 * edges drawn, self loops and duplicates dropped, the vertex ids permuted at
 * random (as Graph 500 does) so that the hubs lie anywhere in the loop. */

static double iter_graph(const struct bench_kernel *k, long v)
{
    const int32_t *a = k->col + k->rowptr[v], *ae = k->col + k->rowptr[v + 1];
    long count = 0;
    for (const int32_t *e = a; e < ae; e++) {
        const int32_t *p = a, *q = k->col + k->rowptr[*e], *qe = k->col + k->rowptr[*e + 1];
        while (p < ae && q < qe) {
            if (*p < *q)
                p++;
            else if (*q < *p)
                q++;
            else {
                count++;
                p++;
                q++;
            }
        }
    }
    return (double)count;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* One R-MAT edge over 2^scale vertices: descend the adjacency matrix's
 * quadrants, a level per bit. */
static void rmat_edge(uint64_t *rng, int scale, long *u, long *v)
{
    long x = 0, y = 0;
    for (int b = 0; b < scale; b++) {
        double r = uniform01(rng);
        if (r >= 0.57 + 0.19 + 0.19) { /* d */
            x |= 1L << b;
            y |= 1L << b;
        } else if (r >= 0.57 + 0.19) { /* c */
            x |= 1L << b;
        } else if (r >= 0.57) { /* b */
            y |= 1L << b;
        }
    }
    *u = x;
    *v = y;
}

static int graph_init(struct bench_kernel *k, uint64_t rng)
{
    long n = k->n, m = n * k->grain / 2, nnz = 0;
    int scale = 0;
    while ((1L << scale) < n)
        scale++;
    if (n > INT32_MAX)
        return -EINVAL;
    long *eu = malloc((size_t)(m ? m : 1) * sizeof *eu);
    long *ev = malloc((size_t)(m ? m : 1) * sizeof *ev);
    int32_t *perm = malloc((size_t)n * sizeof *perm);
    k->rowptr = calloc((size_t)n + 1, sizeof *k->rowptr);
    if (!eu || !ev || !perm || !k->rowptr) {
        free(eu);
        free(ev);
        free(perm);
        return -ENOMEM;
    }
    for (long i = 0; i < n; i++)
        perm[i] = (int32_t)i;
    for (long i = n - 1; i > 0; i--) { /* Fisher-Yates */
        long j = (long)(bench_splitmix64(&rng) % (uint64_t)(i + 1));
        int32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (long e = 0; e < m; e++) {
        long u, v;
        do /* outside [0, n) or a loop: draw again */
            rmat_edge(&rng, scale, &u, &v);
        while (u >= n || v >= n || u == v);
        eu[e] = perm[u];
        ev[e] = perm[v];
        k->rowptr[eu[e] + 1]++;
        k->rowptr[ev[e] + 1]++;
    }
    for (long i = 0; i < n; i++)
        k->rowptr[i + 1] += k->rowptr[i];
    k->col = malloc((size_t)(k->rowptr[n] ? k->rowptr[n] : 1) * sizeof *k->col);
    long *fill = malloc((size_t)n * sizeof *fill);
    if (!k->col || !fill) {
        free(eu);
        free(ev);
        free(perm);
        free(fill);
        return -ENOMEM;
    }
    memcpy(fill, k->rowptr, (size_t)n * sizeof *fill);
    for (long e = 0; e < m; e++) {
        k->col[fill[eu[e]]++] = (int32_t)ev[e];
        k->col[fill[ev[e]]++] = (int32_t)eu[e];
    }
    /* Sort each list and drop duplicates, compacting in place. */
    for (long i = 0; i < n; i++) {
        long lo = k->rowptr[i], hi = k->rowptr[i + 1];
        qsort(k->col + lo, (size_t)(hi - lo), sizeof *k->col, cmp_i32);
        k->rowptr[i] = nnz;
        for (long j = lo; j < hi; j++)
            if (j == lo || k->col[j] != k->col[j - 1])
                k->col[nnz++] = k->col[j];
    }
    k->rowptr[n] = nnz;
    free(eu);
    free(ev);
    free(perm);
    free(fill);
    return 0;
}

/* ---- calcium: a parameter sweep of a stochastic calcium-channel model ----
 *
 * In the spirit of seed 000 section 5: experiment i clamps a cell at a base
 * voltage, steps it to a peak voltage swept with i for the middle of the
 * run, and simulates `channels` two-state (closed/open) channels for `steps`
 * time steps of 10 us by Monte Carlo; the open channels carry a calcium
 * current that raises the concentration, which decays back.  The result is
 * the peak concentration.  Cost: O(channels x steps), as in eq. (10). */

#define CA_DT    1e-5    /* s per step */
#define CA_VBASE (-80.0) /* mV */
#define CA_ECA   120.0   /* mV, reversal potential */
#define CA_TAU   5e-3    /* s, decay of the concentration */
#define CA_MAXCH 4096

/* Probability per step that a closed channel opens at voltage v, as a 53-bit
 * threshold: a Boltzmann activation, at most 2000 openings per second. */
static uint64_t ca_open_threshold(double v)
{
    double rate = 2000.0 / (1.0 + exp(-(v + 20.0) / 6.0));
    return (uint64_t)(rate * CA_DT * 0x1.0p53);
}

static double iter_calcium(const struct bench_kernel *k, long i)
{
    unsigned char open[CA_MAXCH];
    int nch = k->channels;
    uint64_t rng = k->seed ^ ((uint64_t)i * 0xd1b54a32d192ed03ULL);
    double vpeak = -40.0 + 60.0 * (double)i / (double)(k->n > 1 ? k->n - 1 : 1);
    uint64_t p_open_base = ca_open_threshold(CA_VBASE);
    uint64_t p_open_peak = ca_open_threshold(vpeak);
    uint64_t p_close = (uint64_t)(500.0 * CA_DT * 0x1.0p53);
    int on = k->csteps / 5, off = 3 * k->csteps / 5;
    double c = 0.0, cmax = 0.0;
    int nopen = 0;

    memset(open, 0, (size_t)nch);
    for (int s = 0; s < k->csteps; s++) {
        int peak = s >= on && s < off;
        double v = peak ? vpeak : CA_VBASE;
        uint64_t p_open = peak ? p_open_peak : p_open_base;
        for (int ch = 0; ch < nch; ch++) {
            uint64_t u = bench_splitmix64(&rng) >> 11;
            if (open[ch]) {
                if (u < p_close) {
                    open[ch] = 0;
                    nopen--;
                }
            } else if (u < p_open) {
                open[ch] = 1;
                nopen++;
            }
        }
        double current = nopen * (v - CA_ECA) * 1e-3; /* inward: negative */
        c += CA_DT * (-current - c / CA_TAU);
        if (c > cmax)
            cmax = c;
    }
    return cmax;
}

/* ---- stream, stencil: blocks of a NUMA-placed input ---- */

/* Stream: iteration i computes y = a x + b over its block in one pass and
 * returns the sum of y (four partial sums, always in the same order).  The
 * block is charged once, as it is read. */
static double iter_stream(const struct bench_kernel *k, long i, const double *x, double *waited)
{
    const long g = k->grain;
    const double a = 1.0000001, b = 0.25;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long j = 0;
    *waited += lf_numa_charge(x, (size_t)g * sizeof *x);
    for (; j + 4 <= g; j += 4) {
        s0 += a * x[j] + b;
        s1 += a * x[j + 1] + b;
        s2 += a * x[j + 2] + b;
        s3 += a * x[j + 3] + b;
    }
    for (; j < g; j++)
        s0 += a * x[j] + b;
    return (s0 + s1) + (s2 + s3);
}

/* Per-thread scratch of the stencil, grown on demand (never freed: one per
 * thread of the process). */
static __thread double *stencil_buf;
static __thread long stencil_cap;

/* Stencil: iteration i runs `passes` Jacobi sweeps of -u'' = f on its block
 * with a ghost zone of `passes` doubles on each side (overlapped tiling:
 * sweep p is valid on a window p narrower each side, so after the last the
 * block's values are exact and need nothing from other iterations), and
 * returns the sum of u over the block.  Every sweep reads f again, and
 * every sweep's read is charged: the right-hand side is re-read from
 * memory, as a tile too large for the cache would be, so that data read
 * in place from another domain pays `passes` times and a staged copy once
 * (reuse = passes).  A sweep's window is charged as one read, on the
 * domain of its first byte: at a boundary between two domains' ranges one
 * block's halo is charged to the wrong side, one iteration per boundary. */
static double iter_stencil(const struct bench_kernel *k, long i, const double *x, double *waited)
{
    const long g = k->grain, h = k->passes, w = g + 2 * h;
    const double *f = x - h; /* the window: h doubles each side of the block */
    const double c = 0.25;
    if (stencil_cap < 2 * w) {
        free(stencil_buf);
        stencil_buf = malloc((size_t)(2 * w) * sizeof *stencil_buf);
        if (!stencil_buf) {
            fprintf(stderr, "lf-bench: out of memory (stencil scratch of %ld doubles)\n", 2 * w);
            exit(1);
        }
        stencil_cap = 2 * w;
    }
    double *u = stencil_buf, *v = stencil_buf + w;
    for (long p = 1; p <= h; p++) {
        *waited += lf_numa_charge(f + p, (size_t)(w - 2 * p) * sizeof *f);
        if (p == 1) {
            for (long j = 1; j < w - 1; j++)
                v[j] = c * f[j]; /* u starts at zero */
        } else {
            for (long j = p; j < w - p; j++)
                v[j] = 0.5 * (u[j - 1] + u[j + 1]) + c * f[j];
        }
        double *t = u;
        u = v;
        v = t;
    }
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    long j = h;
    for (; j + 4 <= h + g; j += 4) {
        s0 += u[j];
        s1 += u[j + 1];
        s2 += u[j + 2];
        s3 += u[j + 3];
    }
    for (; j < h + g; j++)
        s0 += u[j];
    return (s0 + s1) + (s2 + s3);
}

/* Build the placed input of n blocks (plus a block of zeros at each end),
 * and its copy on the calling thread's domain for T1 and the reference. */
static int data_init(struct bench_kernel *k, uint64_t rng)
{
    const long g = k->grain, n = k->n;
    const int ndom = lf_numa_count();
    k->map_bytes = (size_t)(n + 2) * (size_t)g * sizeof(double);
    k->xin_map = lf_numa_alloc(k->map_bytes, 0);
    if (!k->xin_map)
        return -errno;
    k->xin = (double *)k->xin_map + g;
    for (long j = 0; j < n * g; j++)
        k->xin[j] = 2.0 * uniform01(&rng) - 1.0;
    if (k->placement == PLACE_BLOCKED && ndom > 1) {
        /* Domain d holds blocks [d n / D, (d + 1) n / D); the leading zeros
         * go with domain 0, the trailing ones with the last domain.  Page
         * granular: a page shared by two ranges goes to the later one. */
        for (int d = 1; d < ndom; d++) {
            long lo = n * d / ndom;
            char *from = (char *)(k->xin + lo * g);
            char *to = (char *)k->xin_map + k->map_bytes;
            if (d + 1 < ndom)
                to = (char *)(k->xin + (n * (d + 1) / ndom) * g);
            if (to > from) {
                int rc = lf_numa_place(from, (size_t)(to - from), d);
                if (rc != 0)
                    return rc;
            }
        }
    }
    if (ndom > 1) {
        k->xloc_map = lf_numa_alloc(k->map_bytes, lf_numa_self());
        if (!k->xloc_map)
            return -errno;
        k->xloc = (double *)k->xloc_map + g;
        memcpy(k->xloc, k->xin, (size_t)(n * g) * sizeof(double));
    } else {
        k->xloc = k->xin; /* one domain: every read is local anyway */
    }
    return 0;
}

/* ---- Set-up ---- */

int bench_kernel_init(struct bench_kernel *k, enum bench_kernel_id id, long n, long grain,
                      uint64_t seed, double steps_per_ns, int passes,
                      enum bench_placement placement)
{
    uint64_t rng = seed;
    memset(k, 0, sizeof *k);
    k->id = id;
    k->n = n;
    k->grain = grain;
    k->seed = seed;
    k->steps_per_ns = steps_per_ns;
    switch (id) {
    case KERNEL_SPIN:
        k->spin_steps = (long)(steps_per_ns * grain + 0.5);
        k->iter = iter_spin;
        return 0;
    case KERNEL_TRIANGLE:
        k->iter = iter_triangle;
        return 0;
    case KERNEL_RANDOM: {
        /* Log-normal costs, sigma 1, mean grain; capped at 100x the mean. */
        k->steps = malloc((size_t)n * sizeof *k->steps);
        if (!k->steps)
            return -ENOMEM;
        double mean = steps_per_ns * grain, cap = 100.0 * mean;
        for (long i = 0; i < n; i++) {
            double u1 = uniform01(&rng), u2 = uniform01(&rng);
            double z = sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
            double s = mean * exp(z - 0.5);
            k->steps[i] = (uint32_t)(s > cap ? cap : s + 0.5);
        }
        k->iter = iter_random;
        return 0;
    }
    case KERNEL_MANDELBROT:
        k->width = 256;
        k->maxiter = (int)(grain > 1000000 ? 1000000 : grain);
        k->iter = iter_mandelbrot;
        return 0;
    case KERNEL_SPMV:
        k->iter = iter_spmv;
        return spmv_init(k, rng);
    case KERNEL_GRAPH:
        k->iter = iter_graph;
        return graph_init(k, rng);
    case KERNEL_CALCIUM:
        k->channels = 100;
        k->csteps = (int)(grain > 100000000 ? 100000000 : grain);
        k->iter = iter_calcium;
        return 0;
    case KERNEL_STREAM:
        k->placement = placement;
        k->passes = 1;
        k->iter_at = iter_stream;
        return data_init(k, rng);
    case KERNEL_STENCIL:
        if (passes < 1 || passes > grain)
            return -EINVAL; /* the halo must lie within the next block */
        k->placement = placement;
        k->passes = passes;
        k->iter_at = iter_stencil;
        return data_init(k, rng);
    default:
        return -EINVAL;
    }
}

void bench_kernel_free(struct bench_kernel *k)
{
    free(k->steps);
    free(k->rowptr);
    free(k->col);
    free(k->val);
    free(k->x);
    if (k->xloc_map)
        lf_numa_free(k->xloc_map, k->map_bytes);
    if (k->xin_map)
        lf_numa_free(k->xin_map, k->map_bytes);
    memset(k, 0, sizeof *k);
}
