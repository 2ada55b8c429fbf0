/* lib/policy/params.c - schedule specs: "name[,chunk][,key=value]...".
 *
 * Splitting is generic; each policy reads its own keys through the
 * lf__params_get_* helpers, which mark them used, so that a key nobody read
 * is reported as unknown instead of being ignored.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy/policy.h"

/* Copy [b, e) without surrounding blanks into dst (size n); 0 if it fits. */
static int copy_trimmed(char *dst, size_t n, const char *b, const char *e)
{
    while (b < e && isspace((unsigned char)*b))
        b++;
    while (e > b && isspace((unsigned char)e[-1]))
        e--;
    if ((size_t)(e - b) >= n)
        return -1;
    memcpy(dst, b, (size_t)(e - b));
    dst[e - b] = '\0';
    return 0;
}

/* Parse a whole string as an unsigned decimal; 0 on success. */
static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || !isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

int lf__params_split(const char *spec, struct lf__params *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    if (!spec) {
        snprintf(err, errlen, "empty schedule");
        return -EINVAL;
    }
    const char *s = spec;
    int field = 0;
    for (;;) {
        const char *e = strchr(s, ',');
        if (!e)
            e = s + strlen(s);
        char tok[LF__SPEC_KEYLEN + LF__SPEC_VALLEN + 2];
        if (copy_trimmed(tok, sizeof tok, s, e) != 0) {
            snprintf(err, errlen, "schedule \"%s\": field too long", spec);
            return -EINVAL;
        }
        if (field == 0) {
            if (!tok[0] || strlen(tok) >= sizeof p->name) {
                snprintf(err, errlen, "schedule \"%s\": expected a schedule name first", spec);
                return -EINVAL;
            }
            strcpy(p->name, tok);
        } else if (!tok[0]) {
            snprintf(err, errlen, "schedule \"%s\": empty field after a comma", spec);
            return -EINVAL;
        } else if (strchr(tok, '=')) {
            char *eq = strchr(tok, '=');
            if (p->nkv == LF__SPEC_MAXKV) {
                snprintf(err, errlen, "schedule \"%s\": more than %d key=value fields", spec,
                         LF__SPEC_MAXKV);
                return -EINVAL;
            }
            *eq = '\0';
            if (copy_trimmed(p->kv[p->nkv].key, LF__SPEC_KEYLEN, tok, eq) != 0 ||
                copy_trimmed(p->kv[p->nkv].val, LF__SPEC_VALLEN, eq + 1, eq + 1 + strlen(eq + 1)) !=
                    0 ||
                !p->kv[p->nkv].key[0] || !p->kv[p->nkv].val[0]) {
                snprintf(err, errlen, "schedule \"%s\": malformed key=value field \"%s=%s\"", spec,
                         tok, eq + 1);
                return -EINVAL;
            }
            for (int i = 0; i < p->nkv; i++)
                if (strcmp(p->kv[i].key, p->kv[p->nkv].key) == 0) {
                    snprintf(err, errlen, "schedule \"%s\": key \"%s\" given twice", spec,
                             p->kv[i].key);
                    return -EINVAL;
                }
            p->nkv++;
        } else if (field == 1) {
            if (parse_u64(tok, &p->chunk) != 0 || p->chunk == 0) {
                snprintf(err, errlen,
                         "schedule \"%s\": \"%s\" is not a chunk size (a positive integer) "
                         "nor key=value",
                         spec, tok);
                return -EINVAL;
            }
            p->has_chunk = 1;
        } else {
            snprintf(err, errlen,
                     "schedule \"%s\": \"%s\" is not key=value (only the field after the name "
                     "may be a bare chunk size)",
                     spec, tok);
            return -EINVAL;
        }
        field++;
        if (!*e)
            break;
        s = e + 1;
    }
    return 0;
}

static int find_key(struct lf__params *p, const char *key)
{
    for (int i = 0; i < p->nkv; i++)
        if (strcmp(p->kv[i].key, key) == 0) {
            p->kv[i].used = 1;
            return i;
        }
    return -1;
}

int lf__params_get_double(struct lf__params *p, const char *key, double lo, double hi, double *out,
                          char *err, size_t errlen)
{
    int i = find_key(p, key);
    if (i < 0)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(p->kv[i].val, &end);
    if (errno || *end || !isfinite(v) || v < lo || v > hi) {
        snprintf(err, errlen, "%s: %s=%s: expected a number in [%g, %g]", p->name, key,
                 p->kv[i].val, lo, hi);
        return -EINVAL;
    }
    *out = v;
    return 1;
}

int lf__params_get_u64(struct lf__params *p, const char *key, uint64_t lo, uint64_t hi,
                       uint64_t *out, char *err, size_t errlen)
{
    int i = find_key(p, key);
    if (i < 0)
        return 0;
    uint64_t v;
    if (parse_u64(p->kv[i].val, &v) != 0 || v < lo || v > hi) {
        snprintf(err, errlen, "%s: %s=%s: expected an integer in [%llu, %llu]", p->name, key,
                 p->kv[i].val, (unsigned long long)lo, (unsigned long long)hi);
        return -EINVAL;
    }
    *out = v;
    return 1;
}

int lf__params_get_str(struct lf__params *p, const char *key, const char **out)
{
    int i = find_key(p, key);
    if (i < 0)
        return 0;
    *out = p->kv[i].val;
    return 1;
}

int lf__params_get_onoff(struct lf__params *p, const char *key, int *out, char *err, size_t errlen)
{
    const char *v;
    if (!lf__params_get_str(p, key, &v))
        return 0;
    if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0)
        *out = 1;
    else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
        *out = 0;
    else {
        snprintf(err, errlen, "%s: %s=%s: expected %s=on or %s=off", p->name, key, v, key, key);
        return -EINVAL;
    }
    return 1;
}

int lf__params_get_min(struct lf__params *p, uint64_t *out, char *err, size_t errlen)
{
    int rc = lf__params_get_u64(p, "min", 1, UINT64_MAX / 2, out, err, errlen);
    if (rc < 0)
        return rc;
    if (rc == 0)
        *out = 0;
    if (p->has_chunk) {
        if (*out) {
            snprintf(err, errlen, "%s: give the smallest chunk once, as %s,<n> or min=<n>", p->name,
                     p->name);
            return -EINVAL;
        }
        *out = p->chunk;
    }
    return 0;
}

int lf__params_check_unused(const struct lf__params *p, char *err, size_t errlen)
{
    for (int i = 0; i < p->nkv; i++)
        if (!p->kv[i].used) {
            snprintf(err, errlen,
                     "%s: unknown key \"%s\" (every schedule also accepts cal=auto|paper, "
                     "calns=N, memory=on|off, numa=on|off, stage=on|off, piece=BYTES, "
                     "lease=on|off|force, plan=choose|dealt|own|self|serial|tiny)",
                     p->name, p->kv[i].key);
            return -EINVAL;
        }
    return 0;
}

/* Read the keys the executor, not the policy, interprets. */
static int parse_executor_keys(struct lf__params *p, struct lf__sched *s, char *err, size_t errlen)
{
    const char *v;
    int rc;
    s->cal_paper = 0;
    s->memory = 1;
    s->cal_ns = 20000;
    if (lf__params_get_str(p, "cal", &v)) {
        if (strcmp(v, "paper") == 0)
            s->cal_paper = 1;
        else if (strcmp(v, "auto") != 0) {
            snprintf(err, errlen, "%s: cal=%s: expected cal=auto or cal=paper", p->name, v);
            return -EINVAL;
        }
    }
    s->numa = s->stage = 1;
    if ((rc = lf__params_get_onoff(p, "memory", &s->memory, err, errlen)) < 0 ||
        (rc = lf__params_get_onoff(p, "numa", &s->numa, err, errlen)) < 0 ||
        (rc = lf__params_get_onoff(p, "stage", &s->stage, err, errlen)) < 0)
        return rc;
    rc = lf__params_get_u64(p, "calns", 1, 1000000000, &s->cal_ns, err, errlen);
    if (rc < 0)
        return rc;
    s->stage_piece = 262144;
    rc = lf__params_get_u64(p, "piece", 0, UINT64_MAX >> 1, &s->stage_piece, err, errlen);
    if (rc < 0)
        return rc;
    s->lease = -1; /* the policy's default (lib/exec/exec.h, lf__exec_lease_mode) */
    if (lf__params_get_str(p, "lease", &v)) {
        if (strcmp(v, "on") == 0 || strcmp(v, "1") == 0)
            s->lease = 1;
        else if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0)
            s->lease = 0;
        else if (strcmp(v, "force") == 0)
            s->lease = 2;
        else {
            snprintf(err, errlen, "%s: lease=%s: expected lease=on, lease=off or lease=force",
                     p->name, v);
            return -EINVAL;
        }
    }
    /* The kinds in lf__plan_kind's order (lib/exec/exec.h). */
    static const char *const plans[] = {"dealt", "own", "self", "serial", "tiny"};
    s->plan = -1;
    if (lf__params_get_str(p, "plan", &v)) {
        for (int k = 0; k < (int)(sizeof plans / sizeof *plans); k++)
            if (strcmp(v, plans[k]) == 0)
                s->plan = k;
        if (s->plan < 0 && strcmp(v, "choose") != 0) {
            snprintf(err, errlen,
                     "%s: plan=%s: expected plan=choose, plan=dealt, plan=own, plan=self, "
                     "plan=serial or plan=tiny",
                     p->name, v);
            return -EINVAL;
        }
    }
    return 0;
}

int lf__sched_parse(const char *spec, struct lf__sched *s, char *err, size_t errlen)
{
    struct lf__params p;
    char list[512];
    int rc;
    memset(s, 0, sizeof *s);
    if (spec && strlen(spec) >= sizeof s->spec) {
        /* Kept whole or not at all: a cut spec can parse as another one. */
        snprintf(err, errlen, "schedule \"%.40s...\": %zu characters, expected at most %zu", spec,
                 strlen(spec), sizeof s->spec - 1);
        return -EINVAL;
    }
    if ((rc = lf__params_split(spec, &p, err, errlen)) != 0)
        return rc;
    s->pol = lf__policy_find(p.name);
    if (!s->pol) {
        lf__policy_list(list, sizeof list);
        snprintf(err, errlen, "unknown schedule \"%s\"; accepted: %s", p.name, list);
        return -EINVAL;
    }
    if (s->pol->state_size > sizeof s->state) {
        snprintf(err, errlen, "%s: internal error: state too large", p.name);
        return -EINVAL;
    }
    if ((rc = parse_executor_keys(&p, s, err, errlen)) != 0)
        return rc;
    if ((rc = s->pol->parse(s->state, &p, err, errlen)) != 0)
        return rc;
    if ((rc = lf__params_check_unused(&p, err, errlen)) != 0)
        return rc;
    snprintf(s->spec, sizeof s->spec, "%s", spec);
    return 0;
}
