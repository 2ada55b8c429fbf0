/* bench/bench_tbb.cc - oneTBB's parallel_for for lf-bench-tbb's tbb: rows.
 *
 * The loop runs in a task_arena of exactly --threads slots, each thread
 * pinned on entering the arena as lf-bench pins OpenMP's (slot t on
 * cpus[t mod ncores]); the body is lf-bench's (BENCH_BODY), on the kernels
 * of libbench.la, so a tbb: row does the same work as every other row.  Per
 * thread, the tally lives in its own cache line, indexed by the arena slot.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "bench.h"

#include <chrono>
#include <cstdio>
#include <memory>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/partitioner.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

namespace
{

/* Pins every thread that enters the arena to its slot's CPU. */
class pinning_observer : public tbb::task_scheduler_observer
{
  public:
    pinning_observer(tbb::task_arena &a, const bench_scenario *sc)
        : tbb::task_scheduler_observer(a), sc_(sc)
    {
        observe(true);
    }
    /* oneTBB's rule: a derived observer stops observing itself, before its
     * callbacks go (else the arena keeps a proxy of it: a leak) */
    ~pinning_observer() override
    {
        observe(false);
    }
    void on_scheduler_entry(bool) override
    {
        int t = tbb::this_task_arena::current_thread_index();
        if (t >= 0)
            bench_bind_thread(sc_, t);
    }

  private:
    const bench_scenario *sc_;
};

/* One thread's tally, alone on its cache line. */
struct alignas(64) slot_tally {
    bench_tally tl;
    long next;
};

struct team {
    std::unique_ptr<tbb::global_control> limit;
    std::unique_ptr<tbb::task_arena> arena;
    std::unique_ptr<pinning_observer> pin;
    std::vector<slot_tally> slots;
    /* affinity partitioners, one per schedule: each remembers where its
     * chunks ran and replays it at the next execution */
    std::vector<std::unique_ptr<tbb::affinity_partitioner>> affinity;
};

team *the_team;

double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/* The loop body over r for the calling thread, BENCH_BODY / BENCH_DATA_BODY
 * on the thread's own tally. */
void run_range(const bench_kernel *k, const bench_scenario *sc, int threads,
               const tbb::blocked_range<long> &r)
{
    int t = tbb::this_task_arena::current_thread_index();
    slot_tally &me = the_team->slots[t];
    int rep = bench_thread_factor(sc, t, threads);
    long next = me.next, runs = 0, iters = 0, remote = 0, staged = 0;
    uint64_t sum = 0;
    double waited = 0;
    if (k->iter_at) {
        const uintptr_t in_lo = (uintptr_t)k->xin;
        const size_t in_len = (size_t)k->n * (size_t)k->grain * sizeof(double);
        for (long i = r.begin(); i < r.end(); i++)
            BENCH_DATA_BODY(i, k->xin + i * k->grain);
    } else {
        for (long i = r.begin(); i < r.end(); i++)
            BENCH_BODY(i);
    }
    me.next = next;
    me.tl.runs += runs;
    me.tl.iters += iters;
    me.tl.sum += sum;
    me.tl.remote += remote;
    me.tl.staged += staged;
    me.tl.waited += waited;
}

} // namespace

extern "C" int bench_tbb_start(const struct bench_scenario *sc, int threads)
{
    try {
        the_team = new team;
        the_team->limit.reset(
            new tbb::global_control(tbb::global_control::max_allowed_parallelism, threads));
        the_team->arena.reset(new tbb::task_arena(threads, 1));
        the_team->arena->initialize();
        the_team->pin.reset(new pinning_observer(*the_team->arena, sc));
        the_team->slots.resize(threads);
        the_team->affinity.resize(BENCH_MAX_SCHEDS);
        for (auto &a : the_team->affinity)
            a.reset(new tbb::affinity_partitioner);
        /* Bring every worker in (and pinned) before anything is timed. */
        the_team->arena->execute([&] {
            tbb::parallel_for(
                0, 64 * threads, [](int) {}, tbb::simple_partitioner());
        });
    } catch (const std::exception &e) {
        std::fprintf(stderr, "lf-bench-tbb: cannot start oneTBB with %d threads: %s\n", threads,
                     e.what());
        return -1;
    }
    if (the_team->arena->max_concurrency() != threads) {
        std::fprintf(stderr, "lf-bench-tbb: oneTBB gave an arena of %d threads, not %d\n",
                     the_team->arena->max_concurrency(), threads);
        return -1;
    }
    return 0;
}

extern "C" double bench_tbb_run(const struct bench_kernel *k, const struct bench_scenario *sc,
                                int threads, enum bench_tbb_partitioner p, long grain, int slot,
                                struct bench_tally *tl)
{
    team *tm = the_team;
    tbb::blocked_range<long> range(0, k->n, (size_t)(grain > 0 ? grain : 1));
    auto body = [=](const tbb::blocked_range<long> &r) { run_range(k, sc, threads, r); };
    for (auto &s : tm->slots) {
        s.tl = bench_tally();
        s.next = -1;
    }
    double t0 = now_s();
    tm->arena->execute([&] {
        switch (p) {
        case TBB_SIMPLE:
            tbb::parallel_for(range, body, tbb::simple_partitioner());
            break;
        case TBB_AFFINITY:
            tbb::parallel_for(range, body, *tm->affinity[slot]);
            break;
        case TBB_STATIC:
            tbb::parallel_for(range, body, tbb::static_partitioner());
            break;
        default:
            tbb::parallel_for(range, body, tbb::auto_partitioner());
            break;
        }
    });
    double t = now_s() - t0;
    *tl = bench_tally();
    for (auto &s : tm->slots) {
        tl->runs += s.tl.runs;
        tl->iters += s.tl.iters;
        tl->sum += s.tl.sum;
        tl->remote += s.tl.remote;
        tl->staged += s.tl.staged;
        tl->waited += s.tl.waited;
    }
    return t;
}

extern "C" void bench_tbb_stop(void)
{
    /* The team is left to the process's exit, reachable from the_team:
     * destroying the observer while oneTBB's workers still hold its proxy
     * leaks the proxy (LeakSanitizer reports it under hog and biglittle),
     * and tbb::finalize can wait for ever for a worker asleep in its
     * market.  Only the timed loops are over here. */
}
