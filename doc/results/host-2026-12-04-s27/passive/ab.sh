#!/bin/bash
# usage: ab.sh ROUNDS SETTING "scale:kernels ..." variant...   variant: own | NAME=LIBDIR/SCHEDULE
# prints setting,case,round,variant,ms
cd /work/main
R=$1 SET=$2 CASES=$3; shift 3
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true
G=${G:-build/normal/bench/lf-graph-cxx}
hog=
[ "$SET" = hog ] && { taskset -c 1 sh -c 'while :; do :; done' & hog=$!; }
vs=("$@"); n=${#vs[@]}
for r in $(seq 1 $R); do
  for c in $CASES; do
    s=${c%%:*}; k=${c#*:}
    for i in $(seq 0 $((n-1))); do
      v=${vs[$(( (i + r) % n ))]}
      name=${v%%=*}; name=${name#env:}
      if [ "$name" = own ] || [ "$name" = own2 ]; then
        out=$($G --scale $s --kernels $k --no-check 2>&1)
      elif [ "${v#env:}" != "$v" ]; then
        e=${v#*=}; e=${e#env:}
        out=$(env $e $G --scale $s --kernels $k --no-check 2>&1)
      else
        spec=${v#*=}; lib=${spec%/*}; sch=${spec##*/}
        out=$(LD_PRELOAD=$lib/libloopfarm-gomp.so LD_LIBRARY_PATH=$lib LF_SCHEDULE=$sch $G --scale $s --kernels $k --no-check 2>&1)
      fi
      echo "$out" | awk -v set=$SET -v s=$s -v r=$r -v v=$name '$1!="kernel" && NF>=7 && $7+0>0 {print set","$1"-s"s","r","v","$7}'
    done
  done
done
[ -n "$hog" ] && kill $hog
