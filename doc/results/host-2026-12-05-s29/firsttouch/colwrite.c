#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <omp.h>
/* Column-wise writes into a freshly allocated row-major image, once per process. */
int main(int argc, char **argv)
{
    long W = argc > 1 ? atol(argv[1]) : 2700, H = argc > 2 ? atol(argv[2]) : 2700;
    uint64_t *img = malloc(sizeof *img * W * H);
    double t0 = omp_get_wtime();
#pragma omp parallel for schedule(guided)
    for (long x = 0; x < W; x++) {
        uint64_t s = x * 2654435761u;
        for (long y = 0; y < H; y++) {
            for (int k = 0; k < 20; k++) s = s * 6364136223846793005ull + 1442695040888963407ull;
            img[y * W + x] = s;
        }
    }
    double t1 = omp_get_wtime();
    uint64_t h = 0;
    for (long i = 0; i < W * H; i += 4097) h ^= img[i];
    printf("%.1f ms %llx\n", (t1 - t0) * 1e3, (unsigned long long)h);
    return 0;
}
