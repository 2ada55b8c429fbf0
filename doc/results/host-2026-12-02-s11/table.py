# table.py SUMMARY.CSV: BENCHMARKS.md's compact suite table from bench-suite's summary.csv.
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cases = []
by = {}
for r in rows:
    if r["case"] not in cases:
        cases.append(r["case"])
    by[(r["setting"], r["case"])] = r
mark = {"noise": "~", "gain": "+", "loss": "-"}
print("case    own ms (ded.)  auto/own [q1 q3] A/A: dedicated, hog, big/little (~ noise, + gain, - loss, ! above 1.03)")
for c in cases:
    out = []
    for s in ("dedicated", "hog", "biglittle"):
        r = by.get((s, c))
        if not r:
            out.append("-")
            continue
        v = r["verdict"].split()
        out.append("%.3f [%.3f %.3f] %.3f%s%s" % (float(r["ratio"]), float(r["ratio_q1"]), float(r["ratio_q3"]),
                                              float(r["aa"]), mark[v[0]], "!" if "!" in v else ""))
    own = by[("dedicated", c)]["own_ms"] if ("dedicated", c) in by else "-"
    print("%-14s %7.0f  %s" % (c, float(own), " ".join(out)))
