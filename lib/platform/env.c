/* lib/platform/env.c - the one reader of the LF_* environment (see env.h).
 *
 * Each variable is read on first request, under a mutex (nobody reads the
 * environment on a hot path), and copied, so a later setenv cannot pull
 * the string from under a caller.
 *
 * The preload shim compiles its own copy with LF_ENV_QUIET: that copy
 * checks but does not report, since libloopfarm's copy reports the same
 * value as soon as the shim hands it a loop (one message, not two).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/env.h"

enum check { CHECK_OWNER, CHECK_INT, CHECK_WORDS, CHECK_BYTES };

struct var {
    const char *name;
    enum check check;
    const char *words; /* CHECK_WORDS: the accepted values, '|'-separated */
    const char *dflt;
    const char *forms;
    /* Filled on first read. */
    int read;
    char *raw;            /* copy of the environment's value, NULL when unset */
    const char *use;      /* raw, or NULL when empty or rejected by the check */
    const char *fallback; /* why raw is not used, or NULL */
};

/* One variable's fixed fields; the fields filled on first read start zero. */
#define VAR(name_, check_, words_, dflt_, forms_)                                                  \
    {                                                                                              \
        .name = (name_), .check = (check_), .words = (words_), .dflt = (dflt_), .forms = (forms_)  \
    }

static struct var vars[LF__ENV_COUNT] = {
    [LF__ENV_SCHEDULE] = VAR("LF_SCHEDULE", CHECK_OWNER, NULL, "auto",
                             "NAME[,PARAM=VALUE...], e.g. dynamic,8 or multi,k=2 (README.md)"),
    [LF__ENV_REPLACE] = VAR("LF_REPLACE", CHECK_OWNER, NULL, "unset: LF_SCHEDULE decides",
                            "kind:spec entries separated by ',' or ';' (doc/gomp-shim.md)"),
    [LF__ENV_VERBOSE] = VAR("LF_VERBOSE", CHECK_INT, NULL, "0",
                            "a whole number: 0 quiet, >= 1 "
                            "report each loop"),
    [LF__ENV_TRACE] =
        VAR("LF_TRACE", CHECK_OWNER, NULL, "no trace", "FILE (%p in it becomes the process id)"),
    [LF__ENV_BIND] = VAR("LF_BIND", CHECK_OWNER, NULL, "none", "close, spread or none"),
    [LF__ENV_CLOCK] =
        VAR("LF_CLOCK", CHECK_WORDS, "tsc|monotonic", "tsc when invariant", "tsc or monotonic"),
    [LF__ENV_FAKE_NUMA] = VAR("LF_FAKE_NUMA", CHECK_OWNER, NULL, "off: the machine's NUMA nodes",
                              "N[,lat=NS][,gbps=G] (doc/numa.md)"),
    [LF__ENV_MPI_SCHEDULE] = VAR("LF_MPI_SCHEDULE", CHECK_OWNER, NULL, "fac2",
                                 "a schedule as for LF_SCHEDULE, for the rank level of "
                                 "loopfarm/mpi.h loops (doc/mpi.md)"),
    [LF__ENV_MPI_STAGE_BYTES] = VAR("LF_MPI_STAGE_BYTES", CHECK_BYTES, NULL, "16M",
                                    "bytes a rank chunk's fetched input and results may occupy: a "
                                    "whole number >= 1 with an optional K, M or G (x 1024) "
                                    "(doc/mpi.md)"),
};

static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;

/* Whether s is one of the '|'-separated words. */
static int is_word(const char *s, const char *words)
{
    size_t n = strlen(s);
    for (const char *w = words; *w;) {
        const char *bar = strchr(w, '|');
        size_t k = bar ? (size_t)(bar - w) : strlen(w);
        if (k == n && strncmp(w, s, n) == 0)
            return 1;
        w += k + (bar != NULL);
    }
    return 0;
}

/* Whether s is a whole decimal number that fits an int. */
static int is_int(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return end != s && *end == '\0' && errno != ERANGE && v >= INT_MIN && v <= INT_MAX;
}

/* s as a byte count: a whole number >= 1 with an optional K, M or G
 * suffix (powers of 1024); 0 when it is not one. */
static uint64_t bytes_of(const char *s)
{
    char *end;
    if (*s < '0' || *s > '9')
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        end++;
        break;
    case 'M':
    case 'm':
        shift = 20;
        end++;
        break;
    case 'G':
    case 'g':
        shift = 30;
        end++;
        break;
    }
    if (errno == ERANGE || *end != '\0' || v == 0 || v > (UINT64_MAX >> shift))
        return 0;
    return (uint64_t)v << shift;
}

/* Read variable v (env_lock held): copy, check, report a malformed value. */
static void read_var(struct var *v)
{
    const char *s = getenv(v->name);
    v->read = 1;
    v->raw = s ? strdup(s) : NULL;
    v->use = v->raw && v->raw[0] ? v->raw : NULL;
    v->fallback = NULL;
    if (!v->use)
        return;
    int ok = v->check == CHECK_INT     ? is_int(v->use)
             : v->check == CHECK_WORDS ? is_word(v->use, v->words)
             : v->check == CHECK_BYTES ? bytes_of(v->use) != 0
                                       : 1;
    if (ok)
        return;
#ifndef LF_ENV_QUIET
    fprintf(stderr, "loopfarm: %s=\"%s\": expected %s; using the default (%s)\n", v->name, v->use,
            v->forms, v->dflt);
#endif
    v->fallback = v->dflt;
    v->use = NULL;
}

const char *lf__env(enum lf__env_id id)
{
    if ((unsigned)id >= LF__ENV_COUNT)
        return NULL;
    pthread_mutex_lock(&env_lock);
    struct var *v = &vars[id];
    if (!v->read)
        read_var(v);
    const char *use = v->use;
    pthread_mutex_unlock(&env_lock);
    return use;
}

uint64_t lf__env_bytes(enum lf__env_id id)
{
    const char *s = lf__env(id);
    return s ? bytes_of(s) : 0;
}

int lf__env_verbose(void)
{
    const char *s = lf__env(LF__ENV_VERBOSE);
    return s ? atoi(s) : 0;
}

void lf__env_rejected(enum lf__env_id id, const char *fallback)
{
    if ((unsigned)id >= LF__ENV_COUNT)
        return;
    pthread_mutex_lock(&env_lock);
    vars[id].fallback = fallback;
    pthread_mutex_unlock(&env_lock);
}

int lf__env_info(int id, struct lf__env_info *out)
{
    if (id < 0 || id >= LF__ENV_COUNT)
        return -1;
    (void)lf__env((enum lf__env_id)id);
    pthread_mutex_lock(&env_lock);
    const struct var *v = &vars[id];
    *out = (struct lf__env_info){v->name, v->raw, v->dflt, v->forms, v->fallback};
    pthread_mutex_unlock(&env_lock);
    return 0;
}

void lf__env_reset_for_tests(enum lf__env_id id)
{
    if ((unsigned)id >= LF__ENV_COUNT)
        return;
    struct var *v = &vars[id];
    free(v->raw);
    v->raw = NULL;
    v->use = NULL;
    v->fallback = NULL;
    v->read = 0;
}
