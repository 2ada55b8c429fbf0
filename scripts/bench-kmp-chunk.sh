#!/bin/sh
# scripts/bench-kmp-chunk.sh BUILDDIR [ROUNDS] [THREADS...] - per-chunk cost of
# libloopfarm-kmp against libomp's own schedule(dynamic, 1), on the same clang-built binary
# (bench/lf-kmp-chunk: an empty-body dynamic,1 loop of 10^6 iterations, 21 executions per
# run).  For each team size, ROUNDS (default 5) runs bare and ROUNDS preloaded with
# LF_SCHEDULE=dynamic,1 alternate; the table gives the median over the rounds of each run's
# median ns per chunk (thread time: wall time x threads / chunks) and the ratio shim / libomp,
# for both forms of the loop: plain schedule(dynamic, 1), which clang 14 marks nonmonotonic
# and libomp 14 runs as static_steal, and schedule(monotonic: dynamic, 1), libomp's classic
# dynamic path (lf-kmp-chunk --monotonic); the four runs of a round alternate.
# A benchmark for a quiet machine: never part of make check.
. "$(dirname "$0")/help.sh"
set -u
build=$(cd "${1:?usage: bench-kmp-chunk.sh BUILDDIR [ROUNDS] [THREADS...]}" && pwd)
rounds=${2:-5}
shift 2 2>/dev/null || shift $#
threads=${*:-1 2}
exe="$build/bench/lf-kmp-chunk"
shim="$build/.libs/libloopfarm-kmp.so"
[ -x "$exe" ] && [ -f "$shim" ] || { echo "bench-kmp-chunk: build $exe and $shim first (needs clang with libomp)" >&2; exit 1; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-8s %-20s %12s %12s %8s\n' threads loop "libomp ns" "shim ns" ratio
for t in $threads; do
    for f in plain monotonic; do : >"$build/kmp-bare.$t.$f"; : >"$build/kmp-shim.$t.$f"; done
    r=0
    while [ $r -lt "$rounds" ]; do
        for f in plain monotonic; do
            opt=""
            [ $f = monotonic ] && opt=--monotonic
            OMP_NUM_THREADS=$t "$exe" $opt | awk '{ print $2 }' >>"$build/kmp-bare.$t.$f"
            OMP_NUM_THREADS=$t LD_PRELOAD="$shim" LF_SCHEDULE=dynamic,1 "$exe" $opt |
                awk '{ print $2 }' >>"$build/kmp-shim.$t.$f"
        done
        r=$((r + 1))
    done
    for f in plain monotonic; do
        b=$(median <"$build/kmp-bare.$t.$f")
        s=$(median <"$build/kmp-shim.$t.$f")
        loop="dynamic,1"
        [ $f = monotonic ] && loop="monotonic:dynamic,1"
        printf '%-8s %-20s %12.2f %12.2f %8.2f\n' "$t" "$loop" "$b" "$s" \
            "$(echo "$s $b" | awk '{ print ($2 > 0) ? $1 / $2 : 0 }')"
        rm -f "$build/kmp-bare.$t.$f" "$build/kmp-shim.$t.$f"
    done
done
