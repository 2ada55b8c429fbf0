/* The GOMP 1.0 combined forms old binaries call (GOMP_parallel_loop_*_start, then the caller
 * runs the body, then GOMP_parallel_end), driven here by hand as GCC 4.x emitted them. */
#include <stdbool.h>

#include "check.h"

extern void GOMP_parallel_loop_dynamic_start(void (*)(void *), void *, unsigned, long, long, long,
                                             long);
extern void GOMP_parallel_loop_guided_start(void (*)(void *), void *, unsigned, long, long, long,
                                            long);
extern void GOMP_parallel_loop_runtime_start(void (*)(void *), void *, unsigned, long, long, long);
extern void GOMP_parallel_end(void);
extern bool GOMP_loop_dynamic_next(long *, long *);
extern bool GOMP_loop_guided_next(long *, long *);
extern bool GOMP_loop_runtime_next(long *, long *);
extern void GOMP_loop_end_nowait(void);

struct arg {
    int *c;
    long incr;
    bool (*next)(long *, long *);
};

/* The outlined body of `parallel for`: take chunks until none is left. */
static void body(void *p)
{
    struct arg *a = p;
    long s, e;
    while (a->next(&s, &e))
        for (long i = s; a->incr > 0 ? i < e : i > e; i += a->incr)
            cov_hit(a->c, a->incr > 0 ? i : -i);
    GOMP_loop_end_nowait();
}

int main(void)
{
    const long n = 1777;
    int *c = cov_new(n);
    struct arg a = {c, 1, GOMP_loop_dynamic_next};
    GOMP_parallel_loop_dynamic_start(body, &a, 0, 0, n, 1, 3);
    body(&a);
    GOMP_parallel_end();
    cov_check(c, n, "legacy dynamic,3");
    a.next = GOMP_loop_guided_next;
    GOMP_parallel_loop_guided_start(body, &a, 0, 0, n, 1, 1);
    body(&a);
    GOMP_parallel_end();
    cov_check(c, n, "legacy guided");
    a.next = GOMP_loop_runtime_next;
    a.incr = -1;
    GOMP_parallel_loop_runtime_start(body, &a, 0, 0, -n, -1);
    body(&a);
    GOMP_parallel_end();
    cov_check(c, n, "legacy runtime step -1");
    return 0;
}
