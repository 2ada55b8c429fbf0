# shellcheck shell=sh
# scripts/bench-common.sh - sourced by the scripts that time a program bare and through
# the preload shim (bench-graph-apps.sh, bench-suite.sh): $threads threads bound (2 unless
# the caller set threads before sourcing), no loopfarm or OpenMP schedule variable
# inherited, a scratch folder $tmp removed at exit, and the busy process of the hog
# setting, stopped at exit too.
export OMP_NUM_THREADS="${threads:-2}" OMP_PROC_BIND=true
unset LF_SCHEDULE LF_REPLACE LF_TRACE LF_VERBOSE OMP_SCHEDULE
tmp=$(mktemp -d)
hog=
bench_cleanup() {
    [ -n "$hog" ] && kill "$hog" 2>/dev/null
    rm -rf "$tmp"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM
# hog_start: a busy process pinned to the last core, which the last thread of a bound team
# as large as the machine shares.
hog_start() {
    taskset -c $(($(nproc) - 1)) sh -c 'while :; do :; done' &
    hog=$!
}
hog_stop() {
    if [ -n "$hog" ]; then
        kill "$hog" 2>/dev/null
        wait "$hog" 2>/dev/null
        hog=
    fi
}
