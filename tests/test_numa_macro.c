/* tests/test_numa_macro.c - LF_FOR_DATA through OpenMP: umr, rumr and
 * locality-aware fac2 (and others) run real loops correctly, whatever
 * domains the platform layer sees (tests/test_numa_macro.sh runs it with
 * and without LF_FAKE_NUMA).
 *
 * A 5-point stencil y[i] = sum of x[i-2..i+2] over input x read through
 * LF_IN (staged or in place), checked against a sequential run, with x
 * homed three ways: by explicit ranges, all on the last domain (learned),
 * and blocked over the domains by placement (learned).  Exit 0 when all
 * pass, 1 otherwise.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <loopfarm/omp.h>

#define HALO 2

static int check(const char *what, const double *y, const double *ref, long n, unsigned long *cnt)
{
    long bad = 0, twice = 0, never = 0;
    for (long i = 0; i < n; i++) {
        bad += y[i] != ref[i];
        twice += cnt[i] > 1;
        never += cnt[i] == 0;
    }
    if (bad || twice || never) {
        printf("FAIL %s: %ld wrong, %ld twice, %ld never\n", what, bad, twice, never);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 200000;
    int D = lf_numa_count() > 64 ? 64 : lf_numa_count();
    size_t bytes = (size_t)(n + 2 * HALO) * sizeof(double);
    double *xa = lf_numa_alloc(bytes, D - 1);
    double *y = malloc((size_t)n * sizeof *y), *ref = malloc((size_t)n * sizeof *ref);
    unsigned long *cnt = malloc((size_t)n * sizeof *cnt);
    if (!xa || !y || !ref || !cnt) {
        printf("FAIL: out of memory\n");
        return 1;
    }
    double *x = xa + HALO; /* x[-2 .. n+1] */
    for (long i = -HALO; i < n + HALO; i++)
        x[i] = sin(0.001 * (double)i) + (double)(i % 7);
    for (long i = 0; i < n; i++)
        ref[i] = x[i - 2] + x[i - 1] + x[i] + x[i + 1] + x[i + 2];
    static const char *const specs[] = {"umr",
                                        "rumr",
                                        "fac2",
                                        "af",
                                        "multi",
                                        "dynamic,64",
                                        "fac2,numa=off",
                                        "umr,stage=off",
                                        "fac2,piece=4096",
                                        "umr,piece=0",
                                        NULL};
    int fail = 0;
    printf("domains %d (%s), threads %d\n", D, lf_numa_fake() ? "fake" : "real",
           omp_get_max_threads());
    for (int placement = 0; placement < 3; placement++) {
        unsigned long home[65];
        struct lf_data d;
        memset(&d, 0, sizeof d);
        d.ninputs = 1;
        d.in[0] = (struct lf_input){x, sizeof(double), 1, HALO, NULL, NULL};
        if (placement == 0) {
            for (int k = 0; k <= D; k++)
                home[k] = (unsigned long)((double)n * k / D);
            d.home = home;
            d.nhome = D;
        } else {
            d.learn = 1;
            /* 1: all on the last domain (as allocated); 2: blocked by domain. */
            for (int k = 0; k < D; k++) {
                char *a = (char *)xa + (placement == 2 ? bytes * (size_t)k / (size_t)D : 0);
                char *b =
                    (char *)xa + (placement == 2 ? bytes * (size_t)(k + 1) / (size_t)D : bytes);
                if (lf_numa_place(a, (size_t)(b - a), placement == 2 ? k : D - 1) != 0 && D > 1) {
                    printf("FAIL: lf_numa_place\n");
                    fail = 1;
                }
            }
        }
        for (int s = 0; specs[s]; s++) {
            for (int rep = 0; rep < 2; rep++) { /* the second run starts from memory */
                memset(y, 0, (size_t)n * sizeof *y);
                memset(cnt, 0, (size_t)n * sizeof *cnt);
#pragma omp parallel
                {
                    LF_FOR_DATA(i, 0, n, 1, specs[s], &d)
                    {
                        y[i] = LF_IN(double, 0, i - 2) + LF_IN(double, 0, i - 1) +
                               LF_IN(double, 0, i) + LF_IN(double, 0, i + 1) +
                               LF_IN(double, 0, i + 2);
#pragma omp atomic
                        cnt[i]++;
                    }
                }
                char what[96];
                snprintf(what, sizeof what, "%s placement %d run %d", specs[s], placement, rep);
                fail |= check(what, y, ref, n, cnt);
            }
        }
    }
    /* The same stencil, staged, with a negative increment. */
    memset(y, 0, (size_t)n * sizeof *y);
    memset(cnt, 0, (size_t)n * sizeof *cnt);
    struct lf_data d;
    memset(&d, 0, sizeof d);
    d.ninputs = 1;
    d.learn = 1;
    d.in[0] = (struct lf_input){x, sizeof(double), 1, HALO, NULL, NULL};
#pragma omp parallel
    {
        LF_FOR_DATA(i, n - 1, -1, -1, "fac2", &d)
        {
            y[i] = LF_IN(double, 0, i - 2) + LF_IN(double, 0, i - 1) + LF_IN(double, 0, i) +
                   LF_IN(double, 0, i + 1) + LF_IN(double, 0, i + 2);
#pragma omp atomic
            cnt[i]++;
        }
    }
    fail |= check("fac2 downwards", y, ref, n, cnt);
    lf_numa_free(xa, bytes);
    free(y);
    free(ref);
    free(cnt);
    printf("%s\n", fail ? "FAILED" : "all passed");
    return fail;
}
