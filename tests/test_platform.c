/* tests/test_platform.c - the platform layer: topology figures are
 * consistent, the calling thread is located, LF_BIND binds (and a bad value
 * is reported once), counters either work or fall back silently with a
 * reason, and availability tells a busy thread from a sleeping one.
 *
 * Process-wide state is initialised once, so the order of the tests
 * matters: the silent-fallback and bad-LF_BIND tests must run first. */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lfcu.h"
#include "platform/platform.h"

/* Run fn with stderr sent to a temporary file; return what it wrote. */
static size_t stderr_of(void (*fn)(void), char *buf, size_t len)
{
    FILE *tmp = tmpfile();
    CU_ASSERT_FATAL(tmp != NULL);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    fn();
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(buf, 1, len - 1, tmp);
    buf[n] = '\0';
    fclose(tmp);
    return n;
}

static void init_counters(void)
{
    (void)lf__counters_available();
    (void)lf__counters_status();
}

static void test_counters_init_is_silent(void)
{
    char out[512];
    CU_ASSERT_EQUAL(stderr_of(init_counters, out, sizeof out), 0);
    const char *st = lf__counters_status();
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT(st[0] != '\0');
    if (!lf__counters_available())
        CU_ASSERT(strstr(st, "fell back to CLOCK_THREAD_CPUTIME_ID") != NULL);
}

static void read_bind_twice(void)
{
    (void)lf__bind_mode();
    (void)lf__bind_mode();
}

static void test_bad_lf_bind_reported_once(void)
{
    /* In a child, so that the parent's LF_BIND is still unread. */
    int fd[2];
    CU_ASSERT_FATAL(pipe(fd) == 0);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        setenv("LF_BIND", "sideways", 1);
        dup2(fd[1], 2);
        read_bind_twice();
        _exit(lf__bind_mode() == LF__BIND_NONE ? 0 : 1);
    }
    close(fd[1]);
    char buf[1024];
    size_t n = 0;
    ssize_t k;
    while (n < sizeof buf - 1 && (k = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = '\0';
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT(strstr(buf, "sideways") && strstr(buf, "close") && strstr(buf, "spread") &&
              strstr(buf, "none"));
}

static void test_bind_parse(void)
{
    enum lf__bind_mode m;
    CU_ASSERT(lf__bind_parse(NULL, &m) == 0 && m == LF__BIND_NONE);
    CU_ASSERT(lf__bind_parse("", &m) == 0 && m == LF__BIND_NONE);
    CU_ASSERT(lf__bind_parse("none", &m) == 0 && m == LF__BIND_NONE);
    CU_ASSERT(lf__bind_parse("close", &m) == 0 && m == LF__BIND_CLOSE);
    CU_ASSERT(lf__bind_parse("spread", &m) == 0 && m == LF__BIND_SPREAD);
    CU_ASSERT(lf__bind_parse("closest", &m) == -EINVAL && m == LF__BIND_NONE);
    CU_ASSERT_STRING_EQUAL(lf__bind_mode_name(LF__BIND_SPREAD), "spread");
}

static void test_topology_is_consistent(void)
{
    const struct lf__topo_info *t = lf__topo();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT(t->ncores >= 1);
    CU_ASSERT(t->npus >= t->ncores);
    CU_ASSERT(t->nnuma >= 1);
    CU_ASSERT(t->smt >= 1 && t->smt <= t->npus);
    CU_ASSERT(t->nkinds >= 0);
    CU_ASSERT(t->source && t->source[0]);
#ifdef LF_HAVE_HWLOC
    CU_ASSERT(t->have_hwloc == 1 || strstr(t->source, "failed") != NULL);
#else
    CU_ASSERT(t->have_hwloc == 0 && strstr(t->source, "without hwloc") != NULL);
    CU_ASSERT(t->nnuma == 1 && t->nkinds == 0);
#endif
    CU_ASSERT(t == lf__topo()); /* loaded once */
    struct lf__kind_info k;
    for (int i = 0; i < t->nkinds; i++) {
        CU_ASSERT(lf__topo_kind(i, &k) == 0);
        CU_ASSERT(k.npus >= 1);
    }
    CU_ASSERT(lf__topo_kind(t->nkinds, &k) != 0);
}

static void test_where_self_is_in_range(void)
{
    const struct lf__topo_info *t = lf__topo();
    struct lf__where w;
    CU_ASSERT_EQUAL_FATAL(lf__where_self(&w), 0);
    CU_ASSERT(w.pu >= 0);
    CU_ASSERT(w.core >= 0);
    CU_ASSERT(w.smt >= 1 && w.smt <= t->smt);
    CU_ASSERT(w.numa >= 0 && w.numa < t->nnuma);
    if (t->nkinds == 0) {
        CU_ASSERT(w.kind == -1 && w.kind_rank == -1);
    } else {
        CU_ASSERT(w.kind >= 0 && w.kind < t->nkinds);
    }
    double bm = lf__perf_bm_self();
    CU_ASSERT(bm > 0.0 && bm <= 1.0);
    if (t->nkinds <= 1)
        CU_ASSERT_DOUBLE_EQUAL(bm, 1.0, 0.0);
}

static void test_bind_targets(void)
{
    const struct lf__topo_info *t = lf__topo();
    CU_ASSERT_EQUAL(lf__bind_target(LF__BIND_NONE, 0, 4), -1);
    /* close: consecutive threads on distinct PUs until the PUs run out, then wrap */
    for (int i = 0; i < t->npus; i++)
        for (int j = 0; j < i; j++)
            CU_ASSERT(lf__bind_target(LF__BIND_CLOSE, i, t->npus) !=
                      lf__bind_target(LF__BIND_CLOSE, j, t->npus));
    CU_ASSERT_EQUAL(lf__bind_target(LF__BIND_CLOSE, t->npus, 2 * t->npus),
                    lf__bind_target(LF__BIND_CLOSE, 0, 2 * t->npus));
    /* spread: with no more threads than cores, all on distinct PUs */
    for (int n = 1; n <= t->ncores; n++)
        for (int i = 0; i < n; i++) {
            CU_ASSERT(lf__bind_target(LF__BIND_SPREAD, i, n) >= 0);
            for (int j = 0; j < i; j++)
                CU_ASSERT(lf__bind_target(LF__BIND_SPREAD, i, n) !=
                          lf__bind_target(LF__BIND_SPREAD, j, n));
        }
}

static void *bind_thread(void *arg)
{
    int *res = arg;
    res[0] = lf__bind_self(1, 2);
    cpu_set_t set;
    CPU_ZERO(&set);
    res[1] = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
    res[2] = lf__bind_target(LF__BIND_CLOSE, 1, 2);
    res[3] = res[2] >= 0 && res[2] < CPU_SETSIZE ? CPU_ISSET(res[2], &set) : 0;
    sched_yield();
    res[4] = sched_getcpu();
    return NULL;
}

static void test_bind_close_binds_a_thread(void)
{
    setenv("LF_BIND", "close", 1); /* read once, here */
    CU_ASSERT_EQUAL_FATAL(lf__bind_mode(), LF__BIND_CLOSE);
    int res[5] = {0};
    pthread_t th;
    CU_ASSERT_FATAL(pthread_create(&th, NULL, bind_thread, res) == 0);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(res[0], 1);
    CU_ASSERT_EQUAL(res[1], 1);
    CU_ASSERT_EQUAL(res[3], 1);
    CU_ASSERT_EQUAL(res[4], res[2]);
}

static void *counters_thread(void *arg)
{
    int *res = arg;
    res[0] = lf__counters_available();
    res[1] = lf__counters_start();
    volatile double x = 1.0;
    for (int i = 0; i < 100000; i++)
        x = x * 1.0000001 + 1e-9;
    uint64_t cyc = 0, ins = 0;
    res[2] = lf__counters_read(&cyc, &ins);
    res[3] = cyc > 0 && ins > 0;
    res[4] = lf__counters_stop();
    return NULL;
}

static void test_counters_per_thread(void)
{
    enum { T = 4 };
    int res[T][5];
    pthread_t th[T];
    for (int i = 0; i < T; i++)
        CU_ASSERT_FATAL(pthread_create(&th[i], NULL, counters_thread, res[i]) == 0);
    for (int i = 0; i < T; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < T; i++) {
        CU_ASSERT_EQUAL(res[i][0], lf__counters_available());
        if (res[i][0]) {
            CU_ASSERT_EQUAL(res[i][1], 0);
            CU_ASSERT_EQUAL(res[i][2], 0);
            CU_ASSERT_EQUAL(res[i][3], 1);
            CU_ASSERT_EQUAL(res[i][4], 0);
        } else {
            CU_ASSERT_EQUAL(res[i][1], -ENOTSUP);
            CU_ASSERT_EQUAL(res[i][2], -ENOTSUP);
            CU_ASSERT_EQUAL(res[i][4], -ENOTSUP);
        }
    }
}

static void test_availability_busy_vs_sleeping(void)
{
    struct lf__avail a;
    /* busy until it has had 5 ms of CPU: its share depends on how crowded
     * the machine is, so only the relation to a sleeping thread is asserted */
    lf__avail_start(&a);
    uint64_t c0 = lf__thread_cpu_ns();
    volatile uint64_t x = 0;
    while (lf__thread_cpu_ns() - c0 < 5000000)
        x++;
    double busy = lf__avail_stop(&a);
    CU_ASSERT(busy > 0.0 && busy <= 1.0);
    /* asleep for 20 ms: next to no CPU */
    lf__avail_start(&a);
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL);
    double idle = lf__avail_stop(&a);
    CU_ASSERT(idle >= 0.0 && idle <= 1.0);
    CU_ASSERT(busy > idle);
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"counters_init_is_silent", test_counters_init_is_silent},
        {"bad_lf_bind_reported_once", test_bad_lf_bind_reported_once},
        {"bind_parse", test_bind_parse},
        {"topology_is_consistent", test_topology_is_consistent},
        {"where_self_is_in_range", test_where_self_is_in_range},
        {"bind_targets", test_bind_targets},
        {"bind_close_binds_a_thread", test_bind_close_binds_a_thread},
        {"counters_per_thread", test_counters_per_thread},
        {"availability_busy_vs_sleeping", test_availability_busy_vs_sleeping},
        {0},
    };
    return lfcu_run("platform", tests);
}
