/* lib/policy/registry.c - the one table of policies.  Add a policy here and
 * in the fragment that builds its file; nothing else needs to know. */
#include <stdio.h>
#include <string.h>

#include "policy/policy.h"

extern const struct lf__policy lf__policy_auto;
extern const struct lf__policy lf__policy_static, lf__policy_dynamic, lf__policy_guided,
    lf__policy_tss, lf__policy_fac2, lf__policy_wf, lf__policy_awf_b, lf__policy_awf_c,
    lf__policy_awf_d, lf__policy_awf_e, lf__policy_af;
extern const struct lf__policy lf__policy_trad, lf__policy_deal, lf__policy_dealdyn,
    lf__policy_multi, lf__policy_static_weighted;
/* seeds 001-003 */
extern const struct lf__policy lf__policy_as4dr, lf__policy_umr, lf__policy_rumr, lf__policy_fifo,
    lf__policy_lifo;

const struct lf__policy *const lf__policies[] = {
    /* the default: learns each call site */
    &lf__policy_auto,
    /* classic self-scheduling and factoring */
    &lf__policy_static,
    &lf__policy_dynamic,
    &lf__policy_guided,
    &lf__policy_tss,
    &lf__policy_fac2,
    &lf__policy_wf,
    &lf__policy_awf_b,
    &lf__policy_awf_c,
    &lf__policy_awf_d,
    &lf__policy_awf_e,
    &lf__policy_af,
    /* seed 000, Table 2 */
    &lf__policy_trad,
    &lf__policy_deal,
    &lf__policy_dealdyn,
    &lf__policy_multi,
    &lf__policy_static_weighted,
    /* seeds 001-003 */
    &lf__policy_as4dr,
    &lf__policy_umr,
    &lf__policy_rumr,
    &lf__policy_fifo,
    &lf__policy_lifo,
    NULL,
};

const struct lf__policy *lf__policy_find(const char *name)
{
    for (const struct lf__policy *const *p = lf__policies; *p; p++)
        if (strcmp((*p)->name, name) == 0)
            return *p;
    return NULL;
}

void lf__policy_list(char *buf, size_t len)
{
    size_t off = 0;
    if (len == 0)
        return;
    buf[0] = '\0';
    for (const struct lf__policy *const *p = lf__policies; *p && off + 1 < len; p++) {
        int k = snprintf(buf + off, len - off, "%s%s", off ? ", " : "", (*p)->synopsis);
        if (k < 0)
            break;
        off += (size_t)k;
    }
}
