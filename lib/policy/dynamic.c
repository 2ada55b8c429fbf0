/* lib/policy/dynamic.c - "dynamic[,c]": pure self-scheduling, every claim
 * takes c iterations (default 1; Tang & Yew 1986, OpenMP dynamic).  The
 * chunk never depends on r, so the executor may claim with fetch-and-add.
 *
 * References: P. Tang & P.-C. Yew, "Processor self-scheduling for
 * multiple-nested parallel loops", Proc. International Conference on
 * Parallel Processing (ICPP), 1986. */
#include <errno.h>
#include <stdio.h>

#include "policy/policy.h"

struct dynamic_state {
    uint64_t c;
};

static int dynamic_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    struct dynamic_state *s = state;
    if (p->has_chunk && p->chunk == 0) {
        snprintf(err, errlen, "dynamic: chunk size must be >= 1; accepted: dynamic[,c]");
        return -EINVAL;
    }
    s->c = p->has_chunk ? p->chunk : 1;
    return 0;
}

static uint64_t dynamic_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                              double now)
{
    const struct dynamic_state *s = state;
    return s->c ? s->c : 1; /* a zeroed template (never parsed) still works */
}

const struct lf__policy lf__policy_dynamic = {
    .name = "dynamic",
    .synopsis = "dynamic[,c]",
    .help = "self-scheduling, c iterations per claim (default 1)",
    .flags = LF__P_FIXED,
    .state_size = sizeof(struct dynamic_state),
    .parse = dynamic_parse,
    .chunk = dynamic_chunk,
};
