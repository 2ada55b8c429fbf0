#!/bin/sh
# tests/test_bench_suite.sh - the programs of scripts/bench-suite.sh get their sequential
# results bare and under the preload shim with auto (bench/lf-suite-loops' seven cases at
# 1, 2 and 3 threads, with and without an emulated slow thread; bench/lf-graph-cxx's six
# kernels, the g++ build), refuse bad options with a message; and the script's smoke run
# (--quick) prints, per setting, a table with a row of numbers per case and a summary line,
# writes a CSV row per run, compares the magick outputs, and refuses bad options.  Results
# and formats only, not performance.  Exit 77 when the programs or the shim were not built.
top=$(pwd)
src=${srcdir:-.}
shim="$top/.libs/libloopfarm-gomp.so"
loops="$top/bench/lf-suite-loops"
graph="$top/bench/lf-graph-cxx"
suite="$src/scripts/bench-suite.sh"
if [ ! -f "$shim" ] || [ ! -x "$loops" ] || [ ! -x "$graph" ]; then
    echo "test_bench_suite.sh: no shim, lf-suite-loops or lf-graph-cxx built here: skipped"
    exit 77
fi
unset LF_SCHEDULE LF_REPLACE LF_TRACE LF_VERBOSE OMP_SCHEDULE OMP_PROC_BIND
# A sanitizer build's shim needs its sanitizer runtimes loaded first.
rts=$(ldd "$shim" 2>/dev/null | awk '/libasan/ {print $3} /lib(ub|t)san/ {u = u " " $3} END {print u}')
preload=$(echo $rts "$shim")
fails=0
bad() {
    echo "FAIL: $*"
    printf '%s\n' "$out" | head -5 | sed 's/^/    /'
    fails=$((fails + 1))
}
cases="moving flip tripcount outliers few twograin triangular"
# Every case, tiny, bare and under auto, at 1, 2 and 3 threads, a slow thread where there
# is one: exit 0 and one row naming the case with a positive total.
for t in 1 2 3; do
    for c in $cases; do
        for slow in "" "--slow 1:3"; do
            [ "$t" -eq 1 ] && [ -n "$slow" ] && continue
            for pre in "" "$preload"; do
                # shellcheck disable=SC2086 # $slow is a list of options
                out=$(OMP_NUM_THREADS=$t LD_PRELOAD="$pre" LF_SCHEDULE=${pre:+auto} \
                    timeout 120 "$loops" --case $c --execs 3 --size 3000 $slow 2>&1)
                rc=$?
                row=$(printf '%s\n' "$out" | awk -v c=$c -v t=$t 'NR == 2 && $1 == c && $4 == t && $5 > 0 { print "ok" }')
                if [ $rc -ne 0 ] || [ "$row" != ok ]; then
                    bad "lf-suite-loops --case $c $slow, $t threads, $([ -n "$pre" ] && echo auto || echo libgomp) (exit $rc)"
                fi
            done
        done
    done
done
# Bad options: exit 2 and a message naming what was expected.
for args in "--case nosuch" "--case" "" "--case few --slow 1" "--case few --slow 2:3" \
    "--case few --slow 1:0" "--case few --execs 0" "--case few --size x"; do
    # shellcheck disable=SC2086 # $args is a list of options
    out=$(OMP_NUM_THREADS=2 timeout 60 "$loops" $args 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q "expected\|required\|no thread"; then
        bad "lf-suite-loops $args: exit $rc, expected 2 and a message"
    fi
done
# The g++ build of the graph kernels: all six agree with their sequential runs, bare and
# under auto.
for pre in "" "$preload"; do
    out=$(OMP_NUM_THREADS=2 LD_PRELOAD="$pre" LF_SCHEDULE=${pre:+auto} \
        timeout 120 "$graph" --scale 10 --trials 2 --kernels all 2>&1)
    rc=$?
    rows=$(printf '%s\n' "$out" | awk 'NR > 1 && NF == 7 && $7 > 0 { r++ } END { print r + 0 }')
    if [ $rc -ne 0 ] || [ "$rows" != 6 ]; then
        bad "lf-graph-cxx --kernels all, $([ -n "$pre" ] && echo auto || echo libgomp): exit $rc, $rows rows (expected 6)"
    fi
done
# The script's smoke runs: a table per setting, with a row of numbers per case run there,
# a summary line, and the CSVs.  biglittle runs only the loops cases (and says so).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The magick cases where their binaries are installed, and not in a sanitizer build (the
# uninstrumented binaries would run under the preloaded sanitizer runtime).
magick=
if [ -n "$rts" ]; then
    echo "sanitizer build: the magick cases are left out"
else
    [ -x /usr/bin/gm ] && magick="$magick gm-blur"
    [ -x /usr/bin/convert-im6.q16 ] && magick="$magick im-rotate"
fi
magick_list=$(echo $magick | tr ' ' ,)
# check_table SETTING CASES...: the SETTING table of $out has a header, a row per case
# with twelve positive numbers and a verdict, and its summary line.
check_table() {
    s=$1
    shift
    printf '%s\n' "$out" | awk -v s="$s" -v want="$*" '
        BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) need[w[i]] = 1 }
        $1 == s ":" && $2 == "2" { on = 1; next }
        on && $1 == "case" { head = ($8 == "auto/own" && $11 == "A/A" && $14 == "verdict"); next }
        on && $1 == s ":" && $2 == "geometric" { sum = 1; on = 0; next }
        on && ($1 in need) {
            ok = NF >= 14
            for (i = 2; i <= 13; i++) ok = ok && $i + 0 > 0
            ok = ok && ($14 == "noise" || $14 == "gain" || $14 == "loss")
            if (ok) { got[$1] = 1 } else print "bad row: " $0
        }
        END {
            for (c in need) if (!(c in got)) print "no row for " c
            if (!head) print "no header"
            if (!sum) print "no summary line"
        }'
}
# A magick case runs --magick-rounds rounds, the others --rounds (3 under --quick).
out=$(timeout 600 sh "$suite" --build "$top" --quick --magick-rounds 4 \
    --cases "graph,loops${magick_list:+,$magick_list}" --settings dedicated --out "$tmp/a" 2>&1)
rc=$?
want="bfs-s10 pagerank-s10 cc-s10 sssp-s10 bc-s10 tc-s10 $cases $magick"
problems=$(check_table dedicated $want)
runs=$((($(echo $want | wc -w) - $(echo $magick | wc -w)) * 3 * 3 + $(echo $magick | wc -w) * 4 * 3 + 1))
if [ $rc -ne 0 ] || [ -n "$problems" ]; then
    bad "bench-suite.sh --quick (dedicated): exit $rc; $problems"
elif [ "$(wc -l <"$tmp/a/runs.csv")" -ne $runs ] ||
    [ "$(wc -l <"$tmp/a/summary.csv")" -ne $(($(echo $want | wc -w) + 1)) ]; then
    bad "bench-suite.sh --quick: $(wc -l <"$tmp/a/runs.csv") lines in runs.csv (expected $runs), $(wc -l <"$tmp/a/summary.csv") in summary.csv"
fi
out=$(timeout 600 sh "$suite" --build "$top" --quick --cases moving,bfs-s10 \
    --settings hog,biglittle --out "$tmp/b" 2>&1)
rc=$?
problems="$(check_table hog moving bfs-s10)$(check_table biglittle moving)"
if [ $rc -ne 0 ] || [ -n "$problems" ] ||
    ! printf '%s\n' "$out" | grep -q "cannot emulate it and are not run here" ||
    printf '%s\n' "$out" | awk '$1 == "biglittle:" { on = 1 } on && $1 == "bfs-s10"' | grep -q .; then
    bad "bench-suite.sh --quick (hog, biglittle): exit $rc; $problems"
fi
# Calibration (--min-ms): one line names each case with its trials (2 to the --quick
# most of 3) or iterations (never fewer than its own size times --loop-size).
out=$(timeout 600 sh "$suite" --build "$top" --quick --min-ms 30 --cases few,bfs-s10 \
    --settings dedicated --out "$tmp/c" 2>&1)
rc=$?
sized=$(printf '%s\n' "$out" | grep "^bench-suite: sized for >= 30 ms: ")
few0=$("$loops" --help | awk '$1 == "few" { n = $NF; sub(/\]$/, "", n); print int(n * 0.02) }')
if [ $rc -ne 0 ] || [ -n "$(check_table dedicated few bfs-s10)" ] ||
    ! printf '%s\n' "$sized" | grep -Eq "bfs-s10 [23] trials \(" ||
    ! printf '%s\n' "$sized" | awk -v n0="$few0" '{
        for (i = 1; i < NF; i++) if ($i == "few") ok = $(i + 1) + 0 >= n0 }
        END { exit !ok }'; then
    bad "bench-suite.sh --quick --min-ms 30: exit $rc; sized line: '$sized' (few's own size $few0)"
fi
# --compare: a fourth run per round (alt, another build's shim: here a copy of this one's in
# a folder of its own, under another schedule); a compared table per setting with a row of
# nine positive numbers and a verdict per case, its summary line, and compare.csv's rows.
mkdir "$tmp/alt"
cp "$top/.libs/libloopfarm-gomp.so" "$top/.libs/libloopfarm.so.0" "$tmp/alt/"
out=$(timeout 600 sh "$suite" --build "$top" --quick --cases few,bfs-s10${magick:+,gm-blur} \
    --settings dedicated --compare "$tmp/alt" --compare-schedule auto,plan=own --out "$tmp/d" 2>&1)
rc=$?
ncase=2
[ -n "$magick" ] && ncase=3
cmp_rows=$(printf '%s\n' "$out" | awk '
    $1 == "dedicated," && $2 == "compared:" { on = 1; next }
    on && $1 == "dedicated:" && $2 == "geometric" { sum = 1; on = 0; next }
    on && $1 != "case" {
        ok = NF >= 12
        for (i = 2; i <= 11; i++) ok = ok && $i + 0 > 0
        ok = ok && ($12 == "noise" || $12 == "better" || $12 == "worse")
        if (ok) rows++
    }
    END { print (sum ? rows + 0 : -1) }')
if [ $rc -ne 0 ] || [ -n "$(check_table dedicated few bfs-s10)" ] || [ "$cmp_rows" != $ncase ] ||
    [ "$(awk -F, 'NR > 1 && $4 == "alt"' "$tmp/d/runs.csv" | wc -l)" -ne $((ncase * 3)) ] ||
    [ "$(wc -l <"$tmp/d/compare.csv")" -ne $((ncase + 1)) ]; then
    bad "bench-suite.sh --quick --compare: exit $rc; $cmp_rows compared rows (expected $ncase)"
fi
# --from: the tables of the run above again from its folder, nothing run: the same rows,
# summary.csv and compare.csv, and the header its about.txt recorded.
out2=$(timeout 120 sh "$suite" --from "$tmp/d" --out "$tmp/e" 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ "$(printf '%s\n' "$out" | grep -E '^[a-z][a-z0-9-]* +[0-9]')" != "$(printf '%s\n' "$out2" | grep -E '^[a-z][a-z0-9-]* +[0-9]')" ] ||
    ! cmp -s "$tmp/d/summary.csv" "$tmp/e/summary.csv" || ! cmp -s "$tmp/d/compare.csv" "$tmp/e/compare.csv" ||
    ! printf '%s\n' "$out2" | grep -q "^dedicated: 2 threads bound, 3 rounds"; then
    out=$out2
    bad "bench-suite.sh --from $tmp/d: exit $rc, or its tables and CSVs differ from the run's"
fi
# The interval of a geometric mean: where every round of a case gives one ratio (0.9 and
# 1.1), resampling the rounds cannot move it, [0.995 0.995]; where rounds differ, it holds
# the mean and has a width.
mkdir "$tmp/f" "$tmp/g"
awk 'BEGIN { print "setting,case,round,variant,ms"
    for (r = 1; r <= 7; r++) {
        printf "dedicated,x,%d,own,100\ndedicated,x,%d,auto,90\ndedicated,x,%d,own2,100\n", r, r, r
        printf "dedicated,y,%d,own,200\ndedicated,y,%d,auto,220\ndedicated,y,%d,own2,200\n", r, r, r } }' >"$tmp/f/runs.csv"
awk 'BEGIN { print "setting,case,round,variant,ms"
    for (r = 1; r <= 7; r++)
        printf "hog,x,%d,own,100\nhog,x,%d,auto,%d\nhog,x,%d,own2,%d\n", r, r, 80 + 5 * r, r, 97 + r }' >"$tmp/g/runs.csv"
out=$(timeout 60 sh "$suite" --from "$tmp/f" 2>&1)
if ! printf '%s\n' "$out" | grep -q "^dedicated: geometric mean of auto/own over 2 cases 0.995 \[0.995 0.995\] (A/A 1.000 \[1.000 1.000\])"; then
    bad "bench-suite.sh --from: constant ratios, expected 0.995 [0.995 0.995] (A/A 1.000 [1.000 1.000])"
fi
out=$(timeout 60 sh "$suite" --from "$tmp/g" 2>&1)
if ! printf '%s\n' "$out" | awk '$1 == "hog:" && $2 == "geometric" {
        g = $9; lo = $10; hi = $11; gsub(/\[/, "", lo); gsub(/\]/, "", hi)
        ok = g == 1.000 && lo + 0 > 0.8 && lo + 0 < g + 0 && hi + 0 > g + 0 && hi + 0 < 1.2 }
        END { exit !ok }'; then
    bad "bench-suite.sh --from: ratios 0.85 to 1.15, expected 1.000 inside an interval of some width"
fi
# --from refuses what it cannot read, and the options of a run.
printf 'setting,case,round,variant,ms\ndedicated,x,1,own,abc\n' >"$tmp/g/runs.csv"
mkdir "$tmp/h"
printf 'case,ms\n' >"$tmp/h/runs.csv"
for args in "--from $tmp/nosuch" "--from $tmp/g" "--from $tmp/h" "--from $tmp/f --rounds 7" "--from"; do
    # shellcheck disable=SC2086 # $args is a list of options
    out=$(timeout 60 sh "$suite" $args 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q "expected\|needs a value\|takes only"; then
        bad "bench-suite.sh $args: exit $rc, expected 2 and a message"
    fi
done
# Bad options: exit 2 and a message naming what was expected.
for args in "--compare $tmp/nosuch" "--compare-schedule auto,plan=nope" "--min-ms x" "--min-ms -1" "--schedule auto,plan=nope" "--rounds 2" "--rounds x" "--magick-rounds 2" "--magick-rounds x" "--cases nosuch" "--cases bfs-s99" "--settings busy" \
    "--scales 3" "--scales 10,,12" "--loop-size 0" "--image 10" "--slow 1" "--bogus" "--out"; do
    # shellcheck disable=SC2086 # $args is a list of options
    out=$(timeout 60 sh "$suite" --build "$top" $args 2>&1)
    rc=$?
    if [ $rc -ne 2 ] || ! printf '%s\n' "$out" | grep -q "expected\|needs a value\|unknown option"; then
        bad "bench-suite.sh $args: exit $rc, expected 2 and a message"
    fi
done
[ $fails -eq 0 ] && echo "ok: the suite's programs agree with their sequential runs; its table and CSV are complete"
[ $fails -eq 0 ]
