# The staging-overlap benchmark (never part of make check): copy then compute
# against software prefetch and helper threads over AS4DR's two sub-chunks.
if HAVE_OPENMP
noinst_PROGRAMS += bench/lf-overlap
bench_lf_overlap_CFLAGS = $(AM_CFLAGS) $(OPENMP_CFLAGS) -O2
bench_lf_overlap_LDADD = $(OPENMP_CFLAGS)
endif
