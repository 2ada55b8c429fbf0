/* lib/platform/counters.c - per-thread cycles and instructions via PAPI.
 *
 * PAPI is initialised once per process (pthread_once).  "Counters exist" is
 * decided by a probe, not by PAPI_num_cmp_hwctrs(): on virtual machines PAPI
 * initialises and the perf_event component may even claim counters, yet the
 * presets cannot be added or started.  The probe creates an event set with
 * PAPI_TOT_CYC and PAPI_TOT_INS, starts and stops it; any failure means
 * "unavailable", silently, with the reason kept for lf-info.  Callers then
 * use CLOCK_THREAD_CPUTIME_ID (lf__thread_cpu_ns) instead.
 *
 * libloopfarm does not link PAPI: the probe loads it (dlopen, LF_PAPI_SONAME)
 * and looks up the functions it calls, so a process that never asks for
 * counters never loads PAPI and libpfm (their relocations are most of a
 * short program's start-up).  A library that cannot be loaded, or lacks a
 * function, is one more reason for "unavailable".
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef LF_HAVE_PAPI
#include <papi.h>
#endif

#include "platform/platform.h"

#define FALLBACK "fell back to CLOCK_THREAD_CPUTIME_ID"

static pthread_once_t counters_once = PTHREAD_ONCE_INIT;
static int counters_done; /* atomic: 1 once the probe has run */
static int counters_ok;
static char counters_why[256];

#ifdef LF_HAVE_PAPI
/* The PAPI functions used, looked up in the loaded library by the probe;
 * read only after it (counters_ok implies all are set). */
#define PAPI_FNS(X)                                                                                \
    X(PAPI_library_init)                                                                           \
    X(PAPI_thread_init)                                                                            \
    X(PAPI_num_cmp_hwctrs)                                                                         \
    X(PAPI_create_eventset)                                                                        \
    X(PAPI_add_event)                                                                              \
    X(PAPI_cleanup_eventset)                                                                       \
    X(PAPI_destroy_eventset)                                                                       \
    X(PAPI_start)                                                                                  \
    X(PAPI_stop)                                                                                   \
    X(PAPI_read)                                                                                   \
    X(PAPI_register_thread)                                                                        \
    X(PAPI_unregister_thread)                                                                      \
    X(PAPI_strerror)

#define FIELD(f) __typeof__(&f) f;
static struct {
    PAPI_FNS(FIELD)
} papi;
#undef FIELD

/* Load the library and fill papi; 0, or -1 with the reason in counters_why. */
static int papi_load(void)
{
#define NAME(f) #f,
    static const char *const names[] = {PAPI_FNS(NAME)};
#undef NAME
    void *fns[sizeof names / sizeof names[0]];
    char why[200];
    if (lf__dl_open(LF_PAPI_SONAME, names, fns, sizeof names / sizeof names[0], why, sizeof why) !=
        0) {
        snprintf(counters_why, sizeof counters_why, "PAPI: %s: " FALLBACK, why);
        return -1;
    }
    size_t i = 0;
#define SET(f) memcpy(&papi.f, &fns[i++], sizeof fns[0]);
    PAPI_FNS(SET)
#undef SET
    return 0;
}

/* The calling thread's event set, PAPI_NULL until lf__counters_start. */
static __thread int thread_eventset = -1; /* PAPI_NULL is -1 */
static __thread int thread_running;

static unsigned long self_id(void)
{
    return (unsigned long)pthread_self();
}

/* Build an event set with both presets on the calling thread; returns 0 and
 * the set, or a PAPI error code and the name of the step that failed. */
static int make_eventset(int *es, const char **step)
{
    int rc;
    *es = PAPI_NULL;
    if ((rc = papi.PAPI_create_eventset(es)) != PAPI_OK) {
        *step = "PAPI_create_eventset";
        return rc;
    }
    if ((rc = papi.PAPI_add_event(*es, PAPI_TOT_CYC)) != PAPI_OK) {
        *step = "PAPI_TOT_CYC";
    } else if ((rc = papi.PAPI_add_event(*es, PAPI_TOT_INS)) != PAPI_OK) {
        *step = "PAPI_TOT_INS";
    } else {
        return PAPI_OK;
    }
    papi.PAPI_cleanup_eventset(*es);
    papi.PAPI_destroy_eventset(es);
    *es = PAPI_NULL;
    return rc;
}

static void counters_init(void)
{
    if (papi_load() != 0)
        return;
    int rc = papi.PAPI_library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        snprintf(counters_why, sizeof counters_why, "PAPI_library_init failed (%s): " FALLBACK,
                 rc > 0 ? "version mismatch" : papi.PAPI_strerror(rc));
        return;
    }
    if ((rc = papi.PAPI_thread_init(self_id)) != PAPI_OK) {
        snprintf(counters_why, sizeof counters_why, "PAPI_thread_init failed (%s): " FALLBACK,
                 papi.PAPI_strerror(rc));
        return;
    }
    int nhw = papi.PAPI_num_cmp_hwctrs(0);
    if (nhw <= 0) {
        snprintf(counters_why, sizeof counters_why, "PAPI initialised, 0 counters: " FALLBACK);
        return;
    }
    /* The component claims counters; make sure the presets really count. */
    int es;
    const char *step = "";
    long long v[2];
    rc = make_eventset(&es, &step);
    if (rc == PAPI_OK) {
        if ((rc = papi.PAPI_start(es)) != PAPI_OK)
            step = "PAPI_start";
        else if ((rc = papi.PAPI_stop(es, v)) != PAPI_OK)
            step = "PAPI_stop";
        papi.PAPI_cleanup_eventset(es);
        papi.PAPI_destroy_eventset(&es);
    }
    if (rc != PAPI_OK) {
        snprintf(counters_why, sizeof counters_why,
                 "PAPI initialised, 0 counters: " FALLBACK " (%d listed, but %s: %s)", nhw, step,
                 papi.PAPI_strerror(rc));
        return;
    }
    counters_ok = 1;
    snprintf(counters_why, sizeof counters_why,
             "PAPI: PAPI_TOT_CYC and PAPI_TOT_INS per thread (%d hardware counters)", nhw);
}
#else
static void counters_init(void)
{
    snprintf(counters_why, sizeof counters_why, "built without PAPI: " FALLBACK);
}
#endif

/* Run the probe once, and note that it ran. */
static void counters_probe(void)
{
    counters_init();
    __atomic_store_n(&counters_done, 1, __ATOMIC_RELEASE);
}

int lf__counters_probed(void)
{
    return __atomic_load_n(&counters_done, __ATOMIC_ACQUIRE);
}

int lf__counters_available(void)
{
    pthread_once(&counters_once, counters_probe);
    return counters_ok;
}

const char *lf__counters_status(void)
{
    pthread_once(&counters_once, counters_probe);
    return counters_why;
}

int lf__counters_start(void)
{
    if (!lf__counters_available())
        return -ENOTSUP;
#ifdef LF_HAVE_PAPI
    if (thread_running)
        return 0;
    const char *step;
    if (thread_eventset == PAPI_NULL) {
        papi.PAPI_register_thread();
        if (make_eventset(&thread_eventset, &step) != PAPI_OK)
            return -EIO;
    }
    if (papi.PAPI_start(thread_eventset) != PAPI_OK)
        return -EIO;
    thread_running = 1;
    return 0;
#else
    return -ENOTSUP;
#endif
}

int lf__counters_read(uint64_t *cycles, uint64_t *instructions)
{
    if (!lf__counters_available())
        return -ENOTSUP;
#ifdef LF_HAVE_PAPI
    long long v[2];
    if (!thread_running)
        return -EINVAL;
    if (papi.PAPI_read(thread_eventset, v) != PAPI_OK)
        return -EIO;
    if (cycles)
        *cycles = (uint64_t)v[0];
    if (instructions)
        *instructions = (uint64_t)v[1];
    return 0;
#else
    (void)cycles;
    (void)instructions;
    return -ENOTSUP;
#endif
}

int lf__counters_stop(void)
{
    if (!lf__counters_available())
        return -ENOTSUP;
#ifdef LF_HAVE_PAPI
    long long v[2];
    if (thread_running) {
        papi.PAPI_stop(thread_eventset, v);
        thread_running = 0;
    }
    if (thread_eventset != PAPI_NULL) {
        papi.PAPI_cleanup_eventset(thread_eventset);
        papi.PAPI_destroy_eventset(&thread_eventset);
        thread_eventset = PAPI_NULL;
        papi.PAPI_unregister_thread();
    }
    return 0;
#else
    return -ENOTSUP;
#endif
}
