/* lib/sim/team.c - two levels: ranks whose teams of threads share each
 * rank chunk, as lib/mpi/ runs a loop across MPI ranks.
 *
 * The rank level is the pull engine (engine.c) with a rank as its worker:
 * it claims rank chunks from the loop's counter under the rank schedule,
 * paying its claim, staging and compute latency.  A rank chunk is then a
 * nested run of the same engine (lf__sim_run) over the chunk's iterations,
 * on a platform of the rank's threads under the node schedule: the node
 * level is the same executor protocol, not a second copy of it.  What the
 * two levels share is what lib/mpi/team.c's threads share:
 *
 * - a thread enters rank chunk k + 1 when it has left chunk k (its last
 *   chunk of k ended, or it found k's sub-loop empty or was stopped), so
 *   a nested run's workers join at their own times (the engine's start
 *   delays);
 * - the rank claims chunk k + 1 when its first thread leaves chunk k (the
 *   others may still compute k), but not while LF__SIM_TEAM_RING chunks
 *   are in flight; the rank level hears of chunk k then, its compute time
 *   the span from staging to the team's last thread out;
 * - the sub-loops of a rank are the executions of one loop handle: what
 *   the node schedule learns (call-site memory, lf__exec_start and
 *   lf__exec_mem_end) carries from one rank chunk to the next.
 *
 * A team of one thread computes its rank chunk as one chunk, so that one
 * thread per rank is the one-level model of a rank exactly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim/engine.h"

/* Thread j's speed in rank w's team. */
static double thread_speed(const struct lf__sim_worker *w, int j)
{
    return w->ntl > 0 ? w->tl[j % w->ntl] : w->tspeed;
}

int lf__sim_teams_init(struct sim *S, char *err, size_t errlen)
{
    const struct lf__sim_platform *pf = S->pf;
    const struct lf__sched *node = S->o->node;
    int P = pf->nworkers, Tmax = 1;
    size_t all = 0;
    for (int i = 0; i < P; i++) {
        int T = pf->w[i].threads;
        if (T < 1 || T > LF__SIM_MAX_THREADS) {
            snprintf(err, errlen, "rank %d: %d threads, expected 1 to %d", i, T,
                     LF__SIM_MAX_THREADS);
            return -EINVAL;
        }
        Tmax = T > Tmax ? T : Tmax;
        all += (size_t)T;
    }
    int memo = !S->o->known && node->memory && lf__exec_mem_wanted(node, Tmax);
    /* One pool: every thread's availability, then (with memory) its ns
     * per iteration, calibration chunk and affine costs. */
    size_t per =
        sizeof(double) + (memo ? sizeof(double) + sizeof(uint64_t) + 3 * sizeof(double) : 0);
    S->teams = calloc((size_t)P, sizeof *S->teams);
    S->tw = calloc((size_t)Tmax, sizeof *S->tw);
    S->mems = memo ? calloc((size_t)P, sizeof *S->mems) : NULL;
    S->tpool = calloc(all ? all : 1, per);
    if (!S->teams || !S->tw || (memo && !S->mems) || !S->tpool) {
        snprintf(err, errlen, "out of memory for %zu threads", all);
        return -ENOMEM;
    }
    double *avail = S->tpool, *ipt = NULL, (*cost)[3] = NULL;
    uint64_t *cal = NULL;
    if (memo) {
        ipt = avail + all;
        cost = (double(*)[3])(ipt + all);
        cal = (uint64_t *)(cost + all);
    }
    for (int i = 0; i < P; i++) {
        struct team *tm = &S->teams[i];
        int T = pf->w[i].threads;
        tm->avail = avail;
        avail += T;
        if (memo) {
            tm->mem = &S->mems[i];
            *tm->mem = (struct lf__site_mem){.ipt = ipt, .cal = cal, .cost = cost};
            ipt += T;
            cal += T;
            cost += T;
        }
    }
    return 0;
}

void lf__sim_teams_free(struct sim *S)
{
    free(S->teams);
    free(S->tw);
    free(S->mems);
    free(S->tpool);
    S->teams = NULL;
}

/* The nested run's chunks as the loop's: rank and iteration. */
struct relay {
    const struct lf__sim_opts *o;
    int rank;
    uint64_t base;
};

static void relay_chunk(void *ctx, const struct lf__sim_chunk *c)
{
    const struct relay *r = ctx;
    struct lf__sim_chunk g = *c;
    g.lo += r->base;
    r->o->on_tchunk(r->o->ctx, r->rank, &g);
}

int lf__sim_team_chunk(struct sim *S, int i, double t0, uint64_t lo, uint64_t c, double *end,
                       double *next, char *err, size_t errlen)
{
    const struct lf__sim_worker *w = &S->pf->w[i];
    const struct lf__sim_opts *o = S->o;
    struct team *tm = &S->teams[i];
    struct lf__sim_wres *rw = &S->res->w[i];
    int T = w->threads;
    if (T == 1) {
        /* One thread: the rank chunk is its one chunk (the rank's speed and
         * profile are its thread's). */
        double ts = tm->avail[0] > t0 ? tm->avail[0] : t0;
        double work = lf__sim_work(S->wl, S->base + lo, S->base + lo + c);
        *end = *next = lf__sim_work_end(S, i, ts + w->tlatency, work);
        tm->avail[0] = *end;
        rw->tbusy += *end - ts;
        rw->tuseful += *end - ts - (*end - ts < w->tlatency ? *end - ts : w->tlatency);
        rw->tchunks++;
        S->res->tchunks++;
        if (o->on_tchunk)
            o->on_tchunk(o->ctx, i,
                         &(struct lf__sim_chunk){.seq = tm->k,
                                                 .start = ts,
                                                 .stage_end = ts,
                                                 .end = *end,
                                                 .lo = S->base + lo,
                                                 .size = c,
                                                 .order = tm->k,
                                                 .home = -1});
    } else {
        for (int j = 0; j < T; j++)
            S->tw[j] = (struct lf__sim_worker){.speed = thread_speed(w, j),
                                               .latency = w->tlatency,
                                               .nseg = w->nseg,
                                               .prof = w->prof,
                                               .start = tm->avail[j] > t0 ? tm->avail[j] : t0};
        struct lf__sim_platform team = {.nworkers = T, .w = S->tw};
        struct lf__sim_workload sub = *S->wl;
        sub.base = S->base + lo;
        sub.span = c;
        struct relay rl = {.o = o, .rank = i, .base = sub.base};
        struct lf__sim_opts so = {.claim_ns = o->thread_claim_ns,
                                  .known = o->known,
                                  .mem = tm->mem,
                                  .origin = t0,
                                  .on_chunk = o->on_tchunk ? relay_chunk : NULL,
                                  .ctx = &rl};
        struct lf__sim_result r;
        int rc = lf__sim_run(&team, o->node, &sub, &so, &r, err, errlen);
        if (rc)
            return rc;
        *end = r.makespan > t0 ? r.makespan : t0;
        *next = *end;
        for (int j = 0; j < T; j++) {
            /* It left when it found nothing (or stopped), else after its
             * last chunk; a thread that never got to the chunk is as free
             * as before. */
            double out = r.w[j].left > r.w[j].end ? r.w[j].left : r.w[j].end;
            out = out > S->tw[j].start ? out : S->tw[j].start;
            tm->avail[j] = out;
            *next = out < *next ? out : *next;
            rw->tbusy += r.w[j].busy;
            rw->tuseful += r.w[j].useful;
        }
        rw->tchunks += r.chunks;
        S->res->tchunks += r.chunks;
        S->res->tcalib_chunks += r.calib_chunks;
        S->res->tplans[r.plan]++;
        S->res->events += r.events;
        lf__sim_result_free(&r);
    }
    /* At most LF__SIM_TEAM_RING rank chunks in flight: chunk k + 1 waits
     * for chunk k + 1 - ring. */
    tm->ends[tm->k % LF__SIM_TEAM_RING] = *end;
    tm->k++;
    if (tm->k >= LF__SIM_TEAM_RING && tm->ends[tm->k % LF__SIM_TEAM_RING] > *next)
        *next = tm->ends[tm->k % LF__SIM_TEAM_RING];
    return 0;
}
