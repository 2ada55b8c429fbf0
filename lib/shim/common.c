/* lib/shim/common.c - the part of the preload shims that does not depend on the OpenMP
 * runtime's ABI: configuration (LF_SCHEDULE, LF_REPLACE, LF_VERBOSE), which loops are taken,
 * call sites, and the logical iteration space a taken loop is scheduled in (lib/shim/shim.h).
 *
 * Call sites.  What a loop learned (rates, calibration) lives in its loop handle, and
 * handles come from a site's pools, one per (schedule spec, team size) (lib/omp/team.c).  A
 * shim makes one lf_site per (entry, call address): the return address of its entry point,
 * an instruction of the program's own code, stands for the loop as a source line does for
 * LF_FOR.  So two different loops of a program never share a memory, and a loop run by
 * teams of several sizes keeps one memory per size.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "platform/env.h"
#include "shim/shim.h"

/* The monotonic modifier bit of omp_sched_t (OpenMP 5.0: omp_sched_monotonic). */
#define SHIM_SCHED_MONOTONIC 0x80000000UL

static const char *const entry_what[LF__SHIM_ENTRIES] = {
    "schedule(dynamic)", "schedule(guided)", "schedule(runtime) with run-sched-var dynamic",
    "schedule(runtime) with run-sched-var guided", "schedule(runtime) with run-sched-var auto"};
static const char *const entry_label[LF__SHIM_ENTRIES] = {"dynamic", "guided", "runtime-dynamic",
                                                          "runtime-guided", "runtime-auto"};
/* What each entry's loops run under in the program's own runtime, over the shim's scheduling
 * units (an explicit chunk is one unit): auto's OWN plan.  A run-sched-var of auto is static in
 * both runtimes. */
static const char *const own_spec[LF__SHIM_ENTRIES] = {"dynamic", "guided", "dynamic", "guided",
                                                       "static"};

/* ---- The runtime ---- */

void lf__shim_find_runtime(const char *const *sonames)
{
    if (dlsym(RTLD_DEFAULT, "omp_get_level"))
        return; /* in the global scope: the program's, or a preloaded library's */
    for (; *sonames; sonames++)
        if (dlopen(*sonames, RTLD_LAZY | RTLD_GLOBAL | RTLD_NOLOAD))
            return; /* kept open: the shim uses it for the life of the process */
}

/* ---- Configuration ---- */

static const char *const key_name[LF__SHIM_KEYS] = {"dynamic", "guided", "runtime", "auto",
                                                    "static",  "chunk",  "cap"};

static void bad_replace(const struct lf__shim *s, const char *text, const char *why)
{
    fprintf(stderr,
            "loopfarm-%s: LF_REPLACE: %s in \"%s\"; accepted: entries kind:spec separated by "
            "',' or ';' with kind dynamic, guided, runtime or auto, spec a loopfarm schedule "
            "or \"%s\" (leave to %s), static:weighted%s, chunk:honour or chunk:ignore, and "
            "cap:guided or cap:ignore\n",
            s->name, why, text, s->name, s->runtime,
            s->takes_static ? "" : " (libloopfarm-kmp only)");
}

/* The key a token "key:rest" starts, with *rest after the colon; -1 when it starts none,
 * -2 when the word before the colon is no key. */
static int token_key(char *tok, char **rest)
{
    char *colon = strchr(tok, ':');
    if (!colon)
        return -1;
    for (int k = 0; k < LF__SHIM_KEYS; k++)
        if ((size_t)(colon - tok) == strlen(key_name[k]) &&
            strncmp(tok, key_name[k], (size_t)(colon - tok)) == 0) {
            *rest = colon + 1;
            return k;
        }
    return -2;
}

void lf__shim_parse_replace(struct lf__shim *s, const char *text, char **map)
{
    char *copy = strdup(text);
    if (!copy)
        return;
    int cur = -1;
    for (char *save = NULL, *tok = strtok_r(copy, ",;", &save); tok;
         tok = strtok_r(NULL, ",;", &save)) {
        char *rest = NULL;
        int k = token_key(tok, &rest);
        if (k == -2) {
            bad_replace(s, text, "unknown kind");
            cur = -1;
            continue;
        }
        if (k == LF__SHIM_K_CHUNK || k == LF__SHIM_K_CAP) {
            /* Switches: chunk:honour|ignore, cap:guided|ignore. */
            int *flag = k == LF__SHIM_K_CHUNK ? &s->honour_chunk : &s->guided_cap;
            const char *on = k == LF__SHIM_K_CHUNK ? "honour" : "guided";
            if (strcmp(rest, "ignore") == 0)
                *flag = 0;
            else if (strcmp(rest, on) == 0 || (k == LF__SHIM_K_CHUNK && strcmp(rest, "honor") == 0))
                *flag = 1;
            else
                bad_replace(s, text,
                            k == LF__SHIM_K_CHUNK ? "chunk: takes honour or ignore"
                                                  : "cap: takes guided or ignore");
            cur = -1;
            continue;
        }
        if (k >= 0) {
            free(map[k]);
            map[k] = strdup(rest);
            cur = k;
            continue;
        }
        if (cur < 0 || !map[cur]) {
            bad_replace(s, text, "a parameter outside any entry");
            continue;
        }
        /* A parameter of the current entry's spec ("dynamic:af,k=2"). */
        size_t len = strlen(map[cur]) + strlen(tok) + 2;
        char *joined = malloc(len);
        if (!joined)
            continue;
        snprintf(joined, len, "%s,%s", map[cur], tok);
        free(map[cur]);
        map[cur] = joined;
    }
    free(copy);
}

/* The spec a map value stands for: NULL for the runtime's own (the shim's name, the
 * runtime's name, or empty). */
static const char *spec_of(const struct lf__shim *s, const char *v)
{
    if (!v || !*v || strcmp(v, s->name) == 0 || strcmp(v, s->runtime) == 0)
        return NULL;
    return v;
}

/* Whether LF_REPLACE's static entry v asks for weighted static loops: "weighted" does, the
 * shim's or the runtime's name leaves them to the runtime; anything else is reported.  A shim
 * whose runtime compiles static loops inline (takes_static 0) says that it never sees them. */
static int static_of(const struct lf__shim *s, const char *text, const char *v)
{
    if (!s->takes_static) {
        fprintf(stderr,
                "loopfarm-%s: LF_REPLACE: static:%s ignored: the compiler inlines static loops, "
                "loops without a schedule clause and schedule(auto), so %s (and this shim) never "
                "sees them; static:weighted needs a program built by clang, icx or AOCC, run "
                "under libloopfarm-kmp\n",
                s->name, v, s->runtime);
        return 0;
    }
    if (strcmp(v, "weighted") == 0)
        return 1;
    if (!spec_of(s, v))
        return 0;
    bad_replace(s, text, "static: takes weighted or the runtime's name");
    return 0;
}

/* Read the environment into s (lf__shim_configure does it once). */
static void configure_now(struct lf__shim *s)
{
    const char *sched = lf__env(LF__ENV_SCHEDULE);
    const char *repl = lf__env(LF__ENV_REPLACE);
    const char *verb = lf__env(LF__ENV_VERBOSE);
    s->verbose = verb && *verb ? atoi(verb) : 0;
    s->honour_chunk = 1;
    s->guided_cap = 1;
    for (int e = 0; e < LF__SHIM_ENTRIES; e++) {
        snprintf(s->fallback_label[e], sizeof s->fallback_label[e], "%s:%s", s->name,
                 entry_label[e]);
        s->fallback[e].file = s->fallback_label[e];
        s->fallback[e].flags = LF_SITE_MONOTONIC; /* shared by both modifiers: the safe one */
        s->fallback[e].own = own_spec[e];
    }
    if (sched && !*sched)
        sched = NULL;
    if (repl && !*repl)
        repl = NULL;
    s->configured = sched || repl;
    atomic_store_explicit(&s->enabled, s->configured, memory_order_relaxed);
    if (!s->configured)
        return;
    /* Static (one configuration per shim): s->spec points into the map's strings for the
     * life of the process, and leak checkers see them reachable. */
    static char *map[LF__SHIM_KEYS];
    if (repl)
        lf__shim_parse_replace(s, repl, map);
    s->spec[LF__SHIM_DYNAMIC] =
        map[LF__SHIM_K_DYNAMIC] ? spec_of(s, map[LF__SHIM_K_DYNAMIC]) : sched;
    s->spec[LF__SHIM_GUIDED] = map[LF__SHIM_K_GUIDED] ? spec_of(s, map[LF__SHIM_K_GUIDED]) : sched;
    const char *rt = map[LF__SHIM_K_RUNTIME] ? spec_of(s, map[LF__SHIM_K_RUNTIME]) : sched;
    int rt_set = map[LF__SHIM_K_RUNTIME] || sched;
    s->spec[LF__SHIM_RT_DYNAMIC] = rt_set ? rt : spec_of(s, map[LF__SHIM_K_DYNAMIC]);
    s->spec[LF__SHIM_RT_GUIDED] = rt_set ? rt : spec_of(s, map[LF__SHIM_K_GUIDED]);
    s->spec[LF__SHIM_RT_AUTO] = rt_set ? rt : spec_of(s, map[LF__SHIM_K_AUTO]);
    s->static_weighted = map[LF__SHIM_K_STATIC] ? static_of(s, repl, map[LF__SHIM_K_STATIC]) : 0;
    if (s->guided_cap)
        s->fallback[LF__SHIM_GUIDED].flags = s->fallback[LF__SHIM_RT_GUIDED].flags =
            LF_SITE_GUIDED_CAP | LF_SITE_MONOTONIC;
    if (s->verbose > 0) {
        fprintf(stderr,
                "loopfarm-%s: loopfarm " LF_VERSION_STRING
                " preloaded; explicit chunk sizes %s; schedule(guided) chunks %s; each loop "
                "learns on its own (keyed by call site and team size)\n",
                s->name, s->honour_chunk ? "honoured (chunks are multiples)" : "ignored",
                s->guided_cap ? "within OpenMP's guided bound" : "uncapped");
        for (int e = 0; e < LF__SHIM_ENTRIES; e++)
            fprintf(stderr, "loopfarm-%s:   %-44s -> %s%s%s\n", s->name, entry_what[e],
                    s->spec[e] ? "loopfarm \"" : s->runtime, s->spec[e] ? s->spec[e] : "",
                    s->spec[e] ? "\"" : "");
        if (s->takes_static)
            fprintf(stderr, "loopfarm-%s:   %-44s -> %s\n", s->name,
                    "schedule(static) and loops without a schedule",
                    s->static_weighted ? "loopfarm weighted static" : s->runtime);
    }
}

/* One shim per library (common.c is compiled into each): one lock. */
static pthread_mutex_t configure_lock = PTHREAD_MUTEX_INITIALIZER;

void lf__shim_configure(struct lf__shim *s)
{
    /* Acquire: pairs with the release below; the configuration is read after it is written. */
    if (atomic_load_explicit(&s->configured_once, memory_order_acquire))
        return;
    pthread_mutex_lock(&configure_lock);
    if (!atomic_load_explicit(&s->configured_once, memory_order_relaxed)) {
        configure_now(s);
        atomic_store_explicit(&s->configured_once, 1, memory_order_release);
    }
    pthread_mutex_unlock(&configure_lock);
}

int lf__shim_set_enabled(struct lf__shim *s, int on)
{
    if (on != 0 && on != 1)
        return -EINVAL;
    lf__shim_configure(s); /* a program may switch before any entry point was called */
    /* Members decide at each loop's start whether the shim takes it, and must decide alike:
     * a switch while a team runs could split one.  omp_get_level is looked up here, not
     * called through the weak reference: a program may switch before any runtime is in the
     * process, and taking the weak name's address would bind every call of it at load time,
     * to nothing when the runtime comes later (dlopen). */
    int (*level)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_level");
    if (level && level() > 0)
        return -EBUSY;
    if (!s->configured)
        return on ? -ENOENT : 0;
    return atomic_exchange_explicit(&s->enabled, on, memory_order_relaxed);
}

/* ---- Taking a loop ---- */

/* The entry for a loop of source kind src (runtime: the run-sched ICV picks it) with the
 * program's chunk; -1 when the runtime keeps the loop.  *chunk becomes the chunk that
 * applies. */
static int pick_entry(const struct lf__shim *s, enum lf__shim_src src, lf__ull *chunk,
                      bool *monotonic)
{
    int e;
    if (src == LF__SHIM_SRC_DYNAMIC) {
        e = LF__SHIM_DYNAMIC;
    } else if (src == LF__SHIM_SRC_GUIDED) {
        e = LF__SHIM_GUIDED;
    } else {
        omp_sched_t kind;
        int c;
        omp_get_schedule(&kind, &c);
        if ((unsigned long)kind & SHIM_SCHED_MONOTONIC)
            *monotonic = true; /* OMP_SCHEDULE=monotonic:dynamic */
        switch ((unsigned long)kind & ~SHIM_SCHED_MONOTONIC) {
        case omp_sched_dynamic:
            e = LF__SHIM_RT_DYNAMIC;
            break;
        case omp_sched_guided:
            e = LF__SHIM_RT_GUIDED;
            break;
        case omp_sched_auto:
            e = LF__SHIM_RT_AUTO;
            c = 1;
            break;
        default:
            return -1; /* static, and the runtime's own kinds */
        }
        *chunk = c > 1 ? (lf__ull)c : 1;
    }
    return s->spec[e] ? e : -1;
}

int lf__shim_decide(const struct lf__shim *s, enum lf__shim_src src, bool monotonic, lf__ull chunk,
                    lf__ull n, int level, struct lf__shim_loop *st)
{
    if (!lf__shim_enabled(s) || level < 0 || level >= LF__SHIM_LEVELS)
        return -1;
    int e = pick_entry(s, src, &chunk, &monotonic);
    if (e < 0)
        return -1;
    lf__ull unit = s->honour_chunk && chunk > 1 ? chunk : 1;
    lf__ull units = n / unit + (n % unit != 0);
    if (units > (lf__ull)LONG_MAX)
        return -1;
    st->n = n;
    st->unit = unit;
    st->units = units;
    st->entry = e;
    st->monotonic = monotonic;
    return e;
}

/* ---- Call sites ---- */

/* The lf_site of each (entry, call address) a shim has taken a loop at: its memory, pool of
 * handles and trace name belong to that call site.  A fixed open-addressed table, filled
 * lock-free; when it is full, loops share their entry's fallback site. */
#define SHIM_SITES 1024
struct call_site {
    atomic_uintptr_t key; /* (call address << 4) | (monotonic << 3) | entry; 0: free */
    atomic_int ready;     /* label and site written */
    atomic_int announced; /* LF_VERBOSE named it */
    char label[112];
    struct lf_site site;
};
static struct call_site call_sites[SHIM_SITES];
static atomic_int fallback_announced[LF__SHIM_ENTRIES];

void lf__shim_where(char *buf, size_t len, const char *what, const void *ra)
{
    Dl_info info;
    const char *obj = "?";
    uintptr_t off = (uintptr_t)ra;
    if (dladdr(ra, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        obj = slash ? slash + 1 : info.dli_fname;
        off = (uintptr_t)ra - (uintptr_t)info.dli_fbase;
    }
    snprintf(buf, len, "%s@%s+0x%lx", what, obj, (unsigned long)off);
}

int lf__shim_slot(atomic_uintptr_t *key, atomic_int *ready, uintptr_t want)
{
    uintptr_t k = atomic_load_explicit(key, memory_order_acquire);
    if (k == 0) {
        uintptr_t zero = 0;
        /* acq_rel: one thread claims the entry; a loser re-reads its key. */
        if (atomic_compare_exchange_strong_explicit(key, &zero, want, memory_order_acq_rel,
                                                    memory_order_acquire))
            return 1;
        k = zero;
    }
    if (k != want)
        return -1;
    /* Acquire: pairs with the claimer's release of ready; filling an entry is brief. */
    unsigned spins = 0;
    while (!atomic_load_explicit(ready, memory_order_acquire))
        lf__wait_brief(&spins);
    return 0;
}

/* Label a call address as "NAME:KIND@object+0xOFFSET", which addr2line resolves. */
static void label_site(const struct lf__shim *s, struct call_site *c, int e, bool monotonic,
                       const void *ra)
{
    char what[64];
    snprintf(what, sizeof what, "%s:%s%s", s->name, monotonic ? "monotonic:" : "", entry_label[e]);
    lf__shim_where(c->label, sizeof c->label, what, ra);
    c->site.file = c->label;
    c->site.flags =
        (s->fallback[e].flags & ~LF_SITE_MONOTONIC) | (monotonic ? LF_SITE_MONOTONIC : 0);
    c->site.own = s->fallback[e].own;
}

struct lf_site *lf__shim_site(struct lf__shim *s, int e, bool monotonic, const void *ra)
{
    uintptr_t key = ((uintptr_t)ra << 4) | ((uintptr_t)monotonic << 3) | (uintptr_t)e;
    if (!ra || ((uintptr_t)ra >> 60) != 0)
        return &s->fallback[e];
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ULL) >> 40) % SHIM_SITES;
    for (size_t probe = 0; probe < SHIM_SITES; probe++) {
        struct call_site *c = &call_sites[(h + probe) % SHIM_SITES];
        int got = lf__shim_slot(&c->key, &c->ready, key);
        if (got == 1) {
            label_site(s, c, e, monotonic, ra);
            /* Release: the label and site are written before anyone uses them. */
            atomic_store_explicit(&c->ready, 1, memory_order_release);
        }
        if (got >= 0)
            return &c->site;
    }
    return &s->fallback[e];
}

/* The flag that says whether LF_VERBOSE has named site (of entry e) yet. */
static atomic_int *announced_flag(struct lf__shim *s, struct lf_site *site, int e)
{
    if (site == &s->fallback[e])
        return &fallback_announced[e];
    struct call_site *c = (struct call_site *)((char *)site - offsetof(struct call_site, site));
    return &c->announced;
}

static void announce(struct lf__shim *s, const struct lf__shim_loop *st)
{
    if (s->verbose <= 0 ||
        atomic_exchange_explicit(announced_flag(s, st->site, st->entry), 1, memory_order_relaxed))
        return;
    fprintf(stderr,
            "loopfarm-%s: taking the %s loop at %s under loopfarm \"%s\" (first: %llu "
            "iterations, unit %llu, %d threads)\n",
            s->name, entry_what[st->entry], st->site->file, s->spec[st->entry], st->n, st->unit,
            omp_get_num_threads());
}

/* ---- Running a loop ---- */

void lf__shim_bounds_of(const struct lf__shim_loop *st, struct lf__shim_bounds *b)
{
    b->n = st->n;
    b->start = st->start;
    b->end = st->end;
    b->incr = st->incr;
    b->unit = st->unit;
}

void lf__shim_join(struct lf__shim *s, struct lf__shim_loop *st, struct lf_site *site,
                   lf_omp_loan *loan, bool same)
{
    st->loan = loan;
    st->site = site;
    st->refused = !same;
    st->ran_last = false;
    if (!same)
        fprintf(stderr,
                "loopfarm-%s: %s: thread %d entered a loop with other bounds than its team's "
                "(every member must give the same); it runs none of the loop's iterations\n",
                s->name, site->file, st->tid);
    lf_loop *loop = lf_omp_loan_loop(loan);
    /* The last unit is held back (lf__shim_next). */
    int rc = lf_loop_begin(loop, st->tid, 0, st->units ? (long)st->units - 1 : 0, 1);
    if (rc != 0 && rc != -ERANGE) {
        fprintf(stderr, "loopfarm-%s: %s: thread %d could not enter a loop (error %d)\n", s->name,
                site->file, st->tid, rc);
        abort();
    }
    st->refused |= rc != 0;
    announce(s, st);
    st->loop = loop;
    st->entered = rc == 0;
}

bool lf__shim_next(struct lf__shim_loop *st, lf__ull *j0, lf__ull *j1)
{
    long first;
    unsigned long count;
    if (st->refused || st->ran_last)
        return false;
    if (!lf_loop_next(st->loop, st->tid, &first, &count)) {
        if (st->units == 0 || !lf_loop_once(st->loop, st->tid))
            return false;
        st->ran_last = true; /* the last unit, held back from the lf loop */
        *j0 = (st->units - 1) * st->unit;
        *j1 = st->n;
        return true;
    }
    lf__ull u0 = (lf__ull)first, u1 = u0 + count;
    *j0 = u0 * st->unit;
    *j1 = u1 * st->unit;
    return true;
}

void lf__shim_leave(struct lf__shim_loop *st)
{
    lf_omp_exit(st->site, st->loan, st->entered ? st->loop : NULL, st->tid);
    st->loop = NULL;
}
