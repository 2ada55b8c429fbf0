/* lib/dispatch/light.c - loop instances that run without a handle.
 *
 * A schedule whose chunks follow from the remainder, the team size and its
 * parameters alone (lf__exec_light: guided, deal; fixed sizes keep a
 * slot, see lf__light_ok) reads no
 * time, calibrates nothing and learns nothing, so an instance of it is a
 * counter and its bounds.  Each member keeps the view and the protocol's
 * handle in its own cursor (they are the same for every member: the trip
 * count, the team size, the parsed schedule, whose state such a policy
 * never changes) and sizes its claims through lib/exec as a slot's member
 * does; only the counter is shared, in memory the team met in (lib/omp).
 * Such a loop pays its claims and the meeting: no lease of a handle, no
 * slot to initialise and finish, no statistics.
 */
#include "config.h"

#include "dispatch/dispatch.h"
#include "platform/platform.h"

_Static_assert(sizeof(struct lf__light) <= sizeof(struct lf_omp_light),
               "struct lf_omp_light (include/loopfarm.h) must hold a struct lf__light");
_Static_assert(_Alignof(struct lf__light) <= _Alignof(struct lf_omp_light),
               "struct lf_omp_light (include/loopfarm.h) must be aligned as a struct lf__light");

/* Nothing the dispatcher does per handle is asked for. */
static int nothing_per_handle(void)
{
    return !lf__trace_enabled() && lf__bind_mode() == LF__BIND_NONE;
}

int lf__light_tiny_ok(const struct lf__sched *s, int P)
{
    return lf__exec_plan_chooses(s, P) && s->plan < 0 && nothing_per_handle();
}

int lf__light_ok(const struct lf__sched *s, int P)
{
    /* Fixed sizes (dynamic, trad) keep their handle: a slot's fetch-and-add
     * path is shorter than a handle-free instance's, and a loaned handle's
     * entry is paid once per loop, not per chunk (doc/design.md). */
    return P >= 1 && lf__exec_light(s, P) && !(s->pol->flags & LF__P_FIXED) && nothing_per_handle();
}

void lf__light_start(struct lf__light *lt, const struct lf__sched *s, int P, int tid, int cap,
                     long lo, long incr, uint64_t n, lf__au64 *next)
{
    lt->v = (struct lf__view){.n = n, .nworkers = P};
    /* The policy only reads its state (no start hook): the parsed template. */
    lt->x = (struct lf__exec){.sched = s, .pstate = (void *)s->state, .view = &lt->v, .cap = cap};
    lt->next = next;
    lt->at = 0; /* the team's counter starts at 0, in zeroed memory */
    lt->gss = s->pol->gss_min ? s->pol->gss_min(s->state) : 0;
    lt->fixed = 0;
    lt->n = n;
    lt->lo = lo;
    lt->incr = incr;
    lt->tid = tid;
}
