#!/bin/sh
# tests/test_scripts_help.sh - every script a user runs (scripts/*.sh and
# scripts/paper/*.sh that are executable) answers -h and --help: exit 0,
# its usage on stdout naming the script, and nothing written or started
# (each runs in an empty scratch folder, which must stay empty). A script
# must say it handles --help (it sources scripts/help.sh or matches
# "-h | --help") before it is run at all, so that a script without help
# fails here instead of starting its real work. Then a few wrong first
# arguments must be refused with exit status 2 and a message on stderr.
# Run from the build directory (make check).
top=$(cd "${srcdir:-.}" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$scratch.err"' EXIT
fails=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
# The scratch folder must still be empty after a run of "$*"; emptied again.
scratch_kept_empty() {
    if [ -n "$(ls -A "$scratch")" ]; then
        fail "$*: wrote $(ls -A "$scratch" | head -3 | tr '\n' ' ')in the folder it ran in"
        rm -rf "${scratch:?}"/* "${scratch:?}"/.[!.]* 2>/dev/null
    fi
}
unset LF_SIM LF_PLAN
count=0
for f in "$top"/scripts/*.sh "$top"/scripts/paper/*.sh; do
    [ -x "$f" ] || continue # sourced by others, not run
    rel=${f#"$top"/}
    if ! grep -q 'help\.sh"' "$f" && ! grep -Eq -- '-h \| --help\)|--help \| -h\)' "$f"; then
        fail "$rel: handles neither -h nor --help (source scripts/help.sh after its header)"
        continue
    fi
    for opt in -h --help; do
        out=$(cd "$scratch" && timeout 20 sh "$f" "$opt" 2>"$scratch.err")
        rc=$?
        if [ $rc -ne 0 ]; then
            fail "$rel $opt: exit status $rc, expected 0 ($(head -c 300 "$scratch.err"))"
        elif ! printf '%s\n' "$out" | head -1 | grep -q "$rel"; then
            fail "$rel $opt: the first line of its help does not name $rel: $(printf '%s\n' "$out" | head -1)"
        elif [ "$(printf '%s\n' "$out" | wc -l)" -lt 2 ]; then
            fail "$rel $opt: a help of one line: $out"
        fi
        scratch_kept_empty "$rel $opt"
    done
    count=$((count + 1))
done
rm -f "$scratch.err"
[ $count -ge 20 ] || fail "only $count scripts found under $top/scripts"

# Wrong first arguments: refused with status 2 and a line on stderr, before
# any work (no build directory is made, nothing is formatted or installed).
refused() { # expected-words script args...
    words=$1 script=$2
    shift 2
    err=$(cd "$scratch" && timeout 20 sh "$top/scripts/$script" "$@" 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 2 ] || fail "scripts/$script $*: exit status $rc, expected 2"
    printf '%s\n' "$err" | grep -q -- "$words" || fail "scripts/$script $*: stderr does not say '$words': $err"
    scratch_kept_empty "scripts/$script $*"
}
refused "expected a build directory" build.sh
refused "expected a build directory" build.sh --prefix=/tmp
refused "unknown option" build-lb4omp.sh --bogus
refused "usage" bench-startup.sh
refused "is not a directory" bench-startup.sh /nonexistent-build
refused "unknown argument" bench-matrix.sh --bogus
refused "expected a matrix.csv" plot-matrix.sh /nonexistent.csv

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "PASS: $count scripts answer -h and --help; wrong first arguments are refused"
