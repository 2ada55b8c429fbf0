/* tests/test_policy_classic.c - the classic and factoring policies (static,
 * dynamic, guided, tss, fac2, wf, awf-b..e, af) driven by numbers alone.
 *
 * A small event simulation stands in for the executor: P workers with fixed
 * times per iteration claim chunks from r unclaimed iterations, the one whose
 * chunk finishes first records it in its lf__wstat, runs the feedback hook
 * and claims again.  Properties are checked over a matrix of team sizes and
 * trip counts, and each formula against an independent reference.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lfcu.h"
#include "exec/exec.h"
#include "policy/fmath.h"
#include "policy/policy.h"

#define HUGE_N (UINT64_MAX - 5)
#define MAXP   64

static const int team_sizes[] = {1, 2, 3, 4, 8, 16, 33};
#define NTEAMS (int)(sizeof team_sizes / sizeof team_sizes[0])

/* Every chunk-driven spec the suite sweeps (static has its own tests). */
static const char *const chunk_specs[] = {
    "dynamic", "dynamic,7", "guided", "guided,5", "tss", "fac2", "wf", "wf,weights=1:2:1.5",
    "awf-b",   "awf-c",     "awf-d",  "awf-e",    "af",
};
#define NSPECS (int)(sizeof chunk_specs / sizeof chunk_specs[0])

/* The trip counts of the matrix for team size P (k of them). */
static int trip_counts(int P, uint64_t *out)
{
    uint64_t v[] = {0, 1, 2, (uint64_t)P - 1, (uint64_t)P, (uint64_t)P + 1, 1000, 1000000};
    memcpy(out, v, sizeof v);
    return (int)(sizeof v / sizeof v[0]);
}

/* ---- the simulated executor ---- */

struct rec {
    uint64_t r;    /* unclaimed before the claim */
    uint64_t want; /* what chunk() answered */
    uint64_t size; /* after clipping to r */
    int w;
};

struct sim {
    struct lf__sched sched;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8]; /* the instance's policy state */
    struct lf__exec x;                         /* the executor protocol's handle */
    struct lf__view v;
    struct lf__wstat *ws;
    double ipt[MAXP];         /* ns per iteration of each worker */
    double overhead_ns[MAXP]; /* scheduling time added to total_ns per chunk */
    struct rec *rec;
    size_t nrec, cap;
    int zero_chunk; /* chunk() ever answered 0 */
};

static void sim_open(struct sim *s, const char *spec, int P, uint64_t n)
{
    char err[256] = "";
    memset(s, 0, sizeof *s);
    int rc = lf__sched_parse(spec, &s->sched, err, sizeof err);
    if (rc != 0)
        fprintf(stderr, "\nparse \"%s\": %s\n", spec, err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    s->ws = aligned_alloc(_Alignof(struct lf__wstat), (size_t)P * sizeof *s->ws);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->ws);
    memset(s->ws, 0, (size_t)P * sizeof *s->ws);
    s->v = (struct lf__view){.n = n, .nworkers = P, .w = s->ws};
    s->x = (struct lf__exec){.sched = &s->sched, .pstate = s->pstate, .view = &s->v};
    /* The parsed state until sim_start() starts the loop (partition and
     * fixed-size chunk() read only what parsing set). */
    memcpy(s->pstate, s->sched.state, sizeof s->pstate);
    for (int w = 0; w < P; w++) {
        s->ipt[w] = 10.0 * (1 + w % 3); /* a heterogeneous team: 1x, 2x, 3x slower */
        s->overhead_ns[w] = 50.0;
    }
}

/* Loop start through the executor protocol; calibration results as
 * call-site memory gives them (calib_ipt, no samples). */
static void sim_start(struct sim *s)
{
    int P = s->v.nworkers;
    uint64_t cal[MAXP];
    double cost[MAXP][3];
    memset(cost, 0, sizeof cost);
    for (int w = 0; w < P; w++)
        cal[w] = 1;
    struct lf__site_mem mem = {1, s->ipt, cal, cost};
    lf__exec_start(&s->x, &mem, NULL);
}

static void sim_close(struct sim *s)
{
    free(s->ws);
    free(s->rec);
}

static uint64_t sim_chunk(struct sim *s, int w, uint64_t r)
{
    return s->sched.pol->chunk(s->pstate, &s->v, w, r, 0.0); /* the raw answer */
}

/* Worker w finished a chunk of size iterations: book it as the executor would. */
static void sim_complete(struct sim *s, int w, uint64_t size)
{
    double busy = (double)size * s->ipt[w];
    if (busy > 1e18)
        busy = 1e18;
    uint64_t b = (uint64_t)busy, t = b + (uint64_t)s->overhead_ns[w];
    lf__exec_chunk_done(&s->x, w, size, b, t, 0, 0, NULL);
}

static uint64_t sim_claim(struct sim *s, int w, uint64_t *r)
{
    uint64_t want = sim_chunk(s, w, *r);
    if (want == 0)
        s->zero_chunk = 1;
    uint64_t size = want < *r ? want : *r;
    if (size == 0)
        size = 1; /* keep the simulation finite; the flag above fails the test */
    if (s->nrec == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 1024;
        s->rec = realloc(s->rec, s->cap * sizeof *s->rec);
    }
    s->rec[s->nrec++] = (struct rec){*r, want, size, w};
    *r -= size;
    return size;
}

/* Run the loop until it is done or maxchunks were claimed; returns the sum
 * of the claimed sizes.  The worker whose chunk ends first claims next. */
static uint64_t sim_run(struct sim *s, size_t maxchunks)
{
    int P = s->v.nworkers;
    uint64_t r = s->v.n, sum = 0, pending[MAXP] = {0};
    double fin[MAXP] = {0};
    sim_start(s);
    for (int w = 0; w < P && r > 0 && s->nrec < maxchunks; w++) {
        pending[w] = sim_claim(s, w, &r);
        sum += pending[w];
        fin[w] = (double)pending[w] * s->ipt[w];
    }
    for (;;) {
        int w = -1;
        for (int j = 0; j < P; j++)
            if (pending[j] && (w < 0 || fin[j] < fin[w]))
                w = j;
        if (w < 0)
            break;
        sim_complete(s, w, pending[w]);
        pending[w] = 0;
        if (r > 0 && s->nrec < maxchunks) {
            pending[w] = sim_claim(s, w, &r);
            sum += pending[w];
            fin[w] += (double)pending[w] * s->ipt[w] + s->overhead_ns[w];
        }
    }
    return sum;
}

/* ---- every policy ---- */

static void test_every_policy_hands_out_each_iteration_exactly_once(void)
{
    for (int i = 0; i < NSPECS; i++)
        for (int t = 0; t < NTEAMS; t++) {
            int P = team_sizes[t];
            uint64_t ns[16];
            int k = trip_counts(P, ns);
            for (int j = 0; j < k; j++) {
                struct sim s;
                sim_open(&s, chunk_specs[i], P, ns[j]);
                uint64_t sum = sim_run(&s, SIZE_MAX);
                if (sum != ns[j] || s.zero_chunk)
                    fprintf(stderr, "\n%s P=%d n=%llu: sum %llu zero %d\n", chunk_specs[i], P,
                            (unsigned long long)ns[j], (unsigned long long)sum, s.zero_chunk);
                CU_ASSERT_EQUAL(sum, ns[j]);
                CU_ASSERT_FALSE(s.zero_chunk);
                sim_close(&s);
            }
        }
}

static void test_huge_trip_counts_never_overflow(void)
{
    for (int i = 0; i < NSPECS; i++)
        for (int t = 0; t < NTEAMS; t++) {
            int P = team_sizes[t];
            struct sim s;
            sim_open(&s, chunk_specs[i], P, HUGE_N);
            uint64_t sum = sim_run(&s, 300);
            uint64_t check = 0;
            int sane = !s.zero_chunk;
            for (size_t c = 0; c < s.nrec; c++) {
                sane &= s.rec[c].want >= 1 && s.rec[c].size <= s.rec[c].r;
                sane &= check + s.rec[c].size >= check; /* no wrap */
                check += s.rec[c].size;
            }
            if (!sane)
                fprintf(stderr, "\n%s P=%d: insane chunk near 2^64\n", chunk_specs[i], P);
            CU_ASSERT_TRUE(sane);
            CU_ASSERT_EQUAL(sum, check);
            CU_ASSERT_TRUE(sum <= HUGE_N);
            sim_close(&s);
        }
}

static void test_every_descriptor_is_registered_and_fits_its_state(void)
{
    static const char *const names[] = {"static", "dynamic", "guided", "tss",   "fac2", "wf",
                                        "awf-b",  "awf-c",   "awf-d",  "awf-e", "af"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const struct lf__policy *p = lf__policy_find(names[i]);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_STRING_EQUAL(p->name, names[i]);
        CU_ASSERT_PTR_NOT_NULL(p->synopsis);
        CU_ASSERT_PTR_NOT_NULL(p->help);
        CU_ASSERT_PTR_NOT_NULL(p->parse);
        CU_ASSERT_PTR_NOT_NULL(p->chunk);
        CU_ASSERT_TRUE(p->state_size <= LF__POLICY_STATE_MAX);
        CU_ASSERT_EQUAL(!!(p->flags & LF__P_STATIC), !!p->partition);
    }
}

/* ---- static ---- */

static void test_static_blocks_cover_range_once_and_differ_by_at_most_one(void)
{
    for (int t = 0; t < NTEAMS; t++) {
        int P = team_sizes[t];
        uint64_t ns[16];
        int k = trip_counts(P, ns);
        ns[k++] = HUGE_N;
        for (int j = 0; j < k; j++) {
            struct sim s;
            sim_open(&s, "static", P, ns[j]);
            const struct lf__policy *pol = s.sched.pol;
            uint64_t next = 0, lo = UINT64_MAX, hi = 0, start;
            for (int w = 0; w < P; w++) {
                uint64_t size = pol->partition(s.pstate, &s.v, w, 0, &start);
                if (size) {
                    CU_ASSERT_EQUAL(start, next); /* contiguous, in worker order */
                    CU_ASSERT_TRUE(size <= ns[j] - start);
                    next = start + size;
                }
                lo = size < lo ? size : lo;
                hi = size > hi ? size : hi;
                CU_ASSERT_EQUAL(pol->partition(s.pstate, &s.v, w, 1, &start), 0);
            }
            CU_ASSERT_EQUAL(next, ns[j]);
            CU_ASSERT_TRUE(hi - lo <= 1);
            sim_close(&s);
        }
    }
}

static void test_static_chunked_deals_chunks_round_robin(void)
{
    static const char *const specs[] = {"static,1", "static,3", "static,64"};
    static const uint64_t cs[] = {1, 3, 64};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < NTEAMS; t++) {
            int P = team_sizes[t];
            uint64_t ns[16];
            int k = trip_counts(P, ns);
            ns[k++] = HUGE_N;
            for (int j = 0; j < k; j++) {
                struct sim s;
                sim_open(&s, specs[i], P, ns[j]);
                const struct lf__policy *pol = s.sched.pol;
                uint64_t n = ns[j], c = cs[i], total = 0, start;
                int huge = n == HUGE_N;
                for (int w = 0; w < P; w++)
                    for (uint64_t kk = 0;; kk++) {
                        if (huge && kk == 4)
                            break;
                        uint64_t size = pol->partition(s.pstate, &s.v, w, kk, &start);
                        uint64_t expect = (kk * (uint64_t)P + (uint64_t)w) * c;
                        if (!huge && expect >= n) {
                            CU_ASSERT_EQUAL(size, 0);
                            break;
                        }
                        CU_ASSERT_EQUAL(start, expect);
                        CU_ASSERT_EQUAL(size, n - expect < c ? n - expect : c);
                        total += size;
                    }
                if (!huge) {
                    CU_ASSERT_EQUAL(total, n);
                }
                sim_close(&s);
            }
        }
}

/* ---- dynamic, guided ---- */

static void test_dynamic_takes_c_on_every_claim(void)
{
    static const char *const specs[] = {"dynamic", "dynamic,7", "dynamic,1000"};
    static const uint64_t cs[] = {1, 7, 1000};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < NTEAMS; t++) {
            struct sim s;
            sim_open(&s, specs[i], team_sizes[t], 12345);
            sim_run(&s, SIZE_MAX);
            CU_ASSERT_EQUAL(s.sched.pol->flags & LF__P_FIXED, LF__P_FIXED);
            for (size_t c = 0; c < s.nrec; c++)
                CU_ASSERT_EQUAL(s.rec[c].want, cs[i]);
            sim_close(&s);
        }
}

static void test_guided_takes_max_of_c_and_ceil_r_over_p(void)
{
    static const char *const specs[] = {"guided", "guided,5", "guided,100"};
    static const uint64_t cs[] = {1, 5, 100};
    for (int i = 0; i < 3; i++)
        for (int t = 0; t < NTEAMS; t++) {
            uint64_t P = (uint64_t)team_sizes[t];
            struct sim s;
            sim_open(&s, specs[i], (int)P, 1000000);
            sim_run(&s, SIZE_MAX);
            for (size_t c = 0; c < s.nrec; c++) {
                uint64_t g = (s.rec[c].r + P - 1) / P;
                CU_ASSERT_EQUAL(s.rec[c].want, g > cs[i] ? g : cs[i]);
            }
            sim_close(&s);
        }
}

/* ---- tss ---- */

static void test_tss_decreases_from_f_to_one_in_about_C_chunks(void)
{
    static const uint64_t ns[] = {1000, 12345, 1000000, 100000000};
    for (int t = 0; t < NTEAMS; t++)
        for (int j = 0; j < 4; j++) {
            uint64_t P = (uint64_t)team_sizes[t], n = ns[j];
            struct sim s;
            sim_open(&s, "tss", (int)P, n);
            /* Claims one after another: the series as a function of r alone. */
            sim_start(&s);
            uint64_t r = n;
            while (r)
                sim_claim(&s, 0, &r);
            uint64_t f = (n + 2 * P - 1) / (2 * P);
            double C = ceil(2.0 * (double)n / (double)(f + 1));
            CU_ASSERT_EQUAL(s.rec[0].want, f);
            int mono = 1;
            for (size_t c = 1; c < s.nrec; c++)
                mono &= s.rec[c].want <= s.rec[c - 1].want;
            CU_ASSERT_TRUE(mono);
            CU_ASSERT_TRUE(s.rec[s.nrec - 1].want >= 1);
            /* Sizes round up, so the loop ends within C chunks, a little
             * early: the paper's series over-covers n by up to (f + l) / 2. */
            double count = (double)s.nrec;
            int near = count <= C && count >= 0.8 * C - 1;
            if (!near)
                fprintf(stderr, "\ntss P=%llu n=%llu: %zu chunks, C=%g\n", (unsigned long long)P,
                        (unsigned long long)n, s.nrec, C);
            CU_ASSERT_TRUE(near);
            sim_close(&s);
        }
}

/* ---- fac2 ---- */

/* Compare the claimed sequence with factoring's recurrence: P chunks of
 * ceil(R/2P) per batch, R halving. */
static void check_fac2_sequence(const struct sim *s, uint64_t n, uint64_t P)
{
    uint64_t R = n;
    size_t c = 0;
    int ok = 1;
    uint64_t prev_cb = UINT64_MAX;
    while (R > 0 && ok) {
        uint64_t cb = (R + 2 * P - 1) / (2 * P), start = R;
        ok &= cb <= prev_cb / 2 + 1; /* chunks halve from batch to batch */
        for (uint64_t i = 0; i < P && R > 0; i++, c++) {
            uint64_t size = cb < R ? cb : R;
            ok &= c < s->nrec && s->rec[c].size == size;
            R -= size;
        }
        ok &= start - R <= start / 2 + P; /* a batch takes about half */
        prev_cb = cb;
    }
    ok &= c == s->nrec;
    if (!ok)
        fprintf(stderr, "\nfac2 P=%llu n=%llu: sequence differs at chunk %zu\n",
                (unsigned long long)P, (unsigned long long)n, c);
    CU_ASSERT_TRUE(ok);
}

static void test_fac2_batches_are_P_equal_chunks_halving(void)
{
    for (int t = 0; t < NTEAMS; t++) {
        uint64_t P = (uint64_t)team_sizes[t], ns[16];
        int k = trip_counts((int)P, ns);
        ns[k++] = 1ull << 40; /* more batches than the table holds */
        for (int j = 0; j < k; j++)
            for (int started = 0; started < 2; started++) {
                struct sim s;
                sim_open(&s, "fac2", (int)P, ns[j]);
                if (started)
                    sim_start(&s);
                uint64_t r = ns[j];
                while (r)
                    sim_claim(&s, (int)(s.nrec % P), &r);
                check_fac2_sequence(&s, ns[j], P);
                sim_close(&s);
            }
    }
}

/* ---- wf ---- */

static void test_wf_explicit_weights_scale_chunks_and_repeat_cyclically(void)
{
    static const int Ps[] = {2, 3, 4, 8};
    for (int t = 0; t < 4; t++) {
        int P = Ps[t];
        struct sim s;
        sim_open(&s, "wf,weights=1:3", P, 1000000);
        sim_start(&s);
        double sum = 0;
        for (int w = 0; w < P; w++)
            sum += w % 2 ? 3.0 : 1.0;
        uint64_t cb = (1000000 + 2 * (uint64_t)P - 1) / (2 * (uint64_t)P);
        for (int w = 0; w < P; w++) {
            double weight = P * (w % 2 ? 3.0 : 1.0) / sum;
            uint64_t expect = (uint64_t)(weight * (double)cb + 0.5);
            CU_ASSERT_EQUAL(sim_chunk(&s, w, 1000000), expect);
        }
        sim_close(&s);
    }
}

static void test_wf_measured_weights_follow_calibration(void)
{
    for (int t = 1; t < NTEAMS; t++) {
        int P = team_sizes[t];
        struct sim s;
        sim_open(&s, "wf", P, 1000000);
        for (int w = 0; w < P; w++)
            s.ipt[w] = w == 0 ? 10.0 : 20.0; /* worker 0 twice as fast */
        sim_start(&s);
        double c0 = (double)sim_chunk(&s, 0, 1000000), c1 = (double)sim_chunk(&s, 1, 1000000);
        CU_ASSERT_DOUBLE_EQUAL(c0 / c1, 2.0, 0.01);
        /* A worker that did not calibrate counts as the team's mean speed. */
        lf__word_putd(&s.ws[1].calib_ipt, 0.0);
        CU_ASSERT_EQUAL(sim_chunk(&s, 1, 1000000),
                        (1000000 + 2 * (uint64_t)P - 1) / (2 * (uint64_t)P));
        sim_close(&s);
    }
}

/* ---- awf ---- */

static const char *const awf_specs[] = {"awf-b", "awf-c", "awf-d", "awf-e"};

static void test_awf_weights_follow_measured_speed(void)
{
    for (int i = 0; i < 4; i++)
        for (int t = 1; t < NTEAMS; t++) {
            int P = team_sizes[t];
            struct sim s;
            sim_open(&s, awf_specs[i], P, 10000000);
            for (int w = 0; w < P; w++) {
                s.ipt[w] = w == 0 ? 10.0 : 20.0;
                s.overhead_ns[w] = 0.0;
            }
            CU_ASSERT_EQUAL(sim_run(&s, SIZE_MAX), 10000000);
            /* Before anyone measured, weights are 1: the first claim is fac2's. */
            CU_ASSERT_EQUAL(s.rec[0].want, (10000000 + 2 * (uint64_t)P - 1) / (2 * (uint64_t)P));
            double c0 = (double)sim_chunk(&s, 0, 1000000), c1 = (double)sim_chunk(&s, 1, 1000000);
            if (fabs(c0 / c1 - 2.0) > 0.05)
                fprintf(stderr, "\n%s P=%d: c0 %g c1 %g\n", awf_specs[i], P, c0, c1);
            CU_ASSERT_DOUBLE_EQUAL(c0 / c1, 2.0, 0.05);
            sim_close(&s);
        }
}

/* Book one chunk of size iterations taking ns on worker w. */
static void book(struct sim *s, int w, uint64_t size, uint64_t busy, uint64_t total)
{
    lf__exec_chunk_done(&s->x, w, size, busy, total, 0, 0, NULL);
}

static void test_awf_batch_variants_freeze_weights_within_a_batch(void)
{
    for (int i = 0; i < 4; i++) {
        int per_batch = i == 0 || i == 2;
        struct sim s;
        sim_open(&s, awf_specs[i], 2, 1000000);
        sim_start(&s);
        book(&s, 0, 1000, 1000, 1000);
        book(&s, 1, 1000, 1000, 1000);
        uint64_t before = sim_chunk(&s, 0, 900000);
        /* Worker 0 turns 10x faster, still early in the first batch. */
        book(&s, 0, 1000, 100, 100);
        uint64_t after = sim_chunk(&s, 0, 900000);
        if (per_batch) {
            CU_ASSERT_EQUAL(after, before);
        } else {
            CU_ASSERT_TRUE(after > before);
        }
        /* Past the batch boundary worker 0's next report is published. */
        book(&s, 1, 600000, 600000, 600000);
        book(&s, 0, 1000, 100, 100);
        CU_ASSERT_TRUE(sim_chunk(&s, 0, 900000) > before);
        sim_close(&s);
    }
}

static void test_awf_d_and_e_count_scheduling_time(void)
{
    for (int i = 0; i < 4; i++) {
        int with_overhead = i >= 2;
        struct sim s;
        sim_open(&s, awf_specs[i], 2, 1000000);
        sim_start(&s);
        /* Same compute speed; worker 0 waits three times as long to schedule. */
        for (int k = 0; k < 3; k++) {
            book(&s, 0, 1000, 1000, 4000);
            book(&s, 1, 1000, 1000, 2000);
        }
        double c0 = (double)sim_chunk(&s, 0, 1000000), c1 = (double)sim_chunk(&s, 1, 1000000);
        if (with_overhead) {
            CU_ASSERT_DOUBLE_EQUAL(c0 / c1, 0.5, 0.01);
        } else {
            CU_ASSERT_EQUAL(c0, c1);
        }
        sim_close(&s);
    }
}

/* ---- af ---- */

/* Give worker w per-chunk time-per-iteration samples xs[0..k). */
static void set_samples(struct sim *s, int w, const double *xs, int k)
{
    double sum = 0, sq = 0;
    for (int i = 0; i < k; i++) {
        sum += xs[i];
        sq += xs[i] * xs[i];
    }
    lf__word_put(&s->ws[w].ipt_n, (uint64_t)k);
    lf__word_putd(&s->ws[w].ipt_sum, sum);
    lf__word_putd(&s->ws[w].ipt_sq, sq);
}

static void test_af_falls_back_to_fac2_before_measurements(void)
{
    for (int t = 0; t < NTEAMS; t++) {
        uint64_t P = (uint64_t)team_sizes[t];
        struct sim s;
        sim_open(&s, "af", (int)P, 1000000);
        sim_start(&s);
        CU_ASSERT_EQUAL(sim_chunk(&s, 0, 1000000), (1000000 + 2 * P - 1) / (2 * P));
        sim_close(&s);
    }
}

/* The paper's form, computed independently: (D + 2TR - sqrt(D^2 + 4DTR)) / 2 / mu. */
static double af_reference(const double *mu, const double *var, int P, int w, double R)
{
    double D = 0, E = 0;
    for (int j = 0; j < P; j++) {
        D += var[j] / mu[j];
        E += 1.0 / mu[j];
    }
    double T = 1.0 / E;
    return (D + 2 * T * R - sqrt(D * D + 4 * D * T * R)) / 2.0 / mu[w];
}

static void test_af_matches_banicescu_liu_formula(void)
{
    static const double R[] = {100, 1000, 50000};
    for (int t = 1; t < NTEAMS; t++) {
        int P = team_sizes[t];
        struct sim s;
        double mu[MAXP], var[MAXP];
        sim_open(&s, "af", P, 1000000);
        sim_start(&s);
        for (int w = 0; w < P; w++) {
            /* Large spread: the variance term, not the guard, sets the chunk. */
            double m = 10.0 * (1 + w % 3), xs[4] = {m - 8, m + 8, m - 4, m + 4};
            set_samples(&s, w, xs, 4);
            mu[w] = m;
            var[w] = (64 + 64 + 16 + 16) / 3.0;
        }
        for (int i = 0; i < 3; i++)
            for (int w = 0; w < P; w++) {
                double ref = af_reference(mu, var, P, w, R[i]);
                double E = 0;
                for (int j = 0; j < P; j++)
                    E += 1.0 / mu[j];
                double guard = R[i] / E / mu[w] / 2.0;
                double expect = ceil(ref < guard ? ref : guard);
                if (expect < 1)
                    expect = 1;
                double got = (double)sim_chunk(&s, w, (uint64_t)R[i]);
                if (fabs(got - expect) > 1)
                    fprintf(stderr, "\naf P=%d w=%d R=%g: got %g expect %g\n", P, w, R[i], got,
                            expect);
                CU_ASSERT_DOUBLE_EQUAL(got, expect, 1.0);
            }
        sim_close(&s);
    }
}

static void test_af_zero_variance_stays_within_guard(void)
{
    static const uint64_t rs[] = {1, 2, 1000, 1000000, HUGE_N};
    for (int t = 0; t < NTEAMS; t++) {
        int P = team_sizes[t];
        struct sim s;
        sim_open(&s, "af", P, HUGE_N);
        sim_start(&s);
        double E = 0;
        for (int w = 0; w < P; w++) {
            double m = 10.0 * (1 + w % 3), xs[3] = {m, m, m};
            set_samples(&s, w, xs, 3);
            E += 1.0 / m;
        }
        for (int i = 0; i < 5; i++)
            for (int w = 0; w < P; w++) {
                double share = (double)rs[i] * (1.0 / (10.0 * (1 + w % 3))) / E;
                uint64_t got = sim_chunk(&s, w, rs[i]);
                CU_ASSERT_TRUE(got >= 1 && got <= rs[i]);
                /* Exactly half the share up to rounding (relative near 2^64). */
                double half = share / 2.0, slack = 1.0 + 1e-12 * half;
                CU_ASSERT_TRUE((double)got <= ceil(half) + slack);
                CU_ASSERT_TRUE((double)got >= half - slack || got == rs[i]);
            }
        sim_close(&s);
    }
}

static void test_af_chunks_follow_measured_speed(void)
{
    for (int t = 1; t < NTEAMS; t++) {
        int P = team_sizes[t];
        struct sim s;
        sim_open(&s, "af", P, 10000000);
        for (int w = 0; w < P; w++)
            s.ipt[w] = w == 0 ? 10.0 : 20.0;
        CU_ASSERT_EQUAL(sim_run(&s, SIZE_MAX), 10000000);
        double c0 = (double)sim_chunk(&s, 0, 1000000), c1 = (double)sim_chunk(&s, 1, 1000000);
        CU_ASSERT_DOUBLE_EQUAL(c0 / c1, 2.0, 0.05);
        sim_close(&s);
    }
}

/* ---- parsing ---- */

static void test_parse_rejects_bad_specs_with_a_message(void)
{
    static const struct {
        const char *spec, *mention;
    } bad[] = {
        {"tss,5", "tss"},
        {"fac2,3", "fac2"},
        {"af,2", "af"},
        {"awf-b,4", "awf-b"},
        {"awf-e,1", "awf-e"},
        {"guided,0", "guided"},
        {"dynamic,0", "dynamic"},
        {"static,0", "static"},
        {"wf,weights=1:-2", "weights"},
        {"wf,weights=1:0", "weights"},
        {"wf,weights=1::2", "weights"},
        {"wf,weights=1:x", "weights"},
        {"wf,weights=nan", "weights"},
        {"wf,8", "wf"},
        {"guided,4,k=2", "k"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct lf__sched s;
        char err[256] = "";
        int rc = lf__sched_parse(bad[i].spec, &s, err, sizeof err);
        if (rc != -EINVAL || !strstr(err, bad[i].mention))
            fprintf(stderr, "\n\"%s\": rc %d, \"%s\"\n", bad[i].spec, rc, err);
        CU_ASSERT_EQUAL(rc, -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(err, bad[i].mention));
    }
}

static void test_parse_accepts_documented_forms(void)
{
    static const char *const good[] = {
        "static",
        "static,4",
        "dynamic",
        "dynamic,8",
        "guided",
        "guided,3",
        "tss",
        "fac2",
        "wf",
        "wf,weights=1:2:1.5",
        "wf,weights=0.25",
        "awf-b",
        "awf-c",
        "awf-d",
        "awf-e",
        "af",
        "af,memory=off",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct lf__sched s;
        char err[256] = "";
        int rc = lf__sched_parse(good[i], &s, err, sizeof err);
        if (rc)
            fprintf(stderr, "\n\"%s\": %s\n", good[i], err);
        CU_ASSERT_EQUAL(rc, 0);
    }
}

/* Distance of a from b in units in the last place of b. */
static double ulps(double a, double b)
{
    if (a == b)
        return 0.0;
    double b_abs = fabs(b);
    return fabs(a - b) / (nextafter(b_abs, INFINITY) - b_abs);
}

/* lib/policy/fmath.h against libm: the contracts its header states, over values drawn
 * across the whole exponent range and at the edges. */
static void test_fmath_matches_libm(void)
{
    srand(12345);
    double worst_log = 0, worst_exp = 0, worst_ipow = 0, worst_pow = 0;
    for (int i = 0; i < 200000; i++) {
        double u = (double)rand() / RAND_MAX, v = (double)rand() / RAND_MAX;
        double x = exp((u - 0.5) * 1400.0); /* e^-700 .. e^700 */
        worst_log = fmax(worst_log, ulps(lf__log(x), log(x)));
        double y = (v - 0.5) * 1400.0;
        if (exp(y) > 0x1p-1022) /* normal results: subnormal ones are rounded twice */
            worst_exp = fmax(worst_exp, ulps(lf__exp(y), exp(y)));
        double b = u * 10.0, n = (double)(rand() % 300) - 100.0, e = (v - 0.5) * 80.0;
        if (isfinite(pow(b, n)) && pow(b, n) > 0x1p-1022)
            worst_ipow = fmax(worst_ipow, ulps(lf__pow(b, n), pow(b, n)));
        if (b > 0.0 && isfinite(pow(b, e)) && pow(b, e) > 0x1p-1022)
            worst_pow = fmax(worst_pow, ulps(lf__pow(b, e), pow(b, e)) / (2.0 + fabs(e * log(b))));
    }
    CU_ASSERT(worst_log <= 3.0);
    CU_ASSERT(worst_exp <= 2.0);
    CU_ASSERT(worst_ipow <= 2.0);
    CU_ASSERT(worst_pow <= 4.0);
    /* Exact where libm is exact. */
    CU_ASSERT(lf__log(1.0) == 0.0);
    CU_ASSERT(lf__exp(0.0) == 1.0);
    CU_ASSERT(lf__pow(2.0, 10.0) == 1024.0);
    CU_ASSERT(lf__pow(2.5, 3.0) == 15.625);
    CU_ASSERT(lf__pow(2.0, -3.0) == 0.125);
    for (int k = 0; k <= 22; k++)
        CU_ASSERT(lf__log10(pow(10.0, k)) == (double)k);
    for (int m = 2; m < 200000; m++) /* the decades of umr's probe() */
        CU_ASSERT(floor(40.0 * lf__log10(m)) == floor(40.0 * log10(m)));
    /* Edges. */
    CU_ASSERT(isnan(lf__log(-1.0)) && isnan(lf__log(NAN)));
    CU_ASSERT(lf__log(0.0) == -INFINITY && lf__log(INFINITY) == INFINITY);
    CU_ASSERT(ulps(lf__log(0x1p-1070), log(0x1p-1070)) <= 3.0); /* subnormal */
    CU_ASSERT(lf__exp(1000.0) == INFINITY && lf__exp(-1000.0) == 0.0 && isnan(lf__exp(NAN)));
    CU_ASSERT(lf__pow(0.0, 0.5) == 0.0 && lf__pow(0.0, -0.5) == INFINITY);
    CU_ASSERT(isnan(lf__pow(-2.0, 0.5)) && lf__pow(-2.0, 3.0) == -8.0);
    CU_ASSERT(lf__pow(NAN, 0.0) == 1.0 && lf__pow(1e300, 2.0) == INFINITY);
    /* fmax, fmin and nearbyint. */
    CU_ASSERT(lf__fmax(1.0, NAN) == 1.0 && lf__fmax(NAN, 2.0) == 2.0 && lf__fmax(-1.0, 3.0) == 3.0);
    CU_ASSERT(lf__fmin(1.0, NAN) == 1.0 && lf__fmin(NAN, 2.0) == 2.0 &&
              lf__fmin(-1.0, 3.0) == -1.0);
    const double r[] = {0.5,  1.5, 2.5, -2.5, 3.49999, -7.5000001, 1e15 + 0.5, 4503599627370495.5,
                        1e300};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        CU_ASSERT(lf__rint_even(r[i]) == nearbyint(r[i]));
}

static const struct lfcu_test tests[] = {
    {"every policy hands out each iteration exactly once",
     test_every_policy_hands_out_each_iteration_exactly_once},
    {"huge trip counts never overflow", test_huge_trip_counts_never_overflow},
    {"every descriptor is registered and fits its state",
     test_every_descriptor_is_registered_and_fits_its_state},
    {"static blocks cover the range once and differ by at most one",
     test_static_blocks_cover_range_once_and_differ_by_at_most_one},
    {"static,c deals chunks round robin", test_static_chunked_deals_chunks_round_robin},
    {"dynamic takes c on every claim", test_dynamic_takes_c_on_every_claim},
    {"guided takes max(c, ceil(r/P))", test_guided_takes_max_of_c_and_ceil_r_over_p},
    {"tss decreases from f to 1 in about C chunks",
     test_tss_decreases_from_f_to_one_in_about_C_chunks},
    {"fac2 batches are P equal chunks, halving", test_fac2_batches_are_P_equal_chunks_halving},
    {"wf explicit weights scale chunks and repeat cyclically",
     test_wf_explicit_weights_scale_chunks_and_repeat_cyclically},
    {"wf measured weights follow calibration", test_wf_measured_weights_follow_calibration},
    {"awf weights follow measured speed", test_awf_weights_follow_measured_speed},
    {"awf batch variants freeze weights within a batch",
     test_awf_batch_variants_freeze_weights_within_a_batch},
    {"awf-d and awf-e count scheduling time", test_awf_d_and_e_count_scheduling_time},
    {"af falls back to fac2 before measurements", test_af_falls_back_to_fac2_before_measurements},
    {"af matches the Banicescu-Liu formula", test_af_matches_banicescu_liu_formula},
    {"af with zero variance stays within its guard", test_af_zero_variance_stays_within_guard},
    {"af chunks follow measured speed", test_af_chunks_follow_measured_speed},
    {"parse rejects bad specs with a message", test_parse_rejects_bad_specs_with_a_message},
    {"parse accepts the documented forms", test_parse_accepts_documented_forms},
    {"fmath matches libm", test_fmath_matches_libm},
    {0},
};

int main(void)
{
    return lfcu_run("policy-classic", tests);
}
