/* lib/policy/fit.h - the arithmetic of seed 000 (González-Vélez & Cole),
 * shared by dealdyn and multi: least-squares fits of calibration times
 * (eqs. 5-6), fitness (eq. 4), dispersion and installment factor (eqs. 7-8)
 * and the rounded installment (eq. 9).  Pure functions of numbers.
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
 * values of t that are positive and finite (seed 000 eq. 7); 0 when fewer
 * than two such values. */
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

/* Mean of the positive, finite calib_ipt of v's workers; 0 when none. */
double lf__mean_calib_ipt(const struct lf__view *v);
/* Mean of the positive, finite latest times per iteration
 * (lf__view_last_ipt) of v's workers; 0 when none. */
double lf__mean_last_ipt(const struct lf__view *v);

#endif
