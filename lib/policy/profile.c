/* lib/policy/profile.c - reading a cost profile: the expected cost of a
 * range of iterations, the range from a point that holds a given cost, and
 * the spread of its bins' costs (struct lf__profile in policy.h).  Pure
 * arithmetic; the profile is learned by lib/exec/profile.c. */
#include <math.h>

#include "policy/policy.h"
#include "policy/fmath.h"

/* Bin width in iterations and the bin of logical iteration k. */
static double bin_width(uint64_t n)
{
    return (double)n / LF__PROF_BINS;
}

static int bin_of(uint64_t n, double k)
{
    int b = (int)(k / bin_width(n));
    return b < 0 ? 0 : b >= LF__PROF_BINS ? LF__PROF_BINS - 1 : b;
}

double lf__profile_units(const struct lf__profile *p, uint64_t n, uint64_t a, uint64_t b)
{
    if (!p || b <= a || n == 0)
        return b > a ? (double)(b - a) : 0.0;
    double w = bin_width(n), u = 0.0, x = (double)a, end = (double)b;
    for (int k = bin_of(n, x); x < end && k < LF__PROF_BINS; k++) {
        double stop = k == LF__PROF_BINS - 1 ? end : lf__fmin(end, (k + 1) * w);
        if (stop > x)
            u += (stop - x) * p->cost[k];
        x = stop;
    }
    return u;
}

uint64_t lf__profile_span(const struct lf__profile *p, uint64_t n, uint64_t a, double units)
{
    uint64_t left = n - a;
    if (!p)
        return lf__chunk_clamp(ceil(units), left);
    double w = bin_width(n), x = (double)a, end = (double)n;
    for (int k = bin_of(n, x); k < LF__PROF_BINS && units > 0.0; k++) {
        double stop = k == LF__PROF_BINS - 1 ? end : lf__fmin(end, (k + 1) * w);
        double c = p->cost[k] > 0.0 ? p->cost[k] : 1e-9, have = (stop - x) * c;
        if (have >= units) {
            x += units / c;
            units = 0.0;
            break;
        }
        units -= have;
        x = stop;
    }
    return lf__chunk_clamp(ceil(x - (double)a), left);
}

void lf__profile_range(const struct lf__profile *p, double *lo, double *hi)
{
    double min = p->cost[0], max = p->cost[0], sum = 0.0;
    for (int b = 0; b < LF__PROF_BINS; b++) {
        min = lf__fmin(min, p->cost[b]);
        max = lf__fmax(max, p->cost[b]);
        sum += p->cost[b];
    }
    double mean = sum / LF__PROF_BINS;
    *lo = mean > 0.0 ? min / mean : 1.0;
    *hi = mean > 0.0 ? max / mean : 1.0;
}
