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

int lf__select_next(struct lf__select *sel, unsigned mask, int settle, unsigned settle_execs)
{
    mask |= 1u << settle;
    if (sel->execs < settle_execs)
        return settle;
    for (int k = 0; k < LF__SEL_ARMS; k++)
        if ((mask >> k & 1) && k != sel->chosen && sel->arm[k].fresh > 0)
            return k;
    for (int k = 0; k < LF__SEL_ARMS; k++)
        if ((mask >> k & 1) && sel->arm[k].have == 0)
            return k;
    int pick = -1;
    for (int k = 0; k < LF__SEL_ARMS; k++)
        if ((mask >> k & 1) && k != sel->chosen && sel->arm[k].due <= sel->execs &&
            (pick < 0 || sel->arm[k].due < sel->arm[pick].due))
            pick = k;
    if (pick >= 0) {
        sel->arm[pick].have = 0;
        sel->arm[pick].at = 0;
        return pick;
    }
    return (mask >> sel->chosen & 1) ? sel->chosen : settle;
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

/* Arm k lost its trial against the chosen one, whose median is best: rerun it after its gap,
 * doubled and at least what keeps its trials' cost within LF__SEL_SHARE of the site's time. */
static void arm_lost(struct lf__select *sel, int k, double best)
{
    struct lf__arm *a = &sel->arm[k];
    double r = best > 0.0 ? lf__select_median(a) / best : 1.0;
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

void lf__select_book(struct lf__select *sel, int k, double x)
{
    if (k < 0 || k >= LF__SEL_ARMS || !(x >= 0.0))
        return;
    struct lf__arm *a = &sel->arm[k];
    sel->execs++;
    arm_add(a, x);
    if (k != sel->chosen) {
        /* A trial: judged on its LF__SEL_TRIAL samples, the only ones it holds. */
        if (++a->fresh < LF__SEL_TRIAL)
            return;
        a->fresh = 0;
        double mine = lf__select_median(a), best = lf__select_median(&sel->arm[sel->chosen]);
        if (sel->arm[sel->chosen].have == 0 || mine < (1.0 - LF__SEL_HYST) * best)
            choose(sel, k);
        else
            arm_lost(sel, k, best);
        return;
    }
    /* The chosen arm got slower than another's latest trial: that one. */
    double mine = lf__select_median(a), better_ns = (1.0 - LF__SEL_HYST) * mine;
    int better = -1;
    for (int j = 0; j < LF__SEL_ARMS; j++) {
        const struct lf__arm *o = &sel->arm[j];
        double om = j != k && o->have && o->fresh == 0 ? lf__select_median(o) : better_ns;
        if (om < better_ns) {
            better = j;
            better_ns = om;
        }
    }
    if (better >= 0)
        choose(sel, better);
}
