#!/bin/sh
# spin/20/varying at -e 10: auto's plan per execution and its time, beside tbb:auto twice
# (the A/A), with LF_VERBOSE=1 and LF_TRACE.  Run from the repository root of a normal
# build; writes rows.csv, out.txt, verbose.txt and trace.csv (about 30 MB, not kept) here,
# and plans.txt from the trace (plans.py).
d=$(dirname "$0")
LF_VERBOSE=1 LF_TRACE="$d/trace.csv" build/normal/bench/lf-bench --kernel spin --grain 20 \
    --n 10000000 --threads 2 --scenario varying --schedules tbb:auto,lf:auto,tbb:auto \
    --reps 7 --execs 10 --format csv --out "$d/rows.csv" >"$d/out.txt" 2>"$d/verbose.txt"
python3 "$d/plans.py" "$d/trace.csv" >"$d/plans.txt"
