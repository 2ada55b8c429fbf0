/* lib/platform/clock.c - choose the hot-path clock and find the TSC's rate
 * without a start-up spin (see clock.h). */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "platform/clock.h"
#include "platform/env.h"
#include "platform/platform.h"

/* A provisional rate is measured over at least this many ns ... */
#define CLOCK_MIN_WINDOW 200000u
/* ... and made final once this many have passed since the anchor. */
#define CLOCK_FINAL_WINDOW 20000000u

struct lf__clock_info lf__clock = {0, 1.0, 0.0, 0.0, "clock_gettime(CLOCK_MONOTONIC)", "", "", 0.0};

/* A TSC reading and the CLOCK_MONOTONIC time it was taken at. */
struct anchor {
    uint64_t ns, tsc;
};

static struct anchor load_anchor; /* taken when the library is loaded */
static int rate_final;            /* atomic: 1 once ns_per_tick is final */

/* Pair a TSC reading with CLOCK_MONOTONIC: of a few tries, the one whose
 * two clock reads bracket it most tightly (a preempted try is discarded). */
static struct anchor take_anchor(void)
{
    struct anchor best = {0, 0};
#if defined(__x86_64__)
    uint64_t width = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = lf__clock_ns(), t = __rdtsc(), b = lf__clock_ns();
        if (b - a < width) {
            width = b - a;
            best = (struct anchor){a + (b - a) / 2, t};
        }
    }
#endif
    return best;
}

__attribute__((constructor)) static void clock_at_load(void)
{
    load_anchor = take_anchor();
}

/* Whether the TSC is a wall clock: the processor says so (CPUID
 * 0x80000007 EDX bit 8, "invariant TSC"), or /proc/cpuinfo lists both
 * flags the kernel derives for it. */
static int tsc_invariant(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if ((unsigned)__get_cpuid_max(0x80000000, NULL) >= 0x80000007u) {
        __cpuid(0x80000007, a, b, c, d);
        if (d & (1u << 8))
            return 1;
    }
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

/* The TSC's frequency in Hz as the processor, a hypervisor or the kernel
 * states it, naming the source in *from; 0 when none does. */
static double tsc_hz_stated(const char **from)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, NULL) >= 0x15) {
        __cpuid_count(0x15, 0, a, b, c, d);
        if (a && b && c) { /* crystal Hz * TSC/crystal ratio */
            *from = "the processor (CPUID leaf 0x15)";
            return (double)c * (double)b / (double)a;
        }
    }
    __cpuid(0x1, a, b, c, d);
    if (c & (1u << 31)) { /* under a hypervisor: its timing leaf, when it has one */
        __cpuid(0x40000000, a, b, c, d);
        if (a >= 0x40000010) {
            __cpuid(0x40000010, a, b, c, d);
            if (a) {
                *from = "the hypervisor (CPUID leaf 0x40000010)";
                return (double)a * 1e3;
            }
        }
    }
    long khz = lf__read_long("/sys/devices/system/cpu/cpu0/tsc_freq_khz");
    if (khz > 0) {
        *from = "the kernel (tsc_freq_khz)";
        return (double)khz * 1e3;
    }
#endif
    return 0.0;
}

static void store_rate(double ns_per_tick)
{
    __atomic_store(&lf__clock.ns_per_tick, &ns_per_tick, __ATOMIC_RELAXED);
}

static void clock_setup(void)
{
    const char *env = lf__env(LF__ENV_CLOCK);
    int want_tsc = !(env && strcmp(env, "monotonic") == 0);
    if (!want_tsc || !tsc_invariant()) {
        lf__clock.fallback =
            want_tsc ? "no invariant TSC (constant_tsc+nonstop_tsc)" : "LF_CLOCK=monotonic";
        __atomic_store_n(&rate_final, 1, __ATOMIC_RELEASE);
        return;
    }
#if defined(__x86_64__)
    const char *from = "";
    double hz = tsc_hz_stated(&from);
    if (hz > 0.0) {
        store_rate(1e9 / hz);
        lf__clock.rate_source = from;
        __atomic_store_n(&rate_final, 1, __ATOMIC_RELEASE);
    } else {
        /* Measured since the library was loaded; wait only for what is
         * missing of the shortest window that gives a usable rate. */
        uint64_t t0 = lf__clock_ns();
        if (load_anchor.tsc == 0)
            load_anchor = take_anchor();
        struct anchor now = take_anchor();
        while (now.ns - load_anchor.ns < CLOCK_MIN_WINDOW)
            now = take_anchor();
        lf__clock.setup_wait_ns = (double)(lf__clock_ns() - t0);
        if (now.tsc <= load_anchor.tsc) {
            lf__clock.fallback = "the TSC did not advance";
            __atomic_store_n(&rate_final, 1, __ATOMIC_RELEASE);
            return;
        }
        store_rate((double)(now.ns - load_anchor.ns) / (double)(now.tsc - load_anchor.tsc));
        lf__clock.rate_source = "CLOCK_MONOTONIC, measured while loops run";
    }
    lf__clock.use_tsc = 1;
    lf__clock.source = "tsc (invariant)";
#endif
}

/* Replace a provisional rate by one measured over CLOCK_FINAL_WINDOW or
 * more, when that much time has passed since the anchor. */
static void clock_refine(void)
{
    struct anchor now = take_anchor();
    if (now.ns - load_anchor.ns < CLOCK_FINAL_WINDOW || now.tsc <= load_anchor.tsc)
        return;
    int expect = 0;
    if (__atomic_compare_exchange_n(&rate_final, &expect, 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        store_rate((double)(now.ns - load_anchor.ns) / (double)(now.tsc - load_anchor.tsc));
}

void lf__clock_init(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, clock_setup);
    if (!__atomic_load_n(&rate_final, __ATOMIC_ACQUIRE))
        clock_refine();
}

int lf__clock_rate_final(void)
{
    return __atomic_load_n(&rate_final, __ATOMIC_ACQUIRE);
}

void lf__clock_measure(void)
{
    lf__clock_init();
    enum { N = 2000 };
    uint64_t a = lf__ticks(), prev = a, step = UINT64_MAX;
    for (int i = 0; i < N; i++) {
        uint64_t t = lf__ticks();
        if (t > prev && t - prev < step)
            step = t - prev;
        prev = t;
    }
    lf__clock.tick_cost_ns = (double)lf__ticks_to_ns(prev - a) / N;
    lf__clock.resolution_ns = step == UINT64_MAX ? 0.0 : (double)step * lf__clock_ns_per_tick();
}
