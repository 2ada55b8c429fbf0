#!/bin/sh
# Session 19's measurements after the suite and its rerun, back to back, nothing else
# running: the -e 1 matrix, then claim cost.
set -e
cd "$(dirname "$0")/../../.."
d=doc/results/host-2026-12-03-s19
date -u +"e1 %T"
LF_MATRIX_SCHEDULES=omp:dynamic,1,omp:guided,libomp:static_steal,lb4omp:af,tbb:auto,lf:auto,lf:multi,lf:af,lf:auto,plan=dealt \
    scripts/bench-matrix.sh -o $d/matrix-e1 -r 7 -e 1 > $d/matrix-e1.txt 2>&1
date -u +"claim %T"
for k in 1 2 3; do
    build/normal/bench/lf-claim-cost --threads 1,2 --reps 41
done > $d/claim.txt 2>&1
date -u +"done %T"
