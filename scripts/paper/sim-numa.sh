#!/bin/sh
# scripts/paper/sim-numa.sh - locality-aware dispatch and data staging in
# lf-sim (doc/lf-sim.md, "NUMA domains"): 4 and 8 NUMA nodes x 8, 16, 64
# workers, a stream-like kernel (input read once) and a stencil-like one
# (read 4 times), data placed in blocked ranges or all on node 0; each
# schedule run plain (numa=off,stage=off), with locality (numa=on), with
# staging (stage=on) and with both.  Prints efficiency (ideal / makespan,
# ideal = total work / sum of speeds, no data movement) and each variant's
# speed-up over plain (plain makespan / its makespan), then geometric means.
#   scripts/paper/sim-numa.sh          (LF_SIM=/path/to/lf-sim to choose the binary)
#   SCHEDULES="fac2 af" NODES=4 WORKERS=16 scripts/paper/sim-numa.sh   (a subset)
#
# Platform: 20 ns of compute per iteration (speed 5e7; every fourth worker
# at half speed, a core shared with another process), alpha = 100 ns per
# chunk, 20 ns per claim; 64 bytes of input per iteration; a remote read or
# copy moves 32 GB/s (2 ns per iteration per read) through the home node's
# port, one transfer at a time; staging costs beta = 1 us per chunk more.
# 4e6 iterations.
. "$(dirname "$0")/../help.sh"
set -e
. "$(dirname "$0")/lf-sim-path.sh"
nodes_list=${NODES:-"4 8"}
workers_list=${WORKERS:-"8 16 64"}
schedules=${SCHEDULES:-"fac2 af umr rumr dynamic,1000"}
tasks=${TASKS:-4e6}
common="--speeds 5e7,5e7,5e7,2.5e7 --latency 1e-7 --claim-ns 20 --bytes-per-iter 64
        --bandwidth 3.2e10 --stage-lat 1e-6 --tasks $tasks"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# makespan and efficiency of one run: "M E"
run() {
    "$LF_SIM" $common --nodes "$1" --workers "$2" --passes "$3" --home "$4" \
        --schedule "$5" --format json |
        awk '/"makespan"/ { for (i = 1; i <= NF; i++) {
                 if ($i == "\"makespan\":") { m = $(i + 1) } if ($i == "\"efficiency\":") { e = $(i + 1) } } }
             END { gsub(",", "", m); gsub(",", "", e); print m, e }'
}

echo "lf-sim NUMA: efficiency per variant and speed-up over plain (plain = numa=off,stage=off)"
printf "%5s %7s %-7s %-7s %-12s %9s %6s %6s %6s %6s %7s %7s %7s\n" nodes workers kernel home \
    schedule plain_ms plain loc stage both loc/x stage/x both/x
for nodes in $nodes_list; do
    for workers in $workers_list; do
        for kernel in stream stencil; do
            passes=1
            [ "$kernel" = stencil ] && passes=4
            for home in blocked node0; do
                for sc in $schedules; do
                    p=$(run "$nodes" "$workers" "$passes" "$home" "$sc,numa=off,stage=off")
                    l=$(run "$nodes" "$workers" "$passes" "$home" "$sc,numa=on,stage=off")
                    s=$(run "$nodes" "$workers" "$passes" "$home" "$sc,numa=off,stage=on")
                    b=$(run "$nodes" "$workers" "$passes" "$home" "$sc,numa=on,stage=on")
                    echo "$nodes $workers $kernel $home $sc $p $l $s $b"
                done
            done
        done
    done
done >"$tmp/rows"
awk '{ printf "%5d %7d %-7s %-7s %-12s %9.3f %6.3f %6.3f %6.3f %6.3f %7.2f %7.2f %7.2f\n",
       $1, $2, $3, $4, $5, $6 * 1e3, $7, $9, $11, $13, $6 / $8, $6 / $10, $6 / $12 }' "$tmp/rows"

echo
echo "geometric mean of the speed-up over plain (nodes x workers x schedules)"
printf "%-8s %-8s %8s %8s %8s\n" kernel home loc stage both
awk '{ k = $3 " " $4; n[k]++; l[k] += log($6 / $8); s[k] += log($6 / $10); b[k] += log($6 / $12) }
     END { split("stream blocked,stream node0,stencil blocked,stencil node0", order, ",")
           for (i = 1; i <= 4; i++) { k = order[i]; if (!n[k]) continue; split(k, f, " ")
               printf "%-8s %-8s %8.2f %8.2f %8.2f\n", f[1], f[2], exp(l[k] / n[k]),
                   exp(s[k] / n[k]), exp(b[k] / n[k]) } }' "$tmp/rows"
echo
printf "%-12s %8s %8s %8s   (all platforms, kernels, placements)\n" schedule loc stage both
awk '{ k = $5; if (!(k in n)) ord[++m] = k; n[k]++
       l[k] += log($6 / $8); s[k] += log($6 / $10); b[k] += log($6 / $12) }
     END { for (i = 1; i <= m; i++) { k = ord[i]
               printf "%-12s %8.2f %8.2f %8.2f\n", k, exp(l[k] / n[k]), exp(s[k] / n[k]),
                   exp(b[k] / n[k]) } }' "$tmp/rows"
