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
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#ifdef LF_HAVE_PAPI
#include <dlfcn.h>
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
static struct {
    int (*library_init)(int);
    int (*thread_init)(unsigned long (*)(void));
    int (*num_cmp_hwctrs)(int);
    int (*create_eventset)(int *);
    int (*add_event)(int, int);
    int (*cleanup_eventset)(int);
    int (*destroy_eventset)(int *);
    int (*start)(int);
    int (*stop)(int, long long *);
    int (*read)(int, long long *);
    int (*register_thread)(void);
    int (*unregister_thread)(void);
    char *(*strerror)(int);
} papi;

/* Load the library and fill papi; 0, or -1 with the reason in counters_why. */
static int papi_load(void)
{
    void *h = dlopen(LF_PAPI_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(counters_why, sizeof counters_why, "PAPI (%s) could not be loaded (%s): " FALLBACK,
                 LF_PAPI_SONAME, e ? e : "no reason given");
        return -1;
    }
    static const struct {
        const char *name;
        size_t off;
    } fns[] = {
#define FN(f, n) {n, offsetof(__typeof__(papi), f)}
        FN(library_init, "PAPI_library_init"),
        FN(thread_init, "PAPI_thread_init"),
        FN(num_cmp_hwctrs, "PAPI_num_cmp_hwctrs"),
        FN(create_eventset, "PAPI_create_eventset"),
        FN(add_event, "PAPI_add_event"),
        FN(cleanup_eventset, "PAPI_cleanup_eventset"),
        FN(destroy_eventset, "PAPI_destroy_eventset"),
        FN(start, "PAPI_start"),
        FN(stop, "PAPI_stop"),
        FN(read, "PAPI_read"),
        FN(register_thread, "PAPI_register_thread"),
        FN(unregister_thread, "PAPI_unregister_thread"),
        FN(strerror, "PAPI_strerror"),
#undef FN
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        void *f = dlsym(h, fns[i].name);
        if (!f) {
            snprintf(counters_why, sizeof counters_why, "PAPI (%s) has no %s: " FALLBACK,
                     LF_PAPI_SONAME, fns[i].name);
            dlclose(h);
            return -1;
        }
        memcpy((char *)&papi + fns[i].off, &f, sizeof f);
    }
    return 0; /* the library stays loaded for the life of the process */
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
    if ((rc = papi.create_eventset(es)) != PAPI_OK) {
        *step = "PAPI_create_eventset";
        return rc;
    }
    if ((rc = papi.add_event(*es, PAPI_TOT_CYC)) != PAPI_OK) {
        *step = "PAPI_TOT_CYC";
    } else if ((rc = papi.add_event(*es, PAPI_TOT_INS)) != PAPI_OK) {
        *step = "PAPI_TOT_INS";
    } else {
        return PAPI_OK;
    }
    papi.cleanup_eventset(*es);
    papi.destroy_eventset(es);
    *es = PAPI_NULL;
    return rc;
}

static void counters_init(void)
{
    if (papi_load() != 0)
        return;
    int rc = papi.library_init(PAPI_VER_CURRENT);
    if (rc != PAPI_VER_CURRENT) {
        snprintf(counters_why, sizeof counters_why, "PAPI_library_init failed (%s): " FALLBACK,
                 rc > 0 ? "version mismatch" : papi.strerror(rc));
        return;
    }
    if ((rc = papi.thread_init(self_id)) != PAPI_OK) {
        snprintf(counters_why, sizeof counters_why, "PAPI_thread_init failed (%s): " FALLBACK,
                 papi.strerror(rc));
        return;
    }
    int nhw = papi.num_cmp_hwctrs(0);
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
        if ((rc = papi.start(es)) != PAPI_OK)
            step = "PAPI_start";
        else if ((rc = papi.stop(es, v)) != PAPI_OK)
            step = "PAPI_stop";
        papi.cleanup_eventset(es);
        papi.destroy_eventset(&es);
    }
    if (rc != PAPI_OK) {
        snprintf(counters_why, sizeof counters_why,
                 "PAPI initialised, 0 counters: " FALLBACK " (%d listed, but %s: %s)", nhw, step,
                 papi.strerror(rc));
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
        papi.register_thread();
        if (make_eventset(&thread_eventset, &step) != PAPI_OK)
            return -EIO;
    }
    if (papi.start(thread_eventset) != PAPI_OK)
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
    if (papi.read(thread_eventset, v) != PAPI_OK)
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
        papi.stop(thread_eventset, v);
        thread_running = 0;
    }
    if (thread_eventset != PAPI_NULL) {
        papi.cleanup_eventset(thread_eventset);
        papi.destroy_eventset(&thread_eventset);
        thread_eventset = PAPI_NULL;
        papi.unregister_thread();
    }
    return 0;
#else
    return -ENOTSUP;
#endif
}
