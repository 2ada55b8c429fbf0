/* loopfarm/omp.h - LF_FOR: loopfarm's schedules where
 * `#pragma omp for schedule(dynamic)` stood.
 *
 *     #pragma omp parallel
 *     {
 *         LF_FOR(i, 0, n) {          // was: #pragma omp for schedule(dynamic)
 *             y[i] = f(x[i]);        //      for (long i = 0; i < n; i++)
 *         }
 *     }
 *
 * Forms (i is declared by the macro, a long; the body follows as a for
 * statement's body would):
 *   LF_FOR(i, lo, hi)                    i = lo, lo+1, ... < hi; ends with the team's barrier
 *   LF_FOR_STEP(i, lo, hi, incr)         any nonzero incr; i < hi (incr > 0) or i > hi (incr < 0)
 *   LF_FOR_SCHED(i, lo, hi, incr, spec)  schedule spec string instead of LF_SCHEDULE
 *   LF_FOR_NOWAIT(...), LF_FOR_STEP_NOWAIT(...), LF_FOR_SCHED_NOWAIT(...)
 *                                        the same without the closing barrier
 *   LF_PARALLEL_FOR(i, lo, hi), LF_PARALLEL_FOR_SCHED(i, lo, hi, incr, spec)
 *                                        replace `#pragma omp parallel for schedule(dynamic)`
 *   LF_FOR_DATA(i, lo, hi, incr, spec, data), LF_FOR_DATA_NOWAIT(...)
 *                                        with a description of the loop's data
 *                                        (const struct lf_data *, see loopfarm.h):
 *                                        chunks are taken near their data, and
 *                                        remote ones staged; in the body,
 *                                        LF_IN(T, k, j) is the element of input k
 *                                        that loop index j reads (j within the
 *                                        chunk, or its halo), of type const T
 *   LF_FOR_AT(site, i, lo, hi, incr, spec), LF_FOR_AT_NOWAIT(...),
 *   LF_FOR_DATA_AT(site, i, lo, hi, incr, spec, data)
 *                                        keyed by an explicit struct lf_site
 *                                        (LF_SITE_INIT) instead of the line
 *
 * With no spec the schedule comes from the LF_SCHEDULE environment variable
 * (default "auto").  Each execution of a loop loans a handle for its
 * team alone, so teams that pthreads open at the same time never share one.
 * Under libgomp there is no barrier at loop entry; under other runtimes
 * (libomp) the members receive the loan at an `omp single copyprivate`,
 * which is one.  A loop the team cannot run as written (increment 0, bounds
 * that differ between members, a malformed lf_data) is reported once per
 * call site on stderr.  Compile with -fopenmp (gcc or clang); without OpenMP
 * the loops run serially.
 */
#ifndef LOOPFARM_OMP_H
#define LOOPFARM_OMP_H

#include <loopfarm.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Per-thread cursor of one LF_FOR execution (lives in the macro's for). */
struct lf__omp_for {
    struct lf_site *site;
    lf_omp_loan *loan;
    lf_loop *loop; /* NULL: this member runs no iteration (reported) */
    const struct lf_data *data;
    int tid;
    int wait;
    int light; /* run by lf_omp_light_* (no handle) */
    long first;
    unsigned long count;
    int ninputs;
    const char *in[LF_MAX_INPUTS]; /* input k at the chunk's first index */
    long step[LF_MAX_INPUTS];      /* bytes from index i's element to i + 1's */
    struct lf_omp_light lt;
};

/* Enter the loop: without a handle when its schedule needs only a counter
 * (lf_omp_light_begin), else receive the handle this execution of the loop
 * loaned for the team (no barrier under libgomp), and join the loop.  The
 * cursor is filled where it lives and returned, never returned by value:
 * it is about 400 bytes (most of them the handle-free storage), and a
 * copy at every loop entry costs a third of a one-thread guided loop. */
static inline struct lf__omp_for *lf__omp_for_begin(struct lf__omp_for *fp, struct lf_site *site,
                                                    long lo, long hi, long incr, const char *spec,
                                                    int wait, const struct lf_data *data)
{
    int nthreads = 1;
    lf_omp_loan *loan = (lf_omp_loan *)0;
    fp->tid = 0;
#ifdef _OPENMP
    nthreads = omp_get_num_threads();
    fp->tid = omp_get_thread_num();
#endif
    fp->site = site;
    fp->wait = wait && nthreads > 1;
    fp->first = 0;
    fp->count = 0;
    fp->data = data;
    fp->ninputs = 0;
    /* A schedule that needs nothing but a counter (guided) runs without a handle. */
    fp->light = !data && lf_omp_light_begin(site, spec, nthreads, fp->tid, lo, hi, incr, &fp->lt);
    if (fp->light) {
        fp->loan = (lf_omp_loan *)0;
        fp->loop = (lf_loop *)0;
        return fp;
    }
#ifdef _OPENMP
    if (nthreads > 1) {
        /* Only this team's members may share the handle: they meet in a work
         * share of theirs, or (libomp) one loans and broadcasts. */
        loan = lf_omp_team_loan(site, spec, nthreads);
        if (!loan) {
#pragma omp single copyprivate(loan)
            loan = lf_omp_loan_get(site, spec, nthreads);
        }
    }
#endif
    if (!loan)
        loan = lf_omp_loan_get(site, spec, 1);
    fp->loan = loan;
    fp->loop = lf_omp_enter(site, loan, fp->tid, lo, hi, incr, data);
    fp->ninputs = data && fp->loop ? data->ninputs : 0;
    for (int k = 0; k < fp->ninputs && k < LF_MAX_INPUTS; k++)
        fp->step[k] = data->in[k].stride * (long)data->in[k].size;
    return fp;
}

/* Fetch the next chunk; at the end leave the loop and, unless nowait, wait
 * at the team's barrier as `omp for` would. */
static inline int lf__omp_for_next(struct lf__omp_for *f)
{
    if (f->light) {
        if (lf_omp_light_next(&f->lt, &f->first, &f->count))
            return 1;
        lf_omp_light_end(&f->lt);
    } else if (f->loop && lf_loop_next(f->loop, f->tid, &f->first, &f->count)) {
        for (int k = 0; k < f->ninputs && k < LF_MAX_INPUTS; k++) {
            f->in[k] = (const char *)lf_loop_input(f->loop, f->tid, k);
            if (!f->in[k] && f->data->in[k].base) /* description refused: in place */
                f->in[k] = (const char *)f->data->in[k].base + f->first * f->step[k];
        }
        return 1;
    } else {
        lf_omp_exit(f->site, f->loan, f->loop, f->tid);
    }
#ifdef _OPENMP
    if (f->wait) {
#pragma omp barrier
    }
#endif
    return 0;
}

#define LF__SITE()                                                                                 \
    __extension__({                                                                                \
        static struct lf_site lf__site_ = {                                                        \
            .file = __FILE__, .line = __LINE__, .priv = 0, .flags = 0, .own = 0};                  \
        &lf__site_;                                                                                \
    })

/* i advances with unsigned arithmetic so that stepping past the last
 * iteration of a loop that ends near LONG_MAX is not an overflow.  The
 * cursor is declared uninitialised and lf__fp_, declared beside it, is
 * what lf__omp_for_begin fills it through (a for statement's one
 * declaration has no room for a call statement). */
#define LF__FOR(i, lo, hi, incr, spec, wait) LF__FOR_S(LF__SITE(), i, lo, hi, incr, spec, wait, 0)
#define LF__FOR_D(i, lo, hi, incr, spec, wait, data)                                               \
    LF__FOR_S(LF__SITE(), i, lo, hi, incr, spec, wait, data)
#define LF__FOR_S(site, i, lo, hi, incr, spec, wait, data)                                         \
    for (struct lf__omp_for lf__f_, *lf__fp_ = lf__omp_for_begin(&lf__f_, (site), (lo), (hi),      \
                                                                 (incr), (spec), (wait), (data));  \
         lf__omp_for_next(lf__fp_);)                                                               \
        for (long i = lf__f_.first, lf__k_ = (long)lf__f_.count; lf__k_ > 0;                       \
             lf__k_--, i = (long)((unsigned long)i + (unsigned long)(incr)))

#define LF_FOR(i, lo, hi)                          LF__FOR(i, lo, hi, 1L, (const char *)0, 1)
#define LF_FOR_STEP(i, lo, hi, incr)               LF__FOR(i, lo, hi, incr, (const char *)0, 1)
#define LF_FOR_SCHED(i, lo, hi, incr, spec)        LF__FOR(i, lo, hi, incr, spec, 1)
#define LF_FOR_NOWAIT(i, lo, hi)                   LF__FOR(i, lo, hi, 1L, (const char *)0, 0)
#define LF_FOR_STEP_NOWAIT(i, lo, hi, incr)        LF__FOR(i, lo, hi, incr, (const char *)0, 0)
#define LF_FOR_SCHED_NOWAIT(i, lo, hi, incr, spec) LF__FOR(i, lo, hi, incr, spec, 0)

#define LF_FOR_DATA(i, lo, hi, incr, spec, data)        LF__FOR_D(i, lo, hi, incr, spec, 1, data)
#define LF_FOR_DATA_NOWAIT(i, lo, hi, incr, spec, data) LF__FOR_D(i, lo, hi, incr, spec, 0, data)

/* A loop whose call site is *site instead of its source line: what a site
 * learns (rates, profile, handles) is kept per struct lf_site, so one line
 * of code can serve several logical loops that must learn apart, e.g. a
 * generic routine called for different kernels, or a benchmark running
 * each schedule through the same machine code.  The site must be
 * zero-initialised apart from its label (LF_SITE_INIT) and live as long as
 * the process: the library keeps what it learned behind it. */
#define LF_SITE_INIT(file, line)                                                                   \
    {                                                                                              \
        (file), (line), 0, 0, 0                                                                    \
    }
#define LF_FOR_AT(site, i, lo, hi, incr, spec)        LF__FOR_S(site, i, lo, hi, incr, spec, 1, 0)
#define LF_FOR_AT_NOWAIT(site, i, lo, hi, incr, spec) LF__FOR_S(site, i, lo, hi, incr, spec, 0, 0)
#define LF_FOR_DATA_AT(site, i, lo, hi, incr, spec, data)                                          \
    LF__FOR_S(site, i, lo, hi, incr, spec, 1, data)
/* Inside an LF_FOR body: the first index of the chunk the current
 * iteration belongs to (of a loan, of the piece handed out), and the
 * chunk's iterations; e.g. for work done once per chunk. */
#define LF_CHUNK_FIRST() (lf__f_.first)
#define LF_CHUNK_SIZE()  (lf__f_.count)
/* Inside LF_FOR_DATA: the element of input k (a base/size/stride input)
 * that loop index j reads, staged or in place. */
#define LF_IN(T, k, j) (*(const T *)(lf__f_.in[k] + ((j)-lf__f_.first) * lf__f_.step[k]))

#ifdef _OPENMP
#define LF_PARALLEL_FOR(i, lo, hi)                                                                 \
    _Pragma("omp parallel") LF__FOR(i, lo, hi, 1L, (const char *)0, 0)
#define LF_PARALLEL_FOR_SCHED(i, lo, hi, incr, spec)                                               \
    _Pragma("omp parallel") LF__FOR(i, lo, hi, incr, spec, 0)
#else
#define LF_PARALLEL_FOR(i, lo, hi)                   LF__FOR(i, lo, hi, 1L, (const char *)0, 0)
#define LF_PARALLEL_FOR_SCHED(i, lo, hi, incr, spec) LF__FOR(i, lo, hi, incr, spec, 0)
#endif

#endif
