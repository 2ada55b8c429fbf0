/* bench/lf-graph-cxx.cc - lf-graph built by the C++ compiler (g++ -fopenmp),
 * as the GAP benchmark's users build it: the same kernels and loops, one
 * source, so that the graph rows of scripts/bench-suite.sh run a C++
 * program's GOMP calls. */
#include "lf-graph.c"
