# lf-sim: the library's real policies on modelled platforms in virtual time.
# The engine is a small convenience library so that the CUnit suite calls it
# directly; lf-sim.c is only the command line.
noinst_LTLIBRARIES += bench/libsim.la
bench_libsim_la_SOURCES = \
	bench/sim_core.h \
	bench/sim_core.c \
	bench/sim_cost.c \
	bench/sim_platform.c

bin_PROGRAMS += bench/lf-sim
bench_lf_sim_SOURCES = bench/lf-sim.c bench/json_str.h
bench_lf_sim_LDADD = bench/libsim.la libloopfarm-internal.la -lm


if HAVE_CUNIT
check_PROGRAMS += tests/test_sim
TESTS += tests/test_sim
tests_test_sim_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
tests_test_sim_LDADD = bench/libsim.la $(TEST_LIBS)
endif

# The command line: bad input exits 2, traces and reproducibility.
TESTS += tests/test_sim.sh
EXTRA_DIST += tests/test_sim.sh
