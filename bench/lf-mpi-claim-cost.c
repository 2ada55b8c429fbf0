/* bench/lf-mpi-claim-cost.c - what one rank-level claim costs: the
 * one-sided claim of libloopfarm-mpi (a network atomic on rank 0's window)
 * against the two-sided round trip of a master that hands out every chunk
 * (the DLS4LB scheme), with every rank claiming at once.  A benchmark,
 * never part of make check.
 *
 *   mpirun -np 4 lf-mpi-claim-cost [--claims N] [--reps R] [--csv]
 *
 * Each rank claims chunks of one iteration with empty bodies, so a loop of
 * N * (ranks) iterations measures N claims per rank; the table gives the
 * median over R repetitions of the time per claim (the slowest rank's
 * loop time / its claims), one row per mode.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopfarm/mpi.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mpirun -np P lf-mpi-claim-cost [--claims N] [--reps R] [--csv]\n"
               "  the cost of one rank-level claim with all P ranks claiming at once:\n"
               "  one-sided (MPI_Fetch_and_op on rank 0's window) against the\n"
               "  two-sided master round trip (rank 0 serves, P - 1 ranks claim)\n"
               "  --claims N  claims per claiming rank and repetition (default 2000)\n"
               "  --reps R    repetitions; the median is reported (default 5)\n"
               "  --csv       mode,ranks,claims,ns_per_claim rows instead of a table\n"
               "example: mpirun --oversubscribe -np 4 lf-mpi-claim-cost --claims 500 --reps 3\n");
}

/* A whole positive number from argument s of option opt, or exit 2. */
static long number(const char *opt, const char *s, int rank)
{
    char *end;
    errno = 0;
    long v = s ? strtol(s, &end, 10) : 0;
    if (!s || end == s || *end || errno || v < 1 || v > 100000000) {
        if (rank == 0)
            fprintf(stderr,
                    "lf-mpi-claim-cost: %s needs a whole number from 1 to 1e8, got \"%s\"\n", opt,
                    s ? s : "");
        MPI_Finalize();
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int rank, P, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    long claims = 2000, reps = 5;
    int csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--claims"))
            claims = number("--claims", i + 1 < argc ? argv[++i] : NULL, rank);
        else if (!strcmp(argv[i], "--reps"))
            reps = number("--reps", i + 1 < argc ? argv[++i] : NULL, rank);
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (rank == 0)
                usage(stdout);
            MPI_Finalize();
            return 0;
        } else {
            if (rank == 0) {
                fprintf(stderr, "lf-mpi-claim-cost: unknown option \"%s\"\n", argv[i]);
                usage(stderr);
            }
            MPI_Finalize();
            return 2;
        }
    }
    if (!csv && rank == 0)
        printf("%-10s %6s %8s %14s\n", "mode", "ranks", "claims", "ns/claim");
    for (int mode = 0; mode < 2; mode++) {
        if (mode == LF_MPI_MASTER && P < 2)
            break; /* a master needs a worker */
        lf_mpi_loop *ml;
        char err[512];
        if (lf_mpi_loop_create_mode(&ml, MPI_COMM_WORLD, 1, "dynamic,1", "static", "claim-cost",
                                    (enum lf_mpi_mode)mode, err, sizeof err) != 0) {
            if (rank == 0)
                fprintf(stderr, "lf-mpi-claim-cost: %s\n", err);
            MPI_Finalize();
            return 1;
        }
        int workers = mode == LF_MPI_MASTER ? P - 1 : P;
        long n = claims * workers;
        double *t = calloc((size_t)reps, sizeof *t);
        for (long r = 0; r < reps; r++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            long first;
            unsigned long c, got = 0;
            lf_mpi_loop_begin(ml, 0, 0, n, 1);
            while (lf_mpi_loop_next(ml, 0, &first, &c))
                got += c;
            lf_mpi_loop_end(ml, 0);
            double mine = MPI_Wtime() - t0, worst;
            MPI_Allreduce(&mine, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            t[r] = worst * 1e9 / (double)claims;
            /* The ranks' claims cover the loop once: a timing of anything
             * else is no claim cost. */
            unsigned long all = 0;
            MPI_Allreduce(&got, &all, 1, MPI_UNSIGNED_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (all != (unsigned long)n) {
                if (rank == 0)
                    fprintf(stderr, "lf-mpi-claim-cost: the ranks claimed %lu of %ld iterations\n",
                            all, n);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
        qsort(t, (size_t)reps, sizeof *t, cmp);
        if (rank == 0) {
            const char *name = mode == LF_MPI_MASTER ? "two-sided" : "one-sided";
            if (csv)
                printf("%s,%d,%ld,%.1f\n", name, P, claims, t[reps / 2]);
            else
                printf("%-10s %6d %8ld %14.1f\n", name, P, claims, t[reps / 2]);
        }
        free(t);
        lf_mpi_loop_destroy(ml);
    }
    MPI_Finalize();
    return 0;
}
