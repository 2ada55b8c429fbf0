/* lib/policy/fmath.c - logarithm, exponential and power without libm (see fmath.h).
 *
 * ln x: x = m 2^e with m in [sqrt(1/2), sqrt(2)); with s = (m - 1) / (m + 1),
 * ln m = 2 atanh s = 2 (s + s^3/3 + s^5/5 + ...), |s| <= 0.172, summed to
 * s^23 (the rest is below 2^-60 of the sum); ln x = e ln 2 + ln m, ln 2 split
 * in two so that e times its first part is exact.
 * e^x: x = k ln 2 + r with k the integer nearest x / ln 2, |r| <= ln 2 / 2;
 * e^r by its Taylor series to r^13 (the rest is below 2^-57), then scaled by
 * 2^k through the exponent bits. */
#include "config.h"

#include <math.h>
#include <stdint.h>

#include "policy/fmath.h"

/* A double's representation and back (type punning through a union is defined in C). */
union dbits {
    double d;
    uint64_t u;
};

/* ln 2 = LN2_HI + LN2_LO; LN2_HI has its low 32 bits zero, so k * LN2_HI is
 * exact for |k| < 2^20. */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10
#define LOG2_E 1.44269504088896338700e+00
#define SQRT_2 1.41421356237309514547e+00
#define LN_10  2.30258509299404590109e+00

double lf__log(double x)
{
    if (x != x || x < 0.0)
        return NAN;
    if (x == 0.0)
        return -INFINITY;
    if (isinf(x))
        return x;
    int e = 0;
    if (x < 0x1p-1022) { /* subnormal: made normal first */
        x *= 0x1p54;
        e = -54;
    }
    uint64_t u = ((union dbits){.d = x}).u;
    e += (int)(u >> 52) - 1023;
    double m =
        ((union dbits){.u = (u & 0x000fffffffffffffull) | 0x3ff0000000000000ull}).d; /* [1, 2) */
    if (m > SQRT_2) {
        m *= 0.5;
        e++;
    }
    double f = m - 1.0; /* exact: m is within a factor of 2 of 1 */
    double s = f / (2.0 + f), z = s * s;
    double q = 1.0 / 23.0;
    for (int k = 21; k >= 3; k -= 2)
        q = q * z + 1.0 / (double)k;
    double ln_m = 2.0 * s + 2.0 * s * (z * q);
    double de = (double)e;
    return de * LN2_HI + (ln_m + de * LN2_LO);
}

double lf__log10(double x)
{
    double v = lf__log(x) / LN_10, k = lf__rint_even(v);
    /* An exact power of ten gets its exponent exactly, as from libm. */
    if (fabs(v - k) < 1e-12 && fabs(k) <= 22.0 && lf__pow(10.0, k) == x)
        return k;
    return v;
}

/* p * 2^k for p in [1/2, 2] and any k. */
static double scale2(double p, int k)
{
    if (k > 1023) {
        p *= 0x1p1023;
        k -= 1023;
        if (k > 1023)
            return INFINITY;
    } else if (k < -1022) {
        p *= 0x1p-1000;
        k += 1000;
        if (k < -1022)
            return 0.0;
    }
    return p * ((union dbits){.u = (uint64_t)(k + 1023) << 52}).d;
}

double lf__exp(double x)
{
    if (x != x)
        return x;
    if (x > 709.782712893384) /* ln of the largest double */
        return INFINITY;
    if (x < -745.1332191019412) /* below half the smallest subnormal */
        return 0.0;
    double kd = lf__rint_even(x * LOG2_E);
    double r = (x - kd * LN2_HI) - kd * LN2_LO;
    /* 1/n!, n = 0..13 (each factorial is exact, so each quotient is correctly rounded). */
    static const double inv_fact[14] = {
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362880.0,
        1.0 / 3628800.0,
        1.0 / 39916800.0,
        1.0 / 479001600.0,
        1.0 / 6227020800.0,
    };
    double p = inv_fact[13];
    for (int n = 12; n >= 0; n--)
        p = p * r + inv_fact[n];
    return scale2(p, (int)kd);
}

/* a b = *p + *e exactly, by Dekker's splitting (no fused multiply-add
 * needed); *e = 0 where splitting could overflow. */
static void two_prod(double a, double b, double *p, double *e)
{
    *p = a * b;
    if (!(fabs(a) < 0x1p995 && fabs(b) < 0x1p995) || !isfinite(*p)) {
        *e = 0.0;
        return;
    }
    const double split = 134217729.0; /* 2^27 + 1 */
    double ca = split * a, ah = ca - (ca - a), al = a - ah;
    double cb = split * b, bh = cb - (cb - b), bl = b - bh;
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* (*h + *l) *= (bh + bl), in double-double. */
static void dd_mul(double *h, double *l, double bh, double bl)
{
    double p, e;
    two_prod(*h, bh, &p, &e);
    if (!isfinite(p)) { /* overflow (or a NaN): no low part to carry */
        *h = p;
        *l = 0.0;
        return;
    }
    e += *h * bl + *l * bh;
    *h = p + e;
    *l = isfinite(*h) ? e - (*h - p) : 0.0;
}

double lf__pow(double x, double y)
{
    if (y == 0.0)
        return 1.0;
    if (fabs(y) <= 1024.0 && y == lf__rint_even(y)) {
        /* Repeated squaring in double-double: each product's rounding error
         * is carried, so the result is within about one ulp. */
        unsigned long n = (unsigned long)fabs(y);
        double ah = 1.0, al = 0.0, bh = x, bl = 0.0;
        while (n) {
            if (n & 1)
                dd_mul(&ah, &al, bh, bl);
            n >>= 1;
            if (n)
                dd_mul(&bh, &bl, bh, bl);
        }
        if (y > 0.0)
            return ah + al;
        double q = 1.0 / ah;
        return isfinite(q) && q != 0.0 ? q - q * (al / ah) : q;
    }
    if (x != x || y != y || x < 0.0)
        return NAN;
    if (x == 0.0)
        return y > 0.0 ? 0.0 : INFINITY;
    if (isinf(x))
        return y > 0.0 ? INFINITY : 0.0;
    return lf__exp(y * lf__log(x));
}
