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
 * one slot less once it is gone).  Under libgomp the staging is harmless.
 *
 * The staging makes that crash rare, not impossible.  So stage_roots first forks: the child
 * runs the test, and a fault whose instruction lies in libomp ends it with ROOTS_LIBOMP_CRASH
 * after saying where; the parent then runs the test again, at most ROOTS_TRIES times in all,
 * and otherwise exits as the child did.  Any other fault (in loopfarm, the test or another
 * library) takes the action that was there before (the default, or a sanitizer's report), and
 * a test that fails fails at once.  Whoever includes this defines _GNU_SOURCE before any
 * system header (for dladdr and the fault's registers). */
#ifndef LF_TESTS_ROOTS_H
#define LF_TESTS_ROOTS_H

#include <dlfcn.h>
#include <errno.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <ucontext.h>
#include <unistd.h>

#define ROOTS_LIBOMP_CRASH 86 /* the child's exit status after a fault inside libomp */
#define ROOTS_TRIES        3

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

/* The actions for SIGSEGV and SIGBUS before roots_guard's (a sanitizer's report, or none). */
static struct sigaction roots_old_segv, roots_old_bus;

/* A fault's handler: inside libomp, says where and exits with ROOTS_LIBOMP_CRASH; elsewhere
 * restores the action that was there before, so that the faulting instruction, run again, ends
 * the process as if this handler had not been there (a sanitizer still reports it). */
static void roots_on_fault(int sig, siginfo_t *si, void *ctx)
{
    const char *pc = NULL;
    Dl_info at;
    (void)si;
#if defined(__x86_64__) && defined(REG_RIP)
    pc = (const char *)((ucontext_t *)ctx)->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    pc = (const char *)((ucontext_t *)ctx)->uc_mcontext.pc;
#else
    (void)ctx;
#endif
    const char *base = ""; /* the faulting object's file name, not a folder above it */
    if (pc && dladdr(pc, &at) && at.dli_fname) {
        const char *slash = strrchr(at.dli_fname, '/');
        base = slash ? slash + 1 : at.dli_fname;
    }
    if (strncmp(base, "libomp", 6) == 0) {
        char msg[512];
        int len = snprintf(msg, sizeof msg,
                           "roots: signal %d at %s+%#lx, inside libomp (libomp 14's race of "
                           "roots starting teams at once faults there: doc/kmp-shim.md)\n",
                           sig, at.dli_fname, (unsigned long)(pc - (const char *)at.dli_fbase));
        if (len > 0)
            (void)!write(2, msg, (size_t)len < sizeof msg ? (size_t)len : sizeof msg - 1);
        _exit(ROOTS_LIBOMP_CRASH);
    }
    sigaction(sig, sig == SIGBUS ? &roots_old_bus : &roots_old_segv, NULL);
}

/* Runs the rest of the process in a child, again after a child's fault inside libomp, at most
 * ROOTS_TRIES times; returns in the child that is to run the test, and never in the parent. */
static void roots_guard(void)
{
    const pid_t self = getpid();
    for (int run = 1;; run++) {
        fflush(NULL);
        pid_t pid = fork();
        if (pid < 0) {
            perror("stage_roots: fork");
            exit(1);
        }
        if (pid == 0) {
#ifdef __linux__
            /* A parent killed (by a timeout) takes the test with it. */
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self)
                _exit(1);
#else
            (void)self;
#endif
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_sigaction = roots_on_fault;
            sa.sa_flags = SA_SIGINFO;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGSEGV, &sa, &roots_old_segv);
            sigaction(SIGBUS, &sa, &roots_old_bus);
            return;
        }
        int st;
        while (waitpid(pid, &st, 0) < 0)
            if (errno != EINTR) {
                perror("stage_roots: waitpid");
                exit(1);
            }
        if (WIFEXITED(st) && WEXITSTATUS(st) == ROOTS_LIBOMP_CRASH && run < ROOTS_TRIES) {
            /* The faulted run's LF_TRACE records (loopfarm appends to the file) describe loops
             * that did not all finish: a file without a per-process name starts afresh. */
            const char *trace = getenv("LF_TRACE");
            if (trace && *trace && !strchr(trace, '%') && truncate(trace, 0) != 0 &&
                errno != ENOENT) /* none written yet: nothing to empty */
                fprintf(stderr,
                        "roots: cannot empty LF_TRACE file %s (%s); its records of the "
                        "faulted run stay\n",
                        trace, strerror(errno));
            fprintf(stderr, "roots: running the test again (run %d of at most %d)\n", run + 1,
                    ROOTS_TRIES);
            continue;
        }
        if (WIFSIGNALED(st)) {
            signal(WTERMSIG(st), SIG_DFL);
            raise(WTERMSIG(st));
        }
        _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
    }
}

/* Stage roots pthreads (>= 1) with teams of team threads (>= 1), one at a time, then release
 * and join them, in the child of roots_guard; exits with status 1, saying why, if a pthread
 * cannot be made.  Called before the process uses OpenMP. */
static void stage_roots(int roots, int team)
{
    roots_guard();
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
