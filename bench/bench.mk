# lf-bench: schedules side by side on one kernel under one scenario.
# Linked with the public library; never part of a plain `make check` run
# except for tests/test_bench.sh, which checks it with tiny sizes.
#
# The kernels, scenarios and output are compiled once, by $(CC), into
# bench/libbench.la; lf-bench and every peer runtime's child link it, so that
# all rows run the same kernel code.  A child is lf-bench.c built against
# another runtime:
#   lf-bench-libomp  clang, LLVM's libomp         (HAVE_CLANG_OMP)
#   lf-bench-lb4omp  clang, LB4OMP's libomp.so    (HAVE_LB4OMP, --with-lb4omp)
#   lf-bench-tbb     $(CC) + bench_tbb.cc, oneTBB (HAVE_TBB)
EXTRA_DIST += tests/test_bench.sh tests/test_bundle.sh

if HAVE_OPENMP
noinst_LTLIBRARIES += bench/libbench.la
bench_libbench_la_SOURCES = \
	bench/bench.h \
	bench/bench_kernels.c \
	bench/bench_scenario.c \
	bench/bench_output.c

bin_PROGRAMS += bench/lf-bench
bench_lf_bench_SOURCES = bench/lf-bench.c
bench_lf_bench_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
bench_lf_bench_LDADD = bench/libbench.la libloopfarm.la -lm
bench_lf_bench_LDFLAGS = $(OPENMP_CFLAGS)

TESTS += tests/test_bench.sh tests/test_bundle.sh

# An OpenMP child: lf-bench.c built by clang with -D$(1), linked against the
# runtime that $(2) selects (one process cannot host two OpenMP runtimes).
bench_omp_child = $(LIBTOOL) --quiet --tag=CC --mode=link $(CLANG) -fopenmp=libomp -D$(1) \
	$(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) $(AM_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	$(srcdir)/bench/lf-bench.c bench/libbench.la libloopfarm.la $(2) -lm $(LIBS) -o $@
bench_omp_child_deps = $(srcdir)/bench/lf-bench.c $(srcdir)/bench/bench.h bench/libbench.la \
	libloopfarm.la $(top_srcdir)/include/loopfarm.h $(top_srcdir)/include/loopfarm/omp.h

if HAVE_CLANG_OMP
bin_PROGRAMS += bench/lf-bench-libomp
bench_lf_bench_libomp_SOURCES =
bench/lf-bench-libomp$(EXEEXT): $(bench_omp_child_deps)
	@$(MKDIR_P) bench
	$(AM_V_CCLD)$(call bench_omp_child,LF_BENCH_LIBOMP,)
endif

if HAVE_LB4OMP
# LB4OMP's libomp.so, found first at link and at run time; the compiler's
# own omp.h (LB4OMP's lacks omp_sched_monotonic).
bin_PROGRAMS += bench/lf-bench-lb4omp
bench_lf_bench_lb4omp_SOURCES =
bench/lf-bench-lb4omp$(EXEEXT): $(bench_omp_child_deps)
	@$(MKDIR_P) bench
	$(AM_V_CCLD)$(call bench_omp_child,LF_BENCH_LB4OMP,-L$(LB4OMP_PREFIX)/lib -Wl$(comma)-rpath$(comma)$(LB4OMP_PREFIX)/lib)
endif

if HAVE_TBB
bin_PROGRAMS += bench/lf-bench-tbb
bench_lf_bench_tbb_SOURCES = bench/lf-bench.c bench/bench_tbb.cc
bench_lf_bench_tbb_CPPFLAGS = $(AM_CPPFLAGS) -DLF_BENCH_TBB
bench_lf_bench_tbb_LDADD = bench/libbench.la libloopfarm.la $(TBB_LIBS) -lm
endif
endif
comma = ,

# lf-graph: BFS, PageRank and connected components as an unmodified OpenMP
# program writes them (schedule(dynamic, 64 | 16384)), for libgomp as built
# against the preload shim; tests/test_graph_apps.sh checks its results
# under the shim with auto.
if HAVE_OPENMP
bin_PROGRAMS += bench/lf-graph
bench_lf_graph_SOURCES = bench/lf-graph.c
bench_lf_graph_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
bench_lf_graph_LDFLAGS = $(OPENMP_CFLAGS)
bench_lf_graph_LDADD = -ldl
TESTS += tests/test_graph_apps.sh
# The same source built by the C++ compiler, as a g++ -fopenmp program
# (-fopenmp is the flag of both GCC drivers).
bin_PROGRAMS += bench/lf-graph-cxx
bench_lf_graph_cxx_SOURCES = bench/lf-graph-cxx.cc
bench_lf_graph_cxx_CXXFLAGS = $(OPENMP_CFLAGS)
bench_lf_graph_cxx_LDFLAGS = $(OPENMP_CFLAGS)
bench_lf_graph_cxx_LDADD = -ldl
EXTRA_bench_lf_graph_cxx_DEPENDENCIES = $(srcdir)/bench/lf-graph.c

# lf-suite-loops: synthetic loops written to trip a learning schedule, as
# plain OpenMP (knows nothing of loopfarm); scripts/bench-suite.sh runs
# them and the graph kernels bare and through the shim, and
# tests/test_bench_suite.sh checks both at tiny sizes.
bin_PROGRAMS += bench/lf-suite-loops
bench_lf_suite_loops_SOURCES = bench/lf-suite-loops.c
bench_lf_suite_loops_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
bench_lf_suite_loops_LDFLAGS = $(OPENMP_CFLAGS)
bench_lf_suite_loops_LDADD = -lm
TESTS += tests/test_bench_suite.sh
endif
EXTRA_DIST += tests/test_graph_apps.sh tests/test_bench_suite.sh
