#!/bin/sh
# scripts/demo.sh - set up, build, and run a short side-by-side of the
# compiler's OpenMP schedules and loopfarm's on this machine (under a minute):
# a uniform kernel on every core while a busy process shares the last core.
#   scripts/demo.sh [extra lf-bench options]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/deps.sh
scripts/build.sh build/normal
bench=build/normal/bench/lf-bench
threads=$(nproc)
echo "loopfarm demo: $threads threads, one busy process pinned to the last core" >&2
scheds=omp:static,omp:dynamic,1,omp:guided,lf:dynamic,lf:guided,lf:fac2,lf:af,lf:multi
# LLVM's runtime too, when clang with libomp was found (measured in a child process).
[ -x build/normal/bench/lf-bench-libomp ] && scheds="$scheds,libomp:dynamic,1,libomp:guided"
"$bench" --kernel spin --grain 500 --threads "$threads" --scenario hog --reps 5 \
    --schedules "$scheds" "$@"
echo
echo "Efficiency = ideal / median time, where ideal = T1 / sum of thread speeds"
echo "(a core shared with the busy process counts as half a core)."
