#!/bin/sh
# A bad LF_SCHEDULE is reported once on stderr, naming the accepted forms,
# and the program still computes the right answer (under dynamic).
prog=./tests/example
[ -x "$prog" ] || { echo "no $prog"; exit 77; }
fail=0
for bad in bogus "dynamic,0" "multi,k=zero" "guided,4,5"; do
    err=$(LF_SCHEDULE="$bad" OMP_NUM_THREADS=3 "$prog" 5000 2>&1 >/dev/null)
    rc=$?
    lines=$(printf '%s\n' "$err" | grep -c 'loopfarm:')
    if [ $rc -ne 0 ] || [ "$lines" -ne 1 ] || ! printf '%s' "$err" | grep -q 'dynamic'; then
        echo "FAIL: LF_SCHEDULE=$bad: rc=$rc, $lines messages: $err"
        fail=1
    else
        echo "ok: LF_SCHEDULE=$bad -> $err"
    fi
done
for good in multi dynamic,4 static af "dealdyn,calib=lr"; do
    err=$(LF_SCHEDULE="$good" OMP_NUM_THREADS=3 "$prog" 5000 2>&1 >/dev/null) || { echo "FAIL: $good"; fail=1; }
    [ -z "$err" ] || { echo "FAIL: $good printed: $err"; fail=1; }
done
exit $fail
