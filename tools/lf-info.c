/* tools/lf-info.c - print what loopfarm's platform layer sees on this
 * machine: topology, core kinds, SMT, NUMA, clocks, counters, binding and
 * the schedule LF_SCHEDULE resolves to. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "loopfarm.h"
#include "platform/numa.h"
#include "platform/platform.h"
#include "dispatch/dispatch.h"
#include "json_str.h"

/* Figures about CLOCK_THREAD_CPUTIME_ID, measured here. */
struct cpu_clock {
    double getres_ns; /* what clock_getres reports */
    double step_ns;   /* smallest nonzero step observed */
    double cost_ns;   /* cost of one lf__thread_cpu_ns() */
};

static void measure_cpu_clock(struct cpu_clock *c)
{
    struct timespec ts;
    enum { N = 20000 };
    c->getres_ns = clock_getres(CLOCK_THREAD_CPUTIME_ID, &ts) == 0
                       ? (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec
                       : -1.0;
    uint64_t prev = lf__thread_cpu_ns(), best = UINT64_MAX;
    uint64_t w0 = lf__clock_ns();
    for (int i = 0; i < N; i++) {
        uint64_t t = lf__thread_cpu_ns();
        if (t > prev && t - prev < best)
            best = t - prev;
        prev = t;
    }
    c->cost_ns = (double)(lf__clock_ns() - w0) / N;
    c->step_ns = best == UINT64_MAX ? -1.0 : (double)best;
}

/* Describe variable id's origin into buf: "environment", "default (...)",
 * or what a malformed value was replaced by. */
static const char *env_origin(const struct lf__env_info *e, int malformed_here, char *buf,
                              size_t len)
{
    if (!e->value || !e->value[0])
        snprintf(buf, len, "default: %s", e->dflt);
    else if (e->fallback || malformed_here)
        snprintf(buf, len, "environment, malformed (expected %s): fell back to %s", e->forms,
                 e->fallback ? e->fallback : e->dflt);
    else
        snprintf(buf, len, "environment");
    return buf;
}

/* Whether LF_SCHEDULE holds a spec the registry rejects (its owner,
 * lib/omp/schedule.c, reports that but does not record it). */
static int schedule_malformed(const char *v)
{
    lf_schedule *s = NULL;
    if (!v || !*v)
        return 0;
    int rc = lf_schedule_parse(v, &s, NULL, 0);
    lf_schedule_free(s);
    return rc != 0;
}

/* Print every LF_* variable: value, and where it came from. */
static void print_env(int json)
{
    for (int id = 0; id < LF__ENV_COUNT; id++) {
        struct lf__env_info e;
        char origin[512];
        if (lf__env_info(id, &e) != 0)
            continue;
        int bad = id == LF__ENV_SCHEDULE && schedule_malformed(e.value);
        env_origin(&e, bad, origin, sizeof origin);
        if (json) {
            printf("%s    ", id ? ",\n" : "");
            json_str(e.name);
            printf(": {\"value\": ");
            if (e.value)
                json_str(e.value);
            else
                printf("null");
            printf(", \"from\": \"%s\", \"malformed\": %s, \"origin\": ",
                   e.value && e.value[0] ? "environment" : "default",
                   e.fallback || bad ? "true" : "false");
            json_str(origin);
            putchar('}');
        } else {
            printf("  %-13s %s%s%s (%s)\n", e.name, e.value ? "\"" : "unset",
                   e.value ? e.value : "", e.value ? "\"" : "", origin);
        }
    }
}

static void usage(FILE *f)
{
    fputs("usage: lf-info [--json] [--help]\n"
          "Print what loopfarm's platform layer sees on this machine:\n"
          "  topology    cores, PUs, NUMA nodes, core kinds and SMT (hwloc, or sysconf\n"
          "              when loopfarm was built without it), and where lf-info runs;\n"
          "  timer       the monotonic clock the dispatcher uses, its resolution and cost;\n"
          "  thread CPU  CLOCK_THREAD_CPUTIME_ID, its resolution and cost;\n"
          "  counters    PAPI cycles/instructions per thread, or why there are none;\n"
          "  numa        the NUMA domains loops are scheduled over: hwloc's nodes, or the\n"
          "              fake ones LF_FAKE_NUMA=N[,lat=NS][,gbps=G] emulates (N domains of\n"
          "              PUs in topology order; a remote read waits NS ns + bytes/G ns,\n"
          "              defaults lat=2000, gbps=2; see doc/numa.md);\n"
          "  binding     the policy LF_BIND selects (close, spread, none);\n"
          "  schedule    the schedule LF_SCHEDULE resolves to (default: dynamic);\n"
          "  environment every LF_* variable, its value and where it came from\n"
          "              (environment or default; a malformed value and its fallback).\n"
          "Options:\n"
          "  --json      one JSON object instead of text\n"
          "  --help      this text\n",
          f);
}

int main(int argc, char **argv)
{
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--json") == 0)
            json = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "lf-info: unknown argument \"%s\"\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }

    lf__clock_init();
    lf__clock_measure();
    (void)lf__verbose(); /* every owner reads its variable before the table below */
    const struct lf__topo_info *t = lf__topo();
    struct lf__where here;
    int where_rc = lf__where_self(&here);
    double bm = lf__perf_bm_self();
    struct cpu_clock cc;
    measure_cpu_clock(&cc);
    const char *numa_env = lf__env(LF__ENV_FAKE_NUMA);
    const char *numa_status = lf__numa_status();
    int ndom = lf_numa_count(), numa_fake = lf_numa_fake();
    const char *bind_env = lf__env(LF__ENV_BIND);
    enum lf__bind_mode bmode = lf__bind_mode();
    const char *sched_env = lf__env(LF__ENV_SCHEDULE);
    const lf_schedule *sched = lf_schedule_default();
    const char *sched_spec = sched ? lf_schedule_spec(sched) : "dynamic";
    struct lf__kind_info kinds[16];
    int nk = t->nkinds < 16 ? t->nkinds : 16;
    for (int i = 0; i < nk; i++)
        if (lf__topo_kind(i, &kinds[i]) != 0)
            memset(&kinds[i], 0, sizeof kinds[i]);

    if (json) {
        printf("{\n  \"version\": ");
        json_str(LF_VERSION_STRING);
        printf(",\n  \"topology\": {\"source\": ");
        json_str(t->source);
        printf(", \"cores\": %d, \"pus\": %d, \"numa_nodes\": %d, \"smt_per_core\": %d, "
               "\"hwloc_kinds\": %d, \"core_kinds\": [",
               t->ncores, t->npus, t->nnuma, t->smt, t->hw_kinds);
        for (int i = 0; i < nk; i++) {
            printf("%s{\"efficiency\": %d, \"pus\": %d, \"freq_max_mhz\": %.0f, \"core_type\": ",
                   i ? ", " : "", kinds[i].efficiency, kinds[i].npus, kinds[i].freq_max_mhz);
            json_str(kinds[i].core_type);
            putchar('}');
        }
        printf("]},\n  \"this_thread\": {\"pu\": %d, \"core\": %d, \"kind\": %d, \"numa\": %d, "
               "\"smt\": %d, \"bm\": %.3f},\n",
               here.pu, here.core, here.kind, here.numa, here.smt, bm);
        printf("  \"timer\": {\"source\": ");
        json_str(lf__clock.source);
        printf(", \"fallback\": ");
        json_str(lf__clock.fallback ? lf__clock.fallback : "");
        printf(", \"rate_source\": ");
        json_str(lf__clock.rate_source);
        printf(", \"ns_per_tick\": %.6g, \"rate_final\": %s, \"setup_wait_ns\": %.0f",
               lf__clock_ns_per_tick(), lf__clock_rate_final() ? "true" : "false",
               lf__clock.setup_wait_ns);
        printf(", \"resolution_ns\": %.1f, \"cost_ns\": %.1f},\n", lf__clock.resolution_ns,
               lf__clock.tick_cost_ns);
        printf("  \"thread_cpu_clock\": {\"source\": \"CLOCK_THREAD_CPUTIME_ID\", "
               "\"getres_ns\": %.1f, \"step_ns\": %.1f, \"cost_ns\": %.1f},\n",
               cc.getres_ns, cc.step_ns, cc.cost_ns);
        printf("  \"counters\": {\"available\": %s, \"status\": ",
               lf__counters_available() ? "true" : "false");
        json_str(lf__counters_status());
        printf("},\n  \"numa\": {\"LF_FAKE_NUMA\": ");
        if (numa_env)
            json_str(numa_env);
        else
            printf("null");
        printf(", \"domains\": %d, \"fake\": %s, \"status\": ", ndom, numa_fake ? "true" : "false");
        json_str(numa_status);
        printf("},\n  \"binding\": {\"LF_BIND\": ");
        if (bind_env)
            json_str(bind_env);
        else
            printf("null");
        printf(", \"policy\": ");
        json_str(lf__bind_mode_name(bmode));
        printf("},\n  \"schedule\": {\"LF_SCHEDULE\": ");
        if (sched_env)
            json_str(sched_env);
        else
            printf("null");
        printf(", \"resolved\": ");
        json_str(sched_spec);
        printf("},\n  \"environment\": {\n");
        print_env(1);
        printf("\n  }\n}\n");
        return 0;
    }

    printf("loopfarm %s - what the platform layer sees\n\n", LF_VERSION_STRING);
    printf("topology      %s\n", t->source);
    printf("  cores       %d\n", t->ncores);
    printf("  PUs         %d (%d per core at most%s)\n", t->npus, t->smt,
           t->smt > 1 ? ", SMT" : ", no SMT");
    printf("  NUMA nodes  %d\n", t->nnuma);
    if (nk == 0) {
        if (!t->have_hwloc)
            printf("  core kinds  unknown (no hwloc topology)\n");
        else if (t->hw_kinds == 1)
            printf("  core kinds  no core kinds reported by hwloc (one uniform kind: "
                   "homogeneous cores)\n");
        else
            printf("  core kinds  no core kinds reported by hwloc\n");
    } else {
        printf("  core kinds  %d (least to most performant)\n", t->nkinds);
        for (int i = 0; i < nk; i++)
            printf("    kind %d    %d PUs, efficiency %d, max %.0f MHz%s%s\n", i, kinds[i].npus,
                   kinds[i].efficiency, kinds[i].freq_max_mhz, kinds[i].core_type[0] ? ", " : "",
                   kinds[i].core_type);
    }
    if (where_rc == 0) {
        printf("  lf-info on  PU %d, core %d (%d PU%s), NUMA node %d, kind ", here.pu, here.core,
               here.smt, here.smt == 1 ? "" : "s", here.numa);
        if (here.kind >= 0)
            printf("%d", here.kind);
        else
            printf("none");
        printf(", relative performance bm %.2f\n", bm);
    } else {
        printf("  lf-info on  unknown PU (%s)\n", strerror(-where_rc));
    }
    printf("\ntimer         %s%s%s%s\n", lf__clock.source,
           lf__clock.fallback && lf__clock.fallback[0] ? " (" : "",
           lf__clock.fallback ? lf__clock.fallback : "",
           lf__clock.fallback && lf__clock.fallback[0] ? ")" : "");
    if (lf__clock.use_tsc)
        printf("  rate        %.4f GHz, from %s%s\n", 1.0 / lf__clock_ns_per_tick(),
               lf__clock.rate_source, lf__clock_rate_final() ? "" : " (provisional so far)");
    printf("  resolution  %.1f ns (smallest step observed)\n", lf__clock.resolution_ns);
    printf("  cost        %.1f ns per read\n", lf__clock.tick_cost_ns);
    printf("thread CPU    clock_gettime(CLOCK_THREAD_CPUTIME_ID)\n");
    printf("  resolution  %.0f ns reported by clock_getres, %.0f ns smallest step observed\n",
           cc.getres_ns, cc.step_ns);
    printf("  cost        %.1f ns per read\n", cc.cost_ns);
    printf("counters      %s\n", lf__counters_status());
    printf("numa          %s\n", numa_status);
    printf("  domains     %d (%s)\n", ndom,
           numa_fake  ? "fake, emulated by LF_FAKE_NUMA"
           : numa_env ? "the machine's; LF_FAKE_NUMA malformed, ignored"
                      : "the machine's; LF_FAKE_NUMA unset");
    printf("binding       %s (LF_BIND%s%s%s)\n", lf__bind_mode_name(bmode),
           bind_env ? "=\"" : " unset", bind_env ? bind_env : "", bind_env ? "\"" : "");
    printf("schedule      %s (LF_SCHEDULE%s%s%s)\n", sched_spec, sched_env ? "=\"" : " unset",
           sched_env ? sched_env : "", sched_env ? "\"" : "");
    printf("environment\n");
    print_env(0);
    return 0;
}
