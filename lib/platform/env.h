/* lib/platform/env.h - the LF_* environment, read in one place.
 *
 * Every variable loopfarm understands is read by lf__env() (lib/platform/
 * env.c) the first time someone asks for it, and kept for the life of the
 * process.  The variables whose form env.c can check alone (LF_VERBOSE, a
 * whole number; LF_CLOCK, tsc or monotonic) are checked there: a malformed
 * one is reported once on stderr, naming the accepted forms, and reads as
 * unset.  The others are parsed by their owner (the schedule registry, the
 * NUMA layer, binding, the shim), which tells env.c with lf__env_rejected()
 * when it had to fall back, so that lf-info can say what each variable
 * holds, where that came from, and what was used instead.
 *
 * Callers: lib/platform, lib/dispatch, lib/omp, the shims and the tools.
 * lib/policy, lib/exec and lib/sim are pure and never read the environment.
 */
#ifndef LF_PLATFORM_ENV_H
#define LF_PLATFORM_ENV_H

#include <stdint.h>

enum lf__env_id {
    LF__ENV_SCHEDULE,        /* default schedule of LF_FOR loops and the shim */
    LF__ENV_REPLACE,         /* the shim's per-kind replacement map */
    LF__ENV_VERBOSE,         /* 0 quiet, >= 1 report loops */
    LF__ENV_TRACE,           /* per-chunk CSV trace file */
    LF__ENV_BIND,            /* close | spread | none */
    LF__ENV_CLOCK,           /* tsc | monotonic */
    LF__ENV_FAKE_NUMA,       /* N[,lat=NS][,gbps=G] */
    LF__ENV_MPI_SCHEDULE,    /* the rank level of loops across MPI ranks */
    LF__ENV_MPI_STAGE_BYTES, /* the most one staged rank chunk buffers */
    LF__ENV_COUNT
};

/* The value of variable id as loopfarm should use it: NULL when unset,
 * empty, or malformed in a way env.c checks (reported once); else the
 * string read at the first call (stable for the life of the process). */
const char *lf__env(enum lf__env_id id);

/* LF_VERBOSE as a number: 0 when unset or malformed. */
int lf__env_verbose(void);

/* A byte-size variable (LF_MPI_STAGE_BYTES: a whole number >= 1 with an
 * optional K, M or G, powers of 1024; env.c checks it) in bytes: 0 when
 * unset or malformed (reported once). */
uint64_t lf__env_bytes(enum lf__env_id id);

/* Record that the owner of id could not use its value and used fallback
 * instead (it has printed its own message); lf-info shows it. */
void lf__env_rejected(enum lf__env_id id, const char *fallback);

/* What lf-info prints about one variable. */
struct lf__env_info {
    const char *name;     /* "LF_SCHEDULE" */
    const char *value;    /* as found in the environment, NULL when unset */
    const char *dflt;     /* what applies when it is unset */
    const char *forms;    /* the accepted forms */
    const char *fallback; /* malformed: what was used instead; else NULL */
};

/* Fill *out for variable id (reading it first if nobody has).  Returns 0,
 * or -1 for an id out of range. */
int lf__env_info(int id, struct lf__env_info *out);

/* Test only: forget what was read for id, so the next lf__env reads (and
 * checks, and reports) the environment again.  Not thread-safe. */
void lf__env_reset_for_tests(enum lf__env_id id);

#endif
