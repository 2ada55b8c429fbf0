# sum2.py [A B] FILE...: per setting and case, each variant's median ratio to own (quartiles)
# over the rounds, and B/A; then per setting the geometric means of the medians.  A and B
# default to oldsel and near.
import sys, collections, math
rows = collections.defaultdict(lambda: collections.defaultdict(list))
args = sys.argv[1:]
A, B = ("oldsel", "near")
if len(args) > 2 and not args[0].endswith(".txt"):
    A, B, args = args[0], args[1], args[2:]
for f in args:
    for l in open(f):
        s, c, v, x = l.split()
        rows[(s, c)][v].append(float(x))
def q(a):
    a = sorted(a); n = len(a)
    m = a[n // 2] if n % 2 else (a[n // 2 - 1] + a[n // 2]) / 2
    return m, a[n // 4], a[(3 * n) // 4]
geo = collections.defaultdict(lambda: collections.defaultdict(list))
for (s, c), d in rows.items():
    out = []
    for v in (A, B, "own2"):
        r = [d[v][i] / d["own"][i] for i in range(len(d["own"]))]
        m, a, b = q(r); geo[s][v].append(m)
        out.append("%s %.3f [%.3f %.3f]" % (v, m, a, b))
    nn = [d[B][i] / d[A][i] for i in range(len(d["own"]))]
    m, a, b = q(nn); geo[s][B + "/" + A].append(m)
    print("%-9s %-26s own %7.1f ms  %s  %s/%s %.3f [%.3f %.3f]" % (s, c, q(d["own"])[0], "  ".join(out), B, A, m, a, b))
for s in geo:
    print(s, "geometric means:", "  ".join("%s %.3f" % (v, math.exp(sum(map(math.log, x)) / len(x))) for v, x in geo[s].items()))
