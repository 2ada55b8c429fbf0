/* lib/policy/trad.c - seed 000 SCH_TRAD: the work queue, one iteration per
 * request (González-Vélez & Cole, Table 2, alpha_i = 1).
 *
 * References: H. González-Vélez & M. Cole, "Adaptive statistical
 * scheduling of divisible workloads in heterogeneous systems", Journal of
 * Scheduling (Springer), 2009 (seed 000).
 */
#include <errno.h>
#include <stdio.h>

#include "policy/policy.h"

/* Accept "trad" alone: the chunk is 1 by definition. */
static int trad_parse(void *state, struct lf__params *p, char *err, size_t errlen)
{
    (void)state;
    if (p->has_chunk) {
        snprintf(err, errlen, "trad takes no chunk size (it is 1 by definition); use dynamic,c");
        return -EINVAL;
    }
    return 0;
}

static uint64_t trad_chunk(const void *state, const struct lf__view *v, int w, uint64_t r,
                           double now)
{
    (void)state;
    (void)v;
    (void)w;
    (void)r;
    return 1;
}

const struct lf__policy lf__policy_trad = {
    .name = "trad",
    .synopsis = "trad",
    .help = "one iteration per request: the work queue (seed 000 Table 2, SCH_TRAD)",
    .flags = LF__P_FIXED,
    .state_size = 0,
    .parse = trad_parse,
    .chunk = trad_chunk,
};
