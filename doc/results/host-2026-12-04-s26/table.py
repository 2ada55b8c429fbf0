"""BENCHMARKS.md's suite table from a bench-suite summary.csv (argument 1)."""
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by = {}
order = []
for r in rows:
    if r['case'] not in by:
        by[r['case']] = {}
        order.append(r['case'])
    by[r['case']][r['setting']] = r
mark = {'noise': '~', 'gain': '+', 'loss': '-'}
print("case    own ms (ded.)  auto/own [q1 q3] A/A: dedicated, hog, big/little (~ noise, + gain, - loss, ! above 1.03)")
for c in order:
    cells = []
    for s in ('dedicated', 'hog', 'biglittle'):
        r = by[c].get(s)
        if not r:
            cells.append('-')
            continue
        q = float(r['ratio'])
        cells.append("%.3f [%.3f %.3f] %.3f%s%s" % (q, float(r['ratio_q1']), float(r['ratio_q3']), float(r['aa']),
                                                  mark.get(r['verdict'].split()[0], '?'), '!' if q > 1.03 else ''))
    own = float(by[c]['dedicated']['own_ms']) if 'dedicated' in by[c] else 0
    print("%-14s %7.0f  %s" % (c, own, ' '.join(cells)))
