import sys,collections,statistics as st
rows=collections.defaultdict(list)
order=[]
for l in open(sys.argv[1]):
    v,x=l.split(); rows[v].append(float(x))
R=len(rows['own'])
def q(a):
    a=sorted(a); n=len(a); return a[n//2] if n%2 else (a[n//2-1]+a[n//2])/2, a[n//4], a[(3*n)//4]
for v in rows:
    if v=='own': continue
    r=[rows[v][i]/rows['own'][i] for i in range(R)]
    m,a,b=q(r); print("%-8s/own median %.3f (q %.3f..%.3f)  abs median %.1f"%(v,m,a,b,q(rows[v])[0]))
print("own abs median %.1f"%q(rows['own'])[0])
