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
for opt in --nodes --workers-per-node --home --passes numa=on stage=on --protocol --order \
           --inflight --results --split --start-delay --window --link-profile --known \
           --threads-per-rank --rank-schedule --thread-latency --thread-claim-ns --thread-trace; do
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
            "--speeds 1 --nodes 2 --workers-per-node 4 --tasks 5 --schedule fac2,stage=on,stage=off" \
            "--speeds 1 --tasks 5 --schedule fac2 --protocol pushy" \
            "--speeds 1 --tasks 5 --schedule fac2 --inflight 2" \
            "--speeds 1 --tasks 5 --schedule fac2 --protocol push --inflight 0" \
            "--speeds 1 --tasks 5 --schedule fac2 --protocol push --inflight 65" \
            "--speeds 1 --tasks 5 --schedule fac2 --protocol push --order random" \
            "--speeds 1 --tasks 5 --schedule fac2 --protocol push --split 1" \
            "--speeds 1 --tasks 5 --schedule fac2 --protocol push --split x" \
            "--speeds 1 --tasks 5 --schedule fac2 --protocol push --results -1" \
            "--speeds 1 --tasks 5 --schedule fac2 --start-delay -1" \
            "--speeds 1 --tasks 5 --schedule fac2 --window 5:1" \
            "--speeds 1 --tasks 5 --schedule fac2 --window 5" \
            "--speeds 1 --workers 4 --nodes 2 --tasks 5 --schedule fac2 --protocol push" \
            "--platform $tmp/badstart --tasks 5 --schedule fac2" \
            "--platform $tmp/badlink --tasks 5 --schedule fac2" \
            "--speeds 1 --tasks 5 --schedule fac2 --link-profile 5:1,2:1"; do
    printf 'speed=1 start=-3\n' >"$tmp/badstart"
    printf 'speed=1 bandwidth=1 link_profile=0:0\n' >"$tmp/badlink"
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
# multi's sigma: eq. 7's population sigma gives k = 1.89 and a first chunk of
# 16 for worker 0 of seed 000's example; the worked example's sample sigma
# k = 2.09 and 15.
for sig in population:16 sample:15; do
    "$sim" --speeds 1,1/2,1/3,1/4 --tasks 68 --schedule "multi,kmin=1,cal=paper,min=1,sigma=${sig%:*}" \
        --trace "$tmp/m.csv" >/dev/null || bad "multi sigma=${sig%:*}"
    [ "$(awk -F, '$1 == 0 && $2 == 1 { print $5 }' "$tmp/m.csv")" = "${sig#*:}" ] ||
        bad "multi sigma=${sig%:*}: first round of worker 0 is not ${sig#*:}"
done
"$sim" --speeds 1 --tasks 5 --schedule multi,sigma=median >/dev/null 2>&1 && bad "sigma=median accepted"

# --umr-mstar uses the platform options it documents: seed 003 Fig. 6, alpha = 0,
# beta = 5, R = 6 gives M = 2 (chunk_0 > Delta = 150); R = 80 gives 14.
"$sim" --umr-mstar --stage-lat 5 --bandwidth 6 --format csv | grep -q '^5,2000,1,0,5,6,6,2.66667,2,' ||
    bad "--umr-mstar --stage-lat 5 --bandwidth 6"
"$sim" --umr-mstar --stage-lat 5 --bandwidth 80 --format csv | grep -q ',80,80,15,14,' ||
    bad "--umr-mstar --stage-lat 5 --bandwidth 80"
"$sim" --umr-mstar --latency 5 --bandwidth 6 --format json | grep -q '"alpha": 5' ||
    bad "--umr-mstar --latency"
for args in "--umr-mstar --speeds 1,2" "--umr-mstar --platform $tmp/pf" "--umr-mstar --stage-lat x"; do
    "$sim" $args >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && [ -s "$tmp/err" ] || bad "lf-sim $args: expected exit 2 with a message"
done

# Push: every option runs, iterations add up in the trace, output is
# reproducible, the protocol shows in the outputs, start delays hold.
push="--speeds 1,1/2,2 --workers 6 --stage-lat 0.01 --bandwidth 100 --bytes-per-iter 1
      --latency 0.001 --tasks 3000 --cost exp --seed 4 --protocol push"
for extra in "" "--order first-ready" "--inflight 3" "--results 0.5" "--split 0.4" \
             "--start-delay 2" "--window 1:10"; do
    "$sim" $push $extra --schedule as4dr --trace "$tmp/p1.csv" --format csv >"$tmp/p1" ||
        bad "push $extra failed"
    "$sim" $push $extra --schedule as4dr --trace "$tmp/p2.csv" --format csv >"$tmp/p2" ||
        bad "push $extra failed"
    cmp -s "$tmp/p1" "$tmp/p2" && cmp -s "$tmp/p1.csv" "$tmp/p2.csv" || bad "push $extra: runs differ"
    sum=$(awk -F, 'NR>1{s+=$5} END{print s}' "$tmp/p1.csv")
    [ "$sum" = 3000 ] || bad "push $extra: trace sizes sum to $sum"
    grep -q ',push,' "$tmp/p1" || bad "push $extra: csv has no protocol column"
done
"$sim" $push --start-delay 2 --schedule fac2 --trace "$tmp/p3.csv" >/dev/null || bad "start delay"
awk -F, 'NR>1 && $3 < 2 * $1 { exit 1 }' "$tmp/p3.csv" || bad "--start-delay: a chunk before its worker joined"
# A link profile halves the bandwidth after t = 0: one chunk of 100 bytes at
# 100 B/s (latency 1 s) takes 1 + 2 s to stage, so it ends at 3 + 100.
for proto in pull push; do
    "$sim" --speeds 1 --tasks 100 --schedule static --stage-lat 1 --bandwidth 100 --bytes-per-iter 1 \
        --link-profile 0:0.5 --protocol $proto --trace "$tmp/l.csv" >/dev/null || bad "link profile $proto"
    [ "$(awk -F, 'NR == 2 { print $4 }' "$tmp/l.csv")" = 103.000000000 ] ||
        bad "--link-profile ($proto): chunk ends at $(awk -F, 'NR == 2 { print $4 }' "$tmp/l.csv"), expected 103"
done
# --known: the model's costs stand in for calibration (no calibration chunk),
# except under cal=paper; both protocols.
for proto in pull push; do
    "$sim" $push --protocol $proto --known --schedule umr --format json >"$tmp/k" || bad "--known $proto"
    grep -q '"calib_chunks": 0,' "$tmp/k" || bad "--known $proto: calibration chunks"
    "$sim" $push --protocol $proto --known --schedule umr,cal=paper --format json |
        grep -q '"calib_chunks": 0,' && bad "--known with cal=paper did not calibrate"
done
"$sim" $push --window 1:10 --schedule fac2 --format json | grep -q '"window_eff"' || bad "json window"
"$sim" $push --schedule fac2 | grep -q '^protocol     push, round-robin, inflight 2' || bad "table protocol"

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
# Platform files: what is malformed is refused with FILE:LINE (or FILE: for
# the file as a whole), and every figure accepted keeps the results finite.
n=0
for text in 'speed=0x10' 'speed=inf' 'speed=nan' 'speed=1 speed=2' 'speed=1 count=2 count=3' \
            'speed=1 profile=0:1,,2:0.5' 'speed=1 profile=' 'speed=1 profile=0:1,' \
            'speed=1 profile=0:0x1' 'speed=1 latency=1e308' 'speed=1e308 count=2' \
            'speed=1e-300' 'speed=1 bandwidth=1e300' 'speed=1 profile=0:1,1e300:2' \
            'speed=1 profile=0:1e-300' 'bytes_per_iter 1e300
speed=1' 'staging free
staging oneport
speed=1' 'bytes_per_iter 1
bytes_per_iter 2
speed=1' 'speed=1 threads=0' 'speed=1 threads=1.5' 'speed=1 threads=2 threads=3' \
            'speed=1 threads=5000' 'thread_speeds=1,x' 'thread_speeds=1,,2' 'thread_speeds=' \
            'speed=1 thread_speeds=0' 'speed=1 thread_latency=1' 'speed=1 threads=2 thread_latency=-1'; do
    n=$((n + 1))
    printf '%s\n' "$text" >"$tmp/bad$n"
    "$sim" --platform "$tmp/bad$n" --tasks 5 --schedule fac2 >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || bad "platform \"$text\": exit $rc, expected 2"
    grep -q "$tmp/bad$n:[0-9]" "$tmp/err" || bad "platform \"$text\": no FILE:LINE in: $(cat "$tmp/err")"
done
printf 'speed=1\nspeed=2 lat\0ency=1\n' >"$tmp/nul"
"$sim" --platform "$tmp/nul" --tasks 5 --schedule fac2 >/dev/null 2>"$tmp/err"
grep -q "nul:2: a NUL byte" "$tmp/err" || bad "NUL byte: $(cat "$tmp/err")"
"$sim" --platform "$tmp" --tasks 5 --schedule fac2 >/dev/null 2>"$tmp/err"
grep -q "a directory" "$tmp/err" || bad "directory: $(cat "$tmp/err")"
printf 'speed=1e15 latency=1e6 stage_lat=1e6 bandwidth=1e-3 count=1000\nbytes_per_iter 1e12\n' >"$tmp/edge"
"$sim" --platform "$tmp/edge" --tasks 100 --schedule fac2 --format csv >"$tmp/o4" 2>"$tmp/err" ||
    bad "edge platform run failed: $(cat "$tmp/err")"
grep -qi -e 'inf' -e 'nan' "$tmp/o4" && bad "edge platform: non-finite result: $(cat "$tmp/o4")"
# One line's workers share its profile: 200,000 workers with a 500-segment
# profile fit in 800 MB (a copy each would take 1.6 GB).  Not under ASan,
# whose shadow memory needs more address space than any such limit.
if ! ldd "$sim" 2>/dev/null | grep -q -e libasan -e libtsan; then
    prof=$(awk 'BEGIN { for (i = 0; i < 500; i++) printf "%s%d:%d", i ? "," : "", i, 1 + i % 3 }')
    printf 'speed=1 count=200000 profile=%s\n' "$prof" >"$tmp/big"
    (ulimit -v 800000 && "$sim" --platform "$tmp/big" --tasks 50 --schedule dynamic,1 \
        --format csv >/dev/null 2>"$tmp/err") || bad "a shared profile: $(cat "$tmp/err")"
fi

# Two levels (ranks of threads).  Bad options: one message, exit 2 (bad
# threads=, thread_speeds= and thread_latency= lines are in the platform
# checks above).
for args in "--speeds 1 --workers 2 --threads-per-rank 0 --tasks 5 --schedule fac2" \
            "--speeds 1 --workers 2 --threads-per-rank 4097 --tasks 5 --schedule fac2" \
            "--speeds 1 --workers 2 --threads-per-rank x --tasks 5 --schedule fac2" \
            "--speeds 1 --tasks 5 --schedule fac2 --rank-schedule af" \
            "--speeds 1 --tasks 5 --schedule fac2 --thread-latency 1" \
            "--speeds 1 --tasks 5 --schedule fac2 --thread-trace $tmp/tt" \
            "--speeds 1 --workers 2 --threads-per-rank 2 --tasks 5 --schedule fac2 --rank-schedule nope" \
            "--speeds 1 --workers 2 --threads-per-rank 2 --tasks 5 --schedule nope" \
            "--speeds 1 --workers 2 --threads-per-rank 2 --tasks 5 --schedule fac2 --thread-latency -1" \
            "--speeds 1 --workers 2 --threads-per-rank 2 --tasks 5 --schedule fac2 --protocol push" \
            "--speeds 1 --workers 4 --nodes 2 --threads-per-rank 2 --tasks 5 --schedule fac2"; do
    "$sim" $args >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || bad "lf-sim $args: exit $rc, expected 2"
    [ "$(wc -l <"$tmp/err")" -le 2 ] && [ -s "$tmp/err" ] || bad "lf-sim $args: not one message: $(cat "$tmp/err")"
done
printf 'domains 2\nspeed=1 threads=2 count=2\n' >"$tmp/tdom"
"$sim" --platform "$tmp/tdom" --tasks 5 --schedule fac2 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "tdom: threads=" "$tmp/err" || bad "threads= with domains: $(cat "$tmp/err")"

# Every iteration exactly once across ranks and threads: the thread trace's
# chunks tile [0, n), and the rank trace's too, for a matrix of schedules.
printf 'speed=1 threads=4 count=3 latency=0.01\nthread_speeds=1,1,1,0.1 latency=0.01\n' >"$tmp/two"
for pair in af:fac2 fac2:auto static:dynamic,3 multi:af dynamic,50:static auto:auto umr:fac2; do
    "$sim" --platform "$tmp/two" --tasks 20000 --cost exp --rank-schedule "${pair%%:*}" \
        --schedule "${pair#*:}" --stage-lat 0.001 --bandwidth 1e5 --bytes-per-iter 8 --claim-ns 1e5 \
        --thread-latency 1e-3 --trace "$tmp/r.csv" --thread-trace "$tmp/t.csv" --format json >"$tmp/j" ||
        bad "two levels $pair failed"
    sum=$(awk -F, 'NR>1{s+=$5} END{print s}' "$tmp/r.csv")
    [ "$sum" = 20000 ] || bad "two levels $pair: rank chunks sum to $sum"
    awk -F, 'NR>1 { print $6, $7 }' "$tmp/t.csv" | sort -n |
        awk 'BEGIN { e = 0 } $1 != e { exit 1 } { e = $1 + $2 } END { if (e != 20000) exit 1 }' ||
        bad "two levels $pair: thread chunks do not tile [0, 20000) exactly once"
    rows=$(($(wc -l <"$tmp/t.csv") - 1))
    grep -q "\"thread_chunks\": $rows," "$tmp/j" || bad "two levels $pair: $rows thread trace rows, not the summary's"
    rows=$(($(wc -l <"$tmp/r.csv") - 1))
    grep -q "\"rank_chunks\": $rows," "$tmp/j" || bad "two levels $pair: $rows rank trace rows, not the summary's"
done
# Reproducible.
"$sim" --platform "$tmp/two" --tasks 20000 --cost exp --rank-schedule af --schedule auto \
    --thread-trace "$tmp/t2.csv" --format csv >"$tmp/c1"
"$sim" --platform "$tmp/two" --tasks 20000 --cost exp --rank-schedule af --schedule auto \
    --thread-trace "$tmp/t3.csv" --format csv >"$tmp/c2"
cmp -s "$tmp/c1" "$tmp/c2" && cmp -s "$tmp/t2.csv" "$tmp/t3.csv" || bad "two levels: runs differ"
[ "$(head -1 "$tmp/c1" | awk -F, '{print NF}')" = 22 ] || bad "two levels: csv columns"
# One thread per rank is the one-level model of a rank: the same rank trace,
# byte for byte, whatever the node schedule.
one="--speeds 1,0.5,2 --workers 5 --tasks 30000 --cost exp --latency 0.01 --stage-lat 0.1
     --bandwidth 1000 --bytes-per-iter 1 --claim-ns 1000"
for s in af fac2 multi auto dynamic,7 umr static; do
    "$sim" $one --threads-per-rank 1 --rank-schedule $s --schedule dynamic,1 --trace "$tmp/o2.csv" \
        --format json >"$tmp/j2" || bad "one thread per rank ($s) failed"
    "$sim" $one --schedule $s --trace "$tmp/o1.csv" --format json >"$tmp/j1" || bad "one level ($s) failed"
    cmp -s "$tmp/o1.csv" "$tmp/o2.csv" || bad "one thread per rank ($s): rank trace differs from one level"
    [ "$(grep -o '"makespan": [0-9.]*' "$tmp/j1")" = "$(grep -o '"makespan": [0-9.]*' "$tmp/j2")" ] ||
        bad "one thread per rank ($s): makespan differs from one level"
done
# Zero costs, equal speeds: factoring and AF at both levels are near ideal.
for r in fac2 af; do
    for t in fac2 af; do
        e=$("$sim" --speeds 1 --workers 8 --threads-per-rank 4 --tasks 1000000 --rank-schedule $r \
            --schedule $t --format json | grep -o '"efficiency": [0-9.]*' | cut -d' ' -f2)
        awk -v e="$e" 'BEGIN { exit !(e > 0.99) }' || bad "two levels $r/$t, zero costs: efficiency $e"
    done
done
# A slow thread in one rank (the last of $tmp/two's: 0.1 of its siblings'
# speed) is absorbed by an adaptive node schedule, not by a static one.
eff() {
    "$sim" --platform "$tmp/two" --tasks 100000 --cost exp --rank-schedule af --schedule "$1" \
        --format json | grep -o '"efficiency": [0-9.]*' | cut -d' ' -f2
}
for t in auto dynamic,1; do
    e=$(eff $t)
    awk -v e="$e" 'BEGIN { exit !(e > 0.95) }' || bad "a slow thread, node schedule $t: efficiency $e"
done
e=$(eff static)
awk -v e="$e" 'BEGIN { exit !(e < 0.5) }' || bad "a slow thread, node schedule static: efficiency $e (expected < 0.5)"

# The node schedule's memory carries from one sub-loop to the next, so auto
# runs sub-loops under the plans the dispatcher would choose there
# (lf__exec_plan): every sub-loop under one plan (the counts add up to the
# rank chunks); a rank's first sub-loop dealt, its next ones trying the
# loop's own schedule; plan=self runs a rank's first sub-loop dealt (it has
# no time per iteration to size self's chunks by yet) and the others self,
# one thread chunk per iteration to iterations of a second; sub-loops whose
# team computes for under 10 us, tiny; leases asked for, or another
# schedule, dealt always.
plan_count() {
    grep -o "\"$1\": [0-9]*" "$tmp/u" | head -1 | cut -d' ' -f2
}
rank_chunks() {
    grep -o '"rank_chunks": [0-9]*' "$tmp/u" | head -1 | cut -d' ' -f2
}
plans_sum() {
    echo $(($(plan_count dealt) + $(plan_count own) + $(plan_count self) + $(plan_count tiny)))
}
"$sim" --platform "$tmp/two" --tasks 20000 --cost exp --rank-schedule af --schedule auto \
    --format json >"$tmp/u" || bad "sub-loop plans: lf-sim failed"
[ "$(plans_sum)" = "$(rank_chunks)" ] && [ "$(plan_count dealt)" -ge 1 ] && [ "$(plan_count own)" -ge 1 ] ||
    bad "auto's sub-loops: dealt $(plan_count dealt), own $(plan_count own), self $(plan_count self), tiny $(plan_count tiny) of $(rank_chunks) rank chunks"
"$sim" --platform "$tmp/two" --tasks 20000 --cost exp --rank-schedule af --schedule auto,plan=self \
    --format json >"$tmp/u" || bad "self-scheduled sub-loops: lf-sim failed"
tc=$(grep -o '"thread_chunks": [0-9]*' "$tmp/u" | head -1 | cut -d' ' -f2)
ranks=$(grep -o '"ranks": [0-9]*' "$tmp/u" | head -1 | cut -d' ' -f2)
[ "${ranks:-0}" -ge 2 ] && [ "$(plan_count dealt)" = "$ranks" ] &&
    [ "$(plan_count self)" = $(($(rank_chunks) - ranks)) ] &&
    [ "$tc" = 20000 ] ||
    bad "plan=self: $(plan_count dealt) dealt and $(plan_count self) self sub-loops of $(rank_chunks) on $ranks ranks, $tc thread chunks for 20000 iterations"
"$sim" --speeds 1e9 --workers 2 --threads-per-rank 4 --tasks 1000000 --rank-schedule fac2 \
    --schedule auto --format json >"$tmp/u" || bad "tiny sub-loops: lf-sim failed"
[ "$(plan_count tiny)" -gt 0 ] || bad "iterations of 1 ns: $(plan_count tiny) tiny sub-loops"
for t in auto,lease=on multi dynamic,1; do
    "$sim" --platform "$tmp/two" --tasks 20000 --cost exp --rank-schedule af --schedule $t \
        --format json >"$tmp/u" 2>/dev/null || bad "sub-loop plans ($t): lf-sim failed"
    [ "$(plan_count dealt)" = "$(rank_chunks)" ] ||
        bad "node schedule $t: $(plan_count dealt) dealt sub-loops of $(rank_chunks)"
done

[ $fail -eq 0 ] && echo "lf-sim command line: all checks passed"
exit $fail
