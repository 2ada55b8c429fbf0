# lf-bench: schedules side by side on one kernel under one scenario.
# Linked with the public library; never part of a plain `make check` run
# except for tests/test_bench.sh, which checks it with tiny sizes.
LF_BENCH_SOURCES = \
	bench/lf-bench.c \
	bench/bench.h \
	bench/bench_kernels.c \
	bench/bench_scenario.c \
	bench/bench_output.c

EXTRA_DIST += tests/test_bench.sh

if HAVE_OPENMP
bin_PROGRAMS += bench/lf-bench
bench_lf_bench_SOURCES = $(LF_BENCH_SOURCES)
bench_lf_bench_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
bench_lf_bench_LDADD = libloopfarm.la -lm
bench_lf_bench_LDFLAGS = $(OPENMP_CFLAGS)

TESTS += tests/test_bench.sh

if HAVE_CLANG_OMP
# The same driver built by clang against LLVM's libomp: lf-bench runs it as a
# child for the libomp: schedules (one process cannot host two runtimes).
bin_PROGRAMS += bench/lf-bench-libomp
bench_lf_bench_libomp_SOURCES =
bench/lf-bench-libomp$(EXEEXT): $(LF_BENCH_SOURCES:%=$(srcdir)/%) libloopfarm.la \
		$(top_srcdir)/include/loopfarm.h $(top_srcdir)/include/loopfarm/omp.h
	@$(MKDIR_P) bench
	$(AM_V_CCLD)$(LIBTOOL) --quiet --tag=CC --mode=link $(CLANG) -fopenmp=libomp \
	  -DLF_BENCH_LIBOMP $(DEFS) $(DEFAULT_INCLUDES) $(AM_CPPFLAGS) $(CPPFLAGS) \
	  $(AM_CFLAGS) $(CFLAGS) $(LDFLAGS) \
	  $(filter %.c,$(LF_BENCH_SOURCES:%=$(srcdir)/%)) libloopfarm.la -lm $(LIBS) -o $@
endif
endif
