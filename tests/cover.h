/* tests/cover.h - the exactly-once matrix shared by the coverage tests.
 *
 * A "case" is one loop: bounds, increment and trip count.  Each iteration
 * marks its flag with test-and-set and counts a violation if it was already
 * set; at the end every flag must be set.  This checks coverage, not order.
 */
#ifndef LF_TESTS_COVER_H
#define LF_TESTS_COVER_H

#include <limits.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct cover_case {
    long lo, hi, incr;
    unsigned long n;   /* expected trip count */
    atomic_char *flag; /* n flags */
    atomic_long dup;   /* iterations seen twice, or outside the loop */
};

/* Trip counts of the matrix for a team of P (P-1, P, P+1 included). */
static inline int cover_trips(int P, unsigned long big, unsigned long *out)
{
    unsigned long t[] = {
        0,    1,  2, (unsigned long)(P > 1 ? P - 1 : 0), (unsigned long)P, (unsigned long)P + 1,
        1000, big};
    memcpy(out, t, sizeof t);
    return (int)(sizeof t / sizeof t[0]);
}

/* Fill c for n iterations with increment incr; where = 0: start at 0,
 * 1: end right at LONG_MAX (incr > 0) or LONG_MIN (incr < 0),
 * 2: start at LONG_MIN (incr > 0) or LONG_MAX (incr < 0). */
static inline int cover_make(struct cover_case *c, unsigned long n, long incr, int where)
{
    unsigned long span = n * (unsigned long)(incr > 0 ? incr : -incr);
    memset(c, 0, sizeof *c);
    c->incr = incr;
    c->n = n;
    if (where == 0) {
        c->lo = 0;
        c->hi = incr > 0 ? (long)span : -(long)span;
    } else if (where == 1) {
        c->hi = incr > 0 ? LONG_MAX : LONG_MIN;
        c->lo = incr > 0 ? (long)((unsigned long)LONG_MAX - span)
                         : (long)((unsigned long)LONG_MIN + span);
    } else {
        c->lo = incr > 0 ? LONG_MIN : LONG_MAX;
        c->hi = incr > 0 ? (long)((unsigned long)LONG_MIN + span)
                         : (long)((unsigned long)LONG_MAX - span);
    }
    c->flag = calloc(n ? n : 1, 1);
    return c->flag ? 0 : -1;
}

/* Mark iteration i of c; called from any thread. */
static inline void cover_mark(struct cover_case *c, long i)
{
    unsigned long d = c->incr > 0 ? (unsigned long)i - (unsigned long)c->lo
                                  : (unsigned long)c->lo - (unsigned long)i;
    unsigned long step = c->incr > 0 ? (unsigned long)c->incr : 0UL - (unsigned long)c->incr;
    if (d % step != 0 || d / step >= c->n || atomic_exchange(&c->flag[d / step], 1))
        atomic_fetch_add(&c->dup, 1);
}

/* Number of iterations never executed. */
static inline unsigned long cover_missing(struct cover_case *c)
{
    unsigned long miss = 0;
    for (unsigned long k = 0; k < c->n; k++)
        miss += !atomic_load(&c->flag[k]);
    return miss;
}

static inline void cover_free(struct cover_case *c)
{
    free(c->flag);
    c->flag = NULL;
}

/* Schedules every coverage test sweeps: one spec per registered policy
 * with typical parameters, plus variants that change the claim path. */
static const char *const cover_specs[] = {
    "auto",
    "auto,lease=force",
    "auto,lease=off,k1=1",
    "static",
    "static,3",
    "dynamic",
    "dynamic,7",
    "guided",
    "guided,5",
    "tss",
    "fac2",
    "wf",
    "wf,weights=1:2",
    "awf-b",
    "awf-c",
    "awf-d",
    "awf-e",
    "af",
    "trad",
    "deal",
    "dealdyn",
    "dealdyn,calib=lr",
    "dealdyn,calib=mv",
    "multi",
    "multi,k=2",
    "multi,cal=paper,memory=off",
    "as4dr",
    "as4dr,adapt=off",
    "umr",
    "rumr",
    "fifo",
    "lifo,ret=0.5",
    /* leases: stolen from on every chunk (lease=force), and the default mode */
    "dynamic,lease=force",
    "dynamic,7,lease=force",
    "guided,lease=force",
    "fac2,lease=force",
    "af,lease=force",
    "multi,lease=force",
    "multi,cal=paper,memory=off,lease=force",
    "tss,lease=on",
    NULL,
};

#endif
