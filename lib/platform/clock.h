/* lib/platform/clock.h - time for the dispatcher's hot path.
 *
 * lf__ticks() is the cheapest monotonic counter the machine offers: the TSC
 * on x86-64 when the kernel reports it invariant (constant_tsc and
 * nonstop_tsc), else CLOCK_MONOTONIC in nanoseconds.  lf__ticks_to_ns()
 * converts a difference.  lf__clock_init() must have run once (the
 * dispatcher calls it when it makes a loop; it is idempotent and cheap).
 *
 * The TSC's rate is the processor's (CPUID leaf 0x15, or a hypervisor's
 * leaf 0x40000010) or the kernel's (tsc_freq_khz) when they give it.
 * Otherwise it is measured against CLOCK_MONOTONIC from the moment the
 * library was loaded: the first lf__clock_init waits only what is missing
 * of CLOCK_MIN_WINDOW (0.2 ms) and takes a provisional rate, and a later
 * call, once 20 ms have passed, replaces it with the final one while loops
 * run.  No start-up spin of 20 ms.
 */
#ifndef LF_PLATFORM_CLOCK_H
#define LF_PLATFORM_CLOCK_H

#include <stdint.h>
#include <time.h>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

struct lf__clock_info {
    int use_tsc;             /* 1: ticks are TSC cycles */
    double ns_per_tick;      /* 1.0 when ticks are nanoseconds; read with
                                lf__clock_ns_per_tick() (refined while loops run) */
    double tick_cost_ns;     /* cost of one lf__ticks(), by lf__clock_measure */
    double resolution_ns;    /* smallest nonzero step, by lf__clock_measure */
    const char *source;      /* "tsc (invariant)" or "clock_gettime(CLOCK_MONOTONIC)" */
    const char *fallback;    /* why the TSC is not used, or "" */
    const char *rate_source; /* where the TSC's rate came from, "" without the TSC */
    double setup_wait_ns;    /* what lf__clock_init waited to measure the rate */
};
extern struct lf__clock_info lf__clock;

/* Choose the clock and its rate (once), or refine a measured rate (cheap
 * once it is final). */
void lf__clock_init(void);
/* 1 when the TSC's rate is final (given by the processor or kernel, or
 * measured over 20 ms or more); 0 while it is provisional. */
int lf__clock_rate_final(void);
/* Measure tick_cost_ns and resolution_ns (a few microseconds; for lf-info). */
void lf__clock_measure(void);

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

/* The current rate (a relaxed atomic read: the refinement may store it). */
static inline double lf__clock_ns_per_tick(void)
{
    double r;
    __atomic_load(&lf__clock.ns_per_tick, &r, __ATOMIC_RELAXED);
    return r;
}

static inline uint64_t lf__ticks_to_ns(uint64_t dt)
{
    return (uint64_t)((double)dt * lf__clock_ns_per_tick() + 0.5);
}

#endif
