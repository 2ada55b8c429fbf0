/* tests/test_sim.c - lf-sim's engine: reproducible, conserving, faithful to
 * its platform model, and able to replay seed 000's worked example. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lfcu.h"
#include "sim_core.h"
#include "simlog.h"


/* Run spec on pf over wl, logging chunks into lg (may be NULL); 0 or -errno. */
static int run(const struct lf__sim_platform *pf, const char *spec, struct lf__sim_workload *wl,
               struct log *lg, struct lf__sim_result *res)
{
    struct lf__sched s;
    char err[512];
    if (lf__sched_parse(spec, &s, err, sizeof err) != 0) {
        fprintf(stderr, "\n  %s: %s\n", spec, err);
        return -1;
    }
    if (lf__sim_workload_init(wl) != 0)
        return -1;
    struct lf__sim_opts o = {.on_chunk = lg ? log_chunk : NULL, .ctx = lg};
    int rc = lf__sim_run(pf, &s, wl, &o, res, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", spec, err);
    lf__sim_workload_free(wl);
    return rc;
}

static void speeds(struct lf__sim_platform *pf, const char *list, int n)
{
    char err[256];
    CU_ASSERT_FATAL(lf__sim_platform_speeds(pf, list, n, err, sizeof err) == 0);
}

static void test_same_seed_same_schedule(void)
{
    struct lf__sim_platform pf;
    speeds(&pf, "1,0.5,2,0.75,1/3", 13);
    static const char *specs[] = {"fac2", "af", "multi", "guided", "dynamic,3"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        struct log a = {0}, b = {0};
        struct lf__sim_result ra, rb;
        struct lf__sim_workload wa = {
            .tasks = 20000, .kind = LF__SIM_COST_LOGNORMAL, .a = 1.0, .seed = 7};
        struct lf__sim_workload wb = wa;
        CU_ASSERT_FATAL(run(&pf, specs[k], &wa, &a, &ra) == 0);
        CU_ASSERT_FATAL(run(&pf, specs[k], &wb, &b, &rb) == 0);
        CU_ASSERT_EQUAL(a.n, b.n);
        CU_ASSERT(a.n == b.n && memcmp(a.c, b.c, a.n * sizeof *a.c) == 0);
        CU_ASSERT_EQUAL(ra.makespan, rb.makespan);
        /* A different seed draws different costs. */
        struct lf__sim_workload wc = wa;
        struct lf__sim_result rc;
        wc.seed = 8;
        CU_ASSERT_FATAL(run(&pf, specs[k], &wc, NULL, &rc) == 0);
        CU_ASSERT(rc.total_work != ra.total_work);
        lf__sim_result_free(&ra);
        lf__sim_result_free(&rb);
        lf__sim_result_free(&rc);
        free(a.c);
        free(b.c);
    }
    lf__sim_platform_free(&pf);
}

/* Every registered schedule, in both calibration modes where it has one, on
 * a few team sizes and trip counts: each iteration handed out exactly once. */
static void test_every_iteration_exactly_once(void)
{
    static const uint64_t ns[] = {0, 1, 3, 97, 10007};
    static const int ps[] = {1, 4, 33};
    for (const struct lf__policy *const *p = lf__policies; *p; p++) {
        for (int mode = 0; mode < 2; mode++) {
            char spec[64];
            if (mode == 1 && !((*p)->flags & LF__P_CALIB))
                continue;
            snprintf(spec, sizeof spec, "%s%s", (*p)->name, mode ? ",cal=paper" : "");
            for (size_t i = 0; i < sizeof ps / sizeof *ps; i++) {
                struct lf__sim_platform pf;
                speeds(&pf, "1,0.3,2.5", ps[i]);
                for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
                    uint64_t n = ns[j];
                    struct log lg = {0};
                    struct lf__sim_result r;
                    struct lf__sim_workload wl = {.tasks = n, .kind = LF__SIM_COST_EXP, .seed = 3};
                    int rc = run(&pf, spec, &wl, &lg, &r);
                    CU_ASSERT(rc == 0);
                    if (rc) {
                        fprintf(stderr, "  (%s, P=%d, n=%llu)\n", spec, ps[i],
                                (unsigned long long)n);
                        continue;
                    }
                    unsigned char *seen = calloc(n + 1, 1);
                    uint64_t sum = 0, dup = 0, out = 0;
                    for (size_t c = 0; c < lg.n; c++) {
                        const struct lf__sim_chunk *ch = &lg.c[c];
                        sum += ch->size;
                        if (ch->size == 0 || ch->lo + ch->size > n || ch->end < ch->start) {
                            out++;
                            continue;
                        }
                        for (uint64_t it = ch->lo; it < ch->lo + ch->size; it++)
                            dup += seen[it]++ != 0;
                    }
                    CU_ASSERT_EQUAL(sum, n);
                    CU_ASSERT_EQUAL(dup, 0);
                    CU_ASSERT_EQUAL(out, 0);
                    CU_ASSERT_EQUAL(r.chunks, lg.n);
                    if (sum != n || dup || out)
                        fprintf(stderr, "  %s P=%d n=%llu: sum %llu dup %llu out %llu\n", spec,
                                ps[i], (unsigned long long)n, (unsigned long long)sum,
                                (unsigned long long)dup, (unsigned long long)out);
                    free(seen);
                    free(lg.c);
                    lf__sim_result_free(&r);
                }
                lf__sim_platform_free(&pf);
            }
        }
    }
}

/* The chunks of one worker never overlap in time, and seq counts them. */
static void test_worker_timeline_is_sequential(void)
{
    struct lf__sim_platform pf;
    speeds(&pf, "1,0.5,0.25", 6);
    pf.staging = LF__SIM_STAGE_ONEPORT;
    pf.bytes_per_iter = 8;
    for (int i = 0; i < pf.nworkers; i++)
        pf.w[i].stage_lat = 0.01, pf.w[i].bandwidth = 800, pf.w[i].latency = 0.02;
    struct log lg = {0};
    struct lf__sim_result r;
    struct lf__sim_workload wl = {
        .tasks = 5000, .kind = LF__SIM_COST_UNIFORM, .a = 0.5, .b = 1.5, .seed = 11};
    CU_ASSERT_FATAL(run(&pf, "guided", &wl, &lg, &r) == 0);
    double last_end[6] = {0};
    uint64_t next_seq[6] = {0};
    int ok = 1;
    for (size_t c = 0; c < lg.n; c++) {
        const struct lf__sim_chunk *ch = &lg.c[c];
        ok &= ch->start >= last_end[ch->worker] - 1e-12 && ch->seq == next_seq[ch->worker];
        last_end[ch->worker] = ch->end;
        next_seq[ch->worker]++;
        /* Compute lasts at least latency + work / speed after staging. */
        ok &= ch->end - ch->stage_end >=
              0.02 + 0.5 * (double)ch->size / pf.w[ch->worker].speed - 1e-9;
    }
    CU_ASSERT(ok);
    free(lg.c);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&pf);
}

static void test_dynamic_on_equal_speeds_is_efficient(void)
{
    struct lf__sim_platform pf;
    speeds(&pf, "2", 16);
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 200000};
    CU_ASSERT_FATAL(run(&pf, "dynamic,10", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.ideal, 200000.0 / 32.0, 1e-9);
    CU_ASSERT(r.efficiency > 0.999 && r.efficiency <= 1.0 + 1e-12);
    for (int i = 0; i < 16; i++)
        CU_ASSERT(r.w[i].busy / r.makespan > 0.999);
    lf__sim_result_free(&r);
    /* Random costs too, with many more iterations than workers. */
    struct lf__sim_workload w2 = {
        .tasks = 200000, .kind = LF__SIM_COST_LOGNORMAL, .a = 0.8, .seed = 5};
    CU_ASSERT_FATAL(run(&pf, "dynamic,4", &w2, NULL, &r) == 0);
    CU_ASSERT(r.efficiency > 0.995);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&pf);
}

/* seed 003 §3.2: with one port, stagings queue at the master. */
static void test_one_port_serialises_staging(void)
{
    struct lf__sim_platform pf;
    speeds(&pf, "1000", 4);
    for (int i = 0; i < 4; i++)
        pf.w[i].stage_lat = 1.0;
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 8};
    CU_ASSERT_FATAL(run(&pf, "dynamic,1", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan, 2.0 + 2e-3, 1e-9); /* two stagings per worker */
    lf__sim_result_free(&r);
    pf.staging = LF__SIM_STAGE_ONEPORT;
    CU_ASSERT_FATAL(run(&pf, "dynamic,1", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan, 8.0 + 1e-3, 1e-9); /* eight stagings in a row */
    lf__sim_result_free(&r);
    /* Bandwidth: 100 bytes per iteration at 1000 bytes/s. */
    pf.staging = LF__SIM_STAGE_FREE;
    pf.bytes_per_iter = 100;
    for (int i = 0; i < 4; i++)
        pf.w[i].stage_lat = 0, pf.w[i].bandwidth = 1000, pf.w[i].latency = 0.5;
    CU_ASSERT_FATAL(run(&pf, "static", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan, 0.2 + 0.5 + 2e-3, 1e-9);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&pf);
}

static void test_speed_profile_slows_a_worker(void)
{
    struct lf__sim_platform pf;
    char err[256];
    speeds(&pf, "1", 1);
    CU_ASSERT_FATAL(lf__sim_profile_parse(&pf.w[0], "10:0.5,40:0,50:2", err, sizeof err) == 0);
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 20};
    CU_ASSERT_FATAL(run(&pf, "static", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan, 10.0 + 10.0 / 0.5, 1e-9);
    lf__sim_result_free(&r);
    /* 10 in [0,10), 15 in [10,40), stalled in [40,50), then 5 at speed 2. */
    wl.tasks = 30;
    CU_ASSERT_FATAL(run(&pf, "static", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan, 52.5, 1e-9);
    lf__sim_result_free(&r);
    CU_ASSERT(lf__sim_profile_parse(&pf.w[0], "0:1,5:0", err, sizeof err) != 0);
    CU_ASSERT(lf__sim_profile_parse(&pf.w[0], "5:1,5:2", err, sizeof err) != 0);
    CU_ASSERT(lf__sim_profile_parse(&pf.w[0], "x", err, sizeof err) != 0);
    lf__sim_platform_free(&pf);
}

static void test_platform_file_is_read_and_checked(void)
{
    static const char good[] = "# a test platform\n"
                               "staging oneport\n"
                               "bytes_per_iter = 64\n"
                               "worker speed=1e6 latency=2e-6 stage_lat=1e-6 bandwidth=1e9\n"
                               "  speed=1/3 profile=0:1,0.5:0.25 count=3   # slow ones\n";
    struct lf__sim_platform pf;
    char err[512];
    FILE *f = fmemopen((void *)good, sizeof good - 1, "r");
    CU_ASSERT_FATAL(lf__sim_platform_read(&pf, f, "good", err, sizeof err) == 0);
    fclose(f);
    CU_ASSERT_EQUAL(pf.nworkers, 4);
    CU_ASSERT_EQUAL(pf.staging, LF__SIM_STAGE_ONEPORT);
    CU_ASSERT_DOUBLE_EQUAL(pf.bytes_per_iter, 64, 0);
    CU_ASSERT_DOUBLE_EQUAL(pf.w[0].speed, 1e6, 0);
    CU_ASSERT_DOUBLE_EQUAL(pf.w[0].bandwidth, 1e9, 0);
    CU_ASSERT_DOUBLE_EQUAL(pf.w[3].speed, 1.0 / 3.0, 1e-15);
    CU_ASSERT_EQUAL(pf.w[3].nseg, 2);
    CU_ASSERT(pf.w[3].prof != pf.w[2].prof);
    lf__sim_platform_free(&pf);

    static const char *bad[] = {"speed=0\n",
                                "speed=1 colour=red\n",
                                "\n# nothing\n",
                                "speed=1\nstaging sometimes\n",
                                "speed=1 latency=-1\n",
                                "speed=1 count=2.5\n",
                                "speed=1 profile=1:2,0:1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        f = fmemopen((void *)bad[i], strlen(bad[i]), "r");
        err[0] = '\0';
        CU_ASSERT(lf__sim_platform_read(&pf, f, "bad", err, sizeof err) == -EINVAL);
        CU_ASSERT(strncmp(err, "bad", 3) == 0);
        fclose(f);
    }
}

/* cal=auto: calibration chunks double until one lasts calns; the team
 * calibrates once, and nobody idles meanwhile. */
static void test_auto_calibration_grows_chunks(void)
{
    struct lf__sim_platform pf;
    speeds(&pf, "1e6,1e5", 2); /* 1 us and 10 us per iteration */
    struct log lg = {0};
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 100000};
    if (!lf__policy_find("multi")) {
        fprintf(stderr, "  (skipped: no multi policy)\n");
        return;
    }
    CU_ASSERT_FATAL(run(&pf, "multi,calns=64000", &wl, &lg, &r) == 0);
    /* Worker 0: 1, 2, 4, ..., 64 iterations (64 us >= 64000 ns); worker 1:
     * 1, 2, 4, 8 (80 us).  Worker 1 reports last, at 150 us. */
    uint64_t expect0[] = {1, 2, 4, 8, 16, 32, 64}, expect1[] = {1, 2, 4, 8};
    size_t k0 = 0, k1 = 0;
    for (size_t c = 0; c < lg.n; c++) {
        const struct lf__sim_chunk *ch = &lg.c[c];
        if (ch->worker == 0 && k0 < 7)
            CU_ASSERT_EQUAL(ch->size, expect0[k0++]);
        if (ch->worker == 1 && k1 < 4)
            CU_ASSERT_EQUAL(ch->size, expect1[k1++]);
    }
    CU_ASSERT_DOUBLE_EQUAL(r.calib_end, 150e-6, 1e-12);
    /* Worker 0 kept taking 64-iteration chunks from 127 us until 150 us. */
    CU_ASSERT(lg.c[0].worker == 0);
    CU_ASSERT(r.efficiency > 0.95);
    free(lg.c);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&pf);
}

/* seed 000 §3.2.2, Table 1: speeds 1, 1/2, 1/3, 1/4, S = 68, k = 2. */
static void test_seed000_table1(void)
{
    if (!lf__policy_find("multi")) {
        fprintf(stderr, "  (skipped: the multi policy is not registered)\n");
        return;
    }
    struct lf__sim_platform pf;
    speeds(&pf, "1,0.5,0.3333333,0.25", 0);
    struct log lg = {0};
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 68};
    CU_ASSERT_FATAL(run(&pf, "multi,k=2,cal=paper,min=1", &wl, &lg, &r) == 0);
    uint64_t rows[4][12] = {{0}}; /* per worker: calibration, then installments */
    for (size_t c = 0; c < lg.n; c++) {
        CU_ASSERT_FATAL(lg.c[c].seq < 12);
        rows[lg.c[c].worker][lg.c[c].seq] = lg.c[c].size;
    }
    /* Table 1, column by column (0 ends a worker's sequence). */
    static const uint64_t table1[4][10] = {{1, 15, 8, 3, 2, 1, 1, 1, 1, 0},
                                           {1, 8, 3, 2, 1, 1, 0},
                                           {1, 5, 2, 1, 1, 1, 0},
                                           {1, 4, 1, 1, 1, 0}};
    for (int w = 0; w < 4; w++)
        for (int k = 0; k < 10; k++) {
            CU_ASSERT_EQUAL(rows[w][k], table1[w][k]);
            if (!table1[w][k])
                break;
        }
    CU_ASSERT_EQUAL(r.calib_chunks, 4);
    CU_ASSERT_DOUBLE_EQUAL(r.calib_end, 4.0, 1e-9);
    /* The paper's makespan: 32 time units after the round starts. */
    CU_ASSERT_DOUBLE_EQUAL(r.makespan - r.calib_end, 32.0, 1e-5);
    free(lg.c);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&pf);
}

/* Speeds 1, 1/2, 1/4, 2 repeated: non-adaptive schedules lose to the slow
 * quarter (guided's first chunks take 4x as long there), adaptive ones do not. */
static void test_thousand_workers_scale(void)
{
    struct lf__sim_platform pf;
    speeds(&pf, "1,0.5,0.25,2", 1000);
    static const struct {
        const char *spec;
        double lo, hi;
    } runs[] = {
        {"fac2", 0.45, 0.6}, {"guided", 0.2, 0.3}, {"dynamic,1000", 0.24, 0.28}, {"af", 0.99, 1.0}};
    for (size_t k = 0; k < sizeof runs / sizeof *runs; k++) {
        struct lf__sim_result r;
        struct lf__sim_workload wl = {
            .tasks = 1000000, .kind = LF__SIM_COST_LOGNORMAL, .a = 0.5, .seed = 1};
        CU_ASSERT_FATAL(run(&pf, runs[k].spec, &wl, NULL, &r) == 0);
        CU_ASSERT(r.efficiency > runs[k].lo && r.efficiency <= runs[k].hi);
        if (!(r.efficiency > runs[k].lo && r.efficiency <= runs[k].hi))
            fprintf(stderr, "  %s: efficiency %.4f\n", runs[k].spec, r.efficiency);
        lf__sim_result_free(&r);
    }
    lf__sim_platform_free(&pf);
}

static void test_installment_factor(void)
{
    CU_ASSERT_DOUBLE_EQUAL(lf__sim_kfactor(1000, 0), 1.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(lf__sim_kfactor(9600, 1), log(9600.0), 1e-12);
    CU_ASSERT(fabs(lf__sim_kfactor(64, 0.5) - 2.0) < 0.05); /* the paper's "k ~ 2" */
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"same seed, same schedule", test_same_seed_same_schedule},
        {"every iteration exactly once", test_every_iteration_exactly_once},
        {"a worker's chunks follow one another", test_worker_timeline_is_sequential},
        {"dynamic on equal speeds is efficient", test_dynamic_on_equal_speeds_is_efficient},
        {"one port serialises staging", test_one_port_serialises_staging},
        {"speed profile slows a worker", test_speed_profile_slows_a_worker},
        {"platform file is read and checked", test_platform_file_is_read_and_checked},
        {"cal=auto grows calibration chunks", test_auto_calibration_grows_chunks},
        {"seed 000 Table 1, every installment", test_seed000_table1},
        {"1000 workers x 10^6 iterations", test_thousand_workers_scale},
        {"installment factor k = ln(S)^CV", test_installment_factor},
        {0, 0},
    };
    return lfcu_run("sim", tests);
}
