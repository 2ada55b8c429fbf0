/* tests/test_policy_statistical.c - the statistical policies (trad, deal,
 * dealdyn, multi; González-Vélez & Cole, "Adaptive statistical scheduling
 * of divisible workloads in heterogeneous systems", J. Scheduling, 2009)
 * and their arithmetic, on deterministic numbers: the paper's worked
 * example (Table 1, §3.2.2), eqs. (4)-(9) against hand values, and
 * degenerate inputs that must still give chunks >= 1 and cover every
 * iteration once. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lfcu.h"
#include "exec/exec.h"
#include "policy/fit.h"
#include "policy/policy.h"

#define MAXW 64

/* ---- a view the tests drive by hand ---- */

struct rig {
    struct lf__sched s;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8]; /* the instance's policy state */
    struct lf__exec x;                         /* the executor protocol's handle */
    struct lf__wstat *w;
    struct lf__view v;
    double now; /* the time chunk() is asked at */
};

static void rig_open(struct rig *g, const char *spec, int P, uint64_t n)
{
    char err[256] = "";
    int rc = lf__sched_parse(spec, &g->s, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "spec \"%s\": %s\n", spec, err);
    CU_ASSERT_FATAL(rc == 0);
    g->w = aligned_alloc(_Alignof(struct lf__wstat), (size_t)P * sizeof *g->w);
    CU_ASSERT_FATAL(g->w != NULL);
    memset(g->w, 0, (size_t)P * sizeof *g->w);
    memset(&g->v, 0, sizeof g->v);
    g->v.n = n;
    g->v.nworkers = P;
    g->v.w = g->w;
    g->x = (struct lf__exec){.sched = &g->s, .pstate = g->pstate, .view = &g->v};
    g->now = 0.0;
    lf__exec_start(&g->x, NULL, NULL);
}

static void rig_close(struct rig *g)
{
    free(g->w);
}

/* Worker j calibrated: one chunk of iters taking ns, with the statistics a
 * calibration leaves (t_i, a_i, l_i, bm_i). */
static void calib(struct rig *g, int j, uint64_t iters, uint64_t ns, double avail, double lat,
                  double bm)
{
    lf__exec_chunk_done(&g->x, j, iters, ns, ns + (uint64_t)lat, 1, 0, NULL);
    lf__exec_calib_report(&g->x, j, avail, lat, bm);
}

/* Worker j completed a chunk of iters taking busy ns (total with overhead),
 * recorded as every executor records one. */
static void record(struct rig *g, int j, uint64_t iters, uint64_t busy, uint64_t total, int calib)
{
    lf__exec_chunk_done(&g->x, j, iters, busy, total, calib, 0, NULL);
}

static void calibrated(struct rig *g, uint64_t r)
{
    lf__exec_calib_end(&g->x, r);
}

static uint64_t chunk(struct rig *g, int j, uint64_t r)
{
    return g->s.pol->chunk(g->pstate, &g->v, j, r, g->now); /* the raw answer */
}

/* Event-driven replay in integer time units: after calibration (one
 * iteration per worker, the team waiting for all), every worker starts at
 * time 0; worker j computes an iteration in ipt[j] units (0 allowed); ties
 * are served in worker order, as seed 000 Table 1 assumes.  Each worker's
 * installments go to seq[j][0..len[j]-1].  Returns the iterations handed
 * out (must be S - P), or -1 when a chunk was 0 or a runaway occurred. */
static long replay(const char *spec, int P, const uint64_t *ipt, uint64_t S, uint64_t seq[][64],
                   int *len, uint64_t *finish)
{
    struct rig g;
    uint64_t busy_until[MAXW], cur[MAXW];
    int active[MAXW];
    rig_open(&g, spec, P, S);
    for (int j = 0; j < P; j++) {
        calib(&g, j, 1, ipt[j], 1.0, 0.0, 1.0);
        len[j] = 0;
        busy_until[j] = 0;
        cur[j] = 0;
        active[j] = 1;
        finish[j] = 0;
    }
    uint64_t r = S - (uint64_t)P, handed = 0;
    calibrated(&g, r);
    for (long steps = 0; steps < 1000000; steps++) {
        int j = -1;
        for (int i = 0; i < P; i++)
            if (active[i] && (j < 0 || busy_until[i] < busy_until[j]))
                j = i;
        if (j < 0)
            break;
        uint64_t now = busy_until[j];
        if (cur[j]) { /* the chunk j just finished */
            record(&g, j, cur[j], cur[j] * ipt[j], cur[j] * ipt[j], 0);
        }
        int nactive = 0;
        for (int i = 0; i < P; i++)
            nactive += active[i];
        if (r == 0) {
            active[j] = 0;
            finish[j] = now;
            continue;
        }
        /* As the executors do: a 0 from a policy that may stop a worker is
         * honoured unless j is the last one active. */
        g.now = (double)now;
        uint64_t c = chunk(&g, j, r);
        if (c == 0 && (g.s.pol->flags & LF__P_MAYSTOP) && nactive > 1) {
            lf__exec_worker_gone(&g.x, j);
            active[j] = 0;
            finish[j] = now;
            continue;
        }
        if (c == 0) {
            rig_close(&g);
            return -1;
        }
        if (c > r)
            c = r;
        if (len[j] < 64)
            seq[j][len[j]++] = c;
        r -= c;
        handed += c;
        cur[j] = c;
        busy_until[j] = now + c * ipt[j];
        lf__exec_chunk_begin(&g.x, j, (double)now, c);
    }
    rig_close(&g);
    return r == 0 ? (long)handed : -1;
}

/* ---- trad ---- */

static void test_trad_is_one_at_a_time(void)
{
    struct rig g;
    rig_open(&g, "trad", 3, 100);
    CU_ASSERT(g.s.pol->flags & LF__P_FIXED);
    uint64_t rs[] = {1, 2, 99, 100, UINT64_MAX};
    for (size_t i = 0; i < sizeof rs / sizeof *rs; i++)
        CU_ASSERT_EQUAL(chunk(&g, (int)(i % 3), rs[i]), 1);
    rig_close(&g);
}

/* ---- deal ---- */

/* Claim a loop of n by P workers in a scrambled arrival order: exactly
 * min(n, P) chunks of ceil(n/P) or floor(n/P), covering n. */
static void test_deal_equal_shares_any_order(void)
{
    const uint64_t ns[] = {1, 2, 3, 7, 10, 64, 1000, 1001, 999983};
    const int Ps[] = {1, 2, 3, 4, 7, 16, 64};
    for (size_t a = 0; a < sizeof ns / sizeof *ns; a++)
        for (size_t b = 0; b < sizeof Ps / sizeof *Ps; b++) {
            uint64_t n = ns[a];
            int P = Ps[b];
            struct rig g;
            rig_open(&g, "deal", P, n);
            uint64_t r = n, chunks = 0, lo = n / (uint64_t)P, hi = lf__div_ceil(n, (uint64_t)P);
            unsigned seed = (unsigned)(n * 31 + (uint64_t)P);
            while (r > 0 && chunks <= n) {
                seed = seed * 1103515245u + 12345u;
                int w = (int)((seed >> 16) % (unsigned)P); /* any worker may come back */
                uint64_t c = chunk(&g, w, r);
                CU_ASSERT(c >= 1);
                if (c > r)
                    c = r;
                CU_ASSERT(c == lo || c == hi);
                r -= c;
                chunks++;
            }
            CU_ASSERT_EQUAL(r, 0);
            CU_ASSERT_EQUAL(chunks, n < (uint64_t)P ? n : (uint64_t)P);
            rig_close(&g);
        }
}

/* ---- the arithmetic (fit.c) ---- */

static void test_cv_and_k_match_hand_values(void)
{
    double t[] = {1, 2, 3, 4};
    /* sigma = sqrt(1.25), mean 2.5 (population, eq. 7) */
    CU_ASSERT_DOUBLE_EQUAL(lf__cv(t, 4), 0.447213595499958, 1e-12);
    /* the worked example's sigma = 1.3 is the sample sigma: sqrt(5/3) / 2.5 */
    struct lf__cv_acc acc = {0};
    for (int i = 0; i < 4; i++)
        lf__cv_add(&acc, t[i]);
    CU_ASSERT_DOUBLE_EQUAL(lf__cv_sample_value(&acc), sqrt(5.0 / 3.0) / 2.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lf__cv_value(&acc), lf__cv(t, 4), 1e-15);
    /* eq. (8) with S = 64: ln(64)^0.4472 */
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(64, lf__cv(t, 4)), 1.891536824842944, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(9600, 0.5), 3.0281212620131197, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(1e6, 0.25), 1.9279321017219042, 1e-12);
    /* CV = 0: a single round, whatever S */
    double eq[] = {5, 5, 5};
    CU_ASSERT_DOUBLE_EQUAL(lf__cv(eq, 3), 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(1e9, 0.0), 1.0, 0.0);
    /* S <= e: k = 1 (the paper assumes S > e) */
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(2, 1.0), 1.0, 0.0);
    /* k grows with S for a fixed CV, and with CV for a fixed S */
    double prev = 1.0;
    for (double S = 10; S < 1e9; S *= 10) {
        double k = lf__install_factor(S, 0.6);
        CU_ASSERT(k > prev);
        CU_ASSERT_DOUBLE_EQUAL(k, pow(log(S), 0.6), 1e-12);
        prev = k;
    }
    CU_ASSERT(lf__install_factor(1000, 0.8) > lf__install_factor(1000, 0.4));
    /* one value, or unknown (0) values, carry no dispersion */
    double one[] = {3}, unk[] = {0, 4, 0};
    CU_ASSERT_DOUBLE_EQUAL(lf__cv(one, 1), 0.0, 0.0);
    CU_ASSERT_DOUBLE_EQUAL(lf__cv(unk, 3), 0.0, 0.0);
}

static void test_install_size_rounds_and_floors_at_one(void)
{
    /* eq. (9): floor(R/k*F + 1/2) */
    CU_ASSERT_EQUAL(lf__install_size(64, 2, 0.48), 15);
    CU_ASSERT_EQUAL(lf__install_size(64, 2, 0.12), 4);
    CU_ASSERT_EQUAL(lf__install_size(10, 1, 0.25), 3); /* 2.5 rounds up */
    CU_ASSERT_EQUAL(lf__install_size(1, 4, 0.1), 1);   /* never 0 */
    CU_ASSERT_EQUAL(lf__install_size(0, 1, 0.5), 1);
    CU_ASSERT_EQUAL(lf__install_size(NAN, 1, 0.5), 1);
    CU_ASSERT_EQUAL(lf__install_size(100, 1, NAN), 1);
    CU_ASSERT(lf__install_size(1e30, 1, 1) >= (uint64_t)1 << 62);
}

static void test_fit_univariate_matches_hand_values(void)
{
    double c[3];
    /* exact line t = 1 + 2a */
    double x1[] = {0.2, 0.4, 0.6, 0.8}, y1[] = {1.4, 1.8, 2.2, 2.6};
    CU_ASSERT_EQUAL_FATAL(lf__fit_affine(x1, 1, y1, 4, c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c[0], 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c[1], 2.0, 1e-12);
    /* by hand: Sxy = 7, Sxx = 5, slope 1.4, intercept 4 - 1.4*2.5 = 0.5 */
    double x2[] = {1, 2, 3, 4}, y2[] = {2, 3, 5, 6};
    CU_ASSERT_EQUAL_FATAL(lf__fit_affine(x2, 1, y2, 4, c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c[0], 0.5, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c[1], 1.4, 1e-12);
    /* by hand: a' = 1, .75, .5, .25 against t = 1, 2, 3, 5: t = 6 - 5.2 a' */
    double x3[] = {1, 0.75, 0.5, 0.25}, y3[] = {1, 2, 3, 5};
    CU_ASSERT_EQUAL_FATAL(lf__fit_affine(x3, 1, y3, 4, c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c[0], 6.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c[1], -5.2, 1e-12);
}

static void test_fit_multivariate_matches_hand_values(void)
{
    double c[3];
    /* exact plane t = 3 + 0.01 l - 2 a'^2 */
    double x[5 * 2] = {100, 1.0, 200, 0.5625, 150, 0.25, 400, 0.0625, 300, 0.81}, y[5];
    for (int i = 0; i < 5; i++)
        y[i] = 3 + 0.01 * x[2 * i] - 2 * x[2 * i + 1];
    CU_ASSERT_EQUAL_FATAL(lf__fit_affine(x, 2, y, 5, c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c[0], 3.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c[1], 0.01, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c[2], -2.0, 1e-9);
    /* noisy: normal equations solved by hand in exact rationals */
    double yn[] = {1.0, 2.5, 3.0, 6.0, 2.0};
    CU_ASSERT_EQUAL_FATAL(lf__fit_affine(x, 2, yn, 5, c), 0);
    CU_ASSERT_DOUBLE_EQUAL(c[0], 3.1429246497102286, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(c[1], 0.006657202222720019, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(c[2], -3.30368931272967, 1e-9);
}

static void test_fit_refuses_degenerate_inputs(void)
{
    double c[3] = {42, 42, 42};
    double same[] = {0.5, 0.5, 0.5, 0.5}, y[] = {1, 2, 3, 4};
    CU_ASSERT_EQUAL(lf__fit_affine(same, 1, y, 4, c), -EDOM); /* constant predictor */
    CU_ASSERT_EQUAL(lf__fit_affine(y, 1, y, 1, c), -EDOM);    /* one observation */
    double col[] = {1, 2, 2, 4, 3, 6, 4, 8};                  /* x2 = 2 x1 */
    CU_ASSERT_EQUAL(lf__fit_affine(col, 2, y, 4, c), -EDOM);
    CU_ASSERT_EQUAL(lf__fit_affine(col, 2, y, 2, c), -EDOM); /* fewer than m+1 */
    double bad[] = {1, NAN, 3, 4};
    CU_ASSERT_EQUAL(lf__fit_affine(bad, 1, y, 4, c), -EDOM);
    CU_ASSERT_DOUBLE_EQUAL(c[0], 42, 0); /* untouched on failure */
}

/* ---- multi: the paper's worked example ---- */

/* Four workers with calibration times 1..4, S = 68, four iterations spent
 * calibrating: r = 64 at calibration end. */
static void paper_rig(struct rig *g, const char *spec)
{
    rig_open(g, spec, 4, 68);
    for (int j = 0; j < 4; j++)
        calib(g, j, 1, (uint64_t)(j + 1), 1.0, 0.0, 1.0);
    calibrated(g, 64);
}

static void test_multi_table1_first_installment(void)
{
    struct rig g;
    paper_rig(&g, "multi,k=2,min=1");
    CU_ASSERT(g.s.pol->flags & LF__P_CALIB);
    /* The first round comes from r = 64 whatever is left when each asks. */
    uint64_t want[] = {15, 8, 5, 4}, r = 64;
    for (int j = 0; j < 4; j++) {
        uint64_t c = chunk(&g, j, r);
        CU_ASSERT_EQUAL(c, want[j]);
        r -= c;
    }
    CU_ASSERT_EQUAL(r, 32);
    /* Arrival order does not change the first round. */
    CU_ASSERT_EQUAL(chunk(&g, 3, 64), 4);
    CU_ASSERT_EQUAL(chunk(&g, 0, 17), 15);
    rig_close(&g);
}

/* Workers' first chunks done as Table 1 row 1 says (sizes 15, 8, 5, 4 in
 * times 15, 16, 15, 16). */
static void finish_first_round(struct rig *g)
{
    const uint64_t c[] = {15, 8, 5, 4};
    for (int j = 0; j < 4; j++)
        record(g, j, c[j], c[j] * (uint64_t)(j + 1), c[j] * (uint64_t)(j + 1), 0);
}

static void test_multi_table1_second_installment(void)
{
    struct rig g;
    paper_rig(&g, "multi,k=2,min=1");
    finish_first_round(&g);
    /* Requests in the paper's order w1, w3, w2, w4 with R = 32, 24, 22, 19. */
    CU_ASSERT_EQUAL(chunk(&g, 0, 32), 8);
    CU_ASSERT_EQUAL(chunk(&g, 2, 24), 2);
    CU_ASSERT_EQUAL(chunk(&g, 1, 22), 3);
    CU_ASSERT_EQUAL(chunk(&g, 3, 19), 1);
    rig_close(&g);
}

/* §3.2.2: w4's chunk of 4 takes 8 instead of 16; F becomes .43, .215, .14,
 * .215 and its next chunk with R = 32 is floor(16 * .2143 + .5) = 3. */
static void test_multi_refreshes_fitness_from_latest_chunk(void)
{
    struct rig g;
    paper_rig(&g, "multi,k=2,min=1");
    const uint64_t c[] = {15, 8, 5};
    for (int j = 0; j < 3; j++)
        record(&g, j, c[j], c[j] * (uint64_t)(j + 1), c[j] * (uint64_t)(j + 1), 0);
    record(&g, 3, 4, 8, 8, 0);
    CU_ASSERT_DOUBLE_EQUAL(lf__view_last_ipt(&g.v, 3), 2.0, 0);
    CU_ASSERT_EQUAL(chunk(&g, 3, 32), 3);
    /* Without the speed-up it would have been floor(16 * .12 + .5) = 2. */
    record(&g, 3, 4, 16, 16, 0);
    CU_ASSERT_EQUAL(chunk(&g, 3, 32), 2);
    rig_close(&g);
}

/* Whole replay of Table 1: every worker's installments and termination
 * times (32, 30, 30, 28).  At t = 28 w4 stops with 3 iterations left, since
 * w1 finishes them no later than w4 would finish one (the stop rule). */
static void test_multi_replays_table1(void)
{
    const uint64_t ipt[] = {1, 2, 3, 4};
    const uint64_t want[4][9] = {
        {15, 8, 3, 2, 1, 1, 1, 1, 0}, {8, 3, 2, 1, 1, 0}, {5, 2, 1, 1, 1, 0}, {4, 1, 1, 1, 0}};
    const uint64_t want_fin[4] = {32, 30, 30, 28};
    uint64_t seq[4][64], fin[4];
    int len[4];
    long got = replay("multi,k=2,min=1", 4, ipt, 68, seq, len, fin);
    CU_ASSERT_EQUAL(got, 64);
    for (int j = 0; j < 4; j++) {
        int n = 0;
        while (want[j][n])
            n++;
        CU_ASSERT_EQUAL(len[j], n);
        for (int i = 0; i < n && i < len[j]; i++)
            CU_ASSERT_EQUAL(seq[j][i], want[j][i]);
        CU_ASSERT_EQUAL(fin[j], want_fin[j]);
    }
}

static void test_multi_k_from_dispersion(void)
{
    struct rig g;
    /* eq. (8) with times 1..4 and S = 64: k = 1.8915; w1's first chunk is
     * floor(64/1.8915 * .48 + .5) = 16, w4's floor(64/1.8915 * .12 + .5) = 4. */
    paper_rig(&g, "multi,min=1,kmin=1");
    CU_ASSERT_EQUAL(chunk(&g, 0, 64), 16);
    CU_ASSERT_EQUAL(chunk(&g, 1, 64), 8);
    CU_ASSERT_EQUAL(chunk(&g, 3, 64), 4);
    rig_close(&g);
    /* CV = 0: k = 1, a single round of equal shares (kmin=1, the paper) */
    rig_open(&g, "multi,kmin=1", 4, 104);
    for (int j = 0; j < 4; j++)
        calib(&g, j, 1, 5, 1.0, 0.0, 1.0);
    calibrated(&g, 100);
    for (int j = 0; j < 4; j++)
        CU_ASSERT_EQUAL(chunk(&g, j, 100 - 25 * (uint64_t)j), 25);
    rig_close(&g);
    /* ... and by default k never falls below kmin = 2: half the work in the
     * first round, floor(100/2 * .25 + .5) = 13 each */
    rig_open(&g, "multi", 4, 104);
    for (int j = 0; j < 4; j++)
        calib(&g, j, 1, 5, 1.0, 0.0, 1.0);
    calibrated(&g, 100);
    for (int j = 0; j < 4; j++)
        CU_ASSERT_EQUAL(chunk(&g, j, 100), 13);
    rig_close(&g);
    /* eq. (8) itself: CV = 0 gives k = 1 for any S; k grows as ln(S)^CV */
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(1e6, 0.0), 1.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(lf__install_factor(1e6, 0.5), sqrt(log(1e6)), 1e-9);
}

static void test_multi_min_chunk_rule(void)
{
    struct rig g;
    /* Four equal workers at 100 ns per iteration, k = 2. */
    rig_open(&g, "multi,k=2", 4, 1000000);
    for (int j = 0; j < 4; j++) {
        calib(&g, j, 1, 100, 1.0, 0.0, 1.0);
        record(&g, j, 10, 1000, 1000, 0); /* past the first round */
    }
    calibrated(&g, 900000);
    /* claim cost unknown: min 1, plain eq. (9) */
    CU_ASSERT_EQUAL(chunk(&g, 0, 8), 1);
    CU_ASSERT_EQUAL(chunk(&g, 0, 1600), 200);
    /* claims cost 1000 ns: a chunk must take >= 50 us, i.e. 500 iterations,
     * capped at ceil(R/P) */
    g.v.claim_ns = 1000;
    CU_ASSERT_EQUAL(chunk(&g, 0, 100000), 12500); /* above the minimum */
    CU_ASSERT_EQUAL(chunk(&g, 0, 2400), 500);     /* raised to it (eq. 9 gives 300) */
    CU_ASSERT_EQUAL(chunk(&g, 0, 1600), 400);     /* capped at R/P */
    CU_ASSERT_EQUAL(chunk(&g, 0, 3), 1);
    rig_close(&g);
    /* min=<n> and a bare chunk override the rule */
    rig_open(&g, "multi,k=2,min=7", 4, 100);
    calibrated(&g, 100);
    record(&g, 0, 1, 10, 10, 0); /* past its first round */
    g.v.claim_ns = 1e6;
    CU_ASSERT_EQUAL(chunk(&g, 0, 8), 7);
    rig_close(&g);
    rig_open(&g, "multi,9", 4, 100);
    calibrated(&g, 100);
    record(&g, 2, 1, 10, 10, 0);
    CU_ASSERT_EQUAL(chunk(&g, 2, 8), 9);
    rig_close(&g);
}

/* ---- dealdyn ---- */

/* Shares of the first (only) round with 4 workers, r = 100. */
static void dealdyn_shares(const char *spec, const double *t, const double *a, const double *l,
                           const uint64_t *want)
{
    struct rig g;
    rig_open(&g, spec, 4, 104);
    for (int j = 0; j < 4; j++)
        calib(&g, j, 1000, (uint64_t)llround(t[j] * 1000), a[j], l[j], 1.0);
    calibrated(&g, 100);
    for (int j = 0; j < 4; j++) {
        uint64_t c = chunk(&g, j, 100);
        if (c != want[j])
            fprintf(stderr, "%s: worker %d got %llu, want %llu\n", spec, j, (unsigned long long)c,
                    (unsigned long long)want[j]);
        CU_ASSERT_EQUAL(c, want[j]);
    }
    rig_close(&g);
}

static void test_dealdyn_times_only(void)
{
    const double t[] = {1, 2, 3, 4}, a[] = {1, 1, 1, 1}, l[] = {0, 0, 0, 0};
    const uint64_t want[] = {48, 24, 16, 12}; /* 100 * F_i, F = .48 .24 .16 .12 */
    dealdyn_shares("dealdyn", t, a, l, want);
    dealdyn_shares("dealdyn,calib=times", t, a, l, want);
    CU_ASSERT(lf__policy_find("dealdyn")->flags & LF__P_CALIB);
}

static void test_dealdyn_univariate_uses_fitted_times(void)
{
    /* fitted t = 6 - 5.2 a' = .8, 2.1, 3.4, 4.7: shares 56, 21, 13, 10 */
    const double t[] = {1, 2, 3, 5}, a[] = {1, 0.75, 0.5, 0.25}, l[] = {0, 0, 0, 0};
    const uint64_t want[] = {56, 21, 13, 10};
    dealdyn_shares("dealdyn,calib=lr", t, a, l, want);
    /* all availabilities equal: singular, times-only (F from 1, 2, 3, 5) */
    const double same[] = {0.9, 0.9, 0.9, 0.9};
    const uint64_t times[] = {49, 25, 16, 10};
    dealdyn_shares("dealdyn,calib=lr", t, same, l, times);
}

static void test_dealdyn_multivariate(void)
{
    /* t = 0.5 + 0.001 l + 1.5 a'^2 exactly: the fit returns t itself */
    const double a[] = {1, 0.5, 0.8, 0.3}, l[] = {1000, 3000, 2000, 500};
    double t[4];
    for (int j = 0; j < 4; j++)
        t[j] = 0.5 + 0.001 * l[j] + 1.5 * a[j] * a[j];
    /* t = 3, 3.875, 3.46, 1.135: F by eq. (4) */
    double s = 0;
    for (int j = 0; j < 4; j++)
        s += 1 / t[j];
    uint64_t want[4];
    for (int j = 0; j < 4; j++)
        want[j] = (uint64_t)floor(100 / t[j] / s + 0.5);
    dealdyn_shares("dealdyn,calib=mv", t, a, l, want);
    /* equal latencies: singular, times-only gives the same shares here */
    const double leq[] = {700, 700, 700, 700};
    dealdyn_shares("dealdyn,calib=mv", t, a, leq, want);
}

static void test_dealdyn_clamps_nonpositive_fit(void)
{
    /* The fitted line goes below zero at a' = 1: that worker is clamped to
     * 1% of the mean time, takes the largest share, and nothing is NaN. */
    struct rig g;
    /* by hand: t = 47.27 - 47.31 a', fitted -0.038, 4.69, 37.8, 42.5; the
     * first is clamped to 0.2125 (1% of the mean 21.25): shares 95, 4, 1, 0->1 */
    const double t[] = {3, 1, 40, 41}, a[] = {1.0, 0.9, 0.2, 0.1};
    rig_open(&g, "dealdyn,calib=lr", 4, 104);
    for (int j = 0; j < 4; j++)
        calib(&g, j, 100, (uint64_t)(t[j] * 100), a[j], 0, 1.0);
    calibrated(&g, 100);
    uint64_t c0 = chunk(&g, 0, 100), sum = 0;
    for (int j = 0; j < 4; j++) {
        uint64_t c = chunk(&g, j, 100);
        CU_ASSERT(c >= 1 && c <= 100);
        sum += c;
    }
    CU_ASSERT_EQUAL(c0, 95);
    CU_ASSERT_EQUAL(chunk(&g, 1, 100), 4);
    CU_ASSERT_EQUAL(chunk(&g, 3, 100), 1);
    CU_ASSERT(sum <= 102);
    rig_close(&g);
}

/* ---- static-weighted ---- */

/* One block per worker, contiguous and in worker order, tiling [0, n); with a measured time
 * per iteration for every worker, each of the n - P iterations beyond one per worker is dealt
 * in proportion to fitness (within one iteration of (n - P) F_j); without, equal blocks. */
static void test_static_weighted_blocks_follow_fitness(void)
{
    static const int teams[] = {1, 2, 3, 4, 8, 16, 33};
    for (size_t ti = 0; ti < sizeof teams / sizeof *teams; ti++) {
        int P = teams[ti];
        const uint64_t ns[] = {1,
                               (uint64_t)P - 1 + (P == 1),
                               (uint64_t)P,
                               (uint64_t)P + 1,
                               1000,
                               123457,
                               UINT64_MAX - 1};
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ni++)
            for (int measured = 0; measured < 2; measured++) {
                uint64_t n = ns[ni];
                struct rig g;
                rig_open(&g, "static-weighted", P, n);
                double fsum = 0;
                for (int j = 0; j < P; j++) {
                    double ipt = 10.0 * (1 + j % 3); /* 1x, 2x, 3x slower */
                    lf__word_putd(&g.w[j].calib_ipt, measured ? ipt : 0.0);
                    fsum += 1.0 / ipt;
                }
                uint64_t next = 0, start;
                for (int j = 0; j < P; j++) {
                    uint64_t size = g.s.pol->partition(g.pstate, &g.v, j, 0, &start);
                    CU_ASSERT_EQUAL(g.s.pol->partition(g.pstate, &g.v, j, 1, &start), 0);
                    if (!size) {
                        CU_ASSERT(n < (uint64_t)P); /* only with more workers than work */
                        continue;
                    }
                    CU_ASSERT_EQUAL(start, next);
                    next = start + size;
                    if (n < (uint64_t)P || n > 1000000)
                        continue;
                    if (measured) {
                        double want =
                            (double)(n - (uint64_t)P) * (1.0 / (10.0 * (1 + j % 3))) / fsum;
                        CU_ASSERT(fabs((double)(size - 1) - want) <= 1.0);
                    } else {
                        CU_ASSERT(size == n / (uint64_t)P + ((uint64_t)j < n % (uint64_t)P));
                    }
                }
                CU_ASSERT_EQUAL(next, n);
                rig_close(&g);
            }
    }
}

/* ---- every policy, degenerate inputs ---- */

static void test_degenerate_inputs_still_cover(void)
{
    const char *specs[] = {
        "trad",  "deal",      "dealdyn",        "dealdyn,calib=lr", "dealdyn,calib=mv",
        "multi", "multi,k=3", "multi,k=2,min=1"};
    struct {
        int P;
        uint64_t ipt[8];
        uint64_t S;
    } cases[] = {
        {1, {7}, 50},                     /* one worker */
        {4, {3, 3, 3, 3}, 200},           /* all equal */
        {4, {0, 0, 0, 0}, 200},           /* zero-time chunks */
        {3, {0, 5, 9}, 100},              /* one zero-time worker */
        {5, {1, 1000, 1, 1000, 1}, 5000}, /* wide dispersion */
        {8, {1, 2, 3, 4, 5, 6, 7, 8}, 9}, /* fewer iterations than workers after calibration */
        {2, {1, 1}, 3},                   /* S <= e after calibration */
    };
    for (size_t s = 0; s < sizeof specs / sizeof *specs; s++)
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            uint64_t seq[8][64], fin[8];
            int len[8];
            long got = replay(specs[s], cases[k].P, cases[k].ipt, cases[k].S, seq, len, fin);
            if (got != (long)(cases[k].S - (uint64_t)cases[k].P))
                fprintf(stderr, "%s, case %zu: handed %ld\n", specs[s], k, got);
            CU_ASSERT_EQUAL(got, (long)(cases[k].S - (uint64_t)cases[k].P));
        }
}

static void test_bad_parameters_are_refused(void)
{
    const char *bad[] = {
        "trad,4",       "deal,2",      "static-weighted,8", "dealdyn,calib=quadratic",
        "dealdyn,3",    "multi,k=0.5", "multi,k=x",         "multi,min=0",
        "multi,4,min=2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct lf__sched s;
        char err[256] = "";
        CU_ASSERT_EQUAL(lf__sched_parse(bad[i], &s, err, sizeof err), -EINVAL);
        CU_ASSERT(err[0] != '\0');
    }
    const char *good[] = {"trad", "deal", "dealdyn,calib=mv", "multi,k=2,cal=paper,min=1",
                          "multi,16"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        struct lf__sched s;
        char err[256] = "";
        CU_ASSERT_EQUAL(lf__sched_parse(good[i], &s, err, sizeof err), 0);
    }
}

/* af and multi with an executor's team sums (policy.h, contrib) hand out
 * the chunks of their loops over the team: 300 workers with random
 * statistics (some unmeasured, some with one sample, some stopped). */
static void test_team_sums_match_the_loop(void)
{
    enum { P = 300 };
    static const char *specs[] = {"af", "multi", "multi,min=1"};
    struct lf__wstat *w = aligned_alloc(64, P * sizeof *w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    srand(11);
    for (size_t k = 0; k < sizeof specs / sizeof *specs; k++) {
        memset(w, 0, P * sizeof *w);
        for (int j = 0; j < P; j++) {
            int n = j % 7 == 0 ? 0 : j % 5 == 0 ? 1 : 2 + rand() % 9;
            double sum = 0, sq = 0;
            for (int i = 0; i < n; i++) {
                double t = 50.0 + 400.0 * rand() / RAND_MAX;
                sum += t;
                sq += t * t;
            }
            lf__word_put(&w[j].ipt_n, (uint64_t)n);
            lf__word_putd(&w[j].ipt_sum, sum);
            lf__word_putd(&w[j].ipt_sq, sq);
            if (n) {
                lf__word_put(&w[j].last_iters, 10 + (uint64_t)(rand() % 1000));
                lf__word_put(&w[j].last_ns, (uint64_t)(sum / n * 37));
            }
            lf__word_put(&w[j].stopped, j % 11 == 3);
        }
        struct lf__sched s;
        char err[256];
        CU_ASSERT_FATAL(lf__sched_parse(specs[k], &s, err, sizeof err) == 0);
        struct lf__view v = {.n = 1000000, .nworkers = P, .w = w};
        double sums[LF__PSUMS] = {0};
        for (int j = 0; j < P; j++) {
            double c[LF__PSUMS] = {0};
            s.pol->contrib(s.state, &v, j, c);
            for (int i = 0; i < LF__PSUMS; i++)
                sums[i] += c[i];
        }
        int differ = 0;
        for (int j = 0; j < P; j++)
            for (uint64_t r = 7; r < 2000000; r = r * 3 + 1) {
                v.psum = NULL;
                uint64_t a = s.pol->chunk(s.state, &v, j, r, 1e6);
                v.psum = sums;
                uint64_t b = s.pol->chunk(s.state, &v, j, r, 1e6);
                CU_ASSERT(a == b || a == b + 1 || b == a + 1); /* rounding order only */
                differ += a != b;
            }
        CU_ASSERT(differ <= 3);
    }
    free(w);
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"trad_is_one_at_a_time", test_trad_is_one_at_a_time},
        {"deal_equal_shares_any_order", test_deal_equal_shares_any_order},
        {"cv_and_k_match_hand_values", test_cv_and_k_match_hand_values},
        {"install_size_rounds_and_floors_at_one", test_install_size_rounds_and_floors_at_one},
        {"fit_univariate_matches_hand_values", test_fit_univariate_matches_hand_values},
        {"fit_multivariate_matches_hand_values", test_fit_multivariate_matches_hand_values},
        {"fit_refuses_degenerate_inputs", test_fit_refuses_degenerate_inputs},
        {"multi_table1_first_installment", test_multi_table1_first_installment},
        {"team_sums_match_the_loop", test_team_sums_match_the_loop},
        {"multi_table1_second_installment", test_multi_table1_second_installment},
        {"multi_refreshes_fitness_from_latest_chunk",
         test_multi_refreshes_fitness_from_latest_chunk},
        {"multi_replays_table1", test_multi_replays_table1},
        {"multi_k_from_dispersion", test_multi_k_from_dispersion},
        {"multi_min_chunk_rule", test_multi_min_chunk_rule},
        {"dealdyn_times_only", test_dealdyn_times_only},
        {"dealdyn_univariate_uses_fitted_times", test_dealdyn_univariate_uses_fitted_times},
        {"dealdyn_multivariate", test_dealdyn_multivariate},
        {"dealdyn_clamps_nonpositive_fit", test_dealdyn_clamps_nonpositive_fit},
        {"static_weighted_blocks_follow_fitness", test_static_weighted_blocks_follow_fitness},
        {"degenerate_inputs_still_cover", test_degenerate_inputs_still_cover},
        {"bad_parameters_are_refused", test_bad_parameters_are_refused},
        {0},
    };
    return lfcu_run("seed000", tests);
}
