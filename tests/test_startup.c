/* tests/test_startup.c - a process's first loop does not pay for what it
 * does not use: a `dynamic` loop loads no topology and probes no counters,
 * and the clock's rate is stated by the processor or kernel, or measured
 * in a window of at most CLOCK_MIN_WINDOW (not a 20 ms spin) and made final
 * later while loops run; a calibrating schedule does load the topology
 * before its loop (it reads bm_i).  Runs in a fresh process: no test
 * framework, exit 0 pass, 1 fail. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "loopfarm.h"
#include "platform/platform.h"

static int failures;
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "test_startup: %s:%d: %s\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

struct member {
    lf_loop *loop;
    int tid;
    long n;
    unsigned long iters;
};

static void *member(void *p)
{
    struct member *m = p;
    long first;
    unsigned long cnt;
    if (lf_loop_begin(m->loop, m->tid, 0, m->n, 1) != 0)
        return NULL;
    while (lf_loop_next(m->loop, m->tid, &first, &cnt))
        m->iters += cnt;
    lf_loop_end(m->loop, m->tid);
    return NULL;
}

/* Make a loop under spec and run n iterations on two threads; 1 when every
 * iteration ran. */
static int run(const char *spec, long n)
{
    lf_schedule *s = NULL;
    lf_loop *l = NULL;
    if (lf_schedule_parse(spec, &s, NULL, 0) != 0 || lf_loop_create(&l, 2, s, spec) != 0)
        return 0;
    pthread_t th[2];
    struct member m[2] = {{l, 0, n, 0}, {l, 1, n, 0}};
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, member, &m[t]);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    lf_loop_destroy(l);
    lf_schedule_free(s);
    return m[0].iters + m[1].iters == (unsigned long)n;
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
    if (lf__clock.use_tsc) {
        /* Stated rates are final at once; a measured one waited for at
         * most the short window (0.2 ms), never a 20 ms calibration. */
        CHECK(lf__clock.rate_source && lf__clock.rate_source[0]);
        CHECK(lf__clock.setup_wait_ns <= 1e6);
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
    /* A calibrating schedule reads bm_i: the topology is loaded for it. */
    CHECK(run("af", 20000));
    CHECK(lf__topo_loaded());
    CHECK(!lf__counters_probed());
    return failures ? 1 : 0;
}
