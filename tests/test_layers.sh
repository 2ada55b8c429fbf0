#!/bin/sh
# tests/test_layers.sh - the layers of doc/design.md hold: no file of lib/
# includes a header of, or calls a function defined only in, a layer it
# must not reach.
#
#   policy   <- exec <- {dispatch, sim, mpi} <- {omp, gomp, kmp, tools}
#   platform is used by the real-time executors, never by policy, exec, sim.
#   shim (what the preload shims share) is used by gomp and kmp alone.
#   mpi shares each rank chunk among the rank's threads through the node
#   dispatcher's public API (lf_ names of include/loopfarm.h) and nothing
#   else of it: its includes and its other calls into dispatch still fail.
#
# Includes are read from the sources ($srcdir/lib); calls from the built
# objects' undefined symbols ($builddir/lib, nm), so a call through a
# prototype written by hand is caught too.  A symbol counts as reached in a
# layer only when no allowed layer defines it as well.
#
# Usage: tests/test_layers.sh [--self-test]  (make check runs it; the
# self-test plants one violation of each kind in a copy and expects both
# checks to fail).
top=${srcdir:-.}
build=${builddir:-.}

# forbidden LAYER: the layers LAYER must not reach ("atomics" is
# lib/atomics.h: the pure layers see no atomics).
forbidden() {
    case $1 in
    policy) echo "atomics exec dispatch sim mpi platform omp shim gomp kmp" ;;
    exec) echo "atomics dispatch sim mpi platform omp shim gomp kmp" ;;
    sim) echo "atomics dispatch mpi platform omp shim gomp kmp" ;;
    dispatch) echo "sim mpi omp shim gomp kmp" ;;
    mpi) echo "sim dispatch omp shim gomp kmp" ;;
    platform) echo "policy exec dispatch sim mpi omp shim gomp kmp" ;;
    omp) echo "sim mpi shim gomp kmp" ;;
    shim) echo "sim mpi gomp kmp" ;;
    gomp) echo "sim mpi kmp" ;;
    kmp) echo "sim mpi gomp" ;;
    *) echo "" ;;
    esac
}

layers="policy exec sim dispatch mpi platform omp shim gomp kmp"

# public_only LAYER: forbidden layers whose public lf_ functions LAYER may
# call all the same.
public_only() {
    case $1 in
    mpi) echo "dispatch" ;;
    *) echo "" ;;
    esac
}

# The layer an include names ("" for public headers, config.h, system ones).
include_layer() {
    case $1 in
    atomics.h) echo atomics ;;
    */*) l=${1%%/*}
         case " $layers " in *" $l "*) echo "$l" ;; esac ;;
    esac
}

check_includes() { # root
    bad=0
    for layer in $layers; do
        [ -d "$1/lib/$layer" ] || continue
        no=$(forbidden "$layer")
        for f in "$1/lib/$layer"/*.c "$1/lib/$layer"/*.h; do
            [ -f "$f" ] || continue
            sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
                while read -r inc; do
                    l=$(include_layer "$inc")
                    case " $no " in *" $l "*)
                        [ -n "$l" ] && echo "FAIL: ${f#"$1"/} includes \"$inc\" ($layer must not reach $l)" ;;
                    esac
                done
        done
    done | tee /tmp/lf_layers.$$
    [ -s /tmp/lf_layers.$$ ] && bad=1
    rm -f /tmp/lf_layers.$$
    return $bad
}

# Symbols defined by the objects of each layer, then each layer's undefined
# ones checked against them.
check_calls() { # build root
    if ! command -v nm >/dev/null 2>&1; then
        echo "SKIP (calls): nm not found"
        return 0
    fi
    tmp=$(mktemp -d) || return 1
    found=0
    for layer in $layers; do
        : >"$tmp/def.$layer"
        : >"$tmp/und.$layer"
        for o in "$1/lib/$layer"/*.o; do
            [ -f "$o" ] || continue
            found=1
            nm -g --defined-only "$o" 2>/dev/null | awk '{print $NF}' >>"$tmp/def.$layer"
            nm -u "$o" 2>/dev/null | awk '{print $NF}' >>"$tmp/und.$layer"
        done
        sort -u -o "$tmp/def.$layer" "$tmp/def.$layer"
        sort -u -o "$tmp/und.$layer" "$tmp/und.$layer"
    done
    if [ $found = 0 ]; then
        echo "FAIL: no objects under $1/lib (run from the build directory)"
        rm -rf "$tmp"
        return 1
    fi
    bad=0
    for layer in $layers; do
        no=$(forbidden "$layer")
        # What the allowed layers (and the layer itself) define.
        : >"$tmp/ok"
        for other in $layers; do
            case " $no " in *" $other "*) ;; *) cat "$tmp/def.$other" >>"$tmp/ok" ;; esac
        done
        sort -u -o "$tmp/ok" "$tmp/ok"
        for other in $no; do
            [ -f "$tmp/def.$other" ] || continue
            comm -12 "$tmp/und.$layer" "$tmp/def.$other" | comm -23 - "$tmp/ok" >"$tmp/hit"
            case " $(public_only "$layer") " in *" $other "*)
                grep -v '^lf_[a-z]' "$tmp/hit" >"$tmp/hit2"
                mv "$tmp/hit2" "$tmp/hit" ;;
            esac
            while read -r sym; do
                echo "FAIL: lib/$layer calls $sym, defined in lib/$other ($layer must not reach $other)"
                bad=1
            done <"$tmp/hit"
        done
    done
    rm -rf "$tmp"
    return $bad
}

if [ "${1:-}" = --self-test ]; then
    # A copy with one planted include (policy -> dispatch) must fail, and a
    # planted call (sim -> dispatch's lf_loop_next) in the objects too.
    tmp=$(mktemp -d) || exit 1
    mkdir -p "$tmp/src/lib/policy" "$tmp/obj/lib/sim" "$tmp/obj/lib/dispatch"
    printf '#include "dispatch/dispatch.h"\n' >"$tmp/src/lib/policy/planted.c"
    printf 'int lf_loop_next(void *l, int t, long *f, unsigned long *c) { return 0; }\n' \
        >"$tmp/d.c"
    printf 'int lf_loop_next(void *, int, long *, unsigned long *);\n
int planted(void) { return lf_loop_next(0, 0, 0, 0); }\n' >"$tmp/s.c"
    cc -c -o "$tmp/obj/lib/dispatch/d.o" "$tmp/d.c" && cc -c -o "$tmp/obj/lib/sim/s.o" "$tmp/s.c" ||
        { echo "FAIL: self-test could not compile"; rm -rf "$tmp"; exit 1; }
    rc=0
    check_includes "$tmp/src" >/dev/null && { echo "FAIL: planted include not caught"; rc=1; }
    check_calls "$tmp/obj" >/dev/null && { echo "FAIL: planted call not caught"; rc=1; }
    rm -rf "$tmp"
    [ $rc = 0 ] && echo "ok: both planted violations caught"
    exit $rc
fi

rc=0
check_includes "$top" || rc=1
check_calls "$build" || rc=1
if [ $rc = 0 ]; then
    "$0" --self-test || rc=1
fi
[ $rc = 0 ] && echo "ok: no include or call crosses a forbidden direction"
exit $rc
