/* lib/platform/topo.c - topology, core kinds, where a thread runs, LF_BIND.
 *
 * With hwloc (LF_HAVE_HWLOC) one topology is loaded per process, on first
 * use, and only read afterwards (hwloc allows concurrent reads of a loaded
 * topology).  Without it, or when it fails to load, the figures come from
 * sysconf(_SC_NPROCESSORS_ONLN) and sched_getcpu(): every PU is its own core,
 * one NUMA node, no core kinds, and the summary's source says so.
 */
#define _GNU_SOURCE
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef LF_HAVE_HWLOC
#include <hwloc.h>
#endif

#include "platform/platform.h"

#define MAX_KINDS 16

static pthread_once_t topo_once = PTHREAD_ONCE_INIT;
static int topo_done; /* atomic: 1 once the topology is loaded */
static struct lf__topo_info topo_info;
static char topo_source[128];
/* PU OS indexes in the two binding orders (npus entries each):
 * close_order is topology order; spread_order takes the first PU of every
 * core, then the second of every core, and so on. */
static int *close_order, *spread_order;
/* Cores' first PUs, in topology order (ncores entries). */
static int *core_first_pu;

#ifdef LF_HAVE_HWLOC
static hwloc_topology_t topo;
static int topo_loaded;
static struct lf__kind_info kinds[MAX_KINDS];
static double kind_bm[MAX_KINDS];

/* Read kind idx's efficiency and infos into kinds[idx]. */
static void load_kind(int idx)
{
    struct lf__kind_info *k = &kinds[idx];
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    unsigned ninfos = 0;
    struct hwloc_info_s *infos = NULL;
    int eff = -1;
    memset(k, 0, sizeof *k);
    k->efficiency = -1;
    if (set && hwloc_cpukinds_get_info(topo, (unsigned)idx, set, &eff, &ninfos, &infos, 0) == 0) {
        k->efficiency = eff;
        k->npus = hwloc_bitmap_weight(set);
        for (unsigned i = 0; i < ninfos; i++) {
            if (strcmp(infos[i].name, "FrequencyMaxMHz") == 0)
                k->freq_max_mhz = strtod(infos[i].value, NULL);
            else if (strcmp(infos[i].name, "CoreType") == 0)
                snprintf(k->core_type, sizeof k->core_type, "%s", infos[i].value);
        }
    }
    hwloc_bitmap_free(set);
}

/* bm of each kind relative to the best: by maximum frequency when every kind
 * reports one, else by efficiency when every kind has one, else 1. */
static void rank_kinds(int n)
{
    int all_freq = n > 0, all_eff = n > 0;
    double best_f = 0.0;
    int best_e = -1;
    for (int i = 0; i < n; i++) {
        all_freq &= kinds[i].freq_max_mhz > 0.0;
        all_eff &= kinds[i].efficiency >= 0;
        if (kinds[i].freq_max_mhz > best_f)
            best_f = kinds[i].freq_max_mhz;
        if (kinds[i].efficiency > best_e)
            best_e = kinds[i].efficiency;
    }
    for (int i = 0; i < n; i++) {
        if (all_freq)
            kind_bm[i] = kinds[i].freq_max_mhz / best_f;
        else if (all_eff)
            kind_bm[i] = (kinds[i].efficiency + 1.0) / (best_e + 1.0);
        else
            kind_bm[i] = 1.0;
    }
}

/* Fill topo_info and the binding orders from a loaded topology; 0 on success. */
static int load_hwloc(const char **why)
{
    if (lf__hwloc_load(why) != 0)
        return -1;
    *why = "hwloc topology failed to load";
    if (hwloc_topology_init(&topo) != 0)
        return -1;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    int npus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    int nnuma = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    if (npus <= 0) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    close_order = calloc((size_t)npus, sizeof *close_order);
    spread_order = calloc((size_t)npus, sizeof *spread_order);
    if (!close_order || !spread_order) {
        hwloc_topology_destroy(topo);
        return -1;
    }
    for (int i = 0; i < npus; i++)
        close_order[i] = (int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i)->os_index;

    int smt = 1;
    if (ncores > 0) {
        core_first_pu = calloc((size_t)ncores, sizeof *core_first_pu);
        if (!core_first_pu) {
            hwloc_topology_destroy(topo);
            return -1;
        }
        for (int c = 0; c < ncores; c++) {
            hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
            int w = hwloc_bitmap_weight(core->cpuset);
            if (w > smt)
                smt = w;
            core_first_pu[c] = hwloc_bitmap_first(core->cpuset);
        }
        /* Round s takes the s-th PU of every core that has one. */
        int m = 0;
        for (int s = 0; s < smt; s++)
            for (int c = 0; c < ncores; c++) {
                hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, (unsigned)c);
                int pu = hwloc_bitmap_first(core->cpuset);
                for (int j = 0; j < s && pu >= 0; j++)
                    pu = hwloc_bitmap_next(core->cpuset, pu);
                if (pu >= 0 && m < npus)
                    spread_order[m++] = pu;
            }
        /* PUs outside any core (unusual) go last, in topology order. */
        for (int i = 0; i < npus && m < npus; i++) {
            int seen = 0;
            for (int j = 0; j < m && !seen; j++)
                seen = spread_order[j] == close_order[i];
            if (!seen)
                spread_order[m++] = close_order[i];
        }
    } else {
        ncores = npus;
        memcpy(spread_order, close_order, (size_t)npus * sizeof *close_order);
        core_first_pu = calloc((size_t)npus, sizeof *core_first_pu);
        if (core_first_pu)
            memcpy(core_first_pu, close_order, (size_t)npus * sizeof *close_order);
    }

    int hk = hwloc_cpukinds_get_nr(topo, 0);
    /* One kind over every PU says only "homogeneous": count it as none, so
     * that callers need a single test for "kinds to tell apart". */
    int nk = hk > 1 ? hk : 0;
    if (nk > MAX_KINDS)
        nk = MAX_KINDS;
    for (int i = 0; i < nk; i++)
        load_kind(i);
    rank_kinds(nk);

    unsigned v = hwloc_get_api_version();
    topo_info.ncores = ncores;
    topo_info.npus = npus;
    topo_info.nnuma = nnuma > 0 ? nnuma : 1;
    topo_info.nkinds = nk;
    topo_info.hw_kinds = hk > 0 ? hk : 0;
    topo_info.smt = smt;
    topo_info.have_hwloc = 1;
    snprintf(topo_source, sizeof topo_source, "hwloc (API %u.%u)", (v >> 16) & 0xff,
             (v >> 8) & 0xff);
    topo_loaded = 1;
    return 0;
}
#endif

/* The sysconf fallback: every allowed CPU is a core of its own. */
static void load_sysconf(const char *why)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int npus = n > 0 ? (int)n : 1;
    int m = 0;
    cpu_set_t allowed;
    free(close_order);
    free(spread_order);
    free(core_first_pu);
    close_order = calloc((size_t)npus, sizeof *close_order);
    spread_order = calloc((size_t)npus, sizeof *spread_order);
    core_first_pu = calloc((size_t)npus, sizeof *core_first_pu);
    /* Prefer the CPUs this process may run on, in CPU number order. */
    if (close_order && sched_getaffinity(0, sizeof allowed, &allowed) == 0)
        for (int c = 0; c < CPU_SETSIZE && m < npus; c++)
            if (CPU_ISSET(c, &allowed))
                close_order[m++] = c;
    if (close_order)
        for (; m < npus; m++)
            close_order[m] = m;
    if (close_order && spread_order && core_first_pu) {
        memcpy(spread_order, close_order, (size_t)npus * sizeof *close_order);
        memcpy(core_first_pu, close_order, (size_t)npus * sizeof *close_order);
    }
    topo_info.ncores = npus;
    topo_info.npus = npus;
    topo_info.nnuma = 1;
    topo_info.nkinds = 0;
    topo_info.hw_kinds = 0;
    topo_info.smt = 1;
    topo_info.have_hwloc = 0;
    snprintf(topo_source, sizeof topo_source,
             "sysconf(_SC_NPROCESSORS_ONLN) (%s): PUs counted as cores, 1 NUMA node assumed", why);
}

static void topo_init(void)
{
#ifdef LF_HAVE_HWLOC
    const char *why;
    if (load_hwloc(&why) != 0)
        load_sysconf(why);
#else
    load_sysconf("built without hwloc");
#endif
    topo_info.source = topo_source;
    __atomic_store_n(&topo_done, 1, __ATOMIC_RELEASE);
}

int lf__topo_loaded(void)
{
    return __atomic_load_n(&topo_done, __ATOMIC_ACQUIRE);
}

const struct lf__topo_info *lf__topo(void)
{
    pthread_once(&topo_once, topo_init);
    return &topo_info;
}

int lf__topo_pu_at(int pos)
{
    const struct lf__topo_info *t = lf__topo();
    if (pos < 0 || pos >= t->npus || !close_order)
        return -1;
    return close_order[pos];
}

void *lf__topo_hwloc(void)
{
    lf__topo();
#ifdef LF_HAVE_HWLOC
    if (topo_loaded)
        return topo;
#endif
    return NULL;
}

int lf__topo_kind(int idx, struct lf__kind_info *out)
{
    lf__topo();
#ifdef LF_HAVE_HWLOC
    if (!topo_loaded)
        return -ENOTSUP;
    if (idx < 0 || idx >= topo_info.nkinds)
        return -ENOENT;
    *out = kinds[idx];
    return 0;
#else
    (void)idx;
    (void)out;
    return -ENOTSUP;
#endif
}

int lf__where_self(struct lf__where *out)
{
    lf__topo();
    out->pu = -1;
    out->core = -1;
    out->kind = -1;
    out->kind_rank = -1;
    out->smt = 1;
    out->numa = 0;
#ifdef LF_HAVE_HWLOC
    if (topo_loaded) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        if (!set)
            return -ENOMEM;
        int rc = hwloc_get_last_cpu_location(topo, set, HWLOC_CPUBIND_THREAD);
        int pu = rc == 0 ? hwloc_bitmap_first(set) : -1;
        hwloc_bitmap_free(set);
        if (pu < 0) {
            pu = sched_getcpu();
            if (pu < 0)
                return -errno;
        }
        out->pu = pu;
        hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(topo, (unsigned)pu);
        if (!obj)
            return 0;
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, obj);
        if (core) {
            out->core = (int)core->logical_index;
            out->smt = hwloc_bitmap_weight(core->cpuset);
        } else {
            out->core = (int)obj->logical_index;
        }
        if (topo_info.nkinds > 0) {
            int k = hwloc_cpukinds_get_by_cpuset(topo, obj->cpuset, 0);
            if (k >= 0 && k < topo_info.nkinds) {
                out->kind = k;
                out->kind_rank = k; /* hwloc lists kinds by increasing efficiency */
            }
        }
        int nn = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        for (int i = 0; i < nn; i++) {
            hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
            if (node && hwloc_bitmap_isset(node->cpuset, (unsigned)pu)) {
                out->numa = (int)node->logical_index;
                break;
            }
        }
        return 0;
    }
#endif
    int pu = sched_getcpu();
    if (pu < 0)
        return -errno;
    out->pu = pu;
    out->core = pu;
    return 0;
}

#ifdef LF_HAVE_HWLOC /* the probe spares loading hwloc's topology */
static pthread_once_t kinds_once = PTHREAD_ONCE_INIT;
static int kinds_maybe;

/* Decide whether the kernel shows cores of different kinds: a hybrid
 * processor's cpu_atom PMU, or CPUs whose cpu_capacity or maximum cpufreq
 * frequency differ (what hwloc builds its CPU kinds from on Linux). */
static void find_kinds_maybe(void)
{
    struct stat sb;
    if (stat("/sys/devices/cpu_atom", &sb) == 0) {
        kinds_maybe = 1;
        return;
    }
    static const char *const per_cpu[] = {"/sys/devices/system/cpu/cpu%d/cpu_capacity",
                                          "/sys/devices/system/cpu/cpu%d/cpufreq/cpuinfo_max_freq"};
    long ncpu = sysconf(_SC_NPROCESSORS_CONF);
    for (size_t k = 0; k < sizeof per_cpu / sizeof *per_cpu; k++) {
        long first = -1;
        for (long c = 0; c < ncpu; c++) {
            char path[128];
            snprintf(path, sizeof path, per_cpu[k], (int)c);
            long v = lf__read_long(path);
            if (v < 0)
                continue;
            if (first >= 0 && v != first) {
                kinds_maybe = 1;
                return;
            }
            first = v;
        }
    }
}
#endif

int lf__perf_needs_topo(void)
{
#ifdef LF_HAVE_HWLOC
    pthread_once(&kinds_once, find_kinds_maybe);
    return kinds_maybe;
#else
    return 0;
#endif
}

double lf__perf_bm_self(void)
{
#ifdef LF_HAVE_HWLOC
    /* All cores of one kind: 1.0, without loading the topology for it. */
    if (!lf__topo_loaded() && !lf__perf_needs_topo())
        return 1.0;
    struct lf__where w;
    if (lf__where_self(&w) == 0 && w.kind >= 0)
        return kind_bm[w.kind];
#endif
    return 1.0;
}

/* ---- LF_BIND ---- */

static pthread_once_t bind_once = PTHREAD_ONCE_INIT;
static enum lf__bind_mode bind_mode;

int lf__bind_parse(const char *s, enum lf__bind_mode *out)
{
    if (!s || !*s || strcasecmp(s, "none") == 0 || strcasecmp(s, "false") == 0)
        *out = LF__BIND_NONE;
    else if (strcasecmp(s, "close") == 0)
        *out = LF__BIND_CLOSE;
    else if (strcasecmp(s, "spread") == 0)
        *out = LF__BIND_SPREAD;
    else {
        *out = LF__BIND_NONE;
        return -EINVAL;
    }
    return 0;
}

static void bind_init(void)
{
    const char *s = lf__env(LF__ENV_BIND);
    if (lf__bind_parse(s, &bind_mode) != 0) {
        lf__env_rejected(LF__ENV_BIND, "none");
        fprintf(stderr,
                "loopfarm: LF_BIND=\"%s\" is not understood; accepted values: close (thread t "
                "on PU t mod nPU), spread (threads spread over cores), none (default); "
                "threads stay unbound\n",
                s);
    }
}

enum lf__bind_mode lf__bind_mode(void)
{
    pthread_once(&bind_once, bind_init);
    return bind_mode;
}

const char *lf__bind_mode_name(enum lf__bind_mode m)
{
    switch (m) {
    case LF__BIND_CLOSE:
        return "close";
    case LF__BIND_SPREAD:
        return "spread";
    default:
        return "none";
    }
}

int lf__bind_target(enum lf__bind_mode m, int tid, int nthreads)
{
    const struct lf__topo_info *t = lf__topo();
    if (m == LF__BIND_NONE || tid < 0 || !close_order || !spread_order)
        return -1;
    if (nthreads < 1)
        nthreads = 1;
    if (m == LF__BIND_CLOSE)
        return close_order[tid % t->npus];
    /* spread: with no more threads than cores, thread t takes the first PU
     * of core t*ncores/nthreads (evenly spaced over the machine, as OpenMP's
     * proc_bind(spread)); beyond that, every core before any SMT sibling. */
    if (nthreads <= t->ncores && core_first_pu)
        return core_first_pu[(int)((long long)tid * t->ncores / nthreads) % t->ncores];
    return spread_order[tid % t->npus];
}

int lf__bind_self(int tid, int nthreads)
{
    enum lf__bind_mode m = lf__bind_mode();
    if (m == LF__BIND_NONE)
        return 0;
    int pu = lf__bind_target(m, tid, nthreads);
    if (pu < 0)
        return -EINVAL;
#ifdef LF_HAVE_HWLOC
    if (topo_loaded) {
        hwloc_obj_t obj = hwloc_get_pu_obj_by_os_index(topo, (unsigned)pu);
        if (!obj)
            return -ENOENT;
        if (hwloc_set_cpubind(topo, obj->cpuset, HWLOC_CPUBIND_THREAD) != 0)
            return errno ? -errno : -EIO;
        return 1;
    }
#endif
    cpu_set_t set;
    CPU_ZERO(&set);
    if (pu >= CPU_SETSIZE)
        return -EINVAL;
    CPU_SET(pu, &set);
    /* pid 0 is the calling thread for sched_setaffinity on Linux. */
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return -errno;
    return 1;
}
