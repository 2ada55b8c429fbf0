#!/bin/sh
# tests/test_sim.sh - lf-sim's command line: help, bad input exits 2, the
# trace has its header and one row per chunk, output is reproducible; NUMA
# options: the trace's remote iterations add up to the summary's.
sim=${LF_SIM:-./bench/lf-sim}
[ -x "$sim" ] || { echo "no $sim here: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$sim" --help | grep -q 'example' || bad "--help has no example"
for opt in --nodes --workers-per-node --home --passes numa=on stage=on; do
    "$sim" --help | grep -q -e "$opt" || bad "--help does not mention $opt"
done
for args in "--speeds 1,x --tasks 5 --schedule fac2" \
            "--speeds 1 --tasks -5 --schedule fac2" \
            "--speeds 1 --tasks 5 --schedule no-such-schedule" \
            "--speeds 1 --tasks 5" \
            "--tasks 5 --schedule fac2" \
            "--speeds 1 --tasks 5 --schedule fac2 --format xml" \
            "--speeds 1 --tasks 5 --schedule fac2 --cost pareto" \
            "--platform $tmp/missing --tasks 5 --schedule fac2" \
            "--speeds 1 --workers 8 --nodes 0 --tasks 5 --schedule fac2" \
            "--speeds 1 --workers 8 --nodes x --tasks 5 --schedule fac2" \
            "--speeds 1 --workers 2 --nodes 4 --tasks 5 --schedule fac2" \
            "--speeds 1 --workers-per-node 4 --tasks 5 --schedule fac2" \
            "--speeds 1 --workers 7 --nodes 2 --workers-per-node 4 --tasks 5 --schedule fac2" \
            "--speeds 1 --nodes 2 --workers-per-node 4 --home attic --tasks 5 --schedule fac2" \
            "--speeds 1 --nodes 2 --workers-per-node 4 --passes 0 --tasks 5 --schedule fac2" \
            "--speeds 1 --workers 4 --home node0 --tasks 5 --schedule fac2" \
            "--speeds 1 --nodes 2 --workers-per-node 4 --tasks 5 --schedule fac2,numa=maybe" \
            "--speeds 1 --nodes 2 --workers-per-node 4 --tasks 5 --schedule fac2,stage=on,stage=off"; do
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

# NUMA: 4 domains x 3 workers, all data on domain 0, staged.
numa="--speeds 1,0.5,2 --nodes 4 --workers-per-node 3 --bytes-per-iter 64 --bandwidth 6400
      --stage-lat 0.01 --home node0 --passes 4 --tasks 5000 --cost exp --seed 3"
"$sim" $numa --schedule af,numa=on,stage=on --trace "$tmp/n1.csv" --format json >"$tmp/n1" ||
    bad "NUMA run failed"
"$sim" $numa --schedule af,numa=on,stage=on --trace "$tmp/n2.csv" --format json >"$tmp/n2" ||
    bad "NUMA run failed"
cmp -s "$tmp/n1" "$tmp/n2" && cmp -s "$tmp/n1.csv" "$tmp/n2.csv" || bad "NUMA runs differ"
[ "$(head -1 "$tmp/n1.csv")" = "worker,seq,start,end,size,lo,home,remote,staged" ] ||
    bad "NUMA trace header"
sum=$(awk -F, 'NR>1{s+=$5} END{print s}' "$tmp/n1.csv")
[ "$sum" = 5000 ] || bad "NUMA trace sizes sum to $sum"
rem=$(awk -F, 'NR>1{s+=$8} END{print s}' "$tmp/n1.csv")
grep -q "\"remote_iters\": $rem," "$tmp/n1" || bad "trace's remote iterations ($rem) not the summary's"
grep -q "\"staged_iters\": $rem," "$tmp/n1" || bad "node0 + stage=on: not every remote iteration staged"
bytes=$(awk -v r="$rem" 'BEGIN { printf "%.0f", r * 64 }')
grep -q "\"staged_bytes\": $bytes," "$tmp/n1" || bad "staged bytes are not $rem x 64"
# Without domains the CSV keeps its columns; with them it appends five.
[ "$("$sim" --speeds 1 --workers 2 --tasks 9 --schedule fac2 --format csv | head -1 |
     awk -F, '{print NF}')" = 16 ] || bad "csv columns changed"
[ "$("$sim" $numa --schedule fac2 --format csv | head -1 | awk -F, '{print NF}')" = 21 ] ||
    bad "NUMA csv columns"
printf 'domains 2\nbytes_per_iter 8\nspeed=1 bandwidth=80 domain=1 count=2\nspeed=1 domain=0\n' >"$tmp/np"
"$sim" --platform "$tmp/np" --home node0 --tasks 100 --schedule fac2,numa=on,stage=off \
    >"$tmp/o3" || bad "NUMA platform file run failed"
grep -q "2 NUMA domains, ports oneport" "$tmp/o3" || bad "NUMA platform file: domains or port"
printf 'domains 2\nspeed=1 domain=2\n' >"$tmp/np2"
"$sim" --platform "$tmp/np2" --tasks 100 --schedule fac2 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "np2:2: domain=2" "$tmp/err" || bad "bad domain= not reported with its line"
[ $fail -eq 0 ] && echo "lf-sim command line: all checks passed"
exit $fail
