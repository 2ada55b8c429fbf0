#!/bin/sh
# The trace behind BENCHMARKS.md's gm-resize row: GraphicsMagick's `convert -resize 150%` of
# a 1800x1800 plasma image (as bench-suite makes it), one process per schedule and round,
# 2 threads bound, under LF_TRACE; per loop (call site) the span from its first chunk's start
# to its last chunk's end, its chunks, and per thread the busy time (chunk ends minus starts).
# Run from the repository root after building build/normal; writes gm-traced.txt here.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shim=$PWD/build/normal/.libs/libloopfarm-gomp.so
w=$(mktemp -d /dev/shm/gmtr.XXXXXX)
gm convert -size 1800x1800 plasma:fractal "$w/in.ppm"
for round in 1 2 3 4 5; do
    for v in guided auto auto,plan=own fac2 dynamic,32; do
        rm -f "$w/tr.csv"*
        OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD=$shim LF_SCHEDULE=$v \
            LF_TRACE=$w/tr.csv gm convert "$w/in.ppm" -resize 150% "$w/out.ppm"
        awk -F, -v v="$v" -v r="$round" 'NR > 1 {
            s = $1; sub(/.*\+0x/, "", s)
            if (!(s in mn) || $6 < mn[s]) mn[s] = $6
            if ($7 > mx[s]) mx[s] = $7
            n[s]++; busy[s, $3] += $7 - $6 }
            END { for (s in mn)
                printf "round %d %-14s site +0x%s span %6.1f ms chunks %3d busy t0 %6.1f t1 %6.1f\n",
                    r, v, s, (mx[s] - mn[s]) / 1e6, n[s], busy[s, 0] / 1e6, busy[s, 1] / 1e6 }' "$w/tr.csv"
    done
done | sort -k5,5 -k3,3 -k2,2n >"$here/gm-traced.txt"
rm -rf "$w"
