#!/bin/sh
# alternate new (main) and old (proto) lf-bench on matrix cells at -e 1
# /work/main: a build of 055d848; /work/proto: a build of 257bd3f (this host's checkouts)
for pair in 1 2 3; do
 for sc in hog biglittle dedicated; do
  for lib in new old; do
   if [ $lib = new ]; then b=/work/main/build/normal/bench/lf-bench; else b=/work/proto/build/normal/bench/lf-bench; fi
   $b --kernel spmv --grain 32 --n 1200000 --threads 2 --scenario $sc \
      --schedules omp:dynamic,1,tbb:auto,lf:auto,lf:multi,omp:dynamic,1 --reps 7 --execs ${EXECS:-1} \
      --format csv --out /work/ab/$lib-$sc-$pair.csv >/dev/null 2>&1
   echo "$pair $sc $lib done $(date +%T)"
  done
 done
done
