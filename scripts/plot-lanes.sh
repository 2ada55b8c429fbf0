#!/bin/sh
# scripts/plot-lanes.sh - chunk lanes from an LF_TRACE file: for each loop
# instance named, one lane per thread, each chunk a bar from its start to
# its end (time since that instance's first chunk), stolen chunks in their
# own colour; instances stacked, so two schedules of one run compare at a
# glance.  scripts/plot-trace.sh draws chunk sizes instead.
#
#   scripts/plot-lanes.sh TRACE.csv OUT.png LABEL=SITE[:INSTANCE]...
# INSTANCE defaults to the site's last.  Example (doc/auto.md's picture):
#   LF_TRACE=t.csv lf-bench --kernel triangle --scenario hog --execs 5 --reps 1 \
#       --schedules lf:auto,lf:dynamic --own-rows here
#   scripts/plot-lanes.sh t.csv lanes.png auto=lf-bench.c:slot0 dynamic=lf-bench.c:slot1
. "$(dirname "$0")/help.sh"
set -e
command -v gnuplot >/dev/null 2>&1 || { echo "plot-lanes.sh: gnuplot not found" >&2; exit 2; }
[ $# -ge 3 ] || { echo "usage: plot-lanes.sh TRACE.csv OUT.png LABEL=SITE[:INSTANCE]..." >&2; exit 2; }
trace=$1
png=$2
shift 2
[ -s "$trace" ] || { echo "plot-lanes.sh: $trace: expected an LF_TRACE file" >&2; exit 1; }
dat=$(mktemp "${TMPDIR:-/tmp}/plot-lanes.XXXXXX")
trap 'rm -f "$dat"' EXIT
: >"$dat"
lane=0
ytics=
for arg in "$@"; do
    case $arg in *=*) ;; *) echo "plot-lanes.sh: '$arg': expected LABEL=SITE[:INSTANCE]" >&2; exit 2 ;; esac
    label=${arg%%=*}
    site=${arg#*=}
    inst=
    case $site in *:[0-9]*) inst=${site##*:}; site=${site%:*} ;; esac
    [ -n "$inst" ] || inst=$(awk -F, -v s="$site" '$1 == s && $2 + 0 >= m { m = $2 + 0; f = 1 }
        END { if (f) print m }' "$trace")
    [ -n "$inst" ] || { echo "plot-lanes.sh: no chunks of site $site in $trace" >&2; exit 1; }
    # lane, start ms, end ms, stolen (0/1), for each chunk of the instance
    awk -F, -v s="$site" -v i="$inst" -v base="$lane" '$1 == s && $2 == i {
        n++; t[n] = $3; st[n] = $6; en[n] = $7; fr[n] = ($9 != "" && $9 + 0 >= 0)
        if (n == 1 || $6 < t0) t0 = $6
    }
    END { for (k = 1; k <= n; k++)
        printf "%d %.6f %.6f %d\n", base + t[k], (st[k] - t0) / 1e6, (en[k] - t0) / 1e6, fr[k] }' \
        "$trace" >>"$dat"
    nt=$(awk -F, -v s="$site" -v i="$inst" '$1 == s && $2 == i && $3 + 1 > m { m = $3 + 1 }
        END { print m + 0 }' "$trace")
    [ "$nt" -gt 0 ] || { echo "plot-lanes.sh: no chunks of $site instance $inst" >&2; exit 1; }
    t=0
    while [ $t -lt "$nt" ]; do
        ytics="$ytics${ytics:+, }'$label, thread $t' $((lane + t))"
        t=$((t + 1))
    done
    lane=$((lane + nt + 1))
done

gnuplot <<GP
set terminal pngcairo size 1000,$((120 + 40 * lane)) noenhanced
set output '$png'
set title 'chunks per thread (a bar per chunk or piece; orange: stolen from another thread)'
set xlabel 'time since the instance began (ms)'
set ytics ($ytics)
set yrange [$lane:-1]
set grid x
unset key
plot '$dat' using 2:(\$4 > 0.5 ? 1/0 : \$1):(\$3 - \$2):(0) with vectors nohead lw 12 lc rgb '#21918c', \\
     '' using 2:(\$4 > 0.5 ? \$1 : 1/0):(\$3 - \$2):(0) with vectors nohead lw 12 lc rgb '#f59b00', \\
     '' using 2:1:(0):(0.3) with vectors nohead lw 1 lc rgb 'white'
GP
echo "plot: $png" >&2
