#!/bin/sh
# tests/test_needed.sh - what loading libloopfarm and its preload shims costs a program at
# start-up: each needs (its ELF NEEDED entries) the C library, the dynamic loader and
# libloopfarm itself, nothing more.  libm is not linked (lib/policy/fmath.h), PAPI and hwloc are
# opened only when asked for (lib/platform/dl.c).  The split parts of older C libraries
# (libdl, libpthread, librt) are allowed, and so are a sanitizer's runtimes in a sanitized
# build (start-up is not what such a build is for).  Skipped (77) without objdump or a shared
# build.
build=${builddir:-.}
command -v objdump >/dev/null 2>&1 || { echo "SKIP: no objdump"; exit 77; }
[ -f "$build/.libs/libloopfarm.so" ] || { echo "SKIP: no shared libloopfarm in $build"; exit 77; }
fail=0
for lib in libloopfarm.so libloopfarm-gomp.so libloopfarm-kmp.so; do
    f="$build/.libs/$lib"
    [ -f "$f" ] || continue
    needed=$(objdump -p "$f" | awk '$1 == "NEEDED" { print $2 }')
    [ -n "$needed" ] || { echo "FAIL: $lib: objdump shows no NEEDED entry"; fail=1; continue; }
    for n in $needed; do
        case $n in
        libc.so.* | ld-linux*.so.* | libloopfarm.so.* | libdl.so.* | libpthread.so.* | librt.so.*) ;;
        libasan.so.* | libubsan.so.* | libtsan.so.* | liblsan.so.* | libclang_rt.*) ;;
        *)
            echo "FAIL: $lib needs $n (a library every program that loads it pays for at start-up)"
            fail=1
            ;;
        esac
    done
    echo "$lib: $(echo $needed)"
done
exit $fail
