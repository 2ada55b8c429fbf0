/* lib/mpi/team.c - the public API of loops across ranks (loopfarm/mpi.h):
 * the rank's threads share each rank chunk through the node dispatcher.
 *
 * Rank chunk k of an instance is sub-loop k of the handle's lf_loop (the
 * public API of lib/dispatch: this layer reaches no dispatcher internals).
 * Every thread of the team takes the rank chunks in order: it runs its
 * share of chunk k with lf_loop_next, leaves it, and moves to k + 1; the
 * first thread to need chunk k + 1 claims it for the team (rank.c), while
 * the others may still compute chunk k.  The last thread out of chunk k
 * reports the chunk complete.  Rank chunks wait in a ring of LF__MPI_RING
 * entries, like the dispatcher's slots; an entry is reused once the whole
 * team has left its chunk.  Everything that calls MPI runs under the
 * handle's lock (MPI_THREAD_SERIALIZED), once per rank chunk, never per
 * thread chunk, except that in a loop with data a thread lets MPI progress
 * between its chunks at most every 100 us (poke), so that other ranks'
 * fetches from this rank's blocks complete while it computes.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopfarm/mpi.h"
#include "mpi/mpi.h"
#include "platform/env.h"

/* The rank level's schedule when neither the caller nor LF_MPI_SCHEDULE
 * names one: factoring keeps claims few (about P per halving of the
 * remainder) and needs no calibration. */
#define DEFAULT_RANK_SPEC "fac2"

struct entry {
    uint64_t seq; /* the rank chunk it holds; UINT64_MAX: none */
    int left;     /* threads that have left its sub-loop */
    struct lf__mpi_chunk c;
    struct lf__mpi_buf buf; /* its staged input and its results (staging.c) */
    int ahead;              /* prefetched: fetches in flight, nobody took it yet */
};

struct member {
    uint64_t entered; /* instances entered */
    int in;           /* inside an instance */
    int in_sub;       /* inside the sub-loop of rank chunk k */
    int done;         /* no more rank chunks for it in this instance */
    int working;      /* counted in the team's working threads */
    uint64_t k;       /* its current rank chunk */
    uint64_t lo_k;    /* logical start of rank chunk k */
    uint64_t first;   /* logical start of its current chunk */
    int has_chunk;    /* lf_mpi_loop_next handed it one that is current */
    uint64_t poked;   /* when it last let MPI progress (ns, CLOCK_MONOTONIC) */
} __attribute__((aligned(64)));

struct lf_mpi_loop {
    pthread_mutex_t lock;
    int T; /* threads of this rank's team */
    char name[128];
    struct lf__mpi_rank rank;
    lf_loop *sub;
    lf_schedule *tsched;
    /* The team's instance, under lock. */
    uint64_t cur;      /* instances begun by the team */
    int joined;        /* threads that entered the current one */
    int left;          /* threads that left it */
    int begin_rc;      /* what the rank's entry answered */
    uint64_t n;        /* its trip count */
    long lo, incr;     /* its bounds */
    lf_mpi_data *data; /* its data, or NULL */
    int stream;        /* it is a stream */
    uint64_t nseq;     /* rank chunks claimed */
    int over;          /* the rank level has no more chunks for this rank */
    int working;       /* threads neither done nor leaving early */
    double t_entry;    /* the first thread's entry */
    struct entry ring[LF__MPI_RING];
    struct lf_mpi_stats last;
    struct member m[];
};

/* LF_MPI_SCHEDULE, parsed once per process: a malformed value is reported
 * once and the default used, as LF_SCHEDULE's is. */
static struct lf__sched env_sched;
static int env_set;
static pthread_once_t env_once = PTHREAD_ONCE_INIT;

static void read_env(void)
{
    const char *v = lf__env(LF__ENV_MPI_SCHEDULE);
    char why[512];
    if (!v)
        return;
    if (lf__sched_parse(v, &env_sched, why, sizeof why) == 0) {
        env_set = 1;
        return;
    }
    fprintf(stderr, "loopfarm: LF_MPI_SCHEDULE=\"%s\": %s; ranks claim under \"%s\"\n", v, why,
            DEFAULT_RANK_SPEC);
    lf__env_rejected(LF__ENV_MPI_SCHEDULE, DEFAULT_RANK_SPEC);
}

/* The rank level's schedule: spec, else LF_MPI_SCHEDULE, else the
 * default.  A malformed spec argument is the caller's error (-EINVAL). */
static int rank_schedule(const char *spec, struct lf__sched *s, char *msg, size_t len)
{
    if (spec)
        return lf__sched_parse(spec, s, msg, len);
    pthread_once(&env_once, read_env);
    if (env_set) {
        *s = env_sched;
        return 0;
    }
    return lf__sched_parse(DEFAULT_RANK_SPEC, s, msg, len);
}

static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

/* What is wrong with this rank's arguments ("" when nothing); parses the
 * schedules into *rs and *ts. */
static void check_args(lf_mpi_loop **out, int P, int nthreads, const char *rank_spec,
                       const char *thread_spec, enum lf_mpi_mode mode, struct lf__sched *rs,
                       lf_schedule **ts, char *why, size_t len)
{
    char msg[512];
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    *ts = NULL;
    why[0] = '\0';
    if (!out)
        say(why, len, "out is NULL");
    else if (nthreads < 1)
        say(why, len, "nthreads = %d: expected a team of >= 1 threads", nthreads);
    else if (mode != LF_MPI_ONE_SIDED && mode != LF_MPI_MASTER)
        say(why, len, "mode %d: expected LF_MPI_ONE_SIDED or LF_MPI_MASTER", (int)mode);
    else if (mode == LF_MPI_MASTER && P < 2)
        say(why, len,
            "LF_MPI_MASTER needs >= 2 ranks (rank 0 serves, the others compute); the "
            "communicator has 1");
    else if (rank_schedule(rank_spec, rs, msg, sizeof msg) != 0)
        say(why, len, "rank schedule \"%s\": %s", rank_spec, msg);
    else if (thread_spec && lf_schedule_parse(thread_spec, ts, msg, sizeof msg) != 0)
        say(why, len, "thread schedule \"%s\": %s", thread_spec, msg);
    else if (nthreads > 1 && level < MPI_THREAD_SERIALIZED)
        say(why, len,
            "a team of %d threads claims from several threads: MPI_Init_thread must provide "
            "MPI_THREAD_SERIALIZED or MPI_THREAD_MULTIPLE (it provided %s)",
            nthreads, level == MPI_THREAD_FUNNELED ? "MPI_THREAD_FUNNELED" : "MPI_THREAD_SINGLE");
}

/* A hash of what all ranks must agree on: the rank schedule and the mode. */
static uint64_t agreement(const struct lf__sched *rs, enum lf_mpi_mode mode)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (const char *c = rs->spec; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    return h ^ (uint64_t)mode;
}

int lf_mpi_loop_create_mode(lf_mpi_loop **out, MPI_Comm comm, int nthreads, const char *rank_spec,
                            const char *thread_spec, const char *name, enum lf_mpi_mode mode,
                            char *err, size_t errlen)
{
    char why[640], tmp[640];
    int up = 0, down = 0;
    if (out)
        *out = NULL;
    MPI_Initialized(&up);
    if (up)
        MPI_Finalized(&down);
    if (!up || down || comm == MPI_COMM_NULL) {
        /* No collective is possible: every rank says so alone. */
        if (err && errlen)
            say(err, errlen, "lf_mpi_loop_create: %s",
                !up || down ? "MPI is not initialised (MPI_Init_thread first) or already finalised"
                            : "comm is MPI_COMM_NULL");
        return -EINVAL;
    }
    int P, me;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &me);
    struct lf__sched rs;
    lf_schedule *ts = NULL;
    check_args(out, P, nthreads, rank_spec, thread_spec, mode, &rs, &ts, tmp, sizeof tmp);
    /* Which rank (the lowest) has bad arguments, and why: every rank hears it. */
    struct {
        int bad, rank;
    } mine = {tmp[0] != '\0', me}, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm);
    if (worst.bad) {
        MPI_Bcast(tmp, sizeof tmp, MPI_CHAR, worst.rank, comm);
        tmp[sizeof tmp - 1] = '\0';
        say(why, sizeof why, "lf_mpi_loop_create: rank %d: %s", worst.rank, tmp);
        goto fail;
    }
    /* The rank schedule and mode, the same everywhere (a hash and its
     * complement both at their maximum on every rank). */
    uint64_t h[2] = {agreement(&rs, mode), ~agreement(&rs, mode)}, hmax[2];
    MPI_Allreduce(h, hmax, 2, MPI_UINT64_T, MPI_MAX, comm);
    if (hmax[0] != h[0] || hmax[1] != h[1] || hmax[0] != ~hmax[1]) {
        /* Every rank sees hmax[0] != ~hmax[1] when any two differ. */
        say(why, sizeof why,
            "lf_mpi_loop_create: ranks name different rank schedules or modes (this rank: "
            "\"%s\", mode %d); every rank must pass the same",
            rs.spec, (int)mode);
        goto fail;
    }
    size_t bytes = sizeof(lf_mpi_loop) + (size_t)nthreads * sizeof(struct member);
    lf_mpi_loop *ml = aligned_alloc(64, (bytes + 63) / 64 * 64);
    int ok = ml != NULL, all;
    if (ml) {
        memset(ml, 0, bytes);
        ml->T = nthreads;
        ml->tsched = ts;
        snprintf(ml->name, sizeof ml->name, "%s", name ? name : "mpi-loop");
        ok = lf_loop_create(&ml->sub, nthreads, ts, ml->name) == 0;
    }
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (!all || lf__mpi_rank_init(&ml->rank, comm, &rs, mode == LF_MPI_MASTER) != 0) {
        if (ml) {
            if (ml->sub)
                lf_loop_destroy(ml->sub);
            free(ml);
        }
        lf_schedule_free(ts);
        if (err && errlen)
            say(err, errlen, "lf_mpi_loop_create: out of memory on some rank");
        return -ENOMEM;
    }
    pthread_mutex_init(&ml->lock, NULL);
    for (int i = 0; i < LF__MPI_RING; i++)
        ml->ring[i].seq = UINT64_MAX;
    *out = ml;
    return 0;
fail:
    lf_schedule_free(ts);
    if (err && errlen)
        say(err, errlen, "%s", why);
    return -EINVAL;
}

int lf_mpi_loop_create(lf_mpi_loop **out, MPI_Comm comm, int nthreads, const char *rank_spec,
                       const char *thread_spec, const char *name, char *err, size_t errlen)
{
    return lf_mpi_loop_create_mode(out, comm, nthreads, rank_spec, thread_spec, name,
                                   LF_MPI_ONE_SIDED, err, errlen);
}

const char *lf_mpi_loop_rank_schedule(const lf_mpi_loop *ml)
{
    return ml ? ml->rank.sched.spec : NULL;
}

void lf_mpi_loop_destroy(lf_mpi_loop *ml)
{
    if (!ml)
        return;
    lf__mpi_rank_free(&ml->rank);
    for (int i = 0; i < LF__MPI_RING; i++) {
        free(ml->ring[i].buf.in);
        free(ml->ring[i].buf.out);
        free(ml->ring[i].buf.req);
    }
    lf_loop_destroy(ml->sub);
    lf_schedule_free(ml->tsched);
    pthread_mutex_destroy(&ml->lock);
    free(ml);
}

static void backoff(unsigned *spins)
{
    if (++*spins > 16)
        sched_yield();
}

/* A fingerprint of the bounds (never 0): ranks compare it at entry. */
static uint64_t fingerprint(uint64_t n, long lo, long incr)
{
    uint64_t h = n * 0x9e3779b97f4a7c15ULL;
    h ^= (uint64_t)lo + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
    h ^= (uint64_t)incr + 0x94d049bb133111ebULL + (h << 6) + (h >> 2);
    return h ? h : 1;
}

MPI_Comm lf__mpi_loop_comm(const struct lf_mpi_loop *ml)
{
    return ml ? ml->rank.win.comm : MPI_COMM_NULL;
}

static int enter(lf_mpi_loop *ml, int tid, uint64_t n, long lo, long incr, lf_mpi_data *d,
                 int stream);

int lf_mpi_loop_begin(lf_mpi_loop *ml, int tid, long lo, long hi, long incr)
{
    return lf_mpi_loop_begin_data(ml, tid, lo, hi, incr, NULL);
}

int lf_mpi_loop_begin_data(lf_mpi_loop *ml, int tid, long lo, long hi, long incr, lf_mpi_data *d)
{
    if (!ml || incr == 0)
        return -EINVAL;
    uint64_t n = lf_trip_count(lo, hi, incr, NULL);
    if (d && (d->comm != ml->rank.win.comm || d->home[d->P] != n))
        return -EINVAL; /* not this handle's data, or not this loop's size */
    return enter(ml, tid, n, lo, incr, d, 0);
}

int lf_mpi_loop_begin_stream(lf_mpi_loop *ml, int tid)
{
    if (!ml)
        return -EINVAL;
    const char *why = lf__mpi_stream_refused(&ml->rank.sched);
    if (why || ml->rank.master) {
        if (tid == 0)
            fprintf(stderr, "loopfarm: lf_mpi_loop_begin_stream(\"%s\"): %s\n", ml->name,
                    why ? why : "the master mode runs no streams (it needs the trip count)");
        return -EINVAL;
    }
    return enter(ml, tid, UINT64_MAX, 0, 1, NULL, 1);
}

/* The instance a stream append of this rank goes to: the one its team is
 * in, else the next it will enter.  Under lock. */
static uint64_t stream_instance(const lf_mpi_loop *ml)
{
    return ml->cur > 0 && ml->left < ml->T ? ml->cur - 1 : ml->cur;
}

static int stream_op(lf_mpi_loop *ml, unsigned long count, int close)
{
    if (!ml)
        return -EINVAL;
    pthread_mutex_lock(&ml->lock); /* MPI one thread at a time */
    lf__mpi_stream_append(&ml->rank, stream_instance(ml), count, close);
    pthread_mutex_unlock(&ml->lock);
    return 0;
}

int lf_mpi_stream_append(lf_mpi_loop *ml, unsigned long count)
{
    return stream_op(ml, count, 0);
}

int lf_mpi_stream_close(lf_mpi_loop *ml)
{
    return stream_op(ml, 0, 1);
}

/* Thread tid enters the team's next instance: n iterations lo, lo + incr,
 * ... (a stream: n unknown), data d. */
static int enter(lf_mpi_loop *ml, int tid, uint64_t n, long lo, long incr, lf_mpi_data *d,
                 int stream)
{
    if (tid < 0 || tid >= ml->T || ml->m[tid].in)
        return -EINVAL;
    struct member *me = &ml->m[tid];
    uint64_t g = me->entered;
    unsigned spins = 0;
    int rc;
    for (;;) {
        pthread_mutex_lock(&ml->lock);
        if (ml->cur == g + 1) {
            /* The team's instance g is open: join it. */
            rc = ml->begin_rc;
            if (!rc && (ml->n != n || ml->data != d || ml->stream != stream ||
                        (n && (ml->lo != lo || ml->incr != incr))))
                rc = -ERANGE; /* not the bounds its team started with */
            break;
        }
        if (ml->cur == g && (g == 0 || ml->left == ml->T)) {
            /* The previous instance is over on this rank: open g. */
            ml->cur = g + 1;
            ml->joined = ml->left = 0;
            ml->n = n;
            ml->stream = stream;
            ml->lo = lo;
            ml->incr = incr;
            ml->data = d;
            ml->nseq = 0;
            ml->over = 0;
            ml->working = ml->T;
            ml->t_entry = MPI_Wtime();
            for (int i = 0; i < LF__MPI_RING; i++)
                ml->ring[i].seq = UINT64_MAX;
            /* Ranks that disagree on whether the loop has data would claim
             * from different counters: the fingerprint tells them apart. */
            uint64_t fp = fingerprint(n, lo, incr) ^ (uint64_t)stream ^ (d ? 2 : 0);
            rc = ml->begin_rc = lf__mpi_rank_begin(&ml->rank, n, stream, fp, d);
            ml->over = rc != 0; /* the rank left at once: no chunks */
            break;
        }
        pthread_mutex_unlock(&ml->lock);
        backoff(&spins);
    }
    ml->joined++;
    pthread_mutex_unlock(&ml->lock);
    me->entered++;
    me->in = 1;
    me->in_sub = 0;
    me->done = 0;
    me->working = 1;
    me->k = 0;
    if (rc)
        lf_mpi_loop_end(ml, tid); /* entered and left at once (passing its team's chunks) */
    return rc;
}

/* Thread left rank chunk k's sub-loop: the last one out completes the
 * chunk (chunks complete in claim order: every thread takes them in
 * order).  Under lock. */
static void leave_chunk(lf_mpi_loop *ml, uint64_t k)
{
    struct entry *e = &ml->ring[k % LF__MPI_RING];
    if (++e->left < ml->T)
        return;
    if (ml->data) {
        /* Its results go to their owners (seed 002's return). */
        double t = MPI_Wtime();
        lf__mpi_stage_out(ml->data, e->c.lo, e->c.n, &e->buf);
        e->c.stage_ns += (MPI_Wtime() - t) * 1e9;
    }
    lf__mpi_rank_done(&ml->rank, &e->c);
}

/* Whether entry e can take a new rank chunk: unused, or its chunk left
 * by the whole team. */
static int free_entry(const lf_mpi_loop *ml, const struct entry *e)
{
    return e->seq == UINT64_MAX || e->left == ml->T;
}

/* Wait before asking for a rank chunk again: for an owner that needs
 * about wait_ns to end its block, a quarter of that (at most 1 ms, so that
 * an owner that leaves early is noticed soon), letting the core go to the
 * owner where they share it; otherwise a backoff. */
static void wait_again(double wait_ns, unsigned *spins)
{
    if (wait_ns <= 0.0) {
        backoff(spins);
        return;
    }
    double ns = wait_ns / 4 < 1e6 ? wait_ns / 4 : 1e6;
    struct timespec ts = {0, ns > 1000 ? (long)ns : 1000};
    nanosleep(&ts, NULL);
}

/* Claim the rank's next chunk, number k, into the free entry e and stage
 * its input (its fetches left in flight with ahead): 1, 0 when the rank
 * level has no more (over is set), LF__MPI_WAIT.  Under lock. */
static int take(lf_mpi_loop *ml, struct entry *e, uint64_t k, int ahead)
{
    int got = lf__mpi_rank_claim(&ml->rank, &e->c);
    if (got == LF__MPI_WAIT)
        return got;
    if (!got) {
        ml->over = 1;
        return 0;
    }
    if (ml->data) {
        /* Its input, from its owners, before any thread computes it; the
         * others may still compute an earlier chunk. */
        double t = MPI_Wtime();
        e->c.remote = lf__mpi_stage_in(ml->data, e->c.lo, e->c.n, &e->buf, ahead);
        e->c.stage_ns = (MPI_Wtime() - t) * 1e9;
    }
    e->seq = k;
    e->left = 0;
    e->ahead = ahead;
    ml->nseq++;
    return 1;
}

/* Rank chunk k - 1 was just taken: where it pays (the loop has inputs and
 * that chunk's came from other ranks), claim chunk k now and leave its
 * fetches in flight while k - 1 computes (seed 003's overlap of a
 * transfer with the previous chunk's compute).  Under lock. */
static void prefetch(lf_mpi_loop *ml, uint64_t k)
{
    struct entry *prev = &ml->ring[(k - 1) % LF__MPI_RING], *e = &ml->ring[k % LF__MPI_RING];
    if (!ml->data || !ml->data->in_elem || ml->over || ml->nseq != k || !prev->c.remote ||
        !free_entry(ml, e))
        return;
    (void)take(ml, e, k, 1); /* LF__MPI_WAIT (a stream): no prefetch */
}

/* Rank chunk k for a thread: 1 and *c when there is one, 0 when the rank
 * level has no more.  The first working thread to ask claims it for the
 * team; a thread leaving early (skip) claims nothing: it waits for a
 * working one to claim, or, when none is left, ends the rank's share. */
static int chunk_of(lf_mpi_loop *ml, uint64_t k, struct lf__mpi_chunk *c, int skip)
{
    unsigned spins = 0;
    for (;;) {
        pthread_mutex_lock(&ml->lock);
        struct entry *e = &ml->ring[k % LF__MPI_RING];
        if (e->seq == k) {
            if (e->ahead) {
                /* Prefetched: its fetches complete now, its compute begins. */
                double t = MPI_Wtime();
                lf__mpi_stage_wait(&e->buf);
                e->c.t_claim = MPI_Wtime();
                e->c.stage_ns += (e->c.t_claim - t) * 1e9;
                e->ahead = 0;
                prefetch(ml, k + 1);
            }
            *c = e->c;
            pthread_mutex_unlock(&ml->lock);
            return 1;
        }
        if (k >= ml->nseq && ml->over) {
            pthread_mutex_unlock(&ml->lock);
            return 0;
        }
        if (k == ml->nseq && skip && ml->working == 0) {
            ml->over = 1; /* the whole team is leaving: the rest is the other ranks' */
            pthread_mutex_unlock(&ml->lock);
            return 0;
        }
        if (k == ml->nseq && !skip && free_entry(ml, e)) {
            int got = take(ml, e, k, 0);
            if (got == LF__MPI_WAIT) {
                /* A stream with nothing yet (let its producer in), or what
                 * is left is best left to its owner. */
                double ns = ml->rank.wait_ns;
                pthread_mutex_unlock(&ml->lock);
                wait_again(ns, &spins);
                continue;
            }
            if (got)
                prefetch(ml, k + 1);
            *c = e->c;
            pthread_mutex_unlock(&ml->lock);
            return got;
        }
        /* A thread LF__MPI_RING chunks behind still holds the entry. */
        pthread_mutex_unlock(&ml->lock);
        backoff(&spins);
    }
}

/* Thread me claims no more rank chunks (done, or leaving early). */
static void stop_working(lf_mpi_loop *ml, struct member *me)
{
    if (!me->working)
        return;
    me->working = 0;
    pthread_mutex_lock(&ml->lock);
    ml->working--;
    pthread_mutex_unlock(&ml->lock);
}

/* The sub-loop of a rank chunk of c iterations runs over [LONG_MIN,
 * LONG_MIN + c): any c up to ULONG_MAX fits, and logical index k within
 * the chunk is first - LONG_MIN. */
static long sub_hi(uint64_t c)
{
    return (long)((unsigned long)LONG_MIN + c);
}

/* How often a thread of a loop with data lets MPI progress (ns), and how
 * often, until another rank takes from this rank's block, it looks. */
#define POKE_NS 100000
#define PEEK_NS 1000000

/* Let MPI progress other ranks' fetches from this rank's blocks, at most
 * every POKE_NS per thread, only when no other thread of the team is in
 * MPI and only while others may be fetching from it (rank.c's served:
 * under owner-first, once one took from its block's back): a window over
 * the caller's memory (MPI_Win_create) may be served by a one-sided
 * component that needs its target to enter MPI (Open MPI's osc/pt2pt on
 * one node), and an owner computing its own block otherwise enters MPI
 * only at its next claim, so a fetch from it would wait for that long.  A
 * progress call may yield the core (mpi_yield_when_idle, which Open MPI
 * sets for oversubscribed ranks): hence not while nobody fetches. */
static void poke(lf_mpi_loop *ml, struct member *me)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (now - me->poked < (ml->rank.served ? POKE_NS : PEEK_NS) ||
        pthread_mutex_trylock(&ml->lock) != 0)
        return;
    me->poked = now;
    if (lf__mpi_rank_served(&ml->rank)) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, ml->data->comm, &flag, MPI_STATUS_IGNORE);
    }
    pthread_mutex_unlock(&ml->lock);
}

/* Thread tid's next chunk; with skip, enter and leave every remaining
 * rank chunk's sub-loop without taking any iteration (a thread leaving
 * early still lets its team's sub-loops close). */
static int next(lf_mpi_loop *ml, int tid, long *first, unsigned long *count, int skip)
{
    struct member *me = &ml->m[tid];
    me->has_chunk = 0;
    for (;;) {
        if (me->in_sub) {
            long f;
            unsigned long n;
            if (!skip && lf_loop_next(ml->sub, tid, &f, &n)) {
                uint64_t k = me->lo_k + ((unsigned long)f - (unsigned long)LONG_MIN);
                *first = (long)((unsigned long)ml->lo + k * (unsigned long)ml->incr);
                *count = n;
                me->first = k;
                me->has_chunk = 1;
                if (ml->data)
                    poke(ml, me);
                return 1;
            }
            lf_loop_end(ml->sub, tid);
            me->in_sub = 0;
            pthread_mutex_lock(&ml->lock);
            leave_chunk(ml, me->k);
            pthread_mutex_unlock(&ml->lock);
            me->k++;
        }
        if (me->done)
            return 0;
        struct lf__mpi_chunk c;
        if (!chunk_of(ml, me->k, &c, skip)) {
            me->done = 1;
            stop_working(ml, me);
            return 0;
        }
        me->lo_k = c.lo;
        if (lf_loop_begin(ml->sub, tid, LONG_MIN, sub_hi(c.n), 1) != 0) {
            /* Cannot happen: every thread enters the sub-loops in order
             * with the chunk's bounds.  Leave the chunk rather than spin. */
            pthread_mutex_lock(&ml->lock);
            leave_chunk(ml, me->k);
            pthread_mutex_unlock(&ml->lock);
            me->k++;
            continue;
        }
        me->in_sub = 1;
    }
}

int lf_mpi_loop_next(lf_mpi_loop *ml, int tid, long *first, unsigned long *count)
{
    if (!ml || tid < 0 || tid >= ml->T || !ml->m[tid].in || !first || !count)
        return 0;
    return next(ml, tid, first, count, 0);
}

void lf_mpi_loop_end(lf_mpi_loop *ml, int tid)
{
    if (!ml || tid < 0 || tid >= ml->T || !ml->m[tid].in)
        return;
    struct member *me = &ml->m[tid];
    long f;
    unsigned long n;
    stop_working(ml, me);
    if (!me->done || me->in_sub)
        (void)next(ml, tid, &f, &n, 1); /* early: pass the team's remaining chunks */
    me->in = 0;
    pthread_mutex_lock(&ml->lock);
    if (++ml->left == ml->T) {
        /* The team's last thread out: the rank leaves the instance. */
        if (ml->begin_rc == 0)
            lf__mpi_rank_end(&ml->rank);
        const struct lf__mpi_rank *r = &ml->rank;
        const struct lf__wstat *w = &r->w[r->win.rank];
        ml->last = (struct lf_mpi_stats){
            .iterations = ml->stream ? r->stream_items : ml->n,
            .rank_iters = r->iters,
            .rank_chunks = r->chunks,
            .staged_iters = r->staged_iters,
            .seconds = MPI_Wtime() - ml->t_entry,
            .claim_seconds = r->claim_s,
            .stage_seconds = r->stage_s,
            .ns_per_iter = r->iters ? r->busy_s * 1e9 / (double)r->iters : 0.0,
            .alpha_ns = lf__word_getd(&w->comp_lat_ns),
            .beta_ns = lf__word_getd(&w->stage_lat_ns),
            .stage_ns_per_iter = lf__word_getd(&w->stage_ns_per_iter),
            .from_memory = r->from_memory,
            .local_chunks = r->local_chunks,
            .remote_chunks = r->remote_chunks,
            .stage_peak_bytes = r->stage_peak,
            .owner_first = r->loc,
        };
    }
    pthread_mutex_unlock(&ml->lock);
}

/* Where element j of thread tid's current chunk is in a rank chunk's
 * buffer at base (elements of elem bytes). */
static char *elem_of(const lf_mpi_loop *ml, int tid, const char *base, size_t elem)
{
    const struct member *me = &ml->m[tid];
    const struct entry *e = &ml->ring[me->k % LF__MPI_RING];
    return base ? (char *)base + (me->first - e->c.lo) * elem : NULL;
}

const void *lf_mpi_loop_input(lf_mpi_loop *ml, int tid)
{
    if (!ml || tid < 0 || tid >= ml->T || !ml->m[tid].has_chunk || !ml->data)
        return NULL;
    return elem_of(ml, tid, ml->ring[ml->m[tid].k % LF__MPI_RING].buf.in_at, ml->data->in_elem);
}

void *lf_mpi_loop_output(lf_mpi_loop *ml, int tid)
{
    if (!ml || tid < 0 || tid >= ml->T || !ml->m[tid].has_chunk || !ml->data)
        return NULL;
    return elem_of(ml, tid, ml->ring[ml->m[tid].k % LF__MPI_RING].buf.out_at, ml->data->out_elem);
}

int lf_mpi_loop_last_stats(const lf_mpi_loop *ml, struct lf_mpi_stats *out)
{
    if (!ml || !out)
        return -EINVAL;
    pthread_mutex_lock((pthread_mutex_t *)&ml->lock);
    *out = ml->last;
    pthread_mutex_unlock((pthread_mutex_t *)&ml->lock);
    return 0;
}
