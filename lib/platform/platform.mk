# Platform layer: topology and binding (hwloc), NUMA domains (real, or
# emulated by LF_FAKE_NUMA), counters (PAPI), lf-info.
# clock.h / clock.c are listed by the core fragment's owner.
libloopfarm_la_SOURCES += \
	lib/platform/platform.h \
	lib/platform/topo.c \
	lib/platform/numa.h \
	lib/platform/numa.c \
	lib/platform/counters.c

bin_PROGRAMS += tools/lf-info
tools_lf_info_SOURCES = tools/lf-info.c tools/json_str.h
tools_lf_info_LDADD = libloopfarm-internal.la -lm

if HAVE_CUNIT
check_PROGRAMS += tests/test_platform tests/test_numa
TESTS += tests/test_platform tests/test_numa
tests_test_platform_LDADD = $(TEST_LIBS)
tests_test_numa_LDADD = $(TEST_LIBS)
endif
