import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) != 4 or p[0] == 'round': continue
    d[(p[1], p[2])].append(float(p[3]))
cases = []
for (c, r) in d:
    if c not in cases: cases.append(c)
rows = ["static", "static-AA", "weighted", "F0.5", "F0.6", "F0.67", "F0.75", "F0.85", "F1.0", "one"]
def q(v):
    v = sorted(v); n = len(v)
    return v[n // 4], st.median(v), v[(3 * n) // 4]
print("%-22s" % "case (beside busy core)" + "".join("%10s" % r for r in rows))
for c in cases:
    base = st.median(d[(c, "static")])
    print("%-22s" % c + "".join("%10.3f" % (st.median(d[(c, r)]) / base) if (c, r) in d else "%10s" % "-" for r in rows))
    print("%-22s" % "  median s [q1-q3]" + "".join("%10s" % ("%.2f-%.2f" % (q(d[(c, r)])[0], q(d[(c, r)])[2])) for r in rows))
print("rounds:", min(len(v) for v in d.values()))
