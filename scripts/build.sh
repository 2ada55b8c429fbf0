#!/bin/sh
# scripts/build.sh DIR [configure options...] - bootstrap if needed, then
# configure loopfarm out of tree in DIR and build it.
. "$(dirname "$0")/help.sh"
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
'' | -*)
    echo "build.sh: expected a build directory first, e.g. scripts/build.sh build/normal (try --help)" >&2
    exit 2
    ;;
esac
dir=$1
shift
[ -x "$top/configure" ] || (cd "$top" && autoreconf -fi >/dev/null 2>&1)
mkdir -p "$dir"
cd "$dir"
if [ ! -f Makefile ]; then
    "$top/configure" -q "$@"
fi
make -j"$(nproc)" >/dev/null
