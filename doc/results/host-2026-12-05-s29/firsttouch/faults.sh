#!/bin/sh
# Page faults and time of two loops run once per process, whose iterations each write one
# column of a new row-major image: GraphicsMagick's `convert -resize 150%` of an 1800x1800
# image (its second loop, 2700 columns, `guided`) and colwrite.c (2700 x 2700 8-byte
# pixels, `schedule(guided)`).  Per process: perf's software counters (this VM has no
# hardware ones), task-clock (ms of CPU), page-faults, and the wall time (colwrite: its
# loop's; gm: the whole process's).  Variants, interleaved in each round:
#   guided  the program's own schedule through NEW's shim (LF_SCHEDULE=guided)
#   old     LF_SCHEDULE=auto through OLD's shim
#   new     LF_SCHEDULE=auto through NEW's shim
# Run from the repository root:
#   OLD=/path/to/old/build NEW=build/normal R=8 sh doc/results/host-2026-12-05-s29/firsttouch/faults.sh
set -eu
here=$(dirname "$0")
W=$(mktemp -d /dev/shm/faults.XXXXXX)
trap 'rm -rf "$W"' EXIT
gcc -O2 -fopenmp "$here/colwrite.c" -o "$W/colwrite"
gm convert -size 1800x1800 plasma:fractal "$W/in.ppm"
for round in $(seq 1 "${R:-8}"); do
    for v in guided old new; do
        case $v in
        guided) lib=$NEW sched=guided ;;
        old) lib=$OLD sched=auto ;;
        new) lib=$NEW sched=auto ;;
        esac
        shim=$lib/.libs/libloopfarm-gomp.so
        for prog in colwrite gm; do
            if [ $prog = gm ]; then
                set -- gm convert "$W/in.ppm" -resize 150% "$W/out.ppm"
            else
                set -- "$W/colwrite"
            fi
            OMP_NUM_THREADS=2 OMP_PROC_BIND=true LD_PRELOAD=$shim LF_SCHEDULE=$sched \
                perf stat -x, -e task-clock,page-faults,duration_time "$@" >"$W/out" 2>"$W/err"
            awk -F, -v r="$round" -v v="$v" -v p="$prog" -v loop="$(awk '{print $1}' "$W/out")" '
                $3 == "task-clock" { cpu = $1 } $3 == "page-faults" { pf = $1 }
                $3 == "duration_time" { wall = $1 / 1e6 }
                END { printf "%d,%s,%s,%.1f,%d,%.1f\n", r, p, v, cpu, pf, p == "gm" ? wall : loop }' "$W/err"
        done
    done
done
