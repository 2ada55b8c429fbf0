#!/bin/sh
# interleaved: own and auto with plans forced; sssp-s16 8 trials under a hog on cpu 1
k=${1:-sssp}; s=${2:-16}; t=${3:-8}; R=${4:-9}
taskset -c 1 sh -c 'while :; do :; done' & H=$!
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true
for r in $(seq $R); do
  for v in own choose dealt own2 ownplan self; do
    case $v in own|own2) pre= ; sch= ;; choose) pre=build/normal/.libs/libloopfarm-gomp.so; sch=auto;; ownplan) pre=build/normal/.libs/libloopfarm-gomp.so; sch=auto,plan=own;; *) pre=build/normal/.libs/libloopfarm-gomp.so; sch=auto,plan=$v;; esac
    ms=$(LD_PRELOAD=$pre LF_SCHEDULE=$sch build/normal/bench/lf-graph-cxx --scale $s --kernels $k:$t --no-check | awk 'NR==2{print $7}')
    echo "$r $v $ms"
  done
done
kill $H
