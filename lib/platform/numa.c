/* lib/platform/numa.c - NUMA domains: which one a thread runs on, where an
 * allocation lives, and (under LF_FAKE_NUMA) what reading remote data costs.
 *
 * Real mode asks hwloc: its NUMA nodes are the domains, lf_numa_alloc binds
 * pages with hwloc_alloc_membind when there are two or more, and
 * lf_numa_node_of asks where a page lies.  Fake mode makes the domains up:
 * the PUs, in topology order, are split into N groups; allocations are plain
 * anonymous mappings, and a registry remembers which domain each was made
 * for (or lf_numa_place moved it to).  On a one-node machine, such as the
 * one loopfarm is developed on, real mode leaves no locality to schedule
 * for: heterogeneity there is produced, not found.
 *
 * The registry is read lock-free (lf_numa_node_of and lf_numa_charge run on
 * the dispatcher's paths); a mutex only serialises its writers,
 * lf_numa_alloc, lf_numa_free and lf_numa_place.
 */
#define _GNU_SOURCE
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifdef LF_HAVE_HWLOC
#include <hwloc.h>
#endif

#include "loopfarm.h"
#include "atomics.h"
#include "platform/numa.h"
#include "platform/platform.h"

/* Bounds on the emulated costs: beyond them a remote read would spin for
 * longer than any experiment waits (lat) or charge more than a second per
 * kilobyte (gbps). */
#define FAKE_LAT_MAX  1e7
#define FAKE_GBPS_MIN 1e-3
#define FAKE_GBPS_MAX 1e4
#define FAKE_FORM     "N[,lat=NS][,gbps=G] with N >= 1, 0 <= NS <= 1e7 (10 ms) and 0.001 <= G <= 10000"

/* One domain's port: the lf__clock_ns() time until which it is busy with
 * transfers already granted.  Every remote reader of the domain CASes it,
 * so each sits on a cache line of its own. */
struct port {
    lf__au64 busy_until;
} LF__ALIGNED;

static pthread_once_t numa_once = PTHREAD_ONCE_INIT;
/* Written by load_state (once, or by the test reset), read-only after. */
static struct {
    int ndom;                 /* domains (>= 1) */
    int fake;                 /* LF_FAKE_NUMA in force */
    int membind;              /* real mode: bind allocations through hwloc */
    struct lf__fake_numa cfg; /* fake mode's figures */
    int *pu_dom;              /* domain of each PU, by OS index */
    int npu_dom;              /* entries of pu_dom */
    struct port *ports;       /* fake mode: ndom ports */
    char status[256];
} st;
static uintptr_t page_bytes = 4096; /* the page size, set by load_state */

/* ---- LF_FAKE_NUMA ---- */

/* Turn *out off, describe what is wrong with s in err, return -EINVAL. */
static int parse_fail(struct lf__fake_numa *out, char *err, size_t errlen, const char *s,
                      const char *why)
{
    out->ndom = 0;
    if (err && errlen)
        snprintf(err, errlen, "LF_FAKE_NUMA: expected %s; \"%s\": %s", FAKE_FORM, s, why);
    return -EINVAL;
}

/* Read a non-negative decimal number at p (digits, optional fraction and
 * exponent; no sign, no "inf"/"nan") into *v; return the end, or NULL. */
static const char *parse_number(const char *p, double *v)
{
    if (!isdigit((unsigned char)*p) && *p != '.')
        return NULL;
    char *end;
    errno = 0;
    *v = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(*v))
        return NULL;
    return end;
}

int lf__numa_parse(const char *s, struct lf__fake_numa *out, char *err, size_t errlen)
{
    out->ndom = 0;
    out->lat_ns = LF__NUMA_DEFAULT_LAT_NS;
    out->gbps = LF__NUMA_DEFAULT_GBPS;
    if (err && errlen)
        err[0] = '\0';
    if (!s || !*s)
        return 0;
    if (!isdigit((unsigned char)*s))
        return parse_fail(out, err, errlen, s, "N is not a whole number >= 1");
    char *end;
    errno = 0;
    long n = strtol(s, &end, 10);
    if (errno == ERANGE || n > INT_MAX)
        return parse_fail(out, err, errlen, s, "N is too large");
    if (n < 1)
        return parse_fail(out, err, errlen, s, "N is not a whole number >= 1");
    const char *p = end;
    while (*p == ',') {
        p++;
        double v;
        const char *q;
        if (strncmp(p, "lat=", 4) == 0) {
            q = parse_number(p + 4, &v);
            if (!q || (*q && *q != ','))
                return parse_fail(out, err, errlen, s, "lat is not a number of ns >= 0");
            if (v > FAKE_LAT_MAX)
                return parse_fail(out, err, errlen, s, "lat is above 1e7 ns");
            out->lat_ns = v;
        } else if (strncmp(p, "gbps=", 5) == 0) {
            q = parse_number(p + 5, &v);
            if (!q || (*q && *q != ',') || !(v > 0.0))
                return parse_fail(out, err, errlen, s, "gbps is not a number of GB/s > 0");
            if (v < FAKE_GBPS_MIN || v > FAKE_GBPS_MAX)
                return parse_fail(out, err, errlen, s, "gbps is outside [0.001, 10000]");
            out->gbps = v;
        } else {
            return parse_fail(out, err, errlen, s, "unknown or empty key (lat=, gbps=)");
        }
        p = q;
    }
    if (*p)
        return parse_fail(out, err, errlen, s, "unexpected text after N");
    out->ndom = (int)n;
    return 0;
}

int lf__numa_split(int npus, int ndom, int pos)
{
    if (npus < 1 || ndom < 1 || ndom > npus || pos < 0 || pos >= npus)
        return -1;
    int q = npus / ndom, r = npus % ndom;
    int big = r * (q + 1); /* PUs in the first r groups, q + 1 each */
    return pos < big ? pos / (q + 1) : r + (pos - big) / q;
}

/* ---- Process-wide state ---- */

/* Fill st from the topology and LF_FAKE_NUMA (reporting a bad value). */
static void load_state(void)
{
    const struct lf__topo_info *t = lf__topo();
    free(st.pu_dom);
    free(st.ports);
    st.pu_dom = NULL;
    st.ports = NULL;
    st.npu_dom = 0;
    st.ndom = 1;
    st.fake = 0;
    st.membind = 0;
    long pg = sysconf(_SC_PAGESIZE);
    if (pg > 0 && (pg & (pg - 1)) == 0)
        page_bytes = (uintptr_t)pg;

    const char *env = lf__env(LF__ENV_FAKE_NUMA);
    char err[256];
    struct lf__fake_numa cfg;
    int asked = 0;
    if (lf__numa_parse(env, &cfg, err, sizeof err) != 0) {
        fprintf(stderr, "loopfarm: %s; fake NUMA is off\n", err);
        lf__env_rejected(LF__ENV_FAKE_NUMA, "off: the machine's NUMA nodes");
    }
    if (cfg.ndom > t->npus) {
        fprintf(stderr,
                "loopfarm: LF_FAKE_NUMA=\"%s\" asks for %d domains but there are %d PUs; "
                "using %d fake domains\n",
                env, cfg.ndom, t->npus, t->npus);
        asked = cfg.ndom;
        cfg.ndom = t->npus;
    }
    st.cfg = cfg;

    int maxos = -1;
    for (int pos = 0; pos < t->npus; pos++)
        if (lf__topo_pu_at(pos) > maxos)
            maxos = lf__topo_pu_at(pos);
    if (maxos >= 0)
        st.pu_dom = calloc((size_t)maxos + 1, sizeof *st.pu_dom);
    if (st.pu_dom)
        st.npu_dom = maxos + 1;

    if (cfg.ndom >= 1) {
        st.ports = aligned_alloc(LF__CACHELINE, (size_t)cfg.ndom * sizeof *st.ports);
        if (!st.ports) {
            fprintf(stderr, "loopfarm: LF_FAKE_NUMA: out of memory; fake NUMA is off\n");
        } else {
            st.fake = 1;
            st.ndom = cfg.ndom;
            for (int d = 0; d < cfg.ndom; d++)
                lf__store_relaxed(&st.ports[d].busy_until, 0);
            for (int pos = 0; pos < t->npus && st.pu_dom; pos++) {
                int os = lf__topo_pu_at(pos);
                if (os >= 0)
                    st.pu_dom[os] = lf__numa_split(t->npus, cfg.ndom, pos);
            }
            snprintf(st.status, sizeof st.status,
                     "%d fake domain%s (LF_FAKE_NUMA=%.40s): remote transfer %.0f ns + %.2f "
                     "ns/byte, one port per domain%s",
                     st.ndom, st.ndom == 1 ? "" : "s", env, cfg.lat_ns, 1.0 / cfg.gbps,
                     asked ? " (clamped to the PU count)" : "");
            return;
        }
    }

#ifdef LF_HAVE_HWLOC
    hwloc_topology_t topo = lf__topo_hwloc();
    if (topo) {
        int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        for (int i = 0; i < nn && st.pu_dom; i++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
            if (!node || !node->cpuset)
                continue;
            for (int os = hwloc_bitmap_first(node->cpuset); os >= 0;
                 os = hwloc_bitmap_next(node->cpuset, os))
                if (os < st.npu_dom)
                    st.pu_dom[os] = i;
        }
        st.ndom = nn > 1 ? nn : 1;
        st.membind = nn > 1;
        snprintf(st.status, sizeof st.status, "%d NUMA node%s (hwloc)%s", st.ndom,
                 st.ndom == 1 ? "" : "s",
                 st.membind ? ": lf_numa_alloc binds pages with hwloc_alloc_membind" : "");
        return;
    }
    snprintf(st.status, sizeof st.status, "1 domain (hwloc topology failed to load)");
#else
    snprintf(st.status, sizeof st.status, "1 domain (built without hwloc)");
#endif
}

/* Whether the machine has one NUMA node and LF_FAKE_NUMA is unset, as the
 * kernel's node list says: then the domain count needs no topology. */
static pthread_once_t one_node_once = PTHREAD_ONCE_INIT;
static int one_node;

static void find_one_node(void)
{
    one_node = 0;
    if (lf__env(LF__ENV_FAKE_NUMA))
        return;
    char line[64];
    if (lf__read_text("/sys/devices/system/node/online", line, sizeof line) < 0) {
        one_node = 1; /* a kernel without NUMA */
        return;
    }
    /* "0" is one node; "0-1" or "0,2" are several. */
    if (strcspn(line, "-,") == strlen(line))
        one_node = 1;
}

static inline void numa_init(void)
{
    pthread_once(&numa_once, load_state);
}

void lf__numa_reset_for_tests(void)
{
    /* A first call only runs the once (so a bad value is reported once). */
    int loaded = st.status[0] != '\0';
    lf__env_reset_for_tests(LF__ENV_FAKE_NUMA);
    pthread_once(&one_node_once, find_one_node);
    find_one_node();
    numa_init();
    if (loaded)
        load_state();
}

double lf__numa_remote_cost_ns(size_t bytes)
{
    numa_init();
    if (!st.fake)
        return 0.0;
    return st.cfg.lat_ns + (double)bytes / st.cfg.gbps;
}

const char *lf__numa_status(void)
{
    numa_init();
    return st.status;
}

/* ---- Registry of allocations and placements ---- */

/* An entry is an allocation lf_numa_alloc made (tracked under LF_FAKE_NUMA,
 * or when hwloc made it) or, under LF_FAKE_NUMA, a range lf_numa_place
 * moved: [lo, hi) and a tag, domain << 2 | TAG_PLACED | TAG_HWLOC.  Placed
 * ranges never overlap one another and take precedence over the allocation
 * they lie in.  lo == hi == 0 is a free slot; lo == hi == 1 a slot reserved
 * by an lf_numa_alloc in flight.
 *
 * Each entry is a tiny seqlock: the mutex holder (the only writer) makes
 * seq odd, rewrites the fields, makes it even again; readers retry when seq
 * moved under them, so lookups take no lock. */
#define TAG_HWLOC  1u
#define TAG_PLACED 2u
#define TAG_DOM(t) ((int)((t) >> 2))

struct reg_entry {
    lf__au64 seq;
    lf__au64 lo, hi;
    lf__au64 tag;
};

static struct reg_entry reg[LF__NUMA_REGISTRY_CAP];
static lf__au64 reg_used; /* slots [0, reg_used) have been used at some time */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static int reg_full_reported; /* under reg_lock */

static uintptr_t page_down(uintptr_t a)
{
    return a & ~(page_bytes - 1);
}

/* The end of the page holding a - 1 (0 when that wraps around). */
static uintptr_t page_up(uintptr_t a)
{
    return (a + page_bytes - 1) & ~(page_bytes - 1);
}

/* Rewrite entry e; the caller holds reg_lock. */
static void reg_write(struct reg_entry *e, uint64_t lo, uint64_t hi, uint64_t tag)
{
    uint64_t s = lf__load_relaxed(&e->seq);
    lf__store_relaxed(&e->seq, s + 1);
    /* Release stores: each keeps the odd seq above ahead of itself, so a
     * reader that sees any new field also sees seq moved when it checks. */
    lf__store_release(&e->lo, lo);
    lf__store_release(&e->hi, hi);
    lf__store_release(&e->tag, tag);
    /* Release: the fields above are visible before the even seq is. */
    lf__store_release(&e->seq, s + 2);
}

/* A consistent copy of entry e; -1 while a writer is rewriting it (then its
 * old range is being freed or trimmed, or its new one is not handed out
 * yet, so no address a caller may legitimately look up depends on it). */
static int reg_read(struct reg_entry *e, uint64_t *lo, uint64_t *hi, uint64_t *tag)
{
    for (;;) {
        /* Acquire: the field loads below stay after this one. */
        uint64_t s = lf__load_acquire(&e->seq);
        if (s & 1)
            return -1;
        /* Acquire loads: the seq re-check stays after all three. */
        *lo = lf__load_acquire(&e->lo);
        *hi = lf__load_acquire(&e->hi);
        *tag = lf__load_acquire(&e->tag);
        if (lf__load_relaxed(&e->seq) == s)
            return 0;
        /* torn: read the entry again */
    }
}

/* Tag of what covers address a (a placed range before an allocation);
 * 0 when found, -1 when nothing does. */
static int reg_find(uintptr_t a, uint64_t *tag)
{
    /* Acquire pairs with the release that grew reg_used (the slots start
     * zeroed, so this only keeps the scan within slots in use). */
    uint64_t n = lf__load_acquire(&reg_used);
    int found = -1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t lo, hi, tg;
        if (reg_read(&reg[i], &lo, &hi, &tg) != 0 || a < lo || a >= hi)
            continue;
        *tag = tg;
        found = 0;
        if (tg & TAG_PLACED)
            break;
    }
    return found;
}

/* Report, once per process, that the registry is full. */
static void reg_report_full_locked(void)
{
    if (reg_full_reported)
        return;
    reg_full_reported = 1;
    fprintf(stderr,
            "loopfarm: lf_numa: more than %d live allocations and placed ranges; further "
            "allocations are not tracked (under LF_FAKE_NUMA they count as domain 0; NUMA nodes "
            "do not bind them) and lf_numa_place refuses with ENOMEM\n",
            LF__NUMA_REGISTRY_CAP);
}

/* A free slot other than avoid, growing the used range if need be; -1 when
 * none is left.  The caller holds reg_lock. */
static int reg_free_slot_locked(int avoid)
{
    uint64_t n = lf__load_relaxed(&reg_used);
    for (uint64_t i = 0; i < n; i++)
        if ((int)i != avoid && lf__load_relaxed(&reg[i].hi) == 0)
            return (int)i;
    if (n >= LF__NUMA_REGISTRY_CAP)
        return -1;
    /* Release: publishes the larger scan range to reg_find. */
    lf__store_release(&reg_used, n + 1);
    return (int)n;
}

/* Take [lo, hi) out of every placed range but slot keep.  A range that
 * sticks out on both sides keeps its right part in a free slot (written
 * before the left part is trimmed, so it stays covered throughout), or
 * loses it when the registry is full.  The caller holds reg_lock. */
static void reg_unplace_locked(uint64_t lo, uint64_t hi, int keep)
{
    uint64_t n = lf__load_relaxed(&reg_used);
    for (uint64_t i = 0; i < n; i++) {
        struct reg_entry *e = &reg[i];
        uint64_t a = lf__load_relaxed(&e->lo), b = lf__load_relaxed(&e->hi);
        uint64_t tg = lf__load_relaxed(&e->tag);
        if ((int)i == keep || !(tg & TAG_PLACED) || b <= lo || a >= hi)
            continue;
        if (a >= lo && b <= hi) {
            reg_write(e, 0, 0, 0);
        } else if (a < lo && b > hi) {
            int s = reg_free_slot_locked((int)i);
            if (s >= 0)
                reg_write(&reg[s], hi, b, tg);
            else
                reg_report_full_locked();
            reg_write(e, a, lo, tg);
        } else if (a < lo) {
            reg_write(e, a, lo, tg);
        } else {
            reg_write(e, hi, b, tg);
        }
    }
}

/* Reserve a slot for an allocation about to be made; its index, or -1 when
 * the registry is full (reported once). */
static int reg_reserve(void)
{
    pthread_mutex_lock(&reg_lock);
    int slot = reg_free_slot_locked(-1);
    if (slot >= 0)
        reg_write(&reg[slot], 1, 1, 0);
    else
        reg_report_full_locked();
    pthread_mutex_unlock(&reg_lock);
    return slot;
}

/* Record allocation [lo, hi) in its reserved slot, dropping placements left
 * over from memory that used to be there; hi == 0 gives the slot back. */
static void reg_set(int slot, uint64_t lo, uint64_t hi, uint64_t tag)
{
    pthread_mutex_lock(&reg_lock);
    if (hi)
        reg_unplace_locked(lo, page_up(hi), slot);
    reg_write(&reg[slot], lo, hi, tag);
    pthread_mutex_unlock(&reg_lock);
}

/* Forget the allocation [p, p + bytes) and the placements inside it; the
 * allocation's tag, or -1 when it was not tracked. */
static int64_t reg_remove(uintptr_t p, size_t bytes)
{
    int64_t tag = -1;
    pthread_mutex_lock(&reg_lock);
    uint64_t n = lf__load_relaxed(&reg_used);
    for (uint64_t i = 0; i < n; i++) {
        struct reg_entry *e = &reg[i];
        uint64_t tg = lf__load_relaxed(&e->tag);
        if (lf__load_relaxed(&e->lo) == p && lf__load_relaxed(&e->hi) > p && !(tg & TAG_PLACED)) {
            tag = (int64_t)tg;
            reg_write(e, 0, 0, 0);
            break;
        }
    }
    reg_unplace_locked(p, page_up(p + bytes) ? page_up(p + bytes) : UINT64_MAX, -1);
    pthread_mutex_unlock(&reg_lock);
    return tag;
}

/* Record pages [lo, hi) as domain node's.  Same-domain placed ranges that
 * overlap or touch it merge into one entry (so placing the same layout
 * again and again costs no slots); other domains' ranges are trimmed
 * after the new entry is visible, so a concurrent lookup sees the old
 * domain or the new one.  0, or -ENOMEM (registry full; nothing changed). */
static int reg_place(uint64_t lo, uint64_t hi, int node)
{
    uint64_t tag = (uint64_t)node << 2 | TAG_PLACED;
    uint64_t nlo = lo, nhi = hi;
    int slot = -1, split = 0, rc = 0;
    pthread_mutex_lock(&reg_lock);
    uint64_t n = lf__load_relaxed(&reg_used);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t a = lf__load_relaxed(&reg[i].lo), b = lf__load_relaxed(&reg[i].hi);
        uint64_t tg = lf__load_relaxed(&reg[i].tag);
        if (!(tg & TAG_PLACED))
            continue;
        if (tg == tag && b >= lo && a <= hi) {
            nlo = a < nlo ? a : nlo;
            nhi = b > nhi ? b : nhi;
            if (slot < 0)
                slot = (int)i;
        } else if (tg != tag && a < lo && b > hi) {
            split = 1;
        }
    }
    /* Room for everything first, so that a refusal changes nothing. */
    if (slot < 0)
        slot = reg_free_slot_locked(-1);
    if (slot < 0 || (split && reg_free_slot_locked(slot) < 0)) {
        reg_report_full_locked();
        rc = -ENOMEM;
    } else {
        reg_write(&reg[slot], nlo, nhi, tag);
        reg_unplace_locked(nlo, nhi, slot);
    }
    pthread_mutex_unlock(&reg_lock);
    return rc;
}

/* ---- Public API ---- */

int lf_numa_count(void)
{
    pthread_once(&one_node_once, find_one_node);
    if (one_node)
        return 1;
    numa_init();
    return st.ndom;
}

int lf_numa_self(void)
{
    numa_init();
    if (st.ndom < 2)
        return 0;
    int cpu = sched_getcpu();
    return cpu >= 0 && cpu < st.npu_dom ? st.pu_dom[cpu] : 0;
}

int lf_numa_fake(void)
{
    numa_init();
    return st.fake;
}

#ifdef LF_HAVE_HWLOC
/* Logical index of the NUMA node holding the page at addr; -1 unknown. */
static int hwloc_node_of(hwloc_topology_t topo, const void *addr)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    int node = -1;
    if (set && hwloc_get_area_memlocation(topo, (const void *)page_down((uintptr_t)addr),
                                          page_bytes, set, HWLOC_MEMBIND_BYNODESET) == 0) {
        int os = hwloc_bitmap_first(set);
        hwloc_obj_t obj = os >= 0 ? hwloc_get_numanode_obj_by_os_index(topo, (unsigned)os) : NULL;
        if (obj)
            node = (int)obj->logical_index;
    }
    hwloc_bitmap_free(set);
    return node;
}
#endif

int lf_numa_node_of(const void *addr)
{
    numa_init();
    if (st.fake) {
        uint64_t tag;
        if (reg_find((uintptr_t)addr, &tag) != 0)
            return 0; /* other memory counts as domain 0 */
        int d = TAG_DOM(tag);
        return d < st.ndom ? d : 0;
    }
#ifdef LF_HAVE_HWLOC
    hwloc_topology_t topo = lf__topo_hwloc();
    if (topo)
        return hwloc_node_of(topo, addr);
#endif
    return 0; /* one domain: every page is on it */
}

/* bytes of zeroed memory for domain node.  Real mode with two or more hwloc
 * nodes binds it there (HWLOC_MEMBIND_BIND); otherwise it is an anonymous
 * mapping, which under LF_FAKE_NUMA the registry tags with node.  When the
 * registry is full (LF__NUMA_REGISTRY_CAP live entries) the memory is still
 * returned, as a plain mapping that is not tracked: under LF_FAKE_NUMA it
 * then counts as domain 0, in real mode it is unbound; a message says so
 * once.  Nothing is ever mis-freed: what the registry does not know was
 * mapped with mmap. */
void *lf_numa_alloc(size_t bytes, int node)
{
    numa_init();
    if (node < 0 || node >= st.ndom || bytes == 0) {
        errno = EINVAL;
        return NULL;
    }
    int slot = st.fake || st.membind ? reg_reserve() : -1;
    void *p = NULL;
    uint64_t tag = (uint64_t)node << 2;
#ifdef LF_HAVE_HWLOC
    if (!st.fake && st.membind && slot >= 0) {
        hwloc_topology_t topo = lf__topo_hwloc();
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)node);
        if (obj && obj->nodeset) {
            p = hwloc_alloc_membind(topo, bytes, obj->nodeset, HWLOC_MEMBIND_BIND,
                                    HWLOC_MEMBIND_BYNODESET);
            if (!p) {
                int e = errno;
                reg_set(slot, 0, 0, 0);
                errno = e;
                return NULL;
            }
            /* hwloc may fall back to the heap, which is not zeroed; the
             * writes also place the pages under the binding now. */
            memset(p, 0, bytes);
            tag |= TAG_HWLOC;
        }
    }
#endif
    if (!p) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            if (slot >= 0)
                reg_set(slot, 0, 0, 0);
            errno = e;
            return NULL;
        }
    }
    if (slot >= 0) {
        if (st.fake || (tag & TAG_HWLOC))
            reg_set(slot, (uintptr_t)p, (uintptr_t)p + bytes, tag);
        else
            reg_set(slot, 0, 0, 0);
    }
    return p;
}

void lf_numa_free(void *p, size_t bytes)
{
    if (!p)
        return;
    numa_init();
    int64_t tag = reg_remove((uintptr_t)p, bytes);
#ifdef LF_HAVE_HWLOC
    if (tag >= 0 && (tag & TAG_HWLOC)) {
        hwloc_free(lf__topo_hwloc(), p, bytes);
        return;
    }
#else
    (void)tag;
#endif
    munmap(p, bytes);
}

/* Under LF_FAKE_NUMA only the registry changes: the pages stay where they
 * are, and from now on count as node's.  Real mode migrates them with
 * hwloc_set_area_membind (nothing to do with a single node). */
int lf_numa_place(void *addr, size_t bytes, int node)
{
    numa_init();
    uintptr_t a = (uintptr_t)addr;
    if (!addr || bytes == 0 || node < 0 || node >= st.ndom || a + bytes < a)
        return -EINVAL;
    uintptr_t lo = page_down(a), hi = page_up(a + bytes);
    if (hi == 0)
        return -EINVAL; /* the range reaches the last page of the address space */
    if (st.fake)
        return reg_place(lo, hi, node);
#ifdef LF_HAVE_HWLOC
    hwloc_topology_t topo = lf__topo_hwloc();
    if (topo) {
        if (st.ndom < 2)
            return 0; /* one node: the pages are on it already */
        hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)node);
        if (!obj || !obj->nodeset)
            return -EINVAL;
        errno = 0;
        if (hwloc_set_area_membind(topo, (const void *)lo, hi - lo, obj->nodeset,
                                   HWLOC_MEMBIND_BIND,
                                   HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_MIGRATE) != 0)
            return errno ? -errno : -EIO;
        return 0;
    }
#endif
    return -ENOTSUP;
}

/* Whole ns, rounded up, of a cost in ns (capped far beyond any real wait). */
static uint64_t ceil_ns(double c)
{
    if (!(c > 0.0))
        return 0;
    if (c > 1e18)
        c = 1e18;
    uint64_t n = (uint64_t)c;
    return (double)n < c ? n + 1 : n;
}

/* Under LF_FAKE_NUMA, when addr's domain is not the caller's: take the next
 * free interval of the data's domain port, lat + bytes/gbps ns long and
 * starting no earlier than now, then spin until it ends.  Returns the ns
 * waited; 0 for local data or real domains. */
double lf_numa_charge(const void *addr, size_t bytes)
{
    numa_init();
    if (!st.fake || st.ndom < 2)
        return 0.0;
    int d = lf_numa_node_of(addr);
    if (d == lf_numa_self())
        return 0.0;
    uint64_t cost = ceil_ns(lf__numa_remote_cost_ns(bytes));
    uint64_t now = lf__clock_ns();
    struct port *pt = &st.ports[d];
    uint64_t busy = lf__load_relaxed(&pt->busy_until), start;
    /* Relaxed CAS: the port word guards nothing but itself; a failed CAS
     * reloads busy and the transfer queues behind the one that won. */
    do
        start = busy > now ? busy : now;
    while (!lf__cas_weak_relaxed(&pt->busy_until, &busy, start + cost));
    uint64_t end = start + cost, t;
    while ((t = lf__clock_ns()) < end)
        lf__cpu_relax();
    return (double)(t - now);
}
