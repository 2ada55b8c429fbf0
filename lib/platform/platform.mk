# Platform layer: topology and binding (hwloc), NUMA domains (real, or
# emulated by LF_FAKE_NUMA), counters (PAPI), lf-info.
LF_CORE_SOURCES += \
	lib/platform/clock.h \
	lib/platform/clock.c \
	lib/platform/platform.h \
	lib/platform/env.h \
	lib/platform/env.c \
	lib/platform/topo.c \
	lib/platform/hwloc-load.c \
	lib/platform/dl.c \
	lib/platform/sysfile.c \
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

# Start-up (no topology, counters or clock calibration on a dynamic loop's
# path), the LF_* environment read in one place, LF_TRACE, lf_data bounds.
check_PROGRAMS += tests/test_startup tests/test_env tests/test_trace tests/test_data_check
TESTS += tests/test_startup tests/test_env tests/test_env_one_reader.sh tests/test_trace \
	tests/test_data_check
tests_test_startup_LDADD = libloopfarm-core.la -lm
tests_test_env_LDADD = libloopfarm-core.la -lm
tests_test_trace_LDADD = libloopfarm-core.la -lm
tests_test_data_check_LDADD = libloopfarm-core.la -lm
EXTRA_DIST += tests/test_env_one_reader.sh tests/plain.h

# startup-time measures a first loop against libgomp's (doc/design.md, "Start-up"):
# built, never run by make check.
if HAVE_OPENMP
check_PROGRAMS += tests/startup-time
tests_startup_time_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS)
tests_startup_time_LDADD = libloopfarm.la $(OPENMP_CFLAGS)
endif

# Parser fuzz targets: libFuzzer, built and run by tests/fuzz/run.sh
# (scripts/test.sh step 1; doc/fuzzing.md).
EXTRA_DIST += tests/fuzz
