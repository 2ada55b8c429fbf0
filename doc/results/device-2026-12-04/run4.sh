#!/bin/sh
# Device run 4: the graph cases at 16 threads again, 9 rounds, dedicated and beside a busy
# process (the machine's A/A spread at 5 rounds was too wide to judge).
top=$(pwd); d=$top/.devrun
export LD_LIBRARY_PATH=$d/b/lib
R=/tmp/devr4; rm -rf $R; mkdir -p $R
date -u +%T >$R/log.txt
timeout 250 sh scripts/bench-suite.sh --build "$d/build" --threads 16 --rounds 9 \
  --scales 17,19 --cases bfs,pagerank,cc,sssp,bc --settings dedicated,hog --out "$R/sg" >"$R/suite-graph.txt" 2>&1
echo "rc=$? $(date -u +%T)" >>$R/log.txt
tar czf "$OUT/r4.tgz" -C /tmp devr4
grep -E "geometric|^(bfs|sssp|bc|cc|pagerank)" $R/suite-graph.txt; cat $R/log.txt
