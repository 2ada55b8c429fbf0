/* tests/test_policy_auto.c - the auto schedule and the cost profile it
 * learns, in virtual time: a loop whose iterations cost what a function
 * says, run by workers of known speeds through the executor protocol
 * (lib/exec) the way every executor runs it, several executions of one
 * call site in a row.  Asserts what was learned (the profile's shape, each
 * worker's time per unit, a dropped profile), every iteration once, and
 * chunk sizes as the formulas say. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"
#include "lfcu.h"
#include "policy/policy.h"

#define P 2

/* Iteration i of n costs cost(i) units; worker w takes speed[w] ns a unit. */
typedef double (*cost_fn)(uint64_t i, uint64_t n);

static double rising(uint64_t i, uint64_t n)
{
    return 0.1 + 2.0 * (double)i / (double)n;
}
static double falling(uint64_t i, uint64_t n)
{
    return rising(n - 1 - i, n);
}
static double flat(uint64_t i, uint64_t n)
{
    return 1.0;
}

struct site {
    struct lf__sched s;
    double ipt[P];
    uint64_t cal[P];
    double cost[P][3];
    struct lf__site_mem m;
};

static void site_open(struct site *st, const char *spec)
{
    char err[256];
    memset(st, 0, sizeof *st);
    CU_ASSERT_EQUAL_FATAL(lf__sched_parse(spec, &st->s, err, sizeof err), 0);
    st->m.ipt = st->ipt;
    st->m.cal = st->cal;
    st->m.cost = st->cost;
}

struct run {
    double makespan, work;     /* virtual ns; the sum of all iterations' time on worker 0 */
    uint64_t max_share_excess; /* most iterations a chunk held beyond ceil(r / P) */
    int from_memory;
    uint64_t chunks, first_chunk[P];
    uint64_t max_run_chunk; /* the largest chunk claimed after calibration */
    double piece_peak;      /* the view's piece_peak once the execution started */
    double expect0;         /* worker 0's time per iteration by the memory (calib_ipt) */
    uint64_t piece0;        /* worker 0's lease piece of the whole range, ramp aside */
    unsigned char *seen;
};

/* One execution of n iterations at site st, the workers taking turns by
 * who is free first (as threads would), each chunk booked as the
 * dispatcher books it. */
static void execute(struct site *st, uint64_t n, cost_fn f, const double *speed, struct run *out)
{
    struct lf__wstat w[P] __attribute__((aligned(64)));
    struct lf__view v = {0};
    struct lf__prof_acc acc[P];
    struct lf__profile prof;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8], cal0[P], cal_size[P];
    struct lf__exec x = {.sched = &st->s, .pstate = pstate, .view = &v, .acc = acc, .prof = &prof};
    memset(w, 0, sizeof w);
    memset(out, 0, sizeof *out);
    v.n = n;
    v.nworkers = P;
    v.w = w;
    v.claim_ns = 0.0;
    int calibrating = lf__exec_start(&x, &st->m, cal0);
    out->from_memory = v.calibrated_from_memory;
    out->piece_peak = v.piece_peak;
    out->expect0 = lf__word_getd(&w[0].calib_ipt);
    /* prev = n: a piece the ramp never cuts; no time of this instance yet: an eighth of n */
    out->piece0 = lf__exec_piece(&x, 0, LF__LEASE_ON, n, n, n);
    int cal[P], reports = 0;
    double free_at[P] = {0};
    for (int t = 0; t < P; t++) {
        cal[t] = calibrating;
        cal_size[t] = cal0[t];
    }
    out->seen = calloc(n, 1);
    uint64_t next = 0;
    while (next < n) {
        int t = free_at[1] < free_at[0];
        uint64_t r = n - next, c;
        int in_cal = calibrating; /* claimed during the team's calibration */
        if (calibrating)
            c = lf__exec_calib_size(&x, cal_size[t], r);
        else
            c = lf__exec_claim_size(&x, t, r, free_at[t]);
        if (c == 0) { /* stopped: the other finishes */
            lf__exec_worker_gone(&x, t);
            free_at[t] = 1e300;
            continue;
        }
        CU_ASSERT_FATAL(c <= r);
        uint64_t share = (r + P - 1) / P;
        if (c > share && c - share > out->max_share_excess)
            out->max_share_excess = c - share;
        if (w[t].chunks == w[t].calib_chunks && !in_cal && !out->first_chunk[t])
            out->first_chunk[t] = c;
        if (!in_cal && c > out->max_run_chunk)
            out->max_run_chunk = c;
        double busy = 0.0;
        for (uint64_t i = next; i < next + c; i++) {
            busy += speed[t] * f(i, n);
            out->work += speed[0] * f(i, n);
            out->seen[i]++;
        }
        lf__exec_chunk_begin(&x, t, free_at[t], c);
        /* booked in pieces of n / 256, as the dispatcher books a lease */
        for (uint64_t i = next, piece = n / 256 ? n / 256 : 1; i < next + c; i += piece) {
            uint64_t k = next + c - i < piece ? next + c - i : piece;
            double ns = 0.0;
            for (uint64_t j = i; j < i + k; j++)
                ns += speed[t] * f(j, n);
            lf__exec_profile_book(&x, t, i, k, ns);
        }
        lf__exec_profile_chunk(&x, t, next, c);
        if (lf__exec_chunk_done(&x, t, c, (uint64_t)busy, (uint64_t)busy, in_cal, cal[t],
                                &cal_size[t])) {
            lf__exec_calib_report(&x, t, 1.0, 0.0, 1.0);
            cal[t] = 0;
            if (++reports == P) {
                lf__exec_calib_end(&x, n - next - c);
                calibrating = 0;
            }
        }
        free_at[t] += busy;
        next += c;
        out->chunks++;
    }
    out->makespan = fmax(free_at[0] < 1e300 ? free_at[0] : 0, free_at[1] < 1e300 ? free_at[1] : 0);
    double drift;
    lf__exec_mem_end(&x, &st->m, &drift);
}

/* Every iteration ran once. */
static int once(const struct run *r, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        if (r->seen[i] != 1)
            return 0;
    return 1;
}

static const double even[P] = {100.0, 100.0}, uneven[P] = {100.0, 300.0};

/* k executions in a row, each covering every iteration once. */
static void execute_times(struct site *st, int k, uint64_t n, cost_fn f, const double *speed)
{
    struct run r;
    for (int e = 0; e < k; e++) {
        execute(st, n, f, speed, &r);
        CU_ASSERT(once(&r, n));
        free(r.seen);
    }
}

/* The learned profile has the loop's shape, whoever ran which part: a
 * worker three times slower is not taken for an expensive region. */
static void test_profile_learns_shape_not_speed(void)
{
    struct site st;
    site_open(&st, "auto,calns=1");
    uint64_t n = 6400;
    execute_times(&st, 4, n, rising, uneven);
    CU_ASSERT(st.m.prof.valid);
    CU_ASSERT(st.m.prof.conf > 0.9);
    CU_ASSERT(lf__exec_profile_weight(&st.m.prof) > 0.95); /* no noise: all of it is signal */
    double mean = 0.0;
    for (uint64_t i = 0; i < n; i++)
        mean += rising(i, n) / (double)n;
    for (int b = 0; b < LF__PROF_BINS; b++) {
        double mid = ((double)b + 0.5) * (double)n / LF__PROF_BINS;
        double want = rising((uint64_t)mid, n) / mean;
        CU_ASSERT_DOUBLE_EQUAL(st.m.prof.cost[b], want, 0.05 * want + 0.01);
    }
    /* times per unit: 100 and 300 ns in units of the mean iteration,
     * within the error of a profile constant over each bin (a confounded
     * estimate would be off by the cost ratio of the halves, ~3x) */
    CU_ASSERT_DOUBLE_EQUAL(st.ipt[1] / st.ipt[0], 3.0, 0.3);
    CU_ASSERT_DOUBLE_EQUAL(st.ipt[0], 100.0 * mean, 5.0 * mean);
}

/* Even cost, observed with noise that changes every execution: each bin
 * costs 1 + 0.4 u, u uniform in [-1, 1] from a hash of the bin and the
 * execution. */
static uint64_t noise_exec;
static double noise_of(uint64_t i, uint64_t n)
{
    unsigned short xs[3] = {(unsigned short)(i * LF__PROF_BINS / n), (unsigned short)noise_exec,
                            0x330e};
    erand48(xs); /* the first draw of nearby seeds is alike: use the third */
    erand48(xs);
    return 2.0 * erand48(xs) - 1.0;
}
static double noisy_flat(uint64_t i, uint64_t n)
{
    return 1.0 + 0.4 * noise_of(i, n);
}
static double noisy_rising(uint64_t i, uint64_t n)
{
    return rising(i, n) + 0.1 * noise_of(i, n);
}

/* A profile deals by the part of its spread that its prediction errors do
 * not explain as noise: a loop of even cost measured with noise ends up
 * dealt (nearly) evenly, one whose costs differ by far more than the noise
 * by (nearly) all of its profile. */
static void test_profile_weight_noise_vs_signal(void)
{
    struct site st;
    site_open(&st, "auto,calns=1");
    uint64_t n = 6400;
    double w_flat = 0.0, w_rising = 0.0;
    for (noise_exec = 0; noise_exec < 12; noise_exec++) {
        execute_times(&st, 1, n, noisy_flat, even);
        double w = lf__exec_profile_weight(&st.m.prof);
        CU_ASSERT(w >= 0.0 && w <= 1.0);
        if (noise_exec >= 6)
            w_flat += w / 6.0;
    }
    CU_ASSERT(st.m.prof.valid);
    CU_ASSERT(w_flat < 0.3);
    site_open(&st, "auto,calns=1");
    for (noise_exec = 100; noise_exec < 112; noise_exec++) {
        execute_times(&st, 1, n, noisy_rising, uneven);
        if (noise_exec >= 106)
            w_rising += lf__exec_profile_weight(&st.m.prof) / 6.0;
    }
    CU_ASSERT(w_rising > 0.95);
}

/* With a trusted profile the first round is dealt by expected cost: the
 * first chunk of each worker holds U / k1 * F_w units from where it
 * starts, and the execution ends close to the ideal. */
static void test_first_round_by_cost(void)
{
    struct site st;
    site_open(&st, "auto,calns=1,k1=2");
    struct run r;
    uint64_t n = 6400;
    execute(&st, n, rising, uneven, &r);
    free(r.seen);
    execute(&st, n, rising, uneven, &r);
    CU_ASSERT(r.from_memory);
    CU_ASSERT(once(&r, n));
    free(r.seen);
    /* Worker 0 (free first, F_0 = 3/4) starts at 0: its chunk holds
     * n / 2 * 3/4 units of the rising cost. */
    double units = 0.0, mean = 0.0, want = (double)n / 2.0 * 0.75;
    for (uint64_t i = 0; i < n; i++)
        mean += rising(i, n) / (double)n;
    for (uint64_t i = 0; i < r.first_chunk[0]; i++)
        units += rising(i, n) / mean;
    CU_ASSERT_DOUBLE_EQUAL(units, want, 0.05 * want);
    /* ideal: all the work over the summed speeds (1/100 + 1/300 per ns) */
    double ideal = r.work / 100.0 / (1.0 / 100.0 + 1.0 / 300.0);
    CU_ASSERT(r.makespan <= 1.10 * ideal);
    CU_ASSERT(r.chunks < 64);
}

/* A profile that stops predicting is replaced and not trusted next time;
 * one that predicts again is trusted again. */
static void test_profile_dropped_when_it_stops_predicting(void)
{
    struct site st;
    site_open(&st, "auto,calns=1");
    struct run r;
    uint64_t n = 3200;
    execute_times(&st, 3, n, rising, even);
    CU_ASSERT(st.m.prof.conf >= LF__PROF_TRUST);
    execute(&st, n, falling, even, &r);
    CU_ASSERT(once(&r, n));
    free(r.seen);
    CU_ASSERT(st.m.prof.dropped);
    CU_ASSERT(st.m.prof.conf < LF__PROF_TRUST);
    execute(&st, n, falling, even, &r);
    free(r.seen);
    CU_ASSERT(!st.m.prof.dropped);
    CU_ASSERT(st.m.prof.conf >= LF__PROF_TRUST);
}

/* A hot region that moves every execution (a tenth of the range costs 30
 * times the rest, starting elsewhere each time): after the first execution
 * it mispredicts, no profile is trusted again, so no later execution is
 * dealt by a profile learned from another (the selection of plans catches
 * what is left: test_selection_abandons_losing_plan). */
static uint64_t hot_at;
static double moving(uint64_t i, uint64_t n)
{
    uint64_t lo = hot_at % n, w = n / 10;
    return (i >= lo && i < lo + w) || (lo + w > n && i < lo + w - n) ? 30.0 : 1.0;
}

static void test_profile_distrusted_when_the_hot_region_moves(void)
{
    struct site st;
    site_open(&st, "auto,calns=1");
    struct run r;
    uint64_t n = 3200;
    int trusted_after_miss = 0;
    for (int e = 0; e < 12; e++) {
        hot_at = (uint64_t)e * 1237u; /* moves by more than the region's width */
        if (e >= 2)
            trusted_after_miss += st.m.prof.valid && st.m.prof.conf >= LF__PROF_TRUST;
        execute(&st, n, moving, even, &r);
        CU_ASSERT(once(&r, n));
        free(r.seen);
        if (e == 0) {
            CU_ASSERT(r.piece_peak <= 1.0); /* no profile yet */
            continue;
        }
        /* Every later profile is unconfirmed (just built, or replaced): the
         * lease pieces aim at LF__PIECE_NS on the costliest bins (30 times
         * the rest, up to 7.7 times the mean; less where one observation
         * cannot tell a worker that ran the region from a slow one), not
         * n / 8 iterations at the latest time per iteration. */
        CU_ASSERT(r.piece_peak >= 2.0 && r.piece_peak <= LF__PIECE_PEAK_MAX);
        CU_ASSERT_FATAL(r.expect0 > 0.0);
        CU_ASSERT(r.piece0 <= (uint64_t)ceil(LF__PIECE_NS / (r.expect0 * r.piece_peak)));
        CU_ASSERT(r.piece0 < n / 8);
    }
    CU_ASSERT_EQUAL(trusted_after_miss, 0);
}

/* A profile confirmed by a later execution leaves the pieces to the
 * latest times (piece_peak 1), even on a loop whose costs differ. */
static void test_pieces_free_once_confirmed(void)
{
    struct site st;
    site_open(&st, "auto,calns=1");
    uint64_t n = 3200;
    execute_times(&st, 1, n, rising, even); /* the first profile */
    struct run r;
    execute(&st, n, rising, even, &r); /* by a profile of one execution */
    free(r.seen);
    CU_ASSERT(r.piece_peak > 1.0);
    execute_times(&st, 2, n, rising, even);
    CU_ASSERT(st.m.prof.execs >= 2);
    execute(&st, n, rising, even, &r);
    CU_ASSERT(once(&r, n));
    free(r.seen);
    CU_ASSERT(r.piece_peak <= 1.0);
    CU_ASSERT_EQUAL(r.piece0, n / 8);
}

/* A trip count that changes between executions maps onto the same
 * normalised profile; a flat loop learns a flat profile. */
static void test_profile_normalised_over_trip_counts(void)
{
    struct site st;
    site_open(&st, "auto,calns=1");
    struct run r;
    const uint64_t trips[] = {1000, 4000, 250, 8000, 3};
    for (size_t k = 0; k < sizeof trips / sizeof *trips; k++) {
        execute(&st, trips[k], flat, even, &r);
        CU_ASSERT(once(&r, trips[k]));
        free(r.seen);
    }
    for (int b = 0; b < LF__PROF_BINS; b++)
        CU_ASSERT_DOUBLE_EQUAL(st.m.prof.cost[b], 1.0, 0.05);
}

/* A loop of few units (a PageRank sweep of 8 chunks of 16384 under the
 * shim): no execution, first or later, hands a worker more than its share
 * ceil(r / P) of what is left, and every one ends within one unit of the
 * best a team of two can do, ceil(n / 2) units. */
static void test_few_units_never_overstaked(void)
{
    for (uint64_t n = 2; n <= 16; n++) {
        struct site st;
        site_open(&st, "auto");
        for (int e = 0; e < 4; e++) {
            struct run r;
            execute(&st, n, flat, even, &r);
            CU_ASSERT(once(&r, n));
            CU_ASSERT(r.max_share_excess == 0);
            CU_ASSERT(r.makespan <= 100.0 * (double)((n + 1) / 2 + 1));
            free(r.seen);
        }
    }
}

/* A loop of at most 8 iterations per worker is self-scheduled, one
 * iteration per claim once calibrated, first execution or later, at even
 * and uneven speeds; a loop of more is dealt in larger chunks once the
 * site has learned it. */
static void test_few_iterations_self_scheduled(void)
{
    const double *speeds[] = {even, uneven};
    for (int sp = 0; sp < 2; sp++)
        for (uint64_t n = 2; n <= 8 * P + 16; n++) {
            struct site st;
            site_open(&st, "auto");
            for (int e = 0; e < 4; e++) {
                struct run r;
                execute(&st, n, flat, speeds[sp], &r);
                CU_ASSERT(once(&r, n));
                if (n <= 8 * P) {
                    CU_ASSERT(r.max_run_chunk <= 1);
                } else if (e > 0 && n >= 8 * P + 8) {
                    CU_ASSERT(r.max_run_chunk > 1);
                }
                free(r.seen);
            }
        }
}

/* The plan of the next execution of n iterations at site st on p workers,
 * with the constraints of in (NULL: none), checked for the shape every
 * plan has: a fixed chunk exactly when claimed with fetch-and-add, the
 * site's policy exactly under DEALT, which alone learns. */
static struct lf__plan plan_at(struct site *st, int p, uint64_t n, const struct lf__plan_in *in)
{
    struct lf__plan_in i = in ? *in : (struct lf__plan_in){0};
    i.sched = &st->s;
    i.workers = p;
    i.n = n;
    struct lf__plan pl = lf__exec_plan(&i, &st->m);
    CU_ASSERT_EQUAL(pl.claim == LF__CLAIM_FETCH_ADD, pl.chunk != 0);
    CU_ASSERT_EQUAL(pl.kind == LF__PLAN_DEALT, pl.sched == &st->s);
    CU_ASSERT(!pl.learns || pl.kind == LF__PLAN_DEALT);
    return pl;
}

/* Tiny: after a DEALT execution measured one worker's time per iteration
 * (100 ns here), a loop expected under LF__TINY_NS runs tiny in chunks of
 * ceil(n / 2P), LF__TINY_RECHECK - 1 times in a row, then under the plan
 * its selection gives (booked, so that a loop that grew is seen); never
 * for a longer loop, a team of one, leases asked for, memory off, a forced
 * plan, OpenMP's guided bound, or a schedule that learns no profile. */
static void test_tiny_rule(void)
{
    struct site st;
    site_open(&st, "auto");
    CU_ASSERT_EQUAL(plan_at(&st, P, 64, NULL).kind, LF__PLAN_DEALT); /* nothing measured yet */
    execute_times(&st, 1, 64, flat, even);
    CU_ASSERT_DOUBLE_EQUAL(st.m.team_ns_per_iter, 100.0, 1e-9);
    CU_ASSERT_NOT_EQUAL(plan_at(&st, P, 100, NULL).kind, LF__PLAN_TINY); /* 100 x 100 ns */
    for (int k = 1; k < LF__TINY_RECHECK; k++) {
        struct lf__plan pl = plan_at(&st, P, 99, NULL);
        CU_ASSERT_EQUAL(pl.kind, LF__PLAN_TINY);
        CU_ASSERT_EQUAL(pl.chunk, 25); /* ceil(99 / 4) */
        CU_ASSERT(!pl.booked && !pl.timed && !pl.split);
    }
    struct lf__plan re = plan_at(&st, P, 99, NULL); /* the recheck */
    CU_ASSERT(re.kind != LF__PLAN_TINY && re.booked);
    CU_ASSERT_EQUAL(st.m.tiny_runs, 0);
    CU_ASSERT_EQUAL(plan_at(&st, P, 1, NULL).kind, LF__PLAN_TINY);
    CU_ASSERT_NOT_EQUAL(plan_at(&st, 1, 1, NULL).kind, LF__PLAN_TINY);
    struct lf__plan_in cap = {.guided_cap = 1}, told = {.no_tiny = 1};
    CU_ASSERT_NOT_EQUAL(plan_at(&st, P, 1, &cap).kind, LF__PLAN_TINY);
    CU_ASSERT_NOT_EQUAL(plan_at(&st, P, 1, &told).kind, LF__PLAN_TINY);
    const char *never[] = {"auto,lease=on",
                           "auto,lease=off",
                           "auto,lease=force",
                           "auto,memory=off",
                           "auto,plan=own",
                           "multi",
                           "af"};
    for (size_t k = 0; k < sizeof never / sizeof *never; k++) {
        struct site o;
        site_open(&o, never[k]);
        o.m.team_ns_per_iter = 100.0;
        CU_ASSERT_NOT_EQUAL(plan_at(&o, P, 4, NULL).kind, LF__PLAN_TINY);
    }
}

/* The selection of site st for the trip counts run_model and plan_at's
 * callers use (4096 and 10000 iterations share a band). */
static struct lf__select *sel_of(struct site *st)
{
    return lf__exec_site_sel(&st->m, 10000);
}

/* The candidates and their shapes: the first LF__SEL_SETTLE executions
 * run DEALT, then OWN is tried (the loop's own schedule: guided where none
 * is given), then SELF
 * (fixed chunks of about LF__SELF_NS, one iteration when iterations are
 * longer, split where the order is free); the guided bound leaves SELF
 * out, located chunks leave only DEALT, a monotonic loop's SELF chunks
 * come from one counter, plan= forces a kind, and a schedule that does
 * not choose always runs DEALT. */
static void test_plan_candidates(void)
{
    struct site st;
    site_open(&st, "auto");
    struct lf__plan pl;
    st.m.team_ns_per_iter = 2.0 * LF__SELF_NS;
    for (int e = 0; e < LF__SEL_SETTLE; e++) { /* a site's first executions */
        pl = plan_at(&st, P, 4096, NULL);
        CU_ASSERT_EQUAL(pl.kind, LF__PLAN_DEALT);
        CU_ASSERT(pl.booked && pl.learns && pl.timed);
        CU_ASSERT_EQUAL(pl.lease, LF__LEASE_ON);
        lf__exec_plan_book(&st.m, &pl, 4096.0 * 100.0, 4096);
    }
    for (int e = 0; e < LF__SEL_TRIAL; e++) { /* its trial */
        pl = plan_at(&st, P, 4096, NULL);
        CU_ASSERT_EQUAL(pl.kind, LF__PLAN_OWN);
        CU_ASSERT_STRING_EQUAL(pl.sched->spec, "guided");
        CU_ASSERT(!pl.learns && !pl.timed && pl.booked && pl.claim == LF__CLAIM_CAS);
        lf__exec_plan_book(&st.m, &pl, 4096.0 * 150.0, 4096);
    }
    CU_ASSERT_EQUAL(sel_of(&st)->chosen, LF__PLAN_DEALT); /* it lost */
    pl = plan_at(&st, P, 4096, NULL);
    CU_ASSERT_EQUAL(pl.kind, LF__PLAN_SELF);
    CU_ASSERT_EQUAL(pl.chunk, 1);
    CU_ASSERT(pl.split && !pl.timed && pl.lease == LF__LEASE_OFF);
    struct lf__plan_in mono = {.monotonic = 1}, loc = {.located = 1}, cap = {.guided_cap = 1};
    pl = plan_at(&st, P, 4096, &mono);
    CU_ASSERT_EQUAL(pl.kind, LF__PLAN_SELF);
    CU_ASSERT(!pl.split);
    CU_ASSERT_EQUAL(plan_at(&st, P, 4096, &loc).kind, LF__PLAN_DEALT);
    CU_ASSERT_NOT_EQUAL(plan_at(&st, P, 4096, &cap).kind, LF__PLAN_SELF);
    /* Iterations of LF__SELF_NS / 10: chunks of ten. */
    st.m.team_ns_per_iter = 0.1 * LF__SELF_NS;
    CU_ASSERT_EQUAL(plan_at(&st, P, 4096, NULL).chunk, 10);
    /* The loop's own schedule, when given. */
    struct lf__sched own;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(lf__sched_parse("dynamic,3", &own, err, sizeof err), 0);
    struct site o;
    site_open(&o, "auto,plan=own");
    struct lf__plan_in with_own = {.own = &own};
    pl = plan_at(&o, P, 4096, &with_own);
    CU_ASSERT_EQUAL(pl.kind, LF__PLAN_OWN);
    CU_ASSERT(pl.sched == &own && pl.claim == LF__CLAIM_FETCH_ADD && pl.chunk == 3);
    CU_ASSERT(!pl.split && !pl.booked);
    const char *forced[] = {"auto,plan=dealt", "auto,plan=self", "auto,plan=tiny"};
    for (int k = 0; k < 3; k++) {
        site_open(&o, forced[k]);
        o.m.team_ns_per_iter = 100.0;
        pl = plan_at(&o, P, 4096, NULL);
        CU_ASSERT_EQUAL(pl.kind, k == 0 ? LF__PLAN_DEALT : k == 1 ? LF__PLAN_SELF : LF__PLAN_TINY);
        CU_ASSERT(!pl.booked);
    }
    const char *never[] = {"multi", "af", "guided", "auto,lease=on"};
    for (size_t k = 0; k < sizeof never / sizeof *never; k++) {
        site_open(&o, never[k]);
        for (int e = 0; e < 3; e++) {
            pl = plan_at(&o, P, 4096, NULL);
            CU_ASSERT_EQUAL(pl.kind, LF__PLAN_DEALT);
            CU_ASSERT(!pl.booked);
        }
    }
}

/* Executions at site st under a cost model: each plan's wall time per
 * iteration is ns[kind] times a deterministic noise factor within
 * 1 +- noise; returns the total time and counts executions per kind. */
static double run_model(struct site *st, int execs, const double *ns, double noise, unsigned *count,
                        unsigned *seed)
{
    double total = 0.0;
    for (int e = 0; e < execs; e++) {
        struct lf__plan pl = plan_at(st, P, 10000, NULL);
        *seed = *seed * 1103515245u + 12345u;
        double f = 1.0 + noise * (2.0 * (double)((*seed >> 8) % 1000) / 999.0 - 1.0);
        double t = ns[pl.kind] * f * 10000.0;
        lf__exec_plan_book(&st->m, &pl, t, 10000);
        total += t;
        count[pl.kind]++;
    }
    return total;
}

/* Selection, through an injected cost model: a plan that loses is
 * abandoned, and rerun rarely enough that the site's time stays within
 * 1 + LF__SEL_HYST + LF__SEL_SHARE per losing candidate of the best plan's
 * (plus the first executions' tries); noise within +-1 % does not flip the
 * choice; when the chosen plan gets slower (a change of load or input),
 * the site moves to the plan that is now best within a few executions, once
 * a fresh trial of it confirms. */
static void test_selection_abandons_losing_plan(void)
{
    struct site st;
    site_open(&st, "auto");
    st.m.team_ns_per_iter = 100.0; /* SELF a candidate from the start */
    unsigned count[LF__PLANS] = {0}, seed = 7;
    /* OWN best, SELF far behind, SERIAL the team's time twice over. */
    double ns[LF__PLANS] = {100.0, 70.0, 300.0, 200.0, 0.0};
    int execs = 2000;
    double total = run_model(&st, execs, ns, 0.01, count, &seed);
    CU_ASSERT_EQUAL(sel_of(&st)->chosen, LF__PLAN_OWN);
    double bound = (double)execs * ns[LF__PLAN_OWN] * 10000.0 *
                   (1.0 + LF__SEL_HYST + 3.0 * LF__SEL_SHARE + 0.01);
    CU_ASSERT(total <= bound + 10000.0 * (ns[LF__PLAN_DEALT] + ns[LF__PLAN_SELF]));
    /* SERIAL, a quick arm, stops each trial after its first execution. */
    CU_ASSERT(count[LF__PLAN_SERIAL] >= 1 && count[LF__PLAN_SERIAL] <= 4);
    /* The loser far behind is rerun far more rarely than the close one. */
    CU_ASSERT(count[LF__PLAN_SELF] < count[LF__PLAN_DEALT]);
    CU_ASSERT(count[LF__PLAN_SELF] <= 8);
    CU_ASSERT(count[LF__PLAN_OWN] >= (unsigned)execs * 95 / 100);
    unsigned long switches = sel_of(&st)->switches;
    /* Steady noise: the choice holds. */
    memset(count, 0, sizeof count);
    run_model(&st, 500, ns, 0.01, count, &seed);
    CU_ASSERT_EQUAL(sel_of(&st)->chosen, LF__PLAN_OWN);
    CU_ASSERT(sel_of(&st)->switches - switches <= 2);
    /* OWN gets three times slower: DEALT takes over within a window and a fresh trial. */
    ns[LF__PLAN_OWN] = 210.0;
    memset(count, 0, sizeof count);
    run_model(&st, LF__SEL_WIN + LF__SEL_TRIAL, ns, 0.01, count, &seed);
    CU_ASSERT_EQUAL(sel_of(&st)->chosen, LF__PLAN_DEALT);
    memset(count, 0, sizeof count);
    run_model(&st, 1000, ns, 0.01, count, &seed);
    CU_ASSERT_EQUAL(sel_of(&st)->chosen, LF__PLAN_DEALT);
    CU_ASSERT(count[LF__PLAN_DEALT] >= 950);
    /* A challenger that turns better is found at its next rerun. */
    ns[LF__PLAN_SELF] = 50.0;
    memset(count, 0, sizeof count);
    run_model(&st, 2 * LF__SEL_GAP_MAX, ns, 0.01, count, &seed);
    CU_ASSERT_EQUAL(sel_of(&st)->chosen, LF__PLAN_SELF);
}

/* A site chooses in each band of trip counts separately: executions of
 * 1000 iterations (band 4) where SELF is fastest and of 100000 (band 8)
 * where OWN is, choose SELF and OWN respectively; a band that occurs
 * later settles on the nearest band's choice; the first LF__SITE_BANDS
 * bands get a selection each, a later one the nearest band's (the lower
 * on a tie). */
static void test_plan_bands(void)
{
    struct site st;
    site_open(&st, "auto");
    st.m.team_ns_per_iter = 100.0;
    unsigned seed = 5;
    const uint64_t n[2] = {1000, 100000};
    const double ns[2][LF__PLANS] = {{100.0, 120.0, 60.0, 300.0, 0.0},
                                     {100.0, 60.0, 120.0, 300.0, 0.0}};
    unsigned ran[2][LF__PLANS] = {{0}};
    for (int e = 0; e < 1200; e++) {
        int b = e % 3 == 0; /* two in three executions are small */
        struct lf__plan pl = plan_at(&st, P, n[b], NULL);
        seed = seed * 1103515245u + 12345u;
        double f = 1.0 + 0.01 * (2.0 * (double)((seed >> 8) % 1000) / 999.0 - 1.0);
        lf__exec_plan_book(&st.m, &pl, ns[b][pl.kind] * f * (double)n[b], n[b]);
        if (e >= 600)
            ran[b][pl.kind]++;
    }
    struct lf__select *small = lf__exec_site_sel(&st.m, n[0]),
                      *big = lf__exec_site_sel(&st.m, n[1]);
    CU_ASSERT_PTR_NOT_EQUAL(small, big);
    CU_ASSERT_EQUAL(small->chosen, LF__PLAN_SELF);
    CU_ASSERT_EQUAL(big->chosen, LF__PLAN_OWN);
    CU_ASSERT(ran[0][LF__PLAN_SELF] >= 380 && ran[1][LF__PLAN_OWN] >= 190);
    CU_ASSERT_EQUAL(small->execs + big->execs, 1200);
    /* A third band (2^20 iterations, band 10) starts from the nearest
     * band's choice (band 8: OWN) and settles on it. */
    for (int e = 0; e < LF__SEL_SETTLE; e++) {
        struct lf__plan pl = plan_at(&st, P, (uint64_t)1 << 20, NULL);
        CU_ASSERT_EQUAL(pl.kind, LF__PLAN_OWN);
        CU_ASSERT(pl.booked);
        lf__exec_plan_book(&st.m, &pl, 100.0 * (double)(1 << 20), (uint64_t)1 << 20);
    }

    struct lf__site_mem m;
    memset(&m, 0, sizeof m);
    struct lf__select *at[10];
    for (int b = 0; b < 10; b++)
        at[b] = lf__exec_site_sel(&m, (uint64_t)1 << (2 * b)); /* 4^b: band b */
    /* Bands 0-3 first: a selection each; then 4-9 share band 3's. */
    for (int b = 0; b < LF__SITE_BANDS; b++)
        for (int c = 0; c < b; c++)
            CU_ASSERT_PTR_NOT_EQUAL(at[b], at[c]);
    for (int b = LF__SITE_BANDS; b < 10; b++)
        CU_ASSERT_PTR_EQUAL(at[b], at[LF__SITE_BANDS - 1]);
    memset(&m, 0, sizeof m);
    const int first[LF__SITE_BANDS] = {1, 3, 5, 7};
    for (int i = 0; i < LF__SITE_BANDS; i++)
        at[first[i]] = lf__exec_site_sel(&m, (uint64_t)1 << (2 * first[i]));
    CU_ASSERT_PTR_EQUAL(lf__exec_site_sel(&m, (uint64_t)1 << 8), at[3]);  /* band 4: tie, lower */
    CU_ASSERT_PTR_EQUAL(lf__exec_site_sel(&m, (uint64_t)1 << 18), at[7]); /* band 9 */
    CU_ASSERT_PTR_EQUAL(lf__exec_site_sel(&m, 1), at[1]);                 /* band 0 */
    CU_ASSERT_PTR_EQUAL(lf__exec_site_sel(&m, 3), at[1]);                 /* still band 0 */
    CU_ASSERT_PTR_EQUAL(lf__exec_site_sel(&m, 7), at[1]);                 /* band 1 */
}

/* Run site st under the cost model of run_model (noise +-1 %) for execs
 * executions; return how many ran SERIAL and the longest run of SERIAL
 * executions in a row. */
static unsigned serial_runs(struct site *st, int execs, const double *ns, unsigned *longest,
                            unsigned *seed)
{
    unsigned n = 0, row = 0;
    *longest = 0;
    for (int e = 0; e < execs; e++) {
        unsigned count[LF__PLANS] = {0};
        run_model(st, 1, ns, 0.01, count, seed);
        row = count[LF__PLAN_SERIAL] ? row + 1 : 0;
        n += count[LF__PLAN_SERIAL];
        if (row > *longest)
            *longest = row;
    }
    return n;
}

/* SERIAL is tried only once the site has booked enough executions for its
 * first trial to cost at most LF__SERIAL_FIRST_SHARE of them (one execution
 * at P times the team's time, the rest of a trial at 1 + LF__SEL_QUICK),
 * and is then chosen where it is the fastest; a trial that loses clearly
 * stops after its first execution, one that loses narrowly runs its whole
 * length; plan=serial runs it from the first execution as one chunk of the
 * whole loop; OpenMP's guided bound rules it out. */
static void test_serial_admission(void)
{
    struct site st;
    site_open(&st, "auto");
    st.m.team_ns_per_iter = 100.0;
    unsigned count[LF__PLANS] = {0}, seed = 11;
    double ns[LF__PLANS] = {100.0, 110.0, 120.0, 40.0, 0.0}; /* SERIAL best by far */
    int admit =
        (int)ceil(((P - 1) + LF__SEL_QUICK * (LF__SEL_TRIAL - 1)) / LF__SERIAL_FIRST_SHARE) - 1;
    CU_ASSERT(admit > LF__SEL_SETTLE + 4 * LF__SEL_TRIAL);
    run_model(&st, admit, ns, 0.01, count, &seed);
    CU_ASSERT_EQUAL(count[LF__PLAN_SERIAL], 0);
    CU_ASSERT_NOT_EQUAL(sel_of(&st)->chosen, LF__PLAN_SERIAL);
    memset(count, 0, sizeof count);
    run_model(&st, 200, ns, 0.01, count, &seed);
    CU_ASSERT_EQUAL(sel_of(&st)->chosen, LF__PLAN_SERIAL);
    CU_ASSERT(count[LF__PLAN_SERIAL] >= 150);

    /* Clearly losing (P times the team's time): one execution per trial,
     * rerun at gaps that keep it within LF__SEL_SHARE. */
    unsigned longest;
    struct site lose;
    site_open(&lose, "auto");
    lose.m.team_ns_per_iter = 100.0;
    double slow[LF__PLANS] = {100.0, 110.0, 120.0, 100.0 * P, 0.0};
    unsigned n = serial_runs(&lose, 3000, slow, &longest, &seed);
    CU_ASSERT_EQUAL(longest, 1);
    CU_ASSERT(n >= 1 && n <= 4);
    CU_ASSERT(n * (slow[LF__PLAN_SERIAL] / slow[LF__PLAN_DEALT] - 1.0) <=
              LF__SERIAL_FIRST_SHARE * (admit + 1) + 3000 * LF__SEL_SHARE);
    CU_ASSERT_EQUAL(sel_of(&lose)->chosen, LF__PLAN_DEALT);
    /* Narrowly losing (within 1 + LF__SEL_QUICK): whole trials. */
    struct site near;
    site_open(&near, "auto");
    near.m.team_ns_per_iter = 100.0;
    double close[LF__PLANS] = {100.0, 110.0, 120.0, 105.0, 0.0};
    n = serial_runs(&near, 1000, close, &longest, &seed);
    CU_ASSERT_EQUAL(longest, LF__SEL_TRIAL);
    CU_ASSERT_EQUAL(sel_of(&near)->chosen, LF__PLAN_DEALT);

    struct site f;
    site_open(&f, "auto,plan=serial");
    struct lf__plan pl = plan_at(&f, P, 1000, NULL);
    CU_ASSERT_EQUAL(pl.kind, LF__PLAN_SERIAL);
    CU_ASSERT_EQUAL(pl.chunk, 1000);
    CU_ASSERT_EQUAL(pl.claim, LF__CLAIM_FETCH_ADD);
    CU_ASSERT_EQUAL(pl.lease, LF__LEASE_OFF);
    CU_ASSERT(!pl.split);
    CU_ASSERT(!pl.booked);
    struct lf__plan_in cap = {.guided_cap = 1};
    CU_ASSERT_EQUAL(plan_at(&f, P, 1000, &cap).kind, LF__PLAN_DEALT);
}

/* Two plans are the same when every field is, whatever their padding bytes hold. */
static void test_plan_same(void)
{
    struct lf__plan a, b;
    memset(&a, 0x00, sizeof a);
    memset(&b, 0xA5, sizeof b); /* other padding */
    a.kind = b.kind = LF__PLAN_OWN;
    a.sched = b.sched = NULL;
    a.claim = b.claim = LF__CLAIM_FETCH_ADD;
    a.chunk = b.chunk = 64;
    a.lease = b.lease = LF__LEASE_OFF;
    a.split = b.split = 1;
    a.cap = b.cap = 0;
    a.timed = b.timed = 0;
    a.learns = b.learns = 0;
    a.booked = b.booked = 1;
    a.spread = b.spread = 0;
    CU_ASSERT(lf__exec_plan_same(&a, &b));
    b.chunk = 65;
    CU_ASSERT(!lf__exec_plan_same(&a, &b));
    b.chunk = 64;
    b.booked = 0;
    CU_ASSERT(!lf__exec_plan_same(&a, &b));
    b.booked = 1;
    b.spread = 1;
    CU_ASSERT(!lf__exec_plan_same(&a, &b));
}

/* Run a two-arm selection (arm 0 settles for the first settle executions, arm 1 allowed when
 * allow) for execs executions whose times per iteration are ns[arm]; count each arm's
 * executions. */
static void run_settled(struct lf__select *sel, unsigned settle, int execs, const double ns[2],
                        int allow, unsigned count[2])
{
    for (int e = 0; e < execs; e++) {
        int k = lf__select_next(sel, allow ? 1u << 1 : 0u, 0, settle);
        CU_ASSERT_FATAL(k == 0 || k == 1);
        count[k]++;
        lf__select_book(sel, k, ns[k], 1.0);
    }
}

/* run_settled with auto's settling. */
static void run_two_arms(struct lf__select *sel, int execs, const double ns[2], int allow,
                         unsigned count[2])
{
    run_settled(sel, LF__SEL_SETTLE, execs, ns, allow, count);
}

/* The selection on its own, two arms (arm 0: the control that settles; arm 1 allowed only when
 * the caller says so): the control runs the first LF__SEL_SETTLE executions (auto's settling;
 * any caller's, below); a
 * challenger that wins its trial is chosen, one that loses is rerun at gaps that keep its cost
 * within LF__SEL_SHARE; an arm outside the mask never runs; a chosen arm that slows down is left.
 */
static void test_select_two_arms(void)
{
    struct lf__select sel = {0};
    unsigned count[2] = {0};
    double ns[2] = {100.0, 60.0};
    run_two_arms(&sel, LF__SEL_SETTLE, ns, 1, count);
    CU_ASSERT_EQUAL(count[0], LF__SEL_SETTLE);
    CU_ASSERT_EQUAL(count[1], 0);
    run_two_arms(&sel, LF__SEL_TRIAL, ns, 1, count);
    CU_ASSERT_EQUAL(count[1], LF__SEL_TRIAL);
    CU_ASSERT_EQUAL(sel.chosen, 1); /* won its trial */
    memset(count, 0, sizeof count);
    run_two_arms(&sel, 2000, ns, 1, count);
    CU_ASSERT_EQUAL(sel.chosen, 1);
    /* The control's reruns cost at most LF__SEL_SHARE of the site's time, plus the first. */
    double extra = count[0] * (ns[0] - ns[1]);
    CU_ASSERT(extra <= LF__SEL_SHARE * 2000.0 * ns[1] + 2.0 * LF__SEL_TRIAL * (ns[0] - ns[1]));
    CU_ASSERT(count[0] >= LF__SEL_TRIAL); /* it was rerun: a change would be noticed */

    /* The challenger loses: abandoned, rerun rarely. */
    struct lf__select lose = {0};
    double worse[2] = {100.0, 150.0};
    memset(count, 0, sizeof count);
    run_two_arms(&lose, 3000, worse, 1, count);
    CU_ASSERT_EQUAL(lose.chosen, 0);
    CU_ASSERT(count[1] * (worse[1] - worse[0]) <=
              LF__SEL_SHARE * 3000.0 * worse[0] + 2.0 * LF__SEL_TRIAL * (worse[1] - worse[0]));

    /* Not allowed (no weights yet): never run, whatever it measured before. */
    memset(count, 0, sizeof count);
    run_two_arms(&sel, 500, ns, 0, count);
    CU_ASSERT_EQUAL(count[1], 0);

    /* The chosen arm slows down past the other's latest trial: the other takes over. */
    struct lf__select slow = {0};
    memset(count, 0, sizeof count);
    run_two_arms(&slow, 100, ns, 1, count);
    CU_ASSERT_EQUAL(slow.chosen, 1);
    double slower[2] = {100.0, 130.0};
    memset(count, 0, sizeof count);
    run_two_arms(&slow, 4 * LF__SEL_GAP_MAX, slower, 1, count);
    CU_ASSERT_EQUAL(slow.chosen, 0);
    CU_ASSERT(count[0] > count[1]);

    /* A caller's own, shorter settling: the control runs exactly that many, then the
     * challenger's trial follows at once. */
    for (unsigned settle = 1; settle <= LF__SEL_SETTLE; settle++) {
        struct lf__select quick = {0};
        memset(count, 0, sizeof count);
        run_settled(&quick, settle, (int)settle, ns, 1, count);
        CU_ASSERT_EQUAL(count[0], settle);
        run_settled(&quick, settle, LF__SEL_TRIAL, ns, 1, count);
        CU_ASSERT_EQUAL(count[1], LF__SEL_TRIAL);
        CU_ASSERT_EQUAL(quick.chosen, 1);
    }
}

/* A trial that loses by far stops early: an arm at 4 times the control's time runs
 * LF__SEL_CUT_AFTER executions of each short trial (not of lengthened ones), and costs within
 * LF__SEL_SHARE of the site's time; an arm behind by less than the cut runs its whole trial; a
 * winner whose first execution was late is not cut, and is chosen. */
static void test_select_cut_trial(void)
{
    unsigned count[2] = {0};
    double far[2] = {100.0, 400.0};
    struct lf__select sel = {0};
    run_two_arms(&sel, LF__SEL_SETTLE + LF__SEL_CUT_AFTER, far, 1, count);
    CU_ASSERT_EQUAL(count[1], LF__SEL_CUT_AFTER);
    CU_ASSERT_EQUAL(sel.arm[1].fresh, 0); /* its trial ended */
    CU_ASSERT(sel.arm[1].due > sel.execs);
    memset(count, 0, sizeof count);
    run_two_arms(&sel, 3000, far, 1, count);
    CU_ASSERT_EQUAL(sel.chosen, 0);
    CU_ASSERT(count[1] * (far[1] - far[0]) <=
              LF__SEL_SHARE * 3000.0 * far[0] + LF__SEL_CUT_AFTER * (far[1] - far[0]));

    /* Trials that have lengthened (the site's times move) are not cut: the trial runs on. */
    struct lf__select longer = {0};
    memset(count, 0, sizeof count);
    run_two_arms(&longer, LF__SEL_SETTLE, far, 1, count);
    longer.len = 4 * LF__SEL_TRIAL;
    longer.since = longer.execs;
    run_two_arms(&longer, LF__SEL_CUT_AFTER + 1, far, 1, count);
    CU_ASSERT_EQUAL(count[1], LF__SEL_CUT_AFTER + 1);
    CU_ASSERT_EQUAL(longer.arm[1].fresh, LF__SEL_CUT_AFTER + 1);

    /* Behind by less than the cut: the whole trial runs, and loses. */
    double near[2] = {100.0, 100.0 * (1.0 + 0.6 * LF__SEL_CUT)};
    struct lf__select whole = {0};
    memset(count, 0, sizeof count);
    run_two_arms(&whole, LF__SEL_SETTLE + LF__SEL_TRIAL, near, 1, count);
    CU_ASSERT_EQUAL(count[1], LF__SEL_TRIAL);
    CU_ASSERT_EQUAL(whole.chosen, 0);

    /* A winner (0.7) whose first trial execution ran at twice the control's time. */
    struct lf__select late = {0};
    unsigned tried = 0;
    for (int e = 0; e < 600; e++) {
        int k = lf__select_next(&late, 1u << 1, 0, LF__SEL_SETTLE);
        double x = k == 0 ? 100.0 : tried++ == 0 ? 200.0 : 70.0;
        lf__select_book(&late, k, x, 1.0);
    }
    CU_ASSERT_EQUAL(late.chosen, 1);
    CU_ASSERT(tried >= 500);
}

/* Book execs pairs of times (t0, t1) to p; count the executions each arm ran. */
static void run_pairs(struct lf__pair *p, int execs, double t0, double t1, unsigned count[2])
{
    for (int e = 0; e < execs; e++) {
        CU_ASSERT_FATAL(p->chosen == 0 || p->chosen == 1);
        count[p->chosen]++;
        lf__pair_book(p, t0, t1);
    }
}

/* The paired judgement of libloopfarm-kmp's static splits (arm 0: the even split, the control;
 * arm 1: the weighted one): the control runs until LF__PAIR_MIN pairs are booked; an arm that
 * wins by more than the hysteresis is chosen, one within it is not, and the choice goes back
 * once the median turns; a minority of outlying pairs (an execution a time slice late) decides
 * nothing; pairs that are not two positive finite times are ignored. */
static void test_pair_judgement(void)
{
    unsigned count[2] = {0};
    struct lf__pair win = {0};
    run_pairs(&win, LF__PAIR_MIN - 1, 100.0, 70.0, count);
    CU_ASSERT_EQUAL(win.chosen, 0); /* too few pairs yet */
    run_pairs(&win, 1, 100.0, 70.0, count);
    CU_ASSERT_EQUAL(win.chosen, 1);
    run_pairs(&win, 500, 100.0, 70.0, count);
    CU_ASSERT_EQUAL(win.switches, 1);
    CU_ASSERT_EQUAL(count[0], LF__PAIR_MIN); /* no execution spent on the loser after */
    CU_ASSERT_DOUBLE_EQUAL(lf__pair_median(&win), 0.7, 1e-6);

    /* The load changes: weighting now loses; back to the control within the window. */
    memset(count, 0, sizeof count);
    run_pairs(&win, LF__PAIR_WIN / 2 + 1, 100.0, 130.0, count);
    CU_ASSERT_EQUAL(win.chosen, 0);
    CU_ASSERT_EQUAL(count[1], LF__PAIR_WIN / 2 + 1);

    /* A loser, and an arm within the hysteresis either way: never chosen, never left. */
    struct lf__pair lose = {0}, near = {0};
    memset(count, 0, sizeof count);
    run_pairs(&lose, 1000, 100.0, 150.0, count);
    CU_ASSERT_EQUAL(count[1], 0);
    run_pairs(&near, 1000, 100.0, 100.0 * (1.0 - 0.5 * LF__SEL_HYST), count);
    CU_ASSERT_EQUAL(near.chosen, 0);
    run_pairs(&near, LF__PAIR_WIN, 100.0, 50.0, count);
    CU_ASSERT_EQUAL(near.chosen, 1);
    run_pairs(&near, 1000, 100.0, 100.0 * (1.0 + 0.5 * LF__SEL_HYST), count);
    CU_ASSERT_EQUAL(near.chosen, 1);
    CU_ASSERT_EQUAL(near.switches, 1);

    /* Outliers: in every window fewer than half the pairs favour weighting by far (a thread
     * preempted for a slice reads as slow); the rest favour the even split. */
    struct lf__pair odd = {0};
    for (int e = 0; e < 700; e++) {
        int late = e % LF__PAIR_WIN >= LF__PAIR_WIN - (LF__PAIR_WIN - 1) / 2;
        lf__pair_book(&odd, 100.0, late ? 30.0 : 110.0);
        CU_ASSERT_EQUAL(odd.chosen, 0);
    }

    /* Nothing that is not two positive finite times is booked. */
    struct lf__pair bad = {0};
    const double junk[][2] = {{0.0, 50.0}, {50.0, 0.0},      {-1.0, 50.0},     {50.0, NAN},
                              {NAN, 50.0}, {INFINITY, 50.0}, {50.0, INFINITY}, {-INFINITY, 1.0}};
    for (int i = 0; i < 10; i++)
        for (size_t j = 0; j < sizeof junk / sizeof *junk; j++)
            lf__pair_book(&bad, junk[j][0], junk[j][1]);
    CU_ASSERT_EQUAL(bad.pairs, 0);
    CU_ASSERT_EQUAL(bad.have, 0);
    CU_ASSERT_EQUAL(bad.chosen, 0);
    CU_ASSERT_DOUBLE_EQUAL(lf__pair_median(&bad), 1.0, 0.0);
}

/* Trip counts that change in a cycle, as a frontier's do (a few iterations, then thousands,
 * then few again), with a fixed cost per execution: a time per iteration then depends mostly
 * on the trip count, and a trial that falls on the large executions would look faster than
 * the chosen arm's latest samples on the small ones.  Judged against the chosen arm's samples
 * of a comparable trip count, a slower challenger is never chosen and costs no more than its
 * share, and a faster one is found. */
static void test_select_changing_trip_counts(void)
{
    const double trips[] = {1, 90, 600, 480, 180, 100, 50, 20, 5};
    const size_t T = sizeof trips / sizeof *trips;
    const double fixed = 20000.0, per_iter = 100.0; /* ns */
    const double challenger[] = {0.7, 1.3, 2.0};
    for (size_t c = 0; c < sizeof challenger / sizeof *challenger; c++) {
        struct lf__select sel = {0};
        double total = 0.0, control = 0.0, other = 0.0;
        unsigned long chosen_other = 0;
        for (int e = 0; e < 3000; e++) {
            double n = trips[(size_t)e % T];
            int k = lf__select_next(&sel, 1u << 1, 0, LF__SEL_SETTLE);
            double t0 = fixed + per_iter * n, t1 = fixed + challenger[c] * per_iter * n;
            double t = k ? t1 : t0;
            total += t;
            control += t0;
            other += t1;
            if (e >= 1500 && sel.chosen == 1)
                chosen_other++;
            lf__select_book(&sel, k, t / n, n);
        }
        if (challenger[c] > 1.0) {
            CU_ASSERT_EQUAL(sel.chosen, 0);
            CU_ASSERT_EQUAL(chosen_other, 0);
            CU_ASSERT(total <= control * (1.0 + LF__SEL_HYST));
        } else {
            CU_ASSERT_EQUAL(sel.chosen, 1);
            CU_ASSERT(total <= other * (1.0 + LF__SEL_HYST));
        }
    }
}

/* Load that comes and goes: every time is multiplied by 5 in alternate phases of a fixed
 * number of executions.  Whatever the phase length, the selection costs no more than the
 * control alone, and with a challenger faster in every phase no more than that challenger
 * alone (each within the hysteresis): a choice is made only by a trial against the chosen
 * arm's latest samples, and a site whose choice flips lengthens its trials until they span the
 * phases.  Lengthened trials shrink back to LF__SEL_TRIAL once the load stops changing. */
static void test_select_phased_load(void)
{
    const double challenger[] = {0.7, 0.9, 1.1, 1.3};
    const int phases[] = {1, 2, 3, 5, 7, 15, 50};
    int lengthened = 0;
    for (size_t c = 0; c < sizeof challenger / sizeof *challenger; c++)
        for (size_t p = 0; p < sizeof phases / sizeof *phases; p++) {
            struct lf__select sel = {0};
            double total = 0.0, control = 0.0, other = 0.0;
            for (int e = 0; e < 3000; e++) {
                int k = lf__select_next(&sel, 1u << 1, 0, 3);
                double f = (e / phases[p]) % 2 ? 5.0 : 1.0, x = (k ? challenger[c] : 1.0) * f;
                total += x;
                control += f;
                other += challenger[c] * f;
                lf__select_book(&sel, k, x, 1.0);
            }
            CU_ASSERT(total <= control * (1.0 + LF__SEL_HYST));
            if (challenger[c] < 1.0)
                CU_ASSERT(total <= other * (1.0 + LF__SEL_HYST));
            CU_ASSERT(lf__select_trial(&sel) >= LF__SEL_TRIAL);
            CU_ASSERT(lf__select_trial(&sel) <= LF__SEL_KEEP);
            if (lf__select_trial(&sel) == LF__SEL_TRIAL)
                continue;
            lengthened++;
            /* The load stops: the trials shrink back within the calm spans of each length. */
            for (int e = 0; e < 2 * LF__SEL_CALM * LF__SEL_KEEP; e++) {
                int k = lf__select_next(&sel, 1u << 1, 0, 3);
                lf__select_book(&sel, k, k ? challenger[c] : 1.0, 1.0);
            }
            CU_ASSERT_EQUAL(lf__select_trial(&sel), LF__SEL_TRIAL);
        }
    CU_ASSERT(lengthened > 0); /* some phase lengths made the choice flip */
}

/* A challenger whose times are bimodal: fast (0.95 of the control) in most executions, 1.85 in
 * every period-th (a guided schedule whose first, largest chunk goes to the slow thread when
 * that thread happens to arrive first).  Its median beats the control and its mean does not:
 * whatever the period and phase, the site costs no more than the control, within the
 * hysteresis and the exploration share.  And a challenger faster on average whose executions
 * are now and then a time slice late (one in nine at 3 times its time) is still chosen. */
static void test_select_bimodal_arm(void)
{
    for (int period = 2; period <= 4; period++)
        for (int phase = 0; phase < period; phase++) {
            struct lf__select sel = {0};
            double total = 0.0;
            int execs = 3000;
            for (int e = 0; e < execs; e++) {
                int k = lf__select_next(&sel, 1u << 1, 0, LF__SEL_SETTLE);
                double x = k ? ((e + phase) % period ? 0.95 : 1.85) : 1.0;
                total += x;
                lf__select_book(&sel, k, x, 1.0);
            }
            CU_ASSERT(total <= execs * (1.0 + LF__SEL_HYST + LF__SEL_SHARE));
            CU_ASSERT_EQUAL(sel.chosen, 0);
        }
    for (int phase = 0; phase < 9; phase++) {
        struct lf__select sel = {0};
        unsigned count[2] = {0};
        for (int e = 0; e < 600; e++) {
            int k = lf__select_next(&sel, 1u << 1, 0, LF__SEL_SETTLE);
            count[k]++;
            lf__select_book(&sel, k, k ? ((e + phase) % 9 ? 0.7 : 2.1) : 1.0, 1.0);
        }
        CU_ASSERT_EQUAL(sel.chosen, 1);
        CU_ASSERT(count[1] >= 540);
    }
}

/* units and span are inverse: the span of the units of [a, b) is b - a. */
static void test_units_and_span(void)
{
    struct lf__profile p = {.valid = 1};
    for (int b = 0; b < LF__PROF_BINS; b++)
        p.cost[b] = 0.25 + (double)(b % 5);
    const uint64_t ns[] = {1, 7, 32, 1000, 123457};
    for (size_t k = 0; k < sizeof ns / sizeof *ns; k++) {
        uint64_t n = ns[k];
        for (uint64_t a = 0; a < n; a += 1 + n / 9)
            for (uint64_t b = a + 1; b <= n; b += 1 + n / 7) {
                double u = lf__profile_units(&p, n, a, b);
                uint64_t s = lf__profile_span(&p, n, a, u);
                CU_ASSERT(s >= 1 && s <= n - a);
                CU_ASSERT(s + 1 >= b - a && s <= b - a + 1);
            }
        CU_ASSERT_DOUBLE_EQUAL(lf__profile_units(NULL, n, 0, n), (double)n, 1e-9);
        CU_ASSERT_EQUAL(lf__profile_span(NULL, n, 0, 1e30), n);
        CU_ASSERT_EQUAL(lf__profile_span(&p, n, n - 1, 1e30), 1);
    }
    /* The bins' spread over their mean: costs 0.25..4.25 in a cycle of five (six full
     * cycles and 0.25, 1.25), so the mean is (6 * 11.25 + 1.5) / 32. */
    double lo, hi, mean = (6.0 * 11.25 + 1.5) / LF__PROF_BINS;
    lf__profile_range(&p, &lo, &hi);
    CU_ASSERT_DOUBLE_EQUAL(lo, 0.25 / mean, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(hi, 4.25 / mean, 1e-12);
    struct lf__profile none = {.valid = 1};
    lf__profile_range(&none, &lo, &hi);
    CU_ASSERT(lo == 1.0 && hi == 1.0);
}

/* auto's parameters: k1 and a smallest chunk, once; leases on by default. */
static void test_parse(void)
{
    struct lf__sched s;
    char err[256];
    CU_ASSERT_EQUAL(lf__sched_parse("auto", &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lf__exec_lease_mode(&s, 100, 2, LF__CLAIM_CAS, 0, 0), LF__LEASE_ON);
    CU_ASSERT_EQUAL(lf__exec_lease_mode(&s, 100, 1, LF__CLAIM_CAS, 0, 0), LF__LEASE_OFF);
    CU_ASSERT_EQUAL(lf__exec_lease_mode(&s, 100, 2, LF__CLAIM_CAS, 0, 1), LF__LEASE_OFF);
    CU_ASSERT_EQUAL(lf__exec_lease_mode(&s, 1ULL << 33, 2, LF__CLAIM_CAS, 0, 0), LF__LEASE_OFF);
    CU_ASSERT_EQUAL(lf__sched_parse("auto,lease=off", &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lf__exec_lease_mode(&s, 100, 2, LF__CLAIM_CAS, 0, 0), LF__LEASE_OFF);
    CU_ASSERT_EQUAL(lf__sched_parse("dynamic", &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lf__exec_lease_mode(&s, 100, 2, LF__CLAIM_FETCH_ADD, 0, 0), LF__LEASE_OFF);
    CU_ASSERT_EQUAL(lf__sched_parse("dynamic,lease=force", &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lf__exec_lease_mode(&s, 100, 2, LF__CLAIM_FETCH_ADD, 0, 0), LF__LEASE_FORCE);
    CU_ASSERT_EQUAL(lf__sched_parse("auto,8,k1=1", &s, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lf__sched_parse("auto,8,min=8", &s, err, sizeof err), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "once"));
    CU_ASSERT_EQUAL(lf__sched_parse("auto,k1=0.5", &s, err, sizeof err), -EINVAL);
    CU_ASSERT_EQUAL(lf__sched_parse("auto,lease=maybe", &s, err, sizeof err), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "lease=force"));
}

/* A team of one under auto runs one untimed chunk and learns nothing;
 * schedules that learn no profile, and teams of two, keep their rules. */
static void test_solo_runs_untimed(void)
{
    struct lf__sched s;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lf__sched_parse("auto", &s, err, sizeof err), 0);
    CU_ASSERT(lf__exec_solo(&s, 1));
    CU_ASSERT(!lf__exec_solo(&s, 2));
    CU_ASSERT(lf__exec_needs_times(&s, 2)); /* a team of two times its chunks */
    CU_ASSERT(!lf__exec_needs_times(&s, 1));
    CU_ASSERT(lf__exec_mem_wanted(&s, 2) && !lf__exec_mem_wanted(&s, 1));
    /* What the instance ends with does not touch the memory of a team of one. */
    struct lf__wstat w[1];
    memset(w, 0, sizeof w);
    lf__word_put(&w[0].iters, 1000);
    lf__word_put(&w[0].busy_ns, 5000);
    struct lf__view v = {.n = 1000, .nworkers = 1, .w = w};
    uint64_t pstate[LF__POLICY_STATE_MAX / 8];
    memcpy(pstate, s.state, s.pol->state_size);
    struct lf__exec x = {.sched = &s, .pstate = pstate, .view = &v};
    double ipt[1] = {0};
    uint64_t cal[1] = {0};
    double cost[1][3] = {{0}};
    struct lf__site_mem m = {.ipt = ipt, .cal = cal, .cost = cost};
    uint64_t cal0[1] = {0};
    CU_ASSERT_EQUAL(lf__exec_start(&x, &m, cal0), 0); /* no calibration */
    double drift;
    CU_ASSERT_EQUAL(lf__exec_mem_end(&x, &m, &drift), 0);
    CU_ASSERT(!m.valid);
    CU_ASSERT_EQUAL(ipt[0], 0.0);
    const char *other[] = {"multi", "guided", "af"};
    for (size_t k = 0; k < sizeof other / sizeof *other; k++) {
        CU_ASSERT_EQUAL_FATAL(lf__sched_parse(other[k], &s, err, sizeof err), 0);
        CU_ASSERT(!lf__exec_solo(&s, 1));
    }
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"profile_learns_shape_not_speed", test_profile_learns_shape_not_speed},
        {"profile_weight_noise_vs_signal", test_profile_weight_noise_vs_signal},
        {"first_round_by_cost", test_first_round_by_cost},
        {"profile_dropped_when_it_stops_predicting", test_profile_dropped_when_it_stops_predicting},
        {"profile_normalised_over_trip_counts", test_profile_normalised_over_trip_counts},
        {"pieces_free_once_confirmed", test_pieces_free_once_confirmed},
        {"profile_distrusted_when_the_hot_region_moves",
         test_profile_distrusted_when_the_hot_region_moves},
        {"few_units_never_overstaked", test_few_units_never_overstaked},
        {"few_iterations_self_scheduled", test_few_iterations_self_scheduled},
        {"tiny_rule", test_tiny_rule},
        {"plan_candidates", test_plan_candidates},
        {"selection_abandons_losing_plan", test_selection_abandons_losing_plan},
        {"serial_admission", test_serial_admission},
        {"plan_bands", test_plan_bands},
        {"select_two_arms", test_select_two_arms},
        {"select_cut_trial", test_select_cut_trial},
        {"pair_judgement", test_pair_judgement},
        {"select_phased_load", test_select_phased_load},
        {"select_bimodal_arm", test_select_bimodal_arm},
        {"select_changing_trip_counts", test_select_changing_trip_counts},
        {"plan_same", test_plan_same},
        {"units_and_span", test_units_and_span},
        {"solo_runs_untimed", test_solo_runs_untimed},
        {"parse", test_parse},
        {0, 0},
    };
    return lfcu_run("policy_auto", tests);
}
