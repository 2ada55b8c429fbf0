/* tests/headers_use.c - one translation unit that includes every public
 * header and expands each LF_FOR macro; tests/test_cxx.sh compiles it as
 * C99 and C11 and as C++11, C++17 and C++20, with gcc and clang, warnings
 * as errors.  It is compiled, not run. */
#include <stddef.h>
#include <string.h>

#include <loopfarm.h>
#include <loopfarm/omp.h>

long headers_use(double *x, long n)
{
    long hits = 0;
    struct lf_input in;
    struct lf_data data;
    memset(&in, 0, sizeof in);
    memset(&data, 0, sizeof data);
    in.base = x;
    in.size = sizeof *x;
    in.stride = 1;
    data.in[0] = in;
    data.ninputs = 1;
#pragma omp parallel reduction(+ : hits)
    {
        LF_FOR(i, 0, n)
        {
            x[i] += 1.0;
        }
        LF_FOR_STEP(i, n - 1, -1, -1)
        {
            x[i] *= 2.0;
        }
        LF_FOR_SCHED(i, 0, n, 2, "dynamic,4")
        {
            hits++;
        }
        LF_FOR_NOWAIT(i, 0, n)
        {
            hits++;
        }
        LF_FOR_STEP_NOWAIT(i, 0, n, 3)
        {
            hits++;
        }
        LF_FOR_SCHED_NOWAIT(i, 0, n, 1, "af")
        {
            hits++;
        }
        LF_FOR_DATA(i, 0, n, 1, (const char *)NULL, &data)
        {
            x[i] -= 1.0;
        }
        LF_FOR_DATA_NOWAIT(i, 0, n, 1, "multi", &data)
        {
            hits++;
        }
    }
    lf_schedule *s = NULL;
    char err[128];
    if (lf_schedule_parse("guided", &s, err, sizeof err) == 0)
        lf_schedule_free(s);
    return hits;
}
