#!/bin/sh
# tests/test_env_one_reader.sh - every LF_* variable is read by
# lib/platform/env.c alone, and the pure layers (lib/policy, lib/exec,
# lib/sim) never reach the environment.
top=${srcdir:-.}
bad=$(grep -rn --include='*.c' --include='*.h' -e 'getenv *( *"LF_' -e 'secure_getenv' \
    "$top/lib" "$top/tools" | grep -v 'lib/platform/env\.c:')
if [ -n "$bad" ]; then
    echo "FAIL: LF_* read outside lib/platform/env.c:"
    echo "$bad"
    exit 1
fi
pure=$(grep -rln --include='*.c' --include='*.h' -e 'getenv *(' -e 'platform/env\.h' \
    "$top/lib/policy" "$top/lib/exec" "$top/lib/sim" 2>/dev/null)
if [ -n "$pure" ]; then
    echo "FAIL: a pure layer reads the environment: $pure"
    exit 1
fi
echo "ok: the LF_* environment is read in lib/platform/env.c only"
