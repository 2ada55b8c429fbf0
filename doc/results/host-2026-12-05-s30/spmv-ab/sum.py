import csv,glob,statistics as st,sys
rows={}
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv)>1 else '*.csv')):
    lib,sc,p=f.split('/')[-1][:-4].split('-')
    r=list(csv.DictReader(open(f)))
    d={}
    for x in r:
        d.setdefault(x['schedule'],[]).append(float(x['median_s']))
    best=min(v[0] for v in d.values())
    a=d['lf:auto'][0]; m=d['lf:multi'][0]; t=d['tbb:auto'][0]; o=d['omp:dynamic,1']
    rows.setdefault((sc,lib),[]).append((a,m,t,o[0]/o[1] if len(o)>1 else 0, float(r[0]['t1_own_s'])))
for k in sorted(rows):
    v=rows[k]
    print(k, ' '.join('auto=%.3f multi=%.3f tbb=%.3f a/m=%.3f a/t=%.3f AA=%.3f'%(a,m,t,a/m,a/t,aa) for a,m,t,aa,t1 in v))
