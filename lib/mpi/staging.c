/* lib/mpi/staging.c - data owned by ranks: a loop's input and output
 * block-distributed by logical iteration, a rank chunk's inputs fetched
 * from their owners with MPI_Get and its results returned with MPI_Put.
 *
 * Each rank exposes its blocks in two windows (MPI_Win_create over the
 * caller's memory) and holds a passive-target epoch on them for the data's
 * life, so a rank reaches another's block without the owner taking part:
 * the owner may be computing, or already done.  What staging costs is
 * measured per rank chunk and fitted to seed 003's affine costs by
 * lf__exec_costs_add (rank.c), so umr and rumr plan with this network's
 * latency and bandwidth.  The results' return follows seed 002 (Beaumont &
 * Rosenberg): each chunk's results go back to the rank that owns them as
 * soon as the chunk is complete.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomics.h"
#include "loopfarm/mpi.h"
#include "mpi/mpi.h"
#include "platform/env.h"

/* The ids of this process's data (lf_mpi_data.id). */
static lf__au64 data_ids;

/* Bytes per MPI call: counts are int. */
#define PIECE ((size_t)1 << 30)

/* LF_MPI_STAGE_BYTES when unset or malformed (as env.c's table says):
 * 16 MiB per rank chunk, at most LF__MPI_RING of them held by a rank. */
#define STAGE_BYTES_DEFAULT ((uint64_t)16 << 20)

uint64_t lf__mpi_stage_piece(size_t in_elem, size_t out_elem)
{
    uint64_t bytes = lf__env_bytes(LF__ENV_MPI_STAGE_BYTES); /* read once, by env.c */
    if (!bytes)
        bytes = STAGE_BYTES_DEFAULT;
    uint64_t per = (uint64_t)in_elem + out_elem;
    uint64_t k = per ? bytes / per : UINT64_MAX;
    return k ? k : 1;
}

static void say(char *buf, size_t len, const char *what, int rank)
{
    if (buf && len)
        snprintf(buf, len, "lf_mpi_data_create: rank %d: %s", rank, what);
}

/* What is wrong with this rank's arguments (NULL: nothing). */
static const char *check(const unsigned long *home, int P, int me, const void *in, size_t in_elem,
                         const void *out, size_t out_elem)
{
    if (!home)
        return "home is NULL (expected P + 1 ascending iteration numbers from 0)";
    if (home[0] != 0)
        return "home[0] is not 0";
    for (int j = 0; j < P; j++)
        if (home[j] > home[j + 1])
            return "home is not ascending";
    if (!in_elem && !out_elem)
        return "in_elem and out_elem are both 0: no data to stage";
    unsigned long mine = home[me + 1] - home[me];
    if (mine && ((in_elem && !in) || (out_elem && !out)))
        return "this rank owns iterations but its in_local or out_local is NULL";
    if ((in_elem && mine > (unsigned long)PTRDIFF_MAX / in_elem) ||
        (out_elem && mine > (unsigned long)PTRDIFF_MAX / out_elem))
        return "this rank's block does not fit the address space";
    return NULL;
}

/* A window over bytes of base (disp unit 1); MPI_WIN_NULL when the loop
 * has no such data (elem 0). */
static int expose(MPI_Comm comm, const void *base, size_t bytes, size_t elem, MPI_Win *win)
{
    *win = MPI_WIN_NULL;
    if (!elem)
        return 0;
    static char empty;
    if (MPI_Win_create(bytes ? (void *)base : &empty, (MPI_Aint)bytes, 1, MPI_INFO_NULL, comm,
                       win) != MPI_SUCCESS)
        return -ENOMEM;
    MPI_Win_lock_all(MPI_MODE_NOCHECK, *win);
    return 0;
}

int lf_mpi_data_create(lf_mpi_data **out, lf_mpi_loop *ml, const unsigned long *home,
                       const void *in_local, size_t in_elem, void *out_local, size_t out_elem,
                       char *err, size_t errlen)
{
    if (out)
        *out = NULL;
    MPI_Comm comm = lf__mpi_loop_comm(ml);
    if (comm == MPI_COMM_NULL) {
        if (err && errlen)
            snprintf(err, errlen, "lf_mpi_data_create: ml is NULL");
        return -EINVAL;
    }
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    const char *why =
        !out ? "out is NULL" : check(home, P, me, in_local, in_elem, out_local, out_elem);
    /* The homes and sizes the same on every rank: their hash at its
     * maximum and minimum everywhere. */
    uint64_t h = 1469598103934665603ULL;
    if (!why) {
        for (int j = 0; j <= P; j++)
            h = (h ^ home[j]) * 1099511628211ULL;
        h = ((h ^ in_elem) * 1099511628211ULL ^ out_elem) * 1099511628211ULL;
    }
    struct {
        int bad, rank;
    } mine = {why != NULL, me}, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm);
    if (worst.bad) {
        char msg[256] = "";
        if (why)
            snprintf(msg, sizeof msg, "%s", why);
        MPI_Bcast(msg, sizeof msg, MPI_CHAR, worst.rank, comm);
        msg[sizeof msg - 1] = '\0';
        say(err, errlen, msg, worst.rank);
        return -EINVAL;
    }
    uint64_t hh[2] = {h, ~h}, hmax[2];
    MPI_Allreduce(hh, hmax, 2, MPI_UINT64_T, MPI_MAX, comm);
    if (hmax[0] != ~hmax[1]) {
        say(err, errlen, "home, in_elem or out_elem differ between ranks", me);
        return -EINVAL;
    }
    struct lf_mpi_data *d = calloc(1, sizeof *d);
    unsigned long *hm = calloc((size_t)P + 1, sizeof *hm);
    int ok = d && hm, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        free(d);
        free(hm);
        say(err, errlen, "out of memory", me);
        return -ENOMEM;
    }
    memcpy(hm, home, ((size_t)P + 1) * sizeof *hm);
    /* Relaxed: a number, unique in the process; nothing is published by it. */
    uint64_t id = lf__fetch_add_relaxed(&data_ids, 1) + 1;
    *d = (struct lf_mpi_data){.comm = comm,
                              .P = P,
                              .me = me,
                              .home = hm,
                              .in = in_local,
                              .out = out_local,
                              .in_elem = in_elem,
                              .out_elem = out_elem,
                              .win_in = MPI_WIN_NULL,
                              .win_out = MPI_WIN_NULL,
                              .id = id,
                              .piece = lf__mpi_stage_piece(in_elem, out_elem)};
    unsigned long blk = home[me + 1] - home[me];
    int rc = expose(comm, in_local, blk * in_elem, in_elem, &d->win_in);
    rc = rc ? rc : expose(comm, out_local, blk * out_elem, out_elem, &d->win_out);
    if (rc) {
        /* MPI_Win_create failing is fatal under the default error handler;
         * one that returns leaves the ranks disagreeing, so say so. */
        say(err, errlen, "MPI_Win_create failed", me);
        free(hm);
        free(d);
        return rc;
    }
    *out = d;
    return 0;
}

void lf_mpi_data_destroy(lf_mpi_data *d)
{
    if (!d)
        return;
    if (d->win_in != MPI_WIN_NULL) {
        MPI_Win_unlock_all(d->win_in);
        MPI_Win_free(&d->win_in);
    }
    if (d->win_out != MPI_WIN_NULL) {
        MPI_Win_unlock_all(d->win_out);
        MPI_Win_free(&d->win_out);
    }
    free(d->home);
    free(d);
}

int lf_mpi_data_sync(lf_mpi_data *d)
{
    if (!d)
        return -EINVAL;
    /* Every rank's MPI_Put is complete at its owner (flushed) before the
     * rank arrives; the syncs make the window's copy and the process's view
     * of out_local one. */
    if (d->win_out != MPI_WIN_NULL)
        MPI_Win_sync(d->win_out);
    MPI_Barrier(d->comm);
    if (d->win_out != MPI_WIN_NULL)
        MPI_Win_sync(d->win_out);
    return 0;
}

/* The first owner of logical iteration k (binary search of home). */
static int owner_of(const struct lf_mpi_data *d, uint64_t k)
{
    int a = 0, b = d->P - 1;
    while (a < b) {
        int m = (a + b + 1) / 2;
        if (d->home[m] <= k)
            a = m;
        else
            b = m - 1;
    }
    return a;
}

/* A buffer of at least bytes in *buf (capacity *cap). */
static char *room(char **buf, size_t *cap, size_t bytes, const struct lf_mpi_data *d)
{
    if (bytes > *cap) {
        char *p = realloc(*buf, bytes);
        if (!p) {
            fprintf(stderr,
                    "loopfarm: rank %d: no memory for a %zu-byte staging buffer of a rank chunk; "
                    "aborting the job\n",
                    d->me, bytes);
            MPI_Abort(d->comm, ENOMEM);
        }
        *buf = p;
        *cap = bytes;
    }
    return *buf;
}

/* One-sided transfers of bytes at target displacement disp, in pieces
 * whose counts fit an int; with b, request-based (MPI_Rget), the requests
 * kept in b. */
static void get_bytes(char *dst, size_t bytes, int rank, size_t disp, MPI_Win win,
                      struct lf__mpi_buf *b, const struct lf_mpi_data *d)
{
    for (size_t at = 0; at < bytes; at += PIECE) {
        int n = (int)(bytes - at < PIECE ? bytes - at : PIECE);
        if (!b) {
            MPI_Get(dst + at, n, MPI_BYTE, rank, (MPI_Aint)(disp + at), n, MPI_BYTE, win);
            continue;
        }
        if (b->nreq == b->req_cap) {
            int cap = b->req_cap ? 2 * b->req_cap : 8;
            MPI_Request *r = realloc(b->req, (size_t)cap * sizeof *r);
            if (!r) {
                fprintf(stderr, "loopfarm: rank %d: no memory for %d MPI requests; aborting\n",
                        d->me, cap);
                MPI_Abort(d->comm, ENOMEM);
            }
            b->req = r;
            b->req_cap = cap;
        }
        MPI_Rget(dst + at, n, MPI_BYTE, rank, (MPI_Aint)(disp + at), n, MPI_BYTE, win,
                 &b->req[b->nreq++]);
    }
}

void lf__mpi_stage_wait(struct lf__mpi_buf *b)
{
    if (b->nreq)
        MPI_Waitall(b->nreq, b->req, MPI_STATUSES_IGNORE);
    b->nreq = 0;
}

static void put_bytes(const char *src, size_t bytes, int rank, size_t disp, MPI_Win win)
{
    for (size_t at = 0; at < bytes; at += PIECE) {
        int n = (int)(bytes - at < PIECE ? bytes - at : PIECE);
        MPI_Put(src + at, n, MPI_BYTE, rank, (MPI_Aint)(disp + at), n, MPI_BYTE, win);
    }
}

/* Complete this rank's transfers on win with the other owners of
 * [lo, lo + n), flushing those ranks only: a one-sided component that
 * needs its target to enter MPI (Open MPI's osc/pt2pt) would make
 * MPI_Win_flush_all wait for every rank, a busy owner it never touched
 * included. */
static void flush_owners(const struct lf_mpi_data *d, uint64_t lo, uint64_t n, MPI_Win win)
{
    uint64_t hi = lo + n;
    for (int j = owner_of(d, lo); j < d->P && d->home[j] < hi; j++)
        if (j != d->me && d->home[j + 1] > lo && d->home[j + 1] > d->home[j])
            MPI_Win_flush(j, win);
}

uint64_t lf__mpi_stage_in(const struct lf_mpi_data *d, uint64_t lo, uint64_t n,
                          struct lf__mpi_buf *b, int ahead)
{
    uint64_t hi = lo + n, remote = 0;
    int mine = d->home[d->me] <= lo && hi <= d->home[d->me + 1];
    size_t off = mine ? (size_t)(lo - d->home[d->me]) : 0;
    b->in_at = NULL;
    b->out_at = NULL;
    if (d->out_elem)
        b->out_at = mine ? d->out + off * d->out_elem
                         : room(&b->out, &b->out_cap, (size_t)n * d->out_elem, d);
    if (mine) {
        if (d->in_elem)
            b->in_at = d->in + off * d->in_elem; /* its own block: in place */
        return 0;
    }
    char *dst = d->in_elem ? room(&b->in, &b->in_cap, (size_t)n * d->in_elem, d) : NULL;
    for (int j = owner_of(d, lo); j < d->P && d->home[j] < hi; j++) {
        uint64_t a = lo > d->home[j] ? lo : d->home[j];
        uint64_t z = hi < d->home[j + 1] ? hi : d->home[j + 1];
        if (a >= z)
            continue;
        if (j != d->me)
            remote += z - a;
        if (!dst)
            continue;
        size_t bytes = (size_t)(z - a) * d->in_elem;
        if (j == d->me)
            memcpy(dst + (a - lo) * d->in_elem, d->in + (a - d->home[j]) * d->in_elem, bytes);
        else
            get_bytes(dst + (a - lo) * d->in_elem, bytes, j, (size_t)(a - d->home[j]) * d->in_elem,
                      d->win_in, ahead ? b : NULL, d);
    }
    if (dst && !ahead)
        flush_owners(d, lo, n, d->win_in); /* every MPI_Get above is complete here */
    b->in_at = dst;
    return remote;
}

void lf__mpi_stage_out(const struct lf_mpi_data *d, uint64_t lo, uint64_t n,
                       const struct lf__mpi_buf *b)
{
    if (!d->out_elem || b->out_at != b->out || !b->out)
        return; /* none, or written in place in this rank's own block */
    uint64_t hi = lo + n;
    for (int j = owner_of(d, lo); j < d->P && d->home[j] < hi; j++) {
        uint64_t a = lo > d->home[j] ? lo : d->home[j];
        uint64_t z = hi < d->home[j + 1] ? hi : d->home[j + 1];
        if (a >= z)
            continue;
        size_t bytes = (size_t)(z - a) * d->out_elem;
        const char *src = b->out + (a - lo) * d->out_elem;
        if (j == d->me)
            memcpy(d->out + (a - d->home[j]) * d->out_elem, src, bytes);
        else
            put_bytes(src, bytes, j, (size_t)(a - d->home[j]) * d->out_elem, d->win_out);
    }
    flush_owners(d, lo, n, d->win_out); /* complete at the owners: lf_mpi_data_sync relies on it */
}
