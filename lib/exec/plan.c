/* lib/exec/plan.c - execution plans: how each execution of a loop runs,
 * and the choice between a call site's candidate plans by the wall time
 * they took (contracts in exec.h; the reasoning and the loss bound in
 * doc/auto.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/exec.h"

extern const struct lf__policy lf__policy_dynamic, lf__policy_guided;

const char *const lf__plan_names[LF__PLANS] = {"dealt", "own", "self", "serial", "tiny"};

/* The schedules a plan runs when it is not the site's: fixed chunks
 * claimed with fetch-and-add (SELF and TINY give the size), and guided
 * self-scheduling, the loop's own where the program named none.  A zeroed
 * policy state is each policy's default (chunk 1). */
static const struct lf__sched fixed_sched = {.pol = &lf__policy_dynamic,
                                             .spec = "dynamic",
                                             .memory = 1,
                                             .lease = 0,
                                             .plan = -1,
                                             .cal_ns = 20000};
static const struct lf__sched guided_sched = {.pol = &lf__policy_guided,
                                              .spec = "guided",
                                              .memory = 1,
                                              .lease = 0,
                                              .plan = -1,
                                              .cal_ns = 20000};

int lf__exec_split_wanted(int P, uint64_t n, uint64_t c, int monotonic, int leasing)
{
    return P > 1 && !monotonic && !leasing && c &&
           lf__div_ceil(n, c) >= LF__SPLIT_CHUNKS * (uint64_t)P;
}

int lf__exec_plan_chooses(const struct lf__sched *s, int P)
{
    return (s->pol->flags & LF__P_PROFILE) && P >= 2 && s->lease < 0 && s->memory && !s->cal_paper;
}

uint64_t lf__exec_tiny_size(int P, uint64_t n)
{
    uint64_t c = lf__div_ceil(n, 2 * (uint64_t)P);
    return c ? c : 1;
}

int lf__exec_tiny_due(const struct lf__sched *s, int P, double team_ns, unsigned tiny_runs,
                      uint64_t n)
{
    /* n <= UINT64_MAX / 4: the counter's overshoot, n + (P + 1) ceil(n / 2P), cannot wrap. */
    return lf__exec_plan_chooses(s, P) && s->plan < 0 && team_ns > 0.0 &&
           tiny_runs + 1 < LF__TINY_RECHECK && n <= UINT64_MAX / 4 &&
           team_ns * (double)n < LF__TINY_NS;
}

/* The self-scheduled chunk for one worker's time per iteration ns. */
static uint64_t self_chunk(double ns, uint64_t n)
{
    return ns > 0.0 ? lf__chunk_clamp(ceil(LF__SELF_NS / ns), n ? n : 1) : 1;
}

/* Whether SERIAL may run: OpenMP's guided bound forbids a chunk of the
 * whole loop, and its one chunk of n is claimed with fetch-and-add. */
static int serial_fits(const struct lf__plan_in *in)
{
    return !in->guided_cap && in->n >= 2 && lf__exec_fa_fits(in->n, in->n, in->workers);
}

int lf__exec_band(uint64_t n)
{
    return lf__select_range((double)n) / 2;
}

struct lf__select *lf__exec_site_sel(struct lf__site_mem *m, uint64_t n)
{
    int b = lf__exec_band(n) + 1, near = -1;
    for (int i = 0; i < LF__SITE_BANDS; i++) {
        if (m->band[i] == b)
            return &m->sel[i];
        if (m->band[i] == 0) {
            m->band[i] = (unsigned char)b;
            m->sel[i].quick = 1u << LF__PLAN_SERIAL;
            if (near >= 0)
                m->sel[i].chosen = m->sel[near].chosen;
            return &m->sel[i];
        }
        if (near < 0 || abs(m->band[i] - b) < abs(m->band[near] - b) ||
            (abs(m->band[i] - b) == abs(m->band[near] - b) && m->band[i] < m->band[near]))
            near = i;
    }
    return &m->sel[near];
}

/* Whether a choosing site may try SERIAL.  Where the members do not get
 * in each other's way, one member alone takes up to P times the team's
 * time; SERIAL is a quick arm (select.h), so a trial of L executions costs
 * at most (P - 1) + LF__SEL_QUICK (L - 1) executions' time: it is admitted
 * once that is at most LF__SERIAL_FIRST_SHARE of the executions the site
 * has booked (later re-trials are held to LF__SEL_SHARE). */
static int serial_admitted(const struct lf__select *sel, int P)
{
    double L = (double)lf__select_trial(sel);
    return (double)sel->execs * LF__SERIAL_FIRST_SHARE >=
           (double)(P - 1) + LF__SEL_QUICK * (L - 1.0);
}

struct lf__plan lf__exec_plan(const struct lf__plan_in *in, struct lf__site_mem *m)
{
    const struct lf__sched *s = in->sched;
    struct lf__plan p = {.kind = LF__PLAN_DEALT, .sched = s};
    int chooses = m && lf__exec_plan_chooses(s, in->workers), tiny = 0;
    if (chooses && !in->located) {
        /* Candidates: a fixed chunk breaks OpenMP's guided bound, and SELF
         * needs a time per iteration (which only DEALT measures) to size its
         * chunk.  A forced kind the loop cannot run (yet) runs DEALT. */
        int self_ok = !in->guided_cap && m->team_ns_per_iter > 0.0;
        struct lf__select *sel = lf__exec_site_sel(m, in->n);
        int serial_ok = serial_fits(in);
        unsigned mask = 1u << LF__PLAN_DEALT | 1u << LF__PLAN_OWN;
        if (self_ok)
            mask |= 1u << LF__PLAN_SELF;
        if (serial_ok && serial_admitted(sel, in->workers))
            mask |= 1u << LF__PLAN_SERIAL;
        if (s->plan >= 0) {
            p.kind = (enum lf__plan_kind)s->plan;
            if ((p.kind == LF__PLAN_SELF && !self_ok) ||
                (p.kind == LF__PLAN_SERIAL && !serial_ok) ||
                (p.kind == LF__PLAN_TINY && in->guided_cap))
                p.kind = LF__PLAN_DEALT;
            tiny = p.kind == LF__PLAN_TINY;
        } else if (!in->no_tiny && !in->guided_cap &&
                   lf__exec_tiny_due(s, in->workers, m->team_ns_per_iter, m->tiny_runs, in->n)) {
            /* A site that chose SERIAL runs its tiny executions serially too:
             * what made one member faster there weighs more in a short one. */
            p.kind = sel->chosen == LF__PLAN_SERIAL && serial_ok ? LF__PLAN_SERIAL : LF__PLAN_TINY;
            tiny = 1;
        } else {
            /* A band settles on the plan it was given (DEALT, or the
             * nearest band's choice) where that may run. */
            int settle = mask >> sel->chosen & 1 ? sel->chosen : LF__PLAN_DEALT;
            p.kind = (enum lf__plan_kind)lf__select_next(sel, mask, settle, LF__SEL_SETTLE);
            p.booked = 1;
        }
        m->tiny_runs = tiny ? m->tiny_runs + 1 : 0;
    }
    struct lf__view v = {.n = in->n, .nworkers = in->workers};
    switch (p.kind) {
    case LF__PLAN_DEALT:
        p.learns = m != NULL;
        break;
    case LF__PLAN_OWN:
        p.sched = in->own ? in->own : &guided_sched;
        break;
    case LF__PLAN_SELF:
        p.sched = &fixed_sched;
        p.chunk = self_chunk(m->team_ns_per_iter, in->n);
        break;
    case LF__PLAN_SERIAL:
        p.sched = &fixed_sched;
        p.chunk = in->n;
        break;
    case LF__PLAN_TINY:
    default:
        p.sched = &fixed_sched;
        p.chunk = lf__exec_tiny_size(in->workers, in->n);
        break;
    }
    /* The claim, for the policy the plan runs (its template state: a
     * fixed-size policy's chunk does not depend on it being started). */
    p.cap = in->guided_cap && !in->located;
    struct lf__exec x = {
        .sched = p.sched, .pstate = (void *)p.sched->state, .view = &v, .cap = p.cap};
    uint64_t fa = 0;
    if (p.chunk) {
        p.claim = LF__CLAIM_FETCH_ADD;
        p.cap = 0;
    } else {
        p.claim = lf__exec_claim_kind(&x, in->loc, in->located, &fa);
        p.chunk = fa;
    }
    p.lease = lf__exec_lease_mode(p.sched, in->n, in->workers, p.claim, in->located, in->monotonic);
    /* The loop's own schedule keeps its one counter, as the program's runtime would. */
    p.split =
        p.claim == LF__CLAIM_FETCH_ADD && p.kind != LF__PLAN_OWN &&
        lf__exec_split_wanted(in->workers, in->n, p.chunk, in->monotonic, p.lease != LF__LEASE_OFF);
    p.timed = in->traced || in->located || lf__exec_needs_times(p.sched, in->workers) ||
              p.lease != LF__LEASE_OFF;
    /* auto's DEALT under leases: a calibration starts its members apart. */
    p.spread = p.kind == LF__PLAN_DEALT && p.lease != LF__LEASE_OFF &&
               (p.sched->pol->flags & LF__P_PROFILE) && !p.sched->cal_paper;
    return p;
}

int lf__exec_plan_same(const struct lf__plan *a, const struct lf__plan *b)
{
    return a->kind == b->kind && a->sched == b->sched && a->claim == b->claim &&
           a->chunk == b->chunk && a->lease == b->lease && a->split == b->split &&
           a->cap == b->cap && a->timed == b->timed && a->learns == b->learns &&
           a->booked == b->booked && a->spread == b->spread;
}

void lf__exec_plan_book(struct lf__site_mem *m, const struct lf__plan *p, double wall_ns,
                        uint64_t n)
{
    if (!p->booked || n == 0 || !(wall_ns >= 0.0))
        return;
    lf__select_book(lf__exec_site_sel(m, n), (int)p->kind, wall_ns / (double)n, (double)n);
}
