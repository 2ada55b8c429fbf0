/* lib/policy/static.c - "static[,c]": OpenMP's static schedule.  Without c,
 * worker w of P owns one contiguous block and block sizes differ by at most
 * one; with c, chunks of c go round robin (OpenMP 5.2 §11.5.3, schedule
 * clause).  No shared counter: partition() decides every chunk. */
#include <errno.h>
#include <stdio.h>

#include "policy/policy.h"

struct static_state {
    uint64_t c; /* 0: one block per worker */
};

static int static_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct static_state *s = state;
    s->c = p->has_chunk ? p->chunk : 0;
    if (p->has_chunk && p->chunk == 0) {
        snprintf(err, errlen, "static: chunk size must be >= 1; accepted: static[,c]");
        return -EINVAL;
    }
    return 0;
}

/* Unused for LF__P_STATIC; present because every policy answers chunk(). */
static uint64_t static_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                             double now)
{
    return 1;
}

/* The k-th chunk of worker w: the blocked split, or round robin of c. */
static uint64_t static_partition(const void *state, const struct lf__view *v, int w, uint64_t k,
                                 uint64_t *start)
{
    const struct static_state *s = state;
    uint64_t n = v->n, P = (uint64_t)v->nworkers;
    if (w < 0 || (uint64_t)w >= P || n == 0)
        return 0;
    if (s->c == 0) {
        /* The first n % P workers take one more, so blocks differ by <= 1. */
        uint64_t q = n / P, extra = n % P, uw = (uint64_t)w;
        uint64_t size = q + (uw < extra);
        if (k != 0 || size == 0)
            return 0;
        *start = uw * q + (uw < extra ? uw : extra);
        return size;
    }
    /* Chunk j = k*P + w starts at j*c; test j < ceil(n/c) before forming it
     * so that neither product can wrap for n near 2^64. */
    uint64_t nchunks = lf__div_ceil(n, s->c), uw = (uint64_t)w;
    if (uw >= nchunks || k > (nchunks - 1 - uw) / P)
        return 0;
    uint64_t lo = (k * P + uw) * s->c;
    *start = lo;
    return n - lo < s->c ? n - lo : s->c;
}

const struct lf__policy lf__policy_static = {
    .name = "static",
    .synopsis = "static[,c]",
    .help = "equal contiguous blocks, or chunks of c round robin (OpenMP static)",
    .flags = LF__P_STATIC,
    .state_size = sizeof(struct static_state),
    .parse = static_parse,
    .chunk = static_chunk,
    .partition = static_partition,
};
