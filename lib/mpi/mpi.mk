# libloopfarm-mpi: loops across the ranks of an MPI communicator, each rank
# chunk shared by the rank's threads (include/loopfarm/mpi.h, doc/mpi.md).
# Built when configure finds MPI.  It carries its own hidden copy of the
# core (policies, executor protocol, dispatcher, platform) and exports the
# lf_mpi_ names only.
EXTRA_DIST += lib/mpi/mpi.h lib/mpi/window.c lib/mpi/rank.c lib/mpi/master.c lib/mpi/team.c \
	lib/mpi/staging.c \
	include/loopfarm/mpi.h tests/test_mpi.sh tests/test_mpi.c doc/mpi.md
if HAVE_MPI
lib_LTLIBRARIES += libloopfarm-mpi.la
loopfarminc_HEADERS += include/loopfarm/mpi.h
libloopfarm_mpi_la_SOURCES = \
	lib/mpi/mpi.h \
	lib/mpi/window.c \
	lib/mpi/rank.c \
	lib/mpi/master.c \
	lib/mpi/staging.c \
	lib/mpi/team.c
libloopfarm_mpi_la_CPPFLAGS = $(AM_CPPFLAGS) -DLF_BUILDING $(MPI_CFLAGS)
libloopfarm_mpi_la_LIBADD = libloopfarm-core.la $(MPI_LIBS) $(HWLOC_LIBS) $(PAPI_LIBS) -lm
libloopfarm_mpi_la_LDFLAGS = -version-info 0:0:0 -export-symbols-regex '^lf_mpi_'

# Exactly once across ranks and threads, bad arguments, late and early
# ranks: tests/test_mpi.sh runs tests/test_mpi under mpirun (1-4 ranks x 1-2
# threads).
if HAVE_OPENMP
check_PROGRAMS += tests/test_mpi
tests_test_mpi_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
tests_test_mpi_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_test_mpi_LDADD = libloopfarm-mpi.la libloopfarm.la $(MPI_LIBS) $(OPENMP_CFLAGS)
endif
endif
# Says "skipped: no MPI" when the library or mpirun is absent.
TESTS += tests/test_mpi.sh

# The per-claim cost of the one-sided claim against the two-sided master
# round trip (doc/mpi.md); never run by make check.
EXTRA_DIST += bench/lf-mpi-claim-cost.c
if HAVE_MPI
noinst_PROGRAMS += bench/lf-mpi-claim-cost
bench_lf_mpi_claim_cost_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
bench_lf_mpi_claim_cost_LDADD = libloopfarm-mpi.la $(MPI_LIBS)
endif

# lf-bench across ranks: `mpirun -np P lf-bench --mpi ...` becomes
# lf-bench-mpi (the kernels and rows of bench/libbench.la).
EXTRA_DIST += bench/lf-bench-mpi.c
if HAVE_MPI
if HAVE_OPENMP
bin_PROGRAMS += bench/lf-bench-mpi
bench_lf_bench_mpi_SOURCES = bench/lf-bench-mpi.c
bench_lf_bench_mpi_CPPFLAGS = $(AM_CPPFLAGS) $(MPI_CFLAGS)
bench_lf_bench_mpi_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
bench_lf_bench_mpi_LDADD = bench/libbench.la libloopfarm-mpi.la libloopfarm.la $(MPI_LIBS) -lm
bench_lf_bench_mpi_LDFLAGS = $(OPENMP_CFLAGS)
endif
endif
