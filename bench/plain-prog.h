/* bench/plain-prog.h - what the plain OpenMP benchmark programs share (bench/lf-kmp-chunk.c,
 * bench/lf-kmp-static.c: built by clang alone, with no loopfarm header and no library of the
 * project's): a wall clock and the parsing of a positive integer option. */
#ifndef LF_BENCH_PLAIN_PROG_H
#define LF_BENCH_PLAIN_PROG_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds. */
static inline double plain_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The value v of option opt as a positive integer; otherwise program prog exits with status 2,
 * saying what was expected. */
static inline long plain_number(const char *prog, const char *opt, const char *v)
{
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || *end || x < 1) {
        fprintf(stderr, "%s: %s takes a positive integer, not \"%s\" (%s --help)\n", prog, opt,
                v ? v : "", prog);
        exit(2);
    }
    return x;
}

#endif
