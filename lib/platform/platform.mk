# Platform layer: topology and binding (hwloc), NUMA domains (real, or
# emulated by LF_FAKE_NUMA), counters (PAPI), lf-info.
LF_CORE_SOURCES += \
	lib/platform/clock.h \
	lib/platform/clock.c \
	lib/platform/platform.h \
	lib/platform/topo.c \
	lib/platform/numa.h \
	lib/platform/numa.c \
	lib/platform/counters.c

bin_PROGRAMS += tools/lf-info
tools_lf_info_SOURCES = tools/lf-info.c tools/json_str.h
tools_lf_info_LDADD = libloopfarm-core.la -lm

if HAVE_CUNIT
check_PROGRAMS += tests/test_platform tests/test_numa
TESTS += tests/test_platform tests/test_numa
tests_test_platform_LDADD = $(TEST_LIBS)
tests_test_numa_LDADD = $(TEST_LIBS)
endif
