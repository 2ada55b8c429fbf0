/* lib/mpi/rank.c - one rank's side of a loop instance across ranks: entry,
 * the claim of a rank chunk, the chunk's completion, exit.
 *
 * The rules around the policy are lib/exec/'s; what this file adds is
 * where the words are: the claim counter, the phase and the reports are in
 * the host window (window.c) and change by one network atomic each; a
 * rank's statistics are written by the rank into its own local slot (by
 * lf__exec_chunk_done) and published to the host with one MPI_Accumulate
 * per chunk, and the others' are read back before a claim, only when the
 * policy reads measured times.  Each rank keeps its own copy of the
 * policy's state; start() and calibrated() see the same numbers on every
 * rank (the trip count and team size; the calibration reports, all in
 * before the phase changes), so the ranks plan alike.
 *
 * Owner-first (a loop whose data ranks own): the claim variant is lib/exec's
 * domain claim, a rank's block its domain.  A rank claims its own block from
 * the front, then the back of the block with the most left, sized by the
 * policy, by lib/exec's domain rule and by whether the fetch pays
 * (lf__exec_fetch_size, from the affine costs this rank measured and the
 * owner's published rate); when it does not, the rank waits for the owner
 * rather than leave (an owner may still leave early, and then its block is
 * the others').
 */
#include "config.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "mpi/mpi.h"

/* Wait politely for another rank (a waiting rank may share a core with the
 * one it waits for). */
static void backoff(unsigned *spins)
{
    if (++*spins > 16)
        sched_yield();
}

static MPI_Aint ctl(const struct lf__mpi_rank *r, int k)
{
    return lf__mpi_ctl(&r->win, r->slot, k);
}

int lf__mpi_rank_init(struct lf__mpi_rank *r, MPI_Comm comm, const struct lf__sched *s, int master)
{
    memset(r, 0, sizeof *r);
    int rc = lf__mpi_win_open(&r->win, comm);
    if (rc)
        return rc;
    r->sched = *s;
    int P = r->win.P;
    r->w = aligned_alloc(64, (size_t)P * sizeof *r->w);
    r->cal0 = calloc((size_t)P, sizeof *r->cal0);
    r->mem.ipt = calloc((size_t)P, sizeof *r->mem.ipt);
    r->mem.cal = calloc((size_t)P, sizeof *r->mem.cal);
    r->mem.cost = calloc((size_t)P, sizeof *r->mem.cost);
    r->blk = calloc((size_t)P, sizeof *r->blk);
    r->blk_rem = calloc((size_t)P, sizeof *r->blk_rem);
    r->use_mem = !master && r->sched.memory && lf__exec_mem_wanted(&r->sched, P);
    int ok = r->w && r->cal0 && r->mem.ipt && r->mem.cal && r->mem.cost && r->blk && r->blk_rem,
        all;
    if (ok && master)
        ok = lf__mpi_master_init(r) == 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        lf__mpi_rank_free(r);
        return -ENOMEM;
    }
    r->view.w = r->w;
    r->view.nworkers = P;
    r->ex = (struct lf__exec){.sched = &r->sched, .pstate = r->pstate, .view = &r->view};
    return 0;
}

void lf__mpi_rank_free(struct lf__mpi_rank *r)
{
    if (r->master)
        lf__mpi_master_free(r);
    lf__mpi_win_close(&r->win);
    free(r->w);
    free(r->cal0);
    free(r->mem.ipt);
    free(r->mem.cal);
    free(r->mem.cost);
    free(r->blk);
    free(r->blk_rem);
}

/* The slot's memory from the host into r->mem (words as doubles). */
static void mem_read(struct lf__mpi_rank *r)
{
    int P = r->win.P, n = 1 + P * LF__MPI_MEM_WORDS;
    uint64_t *buf = malloc((size_t)n * sizeof *buf);
    if (!buf) {
        r->mem.valid = 0; /* no memory this time: the instance calibrates */
        return;
    }
    lf__mpi_get_block(&r->win, lf__mpi_mem(&r->win, r->slot), n, buf);
    r->mem.valid = buf[0] != 0;
    for (int j = 0; j < P; j++) {
        const uint64_t *m = buf + 1 + j * LF__MPI_MEM_WORDS;
        memcpy(&r->mem.ipt[j], &m[0], sizeof(double));
        r->mem.cal[j] = m[1];
        memcpy(r->mem.cost[j], &m[2], 3 * sizeof(double));
    }
    free(buf);
}

/* r->mem back to the slot's memory on the host. */
static void mem_write(struct lf__mpi_rank *r)
{
    int P = r->win.P, n = 1 + P * LF__MPI_MEM_WORDS;
    uint64_t *buf = malloc((size_t)n * sizeof *buf);
    if (!buf)
        return; /* the slot keeps its older memory */
    buf[0] = (uint64_t)r->mem.valid;
    for (int j = 0; j < P; j++) {
        uint64_t *m = buf + 1 + j * LF__MPI_MEM_WORDS;
        memcpy(&m[0], &r->mem.ipt[j], sizeof(double));
        m[1] = r->mem.cal[j];
        memcpy(&m[2], r->mem.cost[j], 3 * sizeof(double));
    }
    lf__mpi_put_block(&r->win, lf__mpi_mem(&r->win, r->slot), n, buf);
    free(buf);
}

/* Publish this rank's statistics slot to the host (its owner's write). */
static void publish(struct lf__mpi_rank *r)
{
    int me = r->win.rank;
    lf__mpi_put_block(&r->win, lf__mpi_stat(&r->win, r->slot, me), (int)LF__MPI_WSTAT_WORDS,
                      (const uint64_t *)&r->w[me]);
}

/* Read the other ranks' statistics from the host into the local view. */
static void refresh(struct lf__mpi_rank *r)
{
    int me = r->win.rank, P = r->win.P;
    struct lf__wstat own = r->w[me];
    lf__mpi_get_block(&r->win, lf__mpi_stat(&r->win, r->slot, 0), P * (int)LF__MPI_WSTAT_WORDS,
                      (uint64_t *)r->w);
    r->w[me] = own;
}

/* How far claims may go: the trip count, or what a stream has so far. */
static uint64_t limit(const struct lf__mpi_rank *r)
{
    return r->stream ? lf__mpi_get(&r->win, ctl(r, LF__MW_AVAIL)) : r->n;
}

/* Owner-first: read every block word into r->blk and what each block has
 * left into r->blk_rem; returns what all have left. */
static uint64_t blk_read(struct lf__mpi_rank *r)
{
    int P = r->win.P;
    uint64_t all = 0;
    lf__mpi_get_block(&r->win, lf__mpi_blk(&r->win, r->slot, 0), P, r->blk);
    for (int j = 0; j < P; j++) {
        uint64_t taken = (r->blk[j] & LF__MPI_BLK_MAX) + (r->blk[j] >> 32);
        r->blk_rem[j] = r->home[j + 1] - r->home[j] - taken;
        all += r->blk_rem[j];
    }
    r->served |= (r->blk[r->win.rank] >> 32) != 0;
    return all;
}

int lf__mpi_rank_served(struct lf__mpi_rank *r)
{
    if (!r->served && r->inside && r->loc)
        r->served = lf__mpi_get(&r->win, lf__mpi_blk(&r->win, r->slot, r->win.rank)) >> 32 != 0;
    return r->served;
}

static uint64_t unclaimed(struct lf__mpi_rank *r)
{
    if (r->loc)
        return blk_read(r);
    uint64_t at = lf__mpi_get(&r->win, ctl(r, LF__MW_NEXT)), end = limit(r);
    return at < end ? end - at : 0;
}

/* Policies whose chunk depends only on what is left (and measured
 * times): they can size a stream's chunks. */
static const char *const stream_policies[] = {"as4dr", "dynamic", "guided", "fac2", "af"};

const char *lf__mpi_stream_refused(const struct lf__sched *s)
{
    for (size_t i = 0; i < sizeof stream_policies / sizeof *stream_policies; i++)
        if (strcmp(s->pol->name, stream_policies[i]) == 0)
            return NULL;
    return "a stream's rank schedule must size chunks from what is left: as4dr (with tail=off, "
           "seed 001's rule for streams), dynamic, guided, fac2 or af";
}

/* Wait until slot s is open for instance g. */
static void wait_open(const struct lf__mpi_rank *r, int s, uint64_t g)
{
    unsigned spins = 0;
    while (lf__mpi_get(&r->win, lf__mpi_ctl(&r->win, s, LF__MW_STATE)) != g)
        backoff(&spins);
}

void lf__mpi_stream_append(struct lf__mpi_rank *r, uint64_t g, uint64_t count, int close)
{
    int s = (int)(g % LF__MPI_RING);
    wait_open(r, s, g);
    if (close)
        lf__mpi_put(&r->win, lf__mpi_ctl(&r->win, s, LF__MW_CLOSED), 1);
    else if (count)
        lf__mpi_fadd(&r->win, lf__mpi_ctl(&r->win, s, LF__MW_AVAIL), count);
}

/* Whether the instance with data d runs owner-first (lf__mpi_rank_begin). */
static int owner_first(const struct lf__mpi_rank *r, const struct lf_mpi_data *d)
{
    if (!d || r->master || r->win.P < 2)
        return 0;
    for (int j = 0; j < r->win.P; j++)
        if (d->home[j + 1] - d->home[j] > LF__MPI_BLK_MAX)
            return 0;
    return lf__exec_loc_modes(&r->sched, 1, d->in_elem > 0).loc;
}

int lf__mpi_rank_begin(struct lf__mpi_rank *r, uint64_t n, int stream, uint64_t fp,
                       const struct lf_mpi_data *d)
{
    uint64_t g = r->entered++;
    r->slot = (int)(g % LF__MPI_RING);
    /* The slot is open for g once the last rank out of g - RING reset it. */
    wait_open(r, r->slot, g);
    r->inside = 1;
    r->n = stream ? UINT64_MAX : n;
    r->stream = stream;
    r->stopped = 0;
    r->k = 0;
    r->claims = r->chunks = r->iters = r->staged_iters = 0;
    r->piece = d ? d->piece : 0;
    r->rest_n = r->acc_n = r->acc_busy = 0;
    r->iter_bytes = d ? (uint64_t)d->in_elem + d->out_elem : 0;
    r->stage_peak = 0;
    r->local_chunks = r->remote_chunks = 0;
    r->claim_s = r->busy_s = r->stage_s = 0.0;
    r->homed = d != NULL;
    r->home = d ? d->home : NULL;
    r->loc = owner_first(r, d);
    r->served = !r->loc;
    /* The same data as the previous loop: the same links, the fit goes on. */
    if (!d || d->id != r->costs_data)
        memset(&r->costs, 0, sizeof r->costs);
    r->costs_data = d ? d->id : 0;
    r->t_entry = r->t_prev_end = MPI_Wtime();
    /* The first rank in fixes the bounds and the instance's clock origin. */
    uint64_t seen = lf__mpi_cas(&r->win, ctl(r, LF__MW_FP), 0, fp);
    uint64_t t0 = lf__mpi_cas(&r->win, ctl(r, LF__MW_T0), 0, lf__dbits(r->t_entry));
    r->t_begin = t0 ? lf__bitsd(t0) : r->t_entry;
    memset(r->w, 0, (size_t)r->win.P * sizeof *r->w);
    r->view.n = stream ? 0 : n; /* a stream's size is unknown: its policies read r only */
    r->view.claim_ns = 0.0;
    /* What this slot's loops learned: complete at the host before the slot
     * opened, the same for every rank. */
    int mem = r->use_mem && !stream; /* a stream's chunks are not a loop's */
    if (mem)
        mem_read(r);
    int calib = lf__exec_start(&r->ex, mem ? &r->mem : NULL, r->cal0);
    r->from_memory = r->view.calibrated_from_memory;
    r->calibrating = calib;
    r->run = !calib;
    r->cal_size = r->cal0[r->win.rank];
    /* A stream claims by compare-and-swap: a fetch-and-add could run past
     * the items appended so far. */
    r->kind = stream ? LF__CLAIM_CAS : lf__exec_claim_kind(&r->ex, r->loc, 0, &r->fa_chunk);
    /* Owner-first reads the owners' rates and whether they are gone. */
    r->timed = lf__exec_needs_times(&r->sched, r->win.P) || r->loc;
    if (seen != 0 && seen != fp) {
        lf__mpi_rank_end(r);
        return -ERANGE;
    }
    return 0;
}

/* The team's calibration is in: plan the first round from every rank's
 * report, as the rank that ended it saw the remainder. */
static void enter_run(struct lf__mpi_rank *r)
{
    refresh(r);
    lf__exec_calib_end(&r->ex, lf__mpi_get(&r->win, ctl(r, LF__MW_RCAL)));
    r->run = 1;
}

/* The calibration chunk this rank asks for now, 0 once the first round has
 * begun.  In the paper's mode a rank whose calibration is in waits for the
 * others' (while there is anything left to wait for). */
static uint64_t calibration_want(struct lf__mpi_rank *r)
{
    if (r->run)
        return 0;
    if (lf__mpi_get(&r->win, ctl(r, LF__MW_PHASE)) == 1) {
        enter_run(r);
        return 0;
    }
    if (!r->calibrating && r->sched.cal_paper) {
        unsigned spins = 0;
        while (lf__mpi_get(&r->win, ctl(r, LF__MW_PHASE)) == 0 && unclaimed(r) > 0)
            backoff(&spins);
        if (lf__mpi_get(&r->win, ctl(r, LF__MW_PHASE)) == 1) {
            enter_run(r);
            return 0;
        }
    }
    return r->cal_size;
}

/* Let this rank stop when its policy says the others finish the rest: only
 * while another rank is still active. */
static int try_stop(struct lf__mpi_rank *r)
{
    uint64_t a = lf__mpi_get(&r->win, ctl(r, LF__MW_ACTIVE));
    while (a > 1) {
        uint64_t old = lf__mpi_cas(&r->win, ctl(r, LF__MW_ACTIVE), a, a - 1);
        if (old == a) {
            r->stopped = 1;
            lf__exec_worker_gone(&r->ex, r->win.rank);
            if (r->timed)
                publish(r); /* an owner-first rank waiting on its block sees it gone */
            return 1;
        }
        a = old;
    }
    return 0;
}

/* The size of this rank's claim when rem >= 1 iterations are left: its
 * calibration chunk (want), else the policy's; 0 when the policy stopped
 * the rank. */
static uint64_t size_claim(struct lf__mpi_rank *r, uint64_t want, double now, uint64_t rem)
{
    if (want)
        return lf__exec_clip(&r->ex, want, rem);
    uint64_t c = lf__exec_claim_size(&r->ex, r->win.rank, rem, now);
    if (c == 0 && try_stop(r))
        return 0;
    return c ? c : 1;
}

/* LF__CLAIM_CAS: sized from the remainder the counter shows, then one
 * compare-and-swap; a lost race re-sizes from the value it returned.  A
 * stream's remainder is what was appended and not claimed; when that is
 * nothing, *wait says whether more may come. */
static uint64_t claim_cas(struct lf__mpi_rank *r, uint64_t want, double now, uint64_t *lo,
                          int *wait)
{
    uint64_t cur = lf__mpi_get(&r->win, ctl(r, LF__MW_NEXT));
    /* CLOSED read before AVAIL: once closed, the AVAIL read after it is final. */
    int closed = r->stream && lf__mpi_get(&r->win, ctl(r, LF__MW_CLOSED)) != 0;
    uint64_t end = limit(r);
    *wait = r->stream && !closed && cur >= end;
    while (cur < end) {
        uint64_t c = size_claim(r, want, now, end - cur);
        if (!c)
            return 0;
        uint64_t old = lf__mpi_cas(&r->win, ctl(r, LF__MW_NEXT), cur, cur + c);
        if (old == cur) {
            *lo = cur;
            return c;
        }
        cur = old;
    }
    *wait = r->stream && !closed;
    return 0;
}

/* What this rank knows of a fetch from rank d's block: its own fitted
 * costs (its compute rate in this loop first), and the owner's rate as last
 * published (none once the owner is gone). */
static struct lf__fetch fetch_of(const struct lf__mpi_rank *r, int d)
{
    struct lf__fetch f = {0};
    f.costs = lf__exec_costs_stage(&r->costs, &f.beta, &f.s) == 0;
    f.staged = r->costs.k_staged;
    double alpha;
    if (lf__exec_costs_comp(&r->costs, &alpha, &f.t_self) != 0)
        f.t_self = 0.0;
    if (r->iters)
        f.t_self = r->busy_s * 1e9 / (double)r->iters;
    const struct lf__wstat *o = &r->w[d];
    uint64_t it = lf__word_get(&o->iters);
    if (it && !lf__word_get(&o->stopped))
        f.t_owner = (double)lf__word_get(&o->busy_ns) / (double)it;
    return f;
}

/* LF__CLAIM_DOMAINS (owner-first): this rank's own block from the front
 * while it has any, else the back of the block with the most left
 * (lib/exec's domain pick and chunk), unless the fetch does not pay: then
 * *wait, and r->wait_ns is about what the owner needs.  One
 * compare-and-swap on the block's word; a lost race reads them again. */
static uint64_t claim_blocks(struct lf__mpi_rank *r, uint64_t want, double now, uint64_t *lo,
                             int *wait)
{
    static const struct lf__loc_times fetched; /* every remote chunk is fetched (staging) */
    int me = r->win.rank, P = r->win.P;
    for (;;) {
        uint64_t all = blk_read(r);
        int d = lf__loc_pick(r->blk_rem, P, me);
        if (d < 0)
            return 0;
        uint64_t c = size_claim(r, want, now, all);
        if (!c)
            return 0;
        c = lf__exec_domain_chunk(c, me, d, r->blk_rem[d], 1, P, P, &fetched, 1);
        if (d != me) {
            struct lf__fetch f = fetch_of(r, d);
            c = lf__exec_fetch_size(c, r->blk_rem[d], &f);
            if (!c) {
                r->wait_ns = (double)r->blk_rem[d] * f.t_owner;
                *wait = 1;
                return 0;
            }
        }
        uint64_t front = r->blk[d] & LF__MPI_BLK_MAX, back = r->blk[d] >> 32;
        uint64_t word = d == me ? r->blk[d] + c : r->blk[d] + (c << 32);
        if (lf__mpi_cas(&r->win, lf__mpi_blk(&r->win, r->slot, d), r->blk[d], word) == r->blk[d]) {
            *lo = d == me ? r->home[d] + front : r->home[d + 1] - back - c;
            return c;
        }
    }
}

/* Whether [lo, lo + n) lies in this rank's own block (read in place, not
 * staged). */
static int own_range(const struct lf__mpi_rank *r, uint64_t lo, uint64_t n)
{
    int me = r->win.rank;
    return r->home && r->home[me] <= lo && lo + n <= r->home[me + 1];
}

/* The next piece of the claim being handed out, [rest_lo, rest_lo +
 * rest_n), as *c (handed out at t): what is left, or, while its data must
 * be staged and more than r->piece iterations are left, r->piece of them. */
static int next_piece(struct lf__mpi_rank *r, double t, struct lf__mpi_chunk *c)
{
    uint64_t k = r->rest_n;
    if (r->piece && k > r->piece && !own_range(r, r->rest_lo, k))
        k = r->piece;
    r->chunks++;
    *c = (struct lf__mpi_chunk){
        .lo = r->rest_lo, .n = k, .t_claim = t, .calib = r->rest_calib, .last = k == r->rest_n};
    r->rest_lo += k;
    r->rest_n -= k;
    return 1;
}

/* Hand out the claim [lo, lo + n), claimed at t1, piece by piece. */
static void hand_out(struct lf__mpi_rank *r, uint64_t lo, uint64_t n, int calib, double t1,
                     struct lf__mpi_chunk *c)
{
    r->rest_lo = lo;
    r->rest_n = n;
    r->rest_calib = calib;
    next_piece(r, t1, c);
}

int lf__mpi_rank_claim(struct lf__mpi_rank *r, struct lf__mpi_chunk *c)
{
    if (!r->inside)
        return 0;
    if (r->rest_n)
        return next_piece(r, MPI_Wtime(), c);
    if (r->stopped)
        return 0;
    double t = MPI_Wtime();
    if (r->master) {
        /* Rank 0 serves the others until they are all done; they ask. */
        struct lf__mpi_chunk got_c;
        int got = lf__mpi_master_claim(r, &got_c);
        double t1 = MPI_Wtime();
        r->claim_s += t1 - t;
        if (got) {
            r->claims++;
            hand_out(r, got_c.lo, got_c.n, 0, t1, c);
        }
        return got;
    }
    double now = (t - r->t_begin) * 1e9;
    uint64_t want = calibration_want(r), lo = 0, n = 0;
    int wait = 0;
    r->wait_ns = 0.0;
    if (r->timed && r->run)
        refresh(r);
    switch (r->kind) {
    case LF__CLAIM_FETCH_ADD: {
        uint64_t at = lf__mpi_fadd(&r->win, ctl(r, LF__MW_NEXT), r->fa_chunk);
        lo = at;
        n = at < r->n ? (r->n - at < r->fa_chunk ? r->n - at : r->fa_chunk) : 0;
        break;
    }
    case LF__CLAIM_STATIC:
        n = r->sched.pol->partition(r->pstate, &r->view, r->win.rank, r->k++, &lo);
        break;
    case LF__CLAIM_CAS:
        n = claim_cas(r, want, now, &lo, &wait);
        break;
    case LF__CLAIM_DOMAINS:
        n = claim_blocks(r, want, now, &lo, &wait);
        break;
    }
    double t1 = MPI_Wtime();
    r->claim_s += t1 - t;
    if (!n)
        return wait ? LF__MPI_WAIT : 0;
    r->claims++;
    r->view.claim_ns = r->claim_s * 1e9 / (double)r->claims;
    lf__exec_chunk_begin(&r->ex, r->win.rank, now, n);
    if (r->timed)
        publish(r);
    hand_out(r, lo, n, want != 0, t1, c);
    return 1;
}

void lf__mpi_rank_done(struct lf__mpi_rank *r, const struct lf__mpi_chunk *c)
{
    double t = MPI_Wtime();
    r->iters += c->n;
    r->staged_iters += c->remote;
    if (r->homed)
        *(c->remote ? &r->remote_chunks : &r->local_chunks) += 1;
    r->stage_s += c->stage_ns * 1e-9;
    if (c->remote && c->n * r->iter_bytes > r->stage_peak)
        r->stage_peak = c->n * r->iter_bytes;
    /* Compute: from the claim to the team's last thread out, less staging. */
    double span = (t - c->t_claim) * 1e9;
    uint64_t busy = span > c->stage_ns ? (uint64_t)(span - c->stage_ns) : 1;
    r->busy_s += (double)busy * 1e-9;
    /* Seed 003's affine costs of this rank: its chunks' data is local once
     * staged (a piece is a fetch of its own). */
    lf__exec_costs_add(&r->ex, &r->costs, r->win.rank, (double)c->n, (double)busy, c->remote > 0,
                       c->stage_ns, 1);
    if (r->master) {
        /* The master keeps the statistics it sizes from: tell it. */
        lf__mpi_master_done(r, c->n, busy);
        return;
    }
    /* The policy sees the claim: its pieces add up until the last. */
    r->acc_n += c->n;
    r->acc_busy += busy;
    if (!c->last)
        return;
    uint64_t n = r->acc_n;
    busy = r->acc_busy;
    r->acc_n = r->acc_busy = 0;
    double since = (t - r->t_prev_end) * 1e9;
    uint64_t total = since > (double)busy ? (uint64_t)since : busy;
    r->t_prev_end = t;
    if (lf__exec_chunk_done(&r->ex, r->win.rank, n, busy, total, c->calib, r->calibrating,
                            &r->cal_size)) {
        /* Its calibration is in: a rank's availability is its team's
         * business, its latency what a claim costs it. */
        lf__exec_calib_report(&r->ex, r->win.rank, 1.0, r->view.claim_ns, 1.0);
        r->calibrating = 0;
        publish(r);
        /* The report is complete at the host (flushed) before the count
         * that tells the last reporter everybody's is in. */
        if (lf__mpi_fadd(&r->win, ctl(r, LF__MW_REPORTS), 1) + 1 == (uint64_t)r->win.P) {
            lf__mpi_put(&r->win, ctl(r, LF__MW_RCAL), unclaimed(r));
            lf__mpi_put(&r->win, ctl(r, LF__MW_PHASE), 1);
        }
        return;
    }
    if (r->timed)
        publish(r);
}

/* The last rank out: remember what the instance learned, reset the slot,
 * then open it for instance g. */
static void recycle(struct lf__mpi_rank *r, uint64_t g)
{
    if (r->use_mem && !r->stream) {
        /* Every rank's final statistics are at the host (each published
         * them before counting itself out). */
        double drift;
        refresh(r);
        mem_read(r);
        (void)lf__exec_mem_end(&r->ex, &r->mem, &drift);
        mem_write(r);
    }
    static const uint64_t zero[LF__MPI_WSTAT_WORDS > LF__MW_CTL ? LF__MPI_WSTAT_WORDS : LF__MW_CTL];
    lf__mpi_put_block(&r->win, ctl(r, LF__MW_NEXT), LF__MW_CTL - 1, zero + 1);
    lf__mpi_put(&r->win, ctl(r, LF__MW_ACTIVE), (uint64_t)r->win.P);
    for (int j = 0; j < r->win.P; j++)
        lf__mpi_put_block(&r->win, lf__mpi_stat(&r->win, r->slot, j), (int)LF__MPI_WSTAT_WORDS,
                          zero);
    const int per = (int)(sizeof zero / sizeof *zero);
    for (int j = 0; r->loc && j < r->win.P; j += per)
        lf__mpi_put_block(&r->win, lf__mpi_blk(&r->win, r->slot, j),
                          r->win.P - j < per ? r->win.P - j : per, zero);
    /* Every reset above is complete at the host (flushed) before the slot
     * opens. */
    lf__mpi_put(&r->win, ctl(r, LF__MW_STATE), g);
}

void lf__mpi_rank_end(struct lf__mpi_rank *r)
{
    if (!r->inside)
        return;
    r->inside = 0;
    if (r->master) {
        lf__mpi_master_leave(r);
    } else if (!r->stopped) {
        /* Gone: policies must not count on this rank any more. */
        lf__exec_worker_gone(&r->ex, r->win.rank);
        if (r->timed)
            publish(r);
        uint64_t a = lf__mpi_get(&r->win, ctl(r, LF__MW_ACTIVE)), old;
        while (a > 0 && (old = lf__mpi_cas(&r->win, ctl(r, LF__MW_ACTIVE), a, a - 1)) != a)
            a = old;
    }
    if (r->stream)
        r->stream_items = lf__mpi_get(&r->win, ctl(r, LF__MW_AVAIL));
    uint64_t g = r->entered - 1;
    if (lf__mpi_fadd(&r->win, ctl(r, LF__MW_DONE), 1) + 1 == (uint64_t)r->win.P)
        recycle(r, g + LF__MPI_RING);
}
