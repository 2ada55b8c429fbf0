/* lib/exec/select.c - choosing among a call site's arms by measurement (see select.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "exec/select.h"
#include "policy/fmath.h"

double lf__select_median(const struct lf__arm *a)
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

/* Start a trial of arm k: its old samples are dropped, and the chosen arm's turns counted anew. */
static int start_trial(struct lf__select *sel, int k)
{
    sel->arm[k].have = 0;
    sel->arm[k].at = 0;
    sel->arm[k].fresh = 0;
    sel->trial = k + 1;
    sel->paired = 0;
    return k;
}

/* A fair coin drawn from the execution count (a splitmix64 step): pure and repeatable. */
static int pair_coin(unsigned long n)
{
    unsigned long long z = (unsigned long long)n + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (int)((z ^ (z >> 31)) & 1);
}

int lf__select_next(struct lf__select *sel, unsigned mask, int settle)
{
    mask |= 1u << settle;
    sel->chosen_ran = (int)(mask >> sel->chosen & 1);
    if (sel->execs < LF__SEL_SETTLE)
        return settle;
    if (sel->trial) {
        int k = sel->trial - 1;
        if (mask >> k & 1) {
            unsigned t = sel->arm[k].fresh, c = sel->paired;
            if (!sel->chosen_ran || t < c || t == 0)
                return k; /* a trial opens with the challenger */
            if (c < t)
                return sel->chosen;
            /* A new pair: which of the two runs first is drawn, so that a load that comes
             * and goes in step with the turns does not always fall on the same arm. */
            return pair_coin(sel->execs) ? k : sel->chosen;
        }
        sel->trial = 0; /* its arm may not run now: the trial is given up, its turns dropped */
        sel->arm[k].fresh = 0;
    }
    for (int k = 0; k < LF__SEL_ARMS; k++)
        if ((mask >> k & 1) && k != sel->chosen && sel->arm[k].have == 0)
            return start_trial(sel, k);
    int pick = -1;
    for (int k = 0; k < LF__SEL_ARMS; k++)
        if ((mask >> k & 1) && k != sel->chosen && sel->arm[k].due <= sel->execs &&
            (pick < 0 || sel->arm[pick].due < sel->arm[k].due))
            pick = k;
    if (pick >= 0)
        return start_trial(sel, pick);
    return sel->chosen_ran ? sel->chosen : settle;
}

/* Add sample x to arm a. */
static void arm_add(struct lf__arm *a, double x)
{
    a->ns[a->at] = x;
    a->at = (a->at + 1) % LF__SEL_WIN;
    if (a->have < LF__SEL_WIN)
        a->have++;
    a->runs++;
}

/* Arm k lost its trial against the chosen one, taking r times its time: rerun it after its
 * gap, doubled and at least what keeps its trials' cost within LF__SEL_SHARE of the site's
 * time. */
static void arm_lost(struct lf__select *sel, int k, double r)
{
    struct lf__arm *a = &sel->arm[k];
    double g = lf__fmax(2.0 * (double)a->gap, LF__SEL_TRIAL * (r - 1.0) / LF__SEL_SHARE);
    g = lf__fmin(lf__fmax(g, LF__SEL_GAP_MIN), LF__SEL_GAP_MAX);
    a->gap = (unsigned long)g;
    a->due = sel->execs + a->gap;
}

/* Make k the chosen arm; the one it replaces is tried again soon. */
static void choose(struct lf__select *sel, int k)
{
    struct lf__arm *old = &sel->arm[sel->chosen];
    old->gap = LF__SEL_GAP_MIN;
    old->due = sel->execs + LF__SEL_GAP_MIN;
    sel->chosen = k;
    sel->switches++;
}

/* The median of the first n values of v (n <= LF__SEL_WIN). */
static double median_of(const double *v, unsigned n)
{
    struct lf__arm tmp = {.have = n};
    memcpy(tmp.ns, v, n * sizeof *v);
    return lf__select_median(&tmp);
}

/* The trial of arm k is complete: judged on the median, over the trial's pairs, of its time
 * over the chosen arm's in the same pair (a pair's two executions are adjacent, so a load
 * that changes between pairs cancels out, and one pair that straddles a change is outvoted),
 * or, when the chosen arm could not run in it, on its median against the chosen arm's. */
static void judge(struct lf__select *sel, int k)
{
    struct lf__arm *a = &sel->arm[k];
    const struct lf__arm *c = &sel->arm[sel->chosen];
    double best, r;
    if (sel->paired) {
        double ratio[LF__SEL_TRIAL];
        unsigned n = sel->paired < a->have ? sel->paired : a->have;
        for (unsigned i = 0; i < n; i++) /* the trial's samples are a->ns[0..] in order */
            ratio[i] = sel->pair_ns[i] > 0.0 ? a->ns[i] / sel->pair_ns[i] : 1.0;
        r = median_of(ratio, n);
        best = median_of(sel->pair_ns, sel->paired);
    } else {
        best = lf__select_median(c);
        r = best > 0.0 ? lf__select_median(a) / best : (c->have ? 1.0 : 0.0);
    }
    sel->trial = 0;
    a->fresh = 0;
    a->ref = best;
    a->pulled = 0;
    if ((!sel->paired && c->have == 0) || r < 1.0 - LF__SEL_HYST)
        choose(sel, k);
    else
        arm_lost(sel, k, r);
}

void lf__select_book(struct lf__select *sel, int k, double x)
{
    if (k < 0 || k >= LF__SEL_ARMS || !(x >= 0.0))
        return;
    struct lf__arm *a = &sel->arm[k];
    sel->execs++;
    arm_add(a, x);
    int t = sel->trial - 1; /* the arm on trial, or -1 */
    if (k == t) {
        a->fresh++;
    } else if (t >= 0 && k == sel->chosen) {
        if (sel->paired < LF__SEL_TRIAL)
            sel->pair_ns[sel->paired++] = x;
    }
    if (t >= 0) {
        if (sel->arm[t].fresh >= LF__SEL_TRIAL &&
            (sel->paired >= LF__SEL_TRIAL || !sel->chosen_ran))
            judge(sel, t);
        return;
    }
    if (k != sel->chosen)
        return; /* an arm run outside a trial (the settling one while another is chosen) */
    /* The chosen arm got slower than another's latest trial, and than itself in that trial:
     * that one's rerun is brought forward, to a quarter of its gap after the trial. */
    double slow = (1.0 - LF__SEL_HYST) * lf__select_median(a);
    for (int j = 0; j < LF__SEL_ARMS; j++) {
        struct lf__arm *o = &sel->arm[j];
        if (j == k || !o->have || o->pulled || o->due <= sel->execs ||
            !(lf__select_median(o) < slow && o->ref < slow))
            continue;
        unsigned long since = o->due - o->gap; /* when its latest trial ended */
        unsigned long soon = since + o->gap / 4;
        o->due = soon > sel->execs ? soon : sel->execs;
        o->pulled = 1;
    }
}
