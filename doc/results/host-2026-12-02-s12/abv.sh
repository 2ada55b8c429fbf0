#!/bin/sh
# abv.sh ROUNDS SETTING CASE...: the program's own schedule (own, own2: the A/A row) against
# variants of the shim named in $V (space separated NAME=LIB/SCHEDULE: the shim and library
# under /work/libs/LIB/, run with LF_SCHEDULE=SCHEDULE), rounds interleaved and reversed every
# other round.  SETTING: dedicated or hog (a busy process pinned to core 1).  CASE:
# graph:KERNEL:TRIALS:SCALE or loops:CASE:SIZE.  Prints "setting case variant ms" lines.
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
    *) spec=$(for p in $V; do [ "${p%%=*}" = "$v" ] && echo "${p#*=}"; done)
       lib=${spec%%/*} sch=${spec#*/}
       out=$(OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD="/work/libs/$lib/libloopfarm.so.0 /work/libs/$lib/libloopfarm-gomp.so" LF_SCHEDULE="$sch" $cmd 2>&1) ;;
    esac
    if [ "$kind" = graph ]; then ms=$(printf '%s\n' "$out" | tail -1 | awk '{print $7}')
    else ms=$(printf '%s\n' "$out" | awk 'NR == 2 { print $5 }'); fi
    echo "$setting $c $v $ms"
}
names=$(for p in $V; do printf '%s ' "${p%%=*}"; done)
rev=$(for n in $names; do echo "$n"; done | tac | tr '\n' ' ')
[ "$setting" = hog ] && { taskset -c 1 sh -c 'while :; do :; done' & hog=$!; }
for c in "$@"; do
    for i in $(seq "$R"); do
        if [ $((i % 2)) = 1 ]; then o="own $names own2"; else o="own2 $rev own"; fi
        for v in $o; do run $v "$c"; done
    done
done
[ -n "$hog" ] && kill $hog
