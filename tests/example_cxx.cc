// tests/example_cxx.cc - LF_FOR in a C++ program: a skewed workload over a
// std::vector, summed in parallel by a team, with every iteration counted.
// Exit 0 when each iteration ran exactly once and the sum equals the
// sequential one (the work is integer, so the sums are exact).
//
//   g++ -std=c++17 -fopenmp example_cxx.cc $(pkg-config --cflags --libs loopfarm)
//   LF_SCHEDULE=af ./a.out [n] [executions]
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include <loopfarm/omp.h>

namespace
{

// Deterministic work whose cost grows with i.
long long work(long i)
{
    long long x = 0;
    for (long k = 0; k <= i % 2048; k++)
        x += (i * 31 + k) % 7;
    return x;
}

template <typename F> long long team_sum(long lo, long hi, long step, F body)
{
    long long total = 0;
#pragma omp parallel reduction(+ : total)
    {
        LF_FOR_STEP(i, lo, hi, step)
        {
            total += body(i);
        }
    }
    return total;
}

} // namespace

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 20000;
    int reps = argc > 2 ? std::atoi(argv[2]) : 3;
    if (n < 1 || reps < 1) {
        std::fprintf(stderr, "usage: example_cxx [n >= 1] [executions >= 1]\n");
        return 2;
    }
    std::vector<long long> cost(static_cast<size_t>(n));
    for (long i = 0; i < n; i++)
        cost[static_cast<size_t>(i)] = work(i);
    long long seq = std::accumulate(cost.begin(), cost.end(), 0LL);

    int bad = 0;
    // Several executions of one site: the calibrating schedules reuse what
    // the site learned, so later executions take another path.
    for (int r = 0; r < reps; r++) {
        std::vector<std::atomic<int>> seen(static_cast<size_t>(n));
        for (auto &s : seen)
            s.store(0, std::memory_order_relaxed);
        long long par = team_sum(0, n, 1, [&](long i) {
            seen[static_cast<size_t>(i)].fetch_add(1, std::memory_order_relaxed);
            return work(i);
        });
        for (long i = 0; i < n; i++) {
            int k = seen[static_cast<size_t>(i)].load(std::memory_order_relaxed);
            if (k != 1) {
                std::fprintf(stderr, "execution %d: iteration %ld ran %d times\n", r, i, k);
                bad = 1;
                break;
            }
        }
        if (par != seq) {
            std::fprintf(stderr, "execution %d: sum %lld, sequential %lld\n", r, par, seq);
            bad = 1;
        }
    }
    // A descending loop with a stride: the even indices from n - 1 down.
    long long seq_down = 0;
    for (long i = n - 1; i > -1; i -= 2)
        seq_down += cost[static_cast<size_t>(i)];
    long long par_down =
        team_sum(n - 1, -1, -2, [&](long i) { return cost[static_cast<size_t>(i)]; });
    if (par_down != seq_down) {
        std::fprintf(stderr, "descending loop: sum %lld, sequential %lld\n", par_down, seq_down);
        bad = 1;
    }
    std::printf("n=%ld, %d executions and a descending loop: %s\n", n, reps, bad ? "WRONG" : "ok");
    return bad;
}
