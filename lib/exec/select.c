/* lib/exec/select.c - choosing among a call site's arms by measurement (see select.h). */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exec/select.h"
#include "policy/fmath.h"

unsigned lf__select_trial(const struct lf__select *sel)
{
    return sel->len ? sel->len : LF__SEL_TRIAL;
}

/* The place in arm a's ring of its i-th newest sample (0: the newest; i < a->have). */
static unsigned newest(const struct lf__arm *a, unsigned i)
{
    return (a->at + LF__SEL_KEEP - 1 - i) % LF__SEL_KEEP;
}

/* Arm a's latest m samples (all, when it has fewer), newest first, into v, and their ranges of
 * trip counts into t unless it is NULL; returns how many. */
static unsigned latest(const struct lf__arm *a, unsigned m, double *v, int *t)
{
    if (m > a->have)
        m = a->have;
    for (unsigned i = 0; i < m; i++) {
        unsigned j = newest(a, i);
        v[i] = a->ns[j];
        if (t)
            t[i] = a->range[j];
    }
    return m;
}

/* The median of v[0..m), m > 0 (v is sorted in place). */
static double median_in(double *v, unsigned m)
{
    for (unsigned i = 1; i < m; i++)
        for (unsigned j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

static double mean_in(const double *v, unsigned m)
{
    double s = 0.0;
    for (unsigned i = 0; i < m; i++)
        s += v[i];
    return s / m;
}

double lf__select_median(const struct lf__arm *a)
{
    double v[LF__SEL_KEEP];
    unsigned m = latest(a, LF__SEL_WIN, v, NULL);
    return m ? median_in(v, m) : 0.0;
}

int lf__select_range(double n)
{
    if (!(n >= 1.0))
        return 0;
    if (n >= 9223372036854775808.0) /* 2^63 */
        return LF__SEL_RANGES - 1;
    int r = 0;
    for (uint64_t u = (uint64_t)n; u > 1; u >>= 1)
        r++;
    return r;
}

/* What the chosen arm c's time is, per range of trip counts: in short trials the median of
 * its latest LF__SEL_WIN samples, in long ones (whose samples span the phases of a load that
 * comes and goes) the mean of as many as a trial is long, which is what the phases cost
 * together; of its samples in that range where it holds some, else of its latest ones.  Each
 * is worked out when first asked for. */
struct refs {
    const struct lf__arm *c;
    unsigned len;                           /* the site's trial length */
    double ref[LF__SEL_RANGES + 1];         /* the last: of c's latest samples, any range */
    unsigned char done[LF__SEL_RANGES + 1]; /* 1: ref holds it; 2: the range has no sample */
};

static void refs_of(const struct lf__select *sel, const struct lf__arm *c, struct refs *R)
{
    R->c = c;
    R->len = lf__select_trial(sel);
    memset(R->done, 0, sizeof R->done);
}

/* What samples v[0..m), m > 0, amount to in trials of R's length: their median in short
 * trials, their mean in long ones (v may be reordered). */
static double judged(const struct refs *R, double *v, unsigned m)
{
    return R->len <= LF__SEL_TRIAL ? median_in(v, m) : mean_in(v, m);
}

/* The reference for a sample in range r (0 when c has no samples). */
static double ref_at(struct refs *R, int r)
{
    const struct lf__arm *c = R->c;
    unsigned want = R->len <= LF__SEL_TRIAL ? LF__SEL_WIN : R->len;
    double v[LF__SEL_KEEP];
    if (R->done[r] == 0) {
        unsigned m = 0;
        for (unsigned i = 0; i < c->have && m < want; i++) {
            unsigned j = newest(c, i);
            if (c->range[j] == r)
                v[m++] = c->ns[j];
        }
        R->done[r] = m ? 1 : 2;
        if (m)
            R->ref[r] = judged(R, v, m);
    }
    if (R->done[r] == 1)
        return R->ref[r];
    if (R->done[LF__SEL_RANGES] == 0) {
        unsigned m = latest(c, want, v, NULL);
        R->ref[LF__SEL_RANGES] = m ? judged(R, v, m) : 0.0;
        R->done[LF__SEL_RANGES] = 1;
    }
    return R->ref[LF__SEL_RANGES];
}

/* Arm a's latest m samples (all, when it has fewer) over the chosen arm, whose references are
 * R: each sample over the reference of its range of trip counts, into v; returns how many.  A
 * sample with nothing to compare to counts as even (1). */
static unsigned ratios(const struct lf__arm *a, struct refs *R, unsigned m, double *v)
{
    int t[LF__SEL_KEEP];
    m = latest(a, m, v, t);
    for (unsigned i = 0; i < m; i++) {
        double ref = ref_at(R, t[i]);
        v[i] = ref > 0.0 ? v[i] / ref : 1.0;
    }
    return m;
}

/* Arm a's latest trial (as many samples as a trial is long) over the chosen arm's references R:
 * of its ratios (above), the median in short trials, the mean in long ones. */
static double trial_ratio(const struct lf__arm *a, struct refs *R)
{
    double v[LF__SEL_KEEP];
    unsigned m = ratios(a, R, R->len, v);
    return m ? judged(R, v, m) : 1.0;
}

/* Whether arm a's latest m samples, over the references R, disagree: the mean of their ratios
 * and their median differ by more than LF__SEL_HYST of the median.  A median of such samples
 * hides a mode (slow or fast) that the site's time pays for. */
static int dispersed(const struct lf__arm *a, struct refs *R, unsigned m)
{
    double v[LF__SEL_KEEP];
    m = ratios(a, R, m, v);
    if (m < LF__SEL_TRIAL)
        return 0;
    double mean = mean_in(v, m), med = median_in(v, m);
    return fabs(mean - med) > LF__SEL_HYST * med;
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

/* Add sample x of trip count n to arm a. */
static void arm_add(struct lf__arm *a, double x, double n)
{
    a->ns[a->at] = (float)x;
    a->range[a->at] = (unsigned char)lf__select_range(n);
    a->at = (a->at + 1) % LF__SEL_KEEP;
    if (a->have < LF__SEL_KEEP)
        a->have++;
    a->runs++;
}

/* Arm k lost its trial of m executions, at r times the chosen one's time: rerun it after its
 * gap, doubled and at least what keeps such trials' cost within LF__SEL_SHARE of the site's
 * time. */
static void arm_lost(struct lf__select *sel, int k, double r, unsigned m)
{
    struct lf__arm *a = &sel->arm[k];
    double g = lf__fmax(2.0 * (double)a->gap, m * (r - 1.0) / LF__SEL_SHARE);
    g = lf__fmin(lf__fmax(g, LF__SEL_GAP_MIN), LF__SEL_GAP_MAX);
    a->gap = (unsigned long)g;
    a->due = sel->execs + a->gap;
}

/* Double the site's trial length (to LF__SEL_KEEP): its times do not hold still over a short
 * trial, so arms are judged on the means of longer spans.  A verdict reached by a shorter trial
 * is void: every arm that lost one is due again after LF__SEL_GAP_MIN executions at the latest. */
static void lengthen(struct lf__select *sel)
{
    unsigned L = lf__select_trial(sel);
    if (2 * L > LF__SEL_KEEP)
        return;
    sel->len = 2 * L;
    sel->since = sel->execs;
    for (int k = 0; k < LF__SEL_ARMS; k++) {
        struct lf__arm *o = &sel->arm[k];
        if (k == sel->chosen || !o->have || o->judged >= sel->len)
            continue;
        o->gap = LF__SEL_GAP_MIN;
        if (o->due > sel->execs + LF__SEL_GAP_MIN)
            o->due = sel->execs + LF__SEL_GAP_MIN;
    }
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

void lf__select_book(struct lf__select *sel, int k, double x, double n)
{
    if (k < 0 || k >= LF__SEL_ARMS || !(x >= 0.0) || !(n > 0.0))
        return;
    struct lf__arm *a = &sel->arm[k];
    sel->execs++;
    arm_add(a, x, n);
    unsigned L = lf__select_trial(sel);
    if (L > LF__SEL_TRIAL && sel->execs - sel->since > (unsigned long)LF__SEL_CALM * L) {
        sel->len = L / 2 > LF__SEL_TRIAL ? L / 2 : 0;
        sel->since = sel->execs;
    }
    if (k != sel->chosen) {
        /* A trial: judged on its samples, the only ones it holds. */
        const struct lf__arm *c = &sel->arm[sel->chosen];
        struct refs R;
        refs_of(sel, c, &R);
        ++a->fresh;
        int quick = sel->quick >> k & 1;
        if (c->have && (quick || (a->fresh == LF__SEL_CUT_AFTER && R.len <= LF__SEL_TRIAL))) {
            /* A trial stops once it loses clearly.  A quick arm's, once the mean of its ratios
             * loses, a verdict that stands at any trial length.  Any other's, while trials are
             * short (the site's times hold still), once each of its first LF__SEL_CUT_AFTER
             * ratios loses by the cut, so that an execution a time slice late does not end the
             * trial of an arm that would win; that verdict holds for trials of its length only
             * (lengthen voids it).  Checked at that sample alone: the chosen arm books nothing
             * during a short trial, so its references hold still, and the least ratio only
             * falls as samples come. */
            double v[LF__SEL_KEEP];
            unsigned m = ratios(a, &R, a->fresh, v);
            double r = mean_in(v, m), lo = v[0];
            for (unsigned i = 1; i < m; i++)
                lo = lf__fmin(lo, v[i]);
            if (quick ? r > 1.0 + LF__SEL_QUICK : lo > 1.0 + LF__SEL_CUT) {
                a->fresh = 0;
                a->judged = quick ? LF__SEL_KEEP : R.len;
                arm_lost(sel, k, r, m);
                return;
            }
        }
        if (a->fresh < R.len)
            return;
        /* A short trial whose samples disagree runs on, as long as the site's trials now are
         * (twice LF__SEL_TRIAL at least: more than it ran), and is judged on its mean. */
        if (R.len <= LF__SEL_TRIAL && dispersed(a, &R, a->fresh)) {
            lengthen(sel);
            return;
        }
        a->fresh = 0;
        a->judged = R.len;
        double r = trial_ratio(a, &R);
        if (c->have == 0 || r < 1.0 - LF__SEL_HYST)
            choose(sel, k);
        else
            arm_lost(sel, k, r, R.len);
        return;
    }
    /* The chosen arm got slower than another's latest trial: that one is tried again now, not
     * chosen on its old samples, which may come from another phase of a load that comes and
     * goes.  It is chosen only if its fresh trial wins. */
    struct refs R;
    refs_of(sel, a, &R);
    /* The chosen arm's own latest samples disagree (against its own references, range by
     * range): its median hides a mode its time pays for, so trials lengthen and the arms are
     * judged on means. */
    if (R.len <= LF__SEL_TRIAL && dispersed(a, &R, LF__SEL_WIN)) {
        lengthen(sel);
        refs_of(sel, a, &R);
    }
    double better_r = 1.0 - LF__SEL_HYST;
    int better = -1;
    for (int j = 0; j < LF__SEL_ARMS; j++) {
        const struct lf__arm *o = &sel->arm[j];
        if (j == k || !o->have || o->fresh != 0)
            continue;
        double r = trial_ratio(o, &R);
        if (r < better_r) {
            better = j;
            better_r = r;
        }
    }
    if (better >= 0 && sel->arm[better].due > sel->execs)
        sel->arm[better].due = sel->execs;
}

double lf__pair_median(const struct lf__pair *p)
{
    double v[LF__PAIR_WIN];
    unsigned m = p->have < LF__PAIR_WIN ? p->have : LF__PAIR_WIN;
    for (unsigned i = 0; i < m; i++)
        v[i] = p->q[i];
    return m ? median_in(v, m) : 1.0;
}

void lf__pair_book(struct lf__pair *p, double t0, double t1)
{
    if (!(t0 > 0.0) || !(t1 > 0.0) || !isfinite(t0) || !isfinite(t1))
        return;
    p->q[p->at] = (float)(t1 / t0);
    p->at = (p->at + 1) % LF__PAIR_WIN;
    if (p->have < LF__PAIR_WIN)
        p->have++;
    p->pairs++;
    if (p->have < LF__PAIR_MIN)
        return;
    double m = lf__pair_median(p);
    int want = p->chosen;
    if (p->chosen == 0 && m < 1.0 - LF__SEL_HYST)
        want = 1;
    else if (p->chosen == 1 && m > 1.0 / (1.0 - LF__SEL_HYST))
        want = 0;
    if (want != p->chosen) {
        p->chosen = want;
        p->switches++;
    }
}
