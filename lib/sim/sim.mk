# lib/sim: the virtual-time executor (lf-sim's engine, costs, platforms), an
# internal convenience library; bench/lf-sim.c is only its command line and
# tests/test_sim drives the engine directly.
noinst_LTLIBRARIES += lib/sim/libsim.la
lib_sim_libsim_la_SOURCES = \
	lib/sim/sim.h \
	lib/sim/engine.h \
	lib/sim/engine.c \
	lib/sim/push.c \
	lib/sim/team.c \
	lib/sim/cost.c \
	lib/sim/platform.c

bin_PROGRAMS += bench/lf-sim
bench_lf_sim_SOURCES = bench/lf-sim.c tools/json_str.h
bench_lf_sim_LDADD = lib/sim/libsim.la libloopfarm-core.la -lm

if HAVE_CUNIT
check_PROGRAMS += tests/test_sim tests/test_sim_push
TESTS += tests/test_sim tests/test_sim_push
tests_test_sim_LDADD = lib/sim/libsim.la $(TEST_LIBS)
tests_test_sim_push_LDADD = lib/sim/libsim.la $(TEST_LIBS)
endif

# lf-plan: seed 004's LPs (lib/sim/plan.c), only where GLPK was found; its
# test skips with one line otherwise.
if HAVE_GLPK
bin_PROGRAMS += bench/lf-plan
bench_lf_plan_SOURCES = bench/lf-plan.c lib/sim/plan.c lib/sim/plan.h
bench_lf_plan_LDADD = lib/sim/libsim.la libloopfarm-core.la $(GLPK_LIBS) -lm
endif
TESTS += tests/test_plan.sh
EXTRA_DIST += tests/test_plan.sh

# The command line: bad input exits 2, traces and reproducibility.
TESTS += tests/test_sim.sh
EXTRA_DIST += tests/test_sim.sh
