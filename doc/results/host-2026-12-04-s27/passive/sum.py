import sys, csv, statistics as st, math, collections
rows = list(csv.reader(open(sys.argv[1])))
ref = sys.argv[2] if len(sys.argv) > 2 else 'own'
d = collections.defaultdict(dict)
vs = []
for set_, case, r, v, ms in rows:
    d[(set_, case)].setdefault(v, {})[r] = float(ms)
    if v not in vs: vs.append(v)
geo = collections.defaultdict(list)
for key in sorted(d):
    out = []
    for v in vs:
        if v == ref: continue
        rs = [d[key][v][r] / d[key][ref][r] for r in d[key][ref] if r in d[key].get(v, {})]
        if not rs: continue
        q = st.quantiles(rs, n=4) if len(rs) > 1 else [rs[0]]*3
        out.append(f"{v} {st.median(rs):.3f} [{q[0]:.3f} {q[2]:.3f}]")
        geo[v].append(st.median(rs))
    print(key[0], key[1], f"own {st.median(d[key][ref].values()):.0f}ms", " | ".join(out))
print("geomean:", " ".join(f"{v} {math.exp(sum(map(math.log, x))/len(x)):.3f}" for v, x in geo.items()))
