/* lib/policy/fmath.h - the few functions of <math.h> that libloopfarm needs
 * and compilers do not expand inline, written here so that the library does
 * not link libm: loading it is a measurable part of a short program's
 * start-up (doc/design.md, "Start-up").
 *
 * Contracts:
 *   lf__fmax, lf__fmin   as fmax and fmin: a NaN argument yields the other one.
 *   lf__rint_even        as nearbyint under the default rounding mode (to
 *                        nearest, ties to even) for |x| < 2^52; larger
 *                        magnitudes, infinities and NaN are returned as they are
 *                        (every double that large is an integer already).
 *   lf__log, lf__log10   natural and decimal logarithms; x < 0 or NaN gives NaN,
 *                        0 gives -infinity, +infinity itself; within a few units
 *                        in the last place of the correctly rounded value.
 *   lf__exp              e^x; overflow gives +infinity, underflow 0 (subnormal
 *                        results are rounded twice); within a few ulp.
 *   lf__pow              x^y.  An integral y with |y| <= 1024: by repeated
 *                        squaring in double-double arithmetic, for any x, within
 *                        about one ulp.  Other y need x > 0 (x = 0 gives 0 or
 *                        +infinity, x < 0 NaN) and are e^(y ln x), with a relative
 *                        error of about (2 + |y ln x|) ulp.
 * Pure: no state, no errno.  sqrt needs no helper: the library is built with
 * -fno-math-errno, under which compilers emit the instruction. */
#ifndef LF_POLICY_FMATH_H
#define LF_POLICY_FMATH_H

static inline double lf__fmax(double a, double b)
{
    if (a != a)
        return b;
    if (b != b)
        return a;
    return a > b ? a : b;
}

static inline double lf__fmin(double a, double b)
{
    if (a != a)
        return b;
    if (b != b)
        return a;
    return a < b ? a : b;
}

static inline double lf__rint_even(double x)
{
    /* Below 2^52 in magnitude, x + 2^52 has no fraction bits left: the sum is
     * rounded to an integer in the current mode, and the subtraction is exact. */
    if (!(x < 0x1p52 && x > -0x1p52))
        return x;
    double big = x < 0.0 ? -0x1p52 : 0x1p52;
    return (x + big) - big; /* not folded: IEEE arithmetic does not reassociate */
}

double lf__log(double x);
double lf__log10(double x);
double lf__exp(double x);
double lf__pow(double x, double y);

#endif
