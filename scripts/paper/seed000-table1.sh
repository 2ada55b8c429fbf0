#!/bin/sh
# scripts/paper/seed000-table1.sh - seed 000 (González-Vélez & Cole) Table 1
# through lf-sim: four workers with calibration times 1, 2, 3, 4 (speeds 1,
# 1/2, 1/3, 1/4), S = 68, k = 2, one-iteration calibration (cal=paper), unit
# tail (min=1).  Prints the paper's installments beside ours; exit 0 when all
# rows match, 1 otherwise.
#   scripts/paper/seed000-table1.sh      (LF_SIM=/path/to/lf-sim to choose the binary)
. "$(dirname "$0")/../help.sh"
set -e
. "$(dirname "$0")/lf-sim-path.sh"
trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
"$LF_SIM" --speeds 1,0.5,0.3333333,0.25 --tasks 68 --schedule multi,k=2,cal=paper,min=1 \
    --trace "$trace" >/dev/null
# The paper's Table 1: installments after the calibration chunk, per worker,
# and the termination times (sum of the installments' durations).
awk -F, '
BEGIN {
    paper[1] = "15 8 3 2 1 1 1 1"; paper[2] = "8 3 2 1 1"
    paper[3] = "5 2 1 1 1";        paper[4] = "4 1 1 1"
    pterm[1] = 32; pterm[2] = 30; pterm[3] = 30; pterm[4] = 28
    speed[1] = 1; speed[2] = 0.5; speed[3] = 1/3; speed[4] = 0.25
}
NR > 1 && $2 > 0 { w = $1 + 1; size[w, $2] = $5; if ($2 > n[w]) n[w] = $2 }
NR > 1 && $2 == 0 { w = $1 + 1; cal[w] = $5 }
END {
    ok = 1
    printf "seed 000 Table 1 (installment sizes after calibration), paper | lf-sim\n"
    printf "%-12s", "installment"
    for (w = 1; w <= 4; w++) printf "   a%d: paper  ours", w
    printf "\n"
    maxrow = 8
    for (w = 1; w <= 4; w++) if (n[w] > maxrow) maxrow = n[w]
    for (w = 1; w <= 4; w++) {
        np[w] = split(paper[w], tmp, " ")
        for (r = 1; r <= np[w]; r++) p[w, r] = tmp[r]
    }
    for (r = 1; r <= maxrow; r++) {
        printf "%-12d", r
        for (w = 1; w <= 4; w++) {
            pv = r <= np[w] ? p[w, r] : "";
            ov = (w SUBSEP r) in size ? size[w, r] : "";
            mark = pv == ov ? " " : "*"
            if (pv != ov) ok = 0
            printf "   %9s %5s%s", pv, ov, mark
        }
        printf "\n"
    }
    printf "%-12s", "total"
    for (w = 1; w <= 4; w++) {
        pt = 0; for (r = 1; r <= np[w]; r++) pt += p[w, r]
        ot = 0; for (r = 1; r <= n[w]; r++) ot += size[w, r]
        printf "   %9d %5d%s", pt, ot, pt == ot ? " " : "*"
    }
    printf "\n%-12s", "termination"
    for (w = 1; w <= 4; w++) {
        ot = 0; for (r = 1; r <= n[w]; r++) ot += size[w, r]
        printf "   %9d %5.0f%s", pterm[w], ot / speed[w], pterm[w] == sprintf("%.0f", ot / speed[w]) ? " " : "*"
    }
    mk = 0
    for (w = 1; w <= 4; w++) {
        ot = 0; for (r = 1; r <= n[w]; r++) ot += size[w, r]
        if (ot / speed[w] > mk) mk = ot / speed[w]
    }
    printf "\nmakespan after calibration: paper 32, lf-sim %.0f\n", mk
    printf "calibration chunks: %d %d %d %d (paper: 1 1 1 1)\n", cal[1], cal[2], cal[3], cal[4]
    if (!ok) {
        printf "* differs from the paper (marked).  Note: at t = 28 (after calibration) w4\n"
        printf "  asks with R = 3; multi stops it because w1 can finish all three no later\n"
        printf "  than w4 would finish one (the paper gives w4 nothing there too).\n"
    }
    exit ok ? 0 : 1
}' "$trace"
