/* tests/test_sim_push.c - lf-sim's push protocol (lib/sim/push.c): every
 * iteration exactly once under every schedule and option, one send port,
 * strict round-robin turns, at most `inflight` messages per worker, result
 * returns through one receive port, start-up delays, and seed 001's AS4DR
 * against its Baseline on a scaled-down Table I. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lfcu.h"
#include "sim/sim.h"
#include "simlog.h"

/* Costs of the runs below: exponential (a stress) unless a test asks for
 * seed 001's unit costs. */
static int cost_kind = LF__SIM_COST_EXP;

static int run_push(const struct lf__sim_platform *pf, const char *spec, uint64_t n,
                    const struct lf__sim_opts *base, struct log *lg, struct lf__sim_result *res)
{
    struct lf__sched s;
    char err[512];
    if (lf__sched_parse(spec, &s, err, sizeof err) != 0) {
        fprintf(stderr, "\n  %s: %s\n", spec, err);
        return -1;
    }
    struct lf__sim_workload wl = {.tasks = n, .kind = cost_kind, .seed = 5};
    if (lf__sim_workload_init(&wl) != 0)
        return -1;
    struct lf__sim_opts o = *base;
    o.protocol = LF__SIM_PUSH;
    o.on_chunk = lg ? log_chunk : NULL;
    o.ctx = lg;
    int rc = lf__sim_run(pf, &s, &wl, &o, res, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", spec, err);
    lf__sim_workload_free(&wl);
    return rc;
}

static void platform(struct lf__sim_platform *pf, const char *list, int n, double stage_lat,
                     double bandwidth)
{
    char err[256];
    CU_ASSERT_FATAL(lf__sim_platform_speeds(pf, list, n, err, sizeof err) == 0);
    pf->bytes_per_iter = 1;
    for (int i = 0; i < pf->nworkers; i++) {
        pf->w[i].stage_lat = stage_lat;
        pf->w[i].bandwidth = bandwidth;
        pf->w[i].latency = 0.01;
    }
}

static int by_order(const void *a, const void *b)
{
    const struct lf__sim_chunk *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* The option sets the push tests sweep. */
static const struct lf__sim_opts variants[] = {
    {.results = -1},
    {.results = -1, .inflight = 1},
    {.results = -1, .inflight = 3, .order = LF__SIM_FIRST_READY},
    {.results = 0.5, .split = 0.5},
    {.results = 2, .split = 0.3, .order = LF__SIM_FIRST_READY},
    {.results = -1, .split = 0.5, .inflight = 1},
};
#define NVAR (sizeof variants / sizeof *variants)

static void test_every_iteration_exactly_once(void)
{
    static const uint64_t ns[] = {0, 1, 97, 5003};
    for (const struct lf__policy *const *p = lf__policies; *p; p++)
        for (int paper = 0; paper < 2; paper++)
            for (size_t v = 0; v < NVAR; v++)
                for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
                    char spec[64];
                    if (paper && !((*p)->flags & LF__P_CALIB))
                        continue;
                    snprintf(spec, sizeof spec, "%s%s", (*p)->name, paper ? ",cal=paper" : "");
                    struct lf__sim_platform pf;
                    platform(&pf, "1,0.3,2.5", 7, 0.05, 50);
                    struct log lg = {0};
                    struct lf__sim_result r;
                    uint64_t n = ns[j];
                    int rc = run_push(&pf, spec, n, &variants[v], &lg, &r);
                    CU_ASSERT(rc == 0);
                    if (rc == 0) {
                        unsigned char *seen = calloc(n + 1, 1);
                        uint64_t sum = 0, dup = 0;
                        for (size_t c = 0; c < lg.n; c++) {
                            sum += lg.c[c].size;
                            for (uint64_t it = lg.c[c].lo; it < lg.c[c].lo + lg.c[c].size && it < n;
                                 it++)
                                dup += seen[it]++ != 0;
                        }
                        CU_ASSERT_EQUAL(sum, n);
                        CU_ASSERT_EQUAL(dup, 0);
                        CU_ASSERT_EQUAL(r.chunks, lg.n);
                        if (sum != n || dup)
                            fprintf(stderr, "  %s variant %zu n=%llu: sum %llu dup %llu\n",
                                    (*p)->name, v, (unsigned long long)n, (unsigned long long)sum,
                                    (unsigned long long)dup);
                        free(seen);
                        lf__sim_result_free(&r);
                    }
                    free(lg.c);
                    lf__sim_platform_free(&pf);
                }
}

/* Whole chunks, no claim cost: a chunk's send occupies the port from when
 * it was sent to when it arrived, and those intervals never overlap. */
static void test_one_send_port(void)
{
    static const char *specs[] = {"fac2", "dynamic,13", "as4dr,tau=2"};
    for (size_t k = 0; k < 3; k++)
        for (size_t v = 0; v < NVAR; v++) {
            if (variants[v].split > 0)
                continue;
            struct lf__sim_platform pf;
            platform(&pf, "1,0.5", 6, 0.2, 20);
            struct log lg = {0};
            struct lf__sim_result r;
            CU_ASSERT_FATAL(run_push(&pf, specs[k], 3000, &variants[v], &lg, &r) == 0);
            qsort(lg.c, lg.n, sizeof *lg.c, by_order);
            for (size_t c = 1; c < lg.n; c++)
                CU_ASSERT(lg.c[c].start >= lg.c[c - 1].stage_end - 1e-9);
            double sends = 0;
            for (size_t c = 0; c < lg.n; c++)
                sends += lg.c[c].stage_end - lg.c[c].start;
            CU_ASSERT(fabs(sends - r.send_busy) < 1e-6 * (1 + sends));
            free(lg.c);
            lf__sim_result_free(&r);
            lf__sim_platform_free(&pf);
        }
}

/* Round-robin with equal chunks: the master serves 0, 1, ..., P-1, 0, ...
 * even though the fast workers could take more: they wait for their turn,
 * so a platform of speeds 1 and 1/4 runs at the slow workers' pace. */
static void test_round_robin_turns(void)
{
    struct lf__sim_platform pf;
    platform(&pf, "1,0.25", 4, 0, 0);
    struct lf__sim_opts rr = {.results = -1}, fr = {.results = -1, .order = LF__SIM_FIRST_READY};
    struct log lg = {0};
    struct lf__sim_result a, b;
    CU_ASSERT_FATAL(run_push(&pf, "dynamic,10", 4000, &rr, &lg, &a) == 0);
    qsort(lg.c, lg.n, sizeof *lg.c, by_order);
    size_t wrong = 0;
    for (size_t c = 0; c < lg.n; c++)
        wrong += lg.c[c].worker != (int)(c % 4);
    CU_ASSERT_EQUAL(wrong, 0);
    for (int i = 0; i < 4; i++)
        CU_ASSERT_EQUAL(a.w[i].iters, 1000); /* equal turns, equal shares */
    CU_ASSERT_FATAL(run_push(&pf, "dynamic,10", 4000, &fr, NULL, &b) == 0);
    CU_ASSERT(b.makespan < 0.6 * a.makespan); /* first-ready lets the fast ones take more */
    free(lg.c);
    lf__sim_result_free(&a);
    lf__sim_result_free(&b);
    lf__sim_platform_free(&pf);
}

/* Without result messages the master hears of a chunk when it is computed,
 * so chunk k of a worker is sent no earlier than chunk k - inflight ended;
 * with inflight 2 the next chunk travels during the compute, and on a
 * homogeneous platform whose sends are shorter than the computes that
 * hides the staging that pull pays. */
static void test_inflight_bounds_and_overlaps(void)
{
    cost_kind = LF__SIM_COST_CONST;
    for (int N = 1; N <= 3; N++) {
        struct lf__sim_platform pf;
        platform(&pf, "1", 4, 0.5, 10);
        struct lf__sim_opts o = {.results = -1, .inflight = N};
        struct log lg = {0};
        struct lf__sim_result r;
        CU_ASSERT_FATAL(run_push(&pf, "dynamic,20", 4000, &o, &lg, &r) == 0);
        for (int w = 0; w < 4; w++) {
            double ends[4096];
            size_t m = 0;
            qsort(lg.c, lg.n, sizeof *lg.c, by_order);
            for (size_t c = 0; c < lg.n; c++) {
                if (lg.c[c].worker != w)
                    continue;
                if (m >= (size_t)N)
                    CU_ASSERT(lg.c[c].start >= ends[m - (size_t)N] - 1e-9);
                if (m < 4096)
                    ends[m++] = lg.c[c].end;
            }
        }
        if (N == 1)
            CU_ASSERT(r.efficiency < 0.92); /* every chunk waits for its send */
        if (N >= 2)
            CU_ASSERT(r.efficiency > 0.97);
        free(lg.c);
        lf__sim_result_free(&r);
        lf__sim_platform_free(&pf);
    }
    cost_kind = LF__SIM_COST_EXP;
}

/* Results: the receive port serves one result at a time, each taking
 * stage_lat + results * bytes / bandwidth, and the run ends when the last
 * result is in. */
static void test_results_return_through_one_port(void)
{
    struct lf__sim_platform pf;
    platform(&pf, "1,0.5,0.25", 3, 0.1, 10);
    struct lf__sim_opts o = {.results = 2};
    struct log lg = {0};
    struct lf__sim_result r;
    CU_ASSERT_FATAL(run_push(&pf, "fac2", 2000, &o, &lg, &r) == 0);
    double want = 0, last = 0;
    for (size_t c = 0; c < lg.n; c++) {
        want += 0.1 + 2.0 * (double)lg.c[c].size / 10.0;
        last = lg.c[c].end > last ? lg.c[c].end : last;
    }
    CU_ASSERT(fabs(r.recv_busy - want) < 1e-6 * want);
    CU_ASSERT(r.makespan >= last + 0.1);
    struct lf__sim_opts none = {.results = -1};
    struct lf__sim_result q;
    CU_ASSERT_FATAL(run_push(&pf, "fac2", 2000, &none, NULL, &q) == 0);
    CU_ASSERT_EQUAL(q.recv_busy, 0);
    CU_ASSERT(q.makespan < r.makespan);
    free(lg.c);
    lf__sim_result_free(&r);
    lf__sim_result_free(&q);
    lf__sim_platform_free(&pf);
}

/* Start-up delays: no chunk reaches worker i before it joins, under both
 * protocols. */
static void test_start_delays(void)
{
    for (int proto = 0; proto < 2; proto++) {
        struct lf__sim_platform pf;
        platform(&pf, "1,2", 5, 0.01, 100);
        for (int i = 0; i < 5; i++)
            pf.w[i].start = 3.0 * i;
        struct lf__sim_opts o = {.results = -1};
        struct lf__sched s;
        char err[256];
        CU_ASSERT_FATAL(lf__sched_parse("fac2", &s, err, sizeof err) == 0);
        struct lf__sim_workload wl = {.tasks = 3000};
        CU_ASSERT_FATAL(lf__sim_workload_init(&wl) == 0);
        struct log lg = {0};
        o.protocol = proto;
        o.on_chunk = log_chunk;
        o.ctx = &lg;
        struct lf__sim_result r;
        CU_ASSERT_FATAL(lf__sim_run(&pf, &s, &wl, &o, &r, err, sizeof err) == 0);
        for (size_t c = 0; c < lg.n; c++)
            CU_ASSERT(lg.c[c].start >= 3.0 * lg.c[c].worker);
        free(lg.c);
        lf__sim_result_free(&r);
        lf__sim_workload_free(&wl);
        lf__sim_platform_free(&pf);
    }
}

/* Seed 001 Table I scaled to 100 workers (10 per set), tau = 3 s, about 300
 * simulated seconds, sub-chunks and results: with exact estimates AS4DR
 * keeps the CPUs busy (window efficiency >= 99.9 %), and at iota = 0.9 it
 * is about twice as efficient as the Baseline, whose short-chunk workers
 * wait for their round-robin turn (the paper: 2.13). */
static void test_as4dr_against_baseline(void)
{
    static const double table[10][3] = {{1.0e4, 1.0e-4, 1.0e8}, {0.9e4, 1.5e-4, 0.9e8},
                                        {0.8e4, 1.4e-4, 0.8e8}, {0.7e4, 1.3e-4, 0.7e8},
                                        {0.6e4, 1.2e-4, 0.6e8}, {0.5e4, 0.8e-4, 0.5e8},
                                        {0.4e4, 0.9e-4, 0.4e8}, {0.3e4, 0.8e-4, 0.3e8},
                                        {0.2e4, 0.4e-4, 0.2e8}, {0.1e4, 0.5e-4, 0.1e8}};
    struct lf__sim_platform pf;
    platform(&pf, "1", 100, 1e-4, 1);
    for (int i = 0; i < 100; i++) {
        pf.w[i].speed = table[i / 10][0];
        pf.w[i].latency = table[i / 10][1];
        pf.w[i].bandwidth = table[i / 10][2];
    }
    struct lf__sim_opts o = {.results = 1, .split = 0.5, .win_start = 20, .win_end = 280};
    struct lf__sim_result a0, a9, b9;
    uint64_t n = (uint64_t)(5.5e4 * 10 * 300);
    cost_kind = LF__SIM_COST_CONST;
    CU_ASSERT_FATAL(run_push(&pf, "as4dr,tau=3", n, &o, NULL, &a0) == 0);
    CU_ASSERT_FATAL(run_push(&pf, "as4dr,tau=3,iota=0.9", n, &o, NULL, &a9) == 0);
    CU_ASSERT_FATAL(run_push(&pf, "as4dr,tau=3,iota=0.9,adapt=off", n, &o, NULL, &b9) == 0);
    CU_ASSERT(a0.window_eff >= 0.999);
    CU_ASSERT(a9.window_eff >= 0.999);
    double ratio = a9.window_eff / b9.window_eff;
    CU_ASSERT(ratio > 1.6 && ratio < 2.6);
    if (!(ratio > 1.6 && ratio < 2.6) || a0.window_eff < 0.999)
        fprintf(stderr, "  iota=0 %.6f, iota=0.9 %.6f / %.6f = %.3f\n", a0.window_eff,
                a9.window_eff, b9.window_eff, ratio);
    cost_kind = LF__SIM_COST_EXP;
    lf__sim_result_free(&a0);
    lf__sim_result_free(&a9);
    lf__sim_result_free(&b9);
    lf__sim_platform_free(&pf);
}

/* Bad combinations are refused with a message. */
static void test_bad_options_refused(void)
{
    struct lf__sim_platform pf;
    platform(&pf, "1", 4, 0, 0);
    struct lf__sim_opts bad[] = {{.results = -1, .inflight = 65},
                                 {.results = -1, .split = 1.0},
                                 {.results = -1, .split = -0.5},
                                 {.results = -1, .order = 7}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        struct lf__sched s;
        char err[256] = "";
        CU_ASSERT_FATAL(lf__sched_parse("fac2", &s, err, sizeof err) == 0);
        struct lf__sim_workload wl = {.tasks = 100};
        CU_ASSERT_FATAL(lf__sim_workload_init(&wl) == 0);
        struct lf__sim_result r;
        bad[k].protocol = LF__SIM_PUSH;
        CU_ASSERT(lf__sim_run(&pf, &s, &wl, &bad[k], &r, err, sizeof err) == -EINVAL);
        CU_ASSERT(strstr(err, "inflight") != NULL);
        lf__sim_workload_free(&wl);
    }
    lf__sim_platform_free(&pf);
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"push: every iteration exactly once", test_every_iteration_exactly_once},
        {"push: one send port", test_one_send_port},
        {"push: strict round-robin turns", test_round_robin_turns},
        {"push: inflight bounds and overlaps", test_inflight_bounds_and_overlaps},
        {"push: results return through one port", test_results_return_through_one_port},
        {"push and pull: start-up delays", test_start_delays},
        {"push: as4dr against its Baseline (seed 001)", test_as4dr_against_baseline},
        {"push: bad options refused", test_bad_options_refused},
        {0, 0},
    };
    return lfcu_run("sim_push", tests);
}
