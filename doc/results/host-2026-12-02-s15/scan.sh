#!/bin/sh
# Oracle scan beside a busy core: libomp static, weighted shim, fixed splits F (thread 0's share), one thread.
shim=/work/main/build/normal/.libs/libloopfarm-kmp.so
export OMP_NUM_THREADS=2 OMP_PROC_BIND=true OMP_PLACES=threads
rounds=${1:-7}
cases=${2:-"stencil:1024:300 matvec:1536:150 irregular:20000:100 stencil:6144:60"}
rows="static weighted F0.5 F0.6 F0.67 F0.75 F0.85 F1.0 one static-AA"
echo "round case row time_s"
r=0
while [ $r -lt $rounds ]; do
  for c in $cases; do
    k=${c%%:*}; rest=${c#*:}; size=${rest%%:*}; reps=${rest#*:}
    set -- $rows; i=0; while [ $i -lt $((r % 10)) ]; do x=$1; shift; set -- "$@" $x; i=$((i+1)); done
    for row in "$@"; do
      case $row in
      static|static-AA) t=$(./oracle --kernel $k --load hog --size $size --reps $reps) ;;
      weighted) t=$(LD_PRELOAD=$shim LF_REPLACE=static:weighted ./oracle --kernel $k --load hog --size $size --reps $reps) ;;
      one) t=$(OMP_NUM_THREADS=1 ./oracle --kernel $k --load hog --size $size --reps $reps) ;;
      F*) t=$(ORACLE_F=${row#F} ./oracle --kernel $k --load hog --size $size --reps $reps) ;;
      esac
      echo "$r $c $row $(echo "$t" | awk '{print $10}')"
    done
  done
  r=$((r+1))
done
