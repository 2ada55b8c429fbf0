/* lib/dispatch/schedule.c - public schedule objects, and LF_SCHEDULE: the schedule of loops that
 * name none. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "platform/env.h"

int lf_schedule_parse(const char *spec, lf_schedule **out, char *err, size_t errlen)
{
    char buf[512];
    if (!out) {
        if (err && errlen)
            snprintf(err, errlen, "lf_schedule_parse: out is NULL");
        return -EINVAL;
    }
    *out = NULL;
    lf_schedule *s = malloc(sizeof *s);
    if (!s)
        return -ENOMEM;
    int rc = lf__sched_parse(spec, &s->s, buf, sizeof buf);
    if (rc) {
        if (err && errlen)
            snprintf(err, errlen, "%s", buf);
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

const char *lf_schedule_name(const lf_schedule *s)
{
    return s ? s->s.pol->name : NULL;
}

const char *lf_schedule_spec(const lf_schedule *s)
{
    return s ? s->s.spec : NULL;
}

void lf_schedule_free(lf_schedule *s)
{
    free(s);
}

static lf_schedule default_sched;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void parse_default(void)
{
    char err[512];
    const char *env = lf__env(LF__ENV_SCHEDULE);
    if (env && *env) {
        if (lf__sched_parse(env, &default_sched.s, err, sizeof err) == 0)
            return;
        fprintf(stderr, "loopfarm: LF_SCHEDULE=\"%s\": %s; running loops under \"dynamic\"\n", env,
                err);
        if (lf__sched_parse("dynamic", &default_sched.s, err, sizeof err) != 0)
            abort(); /* the registry lacks dynamic: a build error, not a user's */
        return;
    }
    /* No LF_SCHEDULE: the schedule that learns each call site. */
    if (lf__sched_parse("auto", &default_sched.s, err, sizeof err) != 0)
        abort(); /* the registry lacks auto: a build error, not a user's */
}

const lf_schedule *lf_schedule_default(void)
{
    pthread_once(&default_once, parse_default);
    return &default_sched;
}

size_t lf_schedule_help(char *buf, size_t len)
{
    size_t need = 0;
    for (const struct lf__policy *const *p = lf__policies; *p; p++) {
        int k = snprintf(buf && need < len ? buf + need : NULL, buf && need < len ? len - need : 0,
                         "  %-22s %s\n", (*p)->synopsis, (*p)->help);
        if (k > 0)
            need += (size_t)k;
    }
    if (buf && len && need >= len)
        buf[len - 1] = '\0';
    return need;
}
