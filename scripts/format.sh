#!/bin/sh
# scripts/format.sh [--check] - apply the repository's .clang-format to every
# C and C++ source (include, lib, bench, tests, tools); with --check, change
# nothing and fail listing the files that differ (scripts/test.sh step 1).
. "$(dirname "$0")/help.sh"
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
fmt=$(command -v clang-format || command -v clang-format-14)
[ -n "$fmt" ] || { echo "clang-format not found (Debian package clang-format)"; exit 1; }
files=$(find include lib bench tests tools \( -name '*.[ch]' -o -name '*.cc' -o -name '*.hpp' \) \
    -not -path 'tests/fuzz/corpus/*' | sort)
case "${1:-}" in
--check)
    bad=""
    for f in $files; do
        "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1 || bad="$bad $f"
    done
    if [ -n "$bad" ]; then
        echo "not formatted with .clang-format (run scripts/format.sh or make format):"
        for f in $bad; do echo "  $f"; done
        exit 1
    fi
    echo "format: $(echo "$files" | wc -l) files match .clang-format"
    ;;
"") "$fmt" -i $files ;;
*) echo "usage: scripts/format.sh [--check] (try --help)"; exit 2 ;;
esac
