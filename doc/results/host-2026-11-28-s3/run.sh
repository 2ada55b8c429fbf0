#!/bin/sh
# The session's remaining benchmarks, one after another on a quiet machine.
cd /work/main
R=doc/results/host-2026-11-28-s3
git rev-parse --short HEAD > $R/commit.txt
t() { echo "$(date -u +%H:%M:%S) $*" >> $R/console.txt; }
t start
scripts/bench-startup.sh build/normal 61 > $R/startup-61.txt 2>&1; t startup done
for sc in biglittle hog; do
  build/normal/bench/lf-bench --kernel spin --n 20000 --grain 2000 --threads 2 --scenario $sc \
    --schedules kmp:static,kmp:static,weighted,libomp:static,lf:auto --reps 7 --execs 10 >> $R/kmp-rows.txt 2>&1
done; t kmp rows done
scripts/bench-static-sweep.sh build/normal 7 hog irregular > $R/static-sweep.txt 2>&1; t sweep done
LF_MATRIX_SCHEDULES=omp:dynamic,1,omp:guided,libomp:static_steal,lb4omp:af,tbb:auto,lf:auto,lf:multi,lf:af \
  scripts/bench-matrix.sh -o $R/matrix-e1 -r 7 -e 1 > $R/matrix-e1.txt 2>&1; t matrix e1 done
