/* lib/platform/clock.h - time for the dispatcher's hot path.
 *
 * lf__ticks() is the cheapest monotonic counter the machine offers: the TSC
 * on x86-64 when the kernel reports it invariant (constant_tsc and
 * nonstop_tsc), else CLOCK_MONOTONIC in nanoseconds.  lf__ticks_to_ns()
 * converts a difference.  lf__clock_init() must have run once (it is called
 * from the library constructor and is idempotent).
 */
#ifndef LF_PLATFORM_CLOCK_H
#define LF_PLATFORM_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

struct lf__clock_info {
    int use_tsc;          /* 1: ticks are TSC cycles */
    double ns_per_tick;   /* 1.0 when ticks are nanoseconds */
    double tick_cost_ns;  /* measured cost of one lf__ticks() */
    double resolution_ns; /* smallest nonzero step observed */
    const char *source;   /* "tsc (invariant)" or "clock_gettime(CLOCK_MONOTONIC)" */
    const char *fallback; /* why the TSC is not used, or "" */
};
extern struct lf__clock_info lf__clock;

void lf__clock_init(void);

/* Nanoseconds of CLOCK_MONOTONIC. */
static inline uint64_t lf__clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU time consumed by the calling thread, in nanoseconds. */
static inline uint64_t lf__thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t lf__ticks(void)
{
#if defined(__x86_64__)
    if (lf__clock.use_tsc)
        return __rdtsc();
#endif
    return lf__clock_ns();
}

static inline uint64_t lf__ticks_to_ns(uint64_t dt)
{
    return (uint64_t)((double)dt * lf__clock.ns_per_tick + 0.5);
}

#endif
