#!/bin/sh
# tests/test_mpi.sh - loops across MPI ranks under mpirun: exactly once for
# every schedule on 1-4 ranks x 1-2 threads (one-sided claims), the
# two-sided master mode, a late rank and an early leaver, inputs owned by
# ranks read exactly and results returned to their owners, owner-first
# claims of such data (own block first, a slowed rank's block stolen, on
# and off, on 1-4 ranks x 1-2 threads), streams that a producer fills
# while they run, refusals of bad arguments on every rank.  "skipped: no MPI" when libloopfarm-mpi was not
# built or no launcher is found.  Each run has a time limit, so a hang fails
# instead of stalling make check.
prog=./tests/test_mpi
if [ ! -x "$prog" ]; then
    echo "skipped: no MPI (configure found no MPI library, or no OpenMP for the test)"
    exit 77
fi
run=${MPIRUN:-$(command -v mpirun || command -v mpiexec)}
if [ -z "$run" ]; then
    echo "skipped: no MPI launcher (mpirun) in PATH"
    exit 77
fi
# Open MPI on a small VM: more ranks than cores, shared memory only, and
# root allowed (CI containers run as root).
export OMPI_MCA_btl=${OMPI_MCA_btl:-self,vader}
# Open MPI 4.1.4's osc/rdma over btl/vader crashes in its emulated
# compare-and-swap (mca_btl_vader_emu_acswap); osc/sm serves one node.
export OMPI_MCA_osc=${OMPI_MCA_osc:-sm,pt2pt}
export OMPI_MCA_rmaps_base_oversubscribe=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
# Up to 8 threads on 2 cores: idle OpenMP threads must sleep, not spin.
export OMP_WAIT_POLICY=passive
# Under AddressSanitizer (scripts/test.sh step 2): Open MPI keeps its own
# allocations until exit, which LeakSanitizer would report as ours.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
limit=${LF_MPI_TEST_LIMIT:-120}
fail=0
one() { # ranks, args...
    np=$1
    shift
    out=$(timeout "$limit" "$run" -np "$np" "$prog" "$@" 2>&1)
    rc=$?
    case $rc in
    0) echo "$out" | tail -1 ;;
    77) echo "$out" | tail -1 ;;
    124) echo "FAIL: -np $np $*: no result in ${limit} s (a hang)"; echo "$out" | tail -20; fail=1 ;;
    *) echo "FAIL: -np $np $* (exit $rc)"; echo "$out" | tail -40; fail=1 ;;
    esac
}
for np in 1 2 3 4; do
    for t in 1 2; do
        one $np cover $t
    done
done
one 2 cover 1 master
one 3 cover 2 master
one 3 late 1
one 4 late 2
one 3 late 1 master
one 1 stage 1
one 2 stage 2
one 4 stage 1
one 3 stage 1 master
for np in 1 2 3 4; do
    for t in 1 2; do
        one $np owner $t
    done
done
# A staging limit of 10 iterations (16 bytes each): claims larger than
# that run in pieces (the test asserts the peak), results still exact.
LF_MPI_STAGE_BYTES=160 one 4 stage 1
LF_MPI_STAGE_BYTES=160 one 3 stage 2 master
LF_MPI_STAGE_BYTES=160 one 4 owner 2
one 1 stream 1
one 3 stream 2
one 4 stream 1
one 1 badargs
one 3 badargs
# LF_MPI_SCHEDULE: taken when the caller names no rank schedule; a
# malformed one is reported once per rank and fac2 used.
LF_MPI_SCHEDULE=af one 2 env af
out=$(LF_MPI_SCHEDULE=no-such timeout "$limit" "$run" -np 2 "$prog" env fac2 2>&1)
if [ $? != 0 ] || [ "$(echo "$out" | grep -c 'LF_MPI_SCHEDULE="no-such"')" != 2 ]; then
    echo "FAIL: LF_MPI_SCHEDULE=no-such: not reported once per rank, or not run under fac2"
    echo "$out" | tail -10
    fail=1
else
    echo "LF_MPI_SCHEDULE=no-such: reported on each rank, fac2 used"
fi
# LF_MPI_STAGE_BYTES malformed: reported once per rank, the default used
# (the staging run checks its peak against 16 MiB then).
out=$(LF_MPI_STAGE_BYTES=lots timeout "$limit" "$run" -np 2 "$prog" stage 1 2>&1)
if [ $? != 0 ] || [ "$(echo "$out" | grep -c 'LF_MPI_STAGE_BYTES="lots"')" != 2 ]; then
    echo "FAIL: LF_MPI_STAGE_BYTES=lots: not reported once per rank, or the run failed"
    echo "$out" | tail -10
    fail=1
else
    echo "LF_MPI_STAGE_BYTES=lots: reported on each rank, 16M used"
fi

# lf-bench --mpi: every schedule's result checked against T1's (exit 3 when
# wrong), a bad option refused with exit 2.
bench=./bench/lf-bench
if [ -x ./bench/lf-bench-mpi ] && [ -x "$bench" ]; then
    out=$(timeout "$limit" "$run" -np 3 "$bench" --mpi --kernel triangle --n 3000 --grain 200 \
        --threads 2 --slow 2:3 --reps 1 --bytes-per-iter 256 \
        --schedules block,lf:fac2,lf:af,master:dynamic,1,master:fac2 2>&1)
    rc=$?
    if [ $rc != 0 ] || [ "$(echo "$out" | grep -c '^triangle')" != 5 ] ||
        ! echo "$out" | grep -q '^lf-sim --workers 1000'; then
        echo "FAIL: lf-bench --mpi (exit $rc)"; echo "$out" | tail -20; fail=1
    else
        echo "lf-bench --mpi: 5 schedules, results right, staging costs reported"
    fi
    timeout "$limit" "$run" -np 2 "$bench" --mpi --slow 7:2 >/dev/null 2>&1
    rc=$?
    [ $rc = 2 ] || { echo "FAIL: lf-bench --mpi --slow 7:2 on 2 ranks exits $rc, not 2"; fail=1; }
fi
exit $fail
