/* tests/simlog.h - collect every chunk of an lf__sim_run (the on_chunk hook)
 * for tests that inspect the schedule a run produced. */
#ifndef LF_TESTS_SIMLOG_H
#define LF_TESTS_SIMLOG_H

#include <stdio.h>
#include <stdlib.h>

#include "sim/sim.h"

/* Every chunk of one run, in completion order. */
struct log {
    struct lf__sim_chunk *c;
    size_t n, cap;
};

/* on_chunk hook: append c to the log in ctx (aborts when memory runs out,
 * which in a test is a failure anyway). */
static inline void log_chunk(void *ctx, const struct lf__sim_chunk *c)
{
    struct log *l = ctx;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        struct lf__sim_chunk *p = realloc(l->c, cap * sizeof *p);
        if (!p) {
            fprintf(stderr, "simlog: out of memory\n");
            abort();
        }
        l->c = p;
        l->cap = cap;
    }
    l->c[l->n++] = *c;
}

#endif
