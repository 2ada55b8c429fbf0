/* lib/sim/platform.c - reading lf-sim platforms (format: doc/lf-sim.md). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"

#define SIM_MAX_WORKERS 1000000

/* Parse a finite number, also written as a fraction "a/b"; 0 or -1. */
static int parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s)
        return -1;
    if (*end == '/') {
        const char *d = end + 1;
        double q = strtod(d, &end);
        if (errno || end == d || q == 0)
            return -1;
        v /= q;
    }
    if (*end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* Append one worker to pf; returns its slot or NULL (out of memory / too many). */
static struct lf__sim_worker *add_worker(struct lf__sim_platform *pf, int *cap)
{
    if (pf->nworkers >= SIM_MAX_WORKERS)
        return NULL;
    if (pf->nworkers == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        struct lf__sim_worker *w = realloc(pf->w, (size_t)nc * sizeof *w);
        if (!w)
            return NULL;
        pf->w = w;
        *cap = nc;
    }
    struct lf__sim_worker *w = &pf->w[pf->nworkers++];
    memset(w, 0, sizeof *w);
    return w;
}

int lf__sim_profile_parse(struct lf__sim_worker *w, const char *text, char *err, size_t errlen)
{
    int n = 1;
    for (const char *p = text; *p; p++)
        n += *p == ',';
    struct lf__sim_seg *s = calloc((size_t)n + 1, sizeof *s);
    char *buf = strdup(text), *save = NULL;
    if (!s || !buf) {
        free(s);
        free(buf);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int k = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        double t, f;
        if (!colon)
            goto bad;
        *colon = '\0';
        if (parse_num(tok, &t) || parse_num(colon + 1, &f) || t < 0 || f < 0)
            goto bad;
        if (k == 0 && t > 0)
            s[k++] = (struct lf__sim_seg){0.0, 1.0}; /* nominal speed until t0 */
        if (k > 0 && t <= s[k - 1].t)
            goto bad;
        s[k++] = (struct lf__sim_seg){t, f};
    }
    if (k == 0 || s[k - 1].f <= 0)
        goto bad;
    free(buf);
    free(w->prof);
    w->prof = s;
    w->nseg = k;
    return 0;
bad:
    snprintf(err, errlen,
             "profile=%s: expected t0:f0,t1:f1,... with times in seconds strictly increasing, "
             "factors >= 0 and the last factor > 0",
             text);
    free(buf);
    free(s);
    return -EINVAL;
}

/* Apply one "key=value" of a worker line to w; *count gets count=, and
 * *has_domain is set by domain= (checked against ndom domains). */
static int worker_key(struct lf__sim_worker *w, char *tok, long *count, int *has_domain, int ndom,
                      char *err, size_t errlen)
{
    char *eq = strchr(tok, '=');
    double v;
    if (!eq) {
        snprintf(err, errlen, "\"%s\": expected key=value", tok);
        return -EINVAL;
    }
    *eq = '\0';
    const char *key = tok, *val = eq + 1;
    if (strcmp(key, "profile") == 0)
        return lf__sim_profile_parse(w, val, err, errlen);
    if (parse_num(val, &v)) {
        snprintf(err, errlen, "%s=%s: not a number", key, val);
        return -EINVAL;
    }
    if (strcmp(key, "speed") == 0 && v > 0)
        w->speed = v;
    else if (strcmp(key, "latency") == 0 && v >= 0)
        w->latency = v;
    else if (strcmp(key, "stage_lat") == 0 && v >= 0)
        w->stage_lat = v;
    else if (strcmp(key, "bandwidth") == 0 && v >= 0)
        w->bandwidth = v;
    else if (strcmp(key, "count") == 0 && v >= 1 && v <= SIM_MAX_WORKERS && v == floor(v))
        *count = (long)v;
    else if (strcmp(key, "domain") == 0) {
        if (ndom == 0) {
            snprintf(err, errlen, "domain=%s: no \"domains N\" line before it", val);
            return -EINVAL;
        }
        if (!(v >= 0 && v < ndom && v == floor(v))) {
            snprintf(err, errlen, "domain=%s: expected an integer from 0 to %d (domains %d)", val,
                     ndom - 1, ndom);
            return -EINVAL;
        }
        w->domain = (int)v;
        *has_domain = 1;
    } else {
        snprintf(err, errlen,
                 "%s=%s: accepted keys: speed>0, latency>=0, stage_lat>=0, bandwidth>=0 "
                 "(0 = unlimited), count>=1, profile=t0:f0,..., domain=0..N-1",
                 key, val);
        return -EINVAL;
    }
    return 0;
}

/* Handle a global directive ("staging oneport", "bytes_per_iter=8",
 * "domains 4"); 1 if the line was one, 0 if not, -EINVAL if malformed.
 * *staging_given records a staging line. */
static int global_line(struct lf__sim_platform *pf, char *line, int *staging_given, char *err,
                       size_t errlen)
{
    char key[32], val[64];
    char *sep = line + strcspn(line, " \t=");
    size_t kl = (size_t)(sep - line);
    if (kl == 0 || kl >= sizeof key)
        return 0;
    memcpy(key, line, kl);
    key[kl] = '\0';
    if (strcmp(key, "staging") != 0 && strcmp(key, "bytes_per_iter") != 0 &&
        strcmp(key, "domains") != 0)
        return 0;
    while (*sep == ' ' || *sep == '\t' || *sep == '=')
        sep++;
    if (sscanf(sep, "%63s", val) != 1 || sep[strcspn(sep, " \t")] != '\0') {
        snprintf(err, errlen, "%s: expected \"%s VALUE\"", key, key);
        return -EINVAL;
    }
    if (strcmp(key, "staging") == 0) {
        if (strcmp(val, "oneport") == 0)
            pf->staging = LF__SIM_STAGE_ONEPORT;
        else if (strcmp(val, "free") == 0)
            pf->staging = LF__SIM_STAGE_FREE;
        else {
            snprintf(err, errlen, "staging %s: expected oneport or free", val);
            return -EINVAL;
        }
        *staging_given = 1;
    } else if (strcmp(key, "domains") == 0) {
        double v;
        if (pf->ndom || pf->nworkers) {
            snprintf(err, errlen, "domains: give it once, before the workers");
            return -EINVAL;
        }
        if (parse_num(val, &v) || !(v >= 1 && v <= LF__SIM_MAXDOM) || v != floor(v)) {
            snprintf(err, errlen, "domains %s: expected an integer from 1 to %d", val,
                     LF__SIM_MAXDOM);
            return -EINVAL;
        }
        pf->ndom = (int)v;
    } else {
        double v;
        if (parse_num(val, &v) || v < 0) {
            snprintf(err, errlen, "bytes_per_iter %s: expected a number >= 0", val);
            return -EINVAL;
        }
        pf->bytes_per_iter = v;
    }
    return 1;
}

int lf__sim_platform_read(struct lf__sim_platform *pf, FILE *f, const char *name, char *err,
                          size_t errlen)
{
    char line[4096], msg[512];
    int cap = 0, lineno = 0, rc = 0, staging_given = 0, with_domain = 0, without_domain = 0;
    memset(pf, 0, sizeof *pf);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(msg, sizeof msg, "line longer than %zu characters", sizeof line - 2);
            rc = -EINVAL;
            break;
        }
        line[strcspn(line, "#\r\n")] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        for (char *e = p + strlen(p); e > p && isspace((unsigned char)e[-1]);)
            *--e = '\0';
        if (!*p)
            continue;
        if ((rc = global_line(pf, p, &staging_given, msg, sizeof msg)) != 0) {
            if (rc < 0)
                break;
            rc = 0;
            continue;
        }
        struct lf__sim_worker w = {0};
        long count = 1;
        int has_domain = 0;
        char *save = NULL;
        for (char *tok = strtok_r(p, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (tok == p && strcmp(tok, "worker") == 0)
                continue;
            if ((rc = worker_key(&w, tok, &count, &has_domain, pf->ndom, msg, sizeof msg)) != 0)
                break;
        }
        with_domain += has_domain;
        without_domain += !has_domain;
        if (!rc && !(w.speed > 0)) {
            snprintf(msg, sizeof msg, "worker without speed=S (S > 0)");
            rc = -EINVAL;
        }
        for (long c = 0; !rc && c < count; c++) {
            struct lf__sim_worker *slot = add_worker(pf, &cap);
            if (!slot) {
                snprintf(msg, sizeof msg, "too many workers (at most %d) or out of memory",
                         SIM_MAX_WORKERS);
                rc = -ENOMEM;
                break;
            }
            *slot = w;
            if (w.nseg) { /* every worker owns its profile */
                slot->prof = malloc((size_t)w.nseg * sizeof *slot->prof);
                if (!slot->prof) {
                    slot->nseg = 0;
                    snprintf(msg, sizeof msg, "out of memory");
                    rc = -ENOMEM;
                    break;
                }
                memcpy(slot->prof, w.prof, (size_t)w.nseg * sizeof *slot->prof);
            }
        }
        free(w.prof);
        if (rc)
            break;
    }
    if (!rc && pf->nworkers == 0) {
        snprintf(msg, sizeof msg, "no workers (one line per worker: speed=S [latency=..] ...)");
        rc = -EINVAL;
        lineno = 0;
    }
    if (!rc && with_domain && without_domain) {
        snprintf(msg, sizeof msg,
                 "give every worker line domain=D, or none (then the %d domains split the "
                 "workers in order)",
                 pf->ndom);
        rc = -EINVAL;
        lineno = 0;
    }
    if (!rc && pf->ndom && !with_domain)
        rc = lf__sim_platform_domains(pf, pf->ndom, msg, sizeof msg);
    if (!rc && pf->ndom && !staging_given)
        pf->staging = LF__SIM_STAGE_ONEPORT; /* one transfer at a time per domain */
    if (rc) {
        if (lineno)
            snprintf(err, errlen, "%s:%d: %s", name, lineno, msg);
        else
            snprintf(err, errlen, "%s: %s", name, msg);
        lf__sim_platform_free(pf);
    }
    return rc;
}

int lf__sim_platform_load(struct lf__sim_platform *pf, const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        int e = errno;
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        memset(pf, 0, sizeof *pf);
        return -e;
    }
    int rc = lf__sim_platform_read(pf, f, path, err, errlen);
    fclose(f);
    return rc;
}

int lf__sim_platform_speeds(struct lf__sim_platform *pf, const char *list, int nworkers, char *err,
                            size_t errlen)
{
    double *sp = NULL;
    int ns = 0, cap = 0, rc = 0;
    char *buf = strdup(list), *save = NULL;
    memset(pf, 0, sizeof *pf);
    if (!buf)
        return -ENOMEM;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        if (parse_num(tok, &v) || !(v > 0)) {
            snprintf(err, errlen, "--speeds: \"%s\" is not a positive number (e.g. 1,0.5,1/3)",
                     tok);
            rc = -EINVAL;
            goto out;
        }
        if (ns == cap) {
            cap = cap ? 2 * cap : 16;
            double *t = realloc(sp, (size_t)cap * sizeof *t);
            if (!t) {
                rc = -ENOMEM;
                goto out;
            }
            sp = t;
        }
        sp[ns++] = v;
    }
    if (ns == 0) {
        snprintf(err, errlen, "--speeds: empty list (e.g. --speeds 1,0.5,0.25)");
        rc = -EINVAL;
        goto out;
    }
    if (nworkers <= 0)
        nworkers = ns;
    if (nworkers > SIM_MAX_WORKERS) {
        snprintf(err, errlen, "at most %d workers", SIM_MAX_WORKERS);
        rc = -EINVAL;
        goto out;
    }
    pf->w = calloc((size_t)nworkers, sizeof *pf->w);
    if (!pf->w) {
        rc = -ENOMEM;
        goto out;
    }
    pf->nworkers = nworkers;
    for (int i = 0; i < nworkers; i++)
        pf->w[i].speed = sp[i % ns];
out:
    if (rc == -ENOMEM)
        snprintf(err, errlen, "out of memory");
    free(sp);
    free(buf);
    return rc;
}

int lf__sim_platform_domains(struct lf__sim_platform *pf, int ndom, char *err, size_t errlen)
{
    int max = pf->nworkers < LF__SIM_MAXDOM ? pf->nworkers : LF__SIM_MAXDOM;
    if (ndom < 1 || ndom > max) {
        snprintf(err, errlen, "%d domains for %d workers: expected 1 to %d", ndom, pf->nworkers,
                 max);
        return -EINVAL;
    }
    pf->ndom = ndom;
    for (int i = 0; i < pf->nworkers; i++)
        pf->w[i].domain = (int)((long long)i * ndom / pf->nworkers);
    return 0;
}

void lf__sim_platform_free(struct lf__sim_platform *pf)
{
    for (int i = 0; i < pf->nworkers; i++)
        free(pf->w[i].prof);
    free(pf->w);
    pf->w = NULL;
    pf->nworkers = 0;
}
