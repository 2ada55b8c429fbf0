#!/bin/sh
# Device run: the lf-bench matrix at 16 and 8 threads (issue 17), from the
# bundle in .devbench (binaries built on the 2-core host, their libraries).
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$here/lib
log=$OUT/log.txt
{
  date -u; uname -a; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
  "$here/bin/lf-info" 2>&1 | head -40
  uptime
} >"$log" 2>&1
for t in 16 8; do
  echo "== matrix $t threads $(date -u +%T)" >>"$log"
  LF_MATRIX_SCHEDULES=${SCHEDS} timeout ${TLIM:-280} sh "$here/scripts/bench-matrix.sh" \
    -b "$here/bin/lf-bench" -o "$OUT/m$t" -r 3 -e 10 -t $t ${MATRIX_EXTRA} >>"$log" 2>&1
  echo "rc=$? $(date -u +%T)" >>"$log"
done
echo "== claim cost $(date -u +%T)" >>"$log"
timeout 25 "$here/bin/lf-claim-cost" --threads 1,2,8,16 --reps 11 >>"$log" 2>&1
echo "rc=$? $(date -u +%T)" >>"$log"
cat "$log"
