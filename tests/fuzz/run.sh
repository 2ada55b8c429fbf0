#!/bin/sh
# tests/fuzz/run.sh - build loopfarm's parser fuzz targets with clang's
# libFuzzer (+ ASan and UBSan) and run each for a bounded time.
#
#   tests/fuzz/run.sh [--time SECONDS] [--build DIR] [TARGET...]
#
# Targets: schedule (lf_schedule_parse), replace (the shim's LF_REPLACE
# parser), fake_numa (LF_FAKE_NUMA), sim_platform (lf-sim platform files);
# all of them by default.  DIR is a configured build tree (its config.h
# and library flags are used; default build/normal); binaries, corpora
# and logs go to DIR/fuzz.  --time is per target (default 10 s).  Seeds
# are tests/fuzz/corpus/TARGET/; what libFuzzer finds is kept in
# DIR/fuzz/corpus/TARGET, a crash in DIR/fuzz/crash-TARGET-*.  Without
# clang's libFuzzer, one line says so and the script exits 0.
# doc/fuzzing.md explains how to run them for hours.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
time=10
build=$top/build/normal
while [ $# -gt 0 ]; do
    case $1 in
    --time) time=$2; shift 2 ;;
    --build) build=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    -h | --help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fuzz: unknown option $1 (--time SECONDS, --build DIR)" >&2; exit 2 ;;
    *) break ;;
    esac
done
targets=${*:-schedule replace fake_numa sim_platform}
CC=${FUZZ_CC:-clang}
out=$build/fuzz
mkdir -p "$out"

probe=$out/probe.c
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return 0; }' >"$probe"
if ! "$CC" -fsanitize=fuzzer "$probe" -o "$out/probe" >/dev/null 2>&1; then
    echo "fuzz: $CC with libFuzzer (-fsanitize=fuzzer) not available; fuzz targets skipped"
    exit 0
fi
[ -f "$build/config.h" ] || { echo "fuzz: $build is not a configured build tree" >&2; exit 2; }

mk() { sed -n "s/^$1 = //p" "$build/Makefile"; }
libs="$(mk HWLOC_LIBS) $(mk PAPI_LIBS) $(mk GLPK_LIBS) -ldl -lm -lpthread"
flags="-std=gnu11 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined
       -fno-sanitize-recover=undefined -I$top/include -I$top/lib -I$build $(mk HWLOC_CFLAGS)"

# The library's objects, instrumented for coverage, built once per run.
objs=""
for src in "$top"/lib/policy/*.c "$top"/lib/exec/*.c "$top"/lib/dispatch/*.c "$top"/lib/platform/*.c \
    "$top"/lib/omp/*.c "$top"/lib/sim/*.c; do
    o=$out/obj/$(echo "${src#$top/lib/}" | tr / _ | sed 's/\.c$/.o/')
    mkdir -p "$out/obj"
    if [ ! -f "$o" ] || [ "$src" -nt "$o" ]; then
        $CC $flags -fsanitize=fuzzer-no-link -DLF_BUILDING -c "$src" -o "$o" || exit 1
    fi
    objs="$objs $o"
done

fail=0
for t in $targets; do
    src=$here/fuzz_$t.c
    [ -f "$src" ] || { echo "fuzz: no target $t (schedule replace fake_numa sim_platform)"; fail=1; continue; }
    extra=""
    [ "$t" = replace ] && extra="$top/lib/shim/common.c -lgomp"
    # shellcheck disable=SC2086
    if ! $CC $flags -fsanitize=fuzzer "$src" $extra $objs $libs -o "$out/fuzz_$t" 2>"$out/build-$t.log"; then
        echo "fuzz: building $t failed:"; tail -20 "$out/build-$t.log"; fail=1; continue
    fi
    mkdir -p "$out/corpus/$t"
    if "$out/fuzz_$t" "$out/corpus/$t" "$here/corpus/$t" -max_total_time="$time" -timeout=10 \
        -rss_limit_mb=2048 -max_len=4096 -artifact_prefix="$out/crash-$t-" >"$out/$t.log" 2>&1; then
        echo "fuzz: $t: $(grep -c . "$out/corpus/$t" 2>/dev/null | head -1 >/dev/null; ls "$out/corpus/$t" | wc -l) inputs in the corpus, no failure in ${time}s"
    else
        echo "fuzz: $t FAILED; the input is $(ls "$out"/crash-"$t"-* 2>/dev/null | head -1)"
        grep -A25 -m1 -e 'ERROR:' -e 'runtime error' -e 'deadly signal' "$out/$t.log" | head -40
        fail=1
    fi
done
exit $fail
