#!/bin/sh
# GraphicsMagick's `convert -resize 150%` of a 1800x1800 plasma image under the shim, one
# traced process per schedule and round, rounds interleaved; per process the span of the
# second loop (its site ends in +0xe8d20 in Debian's libGraphicsMagick-Q16 1.4, 2700
# iterations) from its first chunk's start to its last chunk's end, its chunks, and each
# thread's busy time.  Prints the spans per schedule, sorted, after the runs.
# Run from the repository root after building build/normal:
#   R=8 VARIANTS="fac2 af af,cal=paper guided auto" sh doc/results/host-2026-12-03-s21/gm-first-chunk.sh
set -eu
shim=$PWD/build/normal/.libs/libloopfarm-gomp.so
W=$(mktemp -d /dev/shm/gmfc.XXXXXX)
gm convert -size 1800x1800 plasma:fractal "$W/in.ppm"
for round in $(seq 1 "${R:-5}"); do
    for v in ${VARIANTS:-fac2 auto}; do
        rm -f "$W/tr.csv"
        OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD=$shim LF_SCHEDULE=$v LF_TRACE=$W/tr.csv \
            gm convert "$W/in.ppm" -resize 150% "$W/out.ppm"
        awk -F, -v v="$v" 'NR > 1 && $1 ~ /e8d20/ {
                if (mn == "" || $6 < mn) mn = $6
                if ($7 > mx) mx = $7
                n++; b[$3] += $7 - $6 }
            END { printf "%-22s span %6.1f chunks %4d busy %6.1f %6.1f\n",
                      v, (mx - mn) / 1e6, n, b[0] / 1e6, b[1] / 1e6 }' "$W/tr.csv"
    done
done | sort | awk '{ print } { s[$1] = s[$1] " " $3 } END { for (k in s) print "SPANS", k, s[k] }'
rm -rf "$W"
