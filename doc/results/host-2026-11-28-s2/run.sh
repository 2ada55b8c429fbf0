#!/bin/sh
# The session's benchmarks, one after another on a quiet machine.
cd /work/main
R=doc/results/host-2026-11-28-s2
git rev-parse --short HEAD > $R/commit.txt
t() { echo "$(date -u +%H:%M:%S) $*" >> $R/console.txt; }
t start
scripts/bench-startup.sh build/normal 31 > $R/startup.txt 2>&1; t startup done
for i in 1 2 3 4 5; do
  build/normal/bench/lf-bench --kernel spin --n 5000000 --grain 20 --threads 2 --scenario biglittle \
     --reps 5 --execs 10 --schedules omp:guided,lf:auto >> $R/biglittle-fine.txt 2>&1
done; t fine done
build/normal/bench/lf-claim-cost --threads 1,2 --reps 41 > $R/claim.txt 2>&1
build/normal/bench/lf-claim-cost --threads 2 --reps 41 >> $R/claim.txt 2>&1; t claim done
scripts/bench-static.sh build/normal 11 > $R/static.txt 2>&1; cp build/normal/bench-static.csv $R/static.csv; t static done
scripts/bench-suite.sh --settings dedicated --cases gm-resize,gm-blur,gm-rotate,gm-swirl,pagerank-s16,sssp-s16 --scales 16 --rounds 15 --out $R/suite-recheck > $R/suite-recheck.txt 2>&1; t suite done
LF_MATRIX_SCHEDULES=omp:dynamic,1,omp:guided,libomp:static_steal,lb4omp:af,tbb:auto,lf:auto,lf:multi,lf:af \
  scripts/bench-matrix.sh -o $R/matrix -r 7 -e 10 > $R/matrix.txt 2>&1; t matrix done
