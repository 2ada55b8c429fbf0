/* lib/platform/clock.c - choose and calibrate the hot-path clock. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/clock.h"

struct lf__clock_info lf__clock = {0, 1.0, 0.0, 0.0, "clock_gettime(CLOCK_MONOTONIC)", ""};

/* Whether /proc/cpuinfo lists both flags that make the TSC a wall clock. */
static int tsc_invariant(void)
{
#if defined(__x86_64__)
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int ok = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) == 0) {
            ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
            break;
        }
    }
    fclose(f);
    return ok;
#else
    return 0;
#endif
}

static void clock_setup(void)
{
    const char *env = getenv("LF_CLOCK");
    int want_tsc = !(env && strcmp(env, "monotonic") == 0);
    if (want_tsc && tsc_invariant()) {
#if defined(__x86_64__)
        /* Rate of the TSC against CLOCK_MONOTONIC over ~20 ms. */
        uint64_t n0 = lf__clock_ns(), t0 = __rdtsc();
        uint64_t n1;
        do
            n1 = lf__clock_ns();
        while (n1 - n0 < 20000000u);
        uint64_t t1 = __rdtsc();
        if (t1 > t0) {
            lf__clock.use_tsc = 1;
            lf__clock.ns_per_tick = (double)(n1 - n0) / (double)(t1 - t0);
            lf__clock.source = "tsc (invariant)";
        }
#endif
    } else {
        lf__clock.fallback = want_tsc ? "no invariant TSC (constant_tsc+nonstop_tsc)"
                                      : "LF_CLOCK=monotonic";
    }
    /* Cost of one reading and the smallest step, in ns. */
    enum { N = 2000 };
    uint64_t a = lf__ticks(), prev = a, step = UINT64_MAX;
    for (int i = 0; i < N; i++) {
        uint64_t t = lf__ticks();
        if (t > prev && t - prev < step)
            step = t - prev;
        prev = t;
    }
    lf__clock.tick_cost_ns = (double)lf__ticks_to_ns(prev - a) / N;
    lf__clock.resolution_ns = step == UINT64_MAX ? 0.0 : (double)step * lf__clock.ns_per_tick;
}

void lf__clock_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, clock_setup);
}
