/* lib/exec/profile.c - learning a call site's cost profile from chunk
 * timings (contracts in exec.h; the profile's meaning in policy.h). */
#include <math.h>
#include <string.h>

#include "exec/exec.h"
#include "policy/fmath.h"

/* Rounds of the alternating estimate of speeds and costs. */
#define LF__PROF_ROUNDS 8

/* The profile's cost of bin b, 1 without one. */
static double cost_of(const struct lf__profile *p, int b)
{
    return p && p->cost[b] > 0.0 ? p->cost[b] : 1.0;
}

void lf__exec_profile_book(const struct lf__exec *x, int w, uint64_t lo, uint64_t iters,
                           double busy_ns)
{
    if (!x->acc || iters == 0)
        return;
    const struct lf__view *v = x->view;
    const struct lf__profile *p = v->prof;
    struct lf__prof_acc *a = &x->acc[w];
    double bw = (double)v->n / LF__PROF_BINS, from = (double)lo, end = (double)(lo + iters);
    int b0 = (int)(from / bw), b1 = (int)((end - 1.0) / bw);
    b0 = b0 < LF__PROF_BINS ? b0 : LF__PROF_BINS - 1;
    b1 = b1 < LF__PROF_BINS ? b1 : LF__PROF_BINS - 1;
    double units = lf__profile_units(p, v->n, lo, lo + iters);
    for (int b = b0; b <= b1 && units > 0.0; b++) {
        double it = lf__fmin(end, (b + 1) * bw) - lf__fmax(from, b * bw);
        if (b == b1 && b == LF__PROF_BINS - 1)
            it = end - lf__fmax(from, b * bw);
        if (!(it > 0.0))
            continue;
        a->it[b] += it;
        a->ns[b] += busy_ns * it * cost_of(p, b) / units;
    }
}

void lf__exec_profile_chunk(const struct lf__exec *x, int w, uint64_t lo, uint64_t iters)
{
    if (x->acc)
        lf__word_putd(&x->view->w[w].last_units,
                      lf__profile_units(x->view->prof, x->view->n, lo, lo + iters));
}

double lf__exec_unit_time(const struct lf__exec *x, int w, const struct lf__profile *p)
{
    double ns = 0.0, units = 0.0;
    for (int b = 0; b < LF__PROF_BINS; b++) {
        ns += x->acc[w].ns[b];
        units += x->acc[w].it[b] * cost_of(p, b);
    }
    return units > 0.0 ? ns / units : 0.0;
}

/* One estimate of the bins' relative costs, given the costs c used to
 * rate the workers: each bin's time over its iterations weighted by the
 * speed (time per unit) of whoever ran them, normalised to mean 1 over
 * the iterations.  Bins nobody ran get 0 in obs and 0 in it. */
static void estimate(const struct lf__exec *x, const double *c, double *obs, double *it)
{
    struct lf__profile rated = {0};
    memcpy(rated.cost, c, sizeof rated.cost);
    double num[LF__PROF_BINS] = {0}, den[LF__PROF_BINS] = {0};
    memset(it, 0, LF__PROF_BINS * sizeof *it);
    for (int w = 0; w < x->view->nworkers; w++) {
        double g = lf__exec_unit_time(x, w, &rated);
        if (!(g > 0.0))
            continue;
        for (int b = 0; b < LF__PROF_BINS; b++) {
            it[b] += x->acc[w].it[b];
            num[b] += x->acc[w].ns[b];
            den[b] += x->acc[w].it[b] * g;
        }
    }
    double tot_it = 0.0, tot_u = 0.0;
    for (int b = 0; b < LF__PROF_BINS; b++) {
        if (!(den[b] > 0.0))
            it[b] = 0.0;
        obs[b] = it[b] > 0.0 ? num[b] / den[b] : 0.0;
        tot_it += it[b];
        tot_u += it[b] * obs[b];
    }
    double scale = tot_u > 0.0 ? tot_it / tot_u : 1.0;
    for (int b = 0; b < LF__PROF_BINS; b++)
        obs[b] *= scale;
}

/* The share of a profile's deviation from 1 that is signal, not noise.
 * Let each execution observe a bin's cost with noise of variance v, the
 * profile blend the observations with weight a = 1 - LF__PROF_KEEP, and the
 * bins' true costs stay put.  Then the profile's own error has variance
 * v a / (2 - a), and an observation differs from the profile before it by
 * v + v a / (2 - a) = 2 v / (2 - a) on average, which is what d2 estimates:
 * so the profile's noise is d2 a / 2 of its spread s2, and the rest,
 * s2 - d2 a / 2, is the bins' true dispersion.  Dealing by
 * 1 + w (cost - 1) with w = that rest over s2 is the least-squares estimate
 * of the true costs (shrinkage towards the even profile: C. Stein, and
 * B. Efron & C. Morris, "Stein's estimation rule and its competitors - an
 * empirical Bayes approach", J. Amer. Statist. Assoc. 68, 1973).  A loop of
 * even cost measured with noise then deals evenly; one whose costs differ
 * by more than its noise deals by nearly all of its profile.  Costs that
 * move count as noise here, which is what they are to the next execution. */
double lf__exec_profile_weight(const struct lf__profile *p)
{
    if (!p->valid || p->execs < 2)
        return 1.0; /* one observation: nothing to tell its noise by */
    double s2 = 0.0, a = 1.0 - LF__PROF_KEEP;
    for (int b = 0; b < LF__PROF_BINS; b++)
        s2 += (cost_of(p, b) - 1.0) * (cost_of(p, b) - 1.0) / LF__PROF_BINS;
    if (!(s2 > 0.0))
        return 0.0;
    double w = 1.0 - p->d2 * a / 2.0 / s2;
    return w < 0.0 ? 0.0 : w > 1.0 ? 1.0 : w;
}

int lf__exec_profile_learn(const struct lf__exec *x, struct lf__site_mem *m)
{
    if (!x->acc)
        return 0;
    struct lf__profile *p = &m->prof;
    double c[LF__PROF_BINS], obs[LF__PROF_BINS], it[LF__PROF_BINS], busy = 0.0;
    for (int w = 0; w < x->view->nworkers; w++)
        for (int b = 0; b < LF__PROF_BINS; b++)
            busy += x->acc[w].ns[b];
    if (busy < LF__PROF_MIN_NS)
        return 0;
    for (int b = 0; b < LF__PROF_BINS; b++)
        c[b] = 1.0;
    for (int round = 0; round < LF__PROF_ROUNDS; round++) {
        estimate(x, c, obs, it);
        for (int b = 0; b < LF__PROF_BINS; b++)
            c[b] = it[b] > 0.0 ? obs[b] : 1.0;
    }
    double err = 0.0, tot = 0.0;
    for (int b = 0; b < LF__PROF_BINS; b++) {
        if (!(it[b] > 0.0))
            continue;
        err += it[b] * fabs(cost_of(p, b) - obs[b]);
        tot += it[b] * obs[b];
    }
    if (!(tot > 0.0))
        return 0; /* nothing ran: nothing learned */
    err /= tot;
    int dropped = 0;
    if (!p->valid || err > 1.0 - LF__PROF_TRUST) {
        dropped = p->valid && p->conf >= LF__PROF_TRUST;
        int fresh = !p->valid;
        for (int b = 0; b < LF__PROF_BINS; b++)
            p->cost[b] = it[b] > 0.0 ? obs[b] : 1.0;
        /* A first profile is trusted until it mispredicts; a replaced one
         * must predict once before it is. */
        p->conf = fresh ? LF__PROF_TRUST : 0.0;
        p->execs = 1;
        p->d2 = 0.0;
        p->valid = 1;
        return dropped;
    }
    double d2 = 0.0, tot_it = 0.0;
    for (int b = 0; b < LF__PROF_BINS; b++)
        if (it[b] > 0.0) {
            double d = obs[b] - cost_of(p, b);
            d2 += it[b] * d * d;
            tot_it += it[b];
            p->cost[b] = LF__PROF_KEEP * p->cost[b] + (1.0 - LF__PROF_KEEP) * obs[b];
        }
    d2 /= tot_it;
    p->d2 = p->execs >= 2 ? LF__PROF_KEEP * p->d2 + (1.0 - LF__PROF_KEEP) * d2 : d2;
    p->conf = 1.0 - err;
    p->execs++;
    return 0;
}
