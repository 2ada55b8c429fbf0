import sys, collections, statistics as st
# lines: round lib kernel n grain thr scenario schedule median min max ideal eff chunks speedup vs_best
d = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 12: continue
    r, lib, k, n, g, thr, sc, sched, med = f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], float(f[8])
    d[(k, g, sc)][(r, lib, sched)] = med
def q(xs):
    xs = sorted(xs); m = st.median(xs)
    return "%.3f [%.3f-%.3f]" % (m, xs[0], xs[-1])
print("%-28s %-22s %-22s %-22s %-22s" % ("cell", "auto head/base", "multi head/base (A/A)", "head auto/multi", "base auto/multi"))
ga = []; gm = []
for cell, v in d.items():
    rounds = sorted({k[0] for k in v})
    a = [v[(r,'head','lf:auto')]/v[(r,'base','lf:auto')] for r in rounds if (r,'head','lf:auto') in v and (r,'base','lf:auto') in v]
    m = [v[(r,'head','lf:multi')]/v[(r,'base','lf:multi')] for r in rounds if (r,'head','lf:multi') in v and (r,'base','lf:multi') in v]
    ha = [v[(r,'head','lf:auto')]/v[(r,'head','lf:multi')] for r in rounds if (r,'head','lf:multi') in v and (r,'head','lf:auto') in v]
    ba = [v[(r,'base','lf:auto')]/v[(r,'base','lf:multi')] for r in rounds if (r,'base','lf:multi') in v and (r,'base','lf:auto') in v]
    if not a: continue
    ga.append(st.median(a)); gm.append(st.median(m))
    print("%-28s %-22s %-22s %-22s %-22s" % ("/".join(cell), q(a), q(m), q(ha), q(ba)))
import math
g = lambda xs: math.exp(sum(map(math.log, xs))/len(xs))
print("geomean of medians: auto head/base %.3f, multi head/base (A/A) %.3f, cells %d" % (g(ga), g(gm), len(ga)))
