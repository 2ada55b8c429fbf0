# Round-based policies of seeds 001-003: as4dr (Millot & Parrot), umr and
# rumr (Yang & Casanova), fifo and lifo (Beaumont & Rosenberg), and the cost
# model / UMR arithmetic they share.
libloopfarm_la_SOURCES += \
	lib/policy/rounds.h \
	lib/policy/rounds.c \
	lib/policy/as4dr.c \
	lib/policy/umr.c \
	lib/policy/fifo.c


if HAVE_CUNIT
check_PROGRAMS += tests/test_seed_rounds
TESTS += tests/test_seed_rounds
tests_test_seed_rounds_LDADD = lib/sim/libsim.la $(TEST_LIBS)
endif
