/* Sibling teams: 2-8 pthreads each open parallel regions of 1-4 threads at the same time and
 * run the same dynamic, guided and combined loops with bounds of their own; every pthread's
 * loops run each of their iterations exactly once, and the reduction equals the sequential
 * sum.  (Team sizes are the program's own: OMP_NUM_THREADS does not matter here.) */
#define _GNU_SOURCE /* roots.h: dladdr, the fault's registers */
#include <pthread.h>

#include "check.h"
#include "roots.h"

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

#define MAX_PTHS 8
#define MAX_TEAM 4

int main(void)
{
    static const int npths[] = {2, 3, MAX_PTHS};
    stage_roots(MAX_PTHS, MAX_TEAM);
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
