# libloopfarm-kmp: the preload shim that puts loopfarm under the dispatch loops of unmodified
# binaries built for LLVM's libomp (lib/kmp/shim.c), and its conformance suite: the plain
# OpenMP programs of tests/gomp (all but g_legacy, which drives GOMP entry points by hand) and
# those of tests/kmp, built by clang against libomp and run bare and preloaded by
# tests/kmp/run.sh.
EXTRA_DIST += tests/kmp/run.sh
if HAVE_OPENMP
# Compiled without -fopenmp and linked with no OpenMP runtime: the omp_ and __kmpc_ names it
# calls are the process's libomp's.
lib_LTLIBRARIES += libloopfarm-kmp.la
libloopfarm_kmp_la_SOURCES = lib/kmp/shim.c lib/kmp/static.c lib/kmp/kmp.h lib/exec/select.c \
	lib/exec/select.h $(LF_SHIM_COMMON)
libloopfarm_kmp_la_CPPFLAGS = $(AM_CPPFLAGS) -DLF_BUILDING -DLF_ENV_QUIET
libloopfarm_kmp_la_LIBADD = libloopfarm.la -ldl
libloopfarm_kmp_la_LDFLAGS = -shared -avoid-version
endif

EXTRA_DIST += tests/kmp/k_int32.c tests/kmp/k_lastprivate.c tests/kmp/k_ws_static.c \
	tests/kmp/k_static_nowait.c tests/kmp/k_static_abi.c
if HAVE_CLANG_OMP
KMP_FROM_GOMP = dynamic guided runtime monotonic combined nowait reduction ordered doacross \
	collapse ull bigbounds nested orphan many siblings sites
KMP_OWN = int32 lastprivate ws_static static_nowait static_abi
KMP_SWITCH = tests/kmp/k_switch
KMP_CONFORMANCE = $(KMP_FROM_GOMP:%=tests/kmp/k_%) $(KMP_OWN:%=tests/kmp/k_%)
# check_SCRIPTS: built before the tests by the rules below (automake infers no sources).
check_SCRIPTS = $(KMP_CONFORMANCE) $(KMP_SWITCH)
CLEANFILES += $(KMP_CONFORMANCE) $(KMP_SWITCH)
# As any clang OpenMP program is built: no loopfarm include path, no loopfarm library
# (CFLAGS too, so that a sanitizer build's programs carry its runtime for the shim).
KMP_CC = $(CLANG) -std=gnu11 -O2 -Wall -fopenmp=libomp -I$(top_srcdir)/tests/gomp $(CFLAGS) \
	$(LDFLAGS)
$(KMP_FROM_GOMP:%=tests/kmp/k_%): tests/kmp/k_%: $(top_srcdir)/tests/gomp/g_%.c \
		$(top_srcdir)/tests/gomp/check.h $(top_srcdir)/tests/gomp/roots.h
	@$(MKDIR_P) tests/kmp
	$(AM_V_CC)$(KMP_CC) $< -o $@ -lpthread
$(KMP_OWN:%=tests/kmp/k_%): tests/kmp/k_%: $(top_srcdir)/tests/kmp/k_%.c \
		$(top_srcdir)/tests/gomp/check.h
	@$(MKDIR_P) tests/kmp
	$(AM_V_CC)$(KMP_CC) $< -o $@ -lpthread
# The dlopen'ed OpenMP library of tests/test_shim_process.sh, built for libomp.
KMP_DLOPEN_LIB = tests/kmp/k_dlopen_lib.so
check_DATA += $(KMP_DLOPEN_LIB)
CLEANFILES += $(KMP_DLOPEN_LIB)
$(KMP_DLOPEN_LIB): $(top_srcdir)/tests/gomp/g_dlopen_lib.c
	@$(MKDIR_P) tests/kmp
	$(AM_V_CC)$(KMP_CC) -fPIC -shared $< -o $@
# lf_shim_enable under libloopfarm-kmp (tests/test_shim_process.sh runs it beside g_switch).
$(KMP_SWITCH): $(top_srcdir)/tests/gomp/g_switch.c
	@$(MKDIR_P) tests/kmp
	$(AM_V_CC)$(KMP_CC) $< -o $@ -ldl
TESTS += tests/kmp/run.sh
endif

# The per-chunk cost benchmark of the shim against libomp's own dynamic,1 on the same binary
# (bench/lf-kmp-chunk.c, a plain clang OpenMP program; scripts/bench-kmp-chunk.sh runs it).
# Built by `make`, never run by make check.
# bench/lf-kmp-static.c: static loops (stencil, mat-vec, irregular) for libomp's static against
# LF_REPLACE=static:weighted (scripts/bench-static.sh runs it).
EXTRA_DIST += bench/lf-kmp-chunk.c bench/lf-kmp-static.c bench/plain-prog.h
if HAVE_CLANG_OMP
noinst_SCRIPTS = bench/lf-kmp-chunk bench/lf-kmp-static
CLEANFILES += bench/lf-kmp-chunk bench/lf-kmp-static
bench/lf-kmp-chunk bench/lf-kmp-static: bench/%: $(top_srcdir)/bench/%.c \
		$(top_srcdir)/bench/plain-prog.h
	@$(MKDIR_P) bench
	$(AM_V_CC)$(CLANG) -std=gnu11 -O2 -Wall -fopenmp=libomp $(CFLAGS) $(LDFLAGS) $< -o $@
endif
