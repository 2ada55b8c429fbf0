/* tests/test_locality.c - locality-aware dispatch and staging.
 *
 * The pure rules (lib/policy/locality.c) against hand values; then real
 * loops under LF_FAKE_NUMA=2 (set here, before the library reads it) with
 * LF_BIND=close, so that member t runs on PU t mod 2 and domain t mod 2:
 * exactly-once coverage for every schedule with the data homed by ranges,
 * learned from placed pages, and staged; a staged body reads exactly the
 * values of the original input; members take remote work only once their
 * own domain's range is empty; learned ranges follow the placement.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cover.h"
#include "dispatch/dispatch.h"
#include "lfcu.h"
#include "loopfarm.h"
#include "policy/locality.h"

/* ---- The pure rules ---- */

static void test_pick(void)
{
    uint64_t rem[4] = {0, 5, 9, 9};
    CU_ASSERT_EQUAL(lf__loc_pick(rem, 4, 1), 1);  /* own range first */
    CU_ASSERT_EQUAL(lf__loc_pick(rem, 4, 0), 2);  /* most left, lowest index on ties */
    CU_ASSERT_EQUAL(lf__loc_pick(rem, 4, -1), 2); /* no domain: the second rule */
    uint64_t none[2] = {0, 0};
    CU_ASSERT_EQUAL(lf__loc_pick(none, 2, 0), -1);
}

static void test_remote_chunk(void)
{
    /* 100 ns local, 300 ns extra remote: a quarter of the iterations. */
    CU_ASSERT_EQUAL(lf__loc_remote_chunk(400, 100.0, 300.0, 10000, 0), 100);
    /* Unknown costs: unscaled; capped to an equal share with 3 owners. */
    CU_ASSERT_EQUAL(lf__loc_remote_chunk(400, 0.0, 0.0, 10000, 0), 400);
    CU_ASSERT_EQUAL(lf__loc_remote_chunk(400, 0.0, 0.0, 1000, 3), 250);
    CU_ASSERT_EQUAL(lf__loc_remote_chunk(400, 0.0, 0.0, 1001, 3), 251); /* ceil */
    /* Never 0, never beyond what is left. */
    CU_ASSERT_EQUAL(lf__loc_remote_chunk(1, 1.0, 1e9, 10, 0), 1);
    CU_ASSERT_EQUAL(lf__loc_remote_chunk(50, 0.0, 0.0, 7, 0), 7);
    CU_ASSERT_EQUAL(lf__loc_remote_chunk(50, NAN, 5.0, 70, 0), 50);
}

/* Synthetic placements for the learner. */
struct place {
    uint64_t cut[5]; /* domain of i: the k with cut[k] <= i < cut[k+1] ... */
    int dom[4];      /* ... is dom[k] */
    int parts;
    int queries;
};

static int place_at(uint64_t i, void *ctx)
{
    struct place *p = ctx;
    p->queries++;
    for (int k = 0; k < p->parts; k++)
        if (i >= p->cut[k] && i < p->cut[k + 1])
            return p->dom[k];
    return -1;
}

/* Whether a fetch of another owner's data pays (lib/exec): sized between
 * the amortising size and the balance with the owner, or left to it. */
static void test_fetch_size(void)
{
    struct lf__fetch f = {.t_self = 1000, .t_owner = 1000};
    CU_ASSERT_EQUAL(lf__exec_fetch_size(10, 100, &f), 1); /* costs unknown: probes 1, 2, 4, 8 */
    f.staged = 3;
    CU_ASSERT_EQUAL(lf__exec_fetch_size(10, 100, &f), 8);
    CU_ASSERT_EQUAL(lf__exec_fetch_size(5, 100, &f), 5);
    f.costs = 1;
    CU_ASSERT_EQUAL(lf__exec_fetch_size(10, 100, &f), 10); /* free fetch, room to balance */
    f.beta = 8000;
    f.s = 1000;
    /* At least 8 beta / (s + t) = 32, at most (100 t - beta) / (2 t + s) = 30.7. */
    CU_ASSERT_EQUAL(lf__exec_fetch_size(10, 100, &f), 30);
    f.beta = 1000;
    CU_ASSERT_EQUAL(lf__exec_fetch_size(10, 100, &f), 10); /* 8 beta / (s + t) = 4 < 10 */
    f.beta = 8000;
    CU_ASSERT_EQUAL(lf__exec_fetch_size(10, 2, &f), 0); /* the owner ends sooner: leave it */
    f.t_owner = 0;
    CU_ASSERT_EQUAL(lf__exec_fetch_size(10, 2, &f), 10); /* the owner is gone: take */
    /* An owner 30 times slower keeps little of what is left. */
    struct lf__fetch slow = {.t_self = 1000, .t_owner = 30000, .s = 100, .costs = 1};
    CU_ASSERT_EQUAL(lf__exec_fetch_size(100, 100, &slow), 96);
    CU_ASSERT_EQUAL(lf__exec_fetch_size(50, 100, &slow), 50);
}

static void test_learn(void)
{
    uint64_t lo[4], hi[4];
    /* Two domains in order, boundary at an arbitrary place. */
    struct place a = {{0, 377, 1000}, {0, 1}, 2, 0};
    CU_ASSERT_EQUAL(lf__loc_learn(1000, 2, place_at, &a, lo, hi), 2);
    CU_ASSERT(lo[0] == 0 && hi[0] == 377 && lo[1] == 377 && hi[1] == 1000);
    CU_ASSERT(a.queries < 64 + 2 * 64); /* samples plus bisection, not a scan */
    /* Reversed order, and a domain holding nothing. */
    struct place b = {{0, 123457, 1000000}, {2, 0}, 2, 0};
    CU_ASSERT_EQUAL(lf__loc_learn(1000000, 3, place_at, &b, lo, hi), 2);
    CU_ASSERT(lo[2] == 0 && hi[2] == 123457 && lo[0] == 123457 && hi[0] == 1000000);
    CU_ASSERT_EQUAL(lo[1], hi[1]);
    /* Everything on one domain; fewer iterations than samples. */
    struct place c = {{0, 5}, {1}, 1, 0};
    CU_ASSERT_EQUAL(lf__loc_learn(5, 2, place_at, &c, lo, hi), 1);
    CU_ASSERT(lo[1] == 0 && hi[1] == 5 && lo[0] == hi[0]);
    /* Not blocked (a domain comes back), unknown pages, out of range. */
    struct place d = {{0, 300, 600, 1000}, {0, 1, 0}, 3, 0};
    CU_ASSERT_EQUAL(lf__loc_learn(1000, 2, place_at, &d, lo, hi), -1);
    struct place e = {{0, 500, 1000}, {0, -1}, 2, 0};
    CU_ASSERT_EQUAL(lf__loc_learn(1000, 2, place_at, &e, lo, hi), -1);
    struct place f = {{0, 1000}, {5}, 1, 0};
    CU_ASSERT_EQUAL(lf__loc_learn(1000, 2, place_at, &f, lo, hi), -1);
    CU_ASSERT_EQUAL(lf__loc_learn(0, 2, place_at, &f, lo, hi), -1);
}

static void test_affine(void)
{
    /* Staging 2000 ns + 4 ns per iteration at chunk sizes 1, 2, 4, 8, 16. */
    struct lf__affine a = {0};
    for (int c = 1; c <= 16; c *= 2)
        lf__affine_add(&a, c, 2000.0 + 4.0 * c);
    double c0, c1;
    CU_ASSERT_EQUAL(lf__affine_solve(&a, &c0, &c1), 0);
    CU_ASSERT_DOUBLE_EQUAL(c0, 2000.0, 1e-6);
    CU_ASSERT_DOUBLE_EQUAL(c1, 4.0, 1e-9);
    /* By hand: (10, 150), (30, 250): slope 5, intercept 100. */
    struct lf__affine b = {0};
    lf__affine_add(&b, 10, 150);
    lf__affine_add(&b, 30, 250);
    CU_ASSERT_EQUAL(lf__affine_solve(&b, &c0, &c1), 0);
    CU_ASSERT_DOUBLE_EQUAL(c0, 100.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c1, 5.0, 1e-12);
    /* One size only: through the origin. */
    struct lf__affine u = {0};
    lf__affine_add(&u, 8, 80);
    lf__affine_add(&u, 8, 100);
    CU_ASSERT_EQUAL(lf__affine_solve(&u, &c0, &c1), 0);
    CU_ASSERT_DOUBLE_EQUAL(c0, 0.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c1, 11.25, 1e-12);
    /* Negative intercept (10, 10), (20, 40): through the origin, sxy/sxx = 1.8. */
    struct lf__affine n = {0};
    lf__affine_add(&n, 10, 10);
    lf__affine_add(&n, 20, 40);
    CU_ASSERT_EQUAL(lf__affine_solve(&n, &c0, &c1), 0);
    CU_ASSERT_DOUBLE_EQUAL(c0, 0.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c1, 1.8, 1e-12);
    /* Negative slope: flat at the mean. */
    struct lf__affine m = {0};
    lf__affine_add(&m, 10, 300);
    lf__affine_add(&m, 20, 100);
    CU_ASSERT_EQUAL(lf__affine_solve(&m, &c0, &c1), 0);
    CU_ASSERT_DOUBLE_EQUAL(c0, 200.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c1, 0.0, 1e-12);
    struct lf__affine z = {0};
    CU_ASSERT_EQUAL(lf__affine_solve(&z, &c0, &c1), -1);
}

/* ---- Real loops under two fake domains ---- */

#define HALO 2
enum { MODE_RANGES, MODE_ONE_DOMAIN, MODE_LEARNED, MODE_STAGED, NMODES };
static const char *const mode_name[] = {"ranges", "all on domain 1", "learned", "staged"};

struct run {
    lf_loop *loop;
    struct cover_case *c;
    const struct lf_data *data;
    const double *x; /* input: x[i] for loop index i, halo around */
    long xlo;        /* smallest index x holds */
    int tid;
    int rc;
    atomic_long *bad; /* values read wrong */
    /* Homes of the member's chunks in order, and its domain. */
    int order_ok;
};

static double xval(long i)
{
    return 0.5 * (double)i + 3.0;
}

static void *member(void *arg)
{
    struct run *r = arg;
    struct cover_case *c = r->c;
    r->order_ok = 1;
    if (lf_loop_begin_data(r->loop, r->tid, c->lo, c->hi, c->incr, r->data) != 0) {
        r->rc = -1;
        return NULL;
    }
    int self = lf_numa_self(), left_home = 0;
    long first;
    unsigned long cnt;
    while (lf_loop_next(r->loop, r->tid, &first, &cnt)) {
        struct lf__thr *th = &r->loop->thr[r->tid];
        /* Once a member took from another domain, its own range is empty
         * for good: no chunk of its own may follow. */
        int home = th->chunk_home;
        if (th->cur->loc && home >= 0) {
            if (home != self)
                left_home = 1;
            else if (left_home)
                r->order_ok = 0;
        }
        const char *in = r->data && r->data->ninputs ? lf_loop_input(r->loop, r->tid, 0) : NULL;
        long i = first;
        for (unsigned long j = 0; j < cnt;
             j++, i = (long)((unsigned long)i + (unsigned long)c->incr)) {
            cover_mark(c, i);
            if (!in)
                continue;
            /* The element of i and its halo, staged or in place. */
            for (long h = -HALO; h <= HALO; h++) {
                double v = *(const double *)(in + (i + h - first) * (long)sizeof(double));
                if (v != xval(i + h))
                    atomic_fetch_add(r->bad, 1);
            }
        }
    }
    lf_loop_end(r->loop, r->tid);
    return NULL;
}

/* Run one loop of case c with data d on a team of P; check it. */
static void run_case(const char *spec, int P, struct cover_case *c, const struct lf_data *d,
                     const char *what)
{
    lf_schedule *s;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lf_schedule_parse(spec, &s, err, sizeof err), 0);
    lf_loop *loop;
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&loop, P, s, "locality"), 0);
    atomic_long bad = 0;
    pthread_t th[8];
    struct run runs[8];
    for (int t = 0; t < P; t++) {
        runs[t] = (struct run){loop, c, d, NULL, 0, t, 0, &bad, 1};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, member, &runs[t]), 0);
    }
    int order_ok = 1, rc = 0;
    for (int t = 0; t < P; t++) {
        pthread_join(th[t], NULL);
        order_ok &= runs[t].order_ok;
        rc |= runs[t].rc;
    }
    struct lf_loop_numa_stats ns;
    CU_ASSERT_EQUAL(lf_loop_last_numa_stats(loop, &ns), 0);
    unsigned long miss = cover_missing(c);
    long dup = atomic_load(&c->dup);
    int ok = rc == 0 && miss == 0 && dup == 0 && atomic_load(&bad) == 0 && order_ok;
    if (d && d->ninputs) {
        /* Every chunk is booked local or remote; staging only copies remote ones. */
        ok &= ns.local_iters + ns.remote_iters == c->n;
        ok &= ns.staged_iters <= ns.remote_iters;
    }
    if (!ok)
        fprintf(stderr,
                "\n  %s P=%d n=%lu incr=%ld %s: missing %lu dup %ld bad %ld order %d; "
                "local %lu remote %lu staged %lu\n",
                spec, P, c->n, c->incr, what, miss, dup, (long)atomic_load(&bad), order_ok,
                ns.local_iters, ns.remote_iters, ns.staged_iters);
    CU_ASSERT(ok);
    lf_loop_destroy(loop);
    lf_schedule_free(s);
}

static void test_cover(void)
{
    int quick = getenv("LF_TEST_QUICK") != NULL;
    unsigned long trips[] = {0, 1, 3, 1000, 20000};
    long incrs[] = {1, -3};
    int Ps[] = {1, 2, 4};
    for (const char *const *sp = cover_specs; *sp; sp++) {
        for (int m = 0; m < NMODES; m++)
            for (int pi = 0; pi < 3; pi++)
                for (int ti = 0; ti < 5; ti++)
                    for (int ii = 0; ii < 2; ii++) {
                        if (quick && (ti == 4 || ii == 1))
                            continue;
                        struct cover_case c;
                        unsigned long n = trips[ti];
                        CU_ASSERT_EQUAL_FATAL(cover_make(&c, n, incrs[ii], 0), 0);
                        /* The input covers the loop's indices and the halo. */
                        long imin = incrs[ii] > 0 ? c.lo : c.hi + 1;
                        long imax = incrs[ii] > 0 ? c.hi - 1 : c.lo;
                        size_t ne = (size_t)(imax - imin + 1 + 2 * HALO);
                        size_t bytes = ne * sizeof(double);
                        double *x = lf_numa_alloc(bytes, m == MODE_ONE_DOMAIN ? 1 : 0);
                        CU_ASSERT_PTR_NOT_NULL_FATAL(x);
                        for (size_t e = 0; e < ne; e++)
                            x[e] = xval(imin - HALO + (long)e);
                        if (m == MODE_LEARNED && bytes > 8192)
                            /* Second half's pages on domain 1. */
                            CU_ASSERT_EQUAL(
                                lf_numa_place((char *)x + bytes / 2, bytes - bytes / 2, 1), 0);
                        struct lf_data d = {0};
                        unsigned long home[4] = {0, n / 3, n / 2, n};
                        if (m == MODE_RANGES) {
                            /* Two ranges; three (more than domains) for
                             * the long loops: then no locality. */
                            d.home = home;
                            d.nhome = ti == 4 ? 3 : 2;
                            if (d.nhome == 2)
                                home[2] = n;
                        } else {
                            d.learn = 1;
                        }
                        d.ninputs = 1;
                        d.in[0] =
                            (struct lf_input){x + HALO - imin, sizeof(double), 1, HALO, NULL, NULL};
                        char spec[160];
                        /* Staged: in pieces of 256 bytes (32 elements), or whole. */
                        snprintf(spec, sizeof spec, "%s,stage=%s", *sp,
                                 m == MODE_STAGED       ? "on,piece=256"
                                 : m == MODE_ONE_DOMAIN ? "on,piece=0"
                                                        : "off");
                        run_case(spec, Ps[pi], &c, &d, mode_name[m]);
                        lf_numa_free(x, bytes);
                        cover_free(&c);
                    }
    }
}

/* n doubles x[i] = xval(i) allocated on domain dom, declared in *d as the
 * loop's only input, its home to be learned from the pages. */
static double *solo_input(long n, int dom, struct lf_data *d)
{
    double *x = lf_numa_alloc((size_t)n * sizeof(double), dom);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    for (long i = 0; i < n; i++)
        x[i] = xval(i);
    memset(d, 0, sizeof *d);
    d->learn = 1;
    d->ninputs = 1;
    d->in[0] = (struct lf_input){x, sizeof(double), 1, 0, NULL, NULL};
    return x;
}

/* A handle for a team of one under spec (the handle keeps its own copy). */
static lf_loop *solo_loop(const char *spec, const char *name)
{
    lf_schedule *s;
    CU_ASSERT_EQUAL_FATAL(lf_schedule_parse(spec, &s, NULL, 0), 0);
    lf_loop *l;
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&l, 1, s, name), 0);
    lf_schedule_free(s);
    return l;
}

/* Learned ranges follow the placement; staging copies exactly the remote chunks. */
static void test_learned_ranges(void)
{
    long n = 1L << 16; /* 512 KiB of doubles */
    size_t bytes = (size_t)n * sizeof(double);
    struct lf_data d;
    double *x = solo_input(n, 0, &d);
    long cut = 3 * 4096 / 8 * 5; /* 15 pages in */
    CU_ASSERT_EQUAL(lf_numa_place(x + cut, bytes - (size_t)cut * sizeof(double), 1), 0);
    CU_ASSERT_EQUAL(lf_numa_node_of(x), 0);
    CU_ASSERT_EQUAL(lf_numa_node_of(x + cut - 1), 0);
    CU_ASSERT_EQUAL(lf_numa_node_of(x + cut), 1);
    lf_loop *l = solo_loop("fac2", "learn");
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, n, 1, &d), 0);
    struct lf__slot *sl = l->thr[0].cur;
    CU_ASSERT(sl->homed && sl->loc && sl->staging);
    CU_ASSERT(sl->dom[0].lo == 0 && sl->dom[0].hi == (uint64_t)cut);
    CU_ASSERT(sl->dom[1].lo == (uint64_t)cut && sl->dom[1].hi == (uint64_t)n);
    long first;
    unsigned long cnt;
    double sum = 0;
    while (lf_loop_next(l, 0, &first, &cnt)) {
        const double *in = lf_loop_input(l, 0, 0);
        for (unsigned long j = 0; j < cnt; j++)
            sum += in[j];
    }
    lf_loop_end(l, 0);
    struct lf_loop_numa_stats ns;
    CU_ASSERT_EQUAL(lf_loop_last_numa_stats(l, &ns), 0);
    /* One member on domain 0 (PU 0): the rest of the loop is remote and staged. */
    if (lf_numa_self() == 0) {
        CU_ASSERT_EQUAL(ns.local_iters, (unsigned long)cut);
        CU_ASSERT_EQUAL(ns.remote_iters, (unsigned long)(n - cut));
        CU_ASSERT_EQUAL(ns.staged_iters, (unsigned long)(n - cut));
        CU_ASSERT_EQUAL(ns.staged_bytes, (unsigned long)(n - cut) * sizeof(double));
    }
    CU_ASSERT_EQUAL(ns.domains, 2);
    CU_ASSERT_DOUBLE_EQUAL(sum, 0.5 * (double)n * (double)(n - 1) * 0.5 + 3.0 * (double)n, 1e-3);
    /* The handle remembers what it learned for this array and bounds ... */
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, n, 1, &d), 0);
    while (lf_loop_next(l, 0, &first, &cnt))
        ;
    lf_loop_end(l, 0);
    CU_ASSERT_EQUAL(lf_loop_last_numa_stats(l, &ns), 0);
    CU_ASSERT_EQUAL(ns.domains, 2);
    lf_loop_destroy(l);
    /* ... a new one learns afresh: a non-blocked placement gives no
     * locality, and the loop is still correct. */
    l = solo_loop("fac2", "learn");
    CU_ASSERT_EQUAL(lf_numa_place(x + n / 2, 32768, 0), 0); /* wider than a sample step */
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, n, 1, &d), 0);
    while (lf_loop_next(l, 0, &first, &cnt))
        ;
    lf_loop_end(l, 0);
    CU_ASSERT_EQUAL(lf_loop_last_numa_stats(l, &ns), 0);
    CU_ASSERT_EQUAL(ns.domains, 1);
    lf_loop_destroy(l);
    lf_numa_free(x, bytes);
}

/* The staging costs are measured and fitted: a remote member's beta or s is
 * positive after a staged loop (fake remote transfers cost >= 2000 ns). */
static void test_costs_measured(void)
{
    long n = 1L << 15;
    size_t bytes = (size_t)n * sizeof(double);
    struct lf_data d;
    double *x = solo_input(n, 1, &d); /* all on domain 1 */
    lf_loop *l = solo_loop("umr", "costs");
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, n, 1, &d), 0);
    struct lf__slot *sl = l->thr[0].cur;
    CU_ASSERT(sl->view.one_port == 1);
    long first;
    unsigned long cnt;
    while (lf_loop_next(l, 0, &first, &cnt))
        ;
    lf_loop_end(l, 0);
    if (lf_numa_self() == 0) {
        double beta = lf__word_getd(&sl->view.w[0].stage_lat_ns);
        double sp = lf__word_getd(&sl->view.w[0].stage_ns_per_iter);
        CU_ASSERT(beta > 0.0 || sp > 0.0);
        CU_ASSERT(beta >= 0.0 && sp >= 0.0);
    }
    lf_loop_destroy(l);
    lf_numa_free(x, bytes);
}

/* A staged chunk with more input than piece= bytes reaches the body in
 * pieces; the policy and the statistics still see whole chunks. */
static void test_pieces(void)
{
    long n = 10000;
    size_t bytes = (size_t)n * sizeof(double);
    struct lf_data d;
    double *x = solo_input(n, 1, &d); /* all on domain 1; the member runs on 0 */
    lf_loop *l = solo_loop("dynamic,1000,piece=1024", "pieces");
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, n, 1, &d), 0);
    long first, expect = 0;
    unsigned long cnt, most = 0, calls = 0;
    int ok = 1;
    while (lf_loop_next(l, 0, &first, &cnt)) {
        const double *in = lf_loop_input(l, 0, 0);
        ok &= first == expect; /* one member: pieces in order */
        for (unsigned long j = 0; j < cnt; j++)
            ok &= in[j] == xval(first + (long)j);
        expect = first + (long)cnt;
        most = cnt > most ? cnt : most;
        calls++;
    }
    lf_loop_end(l, 0);
    CU_ASSERT(ok);
    CU_ASSERT_EQUAL(expect, n);
    struct lf_loop_stats st;
    struct lf_loop_numa_stats ns;
    CU_ASSERT_EQUAL(lf_loop_last_stats(l, &st), 0);
    CU_ASSERT_EQUAL(lf_loop_last_numa_stats(l, &ns), 0);
    CU_ASSERT_EQUAL(st.chunks, 10); /* the policy's chunks of 1000 */
    if (lf_numa_self() == 0) {
        CU_ASSERT_EQUAL(most, 128); /* 1024 bytes of doubles */
        CU_ASSERT_EQUAL(calls, 10 * 8);
        CU_ASSERT_EQUAL(ns.staged_iters, (unsigned long)n);
        CU_ASSERT_EQUAL(ns.staged_bytes, bytes);
    }
    lf_loop_destroy(l);
    lf_numa_free(x, bytes);
}

/* Descriptions that make no sense are refused, and nothing runs. */
static void test_bad_data(void)
{
    lf_loop *l;
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&l, 1, NULL, "bad"), 0);
    double x[4];
    struct lf_data d = {0};
    d.ninputs = LF_MAX_INPUTS + 1;
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, 4, 1, &d), -EINVAL);
    d.ninputs = 1;
    d.in[0] = (struct lf_input){x, 0, 1, 0, NULL, NULL}; /* size 0 */
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, 4, 1, &d), -EINVAL);
    d.in[0] = (struct lf_input){x, 8, 0, 0, NULL, NULL}; /* stride 0 */
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, 4, 1, &d), -EINVAL);
    d.in[0] = (struct lf_input){x, 8, 1, -1, NULL, NULL}; /* negative halo */
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, 4, 1, &d), -EINVAL);
    struct lf_data h = {0};
    unsigned long bad_home[3] = {0, 3, 2}; /* not ascending, and not ending at n = 4 */
    h.home = bad_home;
    h.nhome = 2;
    CU_ASSERT_EQUAL(lf_loop_begin_data(l, 0, 0, 4, 1, &h), -EINVAL);
    CU_ASSERT_PTR_NULL(lf_loop_input(l, 0, 0)); /* no loop, no chunk */
    lf_loop_destroy(l);
}

int main(void)
{
    /* Before the library reads them (once per process). */
    setenv("LF_FAKE_NUMA", "2,lat=200,gbps=20", 1);
    setenv("LF_BIND", "close", 1);
    if (lf_numa_count() < 2) {
        fprintf(stderr, "test_locality: needs 2 PUs for 2 fake domains; skipped\n");
        return 77;
    }
    static const struct lfcu_test tests[] = {
        {"pick: own range first, then the fullest", test_pick},
        {"remote chunk: same duration, equal share", test_remote_chunk},
        {"fetch only when it pays", test_fetch_size},
        {"learn: blocked ranges by bisection", test_learn},
        {"affine cost fit against hand values", test_affine},
        {"exactly once, staged values exact, home first", test_cover},
        {"learned ranges follow placed pages", test_learned_ranges},
        {"staging costs measured", test_costs_measured},
        {"staged chunks reach the body in pieces", test_pieces},
        {"bad descriptions refused", test_bad_data},
        {0},
    };
    return lfcu_run("locality", tests);
}
