#!/bin/sh
# scripts/bundle-bench.sh - pack lf-bench, its peer children and the tools
# beside it, with the shared libraries they load, into one folder that runs
# on another x86-64 Linux machine without loopfarm's build or its -dev
# packages (a cluster node, a lent machine that reaches no package
# registry): bin/, lib/, scripts/bench-matrix.sh (with the help.sh it
# sources), the suite's programs and the preload shim under suite/ with
# scripts/bench-suite.sh, and run.sh, a wrapper that sets LD_LIBRARY_PATH.  The C and C++
# runtimes (libc, libm, libstdc++, libgcc_s) are left to the target, which
# must be at least as new as this machine's.
#
#   scripts/bundle-bench.sh [-b BUILD] OUTDIR
#
#   -b  the build folder whose programs are packed  [build/normal]
#
# Then, on the other machine:
#   OUTDIR/run.sh lf-bench --kernel spin --threads 16 ...
#   OUTDIR/run.sh matrix -t 16 -r 3 -e 10 -o out     (scripts/bench-matrix.sh)
#   OUTDIR/run.sh suite --threads 16 --cases graph   (scripts/bench-suite.sh)
#   OUTDIR/run.sh lf-info
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build/normal
# shellcheck source=scripts/help.sh
. "$top/scripts/help.sh"
while [ $# -gt 0 ]; do
    case $1 in
    -b)
        [ $# -ge 2 ] || { echo "bundle-bench.sh: -b needs a build folder (try --help)" >&2; exit 2; }
        build=$2
        shift 2
        ;;
    -h | --help) script_help; exit 0 ;;
    -*) echo "bundle-bench.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { echo "bundle-bench.sh: expected one OUTDIR (try --help)" >&2; exit 2; }
out=$1
[ -d "$build" ] || { echo "bundle-bench.sh: $build: no such build folder" >&2; exit 2; }
build=$(cd "$build" && pwd)
command -v ldd >/dev/null 2>&1 || { echo "bundle-bench.sh: ldd not found" >&2; exit 1; }

# The real program behind a libtool wrapper (bench/.libs/NAME), else NAME.
real() {
    if [ -x "$build/$1/.libs/$2" ]; then
        echo "$build/$1/.libs/$2"
    elif [ -x "$build/$1/$2" ]; then
        echo "$build/$1/$2"
    fi
}
bench=$(real bench lf-bench)
[ -n "$bench" ] || {
    echo "bundle-bench.sh: $build/bench/lf-bench not built (scripts/build.sh $build)" >&2
    exit 1
}
mkdir -p "$out/bin" "$out/lib" "$out/scripts"
progs=
for p in bench/lf-bench bench/lf-bench-libomp bench/lf-bench-lb4omp bench/lf-bench-tbb \
    bench/lf-claim-cost bench/lf-sim tools/lf-info; do
    f=$(real "$(dirname $p)" "$(basename $p)")
    if [ -n "$f" ]; then
        cp "$f" "$out/bin/"
        progs="$progs $f"
    else
        echo "bundle-bench.sh: $p not built: left out" >&2
    fi
done

# The suite's programs (built with the compiler's own OpenMP, no loopfarm)
# and the preload shim, laid out as bench-suite.sh's --build expects.
suite_files="bench/lf-graph-cxx bench/lf-suite-loops .libs/libloopfarm-gomp.so"
suite_ok=1
for p in $suite_files; do
    [ -e "$build/$p" ] || suite_ok=
done
if [ -n "$suite_ok" ]; then
    mkdir -p "$out/suite/bench" "$out/suite/.libs"
    for p in $suite_files; do
        cp "$build/$p" "$out/suite/$p"
        progs="$progs $build/$p"
    done
    cp "$top/scripts/bench-suite.sh" "$top/scripts/bench-common.sh" "$out/scripts/"
else
    echo "bundle-bench.sh: the suite's programs ($suite_files) not built: 'run.sh suite' left out" >&2
fi

# Every library the programs load, resolved as they run here (libtool's
# wrappers point the uninstalled libloopfarm at the build folder): one ldd
# per program, a library it cannot find an error.
deps=$out/.deps
: >"$deps"
for f in $progs; do
    LD_LIBRARY_PATH=$build/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ldd "$f" >"$deps.one"
    if grep -q 'not found' "$deps.one"; then
        echo "bundle-bench.sh: $f needs a library ldd cannot find:" >&2
        grep 'not found' "$deps.one" >&2
        rm -f "$deps" "$deps.one"
        exit 1
    fi
    cat "$deps.one" >>"$deps"
done
awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }' "$deps" | sort -u | while read -r name path; do
    case $name in
    libc.so.* | libm.so.* | libstdc++.so.* | libgcc_s.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*)
        continue ;;
    esac
    cp -L "$path" "$out/lib/$name"
done
rm -f "$deps" "$deps.one"
cp "$top/scripts/bench-matrix.sh" "$top/scripts/help.sh" "$out/scripts/"

cat >"$out/run.sh" <<'EOF'
#!/bin/sh
# run.sh PROGRAM [ARGS...] - run a program of this bundle with its libraries
# (made by loopfarm's scripts/bundle-bench.sh).  PROGRAM: lf-bench,
# lf-claim-cost, lf-sim, lf-info, matrix (scripts/bench-matrix.sh with
# this bundle's lf-bench) or suite (scripts/bench-suite.sh with its programs).
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
[ $# -ge 1 ] || { sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
prog=$1
shift
if [ "$prog" = matrix ]; then
    exec sh "$here/scripts/bench-matrix.sh" -b "$here/bin/lf-bench" "$@"
fi
if [ "$prog" = suite ]; then
    [ -f "$here/scripts/bench-suite.sh" ] || { echo "run.sh: this bundle holds no suite (its programs were not built)" >&2; exit 2; }
    exec sh "$here/scripts/bench-suite.sh" --build "$here/suite" "$@"
fi
[ -x "$here/bin/$prog" ] || { echo "run.sh: no program '$prog' in $here/bin" >&2; exit 2; }
exec "$here/bin/$prog" "$@"
EOF
chmod +x "$out/run.sh"
echo "bundle: $out ($(du -sh "$out" | cut -f1)): $(ls "$out/bin" | tr '\n' ' ')" >&2
