/* bench/bench_scenario.c - the conditions a loop runs under.
 *
 * Background load is real: fork()ed children pinned to a core, spinning on
 * arithmetic (hog) or alternating spinning and sleeping (varying).  They die
 * with lf-bench however it ends: bench_scenario_stop at normal exit (atexit),
 * a handler for SIGINT/SIGTERM/SIGHUP, and PR_SET_PDEATHSIG should lf-bench
 * be killed outright.  Threads are pinned (thread t -> CPU t mod ncores) so
 * that a scenario means the same thing in every run.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* CPU_SET, pthread_setaffinity_np */
#endif
#include "bench.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const scenario_names[SCEN_COUNT] = {
    "dedicated", "hog", "biglittle", "varying", "oversub",
};

const char *bench_scenario_name(enum bench_scenario_id id)
{
    return (unsigned)id < SCEN_COUNT ? scenario_names[id] : "?";
}

int bench_scenario_lookup(const char *name)
{
    for (int s = 0; s < SCEN_COUNT; s++)
        if (strcmp(name, scenario_names[s]) == 0)
            return s;
    return -1;
}

void bench_scenario_probe(struct bench_scenario *sc)
{
    cpu_set_t set;
    sc->ncores = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE && sc->ncores < BENCH_MAX_THREADS; c++)
            if (CPU_ISSET(c, &set))
                sc->cpus[sc->ncores++] = c;
    }
    if (sc->ncores == 0) {
        sc->ncores = 1;
        sc->cpus[0] = 0;
    }
}

int bench_thread_factor(const struct bench_scenario *sc, int t, int nthreads)
{
    if (sc->id == SCEN_BIGLITTLE && t >= nthreads - sc->little)
        return sc->factor;
    return 1;
}

/* Nominal speed of thread t: its fair share of its core, given the other
 * workers and background processes there, over its cost factor. */
static double thread_speed(const struct bench_scenario *sc, int t, int nthreads)
{
    int core = t % sc->ncores, workers = 0, hogs = 0;
    for (int u = 0; u < nthreads; u++)
        workers += u % sc->ncores == core;
    if (sc->id == SCEN_HOG || sc->id == SCEN_VARYING)
        for (int h = 0; h < sc->nhogs; h++)
            hogs += sc->hog_core[h] == core;
    double share = 1.0 / workers;
    if (hogs) {
        double loaded = 1.0 / (workers + hogs);
        /* varying: loaded for a fraction duty of the time, free otherwise */
        share = sc->id == SCEN_VARYING ? sc->duty * loaded + (1.0 - sc->duty) * share : loaded;
    }
    return share / bench_thread_factor(sc, t, nthreads);
}

double bench_sum_speeds(const struct bench_scenario *sc, int nthreads)
{
    double sum = 0;
    for (int t = 0; t < nthreads; t++)
        sum += thread_speed(sc, t, nthreads);
    return sum;
}

/* ---- Child processes ---- */

struct kid {
    volatile pid_t pid;
    volatile int scenario; /* 1: a background process of the scenario */
};
static struct kid kids[BENCH_MAX_HOGS + 8];

static void kid_add(pid_t pid, int scenario)
{
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
        if (kids[i].pid == 0) {
            kids[i].scenario = scenario;
            kids[i].pid = pid;
            return;
        }
}

/* Kill and reap the children of the given kind (async-signal-safe).  A
 * background process gets SIGKILL; lf-bench-libomp gets SIGTERM first and a
 * second to reap its own background processes. */
static void kids_kill(int scenario_only)
{
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) {
        pid_t pid = kids[i].pid;
        if (pid <= 0 || (scenario_only && !kids[i].scenario))
            continue;
        kids[i].pid = 0;
        if (!kids[i].scenario) {
            struct timespec ms = {0, 1000000};
            kill(pid, SIGTERM);
            for (int w = 0; w < 1000; w++) {
                if (waitpid(pid, NULL, WNOHANG) == pid)
                    goto reaped;
                nanosleep(&ms, NULL);
            }
        }
        kill(pid, SIGKILL);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
    reaped:;
    }
}

void bench_child_register(int pid)
{
    kid_add(pid, 0);
}

void bench_child_unregister(int pid)
{
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++)
        if (kids[i].pid == pid)
            kids[i].pid = 0;
}

void bench_scenario_stop(void)
{
    kids_kill(1);
}

static void on_signal(int sig)
{
    kids_kill(0);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void on_exit_hook(void)
{
    kids_kill(0);
}

void bench_cleanup_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    atexit(on_exit_hook);
}

static double mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* The body of a background process: spin on cpu forever, or, with period_ns
 * > 0, spin for duty of each period and sleep for the rest. */
static volatile uint64_t hog_sink;

static void __attribute__((noreturn)) hog_main(int cpu, double period_ns, double duty)
{
    cpu_set_t set;
    uint64_t x = (uint64_t)getpid();
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
    prctl(PR_SET_NAME, period_ns > 0 ? "lf-bench-vary" : "lf-bench-hog", 0, 0, 0);
    for (;;) {
        if (period_ns <= 0) {
            for (int s = 0; s < 1000000; s++)
                x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL;
            hog_sink = x;
            continue;
        }
        double end = mono_ns() + duty * period_ns;
        while (mono_ns() < end) {
            for (int s = 0; s < 1000; s++)
                x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL;
            hog_sink = x;
        }
        double off = (1.0 - duty) * period_ns;
        struct timespec ts = {(time_t)(off / 1e9), (long)((long long)off % 1000000000LL)};
        if (off > 0)
            nanosleep(&ts, NULL);
    }
}

int bench_scenario_start(const struct bench_scenario *sc)
{
    if (sc->id != SCEN_HOG && sc->id != SCEN_VARYING)
        return 0;
    double period_ns = sc->id == SCEN_VARYING ? sc->period_ms * 1e6 : 0;
    pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    for (int h = 0; h < sc->nhogs; h++) {
        /* Signals stay blocked across fork until the child has dropped the
         * parent's handlers, so a ^C cannot run them in the child. */
        pthread_sigmask(SIG_BLOCK, &all, &old);
        pid_t pid = fork();
        if (pid == 0) {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            signal(SIGHUP, SIG_DFL);
            prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
            if (getppid() != parent) /* the parent died before prctl */
                _exit(0);
            pthread_sigmask(SIG_SETMASK, &old, NULL);
            hog_main(sc->cpus[sc->hog_core[h]], period_ns, sc->duty);
        }
        if (pid > 0)
            kid_add(pid, 1);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (pid < 0) {
            int e = errno;
            bench_scenario_stop();
            return -e;
        }
    }
    return 0;
}

static __thread int bound_cpu = -1;

void bench_bind_thread(const struct bench_scenario *sc, int t)
{
    int cpu = sc->cpus[t % sc->ncores];
    if (bound_cpu == cpu)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0)
        bound_cpu = cpu;
}
