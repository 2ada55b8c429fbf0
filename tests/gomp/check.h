/* tests/gomp/check.h - helpers of the shim conformance programs: plain OpenMP, no loopfarm.
 *
 * Each program marks every iteration it runs in a counter array and checks that every
 * iteration ran exactly once; failures print the program, the loop and the iteration.
 */
#ifndef GOMP_CHECK_H
#define GOMP_CHECK_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAIL(...)                                                                                  \
    do {                                                                                           \
        fprintf(stderr, "%s: FAIL: ", __FILE__);                                                   \
        fprintf(stderr, __VA_ARGS__);                                                              \
        fputc('\n', stderr);                                                                       \
        exit(1);                                                                                   \
    } while (0)

/* Arrays made by cov_new, freed at exit (so leak checkers see a clean exit). */
static int *cov_arrays[32];
static int cov_count;

static void cov_free_all(void)
{
    while (cov_count > 0)
        free(cov_arrays[--cov_count]);
}

/* A counter per iteration, zeroed. */
static inline int *cov_new(long n)
{
    int *c = calloc((size_t)n + 1, sizeof *c);
    if (!c || cov_count == (int)(sizeof cov_arrays / sizeof *cov_arrays))
        FAIL("out of memory");
    if (cov_count == 0)
        atexit(cov_free_all);
    cov_arrays[cov_count++] = c;
    return c;
}

/* Record that iteration i ran (any thread). */
static inline void cov_hit(int *c, long i)
{
    __atomic_fetch_add(&c[i], 1, __ATOMIC_RELAXED);
}

/* Check that each of iterations 0..n-1 ran exactly once, then clear the counters. */
static inline void cov_check(int *c, long n, const char *what)
{
    for (long i = 0; i < n; i++)
        if (c[i] != 1)
            FAIL("%s: iteration %ld ran %d times (n=%ld, %d threads)", what, i, c[i], n,
                 omp_get_max_threads());
    memset(c, 0, (size_t)n * sizeof *c);
}

/* Whether chunks of schedule `kind` with an explicit chunk must be multiples of it in this
 * run: GOMP_TEST_MULTIPLES lists the kinds (default "dynamic", what libgomp guarantees). */
static inline int expect_multiples(const char *kind)
{
    const char *v = getenv("GOMP_TEST_MULTIPLES");
    if (!v)
        v = "dynamic";
    return strstr(v, kind) != NULL;
}

/* Check that each aligned block of c iterations of 0..n-1 ran on one thread (owner[i]). */
static inline void check_blocks(const int *owner, long n, long c, const char *what)
{
    for (long b = 0; b < n; b += c)
        for (long i = b + 1; i < n && i < b + c; i++)
            if (owner[i] != owner[b]) {
                /* What ran around it, and whether a shim is in the process at all (a
                 * runtime's own guided schedule splits blocks; a preload that failed to
                 * load leaves the loop to it), to tell those from a mis-sized chunk. */
                fprintf(stderr, "%s: loopfarm %s in the process (LD_PRELOAD=%s)\n", what,
                        dlsym(RTLD_DEFAULT, "lf_loop_next") ? "is" : "is not",
                        getenv("LD_PRELOAD") ? getenv("LD_PRELOAD") : "");
                fprintf(stderr, "%s: owners of [%ld,%ld):", what, b > 2 * c ? b - 2 * c : 0,
                        b + 3 * c < n ? b + 3 * c : n);
                for (long j = b > 2 * c ? b - 2 * c : 0; j < n && j < b + 3 * c; j++)
                    fprintf(stderr, " %d", owner[j]);
                fputc('\n', stderr);
                FAIL("%s: block [%ld,%ld) split between threads %d and %d (chunk %ld)", what, b,
                     b + c, owner[b], owner[i], c);
            }
}

#endif
