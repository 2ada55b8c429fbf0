// tests/cmake/app.cc - a C++ user of the CMake package: loopfarm::parallel_for covers 0..n-1
// once; prints "ok SUM" and exits 0 when the sum is the sequential one.
#include <atomic>
#include <cstdio>

#include <loopfarm.hpp>

int main()
{
    const long n = 100000;
    std::atomic<long> sum(0);
    loopfarm::parallel_for(0, n, [&](long i) { sum += i; });
    if (sum != n * (n - 1) / 2) {
        std::fprintf(stderr, "app_cxx: sum %ld, expected %ld\n", sum.load(), n * (n - 1) / 2);
        return 1;
    }
    std::printf("ok %ld\n", sum.load());
    return 0;
}
