#!/bin/sh
# scripts/paper/seed002-fifo-lifo.sh - seed 002 (Beaumont & Rosenberg)
# Theorem 3: two identical nodes (R = 1 s per unit), links tau_1 (served
# first) and tau_2 = 0.2 s per unit, results of size delta = 0.5 per unit.
# For tau_1 from 0 to tau_2: the work productions W^F, W^L of eqs. (10)-(11)
# (per unit lifespan) and lf-sim's: fifo / lifo shares run on a one-port
# platform (cal=paper, 100000 units), the result messages added afterwards
# in the protocol's order on the same port (lf-sim does not model them).
# Prints where the advantage passes from FIFO to LIFO.
#   scripts/paper/seed002-fifo-lifo.sh      (LF_SIM=/path/to/lf-sim to choose the binary)
. "$(dirname "$0")/../help.sh"
set -e
. "$(dirname "$0")/lf-sim-path.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
R=1; t2=0.2; d=0.5; n=100002
# Completed work per unit time of one lf-sim run with returns appended.
prod() {
    printf "staging oneport\nbytes_per_iter 1\nspeed=1 bandwidth=%s\nspeed=1 bandwidth=%s\n" \
        "$(awk -v t="$1" 'BEGIN { print 1 / t }')" "$(awk -v t="$t2" 'BEGIN { print 1 / t }')" > "$tmp/p"
    "$LF_SIM" --platform "$tmp/p" --tasks $n --schedule "$2,ret=$d,cal=paper" --trace "$tmp/t" >/dev/null
    awk -F, -v d="$d" -v t1="$1" -v t2="$t2" -v lifo="$3" '
    NR > 1 && $2 == 1 { st[$1] = $3; en[$1] = $4; w[$1] = $5 }
    END {
        t0 = st[0] < st[1] ? st[0] : st[1]; tau[0] = t1; tau[1] = t2
        a = lifo ? 1 : 0; b = 1 - a   # order of the result messages
        e = en[a]; e += d * tau[a] * w[a]
        s = en[b] > e ? en[b] : e; e = s + d * tau[b] * w[b]
        printf "%.6f", (w[0] + w[1]) / (e - t0)
    }' "$tmp/t"
}
printf "%8s %10s %10s %10s   %10s %10s %10s\n" tau_1 "W^F eq.11" "W^L eq.10" "F-L" "fifo sim" "lifo sim" "F-L"
for t1 in 0.001 0.01 0.02 0.04 0.06 0.08 0.1 0.12 0.15 0.2 0.25 0.3; do
    th=$(awk -v t1="$t1" -v t2="$t2" -v R="$R" -v d="$d" 'BEGIN {
        a1 = (1 + d) * t1; a2 = (1 + d) * t2
        L = (2 * R + a2) / ((R + a1) * (R + a2))
        F = (2 * R + t2 + d * t1) / ((R + a1) * (R + a2) - d * t1 * t2)
        printf "%.6f %.6f", F, L }')
    f=$(prod "$t1" fifo 0); l=$(prod "$t1" lifo 1)
    echo "$t1 $th $f $l" | awk '{ printf "%8s %10.6f %10.6f %+10.6f   %10.6f %10.6f %+10.6f\n", $1, $2, $3, $2 - $3, $4, $5, $4 - $5 }'
done
awk -v t2="$t2" -v R="$R" -v d="$d" 'BEGIN {
    lo = 0; hi = t2
    for (i = 0; i < 100; i++) { m = (lo + hi) / 2; if (D(m) < 0) lo = m; else hi = m }
    printf "\nTheorem 3: FIFO wins when tau_1 >= tau_2; LIFO wins when tau_1 is much\n"
    printf "smaller; the switch (root of eq. (10) = eq. (11)) is at tau_1 = %.5f (tau_2 = %g).\n", lo, t2
}
function D(t1,   a1, a2, L, F) {
    a1 = (1 + d) * t1; a2 = (1 + d) * t2
    L = (2 * R + a2) / ((R + a1) * (R + a2))
    F = (2 * R + t2 + d * t1) / ((R + a1) * (R + a2) - d * t1 * t2)
    return F - L
}'
cat <<'TXT'
The simulated columns use the policies' shares (Theorems 1-2 solved in
lib/policy/fifo.c) in a run of n = 100000 units plus two one-iteration
calibration chunks; with R >> tau the differences are small, as in the paper.
TXT
