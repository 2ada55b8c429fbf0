/* lib/policy/guided.c - "guided[,c]": guided self-scheduling (GSS,
 * Polychronopoulos & Kuck, IEEE Trans. Comput. 36(12), 1987): each claim
 * takes max(c, ceil(r / P)) of the r unclaimed iterations.
 *
 * References: C. D. Polychronopoulos & D. J. Kuck, "Guided self-scheduling:
 * a practical scheduling scheme for parallel supercomputers", IEEE
 * Transactions on Computers C-36(12), 1987. */
#include <errno.h>
#include <stdio.h>

#include "policy/policy.h"

struct guided_state {
    uint64_t c; /* minimum chunk */
};

static int guided_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct guided_state *s = state;
    if (p->has_chunk && p->chunk == 0) {
        snprintf(err, errlen, "guided: minimum chunk must be >= 1; accepted: guided[,c]");
        return -EINVAL;
    }
    s->c = p->has_chunk ? p->chunk : 1;
    return 0;
}

static uint64_t guided_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                             double now)
{
    const struct guided_state *s = state;
    return lf__gss(r, (uint64_t)v->nworkers, s->c ? s->c : 1);
}

static uint64_t guided_min(const void *state)
{
    const struct guided_state *s = state;
    return s->c ? s->c : 1;
}

const struct lf__policy lf__policy_guided = {
    .name = "guided",
    .synopsis = "guided[,c]",
    .help = "GSS: max(c, ceil(r/P)) (Polychronopoulos & Kuck 1987)",
    .flags = 0,
    .state_size = sizeof(struct guided_state),
    .parse = guided_parse,
    .chunk = guided_chunk,
    .gss_min = guided_min,
};
