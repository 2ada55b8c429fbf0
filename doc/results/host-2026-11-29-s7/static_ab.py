import os, subprocess, sys, statistics
exe = "/work/main/build/normal/bench/lf-kmp-static"
rounds = int(sys.argv[1]); cases = sys.argv[2].split(); scens = sys.argv[3].split()
rows = {"static": None, "static-AA": None}
for a in sys.argv[4:]:
    lib, _, force = a.partition("+")
    rows[a] = ("/work/libs/%s/libloopfarm-kmp.so" % lib, force)

names = list(rows)
env0 = dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="true", OMP_PLACES="threads")
for v in ("LF_SCHEDULE", "LF_REPLACE", "LF_VERBOSE", "LF_TRACE"): env0.pop(v, None)
t = {}
for r in range(rounds):
    for s in scens:
        for c in cases:
            k, size, reps = c.split(":")
            order = names[r % 4:] + names[:r % 4]
            for row in order:
                env = dict(env0)
                if rows[row]:
                    env.update(LD_PRELOAD=rows[row][0], LF_REPLACE="static:weighted")
                    if rows[row][1]: env["XFORCE"] = rows[row][1]
                out = subprocess.run([exe, "--kernel", k, "--load", s, "--size", size, "--reps", reps],
                                     env=env, capture_output=True, text=True, check=True).stdout.split()
                t.setdefault((s, c, row), []).append(float(out[out.index("time_s") + 1]))
def q(v, p):
    v = sorted(v); x = (len(v) - 1) * p; i = int(x)
    return v[i] + (x - i) * (v[min(i + 1, len(v) - 1)] - v[i])
print("%-10s %-20s %-10s %8s %8s %8s %7s" % ("scenario", "case", "row", "median", "q1", "q3", "/static"))
for s in scens:
    for c in cases:
        base = statistics.median(t[(s, c, "static")])
        for row in names:
            v = t[(s, c, row)]
            print("%-10s %-20s %-10s %8.4f %8.4f %8.4f %7.3f" % (s, c, row, q(v, .5), q(v, .25), q(v, .75), q(v, .5) / base))
