#!/bin/sh
# tests/test_plan.sh - lf-plan (seed 004's LPs): Fig. 1's optimal loads
# exactly (W = 2, 17/12, 249/22), Theorem 11's makespans T_n(W) = (n+1)/2 +
# (n+1)W/n, the LP never worse than a heuristic on the heuristic's own
# sequence, loads that add up to W, and bad input exiting 2 with a message.
plan=${LF_PLAN:-./bench/lf-plan}
[ -x "$plan" ] || { echo "no $plan here (configure found no GLPK): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$plan" --help | grep -q 'example' || bad "--help has no example"
for opt in --tasks --deadline --sequence --search --max-activations --chunks --format \
           comm-first periodic umr; do
    "$plan" --help | grep -q -e "$opt" || bad "--help does not mention $opt"
done

# Seed 004 Fig. 1: (S, C, A) = (1, 10, 1) and (2, 1, 1).
printf 'bytes_per_iter 1\nspeed=1 stage_lat=1 bandwidth=0.1\nspeed=1 stage_lat=2 bandwidth=1\n' \
    >"$tmp/fig1"
load() { # DEADLINE SEQUENCE -> the load as a fraction
    "$plan" --platform "$tmp/fig1" --deadline "$1" --sequence "$2" --format csv | awk -F, 'NR==2{print $7}'
}
[ "$(load 70/12 2,1)" = 2/1 ] || bad "Fig. 1 (a): W = $(load 70/12 2,1), expected 2"
[ "$(load 70/12 1,2)" = 17/12 ] || bad "Fig. 1 (b): W = $(load 70/12 1,2), expected 17/12"
[ "$(load 19 2,2,2,1)" = 249/22 ] || bad "Fig. 1 (d): W = $(load 19 2,2,2,1), expected 249/22"
s=$("$plan" --platform "$tmp/fig1" --deadline 19 --search 5 --chunks --format csv | awk -F, 'NR==2{print $7, $9}')
[ "$s" = "249/22 2;2;2;1" ] || bad "Fig. 1 (d): search over 5 activations gives $s"

# Theorem 11: p = 1, (S, C, A) = (1, 1, 1), n activations, W = 12 (the
# formula holds while every chunk W/n - (j-1) stays >= 0: n(n-1)/2 <= W).
one="--speeds 1 --stage-lat 1 --bandwidth 1 --bytes-per-iter 1 --tasks 12"
seq=1
for n in 1 2 3 4 5; do
    got=$("$plan" $one --sequence $seq --format csv | awk -F, 'NR==2{print $4}')
    awk -v n=$n -v g="$got" 'BEGIN { t = (n + 1) / 2 + (n + 1) / n * 12; d = g - t
        exit !(d < 1e-9 && d > -1e-9) }' || bad "Theorem 11: T_$n(12) = $got"
    seq=$seq,1
done
# min over n of T_n(12): n = 5 (the slope changes at W = n(n+1)/2 = 10, 15),
# T_5(12) = 3 + 72/5 = 87/5; six activations cost more (18).
best=$("$plan" $one --search 8 --format csv | awk -F, '$1=="search"{print $6}')
[ "$best" = 87/5 ] || bad "Theorem 11: best makespan over 8 activations $best, expected 87/5"

# Heuristics: loads add up to W; an LP on a heuristic's sequence is no worse.
"$plan" --speeds 1,1/2,1/3 --stage-lat 0.5 --bandwidth 4 --bytes-per-iter 1 --latency 0.1 \
    --tasks 100 --search 3 --chunks --format csv >"$tmp/h.csv" || bad "heuristics failed"
[ "$(awk -F, 'NR>1' "$tmp/h.csv" | wc -l)" = 6 ] || bad "expected 6 methods: $(cat "$tmp/h.csv")"
awk -F, 'NR > 1 { n = split($10, a, ";"); s = 0; for (i = 1; i <= n; i++) s += a[i]
                  if (s < 100 - 1e-6 || s > 100 + 1e-6) { print $1, s; exit 1 } }' "$tmp/h.csv" ||
    bad "loads do not add up to W"
awk -F, '{ T[$1] = $4 } END { exit !(T["periodic-opt"] <= T["periodic"] + 1e-9 &&
                                    T["umr-opt"] <= T["umr"] + 1e-9) }' "$tmp/h.csv" ||
    bad "LP worse than the heuristic on its own sequence"
"$plan" --speeds 1,1/2 --tasks 10 --stage-lat 1 --format json | grep -q '"method": "comm-first"' ||
    bad "json"
"$plan" --speeds 1,1/2 --tasks 10 --stage-lat 1 | grep -q '^comm-first' || bad "table"
# --max-activations bounds comm-first and periodic; --workers cycles --speeds.
"$plan" --speeds 1,1/2 --workers 4 --stage-lat 0.01 --bandwidth 100 --bytes-per-iter 1 --tasks 1000 \
    --max-activations 8 --format csv | awk -F, '($1 == "comm-first" || $1 == "periodic") && $2 > 8 { exit 1 }
                                             END { exit NR != 6 }' || bad "--max-activations 8 or --workers 4"
# A compute latency L per chunk adds L to every chunk a worker computes: one
# worker, one activation, W = 3 at speed 1 with L = 2 and S = 1: T = 1 + 3 + 2.
[ "$("$plan" --speeds 1 --stage-lat 1 --latency 2 --tasks 3 --sequence 1 --format csv |
     awk -F, 'NR == 2 { print $6 }')" = 6/1 ] || bad "--latency"

for args in "--speeds 1 --tasks 5 --sequence 2" \
            "--speeds 1 --tasks 5 --sequence 1,,1" \
            "--speeds 1 --tasks 0" \
            "--speeds 1 --tasks x" \
            "--speeds 1" \
            "--speeds 1 --tasks 5 --deadline 3" \
            "--speeds 1 --deadline 3" \
            "--speeds 1 --stage-lat 5 --deadline 3 --sequence 1" \
            "--speeds 1,1 --tasks 5 --search 30" \
            "--speeds 1 --tasks 5 --max-activations 0" \
            "--speeds 1 --tasks 5 --format xml" \
            "--platform $tmp/missing --tasks 5" \
            "--platform $tmp/prof --tasks 5" \
            "--speeds 1 --tasks 5 --bogus"; do
    printf 'speed=1 profile=0:1,1:0.5\n' >"$tmp/prof"
    "$plan" $args >/dev/null 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || bad "lf-plan $args: exit $rc, expected 2"
    [ "$(wc -l <"$tmp/err")" -le 2 ] && [ -s "$tmp/err" ] || bad "lf-plan $args: message: $(cat "$tmp/err")"
done
exit $fail
