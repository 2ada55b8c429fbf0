#!/usr/bin/env python3
"""Interleaved A/B of library copies. ab3.py ROUNDS SETTING KIND ARGS... -- LIB...
KIND: loops (lf-suite-loops through the gomp shim, LF_SCHEDULE=auto; own = bare) or
bench (lf-bench rows, library swapped by LD_LIBRARY_PATH). Prints medians and ratios to the first row."""
import os, subprocess, sys, statistics, re
B = "/work/main/build/normal"
rounds = int(sys.argv[1]); setting = sys.argv[2]; kind = sys.argv[3]
i = sys.argv.index("--"); args = sys.argv[4:i]; libs = sys.argv[i + 1:]
rows = (["own", "own-AA"] if kind == "loops" else []) + libs
hog = None
if setting == "hog" and kind == "loops":
    hog = subprocess.Popen(["taskset", "-c", str(os.cpu_count() - 1), "sh", "-c", "while :; do :; done"])
times = {r: [] for r in rows}
try:
    for r in range(rounds):
        order = rows[r % len(rows):] + rows[:r % len(rows)]
        if r % 2: order = order[::-1]
        for row in order:
            env = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="true")
            for v in ("LF_SCHEDULE", "LF_VERBOSE", "LF_TRACE", "LD_PRELOAD"): env.pop(v, None)
            if kind == "loops":
                cmd = [B + "/bench/lf-suite-loops"] + args
                if not row.startswith("own"):
                    env.update(LD_PRELOAD="/work/libs/%s/libloopfarm-gomp.so" % row,
                               LD_LIBRARY_PATH="/work/libs/%s" % row, LF_SCHEDULE="auto")
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
                h, v = out.split("\n")[0].split(), out.split("\n")[1].split()
                times[row].append(float(v[h.index("total_ms")]))
            else:
                env["LD_LIBRARY_PATH"] = "/work/libs/%s" % row
                cmd = [B + "/bench/lf-bench"] + args + ["--format", "csv"]
                out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
                lines = [l for l in out.splitlines() if l and not l.startswith("#")]
                h = lines[0].split(","); 
                for l in lines[1:]:
                    c = l.split(",")
                    if c[h.index("schedule")].strip(chr(34)) == "lf:auto":
                        times[row].append(float(c[h.index("median_s")]))
finally:
    if hog: hog.kill()
base = statistics.median(times[rows[0]])
for row in rows:
    v = sorted(times[row]); n = len(v)
    print("%-10s %-9s %-40s median %9.4f q1 %9.4f q3 %9.4f ratio %.3f" % (setting, row, " ".join(args)[:40], v[n // 2], v[n // 4], v[(3 * n) // 4], v[n // 2] / base))
