/* tests/test_coverage.c - every iteration exactly once through the explicit
 * API, for every schedule x team size x trip count x increment x bounds near
 * the ends of long, with members running consecutive loops without a barrier
 * (and each of auto's execution plans, forced in turn).
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>

#include "dispatch/dispatch.h" /* struct lf_loop: the plan a site ran, its memory primed */
#include "loopfarm.h"
#include "lfcu.h"
#include "cover.h"

static const int team_sizes[] = {1, 2, 3, 4, 8, 16, 33};
static const long incrs[] = {1, -1, 3, -7};

struct team_run {
    lf_loop *loop;
    struct cover_case *cases;
    int ncases;
    int tid;
    int early_exit; /* member 1 leaves each loop after its first chunk */
    int rc;
};

/* One member: run every case back to back, no barrier in between. */
static void *member(void *arg)
{
    struct team_run *r = arg;
    for (int k = 0; k < r->ncases; k++) {
        struct cover_case *c = &r->cases[k];
        if (lf_loop_begin(r->loop, r->tid, c->lo, c->hi, c->incr) != 0) {
            r->rc = -1;
            return NULL;
        }
        long first;
        unsigned long cnt;
        while (lf_loop_next(r->loop, r->tid, &first, &cnt)) {
            long i = first;
            for (unsigned long j = 0; j < cnt;
                 j++, i = (long)((unsigned long)i + (unsigned long)c->incr))
                cover_mark(c, i);
            if (r->early_exit && r->tid == 1)
                break;
        }
        lf_loop_end(r->loop, r->tid);
    }
    return NULL;
}

static unsigned long big_trip(void)
{
    return getenv("LF_TEST_QUICK") ? 20000UL : 1000000UL;
}

/* The schedules each sweep runs: cover_specs, then auto with each of its
 * execution plans forced in turn (plan=dealt, own, self, serial, tiny; k -
 * cover_count() in *forced, else -1).  The self-scheduled plan's site is
 * primed with a time per iteration of LF__SELF_NS / 2.5, so that its
 * fixed chunks are of three iterations, split where the loop is long. */
static int cover_count(void)
{
    int k = 0;
    while (cover_specs[k])
        k++;
    return k;
}

static const char *const forced_specs[LF__PLANS] = {
    "auto,plan=dealt", "auto,plan=own", "auto,plan=self", "auto,plan=serial", "auto,plan=tiny"};

static const char *spec_at(int k, int *forced)
{
    *forced = k < cover_count() ? -1 : k - cover_count();
    return *forced < 0 ? cover_specs[k] : *forced < LF__PLANS ? forced_specs[*forced] : NULL;
}

/* Run cases on a fresh team of P threads under spec (a forced plan of
 * auto, or -1); assert exactly once, and that a team of two or more ran
 * the forced plan. */
static void run_team(const char *spec, int forced, int P, struct cover_case *cases, int ncases,
                     int early)
{
    lf_schedule *s;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lf_schedule_parse(spec, &s, err, sizeof err), 0);
    lf_loop *loop;
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&loop, P, s, spec), 0);
    if (forced == LF__PLAN_SELF)
        loop->mem.team_ns_per_iter = LF__SELF_NS / 2.5; /* chunks of ceil(2.5) */
    pthread_t th[64];
    struct team_run runs[64];
    for (int t = 0; t < P; t++) {
        runs[t] = (struct team_run){loop, cases, ncases, t, early, 0};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, member, &runs[t]), 0);
    }
    for (int t = 0; t < P; t++) {
        pthread_join(th[t], NULL);
        CU_ASSERT_EQUAL(runs[t].rc, 0);
    }
    for (int k = 0; k < ncases; k++) {
        unsigned long miss = cover_missing(&cases[k]);
        long dup = atomic_load(&cases[k].dup);
        if (miss || dup)
            fprintf(stderr, "FAIL %s%s P=%d lo=%ld hi=%ld incr=%ld n=%lu: %lu missing, %ld twice\n",
                    spec, "", P, cases[k].lo, cases[k].hi, cases[k].incr, cases[k].n, miss, dup);
        CU_ASSERT_EQUAL(miss, 0);
        CU_ASSERT_EQUAL(dup, 0);
    }
    if (forced >= 0 && P > 1) { /* a team of one runs its loops whole */
        CU_ASSERT_EQUAL(loop->ring[0].plan.kind, forced);
        CU_ASSERT(forced != LF__PLAN_SELF || loop->ring[0].plan.chunk == 3);
        CU_ASSERT(forced != LF__PLAN_SERIAL || loop->ring[0].plan.chunk >= 2);
        CU_ASSERT_EQUAL(loop->tiny_done > 0, forced == LF__PLAN_TINY);
    }
    lf_loop_destroy(loop);
    lf_schedule_free(s);
}

/* The full matrix for one bounds placement. */
static void sweep(int where)
{
    int forced;
    for (int s = 0; spec_at(s, &forced); s++) {
        const char *spec = spec_at(s, &forced);
        for (size_t p = 0; p < sizeof team_sizes / sizeof *team_sizes; p++) {
            int P = team_sizes[p];
            unsigned long trips[8];
            int nt = cover_trips(P, where == 0 ? big_trip() : 5000, trips);
            struct cover_case cases[8 * 4];
            int nc = 0;
            for (int t = 0; t < nt; t++)
                for (int k = 0; k < 4; k++)
                    CU_ASSERT_EQUAL_FATAL(cover_make(&cases[nc++], trips[t], incrs[k], where), 0);
            run_team(spec, forced, P, cases, nc, 0);
            for (int k = 0; k < nc; k++)
                cover_free(&cases[k]);
        }
    }
}

static void test_every_iteration_once_from_zero(void)
{
    sweep(0);
}

static void test_every_iteration_once_ending_at_long_limits(void)
{
    sweep(1);
}

static void test_every_iteration_once_starting_at_long_limits(void)
{
    sweep(2);
}

/* The widest loops of all
 * (LONG_MIN .. LONG_MAX with incr LONG_MAX/2): trip counts near 2^64 are
 * only checked for correct counting, not run. */
static void test_trip_count_extremes(void)
{
    int ok;
    CU_ASSERT_EQUAL(lf_trip_count(LONG_MIN, LONG_MAX, 1, &ok), ULONG_MAX);
    CU_ASSERT(ok);
    CU_ASSERT_EQUAL(lf_trip_count(LONG_MAX, LONG_MIN, -1, &ok), ULONG_MAX);
    CU_ASSERT_EQUAL(lf_trip_count(0, 10, -1, &ok), 0);
    CU_ASSERT_EQUAL(lf_trip_count(10, 0, 1, &ok), 0);
    CU_ASSERT_EQUAL(lf_trip_count(0, 10, 3, &ok), 4);
    CU_ASSERT_EQUAL(lf_trip_count(0, -10, -3, &ok), 4);
    CU_ASSERT_EQUAL(lf_trip_count(0, 1, 0, &ok), 0);
    CU_ASSERT(!ok);
    int forced;
    for (int s = 0; spec_at(s, &forced); s++) {
        const char *spec = spec_at(s, &forced);
        struct cover_case c;
        CU_ASSERT_EQUAL_FATAL(cover_make(&c, 5, LONG_MAX / 2, 2), 0);
        c.hi = LONG_MAX; /* LONG_MIN + k * (2^62 - 1) < LONG_MAX for k = 0..4 */
        CU_ASSERT_EQUAL(lf_trip_count(c.lo, c.hi, c.incr, &ok), 5);
        run_team(spec, forced, 3, &c, 1, 0);
        cover_free(&c);
    }
}

/* A member that leaves a loop early does not lose iterations: the others
 * take them. */
static void test_member_leaving_early_loses_nothing(void)
{
    int forced;
    for (int s = 0; spec_at(s, &forced); s++) {
        const char *spec = spec_at(s, &forced);
        if (strncmp(spec, "static", 6) == 0)
            continue; /* a static member owns its block: leaving early drops it by design */
        struct cover_case c[3];
        for (int k = 0; k < 3; k++)
            CU_ASSERT_EQUAL_FATAL(cover_make(&c[k], 10000, 1, 0), 0);
        run_team(spec, forced, 3, c, 3, 1);
        for (int k = 0; k < 3; k++)
            cover_free(&c[k]);
    }
}

/* Misuse gets -EINVAL and changes nothing. */
static void test_misuse_returns_einval(void)
{
    lf_loop *loop;
    lf_schedule *s;
    char err[256];
    CU_ASSERT_EQUAL(lf_loop_create(&loop, 0, NULL, NULL), -EINVAL);
    CU_ASSERT_EQUAL(lf_schedule_parse("bogus", &s, err, sizeof err), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "dynamic"));
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&loop, 2, NULL, "misuse"), 0);
    CU_ASSERT_EQUAL(lf_loop_begin(loop, 2, 0, 10, 1), -EINVAL);
    CU_ASSERT_EQUAL(lf_loop_begin(loop, -1, 0, 10, 1), -EINVAL);
    CU_ASSERT_EQUAL(lf_loop_begin(loop, 0, 0, 10, 0), -EINVAL);
    CU_ASSERT_EQUAL(lf_loop_begin(loop, 0, 0, 10, 1), 0);
    CU_ASSERT_EQUAL(lf_loop_begin(loop, 0, 0, 10, 1), -EINVAL); /* entered twice */
    long first;
    unsigned long cnt, total = 0;
    while (lf_loop_next(loop, 0, &first, &cnt))
        total += cnt;
    lf_loop_end(loop, 0);
    /* member 1 still has to enter; the loop is already done for it */
    CU_ASSERT_EQUAL(lf_loop_begin(loop, 1, 0, 10, 1), 0);
    while (lf_loop_next(loop, 1, &first, &cnt))
        total += cnt;
    lf_loop_end(loop, 1);
    CU_ASSERT_EQUAL(total, 10);
    CU_ASSERT_EQUAL(lf_loop_next(loop, 0, &first, &cnt), 0); /* outside any loop */
    CU_ASSERT_EQUAL(lf_loop_next(loop, 2, &first, &cnt), 0); /* tid out of range */
    CU_ASSERT_EQUAL(lf_loop_next(loop, -1, &first, &cnt), 0);
    CU_ASSERT_EQUAL(lf_loop_next(NULL, 0, &first, &cnt), 0);
    lf_loop_end(loop, 5); /* ignored */
    lf_loop_end(NULL, 0);
    lf_loop_destroy(loop);
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"every_iteration_once_from_zero", test_every_iteration_once_from_zero},
        {"every_iteration_once_ending_at_long_limits",
         test_every_iteration_once_ending_at_long_limits},
        {"every_iteration_once_starting_at_long_limits",
         test_every_iteration_once_starting_at_long_limits},
        {"trip_count_extremes", test_trip_count_extremes},
        {"member_leaving_early_loses_nothing", test_member_leaving_early_loses_nothing},
        {"misuse_returns_einval", test_misuse_returns_einval},
        {0, 0},
    };
    return lfcu_run("coverage", tests);
}
