/* tests/test_sim.c - lf-sim's engine: reproducible, conserving, faithful to
 * its platform model (NUMA domains, locality and staging included), and able
 * to replay seed 000's worked example. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lfcu.h"
#include "policy/fit.h"
#include "sim/sim.h"
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

/* Platform text that must be refused: -EINVAL, message naming the source. */
static void expect_bad_platform(const char *text)
{
    struct lf__sim_platform pf;
    char err[512] = "";
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT(lf__sim_platform_read(&pf, f, "bad", err, sizeof err) == -EINVAL);
    CU_ASSERT(strncmp(err, "bad", 3) == 0);
    fclose(f);
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

/* At a call site with a memory (lf__sim_opts.mem: each rank's sub-loops on
 * two levels), auto runs an execution under the plan the dispatcher's
 * would (lf__exec_plan): self-scheduled where that is the plan (chunks of
 * one iteration that costs 2 LF__SELF_NS, nothing calibrated or learned);
 * tiny where the team's compute is under LF__TINY_NS (2P chunks of
 * ceil(n / 2P), counted); the loop's own schedule (guided: GSS chunks,
 * nothing learned); DEALT where it chooses and nothing was measured
 * (calibrated, learned, booked to its plan), and always for leases asked
 * for or another schedule.  Every iteration once. */
static void test_plans_at_a_site_memory(void)
{
    enum { P = 4, N = 1001 };
    static const struct {
        const char *spec;
        double ns_per_iter;
        enum lf__plan_kind plan;
        uint64_t chunks;
    } cases[] = {
        {"auto,plan=self", 2.0 * LF__SELF_NS, LF__PLAN_SELF, N},
        {"auto", 1.0, LF__PLAN_TINY, 2 * P},
        {"auto,plan=own", 2.0 * LF__SELF_NS, LF__PLAN_OWN, 0},
        {"auto,plan=serial", 2.0 * LF__SELF_NS, LF__PLAN_SERIAL, 1},
        {"auto", 0.0, LF__PLAN_DEALT, 0},
        {"auto,lease=on", 2.0 * LF__SELF_NS, LF__PLAN_DEALT, 0},
        {"multi", 2.0 * LF__SELF_NS, LF__PLAN_DEALT, 0},
    };
    struct lf__sim_platform pf;
    speeds(&pf, "1,0.5", P);
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double ipt[P] = {0}, cost[P][3] = {{0}};
        uint64_t cal[P] = {0};
        struct lf__site_mem mem = {.ipt = ipt, .cal = cal, .cost = cost};
        mem.team_ns_per_iter = cases[k].ns_per_iter;
        struct lf__sched s;
        char err[512];
        CU_ASSERT_FATAL(lf__sched_parse(cases[k].spec, &s, err, sizeof err) == 0);
        struct lf__sim_workload wl = {.tasks = N, .kind = LF__SIM_COST_EXP, .seed = 3};
        CU_ASSERT_FATAL(lf__sim_workload_init(&wl) == 0);
        struct log lg = {0};
        struct lf__sim_opts o = {.on_chunk = log_chunk, .ctx = &lg, .mem = &mem};
        struct lf__sim_result r;
        CU_ASSERT_FATAL(lf__sim_run(&pf, &s, &wl, &o, &r, err, sizeof err) == 0);
        CU_ASSERT_EQUAL(r.plan, cases[k].plan);
        unsigned char seen[N] = {0};
        uint64_t dup = 0, sum = 0, off = 0, size_at[N] = {0};
        for (size_t c = 0; c < lg.n; c++) {
            const struct lf__sim_chunk *ch = &lg.c[c];
            sum += ch->size;
            for (uint64_t it = ch->lo; it < ch->lo + ch->size && it < N; it++)
                dup += seen[it]++ != 0;
            /* tiny: ceil(N / 2P), the last one shorter; self: one iteration */
            if (cases[k].plan == LF__PLAN_TINY)
                off += ch->size != (N + 2 * P - 1) / (2 * P) && ch->lo + ch->size != N;
            if (cases[k].plan == LF__PLAN_SELF)
                off += ch->size != 1;
            if (cases[k].plan == LF__PLAN_SERIAL) /* one chunk: the whole loop */
                off += ch->size != N;
            if (ch->lo < N)
                size_at[ch->lo] = ch->size;
        }
        /* own: guided from one counter, so in the order of the range each
         * chunk is ceil(r / P) of the r iterations left before it */
        for (uint64_t at = 0, left = N; cases[k].plan == LF__PLAN_OWN && at < N && size_at[at];) {
            off += size_at[at] != (left + P - 1) / P;
            left -= size_at[at];
            at += size_at[at];
        }
        CU_ASSERT_EQUAL(sum, N);
        CU_ASSERT_EQUAL(dup, 0);
        CU_ASSERT_EQUAL(off, 0);
        if (cases[k].plan != LF__PLAN_DEALT) {
            if (cases[k].chunks)
                CU_ASSERT_EQUAL(r.chunks, cases[k].chunks);
            CU_ASSERT_EQUAL(r.calib_chunks, 0);
            CU_ASSERT_EQUAL(mem.team_ns_per_iter, cases[k].ns_per_iter); /* nothing learned */
            CU_ASSERT_EQUAL(mem.tiny_runs, cases[k].plan == LF__PLAN_TINY);
            CU_ASSERT_EQUAL(lf__exec_site_sel(&mem, N)->execs,
                            0); /* forced or tiny: booked to no plan */
        } else {
            CU_ASSERT(r.calib_chunks > 0);
            CU_ASSERT((s.pol->flags & LF__P_PROFILE) ||
                      mem.team_ns_per_iter == cases[k].ns_per_iter);
            CU_ASSERT_EQUAL(lf__exec_site_sel(&mem, N)->execs,
                            lf__exec_plan_chooses(&s, P) ? 1u : 0u);
        }
        free(lg.c);
        lf__sim_result_free(&r);
        lf__sim_workload_free(&wl);
    }
    lf__sim_platform_free(&pf);
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
    CU_ASSERT(pf.w[3].prof == pf.w[2].prof); /* one line's workers share its profile */
    lf__sim_platform_free(&pf);

    static const char *bad[] = {"speed=0\n",
                                "speed=1 colour=red\n",
                                "\n# nothing\n",
                                "speed=1\nstaging sometimes\n",
                                "speed=1 latency=-1\n",
                                "speed=1 count=2.5\n",
                                "speed=1 profile=1:2,0:1\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_bad_platform(bad[i]);
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

/* ---- NUMA domains ---- */

/* Every chunk and every port transfer of one run. */
struct numalog {
    struct log chunks; /* first: log_chunk takes the whole struct as its log */
    struct lf__sim_xfer *x;
    size_t nx, capx;
};

static void log_xfer(void *ctx, const struct lf__sim_xfer *x)
{
    struct numalog *l = ctx;
    if (l->nx == l->capx) {
        l->capx = l->capx ? 2 * l->capx : 1024;
        l->x = realloc(l->x, l->capx * sizeof *l->x);
        if (!l->x)
            abort();
    }
    l->x[l->nx++] = *x;
}

static void numalog_free(struct numalog *l)
{
    free(l->chunks.c);
    free(l->x);
    memset(l, 0, sizeof *l);
}

/* Run spec (numa= and stage= keys included) on pf; lg may be NULL. */
static int run_numa(const struct lf__sim_platform *pf, const char *spec,
                    struct lf__sim_workload *wl, struct numalog *lg, struct lf__sim_result *res)
{
    struct lf__sched s;
    char err[512];
    if (lf__sched_parse(spec, &s, err, sizeof err) != 0) {
        fprintf(stderr, "\n  %s: %s\n", spec, err);
        return -1;
    }
    if (lf__sim_workload_init(wl) != 0)
        return -1;
    struct lf__sim_opts o = {
        .on_chunk = lg ? log_chunk : NULL, .on_xfer = lg ? log_xfer : NULL, .ctx = lg};
    int rc = lf__sim_run(pf, &s, wl, &o, res, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", spec, err);
    lf__sim_workload_free(wl);
    return rc;
}

/* nodes domains of per_node workers each, speeds cycling through list; a
 * remote iteration's input costs 0.1 s per read at speed 1's 1 s compute. */
static void numa_platform(struct lf__sim_platform *pf, const char *list, int nodes, int per_node)
{
    char err[256];
    speeds(pf, list, nodes * per_node);
    CU_ASSERT_FATAL(lf__sim_platform_domains(pf, nodes, err, sizeof err) == 0);
    pf->staging = LF__SIM_STAGE_ONEPORT;
    pf->bytes_per_iter = 8;
    for (int i = 0; i < pf->nworkers; i++)
        pf->w[i].stage_lat = 0.05, pf->w[i].bandwidth = 80, pf->w[i].latency = 0.01;
}

/* Domain d's range under a blocked placement: [n d / D, n (d+1) / D). */
static void blocked_range(uint64_t n, int D, int d, uint64_t *lo, uint64_t *hi)
{
    *lo = (uint64_t)((unsigned __int128)n * (unsigned)d / (unsigned)D);
    *hi = (uint64_t)((unsigned __int128)n * (unsigned)(d + 1) / (unsigned)D);
}

/* The domain holding iteration i's input (doc/lf-sim.md's placements;
 * interleave: 4096 / bytes_per_iter iterations per page). */
static int home_of(int home, uint64_t n, int D, double bpi, uint64_t i)
{
    if (home == LF__SIM_HOME_NODE0)
        return 0;
    if (home == LF__SIM_HOME_INTERLEAVE)
        return (int)(i / (uint64_t)(4096 / bpi) % (uint64_t)D);
    for (int d = 0; d < D; d++) {
        uint64_t lo, hi;
        blocked_range(n, D, d, &lo, &hi);
        if (i >= lo && i < hi)
            return d;
    }
    return -1;
}

static const char *const variants[] = {"numa=off,stage=off", "numa=on,stage=off",
                                       "numa=off,stage=on", "numa=on,stage=on"};
static const int homes[] = {LF__SIM_HOME_BLOCKED, LF__SIM_HOME_NODE0, LF__SIM_HOME_INTERLEAVE};

/* Every registered schedule on 4 domains, with and without locality and
 * staging, each placement: every iteration once; the remote iterations are
 * those computed away from their home, and the ports moved them: staged
 * chunks whole, unstaged ones their remote iterations passes times. */
static void test_numa_every_iteration_exactly_once(void)
{
    static const uint64_t ns[] = {0, 1, 3, 97, 10007};
    static const int per_node[] = {1, 3};
    for (const struct lf__policy *const *p = lf__policies; *p; p++)
        for (size_t v = 0; v < 4; v++)
            for (size_t k = 0; k < sizeof per_node / sizeof *per_node; k++) {
                struct lf__sim_platform pf;
                numa_platform(&pf, "1,0.3,2.5", 4, per_node[k]);
                char spec[96];
                snprintf(spec, sizeof spec, "%s,%s", (*p)->name, variants[v]);
                for (size_t h = 0; h < 3; h++)
                    for (size_t j = 0; j < sizeof ns / sizeof *ns; j++) {
                        uint64_t n = ns[j];
                        struct numalog lg = {0};
                        struct lf__sim_result r;
                        struct lf__sim_workload wl = {.tasks = n,
                                                      .kind = LF__SIM_COST_EXP,
                                                      .seed = 3,
                                                      .home = homes[h],
                                                      .passes = 2};
                        int rc = run_numa(&pf, spec, &wl, &lg, &r);
                        CU_ASSERT(rc == 0);
                        if (rc)
                            continue;
                        unsigned char *seen = calloc(n + 1, 1);
                        uint64_t sum = 0, dup = 0, out = 0, remote = 0, away = 0;
                        uint64_t staged = 0, staged_remote = 0, copied = 0, read = 0;
                        for (size_t c = 0; c < lg.chunks.n; c++) {
                            const struct lf__sim_chunk *ch = &lg.chunks.c[c];
                            int me = pf.w[ch->worker].domain;
                            sum += ch->size;
                            remote += ch->remote;
                            staged += ch->staged ? ch->size : 0;
                            staged_remote += ch->staged ? ch->remote : 0;
                            if (ch->size == 0 || ch->lo + ch->size > n || ch->end < ch->start) {
                                out++;
                                continue;
                            }
                            for (uint64_t it = ch->lo; it < ch->lo + ch->size; it++) {
                                dup += seen[it]++ != 0;
                                away += home_of(homes[h], n, 4, pf.bytes_per_iter, it) != me;
                            }
                        }
                        for (size_t x = 0; x < lg.nx; x++) {
                            if (lg.x[x].staged)
                                copied += lg.x[x].iters;
                            else
                                read += lg.x[x].iters;
                        }
                        CU_ASSERT_EQUAL(sum, n);
                        CU_ASSERT_EQUAL(dup, 0);
                        CU_ASSERT_EQUAL(out, 0);
                        CU_ASSERT_EQUAL(remote, away);
                        CU_ASSERT_EQUAL(remote, r.remote_iters);
                        CU_ASSERT_EQUAL(copied, staged);
                        CU_ASSERT_EQUAL(staged, r.staged_iters);
                        CU_ASSERT_EQUAL(read + staged_remote, remote);
                        /* Interleaved pages are no blocked home: no locality, no staging. */
                        if (homes[h] == LF__SIM_HOME_INTERLEAVE) {
                            CU_ASSERT(r.numa == 0 && r.stage == 0 && staged == 0);
                        } else if (n > 0) {
                            CU_ASSERT(r.numa == (int)(v & 1) && r.stage == (int)(v >> 1));
                        }
                        if (sum != n || dup || out || remote != away)
                            fprintf(stderr, "  %s %s x%d n=%llu: sum %llu dup %llu out %llu\n",
                                    spec, lf__sim_home_name(homes[h]), per_node[k],
                                    (unsigned long long)n, (unsigned long long)sum,
                                    (unsigned long long)dup, (unsigned long long)out);
                        free(seen);
                        numalog_free(&lg);
                        lf__sim_result_free(&r);
                    }
                lf__sim_platform_free(&pf);
            }
}

/* numa=on: a worker takes from another domain's range only once every
 * iteration of its own domain's range has been claimed, and a chunk never
 * leaves the range it was taken from. */
static void test_numa_remote_only_when_own_range_is_empty(void)
{
    static const char *specs[] = {"fac2", "af", "umr", "rumr", "dynamic,7", "guided", "multi"};
    static const int hs[] = {LF__SIM_HOME_BLOCKED, LF__SIM_HOME_NODE0};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++)
        for (size_t h = 0; h < 2; h++)
            for (int stage = 0; stage < 2; stage++) {
                if (!lf__policy_find(specs[k]) && !strchr(specs[k], ','))
                    continue;
                struct lf__sim_platform pf;
                numa_platform(&pf, "1,0.25,2,0.5,1.5", 4, 5);
                const int D = 4;
                uint64_t n = 20011;
                char spec[96];
                snprintf(spec, sizeof spec, "%s,numa=on,stage=%s", specs[k], stage ? "on" : "off");
                struct numalog lg = {0};
                struct lf__sim_result r;
                struct lf__sim_workload wl = {
                    .tasks = n, .kind = LF__SIM_COST_LOGNORMAL, .a = 1.0, .seed = 4, .home = hs[h]};
                CU_ASSERT_FATAL(run_numa(&pf, spec, &wl, &lg, &r) == 0);
                CU_ASSERT_EQUAL(r.numa, 1);
                /* Claimed iterations of each range, in claim order. */
                size_t nc = lg.chunks.n;
                const struct lf__sim_chunk **by = calloc(nc, sizeof *by);
                for (size_t c = 0; c < nc; c++) {
                    CU_ASSERT_FATAL(lg.chunks.c[c].order < nc);
                    by[lg.chunks.c[c].order] = &lg.chunks.c[c];
                }
                uint64_t claimed[4] = {0}, size[4], lo[4], hi[4];
                for (int d = 0; d < D; d++) {
                    if (hs[h] == LF__SIM_HOME_BLOCKED)
                        blocked_range(n, D, d, &lo[d], &hi[d]);
                    else
                        lo[d] = 0, hi[d] = d == 0 ? n : 0;
                    size[d] = hi[d] - lo[d];
                }
                int early = 0, astray = 0, mislabelled = 0;
                for (size_t o = 0; o < nc; o++) {
                    const struct lf__sim_chunk *ch = by[o];
                    CU_ASSERT_FATAL(ch != NULL);
                    int me = pf.w[ch->worker].domain, from = ch->home;
                    if (from != me && claimed[me] != size[me])
                        early++;
                    if (ch->lo < lo[from] || ch->lo + ch->size > hi[from])
                        astray++;
                    if (ch->remote != (from == me ? 0 : ch->size) ||
                        ch->staged != (stage && from != me))
                        mislabelled++;
                    claimed[from] += ch->size;
                }
                CU_ASSERT_EQUAL(early, 0);
                CU_ASSERT_EQUAL(astray, 0);
                CU_ASSERT_EQUAL(mislabelled, 0);
                if (early || astray || mislabelled)
                    fprintf(stderr, "  %s %s: early %d astray %d mislabelled %d\n", spec,
                            lf__sim_home_name(hs[h]), early, astray, mislabelled);
                free(by);
                numalog_free(&lg);
                lf__sim_result_free(&r);
                lf__sim_platform_free(&pf);
            }
}

/* All data on domain 0, staging on: every iteration a worker of another
 * domain computes was staged, once, and the bytes copied are exactly the
 * remote iterations' input. */
static void test_numa_node0_stages_every_remote_iteration(void)
{
    for (const struct lf__policy *const *p = lf__policies; *p; p++)
        for (int numa = 0; numa < 2; numa++) {
            struct lf__sim_platform pf;
            numa_platform(&pf, "1,0.5,2", 4, 3);
            pf.bytes_per_iter = 24;
            char spec[96];
            snprintf(spec, sizeof spec, "%s,numa=%s,stage=on", (*p)->name, numa ? "on" : "off");
            struct numalog lg = {0};
            struct lf__sim_result r;
            struct lf__sim_workload wl = {.tasks = 5003,
                                          .kind = LF__SIM_COST_UNIFORM,
                                          .a = 0.5,
                                          .b = 1.5,
                                          .seed = 2,
                                          .home = LF__SIM_HOME_NODE0,
                                          .passes = 3};
            CU_ASSERT_FATAL(run_numa(&pf, spec, &wl, &lg, &r) == 0);
            uint64_t off_node0 = 0, remote = 0, staged = 0;
            double bytes = 0;
            for (size_t c = 0; c < lg.chunks.n; c++) {
                const struct lf__sim_chunk *ch = &lg.chunks.c[c];
                off_node0 += pf.w[ch->worker].domain != 0 ? ch->size : 0;
                remote += ch->remote;
                staged += ch->staged ? ch->size : 0;
            }
            for (size_t x = 0; x < lg.nx; x++) {
                CU_ASSERT(lg.x[x].staged && lg.x[x].home == 0);
                bytes += lg.x[x].bytes;
            }
            CU_ASSERT_EQUAL(remote, off_node0);
            CU_ASSERT_EQUAL(staged, remote);
            CU_ASSERT_EQUAL(r.remote_iters, remote);
            CU_ASSERT_EQUAL(r.staged_iters, remote);
            CU_ASSERT_DOUBLE_EQUAL(bytes, (double)remote * 24, 1e-6);
            CU_ASSERT_DOUBLE_EQUAL(r.staged_bytes, (double)remote * 24, 1e-6);
            CU_ASSERT_DOUBLE_EQUAL(r.remote_bytes, 0, 0);
            numalog_free(&lg);
            lf__sim_result_free(&r);
            lf__sim_platform_free(&pf);
        }
}

/* Transfers in [start, end) per home domain; the largest overlap between
 * two of them (0 when each port serves one at a time). */
static double port_overlap(const struct numalog *lg, int D)
{
    double worst = 0;
    for (int d = 0; d < D; d++) {
        /* Ports are claimed in time order, but sort anyway: the test must
         * not rely on the engine's internals. */
        size_t m = 0;
        double(*iv)[2] = malloc((lg->nx + 1) * sizeof *iv);
        for (size_t x = 0; x < lg->nx; x++)
            if (lg->x[x].home == d && lg->x[x].end > lg->x[x].start) {
                iv[m][0] = lg->x[x].start;
                iv[m++][1] = lg->x[x].end;
            }
        for (size_t a = 1; a < m; a++) /* insertion sort by start */
            for (size_t b = a; b > 0 && iv[b][0] < iv[b - 1][0]; b--) {
                double t0 = iv[b][0], t1 = iv[b][1];
                iv[b][0] = iv[b - 1][0], iv[b][1] = iv[b - 1][1];
                iv[b - 1][0] = t0, iv[b - 1][1] = t1;
            }
        double reach = -INFINITY;
        for (size_t a = 0; a < m; a++) {
            if (reach - iv[a][0] > worst)
                worst = reach - iv[a][0];
            reach = iv[a][1] > reach ? iv[a][1] : reach;
        }
        free(iv);
    }
    return worst;
}

/* One port per home domain: its transfers, staging copies and unstaged
 * remote reads alike, never overlap in time; with free ports they do. */
static void test_numa_one_port_per_domain(void)
{
    static const char *specs[] = {"fac2", "af", "umr", "dynamic,5"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++)
        for (size_t v = 0; v < 4; v++)
            for (size_t h = 0; h < 3; h++) {
                struct lf__sim_platform pf;
                numa_platform(&pf, "1,0.5", 4, 4);
                char spec[96];
                snprintf(spec, sizeof spec, "%s,%s", specs[k], variants[v]);
                struct numalog lg = {0};
                struct lf__sim_result r;
                struct lf__sim_workload wl = {.tasks = 3001, .home = homes[h], .passes = 4};
                CU_ASSERT_FATAL(run_numa(&pf, spec, &wl, &lg, &r) == 0);
                double ov = port_overlap(&lg, 4);
                CU_ASSERT(ov <= 1e-12);
                if (ov > 1e-12)
                    fprintf(stderr, "  %s %s: transfers overlap by %g s\n", spec,
                            lf__sim_home_name(homes[h]), ov);
                numalog_free(&lg);
                lf__sim_result_free(&r);
                lf__sim_platform_free(&pf);
            }
    /* The check can fail: free ports let transfers overlap. */
    struct lf__sim_platform pf;
    numa_platform(&pf, "1", 4, 4);
    pf.staging = LF__SIM_STAGE_FREE;
    struct numalog lg = {0};
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 3001, .home = LF__SIM_HOME_NODE0};
    CU_ASSERT_FATAL(run_numa(&pf, "dynamic,5,numa=on,stage=on", &wl, &lg, &r) == 0);
    CU_ASSERT(port_overlap(&lg, 4) > 0.01);
    numalog_free(&lg);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&pf);
}

/* One worker of domain 1 runs a chunk whose input is half on domain 0:
 * the costs are exactly the model's (doc/lf-sim.md). */
static void test_numa_remote_costs_follow_the_model(void)
{
    struct lf__sim_platform pf;
    speeds(&pf, "1", 1);
    pf.ndom = 2;
    pf.w[0].domain = 1;
    pf.w[0].latency = 0.5;
    pf.w[0].stage_lat = 0.25;
    pf.w[0].bandwidth = 80;
    pf.bytes_per_iter = 8; /* 0.1 s per iteration read remotely */
    pf.staging = LF__SIM_STAGE_ONEPORT;
    static const struct {
        int home;
        const char *keys;
        double makespan;
    } cases[] = {
        /* all 10 remote: 3 passes of 1 s, or one 0.25 + 1 s copy */
        {LF__SIM_HOME_NODE0, "numa=off,stage=off", 3.0 + 0.5 + 10},
        {LF__SIM_HOME_NODE0, "numa=off,stage=on", 0.25 + 1.0 + 0.5 + 10},
        /* iterations 0-4 on domain 0, 5-9 local: the chunk's home is its
         * first iteration's (domain 0), so staging copies all of it */
        {LF__SIM_HOME_BLOCKED, "numa=off,stage=off", 1.5 + 0.5 + 10},
        {LF__SIM_HOME_BLOCKED, "numa=off,stage=on", 0.25 + 1.0 + 0.5 + 10},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char spec[64];
        snprintf(spec, sizeof spec, "static,%s", cases[k].keys);
        struct lf__sim_result r;
        struct lf__sim_workload wl = {.tasks = 10, .home = cases[k].home, .passes = 3};
        CU_ASSERT_FATAL(run_numa(&pf, spec, &wl, NULL, &r) == 0);
        CU_ASSERT_DOUBLE_EQUAL(r.makespan, cases[k].makespan, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(r.ideal, 10.0, 1e-12);
        lf__sim_result_free(&r);
    }
    /* Unstaged remote reads count as compute (what the worker times);
     * staging does not. */
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 10, .home = LF__SIM_HOME_NODE0, .passes = 3};
    CU_ASSERT_FATAL(run_numa(&pf, "static,numa=off,stage=off", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.w[0].busy, 13.5, 1e-9);
    lf__sim_result_free(&r);
    CU_ASSERT_FATAL(run_numa(&pf, "static,numa=off,stage=on", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.w[0].busy, 10.5, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(r.w[0].stage, 1.25, 1e-9);
    lf__sim_result_free(&r);
    /* A worker of domain 0: the chunk's home is its own, so nothing is
     * staged, and its second half is read in place, 3 passes. */
    pf.w[0].domain = 0;
    wl.home = LF__SIM_HOME_BLOCKED;
    CU_ASSERT_FATAL(run_numa(&pf, "static,numa=off,stage=on", &wl, NULL, &r) == 0);
    CU_ASSERT_DOUBLE_EQUAL(r.makespan, 1.5 + 0.5 + 10, 1e-9);
    CU_ASSERT_EQUAL(r.remote_iters, 5);
    CU_ASSERT_EQUAL(r.staged_iters, 0);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&pf);
}

/* Same NUMA run twice: the same chunks and the same transfers. */
static void test_numa_same_seed_same_schedule(void)
{
    static const char *specs[] = {"af,numa=on,stage=off", "umr,numa=on,stage=on",
                                  "rumr,numa=off,stage=on", "fac2,numa=off,stage=off"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        struct lf__sim_platform pf;
        numa_platform(&pf, "1,0.5,2,0.75", 8, 3);
        struct numalog a = {0}, b = {0};
        struct lf__sim_result ra, rb;
        struct lf__sim_workload wa = {.tasks = 30000,
                                      .kind = LF__SIM_COST_LOGNORMAL,
                                      .a = 1.0,
                                      .seed = 7,
                                      .home = LF__SIM_HOME_BLOCKED,
                                      .passes = 4};
        struct lf__sim_workload wb = wa;
        CU_ASSERT_FATAL(run_numa(&pf, specs[k], &wa, &a, &ra) == 0);
        CU_ASSERT_FATAL(run_numa(&pf, specs[k], &wb, &b, &rb) == 0);
        CU_ASSERT(a.chunks.n == b.chunks.n &&
                  memcmp(a.chunks.c, b.chunks.c, a.chunks.n * sizeof *a.chunks.c) == 0);
        CU_ASSERT(a.nx == b.nx && memcmp(a.x, b.x, a.nx * sizeof *a.x) == 0);
        CU_ASSERT_EQUAL(ra.makespan, rb.makespan);
        CU_ASSERT_EQUAL(ra.remote_iters, rb.remote_iters);
        numalog_free(&a);
        numalog_free(&b);
        lf__sim_result_free(&ra);
        lf__sim_result_free(&rb);
        lf__sim_platform_free(&pf);
    }
}

/* numa=on, unstaged: once a worker has timed a remote chunk, its remote
 * chunks shrink so that they last about as long as a local one
 * (lf__loc_remote_chunk with t_local and x); staged, the policy's size
 * stands (only the equal-share cap applies). */
static void test_numa_remote_chunks_keep_their_duration(void)
{
    for (int stage = 0; stage < 2; stage++) {
        struct lf__sim_platform pf;
        speeds(&pf, "1,4", 2); /* domain 1's worker runs out first, then helps */
        pf.ndom = 2;
        pf.w[1].domain = 1;
        pf.bytes_per_iter = 8;
        pf.staging = LF__SIM_STAGE_ONEPORT;
        for (int i = 0; i < 2; i++)
            pf.w[i].bandwidth = 80, pf.w[i].latency = 0.01; /* 0.1 s per read */
        struct numalog lg = {0};
        struct lf__sim_result r;
        struct lf__sim_workload wl = {.tasks = 4000, .home = LF__SIM_HOME_BLOCKED, .passes = 3};
        const char *spec = stage ? "dynamic,10,numa=on,stage=on" : "dynamic,10,numa=on,stage=off";
        CU_ASSERT_FATAL(run_numa(&pf, spec, &wl, &lg, &r) == 0);
        /* Worker 1 computes 0.25 s per iteration; unstaged remote ones cost
         * 0.3 s more: 10 * 0.25 / 0.55 = 4 iterations. */
        int nremote = 0, bad = 0;
        uint64_t left0 = 2000; /* domain 0's range, not yet claimed */
        for (size_t o = 0; o < lg.chunks.n; o++) {
            const struct lf__sim_chunk *ch = NULL;
            for (size_t c = 0; c < lg.chunks.n && !ch; c++)
                if (lg.chunks.c[c].order == o)
                    ch = &lg.chunks.c[c];
            CU_ASSERT_FATAL(ch != NULL);
            if (ch->home != 0)
                continue;
            /* While the equal-share cap ceil(left0 / 2) does not bind. */
            if (ch->worker == 1 && left0 >= 20) {
                bad += ch->size != (stage || nremote == 0 ? 10 : 4);
                nremote++;
            }
            left0 -= ch->size;
        }
        CU_ASSERT(nremote > 10);
        CU_ASSERT_EQUAL(bad, 0);
        numalog_free(&lg);
        lf__sim_result_free(&r);
        lf__sim_platform_free(&pf);
    }
}

/* Locality keeps a blocked loop at home: far fewer remote iterations than
 * one shared counter, which hands out (D-1)/D of the loop remotely. */
static void test_numa_locality_keeps_blocked_data_home(void)
{
    static const char *specs[] = {"fac2", "af", "dynamic,10"};
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        struct lf__sim_platform pf;
        numa_platform(&pf, "1,0.5", 4, 4);
        struct lf__sim_result on, off;
        struct lf__sim_workload w1 = {.tasks = 40000, .home = LF__SIM_HOME_BLOCKED};
        struct lf__sim_workload w2 = w1;
        char spec[64];
        snprintf(spec, sizeof spec, "%s,numa=on,stage=off", specs[k]);
        CU_ASSERT_FATAL(run_numa(&pf, spec, &w1, NULL, &on) == 0);
        snprintf(spec, sizeof spec, "%s,numa=off,stage=off", specs[k]);
        CU_ASSERT_FATAL(run_numa(&pf, spec, &w2, NULL, &off) == 0);
        CU_ASSERT(off.remote_iters > 40000 / 2);
        CU_ASSERT(on.remote_iters < off.remote_iters / 4);
        lf__sim_result_free(&on);
        lf__sim_result_free(&off);
        lf__sim_platform_free(&pf);
    }
}

static void test_numa_platform_file_and_keys(void)
{
    static const char good[] = "domains 2\n"
                               "bytes_per_iter 64\n"
                               "speed=1 stage_lat=1e-6 bandwidth=3e10 domain=1 count=2\n"
                               "speed=2 domain=0\n";
    struct lf__sim_platform pf;
    char err[512];
    FILE *f = fmemopen((void *)good, sizeof good - 1, "r");
    CU_ASSERT_FATAL(lf__sim_platform_read(&pf, f, "good", err, sizeof err) == 0);
    fclose(f);
    CU_ASSERT_EQUAL(pf.ndom, 2);
    CU_ASSERT_EQUAL(pf.w[0].domain, 1);
    CU_ASSERT_EQUAL(pf.w[1].domain, 1);
    CU_ASSERT_EQUAL(pf.w[2].domain, 0);
    CU_ASSERT_EQUAL(pf.staging, LF__SIM_STAGE_ONEPORT); /* per domain, by default */
    lf__sim_platform_free(&pf);
    /* No domain= anywhere: the workers split in order. */
    static const char split[] = "domains 3\nstaging free\nspeed=1 count=7\n";
    f = fmemopen((void *)split, sizeof split - 1, "r");
    CU_ASSERT_FATAL(lf__sim_platform_read(&pf, f, "split", err, sizeof err) == 0);
    fclose(f);
    static const int expect[7] = {0, 0, 0, 1, 1, 2, 2};
    for (int i = 0; i < 7; i++)
        CU_ASSERT_EQUAL(pf.w[i].domain, expect[i]);
    CU_ASSERT_EQUAL(pf.staging, LF__SIM_STAGE_FREE);
    CU_ASSERT(lf__sim_platform_domains(&pf, 8, err, sizeof err) == -EINVAL);
    CU_ASSERT(lf__sim_platform_domains(&pf, 0, err, sizeof err) == -EINVAL);
    lf__sim_platform_free(&pf);

    static const char *bad[] = {"speed=1 domain=0\n",
                                "domains 2\nspeed=1 domain=2\n",
                                "domains 2\nspeed=1 domain=0.5\n",
                                "domains 2\nspeed=1 domain=1\nspeed=1\n",
                                "domains 0\nspeed=1\n",
                                "domains 65\nspeed=1\n",
                                "speed=1\ndomains 1\n",
                                "domains 4\nspeed=1 count=3\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        expect_bad_platform(bad[i]);

    /* The schedule keys decide; without domains they change nothing. */
    struct lf__sim_platform p2;
    numa_platform(&p2, "1", 2, 2);
    struct lf__sim_result r;
    struct lf__sim_workload wl = {.tasks = 100, .home = LF__SIM_HOME_NODE0};
    CU_ASSERT_FATAL(run_numa(&p2, "fac2", &wl, NULL, &r) == 0);
    CU_ASSERT(r.numa == 1 && r.stage == 1); /* the runtime's defaults */
    lf__sim_result_free(&r);
    CU_ASSERT_FATAL(run_numa(&p2, "fac2,numa=off,stage=on", &wl, NULL, &r) == 0);
    CU_ASSERT(r.numa == 0 && r.stage == 1);
    lf__sim_result_free(&r);
    p2.bytes_per_iter = 0; /* no input declared: nothing to stage */
    CU_ASSERT_FATAL(run_numa(&p2, "fac2,stage=on", &wl, NULL, &r) == 0);
    CU_ASSERT(r.numa == 1 && r.stage == 0);
    lf__sim_result_free(&r);
    lf__sim_platform_free(&p2);
}

static void test_installment_factor(void)
{
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(1000, 0), 1.0, 1e-15);
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(9600, 1), log(9600.0), 1e-12);
    CU_ASSERT(fabs(lf__install_factor(64, 0.5) - 2.0) < 0.05); /* the paper's "k ~ 2" */
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"same seed, same schedule", test_same_seed_same_schedule},
        {"every iteration exactly once", test_every_iteration_exactly_once},
        {"plans at a call site's memory", test_plans_at_a_site_memory},
        {"a worker's chunks follow one another", test_worker_timeline_is_sequential},
        {"dynamic on equal speeds is efficient", test_dynamic_on_equal_speeds_is_efficient},
        {"one port serialises staging", test_one_port_serialises_staging},
        {"speed profile slows a worker", test_speed_profile_slows_a_worker},
        {"platform file is read and checked", test_platform_file_is_read_and_checked},
        {"cal=auto grows calibration chunks", test_auto_calibration_grows_chunks},
        {"seed 000 Table 1, every installment", test_seed000_table1},
        {"1000 workers x 10^6 iterations", test_thousand_workers_scale},
        {"installment factor k = ln(S)^CV", test_installment_factor},
        {"NUMA: every iteration exactly once", test_numa_every_iteration_exactly_once},
        {"NUMA: remote work only when the own range is empty",
         test_numa_remote_only_when_own_range_is_empty},
        {"NUMA: node0 + staging stages every remote iteration",
         test_numa_node0_stages_every_remote_iteration},
        {"NUMA: one port per home domain", test_numa_one_port_per_domain},
        {"NUMA: remote costs follow the model", test_numa_remote_costs_follow_the_model},
        {"NUMA: same seed, same schedule", test_numa_same_seed_same_schedule},
        {"NUMA: remote chunks keep their duration", test_numa_remote_chunks_keep_their_duration},
        {"NUMA: locality keeps blocked data home", test_numa_locality_keeps_blocked_data_home},
        {"NUMA: platform file and schedule keys", test_numa_platform_file_and_keys},
        {0, 0},
    };
    return lfcu_run("sim", tests);
}
