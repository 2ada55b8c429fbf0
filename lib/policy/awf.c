/* lib/policy/awf.c - "awf-b", "awf-c", "awf-d", "awf-e": adaptive weighted
 * factoring (Banicescu, Velusamy & Devaprasad, Cluster Computing 6(3), 2003)
 * in the four variants of Carino & Banicescu (J. Supercomputing 44(1), 2008).
 *
 * References: I. Banicescu, V. Velusamy & J. Devaprasad, "On the scalability
 * of dynamic scheduling scientific applications with adaptive weighted
 * factoring", Cluster Computing 6(3), 2003 (the weighted average
 * performance pi_i and the weights w_i); the batches are factoring's,
 * S. F. Hummel, E. Schonberg & L. E. Flynn, "Factoring: a method for
 * scheduling parallel loops", Communications of the ACM 35(8), 1992; the
 * variants b-e are R. L. Carino & I. Banicescu, "Dynamic load balancing
 * with adaptive factoring methods in scientific applications", The Journal
 * of Supercomputing 44(1), 2008.
 *
 * Worker i's weight is w_i = P pi_i / sum_j pi_j, where pi_i is its weighted
 * average performance in iterations per ns: chunk k of the worker counts with
 * weight k, so recent chunks matter more,
 *     pi_i = sum_k k s_k / sum_k k t_k      (s_k iterations, t_k time).
 * The variants differ in when weights change and in what t_k measures:
 *   awf-b  weights refreshed at batch boundaries, t = compute time (busy_ns);
 *   awf-c  weights refreshed after every chunk,   t = compute time;
 *   awf-d  as b, t = compute + scheduling time (total_ns);
 *   awf-e  as c, t = compute + scheduling time.
 * The batch variants scale the current fac2 batch chunk, w_i c_b (the batch
 * size is fixed when the batch starts); the chunk variants scale the fac2
 * chunk of the current remainder, w_i ceil(r / 2P).
 *
 * Bookkeeping lives in the worker's own policy words, written only by its
 * feedback hook.  With T_k and I_k the cumulative time and iterations after
 * the worker's k-th chunk (from lf__wstat), sum_k k t_k = (k+1) T_k - S_k
 * where S_k = sum_{j<=k} T_j (likewise for iterations), so two running sums
 * give the weighted average without a per-chunk history:
 *   pol[0] S_k (double), pol[1] the same sum for iterations (double),
 *   pol[2] k in the low 32 bits, 1 + the batch of the last publication in the
 *          high 32 (0: nothing published yet),
 *   pol[3] the published pi (double; 0 until the first measurement).
 * Other workers read only pol[3], the published pi.
 * The batch variants republish pi only when the batch has moved on since
 * the last publication; feedback does not see r, so it estimates the batch
 * from the completed count (n - sum_j iters_j >= the true r, so the estimate
 * lags a little, which only makes the freeze last a little longer).  A
 * worker's first measurement is published at once.
 *
 * No calibration phase (no LF__P_CALIB): before a worker has published a
 * measurement its weight is 1, so the first batch is plain fac2, as in the
 * papers' first time step, and the weights adapt as chunks complete.
 */
#include <math.h>

#include "policy/factoring.h"

enum { AWF_SUMT, AWF_SUMI, AWF_META, AWF_RATE };

struct awf_state {
    struct lf__fac fac;
    int per_batch;     /* b, d: weights frozen within a batch */
    int with_overhead; /* d, e: time includes scheduling */
};

static int awf_parse_as(struct awf_state *s, struct lf__params *p, int per_batch, int with_overhead,
                        char *err, size_t errlen)
{
    s->per_batch = per_batch;
    s->with_overhead = with_overhead;
    return lf__no_chunk(p, p->name, err, errlen);
}

static int awf_b_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return awf_parse_as(state, p, 1, 0, err, errlen);
}
static int awf_c_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return awf_parse_as(state, p, 0, 0, err, errlen);
}
static int awf_d_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return awf_parse_as(state, p, 1, 1, err, errlen);
}
static int awf_e_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    return awf_parse_as(state, p, 0, 1, err, errlen);
}

static void awf_start(void *state, const struct lf__view *v)
{
    struct awf_state *s = state;
    lf__fac_start(&s->fac, v);
}

/* Batch the loop is in, judged from completed iterations (see above). */
static unsigned awf_batch_estimate(const struct awf_state *s, const struct lf__view *v)
{
    uint64_t done = 0;
    unsigned b = 0;
    for (int j = 0; j < v->nworkers; j++)
        done += lf__word_get(&v->w[j].iters);
    uint64_t r = done < v->n ? v->n - done : 1;
    lf__fac_chunk(&s->fac, v, r, &b);
    return b;
}

/* Fold worker w's latest chunk into its sums and maybe publish a new pi. */
static void awf_feedback(const void *state, const struct lf__view *v, int w)
{
    const struct awf_state *s = state;
    struct lf__wstat *ws = &v->w[w];
    uint64_t meta = lf__word_get(&ws->pol[AWF_META]);
    uint64_t k = (meta & 0xffffffffu) + 1, tag = meta >> 32;
    if (k > 0xffffffffu)
        return; /* 2^32 chunks: keep the last pi rather than wrap the count */
    double T = (double)lf__word_get(s->with_overhead ? &ws->total_ns : &ws->busy_ns);
    double I = (double)lf__word_get(&ws->iters);
    double st = lf__word_getd(&ws->pol[AWF_SUMT]) + T;
    double si = lf__word_getd(&ws->pol[AWF_SUMI]) + I;
    lf__word_putd(&ws->pol[AWF_SUMT], st);
    lf__word_putd(&ws->pol[AWF_SUMI], si);
    double kt = (double)(k + 1) * T - st, ki = (double)(k + 1) * I - si;
    double pi = ki / kt;
    if (kt > 0.0 && ki > 0.0 && isfinite(pi)) {
        uint64_t now = s->per_batch ? (uint64_t)awf_batch_estimate(s, v) + 1 : 1;
        if (!s->per_batch || tag == 0 || now != tag) {
            lf__word_putd(&ws->pol[AWF_RATE], pi);
            tag = now;
        }
    }
    lf__word_put(&ws->pol[AWF_META], (tag << 32) | k);
}

static double awf_rate(const void *ctx, const struct lf__view *v, int j)
{
    return lf__word_getd(&v->w[j].pol[AWF_RATE]);
}

static uint64_t awf_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                          double now)
{
    const struct awf_state *s = state;
    uint64_t P = (uint64_t)v->nworkers;
    uint64_t base = s->per_batch ? lf__fac_chunk(&s->fac, v, r, NULL) : lf__div_ceil(r, 2 * P);
    return lf__chunk_round(lf__speed_weight(v, w, awf_rate, s) * (double)base, r);
}

#define AWF_POLICY(v, letter, what)                                                                \
    const struct lf__policy lf__policy_awf_##v = {                                                 \
        .name = "awf-" letter,                                                                     \
        .synopsis = "awf-" letter,                                                                 \
        .help = "adaptive weighted factoring, " what " (Carino & Banicescu 2008)",                 \
        .flags = 0,                                                                                \
        .state_size = sizeof(struct awf_state),                                                    \
        .parse = awf_##v##_parse,                                                                  \
        .start = awf_start,                                                                        \
        .chunk = awf_chunk,                                                                        \
        .feedback = awf_feedback,                                                                  \
    }

AWF_POLICY(b, "b", "weights per batch from compute times");
AWF_POLICY(c, "c", "weights per chunk from compute times");
AWF_POLICY(d, "d", "weights per batch from compute + scheduling times");
AWF_POLICY(e, "e", "weights per chunk from compute + scheduling times");
