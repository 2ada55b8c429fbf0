#!/bin/sh
# tests/test_bundle.sh - scripts/bundle-bench.sh: the bundle holds lf-bench,
# the children that were built and the libraries they load; its run.sh runs
# lf-bench (and its peer rows) from the bundle's own libraries, with results
# checked against the sequential run as always, the matrix script with
# one cell size of one kernel, and the suite script with one loops case
# through the bundled shim; bad arguments exit 2 with a message.  Run from the build directory (make check does).
bench=./bench/lf-bench
[ -x "$bench" ] || { echo "SKIP: $bench not built"; exit 77; }
command -v ldd >/dev/null 2>&1 || { echo "SKIP: no ldd"; exit 77; }
script=${srcdir:-.}/scripts/bundle-bench.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_bundle.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}

sh "$script" -b . "$tmp/b" 2>"$tmp/err" || fail "bundle-bench.sh: $(cat "$tmp/err")"
for f in bin/lf-bench lib/libloopfarm.so.0 scripts/bench-matrix.sh run.sh; do
    [ -e "$tmp/b/$f" ] || fail "the bundle has no $f"
done
# The programs resolve every library, and libloopfarm from the bundle.
for p in "$tmp"/b/bin/* "$tmp"/b/suite/bench/* "$tmp"/b/suite/.libs/*; do
    [ -e "$p" ] || continue
    LD_LIBRARY_PATH=$tmp/b/lib ldd "$p" >"$tmp/ldd" 2>&1
    grep -q 'not found' "$tmp/ldd" && fail "$p: $(grep 'not found' "$tmp/ldd")"
    if grep -q libloopfarm "$tmp/ldd"; then
        grep -q "libloopfarm.so.0 => $tmp/b/lib/" "$tmp/ldd" ||
            fail "$p: libloopfarm not from the bundle: $(grep libloopfarm "$tmp/ldd")"
    fi
done
# Every peer child built here is in the bundle and runs its rows from it.
rows=omp:static,lf:auto
nrows=2
for c in libomp:libomp:guided lb4omp:lb4omp:fac2a tbb:tbb:auto; do
    child=${c%%:*}
    row=${c#*:}
    if [ -x "./bench/lf-bench-$child" ]; then
        [ -x "$tmp/b/bin/lf-bench-$child" ] || fail "lf-bench-$child was built but is not bundled"
        rows=$rows,$row
        nrows=$((nrows + 1))
    fi
done
if (unset LD_LIBRARY_PATH; cd "$tmp" && ./b/run.sh lf-bench --kernel spin --n 2000 --grain 100 \
    --threads 2 --reps 1 --schedules "$rows" --format csv) >"$tmp/run.csv" 2>"$tmp/err"; then
    got=$(($(wc -l <"$tmp/run.csv") - 1))
    [ "$got" -eq "$nrows" ] || fail "run.sh lf-bench: $got rows of $nrows ($rows): $(cat "$tmp/err")"
else
    fail "run.sh lf-bench ($rows): $(cat "$tmp/err")"
fi

# The matrix script from the bundle, one cell size of one kernel
# (LF_MATRIX_KERNELS=kernel/grain), smoke-sized.
if (cd "$tmp" && LF_MATRIX_KERNELS=spin/500 LF_MATRIX_SCENARIOS=dedicated \
    LF_MATRIX_SCHEDULES=omp:static,lf:auto ./b/run.sh matrix --quick -o m) >"$tmp/m.out" 2>&1; then
    got=$(awk -F, 'NR > 1 { printf "%s/%s ", $1, $3 }' "$tmp/m/matrix.csv")
    # two schedules and the A/A copy of the first
    [ "$got" = "spin/500 spin/500 spin/500 " ] || fail "run.sh matrix, LF_MATRIX_KERNELS=spin/500: rows '$got'"
    grep -q "^spin/500/dedicated .* \(best\|noise\|loss\)$" "$tmp/m/cells.txt" ||
        fail "run.sh matrix: cells.txt has no verdict for spin/500/dedicated: $(cat "$tmp/m/cells.txt")"
    [ -s "$tmp/m/summary.txt" ] || fail "run.sh matrix: no summary.txt"
else
    fail "run.sh matrix --quick: $(cat "$tmp/m.out")"
fi

# The suite from the bundle, when its programs were built (and with 2 cores, its least):
# one loops case, smoke-sized, its row in summary.csv.
if [ -x ./bench/lf-graph-cxx ] && [ -x ./bench/lf-suite-loops ] && [ -e ./.libs/libloopfarm-gomp.so ] &&
    [ "$(nproc)" -ge 2 ]; then
    for f in suite/bench/lf-graph-cxx suite/bench/lf-suite-loops suite/.libs/libloopfarm-gomp.so \
        scripts/bench-suite.sh scripts/bench-common.sh; do
        [ -e "$tmp/b/$f" ] || fail "the suite's programs were built but the bundle has no $f"
    done
    if (unset LD_LIBRARY_PATH; cd "$tmp" && ./b/run.sh suite --quick --cases moving \
        --settings dedicated --out s) >"$tmp/s.out" 2>&1; then
        grep -q "^dedicated,moving,3," "$tmp/s/summary.csv" ||
            fail "run.sh suite: no row for moving in summary.csv: $(cat "$tmp/s/summary.csv")"
    else
        fail "run.sh suite --quick: $(tail -5 "$tmp/s.out")"
    fi
fi

# Bad arguments: exit 2 and a message.
expect2() {
    what=$1
    shift
    "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "$what: exit status $rc, expected 2"
    [ -s "$tmp/err" ] || fail "$what: no message"
}
expect2 "bundle-bench.sh without OUTDIR" sh "$script" -b .
expect2 "bundle-bench.sh -b without a folder" sh "$script" -b
expect2 "bundle-bench.sh unknown option" sh "$script" --frobnicate x
expect2 "run.sh without a program" "$tmp/b/run.sh"
expect2 "run.sh unknown program" "$tmp/b/run.sh" nosuch
LF_MATRIX_KERNELS=nosuch expect2 "a matrix of no kernel" "$tmp/b/run.sh" matrix --quick -o "$tmp/m2"

[ $fails -eq 0 ] && echo "ok: bundle-bench.sh" && exit 0
exit 1
