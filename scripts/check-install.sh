#!/bin/sh
# scripts/check-install.sh BUILDDIR - install the library into a scratch
# prefix, build tests/example.c against it through pkg-config with gcc and
# with clang (and tests/example_cxx.cc as C++17 with g++ and clang++), and
# run each under every schedule: the result must be right and
# nothing may be printed on stderr.
. "$(dirname "$0")/help.sh"
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
# Stage the installation (DESTDIR) under a scratch directory: libtool only
# relinks libraries into the prefix they were configured for.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
make -C "$build" install DESTDIR="$stage" >"$stage/install.log" 2>&1 || { cat "$stage/install.log"; echo "make install failed"; exit 1; }
prefix="$stage$(sed -n 's/^prefix = //p' "$build/Makefile")"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# The .pc file names the configured prefix; point it at the scratch one.
pc="pkg-config --define-variable=prefix=$prefix"
export LD_LIBRARY_PATH="$prefix/lib"
for h in loopfarm.h loopfarm/omp.h; do
    [ -f "$prefix/include/$h" ] || { echo "FAIL: $h not installed"; exit 1; }
done
# The preload shim is installed beside the library (when OpenMP was found).
if grep -q '^OPENMP_CFLAGS = .' "$build/Makefile" && [ ! -f "$prefix/lib/libloopfarm-gomp.so" ]; then
    echo "FAIL: libloopfarm-gomp.so not installed"
    exit 1
fi
# Only the public API is exported.
bad=$(nm -D --defined-only "$prefix/lib/libloopfarm.so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^lf_' | grep -v '^_' || true)
[ -z "$bad" ] || { echo "FAIL: exported non-public symbols: $bad"; exit 1; }
# libloopfarm-mpi (when MPI was found) exports its lf_mpi_ API only.
if [ -f "$prefix/lib/libloopfarm-mpi.so" ]; then
    [ -f "$prefix/include/loopfarm/mpi.h" ] || { echo "FAIL: loopfarm/mpi.h not installed"; exit 1; }
    bad=$(nm -D --defined-only "$prefix/lib/libloopfarm-mpi.so" | awk '$2 ~ /[TDBR]/ {print $3}' |
        grep -v '^lf_mpi_' | grep -v '^_' || true)
    [ -z "$bad" ] || { echo "FAIL: libloopfarm-mpi exports non-public symbols: $bad"; exit 1; }
fi
schedules=$("$build/tests/list-schedules" 2>/dev/null || echo "static dynamic guided multi af")
pass=0
fail=0
# sweep COMPILER FLAGS SOURCE ARGS: build SOURCE against the installed
# library through pkg-config and run it under every schedule.
sweep() {
    comp=$1
    cflags=$2
    src=$3
    shift 3
    command -v "$comp" >/dev/null || return 0
    exe="$prefix/$(basename "$src" | sed 's/\.[a-z]*$//')-$comp"
    # shellcheck disable=SC2046,SC2086
    if ! $comp $cflags "$top/tests/$src" -o "$exe" $($pc --cflags --libs loopfarm); then
        echo "FAIL: $comp $cflags could not build tests/$src against the installed library"
        fail=$((fail + 1))
        return 0
    fi
    for s in $schedules; do
        err=$(LF_SCHEDULE="$s" OMP_NUM_THREADS=3 "$exe" "$@" 2>&1 >/dev/null)
        if [ $? -eq 0 ] && [ -z "$err" ]; then
            pass=$((pass + 1))
        else
            echo "FAIL: $comp tests/$src LF_SCHEDULE=$s: $err"
            fail=$((fail + 1))
        fi
    done
}
sweep gcc "-std=gnu11 -fopenmp" example.c 3000
sweep clang "-std=gnu11 -fopenmp" example.c 3000
# The same in C++17 (tests/example_cxx.cc: every iteration once, exact sums).
sweep g++ "-std=c++17 -fopenmp" example_cxx.cc 3000 2
sweep clang++ "-std=c++17 -fopenmp=libomp" example_cxx.cc 3000 2
# recipe ABI EXE NAME SCHEDULE...: EXE preloaded with the installed libloopfarm-ABI prints
# what it prints bare under each schedule, and LF_VERBOSE=1 names the call site it took.
recipe() {
    abi=$1 exe=$2 name=$3
    shift 3
    want=$("$exe")
    for s in "$@"; do
        got=$(LD_PRELOAD="$prefix/lib/libloopfarm-$abi.so" LF_SCHEDULE="$s" OMP_NUM_THREADS=3 "$exe" 2>&1)
        if [ "$got" = "$want" ]; then
            pass=$((pass + 1))
        else
            echo "FAIL: preloaded libloopfarm-$abi, LF_SCHEDULE=$s: printed '$got', bare '$want'"
            fail=$((fail + 1))
        fi
    done
    verbose=$(LD_PRELOAD="$prefix/lib/libloopfarm-$abi.so" LF_SCHEDULE=multi LF_VERBOSE=1 "$exe" 2>&1 >/dev/null)
    if printf '%s' "$verbose" | grep -q "taking the schedule(dynamic) loop at $abi:dynamic@$name+"; then
        pass=$((pass + 1))
    else
        echo "FAIL: LF_VERBOSE=1 does not say libloopfarm-$abi took the loop: $verbose"
        fail=$((fail + 1))
    fi
}
# The README's "existing application" recipe: an unmodified OpenMP program
# preloaded with the installed shim prints what it prints bare.
if [ -f "$prefix/lib/libloopfarm-gomp.so" ]; then
    cat >"$stage/app.c" <<'EOF_APP'
#include <stdio.h>
int main(void)
{
    double s = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : s)
    for (long i = 0; i < 3000000; i++)
        s += (i % 7) * 0.5;
    printf("%.1f\n", s);
    return 0;
}
EOF_APP
    gcc -fopenmp -O2 "$stage/app.c" -o "$stage/app"
    recipe gomp "$stage/app" app multi af "dynamic,8" fac2
fi
# The same recipe for a clang-built program and the installed libomp shim.
if [ -f "$prefix/lib/libloopfarm-kmp.so" ] && command -v clang >/dev/null 2>&1 &&
    clang -fopenmp=libomp -O2 "$stage/app.c" -o "$stage/app-kmp" 2>/dev/null; then
    recipe kmp "$stage/app-kmp" app-kmp multi af "dynamic,8"
fi
echo "installed-library check: $pass passed, $fail failed"
[ $fail -eq 0 ]
