import os, subprocess, sys, time, statistics
L="/work/main/build/normal/.libs"
runs=int(sys.argv[1])
base=dict(os.environ, OMP_NUM_THREADS="2", OMP_PROC_BIND="true", LD_LIBRARY_PATH=L)
st=L.replace(".libs","tests/.libs/startup-time")
V={"omp":(["./plain"],base),
   "plainM":(["./plainM"],base),
   "omp-st":([st,"omp"],base),
   "lf":([st,"lf"],base),
   "lf-mono":([st,"lf"],dict(base,LF_CLOCK="monotonic")),
   "preload":(["./plain"],dict(base,LD_PRELOAD=L+"/libloopfarm-gomp.so",LF_SCHEDULE="auto")),
}
t={k:[] for k in V}
for r in range(runs):
    for k,(cmd,env) in V.items():
        s=time.perf_counter(); subprocess.run(cmd,env=env,stdout=subprocess.DEVNULL); t[k].append((time.perf_counter()-s)*1e3)
b=t["omp"]
for k in V:
    d=sorted(x-y for x,y in zip(t[k],b)); q=statistics.quantiles(t[k],n=4)
    print(f"{k:10s} {statistics.median(t[k]):6.2f} [{q[0]:.2f},{q[2]:.2f}]  d={statistics.median(d):+.2f}")
