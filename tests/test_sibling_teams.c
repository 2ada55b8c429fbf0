/* tests/test_sibling_teams.c - teams opened at the same time by different
 * pthreads, running LF_FOR at one call site, never share a loop: every
 * pthread's loops run each of their own iterations exactly once, with their
 * own bounds, for 2-8 pthreads x teams of 1-4 threads, with and without a
 * schedule in the code, with and without nowait.  Built with gcc (libgomp)
 * and with clang (libomp); run under ASan and TSan by scripts/test.sh.  The
 * runtime's roots are staged first (gomp/roots.h).
 * Usage: test_sibling_teams [rounds]   (exit 0: pass, 1: fail) */
#define _GNU_SOURCE /* gomp/roots.h: dladdr, the fault's registers */
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gomp/roots.h"
#include "loopfarm/omp.h"

struct sibling {
    int id, team; /* pthread number, team size */
    long n;       /* this pthread's trip count: differs between pthreads */
    int rounds;
    const char *spec; /* NULL: LF_SCHEDULE */
    atomic_int *seen; /* n counters */
    atomic_long bad;  /* iterations out of range or seen twice, missing ones */
    long sum, expect;
};

/* One loop over [0, n) at a call site every pthread shares: marks and sums. */
static void one_loop(struct sibling *s, int nowait)
{
    long sum = 0;
#pragma omp parallel num_threads(s->team) reduction(+ : sum)
    {
        if (nowait) {
            LF_FOR_SCHED_NOWAIT(i, 0, s->n, 1L, s->spec)
            {
                if (i < 0 || i >= s->n || atomic_fetch_add(&s->seen[i], 1) != 0)
                    atomic_fetch_add(&s->bad, 1);
                else
                    sum += i;
            }
        } else {
            LF_FOR_SCHED(i, 0, s->n, 1L, s->spec)
            {
                if (i < 0 || i >= s->n || atomic_fetch_add(&s->seen[i], 1) != 0)
                    atomic_fetch_add(&s->bad, 1);
                else
                    sum += i;
            }
        }
    }
    for (long i = 0; i < s->n; i++)
        if (atomic_exchange(&s->seen[i], 0) != 1)
            atomic_fetch_add(&s->bad, 1);
    s->sum = sum;
}

static void *sibling_main(void *p)
{
    struct sibling *s = p;
    for (int r = 0; r < s->rounds; r++) {
        one_loop(s, r % 2);
        if (s->sum != s->expect)
            atomic_fetch_add(&s->bad, 1);
    }
    return NULL;
}

/* npth pthreads, each with teams of `team` threads; 0 when all loops were exact. */
static long run(int npth, int team, const char *spec, int rounds)
{
    struct sibling s[8];
    pthread_t th[8];
    long bad = 0;
    for (int k = 0; k < npth; k++) {
        s[k].id = k;
        s[k].team = team;
        s[k].n = 500 + 137L * k; /* different bounds: a shared loop shows */
        s[k].rounds = rounds;
        s[k].spec = spec;
        s[k].seen = calloc((size_t)s[k].n, sizeof *s[k].seen);
        atomic_init(&s[k].bad, 0);
        s[k].expect = s[k].n * (s[k].n - 1) / 2;
        if (!s[k].seen)
            abort();
    }
    for (int k = 0; k < npth; k++)
        if (pthread_create(&th[k], NULL, sibling_main, &s[k]) != 0)
            abort();
    for (int k = 0; k < npth; k++) {
        pthread_join(th[k], NULL);
        long b = atomic_load(&s[k].bad);
        if (b)
            fprintf(stderr, "FAIL %d pthreads x teams of %d, schedule %s: pthread %d: %ld errors\n",
                    npth, team, spec ? spec : "(LF_SCHEDULE)", k, b);
        bad += b;
        free(s[k].seen);
    }
    return bad;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : (getenv("LF_TEST_QUICK") ? 6 : 20);
    static const int npths[] = {2, 3, 8};
    static const char *const specs[] = {NULL, "dynamic,3", "af", "multi"};
    long bad = 0;
    stage_roots(8, 4); /* the peak below: 8 pthreads with teams of 4 */
    for (size_t sp = 0; sp < sizeof specs / sizeof *specs; sp++)
        for (size_t p = 0; p < sizeof npths / sizeof *npths; p++)
            for (int team = 1; team <= 4; team++)
                bad += run(npths[p], team, specs[sp], rounds);
    printf("%s: sibling teams %s\n", argv[0], bad ? "FAILED" : "passed");
    return bad ? 1 : 0;
}
