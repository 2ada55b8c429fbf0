# lib/policy: chunk-size policies, pure C (no threads, clocks, atomics, OS).
# The contract and registry, the spec parser, the classic self-scheduling
# and factoring family, the adaptive statistical schedules of González-Vélez
# & Cole, the round-based ones (AS4DR, UMR/RUMR, FIFO/LIFO) and the pure
# rules of locality.  Their unit tests drive them through lib/exec/.
LF_CORE_SOURCES += \
	lib/policy/policy.h \
	lib/policy/fmath.h \
	lib/policy/fmath.c \
	lib/policy/params.c \
	lib/policy/registry.c \
	lib/policy/locality.h \
	lib/policy/locality.c \
	lib/policy/factoring.h \
	lib/policy/static.c \
	lib/policy/dynamic.c \
	lib/policy/guided.c \
	lib/policy/tss.c \
	lib/policy/factoring.c \
	lib/policy/awf.c \
	lib/policy/af.c \
	lib/policy/fit.h \
	lib/policy/fit.c \
	lib/policy/trad.c \
	lib/policy/deal.h \
	lib/policy/deal.c \
	lib/policy/dealdyn.c \
	lib/policy/multi.c \
	lib/policy/profile.c \
	lib/policy/auto.c \
	lib/policy/rounds.h \
	lib/policy/rounds.c \
	lib/policy/as4dr.c \
	lib/policy/umr.c \
	lib/policy/fifo.c

if HAVE_CUNIT
check_PROGRAMS += tests/test_policy_classic tests/test_policy_statistical tests/test_policy_rounds \
	tests/test_policy_auto
TESTS += tests/test_policy_classic tests/test_policy_statistical tests/test_policy_rounds \
	tests/test_policy_auto
tests_test_policy_auto_LDADD = $(TEST_LIBS)
tests_test_policy_classic_LDADD = $(TEST_LIBS)
tests_test_policy_statistical_LDADD = $(TEST_LIBS)
tests_test_policy_rounds_LDADD = lib/sim/libsim.la $(TEST_LIBS)
endif
