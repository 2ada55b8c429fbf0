#!/bin/sh
# scripts/bench-static-sweep.sh BUILDDIR [ROUNDS] [SCENARIO] [KERNEL] - how the gain of
# libloopfarm-kmp's weighted static over libomp's static depends on the length of one execution:
# bench/lf-kmp-static's KERNEL (default irregular) at sizes whose executions last from a few ms
# to about 100 ms, with executions per run chosen so that every run lasts over 100 ms, under
# SCENARIO (default hog: a process spinning on the last core), 2 threads bound one per CPU.
#
# Rows per size: libomp static, libomp static again (A/A), static:weighted (preloaded).  Rounds
# interleave every (size, row) pair, rotating the rows' order.  Prints each row's median run
# time with quartiles and the ratio to libomp static's median, and the median time of one
# execution of libomp static on dedicated cores (the run's time over its executions, measured
# once per size before the rounds).  A benchmark for a quiet machine: never part of make check.
# Duration: about ROUNDS x 25 s (7 rounds: about 3 minutes).
. "$(dirname "$0")/help.sh"
set -u
build=$(cd "${1:?usage: bench-static-sweep.sh BUILDDIR [ROUNDS] [SCENARIO] [KERNEL]}" && pwd)
rounds=${2:-7}
scenario=${3:-hog}
kernel=${4:-irregular}
exe="$build/bench/lf-kmp-static"
shim="$build/.libs/libloopfarm-kmp.so"
[ -x "$exe" ] && [ -f "$shim" ] || {
    echo "bench-static-sweep: build $exe and $shim first (needs clang with libomp)" >&2
    exit 1
}
case $scenario in dedicated | hog | varying) ;; *)
    echo "bench-static-sweep: scenario \"$scenario\" is not one of dedicated, hog, varying" >&2
    exit 1 ;;
esac
# size:executions per kernel, from the default size up: every run over 100 ms and at least 24
# executions, so that most of them come after the site's 3 settling even ones and the
# weighted split's 3-execution trial.
case $kernel in
irregular) sizes="20000:100 60000:40 200000:24 600000:24" ;;
matvec) sizes="1536:150 3072:40 6144:24" ;;
stencil) sizes="1024:300 2048:80 4096:40 6144:24" ;;
*)
    echo "bench-static-sweep: kernel \"$kernel\" is not one of irregular, matvec, stencil" >&2
    exit 1 ;;
esac
# One place per logical CPU: see bench-static.sh on OMP_PLACES=cores under libomp.
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_PLACES=threads
unset LF_SCHEDULE LF_REPLACE LF_VERBOSE LF_TRACE
python3 - "$exe" "$shim" "$rounds" "$scenario" "$kernel" $sizes <<'PY'
import os, statistics, subprocess, sys
exe, shim, rounds, scenario, kernel = sys.argv[1:6]
rounds = int(rounds)
sizes = [tuple(int(x) for x in a.split(":")) for a in sys.argv[6:]]
rows = ["static", "static-AA", "weighted"]

def run(row, size, reps, load):
    env = dict(os.environ)
    if row == "weighted":
        env.update(LD_PRELOAD=shim, LF_REPLACE="static:weighted")
    out = subprocess.run([exe, "--kernel", kernel, "--load", load, "--size", str(size),
                          "--reps", str(reps)], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[out.index("time_s") + 1])

per_exec = {s: run("static", s, r, "dedicated") / r for s, r in sizes}
t = {(s, row): [] for s, _ in sizes for row in rows}
for k in range(rounds):
    for s, r in sizes:
        order = rows[k % 3:] + rows[:k % 3]
        for row in order:
            t[(s, row)].append(run(row, s, r, scenario))
print(f"kernel {kernel}, scenario {scenario}, {rounds} interleaved rounds, 2 threads bound")
print(f"{'size':>8} {'execs':>5} {'exec_ms':>8}  {'row':<16} {'median':>8} {'q1':>8} {'q3':>8} {'/static':>8}")
for s, r in sizes:
    base = statistics.median(t[(s, "static")])
    for row in rows:
        v = t[(s, row)]
        q = statistics.quantiles(v, n=4)
        name = {"static": "libomp static", "static-AA": "static (A/A)",
                "weighted": "static:weighted"}[row]
        print(f"{s:>8} {r:>5} {per_exec[s] * 1e3:>8.2f}  {name:<16} {statistics.median(v):>8.4f} "
              f"{q[0]:>8.4f} {q[2]:>8.4f} {statistics.median(v) / base:>8.3f}")
PY
