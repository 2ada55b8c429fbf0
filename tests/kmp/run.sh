#!/bin/sh
# tests/kmp/run.sh - the conformance suite of libloopfarm-kmp: the clang-built programs of
# tests/kmp, bare and preloaded, run by the suite runner the GCC shim uses (tests/gomp/run.sh).
# Usage: run.sh [program...]   (SHIM_THREADS="1 2" narrows the thread counts)
SHIM_ABI=kmp
export SHIM_ABI
exec "$(dirname "$0")/../gomp/run.sh" "$@"
