#!/bin/sh
# LF_FOR_DATA with umr, rumr, fac2 and others: correct on the machine's own
# domains, and under two fake domains with 2 and 4 threads (LF_BIND=close
# puts member t on PU t mod 2, so each fake domain has 1 or 2 members).
prog=./tests/test_numa_macro
[ -x "$prog" ] || { echo "no $prog"; exit 77; }
fail=0
run() {
    echo "== $*"
    env "$@" "$prog" 100000 || fail=1
}
run OMP_NUM_THREADS=2
run OMP_NUM_THREADS=2 LF_FAKE_NUMA=2 LF_BIND=close
run OMP_NUM_THREADS=4 LF_FAKE_NUMA=2,lat=500,gbps=8 LF_BIND=close
run OMP_NUM_THREADS=1 LF_FAKE_NUMA=2 LF_BIND=close
exit $fail
