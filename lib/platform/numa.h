/* lib/platform/numa.h - the NUMA domains loopfarm schedules over, and the
 * "fake NUMA" mode that emulates several of them on a one-node machine.
 *
 *   real mode  the domains are hwloc's NUMA nodes (logical indexes); one
 *              domain when built without hwloc or when it failed to load.
 *   fake mode  LF_FAKE_NUMA=N[,lat=NS][,gbps=G] splits the PUs, in
 *              topology order, into N contiguous groups; lf_numa_alloc
 *              and lf_numa_place record which domain memory belongs to, and
 *              lf_numa_charge makes a thread that reads another domain's
 *              data wait lat + bytes/G ns, one transfer at a time per
 *              domain (its "port").  See doc/numa.md.
 *
 * The public face is lf_numa_* in include/loopfarm.h; these are the same
 * answers for the dispatcher, plus what lf-info and the tests need.
 * Process-wide state is set up once (pthread_once) on first use; a
 * malformed LF_FAKE_NUMA, or one asking for more domains than there are
 * PUs, is reported once on stderr.
 */
#ifndef LF_PLATFORM_NUMA_H
#define LF_PLATFORM_NUMA_H

#include <stddef.h>

/* Fake-mode defaults: ns per remote transfer, and a port's GB/s (1 GB/s is
 * one byte per ns, so 2 GB/s costs 0.5 ns per byte). */
#define LF__NUMA_DEFAULT_LAT_NS 2000.0
#define LF__NUMA_DEFAULT_GBPS   2.0

/* Registry entries: live allocations lf_numa_alloc tracks (all of them
 * under LF_FAKE_NUMA, the hwloc-bound ones in real mode) plus ranges
 * lf_numa_place recorded under LF_FAKE_NUMA.  Beyond that, see
 * lf_numa_alloc in numa.c. */
#define LF__NUMA_REGISTRY_CAP 4096

/* What LF_FAKE_NUMA asks for. */
struct lf__fake_numa {
    int ndom;      /* domains (>= 1); 0 when fake mode is off */
    double lat_ns; /* latency of one remote transfer, ns (>= 0) */
    double gbps;   /* a port's bandwidth, GB/s, i.e. bytes per ns (> 0) */
};

/* Parse an LF_FAKE_NUMA value; NULL or "" is "off" (ndom 0).  Returns 0, or
 * -EINVAL with *out off and, when err is not NULL, a message naming the
 * accepted form (at most errlen bytes, NUL-terminated).  Pure: the PU count
 * is not consulted, so N is not clamped here. */
int lf__numa_parse(const char *s, struct lf__fake_numa *out, char *err, size_t errlen);

/* The fake domain of the PU at position pos (0 .. npus-1) of topology order
 * when npus PUs form ndom domains (1 <= ndom <= npus): contiguous groups,
 * the first npus % ndom of them one PU larger.  -1 for bad arguments. */
int lf__numa_split(int npus, int ndom, int pos);

/* The domain count, the calling thread's domain (sched_getcpu and a table:
 * cheap enough for every loop entry) and whether they are fake are the
 * public lf_numa_count, lf_numa_self and lf_numa_fake (loopfarm.h). */
/* Emulated cost of one remote transfer of bytes, ns: lat + bytes/gbps under
 * LF_FAKE_NUMA, 0 in real mode (real memory costs for itself). */
double lf__numa_remote_cost_ns(size_t bytes);
/* One line for lf-info: how many domains, fake or real, and the costs. */
const char *lf__numa_status(void);

/* Test only: read LF_FAKE_NUMA again and rebuild the domain tables (and
 * report a bad value again).  Not thread-safe: call it only while no other
 * thread uses the NUMA layer.  Allocations made before keep their recorded
 * domain. */
void lf__numa_reset_for_tests(void);

#endif
