#!/bin/sh
# Device run 3: why auto lost at sssp-s17 and bc-s17 (16 threads, dedicated): each site's
# plans (LF_VERBOSE=1) beside bare runs, then those cases again at 9 rounds.
top=$(pwd); d=$top/.devrun
export LD_LIBRARY_PATH=$d/b/lib OMP_NUM_THREADS=16 OMP_PROC_BIND=true
R=/tmp/devr3; rm -rf $R; mkdir -p $R
g=$d/build/bench/lf-graph-cxx; shim=$d/build/.libs/libloopfarm-gomp.so
for s in 17 19; do
  for v in own auto own auto; do
    if [ $v = auto ]; then
      LF_SCHEDULE=auto LF_VERBOSE=1 LD_PRELOAD=$shim timeout 40 $g --scale $s --kernels sssp:20,bc:8 --no-check >>$R/verbose-s$s.txt 2>&1
    else
      timeout 40 $g --scale $s --kernels sssp:20,bc:8 --no-check >>$R/verbose-s$s.txt 2>&1
    fi
    echo "== $v rc=$?" >>$R/verbose-s$s.txt
  done
done
date -u +%T >$R/log.txt
timeout 150 sh scripts/bench-suite.sh --build "$d/build" --threads 16 --rounds 9 \
  --scales 17 --cases sssp,bc --settings dedicated --out "$R/sg" >"$R/suite-graph.txt" 2>&1
echo "rc=$? $(date -u +%T)" >>$R/log.txt
tar czf "$OUT/r3.tgz" -C /tmp devr3
grep -E "geometric|^(bfs|sssp|bc)" $R/suite-graph.txt; cat $R/log.txt
