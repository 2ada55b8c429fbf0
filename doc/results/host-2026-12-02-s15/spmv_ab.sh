#!/bin/sh
# A/B of the library: head (build/normal) against ac1abb9 (/work/libs/ac1, preloaded), spmv/32 cells.
cd /work/main
r=0
while [ $r -lt ${1:-5} ]; do
  for sc in hog dedicated; do
    for v in head ac1 ; do
      [ $((r % 2)) = 1 ] && v=$( [ $v = head ] && echo ac1 || echo head )
      pre=; [ $v = ac1 ] && pre=/work/libs/ac1/libloopfarm.so.0
      LD_PRELOAD=$pre build/normal/bench/lf-bench --kernel spmv --grain 32 --n 1200000 --threads 2 --scenario $sc --reps 7 --execs 10 --schedules lf:auto,lf:multi 2>/dev/null | grep " lf:" | sed "s/^/$r $v /"
    done
  done
  r=$((r+1))
done
