/* OpenMP's static promise under a schedule that learns: in one parallel region, two
 * schedule(static) loops with the same trip count give every thread the same iterations, so a
 * nowait pair may read in its second loop what the same thread wrote in its first.  Thread 0's
 * iterations of the first loop cost SLOW times the others' (its weights move), the second
 * loop's cost the same everywhere (its own weights would stay even): if a split followed each
 * loop's call site, or changed while the region ran, iterations would change threads between
 * the two loops.  Checked over many regions, at each team size the runner asks for.
 *
 * The weighted shim runs a split only where it judges that the split pays, so thread 0 is slow
 * enough that weighting pays by far with a CPU per thread, even beside other processes. */
#define SLOW 16
#include "check.h"

/* Work that the compiler cannot remove: units rounds of a multiply-add. */
static double spin(long units)
{
    volatile double x = 1.0;
    for (long k = 0; k < units; k++)
        x = x * 1.0000001 + 1e-9;
    return x;
}

int main(void)
{
    const long n = 3001;
    int *owner = cov_new(n), *c1 = cov_new(n), *c2 = cov_new(n);
    double *val = calloc((size_t)n, sizeof *val);
    long moved = 0, regions = 60, mismatch = 0;
    if (!val)
        FAIL("out of memory");
    for (long r = 0; r < regions; r++) {
        long first0 = -1; /* thread 0's first iteration of loop 1: where the split fell */
#pragma omp parallel reduction(+ : mismatch)
        {
            int t = omp_get_thread_num();
#pragma omp for schedule(static) nowait
            for (long i = 0; i < n; i++) {
                owner[i] = t;
                val[i] = (double)i * 0.5 + spin(t == 0 ? SLOW * 100 : 100) * 0.0;
                cov_hit(c1, i);
            }
            /* No barrier: this thread's iterations of the first loop are its own to read. */
#pragma omp for nowait
            for (long i = 0; i < n; i++) {
                if (owner[i] != t || val[i] != (double)i * 0.5)
                    mismatch++;
                spin(100);
                cov_hit(c2, i);
            }
#pragma omp barrier
#pragma omp single
            {
                int P = omp_get_num_threads();
                long q = n / P + (n % P != 0); /* thread 0's share under the balanced split */
                for (long i = 0; i < n && first0 < 0; i++)
                    if (owner[i] != 0)
                        first0 = i;
                if (P > 1 && first0 != q)
                    moved++;
            }
        }
        if (mismatch)
            FAIL("region %ld: %ld iterations of the second nowait loop ran on another thread "
                 "than in the first (or read a value not yet written)",
                 r, mismatch);
        cov_check(c1, n, "first static loop");
        cov_check(c2, n, "second static loop");
    }
    /* Under the weighted shim, thread 0's share must have moved in some region (else the pair
     * was never tested under changing weights), wherever the team has a CPU per thread: there
     * weighting pays by SLOW alone.  With more threads than CPUs, and other processes on them,
     * each thread's time is mostly its wait for a time slice, weighting need not pay, and the
     * shim may rightly keep the even split. */
    const char *rep = getenv("LF_REPLACE");
    int P = omp_get_max_threads();
    if (dlsym(RTLD_DEFAULT, "lf_shim_enable") && rep && strstr(rep, "static:weighted") && P > 1 &&
        P <= omp_get_num_procs() && moved == 0)
        FAIL("LF_REPLACE=static:weighted, yet thread 0's share never moved in %ld regions",
             regions);
    free(val);
    printf("k_static_nowait: %ld regions, split moved in %ld\n", regions, moved);
    return 0;
}
