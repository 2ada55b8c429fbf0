/* tests/test_policy_rounds.c - the round-based policies of seeds 001-003
 * (as4dr, umr, rumr, fifo, lifo): their formulas against the papers, their
 * behaviour in lf-sim, and exactly-once coverage. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lfcu.h"
#include "policy/rounds.h"
#include "sim/sim.h"
#include "simlog.h"

/* Run spec over n unit-cost iterations on pf, logging chunks; 0 or -errno. */
static int run(const struct lf__sim_platform *pf, const char *spec, uint64_t n, struct log *lg,
               struct lf__sim_result *res)
{
    struct lf__sched s;
    char err[512];
    if (lf__sched_parse(spec, &s, err, sizeof err) != 0) {
        fprintf(stderr, "\n  %s: %s\n", spec, err);
        return -1;
    }
    struct lf__sim_workload wl = {.tasks = n, .kind = LF__SIM_COST_CONST, .seed = 1};
    if (lf__sim_workload_init(&wl) != 0)
        return -1;
    struct lf__sim_opts o = {.on_chunk = lg ? log_chunk : NULL, .ctx = lg};
    int rc = lf__sim_run(pf, &s, &wl, &o, res, err, sizeof err);
    if (rc)
        fprintf(stderr, "\n  %s: %s\n", spec, err);
    lf__sim_workload_free(&wl);
    return rc;
}

/* P workers of the given speed and affine costs (seconds, bytes/s). */
static void platform(struct lf__sim_platform *pf, int P, double speed, double lat, double slat,
                     double bw, int oneport)
{
    char err[256];
    CU_ASSERT_FATAL(lf__sim_platform_speeds(pf, "1", P, err, sizeof err) == 0);
    for (int i = 0; i < P; i++) {
        pf->w[i].speed = speed;
        pf->w[i].latency = lat;
        pf->w[i].stage_lat = slat;
        pf->w[i].bandwidth = bw;
    }
    pf->bytes_per_iter = 1;
    pf->staging = oneport ? LF__SIM_STAGE_ONEPORT : LF__SIM_STAGE_FREE;
}

/* Size of worker w's chunk number seq (0 = calibration), or 0. */
static uint64_t chunk_size(const struct log *lg, int w, uint64_t seq)
{
    for (size_t i = 0; i < lg->n; i++)
        if (lg->c[i].worker == w && lg->c[i].seq == seq)
            return lg->c[i].size;
    return 0;
}

/* Seed 003 eqs. (8) and (10), written out for the homogeneous case. */
static double eq8_chunk(double N, double S, double B, double alpha, double beta, double W, int M,
                        int j)
{
    double th = B / (N * S), delta = B * S / (B - N * S) * (N * beta - alpha);
    double c0 = (1.0 - th) * (W - N * M * delta) / (N * (1.0 - pow(th, M))) + delta;
    return pow(th, j) * (c0 - delta) + delta;
}

static void test_umr_chunks_follow_eq8_closed_form(void)
{
    /* N = 4, t = 1000 ns (S = 1e-3 it/ns), 1/B = 100 ns/it, alpha = 20 us,
     * beta = 10 us: theta = B/(NS) = 2.5. */
    const int N = 4;
    const double S = 1e-3, B = 1e-2, alpha = 20000, beta = 10000;
    const uint64_t n = 400004;
    struct lf__sim_platform pf;
    platform(&pf, N, 1e6, 20e-6, 10e-6, 1e7, 1);
    struct log lg = {0};
    struct lf__sim_result res;
    CU_ASSERT_FATAL(run(&pf, "umr,select=off,cal=paper", n, &lg, &res) == 0);
    double W = (double)(n - N); /* one calibration iteration each */
    double mstar;
    int M;
    lf__umr_homog_chunk(N, S, B, alpha, beta, W, 0, &mstar, &M);
    CU_ASSERT(M >= 3);
    CU_ASSERT(fabs((double)M - mstar) <= 1.0);
    for (int w = 0; w < N; w++)
        for (int j = 0; j + 1 < M; j++) {
            double want = eq8_chunk(N, S, B, alpha, beta, W, M, j);
            uint64_t got = chunk_size(&lg, w, (uint64_t)j + 1);
            CU_ASSERT(fabs((double)got - want) <= 1.0);
            if (fabs((double)got - want) > 1.0)
                fprintf(stderr, "\n  worker %d round %d: %llu, eq. 8 gives %.2f\n", w, j,
                        (unsigned long long)got, want);
        }
    /* The series grows by theta between rounds (eq. 8 with chunk_0 > Delta). */
    CU_ASSERT(chunk_size(&lg, 0, 2) > chunk_size(&lg, 0, 1));
    lf__sim_result_free(&res);
    lf__sim_platform_free(&pf);
    free(lg.c);
}

static void test_umr_mstar_solves_eq9(void)
{
    /* (N, R = B/S, alpha, beta) around Figs. 5-6: W = 2000, S = 1. */
    static const double cases[][4] = {
        {5, 10, 1, 1},    {5, 20, 5, 0},  {5, 40, 0, 5},   {5, 80, 5, 5},
        {10, 30, 0.5, 2}, {5, 3, 2, 0.5}, {5, 12, 10, 10}, {20, 50, 1, 0.1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        double N = cases[k][0], S = 1, B = cases[k][1], a = cases[k][2], b = cases[k][3];
        double W = 2000, th = B / (N * S);
        double delta = B * S / (B - N * S) * (N * b - a);
        double m = lf__umr_mstar(th, N * delta, W, a * B, 1000);
        if (m <= 1e-3 || m >= 1000)
            continue; /* no interior root: M* = 1 or "as many as possible" */
        double scale = fabs(N * delta) + W * fabs(log(th)) + 2 * a * B * fabs(pow(th, m)) + 1;
        double res = lf__umr_eq9(th, N * delta, W, a * B, m);
        CU_ASSERT(fabs(res) < 1e-9 * scale);
        /* A root, not a touch: the sign changes across it. */
        CU_ASSERT(lf__umr_eq9(th, N * delta, W, a * B, m * 0.99) > 0);
        CU_ASSERT(lf__umr_eq9(th, N * delta, W, a * B, m * 1.01) < 0);
    }
    /* B = NS: the limit of eq. (9) is sqrt(2W / (B (3 alpha + N beta))). */
    double ms;
    lf__umr_homog_chunk(5, 1, 5, 2, 1, 2000, 0, &ms, NULL);
    CU_ASSERT(fabs(ms - sqrt(2 * 2000 / (5 * (3 * 2 + 5 * 1.0)))) < 1e-9);
    double th = 1 + 1e-5, B = 5 * th, delta = B / (B - 5) * (5 * 1 - 2);
    double near = lf__umr_mstar(th, 5 * delta, 2000, 2 * B, 1000);
    CU_ASSERT(fabs(near - ms) < 0.01 * ms);
}

static void test_umr_rounds_grow_when_theta_above_one(void)
{
    /* Seed 003 Fig. 6, alpha = 0, beta = 5, N = 5, W = 2000, S = 1: for
     * every R > N the plan's rounds grow (chunk_0 > Delta), M* is at most
     * W / (N Delta), and the curve runs from about 2 at R = 6 to about 14
     * at R = 80, as the paper reports. */
    for (int R = 6; R <= 80; R++) {
        double ms, delta = R / (R - 5.0) * 25.0;
        int M;
        double c0 = lf__umr_homog_chunk(5, 1, R, 0, 5, 2000, 0, &ms, &M);
        CU_ASSERT(ms <= 2000 / (5 * delta) + 1e-9);
        CU_ASSERT(c0 >= delta - 1e-9);
        for (int j = 1; j < M; j++)
            CU_ASSERT(lf__umr_homog_chunk(5, 1, R, 0, 5, 2000, j, NULL, NULL) >=
                      lf__umr_homog_chunk(5, 1, R, 0, 5, 2000, j - 1, NULL, NULL));
        if (R == 6)
            CU_ASSERT(abs(M - 2) <= 1);
        if (R == 80)
            CU_ASSERT(fabs(M - 14.0) <= 0.15 * 14);
    }
}

static void test_umr_selects_fast_links(void)
{
    /* Four workers on fast links, four on links 100x slower: selection
     * leaves the slow ones out and does no worse than using everybody. */
    struct lf__sim_platform pf;
    platform(&pf, 8, 1e6, 20e-6, 10e-6, 1e7, 1);
    for (int i = 4; i < 8; i++)
        pf.w[i].bandwidth = 1e5;
    struct lf__sim_result on, off;
    struct log lg = {0};
    CU_ASSERT_FATAL(run(&pf, "umr", 200000, &lg, &on) == 0);
    CU_ASSERT_FATAL(run(&pf, "umr,select=off", 200000, NULL, &off) == 0);
    uint64_t slow = 0;
    for (int i = 4; i < 8; i++)
        slow += on.w[i].chunks - on.w[i].calib_chunks; /* chunks after calibration */
    CU_ASSERT(slow == 0);
    CU_ASSERT(on.makespan <= off.makespan * 1.0001);
    lf__sim_result_free(&on);
    lf__sim_result_free(&off);
    lf__sim_platform_free(&pf);
    free(lg.c);
}

/* Periods (end - claim) of worker w's post-calibration chunks from..to. */
static double max_period_error(const struct log *lg, int w, uint64_t from, uint64_t to, double tau)
{
    double worst = 0;
    for (size_t i = 0; i < lg->n; i++) {
        const struct lf__sim_chunk *c = &lg->c[i];
        if (c->worker != w || c->calib || c->seq < from || c->seq > to)
            continue;
        double e = fabs((c->end - c->start) - tau) / tau;
        worst = e > worst ? e : worst;
    }
    return worst;
}

static void test_as4dr_period_converges_to_tau(void)
{
    /* f = alpha + beta = 30 us, tau = 2 ms >= 2f (seed 001 eq. 6); first
     * chunks off by +-50% (iota); contention-free staging as the theorem
     * assumes. */
    struct lf__sim_platform pf;
    platform(&pf, 4, 1e6, 20e-6, 10e-6, 1e7, 0);
    pf.w[1].speed = 5e5;
    pf.w[2].speed = 2.5e5;
    pf.w[3].speed = 7.5e5;
    struct log lg = {0}, base = {0};
    struct lf__sim_result res, rb;
    CU_ASSERT_FATAL(run(&pf, "as4dr,tau=0.002,iota=0.5,tail=off", 6000000, &lg, &res) == 0);
    CU_ASSERT_FATAL(run(&pf, "as4dr,tau=0.002,iota=0.5,adapt=off", 6000000, &base, &rb) == 0);
    int off_target = 0;
    for (int w = 0; w < 4; w++) {
        uint64_t c0 = res.w[w].calib_chunks;
        /* The first period misses tau by about iota; ten rounds later it is on it. */
        CU_ASSERT(max_period_error(&lg, w, c0, c0, 0.002) > 0.2);
        CU_ASSERT(max_period_error(&lg, w, c0 + 10, c0 + 40, 0.002) < 0.005);
        off_target += max_period_error(&base, w, rb.w[w].calib_chunks + 10,
                                       rb.w[w].calib_chunks + 40, 0.002) > 0.2;
    }
    CU_ASSERT(off_target == 4); /* the Baseline never corrects */
    lf__sim_result_free(&res);
    lf__sim_result_free(&rb);
    lf__sim_platform_free(&pf);
    free(lg.c);
    free(base.c);
}

static void test_fifo_lifo_shares_match_theorems(void)
{
    /* Two identical nodes, R = 1000 ns per iteration; links tau_1 = 100 and
     * tau_2 = 300 ns per iteration; delta = 0.5.  By hand:
     *   LIFO (Theorem 1): w_2/w_1 = R/(R + 1.5 tau_2) = 1000/1450;
     *   FIFO (Theorem 2): w_2/w_1 = (R + 0.5 tau_1)/(R + tau_2) = 1050/1300;
     * with w_1 + w_2 = W = 100000:
     *   LIFO 59183.67 + 40816.33, FIFO 55319.15 + 44680.85. */
    struct lf__sim_platform pf;
    platform(&pf, 2, 1e6, 0, 0, 1e7, 1);
    pf.w[1].bandwidth = 1e7 / 3;
    struct log lf = {0}, ll = {0}, l0 = {0}, l1 = {0};
    struct lf__sim_result rf, rl, r0, r1;
    const uint64_t n = 100002;
    CU_ASSERT_FATAL(run(&pf, "fifo,ret=0.5,cal=paper", n, &lf, &rf) == 0);
    CU_ASSERT_FATAL(run(&pf, "lifo,ret=0.5,cal=paper", n, &ll, &rl) == 0);
    CU_ASSERT_EQUAL(chunk_size(&ll, 0, 1), 59184);
    CU_ASSERT_EQUAL(chunk_size(&ll, 1, 1), 40816);
    CU_ASSERT_EQUAL(chunk_size(&lf, 0, 1), 55319);
    CU_ASSERT_EQUAL(chunk_size(&lf, 1, 1), 44681);
    /* Both solve their linear system (1) / (5): equal finishing times L. */
    double R = 1000, t1 = 100, t2 = 300, d = 0.5;
    double a = (double)chunk_size(&ll, 0, 1), b = (double)chunk_size(&ll, 1, 1);
    double L1 = (R + (1 + d) * t1) * a, L2 = (1 + d) * t1 * a + (R + (1 + d) * t2) * b;
    CU_ASSERT(fabs(L1 - L2) < 1e-4 * L1);
    a = (double)chunk_size(&lf, 0, 1), b = (double)chunk_size(&lf, 1, 1);
    L1 = (R + (1 + d) * t1) * a + d * t2 * b;
    L2 = t1 * a + (R + (1 + d) * t2) * b;
    CU_ASSERT(fabs(L1 - L2) < 1e-4 * L1);
    /* ret = 0: both are the one-round allocation w_2/w_1 = R/(R + tau_2). */
    CU_ASSERT_FATAL(run(&pf, "fifo,cal=paper", n, &l0, &r0) == 0);
    CU_ASSERT_FATAL(run(&pf, "lifo,cal=paper", n, &l1, &r1) == 0);
    CU_ASSERT_EQUAL(chunk_size(&l0, 0, 1), chunk_size(&l1, 0, 1));
    CU_ASSERT_EQUAL(chunk_size(&l0, 0, 1), 56522); /* 100000 / (1 + 1000/1300) */
    lf__sim_result_free(&rf);
    lf__sim_result_free(&rl);
    lf__sim_result_free(&r0);
    lf__sim_result_free(&r1);
    lf__sim_platform_free(&pf);
    free(lf.c);
    free(ll.c);
    free(l0.c);
    free(l1.c);
}

static void test_every_iteration_exactly_once(void)
{
    static const char *specs[] = {
        "as4dr",        "as4dr,adapt=off,iota=0.5", "as4dr,tau=1e-4,tail=off",
        "umr",          "umr,select=off",           "umr,cal=paper",
        "rumr",         "rumr,phase1=0.5",          "fifo",
        "lifo,ret=0.5", "fifo,ret=0.9,cal=paper",
    };
    static const int Ps[] = {1, 4, 33};
    static const uint64_t ns[] = {0, 1, 2, 32, 33, 97, 1000, 100003};
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++)
        for (size_t p = 0; p < sizeof Ps / sizeof *Ps; p++)
            for (size_t k = 0; k < sizeof ns / sizeof *ns; k++)
                for (int kind = 0; kind < 2; kind++) {
                    struct lf__sim_platform pf;
                    /* kind 0: bare speeds; 1: heterogeneous affine costs, one port */
                    platform(&pf, Ps[p], 1e6, kind ? 5e-6 : 0, kind ? 2e-6 : 0, kind ? 1e8 : 0,
                             kind);
                    for (int i = 0; kind && i < Ps[p]; i++) {
                        pf.w[i].speed = 1e6 / (1 + i % 3);
                        pf.w[i].bandwidth = 1e8 / (1 + i % 5);
                    }
                    struct log lg = {0};
                    struct lf__sim_result res;
                    uint64_t n = ns[k];
                    CU_ASSERT_FATAL(run(&pf, specs[s], n, &lg, &res) == 0);
                    char *seen = calloc(n ? n : 1, 1);
                    uint64_t dup = 0, out = 0, miss = 0;
                    for (size_t i = 0; i < lg.n; i++)
                        for (uint64_t x = lg.c[i].lo; x < lg.c[i].lo + lg.c[i].size; x++) {
                            if (x >= n)
                                out++;
                            else if (seen[x]++)
                                dup++;
                        }
                    for (uint64_t x = 0; x < n; x++)
                        miss += !seen[x];
                    CU_ASSERT(dup == 0 && out == 0 && miss == 0);
                    if (dup || out || miss)
                        fprintf(stderr, "\n  %s P=%d n=%llu kind %d: dup %llu out %llu miss %llu\n",
                                specs[s], Ps[p], (unsigned long long)n, kind,
                                (unsigned long long)dup, (unsigned long long)out,
                                (unsigned long long)miss);
                    free(seen);
                    free(lg.c);
                    lf__sim_result_free(&res);
                    lf__sim_platform_free(&pf);
                }
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"umr chunks follow eq. 8's closed form", test_umr_chunks_follow_eq8_closed_form},
        {"umr M* solves eq. 9", test_umr_mstar_solves_eq9},
        {"umr rounds grow when theta > 1 (Fig. 6)", test_umr_rounds_grow_when_theta_above_one},
        {"umr selects the fastest links", test_umr_selects_fast_links},
        {"as4dr period converges to tau", test_as4dr_period_converges_to_tau},
        {"fifo/lifo shares match Theorems 1-2", test_fifo_lifo_shares_match_theorems},
        {"every iteration exactly once", test_every_iteration_exactly_once},
        {0, 0},
    };
    return lfcu_run("seed_rounds", tests);
}
