#!/bin/sh
# scripts/deps.sh - make sure the Debian packages loopfarm builds and tests
# with are present.  As root it installs what is missing; otherwise it prints
# the exact apt-get line and fails.
#   scripts/deps.sh [--check]    --check: only report, never install
# libtbb-dev: lf-bench's tbb: rows; clang-14, cmake, ninja-build, perl, xz-utils:
# scripts/build-lb4omp.sh (LB4OMP, lf-bench's lb4omp: rows); clang-format: scripts/format.sh.
# gfortran: tests/fortran; libopenmpi-dev, openmpi-bin: libloopfarm-mpi and its tests;
# libglpk-dev: lf-plan.
. "$(dirname "$0")/help.sh"
PKGS="autoconf automake libtool pkg-config make gcc g++ libhwloc-dev libpapi-dev libcunit1-dev
      gnuplot-nox clang libomp-dev libclang-rt-14-dev python3 libtbb-dev clang-14 cmake ninja-build
      perl xz-utils clang-format gfortran libopenmpi-dev openmpi-bin libglpk-dev"
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$1" = "--check" ] || [ "$(id -u)" != 0 ]; then
    echo "loopfarm needs these packages:$missing" >&2
    echo "install them with:  sudo apt-get install -y$missing" >&2
    exit 1
fi
echo "installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null && apt-get install -y -qq $missing >/dev/null || {
    echo "apt-get install failed for:$missing" >&2
    exit 1
}
