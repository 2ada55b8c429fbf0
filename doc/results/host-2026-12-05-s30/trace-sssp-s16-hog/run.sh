#!/bin/sh
# sssp at 2^16 vertices, 40 trials, beside a busy process on CPU 1: the program's own
# schedule and auto through the shim (LF_VERBOSE=1) alternated, 3 pairs.  Run from the
# repository root of a normal build.
taskset -c 1 sh -c 'while :; do :; done' & HOG=$!
for r in 1 2 3; do
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true build/normal/bench/lf-graph-cxx --scale 16 \
        --kernels sssp:40 --no-check 2>&1 | awk 'NR>1{print "own", $1, $7}'
    OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD=$PWD/build/normal/.libs/libloopfarm-gomp.so \
        LF_SCHEDULE=auto LF_VERBOSE=1 build/normal/bench/lf-graph-cxx --scale 16 --kernels sssp:40 \
        --no-check >"$(dirname "$0")/auto-$r.txt" 2>&1
    grep -v "^loopfarm" "$(dirname "$0")/auto-$r.txt" | awk 'NR>1{print "auto", $1, $7}'
done
kill $HOG
