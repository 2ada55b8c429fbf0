import csv,sys,collections
for f in sys.argv[1:]:
    inst={}
    for r in csv.DictReader(open(f)):
        i=int(r['instance']); lo,hi=int(r['lo']),int(r['hi']); s,e=int(r['start_ns']),int(r['end_ns'])
        d=inst.setdefault(i,[r['plan'],0,s,e,set()])
        d[1]+=hi-lo; d[2]=min(d[2],s); d[3]=max(d[3],e); d[4].add(r['thread'])
    agg=collections.defaultdict(lambda:[0,0,0.0])
    seq=[]
    for i in sorted(inst):
        p,n,s,e,th=inst[i]; agg[p][0]+=1; agg[p][1]+=n; agg[p][2]+=(e-s)/1e6
        seq.append("%s%d:%.1f"%(p[0],n,(e-s)/1e6))
    print(f, {k:(v[0],v[1],round(v[2],1)) for k,v in agg.items()}, "total ms %.1f"%sum(v[2] for v in agg.values()))
    if len(sys.argv)==2: print(" ".join(seq))
