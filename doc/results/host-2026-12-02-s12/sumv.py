# sumv.py BASE FILE...: per setting and case, each variant's median ratio to own [quartiles]
# over the rounds, and each variant's median ratio to BASE; then per setting the geometric
# means of the medians.
import sys, collections, math
base, files = sys.argv[1], sys.argv[2:]
rows = collections.defaultdict(lambda: collections.defaultdict(list))
order = []
for f in files:
    for l in open(f):
        s, c, v, x = l.split()
        rows[(s, c)][v].append(float(x))
        if v not in order: order.append(v)
def q(a):
    a = sorted(a); n = len(a)
    m = a[n // 2] if n % 2 else (a[n // 2 - 1] + a[n // 2]) / 2
    return m, a[n // 4], a[(3 * n) // 4]
geo = collections.defaultdict(lambda: collections.defaultdict(list))
for (s, c), d in rows.items():
    out = []
    for v in order:
        if v == "own": continue
        r = [d[v][i] / d["own"][i] for i in range(len(d["own"]))]
        m, a, b = q(r); geo[s][v].append(m)
        out.append("%s %.3f [%.3f %.3f]" % (v, m, a, b))
    for v in order:
        if v in ("own", "own2", base): continue
        r = [d[v][i] / d[base][i] for i in range(len(d["own"]))]
        m, a, b = q(r); geo[s][v + "/" + base].append(m)
        out.append("%s/%s %.3f" % (v, base, m))
    print("%-9s %-24s own %7.1f ms  %s" % (s, c, q(d["own"])[0], "  ".join(out)))
for s in geo:
    print(s, "geometric means:", "  ".join("%s %.3f" % (v, math.exp(sum(map(math.log, x)) / len(x))) for v, x in geo[s].items()))
