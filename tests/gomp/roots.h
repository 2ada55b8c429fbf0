/* tests/gomp/roots.h - stage_roots(roots, team): for a test whose pthreads open OpenMP teams at
 * the same time (each pthread a root of the runtime).  Included by such test programs, built
 * against libgomp or libomp.
 *
 * Brings up, one root at a time, as many roots and workers as the test runs at once at its
 * peak (roots pthreads, each with a team of team threads), and lets them go.  libomp 14 frees
 * its table of threads when the table grows, while a worker that another root's team is
 * starting may still be reading the old one (its stack-overlap check at start-up): a crash
 * inside libomp alone, seen under ASan and in plain builds, that any program whose roots start
 * teams at the same time can meet (doc/kmp-shim.md).  Grown here, from one root at a time, the
 * table has room for the test's peak before the roots run together, and the freed workers wait
 * in libomp's pool for them.  The main thread joins the runtime first, so that it stays
 * libomp's initial root throughout (libomp leaves the initial root's slot to it, and counts
 * one slot less once it is gone).  Under libgomp the staging is harmless. */
#ifndef LF_TESTS_ROOTS_H
#define LF_TESTS_ROOTS_H

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_mutex_t roots_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t roots_cv = PTHREAD_COND_INITIALIZER;
static int roots_ready, roots_release, roots_team;

/* One staged root: opens its team, says so, and holds on until released. */
static void *roots_main(void *p)
{
    (void)p;
#pragma omp parallel num_threads(roots_team)
    {
    }
    pthread_mutex_lock(&roots_mu);
    roots_ready++;
    pthread_cond_broadcast(&roots_cv);
    while (!roots_release)
        pthread_cond_wait(&roots_cv, &roots_mu);
    pthread_mutex_unlock(&roots_mu);
    return NULL;
}

/* Stage roots pthreads (>= 1) with teams of team threads (>= 1), one at a time, then release
 * and join them; exits with status 1, saying why, if a pthread cannot be made. */
static void stage_roots(int roots, int team)
{
    pthread_t *th = calloc((size_t)roots, sizeof *th);
    if (!th) {
        fprintf(stderr, "stage_roots: out of memory for %d pthreads\n", roots);
        exit(1);
    }
    (void)omp_get_max_threads(); /* the main thread joins the runtime */
    roots_ready = roots_release = 0;
    roots_team = team;
    for (int t = 0; t < roots; t++) {
        if (pthread_create(&th[t], NULL, roots_main, NULL) != 0) {
            fprintf(stderr, "stage_roots: pthread_create failed for root %d of %d\n", t + 1, roots);
            exit(1);
        }
        pthread_mutex_lock(&roots_mu);
        while (roots_ready < t + 1)
            pthread_cond_wait(&roots_cv, &roots_mu);
        pthread_mutex_unlock(&roots_mu);
    }
    pthread_mutex_lock(&roots_mu);
    roots_release = 1;
    pthread_cond_broadcast(&roots_cv);
    pthread_mutex_unlock(&roots_mu);
    for (int t = 0; t < roots; t++)
        pthread_join(th[t], NULL);
    free(th);
}

#endif
