/* lib/policy/fit.h - the arithmetic of seed 000 (González-Vélez & Cole),
 * shared by dealdyn and multi: least-squares fits of calibration times
 * (eqs. 5-6), fitness (eq. 4), dispersion and installment factor (eqs. 7-8)
 * and the rounded installment (eq. 9).  Pure functions of numbers.
 *
 * References: H. González-Vélez & M. Cole, "Adaptive statistical
 * scheduling of divisible workloads in heterogeneous systems", Journal of
 * Scheduling (Springer), 2009 (seed 000).
 */
#ifndef LF_POLICY_FIT_H
#define LF_POLICY_FIT_H

#include <math.h>
#include <stdint.h>

#include "policy/policy.h"

#define LF__FIT_MAXP 4 /* predictors a fit may have */

/* Least-squares fit of y_i = c[0] + sum_j c[j+1] * x[i*m + j] over n
 * observations with m (1..LF__FIT_MAXP) predictors.  Returns 0 and c[0..m];
 * or -EDOM (c untouched) when n < m + 1, a predictor is constant, the
 * predictors are collinear, or an input is not finite. */
int lf__fit_affine(const double *x, int m, const double *y, int n, double *c);

/* Coefficient of variation sigma/mean with the population sigma, over the
 * values that are positive and finite (seed 000 eq. 7); 0 when fewer than
 * two such values.  Values are added one at a time (Welford's update), so
 * no array of team size is needed. */
struct lf__cv_acc {
    int k;
    double mean, m2;
};
static inline void lf__cv_add(struct lf__cv_acc *a, double t)
{
    if (!(t > 0.0) || !isfinite(t))
        return;
    a->k++;
    double d = t - a->mean;
    a->mean += d / a->k;
    a->m2 += d * (t - a->mean);
}
double lf__cv_value(const struct lf__cv_acc *a);
/* The same with the sample sigma (divisor k - 1): seed 000's worked example
 * (§3.2.2) quotes sigma = 1.3 for calibration times 1, 2, 3, 4, which is the
 * sample sigma (1.29); eq. 7 as printed divides by N (1.12). */
double lf__cv_sample_value(const struct lf__cv_acc *a);
/* The same over the array t[0..n-1]. */
double lf__cv(const double *t, int n);

/* Installment factor k = ln(S)^CV (seed 000 eq. 8); 1 when S <= e (the
 * paper assumes S > e) or CV <= 0. */
double lf__install_factor(double S, double cv);

/* Installment floor(R/k * F + 1/2) (seed 000 eq. 9), at least 1 and
 * saturated far below UINT64_MAX; non-finite input gives 1. */
uint64_t lf__install_size(double R, double k, double F);

/* A worker's time per iteration as a policy may use it: t when positive and
 * finite, else the substitute (the mean of the workers that have one). */
static inline double lf__t_or(double t, double substitute)
{
    return (t > 0.0 && isfinite(t)) ? t : substitute;
}

/* Mean of t(v, j) over the workers for which it is known (positive and
 * finite); 0 when none is. */
double lf__mean_known(const struct lf__view *v, double (*t)(const struct lf__view *v, int j));
/* Mean of the positive, finite calib_ipt of v's workers; 0 when none. */
double lf__mean_calib_ipt(const struct lf__view *v);
/* Mean of the positive, finite latest times per iteration
 * (lf__view_last_ipt) of v's workers; 0 when none. */
double lf__mean_last_ipt(const struct lf__view *v);

#endif
