#!/bin/sh
# GraphicsMagick's `convert -resize 150%` of a 1800x1800 plasma image under the shim: one
# traced process per schedule and round, rounds interleaved.  Per process, of the second
# loop (its site ends in +0xe8d20 in Debian's libGraphicsMagick-Q16 1.4, 2700 rows,
# `guided`): its span, each thread's first chunk (rows, ms), both threads' busy time, and
# the busy time per row (ms) of the chunks that start in each ninth of the rows, leaving
# out each thread's first chunk.  Run from the repository root after building build/normal:
#   R=6 VARIANTS="guided auto" sh doc/results/host-2026-12-05-s28/gm-resize/rows.sh
set -eu
shim=$PWD/build/normal/.libs/libloopfarm-gomp.so
W=$(mktemp -d /dev/shm/gmrows.XXXXXX)
gm convert -size 1800x1800 plasma:fractal "$W/in.ppm"
for round in $(seq 1 "${R:-5}"); do
    for v in ${VARIANTS:-guided auto}; do
        rm -f "$W/tr.csv"
        OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD=$shim LF_SCHEDULE=$v LF_TRACE=$W/tr.csv \
            gm convert "$W/in.ppm" -resize 150% "$W/out.ppm"
        awk -F, 'NR > 1 && $1 ~ /e8d20/' "$W/tr.csv" | sort -t, -k6n | awk -F, -v v="$v" '
            { if (mn == "" || $6 < mn) mn = $6; if ($7 > mx) mx = $7
              d = ($7 - $6) / 1e6; busy += d
              if (!(($3) in first)) { first[$3] = sprintf("%d-%d %.1f", $4, $5, d); next }
              k = int($4 / 300); ms[k] += d; rows[k] += $5 - $4 }
            END { printf "%-7s span %6.1f busy %6.1f first %s | %s |", v, (mx - mn) / 1e6, busy, first[0], first[1]
                  for (k = 0; k < 9; k++) printf " %s", rows[k] ? sprintf("%.3f", ms[k] / rows[k]) : "-"
                  printf "\n" }'
    done
done
rm -rf "$W"
