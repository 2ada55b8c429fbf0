/* tests/test_misuse.c - what a user gets wrong is reported once, clearly, and
 * never corrupts a loop: members with other bounds than their team's, a
 * malformed lf_data, increment 0, overlong specs, a spec string per loop,
 * lf_loop_destroy while a loop runs, a member that never enters.  Each test
 * asserts the loop's result (every iteration exactly once) and the message
 * the user sees on stderr. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopfarm/omp.h"
#include "lfcu.h"

/* ---- stderr capture ---- */

static FILE *cap_file;
static int cap_saved = -1;

static void capture_begin(void)
{
    fflush(stderr);
    cap_file = tmpfile();
    CU_ASSERT_PTR_NOT_NULL_FATAL(cap_file);
    cap_saved = dup(2);
    dup2(fileno(cap_file), 2);
}

/* Stop capturing; the text written to stderr meanwhile (static buffer). */
static const char *capture_end(void)
{
    static char text[8192];
    fflush(stderr);
    dup2(cap_saved, 2);
    close(cap_saved);
    rewind(cap_file);
    size_t n = fread(text, 1, sizeof text - 1, cap_file);
    text[n] = 0;
    fclose(cap_file);
    return text;
}

/* Occurrences of needle in text. */
static int count_of(const char *text, const char *needle)
{
    int k = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        k++;
    return k;
}

/* Member t takes chunks until none is left and leaves; the iterations it got. */
static unsigned long drain(lf_loop *l, int t)
{
    long first;
    unsigned long count, got = 0;
    while (lf_loop_next(l, t, &first, &count))
        got += count;
    lf_loop_end(l, t);
    return got;
}

/* ---- item 1: a member whose bounds differ from its team's ---- */

static void test_member_with_other_bounds_gets_no_chunk(void)
{
    lf_loop *l;
    long first;
    unsigned long count, got = 0;
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&l, 2, NULL, "bounds"), 0);
    CU_ASSERT_EQUAL(lf_loop_begin(l, 0, 0, 100, 1), 0);
    CU_ASSERT_EQUAL(lf_loop_begin(l, 1, 0, 50, 1), -ERANGE);
    CU_ASSERT_EQUAL(lf_loop_next(l, 1, &first, &count), 0);
    while (lf_loop_next(l, 0, &first, &count)) {
        CU_ASSERT(first >= 0 && first + (long)count <= 100);
        got += count;
    }
    lf_loop_end(l, 0);
    lf_loop_end(l, 1); /* already out: a no-op */
    CU_ASSERT_EQUAL(got, 100);
    /* The next loop runs normally with both members. */
    CU_ASSERT_EQUAL(lf_loop_begin(l, 1, 5, 25, 2), 0);
    CU_ASSERT_EQUAL(lf_loop_begin(l, 0, 5, 25, 2), 0);
    got = drain(l, 0);
    CU_ASSERT_EQUAL(got + drain(l, 1), 10);
    lf_loop_destroy(l);
}

/* Through the macro, under the default schedule (a loaned handle) and
 * under schedules whose loops run without a handle (dynamic, guided:
 * lf_omp_light_begin, whose team meets in a libgomp work share): the member
 * with other bounds runs nothing, and the site reports it once. */
static void test_macro_member_with_other_bounds_reported(void)
{
    enum { N = 400 };
    static atomic_int hits[N];
    atomic_int outside = 0;
    const char *specs[] = {NULL, "guided", "dynamic,3", NULL, "guided", "auto"};
    capture_begin();
    for (size_t r = 0; r < sizeof specs / sizeof *specs; r++) {
        const char *sp = specs[r];
#pragma omp parallel num_threads(2)
        {
            long hi = omp_get_thread_num() == 0 ? N : N / 2; /* not allowed: reported */
            LF_FOR_SCHED(i, 0, hi, 1, sp)
            {
                if (i < 0 || i >= N)
                    atomic_fetch_add(&outside, 1);
                else
                    atomic_fetch_add(&hits[i], 1);
            }
        }
        int n = 0, twice = 0;
        for (int i = 0; i < N; i++) {
            int h = atomic_exchange(&hits[i], 0);
            n += h > 0;
            twice += h > 1;
        }
        CU_ASSERT_EQUAL(twice, 0);
        CU_ASSERT(n == N || n == N / 2); /* the bounds the loop was started with */
    }
    const char *err = capture_end();
    CU_ASSERT_EQUAL(atomic_load(&outside), 0);
    CU_ASSERT_EQUAL(count_of(err, "differ from its team's"), 1); /* one site */
}

/* ---- item 2: errors the macros used to swallow ---- */

static void test_malformed_data_runs_without_locality(void)
{
    enum { N = 998 };
    static double x[N];
    static atomic_int hits[N];
    unsigned long home[3] = {0, 500, 10}; /* home[nhome] must be the trip count */
    struct lf_data d = {.home = home, .nhome = 2, .ninputs = 1};
    d.in[0] = (struct lf_input){.base = x, .size = sizeof(double), .stride = 1};
    for (int i = 0; i < N; i++)
        x[i] = i;
    capture_begin();
    double sum = 0;
    for (int r = 0; r < 2; r++) {
#pragma omp parallel num_threads(2) reduction(+ : sum)
        LF_FOR_DATA(i, 0, N, 1, "dynamic", &d)
        {
            atomic_fetch_add(&hits[i], 1);
            sum += LF_IN(double, 0, i);
        }
    }
    const char *err = capture_end();
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(atomic_load(&hits[i]), 2);
    CU_ASSERT_DOUBLE_EQUAL(sum, 2.0 * N * (N - 1) / 2, 1e-6);
    CU_ASSERT_EQUAL(count_of(err, "malformed struct lf_data"), 1);
    CU_ASSERT(strstr(err, "home[nhome]") != NULL);
    CU_ASSERT(strstr(err, "without locality") != NULL);
}

static void test_zero_increment_says_the_loop_cannot_run(void)
{
    atomic_int ran = 0;
    volatile long step = 0;
    capture_begin();
    for (int r = 0; r < 3; r++) {
#pragma omp parallel num_threads(2)
        LF_FOR_STEP(i, 0, 10, step)
        {
            atomic_fetch_add(&ran, 1);
        }
    }
    const char *err = capture_end();
    CU_ASSERT_EQUAL(atomic_load(&ran), 0);
    CU_ASSERT_EQUAL(count_of(err, "increment 0"), 1);
    CU_ASSERT(strstr(err, "does not run") != NULL);
}

/* ---- item 6: specs are kept whole or rejected ---- */

static void test_long_spec_is_never_cut(void)
{
    char spec[200], err[512];
    /* 128 characters: cut at 127, it would read "min=12345", a valid other schedule. */
    snprintf(spec, sizeof spec, "multi,%*smin=123456", 112, "");
    CU_ASSERT_EQUAL_FATAL(strlen(spec), 128);
    lf_schedule *s = NULL;
    int rc = lf_schedule_parse(spec, &s, err, sizeof err);
    if (rc == 0) {
        CU_ASSERT_STRING_EQUAL(lf_schedule_spec(s), spec);
        lf_schedule_free(s);
    } else {
        CU_ASSERT_EQUAL(rc, -EINVAL);
        CU_ASSERT(strstr(err, "at most 127") != NULL);
    }
    strcpy(spec, "dynamic,4");
    CU_ASSERT_EQUAL_FATAL(lf_schedule_parse(spec, &s, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(lf_schedule_spec(s), spec);
    lf_schedule_free(s);
}

/* ---- item 7: a spec string per loop does not grow memory without bound ---- */

static size_t heap_in_use(void)
{
    struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

static void test_spec_per_loop_memory_is_bounded(void)
{
    int loops = getenv("LF_TEST_QUICK") ? 2000 : 8000;
    long total = 0;
    size_t before = 0;
    for (int k = 0; k < loops; k++) {
        char spec[32];
        snprintf(spec, sizeof spec, "dynamic,%d", 1 + k);
        long s = 0;
        LF_FOR_SCHED(i, 0, 64, 1L, spec)
        {
            s += i;
        }
        total += s;
        if (k == 100)
            before = heap_in_use();
    }
    size_t after = heap_in_use();
    CU_ASSERT_EQUAL(total, (long)loops * 64 * 63 / 2);
    /* Unbounded: ~16 KB a spec (128 MB for 8000); bounded: a few pools. */
    CU_ASSERT(after < before + ((size_t)8 << 20));
    if (after >= before + ((size_t)8 << 20))
        fprintf(stderr, "heap grew by %zu bytes over %d specs\n", after - before, loops);
}

/* ---- members far apart over nowait loops: handles stay bounded ---- */

static void test_lagging_member_keeps_handles_bounded(void)
{
    /* Member 1 sleeps while member 0 runs ahead through nowait loops; each
     * loop it opens leases a handle (~15 KB).  Unbounded, 3000 loops ahead
     * made 3000 handles (45 MB); bounded, member 0 waits at 32. */
    enum { LOOPS = 3000, N = 64 };
    size_t before = heap_in_use();
    long total = 0;
#pragma omp parallel num_threads(2) reduction(+ : total)
    {
        if (omp_get_thread_num() == 1)
            usleep(50000);
        for (int k = 0; k < LOOPS; k++)
            LF_FOR_SCHED_NOWAIT(i, 0, N, 1L, "guided")
            {
                total += i;
            }
    }
    size_t after = heap_in_use();
    CU_ASSERT_EQUAL(total, (long)LOOPS * N * (N - 1) / 2);
    CU_ASSERT(after < before + ((size_t)4 << 20));
    if (after >= before + ((size_t)4 << 20))
        fprintf(stderr, "heap grew by %zu bytes over %d loops\n", after - before, (int)LOOPS);
}

/* ---- item 8: lf_loop_destroy while a loop runs ---- */

static void test_destroy_while_running_is_refused(void)
{
    lf_loop *l;
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&l, 2, NULL, "busy"), 0);
    CU_ASSERT_EQUAL(lf_loop_begin(l, 0, 0, 64, 1), 0);
    capture_begin();
    lf_loop_destroy(l); /* member 0 inside, member 1 to come: refused */
    const char *err = capture_end();
    CU_ASSERT(strstr(err, "still running") != NULL);
    CU_ASSERT_EQUAL(lf_loop_begin(l, 1, 0, 64, 1), 0);
    unsigned long got = drain(l, 0);
    CU_ASSERT_EQUAL(got + drain(l, 1), 64);
    capture_begin();
    lf_loop_destroy(l); /* idle now: freed, silently */
    CU_ASSERT_STRING_EQUAL(capture_end(), "");
}

/* ---- item 15: a member that never enters ---- */

static void test_others_finish_loops_a_member_skips(void)
{
    lf_loop *l;
    long first;
    unsigned long count;
    CU_ASSERT_EQUAL_FATAL(lf_loop_create(&l, 2, NULL, "skipper"), 0);
    for (int k = 0; k < 7; k++) { /* fewer than the 8 loop states a handle keeps */
        CU_ASSERT_EQUAL(lf_loop_begin(l, 0, 0, 1000, 1), 0);
        CU_ASSERT_EQUAL(drain(l, 0), 1000);
    }
    /* Member 1 catches up on every loop it skipped; then the handle is idle. */
    for (int k = 0; k < 7; k++) {
        CU_ASSERT_EQUAL(lf_loop_begin(l, 1, 0, 1000, 1), 0);
        CU_ASSERT_EQUAL(lf_loop_next(l, 1, &first, &count), 0);
        lf_loop_end(l, 1);
    }
    capture_begin();
    lf_loop_destroy(l);
    CU_ASSERT_STRING_EQUAL(capture_end(), "");
}

/* ---- item 4: OpenMP's guided bound, whatever the schedule ---- */

struct capped_run {
    lf_loop *l;
    int tid;
    atomic_long *nchunks;
    long (*chunks)[2];
};

static void *capped_member(void *p)
{
    struct capped_run *m = p;
    long first;
    unsigned long count;
    if (lf_loop_begin(m->l, m->tid, 0, 20000, 1) != 0)
        return NULL;
    while (lf_loop_next(m->l, m->tid, &first, &count)) {
        long k = atomic_fetch_add(m->nchunks, 1);
        m->chunks[k][0] = first;
        m->chunks[k][1] = (long)count;
        for (volatile unsigned long spin = 0; spin < count * 20; spin++)
            ;
    }
    lf_loop_end(m->l, m->tid);
    return NULL;
}

static void test_guided_cap_keeps_every_schedule_in_bound(void)
{
    static const char *const specs[] = {"multi", "af",    "static",       "tss", "umr",
                                        "as4dr", "awf-c", "dynamic,5000", NULL};
    enum { P = 8, N = 20000 };
    static long chunks[N][2];
    for (const char *const *sp = specs; *sp; sp++) {
        lf_schedule *s;
        lf_loop *l;
        char err[256];
        CU_ASSERT_EQUAL_FATAL(lf_schedule_parse(*sp, &s, err, sizeof err), 0);
        CU_ASSERT_EQUAL_FATAL(lf_loop_create(&l, P, s, *sp), 0);
        lf_schedule_free(s);
        CU_ASSERT_EQUAL(lf_loop_set_guided_cap(l, 1), 0);
        for (int rep = 0; rep < 2; rep++) { /* the second starts from memory */
            atomic_long nchunks = 0;
            struct capped_run m[P];
            pthread_t th[P];
            for (int t = 0; t < P; t++) {
                m[t] = (struct capped_run){l, t, &nchunks, chunks};
                CU_ASSERT_EQUAL_FATAL(pthread_create(&th[t], NULL, capped_member, &m[t]), 0);
            }
            for (int t = 0; t < P; t++)
                pthread_join(th[t], NULL);
            long total = 0, over = 0;
            for (long k = 0; k < atomic_load(&nchunks); k++) {
                long first = chunks[k][0], count = chunks[k][1];
                /* Claims come from one counter that only grows: when this
                 * chunk was claimed, N - first iterations were unassigned. */
                if (count > (N - first + P - 1) / P) {
                    if (!over)
                        fprintf(stderr, "%s: chunk [%ld, +%ld) above the guided bound %ld\n", *sp,
                                first, count, (N - first + P - 1) / P);
                    over++;
                }
                total += count;
            }
            CU_ASSERT_EQUAL(total, N);
            CU_ASSERT_EQUAL(over, 0);
        }
        lf_loop_destroy(l);
    }
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"member_with_other_bounds_gets_no_chunk", test_member_with_other_bounds_gets_no_chunk},
        {"macro_member_with_other_bounds_reported", test_macro_member_with_other_bounds_reported},
        {"malformed_data_runs_without_locality", test_malformed_data_runs_without_locality},
        {"zero_increment_says_the_loop_cannot_run", test_zero_increment_says_the_loop_cannot_run},
        {"long_spec_is_never_cut", test_long_spec_is_never_cut},
        {"spec_per_loop_memory_is_bounded", test_spec_per_loop_memory_is_bounded},
        {"lagging_member_keeps_handles_bounded", test_lagging_member_keeps_handles_bounded},
        {"destroy_while_running_is_refused", test_destroy_while_running_is_refused},
        {"others_finish_loops_a_member_skips", test_others_finish_loops_a_member_skips},
        {"guided_cap_keeps_every_schedule_in_bound", test_guided_cap_keeps_every_schedule_in_bound},
        {0}};
    return lfcu_run("misuse", tests);
}
