#!/bin/sh
# scripts/bench-suite.sh - the suite that judges LF_SCHEDULE=auto against each program's own
# schedule: unmodified OpenMP programs run bare (their own schedule under libgomp) and through
# the preload shim (build/.libs/libloopfarm-gomp.so, LF_SCHEDULE=auto), 2 threads bound
# (--threads for more).
# Cases: the GAP benchmark's kernels (bench/lf-graph-cxx, g++ -fopenmp) at several graph
# sizes, loops written to trip a learning schedule (bench/lf-suite-loops), and Debian's
# GraphicsMagick and ImageMagick binaries on a generated image (outputs compared byte for
# byte).  Each round runs a case's program three times, own, auto and own again (the A/A
# row), the order reversed every other round; the table gives per case and setting the
# medians and quartiles of the times and of the per-round ratios, and marks a case whose A/A
# spread exceeds the difference it reports as noise.  --compare adds a fourth run per round,
# another build's shim (or this one's under another schedule), so that two libraries are
# judged side by side rather than across runs.  doc/bench-suite.md explains the cases
# and how to read the table.  A benchmark for a quiet machine: never part of make check
# (tests/test_bench_suite.sh runs it at tiny sizes).  --help lists the options.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

usage() {
    cat <<EOF
usage: scripts/bench-suite.sh [options]
  Runs every case bare (the program's own schedule under libgomp) and through the
  preload shim with LF_SCHEDULE=auto, OMP_NUM_THREADS=T OMP_PROC_BIND=true, in each
  setting; each round runs own, auto, own (the A/A row) in that order, reversed in
  every other round.  Prints a table per setting and the geometric mean and worst case
  of auto/own; writes every run to OUT/runs.csv and the table to OUT/summary.csv.
options:
  --build DIR     the build directory [$top/build/normal]
  --cases LIST    comma-separated cases or groups [all]:
                    graph, loops, magick, all;
                    a kernel (bfs, pagerank, cc, sssp, bc, tc): all its graph sizes;
                    KERNEL-sS: one size (2^S vertices), e.g. pagerank-s19;
                    moving, flip, tripcount, outliers, few, twograin, triangular;
                    gm-resize, gm-blur, gm-rotate, gm-swirl, im-resize, im-blur, im-rotate
  --settings LIST comma-separated of dedicated, hog (a busy process pinned to the
                  last core), biglittle (thread T's iterations cost F times more:
                  only the loops cases can emulate it) [dedicated,hog,biglittle]
  --threads T     the team's threads, bound one per core, 2 <= T <= the cores [2]
  --rounds N      interleaved rounds, N >= 3 [7]
  --magick-rounds N
                  interleaved rounds of a magick case, N >= 3 [3 x --rounds]: a whole
                  process of about half a second, whose time on a shared host takes
                  one of two levels some 20 % apart, from run to run and whatever the
                  schedule; more rounds bring its median ratio within reach of 1.03
  --scales LIST   comma-separated graph scales (log2 vertices) for every kernel
                  [bfs, cc, sssp: 16,18,20,22; pagerank: 16,18,19,20; bc, tc: 16,17,18,19]
  --loop-size F   factor on each loops case's iterations [1]
  --min-ms MS     size every graph and loops case, by one bare calibration run of its
                  program before the rounds, so that its own run measures at least MS
                  ms: a graph kernel's trials (2 to 40), a loops case's iterations
                  (never fewer than the case's own size times F) [200]; 0: no
                  calibration, the trials by a per-trial estimate
  --image WxH     the generated image's size [1800x1800]
  --slow T:F      the biglittle setting's slow thread and factor [1:3]
  --schedule SPEC the shim run's LF_SCHEDULE, e.g. auto,plan=own to see what one of
                  auto's plans does alone (the column keeps the name auto) [auto]
  --compare DIR   adds a fourth run to every round, alt: the preload shim of another
                  build (DIR: a build directory, or a folder holding libloopfarm-gomp.so
                  and libloopfarm.so.0) under --compare-schedule; its rounds interleave
                  with the others, so two libraries are judged side by side
  --compare-schedule SPEC
                  alt's LF_SCHEDULE [--schedule]; alone, alt is this build's shim under
                  SPEC (e.g. auto against auto,plan=own)
  --gm PATH       GraphicsMagick's gm [/usr/bin/gm]
  --im PATH       ImageMagick's convert [/usr/bin/convert-im6.q16]
  --out DIR       where runs.csv, summary.csv and about.txt (what was run) go
                  [bench-suite-DATE]
  --from DIR      run nothing: print the tables of an earlier run from DIR/runs.csv
                  (its header from DIR/about.txt where there is one); summary.csv and
                  compare.csv go to --out when given.  No other option goes with it
  --quick         a smoke run: 3 rounds (magick too), scale 10, loop size 0.02, image 160x120,
                  min-ms 0 (unless given), at most 3 trials of a graph kernel
  --help          this text
reading the table (ms: the program's own measure of its loops: a graph kernel's time over
all its trials, a loops case's over all its executions; the whole process for magick):
  own, auto      median (q1 q3) over the rounds of the bare and the shim run
  auto/own       median (q1 q3) of the per-round ratios: below 1, auto was faster
  A/A            median (q1 q3) of own (second run) / own (first run) per round
  verdict        noise: the A/A spread (its median's or a quartile's distance from 1,
                 the largest) is at least |auto/own - 1|; else gain or loss; "!" marks
                 auto/own > 1.03, "short" an own median below 100 ms (too short to judge)
  with --compare, a second table per setting: alt's times, alt/own and alt/auto per
  round (median, q1, q3), and a verdict on alt/auto against the same A/A spread (better,
  worse or noise); its rows go to OUT/compare.csv
  geometric mean  over the cases of their medians, with [lo hi]: its 95 % bootstrap
                 interval when each case's rounds are drawn again with replacement
                 (1000 draws, a fixed seed): how far the noise between rounds alone
                 could move it on this machine; not how it would move on other cases
Sized so a run lasts >= 100 ms (--min-ms); the default suite takes about 50-60 minutes
on a quiet 2-core machine, most of it in the graph cases at 2^19 to 2^22 vertices.
Needs 2 cores or more.
EOF
}

die() {
    echo "bench-suite: $*" >&2
    exit 2
}

# What both tables share (awk): the runs of setting s read from runs.csv (v[case, round,
# variant], the cases in their order, each one's last round) and the statistics.
suite_awk='
    $1 == s {
        if (!(($2) in seen)) { seen[$2] = 1; order[++nc] = $2 }
        v[$2, $3, $4] = $5
        if ($3 + 0 > maxr[$2]) maxr[$2] = $3 + 0
    }
    # complete(c, r, vars): whether round r of case c has a run of every variant in vars
    # (space-separated).
    function complete(c, r, vars,   w, k, i) {
        k = split(vars, w, " ")
        for (i = 1; i <= k; i++) if (!((c, r, w[i]) in v)) return 0
        return 1
    }
    function sortv(a, n,   i, j, t) {
        for (i = 2; i <= n; i++) {
            t = a[i]
            for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
            a[j + 1] = t
        }
    }
    # stats(a, n): sets M, Q1, Q3: the median, and the quartiles as the order statistics
    # symmetric about it (of 3 values the extremes, of 7 the second and sixth).
    function stats(a, n) {
        sortv(a, n)
        M = (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
        Q1 = a[int((n - 1) / 4) + 1]
        Q3 = a[n - int((n - 1) / 4)]
    }
    # keep(k, a, n): keeps a[1..n], the rounds of the next case, as sample set k of the
    # interval below.
    function keep(k, a, n,   i, j) {
        i = ++KC[k]; KN[k, i] = n
        for (j = 1; j <= n; j++) KS[k, i, j] = a[j]
    }
    # interval(k): sets LO and HI, the 95 % bootstrap interval of the geometric mean over
    # the cases of set k of their medians: each case'"'"'s rounds drawn again with replacement,
    # as many as it has, 1000 times, from a fixed seed (the interval is the same for the
    # same runs).  How far the noise between rounds alone could move that mean; it says
    # nothing of the cases a suite does not hold.  Overwrites M, Q1 and Q3.
    function interval(k,   b, i, j, n, l, t, g, nb) {
        nb = 1000; srand(1)
        for (b = 1; b <= nb; b++) {
            l = 0
            for (i = 1; i <= KC[k]; i++) {
                n = KN[k, i]
                for (j = 1; j <= n; j++) t[j] = KS[k, i, int(rand() * n) + 1]
                stats(t, n); l += log(M)
            }
            g[b] = exp(l / KC[k])
        }
        sortv(g, nb)
        LO = g[int(nb * 0.025) + 1]; HI = g[nb - int(nb * 0.025)]
    }
    function dist(x) { return x > 1 ? x - 1 : 1 - x }
    # spread(): the A/A spread of the latest stats(): its median'"'"'s or a quartile'"'"'s distance
    # from 1, the largest.
    function spread(   d) {
        d = dist(M); if (dist(Q1) > d) d = dist(Q1); if (dist(Q3) > d) d = dist(Q3)
        return d
    }'

# The table of one setting from runs.csv (and its rows appended to summary.csv).
table() {
    awk -F, -v s="$1" -v csv="$summary" -v head="$table_head" "$suite_awk"'
    END {
        printf "%s: %s\n", s, head
        printf "%-14s %9s %9s %9s  %9s %9s %9s  %8s %6s %6s  %6s %6s %6s  %s\n", "case", "own_ms", "q1", "q3",
            "auto_ms", "q1", "q3", "auto/own", "q1", "q3", "A/A", "q1", "q3", "verdict"
        logs = 0; aalogs = 0; worst = 0
        for (i = 1; i <= nc; i++) {
            c = order[i]; n = 0
            for (r = 1; r <= maxr[c]; r++)
                if (complete(c, r, "own auto own2")) {
                    n++
                    own[n] = v[c, r, "own"]; au[n] = v[c, r, "auto"]
                    rat[n] = au[n] / own[n]; aa[n] = v[c, r, "own2"] / own[n]
                }
            if (n < 1) continue
            stats(own, n); om = M; o1 = Q1; o3 = Q3
            stats(au, n); am = M; a1 = Q1; a3 = Q3
            keep("rat", rat, n); keep("aa", aa, n)
            stats(rat, n); rm = M; r1 = Q1; r3 = Q3
            stats(aa, n); xm = M; x1 = Q1; x3 = Q3
            verdict = spread() >= dist(rm) ? "noise" : rm < 1 ? "gain" : "loss"
            if (rm > 1.03) verdict = verdict " !"
            if (om < 100) verdict = verdict " short"
            printf "%-14s %9.2f %9.2f %9.2f  %9.2f %9.2f %9.2f  %8.3f %6.3f %6.3f  %6.3f %6.3f %6.3f  %s\n",
                c, om, o1, o3, am, a1, a3, rm, r1, r3, xm, x1, x3, verdict
            printf "%s,%s,%d,%.3f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", s, c, n,
                om, o1, o3, am, a1, a3, rm, r1, r3, xm, x1, x3, verdict >>csv
            cases++; logs += log(rm); aalogs += log(xm)
            if (rm > worst) { worst = rm; wc = c; wq1 = r1; wq3 = r3; wx = xm }
        }
        if (cases) {
            interval("rat"); rlo = LO; rhi = HI
            interval("aa")
            printf "%s: geometric mean of auto/own over %d cases %.3f [%.3f %.3f] (A/A %.3f [%.3f %.3f]); worst %s %.3f (q1 %.3f q3 %.3f; A/A %.3f)\n\n",
                s, cases, exp(logs / cases), rlo, rhi, exp(aalogs / cases), LO, HI, wc, worst, wq1, wq3, wx
        }
    }' "$runs"
}

# The CSVs the tables append to, begun with their headers: summary.csv, and compare.csv
# when there is an alt run (either may be /dev/null: not kept).
begin_csvs() {
    [ "$summary" = /dev/null ] ||
        echo "setting,case,rounds,own_ms,own_q1,own_q3,auto_ms,auto_q1,auto_q3,ratio,ratio_q1,ratio_q3,aa,aa_q1,aa_q3,verdict" >"$summary"
    [ -z "$alt" ] || [ "$compare" = /dev/null ] ||
        echo "setting,case,rounds,alt_ms,alt_q1,alt_q3,alt_own,alt_own_q1,alt_own_q3,alt_auto,alt_auto_q1,alt_auto_q3,aa,verdict" >"$compare"
}

# Every table of setting $1: auto's, and with an alt run the compared one.
tables() {
    table "$1"
    [ -z "$alt" ] || compare_table "$1"
}

# The comparison of one setting (--compare): alt against own and against auto, round by
# round (its rows appended to compare.csv).
compare_table() {
    awk -F, -v s="$1" -v csv="$compare" -v lib="$alt_about" "$suite_awk"'
    END {
        printf "%s, compared: alt is %s\n", s, lib
        printf "%-14s %9s %9s %9s  %8s %6s %6s  %8s %6s %6s  %6s  %s\n", "case", "alt_ms", "q1", "q3",
            "alt/own", "q1", "q3", "alt/auto", "q1", "q3", "A/A", "verdict (alt against auto)"
        cases = 0; lo = 0; la = 0; lx = 0
        for (i = 1; i <= nc; i++) {
            c = order[i]; n = 0
            for (r = 1; r <= maxr[c]; r++)
                if (complete(c, r, "own auto alt own2")) {
                    n++
                    al[n] = v[c, r, "alt"]
                    ro[n] = al[n] / v[c, r, "own"]; ra[n] = al[n] / v[c, r, "auto"]
                    aa[n] = v[c, r, "own2"] / v[c, r, "own"]
                }
            if (n < 1) continue
            stats(al, n); am = M; a1 = Q1; a3 = Q3
            stats(ro, n); om = M; o1 = Q1; o3 = Q3
            keep("ro", ro, n); keep("ra", ra, n); keep("aa", aa, n)
            stats(ra, n); rm = M; r1 = Q1; r3 = Q3
            stats(aa, n); xm = M
            verdict = spread() >= dist(rm) ? "noise" : rm < 1 ? "better" : "worse"
            printf "%-14s %9.2f %9.2f %9.2f  %8.3f %6.3f %6.3f  %8.3f %6.3f %6.3f  %6.3f  %s\n",
                c, am, a1, a3, om, o1, o3, rm, r1, r3, xm, verdict
            printf "%s,%s,%d,%.3f,%.3f,%.3f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", s, c, n,
                am, a1, a3, om, o1, o3, rm, r1, r3, xm, verdict >>csv
            cases++; lo += log(om); la += log(rm); lx += log(xm)
        }
        if (cases) {
            interval("ro"); olo = LO; ohi = HI
            interval("ra"); alo = LO; ahi = HI
            interval("aa")
            printf "%s: geometric means over %d cases: alt/own %.3f [%.3f %.3f], alt/auto %.3f [%.3f %.3f] (A/A %.3f [%.3f %.3f])\n\n",
                s, cases, exp(lo / cases), olo, ohi, exp(la / cases), alo, ahi, exp(lx / cases), LO, HI
        }
    }' "$runs"
}

build=$top/build/normal
cases=all
settings=dedicated,hog,biglittle
rounds=
magick_rounds=
scales=
loop_size=
image=
slow=1:3
gm=/usr/bin/gm
im=/usr/bin/convert-im6.q16
out=
min_ms=
schedule=auto
quick=
alt_dir=
alt_schedule=
threads=2
from=
runs_opt=
max_trials=40 # a graph kernel's trials at the most (3 under --quick)
while [ $# -gt 0 ]; do
    case $1 in
    --help | -h)
        usage
        exit 0
        ;;
    --quick) quick=1 runs_opt="$runs_opt $1" ;;
    --build | --cases | --settings | --threads | --rounds | --magick-rounds | --scales | --loop-size | --min-ms | --image | --slow | --schedule | --compare | --compare-schedule | --gm | --im | --out | --from)
        [ $# -ge 2 ] || die "$1 needs a value (--help lists the options)"
        case $1 in --out | --from) ;; *) runs_opt="$runs_opt $1" ;; esac
        case $1 in
        --from) from=$2 ;;
        --build) build=$2 ;;
        --cases) cases=$2 ;;
        --settings) settings=$2 ;;
        --threads) threads=$2 ;;
        --rounds) rounds=$2 ;;
        --magick-rounds) magick_rounds=$2 ;;
        --scales) scales=$2 ;;
        --loop-size) loop_size=$2 ;;
        --min-ms) min_ms=$2 ;;
        --image) image=$2 ;;
        --slow) slow=$2 ;;
        --schedule) schedule=$2 ;;
        --compare) alt_dir=$2 ;;
        --compare-schedule) alt_schedule=$2 ;;
        --gm) gm=$2 ;;
        --im) im=$2 ;;
        --out) out=$2 ;;
        esac
        shift
        ;;
    *) die "unknown option '$1' (--help lists the options)" ;;
    esac
    shift
done
# --from: the tables of an earlier run, from its runs.csv; nothing is run.
if [ -n "$from" ]; then
    [ -z "$runs_opt" ] || die "--from summarises an earlier run and takes only --out, not$runs_opt"
    runs=$from/runs.csv
    [ -f "$runs" ] || die "--from: expected the folder of an earlier run, holding runs.csv; '$runs' is not a file"
    head -1 "$runs" | grep -q '^setting,case,round,variant,ms$' ||
        die "--from: expected $runs to begin with the header setting,case,round,variant,ms"
    bad=$(awk -F, 'NR > 1 && (NF != 5 || $3 !~ /^[1-9][0-9]*$/ || $4 !~ /^(own|auto|alt|own2)$/ ||
        $5 !~ /^[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/ || $5 + 0 <= 0) {
        printf "line %d, \"%s\"", NR, $0; exit }' "$runs")
    [ -z "$bad" ] || die "--from: $runs, $bad: expected setting,case,round (1, 2, ...),variant (own, auto, alt or own2),ms (> 0)"
    # The CSVs go to --out when given, else nowhere.
    if [ -n "$out" ]; then
        mkdir -p "$out" || die "--out: cannot create '$out'"
        summary=$out/summary.csv compare=$out/compare.csv
    else
        summary=/dev/null compare=/dev/null
    fi
    table_head="from $runs"
    [ -f "$from/about.txt" ] && table_head=$(sed -n 's/^table: //p' "$from/about.txt")
    alt_about="the runs named alt in $runs"
    [ -f "$from/about.txt" ] && grep -q '^compared: ' "$from/about.txt" &&
        alt_about=$(sed -n 's/^compared: //p' "$from/about.txt")
    alt=$(awk -F, '$4 == "alt" { print 1; exit }' "$runs")
    begin_csvs
    for setting in $(awk -F, 'NR > 1 && !($1 in s) { s[$1] = 1; print $1 }' "$runs"); do
        tables "$setting"
    done
    exit 0
fi
if [ -n "$quick" ]; then
    : "${rounds:=3}" "${magick_rounds:=3}" "${scales:=10}" "${loop_size:=0.02}" "${image:=160x120}" "${min_ms:=0}"
    max_trials=3
fi
: "${rounds:=7}" "${loop_size:=1}" "${min_ms:=200}" "${image:=1800x1800}" "${out:=bench-suite-$(date +%Y%m%d-%H%M%S)}"
case $threads in '' | *[!0-9]*) die "--threads: expected an integer >= 2, not '$threads'" ;; esac
[ "$threads" -ge 2 ] || die "--threads: expected an integer >= 2, not $threads"
case $rounds in '' | *[!0-9]*) die "--rounds: expected an integer >= 3, not '$rounds'" ;; esac
[ "$rounds" -ge 3 ] || die "--rounds: expected an integer >= 3 (quartiles need three rounds), not $rounds"
: "${magick_rounds:=$((3 * rounds))}"
case $magick_rounds in '' | *[!0-9]*) die "--magick-rounds: expected an integer >= 3, not '$magick_rounds'" ;; esac
[ "$magick_rounds" -ge 3 ] || die "--magick-rounds: expected an integer >= 3 (quartiles need three rounds), not $magick_rounds"
case $scales in *[!0-9,]* | ,* | *, | *,,*) die "--scales: expected comma-separated integers in [4, 26], not '$scales'" ;; esac
for s in $(echo "$scales" | tr , ' '); do
    if [ "$s" -lt 4 ] || [ "$s" -gt 26 ]; then die "--scales: expected comma-separated integers in [4, 26], not '$scales'"; fi
done
if ! echo "$loop_size" | grep -Eq '^[0-9]*\.?[0-9]+$' || ! awk -v f="$loop_size" 'BEGIN { exit !(f > 0) }'; then
    die "--loop-size: expected a positive number, not '$loop_size'"
fi
case $min_ms in '' | *[!0-9]*) die "--min-ms: expected an integer number of milliseconds >= 0, not '$min_ms'" ;; esac
echo "$image" | grep -Eq '^[1-9][0-9]*x[1-9][0-9]*$' || die "--image: expected WxH, e.g. 1800x1800, not '$image'"
echo "$slow" | grep -Eq '^[0-9]+:[1-9][0-9]*$' || die "--slow: expected T:F (thread T, integer factor F >= 1), not '$slow'"
for s in $(echo "$settings" | tr , ' '); do
    case $s in dedicated | hog | biglittle) ;; *) die "--settings: '$s' is not a setting: expected a comma-separated list of dedicated, hog and biglittle" ;; esac
done
[ -n "$(echo "$settings" | tr -d ,)" ] || die "--settings: expected a comma-separated list of dedicated, hog and biglittle"

graph_exe=$build/bench/lf-graph-cxx
loops_exe=$build/bench/lf-suite-loops
shim=$build/.libs/libloopfarm-gomp.so
for f in "$graph_exe" "$loops_exe" "$shim"; do
    [ -e "$f" ] || {
        echo "bench-suite: $f is missing: build first (scripts/build.sh build/normal && make -C build/normal)" >&2
        exit 1
    }
done
# The preload list of shim $1: a sanitizer build's shim needs its sanitizer runtimes loaded
# ahead of it.
preload_of() {
    rts=$(ldd "$1" 2>/dev/null | awk '/libasan/ { print $3 } /lib(ub|t)san/ { u = u " " $3 } END { print u }')
    echo $rts "$1"
}
preload=$(preload_of "$shim")
# The compared run (alt): another build's shim, found under DIR/.libs or in DIR; its folder
# leads the library path so that the shim loads its own libloopfarm.so.0.
alt=
alt_path=
if [ -n "$alt_dir" ]; then
    if [ -e "$alt_dir/.libs/libloopfarm-gomp.so" ]; then
        alt_path=$(cd "$alt_dir/.libs" && pwd)
    elif [ -e "$alt_dir/libloopfarm-gomp.so" ]; then
        alt_path=$(cd "$alt_dir" && pwd)
    else
        die "--compare: expected a build directory or a folder holding libloopfarm-gomp.so, not '$alt_dir'"
    fi
    alt_preload=$(preload_of "$alt_path/libloopfarm-gomp.so")
    alt=1
elif [ -n "$alt_schedule" ]; then
    alt_preload=$preload
    alt=1
fi
: "${alt_schedule:=$schedule}"
# The library path with folder $1 ahead of the caller's (no empty element: ld.so would read
# one as the current directory).
libpath_with() {
    if [ -n "$1" ]; then
        echo "$1${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    else
        echo "${LD_LIBRARY_PATH:-}"
    fi
}
alt_libpath=$(libpath_with "$alt_path")
# A schedule the shim does not accept would run every shim row under its fallback: refuse it.
# $1: the option, $2: the schedule, $3: the preload list, $4: the library path ahead, $5:
# check even auto (a shim that might not load).
check_schedule() {
    [ "$2" != auto ] || [ -n "${5:-}" ] || return 0
    res=$(OMP_NUM_THREADS=2 LD_LIBRARY_PATH="$(libpath_with "$4")" LD_PRELOAD="$3" LF_SCHEDULE="$2" \
        "$loops_exe" --case few --size 64 --execs 1 2>&1) ||
        die "$1: the shim failed to run a loop under '$2': $(printf '%s\n' "$res" | tail -2)"
    if printf '%s\n' "$res" | grep -q "cannot be preloaded"; then
        die "$1: the shim could not be preloaded: $(printf '%s\n' "$res" | grep "cannot be preloaded" | head -1)"
    fi
    if printf '%s\n' "$res" | grep -q "running the loop under"; then
        die "$1: the shim does not accept '$2': $(printf '%s\n' "$res" | grep -o 'schedule "[^"]*": [^;]*' | head -1)"
    fi
}
check_schedule --schedule "$schedule" "$preload" ""
if [ -n "$alt" ]; then
    opt=--compare-schedule
    [ -n "$alt_path" ] && opt=--compare
    check_schedule "$opt" "$alt_schedule" "$alt_preload" "$alt_path" always
fi
cores=$(nproc)
[ "$cores" -ge "$threads" ] || {
    echo "bench-suite: --threads $threads needs as many cores (has $cores)" >&2
    exit 1
}

kernels="bfs pagerank cc sssp bc tc"
loops_cases="moving flip tripcount outliers few twograin triangular"
magick_cases="gm-resize gm-blur gm-rotate gm-swirl im-resize im-blur im-rotate"
# The graph scales of a kernel: --scales, else the defaults (four sizes each, the larger
# ones where a trial costs least; PageRank at 2^19, where the program's loop has 32 units).
kernel_scales() {
    if [ -n "$scales" ]; then
        echo "$scales" | tr , ' '
        return
    fi
    case $1 in
    bfs | cc | sssp) echo 16 18 20 22 ;;
    pagerank) echo 16 18 19 20 ;;
    *) echo 16 17 18 19 ;;
    esac
}
# Every graph scale some kernel runs at, once each, in increasing order.
all_scales() {
    for k in $kernels; do kernel_scales "$k"; done | tr " " "\n" | sort -n | uniq
}
graph_cases=
for k in $kernels; do
    for s in $(kernel_scales "$k"); do graph_cases="$graph_cases $k-s$s"; done
done
# Resolve --cases to a list of case names, in the suite's order.
want=" "
for item in $(echo "$cases" | tr , ' '); do
    case " graph loops magick all $kernels $graph_cases $loops_cases $magick_cases " in
    *" $item "*) ;;
    *) die "--cases: '$item' is not a case: expected graph, loops, magick, all, a kernel ($kernels), a graph case (e.g. bfs-s16; these scales:$graph_cases), a loops case ($loops_cases) or a magick case ($magick_cases)" ;;
    esac
    case $item in
    all) want="$want$graph_cases $loops_cases $magick_cases " ;;
    graph) want="$want$graph_cases " ;;
    loops) want="$want$loops_cases " ;;
    magick) want="$want$magick_cases " ;;
    *-s[0-9]*) want="$want$item " ;;
    *) case " $kernels " in
        *" $item "*) for s in $(kernel_scales "$item"); do want="$want$item-s$s "; done ;;
        *) want="$want$item " ;;
        esac ;;
    esac
done
selected() { case $want in *" $1 "*) return 0 ;; esac; return 1; }

# What the calibration (--min-ms) chose for case $2, from $tmp/$1 (trials or sizes): printed,
# and true; false, printing nothing, when it chose nothing for the case.
calibrated() {
    [ -s "$tmp/$1" ] || return 1
    v=$(awk -v c="$2" '$1 == c { print $2 }' "$tmp/$1")
    [ -n "$v" ] && echo "$v"
}

# A graph kernel's trials at a scale: enough that their sum lasts >= 200 ms by a per-trial
# estimate (2 threads, this machine kind: ms at 2^16 and the factor per doubling of the
# vertices), from 2 (so that every run holds a trial after a whole trial of the sites' own
# past, where a learning schedule has settled) to max_trials.
trials_of() {
    calibrated trials "$1-s$2" && return
    awk -v k="$1" -v s="$2" -v most="$max_trials" 'BEGIN {
        split("bfs 8 2.3 pagerank 40 2.9 cc 15 2.3 sssp 40 2.1 bc 100 2.8 tc 190 2.8", a, " ")
        for (i = 1; i < 18; i += 3) if (a[i] == k) { base = a[i + 1]; g = a[i + 2] }
        t = int(200 / (base * g ^ (s - 16)) + 0.999)
        print (t < 2 ? 2 : (t > most ? most : t)) }'
}

mkdir -p "$out" || die "--out: cannot create '$out'"
runs=$out/runs.csv
summary=$out/summary.csv
compare=$out/compare.csv
echo "setting,case,round,variant,ms" >"$runs"
begin_csvs
# shellcheck source=scripts/bench-common.sh
. "$top/scripts/bench-common.sh"

now_ns() { date +%s%N; }
fail() {
    echo "bench-suite: $*" >&2
    exit 1
}
# with_variant VARIANT CMD...: runs CMD bare (own, own2), through the shim (auto) or through
# the compared shim (alt).
with_variant() {
    wv=$1
    shift
    case $wv in
    auto) LD_PRELOAD="$preload" LF_SCHEDULE="$schedule" "$@" ;;
    alt) LD_LIBRARY_PATH="$alt_libpath" LD_PRELOAD="$alt_preload" LF_SCHEDULE="$alt_schedule" "$@" ;;
    *) "$@" ;;
    esac
}
record() { echo "$setting,$1,$round,$2,$3" >>"$runs"; }

# One graph process at scale $1 for the selected kernels there; records each kernel's time
# over its trials.  Results are checked against the sequential ones in the first round.
run_graph() {
    scale=$1 variant=$2 list=
    for k in $kernels; do
        selected "$k-s$scale" && list="$list${list:+,}$k:$(trials_of "$k" "$scale")"
    done
    check=
    [ "$round" -gt 1 ] && check=--no-check
    res=$(with_variant "$variant" "$graph_exe" --scale "$scale" --kernels "$list" $check 2>&1) ||
        fail "lf-graph-cxx --scale $scale --kernels $list ($variant, $setting, round $round) failed: $(printf '%s\n' "$res" | tail -3)"
    printf '%s\n' "$res" | awk 'NR > 1 { print $1, $7 }' >"$tmp/graph"
    while read -r k ms; do record "$k-s$scale" "$variant" "$ms"; done <"$tmp/graph"
}

# The iterations of loops case $1: the calibrated ones, else the case's own size times
# --loop-size.
loops_size() {
    calibrated sizes "$1" && return
    "$loops_exe" --help | awk -v c="$1" -v f="$loop_size" '$1 == c {
        n = $NF; sub(/\]$/, "", n); n = int(n * f); print n < 1 ? 1 : n }'
}

# One lf-suite-loops process of case $1.
run_loops() {
    c=$1 variant=$2
    size=$(loops_size "$c")
    [ -n "$size" ] || fail "lf-suite-loops --help lists no case $c"
    extra=
    [ "$setting" = biglittle ] && extra="--slow $slow"
    # shellcheck disable=SC2086 # $extra is a list of options
    res=$(with_variant "$variant" "$loops_exe" --case "$c" --size "$size" $extra 2>&1) ||
        fail "lf-suite-loops --case $c --size $size $extra ($variant, $setting, round $round) failed: $(printf '%s\n' "$res" | tail -3)"
    record "$c" "$variant" "$(printf '%s\n' "$res" | awk 'NR == 2 { print $5 }')"
}

# One GraphicsMagick or ImageMagick process of case $1, timed whole; its output is kept
# per variant and compared byte for byte with the first own run's of the round.
run_magick() {
    c=$1 variant=$2
    case $c in
    gm-*) prog="$gm convert" ;;
    *) prog=$im ;;
    esac
    case $c in
    *-resize) op="-resize 150%" ;;
    *-blur) op="-blur 0x3" ;;
    *-rotate) op="-rotate 33" ;;
    *-swirl) op="-swirl 90" ;;
    esac
    t0=$(now_ns)
    # shellcheck disable=SC2086 # $prog and $op are word lists
    res=$(with_variant "$variant" $prog "$tmp/in.ppm" $op "$tmp/$variant.ppm" 2>&1) ||
        fail "$prog $op ($variant, $setting, round $round) failed: $res"
    t1=$(now_ns)
    record "$c" "$variant" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) / 1e6 }')"
}

# A round of a unit: own, auto, (alt,) own2 (reversed in even rounds), then the magick
# outputs compared.
run_round() {
    if [ $((round % 2)) -eq 1 ]; then order="own auto ${alt:+alt }own2"; else order="own2 ${alt:+alt }auto own"; fi
    for v in $order; do
        case $1 in
        graph) run_graph "$2" "$v" ;;
        loops) run_loops "$2" "$v" ;;
        magick) run_magick "$2" "$v" ;;
        esac
    done
    if [ "$1" = magick ]; then
        for v in auto ${alt:+alt }own2; do
            cmp -s "$tmp/own.ppm" "$tmp/$v.ppm" ||
                fail "$2: the $v run's image differs from the own run's ($setting, round $round)"
        done
    fi
}

# The generated image, once for every setting: GraphicsMagick's plasma (a random fractal;
# its pixels differ between runs, so both variants of every round read this one file).
magick_ok=
if selected gm-resize || selected gm-blur || selected gm-rotate || selected gm-swirl ||
    selected im-resize || selected im-blur || selected im-rotate; then
    for p in "$gm" "$im"; do
        if [ ! -x "$p" ]; then
            echo "bench-suite: $p not found (apt-get install graphicsmagick imagemagick): its cases are not run" >&2
        elif ! ldd "$p" 2>/dev/null | grep -q libgomp; then
            echo "bench-suite: $p does not link libgomp: the shim has no loop to take; its rows measure only the preload" >&2
        fi
    done
    if [ -x "$gm" ]; then
        "$gm" convert -size "$image" plasma:fractal "$tmp/in.ppm" || fail "$gm could not generate the $image image"
        magick_ok=1
    elif [ -x "$im" ]; then
        "$im" -size "$image" plasma:fractal "$tmp/in.ppm" || fail "$im could not generate the $image image"
        magick_ok=1
    fi
fi

alt_about="this build's shim"
[ -n "$alt_path" ] && alt_about=$alt_path
alt_about="$alt_about under LF_SCHEDULE=$alt_schedule"
table_head="$threads threads bound, $rounds rounds, $magick_rounds of a magick case (own, auto, own again; reversed every other round)"
# What the run was, for a reader of OUT and for --from.
{
    echo "bench-suite: $(date -u +%Y-%m-%dT%H:%M:%SZ) $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?'); rounds $rounds; settings $settings; CSV in $out"
    echo "table: $table_head"
    [ -z "$alt" ] || echo "compared: $alt_about"
} >"$out/about.txt"
head -1 "$out/about.txt"
[ -z "$alt" ] || echo "bench-suite: compared: alt is $alt_about"

# Calibration (--min-ms), before any setting's load starts: one bare process per graph scale
# (3 trials of each selected kernel, their median) and per loops case (at its own size); each
# case is then sized to measure at least min_ms on its own.  A loops case's time grows with its
# iterations linearly, the triangular one's with their square.
if [ "$min_ms" -gt 0 ]; then
    : >"$tmp/trials"
    : >"$tmp/sizes"
    for s in $(all_scales); do
        list=
        for k in $kernels; do selected "$k-s$s" && list="$list${list:+,}$k:3"; done
        [ -n "$list" ] || continue
        echo "bench-suite: calibrating the graph kernels at 2^$s vertices" >&2
        res=$("$graph_exe" --scale "$s" --kernels "$list" --no-check 2>&1) ||
            fail "lf-graph-cxx --scale $s --kernels $list (calibration) failed: $(printf '%s\n' "$res" | tail -3)"
        printf '%s\n' "$res" | awk -v s="$s" -v m="$min_ms" -v most="$max_trials" 'NR > 1 && $5 > 0 {
            t = int(m / $5 + 0.999); t = t < 2 ? 2 : (t > most ? most : t)
            printf "%s-s%s %d %.1f\n", $1, s, t, $5 }' >>"$tmp/trials"
    done
    for c in $loops_cases; do
        selected "$c" || continue
        echo "bench-suite: calibrating $c" >&2
        n0=$(loops_size "$c")
        res=$("$loops_exe" --case "$c" --size "$n0" 2>&1) ||
            fail "lf-suite-loops --case $c --size $n0 (calibration) failed: $(printf '%s\n' "$res" | tail -3)"
        printf '%s\n' "$res" | awk -v c="$c" -v n0="$n0" -v m="$min_ms" 'NR == 2 && $5 > 0 {
            f = m / $5; if (f < 1) f = 1; if (c == "triangular") f = sqrt(f)
            printf "%s %d %.1f\n", c, int(n0 * f + 0.999), $5 }' >>"$tmp/sizes"
    done
    sized=$(awk '{ printf "%s%s %d trials (%s ms each)", (NR > 1 ? ", " : ""), $1, $2, $3 }' "$tmp/trials")
    [ -s "$tmp/sizes" ] && sized="$sized${sized:+; }$(awk '{ printf "%s%s %d iterations (%s ms at its own size)", (NR > 1 ? ", " : ""), $1, $2, $3 }' "$tmp/sizes")"
    echo "bench-suite: sized for >= $min_ms ms: ${sized:-nothing to size}"
fi
for setting in $(echo "$settings" | tr , ' '); do
    [ "$setting" = hog ] && hog_start
    if [ "$setting" = biglittle ]; then
        echo "biglittle: thread ${slow%%:*}'s iterations cost ${slow#*:}x (lf-suite-loops --slow $slow); the graph and magick programs cannot emulate it and are not run here"
    fi
    # The units of this setting: a graph scale (one process for its kernels), a loops case,
    # a magick case.
    units=
    if [ "$setting" != biglittle ]; then
        for s in $(all_scales); do
            for k in $kernels; do
                if selected "$k-s$s"; then
                    units="$units graph:$s"
                    break
                fi
            done
        done
    fi
    for c in $loops_cases; do selected "$c" && units="$units loops:$c"; done
    if [ "$setting" != biglittle ]; then
        for c in $magick_cases; do
            selected "$c" || continue
            case $c in gm-*) p=$gm ;; *) p=$im ;; esac
            if [ -n "$magick_ok" ] && [ -x "$p" ]; then units="$units magick:$c"; fi
        done
    fi
    for u in $units; do
        round=1 n_rounds=$rounds
        [ "${u%%:*}" = magick ] && n_rounds=$magick_rounds
        while [ "$round" -le "$n_rounds" ]; do
            echo "bench-suite: $setting ${u#*:} round $round/$n_rounds" >&2
            run_round "${u%%:*}" "${u#*:}"
            round=$((round + 1))
        done
    done
    hog_stop
    tables "$setting"
done
# Over every setting: the geometric mean and worst case of the case medians.
awk -F, 'NR > 1 { n++; l += log($10); if ($10 > w) { w = $10; wc = $1 "/" $2 } }
    END { if (n) printf "all settings: geometric mean of auto/own over %d rows %.3f; worst %s %.3f\n", n, exp(l / n), wc, w }' "$summary"
