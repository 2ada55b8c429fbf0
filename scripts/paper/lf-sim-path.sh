# scripts/paper/lf-sim-path.sh - sourced by the reproduction scripts: sets
# LF_SIM to the lf-sim binary ($LF_SIM, a build folder, or $PATH).
if [ -z "${LF_SIM:-}" ]; then
    top=$(cd "$(dirname "$0")/../.." && pwd)
    for cand in "$top/build/normal/bench/lf-sim" "$top/build/bench/lf-sim" "$top/bench/lf-sim"; do
        if [ -x "$cand" ]; then LF_SIM=$cand; break; fi
    done
fi
if [ -z "${LF_SIM:-}" ]; then
    LF_SIM=$(command -v lf-sim || true)
fi
if [ -z "$LF_SIM" ] || [ ! -x "$LF_SIM" ]; then
    echo "$(basename "$0"): lf-sim not found; build it (scripts/build.sh) or set LF_SIM=/path/to/lf-sim" >&2
    exit 2
fi
