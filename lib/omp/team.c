/* lib/omp/team.c - how the members of an OpenMP team share one loop handle.
 *
 * OpenMP gives a team no identity a library can read: two teams opened at
 * the same time by two pthreads have the same size, level and ancestor
 * thread numbers.  So a team is never looked up by such a key.  Instead each
 * execution of a loop loans a handle for itself: one member takes an idle
 * handle from the call site's pool (or makes one) and hands it to the
 * others through storage that OpenMP gives that team alone, for that loop
 * alone:
 *   - libgomp: the zeroed block GOMP_loop_start(..., mem) returns for a work
 *     share (the members meet there without a barrier: lf_omp_team_loan,
 *     lf_omp_meet);
 *   - any other runtime: `#pragma omp single copyprivate` in the header.
 * The last member out gives the handle back (lf_omp_exit), so a handle is
 * never in two loops at once, and a later loop of the same site and team
 * size usually gets the same handle back, with what it learned.
 *
 * A site keeps one pool per (schedule spec, team size), under a mutex that
 * is never on a chunk's path.  At most SITE_POOLS pools live per site: a
 * program that builds a new spec string for every loop recycles the least
 * recently used idle pool instead of growing without bound.  Most loans
 * take no lock at all: the last member out of a loop parks its handle in
 * one of the site's few hot entries, and the next borrower of the same spec
 * and team size takes it from there with an exchange (a team running
 * back-to-back nowait loops holds two or three handles in turn, its
 * members being a loop or two apart).
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"

/* Pools a site keeps before it recycles idle ones (distinct specs x team sizes). */
#define SITE_POOLS 16
/* Handles a pool has in loops at once before a borrower waits for one to come
 * back.  Members of a team drift apart over back-to-back nowait loops (one
 * preempted, the others run on), and each loop the leaders open loans a
 * handle: without a bound a lag of thousands of loops made thousands of
 * handles.  The ones behind never wait for the leaders, so they return
 * handles and the wait ends; sibling teams beyond this many at one site
 * wait their turn the same way. */
#define POOL_LOANED_MAX 32

/* Hot entries per site (one cache line of pointers). */
#define SITE_HOT 4
/* (spec, team size) pairs a site remembers whether they run without a
 * handle; others loan one. */
#define SITE_LIGHT 4

/* Whether the loops of (spec, team size) at a site run without a handle
 * (lib/dispatch/light.c), decided once.  Never freed: a site lives as
 * long as the program. */
struct light_entry {
    char *spec; /* NULL: LF_SCHEDULE */
    int nthreads;
    int light;
    /* A schedule that may run tiny executions (lf__light_tiny_ok): its team
     * meets here, and whoever comes first decides from what the site's
     * DEALT executions measured (tiny_ns: one worker's time per iteration, a
     * double's bits; tiny_runs: tiny executions in a row) whether the
     * execution runs tiny, without a handle, or loans one for all, which
     * runs its selection's plan (lf__exec_tiny_due).
     * The two counts are written by each execution's decider, so they sit
     * on a line of their own: every member reads the key above at every
     * entry, and a key that shared their line would move to the decider's
     * core and back once a loop. */
    int tiny;
    const lf_schedule *sched; /* when light or tiny */
    lf__au64 tiny_ns LF__ALIGNED, tiny_runs;
};

/* One leasable handle.  Read by every member at entry: the first line;
 * written by every member at exit: left, on a line of its own. */
struct lf_omp_loan {
    lf_loop *loop;
    struct pool *pool;
    struct light_entry *tiny; /* the entry that sent this execution here timed, or NULL */
    int nthreads;
    lf__au64 handoff; /* loans through lf_omp_loan_get: published by the borrower */
    struct lf_omp_loan *next_idle;
    lf__au64 left LF__ALIGNED; /* members that have left the current execution */
};

/* The handles of one (spec, team size) at a site. */
struct pool {
    struct pool *next;
    char *spec;         /* NULL: LF_SCHEDULE */
    lf_schedule *sched; /* parsed once; NULL: LF_SCHEDULE */
    int nthreads;
    int loaned; /* handles in a loop now */
    struct lf_omp_loan *idle;
    uint64_t used; /* the site's loan count at its latest loan */
};

struct site_priv {
    /* Idle handles parked by the last member out of a loop, each still
     * counted as loaned by its pool (so the pool is never recycled under
     * it); NULL entries are free. */
    lf__aptr hot[SITE_HOT] LF__ALIGNED;
    /* struct light_entry pointers, each published once (NULL: free). */
    lf__aptr light[SITE_LIGHT] LF__ALIGNED;
    pthread_mutex_t lock LF__ALIGNED;
    struct pool *pools;
    int npools;
    uint64_t loans;
    int handles;       /* handles made for this site */
    lf__aint reported; /* REPORT_* bits: messages already printed for this site */
};

enum { REPORT_DATA = 1, REPORT_INCR = 2, REPORT_BOUNDS = 4, REPORT_SPEC = 8 };

static const char *site_file(const struct lf_site *site)
{
    return site->file ? site->file : "?";
}

static _Noreturn void out_of_memory(const struct lf_site *site)
{
    fprintf(stderr, "loopfarm: %s:%d: out of memory creating a loop handle\n", site_file(site),
            site->line);
    abort();
}

/* The site's private part, made by the first caller (lock-free publication). */
static struct site_priv *site_priv(struct lf_site *site)
{
    /* Acquire: a published site_priv is initialised (a plain pointer in the
     * public struct so that C++ can include it; the builtins are atomic). */
    struct site_priv *sp = __atomic_load_n(&site->priv, __ATOMIC_ACQUIRE);
    if (sp)
        return sp;
    struct site_priv *mine = aligned_alloc(LF__CACHELINE, sizeof *mine);
    if (!mine)
        out_of_memory(site);
    memset(mine, 0, sizeof *mine);
    /* Adaptive: the lock is held for a few list operations, by one member
     * per loop entry and one per loop exit; spinning a little before
     * sleeping keeps a contended entry off the futex (doc/design.md). */
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
    pthread_mutex_init(&mine->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    void *expect = NULL;
    /* acq_rel: publish our initialised struct, or see the winner's. */
    if (__atomic_compare_exchange_n(&site->priv, &expect, mine, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE))
        return mine;
    pthread_mutex_destroy(&mine->lock);
    free(mine);
    return expect;
}

/* Print msg for this site unless a message of its kind was printed before. */
static void report_once(struct lf_site *site, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report_once(struct lf_site *site, int kind, const char *fmt, ...)
{
    struct site_priv *sp = site_priv(site);
    /* Relaxed: the bit only decides who prints; nothing is published. */
    if (atomic_fetch_or_explicit(&sp->reported, kind, memory_order_relaxed) & kind)
        return;
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "loopfarm: %s%s%.0d: %s\n", site_file(site), site->line ? ":" : "", site->line,
            msg);
}

/* Free a pool with no loaned handle (under the site lock). */
static void pool_free(struct pool *p)
{
    while (p->idle) {
        struct lf_omp_loan *l = p->idle;
        p->idle = l->next_idle;
        lf_loop_destroy(l->loop);
        free(l);
    }
    lf_schedule_free(p->sched);
    free(p->spec);
    free(p);
}

/* Whether what was made for (spec, nthreads) serves a loop of (want,
 * want_n): the same team size and the same spec (NULL: LF_SCHEDULE). */
static bool same_key(const char *spec, int nthreads, const char *want, int want_n)
{
    return nthreads == want_n && (spec == NULL) == (want == NULL) &&
           (!want || strcmp(spec, want) == 0);
}

/* The pool of (spec, nthreads), made when missing; recycles the least
 * recently used idle pool beyond SITE_POOLS (under the site lock). */
static struct pool *pool_get(struct lf_site *site, struct site_priv *sp, const char *spec,
                             int nthreads)
{
    for (struct pool *p = sp->pools; p; p = p->next)
        if (same_key(p->spec, p->nthreads, spec, nthreads))
            return p;
    if (sp->npools >= SITE_POOLS) {
        struct pool **victim = NULL;
        for (struct pool **pp = &sp->pools; *pp; pp = &(*pp)->next)
            if ((*pp)->loaned == 0 && (!victim || (*pp)->used < (*victim)->used))
                victim = pp;
        if (victim) {
            struct pool *v = *victim;
            *victim = v->next;
            pool_free(v);
            sp->npools--;
        }
    }
    struct pool *p = calloc(1, sizeof *p);
    if (!p)
        out_of_memory(site);
    p->nthreads = nthreads;
    if (spec) {
        char err[512];
        p->spec = strdup(spec);
        if (!p->spec)
            out_of_memory(site);
        int rc = lf_schedule_parse(spec, &p->sched, err, sizeof err);
        if (rc == -ENOMEM)
            out_of_memory(site);
        if (rc != 0) {
            report_once(site, REPORT_SPEC,
                        "schedule \"%s\": %s; running the loop under \"dynamic\"", spec, err);
            if (lf_schedule_parse("dynamic", &p->sched, err, sizeof err) != 0)
                out_of_memory(site);
        }
    }
    p->next = sp->pools;
    sp->pools = p;
    sp->npools++;
    return p;
}

/* A new handle for pool p (under the site lock).  Traces name a loop by its
 * handle, so every handle of a site has a name of its own: the site's label
 * for the first, then the label, the team size and the handle's number at
 * the site ("a.c:12/4t#1"). */
static struct lf_omp_loan *loan_make(struct lf_site *site, struct site_priv *sp, struct pool *p)
{
    struct lf_omp_loan *l = aligned_alloc(LF__CACHELINE, sizeof *l);
    if (!l)
        out_of_memory(site);
    memset(l, 0, sizeof *l);
    char name[128];
    const char *file = site_file(site);
    const char *base = strrchr(file, '/');
    char line[16] = "";
    if (site->line)
        snprintf(line, sizeof line, ":%d", site->line);
    if (sp->handles == 0)
        snprintf(name, sizeof name, "%s%s", base ? base + 1 : file, line);
    else
        snprintf(name, sizeof name, "%s%s/%dt#%d", base ? base + 1 : file, line, p->nthreads,
                 sp->handles);
    sp->handles++;
    if (lf_loop_create(&l->loop, p->nthreads, p->sched, name) != 0)
        out_of_memory(site);
    lf_loop_set_guided_cap(l->loop, site->flags & LF_SITE_GUIDED_CAP);
    lf_loop_set_monotonic(l->loop, (site->flags & LF_SITE_MONOTONIC) != 0);
    if (site->own && lf__loop_set_own(l->loop, site->own) != 0)
        report_once(site, REPORT_SPEC,
                    "own schedule \"%s\" does not parse; auto measures itself "
                    "against guided",
                    site->own);
    lf__loop_set_loaned(l->loop);
    l->pool = p;
    l->nthreads = p->nthreads;
    atomic_init(&l->left, 0);
    atomic_init(&l->handoff, 0);
    return l;
}

/* Whether loan l (owned by the caller) belongs to the pool of (spec,
 * nthreads). */
static bool loan_fits(const struct lf_omp_loan *l, const char *spec, int nthreads)
{
    return same_key(l->pool->spec, l->pool->nthreads, spec, nthreads);
}

/* Give idle loan l back to its pool's list (under the site lock). */
static void pool_put(struct lf_omp_loan *l)
{
    l->next_idle = l->pool->idle;
    l->pool->idle = l;
    l->pool->loaned--;
}

/* A hot handle of (spec, nthreads), or NULL.  One that does not fit is
 * parked again, or given back to its pool when its entry was taken
 * meanwhile. */
static struct lf_omp_loan *hot_take(struct site_priv *sp, const char *spec, int nthreads)
{
    /* No load before the exchange: the line was written by another core,
     * and a read would fetch it once to share and again to write. */
    for (int i = 0; i < SITE_HOT; i++) {
        /* acq_rel: the handle as the last member out of its loop left it
         * (its release in hot_park) happens before our use of it. */
        struct lf_omp_loan *l = lf__xchgp_acq_rel(&sp->hot[i], NULL);
        if (!l)
            continue;
        if (loan_fits(l, spec, nthreads))
            return l;
        void *expect = NULL;
        /* acq_rel: as in hot_park. */
        if (!lf__casp_acq_rel(&sp->hot[i], &expect, l)) {
            pthread_mutex_lock(&sp->lock);
            pool_put(l);
            pthread_mutex_unlock(&sp->lock);
        }
    }
    return NULL;
}

/* Park idle loan l in a free hot entry; 0 when all are taken. */
static int hot_park(struct site_priv *sp, struct lf_omp_loan *l)
{
    for (int i = 0; i < SITE_HOT; i++) {
        void *expect = NULL;
        /* acq_rel: every member's work in the handle (ordered before us
         * by loan_leave's count) happens before the next borrower's. */
        if (lf__casp_acq_rel(&sp->hot[i], &expect, l))
            return 1;
    }
    return 0;
}

/* Loan a handle of (spec, nthreads): a hot one, else from the pool under
 * the site lock (made when none is idle). */
static struct lf_omp_loan *loan_take(struct lf_site *site, const char *spec, int nthreads)
{
    if (nthreads < 1)
        nthreads = 1;
    struct site_priv *sp = site_priv(site);
    struct lf_omp_loan *l = hot_take(sp, spec, nthreads);
    if (l)
        return l;
    unsigned spins = 0;
    pthread_mutex_lock(&sp->lock);
    struct pool *p = pool_get(site, sp, spec, nthreads);
    while (!p->idle && p->loaned >= POOL_LOANED_MAX) {
        /* A pool with loans out is never recycled, so p stays valid. */
        pthread_mutex_unlock(&sp->lock);
        lf__backoff(&spins);
        if ((l = hot_take(sp, spec, nthreads)) != NULL)
            return l;
        pthread_mutex_lock(&sp->lock);
    }
    l = p->idle;
    if (l)
        p->idle = l->next_idle;
    else
        l = loan_make(site, sp, p);
    p->loaned++;
    p->used = ++sp->loans;
    pthread_mutex_unlock(&sp->lock);
    return l;
}

/* The loan a tiny entry's team met for in lf_omp_light_begin, kept for
 * this member's next call of lf_omp_team_loan or lf_omp_loan_get for
 * the same site (the loop's entry), so that the team meets once; dropped
 * at lf_omp_enter and at the next lf_omp_light_begin. */
static _Thread_local struct {
    struct lf_site *site;
    lf_omp_loan *loan;
} met_loan;

static lf_omp_loan *take_met_loan(struct lf_site *site, int nthreads)
{
    lf_omp_loan *l = met_loan.site == site ? met_loan.loan : NULL;
    met_loan.site = NULL;
    met_loan.loan = NULL;
    return l && l->nthreads == nthreads ? l : NULL;
}

lf_omp_loan *lf_omp_loan_get(struct lf_site *site, const char *spec, int nthreads)
{
    /* The team met in lf_omp_light_begin: its loan (no second loan). */
    struct lf_omp_loan *l = take_met_loan(site, nthreads);
    if (!l)
        l = loan_take(site, spec, nthreads);
    /* Release: the handle as the borrower found it (made, or returned by the
     * last team) is visible to the members it hands the loan to, whatever
     * carries the pointer (`omp single copyprivate`, a runtime's own
     * broadcast).  A team of one hands it to nobody; lf_omp_meet publishes
     * by its own CAS. */
    if (nthreads > 1)
        lf__fetch_add_acq_rel(&l->handoff, 1);
    return l;
}

lf_loop *lf_omp_loan_loop(const lf_omp_loan *loan)
{
    if (!loan)
        return NULL;
    /* Acquire: pairs with the borrower's release in lf_omp_loan_get. */
    (void)lf__load_acquire(&loan->handoff);
    return loan->loop;
}

/* The member's part of giving a loan back: the last of the team's members
 * finishes the execution (the handle's only count of exits) and returns
 * the handle. */
static void loan_leave(struct lf_site *site, lf_omp_loan *l)
{
    /* acq_rel: every member's work in the handle happens before the last
     * one finishes the execution and returns it, and so before the next
     * borrower's. */
    if (l->nthreads > 1) { /* a team of one has nobody to count */
        if (lf__fetch_add_acq_rel(&l->left, 1) + 1 < (uint64_t)l->nthreads)
            return;
        lf__store_relaxed(&l->left, 0); /* published by hot_park's CAS or the unlock */
    }
    lf__loop_finish(l->loop);
    if (l->tiny) {
        /* An execution a tiny entry sent here: what the handle's DEALT
         * executions measured is what the entry decides the next ones by. */
        union {
            double d;
            uint64_t u;
        } ns = {lf__loop_team_ns(l->loop)};
        lf__store_relaxed(&l->tiny->tiny_ns, ns.u);
        l->tiny = NULL;
    }
    struct site_priv *sp = site_priv(site);
    if (hot_park(sp, l))
        return;
    pthread_mutex_lock(&sp->lock);
    pool_put(l);
    pthread_mutex_unlock(&sp->lock);
}

#define MEET_BUSY ((void *)1)

lf_omp_loan *lf_omp_meet(void *block, struct lf_site *site, const char *spec, int nthreads)
{
    lf__aptr *slot = block;
    void *cur = lf__loadp_acquire(slot);
    if (cur == NULL) {
        void *expect = NULL;
        /* acq_rel: the winner alone loans; a loser sees who won. */
        if (lf__casp_acq_rel(slot, &expect, MEET_BUSY)) {
            lf_omp_loan *l = loan_take(site, spec, nthreads);
            cur = MEET_BUSY;
            /* acq_rel: publish the loan (its handle is initialised) to the
             * members waiting below. */
            lf__casp_acq_rel(slot, &cur, l);
            return l;
        }
        cur = expect;
    }
    unsigned spins = 0;
    while (cur == MEET_BUSY) {
        lf__wait_brief(&spins); /* the borrowing member is taking (or making) a handle */
        cur = lf__loadp_acquire(slot);
    }
    return cur;
}

/* libgomp's GOMP_loop_start (GCC >= 9) and GOMP_loop_end_nowait, when
 * libgomp is the runtime; NULL under libomp, whose GOMP_loop_start has no
 * work-share memory. */
typedef bool (*gomp_start_fn)(long, long, long, long, long, long *, long *, uintptr_t *, void **);
static gomp_start_fn gomp_loop_start;
static void (*gomp_loop_end_nowait)(void);
static pthread_once_t gomp_once = PTHREAD_ONCE_INIT;

static void find_gomp(void)
{
    if (dlsym(RTLD_DEFAULT, "__kmpc_fork_call"))
        return;
    gomp_loop_start = (gomp_start_fn)dlsym(RTLD_DEFAULT, "GOMP_loop_start");
    gomp_loop_end_nowait = (void (*)(void))dlsym(RTLD_DEFAULT, "GOMP_loop_end_nowait");
    if (!gomp_loop_end_nowait)
        gomp_loop_start = NULL;
}

lf_omp_loan *lf_omp_team_loan(struct lf_site *site, const char *spec, int nthreads)
{
    /* The team met in lf_omp_light_begin already: no second meeting. */
    struct lf_omp_loan *met = take_met_loan(site, nthreads);
    if (met)
        return met;
    pthread_once(&gomp_once, find_gomp);
    if (!gomp_loop_start)
        return NULL;
    /* An empty static work share of the team's: its memory is a zeroed block
     * that this team's members alone share until the last of them ends it. */
    void *mem = (void *)(uintptr_t)sizeof(lf__aptr);
    long s, e;
    gomp_loop_start(0, 0, 1, 1 /* GFS_STATIC */, 0, &s, &e, NULL, &mem);
    lf_omp_loan *l = lf_omp_meet(mem, site, spec, nthreads);
    gomp_loop_end_nowait();
    return l;
}

/* The published entry of (spec, nthreads), or NULL; *unused: the first
 * free entry (SITE_LIGHT when none is). */
static struct light_entry *light_scan(struct site_priv *sp, const char *spec, int nthreads,
                                      int *unused)
{
    int i;
    for (i = 0; i < SITE_LIGHT; i++) {
        /* Acquire: a published entry is complete. */
        struct light_entry *e = lf__loadp_acquire(&sp->light[i]);
        if (!e)
            break;
        if (same_key(e->spec, e->nthreads, spec, nthreads))
            return e;
    }
    *unused = i;
    return NULL;
}

/* The entry of (spec, nthreads), made when missing; NULL when the site's
 * entries are all taken by other pairs. */
static struct light_entry *light_find(struct lf_site *site, struct site_priv *sp, const char *spec,
                                      int nthreads)
{
    int i;
    struct light_entry *found = light_scan(sp, spec, nthreads, &i);
    if (found || i == SITE_LIGHT)
        return found;
    pthread_mutex_lock(&sp->lock);
    found = light_scan(sp, spec, nthreads, &i); /* entries are added under the lock */
    if (!found && i < SITE_LIGHT) {
        struct light_entry *e = aligned_alloc(LF__CACHELINE, sizeof *e);
        if (!e)
            out_of_memory(site);
        memset(e, 0, sizeof *e);
        if (spec && !(e->spec = strdup(spec)))
            out_of_memory(site);
        e->nthreads = nthreads;
        atomic_init(&e->tiny_ns, 0);
        atomic_init(&e->tiny_runs, 0);
        lf_schedule *parsed = NULL;
        char err[256];
        const lf_schedule *sched = spec ? NULL : lf_schedule_default();
        /* A spec that does not parse loans a handle, whose pool reports it. */
        if (spec && lf_schedule_parse(spec, &parsed, err, sizeof err) == 0)
            sched = parsed;
        pthread_once(&gomp_once, find_gomp);
        e->light = sched && lf__light_ok(&sched->s, nthreads) && (nthreads == 1 || gomp_loop_start);
        /* Tiny executions without a handle, where the team can meet (libgomp). */
        e->tiny = sched && !e->light && gomp_loop_start && lf__light_tiny_ok(&sched->s, nthreads);
        e->sched = e->light || e->tiny ? sched : NULL;
        if (!e->sched)
            lf_schedule_free(parsed);
        void *expect = NULL; /* free: entries are only added under the lock */
        /* acq_rel: the entry is complete before it can be found. */
        lf__casp_acq_rel(&sp->light[i], &expect, e);
        found = e;
    }
    pthread_mutex_unlock(&sp->lock);
    return found;
}

/* A digest of a loop's bounds, never 0: members whose bounds differ from
 * the first one's see another digest (a collision is a 2^-64 chance). */
static uint64_t bounds_key(uint64_t n, long lo, long incr)
{
    uint64_t h = n * 0x9e3779b97f4a7c15ULL;
    h = (h ^ (h >> 31) ^ (uint64_t)lo) * 0xbf58476d1ce4e5b9ULL;
    h = (h ^ (h >> 29) ^ (uint64_t)incr) * 0x94d049bb133111ebULL;
    return (h ^ (h >> 32)) | 1;
}

/* What a team that runs a loop without a handle shares: the zeroed memory
 * of the work share it met in. */
struct light_shared {
    lf__au64 next; /* the claim counter */
    lf__au64 key;  /* bounds_key of the first member's bounds */
    /* A tiny entry's decision, by the member whose key was first: NULL
     * while undecided, RUN_TINY, or the loan the execution runs in. */
    lf__aptr loan;
};
#define RUN_TINY ((void *)1)

/* The first member of a tiny entry's team (its bounds' key was first)
 * decides for everyone: a tiny execution (the fixed chunk, counted in the
 * entry), or one in a loan, whose handle is told that it is not tiny and
 * runs the plan its own selection gives (with the split blocks and loans
 * that a handle-free instance does not have). */
static void *tiny_decide(struct lf_site *site, struct light_entry *e, const char *spec,
                         int nthreads, uint64_t n)
{
    union {
        uint64_t u;
        double d;
    } ns = {lf__load_relaxed(&e->tiny_ns)};
    /* Relaxed: teams of the same site that decide at once may lose a count,
     * which only moves the next recheck. */
    uint64_t runs = lf__load_relaxed(&e->tiny_runs);
    int tiny = lf__exec_tiny_due(&e->sched->s, nthreads, ns.d, (unsigned)runs, n);
    lf__store_relaxed(&e->tiny_runs, tiny ? runs + 1 : 0);
    if (tiny)
        return RUN_TINY;
    lf_omp_loan *l = loan_take(site, spec, nthreads);
    l->tiny = e;
    lf__loop_skip_tiny(l->loop);
    return l;
}

int lf_omp_light_begin(struct lf_site *site, const char *spec, int nthreads, int tid, long lo,
                       long hi, long incr, struct lf_omp_light *storage)
{
    met_loan.site = NULL;
    met_loan.loan = NULL;
    if (incr == 0 || nthreads < 1 || tid < 0 || tid >= nthreads)
        return 0; /* lf_omp_enter reports what it cannot run */
    struct light_entry *e = light_find(site, site_priv(site), spec, nthreads);
    /* A tiny entry meets its team here (and decides) only for sites with no
     * flags: monotonic order and OpenMP's guided bound are a handle's rules,
     * which tiny executions leave out. */
    int tiny = e && e->tiny && nthreads > 1 && site->flags == 0;
    if (!e || (!e->light && !tiny))
        return 0;
    struct lf__light *lt = (struct lf__light *)storage;
    uint64_t n = lf_trip_count(lo, hi, incr, NULL), fixed = 0;
    lf__au64 *next = NULL;
    lt->met = 0;
    if (nthreads > 1) {
        /* An empty static work share of the team's, held open until the
         * member leaves the loop: its zeroed memory is the team's alone. */
        void *mem = (void *)(uintptr_t)sizeof(struct light_shared);
        long s, end;
        gomp_loop_start(0, 0, 1, 1 /* GFS_STATIC */, 0, &s, &end, NULL, &mem);
        lt->met = 1;
        struct light_shared *sh = mem;
        /* A CAS, not a read first: it takes the line the member's first
         * claim needs anyway in one transfer (lf__counter_cas). */
        uint64_t mine = bounds_key(n, lo, incr), seen = 0;
        int first = lf__cas_acq_rel(&sh->key, &seen, mine);
        if (first)
            seen = mine;
        if (seen != mine) {
            report_once(site, REPORT_BOUNDS,
                        "thread %d entered with bounds (%ld, %ld, step %ld) that differ from its "
                        "team's: every member must give the same bounds; this thread runs none of "
                        "the loop's iterations",
                        tid, lo, hi, incr);
            n = 0; /* joined, so that it leaves the work share: runs nothing */
        }
        next = &sh->next;
        if (tiny) {
            void *how;
            if (first) {
                how = tiny_decide(site, e, spec, nthreads, n);
                /* Release: the loan as its borrower left it (told that this
                 * execution is not tiny) is visible to the members that read it. */
                lf__storep_release(&sh->loan, how);
            } else {
                unsigned spins = 0;
                /* Acquire: pairs with the decider's release. */
                while ((how = lf__loadp_acquire(&sh->loan)) == NULL)
                    lf__wait_brief(&spins); /* the first member decides */
            }
            if (how != RUN_TINY) {
                /* Timed, in a loan: the work share has done its part. */
                gomp_loop_end_nowait();
                lt->met = 0;
                met_loan.site = site;
                met_loan.loan = how;
                return 0;
            }
            /* The decider's chunk, from its trip count: equal bounds,
             * equal n (a member whose bounds differ runs nothing). */
            fixed = lf__exec_tiny_size(nthreads, n);
        }
    }
    lf__light_start(lt, &e->sched->s, nthreads, tid, (site->flags & LF_SITE_GUIDED_CAP) != 0, lo,
                    incr, n, next);
    lt->fixed = fixed;
    return 1;
}

int lf_omp_light_next(struct lf_omp_light *storage, long *first, unsigned long *count)
{
    return lf__light_next((struct lf__light *)storage, first, count);
}

void lf_omp_light_end(struct lf_omp_light *storage)
{
    if (((struct lf__light *)storage)->met)
        gomp_loop_end_nowait();
}

/* What is wrong with a data description that lf_loop_begin_data refused. */
static const char *data_fault(const struct lf_data *d, unsigned long n, char *buf, size_t len)
{
    if (d->ninputs < 0 || d->ninputs > LF_MAX_INPUTS)
        snprintf(buf, len, "ninputs = %d, expected 0..%d", d->ninputs, LF_MAX_INPUTS);
    else if (d->nhome < 0)
        snprintf(buf, len, "nhome = %d, expected >= 0", d->nhome);
    else if (d->home && d->nhome > 0 && (d->home[0] != 0 || d->home[d->nhome] != n))
        snprintf(buf, len, "home[0] = %lu and home[nhome] = %lu, expected 0 and the trip count %lu",
                 d->home[0], d->home[d->nhome], n);
    else
        snprintf(buf, len,
                 "expected every input to have a base, size >= 1, stride >= 1 and halo >= 0 "
                 "(or a span function), ascending home ranges, and at most %d of them",
                 LF__MAXDOM);
    return buf;
}

lf_loop *lf_omp_enter(struct lf_site *site, lf_omp_loan *loan, int tid, long lo, long hi, long incr,
                      const struct lf_data *data)
{
    lf_loop *loop = lf_omp_loan_loop(loan);
    met_loan.site = NULL; /* whatever was met for this loop is in use now */
    met_loan.loan = NULL;
    if (incr == 0) {
        report_once(site, REPORT_INCR,
                    "loop increment 0: no iteration can be stepped to, so the loop does not "
                    "run (expected a nonzero increment)");
        return NULL;
    }
    int rc = lf_loop_begin_data(loop, tid, lo, hi, incr, data);
    if (rc == -EINVAL && data) {
        /* Keep the inputs when only the home ranges are wrong. */
        struct lf_data inputs_only = *data;
        inputs_only.home = NULL;
        inputs_only.nhome = 0;
        inputs_only.learn = 0;
        char why[256];
        data_fault(data, lf_trip_count(lo, hi, incr, NULL), why, sizeof why);
        rc = lf_loop_begin_data(loop, tid, lo, hi, incr, &inputs_only);
        int kept = rc != -EINVAL;
        if (!kept)
            rc = lf_loop_begin_data(loop, tid, lo, hi, incr, NULL);
        report_once(site, REPORT_DATA, "malformed struct lf_data (%s); running the loop %s", why,
                    kept || !data->ninputs ? "without locality"
                                           : "without locality or staging (LF_IN reads in place)");
    }
    if (rc == -ERANGE) {
        report_once(site, REPORT_BOUNDS,
                    "thread %d entered with bounds (%ld, %ld, step %ld) that differ from its "
                    "team's: every member must give the same bounds; this thread runs none of "
                    "the loop's iterations",
                    tid, lo, hi, incr);
        return NULL;
    }
    if (rc != 0) {
        report_once(site, REPORT_BOUNDS, "thread %d could not enter the loop (error %d)", tid, rc);
        return NULL;
    }
    return loop;
}

void lf_omp_exit(struct lf_site *site, lf_omp_loan *loan, lf_loop *loop, int tid)
{
    if (loop)
        lf_loop_end(loop, tid);
    if (loan)
        loan_leave(site, loan);
}
