# The CMake package: find_package(loopfarm) gives loopfarm::loopfarm
# (cmake/loopfarmConfig.cmake.in), installed in $(libdir)/cmake/loopfarm;
# tests/test_cmake.sh builds the project in tests/cmake against an installation.
cmakedir = $(libdir)/cmake/loopfarm
cmake_DATA = cmake/loopfarmConfig.cmake cmake/loopfarmConfigVersion.cmake
EXTRA_DIST += cmake/loopfarmConfig.cmake.in cmake/loopfarmConfigVersion.cmake.in \
	tests/test_cmake.sh tests/cmake/CMakeLists.txt tests/cmake/app.c tests/cmake/app.cc
CLEANFILES += $(cmake_DATA)
TESTS += tests/test_cmake.sh

# The include directory relative to the library directory when both lie under the prefix
# (the package stays relocatable: DESTDIR, a moved prefix), else absolute.
cmake/loopfarmConfig.cmake: $(top_srcdir)/cmake/loopfarmConfig.cmake.in Makefile
	@$(MKDIR_P) cmake
	$(AM_V_GEN)inc="$(includedir)"; \
	case "$(libdir)/" in "$(prefix)"/*) \
	  case "$(includedir)/" in "$(prefix)"/*) \
	    up=`echo "$(libdir)" | sed -e 's|^$(prefix)/||' -e 's|[^/][^/]*|..|g'`; \
	    inc="$$up/`echo "$(includedir)" | sed 's|^$(prefix)/||'`" ;; esac ;; esac; \
	sed -e "s|%INCLUDEDIR%|$$inc|" -e 's|%VERSION%|$(PACKAGE_VERSION)|' \
	  $(top_srcdir)/cmake/loopfarmConfig.cmake.in >$@
cmake/loopfarmConfigVersion.cmake: $(top_srcdir)/cmake/loopfarmConfigVersion.cmake.in Makefile
	@$(MKDIR_P) cmake
	$(AM_V_GEN)sed -e 's|%VERSION%|$(PACKAGE_VERSION)|' \
	  $(top_srcdir)/cmake/loopfarmConfigVersion.cmake.in >$@

# make install relinks the two shims in place (libtool moves each library aside and links it
# again into the build folder), and a test that preloads a shim in that moment finds a file
# too short to load.  So the test that installs runs after every other test of make check.
# (The target is named through a variable: a literal one would replace automake's own rule.)
cmake_test_log = tests/test_cmake.sh.log
$(cmake_test_log): $(filter-out $(cmake_test_log),$(TEST_LOGS))
