#!/bin/sh
# scripts/plot-efficiency.sh - efficiency per schedule per scenario, from
# lf-bench CSV output (one file or several, e.g. bench-matrix.sh's
# matrix.csv): one cluster of bars per scenario, one bar per schedule, the
# geometric mean over the rows (kernels, grains) of that scenario.
#
#   scripts/plot-efficiency.sh OUT.png FILE.csv...   or   FILE.csv OUT.png
. "$(dirname "$0")/help.sh"
set -e
command -v gnuplot >/dev/null 2>&1 || { echo "plot-efficiency.sh: gnuplot not found" >&2; exit 2; }
case $1 in
*.png) png=$1; shift ;;
*) [ $# -eq 2 ] || { echo "usage: plot-efficiency.sh OUT.png FILE.csv..." >&2; exit 2; }
   png=$2; set -- "$1" ;;
esac
[ $# -ge 1 ] || { echo "usage: plot-efficiency.sh OUT.png FILE.csv..." >&2; exit 2; }
dat=$(mktemp "${TMPDIR:-/tmp}/plot-eff.XXXXXX")
trap 'rm -f "$dat"' EXIT

# rows: scenario, then one geometric mean per schedule (in first-seen order);
# the schedule is the only quoted CSV field, so split on the quotes.
awk -F'"' '$1 ~ /^kernel,/ { next }
NF >= 3 {
    split($1, a, ","); split($3, b, ",")
    sc = a[5]; s = $2; e = b[6] + 0
    if (!(sc in seen_sc)) { seen_sc[sc] = 1; scs[++nsc] = sc }
    if (!(s in seen_s)) { seen_s[s] = 1; ss[++nss] = s }
    k = sc SUBSEP s; n[k]++; l[k] += log(e > 0 ? e : 1e-9)
}
END {
    printf "scenario"
    for (j = 1; j <= nss; j++) printf " \"%s\"", ss[j]
    printf "\n"
    for (i = 1; i <= nsc; i++) {
        printf "%s", scs[i]
        for (j = 1; j <= nss; j++) {
            k = scs[i] SUBSEP ss[j]
            if (k in n) printf " %.4f", exp(l[k] / n[k]); else printf " NaN"
        }
        printf "\n"
    }
}' "$@" >"$dat"
cols=$(head -1 "$dat" | awk '{ print NF }')
[ "$cols" -ge 2 ] || { echo "plot-efficiency.sh: no lf-bench rows in $*" >&2; exit 1; }

gnuplot <<GP
set terminal pngcairo size 1100,550 noenhanced
set output '$png'
set title 'efficiency per schedule and scenario (geometric mean over kernels)'
set ylabel 'efficiency (ideal / median makespan)'
set yrange [0:1.2]
set grid ytics
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set key outside right
plot for [i=2:$cols] '$dat' using i:xtic(1) title columnheader(i)
GP
