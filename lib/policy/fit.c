/* lib/policy/fit.c - least squares and the small statistics of seed 000
 * (González-Vélez & Cole: the fits of eqs. 5-6, the dispersion of eq. 7,
 * the installment factor of eq. 8 and the installment of eq. 9).
 *
 * References: H. González-Vélez & M. Cole, "Adaptive statistical
 * scheduling of divisible workloads in heterogeneous systems", Journal of
 * Scheduling (Springer), 2009 (seed 000).
 *
 * The fit standardises every predictor (centre, divide by its population
 * standard deviation) before it forms the normal equations, so that
 * predictors of very different scale (a' in [0,1], latencies in ns) give a
 * well-conditioned system; a constant predictor or a pivot that vanishes
 * during elimination means the fit is not determined and is refused.
 */
#include <errno.h>
#include <math.h>

#include "policy/fit.h"
#include "policy/fmath.h"

/* Smallest |pivot| of the correlation matrix we accept: below it the
 * predictors are collinear for practical purposes. */
#define PIVOT_EPS 1e-9

int lf__fit_affine(const double *x, int m, const double *y, int n, double *c)
{
    double mean[LF__FIT_MAXP], sd[LF__FIT_MAXP];
    double a[LF__FIT_MAXP][LF__FIT_MAXP + 1];
    double ybar = 0.0;

    if (m < 1 || m > LF__FIT_MAXP || n < m + 1)
        return -EDOM;
    for (int i = 0; i < n; i++) {
        if (!isfinite(y[i]))
            return -EDOM;
        ybar += y[i];
        for (int j = 0; j < m; j++)
            if (!isfinite(x[i * m + j]))
                return -EDOM;
    }
    ybar /= n;
    for (int j = 0; j < m; j++) {
        double s = 0.0, q = 0.0;
        for (int i = 0; i < n; i++)
            s += x[i * m + j];
        mean[j] = s / n;
        for (int i = 0; i < n; i++) {
            double d = x[i * m + j] - mean[j];
            q += d * d;
        }
        sd[j] = sqrt(q / n);
        /* Constant (to rounding) predictor: its coefficient is not determined. */
        if (!(sd[j] > 1e-12 * fabs(mean[j])) || sd[j] == 0.0)
            return -EDOM;
    }
    /* Normal equations of the standardised predictors: a = Z'Z/n | Z'(y-ybar)/n. */
    for (int j = 0; j < m; j++) {
        for (int k = 0; k <= m; k++) {
            double s = 0.0;
            for (int i = 0; i < n; i++) {
                double zj = (x[i * m + j] - mean[j]) / sd[j];
                double zk = k < m ? (x[i * m + k] - mean[k]) / sd[k] : y[i] - ybar;
                s += zj * zk;
            }
            a[j][k] = s / n;
        }
    }
    /* Gaussian elimination with partial pivoting. */
    for (int col = 0; col < m; col++) {
        int piv = col;
        for (int r = col + 1; r < m; r++)
            if (fabs(a[r][col]) > fabs(a[piv][col]))
                piv = r;
        if (fabs(a[piv][col]) < PIVOT_EPS)
            return -EDOM;
        if (piv != col)
            for (int k = 0; k <= m; k++) {
                double t = a[col][k];
                a[col][k] = a[piv][k];
                a[piv][k] = t;
            }
        for (int r = col + 1; r < m; r++) {
            double f = a[r][col] / a[col][col];
            for (int k = col; k <= m; k++)
                a[r][k] -= f * a[col][k];
        }
    }
    double beta[LF__FIT_MAXP];
    for (int r = m - 1; r >= 0; r--) {
        double s = a[r][m];
        for (int k = r + 1; k < m; k++)
            s -= a[r][k] * beta[k];
        beta[r] = s / a[r][r];
    }
    /* Back to the original scale: c_j = beta_j / sd_j, c_0 = ybar - sum c_j mean_j. */
    double out[LF__FIT_MAXP + 1];
    out[0] = ybar;
    for (int j = 0; j < m; j++) {
        out[j + 1] = beta[j] / sd[j];
        out[0] -= out[j + 1] * mean[j];
    }
    for (int j = 0; j <= m; j++)
        if (!isfinite(out[j]))
            return -EDOM;
    for (int j = 0; j <= m; j++)
        c[j] = out[j];
    return 0;
}

double lf__cv_value(const struct lf__cv_acc *a)
{
    if (a->k < 2 || !(a->mean > 0.0))
        return 0.0;
    return sqrt(a->m2 / a->k) / a->mean; /* population sigma, seed 000 eq. (7) */
}

double lf__cv_sample_value(const struct lf__cv_acc *a)
{
    if (a->k < 2 || !(a->mean > 0.0))
        return 0.0;
    return sqrt(a->m2 / (a->k - 1)) / a->mean;
}

double lf__cv(const double *t, int n)
{
    struct lf__cv_acc a = {0};
    for (int i = 0; i < n; i++)
        lf__cv_add(&a, t[i]);
    return lf__cv_value(&a);
}

double lf__install_factor(double S, double cv)
{
    if (!(S > M_E) || !(cv > 0.0) || !isfinite(cv))
        return 1.0;
    double k = lf__pow(lf__log(S), cv); /* seed 000 eq. (8) */
    return (isfinite(k) && k >= 1.0) ? k : 1.0;
}

uint64_t lf__install_size(double R, double k, double F)
{
    /* seed 000 eq. (9): floor(R/k * F + 1/2), at least 1, never NaN-derived;
     * the executor clips it to what remains. */
    return lf__chunk_round(R / k * F, UINT64_MAX);
}

static double calib_ipt_of(const struct lf__view *v, int j)
{
    return lf__word_getd(&v->w[j].calib_ipt);
}

double lf__mean_known(const struct lf__view *v, double (*t)(const struct lf__view *, int))
{
    double s = 0.0;
    int k = 0;
    for (int j = 0; j < v->nworkers; j++) {
        double x = t(v, j);
        if (x > 0.0 && isfinite(x)) {
            s += x;
            k++;
        }
    }
    return k ? s / k : 0.0;
}

double lf__mean_calib_ipt(const struct lf__view *v)
{
    return lf__mean_known(v, calib_ipt_of);
}

double lf__mean_last_ipt(const struct lf__view *v)
{
    return lf__mean_known(v, lf__view_last_ipt);
}
