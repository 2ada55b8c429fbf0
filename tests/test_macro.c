/* tests/test_macro.c - LF_FOR inside real OpenMP teams: every iteration
 * exactly once for every schedule, increment and team size; nested regions;
 * 1000 nowait loops back to back; results equal to a sequential run.  Built
 * twice: with the C compiler (libgomp) and with clang (libomp). */
#include <limits.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopfarm/omp.h"
#include "lfcu.h"
#include "cover.h"

static const int team_sizes[] = {1, 2, 3, 4, 8, 16, 33};
static const long incrs[] = {1, -1, 3, -7};

static int check(struct cover_case *c, const char *what, const char *spec, int P)
{
    unsigned long miss = cover_missing(c);
    long dup = atomic_load(&c->dup);
    if (miss || dup)
        fprintf(stderr, "FAIL %s %s P=%d lo=%ld hi=%ld incr=%ld n=%lu: %lu missing, %ld twice\n",
                what, spec, P, c->lo, c->hi, c->incr, c->n, miss, dup);
    return miss == 0 && dup == 0;
}

static void test_macro_covers_matrix(void)
{
    unsigned long big = getenv("LF_TEST_QUICK") ? 20000UL : 200000UL;
    for (const char *const *spec = cover_specs; *spec; spec++)
        for (size_t p = 0; p < sizeof team_sizes / sizeof *team_sizes; p++) {
            int P = team_sizes[p];
            unsigned long trips[8];
            int nt = cover_trips(P, big, trips);
            for (int where = 0; where < 3; where++) {
                struct cover_case cases[32];
                int nc = 0;
                for (int t = 0; t < nt; t++)
                    for (int k = 0; k < 4; k++)
                        CU_ASSERT_EQUAL_FATAL(cover_make(&cases[nc++],
                                                         where ? trips[t] % 5000 : trips[t],
                                                         incrs[k], where),
                                              0);
                const char *sp = *spec;
#pragma omp parallel num_threads(P)
                {
                    for (int k = 0; k < nc; k++) {
                        struct cover_case *c = &cases[k];
                        if (k % 2)
                            LF_FOR_SCHED(i, c->lo, c->hi, c->incr, sp)
                            {
                                cover_mark(c, i);
                            }
                        else
                            LF_FOR_SCHED_NOWAIT(i, c->lo, c->hi, c->incr, sp)
                            {
                                cover_mark(c, i);
                            }
                    }
                }
                for (int k = 0; k < nc; k++) {
                    CU_ASSERT(check(&cases[k], "matrix", sp, P));
                    cover_free(&cases[k]);
                }
            }
        }
}

/* The barrier at the end of LF_FOR orders a loop's writes before the next
 * loop's reads; the sum over a two-phase computation equals the sequential one. */
static void test_macro_barrier_orders_phases(void)
{
    enum { N = 100000 };
    static double a[N], b[N];
    for (const char *const *spec = cover_specs; *spec; spec++) {
        const char *sp = *spec;
        double sum = 0.0;
#pragma omp parallel num_threads(3)
        {
            LF_FOR_SCHED(i, 0, N, 1, sp)
            {
                a[i] = (double)i * 0.5;
            }
            LF_FOR_SCHED(i, 0, N, 1, sp)
            {
                b[i] = a[N - 1 - i] + 1.0;
            }
            double local = 0.0;
            LF_FOR_SCHED(i, 0, N, 1, sp)
            {
                local += b[i];
            }
#pragma omp atomic
            sum += local;
        }
        double want = 0.0;
        for (long i = 0; i < N; i++)
            want += (double)(N - 1 - i) * 0.5 + 1.0;
        CU_ASSERT_DOUBLE_EQUAL(sum, want, 1e-6 * want);
    }
}

/* Nested parallel regions: each inner team runs its own loops. */
static void test_macro_nested_regions(void)
{
    omp_set_max_active_levels(2);
    for (const char *const *spec = cover_specs; *spec; spec++) {
        const char *sp = *spec;
        struct cover_case outer, inner[3];
        CU_ASSERT_EQUAL_FATAL(cover_make(&outer, 3000, 1, 0), 0);
        for (int t = 0; t < 3; t++)
            CU_ASSERT_EQUAL_FATAL(cover_make(&inner[t], 5000, -3, 0), 0);
#pragma omp parallel num_threads(3)
        {
            int me = omp_get_thread_num();
#pragma omp parallel num_threads(2)
            {
                LF_FOR_SCHED(i, inner[me].lo, inner[me].hi, inner[me].incr, sp)
                {
                    cover_mark(&inner[me], i);
                }
            }
            LF_FOR_SCHED(i, 0, 3000, 1, sp)
            {
                cover_mark(&outer, i);
            }
        }
        CU_ASSERT(check(&outer, "nested-outer", sp, 3));
        for (int t = 0; t < 3; t++)
            CU_ASSERT(check(&inner[t], "nested-inner", sp, 2));
        cover_free(&outer);
        for (int t = 0; t < 3; t++)
            cover_free(&inner[t]);
    }
}

/* 1000 nowait loops back to back, then the region's barrier. */
static void test_macro_thousand_nowait_loops(void)
{
    enum { L = 1000, N = 257 };
    static atomic_int hits[L][N];
    for (const char *const *spec = cover_specs; *spec; spec++) {
        const char *sp = *spec;
        memset(hits, 0, sizeof hits);
#pragma omp parallel num_threads(4)
        {
            for (int l = 0; l < L; l++)
                LF_FOR_SCHED_NOWAIT(i, 0, N, 1, sp)
                {
                    atomic_fetch_add(&hits[l][i], 1);
                }
        }
        long bad = 0;
        for (int l = 0; l < L; l++)
            for (int i = 0; i < N; i++)
                bad += atomic_load(&hits[l][i]) != 1;
        if (bad)
            fprintf(stderr, "FAIL nowait %s: %ld iterations not exactly once\n", sp, bad);
        CU_ASSERT_EQUAL(bad, 0);
    }
}

/* LF_FOR_AT: one line of code, several call sites: each keeps its own
 * handles and memory (a learning schedule on one does not see the other's
 * rates), every iteration of every execution runs once, and the sites'
 * labels name them. */
static void test_macro_explicit_sites(void)
{
    static struct lf_site sites[3] = {LF_SITE_INIT("site-a", 1), LF_SITE_INIT("site-b", 2),
                                      LF_SITE_INIT("site-c", 3)};
    const char *specs[3] = {"multi", "auto", "dynamic,3"};
    enum { N = 3000 };
    static atomic_int hits[3][N];
    for (int e = 0; e < 4; e++)
        for (int k = 0; k < 3; k++) {
            long n = N - 7 * e - k;
#pragma omp parallel num_threads(2)
            LF_FOR_AT(&sites[k], i, 0, n, 1, specs[k])
            atomic_fetch_add(&hits[k][i], 1);
            long bad = 0;
            for (long i = 0; i < N; i++)
                bad += atomic_exchange(&hits[k][i], 0) != (i < n);
            CU_ASSERT_EQUAL(bad, 0);
        }
    for (int k = 0; k < 3; k++)
        CU_ASSERT_PTR_NOT_NULL(sites[k].priv);
    CU_ASSERT(sites[0].priv != sites[1].priv && sites[1].priv != sites[2].priv &&
              sites[0].priv != sites[2].priv);
    CU_ASSERT_STRING_EQUAL(sites[1].file, "site-b");
}

/* LF_CHUNK_FIRST and LF_CHUNK_SIZE inside a body: each iteration lies in
 * the chunk they describe, and the chunks, each counted by the iteration
 * that begins it, add up to the loop; under dynamic,7 every chunk but the
 * one that ends the loop has 7 iterations. */
static void test_macro_chunk_bounds(void)
{
    const char *specs[] = {"dynamic,7", "guided", "auto", "multi", "static", "af,lease=force"};
    const long n = 5000;
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++)
        for (int P = 1; P <= 3; P++)
            for (int in = 0; in < 2; in++) {
                long incr = in ? -3 : 1, lo = in ? 3 * n : 0, hi = in ? 0 : n;
                long outside = 0, total = 0, short_chunks = 0;
                for (int e = 0; e < 3; e++) {
#pragma omp parallel num_threads(P) reduction(+ : outside, total, short_chunks)
                    LF_FOR_SCHED(i, lo, hi, incr, specs[k])
                    {
                        long j = (i - LF_CHUNK_FIRST()) / incr;
                        outside += (i - LF_CHUNK_FIRST()) % incr != 0 || j < 0 ||
                                   (unsigned long)j >= LF_CHUNK_SIZE();
                        if (i == LF_CHUNK_FIRST()) {
                            total += (long)LF_CHUNK_SIZE();
                            /* not 7, and not the chunk that ends the loop */
                            short_chunks += LF_CHUNK_SIZE() != 7 &&
                                            (i - lo) / incr + (long)LF_CHUNK_SIZE() != n;
                        }
                    }
                }
                CU_ASSERT_EQUAL(outside, 0);
                CU_ASSERT_EQUAL(total, 3 * n);
                if (k == 0)
                    CU_ASSERT_EQUAL(short_chunks, 0);
                if (outside || total != 3 * n)
                    fprintf(stderr, "%s P=%d incr=%ld: %ld outside, %ld of %ld\n", specs[k], P,
                            incr, outside, total, 3 * n);
            }
}

/* Spin for ns nanoseconds of wall-clock time (none for ns <= 0). */
static void spin_ns(long ns)
{
    struct timespec a, b;
    if (ns <= 0)
        return;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

/* runs executions of LF_FOR_AT(site, i, 0, n, 1, spec) by two threads,
 * each iteration spinning ns; every iteration once in each (else *bad
 * grows).  Returns how many executions were handed out in exactly chunks
 * chunks of size each, *longest the most of those in a row. */
static int auto_runs_shaped(struct lf_site *site, const char *spec, int n, int runs, long ns,
                            long chunks_want, long size, int *longest, long *bad)
{
    static atomic_int hits[64];
    int shaped = 0, row = 0;
    *longest = 0;
    if (n > 64)
        return -1;
    for (int e = 0; e < runs; e++) {
        long chunks = 0, sized = 0;
#pragma omp parallel num_threads(2) reduction(+ : chunks, sized)
        LF_FOR_AT(site, i, 0, n, 1, spec)
        {
            atomic_fetch_add(&hits[i], 1);
            spin_ns(ns);
            if (i == LF_CHUNK_FIRST()) {
                chunks++;
                sized += (long)LF_CHUNK_SIZE() == size;
            }
        }
        for (int i = 0; i < n; i++)
            *bad += atomic_exchange(&hits[i], 0) != 1;
        int was = chunks == chunks_want && sized == chunks_want;
        shaped += was;
        row = was ? row + 1 : 0;
        *longest = row > *longest ? row : *longest;
    }
    return shaped;
}

/* auto's tiny executions through LF_FOR (lf__exec_untimed: the team's
 * time for the loop, as the site's latest timed execution measured it,
 * under 10 us): 2P chunks of ceil(n / 2P), no lease pieces, at most
 * LF__TINY_RECHECK - 1 = 31 in a row before a timed one; under libgomp
 * they run without a handle (lib/omp/team.c decides at the team's
 * meeting), under libomp in the loaned handle.  8 iterations of an atomic
 * add are far under 10 us on any build, so most executions are tiny; a
 * timed one self-schedules a loop this short one iteration per claim. */
static void test_macro_auto_tiny(void)
{
    enum { N = 8, RUNS = 100 };
    static struct lf_site site = LF_SITE_INIT("tiny", 1);
    int longest;
    long bad = 0;
    int tiny = auto_runs_shaped(&site, "auto", N, RUNS, 0, 4, 2, &longest, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(tiny >= RUNS / 2);
    CU_ASSERT(longest <= 31);
    if (tiny < RUNS / 2 || longest > 31)
        fprintf(stderr, "auto on %d iterations: %d tiny executions, %d in a row at most\n", N, tiny,
                longest);
}

/* auto's plans through LF_FOR, on iterations that spin 12 us of
 * wall-clock time (however busy the machine, never tiny): every iteration
 * once under each.  Forced to self-schedule (plan=self), the first
 * execution runs dealt (self's chunk is sized by the time per iteration a
 * dealt execution measures) and every later one hands out one iteration
 * per claim (12 us is over LF__SELF_NS); forced to
 * the loop's own schedule (plan=own: guided under LF_FOR), it runs every
 * iteration once.  Choosing, a site past its first 8 executions
 * (LF__SEL_SETTLE) tries the loop's own schedule, then self-scheduling,
 * for 3 executions each (LF__SEL_TRIAL), within its first 20.  Under libgomp the team's meeting
 * leases the handle (lib/omp/team.c), under libomp the team's single; the handle's plan is its own
 * either way. */
static void test_macro_auto_plans(void)
{
    enum { N = 64, RUNS = 20 };
    static struct lf_site self = LF_SITE_INIT("self", 1), own = LF_SITE_INIT("own", 1),
                          choose = LF_SITE_INIT("choose", 1);
    int longest;
    long bad = 0;
    int shaped =
        auto_runs_shaped(&self, "auto,plan=self", N, RUNS / 4, 12000, N, 1, &longest, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(shaped >= RUNS / 4 - 1);
    CU_ASSERT(longest >= RUNS / 4 - 1);
    if (shaped < RUNS / 4 - 1 || longest < RUNS / 4 - 1)
        fprintf(
            stderr,
            "auto,plan=self on %d iterations of 12 us: %d of %d executions shaped, %d in a row\n",
            N, shaped, RUNS / 4, longest);
    auto_runs_shaped(&own, "auto,plan=own", N, RUNS / 4, 0, N, 1, &longest, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    shaped = auto_runs_shaped(&choose, "auto", N, RUNS, 12000, N, 1, &longest, &bad);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(shaped >= 3);
    if (shaped < 3)
        fprintf(stderr, "auto on %d iterations of 12 us: %d self-scheduled executions\n", N,
                shaped);
}

/* Which loops run without a handle (lf_omp_light_begin): schedules that
 * need only a counter and size claims from the remainder (guided; fixed
 * sizes keep a slot's fetch-and-add), in a team of one under either
 * runtime and in larger teams under libgomp (the gcc build; clang's build
 * runs on libomp, whose teams lease handles); never a schedule that times
 * or learns, except auto in a team of one (light 2), which runs its loop as
 * one untimed chunk and learns nothing.  A team of one takes its loop as
 * one chunk; a larger team's guided,c chunks are GSS's
 * min(r, max(c, ceil(r / P))) of the r = N - first iterations left.  A
 * loop that needs a handle runs through the lease and handle as the
 * header says (for auto's first execution under libgomp, the lease its
 * team met for in lf_omp_light_begin): every iteration once either way. */
static void test_macro_light_path(void)
{
    /* A site per case: a site remembers four (spec, team size) pairs. */
    static struct lf_site sites[16];
    struct {
        const char *spec;
        int light;
    } cases[] = {{"dynamic", 0},         {"dynamic,7", 0}, {"guided", 1},       {"guided,5", 1},
                 {"guided,lease=on", 0}, {"auto", 2},      {"multi", 0},        {"fac2", 0},
                 {"static", 0},          {"af", 0},        {"no-such-thing", 0}};
#ifdef __clang__
    const int team_light = 0; /* libomp */
#else
    const int team_light = 1; /* libgomp */
#endif
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++)
        for (int P = 1; P <= 3; P++) {
            enum { N = 1000 };
            static atomic_int hits[N], chunk_at[N]; /* chunk_at[first]: its size */
            int got[3] = {-1, -1, -1};
#pragma omp parallel num_threads(P)
            {
                int tid = omp_get_thread_num(), np = omp_get_num_threads();
                struct lf_omp_light lt;
                int on = lf_omp_light_begin(&sites[k], cases[k].spec, np, tid, 0, N, 1, &lt);
                got[tid] = on;
                long first;
                unsigned long count;
                if (on) {
                    while (lf_omp_light_next(&lt, &first, &count)) {
                        atomic_store(&chunk_at[first], (int)count);
                        for (unsigned long j = 0; j < count; j++)
                            atomic_fetch_add(&hits[first + (long)j], 1);
                    }
                    lf_omp_light_end(&lt);
                } else {
                    /* As the header says: a lease for the team (the one it
                     * met for, if it met), the handle, the loop, the exit. */
                    lf_omp_loan *lease =
                        np > 1 ? lf_omp_team_loan(&sites[k], cases[k].spec, np) : NULL;
                    if (np > 1 && !lease) {
#pragma omp single copyprivate(lease)
                        lease = lf_omp_loan_get(&sites[k], cases[k].spec, np);
                    }
                    if (!lease)
                        lease = lf_omp_loan_get(&sites[k], cases[k].spec, 1);
                    lf_loop *loop = lf_omp_enter(&sites[k], lease, tid, 0, N, 1, NULL);
                    while (loop && lf_loop_next(loop, tid, &first, &count))
                        for (unsigned long j = 0; j < count; j++)
                            atomic_fetch_add(&hits[first + (long)j], 1);
                    lf_omp_exit(&sites[k], lease, loop, tid);
                }
            }
            int want = cases[k].light == 2 ? P == 1 : cases[k].light && (P == 1 || team_light);
            for (int t = 0; t < P; t++)
                CU_ASSERT_EQUAL(got[t], want);
            int bad = 0; /* every iteration once, with or without a handle */
            for (int i = 0; i < N; i++)
                bad += atomic_exchange(&hits[i], 0) != 1;
            if (bad || got[0] != want)
                fprintf(stderr, "FAIL light %s P=%d: light %d (expected %d), %d iterations off\n",
                        cases[k].spec, P, got[0], want, bad);
            CU_ASSERT_EQUAL(bad, 0);
            /* The chunks, in counter order, as the rule above says. */
            long c = strchr(cases[k].spec, ',') ? atol(strchr(cases[k].spec, ',') + 1) : 1;
            int off = 0;
            for (long first = 0; want && first < N;) {
                long size = atomic_load(&chunk_at[first]), r = N - first;
                long gss = (r + P - 1) / P > c ? (r + P - 1) / P : c;
                long rule = P == 1 ? N : gss < r ? gss : r;
                if (size != rule) {
                    fprintf(stderr, "light %s P=%d: chunk at %ld of %ld, expected %ld\n",
                            cases[k].spec, P, first, size, rule);
                    off++;
                    break;
                }
                first += size;
            }
            CU_ASSERT_EQUAL(off, 0);
            for (int i = 0; i < N; i++)
                atomic_store(&chunk_at[i], 0);
        }
}

/* The default forms: LF_SCHEDULE, LF_FOR, LF_FOR_STEP, LF_PARALLEL_FOR, and
 * an orphaned LF_FOR outside any parallel region. */
static void test_macro_default_forms(void)
{
    struct cover_case a, b, c, d;
    CU_ASSERT_EQUAL_FATAL(cover_make(&a, 10000, 1, 0), 0);
    CU_ASSERT_EQUAL_FATAL(cover_make(&b, 10000, -7, 1), 0);
    CU_ASSERT_EQUAL_FATAL(cover_make(&c, 10000, 1, 0), 0);
    CU_ASSERT_EQUAL_FATAL(cover_make(&d, 1234, 3, 2), 0);
#pragma omp parallel num_threads(2)
    {
        LF_FOR(i, 0, 10000)
        {
            cover_mark(&a, i);
        }
        LF_FOR_STEP(i, b.lo, b.hi, -7)
        {
            cover_mark(&b, i);
        }
    }
    LF_PARALLEL_FOR(i, 0, 10000)
    {
        cover_mark(&c, i);
    }
    LF_FOR_STEP(i, d.lo, d.hi, 3)
    {
        cover_mark(&d, i);
    }
    CU_ASSERT(check(&a, "LF_FOR", "default", 2));
    CU_ASSERT(check(&b, "LF_FOR_STEP", "default", 2));
    CU_ASSERT(check(&c, "LF_PARALLEL_FOR", "default", 0));
    CU_ASSERT(check(&d, "orphaned", "default", 1));
    cover_free(&a);
    cover_free(&b);
    cover_free(&c);
    cover_free(&d);
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"macro_covers_matrix", test_macro_covers_matrix},
        {"macro_barrier_orders_phases", test_macro_barrier_orders_phases},
        {"macro_nested_regions", test_macro_nested_regions},
        {"macro_thousand_nowait_loops", test_macro_thousand_nowait_loops},
        {"macro_default_forms", test_macro_default_forms},
        {"macro_light_path", test_macro_light_path},
        {"macro_explicit_sites", test_macro_explicit_sites},
        {"macro_chunk_bounds", test_macro_chunk_bounds},
        {"macro_auto_tiny", test_macro_auto_tiny},
        {"macro_auto_plans", test_macro_auto_plans},
        {0, 0},
    };
    return lfcu_run("macro", tests);
}
