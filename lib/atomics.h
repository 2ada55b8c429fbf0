/* lib/atomics.h - the one place where loopfarm touches memory ordering.
 *
 * Every read-modify-write and fence in the library goes through these
 * wrappers so that the order each one promises is visible at the call site
 * (the suffix names it) and can be audited in one file.  Types are plain C11
 * atomics; the wrappers only fix the memory order explicitly.
 */
#ifndef LF_ATOMICS_H
#define LF_ATOMICS_H

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* Size of a destructive-interference unit; hot words and per-thread slots
 * are padded to it so that two writers never share a line. */
#define LF__CACHELINE 64
#define LF__ALIGNED   __attribute__((aligned(LF__CACHELINE)))

typedef _Atomic uint64_t lf__au64;
typedef _Atomic uint32_t lf__au32;
typedef _Atomic int lf__aint;
typedef void *_Atomic lf__aptr;

/* Relaxed: statistics and counters whose readers tolerate staleness. */
static inline uint64_t lf__load_relaxed(const lf__au64 *p)
{
    return atomic_load_explicit((lf__au64 *)p, memory_order_relaxed);
}
static inline void lf__store_relaxed(lf__au64 *p, uint64_t v)
{
    atomic_store_explicit(p, v, memory_order_relaxed);
}

/* Acquire/release: publication of state initialised by one thread. */
static inline uint64_t lf__load_acquire(const lf__au64 *p)
{
    return atomic_load_explicit((lf__au64 *)p, memory_order_acquire);
}
static inline void lf__store_release(lf__au64 *p, uint64_t v)
{
    atomic_store_explicit(p, v, memory_order_release);
}
static inline void *lf__loadp_acquire(lf__aptr *p)
{
    return atomic_load_explicit(p, memory_order_acquire);
}
static inline void lf__storep_release(lf__aptr *p, void *v)
{
    atomic_store_explicit(p, v, memory_order_release);
}
static inline int lf__casp_acq_rel(lf__aptr *p, void **expect, void *desired)
{
    return atomic_compare_exchange_strong_explicit(p, expect, desired, memory_order_acq_rel,
                                                   memory_order_acquire);
}
static inline void *lf__xchgp_acq_rel(lf__aptr *p, void *desired)
{
    return atomic_exchange_explicit(p, desired, memory_order_acq_rel);
}

/* Fences, for a store to one word that must be seen by whoever sees a
 * later relaxed read-modify-write of another (a lease marked "claiming"
 * before the claim from the shared counter): a release fence after the
 * store, an acquire fence after the load of the other word. */
static inline void lf__fence_release(void)
{
    atomic_thread_fence(memory_order_release);
}
static inline void lf__fence_acquire(void)
{
    atomic_thread_fence(memory_order_acquire);
}

/* Fetch-and-add used by the chunk claim: relaxed is enough because the
 * iteration range it hands out is the only thing it protects, and the
 * loop's parameters were published before (acquire at loop entry). */
static inline uint64_t lf__fetch_add_relaxed(lf__au64 *p, uint64_t v)
{
    return atomic_fetch_add_explicit(p, v, memory_order_relaxed);
}
/* Fetch-and-add that orders everything this thread did before it ahead of
 * whoever observes the new value (the last thread out of a loop). */
static inline uint64_t lf__fetch_add_acq_rel(lf__au64 *p, uint64_t v)
{
    return atomic_fetch_add_explicit(p, v, memory_order_acq_rel);
}
/* Fetch-and-subtract with the same ordering as lf__fetch_add_acq_rel. */
static inline uint64_t lf__fetch_sub_acq_rel(lf__au64 *p, uint64_t v)
{
    return atomic_fetch_sub_explicit(p, v, memory_order_acq_rel);
}
/* Weak CAS of the claim loop; on failure *expect gets the current value. */
static inline int lf__cas_weak_relaxed(lf__au64 *p, uint64_t *expect, uint64_t desired)
{
    return atomic_compare_exchange_weak_explicit(p, expect, desired, memory_order_relaxed,
                                                 memory_order_relaxed);
}
/* Strong CAS that publishes (release) and observes (acquire). */
static inline int lf__cas_acq_rel(lf__au64 *p, uint64_t *expect, uint64_t desired)
{
    return atomic_compare_exchange_strong_explicit(p, expect, desired, memory_order_acq_rel,
                                                   memory_order_acquire);
}

/* Doubles travel through 64-bit atomics as bit patterns. */
static inline uint64_t lf__dbits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}
static inline double lf__bitsd(uint64_t u)
{
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}
static inline double lf__loadd_relaxed(const lf__au64 *p)
{
    return lf__bitsd(lf__load_relaxed(p));
}
static inline void lf__stored_relaxed(lf__au64 *p, double d)
{
    lf__store_relaxed(p, lf__dbits(d));
}

/* Polite busy-wait step: pause the pipeline (lf__backoff and
 * lf__wait_brief give the core away after many of them, which is essential
 * when threads outnumber cores). */
static inline void lf__cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Spin politely; after a while give the core away, since a waiting thread
 * may be keeping the one it waits for off the CPU. */
static inline void lf__backoff(unsigned *spins)
{
    if (++*spins < 64)
        lf__cpu_relax();
    else
        sched_yield();
}

/* Spins a thread waits without yielding for another's brief step (a few
 * hundred microseconds at most), before it backs off as lf__backoff does:
 * a step that takes longer was descheduled, and then yielding is right. */
#define LF__BRIEF_SPINS (1u << 14)

/* One step of a wait for another thread's brief step: a slot's
 * initialisation, a handle being loaned to the team, a claim between its
 * mark and its lease, a shim's bounds or call-site label being written.  Yielding at once would
 * hand a core shared with another process to that process for its whole time slice
 * (doc/design.md, "Brief waits spin"). */
static inline void lf__wait_brief(unsigned *spins)
{
    if (*spins < LF__BRIEF_SPINS) {
        ++*spins;
        lf__cpu_relax();
        return;
    }
    lf__backoff(spins);
}

#endif
