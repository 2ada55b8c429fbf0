#!/bin/sh
# scripts/asan-kmp.sh BUILDDIR - libloopfarm-kmp under AddressSanitizer and UBSan: the shim
# (lib/kmp, lib/shim) and the kmp conformance programs are built by clang with
# -fsanitize=address,undefined into a scratch directory (the programs carry the sanitizer
# runtime, the shim uses theirs; libloopfarm is BUILDDIR's), then every program runs
# preloaded under four schedules at 1, 3 and 8 threads with leak detection.  Skips (exit 0,
# one line) without clang or libomp.  scripts/test.sh runs it after the normal build.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: asan-kmp.sh BUILDDIR}" && pwd)
cc=${CLANG:-clang}
command -v "$cc" >/dev/null 2>&1 || { echo "asan-kmp: no clang: skipped"; exit 0; }
[ -f "$build/.libs/libloopfarm.so" ] || { echo "asan-kmp: $build is not built" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
san="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
# shellcheck disable=SC2086
$cc -std=gnu11 -shared -fPIC $san -I"$top/include" -I"$top/lib" -I"$build" -DLF_BUILDING \
    -DLF_ENV_QUIET "$top/lib/kmp/shim.c" "$top/lib/shim/common.c" "$top/lib/platform/env.c" \
    -L"$build/.libs" -lloopfarm -ldl -Wl,-rpath,"$build/.libs" -o "$tmp/libloopfarm-kmp.so" ||
    { echo "FAIL: asan-kmp: building the shim"; exit 1; }
printf 'int main(void) { return 0; }\n' >"$tmp/probe.c"
# shellcheck disable=SC2086
$cc -fopenmp=libomp $san "$tmp/probe.c" -o "$tmp/probe" 2>/dev/null ||
    { echo "asan-kmp: clang cannot build sanitized libomp programs: skipped"; exit 0; }
progs=""
for p in dynamic guided runtime monotonic combined nowait reduction collapse ull bigbounds \
    nested orphan many siblings sites; do
    progs="$progs $top/tests/gomp/g_$p.c"
done
progs="$progs $top/tests/kmp/k_int32.c $top/tests/kmp/k_lastprivate.c"
for src in $progs; do
    exe="$tmp/$(basename "$src" .c)"
    # shellcheck disable=SC2086
    $cc -std=gnu11 $san -fopenmp=libomp -I"$top/tests/gomp" "$src" -o "$exe" -lpthread ||
        { echo "FAIL: asan-kmp: building $src"; exit 1; }
done
fails=0
runs=0
for s in multi af dynamic,4 guided; do
    for t in 1 3 8; do
        for src in $progs; do
            exe="$tmp/$(basename "$src" .c)"
            runs=$((runs + 1))
            # timeout first: the preload is for the program, not for timeout.
            if ! out=$(ASAN_OPTIONS=detect_leaks=1 OMP_NUM_THREADS=$t LF_SCHEDULE=$s \
                timeout 120 env LD_PRELOAD="$tmp/libloopfarm-kmp.so" "$exe" 2>&1); then
                fails=$((fails + 1))
                echo "FAIL [asan-kmp] $(basename "$exe") under $s, $t threads"
                printf '%s\n' "$out" | head -20 | sed 's/^/    /'
            fi
        done
    done
done
echo "asan-kmp: $runs runs of libloopfarm-kmp under ASan+UBSan, $fails failed"
[ $fails -eq 0 ]
