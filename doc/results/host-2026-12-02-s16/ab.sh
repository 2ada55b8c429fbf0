#!/bin/sh
# A/B of the library: head (build/normal) against base (/work/libs/base, preloaded).
cd /work/main
R=${1:-5}
r=0
while [ $r -lt $R ]; do
  for cell in "spmv 32 1200000 dedicated" "spmv 32 1200000 hog" "spmv 32 1200000 biglittle" "spmv 32 1200000 varying" \
              "random 500 0 hog" "random 500 0 biglittle" "triangle 500 0 biglittle" "mandelbrot 256 0 hog" \
              "graph 16 20000 hog" "graph 16 20000 biglittle" "calcium 100 15000 biglittle" "spin 500 0 biglittle" "stencil 512 0 hog" "spmv 8 0 hog"; do
    set -- $cell
    nopt=; [ "$3" != 0 ] && nopt="--n $3"
    for v in head base; do
      [ $((r % 2)) = 1 ] && v=$( [ $v = head ] && echo base || echo head )
      pre=; [ $v = base ] && pre=/work/libs/base/libloopfarm.so.0
      LD_PRELOAD=$pre build/normal/bench/lf-bench --kernel $1 --grain $2 $nopt --threads 2 --scenario $4 --reps 7 --execs 10 --schedules lf:auto,lf:multi 2>/dev/null | grep " lf:" | sed "s/^/$r $v /"
    done
  done
  r=$((r+1))
done
