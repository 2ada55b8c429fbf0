#!/bin/sh
# Session 18's measurements after the -e 10 matrix, back to back, nothing else running:
# the -e 1 matrix, claim cost, start-up, fine-grained big/little at G = 20 and 40.
set -e
cd "$(dirname "$0")/../../.."
d=doc/results/host-2026-12-03-s18
date -u +"e1 %T"
LF_MATRIX_SCHEDULES=omp:dynamic,1,omp:guided,libomp:static_steal,lb4omp:af,tbb:auto,lf:auto,lf:multi,lf:af,lf:auto,plan=dealt \
    scripts/bench-matrix.sh -o $d/matrix-e1 -r 7 -e 1 > $d/matrix-e1.txt 2>&1
date -u +"claim %T"
for k in 1 2 3; do
    build/normal/bench/lf-claim-cost --threads 1,2 --reps 41
done > $d/claim.txt 2>&1
date -u +"startup %T"
for k in 1 2 3; do
    scripts/bench-startup.sh build/normal 201
done > $d/startup-201x3.txt 2>&1
date -u +"finegrained %T"
for k in 1 2 3 4 5 6 7; do
    echo "== process $k $(date -u +%T)"
    build/normal/bench/lf-bench --kernel spin --n 5000000 --grain 20 --threads 2 \
        --scenario biglittle --reps 5 --execs 10 --schedules omp:guided,lf:auto
done > $d/finegrained.txt 2>&1
for k in 1 2 3 4 5; do
    echo "== process $k $(date -u +%T)"
    build/normal/bench/lf-bench --kernel spin --n 5000000 --grain 40 --threads 2 \
        --scenario biglittle --reps 5 --execs 10 --schedules omp:guided,lf:auto
done > $d/finegrained-g40.txt 2>&1
date -u +"done %T"
