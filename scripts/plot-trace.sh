#!/bin/sh
# scripts/plot-trace.sh - per-thread chunk timeline from an LF_TRACE file
# (site,instance,thread,lo,hi,start_ns,end_ns,pieces,from,plan): chunk size over time, one
# line per thread, for one loop instance (seed 000 Fig. 3-4).
#
#   scripts/plot-trace.sh TRACE.csv OUT.png [SITE [INSTANCE]]
# SITE defaults to the first site of the file, INSTANCE to its last.
. "$(dirname "$0")/help.sh"
set -e
command -v gnuplot >/dev/null 2>&1 || { echo "plot-trace.sh: gnuplot not found" >&2; exit 2; }
[ $# -ge 2 ] || { echo "usage: plot-trace.sh TRACE.csv OUT.png [SITE [INSTANCE]]" >&2; exit 2; }
trace=$1
png=$2
site=${3:-$(awk -F, 'NR > 1 { print $1; exit }' "$trace")}
[ -n "$site" ] || { echo "plot-trace.sh: $trace has no chunks" >&2; exit 1; }
inst=${4:-$(awk -F, -v s="$site" '$1 == s && $2 + 0 >= m { m = $2 + 0 } END { print m + 0 }' \
    "$trace")}
dat=$(mktemp "${TMPDIR:-/tmp}/plot-trace.XXXXXX")
trap 'rm -f "$dat"' EXIT

# thread, ms since the instance's first chunk, chunk size
awk -F, -v s="$site" -v i="$inst" '$1 == s && $2 == i {
    t[++n] = $3; st[n] = $6; sz[n] = $5 - $4
    if (n == 1 || $6 < t0) t0 = $6
    if ($3 + 0 > maxt) maxt = $3 + 0
}
END {
    for (k = 1; k <= n; k++) printf "%d %.6f %d\n", t[k], (st[k] - t0) / 1e6, sz[k]
}' "$trace" >"$dat"
[ -s "$dat" ] || { echo "plot-trace.sh: no chunks of site $site instance $inst" >&2; exit 1; }
maxt=$(awk '$1 > m { m = $1 } END { print m + 0 }' "$dat")

gnuplot <<GP
set terminal pngcairo size 900,500 noenhanced
set output '$png'
set title 'chunks of $site, instance $inst'
set xlabel 'time since the loop began (ms)'
set ylabel 'chunk size (iterations)'
set grid
set key outside right
plot for [t=0:$maxt] '$dat' using (\$1 == t ? \$2 : 1/0):3 \\
    with linespoints pt 7 ps 0.5 title sprintf('thread %d', t)
GP
