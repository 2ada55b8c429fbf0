/* lib/exec/select.c - choosing among a call site's arms by measurement (see select.h). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "exec/select.h"
#include "policy/fmath.h"

unsigned lf__select_trial(const struct lf__select *sel)
{
    return sel->len ? sel->len : LF__SEL_TRIAL;
}

/* Arm a's latest m samples (all, when it has fewer), newest first, into v; returns how many. */
static unsigned latest(const struct lf__arm *a, unsigned m, double *v)
{
    if (m > a->have)
        m = a->have;
    for (unsigned i = 0; i < m; i++)
        v[i] = a->ns[(a->at + LF__SEL_KEEP - 1 - i) % LF__SEL_KEEP];
    return m;
}

/* The median of arm a's latest m samples (all, when it has fewer). */
static double median_of(const struct lf__arm *a, unsigned m)
{
    double v[LF__SEL_KEEP];
    m = latest(a, m, v);
    if (!m)
        return 0.0;
    for (unsigned i = 1; i < m; i++)
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

double lf__select_median(const struct lf__arm *a)
{
    return median_of(a, LF__SEL_WIN);
}

/* What arm a is judged on: in short trials the median of its latest samples (the chosen arm's
 * window, a trial's own); in long ones, whose samples span the phases of a load that comes and
 * goes, their mean, which is what the phases cost together. */
static double judged(const struct lf__select *sel, const struct lf__arm *a, int chosen)
{
    unsigned L = lf__select_trial(sel);
    if (L <= LF__SEL_TRIAL)
        return median_of(a, chosen ? LF__SEL_WIN : L);
    double v[LF__SEL_KEEP], s = 0.0;
    unsigned m = latest(a, L, v);
    if (!m)
        return 0.0;
    for (unsigned i = 0; i < m; i++)
        s += v[i];
    return s / m;
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
    a->ns[a->at] = (float)x;
    a->at = (a->at + 1) % LF__SEL_KEEP;
    if (a->have < LF__SEL_KEEP)
        a->have++;
    a->runs++;
}

/* Arm k lost its trial (judged mine) against the chosen one (judged best): rerun it after its
 * gap, doubled and at least what keeps its trials' cost within LF__SEL_SHARE of the site's time.
 */
static void arm_lost(struct lf__select *sel, int k, double mine, double best)
{
    struct lf__arm *a = &sel->arm[k];
    double r = best > 0.0 ? mine / best : 1.0;
    double g = lf__fmax(2.0 * (double)a->gap, lf__select_trial(sel) * (r - 1.0) / LF__SEL_SHARE);
    g = lf__fmin(lf__fmax(g, LF__SEL_GAP_MIN), LF__SEL_GAP_MAX);
    a->gap = (unsigned long)g;
    a->due = sel->execs + a->gap;
}

/* Make k the chosen arm; the one it replaces is tried again soon.  Going back to the arm chosen
 * before soon after leaving it is a flip: the samples compared fell in different phases of a
 * load, so trials double in length. */
static void choose(struct lf__select *sel, int k)
{
    struct lf__arm *old = &sel->arm[sel->chosen];
    old->gap = LF__SEL_GAP_MIN;
    old->due = sel->execs + LF__SEL_GAP_MIN;
    unsigned L = lf__select_trial(sel);
    if (sel->before == k + 1 && sel->execs - sel->since <= (unsigned long)LF__SEL_FLIP * L &&
        2 * L <= LF__SEL_KEEP)
        sel->len = 2 * L;
    sel->before = sel->chosen + 1;
    sel->since = sel->execs;
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
    unsigned L = lf__select_trial(sel);
    if (L > LF__SEL_TRIAL && sel->execs - sel->since > (unsigned long)LF__SEL_CALM * L) {
        sel->len = L / 2 > LF__SEL_TRIAL ? L / 2 : 0;
        sel->since = sel->execs;
    }
    if (k != sel->chosen) {
        /* A trial: judged on its samples, the only ones it holds. */
        if (++a->fresh < lf__select_trial(sel))
            return;
        a->fresh = 0;
        const struct lf__arm *c = &sel->arm[sel->chosen];
        double mine = judged(sel, a, 0), best = judged(sel, c, 1);
        if (c->have == 0 || mine < (1.0 - LF__SEL_HYST) * best)
            choose(sel, k);
        else
            arm_lost(sel, k, mine, best);
        return;
    }
    /* The chosen arm got slower than another's latest trial: that one is tried again now, not
     * chosen on its old samples, which may come from another phase of a load that comes and
     * goes.  It is chosen only if its fresh trial wins. */
    double mine = judged(sel, a, 1), better_ns = (1.0 - LF__SEL_HYST) * mine;
    int better = -1;
    for (int j = 0; j < LF__SEL_ARMS; j++) {
        const struct lf__arm *o = &sel->arm[j];
        double om = j != k && o->have && o->fresh == 0 ? judged(sel, o, 0) : better_ns;
        if (om < better_ns) {
            better = j;
            better_ns = om;
        }
    }
    if (better >= 0 && sel->arm[better].due > sel->execs)
        sel->arm[better].due = sel->execs;
}
