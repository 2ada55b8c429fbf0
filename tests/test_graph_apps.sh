#!/bin/sh
# tests/test_graph_apps.sh - an unmodified OpenMP application (bench/lf-graph:
# the GAP benchmark's BFS, PageRank, connected components, SSSP, BC and triangle
# counting with schedule(dynamic, 64 | 16384)) gets the sequential results bare and
# under the preload shim with auto, its leases forced to steal on every claim, at 1,
# 2, 3 and 8 threads; lf-graph --alternate (the shim switched off and on in one
# process) runs, and refuses without it; --kernels runs the kernels named, with
# their own trials when given, and refuses others.
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
            out=$(OMP_NUM_THREADS=$t timeout 120 "$prog" --scale 11 --trials 3 --kernels all 2>&1)
        else
            out=$(OMP_NUM_THREADS=$t LD_PRELOAD="$preload" LF_SCHEDULE="$sched" \
                timeout 120 "$prog" --scale 11 --trials 3 --kernels all 2>&1)
        fi
        rc=$?
        if [ $rc -ne 0 ]; then
            echo "FAIL: ${sched:-libgomp}, $t threads (exit $rc)"
            printf '%s\n' "$out" | head -5 | sed 's/^/    /'
            fails=$((fails + 1))
        fi
    done
done
# --alternate: the shim switched off and on in one process, both results checked, a row per
# kernel with the on/off ratio, the summed-time ratio and the block ratios; with one block of
# all the counted trials (--trials 5 --block 4) the block ratio is the summed-time ratio, and
# with too few trials for half a block it reads "-".  Refused (exit 2) without the shim or
# without a schedule, with a block of 0, and --block without --alternate.
for args in "--trials 5 --block 4" "--trials 3"; do
    # shellcheck disable=SC2086 # $args is a list of options
    out=$(OMP_NUM_THREADS=2 LD_PRELOAD="$preload" LF_SCHEDULE=auto \
        timeout 120 "$prog" --scale 11 $args --alternate 2>&1)
    rc=$?
    case $args in *--block*) one=1 ;; *) one= ;; esac
    rows=$(printf '%s\n' "$out" | awk -v one="$one" '
        NR == 1 && $7 == "on/off" && $10 == "total" && $11 == "blk" { h = 1 }
        NR > 1 && NF == 13 && $10 > 0 && (one != "" ? $11 == $10 && $12 == $10 : $11 == "-") { r++ }
        END { print h + 0, r + 0 }')
    if [ $rc -ne 0 ] || [ "$rows" != "1 3" ]; then
        echo "FAIL: --alternate $args under the shim (exit $rc, header and rows $rows, expected 1 3)"
        printf '%s\n' "$out" | head -5 | sed 's/^/    /'
        fails=$((fails + 1))
    fi
done
out=$(OMP_NUM_THREADS=2 LD_PRELOAD="$preload" LF_SCHEDULE=auto \
    timeout 120 "$prog" --scale 11 --trials 3 --alternate --block 0 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q -- "--block: expected an integer"; then
    echo "FAIL: --block 0: exit $rc, expected 2 and a message"
    fails=$((fails + 1))
fi
out=$(OMP_NUM_THREADS=2 timeout 120 "$prog" --scale 11 --trials 3 --block 2 2>&1)
rc=$?
if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q -- "give --alternate too"; then
    echo "FAIL: --block without --alternate: exit $rc, expected 2 and a message"
    fails=$((fails + 1))
fi
# --kernels: only the kernels named, in the usual order (their results still checked, so a
# wrong one exits 3), with or without --alternate; an unknown name, an empty item, a bad trial count or a missing
# list is refused (exit 2) naming the choices.
for args in "--kernels cc,bfs" "--kernels pagerank --alternate" "--kernels tc:1,sssp:2,bc"; do
    # shellcheck disable=SC2086 # $args is a list of options
    out=$(OMP_NUM_THREADS=2 LD_PRELOAD="$preload" LF_SCHEDULE=auto \
        timeout 120 "$prog" --scale 11 --trials 3 $args 2>&1)
    rc=$?
    case $args in *pagerank*) want=pagerank ;; *tc*) want="sssp bc tc" ;; *) want="bfs cc" ;; esac
    got=$(printf '%s\n' "$out" | awk 'NR > 1 { printf "%s%s", s, $1; s = " " }')
    if [ $rc -ne 0 ] || [ "$got" != "$want" ]; then
        echo "FAIL: $args: exit $rc, rows '$got', expected '$want'"
        printf '%s\n' "$out" | head -5 | sed 's/^/    /'
        fails=$((fails + 1))
    fi
done
for list in "bfs,sp" "bfs," "bfs:0" "tc:x" ""; do
    if [ -n "$list" ]; then
        out=$(OMP_NUM_THREADS=2 timeout 120 "$prog" --scale 11 --trials 3 --kernels "$list" 2>&1)
    else
        out=$(OMP_NUM_THREADS=2 timeout 120 "$prog" --scale 11 --trials 3 --kernels 2>&1)
    fi
    rc=$?
    case $list in *:*) msg="expected name:T" ;; *) msg="list of bfs, pagerank, cc, sssp, bc and tc" ;; esac
    if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q "$msg"; then
        echo "FAIL: --kernels '$list': exit $rc, expected 2 and a message naming the kernels"
        fails=$((fails + 1))
    fi
done
for pre in "" "$preload"; do
    out=$(OMP_NUM_THREADS=2 LD_PRELOAD="$pre" timeout 120 "$prog" --scale 11 --trials 3 --alternate 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q "needs the preload shim"; then
        echo "FAIL: --alternate ${pre:+with the shim but }without a schedule: exit $rc, expected 2 and a message"
        fails=$((fails + 1))
    fi
done
[ $fails -eq 0 ] && echo "ok: BFS, PageRank, CC, SSSP, BC, TC agree with their sequential runs under auto"
[ $fails -eq 0 ]
