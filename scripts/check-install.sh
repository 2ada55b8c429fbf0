#!/bin/sh
# scripts/check-install.sh BUILDDIR - install the library into a scratch
# prefix, build tests/example.c against it through pkg-config with gcc and
# with clang, and run it under every schedule: the result must be right and
# nothing may be printed on stderr.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make -C "$build" install prefix="$prefix" >"$prefix/install.log" 2>&1 || { cat "$prefix/install.log"; echo "make install failed"; exit 1; }
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# The .pc file names the configured prefix; point it at the scratch one.
pc="pkg-config --define-variable=prefix=$prefix"
export LD_LIBRARY_PATH="$prefix/lib"
for h in loopfarm.h loopfarm/omp.h; do
    [ -f "$prefix/include/$h" ] || { echo "FAIL: $h not installed"; exit 1; }
done
# Only the public API is exported.
bad=$(nm -D --defined-only "$prefix/lib/libloopfarm.so" | awk '$2 ~ /[TDBR]/ {print $3}' | grep -v '^lf_' | grep -v '^_' || true)
[ -z "$bad" ] || { echo "FAIL: exported non-public symbols: $bad"; exit 1; }
schedules=$("$build/tests/list-schedules" 2>/dev/null || echo "static dynamic guided multi af")
pass=0
fail=0
for cc in gcc clang; do
    command -v $cc >/dev/null || continue
    exe="$prefix/example-$cc"
    # shellcheck disable=SC2046
    if ! $cc -std=gnu11 -fopenmp "$top/tests/example.c" -o "$exe" $($pc --cflags --libs loopfarm); then
        echo "FAIL: $cc could not build against the installed library"
        fail=$((fail + 1))
        continue
    fi
    for s in $schedules; do
        err=$(LF_SCHEDULE="$s" OMP_NUM_THREADS=3 "$exe" 3000 2>&1 >/dev/null)
        if [ $? -eq 0 ] && [ -z "$err" ]; then
            pass=$((pass + 1))
        else
            echo "FAIL: $cc LF_SCHEDULE=$s: $err"
            fail=$((fail + 1))
        fi
    done
done
echo "installed-library check: $pass passed, $fail failed"
[ $fail -eq 0 ]
