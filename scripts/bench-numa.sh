#!/bin/sh
# scripts/bench-numa.sh - the staging-bound kernels under emulated NUMA: stream
# and stencil, input all on domain 0 (node0) or split in equal ranges (blocked),
# 2 threads bound close under LF_FAKE_NUMA=2 (one domain per core).  Factoring
# without locality (the plain row), with locality only, with locality and
# staging; umr, rumr and af (locality and staging on); the compiler's static,
# dynamic,1 and guided, side by side.  Prints each cell's lf-bench table (with
# the remote / staged fractions under it), then a summary: median, efficiency
# and time relative to the plain row lf:fac2,numa=off,stage=off.
#   scripts/bench-numa.sh [--reps R] [--fake SPEC] [--threads T] [--out DIR]
#                         [--bench PATH]
# --fake: the LF_FAKE_NUMA value [2: lat 2000 ns, 2 GB/s per domain's port];
# --out: keep the CSV and table of every cell in DIR.  A few minutes at most
# (about 20 s with the defaults on 2 cores).  Run it on an otherwise idle
# machine: it warns when the load average is above 1.5.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/help.sh
. "$top/scripts/help.sh"
bench="$top/build/normal/bench/lf-bench"
reps=15
fake=2
threads=2
out=
while [ $# -gt 0 ]; do
    case "$1" in
    --reps) reps=$2; shift 2 ;;
    --fake) fake=$2; shift 2 ;;
    --threads) threads=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    -h | --help) script_help; exit 0 ;;
    *) echo "bench-numa.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -x "$bench" ] || { echo "no $bench: run scripts/build.sh build/normal first" >&2; exit 1; }
load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) > 1.5 else 1)" "$load"; then
    echo "bench-numa.sh: warning: load average $load: other processes will disturb the timings" >&2
fi
plain="lf:fac2,numa=off,stage=off"
scheds="omp:static,omp:dynamic,1,omp:guided,$plain,lf:fac2,stage=off,lf:fac2,lf:umr,lf:rumr,lf:af"
if [ -n "$out" ]; then
    mkdir -p "$out"
    dir=$out
else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
fi
for kernel in stream stencil; do
    for placement in node0 blocked; do
        echo "== $kernel, placement $placement, $threads threads, LF_FAKE_NUMA=$fake LF_BIND=close"
        LF_FAKE_NUMA=$fake LF_BIND=close "$bench" --kernel "$kernel" --placement "$placement" \
            --threads "$threads" --schedules "$scheds" --reps "$reps" --format csv \
            --out "$dir/$kernel-$placement.csv" >"$dir/$kernel-$placement.txt"
        cat "$dir/$kernel-$placement.txt"
        echo
    done
done
python3 - "$dir" "$plain" <<'PY'
import csv, os, sys
d, plain = sys.argv[1], sys.argv[2]
print("Summary: median makespan, efficiency (T1 of all-local data / sum s_i / median), time")
print("relative to the plain row %s; remote / staged: fractions of iterations that read" % plain)
print("another domain's input in place / a staged copy (means over the rounds).")
print()
print("| kernel | placement | schedule | median ms | eff | vs plain | remote | staged |")
print("|---|---|---|---:|---:|---:|---:|---:|")
for kernel in ("stream", "stencil"):
    for placement in ("node0", "blocked"):
        base = os.path.join(d, "%s-%s" % (kernel, placement))
        rows = list(csv.DictReader(open(base + ".csv")))
        extra, on = {}, False
        for line in open(base + ".txt"):
            f = line.split()
            if f[:4] == ["schedule", "remote", "staged", "wait_ms"]:
                on = True
            elif on and len(f) == 4:
                extra[f[0]] = (float(f[1]), float(f[2]))
        ref = next(float(r["median_s"]) for r in rows if r["schedule"] == plain)
        for r in rows:
            m = float(r["median_s"])
            rem, stg = extra.get(r["schedule"], (float("nan"), float("nan")))
            print("| %s | %s | %s | %.2f | %.3f | %.2f | %.3f | %.3f |"
                  % (kernel, placement, r["schedule"], 1e3 * m, float(r["efficiency"]), m / ref,
                     rem, stg))
PY
