# The claim-cost benchmark (never part of make check).
if HAVE_OPENMP
noinst_PROGRAMS += bench/lf-claim-cost
bench_lf_claim_cost_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS) -O2
bench_lf_claim_cost_LDADD = libloopfarm.la $(OPENMP_CFLAGS)
endif
