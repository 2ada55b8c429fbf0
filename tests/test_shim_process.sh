#!/bin/sh
# tests/test_shim_process.sh - how each preload shim sits in a process, for libloopfarm-gomp
# and libloopfarm-kmp:
#   - how it links: no OpenMP runtime among the libraries it needs (a preloaded library that
#     lists libgomp made libgomp's barriers sleep instead of spin: lib/gomp/gomp.mk), so a
#     program without OpenMP starts with the shim preloaded even under LD_BIND_NOW, and a
#     program without OpenMP that dlopen()s an OpenMP library with RTLD_LOCAL (as Python loads
#     extension modules) gets that library's loops taken and right (tests/gomp/g_dlopen with
#     tests/gomp/g_dlopen_lib.so, or tests/kmp/k_dlopen_lib.so built by clang);
#   - its switch, lf_shim_enable (loopfarm.h): tests/gomp/g_switch (gcc) and tests/kmp/k_switch
#     (clang) check its answers without a shim, with a shim nothing configured and with
#     LF_SCHEDULE set; here, from LF_VERBOSE's "taking" lines between the program's marks, that
#     no loop started while it was off is the shim's and that each call site is taken once it
#     is back on.
# At 1, 2 and 3 threads.  Exit 77 when no shim was built.
top=$(pwd)
unset LF_SCHEDULE LF_REPLACE LF_TRACE LF_VERBOSE OMP_SCHEDULE
LD_LIBRARY_PATH="$top/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
fails=0
ran=0
fail() {
    echo "FAIL: $*"
    fails=$((fails + 1))
}
for abi in gomp kmp; do
    shim="$top/.libs/libloopfarm-$abi.so"
    if [ ! -f "$shim" ]; then
        echo "test_shim_process.sh: no libloopfarm-$abi built here: skipped"
        continue
    fi
    ran=$((ran + 1))
    px=$(echo $abi | cut -c1)
    # A sanitizer build's shim needs its sanitizer runtimes loaded first.
    rts=$(ldd "$shim" 2>/dev/null | awk '/libasan/ {print $3} /lib(ub|t)san/ {u = u " " $3} END {print u}')
    preload=$(echo $rts "$shim")

    # ---- How it links ----
    if command -v readelf >/dev/null 2>&1; then
        needed=$(readelf -d "$shim" | awk '/NEEDED/ { printf "%s ", $NF }' | tr -d '[]')
        case " $needed" in
        *" libgomp"* | *" libomp"* | *" libiomp"*)
            fail "libloopfarm-$abi needs an OpenMP runtime: $needed" ;;
        esac
    else
        echo "test_shim_process.sh: no readelf: DT_NEEDED not checked"
    fi
    out=$(LD_BIND_NOW=1 LD_PRELOAD="$preload" LF_SCHEDULE=auto sh -c 'echo started' 2>&1)
    [ "$out" = started ] ||
        fail "$abi: a program without OpenMP under LD_BIND_NOW with the shim preloaded: $out"
    lib="$top/tests/$abi/${px}_dlopen_lib.so"
    if [ -f "$lib" ] && [ -x "$top/tests/gomp/g_dlopen" ]; then
        for t in 1 2 3; do
            out=$(OMP_NUM_THREADS=$t timeout 60 "$top/tests/gomp/g_dlopen" "$lib" 2>&1) ||
                fail "$abi, $t threads, dlopen, no shim: $out"
            out=$(OMP_NUM_THREADS=$t LD_PRELOAD="$preload" LF_SCHEDULE=dynamic,4 LF_VERBOSE=1 \
                timeout 60 "$top/tests/gomp/g_dlopen" "$lib" 2>&1) ||
                fail "$abi, $t threads, dlopen, shim preloaded: $(printf '%s\n' "$out" | tail -3)"
            printf '%s\n' "$out" | grep -q "taking the" ||
                fail "$abi, $t threads: the shim did not take the dlopen'ed library's loop"
        done
    else
        echo "test_shim_process.sh: no ${px}_dlopen_lib.so or g_dlopen built here: dlopen not checked for $abi"
    fi

    # ---- Its switch ----
    prog="$top/tests/$abi/${px}_switch"
    if [ ! -x "$prog" ]; then
        echo "test_shim_process.sh: no ${px}_switch built here: the switch not checked for $abi"
        continue
    fi
    for t in 1 2 3; do
        export OMP_NUM_THREADS=$t
        out=$(timeout 60 "$prog" absent 2>&1) || fail "$abi, $t threads, switch, no shim: $out"
        out=$(LD_PRELOAD="$preload" timeout 60 "$prog" unconfigured 2>&1) ||
            fail "$abi, $t threads, switch, shim without LF_SCHEDULE: $out"
        out=$(LD_PRELOAD="$preload" LF_SCHEDULE=dynamic,4 LF_VERBOSE=1 timeout 60 "$prog" \
            configured 2>&1) || fail "$abi, $t threads, switch, LF_SCHEDULE=dynamic,4: $out"
        # Taking lines per stretch: before "MARK off" (none: no loop ran), between "MARK off"
        # and "MARK on" (none: off), then one (loop B's site), then one (loop A's site).
        counts=$(printf '%s\n' "$out" | awk '
            /^MARK off/ { p = 1; next } /^MARK on/ { p = 2; next } /^MARK again/ { p = 3; next }
            /taking the/ { c[p]++ }
            END { printf "%d %d %d %d", c[0], c[1], c[2], c[3] }')
        [ "$counts" = "0 0 1 1" ] ||
            fail "$abi, $t threads: call sites taken per stretch (start, off, on, again) $counts, expected 0 0 1 1"
    done
    unset OMP_NUM_THREADS
done
[ $ran -eq 0 ] && exit 77
[ $fails -eq 0 ] &&
    echo "ok: the shims need no OpenMP runtime, find the program's, and switch off and on ($ran shim(s))"
[ $fails -eq 0 ]
