/* lib/policy/factoring.h - arithmetic shared by the classic policies: the
 * batches of factoring (fac2, wf, awf-*, af) as a pure function of the
 * unclaimed count r, and the guarded conversion of a real chunk size.
 *
 * References: the batches are those of S. F. Hummel, E. Schonberg &
 * L. E. Flynn, "Factoring: a method for scheduling parallel loops",
 * Communications of the ACM 35(8), 1992; the relative weights of
 * lf__speed_weight those of S. F. Hummel, J. Schmidt, R. N. Uma & J. Wein,
 * "Load-sharing in heterogeneous systems via weighted factoring", Proc. 8th
 * ACM SPAA, 1996.
 *
 * Internal to lib/policy/; nothing outside the classic policies includes it.
 */
#ifndef LF_POLICY_FACTORING_H
#define LF_POLICY_FACTORING_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include "policy/policy.h"

/* Batches tabulated by lf__fac_start; a loop needs about log2(n / 2P) + 2,
 * so 32 covers n up to ~2^31 * P without falling back to the recurrence. */
#define LF__FAC_TAB 32

/* Batch boundaries of factoring with x = 2 for one loop instance. */
struct lf__fac {
    uint64_t n;              /* trip count the table was built for */
    int nworkers;            /* team size it was built for */
    int nb;                  /* entries of R[] in use */
    uint64_t R[LF__FAC_TAB]; /* R[b]: iterations unclaimed when batch b starts */
};

/* Tabulate the batches of v's loop (exclusive, at loop start). */
void lf__fac_start(struct lf__fac *f, const struct lf__view *v);

/* The fac2 chunk ceil(R_b / 2P) of the batch b that r unclaimed iterations
 * fall in (R_b >= r > R_{b+1}); sets *batch to b when batch is not NULL.
 * Correct even when f was never started (it then runs the recurrence). */
uint64_t lf__fac_chunk(const struct lf__fac *f, const struct lf__view *v, uint64_t r,
                       unsigned *batch);

/* Relative speed of worker w, normalised so that the team's mean is 1:
 * P * rate(w) / sum_j rate(j).  A worker whose rate is unknown (not > 0, or
 * not finite) counts as the mean of the known ones; w itself unknown, or
 * nobody known, gives 1.  O(P). */
double lf__speed_weight(const struct lf__view *v, int w,
                        double (*rate)(const void *ctx, const struct lf__view *v, int j),
                        const void *ctx);

#endif
