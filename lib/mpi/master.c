/* lib/mpi/master.c - the two-sided mode: rank 0 is a master that sizes and
 * hands out every chunk on request, the other ranks are its workers.
 *
 * It is the fallback where one-sided atomics are slow or absent, and the
 * baseline of the DLS4LB-style libraries (one master round trip per
 * chunk).  A worker asks for its next chunk as soon as it receives one,
 * so the round trip overlaps the chunk's compute (Yang & Casanova, "UMR: a
 * multi-round algorithm for scheduling divisible workloads", IPDPS 2003,
 * §3: the next transfer proceeds while the current chunk computes).  A
 * request carries what the worker completed since its previous request,
 * so the master's view of the workers is at most one chunk old.
 *
 * The master runs the policy through lib/exec/ with a view of the P - 1
 * workers (worker w is rank w + 1).  Messages travel on a duplicate of the
 * handle's communicator, tagged by instance, so loops in flight never mix.
 * A worker that leaves with a chunk it was sent and never ran gives it
 * back, and the pieces of its current chunk it never began (a chunk whose
 * data is staged runs in pieces, rank.c); what is given back after the
 * others are done, rank 0 computes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/mpi.h"

enum { MSG_REQ = 0, MSG_LEAVE = 1 };
/* A worker's message: kind, iterations and busy ns completed since its
 * previous message, a range given back (lo, n), and the affine costs the
 * worker measured (alpha, beta, 1/B per iteration: doubles as bits), which
 * only it can measure since it does its own staging. */
enum {
    M_KIND,
    M_ITERS,
    M_BUSY,
    M_RET_LO, /* a chunk sent ahead and never begun */
    M_RET_N,
    M_REST_LO, /* the pieces of its current chunk it never began (rank.c) */
    M_REST_N,
    M_ALPHA,
    M_BETA,
    M_SPI,
    M_WORDS
};

struct range {
    uint64_t lo, n;
};

struct lf__mpi_master {
    MPI_Comm comm;
    /* Rank 0: the policy's side. */
    int nw; /* workers: P - 1 */
    struct lf__wstat *w;
    struct lf__view view;
    struct lf__exec ex;
    uint64_t pstate[LF__POLICY_STATE_MAX / 8];
    uint64_t *cal0, *cal_size, *k;
    int *calibrating, *gone;
    int reports, run, active, served;
    uint64_t next;
    double t_begin;
    struct range *ret; /* ranges given back */
    int nret;
    /* A worker's side. */
    MPI_Request req;
    int pending, over;
    uint64_t reply[2];
    uint64_t done_iters, done_busy;
};

static int tag_of(const struct lf__mpi_rank *r)
{
    return (int)((r->entered - 1) % 30000) + 1; /* MPI_TAG_UB >= 32767 */
}

int lf__mpi_master_init(struct lf__mpi_rank *r)
{
    struct lf__mpi_master *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    r->master = m;
    if (MPI_Comm_dup(r->win.comm, &m->comm) != MPI_SUCCESS) {
        m->comm = MPI_COMM_NULL;
        return -ENOMEM;
    }
    if (r->win.rank != 0)
        return 0;
    int nw = m->nw = r->win.P - 1;
    m->w = aligned_alloc(64, (size_t)nw * sizeof *m->w);
    m->cal0 = calloc((size_t)nw, sizeof *m->cal0);
    m->cal_size = calloc((size_t)nw, sizeof *m->cal_size);
    m->k = calloc((size_t)nw, sizeof *m->k);
    m->calibrating = calloc((size_t)nw, sizeof *m->calibrating);
    m->gone = calloc((size_t)nw, sizeof *m->gone);
    m->ret = calloc(2 * (size_t)nw, sizeof *m->ret); /* at most two ranges from each */
    if (!m->w || !m->cal0 || !m->cal_size || !m->k || !m->calibrating || !m->gone || !m->ret)
        return -ENOMEM;
    m->view.w = m->w;
    m->view.nworkers = nw;
    m->ex = (struct lf__exec){.sched = &r->sched, .pstate = m->pstate, .view = &m->view};
    return 0;
}

void lf__mpi_master_free(struct lf__mpi_rank *r)
{
    struct lf__mpi_master *m = r->master;
    if (m->comm != MPI_COMM_NULL)
        MPI_Comm_free(&m->comm);
    free(m->w);
    free(m->cal0);
    free(m->cal_size);
    free(m->k);
    free(m->calibrating);
    free(m->gone);
    free(m->ret);
    free(m);
    r->master = NULL;
}

/* Rank 0 opens the instance: the policy starts for the P - 1 workers. */
static void master_start(struct lf__mpi_rank *r)
{
    struct lf__mpi_master *m = r->master;
    memset(m->w, 0, (size_t)m->nw * sizeof *m->w);
    m->view.n = r->n;
    m->view.claim_ns = 0.0;
    int calib = lf__exec_start(&m->ex, NULL, m->cal0);
    for (int w = 0; w < m->nw; w++) {
        m->calibrating[w] = calib;
        m->cal_size[w] = m->cal0[w];
        m->gone[w] = 0;
        m->k[w] = 0;
    }
    m->reports = 0;
    m->run = !calib;
    m->active = m->nw;
    m->next = 0;
    m->nret = 0;
    m->t_begin = MPI_Wtime();
}

static void worker_gone(struct lf__mpi_master *m, int w)
{
    if (m->gone[w])
        return;
    m->gone[w] = 1;
    m->active--;
    lf__exec_worker_gone(&m->ex, w);
}

/* Worker w reported iters iterations done in busy_ns. */
static void book(struct lf__mpi_rank *r, int w, uint64_t iters, uint64_t busy_ns)
{
    struct lf__mpi_master *m = r->master;
    if (!iters)
        return;
    int calib = m->calibrating[w] && !m->run;
    if (lf__exec_chunk_done(&m->ex, w, iters, busy_ns, busy_ns, calib, m->calibrating[w],
                            &m->cal_size[w])) {
        lf__exec_calib_report(&m->ex, w, 1.0, m->view.claim_ns, 1.0);
        m->calibrating[w] = 0;
        if (++m->reports == m->nw && !m->run) {
            lf__exec_calib_end(&m->ex, r->n - m->next);
            m->run = 1;
        }
    }
}

/* The chunk for worker w's request: a range given back first, then the
 * policy's size from the counter. */
static struct range next_chunk(struct lf__mpi_rank *r, int w)
{
    struct lf__mpi_master *m = r->master;
    struct range c = {0, 0};
    if (m->nret)
        return m->ret[--m->nret];
    if (m->gone[w])
        return c;
    const struct lf__policy *pol = r->sched.pol;
    double now = (MPI_Wtime() - m->t_begin) * 1e9;
    if (pol->flags & LF__P_STATIC) {
        c.n = pol->partition(m->pstate, &m->view, w, m->k[w]++, &c.lo);
    } else if (m->next < r->n) {
        uint64_t rem = r->n - m->next;
        if (!m->run) {
            c.n = lf__exec_clip(&m->ex, m->cal_size[w], rem);
        } else {
            c.n = lf__exec_claim_size(&m->ex, w, rem, now);
            if (c.n == 0 && m->active > 1) {
                worker_gone(m, w);
                return c;
            }
            c.n = c.n ? c.n : 1;
        }
        c.lo = m->next;
        m->next += c.n;
    }
    if (c.n)
        lf__exec_chunk_begin(&m->ex, w, now, c.n);
    return c;
}

void lf__mpi_master_serve(struct lf__mpi_rank *r)
{
    struct lf__mpi_master *m = r->master;
    int tag = tag_of(r), left = 0;
    master_start(r);
    while (left < m->nw) {
        uint64_t msg[M_WORDS];
        MPI_Status st;
        double t0 = MPI_Wtime();
        MPI_Recv(msg, M_WORDS, MPI_UINT64_T, MPI_ANY_SOURCE, tag, m->comm, &st);
        int w = st.MPI_SOURCE - 1;
        /* The worker's own measurements of seed 003's affine costs. */
        lf__word_put(&m->w[w].comp_lat_ns, msg[M_ALPHA]);
        lf__word_put(&m->w[w].stage_lat_ns, msg[M_BETA]);
        lf__word_put(&m->w[w].stage_ns_per_iter, msg[M_SPI]);
        book(r, w, msg[M_ITERS], msg[M_BUSY]);
        if (msg[M_KIND] == MSG_LEAVE) {
            if (msg[M_RET_N])
                m->ret[m->nret++] = (struct range){msg[M_RET_LO], msg[M_RET_N]};
            if (msg[M_REST_N])
                m->ret[m->nret++] = (struct range){msg[M_REST_LO], msg[M_REST_N]};
            worker_gone(m, w);
            left++;
            continue;
        }
        struct range c = next_chunk(r, w);
        uint64_t reply[2] = {c.lo, c.n};
        MPI_Send(reply, 2, MPI_UINT64_T, st.MPI_SOURCE, tag, m->comm);
        /* What serving one request costs: the latency the policies read. */
        m->view.claim_ns = 0.9 * m->view.claim_ns + 0.1 * (MPI_Wtime() - t0) * 1e9;
    }
}

/* A worker sends a request (with what it completed) and posts the
 * receive of the reply. */
/* A worker's message of kind with what it completed and measured. */
static void compose(const struct lf__mpi_rank *r, uint64_t kind, uint64_t *msg)
{
    const struct lf__mpi_master *m = r->master;
    const struct lf__wstat *own = &r->w[r->win.rank];
    msg[M_KIND] = kind;
    msg[M_ITERS] = m->done_iters;
    msg[M_BUSY] = m->done_busy;
    msg[M_RET_LO] = msg[M_RET_N] = msg[M_REST_LO] = msg[M_REST_N] = 0;
    msg[M_ALPHA] = lf__word_get(&own->comp_lat_ns);
    msg[M_BETA] = lf__word_get(&own->stage_lat_ns);
    msg[M_SPI] = lf__word_get(&own->stage_ns_per_iter);
}

static void request(struct lf__mpi_rank *r)
{
    struct lf__mpi_master *m = r->master;
    int tag = tag_of(r);
    uint64_t msg[M_WORDS];
    compose(r, MSG_REQ, msg);
    m->done_iters = m->done_busy = 0;
    MPI_Send(msg, M_WORDS, MPI_UINT64_T, 0, tag, m->comm);
    MPI_Irecv(m->reply, 2, MPI_UINT64_T, 0, tag, m->comm, &m->req);
    m->pending = 1;
}

int lf__mpi_master_claim(struct lf__mpi_rank *r, struct lf__mpi_chunk *c)
{
    struct lf__mpi_master *m = r->master;
    if (r->win.rank == 0) {
        if (!m->served) {
            lf__mpi_master_serve(r);
            m->served = 1;
        }
        if (!m->nret)
            return 0;
        struct range g = m->ret[--m->nret]; /* given back after the others left */
        *c = (struct lf__mpi_chunk){.lo = g.lo, .n = g.n};
        return 1;
    }
    if (m->over)
        return 0;
    if (!m->pending)
        request(r);
    MPI_Wait(&m->req, MPI_STATUS_IGNORE);
    m->pending = 0;
    if (m->reply[1] == 0) {
        m->over = 1;
        return 0;
    }
    *c = (struct lf__mpi_chunk){.lo = m->reply[0], .n = m->reply[1]};
    request(r); /* the next chunk travels while this one computes */
    return 1;
}

void lf__mpi_master_done(struct lf__mpi_rank *r, uint64_t iters, uint64_t busy_ns)
{
    struct lf__mpi_master *m = r->master;
    m->done_iters += iters;
    m->done_busy += busy_ns;
}

void lf__mpi_master_leave(struct lf__mpi_rank *r)
{
    struct lf__mpi_master *m = r->master;
    if (r->win.rank == 0) {
        if (!m->served)
            lf__mpi_master_serve(r); /* left without claiming: the others still ask */
        m->served = 0;
        return;
    }
    uint64_t msg[M_WORDS];
    compose(r, MSG_LEAVE, msg);
    if (m->pending) {
        /* A chunk sent ahead and never run goes back to the master. */
        MPI_Wait(&m->req, MPI_STATUS_IGNORE);
        msg[M_RET_LO] = m->reply[0];
        msg[M_RET_N] = m->reply[1];
    }
    /* And the pieces of its current chunk its team never began. */
    msg[M_REST_LO] = r->rest_lo;
    msg[M_REST_N] = r->rest_n;
    r->rest_n = 0;
    MPI_Send(msg, M_WORDS, MPI_UINT64_T, 0, tag_of(r), m->comm);
    m->pending = m->over = 0;
    m->done_iters = m->done_busy = 0;
}
