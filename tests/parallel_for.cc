// tests/parallel_for.cc - loopfarm::parallel_for (include/loopfarm.hpp) under the schedule of
// LF_SCHEDULE: outside a region (it opens one), inside one by every member (it shares the
// loop, with and without the closing wait), with steps and a negative step, near LONG_MAX, and
// parallel_for_each over a std::vector; every iteration runs exactly once and the sums equal
// the sequential ones.  Usage: parallel_for [N [REPS]]; exit 0 on success.
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <loopfarm.hpp>

static int failures;

static void expect(bool ok, const char *what, long n)
{
    if (!ok) {
        std::fprintf(stderr, "parallel_for: FAIL: %s (n=%ld)\n", what, n);
        failures++;
    }
}

// Every counter is 1 (then reset to 0).
static bool once(std::vector<std::atomic<int>> &c, long n)
{
    bool ok = true;
    for (long i = 0; i < n; i++)
        ok &= c[i].exchange(0) == 1;
    return ok;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? std::atol(argv[1]) : 3000;
    int reps = argc > 2 ? std::atoi(argv[2]) : 3;
    std::vector<std::atomic<int>> c(n + 1);
    for (auto &x : c)
        x = 0;
    for (int r = 0; r < reps; r++) {
        std::atomic<long> sum(0);
        loopfarm::parallel_for(0, n, [&](long i) {
            c[i]++;
            sum += i;
        });
        expect(once(c, n) && sum == n * (n - 1) / 2, "outside a region", n);

        loopfarm::parallel_for(
            n - 1, -1, -1, [&](long i) { c[i]++; }, "fac2");
        expect(once(c, n), "step -1, fac2", n);

        loopfarm::parallel_for(
            7, 3 * n + 7, 3, [&](long i) { c[(i - 7) / 3]++; }, "af");
        expect(once(c, n), "step 3, af", n);

        loopfarm::parallel_for(LONG_MAX - n, LONG_MAX, [&](long i) { c[i - (LONG_MAX - n)]++; });
        expect(once(c, n), "up to LONG_MAX", n);

        loopfarm::parallel_for(5, 5, [&](long) { c[n]++; });
        expect(c[n].exchange(0) == 0, "empty loop", n);

        long inner = 0;
#ifdef _OPENMP
#pragma omp parallel reduction(+ : inner)
#endif
        {
            loopfarm::parallel_for(0, n, [&](long i) {
                c[i]++;
                inner += i;
            });
            loopfarm::parallel_for_nowait(
                0, n, 1, [&](long i) { c[i]++; }, "multi");
        }
        bool twice = true;
        for (long i = 0; i < n; i++)
            twice &= c[i].exchange(0) == 2;
        expect(twice && inner == n * (n - 1) / 2, "inside a region, with and without wait", n);

        std::vector<double> v(n);
        for (long i = 0; i < n; i++)
            v[i] = (double)i;
        loopfarm::parallel_for_each(v, [](double &x) { x = 2 * x + 1; });
        bool each = true;
        for (long i = 0; i < n; i++)
            each &= v[i] == 2.0 * i + 1;
        expect(each, "parallel_for_each over a vector", n);
    }
    return failures ? 1 : 0;
}
