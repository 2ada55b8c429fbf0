#!/bin/sh
# scripts/plot-matrix.sh - the heat map of a robustness matrix from its CSV,
# with no run: schedules (peers above loopfarm) x cells, each square a row's
# efficiency over the best row's in that cell.  Also prints the headline
# table README.md carries (bench-matrix.sh's headline.md).
#
#   scripts/plot-matrix.sh [MATRIX.csv [OUT.png]]
# MATRIX.csv defaults to the latest full matrix committed under doc/results/,
# OUT.png to doc/img/matrix-heatmap.png (the picture README.md shows).
set -e
. "$(dirname "$0")/help.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
csv=${1:-$top/doc/results/host-2026-12-04-s24/matrix/matrix.csv}
png=${2:-$top/doc/img/matrix-heatmap.png}
[ $# -le 2 ] || { echo "usage: plot-matrix.sh [MATRIX.csv [OUT.png]] (try --help)" >&2; exit 2; }
[ -s "$csv" ] || { echo "plot-matrix.sh: $csv: expected a matrix.csv that bench-matrix.sh wrote" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/plot-matrix.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$top/scripts/bench-matrix.sh" --from "$csv" -o "$tmp" --plot >/dev/null 2>"$tmp/log" ||
    { cat "$tmp/log" >&2; exit 1; }
cp "$tmp/ratios.png" "$png"
cat "$tmp/headline.md"
echo "plot: $png" >&2
