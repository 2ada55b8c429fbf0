#!/bin/sh
# usage: ab.sh ROUNDS KERNELSPEC SCALE  -> lines "variant ms"
B=/work/main/build/normal
R=$1; K=$2; S=$3
run() {
  if [ $1 = own ]; then OMP_NUM_THREADS=2 OMP_PROC_BIND=true $B/bench/lf-graph-cxx --scale $S --kernels $K --no-check | tail -1 | awk -v v=$1 '{print v, $7}'
  else OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD="/work/libs/$1/libloopfarm.so.0 /work/libs/$1/libloopfarm-gomp.so" LF_SCHEDULE=auto $B/bench/lf-graph-cxx --scale $S --kernels $K --no-check 2>&1 | tail -1| awk -v v=$1 '{print v, $7}'; fi
}
for i in $(seq $R); do
  if [ $((i%2)) = 1 ]; then o="own oldsel near own2"; else o="own2 near oldsel own"; fi
  for v in $o; do [ $v = own2 ] && { run own | sed 's/^own/own2/'; continue; }; run $v; done
done
