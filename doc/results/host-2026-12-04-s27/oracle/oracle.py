"""The best of auto's plans forced, per case, from bench-suite.sh runs with --compare.

usage: python3 oracle.py NAME=DIR:COLUMN ...   COLUMN: auto (summary.csv's ratio) or alt
(compare.csv's alt_own); each NAME a plan (or auto itself, named auto).  Prints, per case,
each plan's median ratio over the program's own schedule (the same run's own), the best
forced plan's, and their geometric means.  The best of several noisy medians is biased
low: read it as an optimistic ceiling."""
import csv, math, sys

cols = {}
for spec in sys.argv[1:]:
    name, rest = spec.split('=', 1)
    d, col = rest.rsplit(':', 1)
    f, key = (d + '/summary.csv', 'ratio') if col == 'auto' else (d + '/compare.csv', 'alt_own')
    cols[name] = {(r['setting'], r['case']): float(r[key]) for r in csv.DictReader(open(f))}
names = list(cols)
plans = [n for n in names if not n.startswith('auto')]
cases = [k for k in cols[names[0]] if all(k in cols[n] for n in names)]
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))
print('%-14s' % 'case', ' '.join('%8s' % n for n in names), '%8s %s' % ('best', 'plan'))
best = []
for k in cases:
    b = min(plans, key=lambda n: cols[n][k])
    best.append(cols[b][k])
    print('%-14s' % k[1], ' '.join('%8.3f' % cols[n][k] for n in names), '%8.3f %s' % (cols[b][k], b))
print('%-14s' % 'geomean', ' '.join('%8.3f' % geo([cols[n][k] for k in cases]) for n in names),
      '%8.3f' % geo(best), '(%d cases)' % len(cases))
