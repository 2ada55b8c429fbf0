#!/bin/sh
# tests/test_cxx.sh - the public headers in C and C++, and LF_FOR in a C++
# program.
#
#   1. tests/headers_use.c (every public header, every LF_FOR macro) compiles
#      as C99 and C11 with gcc and clang, and as C++11, C++17 and C++20 with
#      g++ and clang++, with -Wall -Wextra -Werror -pedantic-errors;
#   2. tests/example_cxx.cc (LF_FOR) and tests/parallel_for.cc
#      (loopfarm::parallel_for of include/loopfarm.hpp), built as C++17 by
#      g++ (libgomp) and clang++ (libomp) against this build's libloopfarm,
#      run correctly under every schedule (each iteration once, sums equal
#      to the sequential ones) and print nothing on stderr; parallel_for.cc
#      also compiles as C++11 and C++20, and without OpenMP.
#
# A compiler that is not installed is reported and skipped; g++ is required.
# Run from the build directory (make check); LF_TEST_QUICK=1 runs fewer
# executions.
top=${srcdir:-.}
build=$(pwd)
lib="$build/.libs/libloopfarm.so"
inc="-I$top/include"
[ -f "$lib" ] || { echo "FAIL: $lib not built"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
pass=0
have() { command -v "$1" >/dev/null 2>&1; }
first_of() { for c in "$@"; do have "$c" && { echo "$c"; return; }; done; }
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

gcc_c=$(first_of gcc cc)
clang_c=$(first_of clang clang-14)
gxx=$(first_of g++ c++)
clangxx=$(first_of clang++ clang++-14)
[ -n "$gxx" ] || { echo "FAIL: no C++ compiler (g++)"; exit 1; }

flags="-Wall -Wextra -Werror -pedantic-errors"
# 1. the header matrix.
for cc in $gcc_c $clang_c; do
    for std in c99 c11; do
        omp=-fopenmp
        if $cc -std=$std $omp $flags $inc -c "$top/tests/headers_use.c" -o "$tmp/h.o" \
            2>"$tmp/err"; then ok; else bad "$cc -std=$std: $(head -5 "$tmp/err")"; fi
        # Without OpenMP the macros still compile (they run the loop serially).
        if $cc -std=$std $flags -Wno-unknown-pragmas $inc -c "$top/tests/headers_use.c" \
            -o "$tmp/h.o" 2>"$tmp/err"; then ok; else bad "$cc -std=$std (no OpenMP): $(head -5 "$tmp/err")"; fi
    done
done
for cxx in $gxx $clangxx; do
    for std in c++11 c++17 c++20; do
        if $cxx -x c++ -std=$std -fopenmp $flags $inc -c "$top/tests/headers_use.c" \
            -o "$tmp/h.o" 2>"$tmp/err"; then ok; else bad "$cxx -std=$std: $(head -5 "$tmp/err")"; fi
    done
done
for cxx in $gxx $clangxx; do
    for std in c++11 c++20; do
        if $cxx -std=$std -fopenmp $flags $inc -c "$top/tests/parallel_for.cc" -o "$tmp/p.o" \
            2>"$tmp/err"; then ok; else bad "$cxx -std=$std parallel_for.cc: $(head -5 "$tmp/err")"; fi
    done
    if $cxx -std=c++11 $flags -Wno-unknown-pragmas $inc -c "$top/tests/parallel_for.cc" \
        -o "$tmp/p.o" 2>"$tmp/err"; then ok; else bad "$cxx parallel_for.cc (no OpenMP): $(head -5 "$tmp/err")"; fi
done
[ -n "$clang_c" ] || echo "note: clang not found, C headers checked with $gcc_c only"
[ -n "$clangxx" ] || echo "note: clang++ not found, C++ headers checked with $gxx only"

# 2. the C++ program under every schedule, with each compiler's OpenMP.  In
# a sanitizer build the program carries the library's -fsanitize flags and
# is built by g++ alone (the runtimes of gcc's and clang's sanitizers do not
# mix in one process).
san=$(sed -n 's/^CFLAGS = //p' "$build/Makefile" | tr ' ' '\n' | grep -- '^-fsanitize' | tr '\n' ' ')
runners="$gxx $clangxx"
[ -n "$san" ] && runners=$gxx
schedules=$("$build/tests/list-schedules") || { echo "FAIL: tests/list-schedules"; exit 1; }
reps=3
[ -n "${LF_TEST_QUICK:-}" ] && reps=2
for cxx in $runners; do
    case $cxx in clang*) omp=-fopenmp=libomp ;; *) omp=-fopenmp ;; esac
    for prog in example_cxx parallel_for; do
        exe="$tmp/$prog-$cxx"
        if ! $cxx -std=c++17 -O1 $san $omp $flags $inc "$top/tests/$prog.cc" "$lib" \
            -Wl,-rpath,"$build/.libs" -o "$exe" 2>"$tmp/err"; then
            bad "$cxx could not build tests/$prog.cc: $(head -5 "$tmp/err")"
            continue
        fi
        for s in "" $schedules; do
            if LF_SCHEDULE="$s" OMP_NUM_THREADS=3 "$exe" 3000 $reps >"$tmp/out" 2>"$tmp/err" &&
                [ ! -s "$tmp/err" ]; then
                ok
            else
                bad "$cxx $prog LF_SCHEDULE='$s': $(cat "$tmp/out" "$tmp/err" | head -5)"
            fi
        done
    done
done
echo "C/C++ headers and the C++ programs (LF_FOR, loopfarm::parallel_for): $pass passed, $fail failed"
[ $fail -eq 0 ]
