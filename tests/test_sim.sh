#!/bin/sh
# tests/test_sim.sh - lf-sim's command line: help, bad input exits 2, the
# trace has its header and one row per chunk, output is reproducible.
sim=${LF_SIM:-./bench/lf-sim}
[ -x "$sim" ] || { echo "no $sim here: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$sim" --help | grep -q 'example' || bad "--help has no example"
for args in "--speeds 1,x --tasks 5 --schedule fac2" \
            "--speeds 1 --tasks -5 --schedule fac2" \
            "--speeds 1 --tasks 5 --schedule no-such-schedule" \
            "--speeds 1 --tasks 5" \
            "--tasks 5 --schedule fac2" \
            "--speeds 1 --tasks 5 --schedule fac2 --format xml" \
            "--speeds 1 --tasks 5 --schedule fac2 --cost pareto" \
            "--platform $tmp/missing --tasks 5 --schedule fac2"; do
    "$sim" $args >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || bad "lf-sim $args: exit $rc, expected 2"
    [ -s "$tmp/err" ] || bad "lf-sim $args: no message"
done

printf 'staging oneport\nbytes_per_iter 8\nspeed=1 stage_lat=0.01 bandwidth=1000 count=3\nspeed=1/2 profile=0:1,50:0.5\n' >"$tmp/pf"
"$sim" --platform "$tmp/pf" --tasks 1000 --schedule fac2 --cost lognormal,sigma=1 --seed 9 \
    --trace "$tmp/t1.csv" --format csv >"$tmp/o1" || bad "platform run failed"
"$sim" --platform "$tmp/pf" --tasks 1000 --schedule fac2 --cost lognormal,sigma=1 --seed 9 \
    --trace "$tmp/t2.csv" --format csv >"$tmp/o2" || bad "platform run failed"
cmp -s "$tmp/o1" "$tmp/o2" && cmp -s "$tmp/t1.csv" "$tmp/t2.csv" || bad "runs differ"
[ "$(head -1 "$tmp/t1.csv")" = "worker,seq,start,end,size" ] || bad "trace header"
rows=$(($(wc -l <"$tmp/t1.csv") - 1))
chunks=$(awk -F, 'NR==2{print $(NF-7)}' "$tmp/o1")
[ "$rows" = "$chunks" ] || bad "trace has $rows rows, summary says $chunks chunks"
sum=$(awk -F, 'NR>1{s+=$5} END{print s}' "$tmp/t1.csv")
[ "$sum" = 1000 ] || bad "trace sizes sum to $sum"
"$sim" --speeds 1 --workers 3 --tasks 30 --schedule dynamic,1 --format json | grep -q '"efficiency": 1.0' ||
    bad "json efficiency"
"$sim" --k-table --tasks 9600 --cv 1 --format csv | grep -q '^9600,1,9.169' || bad "k-table"
[ $fail -eq 0 ] && echo "lf-sim command line: all checks passed"
exit $fail
