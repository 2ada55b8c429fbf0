/* book-cost.c: the cost of lf__select_book, long trials (48) and short ones, a fixed or a
 * changing range of trip counts.  gcc -O2 -I lib -I build/normal -I include book-cost.c
 * lib/exec/select.c -lm; ./a.out (fixed) or ./a.out v (changing). */
#include <stdio.h>
#include <time.h>
#include "exec/select.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc, char **argv){
  int vary = argc > 1;
  struct lf__select s = {0};
  for (int k = 0; k < 3; k++) for (int i = 0; i < 48; i++) { s.arm[k].ns[i] = 1 + k; s.arm[k].range[i] = vary ? (i * 37 % 1000) / 100 : 6; s.arm[k].have = 48; s.arm[k].due = 1u<<30; }
  s.len = 48; s.chosen = 0; s.execs = 100; s.since = 100;
  int N = 200000; double t0 = now();
  for (int e = 0; e < N; e++) { s.since = s.execs; lf__select_book(&s, 0, 1.0, vary ? 1 + e % 1000 : 100); }
  printf("%s: %.0f ns per book (long trials of 48, 3 arms)\n", vary ? "varying n" : "fixed n", (now()-t0)/N*1e9);
  s.len = 0;
  t0 = now();
  for (int e = 0; e < N; e++) { lf__select_book(&s, 0, 1.0, vary ? 1 + e % 1000 : 100); }
  printf("%s: %.0f ns per book (short trials)\n", vary ? "varying n" : "fixed n", (now()-t0)/N*1e9);
}
