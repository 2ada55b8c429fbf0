#!/bin/sh
# tests/gomp/run.sh - the shim conformance suite: every program of tests/gomp, bare and with
# libloopfarm-gomp preloaded under several LF_SCHEDULE / LF_REPLACE settings, at 1, 2, 3 and
# 8 threads.  Exit 0 when all pass, 77 when OpenMP or the shim is missing, 1 otherwise.
# Usage: run.sh [program...]   (GOMP_THREADS="1 2" narrows the thread counts)

top=$(pwd)
shim="$top/.libs/libloopfarm-gomp.so"
progs="${*:-g_dynamic g_guided g_runtime g_monotonic g_combined g_nowait g_reduction g_ordered
       g_doacross g_collapse g_ull g_bigbounds g_nested g_orphan g_many g_legacy g_cancel
       g_siblings}"
threads="${GOMP_THREADS:-1 2 3 8}"

if [ ! -f "$shim" ] || [ ! -x "$top/tests/gomp/g_dynamic" ]; then
    echo "run.sh: no shim or no conformance programs built here (OpenMP missing?): skipped"
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
configs='bare|||dynamic
preloaded, no variables|P|||dynamic
LF_SCHEDULE=multi|P|multi||dynamic,guided
LF_SCHEDULE=dynamic,4|P|dynamic,4||dynamic,guided
LF_SCHEDULE=af|P|af||dynamic,guided
LF_SCHEDULE=guided|P|guided||dynamic,guided
LF_SCHEDULE=fac2|P|fac2||dynamic,guided
LF_REPLACE=dynamic:multi,guided:af|P||dynamic:multi,guided:af|dynamic,guided
LF_REPLACE=dynamic:dynamic,2;guided:gomp;runtime:awf-b;chunk:ignore|P||dynamic:dynamic,2;guided:gomp;runtime:awf-b;chunk:ignore|'

fails=0
runs=0
while IFS='|' read -r name pre sched repl multiples; do
    bad=""
    for t in $threads; do
        for p in $progs; do
            runs=$((runs + 1))
            out=$(env OMP_NUM_THREADS="$t" OMP_CANCELLATION=true GOMP_TEST_MULTIPLES="$multiples" \
                ${pre:+LD_PRELOAD="$preload"} ${sched:+LF_SCHEDULE="$sched"} \
                ${repl:+LF_REPLACE="$repl"} \
                timeout 60 "$top/tests/gomp/$p" 2>&1)
            rc=$?
            if [ $rc -ne 0 ]; then
                fails=$((fails + 1))
                bad="$bad $p@$t"
                echo "FAIL [$name] $p, $t threads (exit $rc)"
                printf '%s\n' "$out" | head -5 | sed 's/^/    /'
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
    timeout 60 "$top/tests/gomp/g_siblings" >/dev/null 2>&1; then
    fails=$((fails + 1))
    echo "FAIL [LF_TRACE] g_siblings did not run"
elif ! sort -t, -k1,1 -k2,2n -k4,4n "$trace" | awk -F, '
    $1 == "site" { next }
    { key = $1 "," $2; if (key != prev) { prev = key; at = 0 }
      if ($4 != at) { print "chunks of " key " overlap or leave a gap at " at ": [" $4 "," $5 ")"; bad = 1; exit 1 }
      at = $5; n++ }
    END { if (!n) { print "empty trace"; exit 1 } exit bad }'; then
    fails=$((fails + 1))
    echo "FAIL [LF_TRACE] g_siblings: a traced loop name stands for several loops"
else
    echo "PASS [LF_TRACE]: every traced loop of sibling teams has a name and instance of its own"
fi

# schedule(guided) loops keep OpenMP's guided bound under any loopfarm schedule: a chunk
# claimed when u units were unassigned holds at most ceil(u / threads) of them.
before=$fails
for sched in multi af static tss umr as4dr awf-c; do
    runs=$((runs + 1))
    rm -f "$trace"
    if ! env OMP_NUM_THREADS=8 LD_PRELOAD="$preload" LF_SCHEDULE="$sched" LF_TRACE="$trace" \
        timeout 60 "$top/tests/gomp/g_guided" >/dev/null 2>&1 ||
        ! awk -F, -v P=8 '
        $1 ~ /^gomp:guided@/ { k = $1 "," $2; if ($5 > n[k]) n[k] = $5; lo[NR] = $4; hi[NR] = $5; key[NR] = k }
        END { for (r in key) { u = n[key[r]] - lo[r]; b = int((u + P - 1) / P)
                if (hi[r] - lo[r] > b) { print "chunk [" lo[r] "," hi[r] ") of " key[r] " above the guided bound " b; exit 1 } }
              if (!length(key)) { print "no guided loop traced"; exit 1 } }' "$trace"; then
        fails=$((fails + 1))
        echo "FAIL [guided bound] g_guided under LF_SCHEDULE=$sched, 8 threads"
    fi
done
[ $fails -eq $before ] &&
    echo "PASS [guided bound]: schedule(guided) chunks within ceil(unassigned / threads), 7 schedules"
rm -f "$trace"
echo "run.sh: $runs runs, $fails failed"
[ $fails -eq 0 ]
