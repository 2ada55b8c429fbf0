/* lib/dispatch/locality.c - the domain ranges of a loop whose data has a home.
 *
 * A loop whose data has a home (given as ranges, or learned from where
 * input 0's pages lie) is split into one range of logical iterations per
 * NUMA domain, each with its own claim counter on its own cache line.  A
 * member claims from its domain's range while it has any, then helps the
 * domain with the most left (claim.c's domain variant; the rules are
 * lib/policy/locality.h's, shared with lf-sim).  Whether an instance claims
 * by domain and stages remote chunks is lib/exec/'s rule (loc modes).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "dispatch/dispatch.h"

/* Whether the byte offsets of input in's elements, for loop indices imin
 * .. imax and halo elements beyond, the span of any chunk, and the
 * addresses base + offset are all representable (elem_addr and input_span
 * compute them in long and size_t). */
static int input_fits(const struct lf_input *in, long imin, long imax)
{
    long size, lo_el, hi_el, lo_off, hi_off, halo_b, span, step;
    if (in->size > (size_t)LONG_MAX)
        return 0;
    size = (long)in->size;
    if (__builtin_mul_overflow(in->stride, size, &step)) /* bytes from one index to the next */
        return 0;
    /* Elements from imin * stride - halo to imax * stride + halo, in bytes. */
    if (__builtin_mul_overflow(imin, in->stride, &lo_el) ||
        __builtin_sub_overflow(lo_el, in->halo, &lo_el) ||
        __builtin_mul_overflow(imax, in->stride, &hi_el) ||
        __builtin_add_overflow(hi_el, in->halo, &hi_el) ||
        __builtin_mul_overflow(lo_el, size, &lo_off) ||
        __builtin_mul_overflow(hi_el, size, &hi_off) ||
        __builtin_add_overflow(hi_off, size, &hi_off) ||
        __builtin_mul_overflow(in->halo, size, &halo_b) ||
        __builtin_sub_overflow(hi_off, lo_off, &span))
        return 0;
    /* The addresses must not wrap around the address space. */
    uintptr_t base = (uintptr_t)in->base;
    if (lo_off < 0 && base < (uintptr_t)0 - (uintptr_t)lo_off)
        return 0;
    if (hi_off > 0 && UINTPTR_MAX - base < (uintptr_t)hi_off)
        return 0;
    return 1;
}

int lf__data_check(const struct lf_data *d, long lo, long incr, uint64_t n)
{
    if (!d)
        return 0;
    if (d->ninputs < 0 || d->ninputs > LF_MAX_INPUTS || d->nhome < 0 || d->nhome > LF__MAXDOM)
        return -EINVAL;
    /* The extreme indices of the loop (both ends, whatever incr's sign). */
    long last = (long)((unsigned long)lo + (unsigned long)(n ? n - 1 : 0) * (unsigned long)incr);
    long imin = lo < last ? lo : last, imax = lo < last ? last : lo;
    for (int k = 0; k < d->ninputs; k++) {
        const struct lf_input *in = &d->in[k];
        if (in->span)
            continue;
        if (!in->base || in->size == 0 || in->stride < 1 || in->halo < 0)
            return -EINVAL;
        if (n && !input_fits(in, imin, imax))
            return -EINVAL;
    }
    if (d->home && d->nhome > 0) {
        if (d->home[0] != 0 || d->home[d->nhome] != n)
            return -EINVAL;
        for (int i = 0; i < d->nhome; i++)
            if (d->home[i] > d->home[i + 1])
                return -EINVAL;
    }
    return 0;
}

struct learn_ctx {
    const struct lf__slot *s;
    const struct lf_input *in;
};

static int node_at(uint64_t k, void *ctx)
{
    const struct learn_ctx *c = ctx;
    long i = (long)((unsigned long)c->s->lo + (unsigned long)k * (unsigned long)c->s->incr);
    return lf_numa_node_of(lf__elem_addr(c->in, i));
}

/* Learn where input 0 of the loop lives, or reuse what was learned for the
 * same array and bounds; 1 when the slot's ranges are set. */
static int learn_home(struct lf_loop *l, struct lf__slot *s, const struct lf_data *d)
{
    const struct lf_input *in = &d->in[0];
    if (d->ninputs < 1 || in->span)
        return 0;
    int ok;
    pthread_mutex_lock(&l->mem_lock);
    ok = l->learned.valid && l->learned.base == in->base && l->learned.lo == s->lo &&
         l->learned.incr == s->incr && l->learned.n == s->n && l->learned.size == in->size &&
         l->learned.stride == in->stride;
    if (!ok) {
        struct learn_ctx c = {s, in};
        int held = lf__loc_learn(s->n, s->ndom, node_at, &c, l->learned.lo_d, l->learned.hi_d);
        l->learned.base = in->base;
        l->learned.lo = s->lo;
        l->learned.incr = s->incr;
        l->learned.n = s->n;
        l->learned.size = in->size;
        l->learned.stride = in->stride;
        l->learned.valid = 1;
        l->learned.held = held;
        if (lf__verbose())
            fprintf(stderr, "loopfarm: %s: %s\n", l->name,
                    held > 0 ? "learned where the input lives"
                             : "input not in blocked ranges: no locality");
    }
    ok = l->learned.held > 0;
    for (int dd = 0; ok && dd < s->ndom; dd++) {
        s->dom[dd].lo = l->learned.lo_d[dd];
        s->dom[dd].hi = l->learned.hi_d[dd];
    }
    pthread_mutex_unlock(&l->mem_lock);
    return ok;
}

void lf__loc_init(struct lf_loop *l, struct lf__slot *s, const struct lf_data *d)
{
    LF__SET(s->homed, 0);
    LF__SET(s->loc, 0);
    LF__SET(s->staging, 0);
    LF__SET(s->ndom, l->ndom_max);
    lf__reset(&s->n_local, 0);
    lf__reset(&s->n_remote, 0);
    lf__reset(&s->n_staged, 0);
    lf__reset(&s->b_staged, 0);
    LF__SET(s->view.one_port, 0);
    if (!d) {
        LF__SET(s->data.ninputs, 0); /* all that is read of a loop without data */
        return;
    }
    s->data = *d;        /* inputs: lf_loop_input serves them on any machine */
    s->data.home = NULL; /* the caller's array is not ours to keep */
    if (s->ndom < 2 || s->n == 0 || !(l->sched.numa || l->sched.stage))
        return;
    if (d->home && d->nhome > s->ndom) {
        /* More ranges than domains here: no range may go unclaimed, so no
         * locality (the loop is still correct). */
        if (lf__verbose())
            fprintf(stderr, "loopfarm: %s: %d home ranges for %d domains: no locality\n", l->name,
                    d->nhome, s->ndom);
    } else if (d->home && d->nhome > 0) {
        for (int dd = 0; dd < s->ndom; dd++) {
            /* Domains beyond the description hold nothing. */
            s->dom[dd].lo = dd < d->nhome ? d->home[dd] : s->n;
            s->dom[dd].hi = dd < d->nhome ? d->home[dd + 1] : s->n;
        }
        s->homed = 1;
    } else if (d->learn || d->ninputs > 0) {
        s->homed = learn_home(l, s, d);
    }
    if (!s->homed)
        return;
    for (int dd = 0; dd < s->ndom; dd++) {
        atomic_init(&s->dom[dd].next, s->dom[dd].lo);
        atomic_init(&s->dom[dd].owners, 0);
    }
    struct lf__loc_modes m = lf__exec_loc_modes(&l->sched, 1, d->ninputs > 0);
    s->loc = m.loc;
    s->staging = m.staging;
    /* A domain's memory serves one staging at a time (seed 003 §3.2). */
    s->view.one_port = s->staging;
}

void lf__loc_join(struct lf_loop *l, struct lf__slot *s, int tid)
{
    struct lf__thr *th = &l->thr[tid];
    th->dom = lf_numa_self();
    if (th->dom < 0 || th->dom >= s->ndom)
        th->dom = 0;
    if (s->loc)
        lf__fetch_add_relaxed(&s->dom[th->dom].owners, 1);
}

uint64_t lf__loc_unclaimed(const struct lf__slot *s)
{
    uint64_t r = 0;
    for (int d = 0; d < s->ndom; d++) {
        uint64_t nx = lf__load_relaxed(&s->dom[d].next);
        r += nx < s->dom[d].hi ? s->dom[d].hi - nx : 0;
    }
    return r;
}

int lf__loc_home_of(const struct lf__slot *s, uint64_t k)
{
    for (int d = 0; d < s->ndom; d++)
        if (k >= s->dom[d].lo && k < s->dom[d].hi)
            return d;
    return -1;
}
