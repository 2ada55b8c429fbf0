import csv,collections,sys
ex=collections.OrderedDict()
for r in csv.reader(open(sys.argv[1])):
    if r[0]=='site': continue
    key=(r[0],int(r[1]))
    s,e=int(r[5]),int(r[6])
    d=ex.setdefault(key,[s,e,r[9],0])
    d[0]=min(d[0],s); d[1]=max(d[1],e); d[3]+=1
    if r[9]!=d[2]: d[2]+='|'+r[9]
by=collections.defaultdict(list)
for (site,inst),(s,e,p,n) in ex.items():
    by[site].append((inst,(e-s)/1e6,p,n))
for site,v in by.items():
    print(site,len(v))
    cnt=collections.Counter(p for _,_,p,_ in v)
    print(' plans:',dict(cnt))
    for p in cnt:
        t=sorted(x for _,x,q,_ in v if q==p)
        print(' %-8s n=%d median %.1f ms  q1 %.1f q3 %.1f'%(p,len(t),t[len(t)//2],t[len(t)//4],t[3*len(t)//4]))
    print(' sequence:',' '.join('%s:%.0f'%(p[0],x) for _,x,p,_ in v))
