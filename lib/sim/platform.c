/* lib/sim/platform.c - reading lf-sim platforms (format: doc/lf-sim.md).
 *
 * Every figure is bounded (SIM_* below) so that sums over a million
 * workers and the times derived from them stay finite; numbers are plain
 * decimals (no hex, inf or nan); a key is given once per line; the
 * workers of one line share its speed profile (reference-counted).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/sim.h"

#define SIM_MAX_WORKERS 1000000
#define SIM_LINE_MAX    4096
/* Bounds on a worker's figures: speeds in units of work per second,
 * latencies and profile times in seconds, bandwidths in bytes/s. */
#define SIM_SPEED_MIN  1e-9
#define SIM_SPEED_MAX  1e15
#define SIM_LAT_MAX    1e6
#define SIM_BW_MIN     1e-3
#define SIM_BW_MAX     1e18
#define SIM_BPI_MAX    1e12
#define SIM_PROF_T_MAX 1e9
#define SIM_FACTOR_MIN 1e-6
#define SIM_FACTOR_MAX 1e6

/* Whether [s, end) is written as a plain decimal number. */
static int decimal_text(const char *s, const char *end)
{
    for (; s < end; s++)
        if (!strchr("0123456789.eE+-", *s))
            return 0;
    return 1;
}

int lf__sim_num_parse(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || !decimal_text(s, end))
        return -1;
    if (*end == '/') {
        const char *d = end + 1;
        double q = strtod(d, &end);
        if (errno || end == d || !decimal_text(d, end) || q == 0)
            return -1;
        v /= q;
    }
    if (*end || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

/* A speed profile with the count of workers that share it. */
struct prof_block {
    long refs;
    struct lf__sim_seg seg[];
};

static struct prof_block *block_of(struct lf__sim_seg *seg)
{
    return (struct prof_block *)(void *)((char *)seg - offsetof(struct prof_block, seg));
}

/* Let one more worker use profile seg. */
static struct lf__sim_seg *prof_share(struct lf__sim_seg *seg)
{
    if (seg)
        block_of(seg)->refs++;
    return seg;
}

/* A worker stops using profile seg; the last one frees it. */
static void prof_release(struct lf__sim_seg *seg)
{
    if (seg && --block_of(seg)->refs == 0)
        free(block_of(seg));
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

/* Parse "t0:f0,t1:f1,..." into a new shared block: *seg and *nseg. */
static int parse_segments(const char *key, const char *text, struct lf__sim_seg **seg, int *nseg,
                          char *err, size_t errlen)
{
    int n = 1;
    for (const char *p = text; *p; p++)
        n += *p == ',';
    struct prof_block *blk = malloc(sizeof *blk + ((size_t)n + 1) * sizeof blk->seg[0]);
    if (!blk) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    blk->refs = 1;
    struct lf__sim_seg *s = blk->seg;
    int k = 0;
    for (const char *p = text;; p++) {
        /* One field t:f, up to the next ',' or the end; none may be empty. */
        size_t len = strcspn(p, ",");
        char field[128];
        double t, f;
        if (len == 0 || len >= sizeof field)
            goto bad;
        memcpy(field, p, len);
        field[len] = '\0';
        char *colon = strchr(field, ':');
        if (!colon)
            goto bad;
        *colon = '\0';
        if (lf__sim_num_parse(field, &t) || lf__sim_num_parse(colon + 1, &f) ||
            !(t >= 0 && t <= SIM_PROF_T_MAX) ||
            !(f == 0 || (f >= SIM_FACTOR_MIN && f <= SIM_FACTOR_MAX)))
            goto bad;
        if (k == 0 && t > 0)
            s[k++] = (struct lf__sim_seg){0.0, 1.0}; /* nominal speed until t0 */
        if (k > 0 && t <= s[k - 1].t)
            goto bad;
        s[k++] = (struct lf__sim_seg){t, f};
        p += len;
        if (!*p)
            break;
    }
    if (k == 0 || s[k - 1].f <= 0)
        goto bad;
    *seg = s;
    *nseg = k;
    return 0;
bad:
    snprintf(err, errlen,
             "%s=%s: expected t0:f0,t1:f1,... with times in seconds from 0 to 1e9, strictly "
             "increasing, factors 0 or from 1e-6 to 1e6, and the last factor > 0",
             key, text);
    free(blk);
    return -EINVAL;
}

/* Parse text into the profile *prof of *nseg segments (replacing it). */
static int set_profile(const char *key, const char *text, struct lf__sim_seg **prof, int *nseg,
                       char *err, size_t errlen)
{
    struct lf__sim_seg *seg;
    int n, rc = parse_segments(key, text, &seg, &n, err, errlen);
    if (rc)
        return rc;
    prof_release(*prof);
    *prof = seg;
    *nseg = n;
    return 0;
}

int lf__sim_profile_parse(struct lf__sim_worker *w, const char *text, char *err, size_t errlen)
{
    return set_profile("profile", text, &w->prof, &w->nseg, err, errlen);
}

int lf__sim_link_profile_parse(struct lf__sim_worker *w, const char *text, char *err, size_t errlen)
{
    return set_profile("link_profile", text, &w->lprof, &w->nlseg, err, errlen);
}

void lf__sim_platform_set(struct lf__sim_platform *pf, double latency, double stage_lat,
                          double bandwidth, double bytes_per_iter)
{
    for (int i = 0; i < pf->nworkers; i++) {
        if (latency >= 0)
            pf->w[i].latency = latency;
        if (stage_lat >= 0)
            pf->w[i].stage_lat = stage_lat;
        if (bandwidth >= 0)
            pf->w[i].bandwidth = bandwidth;
    }
    if (bytes_per_iter >= 0)
        pf->bytes_per_iter = bytes_per_iter;
}

double lf__sim_link_time(const struct lf__sim_worker *w, double t0, double bytes, int latency)
{
    double lat = latency ? w->stage_lat : 0.0;
    if (w->nlseg == 0 || !(w->bandwidth > 0) || !(bytes > 0))
        return lat + (w->bandwidth > 0 ? bytes / w->bandwidth : 0.0);
    double t = t0 + lat;
    int k = 0;
    while (k + 1 < w->nlseg && w->lprof[k + 1].t <= t)
        k++;
    for (;; k++) { /* the last factor is > 0, so this ends */
        double rate = w->bandwidth * w->lprof[k].f;
        double end = k + 1 < w->nlseg ? w->lprof[k + 1].t : INFINITY;
        if (rate > 0 && t + bytes / rate <= end)
            return t + bytes / rate - t0;
        if (rate > 0)
            bytes -= rate * (end - t);
        t = end;
    }
}

/* The keys of a worker line, in the order of the bits of a line's "seen" mask. */
static const char *const worker_keys[] = {
    "profile", "speed", "latency",      "stage_lat", "bandwidth",     "count",
    "domain",  "start", "link_profile", "threads",   "thread_speeds", "thread_latency"};

/* Parse thread_speeds=LIST (comma-separated speeds) into a new list owned
 * by pf, shared by the line's workers through w->tl. */
static int thread_speeds(struct lf__sim_platform *pf, struct lf__sim_worker *w, const char *val,
                         char *err, size_t errlen)
{
    int n = 1;
    for (const char *p = val; *p; p++)
        n += *p == ',';
    if (n > LF__SIM_MAX_THREADS)
        goto bad;
    double *l = malloc((size_t)n * sizeof *l),
           **all = realloc(pf->tlists, ((size_t)pf->ntlists + 1) * sizeof *all);
    if (all)
        pf->tlists = all;
    if (!l || !all) {
        free(l);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    pf->tlists[pf->ntlists++] = l;
    const char *p = val;
    for (int k = 0; k < n; k++) {
        size_t len = strcspn(p, ",");
        char field[64];
        if (len == 0 || len >= sizeof field)
            goto bad;
        memcpy(field, p, len);
        field[len] = '\0';
        if (lf__sim_num_parse(field, &l[k]) || !(l[k] >= SIM_SPEED_MIN && l[k] <= SIM_SPEED_MAX))
            goto bad;
        p += len + (p[len] == ',');
    }
    w->tl = l;
    w->ntl = n;
    return 0;
bad:
    snprintf(err, errlen,
             "thread_speeds=%s: expected 1 to %d comma-separated speeds from 1e-9 to 1e15", val,
             LF__SIM_MAX_THREADS);
    return -EINVAL;
}

/* Apply one "key=value" of a worker line to w; *count gets count=, and
 * *has_domain is set by domain= (checked against ndom domains); *seen
 * collects the keys given, each of which may appear once. */
static int worker_key(struct lf__sim_platform *pf, struct lf__sim_worker *w, char *tok, long *count,
                      int *has_domain, unsigned *seen, char *err, size_t errlen)
{
    int ndom = pf->ndom;
    char *eq = strchr(tok, '=');
    double v;
    if (!eq) {
        snprintf(err, errlen, "\"%s\": expected key=value", tok);
        return -EINVAL;
    }
    *eq = '\0';
    const char *key = tok, *val = eq + 1;
    for (unsigned k = 0; k < sizeof worker_keys / sizeof *worker_keys; k++) {
        if (strcmp(key, worker_keys[k]) != 0)
            continue;
        if (*seen & (1u << k)) {
            snprintf(err, errlen, "%s= given twice on one line", key);
            return -EINVAL;
        }
        *seen |= 1u << k;
    }
    if (strcmp(key, "profile") == 0)
        return lf__sim_profile_parse(w, val, err, errlen);
    if (strcmp(key, "link_profile") == 0)
        return lf__sim_link_profile_parse(w, val, err, errlen);
    if (strcmp(key, "thread_speeds") == 0)
        return thread_speeds(pf, w, val, err, errlen);
    if (lf__sim_num_parse(val, &v)) {
        snprintf(err, errlen, "%s=%s: not a decimal number", key, val);
        return -EINVAL;
    }
    if (strcmp(key, "speed") == 0 && v >= SIM_SPEED_MIN && v <= SIM_SPEED_MAX)
        w->speed = v;
    else if (strcmp(key, "latency") == 0 && v >= 0 && v <= SIM_LAT_MAX)
        w->latency = v;
    else if (strcmp(key, "stage_lat") == 0 && v >= 0 && v <= SIM_LAT_MAX)
        w->stage_lat = v;
    else if (strcmp(key, "bandwidth") == 0 && (v == 0 || (v >= SIM_BW_MIN && v <= SIM_BW_MAX)))
        w->bandwidth = v;
    else if (strcmp(key, "start") == 0 && v >= 0 && v <= SIM_PROF_T_MAX)
        w->start = v;
    else if (strcmp(key, "threads") == 0 && v >= 1 && v <= LF__SIM_MAX_THREADS && v == floor(v))
        w->threads = (int)v;
    else if (strcmp(key, "thread_latency") == 0 && v >= 0 && v <= SIM_LAT_MAX)
        w->tlatency = v;
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
                 "%s=%s: accepted keys: speed=1e-9..1e15, latency=0..1e6, stage_lat=0..1e6 "
                 "(seconds), bandwidth=0 (unlimited) or 1e-3..1e18, count=1..%d, "
                 "profile=t0:f0,..., link_profile=t0:f0,..., domain=0..N-1, start=0..%g "
                 "(seconds), threads=1..%d, thread_speeds=S1,S2,..., thread_latency=0..1e6",
                 key, val, SIM_MAX_WORKERS, SIM_PROF_T_MAX, LF__SIM_MAX_THREADS);
        return -EINVAL;
    }
    return 0;
}

/* Handle a global directive ("staging oneport", "bytes_per_iter=8",
 * "domains 4"); 1 if the line was one, 0 if not, -EINVAL if malformed.
 * *staging_given records a staging line. */
static int global_line(struct lf__sim_platform *pf, char *line, int *staging_given, int *bpi_given,
                       char *err, size_t errlen)
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
    if ((strcmp(key, "staging") == 0 && *staging_given) ||
        (strcmp(key, "bytes_per_iter") == 0 && *bpi_given)) {
        snprintf(err, errlen, "%s: give it once", key);
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
        if (lf__sim_num_parse(val, &v) || !(v >= 1 && v <= LF__SIM_MAXDOM) || v != floor(v)) {
            snprintf(err, errlen, "domains %s: expected an integer from 1 to %d", val,
                     LF__SIM_MAXDOM);
            return -EINVAL;
        }
        pf->ndom = (int)v;
    } else {
        double v;
        if (lf__sim_num_parse(val, &v) || !(v >= 0 && v <= SIM_BPI_MAX)) {
            snprintf(err, errlen, "bytes_per_iter %s: expected a decimal number from 0 to 1e12",
                     val);
            return -EINVAL;
        }
        pf->bytes_per_iter = v;
        *bpi_given = 1;
    }
    return 1;
}

/* Read one line of f into buf (NUL-terminated, newline dropped): 1, 0 at
 * the end of the file, or -1 with *why set (too long, a NUL byte, a read
 * error). */
static int read_line(FILE *f, char *buf, size_t cap, const char **why)
{
    size_t n = 0;
    int c;
    while ((c = getc(f)) != EOF && c != '\n') {
        if (c == '\0') {
            *why = "a NUL byte: not a text file";
            return -1;
        }
        if (n + 1 >= cap) {
            *why = "line longer than 4095 characters";
            return -1;
        }
        buf[n++] = (char)c;
    }
    buf[n] = '\0';
    if (ferror(f)) {
        *why = strerror(errno ? errno : EIO);
        return -1;
    }
    return c != EOF || n > 0;
}

int lf__sim_platform_read(struct lf__sim_platform *pf, FILE *f, const char *name, char *err,
                          size_t errlen)
{
    char line[SIM_LINE_MAX], msg[512];
    int cap = 0, lineno = 0, rc = 0, staging_given = 0, bpi_given = 0, with_domain = 0,
        without_domain = 0;
    memset(pf, 0, sizeof *pf);
    for (;;) {
        const char *why = NULL;
        errno = 0;
        int got = read_line(f, line, sizeof line, &why);
        if (got == 0)
            break;
        lineno++;
        if (got < 0) {
            snprintf(msg, sizeof msg, "%s", why);
            rc = -EINVAL;
            break;
        }
        line[strcspn(line, "#\r")] = '\0';
        char *p = line;
        while (isspace((unsigned char)*p))
            p++;
        for (char *e = p + strlen(p); e > p && isspace((unsigned char)e[-1]);)
            *--e = '\0';
        if (!*p)
            continue;
        if ((rc = global_line(pf, p, &staging_given, &bpi_given, msg, sizeof msg)) != 0) {
            if (rc < 0)
                break;
            rc = 0;
            continue;
        }
        struct lf__sim_worker w = {0};
        long count = 1;
        int has_domain = 0;
        unsigned seen = 0;
        char *save = NULL;
        for (char *tok = strtok_r(p, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
            if (tok == p && strcmp(tok, "worker") == 0)
                continue;
            if ((rc = worker_key(pf, &w, tok, &count, &has_domain, &seen, msg, sizeof msg)) != 0)
                break;
        }
        if (!rc && w.ntl > 0 && !(w.speed > 0))
            w.speed = w.tl[0]; /* each thread's speed is in the list */
        if (!rc && w.ntl > 0 && w.threads == 0)
            w.threads = w.ntl;
        if (!rc && w.tlatency > 0 && w.threads == 0) {
            snprintf(msg, sizeof msg, "thread_latency= needs threads=T (a rank of T threads)");
            rc = -EINVAL;
        }
        with_domain += has_domain;
        without_domain += !has_domain;
        if (!rc && !(w.speed > 0)) {
            snprintf(msg, sizeof msg, "worker without speed=S (S from 1e-9 to 1e15)");
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
            slot->prof = prof_share(w.prof); /* the line's workers share its profiles */
            slot->lprof = prof_share(w.lprof);
        }
        prof_release(w.prof);
        prof_release(w.lprof);
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
    if (!rc && pf->ndom)
        for (int i = 0; i < pf->nworkers; i++)
            if (pf->w[i].threads) {
                snprintf(msg, sizeof msg,
                         "threads= (ranks of threads) and domains exclude each other");
                rc = -EINVAL;
                lineno = 0;
                break;
            }
    if (!rc && (rc = lf__sim_platform_teams(pf, 0, msg, sizeof msg)) != 0)
        lineno = 0;
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
    struct stat sb;
    if (fstat(fileno(f), &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(err, errlen, "%s: a directory; expected a platform file (doc/lf-sim.md)", path);
        memset(pf, 0, sizeof *pf);
        fclose(f);
        return -EISDIR;
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
        if (lf__sim_num_parse(tok, &v) || !(v >= SIM_SPEED_MIN && v <= SIM_SPEED_MAX)) {
            snprintf(err, errlen,
                     "--speeds: \"%s\" is not a decimal number from 1e-9 to 1e15 (e.g. "
                     "1,0.5,1/3)",
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

int lf__sim_platform_teams(struct lf__sim_platform *pf, int threads, char *err, size_t errlen)
{
    int any = threads > 0;
    for (int i = 0; i < pf->nworkers && !any; i++)
        any = pf->w[i].threads > 0;
    if (!any || (pf->teams && threads == 0))
        return 0;
    if (threads < 0 || threads > LF__SIM_MAX_THREADS) {
        snprintf(err, errlen, "%d threads a rank: expected 1 to %d", threads, LF__SIM_MAX_THREADS);
        return -EINVAL;
    }
    if (pf->ndom) {
        snprintf(err, errlen, "ranks of threads and NUMA domains exclude each other");
        return -EINVAL;
    }
    double all = 0;
    for (int i = 0; i < pf->nworkers; i++)
        all += threads ? threads : pf->w[i].threads ? pf->w[i].threads : 1;
    if (all > LF__SIM_MAX_TEAM) {
        snprintf(err, errlen, "%.0f threads in all: at most %d", all, LF__SIM_MAX_TEAM);
        return -EINVAL;
    }
    for (int i = 0; i < pf->nworkers; i++) {
        struct lf__sim_worker *w = &pf->w[i];
        w->threads = threads ? threads : w->threads ? w->threads : 1;
        if (!pf->teams)
            w->tspeed = w->speed; /* the speed given was each thread's */
        double sum = 0;
        for (int j = 0; j < w->threads; j++)
            sum += w->ntl > 0 ? w->tl[j % w->ntl] : w->tspeed;
        w->speed = sum;
    }
    pf->teams = 1;
    return 0;
}

void lf__sim_platform_free(struct lf__sim_platform *pf)
{
    for (int i = 0; i < pf->nworkers; i++) {
        prof_release(pf->w[i].prof);
        prof_release(pf->w[i].lprof);
    }
    for (int k = 0; k < pf->ntlists; k++)
        free(pf->tlists[k]);
    free(pf->tlists);
    pf->tlists = NULL;
    pf->ntlists = 0;
    free(pf->w);
    pf->w = NULL;
    pf->nworkers = 0;
}
