/* lib/sim/cost.c - per-iteration costs of a simulated workload.
 *
 * Iteration i's cost is a pure function of (seed, i): a counter-based hash
 * feeds the distribution, so a chunk's cost never depends on the order in
 * which chunks were handed out.  A chunk's cost is a difference of prefix
 * sums; the sums are stored at block boundaries (one block per iteration up
 * to 10^7 iterations, so a chunk costs O(1); beyond that a partial block is
 * regenerated, O(tasks / 10^7) per chunk end).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#define SIM_MAX_PREFIX 10000000ULL

/* splitmix64's finaliser: a bijective mix good enough for workload noise. */
static uint64_t mix64(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* A uniform double in (0, 1) from stream word j of iteration i. */
static double unif(uint64_t seed, uint64_t i, unsigned j)
{
    uint64_t h = mix64(mix64(seed * 0x9e3779b97f4a7c15ULL + 0x632be59bd9b4e019ULL) ^
                       (2 * i + j) * 0xd1b54a32d192ed03ULL);
    return ((double)(h >> 11) + 0.5) * 0x1.0p-53;
}

/* Cost of iteration i of a random workload. */
static double cost_of(const struct lf__sim_workload *wl, uint64_t i)
{
    switch (wl->kind) {
    case LF__SIM_COST_LOGNORMAL: {
        /* Box-Muller; mu = -sigma^2/2 keeps the mean at 1. */
        double z = sqrt(-2.0 * log(unif(wl->seed, i, 0))) * cos(2.0 * M_PI * unif(wl->seed, i, 1));
        return exp(-0.5 * wl->a * wl->a + wl->a * z);
    }
    case LF__SIM_COST_EXP:
        return -log(unif(wl->seed, i, 0));
    case LF__SIM_COST_UNIFORM:
        return wl->a + (wl->b - wl->a) * unif(wl->seed, i, 0);
    case LF__SIM_COST_LINEAR:
        return 2.0 * ((double)i + 0.5) / (double)wl->tasks;
    default:
        return 1.0;
    }
}

static int is_random(const struct lf__sim_workload *wl)
{
    return wl->kind == LF__SIM_COST_LOGNORMAL || wl->kind == LF__SIM_COST_EXP ||
           wl->kind == LF__SIM_COST_UNIFORM;
}

/* Read "key=value" as a double into *out; 1 when key matched, -1 on a bad value. */
static int kv_double(const char *tok, const char *key, double *out)
{
    size_t k = strlen(key);
    if (strncmp(tok, key, k) != 0 || tok[k] != '=')
        return 0;
    char *end;
    errno = 0;
    double v = strtod(tok + k + 1, &end);
    if (errno || end == tok + k + 1 || *end || !isfinite(v))
        return -1;
    *out = v;
    return 1;
}

int lf__sim_cost_parse(struct lf__sim_workload *wl, const char *spec, char *err, size_t errlen)
{
    static const char forms[] = "const | lognormal[,sigma=S] | exp | uniform[,lo=A,hi=B] | linear";
    char buf[128], *save = NULL;
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "--cost: too long; accepted: %s", forms);
        return -EINVAL;
    }
    strcpy(buf, spec);
    char *name = strtok_r(buf, ",", &save);
    wl->a = 0;
    wl->b = 0;
    if (!name)
        name = "";
    if (strcmp(name, "const") == 0 || strcmp(name, "uniform-cost") == 0)
        wl->kind = LF__SIM_COST_CONST;
    else if (strcmp(name, "lognormal") == 0)
        wl->kind = LF__SIM_COST_LOGNORMAL, wl->a = 0.5;
    else if (strcmp(name, "exp") == 0)
        wl->kind = LF__SIM_COST_EXP;
    else if (strcmp(name, "uniform") == 0)
        wl->kind = LF__SIM_COST_UNIFORM, wl->a = 0.5, wl->b = 1.5;
    else if (strcmp(name, "linear") == 0)
        wl->kind = LF__SIM_COST_LINEAR;
    else {
        snprintf(err, errlen, "--cost: unknown distribution \"%s\"; accepted: %s", name, forms);
        return -EINVAL;
    }
    for (char *tok; (tok = strtok_r(NULL, ",", &save));) {
        int rc = 0;
        if (wl->kind == LF__SIM_COST_LOGNORMAL)
            rc = kv_double(tok, "sigma", &wl->a);
        else if (wl->kind == LF__SIM_COST_UNIFORM) {
            rc = kv_double(tok, "lo", &wl->a);
            if (rc == 0)
                rc = kv_double(tok, "hi", &wl->b);
        }
        if (rc != 1) {
            snprintf(err, errlen, "--cost %s: bad parameter \"%s\"; accepted: %s", name, tok,
                     forms);
            return -EINVAL;
        }
    }
    if ((wl->kind == LF__SIM_COST_LOGNORMAL && (wl->a < 0 || wl->a > 5)) ||
        (wl->kind == LF__SIM_COST_UNIFORM && !(wl->a > 0 && wl->b >= wl->a))) {
        snprintf(err, errlen, "--cost %s: need 0 <= sigma <= 5, or 0 < lo <= hi", spec);
        return -EINVAL;
    }
    return 0;
}

static const char *const home_names[] = {"blocked", "node0", "interleave"};

int lf__sim_home_parse(struct lf__sim_workload *wl, const char *spec, char *err, size_t errlen)
{
    for (int h = 0; h < (int)(sizeof home_names / sizeof *home_names); h++)
        if (strcmp(spec, home_names[h]) == 0) {
            wl->home = h;
            return 0;
        }
    snprintf(err, errlen,
             "--home %s: expected blocked (equal ranges per domain), node0 (all on domain 0) "
             "or interleave (4 KiB pages round-robin)",
             spec);
    return -EINVAL;
}

const char *lf__sim_home_name(int home)
{
    return home >= 0 && home < (int)(sizeof home_names / sizeof *home_names) ? home_names[home]
                                                                             : "?";
}

int lf__sim_workload_init(struct lf__sim_workload *wl)
{
    uint64_t n = wl->tasks;
    wl->prefix = NULL;
    wl->block = 1;
    wl->nblocks = 0;
    if (wl->kind == LF__SIM_COST_CONST || wl->kind == LF__SIM_COST_LINEAR) {
        wl->total = (double)n; /* both have mean 1 and a closed-form prefix */
        return 0;
    }
    wl->block = n <= SIM_MAX_PREFIX ? 1 : lf__div_ceil(n, SIM_MAX_PREFIX);
    wl->nblocks = lf__div_ceil(n, wl->block);
    wl->prefix = malloc((wl->nblocks + 1) * sizeof *wl->prefix);
    if (!wl->prefix)
        return -ENOMEM;
    double sum = 0;
    uint64_t i = 0;
    wl->prefix[0] = 0;
    for (uint64_t b = 0; b < wl->nblocks; b++) {
        uint64_t end = i + wl->block < n ? i + wl->block : n;
        for (; i < end; i++)
            sum += cost_of(wl, i);
        wl->prefix[b + 1] = sum;
    }
    wl->total = sum;
    return 0;
}

/* Sum of the costs of iterations [0, x). */
static double prefix_at(const struct lf__sim_workload *wl, uint64_t x)
{
    if (wl->kind == LF__SIM_COST_CONST)
        return (double)x;
    if (wl->kind == LF__SIM_COST_LINEAR) /* sum of 2(i+1/2)/n over i < x */
        return (double)x * (double)x / (double)wl->tasks;
    uint64_t b = x / wl->block;
    double s = wl->prefix[b];
    for (uint64_t i = b * wl->block; i < x; i++)
        s += cost_of(wl, i);
    return s;
}

double lf__sim_work(const struct lf__sim_workload *wl, uint64_t lo, uint64_t hi)
{
    if (hi <= lo)
        return 0;
    if (wl->kind == LF__SIM_COST_CONST)
        return (double)(hi - lo);
    if (is_random(wl) && hi - lo <= 4) {
        /* Tiny chunks: summing directly beats cancellation in the prefix. */
        double s = 0;
        for (uint64_t i = lo; i < hi; i++)
            s += cost_of(wl, i);
        return s;
    }
    double w = prefix_at(wl, hi) - prefix_at(wl, lo);
    return w > 0 ? w : 0;
}

void lf__sim_workload_free(struct lf__sim_workload *wl)
{
    free(wl->prefix);
    wl->prefix = NULL;
}
