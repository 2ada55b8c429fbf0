/* tests/test_dispatch.c - behaviours of the dispatcher beyond coverage: what
 * a call site remembers, recalibration when rates drift, calibration that
 * leaves nobody waiting, the LF_TRACE file, loop statistics. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dispatch/dispatch.h" /* struct lf_loop: the site memory */
#include "exec/exec.h"         /* LF__TINY_NS, LF__TINY_RECHECK */
#include "lfcu.h"
#include "plain.h"
#include "loopfarm.h"

static _Thread_local volatile double sink; /* per thread: no race between members */

/* Burn roughly units * 100 simple operations. */
static void burn(long units)
{
    double x = 1.0;
    for (long k = 0; k < units * 100; k++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

struct member_arg {
    lf_loop *loop;
    int tid;
    long n, cost;
    atomic_int *gate; /* when set, wait for *gate != 0 before entering */
    unsigned long iters;
    /* The pieces it got: the first, and whether each later one was at
     * most twice the one before or at most bound. */
    unsigned long bound, first_piece;
    int doubling_ok;
};

static void *member(void *p)
{
    struct member_arg *a = p;
    if (a->gate)
        while (!atomic_load(a->gate))
            usleep(100);
    long first;
    unsigned long cnt, prev = 0;
    a->iters = a->first_piece = 0;
    a->doubling_ok = 1;
    if (lf_loop_begin(a->loop, a->tid, 0, a->n, 1) != 0)
        return NULL;
    while (lf_loop_next(a->loop, a->tid, &first, &cnt)) {
        if (prev)
            a->doubling_ok &= cnt <= 2 * prev || cnt <= a->bound;
        else
            a->first_piece = cnt;
        prev = cnt;
        burn(a->cost * (long)cnt);
        a->iters += cnt;
    }
    lf_loop_end(a->loop, a->tid);
    return NULL;
}

/* Run one loop of n iterations of the given cost on a team of P threads. */
static void run_loop(lf_loop *loop, int P, long n, long cost)
{
    pthread_t th[8];
    struct member_arg a[8];
    for (int t = 0; t < P; t++) {
        a[t] = (struct member_arg){.loop = loop, .tid = t, .n = n, .cost = cost};
        pthread_create(&th[t], NULL, member, &a[t]);
    }
    for (int t = 0; t < P; t++)
        pthread_join(th[t], NULL);
}

static lf_loop *make_loop(const char *spec, int P)
{
    lf_schedule *s;
    lf_loop *loop;
    char err[256];
    if (lf_schedule_parse(spec, &s, err, sizeof err) != 0)
        return NULL;
    if (lf_loop_create(&loop, P, s, spec) != 0)
        loop = NULL;
    lf_schedule_free(s);
    return loop;
}

/* The second execution of a calibrating loop starts from what the first
 * learned: no calibration chunks. */
static void test_site_memory_skips_calibration(void)
{
    const char *specs[] = {"multi", "dealdyn", "af", "wf"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        lf_loop *loop = make_loop(specs[k], 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
        struct lf_loop_stats st;
        run_loop(loop, 2, 20000, 2);
        CU_ASSERT_EQUAL(lf_loop_last_stats(loop, &st), 0);
        CU_ASSERT(st.calib_chunks > 0);
        CU_ASSERT_EQUAL(st.iterations, 20000);
        /* Timing noise may cross the drift threshold once; not twice in a row. */
        int from_memory = 0;
        for (int tries = 0; tries < 3 && !from_memory; tries++) {
            run_loop(loop, 2, 20000, 2);
            lf_loop_last_stats(loop, &st);
            from_memory = st.from_memory;
        }
        CU_ASSERT(from_memory);
        CU_ASSERT_EQUAL(st.calib_chunks, 0);
        lf_loop_destroy(loop);
    }
    /* memory=off and cal=paper calibrate every time */
    const char *fresh[] = {"multi,memory=off", "multi,cal=paper"};
    for (size_t k = 0; k < 2; k++) {
        lf_loop *loop = make_loop(fresh[k], 2);
        struct lf_loop_stats st;
        run_loop(loop, 2, 5000, 1);
        run_loop(loop, 2, 5000, 1);
        lf_loop_last_stats(loop, &st);
        CU_ASSERT(st.calib_chunks > 0);
        lf_loop_destroy(loop);
    }
}

/* When the time per iteration changes far beyond the drift threshold the
 * memory is dropped and the execution after calibrates again.  Timing noise
 * on a loaded machine can itself cross the threshold, so the test repeats
 * until a slow execution starts from memory, then checks what follows. */
static void test_drift_triggers_recalibration(void)
{
    lf_loop *loop = make_loop("multi", 2);
    struct lf_loop_stats st;
    int checked = 0;
    for (int tries = 0; tries < 20 && !checked; tries++) {
        run_loop(loop, 2, 8000, 10);
        run_loop(loop, 2, 8000, 200); /* 20x slower per iteration */
        lf_loop_last_stats(loop, &st);
        if (!st.from_memory)
            continue;
        CU_ASSERT_EQUAL(st.calib_chunks, 0);
        CU_ASSERT(st.drifted); /* 20x is far beyond 50 % */
        run_loop(loop, 2, 8000, 200);
        lf_loop_last_stats(loop, &st);
        CU_ASSERT(!st.from_memory);
        CU_ASSERT(st.calib_chunks > 0);
        checked = 1;
    }
    CU_ASSERT(checked);
    lf_loop_destroy(loop);
}

/* A member that has not arrived does not hold the others: member 0 runs the
 * whole calibrating loop while member 1 is kept out, then member 1 enters
 * and finds nothing left. */
static void test_calibration_leaves_nobody_waiting(void)
{
    const char *specs[] = {"multi", "dealdyn,calib=lr", "af", "awf-c"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        lf_loop *loop = make_loop(specs[k], 2);
        atomic_int gate = 0;
        pthread_t t0, t1;
        struct member_arg a0 = {.loop = loop, .tid = 0, .n = 3000, .cost = 1},
                          a1 = {.loop = loop, .tid = 1, .n = 3000, .cost = 1, .gate = &gate};
        pthread_create(&t1, NULL, member, &a1);
        pthread_create(&t0, NULL, member, &a0);
        pthread_join(t0, NULL); /* returns although member 1 never calibrated */
        atomic_store(&gate, 1);
        pthread_join(t1, NULL);
        CU_ASSERT_EQUAL(a0.iters, 3000);
        CU_ASSERT_EQUAL(a1.iters, 0);
        lf_loop_destroy(loop);
    }
}

/* dynamic,c hands out ceil(n/c) chunks; the statistics say so. */
static void test_stats_count_chunks(void)
{
    lf_loop *loop = make_loop("dynamic,7", 3);
    struct lf_loop_stats st;
    run_loop(loop, 3, 1000, 0);
    lf_loop_last_stats(loop, &st);
    CU_ASSERT_EQUAL(st.chunks, (1000 + 6) / 7);
    CU_ASSERT_EQUAL(st.iterations, 1000);
    CU_ASSERT(st.seconds > 0);
    lf_loop_destroy(loop);
    CU_ASSERT_EQUAL(lf_loop_last_stats(NULL, &st), -EINVAL);
}

/* A member stalled inside a leased chunk holds back one piece: the other
 * takes the rest of its lease.  Member 1 takes the first chunk of
 * dynamic,1000 over 2000 iterations, runs its first piece (an eighth: no
 * time per iteration is known yet) and stalls until member 0 has left the
 * loop, which member 0 can only do once nothing is left in any lease. */
struct stall_arg {
    lf_loop *loop;
    int tid;
    atomic_int *claimed, *left;
    unsigned long iters;
};

static void *stall_member(void *p)
{
    struct stall_arg *a = p;
    long first;
    unsigned long cnt;
    if (a->tid == 0)
        while (!atomic_load(a->claimed))
            usleep(100);
    if (lf_loop_begin(a->loop, a->tid, 0, 2000, 1) != 0)
        return NULL;
    while (lf_loop_next(a->loop, a->tid, &first, &cnt)) {
        a->iters += cnt;
        if (a->tid == 1 && !atomic_exchange(a->claimed, 1))
            while (!atomic_load(a->left)) /* the stall */
                usleep(100);
    }
    if (a->tid == 0)
        atomic_store(a->left, 1);
    lf_loop_end(a->loop, a->tid);
    return NULL;
}

static void test_stalled_member_holds_back_one_piece(void)
{
    lf_loop *loop = make_loop("dynamic,1000,lease=on", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    atomic_int claimed = 0, left = 0;
    struct stall_arg a[2] = {{loop, 0, &claimed, &left, 0}, {loop, 1, &claimed, &left, 0}};
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, stall_member, &a[t]);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    CU_ASSERT_EQUAL(a[1].iters, 125);
    CU_ASSERT_EQUAL(a[0].iters, 1875);
    struct lf_loop_stats st;
    lf_loop_last_stats(loop, &st);
    CU_ASSERT(st.steals >= 1);
    CU_ASSERT_EQUAL(st.stolen, 875);
    CU_ASSERT(st.pieces > st.chunks);
    lf_loop_destroy(loop);
}

/* A calibrating execution of auto starts its members apart: each member's
 * first claim is a lease of ceil(u / 2P) of the u iterations unclaimed
 * (lf__exec_spread_first), not a calibration chunk beside the other
 * members'.  Member 0 claims first and holds its first piece until member
 * 1 has its own, so member 1 claims when exactly member 0's lease is gone:
 * its first iteration is ceil(n / 4) on a team of two.  Each lease's first
 * piece is the member's calibration chunk (one iteration in a site's first
 * execution), not an eighth of the lease.  Every iteration runs once. */
struct apart_arg {
    lf_loop *loop;
    int tid;
    long n;
    atomic_int *turn; /* 0: member 0 may claim; 1: member 1 may; 2: both run on */
    long first_at;
    unsigned long first_n;
    unsigned char *hits;
    long bad;
};

static void *apart_member(void *p)
{
    struct apart_arg *a = p;
    while (atomic_load(a->turn) < a->tid)
        usleep(100);
    long first;
    unsigned long cnt;
    a->first_at = -1;
    if (lf_loop_begin(a->loop, a->tid, 0, a->n, 1) != 0)
        return NULL;
    while (lf_loop_next(a->loop, a->tid, &first, &cnt)) {
        if (a->first_at < 0) {
            a->first_at = first;
            a->first_n = cnt;
            atomic_store(a->turn, a->tid + 1);
            while (atomic_load(a->turn) < 2)
                usleep(100);
        }
        for (unsigned long k = 0; k < cnt; k++)
            if (atomic_fetch_add((atomic_uchar *)&a->hits[first + (long)k], 1) != 0)
                a->bad++;
        burn(2 * (long)cnt);
    }
    lf_loop_end(a->loop, a->tid);
    return NULL;
}

static void test_calibration_starts_apart(void)
{
    const long n = 10000;
    const char *specs[] = {"auto", "auto,plan=dealt", "auto,memory=off"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        lf_loop *loop = make_loop(specs[i], 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
        unsigned char *hits = calloc((size_t)n, 1);
        atomic_int turn = 0;
        struct apart_arg a[2];
        pthread_t th[2];
        for (int t = 0; t < 2; t++) {
            a[t] = (struct apart_arg){.loop = loop, .tid = t, .n = n, .turn = &turn, .hits = hits};
            pthread_create(&th[t], NULL, apart_member, &a[t]);
        }
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
        struct lf_loop_stats st;
        CU_ASSERT_EQUAL_FATAL(lf_loop_last_stats(loop, &st), 0);
        CU_ASSERT(st.calib_chunks > 0);
        CU_ASSERT_EQUAL(a[0].first_at, 0);
        CU_ASSERT_EQUAL(a[1].first_at, (n + 3) / 4);
        CU_ASSERT_EQUAL(a[0].first_n, 1);
        CU_ASSERT_EQUAL(a[1].first_n, 1);
        long once = 0;
        for (long k = 0; k < n; k++)
            once += hits[k] == 1;
        CU_ASSERT_EQUAL(once, n);
        CU_ASSERT_EQUAL(a[0].bad + a[1].bad, 0);
        free(hits);
        lf_loop_destroy(loop);
    }
    /* Only auto's leased DEALT spreads: the paper's schedules calibrate side
     * by side, and so does a monotonic loop, which has no leases. */
    const char *plain[] = {"multi,lease=on", "af", "auto,cal=paper", "auto,lease=off"};
    for (size_t i = 0; i < sizeof plain / sizeof *plain + 2; i++) {
        int mono = i == sizeof plain / sizeof *plain + 1;
        const char *spec = i < sizeof plain / sizeof *plain ? plain[i] : "auto,memory=off";
        lf_loop *loop = make_loop(spec, 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
        struct lf__plan_in in = {.sched = &loop->sched, .workers = 2, .n = n, .monotonic = mono};
        struct lf__plan p = lf__exec_plan(&in, NULL);
        CU_ASSERT_EQUAL(p.spread, i == sizeof plain / sizeof *plain);
        lf_loop_destroy(loop);
    }
}

/* lf_loop_once answers 1 to exactly one member of each loop, once every
 * member's lf_loop_next has returned 0, over several loops of one handle;
 * 0 outside a loop. */
struct once_arg {
    lf_loop *loop;
    int tid, wins;
};

static void *once_member(void *p)
{
    struct once_arg *a = p;
    for (int k = 0; k < 20; k++) {
        long first;
        unsigned long cnt;
        if (lf_loop_begin(a->loop, a->tid, 0, 1000 + k, 1) != 0)
            return NULL;
        while (lf_loop_next(a->loop, a->tid, &first, &cnt))
            burn((long)cnt);
        a->wins += lf_loop_once(a->loop, a->tid);
        a->wins += lf_loop_once(a->loop, a->tid); /* asking again wins nothing */
        lf_loop_end(a->loop, a->tid);
    }
    return NULL;
}

static void test_loop_once(void)
{
    lf_loop *loop = make_loop("auto", 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    CU_ASSERT_EQUAL(lf_loop_once(loop, 0), 0); /* not in a loop */
    CU_ASSERT_EQUAL(lf_loop_once(NULL, 0), 0);
    CU_ASSERT_EQUAL(lf_loop_once(loop, 7), 0);
    struct once_arg a[3];
    pthread_t th[3];
    for (int t = 0; t < 3; t++) {
        a[t] = (struct once_arg){.loop = loop, .tid = t};
        pthread_create(&th[t], NULL, once_member, &a[t]);
    }
    for (int t = 0; t < 3; t++)
        pthread_join(th[t], NULL);
    CU_ASSERT_EQUAL(a[0].wins + a[1].wins + a[2].wins, 20);
    lf_loop_destroy(loop);
}

/* After the chunk that completes a member's calibration, its calibration
 * chunk is at least what lasts calns at that chunk's rate; a chunk too short
 * doubles it, and the doubling's last size is kept. */
static void test_calibration_chunk_after(void)
{
    lf_loop *loop = make_loop("auto", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    const struct lf__sched *s = &loop->sched;
    uint64_t ns = s->cal_ns, cal = 1;
    CU_ASSERT_EQUAL(lf__exec_calib_step(s, 4, ns / 2, &cal), 0);
    CU_ASSERT_EQUAL(cal, 2);
    cal = 4;
    CU_ASSERT_EQUAL(lf__exec_calib_step(s, 4, ns + ns / 2, &cal), 1);
    CU_ASSERT_EQUAL(cal, 4);
    cal = 1;
    CU_ASSERT_EQUAL(lf__exec_calib_step(s, 2500, 250 * ns, &cal), 1);
    CU_ASSERT_EQUAL(cal, 10);
    CU_ASSERT_EQUAL(lf__exec_spread_first(1, 10000, 2), 2500);
    CU_ASSERT_EQUAL(lf__exec_spread_first(1, 10001, 2), 2501);
    CU_ASSERT_EQUAL(lf__exec_spread_first(8, 20, 2), 8);
    lf_loop_destroy(loop);
}

/* Where the call site's memory stands in for calibration, auto's pieces
 * ramp up in each loop instance: a member's first piece holds at most
 * LF__PIECE_FIRST_NS of the time per iteration the memory expects of it
 * (iterations of about a microsecond: a few iterations, where an eighth
 * of its first chunk is a few hundred), and every later piece at most twice the
 * one before it, across its chunks, or that first size.  Timing noise may
 * drop the memory in an instance (then it calibrates, and no ramp is
 * asked for), and a member the memory has no time of gets none; of eight
 * instances, some start from it with a time for some member.  Leases are
 * asked for (lease=on, as auto leases by default), so that no instance
 * runs untimed: on a loaded machine an iteration here can measure 5 us,
 * and every instance after the first would run coarse, without pieces. */
static void test_pieces_ramp_up(void)
{
    lf_loop *loop = make_loop("auto,lease=on", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    int checked = 0; /* members checked in instances that started from memory */
    for (int inst = 0; inst < 8; inst++) {
        unsigned long bound[2];
        for (int t = 0; t < 2; t++) /* what the memory expects, before the instance */
            bound[t] = loop->mem.valid && loop->mem.ipt[t] > 0.0
                           ? (unsigned long)ceil(LF__PIECE_FIRST_NS / loop->mem.ipt[t])
                           : 0;
        struct member_arg a[2];
        pthread_t th[2];
        for (int t = 0; t < 2; t++) {
            a[t] = (struct member_arg){.loop = loop,
                                       .tid = t,
                                       .n = 3000,
                                       .cost = 10,
                                       .bound = bound[t] > 1 ? bound[t] : 1};
            pthread_create(&th[t], NULL, member, &a[t]);
        }
        for (int t = 0; t < 2; t++)
            pthread_join(th[t], NULL);
        struct lf_loop_stats st;
        CU_ASSERT_EQUAL_FATAL(lf_loop_last_stats(loop, &st), 0);
        CU_ASSERT_EQUAL(a[0].iters + a[1].iters, 3000);
        if (!st.from_memory)
            continue;
        for (int t = 0; t < 2; t++) {
            if (!bound[t]) /* the memory holds no time of this member */
                continue;
            checked++;
            CU_ASSERT(a[t].first_piece <= a[t].bound);
            CU_ASSERT(a[t].doubling_ok);
        }
    }
    CU_ASSERT(checked > 0);
    lf_loop_destroy(loop);
}

/* Without lease= a schedule other than auto leases nothing, and a
 * monotonic handle never does: no steal, one piece per chunk. */
static void test_no_lease_no_steal(void)
{
    lf_loop *plain = make_loop("dynamic,1000", 2), *mono = make_loop("dynamic,1000,lease=force", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(plain);
    CU_ASSERT_PTR_NOT_NULL_FATAL(mono);
    CU_ASSERT_EQUAL(lf_loop_set_monotonic(mono, 1), 0);
    CU_ASSERT_EQUAL(lf_loop_set_monotonic(NULL, 1), -EINVAL);
    lf_loop *loops[2] = {plain, mono};
    for (int k = 0; k < 2; k++) {
        struct lf_loop_stats st;
        run_loop(loops[k], 2, 20000, 1);
        lf_loop_last_stats(loops[k], &st);
        CU_ASSERT_EQUAL(st.steals, 0);
        CU_ASSERT_EQUAL(st.stolen, 0);
        lf_loop_destroy(loops[k]);
    }
}

/* The trace (written by a child with LF_TRACE set, since the variable is
 * read once per process) has the header and chunks covering [0, n) once. */
static void test_trace_covers_every_iteration(const char *self)
{
    char path[] = "/tmp/lf-trace-XXXXXX";
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "LF_TRACE=%s %s --trace-child", path, self);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char line[256];
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_STRING_EQUAL(line, "site,instance,thread,lo,hi,start_ns,end_ns,pieces,from,plan\n");
    static char seen[2][5000];
    memset(seen, 0, sizeof seen);
    long rows = 0, bad = 0;
    char site[64], plan[16];
    unsigned long long inst, lo, hi, t0, t1;
    unsigned pieces;
    int thr, from;
    while (fscanf(f, "%63[^,],%llu,%d,%llu,%llu,%llu,%llu,%u,%d,%15[a-z]\n", site, &inst, &thr, &lo,
                  &hi, &t0, &t1, &pieces, &from, plan) == 10) {
        rows++;
        if (inst > 1 || thr < 0 || thr > 2 || hi > 5000 || lo >= hi || t1 < t0 || pieces < 1 ||
            from < -1 || from > 2 || strcmp(plan, "dealt") != 0)
            bad++;
        else
            for (unsigned long long i = lo; i < hi; i++)
                bad += seen[inst][i]++ != 0;
    }
    fclose(f);
    unlink(path);
    CU_ASSERT(rows > 2);
    CU_ASSERT_EQUAL(bad, 0);
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 5000; i++)
            bad += seen[k][i] != 1;
    CU_ASSERT_EQUAL(bad, 0);
}

static const char *self_path;
static void test_trace(void)
{
    test_trace_covers_every_iteration(self_path);
}

/* Under auto, LF_TRACE's FILE.profile gets, after each loop that taught
 * the profile something, its 32 bins: they tile [0, n) and their costs,
 * weighted by the bins' sizes, average 1 (time relative to the mean). */
static void test_trace_profile(void)
{
    char path[] = "/tmp/lf-trace-XXXXXX", ppath[64], cmd[512], line[256];
    int fd = mkstemp(path);
    CU_ASSERT_FATAL(fd >= 0);
    close(fd);
    snprintf(ppath, sizeof ppath, "%s.profile", path);
    snprintf(cmd, sizeof cmd, "LF_TRACE=%s %s --profile-child", path, self_path);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    FILE *f = fopen(ppath, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_STRING_EQUAL(line, "site,instance,bin,lo,hi,cost,confidence\n");
    char site[64];
    unsigned long long inst, lo, hi, at = 0;
    int bin, rows = 0;
    double cost, conf, mean = 0.0;
    while (fscanf(f, "%63[^,],%llu,%d,%llu,%llu,%lf,%lf\n", site, &inst, &bin, &lo, &hi, &cost,
                  &conf) == 7) {
        CU_ASSERT_EQUAL(bin, rows % 32);
        CU_ASSERT_EQUAL(lo, bin ? at : 0);
        CU_ASSERT(hi > lo && hi <= 40000);
        CU_ASSERT(cost > 0.0 && conf >= 0.0 && conf <= 1.0);
        mean += cost * (double)(hi - lo) / 40000.0;
        at = hi;
        if (++rows % 32 == 0) {
            CU_ASSERT_EQUAL(hi, 40000);
            CU_ASSERT_DOUBLE_EQUAL(mean, 1.0, 0.02);
            mean = 0.0;
        }
    }
    fclose(f);
    unlink(path);
    unlink(ppath);
    CU_ASSERT(rows >= 32 && rows % 32 == 0);
}

/* One execution of [0, n) on a team of 2 that counts each iteration in
 * hits (zeroed first); returns the iterations not run exactly once. */
static long run_counted(lf_loop *loop, long n, atomic_uchar *hits)
{
    pthread_t th[2];
    struct plain_member a[2];
    for (long i = 0; i < n; i++)
        atomic_store(&hits[i], 0);
    for (int t = 0; t < 2; t++) {
        a[t] = (struct plain_member){loop, t, n, 0, hits};
        pthread_create(&th[t], NULL, plain_member_run, &a[t]);
    }
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    long bad = 0;
    for (long i = 0; i < n; i++)
        bad += atomic_load(&hits[i]) != 1;
    return bad;
}

/* auto on a loop whose team computes far under LF__TINY_NS: once a DEALT
 * execution measured it, executions run tiny, untimed in 2P chunks of
 * ceil(n / 2P) claimed by fetch-and-add (no lease, so no pieces) and
 * booked to no plan, every LF__TINY_RECHECK-th under the selection's plan
 * again; each covers every iteration once.  A long loop, and leases asked
 * for explicitly, never run tiny; a borrower's word that an execution is not
 * tiny holds for that execution.
 *
 * Whether an execution runs tiny follows from what the site remembers when
 * it starts (the team's time per iteration, the tiny runs in a row), which
 * is read here before each: the test asserts the rule, not how fast this
 * machine is (a sanitised build may measure the loop above LF__TINY_NS
 * and never run tiny, as it should). */
static void test_auto_tiny_runs_untimed(void)
{
    enum { N = 64, RUNS = 100 };
    static atomic_uchar hits[200000];
    lf_loop *loop = make_loop("auto", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    int tiny = 0, chosen = 0, expected_tiny = 0, wrong = 0;
    long bad = 0;
    for (int e = 0; e < RUNS; e++) {
        double per = loop->mem.team_ns_per_iter;
        int want_tiny = lf__exec_tiny_due(&loop->sched, 2, per, loop->mem.tiny_runs, N);
        unsigned long before = loop->tiny_done, booked = lf__exec_site_sel(&loop->mem, N)->execs;
        expected_tiny += want_tiny;
        bad += run_counted(loop, N, hits);
        struct lf_loop_stats st;
        CU_ASSERT_EQUAL(lf_loop_last_stats(loop, &st), 0);
        CU_ASSERT_EQUAL(st.iterations, N);
        int was_tiny = loop->tiny_done != before;
        if (was_tiny != want_tiny) {
            wrong++;
            fprintf(stderr,
                    "execution %d: site remembered %.1f ns per iteration, %u tiny runs; ran "
                    "%s\n",
                    e, per, loop->mem.tiny_runs, was_tiny ? "tiny" : "a chosen plan");
        }
        if (was_tiny) {
            tiny++;
            CU_ASSERT_EQUAL(st.chunks, 4); /* ceil(64 / 4) = 16 each */
            CU_ASSERT_EQUAL(st.calib_chunks, 0);
            CU_ASSERT_EQUAL(st.pieces, 0);
            CU_ASSERT_EQUAL(lf__exec_site_sel(&loop->mem, N)->execs,
                            booked); /* booked to no plan */
        } else {
            chosen++;
            CU_ASSERT_EQUAL(lf__exec_site_sel(&loop->mem, N)->execs, booked + 1);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(wrong, 0);
    /* The first execution is chosen (nothing measured yet), and at most
     * LF__TINY_RECHECK - 1 tiny ones follow a chosen one. */
    CU_ASSERT(chosen >= 1 + (RUNS - 1) / LF__TINY_RECHECK);
    if (tiny < RUNS / 2)
        fprintf(stderr,
                "auto on %d iterations: %d tiny (%d expected from the measurements), %d "
                "by the selection\n",
                N, tiny, expected_tiny, chosen);
    /* However slow this build measured the loop, the tiny path itself runs:
     * a site remembering 1 ns per iteration starts the next execution tiny. */
    loop->mem.team_ns_per_iter = 1.0;
    loop->mem.tiny_runs = 0;
    CU_ASSERT_EQUAL(run_counted(loop, N, hits), 0);
    struct lf_loop_stats st;
    CU_ASSERT_EQUAL(lf_loop_last_stats(loop, &st), 0);
    CU_ASSERT_EQUAL(st.pieces, 0);
    CU_ASSERT_EQUAL(st.chunks, 4);
    CU_ASSERT_EQUAL(st.calib_chunks, 0);
    CU_ASSERT_EQUAL(loop->mem.tiny_runs, 1);
    /* Told by its borrower that the next execution is not tiny: it is not
     * (booked to its plan), once only. */
    unsigned long booked = lf__exec_site_sel(&loop->mem, N)->execs, before = loop->tiny_done;
    lf__loop_skip_tiny(loop);
    CU_ASSERT_EQUAL(run_counted(loop, N, hits), 0);
    CU_ASSERT_EQUAL(loop->tiny_done, before);
    CU_ASSERT_EQUAL(lf__exec_site_sel(&loop->mem, N)->execs, booked + 1);
    CU_ASSERT_EQUAL(loop->no_tiny, 0);
    loop->mem.team_ns_per_iter = 1.0;
    CU_ASSERT_EQUAL(run_counted(loop, N, hits), 0);
    CU_ASSERT_EQUAL(loop->tiny_done, before + 1);
    lf_loop_destroy(loop);

    const char *never[] = {"auto,lease=force", "auto,lease=on", "auto,memory=off"};
    for (size_t k = 0; k < sizeof never / sizeof *never; k++) {
        loop = make_loop(never[k], 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
        for (int e = 0; e < 8; e++) {
            CU_ASSERT_EQUAL(run_counted(loop, N, hits), 0);
            struct lf_loop_stats st;
            lf_loop_last_stats(loop, &st);
            CU_ASSERT(st.pieces > 0); /* leased: timed */
        }
        lf_loop_destroy(loop);
    }
    /* Long: 200000 iterations of a few ns each, far over 10 us of compute. */
    loop = make_loop("auto", 2);
    for (int e = 0; e < 6; e++) {
        CU_ASSERT_EQUAL(run_counted(loop, 200000, hits), 0);
        CU_ASSERT_EQUAL(loop->tiny_done, 0);
    }
    lf_loop_destroy(loop);
}

/* Member tid's next chunk, checked against the fixed size c of a loop of n
 * (every chunk c, the one that ends the loop excepted), each iteration
 * marked in hits; returns its first index, -1 when none is left. */
static long take(lf_loop *loop, int tid, long n, long c, unsigned char *hits, long *bad)
{
    long first;
    unsigned long cnt;
    if (!lf_loop_next(loop, tid, &first, &cnt))
        return -1;
    if (first < 0 || first + (long)cnt > n || (long)cnt != (first + c <= n ? c : n - first) ||
        first % c != 0)
        (*bad)++;
    for (long i = first; i >= 0 && i < first + (long)cnt && i < n; i++)
        *bad += hits[i]++ != 0;
    return first;
}

/* Members 0 and 1 of a loop of n in fixed chunks of c take turns, member
 * t0 first, until neither gets a chunk (take checks each); got[m] counts
 * member m's chunks, first[m] (-1 before) its first chunk's index. */
static void take_turns(lf_loop *loop, int t0, long n, long c, unsigned char *hits, long *bad,
                       long got[2], long first[2])
{
    for (int t = t0, live = 2; live; t = 1 - t) {
        long f = take(loop, t, n, c, hits, bad);
        if (f < 0) {
            live--;
            continue;
        }
        got[t]++;
        if (first[t] < 0)
            first[t] = f;
    }
}

/* Members 0 and 1 leave; every iteration of n was handed out once (else
 * *bad grows); *st: the instance's statistics. */
static void leave_both(lf_loop *loop, long n, const unsigned char *hits, long *bad,
                       struct lf_loop_stats *st)
{
    lf_loop_end(loop, 0);
    lf_loop_end(loop, 1);
    for (long i = 0; i < n; i++)
        *bad += hits[i] != 1;
    CU_ASSERT_EQUAL(lf_loop_last_stats(loop, st), 0);
}

/* A fixed-size loop whose chunks may come in any order, with at least
 * LF__SPLIT_CHUNKS chunks per member, gives each member a chunk-aligned
 * block of its own (lib/dispatch/claim.c): a member claims its block
 * first, then from the block with the most left, a chunk at a time; a
 * member that never claims loses its block to the others; chunks keep the
 * fixed size and every iteration is handed out once.  A monotonic loop,
 * and one with fewer chunks, keep one counter: chunks in the order of the
 * claims.  One thread plays every member, so the order of the claims is
 * the test's. */
static void test_split_blocks(void)
{
    enum { C = 3, K = 3 * LF__SPLIT_CHUNKS + 6, N = C * K - 2 }; /* the last chunk has 1 */
    enum { B = K / 3 };                                          /* chunks per block */
    unsigned char hits[N];
    long bad = 0;
    lf_loop *loop = make_loop("dynamic,3", 3);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    /* Blocks of B chunks: iterations [0, BC), [BC, 2BC), [2BC, N). */
    for (int e = 0; e < 2; e++) { /* twice: the second instance starts afresh */
        memset(hits, 0, sizeof hits);
        for (int t = 0; t < 3; t++)
            CU_ASSERT_EQUAL_FATAL(lf_loop_begin(loop, t, 0, N, 1), 0);
        CU_ASSERT_EQUAL(take(loop, 1, N, C, hits, &bad), B * C); /* its own block's front */
        for (long k = 0; k < B; k++) /* member 0's own block, in order */
            CU_ASSERT_EQUAL(take(loop, 0, N, C, hits, &bad), k * C);
        /* Then the block with the most left: member 2's BC - 2 iterations
         * over member 1's BC - 3. */
        CU_ASSERT_EQUAL(take(loop, 0, N, C, hits, &bad), 2 * B * C);
        lf_loop_end(loop, 2); /* member 2 leaves without a claim */
        long got[2] = {B + 1, 1}, first[2] = {0, 0};
        take_turns(loop, 0, N, C, hits, &bad, got, first);
        CU_ASSERT_EQUAL(got[0] + got[1], K);
        CU_ASSERT(got[1] >= B); /* its block, and its share of the rest */
        struct lf_loop_stats st;
        leave_both(loop, N, hits, &bad, &st);
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT_EQUAL(st.chunks, K);
    }
    lf_loop_destroy(loop);

    /* One counter: a monotonic loop, and loops of fewer chunks per member. */
    struct {
        long n;
        int monotonic;
    } one[] = {{N, 1}, {C * (3 * LF__SPLIT_CHUNKS - 1), 0}, {15, 0}};
    for (size_t k = 0; k < sizeof one / sizeof *one; k++) {
        loop = make_loop("dynamic,3", 3);
        CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
        CU_ASSERT_EQUAL(lf_loop_set_monotonic(loop, one[k].monotonic), 0);
        memset(hits, 0, sizeof hits);
        for (int t = 0; t < 3; t++)
            CU_ASSERT_EQUAL_FATAL(lf_loop_begin(loop, t, 0, one[k].n, 1), 0);
        long expect = 0;
        for (int t = 0;; t = (t + 1) % 3, expect += C) {
            long f = take(loop, t, one[k].n, C, hits, &bad);
            if (f < 0)
                break;
            CU_ASSERT_EQUAL(f, expect);
        }
        CU_ASSERT_EQUAL(expect, (one[k].n + C - 1) / C * C);
        for (int t = 0; t < 3; t++)
            lf_loop_end(loop, t);
        for (long i = 0; i < one[k].n; i++)
            bad += hits[i] != 1;
        CU_ASSERT_EQUAL(bad, 0);
        lf_loop_destroy(loop);
    }
}

enum { SELF_N = 4 * LF__SPLIT_CHUNKS };

/* One execution of SELF_N iterations of loop (auto, 2 members) that is to
 * run self-scheduled with iterations of 2 LF__SELF_NS, one thread playing
 * both members, member 1 claiming first: asserts its shape (one iteration
 * per claim, no pieces, no calibration, every iteration once; member 1's
 * first claim the front of its split block, or of the loop when it is
 * monotonic) and that nothing was learned (the memory's time per
 * iteration is as it was). */
static void self_execution(lf_loop *loop, int monotonic)
{
    unsigned char hits[SELF_N] = {0};
    loop->mem.team_ns_per_iter = 2.0 * LF__SELF_NS;
    for (int t = 0; t < 2; t++)
        CU_ASSERT_EQUAL_FATAL(lf_loop_begin(loop, t, 0, SELF_N, 1), 0);
    CU_ASSERT_EQUAL(loop->ring[0].plan.kind, LF__PLAN_SELF);
    long bad = 0, got[2] = {0, 0}, first[2] = {-1, -1};
    take_turns(loop, 1, SELF_N, 1, hits, &bad, got, first);
    struct lf_loop_stats st;
    leave_both(loop, SELF_N, hits, &bad, &st);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(first[1], monotonic ? 0 : SELF_N / 2);
    CU_ASSERT_EQUAL(first[0], monotonic ? 1 : 0);
    CU_ASSERT_EQUAL(st.chunks, SELF_N);
    CU_ASSERT_EQUAL(st.pieces, 0);
    CU_ASSERT_EQUAL(st.calib_chunks, 0);
    CU_ASSERT_EQUAL(loop->mem.team_ns_per_iter, 2.0 * LF__SELF_NS);
}

/* auto self-schedules where that is the plan chosen (by selection or by
 * plan=self): chunks of LF__SELF_NS of compute, one iteration when they
 * cost more, no lease pieces, no calibration, and (a nonmonotonic loop of
 * LF__SPLIT_CHUNKS chunks per member or more) split blocks, so member 1's
 * first claim is the front of its block though it claims first; a
 * monotonic loop's chunks come from one counter.  One thread plays both
 * members, so the order of the claims is the test's; nothing here reads a
 * clock's verdict: the site's selection is set. */
static void test_auto_self_schedules(void)
{
    for (int monotonic = 0; monotonic < 2; monotonic++) {
        lf_loop *loop = make_loop("auto,plan=self", 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
        CU_ASSERT_EQUAL(lf_loop_set_monotonic(loop, monotonic), 0);
        self_execution(loop, monotonic);
        lf_loop_destroy(loop);
        /* Chosen by the selection: every candidate measured, none due, the
         * site past its first executions. */
        loop = make_loop("auto", 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
        CU_ASSERT_EQUAL(lf_loop_set_monotonic(loop, monotonic), 0);
        struct lf__select *sel = lf__exec_site_sel(&loop->mem, SELF_N);
        for (int k = 0; k < LF__PLAN_TINY; k++) {
            sel->arm[k].have = 1;
            sel->arm[k].ns[0] = k == LF__PLAN_SELF ? 1.0 : 2.0;
            sel->arm[k].due = 1000;
        }
        sel->chosen = LF__PLAN_SELF;
        sel->execs = LF__SEL_SETTLE; /* past its first executions */
        self_execution(loop, monotonic);
        CU_ASSERT_EQUAL(sel->execs, LF__SEL_SETTLE + 1); /* booked */
        CU_ASSERT_EQUAL(sel->arm[LF__PLAN_SELF].runs, 1);
        lf_loop_destroy(loop);
    }
}

/* Forced to self-schedule (plan=self), a site with no time per iteration
 * yet runs its first execution dealt, which calibrates and measures it,
 * and self-schedules from the second on: chunks of ceil(LF__SELF_NS / ns)
 * for the measured ns, no calibration.  (Sized with no measure, self's
 * chunks would be single iterations, which on a fine loop costs a claim
 * per iteration.) */
static void test_forced_self_measures_first(void)
{
    enum { N = 20000 };
    lf_loop *loop = make_loop("auto,plan=self", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    CU_ASSERT_EQUAL(loop->mem.team_ns_per_iter, 0.0);
    struct lf_loop_stats st;
    run_loop(loop, 2, N, 1);
    CU_ASSERT_EQUAL(lf_loop_last_stats(loop, &st), 0);
    CU_ASSERT_EQUAL(st.iterations, N);
    CU_ASSERT(st.calib_chunks > 0);
    double ns = loop->mem.team_ns_per_iter;
    CU_ASSERT_FATAL(ns > 0.0);
    run_loop(loop, 2, N, 1);
    CU_ASSERT_EQUAL(lf_loop_last_stats(loop, &st), 0);
    uint64_t c = lf__chunk_clamp(ceil(LF__SELF_NS / ns), N);
    CU_ASSERT_EQUAL(st.iterations, N);
    CU_ASSERT_EQUAL(st.calib_chunks, 0);
    CU_ASSERT_EQUAL(st.pieces, 0);
    CU_ASSERT_EQUAL(st.chunks, (N + c - 1) / c);
    if (st.chunks != (N + c - 1) / c)
        fprintf(stderr, "plan=self after %.3g ns per iteration: %lu chunks, want %lu of %lu\n", ns,
                st.chunks, (unsigned long)((N + c - 1) / c), (unsigned long)c);
    lf_loop_destroy(loop);
}

/* The OWN plan runs the loop's own schedule (lf__loop_set_own, as a
 * preload shim sets a site's): dynamic,3 from one counter, member 1's
 * first chunk at the front though the loop is nonmonotonic, nothing
 * learned; a spec that does not parse is refused and the handle keeps
 * guided. */
static void test_own_plan_runs_loop_schedule(void)
{
    enum { N = 100 };
    lf_loop *loop = make_loop("auto,plan=own", 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(loop);
    CU_ASSERT_EQUAL(lf__loop_set_own(loop, "nonsense"), -EINVAL);
    CU_ASSERT_EQUAL(lf__loop_set_own(loop, "dynamic,3"), 0);
    unsigned char hits[N] = {0};
    for (int t = 0; t < 2; t++)
        CU_ASSERT_EQUAL_FATAL(lf_loop_begin(loop, t, 0, N, 1), 0);
    CU_ASSERT_EQUAL(loop->ring[0].plan.kind, LF__PLAN_OWN);
    long bad = 0, got[2] = {0, 0}, first[2] = {-1, -1};
    take_turns(loop, 1, N, 3, hits, &bad, got, first);
    struct lf_loop_stats st;
    leave_both(loop, N, hits, &bad, &st);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(first[1], 0);
    CU_ASSERT_EQUAL(first[0], 3);
    CU_ASSERT_EQUAL(st.chunks, (N + 2) / 3);
    CU_ASSERT_EQUAL(st.calib_chunks, 0);
    CU_ASSERT_EQUAL(loop->mem.valid, 0); /* nothing learned */
    lf_loop_destroy(loop);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--profile-child") == 0) {
        lf_loop *loop = make_loop("auto", 2);
        for (int k = 0; k < 3; k++)
            run_loop(loop, 2, 40000, 1); /* ~4 ms of compute each */
        lf_loop_destroy(loop);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "--trace-child") == 0) {
        lf_schedule *sched;
        lf_loop *loop;
        char err[256];
        if (lf_schedule_parse("multi,lease=force", &sched, err, sizeof err) != 0 ||
            lf_loop_create(&loop, 3, sched, "multi") != 0)
            return 1;
        lf_schedule_free(sched);
        run_loop(loop, 3, 5000, 1); /* instance 0 */
        run_loop(loop, 3, 5000, 1); /* instance 1 */
        lf_loop_destroy(loop);
        return 0;
    }
    self_path = argv[0];
    static const struct lfcu_test tests[] = {
        {"site_memory_skips_calibration", test_site_memory_skips_calibration},
        {"drift_triggers_recalibration", test_drift_triggers_recalibration},
        {"calibration_leaves_nobody_waiting", test_calibration_leaves_nobody_waiting},
        {"stats_count_chunks", test_stats_count_chunks},
        {"trace_covers_every_iteration", test_trace},
        {"trace_profile", test_trace_profile},
        {"stalled_member_holds_back_one_piece", test_stalled_member_holds_back_one_piece},
        {"pieces_ramp_up", test_pieces_ramp_up},
        {"calibration_starts_apart", test_calibration_starts_apart},
        {"calibration_chunk_after", test_calibration_chunk_after},
        {"loop_once", test_loop_once},
        {"no_lease_no_steal", test_no_lease_no_steal},
        {"auto_tiny_runs_untimed", test_auto_tiny_runs_untimed},
        {"split_blocks", test_split_blocks},
        {"auto_self_schedules", test_auto_self_schedules},
        {"forced_self_measures_first", test_forced_self_measures_first},
        {"own_plan_runs_loop_schedule", test_own_plan_runs_loop_schedule},
        {0, 0},
    };
    return lfcu_run("dispatch", tests);
}
