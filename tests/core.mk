# Tests of the core: spec parsing, exactly-once coverage through the API and
# through the LF_FOR macros (gcc/libgomp, and clang/libomp when present).
# How the clang builds of macro tests link (against LLVM's libomp).
CLANG_OMP_LINK = $(LIBTOOL) --quiet --tag=CC --mode=link $(CLANG) -std=gnu11 -fopenmp=libomp \
	-I$(top_srcdir)/include -I$(top_srcdir)/tests
EXTRA_DIST += tests/lfcu.h tests/cover.h tests/simlog.h tests/test_bad_schedule.sh tests/example.c
if HAVE_CUNIT
check_PROGRAMS += tests/test_params tests/test_coverage tests/test_dispatch
TESTS += tests/test_params tests/test_coverage tests/test_dispatch
tests_test_params_LDADD = $(TEST_LIBS)
tests_test_dispatch_LDADD = $(TEST_LIBS)
tests_test_coverage_LDADD = $(TEST_LIBS)

if HAVE_OPENMP
check_PROGRAMS += tests/test_macro
TESTS += tests/test_macro tests/test_bad_schedule.sh
tests_test_macro_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_test_macro_LDADD = libloopfarm.la $(CUNIT_LIBS) $(OPENMP_CFLAGS)
# Misuse is reported once and never corrupts a loop (issue 13).
check_PROGRAMS += tests/test_misuse
TESTS += tests/test_misuse
tests_test_misuse_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_test_misuse_LDADD = libloopfarm.la $(CUNIT_LIBS) $(OPENMP_CFLAGS)
endif

if HAVE_CLANG_OMP
# Macro tests built by clang against LLVM's libomp and the public library.
check_PROGRAMS += tests/test_macro_clang
TESTS += tests/test_macro_clang
tests_test_macro_clang_SOURCES =
tests/test_macro_clang$(EXEEXT): $(srcdir)/tests/test_macro.c libloopfarm.la
	$(AM_V_CC)$(CLANG_OMP_LINK) $(srcdir)/tests/test_macro.c libloopfarm.la $(CUNIT_LIBS) -o $@
endif
endif

if HAVE_OPENMP
check_PROGRAMS += tests/example
tests_example_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_example_LDADD = libloopfarm.la $(OPENMP_CFLAGS)
endif

check_PROGRAMS += tests/list-schedules
tests_list_schedules_LDADD = libloopfarm-core.la -lm

# The layers of doc/design.md (includes from the sources, calls from the
# objects), and the public headers in C99/C11/C++11/17/20 with an LF_FOR
# program in C++ under every schedule.
TESTS += tests/test_layers.sh tests/test_needed.sh
# The documents against the tree: links, the environment table, the
# schedules, README.md's snippets and headline (tests/test_docs.sh).
TESTS += tests/test_docs.sh
EXTRA_DIST += tests/test_docs.sh
# Every script answers -h and --help and refuses a wrong first argument
# (tests/test_scripts_help.sh).
TESTS += tests/test_scripts_help.sh
EXTRA_DIST += tests/test_scripts_help.sh
EXTRA_DIST += tests/test_layers.sh tests/test_needed.sh tests/test_cxx.sh tests/headers_use.c tests/example_cxx.cc \
	tests/parallel_for.cc
if HAVE_OPENMP
TESTS += tests/test_cxx.sh
endif

# Locality-aware dispatch and staging under two fake NUMA domains, and the
# LF_FOR_DATA macro with and without them.
if HAVE_CUNIT
check_PROGRAMS += tests/test_locality
TESTS += tests/test_locality
tests_test_locality_LDADD = $(TEST_LIBS)
endif
if HAVE_OPENMP
check_PROGRAMS += tests/test_numa_macro
TESTS += tests/test_numa_macro.sh
EXTRA_DIST += tests/test_numa_macro.sh
tests_test_numa_macro_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_test_numa_macro_LDADD = libloopfarm.la $(OPENMP_CFLAGS) -lm
endif

# Teams that pthreads open at the same time, at one LF_FOR call site (gcc and
# clang builds; scripts/test.sh runs them under ASan and TSan too).
if HAVE_OPENMP
check_PROGRAMS += tests/test_sibling_teams
TESTS += tests/test_sibling_teams
tests_test_sibling_teams_SOURCES = tests/test_sibling_teams.c tests/gomp/roots.h
tests_test_sibling_teams_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_test_sibling_teams_LDADD = libloopfarm.la $(OPENMP_CFLAGS)
endif
if HAVE_CLANG_OMP
check_PROGRAMS += tests/test_sibling_teams_clang
TESTS += tests/test_sibling_teams_clang
tests_test_sibling_teams_clang_SOURCES =
tests/test_sibling_teams_clang$(EXEEXT): $(srcdir)/tests/test_sibling_teams.c \
		$(srcdir)/tests/gomp/roots.h libloopfarm.la
	$(AM_V_CC)$(CLANG_OMP_LINK) $(srcdir)/tests/test_sibling_teams.c libloopfarm.la -lpthread -o $@
endif
