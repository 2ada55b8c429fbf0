/* loopfarm.hpp - loopfarm's schedules from C++: what a C++ program writes instead of
 * `#pragma omp parallel for schedule(dynamic)`.
 *
 *     #include <loopfarm.hpp>
 *
 *     loopfarm::parallel_for(0, n, [&](long i) { y[i] = f(x[i]); });          // LF_SCHEDULE
 *     loopfarm::parallel_for(0, n, [&](long i) { ... }, "af");                // a schedule
 *     loopfarm::parallel_for(n - 1, -1, -1, [&](long i) { ... }, "multi");    // lo, hi, step
 *     loopfarm::parallel_for_each(v, [&](double &x) { x *= 2; });             // a range
 *
 * Header-only, over the same runtime as the LF_FOR macros (loopfarm/omp.h), C++11 and later,
 * built with -fopenmp (g++: libgomp, clang++: libomp) and linked with -lloopfarm.
 *
 * Where it may be called:
 *   - outside a parallel region (or in a team of one): it opens one, `omp parallel for`;
 *   - by every member of a team inside a parallel region: the team shares the loop's
 *     iterations, as `omp for` would, and waits at the end (parallel_for_nowait does not).
 * Iterations: i = lo, lo + step, ... while i < hi (step > 0) or i > hi (step < 0); step 0 is
 * reported once and runs nothing.  Each iteration runs once.  The body must not throw out of
 * an iteration (OpenMP forbids leaving a region by an exception: std::terminate).
 * What a loop learns is remembered per body type, which is per call site for a lambda written
 * at the call (each lambda expression has a type of its own).  spec NULL (or absent): the
 * LF_SCHEDULE environment variable, default "dynamic".
 */
#ifndef LOOPFARM_HPP
#define LOOPFARM_HPP

#include <iterator>
#include <utility>

#include <loopfarm/omp.h>

namespace loopfarm
{
namespace detail
{

/* The site of loops whose body has type F, labelled by the first call's file and line. */
template <class F> inline lf_site *site_of(const char *file, int line)
{
    static lf_site site = {file, line, 0, 0, 0};
    return &site;
}

/* Run this member's share of the loop: chunks from the team's lease until none is left. */
template <class F>
inline void run_share(lf_site *site, long lo, long hi, long step, F &body, const char *spec,
                      int wait)
{
    lf__omp_for f; /* filled in place (see lf__omp_for_begin) */
    lf__omp_for_begin(&f, site, lo, hi, step, spec, wait, nullptr);
    while (lf__omp_for_next(&f)) {
        long i = f.first;
        for (unsigned long k = f.count; k > 0; k--) {
            body(i);
            /* Unsigned: stepping past the last iteration near LONG_MAX is no overflow. */
            i = (long)((unsigned long)i + (unsigned long)step);
        }
    }
}

/* In a team of several members: share the loop; otherwise open a team for it. */
template <class F>
inline void dispatch(long lo, long hi, long step, F &body, const char *spec, int wait,
                     const char *file, int line)
{
    lf_site *site = site_of<F>(file, line);
#ifdef _OPENMP
    if (omp_get_num_threads() > 1) {
        run_share(site, lo, hi, step, body, spec, wait);
        return;
    }
#pragma omp parallel
    run_share(site, lo, hi, step, body, spec, 0);
#else
    (void)wait;
    run_share(site, lo, hi, step, body, spec, 0);
#endif
}

} // namespace detail

/* body(i) for i = lo, lo + step, ... (i < hi for step > 0, i > hi for step < 0). */
template <class F>
inline void parallel_for(long lo, long hi, long step, F &&body, const char *spec = nullptr,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    detail::dispatch(lo, hi, step, body, spec, 1, file, line);
}

/* body(i) for i = lo, lo + 1, ..., hi - 1. */
template <class F>
inline void parallel_for(long lo, long hi, F &&body, const char *spec = nullptr,
                         const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    detail::dispatch(lo, hi, 1L, body, spec, 1, file, line);
}

/* parallel_for inside a region without the closing wait of the team (`omp for nowait`). */
template <class F>
inline void parallel_for_nowait(long lo, long hi, long step, F &&body, const char *spec = nullptr,
                                const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    detail::dispatch(lo, hi, step, body, spec, 0, file, line);
}

/* body(x) for each element x of a random-access range (std::vector, std::array, a C
 * array...), by reference. */
template <class R, class F>
inline void parallel_for_each(R &&range, F &&body, const char *spec = nullptr,
                              const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    using std::begin;
    using std::end;
    auto first = begin(range);
    long n = (long)(end(range) - first);
    auto each = [&](long i) { body(first[i]); };
    detail::dispatch(0L, n, 1L, each, spec, 1, file, line);
}

} // namespace loopfarm

#endif
