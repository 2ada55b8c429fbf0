#!/bin/sh
# tests/gomp/run.sh - a shim conformance suite: every program of tests/gomp (GCC's ABI, the
# default) or tests/kmp (SHIM_ABI=kmp: LLVM's, as tests/kmp/run.sh asks), bare and with the
# shim preloaded under several LF_SCHEDULE / LF_REPLACE settings, at 1, 2, 3 and 8 threads.
# Exit 0 when all pass, 77 when OpenMP, clang (kmp) or the shim is missing, 1 otherwise.
# Usage: run.sh [program...]   (SHIM_THREADS="1 2" narrows the thread counts)

top=$(pwd)
abi=${SHIM_ABI:-gomp}
threads="${SHIM_THREADS:-${GOMP_THREADS:-1 2 3 8}}"
shim="$top/.libs/libloopfarm-$abi.so"
case $abi in
gomp)
    px=g
    progs="${*:-g_dynamic g_guided g_runtime g_monotonic g_combined g_nowait g_reduction g_ordered
           g_doacross g_collapse g_ull g_bigbounds g_nested g_orphan g_many g_legacy g_cancel
           g_siblings g_lastprivate}" ;;
kmp)
    px=k
    progs="${*:-k_dynamic k_guided k_runtime k_monotonic k_combined k_nowait k_reduction k_ordered
           k_doacross k_collapse k_ull k_bigbounds k_nested k_orphan k_many k_siblings
           k_int32 k_lastprivate k_ws_static k_static_nowait k_static_abi}" ;;
*)
    echo "run.sh: SHIM_ABI is gomp or kmp, not \"$abi\"" >&2
    exit 1 ;;
esac

if [ ! -f "$shim" ] || [ ! -x "$top/tests/$abi/${px}_dynamic" ]; then
    echo "run.sh: no libloopfarm-$abi or no $abi conformance programs built here (OpenMP or clang missing?): skipped"
    exit 77
fi
unset LF_SCHEDULE LF_REPLACE LF_TRACE LF_VERBOSE OMP_SCHEDULE
# A sanitizer build's shim needs its sanitizer runtimes loaded first of all,
# AddressSanitizer's before any other.
rts=$(ldd "$shim" 2>/dev/null | awk '/libasan/ {print $3} /lib(ub|t)san/ {u = u " " $3} END {print u}')
preload=$(echo $rts "$shim")
LD_LIBRARY_PATH="$top/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH

# name|LD_PRELOAD|LF_SCHEDULE|LF_REPLACE|kinds whose explicit chunks must stay multiples
configs="bare|||dynamic
preloaded, no variables|P|||dynamic
LF_SCHEDULE=multi|P|multi||dynamic,guided
LF_SCHEDULE=dynamic,4|P|dynamic,4||dynamic,guided
LF_SCHEDULE=af|P|af||dynamic,guided
LF_SCHEDULE=guided|P|guided||dynamic,guided
LF_SCHEDULE=fac2|P|fac2||dynamic,guided
LF_SCHEDULE=auto|P|auto||dynamic,guided
LF_SCHEDULE=fac2,lease=force|P|fac2,lease=force||dynamic,guided
LF_REPLACE=dynamic:multi,guided:af|P||dynamic:multi,guided:af|dynamic,guided
LF_REPLACE=dynamic:dynamic,2;guided:$abi;runtime:awf-b;chunk:ignore|P||dynamic:dynamic,2;guided:$abi;runtime:awf-b;chunk:ignore|"
# libloopfarm-kmp also takes static loops, on request (libgomp never sees them: GCC inlines them).
if [ "$abi" = kmp ]; then
    configs="$configs
LF_REPLACE=static:weighted|P||static:weighted|dynamic
LF_SCHEDULE=auto + LF_REPLACE=static:weighted|P|auto|static:weighted|dynamic,guided"
fi
# Programs that choose their own team sizes run once per configuration, at the first thread
# count; k_static_abi (the static entry points by hand, 1-33 threads) only bare and where
# static loops are the shim's.
own_teams="k_static_abi"
first_t=${threads%% *}

fails=0
runs=0
while IFS='|' read -r name pre sched repl multiples; do
    bad=""
    for t in $threads; do
        for p in $progs; do
            case " $own_teams " in
            *" $p "*)
                [ "$t" = "$first_t" ] || continue
                case "$name|$repl" in bare*|*static:*) ;; *) continue ;; esac ;;
            esac
            runs=$((runs + 1))
            out=$(env OMP_NUM_THREADS="$t" OMP_CANCELLATION=true GOMP_TEST_MULTIPLES="$multiples" \
                ${pre:+LD_PRELOAD="$preload"} ${sched:+LF_SCHEDULE="$sched"} \
                ${repl:+LF_REPLACE="$repl"} \
                timeout 60 "$top/tests/$abi/$p" 2>&1)
            rc=$?
            if [ $rc -ne 0 ]; then
                fails=$((fails + 1))
                bad="$bad $p@$t"
                echo "FAIL [$name] $p, $t threads (exit $rc)"
                printf '%s\n' "$out" | head -5 | sed 's/^/    /'
            elif printf '%s\n' "$out" | grep -q '^roots: running the test again'; then
                # stage_roots (roots.h) ran the program again after a fault inside libomp.
                echo "NOTE [$name] $p, $t threads: passed when run again after a fault inside libomp"
                printf '%s\n' "$out" | grep '^roots: ' | head -4 | sed 's/^/    /'
            fi
        done
    done
    if [ -z "$bad" ]; then
        echo "PASS [$name]: $(echo $progs | wc -w) programs x threads $threads"
    fi
done <<EOF_CONFIGS
$configs
EOF_CONFIGS

# LF_TRACE names each taken loop by call site and team: every (site, instance) of a trace of
# sibling teams of 1-4 threads must tile [0, n) with its chunks, none overlapping.
trace=$(mktemp)
runs=$((runs + 1))
if ! env OMP_NUM_THREADS=3 LD_PRELOAD="$preload" LF_SCHEDULE=af LF_TRACE="$trace" \
    timeout 60 "$top/tests/$abi/${px}_siblings" >/dev/null 2>&1; then
    fails=$((fails + 1))
    echo "FAIL [LF_TRACE] ${px}_siblings did not run"
elif ! sort -t, -k1,1 -k2,2n -k4,4n "$trace" | awk -F, '
    $1 == "site" { next }
    { key = $1 "," $2; if (key != prev) { prev = key; at = 0 }
      if ($4 != at) { print "chunks of " key " overlap or leave a gap at " at ": [" $4 "," $5 ")"; bad = 1; exit 1 }
      at = $5; n++ }
    END { if (!n) { print "empty trace"; exit 1 } exit bad }'; then
    fails=$((fails + 1))
    echo "FAIL [LF_TRACE] ${px}_siblings: a traced loop name stands for several loops"
else
    echo "PASS [LF_TRACE]: every traced loop of sibling teams has a name and instance of its own"
fi

# libloopfarm-kmp's static loops under LF_TRACE: each thread's range is a record (plan static
# or weighted), one per thread of the team of 3, and the ranges of every (site, instance) tile
# [0, n) in thread order.
if [ "$abi" = kmp ]; then
    runs=$((runs + 1))
    rm -f "$trace"
    if ! env OMP_NUM_THREADS=3 LD_PRELOAD="$preload" LF_REPLACE=static:weighted LF_TRACE="$trace" \
        timeout 60 "$top/tests/kmp/k_ws_static" >/dev/null 2>&1; then
        fails=$((fails + 1))
        echo "FAIL [LF_TRACE static] k_ws_static did not run"
    elif ! sort -t, -k1,1 -k2,2n -k4,4n -k3,3n "$trace" | awk -F, -v P=3 '
        function bad(msg) { print msg; failed = 1; exit 1 }
        $1 == "site" { next }
        $1 !~ /^kmp:static@/ || ($10 != "static" && $10 != "weighted") { next }
        { key = $1 "," $2
          if (key != prev) {
              if (prev != "" && cnt != P) bad(prev " has " cnt " ranges, not one per thread")
              prev = key; at = 0; tid = -1; cnt = 0 }
          if ($4 != at || ($5 > $4 && $3 <= tid))
              bad("ranges of " key " overlap, leave a gap or leave thread order at " at)
          if ($5 > $4) tid = $3
          at = $5; n++; cnt++ }
        END { if (failed) exit 1
              if (prev != "" && cnt != P) bad(prev " has " cnt " ranges, not one per thread")
              if (n < 50) bad("only " n + 0 " static ranges traced") }'; then
        fails=$((fails + 1))
        echo "FAIL [LF_TRACE static] k_ws_static's static ranges"
    else
        echo "PASS [LF_TRACE static]: every traced static loop's ranges tile it in thread order"
    fi
fi

# libloopfarm-kmp's weighted static learns a speed per thread, so under LF_VERBOSE it says when
# a thread may move between CPUs: unbound (no OMP_PROC_BIND) it does, and bound one thread per
# CPU (OMP_PLACES=threads) it does not.  Needs two CPUs to bind to.
if [ "$abi" = kmp ] && [ "$(nproc)" -ge 2 ]; then
    runs=$((runs + 1))
    said() {
        env "$@" OMP_NUM_THREADS=2 LD_PRELOAD="$preload" LF_REPLACE=static:weighted LF_VERBOSE=1 \
            timeout 60 "$top/tests/kmp/k_ws_static" 2>&1 >/dev/null | grep -c "weighted static: this thread may run on"
    }
    loose=$(said -u OMP_PROC_BIND -u OMP_PLACES)
    bound=$(said OMP_PROC_BIND=true OMP_PLACES=threads)
    if [ "$loose" -ne 1 ] || [ "$bound" -ne 0 ]; then
        fails=$((fails + 1))
        echo "FAIL [LF_VERBOSE static] unbound threads said $loose times (expected once), bound ones $bound (expected never)"
    else
        echo "PASS [LF_VERBOSE static]: unbound threads are said once, threads bound one per CPU never"
    fi
fi

# schedule(guided) loops keep OpenMP's guided bound under any loopfarm schedule: a chunk
# claimed when u units were unassigned holds at most ceil(u / threads) of them.
before=$fails
for sched in multi af static tss umr as4dr awf-c; do
    runs=$((runs + 1))
    rm -f "$trace"
    if ! env OMP_NUM_THREADS=8 LD_PRELOAD="$preload" LF_SCHEDULE="$sched" LF_TRACE="$trace" \
        timeout 60 "$top/tests/$abi/${px}_guided" >/dev/null 2>&1 ||
        ! awk -F, -v P=8 -v abi="$abi" '
        $1 ~ "^" abi ":guided@" { k = $1 "," $2; if ($5 > n[k]) n[k] = $5; lo[NR] = $4; hi[NR] = $5; key[NR] = k }
        END { for (r in key) { u = n[key[r]] - lo[r]; b = int((u + P - 1) / P)
                if (hi[r] - lo[r] > b) { print "chunk [" lo[r] "," hi[r] ") of " key[r] " above the guided bound " b; exit 1 } }
              if (!length(key)) { print "no guided loop traced"; exit 1 } }' "$trace"; then
        fails=$((fails + 1))
        echo "FAIL [guided bound] ${px}_guided under LF_SCHEDULE=$sched, 8 threads"
    fi
done
[ $fails -eq $before ] &&
    echo "PASS [guided bound]: schedule(guided) chunks within ceil(unassigned / threads), 7 schedules"
rm -f "$trace"

# LF_VERBOSE=1 says which loops the shim takes, naming each call site: the three dynamic loops
# of ${px}_dynamic that have iterations are three sites.
runs=$((runs + 1))
sites=$(env OMP_NUM_THREADS=2 LD_PRELOAD="$preload" LF_SCHEDULE=multi LF_VERBOSE=1 \
    timeout 60 "$top/tests/$abi/${px}_dynamic" 2>&1 >/dev/null |
    sed -n "s/^loopfarm-$abi: taking the schedule(dynamic) loop at \($abi:dynamic@[^ ]*\) under loopfarm \"multi\".*/\1/p" |
    sort -u | wc -l)
if [ "$sites" -lt 3 ]; then
    fails=$((fails + 1))
    echo "FAIL [LF_VERBOSE] ${px}_dynamic under LF_SCHEDULE=multi: $sites call sites named, expected at least 3"
else
    echo "PASS [LF_VERBOSE]: the shim names the $sites call sites whose dynamic loops it takes"
fi

# Each loop learns on its own: in ${px}_sites a cheap and a dear dynamic loop (40 times the
# work per iteration) run in turn 30 times.  With one memory for both (as when a shim kept one
# per schedule kind) only one call site is named and every second execution finds the rates
# drifted and recalibrates (29-30 reports).  The two call sites must be named, with at most 20
# drift reports (a loaded machine moves the rates of short loops too: up to 15 seen).
runs=$((runs + 1))
out=$(env OMP_NUM_THREADS=2 LD_PRELOAD="$preload" LF_SCHEDULE=multi LF_VERBOSE=1 \
    timeout 120 "$top/tests/$abi/${px}_sites" 2>&1 >/dev/null)
rc=$?
named=$(printf '%s\n' "$out" | grep -c "^loopfarm-$abi: taking the schedule(dynamic) loop at $abi:dynamic@")
drifts=$(printf '%s\n' "$out" | grep -c "rates drifted")
if [ $rc -ne 0 ] || [ "$named" -ne 2 ] || [ "$drifts" -gt 20 ]; then
    fails=$((fails + 1))
    echo "FAIL [call sites] ${px}_sites: exit $rc, $named call sites named (expected 2), $drifts recalibrations for drift (expected at most 20 of 60 executions)"
else
    echo "PASS [call sites]: two loops, two memories ($drifts recalibrations in 60 executions)"
fi
echo "run.sh: $runs runs, $fails failed"
[ $fails -eq 0 ]
