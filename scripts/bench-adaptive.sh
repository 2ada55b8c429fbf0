#!/bin/sh
# scripts/bench-adaptive.sh - the adaptive schedules' benchmark: 2 threads
# (or --threads T) under a busy process pinned to one core (hog) and under an
# emulated big/little pair (one thread's iterations 3x as costly), at fine
# (20 ns), medium (500 ns) and coarse (50 us) iterations; loopfarm's multi and
# dealdyn against the compiler's static, dynamic,1 and guided, side by side.
# Prints one table per cell, then a summary: multi's efficiency and its time
# relative to the best compiler schedule of the cell.
#   scripts/bench-adaptive.sh [--threads T] [--reps R] [--bench PATH]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/help.sh
. "$top/scripts/help.sh"
bench="$top/build/normal/bench/lf-bench"
threads=$(nproc)
reps=9
while [ $# -gt 0 ]; do
    case "$1" in
    --threads) threads=$2; shift 2 ;;
    --reps) reps=$2; shift 2 ;;
    --bench) bench=$2; shift 2 ;;
    -h | --help) script_help; exit 0 ;;
    *) echo "bench-adaptive.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -x "$bench" ] || { echo "no $bench: run scripts/build.sh build/normal first" >&2; exit 1; }
scheds=omp:static,omp:dynamic,1,omp:guided,lf:multi,lf:dealdyn
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for scen in hog biglittle; do
    for grain in 20 500 50000; do
        echo "== $scen, grain $grain ns, $threads threads" >&2
        "$bench" --kernel spin --grain "$grain" --threads "$threads" --scenario "$scen" \
            --little 1 --factor 3 --schedules "$scheds" --reps "$reps" \
            --out "$dir/$scen-$grain.csv" --format csv >&2
    done
done
python3 - "$dir" <<'PY'
import csv, glob, os, sys
print(f"{'scenario':10s} {'grain_ns':>8s}  {'schedule':14s} {'median_s':>9s} {'efficiency':>10s} {'vs_best_omp':>11s}")
worst_eff, worst_rel = 9.0, 0.0
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    rows = list(csv.DictReader(open(path)))
    best = min(float(r["median_s"]) for r in rows if r["schedule"].startswith("omp:"))
    for r in rows:
        rel = float(r["median_s"]) / best
        print(f"{r['scenario']:10s} {r['grain']:>8s}  {r['schedule']:14s} {float(r['median_s']):9.4f}"
              f" {float(r['efficiency']):10.3f} {rel:11.3f}")
        if r["schedule"] == "lf:multi":
            worst_eff, worst_rel = min(worst_eff, float(r["efficiency"])), max(worst_rel, rel)
print(f"lf:multi: lowest efficiency {worst_eff:.3f} (target >= 0.93); "
      f"worst time relative to the best compiler schedule {worst_rel:.3f} (target <= 1.03)")
PY
