#!/bin/sh
# scripts/test.sh - the whole test suite, as CI runs it:
#   1. formatting (scripts/format.sh --check: the repository's .clang-format),
#      the normal build: make check (CUnit suites, gcc and clang macro tests,
#      lf-bench's peer rows, LB4OMP's with scripts/build-lb4omp.sh first),
#      then each parser's fuzz target for 5 s (tests/fuzz/run.sh, doc/fuzzing.md);
#   2. AddressSanitizer + UndefinedBehaviorSanitizer build: make check;
#   3. ThreadSanitizer build with clang against libomp: the concurrency tests
#      (TSAN_OPTIONS=ignore_noninstrumented_modules=1), then libloopfarm-kmp's
#      static loops under TSan with Archer (scripts/asan-kmp.sh BUILD tsan);
#   4. a build --without-papi --without-hwloc: make check;
#   5. make distcheck.
# Options: --quick (steps 1 only), --only N (one step).  Builds go to build/.
. "$(dirname "$0")/help.sh"
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
"$top/scripts/deps.sh" || exit 1
[ -x "$top/configure" ] || autoreconf -fi >/dev/null 2>&1 || { echo "autoreconf failed"; exit 1; }

steps="1 2 3 4 5"
case "${1:-}" in
--quick) steps="1" ;;
--only) steps="$2" ;;
"") ;;
*) echo "usage: scripts/test.sh [--quick | --only N] (try --help)"; exit 2 ;;
esac

failed=""
passed=0
banner() { printf '\n==== %s ====\n' "$*"; }
run_check() { # dir, make args...
    d=$1
    shift
    if make -C "$d" -j2 check "$@" >"$d/check.out" 2>&1; then
        grep -E '^(PASS|SKIP|XFAIL|# )' "$d/check.out" | grep -v '^# ' ; grep -E '^# (TOTAL|PASS|FAIL|SKIP|ERROR)' "$d/check.out"
        return 0
    fi
    grep -E '^(PASS|FAIL|ERROR|SKIP|# )' "$d/check.out"
    failed_logs "$d"
    return 1
}
failed_logs() { # the log of each failed test under dir/tests (and one level below)
    for l in "$1"/tests/*.log "$1"/tests/*/*.log; do
        [ -f "$l" ] && grep -q -E '^FAIL|FAILED|ERROR|Sanitizer' "$l" && { echo "---- $l"; tail -40 "$l"; }
    done
}
step() { # number, name, command...
    n=$1
    name=$2
    shift 2
    case " $steps " in *" $n "*) ;; *) return 0 ;; esac
    banner "$n. $name"
    if "$@"; then passed=$((passed + 1)); else failed="$failed $n($name)"; fi
}

# LB4OMP (lf-bench's lb4omp: rows; configure finds it in build/lb4omp): a failed build is one line, not a failure.
s1() {
    scripts/build-lb4omp.sh || echo "LB4OMP not built: make check runs no lb4omp: rows"
    scripts/format.sh --check && scripts/build.sh build/normal && run_check build/normal &&
        scripts/check-install.sh build/normal && scripts/asan-kmp.sh build/normal &&
        tests/fuzz/run.sh --time 5
}
s2() {
    scripts/build.sh build/asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
        LDFLAGS="-fsanitize=address,undefined" --without-clang &&
        ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 LF_TEST_QUICK=1 run_check build/asan
}
s3() {
    export TSAN_OPTIONS="ignore_noninstrumented_modules=1 halt_on_error=1"
    scripts/build.sh build/tsan CC=clang CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS="-fsanitize=thread" \
        --without-clang &&
        LF_TEST_QUICK=1 run_check build/tsan TESTS="tests/test_coverage tests/test_macro tests/test_dispatch tests/test_locality tests/test_numa tests/test_sibling_teams" &&
        if [ -f build/normal/.libs/libloopfarm.so ]; then
            scripts/asan-kmp.sh build/normal tsan # the kmp shim's static loops, with Archer
        else
            echo "step 3: no build/normal (step 1): the kmp shim's TSan run (asan-kmp.sh tsan) not run"
        fi
}
s4() { scripts/build.sh build/minimal --without-papi --without-hwloc && LF_TEST_QUICK=1 run_check build/minimal; }
s5() { scripts/build.sh build/normal && make -C build/normal -j2 distcheck >build/normal/distcheck.out 2>&1 &&
    grep -A3 'archives ready' build/normal/distcheck.out || {
    tail -40 build/normal/distcheck.out
    # A test that failed inside distcheck's tree: its name and its log, as step 1 prints them.
    grep -E '^(FAIL|ERROR):' build/normal/distcheck.out
    for d in build/normal/loopfarm-*/_build/sub; do [ -d "$d" ] && failed_logs "$d"; done
    false
}; }

step 1 "build and make check" s1
step 2 "ASan + UBSan" s2
step 3 "TSan (clang, libomp)" s3
step 4 "--without-papi --without-hwloc" s4
step 5 "make distcheck" s5

nsteps=$(echo $steps | wc -w)
echo
echo "steps: $passed passed, $((nsteps - passed)) failed"
[ -z "$failed" ] || { echo "failed steps:$failed"; exit 1; }
exit 0
