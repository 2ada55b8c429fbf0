/* The behaviours LLVM's own worksharing tests check of static loops (openmp/runtime/test/
 * worksharing/for: the static schedule, the same assignment for two loops, lastprivate,
 * firstprivate, reduction, collapse, nowait, and a team of one), written anew as tests of the
 * same behaviour, for schedule(static) loops and loops with no schedule clause, which a
 * weighted shim may split unevenly: every iteration once, each thread one contiguous range in
 * thread order, results equal to a sequential run. */
#include <limits.h>
#include <stdint.h>
#include <time.h>

#include "check.h"

enum { N = 1000 };

/* schedule(static) without a chunk: one contiguous range per thread, ranges in thread order
 * (thread t's iterations all come before thread t+1's), every iteration once. */
static void static_blocks(void)
{
    static int owner[N];
    int *c = cov_new(N);
    for (int rep = 0; rep < 5; rep++) {
#pragma omp parallel
        {
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++) {
                owner[i] = omp_get_thread_num();
                cov_hit(c, i);
            }
        }
        cov_check(c, N, "static blocks");
        for (int i = 1; i < N; i++)
            if (owner[i] < owner[i - 1] || owner[i] > owner[i - 1] + 1)
                /* A thread may own nothing only when there are more threads than iterations. */
                FAIL("static blocks: iteration %d ran on thread %d after thread %d ran %d", i,
                     owner[i], owner[i - 1], i - 1);
    }
}

/* Two loops of one region with the same trip count (one with schedule(static), one with no
 * clause) give each thread the same iterations; so does a third with the same count after a
 * loop of another count. */
static void same_assignment(void)
{
    static int a[N], b[N], d[N], other[N / 3];
    for (int rep = 0; rep < 5; rep++) {
#pragma omp parallel
        {
            int t = omp_get_thread_num();
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                a[i] = t;
#pragma omp for
            for (int i = 0; i < N; i++)
                b[i] = t;
#pragma omp for
            for (int i = 0; i < N / 3; i++)
                other[i] = t;
#pragma omp for schedule(static)
            for (int i = 0; i < N; i++)
                d[i] = t;
        }
        for (int i = 0; i < N; i++)
            if (a[i] != b[i] || a[i] != d[i])
                FAIL("same assignment: iteration %d ran on threads %d, %d and %d", i, a[i], b[i],
                     d[i]);
    }
}

/* lastprivate takes the sequentially last iteration's value; firstprivate starts each thread
 * from the value before the loop. */
static void privates(void)
{
    for (int rep = 0; rep < 5; rep++) {
        int last = -1, start = 7, bad = 0;
        long long lastl = 0;
#pragma omp parallel for lastprivate(last) firstprivate(start) reduction(+ : bad)
        for (int i = 0; i < N; i++) {
            if (start != 7 && start != 7 + 1)
                bad++;
            start = 7 + 1; /* a thread's later iterations see its own copy */
            last = i * 3;
        }
        if (bad || last != (N - 1) * 3)
            FAIL("privates: lastprivate %d (expected %d), %d iterations saw another "
                 "firstprivate value",
                 last, (N - 1) * 3, bad);
#pragma omp parallel
        {
#pragma omp for lastprivate(lastl) nowait
            for (long long i = LLONG_MAX - N + 1; i > LLONG_MAX - 2 * N; i--)
                lastl = i;
        }
        if (lastl != LLONG_MAX - 2 * N + 1)
            FAIL("privates: lastprivate of a downward long long loop %lld, expected %lld", lastl,
                 LLONG_MAX - 2 * N + 1);
    }
}

/* Reductions over static loops equal the sequential results. */
static void reductions(void)
{
    for (int rep = 0; rep < 5; rep++) {
        long long sum = 0;
        double prod = 1;
        int all = 1, any = 0, lo = INT_MAX, hi = INT_MIN;
        unsigned long long usum = 0;
#pragma omp parallel for reduction(+ : sum) reduction(* : prod) reduction(&& : all)              \
    reduction(|| : any) reduction(min : lo) reduction(max : hi)
        for (int i = 1; i <= N; i++) {
            sum += i;
            prod *= i % 7 == 0 ? 2.0 : 1.0;
            all = all && i > 0;
            any = any || i == N / 2;
            lo = i < lo ? i : lo;
            hi = i > hi ? i : hi;
        }
#pragma omp parallel for reduction(+ : usum)
        for (unsigned i = UINT_MAX; i > UINT_MAX - 3u * N; i -= 3)
            usum += UINT_MAX - i;
        unsigned long long uwant = 0;
        for (unsigned long long k = 0; k < N; k++)
            uwant += 3 * k;
        double pwant = 1;
        for (int i = 1; i <= N; i++)
            pwant *= i % 7 == 0 ? 2.0 : 1.0;
        if (sum != (long long)N * (N + 1) / 2 || prod != pwant || !all || !any || lo != 1 ||
            hi != N || usum != uwant)
            FAIL("reductions: sum %lld prod %g and %d or %d min %d max %d usum %llu", sum, prod,
                 all, any, lo, hi, usum);
    }
}

/* collapse(2) and collapse(3) over static loops: every point once, lastprivate of the
 * collapsed indices is the last point. */
static void collapsed(void)
{
    enum { A = 13, B = 17, C = 5 };
    int *c = cov_new(A * B * C);
    for (int rep = 0; rep < 5; rep++) {
        int li = -1, lj = -1;
#pragma omp parallel for collapse(2) lastprivate(li, lj) schedule(static)
        for (int i = 0; i < A; i++)
            for (int j = B - 1; j >= 0; j--) {
                cov_hit(c, i * B + j);
                li = i;
                lj = j;
            }
        cov_check(c, A * B, "collapse(2)");
        if (li != A - 1 || lj != 0)
            FAIL("collapse(2): lastprivate (%d, %d), expected (%d, 0)", li, lj, A - 1);
#pragma omp parallel for collapse(3)
        for (long i = 0; i < A; i++)
            for (int j = 0; j < B; j += 1)
                for (unsigned k = 0; k < C; k++)
                    cov_hit(c, (i * B + j) * C + (long)k);
        cov_check(c, A * B * C, "collapse(3)");
    }
}

/* nowait lets a thread leave a static loop without waiting for the others: the thread with
 * the first loop's last iteration waits there until the thread with the second loop's first
 * iteration has started the second loop, which it could not do behind a barrier. */
static void nowait_leaves(void)
{
    if (omp_get_max_threads() < 2)
        return;
    int started = 0, timed_out = 0;
#pragma omp parallel
    {
#pragma omp for nowait
        for (int i = 0; i < N; i++)
            if (i == N - 1 && omp_get_thread_num() != 0) {
                /* Give up after 20 s (a missing nowait would hang here). */
                struct timespec t0, t;
                clock_gettime(CLOCK_MONOTONIC, &t0);
                while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) {
                    clock_gettime(CLOCK_MONOTONIC, &t);
                    if (t.tv_sec - t0.tv_sec > 20) {
                        timed_out = 1;
                        break;
                    }
                }
            }
#pragma omp for nowait
        for (int i = 0; i < N; i++)
            if (i == 0)
                __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
    }
    if (timed_out)
        FAIL("nowait: the first loop's last thread waited 20 s for the second loop to start");
}

/* A team of one (if(0), or one thread) runs the whole range on its thread. */
static void team_of_one(void)
{
    int *c = cov_new(N);
    int others = 0;
#pragma omp parallel if (0) reduction(+ : others)
    {
#pragma omp for schedule(static)
        for (int i = 0; i < N; i++) {
            others += omp_get_thread_num() != 0;
            cov_hit(c, i);
        }
    }
    cov_check(c, N, "team of one");
    if (others)
        FAIL("team of one: %d iterations on another thread", others);
}

/* sections are a static loop over the sections under clang: each runs once. */
static void sections(void)
{
    int *c = cov_new(4);
    for (int rep = 0; rep < 5; rep++) {
#pragma omp parallel sections
        {
#pragma omp section
            cov_hit(c, 0);
#pragma omp section
            cov_hit(c, 1);
#pragma omp section
            cov_hit(c, 2);
#pragma omp section
            cov_hit(c, 3);
        }
        cov_check(c, 4, "sections");
    }
}

int main(void)
{
    static_blocks();
    same_assignment();
    privates();
    reductions();
    collapsed();
    nowait_leaves();
    team_of_one();
    sections();
    return 0;
}
