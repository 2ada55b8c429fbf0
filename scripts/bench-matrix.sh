#!/bin/sh
# scripts/bench-matrix.sh - the robustness matrix: kernels x scenarios, every
# cell one lf-bench run with rows of five runtimes side by side (libgomp omp:,
# LLVM libomp:, LB4OMP lb4omp:, oneTBB tbb:, loopfarm lf:), rounds
# interleaved across them, each row against the T1 of its own process
# (lf-bench --t1 own).  Then per schedule: its worst efficiency over the
# cells, the geometric means of its efficiencies and of its ratios to the
# best row of each cell (vs_best), its worst vs_best, in how many cells it
# reached 0.95 and 0.90 of the best and how many it won (also against one
# T1 for all rows); and for each lf: schedule, its ratio to the best peer
# row (any other runtime) cell by cell.  About 30 minutes on a quiet
# 2-core machine for BENCHMARKS.md's nine rows at -r 3 -e 10, 17 for its
# sixteen at -r 5 -e 1; run it when nothing else is running.  Rows whose
# runtime was not built are skipped by lf-bench with one line each.
#
#   scripts/bench-matrix.sh [-b LF_BENCH] [-o OUTDIR] [-r REPS] [-t THREADS] [-e EXECS]
#                           [--plot] [--quick]
#   scripts/bench-matrix.sh --from CSV [-o OUTDIR] [--plot]
#
#   -b  the lf-bench to run      [build/normal/bench/lf-bench]
#   -o  where results go          [bench-matrix-DATE]: matrix.csv (every row),
#                                 summary.txt, summary-one-t1.txt, lf-vs-peers.txt
#   -r  measured rounds per run   [5]
#   -t  threads                   [nproc]
#   -e  executions of the loop per measurement (lf-bench --execs)  [1]
#   --plot   also draw ratios.png: the heat map of vs_best (rows: schedules,
#            columns: cells) and efficiency.png (needs gnuplot)
#   --quick  sizes / 50 and 1 round: a smoke test of the script (seconds)
#   --from   run nothing: summarise (and with --plot draw) a matrix.csv that
#            an earlier run wrote, e.g. a committed one under doc/results/
# Besides the summaries, OUTDIR gets headline.md: lf:auto and every peer row
# (libgomp, libomp, LB4OMP, oneTBB) as the rows of README.md's headline table,
# and cells.txt: per cell, lf:auto against the best row by efficiency and by
# time, beside the cell's A/A ratio: every run ends with a second copy of its
# first schedule (LF_MATRIX_AA names another; "none" leaves it out), and the
# ratio of the two copies' median times is what a percent means in that cell.
# A cell where auto's difference to the best is within that A/A ratio is
# marked "noise", not a win or a loss; when the best row ran in another
# process, the band widens by how far that process's T1 lay from auto's.
# LF_MATRIX_SCHEDULES overrides the schedule list, LF_MATRIX_SCENARIOS the
# scenarios, LF_MATRIX_KERNELS the kernels (names, e.g. "spin graph", or
# kernel/grain for one cell size, e.g. "spin/20"; "spin/500 spin/50000"
# leaves spin/20 out), LF_MATRIX_ARGS adds lf-bench options to every run
# (e.g. "--procs 2", or "--t1 one" for one T1 per cell).
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
bench=$top/build/normal/bench/lf-bench
out=bench-matrix-$(date +%Y%m%d-%H%M%S)
reps=5
execs=1
threads=$(nproc)
scale=1
plot=0
from=
# shellcheck source=scripts/help.sh
. "$top/scripts/help.sh"
need() { [ $# -ge 2 ] || { echo "bench-matrix.sh: $1 needs a value (try --help)" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case $1 in
    -b) need "$@"; bench=$2; shift 2 ;;
    -o) need "$@"; out=$2; shift 2 ;;
    -r) need "$@"; reps=$2; shift 2 ;;
    -t) need "$@"; threads=$2; shift 2 ;;
    -e) need "$@"; execs=$2; shift 2 ;;
    --plot) plot=1; shift ;;
    --quick) scale=50; reps=1; shift ;;
    --from) need "$@"; from=$2; shift 2 ;;
    -h | --help) script_help; exit 0 ;;
    *) echo "bench-matrix.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
    esac
done
if [ -n "$from" ] && [ ! -s "$from" ]; then
    echo "bench-matrix.sh: --from $from: expected a matrix.csv that lf-bench wrote" >&2
    exit 2
fi
if [ -z "$from" ] && [ ! -x "$bench" ]; then
    echo "bench-matrix.sh: $bench not found; build (scripts/build.sh build/normal) or pass -b" >&2
    exit 2
fi
if [ $plot = 1 ] && ! command -v gnuplot >/dev/null 2>&1; then
    echo "bench-matrix.sh: --plot needs gnuplot (scripts/deps.sh installs it)" >&2
    exit 2
fi

# Each runtime's schedules that did best here, and loopfarm's.
all=omp:static,omp:dynamic,1,omp:guided
all=$all,libomp:dynamic,1,libomp:guided,libomp:static_steal
all=$all,lb4omp:fac2a,lb4omp:awf_b,lb4omp:af,lb4omp:af_a,lb4omp:tfss,lb4omp:mfsc
all=$all,tbb:auto,tbb:simple,tbb:affinity
all=$all,lf:dynamic,lf:guided,lf:fac2,lf:af,lf:awf-b,lf:multi,lf:dealdyn
# the default, and factoring with leases (the hostage case of issue 17)
all=$all,lf:auto,lf:fac2,lease=on,lf:af,lease=on
scheds=${LF_MATRIX_SCHEDULES:-$all}
aa=${LF_MATRIX_AA:-${scheds%%,[a-z]*:*}}
[ "$aa" = none ] || scheds=$scheds,$aa

# kernel grain n: sized so T1 is ~200 ms (a 2-thread loop ~100-150 ms).
configs="spin 20 10000000
spin 500 400000
spin 50000 4000
mandelbrot 256 7500
spmv 32 1200000
calcium 100 15000
graph 16 20000"
if [ -n "${LF_MATRIX_KERNELS:-}" ]; then
    configs=$(echo "$configs" | while read -r k g n; do
        case " $LF_MATRIX_KERNELS " in *" $k "* | *" $k/$g "*) echo "$k $g $n" ;; esac
    done)
    if [ -z "$configs" ]; then
        echo "bench-matrix.sh: LF_MATRIX_KERNELS='$LF_MATRIX_KERNELS' names no kernel of the matrix" \
            "(spin mandelbrot spmv calcium graph, or kernel/grain: spin/20 spin/500 spin/50000 ...)" >&2
        exit 2
    fi
fi
scenarios=${LF_MATRIX_SCENARIOS:-dedicated hog biglittle varying}

mkdir -p "$out"
start=$(date +%s)
if [ -n "$from" ]; then
    csv=$from
else
    csv=$out/matrix.csv
    : >"$csv"
    total=$(($(echo "$configs" | wc -l) * $(echo $scenarios | wc -w)))
    run=0
    echo "$configs" | while read -r kernel grain n; do
        n=$((n / scale))
        for scenario in $scenarios; do
            run=$((run + 1))
            elapsed=$(($(date +%s) - start))
            echo "[$run/$total] $kernel grain=$grain n=$n scenario=$scenario (${elapsed} s)" >&2
            # shellcheck disable=SC2086 # LF_MATRIX_ARGS: options, split into words
            "$bench" --kernel "$kernel" --grain "$grain" --n "$n" --threads "$threads" \
                --scenario "$scenario" --schedules "$scheds" --reps "$reps" --execs "$execs" \
                --format csv --out "$out/run.csv" ${LF_MATRIX_ARGS:-} >/dev/null
            if [ -s "$csv" ]; then
                tail -n +2 "$out/run.csv" >>"$csv"
            else
                cat "$out/run.csv" >"$csv"
            fi
        done
    done
    rm -f "$out/run.csv"
fi

python3 - "$csv" "$out" "$plot" <<'PYEOF'
import csv, math, os, subprocess, sys

path, out, plot = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
rows = list(csv.DictReader(open(path)))
# A schedule's second row in a cell is the cell's A/A row (the run's last
# schedule, a copy of an earlier one); it is kept apart from the ranking.
cells, scheds, at, aa = [], [], {}, {}
for r in rows:
    cell = "%s/%s/%s" % (r["kernel"], r["grain"], r["scenario"])
    if cell not in cells:
        cells.append(cell)
    if r["schedule"] not in scheds:
        scheds.append(r["schedule"])
    if (cell, r["schedule"]) in at:
        aa[cell] = (at[cell, r["schedule"]], r)
    else:
        at[cell, r["schedule"]] = r
rows = [r for c in cells for s in scheds if (c, s) in at for r in [at[c, s]]]

# The T1 of the process that ran row r (older CSVs carry only t1_s, one
# T1 for all rows).
def t1_own(r):
    return float(r.get("t1_own_s") or r["t1_s"])

def runtime(s):
    return s.split(":")[0]

# Per schedule over the cells it ran in: worst efficiency (and where), the
# geometric mean of its efficiencies and of its vs_best, the worst vs_best
# (and where), the cells where it reached 0.95 and 0.90 of the best, and
# the cells it won.  summary.txt ranks each row against its own process's
# T1 (as lf-bench --t1 own writes them); summary-one-t1.txt the same rows
# against the one T1 of the omp:/lf: rows' process (efficiency x t1_s /
# t1_own_s), so that what the per-process T1 changed shows.
def summary(eff, name):
    best = {}
    for c in cells:
        best[c] = max(eff(at[c, s]) for s in scheds if (c, s) in at)
    lines = ["%-22s %7s %7s %8s %8s %6s %6s %5s %5s  %-24s %s" % (
        "schedule", "min_eff", "geomean", "geo_vs_b", "min_vs_b", ">=.95", ">=.90", "wins", "cells",
        "min_eff at", "min_vs_best at")]
    for s in scheds:
        mine = [(eff(at[c, s]), eff(at[c, s]) / best[c], c) for c in cells if (c, s) in at]
        if not mine:
            continue
        e = min(mine)
        v = min(mine, key=lambda x: x[1])
        g = math.exp(sum(math.log(max(x[0], 1e-9)) for x in mine) / len(mine))
        gv = math.exp(sum(math.log(max(x[1], 1e-9)) for x in mine) / len(mine))
        lines.append("%-22s %7.3f %7.3f %8.3f %8.3f %6d %6d %5d %5d  %-24s %s" % (
            s, e[0], g, gv, v[1], sum(x[1] >= 0.95 for x in mine), sum(x[1] >= 0.90 for x in mine),
            sum(x[1] >= 0.99995 for x in mine), len(mine), e[2], v[2]))
    open(os.path.join(out, name), "w").write("\n".join(lines) + "\n")
    return lines

lines = summary(lambda r: float(r["efficiency"]), "summary.txt")
print("\n".join(lines))
if any(t1_own(r) != float(r["t1_s"]) for r in rows):
    summary(lambda r: float(r["efficiency"]) * float(r["t1_s"]) / t1_own(r),
            "summary-one-t1.txt")

# Each lf: schedule against the best peer row of each cell: its efficiency
# / the best peer's (> 1: loopfarm ahead; with one T1 for all rows, the
# best peer median / its median).
peer_best = {}
for c in cells:
    es = [(float(at[c, s]["efficiency"]), s) for s in scheds
          if (c, s) in at and runtime(s) != "lf"]
    if es:
        peer_best[c] = max(es)
lines = ["lf: schedules against the best peer row of each cell (lf efficiency / best peer's; > 1: "
         "loopfarm ahead)", "%-24s %-22s %s" % ("cell", "best peer", " ".join(
             "%10s" % s for s in scheds if runtime(s) == "lf"))]
for c in cells:
    if c not in peer_best:
        continue
    e, p = peer_best[c]
    lines.append("%-24s %-22s %s" % (c, p, " ".join(
        "%10.3f" % (float(at[c, s]["efficiency"]) / e) if (c, s) in at else "%10s" % "-"
        for s in scheds if runtime(s) == "lf")))
open(os.path.join(out, "lf-vs-peers.txt"), "w").write("\n".join(lines) + "\n")
print()
print("\n".join(lines))

# cells.txt: lf:auto in each cell against the best row by efficiency (each
# against its own process's T1) and by median time, the cell's A/A ratio
# (the copy's median time / the first's), and T1x: the T1 of the process
# that ran the best row by time over the T1 of auto's process (1 when both
# ran in one process). Verdict: "best" when auto is the best row by time,
# "noise" when its time ratio to the best lies within the band, else
# "loss"; "-" without an A/A row. The band is the A/A ratio's distance
# from 1 (in log), widened by T1x's for a best row of another process: the
# same-process copies cannot see how much two processes differ in speed.
if any((c, "lf:auto") in at for c in cells):
    lines = ["lf:auto per cell: vs the best row by efficiency and by time, beside the A/A ratio"
             " and the best row's process T1 over auto's",
             "%-26s %8s %-22s %8s %-22s %8s %6s %s" % (
                 "cell", "eff_vs_b", "best by efficiency", "time_vs_b", "best by time", "A/A",
                 "T1x", "verdict")]
    verdicts = {}
    for c in cells:
        if (c, "lf:auto") not in at:
            continue
        mine = at[c, "lf:auto"]
        be = max((float(at[c, s]["efficiency"]), s) for s in scheds if (c, s) in at)
        bt = min((float(at[c, s]["median_s"]), s) for s in scheds if (c, s) in at)
        ev = float(mine["efficiency"]) / be[0]
        tv = bt[0] / float(mine["median_s"])  # <= 1; 1 when auto is fastest
        x = t1_own(at[c, bt[1]]) / t1_own(mine)
        if c in aa:
            a = float(aa[c][1]["median_s"]) / float(aa[c][0]["median_s"])
            band = abs(math.log(a)) + abs(math.log(x))
            v = "best" if bt[1] == "lf:auto" else "noise" if -math.log(tv) <= band else "loss"
            astr = "%8.3f" % a
        else:
            v, astr = "-", "%8s" % "-"
        verdicts[v] = verdicts.get(v, 0) + 1
        lines.append("%-26s %8.3f %-22s %8.3f %-22s %s %6.3f %s" % (
            c, ev, be[1], tv, bt[1], astr, x, v))
    lines.append("verdicts: " + ", ".join("%s %d" % kv for kv in sorted(verdicts.items())))
    open(os.path.join(out, "cells.txt"), "w").write("\n".join(lines) + "\n")
    print()
    print("\n".join(lines))

# headline.md: the rows of README.md's headline table, lf:auto first, then
# every peer row in the order of the run; each with the geometric mean and
# the worst of its ratio to the best row of a cell (against its own
# process's T1, as summary.txt) and the cells where it reached 0.95 of it.
names = {"omp": "libgomp", "libomp": "LLVM libomp", "lb4omp": "LB4OMP", "tbb": "oneTBB",
         "lf": "loopfarm"}
best = {c: max(float(at[c, s]["efficiency"]) for s in scheds if (c, s) in at) for c in cells}
lines = ["| runtime | row | geometric mean | worst (cell) | cells >= 0.95 |",
         "|---|---|---:|---:|---:|"]
for s in [x for x in scheds if x == "lf:auto"] + [x for x in scheds if runtime(x) != "lf"]:
    mine = [(float(at[c, s]["efficiency"]) / best[c], c) for c in cells if (c, s) in at]
    g = math.exp(sum(math.log(max(v, 1e-9)) for v, _ in mine) / len(mine))
    w = min(mine)
    bold = "**" if s == "lf:auto" else ""
    lines.append("| %s | %s`%s`%s | %s%.3f%s | %.3f (%s) | %d of %d |" % (
        names.get(runtime(s), runtime(s)), bold, s, bold, bold, g, bold, w[0], w[1],
        sum(v >= 0.95 for v, _ in mine), len(mine)))
open(os.path.join(out, "headline.md"), "w").write("\n".join(lines) + "\n")

if plot:
    # The heat map: vs_best per schedule (rows) and cell (columns), the
    # peers' rows above loopfarm's with a line between them.
    order = [x for x in scheds if runtime(x) != "lf"] + [x for x in scheds if runtime(x) == "lf"]
    npeer = sum(runtime(x) != "lf" for x in scheds)
    dat = os.path.join(out, "ratios.dat")
    with open(dat, "w") as f:
        f.write("schedule " + " ".join('"%s"' % c for c in cells) + "\n")
        for s in order:
            f.write('"%s" ' % s + " ".join(at[c, s]["vs_best"] if (c, s) in at else "NaN"
                                           for c in cells) + "\n")
    gp = os.path.join(out, "ratios.gp")
    with open(gp, "w") as f:
        f.write("""set terminal pngcairo size %d,%d noenhanced font ',9'
set output '%s'
set title "lf-bench matrix: each row's efficiency / the best row's in its cell (1 = best)"
set palette defined (0.4 '#440154', 0.6 '#3b528b', 0.8 '#21918c', 0.9 '#5ec962', 0.95 '#c8e020', 1 '#fde725')
set cbrange [0.4:1]
set cblabel 'vs best'
set xtics rotate by -45 left
set yrange [] reverse
set arrow from graph 0, first %g to graph 1, first %g nohead lw 3 lc rgb 'white' front
unset key
plot '%s' matrix rowheaders columnheaders using 1:2:3 with image, \\
     '' matrix rowheaders columnheaders using 1:2:(sprintf('%%.2f', $3)):($3 < 0.75 ? 0xffffff : 0) \\
        with labels font ',7' tc rgb variable
""" % (300 + 60 * len(cells), 200 + 22 * len(scheds), os.path.join(out, "ratios.png"),
       npeer - 0.5, npeer - 0.5, dat))
    if subprocess.call(["gnuplot", gp]) == 0:
        print("plot: %s" % os.path.join(out, "ratios.png"), file=sys.stderr)
    else:
        sys.exit("bench-matrix.sh: gnuplot failed on " + gp)
PYEOF

if [ $plot = 1 ]; then
    "$top/scripts/plot-efficiency.sh" "$csv" "$out/efficiency.png" &&
        echo "plot: $out/efficiency.png" >&2
fi
echo "rows: $csv, summary: $out/summary.txt, $out/lf-vs-peers.txt ($(($(date +%s) - start)) s)" >&2
