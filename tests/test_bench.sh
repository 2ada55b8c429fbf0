#!/bin/sh
# tests/test_bench.sh - lf-bench: every kernel agrees with its sequential run
# under every scenario; the data kernels also under two fake NUMA domains, with
# and without locality and staging, every placement; the peer runtimes' rows
# (libomp:, lb4omp:, tbb:, each when its child was built) agree with it too,
# and a row whose child is missing is skipped with one line; background
# processes never outlive a run (normal end, SIGINT, SIGTERM, SIGKILL); CSV
# and JSON carry every column; option errors exit 2 with a message; integer
# options are parsed exactly; a failed write of --out fails the run.  Tiny
# sizes: the whole test takes a few seconds.
# Run from the build directory (make check does); exit 77 when lf-bench was
# not built.

bench=./bench/lf-bench
libomp=./bench/lf-bench-libomp
lb4omp=./bench/lf-bench-lb4omp
tbb=./bench/lf-bench-tbb
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
    graph) echo "--n 400 --grain 8" ;;
    *) echo "--n 3000 --grain 200" ;;
    esac
}

scheds="omp:static,omp:dynamic,3,omp:guided,lf:dynamic,lf:guided,lf:af,lf:multi"

# ---- every kernel x every scenario, checked against the sequential run ----
for k in spin triangle random mandelbrot spmv calcium graph stream stencil; do
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

# ---- --stall-ms: the stalled iteration sleeps, T1 does not ----
# 4 ms stalled in a loop of a few ms: the ideal (T1 + 4 ms) / 2 is at least
# 2 ms, and no run beats it by much (a row's efficiency stays below 1.3).
if "$bench" --kernel spin --n 3000 --grain 200 --threads 2 --stall-ms 4 \
    --schedules omp:dynamic,3,lf:auto,lf:fac2,lease=on --reps 2 --format csv >"$tmp/run.csv" \
    2>"$tmp/run.err"; then
    # counted from the end: a quoted schedule holds commas
    awk -F, 'NR > 1 { if ($(NF - 7) < 0.002 || $(NF - 6) > 1.3) bad = 1; rows++ }
        END { exit !(rows == 3 && !bad) }' "$tmp/run.csv" ||
        fail "--stall-ms: rows or ideal wrong: $(cat "$tmp/run.csv")"
    pass "--stall-ms stalls the loop, not T1"
else
    fail "--stall-ms: exit status $?: $(cat "$tmp/run.err")"
fi

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
main = [l.split() for l in lines if l.startswith(kernel + " ") and len(l.split()) == 14]
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
cols="$cols speedup vs_best t1_s execs t1_own_s"
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
    best = min(float(x["median_s"]) for x in rows)
    assert abs(float(r["vs_best"]) - best / float(r["median_s"])) < 2e-3, r
    assert r["t1_own_s"] == r["t1_s"], r  # every row in one process
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

# ---- --own-rows: where the omp: and lf: rows (and T1) run ----
# child (the default): in a child of lf-bench's own program, which is the
# process that writes the lf: rows' trace (LF_TRACE's %p is its pid, not
# lf-bench's), and --plot finds that file; here: in lf-bench's process.
for where in child here; do
    rm -f "$tmp"/own.*.csv "$tmp"/own.*.csv.profile
    LF_TRACE="$tmp/own.%p.csv" "$bench" --kernel triangle --n 4000 --grain 200 --threads 2 \
        --reps 2 --own-rows $where --schedules omp:static,lf:af,lf:auto --plot "$tmp/own-plots" \
        >"$tmp/own.out" 2>"$tmp/own.err" &
    pid=$!
    wait $pid
    rc=$?
    if [ $rc -ne 0 ] && ! grep -q "without gnuplot" "$tmp/own.err"; then
        fail "--own-rows $where: exit status $rc: $(cat "$tmp/own.err")"
        continue
    fi
    [ "$(grep -c -E ' (omp:static|lf:af|lf:auto) ' "$tmp/own.out")" = 3 ] ||
        fail "--own-rows $where: not every row measured: $(cat "$tmp/own.out")"
    # shellcheck disable=SC2012
    traces=$(ls "$tmp" | grep -E '^own\.[0-9]+\.csv$')
    [ "$(echo "$traces" | wc -w)" = 1 ] || fail "--own-rows $where: trace files '$traces'"
    if [ $where = here ]; then
        [ "$traces" = "own.$pid.csv" ] || fail "--own-rows here: trace $traces, not own.$pid.csv"
    else
        [ "$traces" != "own.$pid.csv" ] || fail "--own-rows child: lf-bench ran the lf: rows"
    fi
    grep -q "lf-bench.c:slot1" "$tmp/$traces" || fail "--own-rows $where: no lf:auto in the trace"
    if [ $rc -eq 0 ]; then
        [ -s "$tmp/own-plots/trace-lf_auto.png" ] || fail "--own-rows $where: no trace plot"
        rm -rf "$tmp/own-plots"
    fi
done
pass "--own-rows child and here run every row; the trace is that of the process that ran them"

# --procs 3: three copies of the child that runs the lf: rows, each runs
# rounds (and so writes a trace of its own), every row is measured.
rm -f "$tmp"/own.*.csv "$tmp"/own.*.csv.profile
if LF_TRACE="$tmp/own.%p.csv" "$bench" --kernel triangle --n 4000 --grain 200 --threads 2 \
    --reps 3 --procs 3 --schedules omp:static,lf:af,lf:auto >"$tmp/own.out" 2>"$tmp/own.err"; then
    [ "$(grep -c -E ' (omp:static|lf:af|lf:auto) ' "$tmp/own.out")" = 3 ] ||
        fail "--procs 3: not every row measured: $(cat "$tmp/own.out")"
    # shellcheck disable=SC2012
    n=$(ls "$tmp" | grep -c -E '^own\.[0-9]+\.csv$')
    [ "$n" = 3 ] || fail "--procs 3: $n processes wrote traces, expected 3"
    # Each copy ran lf:auto in the warm-up and in one of the three rounds.
    for f in "$tmp"/own.*.csv; do
        e=$(grep '^lf-bench.c:slot1,' "$f" | cut -d, -f2 | sort -u | wc -l)
        [ "$e" = 2 ] || fail "--procs 3: $(basename "$f") ran lf:auto $e times, expected 2"
    done
else
    fail "--procs 3: $(cat "$tmp/own.err")"
fi
pass "--procs 3 measures in three copies of a child"

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
expect_usage "bad lb4omp technique" --schedules lb4omp:nosuch
expect_usage "bad tbb partitioner" --schedules tbb:nosuch
expect_usage "bad tbb grain" --schedules tbb:simple,0
expect_usage "--execs 0" --execs 0
expect_usage "seed above LONG_MAX" --seed 9223372036854775808
expect_usage "n with a fraction" --n 2.5
expect_usage "n overflowing through its exponent" --n 9e30
expect_usage "unknown row order" --order random
expect_usage "unknown place of lf-bench's own rows" --own-rows parent
expect_usage "--procs 0" --procs 0
expect_usage "--procs above its limit" --procs 9
expect_usage "unknown T1 of rows" --t1 mine
expect_usage "kmp: row of a kind the shim does not weight" --schedules kmp:dynamic
for child in "$libomp" "$lb4omp" "$tbb"; do
    [ -x "$child" ] || continue
    "$child" --kernel spin >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && grep -q "lf-bench --schedules" "$tmp/err" ||
        fail "$child without --serve: no usage error"
done

"$bench" --help >"$tmp/help" || fail "--help exit status"
for o in kernel n grain threads scenario schedules reps execs format out plot hog-cores little \
    factor period-ms duty placement passes seed order own-rows procs t1-all t1; do
    grep -q -- "--$o " "$tmp/help" || fail "--help does not document --$o"
done
pass "option errors exit 2 with a message; --help documents every option"

# ---- --order: shuffled rounds (the default) and given ones measure every row ----
# Either way every row is measured in every round and agrees with the
# sequential run, and the output lists the rows in the order of --schedules.
for order in shuffled given; do
    if "$bench" --kernel spin --n 3000 --grain 200 --threads 2 --reps 4 --order $order \
        --schedules lf:auto,omp:guided,lf:dynamic,omp:static --format csv >"$tmp/o.csv" \
        2>"$tmp/o.err"; then
        got=$(awk -F, 'NR > 1 { printf "%s ", $6 }' "$tmp/o.csv")
        [ "$got" = "\"lf:auto\" \"omp:guided\" \"lf:dynamic\" \"omp:static\" " ] ||
            fail "--order $order: rows '$got'"
    else
        fail "--order $order: $(cat "$tmp/o.err")"
    fi
done
pass "--order shuffled and given measure every row, listed as given"

# Between rows of two processes lf-bench waits for the last one's threads to
# go idle; a team of one has no thread but the caller's, which is no reason
# for a note (it said /proc could not be read).
peer1=
[ -x "$libomp" ] && peer1=libomp:guided
[ -x "$tbb" ] && peer1=tbb:auto
if [ -n "$peer1" ]; then
    if "$bench" --kernel spin --n 3000 --grain 200 --threads 1 --reps 2 \
        --schedules omp:static,$peer1 --format csv >"$tmp/o.csv" 2>"$tmp/o.err"; then
        grep -q 'note:' "$tmp/o.err" && fail "one thread beside $peer1: $(cat "$tmp/o.err")"
    else
        fail "one thread beside $peer1: $(cat "$tmp/o.err")"
    fi
    pass "rows of two processes, one thread: no settling note"
    # Rows of peers only: a child of lf-bench still measures T1.
    if "$bench" --kernel spin --n 3000 --grain 200 --threads 2 --reps 2 --schedules "$peer1" \
        --format csv >"$tmp/po.csv" 2>"$tmp/po.err"; then
        grep -q "$peer1" "$tmp/po.csv" || fail "peer rows only: no row"
        # Nothing on stderr but the T1 of each process (--t1 own).
        grep -v "^lf-bench: T1 per process" "$tmp/po.err" &&
            fail "peer rows only: stderr: $(cat "$tmp/po.err")"
    else
        fail "peer rows only: $(cat "$tmp/po.err")"
    fi
    pass "with peer rows only, a child of lf-bench measures T1"
    # --t1-all: the sequential time of every other process, on stderr.
    if "$bench" --kernel spin --n 3000 --grain 200 --threads 2 --reps 2 --t1 one --t1-all \
        --schedules "lf:auto,$peer1" >/dev/null 2>"$tmp/t1.err"; then
        grep -q "T1 per process.*rows keep the first): lf-bench [0-9.]*; lf-bench-[a-z]* [0-9.]*" "$tmp/t1.err" ||
            fail "--t1-all: $(cat "$tmp/t1.err")"
    else
        fail "--t1-all: $(cat "$tmp/t1.err")"
    fi
    pass "--t1-all reports the T1 of the peer's process"
    # --t1 own (the default): each row's ideal from the T1 of the process
    # that ran it, which stderr lists; ranked on efficiency.  --t1 one: one
    # T1 for all.  With --procs 2, each round against its own copy's T1.
    for mode in own one procs; do
        args="--t1 $mode"
        [ $mode = procs ] && args="--procs 2"
        if "$bench" --kernel spin --n 3000 --grain 200 --threads 2 --reps 3 $args \
            --schedules "lf:auto,$peer1,omp:static" --format csv >"$tmp/t1.csv" \
            2>"$tmp/t1.err"; then
            python3 - "$tmp/t1.csv" "$tmp/t1.err" "$mode" "$(nproc)" <<'EOF' ||
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
err, mode = open(sys.argv[2]).read(), sys.argv[3]
assert len(rows) == 3, rows
# efficiency as ideal_s / median_s (6 significant digits): the printed 4 decimals are too
# coarse for a ratio when an efficiency is low.
best = max(float(r["ideal_s"]) / float(r["median_s"]) for r in rows)
others = re.findall(r"; (lf-bench[-a-z]*) ([0-9.]+)", err)
lead = re.search(r"T1 per process \(s, fastest sequential run; ([a-z ']*)\): "
                 r"lf-bench ([0-9.]+)", err)
if mode == "one":
    assert not lead, err
else:
    assert lead and lead.group(1) == "each row against its own process's", err
    assert abs(float(lead.group(2)) - float(rows[0]["t1_s"])) < 6e-5, (err, rows[0])
    # the peer's process; with --procs 2 also the copies of both
    assert len(others) == (3 if mode == "procs" else 1), err
for r in rows:
    own = float(r["t1_own_s"])
    eff, med, ideal = float(r["efficiency"]), float(r["median_s"]), float(r["ideal_s"])
    assert abs(eff * med - ideal) < 2e-3 * ideal, r
    assert abs(float(r["vs_best"]) - ideal / med / best) < 2e-3, r
    assert abs(float(r["speedup"]) - own / med) < 2e-3 * own / med, r
    if sys.argv[4] == "2":  # two dedicated cores: sum(s_i) = 2
        assert abs(ideal - own / 2) < 1e-3 * own, r
    mine = r["schedule"].startswith(("lf:", "omp:"))
    if mode == "one" or mode == "own" and mine:
        assert r["t1_own_s"] == r["t1_s"], r
    if mode == "own" and not mine:  # the peer's own T1, as stderr lists it
        assert abs(own - float(others[0][1])) < 6e-5, (r, others)
EOF
                fail "--t1 $mode: $(cat "$tmp/t1.csv" "$tmp/t1.err")"
        else
            fail "--t1 $mode: $(cat "$tmp/t1.err")"
        fi
    done
    pass "--t1 own measures each row against its own process's T1; --t1 one against one"
fi

# ---- integers are parsed exactly; a failed write fails the run ----
# --seed LONG_MAX is a seed like any other (it overflowed a double once)
if "$bench" --kernel random --n 2000 --grain 100 --threads 2 --reps 1 --schedules omp:static \
    --seed 9223372036854775807 --n 2e3 --format csv >"$tmp/s.csv" 2>"$tmp/s.err"; then
    grep -q '^random,2000,' "$tmp/s.csv" || fail "--n 2e3: $(cat "$tmp/s.csv")"
else
    fail "--seed 9223372036854775807: $(cat "$tmp/s.err")"
fi
if [ -w /dev/full ]; then
    "$bench" --kernel spin --n 2000 --grain 100 --threads 2 --reps 1 --schedules omp:static \
        --format csv --out /dev/full >/dev/null 2>"$tmp/full.err"
    rc=$?
    [ $rc -ne 0 ] || fail "--out /dev/full: exit status 0"
    grep -q "cannot write /dev/full" "$tmp/full.err" || fail "--out /dev/full: no message"
    "$bench" --kernel spin --n 2000 --grain 100 --threads 2 --reps 1 --schedules omp:static \
        >/dev/full 2>"$tmp/full.err"
    [ $? -ne 0 ] || fail "standard output on /dev/full: exit status 0"
fi
pass "integer options parse exactly; a failed write of the results fails the run"


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
# The descendants of $1 that are background processes (named lf-bench-hog or
# lf-bench-vary by the scenario).
background() {
    for c in $(descendants "$1"); do
        case "$(ps -o comm= -p "$c" 2>/dev/null)" in
        lf-bench-hog | lf-bench-vary) echo "$c" ;;
        esac
    done
}
# Start a long run in the background (schedules $long_scheds); wait until
# $want of its descendants exist (background processes; lf-bench-libomp and
# its own), one of them a background process; leave their pids in $kids.
# A background process is forked after lf-bench has installed its signal
# handlers, so a signal sent then is not lost: before that, $bench may still
# be libtool's wrapper shell, in which SIGINT is ignored (an asynchronous
# list of a non-interactive shell) and whose own short-lived children would
# otherwise count as descendants.
long_scheds=omp:static,lf:dynamic
want=1
start_long() {
    "$bench" --kernel spin --n 200000 --grain 500 --threads 2 --reps 1000 \
        --schedules "$long_scheds" "$@" >/dev/null 2>&1 &
    bgpid=$!
    i=0
    kids=
    while [ $i -lt 200 ] && { [ "$(echo $kids | wc -w)" -lt $want ] || [ -z "$(background $bgpid)" ]; }; do
        sleep 0.05
        kids=$(descendants $bgpid)
        i=$((i + 1))
    done
    [ -n "$(background $bgpid)" ] || fail "no background process started within 10 s"
}
# Wait (at most 30 s: under a loaded make -j2 distcheck a round's child can take
# seconds to reach its next check of the signal) for $bgpid to end after a
# signal; its status in $rc.
stop_wait() {
    i=0
    while kill -0 $bgpid 2>/dev/null && [ $i -lt 600 ]; do
        ps -o stat= -p $bgpid | grep -q '^Z' && break
        sleep 0.05
        i=$((i + 1))
    done
    if [ $i -ge 600 ]; then
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

# ---- peer runtimes: every row agrees with the sequential run ----
# Each child that was built runs its schedules for every kernel, interleaved
# with lf-bench's own rows (any wrong result exits 3), against one T1, with
# --execs executions per measurement; vs_best is the row's efficiency over
# the best (each against its own process's T1).  A child that was not built
# skips its rows with one line each.
peers=
[ -x "$libomp" ] && peers="$peers,libomp:static_steal,libomp:dynamic,2,libomp:guided"
# schedule(static) under libomp with libloopfarm-kmp.so preloaded: libomp's split and the shim's.
[ -x "$libomp" ] && [ -f .libs/libloopfarm-kmp.so ] && peers="$peers,kmp:static,kmp:static,weighted"
lbtechs="static_steal dynamic guided trapezoidal fac2 fac2a fac2b wf awf awf_b awf_c awf_d awf_e af"
lbtechs="$lbtechs af_a pls tfss mfsc fiss viss rnd,4 auto"
[ -x "$lb4omp" ] && peers="$peers,lb4omp:af_a,lb4omp:tfss"
[ -x "$tbb" ] && peers="$peers,tbb:auto,tbb:simple,4,tbb:affinity,tbb:static"
if [ -n "$peers" ]; then
    for k in spin triangle random mandelbrot spmv calcium graph stream stencil; do
        # shellcheck disable=SC2046
        if "$bench" --kernel $k $(kargs $k) --scenario hog --threads 2 --reps 2 --execs 2 \
            --schedules "omp:dynamic,1,lf:af$peers" --format csv >"$tmp/p.csv" 2>"$tmp/p.err"; then
            python3 - "$tmp/p.csv" "omp:dynamic,1,lf:af$peers" "$(nproc)" <<'EOF' || fail "$k: peer rows"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
want = re.split(r",(?=(?:omp|lf|libomp|lb4omp|tbb|kmp):)", sys.argv[2])
assert [r["schedule"] for r in rows] == want, ([r["schedule"] for r in rows], want)
# efficiency is printed to 4 decimals, too coarse for a ratio at a low
# efficiency; ideal_s / median_s (6 significant digits) is the same quantity.
def eff(r):
    return float(r["ideal_s"]) / float(r["median_s"])
best = max(eff(r) for r in rows)
for r in rows:
    assert r["execs"] == "2", r
    assert abs(float(r["efficiency"]) - eff(r)) < 1e-4, r
    assert abs(float(r["vs_best"]) - eff(r) / best) < 2e-3, r
    assert r["t1_s"] == rows[0]["t1_s"], r  # one reference T1, each row its own
    if sys.argv[3] == "2":  # a hog on the second core: sum(s_i) = 1.5
        own = float(r["t1_own_s"])
        assert abs(float(r["ideal_s"]) - 2 * own / 1.5) < 1e-3 * float(r["ideal_s"]), r
EOF
        else
            fail "$k: peer rows: exit status $?: $(cat "$tmp/p.err")"
        fi
    done
    pass "peer rows ($peers) agree with the sequential run on every kernel"
fi
if [ -x "$lb4omp" ]; then
    all=
    for t in $lbtechs; do all="$all,lb4omp:$t"; done
    if "$bench" --kernel random --n 3000 --grain 200 --scenario biglittle --threads 2 --reps 1 \
        --schedules "omp:static$all,lb4omp:fac" --format csv >"$tmp/lb.csv" 2>"$tmp/lb.err"; then
        n=$(grep -c '"lb4omp:' "$tmp/lb.csv")
        [ "$n" -eq "$(echo $lbtechs | wc -w)" ] || fail "lb4omp: $n rows, $(echo $lbtechs | wc -w) techniques"
        [ "$(grep -c 'lb4omp:fac skipped: .*KMP_PROFILE_DATA' "$tmp/lb.err")" -eq 1 ] ||
            fail "lb4omp:fac without a profile: $(cat "$tmp/lb.err")"
    else
        fail "lb4omp techniques: $(cat "$tmp/lb.err")"
    fi
    pass "every LB4OMP technique that runs here agrees with the sequential run; fac needs a profile"
fi
if [ -x "$tbb" ]; then
    for s in biglittle oversub; do
        "$bench" --kernel triangle --n 3000 --grain 200 --scenario $s --reps 2 \
            --schedules omp:dynamic,1,tbb:auto,tbb:simple,tbb:affinity,tbb:static,16 \
            >/dev/null 2>"$tmp/t.err" || fail "tbb under $s: $(cat "$tmp/t.err")"
    done
    pass "tbb: rows agree with the sequential run under biglittle and oversub"
fi
# A child that is missing: its rows are skipped, one line each, the others run.
if LF_BENCH_LIBOMP=/nonexistent LF_BENCH_LB4OMP=/nonexistent LF_BENCH_TBB=/nonexistent \
    "$bench" --kernel spin --n 2000 --grain 100 --threads 2 --reps 1 \
    --schedules omp:static,libomp:guided,lb4omp:af,tbb:auto --format csv >"$tmp/m.csv" \
    2>"$tmp/m.err"; then
    [ "$(wc -l <"$tmp/m.csv")" -eq 2 ] || fail "missing children: $(cat "$tmp/m.csv")"
    for r in libomp:guided lb4omp:af tbb:auto; do
        [ "$(grep -c "^lf-bench: $r skipped: lf-bench-.* was not built" "$tmp/m.err")" -eq 1 ] ||
            fail "missing child: no single skip line for $r: $(cat "$tmp/m.err")"
    done
else
    fail "missing children: exit status $?: $(cat "$tmp/m.err")"
fi
pass "rows of a runtime that was not built are skipped with one line each"

# kmp: rows with no libloopfarm-kmp.so to preload are skipped, saying so.
if [ -x "$libomp" ]; then
    if LF_BENCH_KMP_SHIM=/nonexistent/libloopfarm-kmp.so "$bench" --kernel spin --n 2000 \
        --grain 100 --threads 2 --reps 1 --schedules omp:static,kmp:static,weighted \
        --format csv >"$tmp/k.csv" 2>"$tmp/k.err"; then
        grep -q "kmp:static,weighted skipped: no libloopfarm-kmp.so" "$tmp/k.err" &&
            ! grep -q '"kmp:' "$tmp/k.csv" || fail "kmp: row without a shim: $(cat "$tmp/k.err")"
    else
        fail "kmp: row without a shim: $(cat "$tmp/k.err")"
    fi
    pass "kmp: rows without a shim to preload are skipped with one line"
fi

# More than 16 schedules in one run.
many=omp:static,omp:dynamic,1,omp:dynamic,2,omp:dynamic,3,omp:dynamic,4,omp:guided,omp:guided,2
many=$many,lf:dynamic,lf:dynamic,2,lf:guided,lf:af,lf:fac2,lf:multi,lf:tss,lf:wf,lf:awf-b,lf:awf-c
many=$many,lf:dealdyn,lf:trad,lf:deal
if "$bench" --kernel spin --n 2000 --grain 100 --threads 2 --reps 1 --schedules "$many" \
    --format csv >"$tmp/many.csv" 2>"$tmp/many.err"; then
    [ "$(($(wc -l <"$tmp/many.csv") - 1))" -eq 20 ] || fail "20 schedules: $(cat "$tmp/many.csv")"
else
    fail "20 schedules: $(cat "$tmp/many.err")"
fi
pass "one run compares 20 schedules"

# The peers' children die with lf-bench.
for child in "$libomp=libomp:guided" "$tbb=tbb:auto"; do
    prog=${child%%=*}
    [ -x "$prog" ] || continue
    long_scheds=omp:static,${child#*=}
    want=2
    start_long --scenario hog
    kill -INT $bgpid
    stop_wait
    check_gone "SIGINT with $(basename "$prog") running"
    pass "$(basename "$prog") and the background process die on SIGINT"
done

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all lf-bench checks passed"
exit 0
