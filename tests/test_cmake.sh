#!/bin/sh
# tests/test_cmake.sh - the installed CMake package works: the library is installed into a
# scratch DESTDIR, the project of tests/cmake (find_package(loopfarm), loopfarm::loopfarm, a C
# and a C++ program) is configured and built against it by cmake, and both programs run right
# under several schedules.  Exit 77 (one line) when cmake is not installed.
top=${srcdir:-.}
build=$(pwd)
command -v cmake >/dev/null 2>&1 || { echo "test_cmake: cmake not installed: skipped"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
make -C "$build" install DESTDIR="$tmp/root" >"$tmp/install.log" 2>&1 ||
    { tail -20 "$tmp/install.log"; echo "FAIL: make install"; exit 1; }
prefix="$tmp/root$(sed -n 's/^prefix = //p' "$build/Makefile")"
# In a sanitizer build the programs carry the library's -fsanitize flags (its runtime must
# come first in the process).
san=$(sed -n 's/^CFLAGS = //p' "$build/Makefile" | tr ' ' '\n' | grep -- '^-fsanitize' | tr '\n' ' ')
if ! cmake -S "$top/tests/cmake" -B "$tmp/app" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" >"$tmp/cmake.log" 2>&1 ||
    ! cmake --build "$tmp/app" >>"$tmp/cmake.log" 2>&1; then
    tail -30 "$tmp/cmake.log"
    echo "FAIL: the CMake project of tests/cmake did not configure or build"
    exit 1
fi
lib=$(dirname "$(find "$prefix" -name libloopfarm.so | head -1)")
fail=0
for s in "" dynamic multi af; do
    for app in app_c app_cxx; do
        out=$(LD_LIBRARY_PATH="$lib" LF_SCHEDULE="$s" OMP_NUM_THREADS=3 "$tmp/app/$app" 2>&1)
        case $out in
        "ok 4999950000") ;;
        *) echo "FAIL: $app under LF_SCHEDULE='$s': $out"; fail=1 ;;
        esac
    done
done
[ $fail -eq 0 ] && echo "test_cmake: find_package(loopfarm) builds C and C++ programs that run right"
exit $fail
