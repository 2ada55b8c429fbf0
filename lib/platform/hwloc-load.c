/* lib/platform/hwloc-load.c - hwloc, loaded when a topology is first needed.
 *
 * libloopfarm does not link hwloc: loading it (and libudev, which it
 * needs) would cost every process at start-up, while most processes never
 * need a topology (lib/platform/topo.c loads one only for LF_BIND, cores of
 * several kinds, NUMA placement or lf-info).  This file defines the hwloc
 * functions libloopfarm calls, directly or through hwloc's inline helpers,
 * each forwarding to the function of the same name in the library that
 * lf__hwloc_load opened (dlopen of LF_HWLOC_SONAME, found at configure
 * time).  libloopfarm exports only lf_ names, so these definitions stay
 * its own and never stand in for a program's own use of hwloc.
 *
 * Contract: lf__hwloc_load returns 0 before any other function here is
 * called; topo.c calls it before hwloc_topology_init, and every other call
 * needs a topology that init and load made.
 */
#include "config.h"

#ifdef LF_HAVE_HWLOC
#include <pthread.h>
#include <string.h>

#include <hwloc.h>

#include "platform/platform.h"

/* The real functions, looked up by name; all set once lf__hwloc_load returned 0. */
#define HWLOC_FNS(X)                                                                               \
    X(hwloc_alloc_membind)                                                                         \
    X(hwloc_bitmap_alloc)                                                                          \
    X(hwloc_bitmap_first)                                                                          \
    X(hwloc_bitmap_free)                                                                           \
    X(hwloc_bitmap_isset)                                                                          \
    X(hwloc_bitmap_next)                                                                           \
    X(hwloc_bitmap_weight)                                                                         \
    X(hwloc_cpukinds_get_by_cpuset)                                                                \
    X(hwloc_cpukinds_get_info)                                                                     \
    X(hwloc_cpukinds_get_nr)                                                                       \
    X(hwloc_free)                                                                                  \
    X(hwloc_get_api_version)                                                                       \
    X(hwloc_get_area_memlocation)                                                                  \
    X(hwloc_get_last_cpu_location)                                                                 \
    X(hwloc_get_nbobjs_by_depth)                                                                   \
    X(hwloc_get_obj_by_depth)                                                                      \
    X(hwloc_get_type_depth)                                                                        \
    X(hwloc_set_area_membind)                                                                      \
    X(hwloc_set_cpubind)                                                                           \
    X(hwloc_topology_destroy)                                                                      \
    X(hwloc_topology_init)                                                                         \
    X(hwloc_topology_load)

#define FIELD(f) __typeof__(&f) f;
static struct {
    HWLOC_FNS(FIELD)
} real;
#undef FIELD

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_rc = -1;
static char load_why[256];

static void load(void)
{
#define NAME(f) #f,
    static const char *const names[] = {HWLOC_FNS(NAME)};
#undef NAME
    void *fns[sizeof names / sizeof names[0]];
    if (lf__dl_open(LF_HWLOC_SONAME, names, fns, sizeof names / sizeof names[0], load_why,
                    sizeof load_why) != 0)
        return;
    size_t i = 0;
#define SET(f) memcpy(&real.f, &fns[i++], sizeof fns[0]);
    HWLOC_FNS(SET)
#undef SET
    load_rc = 0;
}

int lf__hwloc_load(const char **why)
{
    pthread_once(&load_once, load);
    if (why)
        *why = load_rc == 0 ? NULL : load_why;
    return load_rc;
}

/* The forwarding definitions, with hwloc.h's prototypes. */
void *hwloc_alloc_membind(hwloc_topology_t t, size_t len, hwloc_const_bitmap_t set,
                          hwloc_membind_policy_t policy, int flags)
{
    return real.hwloc_alloc_membind(t, len, set, policy, flags);
}

hwloc_bitmap_t hwloc_bitmap_alloc(void)
{
    return real.hwloc_bitmap_alloc();
}

int hwloc_bitmap_first(hwloc_const_bitmap_t b)
{
    return real.hwloc_bitmap_first(b);
}

void hwloc_bitmap_free(hwloc_bitmap_t b)
{
    real.hwloc_bitmap_free(b);
}

int hwloc_bitmap_isset(hwloc_const_bitmap_t b, unsigned id)
{
    return real.hwloc_bitmap_isset(b, id);
}

int hwloc_bitmap_next(hwloc_const_bitmap_t b, int prev)
{
    return real.hwloc_bitmap_next(b, prev);
}

int hwloc_bitmap_weight(hwloc_const_bitmap_t b)
{
    return real.hwloc_bitmap_weight(b);
}

int hwloc_cpukinds_get_by_cpuset(hwloc_topology_t t, hwloc_const_bitmap_t cpuset,
                                 unsigned long flags)
{
    return real.hwloc_cpukinds_get_by_cpuset(t, cpuset, flags);
}

int hwloc_cpukinds_get_info(hwloc_topology_t t, unsigned kind_index, hwloc_bitmap_t cpuset,
                            int *efficiency, unsigned *nr_infos, struct hwloc_info_s **infos,
                            unsigned long flags)
{
    return real.hwloc_cpukinds_get_info(t, kind_index, cpuset, efficiency, nr_infos, infos, flags);
}

int hwloc_cpukinds_get_nr(hwloc_topology_t t, unsigned long flags)
{
    return real.hwloc_cpukinds_get_nr(t, flags);
}

int hwloc_free(hwloc_topology_t t, void *addr, size_t len)
{
    return real.hwloc_free(t, addr, len);
}

unsigned hwloc_get_api_version(void)
{
    return real.hwloc_get_api_version();
}

int hwloc_get_area_memlocation(hwloc_topology_t t, const void *addr, size_t len, hwloc_bitmap_t set,
                               int flags)
{
    return real.hwloc_get_area_memlocation(t, addr, len, set, flags);
}

int hwloc_get_last_cpu_location(hwloc_topology_t t, hwloc_cpuset_t set, int flags)
{
    return real.hwloc_get_last_cpu_location(t, set, flags);
}

unsigned hwloc_get_nbobjs_by_depth(hwloc_topology_t t, int depth)
{
    return real.hwloc_get_nbobjs_by_depth(t, depth);
}

hwloc_obj_t hwloc_get_obj_by_depth(hwloc_topology_t t, int depth, unsigned idx)
{
    return real.hwloc_get_obj_by_depth(t, depth, idx);
}

int hwloc_get_type_depth(hwloc_topology_t t, hwloc_obj_type_t type)
{
    return real.hwloc_get_type_depth(t, type);
}

int hwloc_set_area_membind(hwloc_topology_t t, const void *addr, size_t len,
                           hwloc_const_bitmap_t set, hwloc_membind_policy_t policy, int flags)
{
    return real.hwloc_set_area_membind(t, addr, len, set, policy, flags);
}

int hwloc_set_cpubind(hwloc_topology_t t, hwloc_const_cpuset_t set, int flags)
{
    return real.hwloc_set_cpubind(t, set, flags);
}

void hwloc_topology_destroy(hwloc_topology_t t)
{
    real.hwloc_topology_destroy(t);
}

int hwloc_topology_init(hwloc_topology_t *tp)
{
    return real.hwloc_topology_init(tp);
}

int hwloc_topology_load(hwloc_topology_t t)
{
    return real.hwloc_topology_load(t);
}
#endif
