#!/bin/sh
# tests/test_graph_apps.sh - an unmodified OpenMP application (bench/lf-graph:
# BFS, PageRank, connected components with schedule(dynamic, 64 | 16384))
# gets the sequential results bare and under the preload shim with auto,
# its leases forced to steal on every claim, at 1, 2, 3 and 8 threads.
# Exit 77 when the program or the shim was not built.
top=$(pwd)
shim="$top/.libs/libloopfarm-gomp.so"
prog="$top/bench/lf-graph"
if [ ! -f "$shim" ] || [ ! -x "$prog" ]; then
    echo "test_graph_apps.sh: no shim or no lf-graph built here: skipped"
    exit 77
fi
unset LF_SCHEDULE LF_REPLACE LF_TRACE LF_VERBOSE OMP_SCHEDULE
# A sanitizer build's shim needs its sanitizer runtimes loaded first.
rts=$(ldd "$shim" 2>/dev/null | awk '/libasan/ {print $3} /lib(ub|t)san/ {u = u " " $3} END {print u}')
preload=$(echo $rts "$shim")
fails=0
for t in 1 2 3 8; do
    for sched in "" auto "auto,lease=force" "dynamic,lease=force"; do
        if [ -z "$sched" ]; then
            out=$(OMP_NUM_THREADS=$t timeout 120 "$prog" --scale 11 --trials 3 2>&1)
        else
            out=$(OMP_NUM_THREADS=$t LD_PRELOAD="$preload" LF_SCHEDULE="$sched" \
                timeout 120 "$prog" --scale 11 --trials 3 2>&1)
        fi
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL: ${sched:-libgomp}, $t threads (exit $rc)"
            printf '%s\n' "$out" | head -5 | sed 's/^/    /'
            fails=$((fails + 1))
        fi
    done
done
[ $fails -eq 0 ] && echo "ok: BFS, PageRank, CC agree with their sequential runs under auto"
[ $fails -eq 0 ]
