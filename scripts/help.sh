# shellcheck shell=sh
# scripts/help.sh - sourced first by the project's scripts, with the caller's
# arguments. script_help prints the calling script's header comment (its
# usage: from line 2 to the first line that is not a comment, the leading
# "# " removed); a script whose options come in a loop calls it for -h and
# --help wherever they stand. When the first argument is -h or --help, the
# help is printed here and the script exits 0 before it touches anything;
# any other first argument falls through unchanged.
script_help() {
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
}
case "${1:-}" in
-h | --help)
    script_help
    exit 0
    ;;
esac
