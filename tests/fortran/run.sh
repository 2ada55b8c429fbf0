#!/bin/sh
# tests/fortran/run.sh - Fortran through the preload shims: tests/fortran/f_loops.f90 built by
# gfortran -fopenmp (GCC's GOMP calls), run bare and with libloopfarm-gomp preloaded under
# several schedules at 1, 2, 3 and 8 threads; preloaded, LF_VERBOSE must show the shim taking
# its loops.  A Fortran compiler that emits LLVM's kmpc calls (flang, ifx) would be run through
# libloopfarm-kmp the same way; Debian 12 packages none that builds OpenMP programs here.
# Exit 0 when all pass, 77 (one line) when gfortran or the shim is missing, 1 otherwise.
top=$(pwd)
src=${srcdir:-.}/tests/fortran/f_loops.f90
fc=${FC_OPENMP:-gfortran}
shim="$top/.libs/libloopfarm-gomp.so"
command -v "$fc" >/dev/null 2>&1 || { echo "run.sh: no Fortran compiler ($fc): skipped"; exit 77; }
[ -f "$shim" ] || { echo "run.sh: libloopfarm-gomp not built (OpenMP missing?): skipped"; exit 77; }
exe="$top/tests/fortran/f_loops"
mkdir -p "$top/tests/fortran"
"$fc" -fopenmp -O2 "$src" -o "$exe" || { echo "FAIL: $fc could not build $src"; exit 1; }
unset LF_SCHEDULE LF_REPLACE LF_TRACE LF_VERBOSE OMP_SCHEDULE
rts=$(ldd "$shim" 2>/dev/null | awk '/libasan/ {print $3} /lib(ub|t)san/ {u = u " " $3} END {print u}')
preload=$(echo $rts "$shim")
LD_LIBRARY_PATH="$top/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
fails=0
runs=0
for sched in bare multi af dynamic,4 guided; do
    for t in ${SHIM_THREADS:-1 2 3 8}; do
        runs=$((runs + 1))
        if [ $sched = bare ]; then
            out=$(OMP_NUM_THREADS=$t timeout 60 "$exe" 2>&1)
        else
            out=$(OMP_NUM_THREADS=$t LD_PRELOAD="$preload" LF_SCHEDULE=$sched LF_VERBOSE=1 \
                timeout 60 "$exe" 2>&1)
        fi
        rc=$?
        taken=$(printf '%s\n' "$out" | grep -c '^loopfarm-gomp: taking')
        if [ $rc -ne 0 ] || { [ $sched != bare ] && [ "$taken" -lt 5 ]; }; then
            fails=$((fails + 1))
            echo "FAIL [$sched] f_loops, $t threads (exit $rc, $taken call sites taken)"
            printf '%s\n' "$out" | grep -v '^loopfarm' | head -5 | sed 's/^/    /'
        fi
    done
done
echo "run.sh: Fortran (gfortran, through libloopfarm-gomp): $runs runs, $fails failed"
[ $fails -eq 0 ]
