/* lib/mpi/window.c - the host window: the words every rank of a handle
 * shares, on rank 0 of its communicator, reached only by passive-target
 * one-sided operations (MPI-3.1 §11.5).
 *
 * Every access is an accumulate-class operation on MPI_UINT64_T
 * (MPI_Fetch_and_op, MPI_Compare_and_swap, MPI_Accumulate,
 * MPI_Get_accumulate): those are atomic per element against one another
 * (§11.7.1), whereas a plain MPI_Put racing an MPI_Get has an undefined
 * outcome.  Each operation is flushed before it returns, so it is complete
 * at the host: a rank's later operations see it, and so does any rank
 * whose operation starts after it.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "mpi/mpi.h"

/* Words of one slot: its control block, P statistics slots, its memory
 * (a valid word, then LF__MPI_MEM_WORDS per rank) and P block words. */
static MPI_Aint slot_words(int P)
{
    return LF__MW_CTL + (MPI_Aint)P * (MPI_Aint)LF__MPI_WSTAT_WORDS + 1 +
           (MPI_Aint)P * LF__MPI_MEM_WORDS + P;
}

MPI_Aint lf__mpi_ctl(const struct lf__mpi_win *w, int s, int k)
{
    return (MPI_Aint)s * slot_words(w->P) + k;
}

MPI_Aint lf__mpi_stat(const struct lf__mpi_win *w, int s, int j)
{
    return (MPI_Aint)s * slot_words(w->P) + LF__MW_CTL + (MPI_Aint)j * LF__MPI_WSTAT_WORDS;
}

MPI_Aint lf__mpi_mem(const struct lf__mpi_win *w, int s)
{
    return lf__mpi_stat(w, s, w->P);
}

MPI_Aint lf__mpi_blk(const struct lf__mpi_win *w, int s, int j)
{
    return lf__mpi_mem(w, s) + 1 + (MPI_Aint)w->P * LF__MPI_MEM_WORDS + j;
}

int lf__mpi_win_open(struct lf__mpi_win *w, MPI_Comm comm)
{
    memset(w, 0, sizeof *w);
    w->comm = comm;
    MPI_Comm_rank(comm, &w->rank);
    MPI_Comm_size(comm, &w->P);
    MPI_Aint words = w->rank == 0 ? LF__MPI_RING * slot_words(w->P) : 0;
    MPI_Info info;
    MPI_Info_create(&info);
    /* While ranks run an instance, each word is reached by one operation
     * (SUM, REPLACE or compare-and-swap) and MPI_NO_OP reads: the default
     * accumulate_ops, same_op_no_op, holds; the last rank out resets words
     * with REPLACE when nobody else is inside the instance. */
    MPI_Info_set(info, "same_disp_unit", "true");
    int rc = MPI_Win_allocate(words * (MPI_Aint)sizeof(uint64_t), sizeof(uint64_t), info, comm,
                              &w->base, &w->win);
    MPI_Info_free(&info);
    int ok = rc == MPI_SUCCESS, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all) {
        if (ok)
            MPI_Win_free(&w->win);
        return -ENOMEM;
    }
    if (w->rank == 0) {
        /* Every slot open for its first instance, every rank active. */
        memset(w->base, 0, (size_t)words * sizeof(uint64_t));
        for (int s = 0; s < LF__MPI_RING; s++) {
            w->base[lf__mpi_ctl(w, s, LF__MW_STATE)] = (uint64_t)s;
            w->base[lf__mpi_ctl(w, s, LF__MW_ACTIVE)] = (uint64_t)w->P;
        }
    }
    /* The host's initial words before anybody's first access. */
    MPI_Barrier(comm);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, w->win);
    return 0;
}

void lf__mpi_win_close(struct lf__mpi_win *w)
{
    MPI_Win_unlock_all(w->win);
    MPI_Win_free(&w->win);
}

uint64_t lf__mpi_get(const struct lf__mpi_win *w, MPI_Aint off)
{
    uint64_t v = 0;
    MPI_Fetch_and_op(NULL, &v, MPI_UINT64_T, 0, off, MPI_NO_OP, w->win);
    MPI_Win_flush(0, w->win);
    return v;
}

void lf__mpi_put(const struct lf__mpi_win *w, MPI_Aint off, uint64_t v)
{
    uint64_t old;
    MPI_Fetch_and_op(&v, &old, MPI_UINT64_T, 0, off, MPI_REPLACE, w->win);
    MPI_Win_flush(0, w->win);
}

uint64_t lf__mpi_fadd(const struct lf__mpi_win *w, MPI_Aint off, uint64_t v)
{
    uint64_t old = 0;
    MPI_Fetch_and_op(&v, &old, MPI_UINT64_T, 0, off, MPI_SUM, w->win);
    MPI_Win_flush(0, w->win);
    return old;
}

uint64_t lf__mpi_cas(const struct lf__mpi_win *w, MPI_Aint off, uint64_t expect, uint64_t desired)
{
    uint64_t old = 0;
    MPI_Compare_and_swap(&desired, &expect, &old, MPI_UINT64_T, 0, off, w->win);
    MPI_Win_flush(0, w->win);
    return old;
}

void lf__mpi_get_block(const struct lf__mpi_win *w, MPI_Aint off, int n, uint64_t *out)
{
    MPI_Get_accumulate(NULL, 0, MPI_UINT64_T, out, n, MPI_UINT64_T, 0, off, n, MPI_UINT64_T,
                       MPI_NO_OP, w->win);
    MPI_Win_flush(0, w->win);
}

void lf__mpi_put_block(const struct lf__mpi_win *w, MPI_Aint off, int n, const uint64_t *in)
{
    MPI_Accumulate(in, n, MPI_UINT64_T, 0, off, n, MPI_UINT64_T, MPI_REPLACE, w->win);
    MPI_Win_flush(0, w->win);
}
