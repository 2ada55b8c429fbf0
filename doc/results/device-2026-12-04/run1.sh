#!/bin/sh
# Device run: the suite (graph kernels and synthetic loops through the shim, auto against
# the program's own schedule) and the spin cells of the matrix at 16 threads, from the
# bundle in .devrun (binaries built on the 2-core host).
top=$(pwd)
d=$top/.devrun
export LD_LIBRARY_PATH=$d/b/lib
T=${T:-16}
Q=${Q:-}
R=${R:-/tmp/devr}
rm -rf "$R"; mkdir -p "$R"
log=$R/log.txt
{
  date -u; uname -a; nproc; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
  ldd --version | head -1; command -v taskset gcc; cat /sys/fs/cgroup/cpu.max 2>/dev/null
  "$d/b/bin/lf-info" 2>&1 | head -30
  uptime
} >"$log" 2>&1
s0=$(date +%s)
echo "== suite graph $(date -u +%T)" >>"$log"
timeout ${TG:-200} sh scripts/bench-suite.sh --build "$d/build" --threads $T --rounds 5 \
  --scales 17,19 --cases bfs,pagerank,cc,sssp,bc \
  --settings dedicated,hog --out "$R/sg" $Q >"$R/suite-graph.txt" 2>&1
echo "rc=$? $(date -u +%T) $(( $(date +%s) - s0 )) s" >>"$log"
echo "== suite loops $(date -u +%T)" >>"$log"
timeout ${TL:-100} sh scripts/bench-suite.sh --build "$d/build" --threads $T --rounds 5 \
  --cases loops --settings dedicated,hog,biglittle --out "$R/sl" $Q >"$R/suite-loops.txt" 2>&1
echo "rc=$? $(date -u +%T) $(( $(date +%s) - s0 )) s" >>"$log"
echo "== matrix spin $T threads $(date -u +%T)" >>"$log"
LF_MATRIX_KERNELS="${MK:-spin/50000 spin/500 spin/20}" \
LF_MATRIX_SCHEDULES="${MS:-omp:guided,omp:dynamic,64,tbb:auto,lf:auto,lf:multi}" \
  timeout ${TM:-180} sh scripts/bench-matrix.sh -b "$d/b/bin/lf-bench" -o "$R/m" -r 3 -e 10 -t $T ${ME} \
  >"$R/matrix.txt" 2>&1
echo "rc=$? $(date -u +%T) $(( $(date +%s) - s0 )) s" >>"$log"
echo "== claim cost $(date -u +%T)" >>"$log"
timeout 20 "$d/b/bin/lf-claim-cost" --threads 1,2,8,16 --reps 11 >>"$log" 2>&1
echo "rc=$? $(date -u +%T) $(( $(date +%s) - s0 )) s" >>"$log"
tar czf "$OUT/r.tgz" -C "$(dirname "$R")" "$(basename "$R")"
cat "$log"
