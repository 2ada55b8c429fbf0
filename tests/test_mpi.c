/* tests/test_mpi.c - loops across MPI ranks (libloopfarm-mpi) run every
 * iteration exactly once, whatever the rank and thread schedules, bounds
 * and increments, with ranks that arrive late or leave early; bad
 * arguments are refused on every rank and nobody hangs.
 *
 * Run under mpirun by tests/test_mpi.sh:
 *   test_mpi cover THREADS [master]   the exactly-once matrix
 *   test_mpi late THREADS [master]    a late rank, an early leaver
 *   test_mpi stage THREADS [master]   inputs owned by ranks read exactly,
 *                                     results returned to their owners
 *   test_mpi owner THREADS            the same with one slowed rank, with and
 *                                     without owner-first: own block first,
 *                                     the slowed rank's block stolen, the
 *                                     chunk counters add up; an owner that
 *                                     leaves at once
 *   test_mpi stream THREADS           rank 0 appends items while the loop
 *                                     runs: each handed out once
 *   test_mpi env SPEC                 a handle made without a rank schedule
 *                                     claims under SPEC (LF_MPI_SCHEDULE's)
 *   test_mpi badargs                  refusals (MPI_THREAD_FUNNELED on purpose)
 * Exit 0 on every rank when all checks pass, 1 otherwise.
 */
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopfarm/mpi.h"

static int rank, nranks, failures;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            fprintf(stderr, "rank %d: FAIL %s:%d: %s: ", rank, __FILE__, __LINE__, #cond);         \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* Rank-level schedules: every policy of the registry once (the thread
 * level alternates among a few). */
static const char *const rank_specs[] = {
    "static", "dynamic,3", "guided", "tss", "fac2", "wf",    "awf-c", "af",   "trad",
    "deal",   "dealdyn",   "multi",  "umr", "rumr", "as4dr", "fifo",  "lifo",
};
static const char *const thread_specs[] = {"dynamic,4", "af", "static", "fac2", "guided"};
#define NSPECS (int)(sizeof rank_specs / sizeof *rank_specs)

static unsigned char *counts; /* per logical iteration, this rank's team */
static int loops_from_memory; /* loops run_loop saw start from memory */
static int work;              /* arithmetic steps per iteration in run_loop */
static unsigned char *sum;    /* over all ranks */

/* The bounds of a loop of trip iterations with increment incr placed at
 * where: 0 near zero, 1 against LONG_MAX, 2 against LONG_MIN. */
static void bounds(unsigned long trip, long incr, int where, long *lo, long *hi)
{
    unsigned long span = trip * (unsigned long)(incr > 0 ? incr : -incr);
    if (incr > 0) {
        *lo = where == 1 ? (long)((unsigned long)LONG_MAX - span) : where == 2 ? LONG_MIN : -3;
        *hi = (long)((unsigned long)*lo + span);
    } else {
        *lo = where == 1 ? LONG_MAX : where == 2 ? (long)((unsigned long)LONG_MIN + span) : 3;
        *hi = (long)((unsigned long)*lo - span);
    }
}

/* One loop over [lo, hi) by incr with T threads (with leave, this rank's
 * threads enter and leave at once, taking nothing): every iteration once
 * across all ranks, and the ranks' counts add up. */
static void run_loop_as(lf_mpi_loop *ml, int T, long lo, long hi, long incr, const char *what,
                        int leave)
{
    unsigned long trip = lf_trip_count(lo, hi, incr, NULL);
    memset(counts, 0, trip ? trip : 1);
    int bad = 0;
#pragma omp parallel num_threads(T) reduction(+ : bad)
    {
        int tid = omp_get_thread_num();
        long first;
        unsigned long n;
        if (lf_mpi_loop_begin(ml, tid, lo, hi, incr) != 0)
            bad++;
        while (!leave && lf_mpi_loop_next(ml, tid, &first, &n)) {
            for (unsigned long j = 0; j < n; j++) {
                long i = (long)((unsigned long)first + j * (unsigned long)incr);
                unsigned long off = incr > 0 ? (unsigned long)i - (unsigned long)lo
                                             : (unsigned long)lo - (unsigned long)i;
                unsigned long step = (unsigned long)(incr > 0 ? incr : -incr);
                unsigned long k = off / step;
                if (off % step || k >= trip)
                    bad++;
                else
                    __atomic_fetch_add(&counts[k], 1, __ATOMIC_RELAXED);
                for (volatile int w = 0; w < work; w++)
                    ;
            }
        }
        lf_mpi_loop_end(ml, tid);
    }
    CHECK(bad == 0, "%s: an index outside the loop or a failed entry", what);
    if (trip)
        MPI_Allreduce(counts, sum, (int)trip, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    unsigned long wrong = 0, first_wrong = 0;
    for (unsigned long k = 0; k < trip; k++)
        if (sum[k] != 1 && wrong++ == 0)
            first_wrong = k;
    CHECK(wrong == 0, "%s: %lu of %lu iterations not run exactly once (first: %lu, run %d times)",
          what, wrong, trip, first_wrong, wrong ? sum[first_wrong] : 1);
    struct lf_mpi_stats st;
    CHECK(lf_mpi_loop_last_stats(ml, &st) == 0, "%s: stats", what);
    unsigned long mine = st.rank_iters, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all == trip && st.iterations == trip, "%s: ranks report %lu iterations of %lu", what, all,
          trip);
    /* Every rank starts from the same memory, or none does: their plans
     * agree. */
    int fm[2] = {st.from_memory, -st.from_memory}, fmax[2];
    MPI_Allreduce(fm, fmax, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(fmax[0] == -fmax[1], "%s: some ranks started from memory, others not", what);
    loops_from_memory += st.from_memory;
}

static void run_loop(lf_mpi_loop *ml, int T, long lo, long hi, long incr, const char *what)
{
    run_loop_as(ml, T, lo, hi, incr, what, 0);
}

static lf_mpi_loop *make(const char *rs, const char *ts, int T, enum lf_mpi_mode mode)
{
    lf_mpi_loop *ml = NULL;
    char err[512];
    int rc = lf_mpi_loop_create_mode(&ml, MPI_COMM_WORLD, T, rs, ts, rs, mode, err, sizeof err);
    CHECK(rc == 0 && ml, "create %s/%s: %d %s", rs, ts, rc, err);
    return rc == 0 ? ml : NULL;
}

static int cover(int T, enum lf_mpi_mode mode)
{
    const unsigned long trips[] = {0, 1, (unsigned long)(nranks - 1), 1000};
    const long incrs[] = {1, -1, 7, -7};
    for (int s = 0; s < NSPECS; s++) {
        lf_mpi_loop *ml = make(rank_specs[s], thread_specs[s % 5], T, mode);
        if (!ml)
            continue;
        char what[160];
        /* 4 trips x 4 increments x 3 placements: 48 loops on one handle,
         * so its slot ring turns over six times. */
        for (int t = 0; t < 4; t++)
            for (int d = 0; d < 4; d++)
                for (int where = 0; where < 3; where++) {
                    long lo, hi;
                    bounds(trips[t], incrs[d], where, &lo, &hi);
                    snprintf(what, sizeof what, "%s/%s T=%d trip %lu incr %ld at %d", rank_specs[s],
                             thread_specs[s % 5], T, trips[t], incrs[d], where);
                    run_loop(ml, T, lo, hi, incrs[d], what);
                }
        lf_mpi_loop_destroy(ml);
    }
    /* Memory: never used under memory=off; used by some of a calibrating
     * schedule's repeated loops (ranks agreeing is checked by run_loop). */
    const char *mems[] = {"multi,memory=off", "multi"};
    for (int s = 0; s < 2; s++) {
        lf_mpi_loop *ml = make(mems[s], "dynamic,4", T, mode);
        if (!ml)
            continue;
        loops_from_memory = 0;
        work = 200; /* enough for every rank to calibrate */
        for (int i = 0; i < 24; i++)
            run_loop(ml, T, 0, 3000, 1, mems[s]);
        work = 0;
        if (s == 0 || mode == LF_MPI_MASTER)
            CHECK(loops_from_memory == 0, "%s: %d loops started from memory", mems[s],
                  loops_from_memory);
        else if (rank == 0)
            printf("multi: %d of 24 loops started from memory\n", loops_from_memory);
        lf_mpi_loop_destroy(ml);
    }
    /* A million iterations under the schedules a user would pick first. */
    const char *big[] = {"fac2", "af", "static", "multi"};
    for (int s = 0; s < 4; s++) {
        lf_mpi_loop *ml = make(big[s], "dynamic,64", T, mode);
        if (!ml)
            continue;
        long lo, hi;
        bounds(1000000, 1, 0, &lo, &hi);
        run_loop(ml, T, lo, hi, 1, big[s]);
        bounds(1000000, -7, 1, &lo, &hi);
        run_loop(ml, T, lo, hi, -7, big[s]);
        lf_mpi_loop_destroy(ml);
    }
    return 0;
}

static void nap(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The last rank arrives late; then rank 1 (or 0 alone) leaves at once. */
static int late(int T, enum lf_mpi_mode mode)
{
    const char *specs[] = {"fac2", "af", "multi", "dynamic,5"};
    for (int s = 0; s < 4; s++) {
        lf_mpi_loop *ml = make(specs[s], "dynamic,4", T, mode);
        if (!ml)
            continue;
        if (rank == nranks - 1)
            nap(100);
        run_loop(ml, T, 0, 20000, 1, "late rank");
        /* An early leaver: rank 1 enters, takes nothing, leaves. */
        run_loop_as(ml, T, 0, 5000, 1, "early leaver", rank == 1);
        lf_mpi_loop_destroy(ml);
    }
    return 0;
}

/* The input of logical iteration k, and its result. */
static uint64_t value_of(uint64_t k)
{
    uint64_t x = k * 0x9e3779b97f4a7c15ULL + 12345;
    return x ^ (x >> 29);
}
static uint64_t result_of(uint64_t k)
{
    return value_of(k) * 3 + 1;
}

/* n iterations' inputs and results owned by the ranks: rank j owns
 * [home[j], home[j + 1]), evenly split or, with uneven, about (2j + 1) /
 * P^2 of them (rank 0 the least). */
struct owned {
    unsigned long n, *home, mine;
    uint64_t *in, *out;
    lf_mpi_data *d;
};

static int owned_make(struct owned *o, lf_mpi_loop *ml, unsigned long n, int uneven)
{
    o->n = n;
    o->home = calloc((size_t)nranks + 1, sizeof *o->home);
    for (int j = 0; j <= nranks; j++)
        o->home[j] = uneven ? (unsigned long)((double)n * j * j / ((double)nranks * nranks))
                            : (unsigned long)((double)n * j / nranks);
    o->home[nranks] = n;
    o->mine = o->home[rank + 1] - o->home[rank];
    o->in = malloc((o->mine ? o->mine : 1) * sizeof *o->in);
    o->out = calloc(o->mine ? o->mine : 1, sizeof *o->out);
    for (unsigned long k = 0; k < o->mine; k++)
        o->in[k] = value_of(o->home[rank] + k);
    char err[512];
    int rc = lf_mpi_data_create(&o->d, ml, o->home, o->in, sizeof *o->in, o->out, sizeof *o->out,
                                err, sizeof err);
    CHECK(rc == 0, "data: %s", err);
    memset(counts, 0, n);
    return rc;
}

/* The staging limit the library applies: LF_MPI_STAGE_BYTES as this test
 * is run with it (plain bytes), else the library's default, 16 MiB. */
static unsigned long stage_limit(void)
{
    const char *v = getenv("LF_MPI_STAGE_BYTES");
    char *end;
    unsigned long b = v ? strtoul(v, &end, 10) : 0;
    return v && *end == '\0' && b > 0 ? b : 16UL << 20;
}

/* A loop's staging stayed within the limit (one iteration, 16 bytes, at
 * the least), and what this rank fetched went through a buffer. */
static void stage_peak_check(const struct lf_mpi_stats *st, const char *what)
{
    unsigned long lim = stage_limit() > 16 ? stage_limit() : 16;
    CHECK(st->stage_peak_bytes <= lim, "%s: a staged rank chunk held %lu bytes, over the %lu limit",
          what, st->stage_peak_bytes, lim);
    CHECK(!st->staged_iters || st->stage_peak_bytes >= 16,
          "%s: %lu iterations fetched, but the staging peak is %lu bytes", what, st->staged_iters,
          st->stage_peak_bytes);
}

/* After the loop: every iteration counted once over all ranks, every
 * result in its owner's block after lf_mpi_data_sync; then freed. */
static void owned_check(struct owned *o, const char *what, int T)
{
    lf_mpi_data_sync(o->d);
    MPI_Allreduce(counts, sum, (int)o->n, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    unsigned long wrong = 0, lost = 0;
    for (unsigned long k = 0; k < o->n; k++)
        wrong += sum[k] != 1;
    for (unsigned long k = 0; k < o->mine; k++)
        lost += o->out[k] != result_of(o->home[rank] + k);
    CHECK(wrong == 0 && lost == 0,
          "%s T=%d n=%lu: %lu iterations not run once, %lu of this rank's %lu results missing",
          what, T, o->n, wrong, lost, o->mine);
}

static void owned_free(struct owned *o)
{
    lf_mpi_data_destroy(o->d);
    free(o->in);
    free(o->out);
    free(o->home);
}

/* Spin for about ns nanoseconds of the thread's CPU time: a slowed rank's
 * iteration costs 30 times a fast one's however loaded the cores are (a
 * wall-time spin would let a descheduled fast rank fall behind it). */
static void spin_ns(long ns)
{
    struct timespec a, b;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
    while (ns > 0) {
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
        if ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) >= ns)
            break;
    }
}

/* Run o's loop over lo, lo + incr, ... (before hi) with T threads, each iteration
 * spinning ns (with leave, this rank's threads enter and leave at once):
 * counts each iteration, checks its input and writes its result.  Returns
 * the inputs that were not their owner's; *order: this rank's own
 * iterations that a thread saw after another rank's, *outside: the
 * iterations it ran of other ranks' blocks. */
static int owned_run(lf_mpi_loop *ml, struct owned *o, int T, long lo, long hi, long incr, long ns,
                     int leave, int *order, unsigned long *outside)
{
    int bad = 0, late_own = 0;
    unsigned long others = 0, step = (unsigned long)(incr > 0 ? incr : -incr);
    const unsigned long *home = o->home;
#pragma omp parallel num_threads(T) reduction(+ : bad, late_own, others)
    {
        int tid = omp_get_thread_num(), seen_other = 0;
        long first;
        unsigned long c;
        if (lf_mpi_loop_begin_data(ml, tid, lo, hi, incr, o->d) != 0)
            bad++;
        while (!leave && lf_mpi_loop_next(ml, tid, &first, &c)) {
            const uint64_t *src = lf_mpi_loop_input(ml, tid);
            uint64_t *dst = lf_mpi_loop_output(ml, tid);
            if (!src || !dst) {
                bad++;
                continue;
            }
            for (unsigned long j = 0; j < c; j++) {
                long i = (long)((unsigned long)first + j * (unsigned long)incr);
                unsigned long k = (incr > 0 ? (unsigned long)i - (unsigned long)lo
                                            : (unsigned long)lo - (unsigned long)i) /
                                  step;
                int own = k >= home[rank] && k < home[rank + 1];
                late_own += own && seen_other;
                seen_other |= !own;
                others += !own;
                if (k >= o->n || src[j] != value_of(k))
                    bad++;
                else
                    __atomic_fetch_add(&counts[k], 1, __ATOMIC_RELAXED);
                dst[j] = result_of(k);
                spin_ns(ns);
            }
        }
        lf_mpi_loop_end(ml, tid);
    }
    *order = late_own;
    *outside = others;
    return bad;
}

/* A loop over data owned unevenly by the ranks: every input read as its
 * owner holds it, every result in its owner's block. */
static void staged_loop(const char *rs, int T, enum lf_mpi_mode mode, unsigned long n, long incr)
{
    lf_mpi_loop *ml = make(rs, "dynamic,3", T, mode);
    if (!ml)
        return;
    struct owned o;
    if (owned_make(&o, ml, n, 1) != 0)
        return;
    long lo, hi;
    bounds(n, incr, incr > 0 ? 0 : 1, &lo, &hi);
    int order;
    unsigned long outside;
    int bad = owned_run(ml, &o, T, lo, hi, incr, 0, 0, &order, &outside);
    CHECK(bad == 0, "%s T=%d n=%lu: %d inputs not as their owner holds them", rs, T, n, bad);
    owned_check(&o, rs, T);
    struct lf_mpi_stats st;
    lf_mpi_loop_last_stats(ml, &st);
    CHECK(st.staged_iters == outside, "%s: %lu iterations fetched, %lu run outside its block", rs,
          st.staged_iters, outside);
    unsigned long staged = st.staged_iters, all_staged;
    MPI_Allreduce(&staged, &all_staged, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(all_staged <= n && st.staged_iters <= st.rank_iters, "staged %lu of %lu", all_staged, n);
    CHECK(st.beta_ns >= 0 && st.stage_ns_per_iter >= 0 && st.stage_seconds >= 0,
          "negative staging costs");
    stage_peak_check(&st, rs);
    owned_free(&o);
    lf_mpi_loop_destroy(ml);
}

static int stage(int T, enum lf_mpi_mode mode)
{
    const char *specs[] = {"fac2", "af", "umr", "rumr", "static", "dynamic,13"};
    for (int s = 0; s < 6; s++) {
        staged_loop(specs[s], T, mode, 20011, 1);
        staged_loop(specs[s], T, mode, (unsigned long)nranks, -7);
    }
    staged_loop("fac2", T, mode, 1, 1);
    return 0;
}

/* A loop over data split evenly over the ranks, rank slow's iterations
 * 100 times the others' (slow < 0: none), rank leaver's threads leaving at
 * once (-1: none): every iteration once with its owner's input, every
 * result delivered, this rank's fetched iterations exactly those outside
 * its block, its local and remote chunks adding up to its chunks; under
 * owner-first each thread sees its own block's iterations before any
 * other's.  Returns 1 when, under owner-first, others took some of the
 * slowed rank's block (the caller asserts it happened). */
static int owner_loop(lf_mpi_loop *ml, const char *rs, int T, unsigned long n, int slow, int leaver)
{
    int stolen = 0;
    struct owned o;
    if (owned_make(&o, ml, n, 0) != 0)
        return 0;
    int order;
    unsigned long outside;
    MPI_Barrier(MPI_COMM_WORLD);
    int bad = owned_run(ml, &o, T, 0, (long)n, 1, rank == slow ? 100000 : 1000, rank == leaver,
                        &order, &outside);
    char what[96];
    snprintf(what, sizeof what, "%s slow %d leaver %d", rs, slow, leaver);
    CHECK(bad == 0, "%s T=%d: %d inputs not as their owner holds them", what, T, bad);
    owned_check(&o, what, T);
    struct lf_mpi_stats st;
    lf_mpi_loop_last_stats(ml, &st);
    int expect = nranks > 1 && !strstr(rs, "numa=off");
    CHECK(st.owner_first == expect, "%s on %d ranks: owner_first %d, expected %d", rs, nranks,
          st.owner_first, expect);
    CHECK(st.staged_iters == outside, "%s: %lu iterations fetched, %lu run outside its block", rs,
          st.staged_iters, outside);
    CHECK(st.local_chunks + st.remote_chunks == st.rank_chunks,
          "%s: %lu local + %lu remote chunks of %lu", rs, st.local_chunks, st.remote_chunks,
          st.rank_chunks);
    stage_peak_check(&st, what);
    if (st.owner_first) {
        CHECK(order == 0, "%s T=%d: %d of its own iterations after another rank's", rs, T, order);
        /* The slowed rank ran less than its block: others took from it. */
        unsigned long iters = st.rank_iters;
        MPI_Bcast(&iters, 1, MPI_UNSIGNED_LONG, slow >= 0 ? slow : 0, MPI_COMM_WORLD);
        stolen = slow >= 0 && iters < o.home[slow + 1] - o.home[slow];
    }
    owned_free(&o);
    return stolen;
}

static int owner(int T)
{
    const char *specs[] = {"fac2", "af", "fac2,numa=off", "af,numa=off"};
    int slow = nranks > 1 ? nranks - 1 : -1;
    for (int s = 0; s < 4; s++) {
        lf_mpi_loop *ml = make(specs[s], "dynamic,3", T, LF_MPI_ONE_SIDED);
        if (!ml)
            continue;
        /* Several loops over the same data (the staging fit grows): on a
         * machine shared with other work a loop's timing can be anything,
         * but in one of three the others take from a rank 100 times
         * slower. */
        int stolen = 0;
        for (int i = 0; i < 3; i++)
            stolen += owner_loop(ml, specs[s], T, 3000, slow, -1);
        CHECK(stolen > 0 || slow < 0 || strstr(specs[s], "numa=off"),
              "%s T=%d: in no loop did the others take from the slowed rank's block", specs[s], T);
        owner_loop(ml, specs[s], T, 3000, -1, nranks > 1 ? 0 : -1);
        lf_mpi_loop_destroy(ml);
    }
    return 0;
}

/* A stream: rank 0's producer thread (outside its team) appends batches
 * with pauses, then closes; every rank's team takes items as they come. */
static void stream_loop(const char *rs, int T)
{
    lf_mpi_loop *ml = make(rs, "dynamic,2", T, LF_MPI_ONE_SIDED);
    if (!ml)
        return;
    unsigned long total = 0;
    for (int b = 0; b < 40; b++)
        total += (unsigned long)(b * 37 % 101);
    memset(counts, 0, total);
    int bad = 0;
    int producer = rank == 0;
#pragma omp parallel num_threads(T + producer) reduction(+ : bad)
    {
        int tid = omp_get_thread_num();
        if (tid == T) {
            for (int b = 0; b < 40; b++) {
                if (lf_mpi_stream_append(ml, (unsigned long)(b * 37 % 101)) != 0)
                    bad++;
                if (b % 8 == 0)
                    nap(1);
            }
            lf_mpi_stream_close(ml);
        } else {
            long first;
            unsigned long c;
            if (lf_mpi_loop_begin_stream(ml, tid) != 0)
                bad++;
            while (lf_mpi_loop_next(ml, tid, &first, &c))
                for (unsigned long j = 0; j < c; j++) {
                    unsigned long k = (unsigned long)first + j;
                    if (k >= total)
                        bad++;
                    else
                        __atomic_fetch_add(&counts[k], 1, __ATOMIC_RELAXED);
                }
            lf_mpi_loop_end(ml, tid);
        }
    }
    CHECK(bad == 0, "stream %s: an item beyond the %lu appended, or a refused call", rs, total);
    MPI_Allreduce(counts, sum, (int)total, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
    unsigned long wrong = 0;
    for (unsigned long k = 0; k < total; k++)
        wrong += sum[k] != 1;
    CHECK(wrong == 0, "stream %s T=%d: %lu of %lu items not handed out once", rs, T, wrong, total);
    struct lf_mpi_stats st;
    lf_mpi_loop_last_stats(ml, &st);
    CHECK(st.iterations == total, "stream %s: stats say %lu items of %lu", rs, st.iterations,
          total);
    lf_mpi_loop_destroy(ml);
}

static int stream(int T)
{
    const char *specs[] = {"as4dr,tail=off", "as4dr", "dynamic,7", "fac2", "af", "guided"};
    for (int s = 0; s < 6; s++)
        stream_loop(specs[s], T);
    /* A schedule that needs the trip count is refused, on every rank. */
    lf_mpi_loop *ml = make("tss", "dynamic", 1, LF_MPI_ONE_SIDED);
    if (ml) {
        CHECK(lf_mpi_loop_begin_stream(ml, 0) == -EINVAL, "a tss stream");
        lf_mpi_loop_destroy(ml);
    }
    return 0;
}

/* Refusals: collective calls answer the same on every rank, with the
 * reason, and nobody waits for ever. */
static int badargs(void)
{
    lf_mpi_loop *ml = (lf_mpi_loop *)&ml;
    char err[512] = "";
    int rc = lf_mpi_loop_create(&ml, MPI_COMM_WORLD, 0, "fac2", NULL, "x", err, sizeof err);
    CHECK(rc == -EINVAL && !ml && strstr(err, "nthreads"), "nthreads 0: %d %s", rc, err);

    err[0] = '\0';
    const char *spec = rank == nranks - 1 ? "no-such-schedule" : "fac2";
    rc = lf_mpi_loop_create(&ml, MPI_COMM_WORLD, 1, spec, NULL, "x", err, sizeof err);
    char want[32];
    snprintf(want, sizeof want, "rank %d", nranks - 1);
    CHECK(rc == -EINVAL && strstr(err, want) && strstr(err, "no-such-schedule"),
          "one rank's bad spec: %d %s", rc, err);

    err[0] = '\0';
    rc = lf_mpi_loop_create(&ml, MPI_COMM_WORLD, 1, NULL, "dynamic,0", "x", err, sizeof err);
    CHECK(rc == -EINVAL && strstr(err, "thread schedule"), "bad thread spec: %d %s", rc, err);

    if (nranks > 1) {
        err[0] = '\0';
        rc = lf_mpi_loop_create(&ml, MPI_COMM_WORLD, 1, rank ? "af" : "fac2", NULL, "x", err,
                                sizeof err);
        CHECK(rc == -EINVAL && strstr(err, "different"), "ranks disagree: %d %s", rc, err);
    } else {
        err[0] = '\0';
        rc = lf_mpi_loop_create_mode(&ml, MPI_COMM_WORLD, 1, "fac2", NULL, "x", LF_MPI_MASTER, err,
                                     sizeof err);
        CHECK(rc == -EINVAL && strstr(err, "2 ranks"), "master alone: %d %s", rc, err);
    }

    /* This test runs under MPI_THREAD_FUNNELED: two threads are refused. */
    err[0] = '\0';
    rc = lf_mpi_loop_create(&ml, MPI_COMM_WORLD, 2, "fac2", NULL, "x", err, sizeof err);
    CHECK(rc == -EINVAL && strstr(err, "MPI_THREAD_SERIALIZED"), "funneled, 2 threads: %d %s", rc,
          err);

    rc = lf_mpi_loop_create(&ml, MPI_COMM_NULL, 1, "fac2", NULL, "x", err, sizeof err);
    CHECK(rc == -EINVAL && strstr(err, "MPI_COMM_NULL"), "null comm: %d %s", rc, err);

    /* A good handle: increment 0 is refused and changes nothing. */
    ml = make("fac2", "dynamic", 1, LF_MPI_ONE_SIDED);
    if (!ml)
        return 0;
    CHECK(lf_mpi_loop_begin(ml, 0, 0, 10, 0) == -EINVAL, "incr 0");
    CHECK(lf_mpi_loop_begin(ml, 1, 0, 10, 1) == -EINVAL, "tid out of range");
    run_loop(ml, 1, 0, 777, 1, "after refusals");
    /* Rank 0 starts a loop; the others come with other bounds and are
     * told -ERANGE; rank 0 runs it all. */
    if (rank == 0) {
        long first;
        unsigned long n, got = 0;
        CHECK(lf_mpi_loop_begin(ml, 0, 0, 300, 1) == 0, "rank 0's entry");
        MPI_Barrier(MPI_COMM_WORLD);
        while (lf_mpi_loop_next(ml, 0, &first, &n))
            got += n;
        lf_mpi_loop_end(ml, 0);
        CHECK(got == 300, "rank 0 alone ran %lu of 300", got);
    } else {
        long first;
        unsigned long n;
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(lf_mpi_loop_begin(ml, 0, 0, 400, 1) == -ERANGE, "other bounds");
        CHECK(lf_mpi_loop_next(ml, 0, &first, &n) == 0, "a chunk after -ERANGE");
    }
    /* The handle goes on. */
    run_loop(ml, 1, 10, -10, -1, "after -ERANGE");

    /* Data: one rank's homes out of order, then a loop of another size. */
    unsigned long home[65];
    for (int j = 0; j <= nranks && j < 64; j++)
        home[j] = (unsigned long)j * 10;
    if (rank == nranks - 1 && nranks > 1)
        home[1] = 15, home[0] = 16;
    uint64_t blk[10], res[10];
    lf_mpi_data *d = (lf_mpi_data *)&d;
    err[0] = '\0';
    rc = lf_mpi_data_create(&d, ml, home, blk, 8, res, 8, err, sizeof err);
    if (nranks > 1)
        CHECK(rc == -EINVAL && strstr(err, want) && !d, "bad homes on one rank: %d %s", rc, err);
    else
        CHECK(rc == 0, "good homes: %d %s", rc, err);
    if (nranks > 1) {
        for (int j = 0; j <= nranks; j++)
            home[j] = (unsigned long)j * 10;
        rc = lf_mpi_data_create(&d, ml, home, blk, 8, res, 8, err, sizeof err);
        CHECK(rc == 0, "good homes: %d %s", rc, err);
    }
    if (rc == 0) {
        CHECK(lf_mpi_loop_begin_data(ml, 0, 0, 5, 1, d) == -EINVAL, "data of another size");
        CHECK(lf_mpi_loop_input(ml, 0) == NULL, "an input outside a loop");
        lf_mpi_data_destroy(d);
    }
    lf_mpi_loop_destroy(ml);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int T = argc > 2 ? atoi(argv[2]) : 1;
    enum lf_mpi_mode m =
        argc > 3 && strcmp(argv[3], "master") == 0 ? LF_MPI_MASTER : LF_MPI_ONE_SIDED;
    int want = strcmp(mode, "badargs") == 0 ? MPI_THREAD_FUNNELED : MPI_THREAD_SERIALIZED, got;
    MPI_Init_thread(&argc, &argv, want, &got);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (got < want) {
        if (rank == 0)
            printf("skipped: MPI provides thread level %d < %d\n", got, want);
        MPI_Finalize();
        return 77;
    }
    counts = calloc(1000000, 1);
    sum = calloc(1000000, 1);
    if (strcmp(mode, "cover") == 0 && T >= 1)
        cover(T, m);
    else if (strcmp(mode, "late") == 0 && T >= 1)
        late(T, m);
    else if (strcmp(mode, "stage") == 0 && T >= 1)
        stage(T, m);
    else if (strcmp(mode, "owner") == 0 && T >= 1)
        owner(T);
    else if (strcmp(mode, "stream") == 0 && T >= 1)
        stream(T);
    else if (strcmp(mode, "badargs") == 0)
        badargs();
    else if (strcmp(mode, "env") == 0 && argc > 2) {
        lf_mpi_loop *ml = NULL;
        char err[512];
        int rc = lf_mpi_loop_create(&ml, MPI_COMM_WORLD, 1, NULL, NULL, "env", err, sizeof err);
        CHECK(rc == 0 && strcmp(lf_mpi_loop_rank_schedule(ml), argv[2]) == 0,
              "rank schedule %s, expected %s", rc ? err : lf_mpi_loop_rank_schedule(ml), argv[2]);
        if (rc == 0) {
            run_loop(ml, 1, 0, 5000, 1, "env");
            lf_mpi_loop_destroy(ml);
        }
        T = 1;
    } else {
        if (rank == 0)
            fprintf(stderr,
                    "usage: test_mpi cover|late|stage|owner|stream THREADS [master] | test_mpi "
                    "badargs\n");
        MPI_Finalize();
        return 2;
    }
    int all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%s %s T=%d on %d ranks: %s\n", mode, m == LF_MPI_MASTER ? "master" : "one-sided", T,
               nranks, all ? "FAIL" : "ok");
    free(counts);
    free(sum);
    MPI_Finalize();
    return all ? 1 : 0;
}
