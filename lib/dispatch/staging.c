/* lib/dispatch/staging.c - a chunk's inputs, copied near the member when
 * they live on another domain.
 *
 * When a loop declares its inputs, a chunk whose home is another domain is
 * first copied into buffers on the member's own domain (lf_numa_alloc), and
 * lf_loop_input points the body there.  The copy is timed apart from the
 * compute, and both are fitted (lf__exec_costs_add) to the affine costs
 * of Yang & Casanova, "A multi-round algorithm for scheduling divisible
 * workloads" (IPDPS 2003), eqs. 1-2: compute alpha + c t, staging beta + c s, published in the
 * member's statistics (comp_lat_ns, stage_lat_ns, stage_ns_per_iter) for
 * the policies that plan with them (umr, rumr, as4dr).
 *
 * Overlap: AS4DR stages a chunk's second half while the first computes.
 * Here a staged chunk larger than stage_piece bytes of input is handed to
 * the body piece by piece: before a piece is returned, the next one's
 * source lines are prefetched, so its copy finds them in cache.  No helper
 * thread (doc/design.md, "Staging without a helper thread").
 */
#include "config.h"

#include <string.h>

#include "dispatch/dispatch.h"
#include "platform/clock.h"

void lf__stage_join(struct lf_loop *l, int tid)
{
    struct lf__thr *th = &l->thr[tid];
    th->chunk_home = -1;
    th->chunk_staged = 0;
    th->n_local = th->n_remote = th->n_staged = th->b_staged = 0;
    /* The cost model is this loop's own: measured afresh each time (what
     * the call site remembers is seeded by lf__exec_start). */
    memset(&th->times, 0, sizeof th->times);
    memset(&th->costs, 0, sizeof th->costs);
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
static void input_span(const struct lf__slot *s, int k, uint64_t lo, uint64_t c, const char **src,
                       size_t *bytes, size_t *off)
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
    *src = lf__elem_addr(in, imin) - in->halo * (long)in->size;
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
            continue;               /* no memory on this domain: read in place */
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

uint64_t lf__stage_inputs(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t c)
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
    th->stage_ns = 0; /* chunk_staged and stage_later: reset by the claim */
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

uint64_t lf__stage_next_piece(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo)
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

void lf__stage_chunk_done(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t busy_ns)
{
    struct lf__thr *th = &l->thr[tid];
    int remote = lf__exec_loc_chunk_done(&th->times, th->chunk_home, th->dom, th->chunk_staged,
                                         (double)busy_ns, (double)th->chunk_n);
    lf__exec_costs_add(&s->ex, &th->costs, tid, (double)th->chunk_n, (double)busy_ns,
                       th->chunk_staged, (double)th->stage_ns, !remote);
    th->chunk_home = -1;
    th->chunk_staged = 0;
}

void lf__stage_leave(struct lf_loop *l, struct lf__slot *s, int tid)
{
    struct lf__thr *th = &l->thr[tid];
    lf__fetch_add_relaxed(&s->n_local, th->n_local);
    lf__fetch_add_relaxed(&s->n_remote, th->n_remote);
    lf__fetch_add_relaxed(&s->n_staged, th->n_staged);
    lf__fetch_add_relaxed(&s->b_staged, th->b_staged);
}

void lf__stage_free(struct lf_loop *l)
{
    for (int t = 0; t < l->P; t++)
        for (int k = 0; k < LF_MAX_INPUTS; k++)
            if (l->thr[t].sbuf[k])
                lf_numa_free(l->thr[t].sbuf[k], l->thr[t].scap[k]);
}
