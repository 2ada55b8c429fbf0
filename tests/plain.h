/* tests/plain.h - what the test programs without CUnit share (those that
 * must run in a fresh process, or fork children with their own
 * environment): a CHECK that counts failures, running a child with its
 * stderr captured, and running a loop on a team of pthreads. */
#ifndef PLAIN_H
#define PLAIN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loopfarm.h"

static int plain_failures __attribute__((unused));

/* Report a failed condition with its place and count it; main returns
 * plain_failures ? 1 : 0. */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #cond);                     \
            plain_failures++;                                                                      \
        }                                                                                          \
    } while (0)

/* Run fn in a child (with var=value set first when var is not NULL), its
 * stderr sent to a pipe; return fn's result as the child's exit status (-1
 * when it did not exit, or could not start) and its stderr in buf. */
static inline int plain_child_stderr(const char *var, const char *value, int (*fn)(void), char *buf,
                                     size_t len)
{
    int fd[2];
    buf[0] = '\0';
    if (pipe(fd) != 0)
        return -1;
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        close(fd[0]);
        if (var)
            setenv(var, value, 1);
        dup2(fd[1], 2);
        _exit(fn());
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t k;
    while (n < len - 1 && (k = read(fd[0], buf + n, len - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = '\0';
    close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Lines in s. */
static inline int plain_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Member tid of a loop over [0, n): counts its iterations, and with hits
 * each iteration's runs (hits[i] for iteration i). */
struct plain_member {
    lf_loop *loop;
    int tid;
    long n;
    unsigned long iters;
    atomic_uchar *hits; /* NULL: count only */
};

static inline void *plain_member_run(void *p)
{
    struct plain_member *m = p;
    long first;
    unsigned long cnt;
    if (lf_loop_begin(m->loop, m->tid, 0, m->n, 1) != 0)
        return NULL;
    while (lf_loop_next(m->loop, m->tid, &first, &cnt)) {
        m->iters += cnt;
        for (unsigned long j = 0; m->hits && j < cnt; j++)
            atomic_fetch_add(&m->hits[first + (long)j], 1);
    }
    lf_loop_end(m->loop, m->tid);
    return NULL;
}

/* Make a loop handle named name under spec for a team of P (<= 8) threads,
 * run `loops` loops of n iterations on it, destroy it.  Returns 1 when
 * every loop ran all its iterations, 0 otherwise. */
static inline int plain_run_loops(const char *spec, const char *name, int P, long n, int loops)
{
    lf_schedule *s = NULL;
    lf_loop *l = NULL;
    int ok = P >= 1 && P <= 8;
    if (!ok || lf_schedule_parse(spec, &s, NULL, 0) != 0 || lf_loop_create(&l, P, s, name) != 0) {
        lf_schedule_free(s);
        return 0;
    }
    for (int k = 0; k < loops; k++) {
        pthread_t th[8];
        struct plain_member m[8];
        unsigned long sum = 0;
        for (int t = 0; t < P; t++) {
            m[t] = (struct plain_member){l, t, n, 0};
            pthread_create(&th[t], NULL, plain_member_run, &m[t]);
        }
        for (int t = 0; t < P; t++) {
            pthread_join(th[t], NULL);
            sum += m[t].iters;
        }
        ok &= sum == (unsigned long)n;
    }
    lf_loop_destroy(l);
    lf_schedule_free(s);
    return ok;
}

#endif
