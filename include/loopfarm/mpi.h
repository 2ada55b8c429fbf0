/* loopfarm/mpi.h - loops across the ranks of an MPI communicator, each
 * rank's chunk shared out among its OpenMP threads (libloopfarm-mpi).
 *
 * Two levels, each scheduled by a loopfarm policy:
 *   - across ranks, LF_MPI_SCHEDULE (or the rank_spec given): a rank claims
 *     a chunk of the loop for its whole team.  The loop's counter and the
 *     statistics the policies read live in an MPI window on rank 0 of the
 *     communicator and a claim is one passive-target atomic
 *     (MPI_Fetch_and_op, or MPI_Compare_and_swap for size-dependent
 *     schedules): no rank is reserved as a master, rank 0 computes too;
 *   - within a rank, LF_SCHEDULE (or thread_spec): the rank's nthreads
 *     threads share each rank chunk with the node dispatcher (lf_loop).
 * The first thread of a rank that runs out of work claims the rank's next
 * chunk while the others still compute the current one.
 *
 * Usage (every rank, inside an OpenMP parallel region of nthreads):
 *
 *     lf_mpi_loop *ml;               // collective over comm, once
 *     lf_mpi_loop_create(&ml, MPI_COMM_WORLD, nthreads, NULL, NULL, "solve", err, sizeof err);
 *     #pragma omp parallel num_threads(nthreads)
 *     {
 *         int tid = omp_get_thread_num();
 *         long i0; unsigned long n;
 *         lf_mpi_loop_begin(ml, tid, lo, hi, incr);
 *         while (lf_mpi_loop_next(ml, tid, &i0, &n))
 *             for (unsigned long k = 0; k < n; k++)
 *                 body(i0 + (long)k * incr);
 *         lf_mpi_loop_end(ml, tid);
 *     }
 *     lf_mpi_loop_destroy(ml);       // collective
 *
 * Every rank runs every loop of a handle, in the same order, with the same
 * bounds; ranks need not arrive at the same time (a rank that arrives late
 * finds less or nothing left; one that leaves early leaves its rest to the
 * others).  Within a rank, every thread of the team enters every loop.
 * Threads of a rank call MPI one at a time (under the handle's lock), so a
 * team of more than one thread needs MPI_THREAD_SERIALIZED or better.
 *
 * Set-up calls return 0 or a negative errno value; a collective call
 * (create, destroy) returns the same result on every rank, with a message
 * in err saying which rank's arguments were rejected and why, and never
 * leaves a rank waiting for another.
 */
#ifndef LOOPFARM_MPI_H
#define LOOPFARM_MPI_H

#include <mpi.h>
#include <stddef.h>

#include "loopfarm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A handle for the loops of one communicator (opaque). */
typedef struct lf_mpi_loop lf_mpi_loop;

/* How a rank claims its chunks. */
enum lf_mpi_mode {
    LF_MPI_ONE_SIDED = 0, /* the counter in a window, one network atomic per claim */
    LF_MPI_MASTER = 1,    /* rank 0 hands out chunks on request (two-sided);
                             each rank asks for its next chunk while it computes
                             the current one */
};

/* Collective over comm: make a handle for teams of nthreads (>= 1)
 * threads on this rank (ranks may have teams of different sizes).  The
 * rank level is scheduled by rank_spec (NULL: LF_MPI_SCHEDULE, "fac2" when
 * unset), the thread level by thread_spec (NULL: LF_SCHEDULE); both in
 * the grammar of lf_schedule_parse.  name labels the loops (may be NULL).
 * Returns 0; -EINVAL with a message in err (at most errlen bytes) when the
 * arguments of any rank are bad (a spec that does not parse, nthreads < 1,
 * a team of several threads without MPI_THREAD_SERIALIZED, comm NULL, or
 * specs that differ between ranks); -ENOMEM. */
LF_API int lf_mpi_loop_create(lf_mpi_loop **out, MPI_Comm comm, int nthreads, const char *rank_spec,
                              const char *thread_spec, const char *name, char *err, size_t errlen);
/* lf_mpi_loop_create with a claim mode.  LF_MPI_MASTER needs a
 * communicator of >= 2 ranks: rank 0 then serves the others' requests and
 * computes nothing itself (the two-sided baseline of DLS4LB-style
 * libraries); with one rank it is -EINVAL. */
LF_API int lf_mpi_loop_create_mode(lf_mpi_loop **out, MPI_Comm comm, int nthreads,
                                   const char *rank_spec, const char *thread_spec, const char *name,
                                   enum lf_mpi_mode mode, char *err, size_t errlen);
/* The rank level's schedule as parsed ("fac2", or what LF_MPI_SCHEDULE or
 * rank_spec named); NULL for a NULL handle. */
LF_API const char *lf_mpi_loop_rank_schedule(const lf_mpi_loop *ml);
/* Collective: free the handle.  Precondition: no thread is inside a loop
 * of it. */
LF_API void lf_mpi_loop_destroy(lf_mpi_loop *ml);

/* Thread tid of this rank's team enters the next loop over i = lo,
 * lo + incr, ... while i < hi (incr > 0) or i > hi (incr < 0).  Returns 0;
 * -EINVAL (incr == 0, tid out of range, entered twice: nothing happened);
 * -ERANGE when other ranks run this loop with other bounds (this rank
 * leaves it at once and gets no chunks). */
LF_API int lf_mpi_loop_begin(lf_mpi_loop *ml, int tid, long lo, long hi, long incr);
/* Hand thread tid its next chunk: first, first + incr, ... (count of
 * them).  1 with a chunk; 0 when the loop has no more work for tid. */
LF_API int lf_mpi_loop_next(lf_mpi_loop *ml, int tid, long *first, unsigned long *count);
/* Thread tid leaves the loop (after lf_mpi_loop_next returned 0, or
 * early: iterations it was handed and did not run are not run by anyone). */
LF_API void lf_mpi_loop_end(lf_mpi_loop *ml, int tid);

/* ---- Streams of unknown size (seed 001) ---- */

/* Thread tid enters the handle's next loop as a stream: items 0, 1, 2, ...
 * appended while it runs by lf_mpi_stream_append on any rank, until
 * lf_mpi_stream_close.  lf_mpi_loop_next hands out items as they come
 * (first is the item number, in steps of 1), waits while none is
 * available and the stream is open, and returns 0 once it is closed and
 * every item was handed out.  The rank schedule must size chunks from what
 * is left: as4dr (tail=off is seed 001's rule for streams; it keeps each
 * rank's period near tau), dynamic, guided, fac2 or af; not the master
 * mode.  -EINVAL otherwise (reported on stderr by thread 0), or as
 * lf_mpi_loop_begin. */
LF_API int lf_mpi_loop_begin_stream(lf_mpi_loop *ml, int tid);
/* Append count items to the stream this rank's team is in, or, when it is
 * in none, to the next loop it will enter (which must be a stream).  Any
 * thread of a rank may call it (a producer outside the team too; the team
 * needs MPI_THREAD_SERIALIZED then).  0, or -EINVAL for a NULL handle. */
LF_API int lf_mpi_stream_append(lf_mpi_loop *ml, unsigned long count);
/* No more items will come to that stream. */
LF_API int lf_mpi_stream_close(lf_mpi_loop *ml);

/* What this rank did in the latest loop of the handle that its whole
 * team left, and the affine costs it measured (Yang & Casanova, "UMR: a
 * multi-round algorithm for scheduling divisible workloads", IPDPS 2003,
 * eqs. 1-2: a chunk of c iterations computes in alpha + c / S and, when
 * its input lives on other ranks, is fetched in beta + c / B); 0 where
 * nothing was measured.  A line is fitted over the handle's consecutive
 * loops with the same data (over one loop without data) and reported once
 * it rests on 4 rank chunks or more. */
struct lf_mpi_stats {
    unsigned long iterations;   /* the loop's trip count (a stream's items) */
    unsigned long rank_iters;   /* iterations this rank's team computed */
    unsigned long rank_chunks;  /* rank chunks its team ran, calibration included (a
                                   claim staged in pieces counts each piece) */
    unsigned long staged_iters; /* of its iterations, those whose input it fetched */
    double seconds;             /* from its first thread's entry to its last's exit */
    double claim_seconds;       /* time spent claiming rank chunks */
    double stage_seconds;       /* time spent fetching inputs and returning results */
    double ns_per_iter;         /* 1 / S: its team's compute time per iteration */
    double alpha_ns;            /* compute latency per rank chunk */
    double beta_ns;             /* staging latency per staged chunk (weighted by the
                                   share of its chunks that were staged) */
    double stage_ns_per_iter;   /* 1 / B, per iteration (weighted likewise) */
    int from_memory;            /* the loop started from what the handle's loops learned
                                   (memory=on), without calibrating */
    /* Of a loop with data (lf_mpi_loop_begin_data), the rank chunks this
     * rank claimed: within its own block (read in place), or with
     * iterations other ranks own (fetched); and whether the loop ran
     * owner-first (see lf_mpi_data_create). */
    unsigned long local_chunks;
    unsigned long remote_chunks;
    int owner_first;
    /* The most bytes (input and results) one rank chunk this rank staged
     * held: at most LF_MPI_STAGE_BYTES, or one iteration's bytes where
     * that is more (see lf_mpi_loop_begin_data). */
    unsigned long stage_peak_bytes;
};
LF_API int lf_mpi_loop_last_stats(const lf_mpi_loop *ml, struct lf_mpi_stats *out);

/* ---- Data owned by ranks: staging by MPI_Get, results returned ---- */

/* A loop's input and output, block-distributed over the ranks by logical
 * iteration (opaque). */
typedef struct lf_mpi_data lf_mpi_data;

/* Collective over ml's communicator: rank j owns logical iterations
 * [home[j], home[j + 1]) of the loops this data serves (home: P + 1
 * ascending entries, home[0] = 0, the same on every rank, P the
 * communicator's size).  Iteration k's input is in_elem bytes, at
 * (const char *)in_local + (k - home[j]) * in_elem on its owner j; its
 * result, out_elem bytes, goes to (char *)out_local + (k - home[j]) *
 * out_elem on the owner (in_elem or out_elem 0: no input, no output).
 * The input must not change, and the owner must not touch its out_local,
 * while a loop with this data runs.  Returns 0; -EINVAL (same message on
 * every rank, naming the rank) for homes that are not ascending from 0 or
 * differ between ranks, a NULL block with elements, both sizes 0;
 * -ENOMEM. */
LF_API int lf_mpi_data_create(lf_mpi_data **out, lf_mpi_loop *ml, const unsigned long *home,
                              const void *in_local, size_t in_elem, void *out_local,
                              size_t out_elem, char *err, size_t errlen);
/* Collective: free it (no loop with it may be running). */
LF_API void lf_mpi_data_destroy(lf_mpi_data *d);
/* lf_mpi_loop_begin for a loop whose data is d (NULL: none): every thread
 * of every rank passes the same d.  -EINVAL as lf_mpi_loop_begin, and
 * when the loop's trip count is not d's home[P].
 *
 * Owner-first (the default with data, on >= 2 ranks, one-sided mode): a
 * rank claims the iterations it owns first, from the front of its block,
 * read and written in place; only once its block is empty does it take
 * from the back of the block with the most left, fetching that input.
 * Such a remote chunk is sized from the affine costs the rank measured
 * (see lf_mpi_stats) so that the fetch's latency is at most an eighth of
 * its transfer and compute and the taker ends no later than the owner
 * would; when even one fetched iteration would end after the owner ends
 * its whole block, the rank waits for the owner instead (it takes the rest
 * should the owner leave the loop).  The rank schedule's numa=off (e.g.
 * LF_MPI_SCHEDULE="af,numa=off") turns it off: every rank then claims from
 * the loop's one counter, whoever owns the data.  Static rank schedules,
 * the master mode and blocks of more than 2^32 - 1 iterations run without
 * it.  lf_mpi_stats.owner_first says whether a loop ran owner-first.
 *
 * Staging memory: a rank chunk whose data other ranks own is fetched into
 * (and its results returned from) buffers of the rank.  A claim larger
 * than LF_MPI_STAGE_BYTES (16M when unset; K, M, G suffixes) over
 * in_elem + out_elem iterations is staged and run in pieces of that many
 * (at least one iteration), the next piece's fetch overlapping the
 * current one's compute; the rank schedule still sees one claim.  A rank
 * thus holds at most 8 such buffers (its claims in flight), whatever the
 * schedule claims: numa=off with a guided or factoring schedule would
 * otherwise fetch a sizeable share of the whole input at once.  In the
 * master mode, pieces a leaving team never began go back to the master;
 * otherwise they are not run, as a chunk claimed ahead is not. */
LF_API int lf_mpi_loop_begin_data(lf_mpi_loop *ml, int tid, long lo, long hi, long incr,
                                  lf_mpi_data *d);
/* Thread tid's current chunk (from the latest lf_mpi_loop_next) in a loop
 * with data: its input, where the element of the chunk's j-th iteration
 * is at (const char *)result + j * in_elem (fetched from its owners with
 * MPI_Get when they are other ranks, in place when this rank owns it);
 * and where the body writes its results, likewise with out_elem (returned
 * to their owners once the rank's team completed the rank chunk).  NULL
 * without such a chunk or data. */
LF_API const void *lf_mpi_loop_input(lf_mpi_loop *ml, int tid);
LF_API void *lf_mpi_loop_output(lf_mpi_loop *ml, int tid);
/* Collective: every result of the loops run so far is in its owner's
 * out_local when it returns (call it after the loops, on every rank). */
LF_API int lf_mpi_data_sync(lf_mpi_data *d);

#ifdef __cplusplus
}
#endif

#endif
