#!/bin/sh
# scripts/bench-static.sh BUILDDIR [ROUNDS] [SCENARIOS...] [CLASSES...] - libomp's static schedule
# against libloopfarm-kmp's weighted static (LF_REPLACE=static:weighted) on the same clang-built
# binary (bench/lf-kmp-static: a stencil sweep, a dense matrix-vector product and an irregular
# loop of fixed per-iteration costs, each a `parallel for` with no schedule clause), with LLVM's
# own nonmonotonic:dynamic (static_steal) beside them, 2 threads bound one per CPU.
#
# Rows: libomp static; libomp static again (the A/A row: how far two identical runs differ);
# static:weighted (preloaded); nonmonotonic:dynamic (bare, lf-kmp-static --loop steal).
# Scenarios (default: all three): dedicated; hog (a process spinning on the last core);
# varying (a process on the last core spinning half of each 50 ms and sleeping the rest).
# Size classes (default: both): short, the program's default sizes (executions of about 0.3,
# 0.7 and 3.4 ms on two dedicated cores of the development machine, shorter than a busy core's
# time slice), and long (grids and trip counts whose executions last 13 to 35 ms there), each
# run over 100 ms.
# Every round runs each (scenario, case) row once, in an order that rotates with the round,
# so that drift of the machine hits every row alike.  The table gives each row's median run
# time with its quartiles and its ratio to libomp static's median; the raw times go to
# BUILDDIR/bench-static.csv.  A benchmark for a quiet machine: never part of make check.
# Binding: OMP_PLACES=threads, one place per logical CPU.  libomp groups logical CPUs into
# cores from CPUID, which on some virtual machines reports all of them as one core's
# hyperthreads: there OMP_PLACES=cores makes a single place and no thread is bound, so threads
# migrate between the busy core and the free one and no per-thread speed holds.
# Duration: about ROUNDS x 25 s for the short class and ROUNDS x 60 s for the long one, over
# the three scenarios (11 rounds of both: about 16 minutes).
. "$(dirname "$0")/help.sh"
set -u
build=$(cd "${1:?usage: bench-static.sh BUILDDIR [ROUNDS] [SCENARIOS...] [CLASSES...]}" && pwd)
rounds=${2:-11}
shift 2 2>/dev/null || shift $#
exe="$build/bench/lf-kmp-static"
shim="$build/.libs/libloopfarm-kmp.so"
[ -x "$exe" ] && [ -f "$shim" ] || {
    echo "bench-static: build $exe and $shim first (needs clang with libomp)" >&2
    exit 1
}
scenarios=
classes=
for w in "$@"; do
    case $w in
    dedicated | hog | varying) scenarios="$scenarios $w" ;;
    short | long) classes="$classes $w" ;;
    *)
        echo "bench-static: \"$w\" is neither a scenario (dedicated, hog, varying) nor a size class (short, long)" >&2
        exit 1 ;;
    esac
done
scenarios=${scenarios:-dedicated hog varying}
classes=${classes:-short long}
# Cases: kernel:size:executions.
cases=
for c in $classes; do
    case $c in
    short) cases="$cases stencil:1024:300 matvec:1536:150 irregular:20000:100" ;;
    long) cases="$cases stencil:6144:60 matvec:6144:60 irregular:200000:60" ;;
    esac
done
rows="static static-AA weighted steal"
csv="$build/bench-static.csv"
echo "round,scenario,case,row,time_s" >"$csv"
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_PLACES=threads
unset LF_SCHEDULE LF_REPLACE LF_VERBOSE LF_TRACE

# One run of row on case (kernel:size:executions) under scenario: its time in seconds.
run() {
    row=$1 kernel=${2%%:*} rest=${2#*:}
    set -- --kernel "$kernel" --load "$3" --size "${rest%%:*}" --reps "${rest#*:}"
    case $row in
    static | static-AA) "$exe" "$@" ;;
    weighted) LD_PRELOAD="$shim" LF_REPLACE=static:weighted "$exe" "$@" ;;
    steal) "$exe" "$@" --loop steal ;;
    esac | awk '{ for (i = 1; i < NF; i++) if ($i == "time_s") print $(i + 1) }'
}

r=0
while [ "$r" -lt "$rounds" ]; do
    for s in $scenarios; do
        for k in $cases; do
            # Rotate the rows' order with the round.
            set -- $rows
            i=0
            while [ $i -lt $((r % 4)) ]; do
                first=$1
                shift
                set -- "$@" "$first"
                i=$((i + 1))
            done
            for row in "$@"; do
                t=$(run "$row" "$k" "$s")
                [ -n "$t" ] || { echo "bench-static: $row $k $s produced no time" >&2; exit 1; }
                echo "$r,$s,$k,$row,$t" >>"$csv"
            done
        done
    done
    r=$((r + 1))
done

printf '%-10s %-20s %-22s %10s %10s %10s %8s\n' scenario case row median q1 q3 "/static"
for s in $scenarios; do
    for k in $cases; do
        base=$(awk -F, -v s="$s" -v k="$k" '$2 == s && $3 == k && $4 == "static" { print $5 }' "$csv" |
            sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
        for row in $rows; do
            name=$row
            case $row in
            static) name="libomp static" ;;
            static-AA) name="libomp static (A/A)" ;;
            weighted) name="static:weighted" ;;
            steal) name="nonmonotonic:dynamic" ;;
            esac
            awk -F, -v s="$s" -v k="$k" -v row="$row" '$2 == s && $3 == k && $4 == row { print $5 }' "$csv" |
                sort -g | awk -v s="$s" -v k="$k" -v name="$name" -v base="$base" '
                { v[NR] = $1 }
                function q(p,   x, i) { x = 1 + (NR - 1) * p; i = int(x); return v[i] + (x - i) * (v[(i < NR) ? i + 1 : i] - v[i]) }
                END { if (!NR) exit; m = q(0.5)
                      printf "%-10s %-20s %-22s %10.4f %10.4f %10.4f %8.3f\n", s, k, name, m, q(0.25), q(0.75), (base > 0) ? m / base : 0 }'
        done
    done
done
echo "raw times: $csv"
