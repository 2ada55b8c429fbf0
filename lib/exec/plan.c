/* lib/exec/plan.c - execution plans: how each execution of a loop runs,
 * and the choice between a call site's candidate plans by the wall time
 * they took (contracts in exec.h; the reasoning and the loss bound in
 * doc/auto.md). */
#include <math.h>
#include <string.h>

#include "exec/exec.h"

extern const struct lf__policy lf__policy_dynamic, lf__policy_guided;

const char *const lf__plan_names[LF__PLANS] = {"dealt", "own", "self", "tiny"};

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

double lf__exec_arm_median(const struct lf__arm *a)
{
    double v[LF__SEL_WIN];
    unsigned k = a->have;
    if (!k)
        return 0.0;
    memcpy(v, a->ns, k * sizeof *v);
    for (unsigned i = 1; i < k; i++) /* insertion sort: at most LF__SEL_WIN values */
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* The candidate the selection runs next among the kinds in mask (DEALT
 * always among them): DEALT for a site's first LF__SEL_SETTLE executions;
 * then one in the middle of its trial; else one never run, in the order
 * OWN, SELF; else the one longest overdue for a rerun, whose samples,
 * measured long ago, are dropped as its trial begins; else the chosen one. */
static enum lf__plan_kind select_kind(struct lf__select *sel, unsigned mask)
{
    if (sel->execs < LF__SEL_SETTLE)
        return LF__PLAN_DEALT;
    for (int k = 0; k < LF__PLAN_TINY; k++)
        if ((mask >> k & 1) && k != sel->chosen && sel->arm[k].fresh > 0)
            return (enum lf__plan_kind)k;
    for (int k = 0; k < LF__PLAN_TINY; k++)
        if ((mask >> k & 1) && sel->arm[k].have == 0)
            return (enum lf__plan_kind)k;
    int pick = -1;
    for (int k = 0; k < LF__PLAN_TINY; k++)
        if ((mask >> k & 1) && k != sel->chosen && sel->arm[k].due <= sel->execs &&
            (pick < 0 || sel->arm[k].due < sel->arm[pick].due))
            pick = k;
    if (pick >= 0) {
        sel->arm[pick].have = 0;
        sel->arm[pick].at = 0;
        return (enum lf__plan_kind)pick;
    }
    return (mask >> sel->chosen & 1) ? (enum lf__plan_kind)sel->chosen : LF__PLAN_DEALT;
}

/* The self-scheduled chunk for one worker's time per iteration ns. */
static uint64_t self_chunk(double ns, uint64_t n)
{
    return ns > 0.0 ? lf__chunk_clamp(ceil(LF__SELF_NS / ns), n ? n : 1) : 1;
}

struct lf__plan lf__exec_plan(const struct lf__plan_in *in, struct lf__site_mem *m)
{
    const struct lf__sched *s = in->sched;
    struct lf__plan p = {.kind = LF__PLAN_DEALT, .sched = s};
    int chooses = m && lf__exec_plan_chooses(s, in->workers);
    if (chooses && !in->located) {
        /* Candidates: a fixed chunk breaks OpenMP's guided bound, and SELF
         * needs a time per iteration to size its chunk. */
        unsigned mask = 1u << LF__PLAN_DEALT | 1u << LF__PLAN_OWN;
        if (!in->guided_cap && m->team_ns_per_iter > 0.0)
            mask |= 1u << LF__PLAN_SELF;
        if (s->plan >= 0) {
            p.kind = (enum lf__plan_kind)s->plan;
            if (in->guided_cap && (p.kind == LF__PLAN_SELF || p.kind == LF__PLAN_TINY))
                p.kind = LF__PLAN_DEALT;
        } else if (!in->no_tiny && !in->guided_cap &&
                   lf__exec_tiny_due(s, in->workers, m->team_ns_per_iter, m->tiny_runs, in->n)) {
            p.kind = LF__PLAN_TINY;
        } else {
            p.kind = select_kind(&m->sel, mask);
            p.booked = 1;
        }
        m->tiny_runs = p.kind == LF__PLAN_TINY ? m->tiny_runs + 1 : 0;
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
    return p;
}

/* Add sample x to candidate a. */
static void arm_add(struct lf__arm *a, double x)
{
    a->ns[a->at] = x;
    a->at = (a->at + 1) % LF__SEL_WIN;
    if (a->have < LF__SEL_WIN)
        a->have++;
    a->runs++;
}

/* Candidate k lost its trial against the chosen one, whose median is
 * best: rerun it after its gap, doubled and at least what keeps its
 * trials' cost within LF__SEL_SHARE of the site's time. */
static void arm_lost(struct lf__select *sel, int k, double best)
{
    struct lf__arm *a = &sel->arm[k];
    double r = best > 0.0 ? lf__exec_arm_median(a) / best : 1.0;
    double g = fmax(2.0 * (double)a->gap, LF__SEL_TRIAL * (r - 1.0) / LF__SEL_SHARE);
    g = fmin(fmax(g, LF__SEL_GAP_MIN), LF__SEL_GAP_MAX);
    a->gap = (unsigned long)g;
    a->due = sel->execs + a->gap;
}

/* Make k the chosen plan; the one it replaces is tried again soon. */
static void choose(struct lf__select *sel, int k)
{
    struct lf__arm *old = &sel->arm[sel->chosen];
    old->gap = LF__SEL_GAP_MIN;
    old->due = sel->execs + LF__SEL_GAP_MIN;
    sel->chosen = k;
    sel->switches++;
}

void lf__exec_plan_book(struct lf__site_mem *m, const struct lf__plan *p, double wall_ns,
                        uint64_t n)
{
    if (!p->booked || n == 0 || !(wall_ns >= 0.0))
        return;
    struct lf__select *sel = &m->sel;
    int k = (int)p->kind;
    struct lf__arm *a = &sel->arm[k];
    sel->execs++;
    arm_add(a, wall_ns / (double)n);
    if (k != sel->chosen) {
        /* A trial: judged on its LF__SEL_TRIAL samples, the only ones it holds. */
        if (++a->fresh < LF__SEL_TRIAL)
            return;
        a->fresh = 0;
        double mine = lf__exec_arm_median(a), best = lf__exec_arm_median(&sel->arm[sel->chosen]);
        if (sel->arm[sel->chosen].have == 0 || mine < (1.0 - LF__SEL_HYST) * best)
            choose(sel, k);
        else
            arm_lost(sel, k, best);
        return;
    }
    /* The chosen plan got slower than another's latest trial: that one. */
    double mine = lf__exec_arm_median(a), better_ns = (1.0 - LF__SEL_HYST) * mine;
    int better = -1;
    for (int j = 0; j < LF__PLAN_TINY; j++) {
        const struct lf__arm *o = &sel->arm[j];
        if (j != k && o->have && o->fresh == 0 && lf__exec_arm_median(o) < better_ns) {
            better = j;
            better_ns = lf__exec_arm_median(o);
        }
    }
    if (better >= 0)
        choose(sel, better);
}
