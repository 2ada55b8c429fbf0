#!/bin/sh
# acceptance checks at the tree's library: claim cost, start-up, fine-grained big/little
cd /work/main
O=/work/acc24; mkdir -p $O
B=build/normal/bench
for i in 1 2 3; do $B/lf-claim-cost --threads 1,2 --reps 41; echo; done > $O/claim.txt 2>&1
for i in 1 2 3; do scripts/bench-startup.sh build/normal 201; echo; done > $O/startup-201x3.txt 2>&1
for g in 40 20; do for i in 1 2 3 4 5; do
  $B/lf-bench --kernel spin --n 5000000 --grain $g --threads 2 --scenario biglittle --reps 5 --execs 10 --schedules omp:guided,lf:auto
done; done > $O/finegrained.txt 2>&1
echo done > $O/status
