#!/bin/sh
# scripts/paper/seed000-fig2.sh - seed 000 Fig. 2: the installment factor
# k = ln(S)^CV (eq. (8)) over the workload S for CV = 0, 0.2, ..., 1, from
# lf-sim --k-table, with the values the paper quotes beside ours.
#   scripts/paper/seed000-fig2.sh      (LF_SIM=/path/to/lf-sim to choose the binary)
. "$(dirname "$0")/../help.sh"
set -e
. "$(dirname "$0")/lf-sim-path.sh"
"$LF_SIM" --k-table
echo
echo "values the paper quotes, paper | lf-sim:"
# §3.2.2: calibration times 1,2,3,4 -> mean 2.5, sigma 1.3 (sample), CV 0.5,
# S = 64 after calibration, "k ~ 2".
k=$("$LF_SIM" --k-table --tasks 64 --cv 0.5 --format csv | awk -F, 'NR==2{print $3}')
echo "  S=64, CV=0.5 (worked example, §3.2.2): k ~ 2      | $k"
cvs=$(awk 'BEGIN{m=2.5; s=sqrt(((1-m)^2+(2-m)^2+(3-m)^2+(4-m)^2)/3); printf "%.4f", s/m}')
k=$("$LF_SIM" --k-table --tasks 64 --cv "$cvs" --format csv | awk -F, 'NR==2{print $3}')
echo "  S=64, CV=$cvs (sample sigma 1.29 of 1,2,3,4): k ~ 2 | $k"
# Fig. 4: an 8-worker run with S = 9600 and k = 2.735; the CV that gives it.
cv=$(awk 'BEGIN{printf "%.4f", log(2.735)/log(log(9600))}')
k=$("$LF_SIM" --k-table --tasks 9600 --cv "$cv" --format csv | awk -F, 'NR==2{print $3}')
echo "  S=9600, k=2.735 (Fig. 4) <=> CV=$cv:             2.735  | $k"
echo "  CV=0 gives k=1 for every S (single round):        1      | $("$LF_SIM" --k-table --tasks 9600 --cv 0 --format csv | awk -F, 'NR==2{print $3}')"
