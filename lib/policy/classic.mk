# Classic self-scheduling and factoring policies (static, dynamic, guided,
# tss, fac2, wf, awf-b..e, af) and their unit tests.
libloopfarm_la_SOURCES += \
	lib/policy/factoring.h \
	lib/policy/static.c \
	lib/policy/dynamic.c \
	lib/policy/guided.c \
	lib/policy/tss.c \
	lib/policy/factoring.c \
	lib/policy/awf.c \
	lib/policy/af.c

if HAVE_CUNIT
check_PROGRAMS += tests/test_policy_classic
TESTS += tests/test_policy_classic
tests_test_policy_classic_LDADD = $(TEST_LIBS)
endif
