# Seed 000 (González-Vélez & Cole) policies: trad, deal, dealdyn, multi, and
# the least-squares / dispersion arithmetic they share.
libloopfarm_la_SOURCES += \
	lib/policy/fit.h \
	lib/policy/fit.c \
	lib/policy/trad.c \
	lib/policy/deal.c \
	lib/policy/dealdyn.c \
	lib/policy/multi.c

if HAVE_CUNIT
check_PROGRAMS += tests/test_seed000
TESTS += tests/test_seed000
tests_test_seed000_LDADD = $(TEST_LIBS)
endif
