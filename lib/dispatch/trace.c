/* lib/dispatch/trace.c - LF_TRACE: per-chunk CSV written when a loop ends.
 *
 * Chunks append to their member's buffer (no I/O, no lock); the last member
 * out of a loop writes the whole loop under one process-wide lock.  Columns:
 * site,instance,thread,lo,hi,start_ns,end_ns with [lo, hi) the chunk's
 * logical iterations (0 .. trip count) and times in ns since the library's
 * clock epoch.
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "platform/clock.h"

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *trace_path;
static FILE *trace_file;
static int trace_failed;
static int verbose_level;
static uint64_t epoch_ticks;

static void read_env(void)
{
    const char *t = getenv("LF_TRACE");
    const char *v = getenv("LF_VERBOSE");
    trace_path = t && *t ? t : NULL;
    verbose_level = v && *v ? atoi(v) : 0;
    lf__clock_init();
    epoch_ticks = lf__ticks();
}

int lf__trace_enabled(void)
{
    pthread_once(&env_once, read_env);
    return trace_path != NULL;
}

int lf__verbose(void)
{
    pthread_once(&env_once, read_env);
    return verbose_level;
}

uint64_t lf__dispatch_ns(uint64_t ticks)
{
    pthread_once(&env_once, read_env);
    return ticks >= epoch_ticks ? lf__ticks_to_ns(ticks - epoch_ticks) : 0;
}

void lf__trace_flush(struct lf_loop *l, struct lf__slot *s)
{
    pthread_mutex_lock(&trace_lock);
    if (!trace_file && !trace_failed) {
        trace_file = fopen(trace_path, "w");
        if (!trace_file) {
            trace_failed = 1;
            fprintf(stderr, "loopfarm: LF_TRACE=%s: cannot open for writing; no trace\n",
                    trace_path);
        } else {
            fputs("site,instance,thread,lo,hi,start_ns,end_ns\n", trace_file);
        }
    }
    if (trace_file) {
        for (int t = 0; t < l->P; t++) {
            struct lf__trace_buf *b = &s->trace[t];
            for (size_t i = 0; i < b->len; i++)
                fprintf(trace_file, "%s,%llu,%d,%llu,%llu,%llu,%llu\n", l->name,
                        (unsigned long long)s->instance, t, (unsigned long long)b->rec[i].lo,
                        (unsigned long long)b->rec[i].hi,
                        (unsigned long long)lf__dispatch_ns(b->rec[i].start),
                        (unsigned long long)lf__dispatch_ns(b->rec[i].end));
            b->len = 0;
        }
        fflush(trace_file);
    }
    pthread_mutex_unlock(&trace_lock);
}
