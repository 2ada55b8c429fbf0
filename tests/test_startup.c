/* tests/test_startup.c - a process's first loop does not pay for what it
 * does not use: a `dynamic` loop loads no topology and probes no counters,
 * and the clock's rate is stated by the processor or kernel, or measured
 * in a window of at most CLOCK_MIN_WINDOW (not a 20 ms spin) and made final
 * later while loops run; a calibrating schedule loads the topology before
 * its loop only where bm_i needs it (cores of several kinds); PAPI is not
 * even loaded until counters are asked for, nor hwloc until a topology is.  Runs in a fresh
 * process: no test framework, exit 0 pass, 1 fail. */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "plain.h"
#include "platform/platform.h"

/* Make a loop under spec and run n iterations on two threads; 1 when every
 * iteration ran. */
static int run(const char *spec, long n)
{
    return plain_run_loops(spec, spec, 2, n, 1);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(void)
{
    /* The first loop of the process, under a schedule that needs nothing. */
    CHECK(run("dynamic,4", 10000));
    CHECK(!lf__topo_loaded());
    CHECK(!lf__counters_probed());
#ifdef LF_HAVE_HWLOC
    /* Nor is hwloc (and libudev) in the process before a topology is needed. */
    CHECK(dlopen(LF_HWLOC_SONAME, RTLD_NOW | RTLD_NOLOAD) == NULL);
#endif
    if (lf__clock.use_tsc) {
        /* Stated rates are final at once; a measured one waited for at
         * most the short window (0.2 ms), never a 20 ms calibration. */
        CHECK(lf__clock.rate_source && lf__clock.rate_source[0]);
        CHECK(lf__clock.setup_wait_ns <= 5e6); /* 0.2 ms, and room for preemption */
        if (strstr(lf__clock.rate_source, "measured"))
            printf("test_startup: TSC rate measured while loops run (waited %.0f ns)\n",
                   lf__clock.setup_wait_ns);
        else
            CHECK(lf__clock_rate_final());
        /* 20 ms later, the next loop makes the rate final; it agrees with
         * CLOCK_MONOTONIC over a 10 ms sleep within 1%. */
        sleep_ms(25);
        CHECK(run("dynamic,4", 1000));
        CHECK(lf__clock_rate_final());
        uint64_t n0 = lf__clock_ns(), t0 = lf__ticks();
        sleep_ms(10);
        uint64_t n1 = lf__clock_ns(), t1 = lf__ticks();
        double ratio = (double)lf__ticks_to_ns(t1 - t0) / (double)(n1 - n0);
        CHECK(ratio > 0.99 && ratio < 1.01);
    } else {
        CHECK(lf__clock_rate_final());
        CHECK(lf__clock_ns_per_tick() == 1.0);
    }
    /* A calibrating schedule reads bm_i: the topology is loaded for it
     * when the kernel shows cores of several kinds, and only then. */
    CHECK(run("af", 20000));
    CHECK(lf__topo_loaded() == lf__perf_needs_topo());
    CHECK(!lf__counters_probed());
#ifdef LF_HAVE_PAPI
    /* Loops ran; PAPI (and libpfm) are not in the process until counters
     * are asked for, and are then. */
    CHECK(dlopen(LF_PAPI_SONAME, RTLD_NOW | RTLD_NOLOAD) == NULL);
    const char *why = lf__counters_status();
    CHECK(why && why[0]);
    if (!strstr(why, "could not be loaded"))
        CHECK(dlopen(LF_PAPI_SONAME, RTLD_NOW | RTLD_NOLOAD) != NULL);
#endif
    /* bm_i is the same either way on a machine of one kind. */
    if (!lf__perf_needs_topo()) {
        double bm = lf__perf_bm_self();
        (void)lf__topo();
        CHECK(bm == lf__perf_bm_self());
    }
#ifdef LF_HAVE_HWLOC
    /* A topology loads hwloc; one from hwloc says so in its source. */
    (void)lf__topo();
    if (strstr(lf__topo()->source, "hwloc (API"))
        CHECK(dlopen(LF_HWLOC_SONAME, RTLD_NOW | RTLD_NOLOAD) != NULL);
#endif
    return plain_failures ? 1 : 0;
}
