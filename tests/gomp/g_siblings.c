/* Sibling teams: 2-8 pthreads each open parallel regions of 1-4 threads at the same time and
 * run the same dynamic, guided and combined loops with bounds of their own; every pthread's
 * loops run each of their iterations exactly once, and the reduction equals the sequential
 * sum.  (Team sizes are the program's own: OMP_NUM_THREADS does not matter here.) */
#include <pthread.h>

#include "check.h"

struct sib {
    int team, rounds;
    long n;
    int *cov;
    long bad;
};

/* One round of loops of every kind the shim takes, at call sites all pthreads share. */
static void loops(struct sib *s)
{
    const long n = s->n;
    long sum = 0;
#pragma omp parallel num_threads(s->team) reduction(+ : sum)
    {
#pragma omp for schedule(dynamic)
        for (long i = 0; i < n; i++) {
            __atomic_fetch_add(&s->cov[i], 1, __ATOMIC_RELAXED);
            sum += i;
        }
#pragma omp for schedule(guided, 3) nowait
        for (long i = 0; i < n; i++)
            __atomic_fetch_add(&s->cov[i], 1, __ATOMIC_RELAXED);
#pragma omp for schedule(runtime)
        for (long i = n - 1; i >= 0; i--)
            __atomic_fetch_add(&s->cov[i], 1, __ATOMIC_RELAXED);
    }
#pragma omp parallel for schedule(dynamic, 2) num_threads(s->team)
    for (long i = 0; i < n; i++)
        __atomic_fetch_add(&s->cov[i], 1, __ATOMIC_RELAXED);
    for (long i = 0; i < n; i++) {
        if (s->cov[i] != 4)
            s->bad++;
        s->cov[i] = 0;
    }
    if (sum != n * (n - 1) / 2)
        s->bad++;
}

static void *sib_main(void *p)
{
    struct sib *s = p;
    for (int r = 0; r < s->rounds; r++)
        loops(s);
    return NULL;
}

/* The staging of the roots before the test: each holds a team of MAX_TEAM until released. */
#define MAX_PTHS 8
#define MAX_TEAM 4
static pthread_mutex_t stage_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stage_cv = PTHREAD_COND_INITIALIZER;
static int stage_ready, stage_release;

static void *stage_main(void *p)
{
    (void)p;
#pragma omp parallel num_threads(MAX_TEAM)
    {
    }
    pthread_mutex_lock(&stage_mu);
    stage_ready++;
    pthread_cond_broadcast(&stage_cv);
    while (!stage_release)
        pthread_cond_wait(&stage_cv, &stage_mu);
    pthread_mutex_unlock(&stage_mu);
    return NULL;
}

/* Brings up, one root at a time, as many roots and workers as the test runs at once at its
 * peak (MAX_PTHS pthreads, each with a team of MAX_TEAM), and lets them go.  libomp 14 frees
 * its table of threads when the table grows, while a worker that another root's team is
 * starting may still be reading the old one (its stack-overlap check at start-up): a crash
 * inside libomp alone, seen under ASan, that any program whose roots start teams at the same
 * time can meet.  Grown here, from one root at a time, the table has room for the test's peak
 * before the roots run together, and the freed workers wait in libomp's pool for them.  The
 * main thread joins the runtime first, so that it stays libomp's initial root throughout
 * (libomp leaves the initial root's slot to it, and counts one slot less once it is gone). */
static void stage_roots(void)
{
    pthread_t th[MAX_PTHS];
    (void)omp_get_max_threads(); /* the main thread joins the runtime */
    for (int t = 0; t < MAX_PTHS; t++) {
        if (pthread_create(&th[t], NULL, stage_main, NULL) != 0)
            FAIL("pthread_create");
        pthread_mutex_lock(&stage_mu);
        while (stage_ready < t + 1)
            pthread_cond_wait(&stage_cv, &stage_mu);
        pthread_mutex_unlock(&stage_mu);
    }
    pthread_mutex_lock(&stage_mu);
    stage_release = 1;
    pthread_cond_broadcast(&stage_cv);
    pthread_mutex_unlock(&stage_mu);
    for (int t = 0; t < MAX_PTHS; t++)
        pthread_join(th[t], NULL);
}

int main(void)
{
    static const int npths[] = {2, 3, MAX_PTHS};
    stage_roots();
    for (size_t k = 0; k < sizeof npths / sizeof *npths; k++)
        for (int team = 1; team <= MAX_TEAM; team++) {
            struct sib s[MAX_PTHS];
            pthread_t th[MAX_PTHS];
            int np = npths[k];
            for (int t = 0; t < np; t++) {
                s[t] = (struct sib){team, 8, 300 + 71L * t, NULL, 0};
                s[t].cov = cov_new(s[t].n);
            }
            for (int t = 0; t < np; t++)
                if (pthread_create(&th[t], NULL, sib_main, &s[t]) != 0)
                    FAIL("pthread_create");
            for (int t = 0; t < np; t++)
                pthread_join(th[t], NULL);
            for (int t = 0; t < np; t++)
                if (s[t].bad)
                    FAIL("%d pthreads x teams of %d: pthread %d: %ld iterations or sums wrong", np,
                         team, t, s[t].bad);
            cov_free_all();
        }
    return 0;
}
