#!/bin/sh
# tests/test_bench.sh - lf-bench: every kernel agrees with its sequential run
# under every scenario; the data kernels also under two fake NUMA domains, with
# and without locality and staging, every placement; background processes never
# outlive a run (normal end, SIGINT, SIGTERM, SIGKILL); CSV and JSON carry every
# column; option errors exit 2 with a message.  Tiny sizes: the whole test
# takes a few seconds.
# Run from the build directory (make check does); exit 77 when lf-bench was
# not built.

bench=./bench/lf-bench
libomp=./bench/lf-bench-libomp
[ -x "$bench" ] || { echo "SKIP: $bench not built"; exit 77; }
command -v pgrep >/dev/null 2>&1 || { echo "SKIP: pgrep missing"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/test_bench.XXXXXX")
bgpid=
cleanup() {
    [ -n "$bgpid" ] && kill -KILL "$bgpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
pass() {
    echo "ok: $*"
}

# Tiny arguments per kernel: n and grain.
kargs() {
    case $1 in
    mandelbrot) echo "--n 64 --grain 64" ;;
    spmv) echo "--n 3000 --grain 16" ;;
    calcium) echo "--n 48 --grain 40" ;;
    stream | stencil) echo "--n 200 --grain 64" ;;
    *) echo "--n 3000 --grain 200" ;;
    esac
}

scheds="omp:static,omp:dynamic,3,omp:guided,lf:dynamic,lf:guided,lf:af,lf:multi"

# ---- every kernel x every scenario, checked against the sequential run ----
for k in spin triangle random mandelbrot spmv calcium stream stencil; do
    for s in dedicated hog biglittle varying oversub; do
        extra=
        [ "$s" = varying ] && extra="--period-ms 2 --duty 0.5"
        [ "$s" = biglittle ] && extra="--little 1 --factor 2"
        [ "$s" = oversub ] && extra="--threads 4" || extra="$extra --threads 2"
        # shellcheck disable=SC2046,SC2086
        if "$bench" --kernel $k $(kargs $k) --scenario $s $extra --schedules "$scheds" \
            --reps 2 --format csv >"$tmp/run.csv" 2>"$tmp/run.err"; then
            rows=$(($(wc -l <"$tmp/run.csv") - 1))
            [ "$rows" -eq 7 ] || fail "$k/$s: $rows rows, expected 7"
        else
            fail "$k/$s: exit status $?: $(cat "$tmp/run.err")"
        fi
    done
    pass "kernel $k agrees with its sequential run under every scenario"
done

# ---- data kernels under fake NUMA: locality, staging, placements ----
# Every row agrees with the sequential run (else exit 3); the data table
# follows the main one; a loop that stages never reads another domain's input
# in place and one that does not stage never reads a staged copy (node0: no
# domain boundary, so no halo straddles two domains).
dscheds="omp:dynamic,1,omp:guided,lf:fac2,numa=off,stage=off,lf:fac2,stage=off,lf:fac2"
dscheds="$dscheds,lf:umr,lf:rumr,lf:af"
for k in stream stencil; do
    for p in node0 blocked; do
        if LF_FAKE_NUMA=2,lat=500,gbps=4 LF_BIND=close "$bench" --kernel $k --n 300 --grain 64 \
            --placement $p --threads 2 --reps 2 --schedules "$dscheds" >"$tmp/d.out" \
            2>"$tmp/d.err"; then
            python3 - "$tmp/d.out" "$k" "$p" <<'EOF' || fail "$k/$p: rows under fake NUMA"
import sys
lines = open(sys.argv[1]).read().splitlines()
kernel, placement = sys.argv[2], sys.argv[3]
main = [l.split() for l in lines if l.startswith(kernel + " ") and len(l.split()) == 13]
assert len(main) == 8, main
i = next(i for i, l in enumerate(lines) if "placement " + placement in l)
assert "over 2 NUMA domains (LF_FAKE_NUMA)" in lines[i], lines[i]
assert lines[i + 1].split() == ["schedule", "remote", "staged", "wait_ms"], lines[i + 1]
data = {l.split()[0]: [float(x) for x in l.split()[1:]] for l in lines[i + 2:i + 10]}
assert len(data) == 8, data
for s, (remote, staged, wait) in data.items():
    assert 0 <= remote <= 1 and 0 <= staged <= 1 and wait >= 0, (s, remote, staged)
    if "stage=off" in s or s.startswith("omp:"):
        assert staged == 0, (s, staged)
    elif placement == "node0":
        assert remote == 0, (s, remote)
EOF
        else
            fail "$k/$p under LF_FAKE_NUMA=2: exit status $?: $(cat "$tmp/d.err")"
        fi
    done
done
pass "stream and stencil agree with their sequential run under fake NUMA, staged or not"

# ---- CSV and JSON carry every column ----
cols="kernel n grain threads scenario schedule median_s min_s max_s ideal_s efficiency chunks"
cols="$cols speedup t1_s"
"$bench" --kernel random --n 2000 --grain 100 --threads 2 --scenario hog --reps 2 \
    --schedules "omp:static,omp:dynamic,1,lf:dynamic" --format csv --out "$tmp/o.csv" \
    >"$tmp/o.table" || fail "csv run"
"$bench" --kernel random --n 2000 --grain 100 --threads 2 --scenario hog --reps 2 \
    --schedules "omp:static,omp:dynamic,1,lf:dynamic" --format json >"$tmp/o.json" ||
    fail "json run"
python3 - "$tmp/o.csv" "$tmp/o.json" "$cols" "$(nproc)" <<'EOF' || fail "CSV/JSON parse or columns"
import csv, json, sys
cols = sys.argv[3].split()
with open(sys.argv[1]) as f:
    rows = list(csv.DictReader(f))
assert len(rows) == 3, rows
assert [r["schedule"] for r in rows] == ["omp:static", "omp:dynamic,1", "lf:dynamic"], rows
for r in rows:
    for c in cols:
        assert c in r and r[c] != "", (c, r)
    assert float(r["efficiency"]) > 0 and float(r["median_s"]) > 0
    if sys.argv[4] == "2":  # one hog on the last of two cores: sum(s_i) = 1 + 1/2
        assert abs(float(r["ideal_s"]) - float(r["t1_s"]) / 1.5) < 1e-3 * float(r["t1_s"]), r
with open(sys.argv[2]) as f:
    doc = json.load(f)
assert len(doc["rows"]) == 3
for r in doc["rows"]:
    for c in cols:
        assert c in r, (c, r)
    assert r["chunks"] is None or r["chunks"] >= 1
EOF
head -1 "$tmp/o.table" | grep -q "schedule" || fail "--out: the table did not go to stdout"
pass "CSV and JSON parse and carry every column"

# ---- plots: efficiency and, with LF_TRACE, chunk timelines ----
if LF_TRACE="$tmp/trace.csv" "$bench" --kernel triangle --n 4000 --grain 200 --threads 2 \
    --scenario hog --reps 1 --schedules omp:static,lf:af --plot "$tmp/plots" \
    >/dev/null 2>"$tmp/plot.err"; then
    [ -s "$tmp/plots/efficiency.png" ] || fail "--plot: no efficiency.png"
    [ -s "$tmp/plots/trace-lf_af.png" ] || fail "--plot: no trace-lf_af.png"
    pass "--plot draws efficiency and chunk timelines"
else
    grep -q "without gnuplot" "$tmp/plot.err" || fail "--plot: $(cat "$tmp/plot.err")"
fi

# ---- option errors: exit 2 and a message ----
expect_usage() {
    what=$1
    shift
    "$bench" "$@" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc -ne 2 ]; then
        fail "$what: exit status $rc, expected 2"
    elif ! grep -q "lf-bench: " "$tmp/err"; then
        fail "$what: no message"
    fi
}
expect_usage "unknown kernel" --kernel nosuch
expect_usage "--threads 0" --threads 0
expect_usage "bad omp kind" --schedules omp:bogus
expect_usage "bad chunk" --schedules omp:dynamic,0
expect_usage "bad lf spec" --schedules lf:nosuchpolicy
expect_usage "item without prefix" --schedules static,lf:dynamic
expect_usage "unknown scenario" --scenario nosuch
expect_usage "unknown option" --frobnicate
expect_usage "bad format" --format xml
expect_usage "bad hog core" --scenario hog --hog-cores 9999
expect_usage "too many little" --scenario biglittle --threads 2 --little 3
expect_usage "bad placement" --kernel stream --placement nosuch
expect_usage "placement without data" --kernel spin --placement blocked
expect_usage "passes without stencil" --kernel stream --passes 2
expect_usage "stencil block under its halo" --kernel stencil --grain 2 --passes 4
"$bench" --help >"$tmp/help" || fail "--help exit status"
for o in kernel n grain threads scenario schedules reps format out plot hog-cores little factor \
    period-ms duty placement passes; do
    grep -q -- "--$o " "$tmp/help" || fail "--help does not document --$o"
done
pass "option errors exit 2 with a message; --help documents every option"

# ---- background processes die with lf-bench ----
# Children of $1 that are still alive (not gone, not zombies).
alive() {
    for p in $1; do
        st=$(ps -o stat= -p "$p" 2>/dev/null)
        case $st in
        "" | Z*) ;;
        *) echo "$p" ;;
        esac
    done
}
# Children and grandchildren of $1.
descendants() {
    for c in $(pgrep -P "$1"); do
        echo "$c"
        pgrep -P "$c"
    done
}
# Start a long run in the background (schedules $long_scheds); wait until
# $want of its descendants exist (background processes; lf-bench-libomp and
# its own); leave their pids in $kids.
long_scheds=omp:static,lf:dynamic
want=1
start_long() {
    "$bench" --kernel spin --n 200000 --grain 500 --threads 2 --reps 1000 \
        --schedules "$long_scheds" "$@" >/dev/null 2>&1 &
    bgpid=$!
    i=0
    kids=
    while [ $i -lt 100 ] && [ "$(echo $kids | wc -w)" -lt $want ]; do
        sleep 0.05
        kids=$(descendants $bgpid)
        i=$((i + 1))
    done
}
# Wait (at most 5 s) for $bgpid to end after a signal; its status in $rc.
stop_wait() {
    i=0
    while kill -0 $bgpid 2>/dev/null && [ $i -lt 100 ]; do
        ps -o stat= -p $bgpid | grep -q '^Z' && break
        sleep 0.05
        i=$((i + 1))
    done
    if [ $i -ge 100 ]; then
        fail "lf-bench ignored the signal"
        kill -KILL $bgpid
    fi
    wait $bgpid 2>/dev/null
    rc=$?
    bgpid=
}
check_gone() {
    what=$1
    sleep 0.3
    left=$(alive "$kids")
    [ -z "$left" ] || fail "$what: background processes $left survived"
    [ -n "$kids" ] || fail "$what: no background process was seen"
}

# normal end
"$bench" --kernel spin --n 100000 --grain 500 --threads 2 --reps 4 --scenario hog \
    --hog-cores 0,1 --schedules omp:static >/dev/null 2>&1 &
bgpid=$!
kids=
i=0
while [ $i -lt 100 ] && [ -z "$kids" ]; do
    sleep 0.02
    kids=$(pgrep -P $bgpid)
    i=$((i + 1))
done
wait $bgpid || fail "hog run exit status"
bgpid=
check_gone "normal end"

start_long --scenario hog
kill -INT $bgpid
stop_wait
[ $rc -ne 0 ] || fail "SIGINT: exit status 0"
check_gone "SIGINT"

start_long --scenario varying --period-ms 10
kill -TERM $bgpid
stop_wait
check_gone "SIGTERM"

start_long --scenario hog --hog-cores 0,1
kill -KILL $bgpid
stop_wait
check_gone "SIGKILL (PR_SET_PDEATHSIG)"
pass "background processes die at exit, on SIGINT, SIGTERM and SIGKILL"

# ---- libomp rows, when clang with libomp was found ----
if [ -x "$libomp" ]; then
    if "$bench" --kernel calcium --n 48 --grain 40 --threads 2 --scenario hog --reps 2 \
        --schedules "omp:dynamic,1,libomp:static_steal,libomp:dynamic,2,libomp:guided" \
        --format csv >"$tmp/l.csv" 2>"$tmp/l.err"; then
        n=$(grep -c '"libomp:' "$tmp/l.csv")
        [ "$n" -eq 3 ] || fail "libomp: $n libomp rows, expected 3"
    else
        fail "libomp rows: $(cat "$tmp/l.err")"
    fi
    pass "libomp: rows come from lf-bench-libomp"
    long_scheds=libomp:guided
    want=2
    start_long --scenario hog
    kill -INT $bgpid
    stop_wait
    check_gone "SIGINT with lf-bench-libomp running"
    pass "lf-bench-libomp and its background process die on SIGINT"
else
    expect_usage "libomp: without lf-bench-libomp" --schedules libomp:guided
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all lf-bench checks passed"
exit 0
