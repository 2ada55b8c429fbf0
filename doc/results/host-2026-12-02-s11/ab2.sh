#!/bin/sh
# ab2.sh ROUNDS SETTING CASE...: the program's own schedule (own, own2: the A/A row) against
# two builds of the shim under LF_SCHEDULE=auto, $A and $B (default oldsel: every trial sample
# against the chosen plan's latest samples; near: against its samples within a factor of 2 of
# its trip count; range: in its power-of-two range of trip counts), rounds interleaved and
# reversed every other round.  SETTING: dedicated or hog (a busy process
# pinned to core 1).  CASE: graph:KERNEL:TRIALS:SCALE or loops:CASE:SIZE.  Prints
# "setting case variant ms" lines.  Libraries: /work/libs/VARIANT/.
A=${A:-oldsel} B2=${B:-near}
B=/work/main/build/normal
R=$1 setting=$2
shift 2
run() { # variant case
    set -- "$1" $(echo "$2" | tr : ' ')
    v=$1 kind=$2
    if [ "$kind" = graph ]; then cmd="$B/bench/lf-graph-cxx --scale $5 --kernels $3:$4 --no-check"
    else cmd="$B/bench/lf-suite-loops --case $3 --size $4"; fi
    case $v in
    own*) out=$(OMP_NUM_THREADS=2 OMP_PROC_BIND=true $cmd 2>&1) ;;
    *) out=$(OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD="/work/libs/$v/libloopfarm.so.0 /work/libs/$v/libloopfarm-gomp.so" LF_SCHEDULE=auto $cmd 2>&1) ;;
    esac
    if [ "$kind" = graph ]; then ms=$(printf '%s\n' "$out" | tail -1 | awk '{print $7}')
    else ms=$(printf '%s\n' "$out" | awk 'NR == 2 { print $5 }'); fi
    echo "$setting $c $v $ms"
}
[ "$setting" = hog ] && { taskset -c 1 sh -c 'while :; do :; done' & hog=$!; }
for c in "$@"; do
    for i in $(seq "$R"); do
        if [ $((i % 2)) = 1 ]; then o="own $A $B2 own2"; else o="own2 $B2 $A own"; fi
        for v in $o; do run $v "$c"; done
    done
done
[ -n "$hog" ] && kill $hog
