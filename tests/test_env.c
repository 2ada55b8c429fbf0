/* tests/test_env.c - the LF_* environment is read in one place: a typo in
 * LF_CLOCK and a non-numeric LF_VERBOSE are reported once each, naming the
 * accepted forms, and fall back to the default (so does a malformed byte
 * size in LF_MPI_STAGE_BYTES); good values are used
 * silently; lf__env_info says where each value came from.  Each case runs
 * in a child (variables are read once per process).  Exit 0 pass, 1 fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plain.h"
#include "dispatch/dispatch.h"
#include "platform/platform.h"

/* Read the clock twice; 0 when it fell back to (or chose) what expected says. */
static int clock_twice(void)
{
    lf__clock_init();
    lf__clock_init();
    struct lf__env_info e;
    lf__env_info(LF__ENV_CLOCK, &e);
    return lf__env(LF__ENV_CLOCK) == NULL && e.fallback != NULL ? 0 : 1;
}

static int clock_monotonic(void)
{
    lf__clock_init();
    return lf__clock.use_tsc == 0 && lf__env(LF__ENV_CLOCK) != NULL ? 0 : 1;
}

static int verbose_twice(void)
{
    int a = lf__verbose(), b = lf__env_verbose();
    struct lf__env_info e;
    lf__env_info(LF__ENV_VERBOSE, &e);
    return a == 0 && b == 0 && e.fallback && e.value && strcmp(e.value, "lots") == 0 ? 0 : 1;
}

static int verbose_two(void)
{
    return lf__verbose() == 2 && lf__env_verbose() == 2 ? 0 : 1;
}

/* LF_BIND is parsed by its owner, which records the fallback for lf-info. */
static int bind_recorded(void)
{
    (void)lf__bind_mode();
    struct lf__env_info e;
    lf__env_info(LF__ENV_BIND, &e);
    return e.fallback && strcmp(e.fallback, "none") == 0 ? 0 : 1;
}

/* LF_MPI_STAGE_BYTES: a byte size env.c checks itself. */
static int bytes_twice(void)
{
    uint64_t a = lf__env_bytes(LF__ENV_MPI_STAGE_BYTES), b = lf__env_bytes(LF__ENV_MPI_STAGE_BYTES);
    struct lf__env_info e;
    lf__env_info(LF__ENV_MPI_STAGE_BYTES, &e);
    return a == 0 && b == 0 && e.fallback && strcmp(e.fallback, "16M") == 0 ? 0 : 1;
}

static int bytes_64k(void)
{
    return lf__env_bytes(LF__ENV_MPI_STAGE_BYTES) == 65536 ? 0 : 1;
}

static int bytes_3g(void)
{
    return lf__env_bytes(LF__ENV_MPI_STAGE_BYTES) == 3ULL << 30 ? 0 : 1;
}

int main(void)
{
    char err[2048];

    CHECK(plain_child_stderr("LF_CLOCK", "monotnic", clock_twice, err, sizeof err) == 0);
    CHECK(plain_lines(err) == 1);
    CHECK(strstr(err, "LF_CLOCK") && strstr(err, "monotnic") && strstr(err, "tsc") &&
          strstr(err, "monotonic"));

    CHECK(plain_child_stderr("LF_CLOCK", "monotonic", clock_monotonic, err, sizeof err) == 0);
    CHECK(err[0] == '\0');

    CHECK(plain_child_stderr("LF_VERBOSE", "lots", verbose_twice, err, sizeof err) == 0);
    CHECK(plain_lines(err) == 1);
    CHECK(strstr(err, "LF_VERBOSE") && strstr(err, "lots") && strstr(err, "whole number"));

    CHECK(plain_child_stderr("LF_VERBOSE", "2", verbose_two, err, sizeof err) == 0);
    CHECK(err[0] == '\0');

    CHECK(plain_child_stderr("LF_BIND", "sideways", bind_recorded, err, sizeof err) == 0);
    CHECK(plain_lines(err) == 1);

    const char *bad_bytes[] = {"lots", "0", "-5", "12Q", "16MB", "99999999999999999999"};
    for (size_t k = 0; k < sizeof bad_bytes / sizeof *bad_bytes; k++) {
        CHECK(plain_child_stderr("LF_MPI_STAGE_BYTES", bad_bytes[k], bytes_twice, err,
                                 sizeof err) == 0);
        CHECK(plain_lines(err) == 1 && strstr(err, "LF_MPI_STAGE_BYTES") && strstr(err, "16M"));
    }
    CHECK(plain_child_stderr("LF_MPI_STAGE_BYTES", "64k", bytes_64k, err, sizeof err) == 0);
    CHECK(err[0] == '\0');
    CHECK(plain_child_stderr("LF_MPI_STAGE_BYTES", "3G", bytes_3g, err, sizeof err) == 0);
    CHECK(err[0] == '\0');

    /* Unset: no value, a default to show, accepted forms to name. */
    unsetenv("LF_TRACE");
    struct lf__env_info e;
    CHECK(lf__env(LF__ENV_TRACE) == NULL);
    CHECK(lf__env_info(LF__ENV_TRACE, &e) == 0 && e.value == NULL && e.dflt && e.forms &&
          strcmp(e.name, "LF_TRACE") == 0 && e.fallback == NULL);
    CHECK(lf__env_info(LF__ENV_COUNT, &e) == -1);
    for (int id = 0; id < LF__ENV_COUNT; id++)
        CHECK(lf__env_info(id, &e) == 0 && strncmp(e.name, "LF_", 3) == 0);
    return plain_failures ? 1 : 0;
}
