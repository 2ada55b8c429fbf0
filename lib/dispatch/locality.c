/* lib/dispatch/locality.c - locality-aware dispatch and data staging.
 *
 * A loop whose data has a home (given as ranges, or learned from where
 * input 0's pages lie) is split into one range of logical iterations per
 * NUMA domain, each with its own claim counter on its own cache line.  A
 * member claims from its domain's range while it has any, then helps the
 * domain with the most left (lib/policy/locality.h has the rules, shared
 * with lf-sim).  Claims stay a CAS on one counter.
 *
 * Staging: when the loop declares its inputs, a chunk whose home is another
 * domain is first copied into buffers on the member's own domain
 * (lf_numa_alloc), and lf_loop_input points the body there.  The copy is
 * timed apart from the compute, and both are fitted to seed 003's affine
 * costs (eqs. 1-2): compute alpha + c t, staging beta + c s, published in
 * the member's statistics (comp_lat_ns, stage_lat_ns, stage_ns_per_iter)
 * for the policies that plan with them (umr, rumr, as4dr).
 *
 * Overlap: AS4DR stages a chunk's second half while the first computes.
 * Here a staged chunk larger than stage_piece bytes of input is handed to
 * the body piece by piece: before a piece is returned, the next one's
 * source lines are prefetched, so its copy finds them in cache.  No helper
 * thread: BENCHMARKS.md ("Staging overlap") measured both.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "platform/clock.h"

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

/* The address of the data of loop index i of input in. */
static const char *elem_addr(const struct lf_input *in, long i)
{
    return (const char *)in->base + i * in->stride * (long)in->size;
}

struct learn_ctx {
    const struct lf__slot *s;
    const struct lf_input *in;
};

static int node_at(uint64_t k, void *ctx)
{
    const struct learn_ctx *c = ctx;
    long i = (long)((unsigned long)c->s->lo + (unsigned long)k * (unsigned long)c->s->incr);
    return lf_numa_node_of(elem_addr(c->in, i));
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
                    held > 0 ? "learned where the input lives" : "input not in blocked ranges: no locality");
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
    s->homed = s->loc = s->staging = 0;
    s->ndom = l->ndom_max;
    memset(&s->data, 0, sizeof s->data);
    atomic_init(&s->n_local, 0);
    atomic_init(&s->n_remote, 0);
    atomic_init(&s->n_staged, 0);
    atomic_init(&s->b_staged, 0);
    s->view.one_port = 0;
    if (!d)
        return;
    s->data = *d; /* inputs: lf_loop_input serves them on any machine */
    s->data.home = NULL; /* the caller's array is not ours to keep */
    if (s->ndom < 2 || s->n == 0 || !(l->sched.numa || l->sched.stage))
        return;
    if (d->home && d->nhome > s->ndom) {
        /* More ranges than domains here: no range may go unclaimed, so no
         * locality (the loop is still correct). */
        if (lf__verbose())
            fprintf(stderr, "loopfarm: %s: %d home ranges for %d domains: no locality\n",
                    l->name, d->nhome, s->ndom);
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
    /* A static schedule's partition decides every chunk: no choice of range. */
    s->loc = l->sched.numa && !(l->sched.pol->flags & LF__P_STATIC);
    s->staging = l->sched.stage && d->ninputs > 0;
    /* A domain's memory serves one staging at a time (seed 003 §3.2). */
    s->view.one_port = s->staging;
}

void lf__loc_join(struct lf_loop *l, struct lf__slot *s, int tid)
{
    struct lf__thr *th = &l->thr[tid];
    th->dom = lf_numa_self();
    if (th->dom < 0 || th->dom >= s->ndom)
        th->dom = 0;
    th->chunk_home = -1;
    th->chunk_staged = 0;
    th->n_local = th->n_remote = th->n_staged = th->b_staged = 0;
    /* The cost model is this loop's own: measured afresh each time (what
     * the call site remembers is seeded by slot_init). */
    memset(&th->times, 0, sizeof th->times);
    memset(&th->comp_fit, 0, sizeof th->comp_fit);
    memset(&th->stage_fit, 0, sizeof th->stage_fit);
    th->k_all = th->k_staged = 0;
    th->i_all = th->i_staged = 0.0;
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

uint64_t lf__loc_claim(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t want,
                       uint64_t *lo)
{
    const struct lf__policy *pol = l->sched.pol;
    struct lf__thr *th = &l->thr[tid];
    uint64_t nx[LF__MAXDOM], rem[LF__MAXDOM];
    for (;;) {
        uint64_t r = 0;
        for (int d = 0; d < s->ndom; d++) {
            nx[d] = lf__load_relaxed(&s->dom[d].next);
            rem[d] = nx[d] < s->dom[d].hi ? s->dom[d].hi - nx[d] : 0;
            r += rem[d];
        }
        int d = lf__loc_pick(rem, s->ndom, th->dom);
        if (d < 0)
            return 0;
        uint64_t c = want;
        if (!c) {
            /* The policy sizes the chunk against the whole loop's remainder. */
            c = pol->chunk(s->pstate, &s->view, tid, r);
            if (c == 0 && (pol->flags & LF__P_MAYSTOP) && lf__try_stop(l, s, tid))
                return 0;
            if (c == 0)
                c = 1;
        }
        if (d != th->dom) {
            /* Owners not arrived yet count as the team's even share, so
             * that a thief does not take a late domain's whole range. */
            int owners = (int)lf__load_relaxed(&s->dom[d].owners);
            if (!owners)
                owners = l->P / s->ndom;
            c = lf__loc_steal(c, &th->times, s->staging, rem[d], owners);
        } else if (c > rem[d]) {
            c = rem[d];
        }
        /* Relaxed: the range is the only thing the counter hands out. */
        if (lf__cas_weak_relaxed(&s->dom[d].next, &nx[d], nx[d] + c)) {
            *lo = nx[d];
            th->chunk_home = d;
            return c;
        }
    }
}

/* Make buffer k of member th hold bytes on its domain. */
static void *stage_buf(struct lf__thr *th, int k, size_t bytes)
{
    if (th->sbuf[k] && (th->scap[k] < bytes || th->sbuf_dom != th->dom)) {
        lf_numa_free(th->sbuf[k], th->scap[k]);
        th->sbuf[k] = NULL;
        th->scap[k] = 0;
    }
    if (!th->sbuf[k]) {
        size_t cap = bytes < 4096 ? 4096 : bytes + bytes / 2; /* room to grow */
        th->sbuf[k] = lf_numa_alloc(cap, th->dom);
        if (!th->sbuf[k])
            return NULL;
        th->scap[k] = cap;
    }
    th->sbuf_dom = th->dom;
    return th->sbuf[k];
}

/* Where input k's data for logical iterations [lo, lo+c) lies: *src and
 * *bytes (the indices' span, halo included, or what span() says), and *off,
 * the offset of the chunk's first index in it. */
static void input_span(const struct lf__slot *s, int k, uint64_t lo, uint64_t c,
                       const char **src, size_t *bytes, size_t *off)
{
    const struct lf_input *in = &s->data.in[k];
    long first = (long)((unsigned long)s->lo + (unsigned long)lo * (unsigned long)s->incr);
    long last = (long)((unsigned long)first + (unsigned long)(c - 1) * (unsigned long)s->incr);
    long imin = first < last ? first : last, imax = first < last ? last : first;
    *off = 0;
    if (in->span) {
        const void *a = NULL;
        *bytes = 0;
        in->span(imin, imax, &a, bytes, in->arg);
        *src = a;
        return;
    }
    *src = elem_addr(in, imin) - in->halo * (long)in->size;
    *bytes = ((size_t)(imax - imin) * (size_t)in->stride + 1 + 2 * (size_t)in->halo) * in->size;
    *off = ((size_t)(first - imin) * (size_t)in->stride + (size_t)in->halo) * in->size;
}

/* Point th->in[] at the inputs of logical iterations [lo, lo+c) and, when
 * stage is set, copy them to the member's buffers first; returns the bytes
 * copied. */
static uint64_t place_inputs(struct lf__slot *s, struct lf__thr *th, uint64_t lo, uint64_t c,
                             int stage)
{
    uint64_t copied = 0;
    for (int k = 0; k < s->data.ninputs; k++) {
        const char *src;
        size_t bytes, off;
        input_span(s, k, lo, c, &src, &bytes, &off);
        th->in[k] = src ? src + off : NULL; /* span() may find no data */
        if (!stage || !src || bytes == 0)
            continue;
        void *buf = stage_buf(th, k, bytes);
        if (!buf)
            continue; /* no memory on this domain: read in place */
        lf_numa_charge(src, bytes); /* the emulated remote read, under LF_FAKE_NUMA */
        memcpy(buf, src, bytes);
        th->in[k] = (const char *)buf + off;
        copied += bytes;
    }
    return copied;
}

/* Prefetch the source lines of logical iterations [lo, lo+c) (the next
 * piece of a staged chunk) while the body computes the current one. */
static void prefetch_inputs(const struct lf__slot *s, uint64_t lo, uint64_t c)
{
    for (int k = 0; k < s->data.ninputs; k++) {
        const char *p;
        size_t bytes, off;
        input_span(s, k, lo, c, &p, &bytes, &off);
        for (size_t b = 0; p && b < bytes; b += 64)
            __builtin_prefetch(p + b, 0, 0);
    }
}

/* Iterations per piece of a staged chunk: at most stage_piece bytes of
 * input each; 0 when chunks are staged whole (no cap, or a span input,
 * whose bytes per iteration are not known). */
static uint64_t piece_iters(const struct lf_loop *l, const struct lf__slot *s)
{
    uint64_t cap = l->sched.stage_piece, bpi = 0;
    if (!cap)
        return 0;
    for (int k = 0; k < s->data.ninputs; k++) {
        if (s->data.in[k].span)
            return 0;
        bpi += (uint64_t)s->data.in[k].stride * s->data.in[k].size;
    }
    return bpi ? (cap / bpi ? cap / bpi : 1) : 0;
}

/* Book staging time t1 - t0 of the outstanding chunk. */
static void staged(struct lf__thr *th, uint64_t t0, uint64_t t1, uint64_t bytes)
{
    th->t_staged = t1;
    th->stage_ns += lf__ticks_to_ns(t1 - t0);
    th->b_staged += bytes;
}

uint64_t lf__loc_inputs(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t c)
{
    struct lf__thr *th = &l->thr[tid];
    int home = th->chunk_home;
    if (home < 0 && s->homed)
        th->chunk_home = home = lf__loc_home_of(s, lo);
    int remote = home >= 0 && home != th->dom;
    int stage = s->staging && remote;
    if (remote)
        th->n_remote += c;
    else
        th->n_local += c;
    th->stage_ns = 0; /* chunk_staged and stage_later: reset by next_slow */
    th->pend_n = 0;
    uint64_t piece = stage ? piece_iters(l, s) : 0, now = c;
    if (piece && piece < c)
        now = piece; /* the rest follows piece by piece, prefetched */
    uint64_t t0 = stage ? lf__ticks() : 0;
    uint64_t bytes = place_inputs(s, th, lo, now, stage);
    if (!bytes)
        return c; /* in place: the whole chunk at once */
    th->chunk_staged = 1;
    th->n_staged += c;
    if (now < c) {
        th->pend_lo = lo + now;
        th->pend_n = c - now;
        th->piece = piece;
        prefetch_inputs(s, th->pend_lo, th->pend_n < piece ? th->pend_n : piece);
    }
    staged(th, t0, lf__ticks(), bytes);
    return now;
}

uint64_t lf__loc_next_piece(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t n = th->pend_n < th->piece ? th->pend_n : th->piece;
    uint64_t t0 = lf__ticks();
    *lo = th->pend_lo;
    uint64_t bytes = place_inputs(s, th, th->pend_lo, n, 1);
    th->stage_later += lf__ticks_to_ns(lf__ticks() - t0); /* not compute */
    th->pend_lo += n;
    th->pend_n -= n;
    if (th->pend_n)
        prefetch_inputs(s, th->pend_lo, th->pend_n < th->piece ? th->pend_n : th->piece);
    staged(th, t0, lf__ticks(), bytes);
    return n;
}

void lf__loc_chunk_done(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t busy_ns)
{
    struct lf__thr *th = &l->thr[tid];
    double c = (double)th->chunk_n;
    th->k_all++;
    th->i_all += c;
    if (th->chunk_staged) {
        /* Staging cost beta + c s (seed 003 eq. 2), fitted to every staged
         * chunk's copies (all its pieces). */
        lf__affine_add(&th->stage_fit, c, (double)th->stage_ns);
        th->k_staged++;
        th->i_staged += c;
    }
    double beta, sl;
    if (th->k_staged && lf__affine_solve(&th->stage_fit, &beta, &sl) == 0) {
        /* What staging costs this member on average: only its remote chunks
         * are staged, so the fitted line is weighted by the share of its
         * chunks (beta) and iterations (s) that were, as lf-sim does.  A
         * member whose own domain holds its data is not ranked as one with
         * a slow link (umr's resource selection, seed 003 §5.2). */
        struct lf__wstat *w = &s->view.w[tid];
        lf__stored_relaxed(&w->stage_lat_ns, beta * (double)th->k_staged / (double)th->k_all);
        lf__stored_relaxed(&w->stage_ns_per_iter, sl * th->i_staged / th->i_all);
    }
    int remote = th->chunk_home >= 0 && th->chunk_home != th->dom && !th->chunk_staged;
    lf__loc_times_add(&th->times, remote, (double)busy_ns, c);
    if (!remote) {
        /* Local data, or a staged copy on the member's own domain:
         * compute cost alpha + c t (seed 003 eq. 1). */
        double alpha, t;
        lf__affine_add(&th->comp_fit, c, (double)busy_ns);
        if (lf__affine_solve(&th->comp_fit, &alpha, &t) == 0)
            lf__stored_relaxed(&s->view.w[tid].comp_lat_ns, alpha);
    }
    th->chunk_home = -1;
    th->chunk_staged = 0;
}

void lf__loc_leave(struct lf_loop *l, struct lf__slot *s, int tid)
{
    struct lf__thr *th = &l->thr[tid];
    lf__fetch_add_relaxed(&s->n_local, th->n_local);
    lf__fetch_add_relaxed(&s->n_remote, th->n_remote);
    lf__fetch_add_relaxed(&s->n_staged, th->n_staged);
    lf__fetch_add_relaxed(&s->b_staged, th->b_staged);
}

void lf__loc_free(struct lf_loop *l)
{
    for (int t = 0; t < l->P; t++)
        for (int k = 0; k < LF_MAX_INPUTS; k++)
            if (l->thr[t].sbuf[k])
                lf_numa_free(l->thr[t].sbuf[k], l->thr[t].scap[k]);
}
