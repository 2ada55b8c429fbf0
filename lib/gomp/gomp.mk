# libloopfarm-gomp: the preload shim that puts loopfarm under GCC's OpenMP loops in
# unmodified binaries (lib/gomp/shim.c, doc/gomp-shim.md), and its conformance suite:
# plain OpenMP programs (no loopfarm header) run bare and preloaded by tests/gomp/run.sh.
EXTRA_DIST += tests/gomp/run.sh tests/gomp/check.h tests/gomp/roots.h doc/gomp-shim.md
# Built before the tests: the OpenMP libraries tests/test_shim_process.sh dlopens (here and in
# lib/kmp/kmp.mk).
check_DATA =
# What both preload shims compile in (lib/shim: configuration, call sites, iteration space).
LF_SHIM_COMMON = lib/shim/common.c lib/shim/shim.h lib/platform/env.c lib/platform/env.h
if HAVE_OPENMP
lib_LTLIBRARIES += libloopfarm-gomp.la
libloopfarm_gomp_la_SOURCES = lib/gomp/shim.c $(LF_SHIM_COMMON)
libloopfarm_gomp_la_CPPFLAGS = $(AM_CPPFLAGS) -DLF_BUILDING -DLF_ENV_QUIET
# Compiled without -fopenmp and linked with no OpenMP runtime, as libloopfarm-kmp is: the
# omp_ and GOMP_ names it calls are those of the program's libgomp.  A preloaded library that
# lists libgomp among its DT_NEEDED libraries made libgomp's team barriers sleep instead of
# spin, with any such library preloaded, one with no code at all included (doc/gomp-shim.md).
libloopfarm_gomp_la_LIBADD = libloopfarm.la -ldl
libloopfarm_gomp_la_LDFLAGS = -shared -avoid-version

GOMP_CONFORMANCE = \
	tests/gomp/g_dynamic tests/gomp/g_guided tests/gomp/g_runtime tests/gomp/g_monotonic \
	tests/gomp/g_combined tests/gomp/g_nowait tests/gomp/g_reduction tests/gomp/g_ordered \
	tests/gomp/g_doacross tests/gomp/g_collapse tests/gomp/g_ull tests/gomp/g_bigbounds \
	tests/gomp/g_nested tests/gomp/g_orphan tests/gomp/g_many tests/gomp/g_legacy \
	tests/gomp/g_cancel tests/gomp/g_siblings tests/gomp/g_sites tests/gomp/g_lastprivate
check_PROGRAMS += $(GOMP_CONFORMANCE)
# Compiled as any OpenMP program is: no loopfarm include path, no loopfarm library.
GOMP_CONF_CPPFLAGS = -I$(top_srcdir)/tests/gomp
GOMP_CONF_CFLAGS = -std=gnu11 -O2 -Wall $(OPENMP_CFLAGS)
tests_gomp_g_dynamic_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_dynamic_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_dynamic_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_guided_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_guided_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_guided_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_runtime_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_runtime_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_runtime_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_monotonic_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_monotonic_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_monotonic_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_combined_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_combined_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_combined_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_nowait_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_nowait_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_nowait_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_lastprivate_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_lastprivate_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_lastprivate_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_reduction_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_reduction_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_reduction_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_ordered_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_ordered_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_ordered_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_doacross_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_doacross_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_doacross_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_collapse_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_collapse_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_collapse_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_ull_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_ull_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_ull_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_bigbounds_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_bigbounds_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_bigbounds_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_nested_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_nested_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_nested_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_orphan_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_orphan_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_orphan_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_many_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_many_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_many_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_legacy_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_legacy_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_legacy_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_cancel_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_cancel_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_cancel_LDFLAGS = $(OPENMP_CFLAGS)

tests_gomp_g_siblings_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_siblings_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_siblings_LDFLAGS = $(OPENMP_CFLAGS) -lpthread

tests_gomp_g_sites_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_sites_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_sites_LDFLAGS = $(OPENMP_CFLAGS)

TESTS += tests/gomp/run.sh

# lf_shim_enable: the switch a program finds with dlsym (tests/test_shim_process.sh runs it).
check_PROGRAMS += tests/gomp/g_switch
tests_gomp_g_switch_CPPFLAGS = $(GOMP_CONF_CPPFLAGS)
tests_gomp_g_switch_CFLAGS = $(GOMP_CONF_CFLAGS)
tests_gomp_g_switch_LDFLAGS = $(OPENMP_CFLAGS)
tests_gomp_g_switch_LDADD = -ldl

# How the shims link (tests/test_shim_process.sh): g_dlopen, a program without OpenMP, loads
# g_dlopen_lib.so, an OpenMP library, with dlopen(RTLD_LOCAL).
check_PROGRAMS += tests/gomp/g_dlopen
tests_gomp_g_dlopen_LDADD = -ldl
GOMP_DLOPEN_LIB = tests/gomp/g_dlopen_lib.so
check_DATA += $(GOMP_DLOPEN_LIB)
CLEANFILES += $(GOMP_DLOPEN_LIB)
$(GOMP_DLOPEN_LIB): $(top_srcdir)/tests/gomp/g_dlopen_lib.c
	@$(MKDIR_P) tests/gomp
	$(AM_V_CC)$(CC) $(GOMP_CONF_CFLAGS) $(CFLAGS) -fPIC -shared $(LDFLAGS) $< -o $@
TESTS += tests/test_shim_process.sh
endif
EXTRA_DIST += tests/test_shim_process.sh tests/gomp/g_dlopen_lib.c

# Fortran through the shim (tests/fortran/run.sh builds f_loops.f90 with gfortran at test
# time and skips when there is none).
EXTRA_DIST += tests/fortran/run.sh tests/fortran/f_loops.f90
if HAVE_OPENMP
TESTS += tests/fortran/run.sh
endif
CLEANFILES += tests/fortran/f_loops
