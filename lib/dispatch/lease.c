/* lib/dispatch/lease.c - chunks as leases: the owner runs its chunk in
 * pieces from the front, an idle member takes the back.
 *
 * Each member of a leasing instance has one lease word in the slot, on a
 * cache line of its own, that packs the logical range [front, back) it has
 * claimed and not yet handed to its body: front in the low 32 bits, back in
 * the high 32 (trip counts up to LF__LEASE_MAXN, lib/exec/exec.h).  Both
 * ends are absolute iteration numbers, and an iteration is in at most one
 * lease at a time, so a lease word never takes the same non-empty value
 * twice and a compare-and-swap that succeeds always acts on the range it
 * read (no ABA).  The owner advances front with a CAS when it takes a
 * piece; a thief lowers back with a CAS and keeps [new back, old back).
 *
 * Who may leave.  A member leaves the instance when the shared counter is
 * exhausted and every other lease is empty.  Between its claim from the
 * counter and the store of the new lease, a member's word reads CLAIMING
 * (marked before the claim, with a release fence), so that a member that
 * saw the counter exhausted (and then an acquire fence) sees either the
 * mark or the lease, never the empty word of before: it waits out a mark,
 * which lasts one claim.  A thief's new lease needs no mark: it takes at
 * most half of a lease of two or more, so the lease it took from is not
 * empty when the thief's own is not yet stored, and a lease of one is
 * handed to its thief's body at once.  So a member that leaves early (its
 * body broke out) leaves its lease to those still in the instance, and
 * nobody leaves while a lease holds work it could take.
 *
 * Cost while nobody is idle: a plain store of the mark and one of the
 * lease per chunk, and a CAS on the owner's own line per piece; the claim
 * from the shared counter stays one atomic.
 */
#include "config.h"

#include "dispatch/dispatch.h"

#define LEASE_EMPTY    0ULL
#define LEASE_CLAIMING UINT64_MAX /* front = back = 2^32 - 1: no real range */

static inline uint64_t pack(uint64_t front, uint64_t back)
{
    return back << 32 | front;
}
static inline uint64_t front_of(uint64_t w)
{
    return w & 0xffffffffu;
}
static inline uint64_t back_of(uint64_t w)
{
    return w >> 32;
}
/* Iterations a lease word holds (0 for the empty word and the mark). */
static inline uint64_t left_in(uint64_t w)
{
    return w == LEASE_CLAIMING || front_of(w) >= back_of(w) ? 0 : back_of(w) - front_of(w);
}

void lf__lease_mark(struct lf__slot *s, int tid)
{
    lf__store_relaxed(&s->lease[tid].range, LEASE_CLAIMING);
    /* Release: the mark is visible to whoever sees the claim that follows
     * on the shared counter (it reads the counter, then fences acquire). */
    lf__fence_release();
}

uint64_t lf__lease_install(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t c,
                           uint64_t first)
{
    struct lf__thr *th = &l->thr[tid];
    uint64_t p =
        c ? lf__exec_piece(&s->ex, tid, (enum lf__lease_mode)s->lease_mode, c, c, th->piece_n) : 0;
    if (first && p > first)
        p = first;
    /* Relaxed: the range is the only thing the word hands out. */
    lf__store_relaxed(&s->lease[tid].range, p < c ? pack(lo + p, lo + c) : LEASE_EMPTY);
    th->run_n = p;
    th->chunk_pieces = p ? 1 : 0;
    return p;
}

uint64_t lf__lease_piece(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo)
{
    struct lf__thr *th = &l->thr[tid];
    lf__au64 *word = &s->lease[tid].range;
    uint64_t w = lf__load_relaxed(word);
    for (;;) {
        uint64_t rem = left_in(w);
        if (!rem)
            return 0;
        uint64_t p = lf__exec_piece(&s->ex, tid, (enum lf__lease_mode)s->lease_mode, th->chunk_n,
                                    rem, th->piece_n);
        /* Relaxed: the range is the only thing the word hands out; a thief
         * that lowered back makes this fail and we retry with its value. */
        if (lf__cas_weak_relaxed(word, &w, pack(front_of(w) + p, back_of(w)))) {
            *lo = front_of(w);
            th->run_n += p;
            th->chunk_pieces++;
            return p;
        }
    }
}

uint64_t lf__lease_steal(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t *lo, int *victim)
{
    unsigned spins = 0;
    for (;;) {
        /* Acquire (with the fence): a lease marked before a claim that
         * exhausted the counter, or the lease stored after it, is seen. */
        (void)lf__load_relaxed(&s->next);
        lf__fence_acquire();
        int best = -1, marked = 0;
        uint64_t best_left = 0, best_w = 0;
        for (int t = 0; t < l->P; t++) {
            if (t == tid)
                continue;
            uint64_t w = lf__load_relaxed(&s->lease[t].range);
            marked |= w == LEASE_CLAIMING;
            if (left_in(w) > best_left) {
                best = t;
                best_left = left_in(w);
                best_w = w;
            }
        }
        if (best < 0) {
            if (!marked)
                return 0;
            lf__wait_brief(&spins); /* a claim in progress: its lease comes next */
            continue;
        }
        uint64_t take = lf__exec_steal_size(best_left), back = back_of(best_w);
        /* Relaxed: the range is the only thing the word hands out; a CAS
         * that fails (the owner took a piece, another thief came first)
         * rescans. */
        if (lf__cas_weak_relaxed(&s->lease[best].range, &best_w,
                                 pack(front_of(best_w), back - take))) {
            *lo = back - take;
            *victim = best;
            return take;
        }
    }
}
