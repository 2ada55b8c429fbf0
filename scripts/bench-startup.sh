#!/bin/sh
# scripts/bench-startup.sh BUILDDIR [RUNS] - start-up cost as whole processes: the time from
# fork to exit of a short program, run RUNS times (default 31) in interleaved rounds, for
#   omp      a plain OpenMP program (gcc -fopenmp, no loopfarm): one `omp for
#            schedule(dynamic, 64)` loop of 100000 iterations, twice;
#   lf       the same loops as LF_FOR (tests/startup-time lf: linked to libloopfarm);
#   preload  the plain program with libloopfarm-gomp.so preloaded (LF_SCHEDULE=auto).
# Prints each variant's median and quartiles in ms and its median difference to omp (the
# per-round differences' median, with quartiles).  2 threads, bound.  A benchmark for a quiet
# machine: never part of make check.
set -u
. "$(dirname "$0")/help.sh"
case "${1:-}" in
'')
    echo "bench-startup: usage: bench-startup.sh BUILDDIR [RUNS] (try --help)" >&2
    exit 2
    ;;
esac
[ -d "$1" ] || {
    echo "bench-startup: BUILDDIR '$1' is not a directory (expected a configured build, e.g. build/normal)" >&2
    exit 2
}
build=$(cd -- "$1" && pwd)
runs=${2:-31}
case "$runs" in '' | *[!0-9]*)
    echo "bench-startup: RUNS is a positive integer" >&2
    exit 2
    ;;
esac
# The installed-style binary, not libtool's wrapper script (which would add a shell's start).
lf="$build/tests/.libs/startup-time"
shim="$build/.libs/libloopfarm-gomp.so"
export LD_LIBRARY_PATH="$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ -x "$lf" ] && [ -f "$shim" ] || {
    echo "bench-startup: build $lf (make check) and $shim first" >&2
    exit 1
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/plain.c" <<'C'
#include <stdio.h>
static volatile double sink;
int main(void)
{
    for (int rep = 0; rep < 2; rep++) {
#pragma omp parallel
        {
            double m = 0.0;
#pragma omp for schedule(dynamic, 64)
            for (long i = 0; i < 100000; i++)
                m += (double)i * 0.5;
#pragma omp atomic
            sink += m;
        }
    }
    printf("%g\n", sink);
    return 0;
}
C
gcc -O2 -fopenmp -o "$tmp/plain" "$tmp/plain.c" || exit 1
OMP_NUM_THREADS=2 OMP_PROC_BIND=true python3 - "$runs" "$tmp/plain" "$lf" "$shim" <<'PY'
import os, subprocess, sys, time, statistics
runs, plain, lf, shim = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
base = dict(os.environ)
variants = {
    "omp": ([plain], base),
    "lf": ([lf, "lf"], base),
    "preload": ([plain], dict(base, LD_PRELOAD=shim, LF_SCHEDULE="auto")),
}
t = {k: [] for k in variants}
for r in range(runs):
    order = list(variants) if r % 2 == 0 else list(reversed(variants))
    for k in order:
        argv, env = variants[k]
        t0 = time.perf_counter()
        p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        t[k].append((time.perf_counter() - t0) * 1e3)
        if p.returncode != 0:
            sys.exit("bench-startup: %s exited %d: %s" % (k, p.returncode, p.stderr.decode()))
def q(v):
    v = sorted(v)
    return v[len(v) // 4], statistics.median(v), v[(3 * len(v)) // 4]
print("%-8s %9s %9s %9s   %s" % ("variant", "q1 ms", "median", "q3 ms", "minus omp, per round: median [q1, q3] ms"))
for k in variants:
    d = [a - b for a, b in zip(t[k], t["omp"])]
    lo, med, hi = q(t[k])
    dl, dm, dh = q(d)
    print("%-8s %9.2f %9.2f %9.2f   %+.2f [%+.2f, %+.2f]" % (k, lo, med, hi, dm, dl, dh))
print("%d interleaved rounds, 2 threads bound" % runs)
PY
