import csv, sys, math, statistics as st
from collections import defaultdict
rows = list(csv.DictReader(open(sys.argv[1])))
ref = sys.argv[2] if len(sys.argv) > 2 else 'own'
d = defaultdict(dict)  # (setting, case) -> {(round, variant): ms}
for r in rows:
    try: d[(r['setting'], r['case'])][(r['round'], r['variant'])] = float(r['ms'])
    except ValueError: pass
def q(v, p):
    v = sorted(v); i = p * (len(v) - 1); lo = int(i); hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (i - lo)
for setting in sorted({k[0] for k in d}):
    vars_ = []
    for (s, c), m in d.items():
        if s == setting:
            for (_, v) in m:
                if v not in vars_ and v != ref: vars_.append(v)
    print(f"== {setting}: median per-round ratio over {ref} [q1 q3]")
    print("case".ljust(14) + "".join(v.rjust(22) for v in vars_))
    geo = defaultdict(list)
    for (s, c) in sorted(k for k in d if k[0] == setting):
        m = d[(s, c)]
        line = c.ljust(14)
        for v in vars_:
            rs = [m[(r, v)] / m[(r, ref)] for (r, vv) in m if vv == v and (r, ref) in m and m[(r, ref)] > 0]
            if rs:
                med = st.median(rs); geo[v].append(med)
                line += f"{med:8.3f} [{q(rs,.25):.3f} {q(rs,.75):.3f}]"
            else:
                line += " " * 22
        print(line)
    print("geomean".ljust(14) + "".join(f"{math.exp(sum(map(math.log, geo[v])) / len(geo[v])):8.3f}".ljust(22) if geo[v] else " " * 22 for v in vars_))
