/* tests/cmake/app.c - a C user of the CMake package: LF_PARALLEL_FOR covers 0..n-1 once;
 * prints "ok SUM" and exits 0 when the sum is the sequential one. */
#include <stdio.h>

#include <loopfarm/omp.h>

int main(void)
{
    const long n = 100000;
    long sum = 0;
    LF_PARALLEL_FOR(i, 0, n)
    {
#pragma omp atomic
        sum += i;
    }
    if (sum != n * (n - 1) / 2) {
        fprintf(stderr, "app_c: sum %ld, expected %ld\n", sum, n * (n - 1) / 2);
        return 1;
    }
    printf("ok %ld\n", sum);
    return 0;
}
