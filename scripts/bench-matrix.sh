#!/bin/sh
# scripts/bench-matrix.sh - the robustness matrix: kernels x scenarios x
# schedules, then each schedule's minimum efficiency over the matrix and its
# geometric mean.  About 5 minutes on a quiet 2-core machine (each loop takes
# ~50-200 ms, 5 measured rounds); run it when nothing else is running.
#
#   scripts/bench-matrix.sh [-b LF_BENCH] [-o OUTDIR] [-r REPS] [-t THREADS] [--quick]
#
#   -b  the lf-bench to run      [build/normal/bench/lf-bench]
#   -o  where results go          [bench-matrix-DATE]: matrix.csv (every row),
#                                 summary.txt, efficiency-*.png when gnuplot exists
#   -r  measured rounds per run   [5]
#   -t  threads                   [nproc]
#   --quick  sizes / 50 and 1 round: a smoke test of the script (seconds)
# LF_MATRIX_SCHEDULES overrides the schedule list.
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
bench=$top/build/normal/bench/lf-bench
out=bench-matrix-$(date +%Y%m%d-%H%M%S)
reps=5
threads=$(nproc)
scale=1
while [ $# -gt 0 ]; do
    case $1 in
    -b) bench=$2; shift 2 ;;
    -o) out=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -t) threads=$2; shift 2 ;;
    --quick) scale=50; reps=1; shift ;;
    -h | --help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-matrix.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
if [ ! -x "$bench" ]; then
    echo "bench-matrix.sh: $bench not found; build (scripts/build.sh build/normal) or pass -b" >&2
    exit 2
fi

all=omp:static,omp:dynamic,1,omp:guided,lf:dynamic,lf:guided,lf:fac2,lf:af,lf:multi,lf:dealdyn
scheds=${LF_MATRIX_SCHEDULES:-$all}

# kernel grain n: sized so T1 is ~200 ms (a 2-thread loop ~100-150 ms).
configs="spin 20 10000000
spin 500 400000
spin 50000 4000
mandelbrot 256 7500
spmv 32 1200000
calcium 100 15000"
scenarios="dedicated hog biglittle varying"

mkdir -p "$out"
csv=$out/matrix.csv
: >"$csv"
total=$(($(echo "$configs" | wc -l) * $(echo $scenarios | wc -w)))
run=0
start=$(date +%s)
echo "$configs" | while read -r kernel grain n; do
    n=$((n / scale))
    for scenario in $scenarios; do
        run=$((run + 1))
        elapsed=$(($(date +%s) - start))
        echo "[$run/$total] $kernel grain=$grain n=$n scenario=$scenario (${elapsed} s)" >&2
        "$bench" --kernel "$kernel" --grain "$grain" --n "$n" --threads "$threads" \
            --scenario "$scenario" --schedules "$scheds" --reps "$reps" \
            --format csv --out "$out/run.csv"
        if [ -s "$csv" ]; then
            tail -n +2 "$out/run.csv" >>"$csv"
        else
            cat "$out/run.csv" >"$csv"
        fi
    done
done
rm -f "$out/run.csv"

# Each schedule's minimum efficiency (and where) and geometric mean.  The
# schedule is the only quoted CSV field: split on the quotes.
awk -F'"' 'NR > 1 {
    split($1, a, ","); split($3, b, ",")
    s = $2; e = b[6] + 0
    if (!(s in n)) { order[++ns] = s; min[s] = e; where[s] = a[1] "/" a[3] "/" a[5] }
    n[s]++; lsum[s] += log(e > 0 ? e : 1e-9)
    if (e < min[s]) { min[s] = e; where[s] = a[1] "/" a[3] "/" a[5] }
}
END {
    printf "%-16s %8s %8s  %-26s %5s\n", "schedule", "min_eff", "geomean",
        "min at (kernel/grain/scen.)", "runs"
    for (i = 1; i <= ns; i++) {
        s = order[i]
        printf "%-16s %8.3f %8.3f  %-26s %5d\n", s, min[s], exp(lsum[s] / n[s]), where[s], n[s]
    }
}' "$csv" | tee "$out/summary.txt"

if command -v gnuplot >/dev/null 2>&1; then
    "$top/scripts/plot-efficiency.sh" "$csv" "$out/efficiency.png" &&
        echo "plot: $out/efficiency.png" >&2
fi
echo "rows: $csv, summary: $out/summary.txt ($(($(date +%s) - start)) s)" >&2
