#!/bin/sh
# Device run 1 (session 26): the graph kernels at 16 threads beside a busy process and on
# dedicated cores, interleaved per round: the program's own schedule (own, own2: A/A),
# auto of HEAD's library (base), auto with every losing trial cut (new), and base with
# each plan forced (base-own, base-dealt).  Then LF_VERBOSE runs of base and new beside
# the busy process.
top=$(pwd); d=$top/.devrun
T=${T:-16} RH=${RH:-9} RD=${RD:-7} SCALES=${SCALES:-"17 19"}
export OMP_NUM_THREADS=$T OMP_PROC_BIND=true
common=$d/b/lib
g=$d/graph/lf-graph-cxx
R=/tmp/dev26; rm -rf $R; mkdir -p $R
K17="bfs:40,pagerank:9,cc:40,sssp:16,bc:8"; K19="bfs:12,pagerank:3,cc:16,sssp:3,bc:2"
hog=
hog_start() { taskset -c $((T - 1)) sh -c 'while :; do :; done' & hog=$!; }
hog_stop() { [ -n "$hog" ] && kill $hog && wait $hog 2>/dev/null; hog=; }
run_v() { # variant scale kernels -> prints "kernel ms" lines
  v=$1 s=$2 k=$3
  case $v in
  own|own2) LD_LIBRARY_PATH=$common timeout 60 $g --scale $s --kernels $k --no-check ;;
  base) LD_LIBRARY_PATH=$d/base:$common LD_PRELOAD=$d/base/libloopfarm-gomp.so LF_SCHEDULE=auto timeout 60 $g --scale $s --kernels $k --no-check ;;
  new) LD_LIBRARY_PATH=$d/new:$common LD_PRELOAD=$d/new/libloopfarm-gomp.so LF_SCHEDULE=auto timeout 60 $g --scale $s --kernels $k --no-check ;;
  base-own) LD_LIBRARY_PATH=$d/base:$common LD_PRELOAD=$d/base/libloopfarm-gomp.so LF_SCHEDULE=auto,plan=own timeout 60 $g --scale $s --kernels $k --no-check ;;
  base-dealt) LD_LIBRARY_PATH=$d/base:$common LD_PRELOAD=$d/base/libloopfarm-gomp.so LF_SCHEDULE=auto,plan=dealt timeout 60 $g --scale $s --kernels $k --no-check ;;
  esac 2>&1 | awk 'NR > 1 && NF >= 7 { print $1, $7 }'
}
rounds() { # setting nrounds variants...
  set_=$1 n=$2; shift 2
  vs="$*"
  r=1
  while [ $r -le $n ]; do
    # rotate the variants by the round
    order=$(echo $vs | awk -v r=$r '{ n = NF; for (i = 0; i < n; i++) printf "%s ", $(((i + r - 1) % n) + 1) }')
    for s in $SCALES; do
      eval k=\$K$s
      for v in $order; do
        run_v $v $s $k | while read -r kern ms; do echo "$set_,$kern-s$s,$r,$v,$ms"; done >>$R/runs.csv
      done
    done
    echo "$set_ round $r $(date -u +%T)" >>$R/log.txt
    r=$((r + 1))
  done
}
echo "setting,case,round,variant,ms" >$R/runs.csv
date -u +%T >>$R/log.txt
nproc >>$R/log.txt
hog_start
rounds hog $RH own base new base-own base-dealt own2
for s in $SCALES; do
  eval k=\$K$s
  for v in base new; do
    lib=$d/$v
    LD_LIBRARY_PATH=$lib:$common LD_PRELOAD=$lib/libloopfarm-gomp.so LF_SCHEDULE=auto LF_VERBOSE=1 timeout 60 $g --scale $s --kernels sssp:16,bc:8 --no-check >$R/verbose-hog-$v-s$s.txt 2>&1
  done
done
hog_stop
[ -n "$OUT" ] && tar czf "$OUT/r.tgz" -C /tmp dev26
rounds dedicated $RD own base new own2
[ -n "$OUT" ] && tar czf "$OUT/r.tgz" -C /tmp dev26
python3 $d/sum.py $R/runs.csv 2>&1 | tail -60
