#!/bin/sh
# scripts/build-lb4omp.sh [PREFIX] - build LB4OMP's runtime (libomp.so) for
# lf-bench's lb4omp: rows and install it under PREFIX [build/lb4omp], where
# configure looks for it by default (else configure --with-lb4omp=PREFIX).
# Nothing is rebuilt when PREFIX already holds a libomp.so built from the
# same snapshot.
#
# The source is the snapshot LB4OMP-*.tar.xz of $LB4OMP_ANCHORS
# [../shared/anchors beside the source tree], built by the build-lb4omp.sh
# that lies beside it (clang-14, CMake, Ninja; about 2-4 minutes on 2 cores).
# LB4OMP is a peer to measure against: nothing of it enters loopfarm.
# Exit status: 0 built or already there; 1 it could not be built (one line
# says why).
. "$(dirname "$0")/help.sh"
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in -*)
    echo "build-lb4omp: unknown option '$1'; expected an install PREFIX (try --help)" >&2
    exit 2
    ;;
esac
prefix=${1:-$top/build/lb4omp}
case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
anchors=${LB4OMP_ANCHORS:-$top/../shared/anchors}

tarball=$(ls "$anchors"/LB4OMP-*.tar.xz 2>/dev/null | head -1)
if [ -z "$tarball" ] || [ ! -f "$anchors/build-lb4omp.sh" ]; then
    echo "build-lb4omp: no LB4OMP snapshot and build script in $anchors (set LB4OMP_ANCHORS)" >&2
    exit 1
fi
snapshot=$(basename "$tarball" .tar.xz)
if [ -f "$prefix/lib/libomp.so" ] && [ "$(cat "$prefix/.snapshot" 2>/dev/null)" = "$snapshot" ]; then
    echo "build-lb4omp: $prefix/lib/libomp.so ($snapshot) is already built"
    exit 0
fi

work=$prefix.build
rm -rf "$work"
mkdir -p "$work" || exit 1
log=$work/build.log
echo "build-lb4omp: building $snapshot into $prefix (log: $log)"
if tar -xJf "$tarball" -C "$work" &&
    BUILD="$work/build" JOBS=${JOBS:-2} sh "$anchors/build-lb4omp.sh" "$work/$snapshot" "$prefix" \
        >"$log" 2>&1 && [ -f "$prefix/lib/libomp.so" ]; then
    echo "$snapshot" >"$prefix/.snapshot"
    rm -rf "$work/$snapshot" "$work/build"
    echo "build-lb4omp: installed $prefix/lib/libomp.so"
    exit 0
fi
echo "build-lb4omp: LB4OMP did not build: $(tail -1 "$log" 2>/dev/null)" >&2
exit 1
