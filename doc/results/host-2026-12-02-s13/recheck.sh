#!/bin/sh
# after the off-suite run: the first-execution matrix, fine-grained big/little, claim cost, start-up at HEAD
cd "$(dirname "$0")/../../.." || exit 1
R=doc/results/host-2026-12-02-s13
B=build/normal/bench
date -u
LF_MATRIX_SCHEDULES=omp:dynamic,1,omp:guided,libomp:static_steal,lb4omp:af,tbb:auto,lf:auto,lf:multi,lf:af,lf:auto,plan=dealt \
  scripts/bench-matrix.sh -o $R/matrix-e1 -r 7 -e 1 > $R/matrix-e1.txt 2>&1
date -u
: > $R/finegrained.txt
for g in 20 40; do for run in 1 2 3 4 5; do
  $B/lf-bench --kernel spin --n 5000000 --grain $g --threads 2 --scenario biglittle --reps 5 --execs 10 --schedules omp:guided,lf:auto 2>&1 | grep -E "omp:guided|lf:auto" | sed "s/^/grain=$g run=$run /" >> $R/finegrained.txt
done; done
date -u
{ $B/lf-claim-cost --threads 1,2 --reps 41; $B/lf-claim-cost --threads 2 --reps 41; } > $R/claim.txt 2>&1
date -u
for k in 1 2 3; do scripts/bench-startup.sh build/normal 201; done > $R/startup-201x3.txt 2>&1
date -u
