/* lib/omp/team.c - how the members of an OpenMP team find their loop handle.
 *
 * OpenMP gives a team no identity a library can see, so a team is named by
 * what its members can all compute without talking: the call site, the team
 * size, the chain of ancestor thread numbers (unique among the teams running
 * at one time) and the schedule spec.  Each site keeps a lock-free list of
 * the handles it has made; entries are pushed with a CAS and never removed,
 * so a lookup is a scan of immutable keys.  A team that runs the site again
 * (a later parallel region with the same shape) finds the same handle, whose
 * members have entered it equally often, because OpenMP requires every
 * member of a team to meet every worksharing loop.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"

#define LF__MAXPATH 16

struct team_entry {
    struct team_entry *next;
    int nthreads, depth;
    int path[LF__MAXPATH];
    char *spec; /* NULL: LF_SCHEDULE */
    lf_loop *loop;
};

struct site_priv {
    lf__aptr head; /* struct team_entry * */
};

static int same_key(const struct team_entry *e, const char *spec, int nthreads, const int *path,
                    int depth)
{
    if (e->nthreads != nthreads || e->depth != depth)
        return 0;
    if ((e->spec == NULL) != (spec == NULL) || (spec && strcmp(e->spec, spec) != 0))
        return 0;
    return memcmp(e->path, path, (size_t)depth * sizeof *path) == 0;
}

static struct team_entry *find(struct site_priv *sp, const char *spec, int nthreads,
                               const int *path, int depth)
{
    /* Acquire: an entry's key and handle were written before its push. */
    for (struct team_entry *e = lf__loadp_acquire(&sp->head); e; e = e->next)
        if (same_key(e, spec, nthreads, path, depth))
            return e;
    return NULL;
}

/* Report a bad spec once per process and spec text. */
static void report_bad_spec(const struct lf_site *site, const char *spec, const char *err)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char seen[16][128];
    static int nseen;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nseen; i++)
        if (strncmp(seen[i], spec, sizeof seen[i] - 1) == 0) {
            pthread_mutex_unlock(&lock);
            return;
        }
    if (nseen < 16)
        snprintf(seen[nseen++], sizeof seen[0], "%s", spec);
    fprintf(stderr, "loopfarm: %s:%d: schedule \"%s\": %s; running the loop under \"dynamic\"\n",
            site->file ? site->file : "?", site->line, spec, err);
    pthread_mutex_unlock(&lock);
}

static _Noreturn void out_of_memory(const struct lf_site *site)
{
    fprintf(stderr, "loopfarm: %s:%d: out of memory creating a loop handle\n",
            site->file ? site->file : "?", site->line);
    abort();
}

lf_loop *lf_omp_team_loop(struct lf_site *site, const char *spec, int nthreads, const int *path,
                          int depth)
{
    if (nthreads < 1)
        nthreads = 1;
    if (depth > LF__MAXPATH)
        depth = LF__MAXPATH;
    if (depth < 0)
        depth = 0;
    /* Acquire: a published site_priv is initialised (plain pointer in the
     * public struct so that C++ can include it; the builtins are atomic). */
    struct site_priv *sp = __atomic_load_n(&site->priv, __ATOMIC_ACQUIRE);
    if (!sp) {
        struct site_priv *mine = calloc(1, sizeof *mine);
        void *expect = NULL;
        if (!mine)
            out_of_memory(site);
        if (__atomic_compare_exchange_n(&site->priv, &expect, mine, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            sp = mine;
        else {
            free(mine);
            sp = expect;
        }
    }
    struct team_entry *e = find(sp, spec, nthreads, path, depth);
    if (e)
        return e->loop;

    /* First member of this team here: build a handle and push it. */
    e = calloc(1, sizeof *e);
    if (!e)
        out_of_memory(site);
    e->nthreads = nthreads;
    e->depth = depth;
    memcpy(e->path, path, (size_t)depth * sizeof *path);
    e->spec = spec ? strdup(spec) : NULL;
    lf_schedule *sched = NULL;
    if (spec) {
        char err[512];
        if (lf_schedule_parse(spec, &sched, err, sizeof err) != 0) {
            report_bad_spec(site, spec, err);
            if (lf_schedule_parse("dynamic", &sched, err, sizeof err) != 0)
                out_of_memory(site);
        }
    }
    char name[128];
    const char *base = site->file ? strrchr(site->file, '/') : NULL;
    snprintf(name, sizeof name, "%s:%d", base ? base + 1 : (site->file ? site->file : "?"),
             site->line);
    if ((spec && !e->spec) || lf_loop_create(&e->loop, nthreads, sched, name) != 0)
        out_of_memory(site);
    lf_schedule_free(sched);

    void *head = lf__loadp_acquire(&sp->head);
    for (;;) {
        /* Another member of the same team may have pushed first: use its. */
        for (struct team_entry *o = head; o; o = o->next)
            if (same_key(o, spec, nthreads, path, depth)) {
                lf_loop_destroy(e->loop);
                free(e->spec);
                free(e);
                return o->loop;
            }
        e->next = head;
        /* acq_rel: the entry is complete before anyone can reach it. */
        if (lf__casp_acq_rel(&sp->head, &head, e))
            return e->loop;
    }
}
