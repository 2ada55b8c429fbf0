/* The four static entry points (__kmpc_for_static_init_4, _4u, _8, _8u) driven by hand, as a
 * compiler that passes the source bounds (Intel's, not clang's normalised 0 .. n-1) calls them:
 * over teams of 1, 2, 3, 4, 8, 16 and 33 threads, trip counts from 1 to a few thousand, unit,
 * wide and negative increments, bounds near the limits of int32, uint32, int64 and uint64.
 * Each loop runs several times in a row (so that a weighted shim learns and moves its split);
 * every iteration must run exactly once, the members' ranges must be contiguous and in member
 * order, an empty range must look empty to the loop's own comparison, and exactly the member
 * holding the last iteration must be told so. */
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "check.h"

typedef struct ident ident_t;
extern int32_t __kmpc_global_thread_num(ident_t *);
extern void __kmpc_for_static_init_4(ident_t *, int32_t, int32_t, int32_t *, int32_t *, int32_t *,
                                     int32_t *, int32_t, int32_t);
extern void __kmpc_for_static_init_4u(ident_t *, int32_t, int32_t, int32_t *, uint32_t *,
                                      uint32_t *, int32_t *, int32_t, int32_t);
extern void __kmpc_for_static_init_8(ident_t *, int32_t, int32_t, int32_t *, int64_t *, int64_t *,
                                     int64_t *, int64_t, int64_t);
extern void __kmpc_for_static_init_8u(ident_t *, int32_t, int32_t, int32_t *, uint64_t *,
                                      uint64_t *, int64_t *, int64_t, int64_t);
extern void __kmpc_for_static_fini(ident_t *, int32_t);

#define KMP_SCH_STATIC 34
#define MAXT           33

/* What each member reports of one execution. */
struct got {
    unsigned long long j0, j1; /* its logical range [j0, j1) */
    int last;
};

/* Member 1's extra work per iteration: its static ranges take several times member 0's, so that
 * a weighted shim measures speeds that differ by more than timing noise and runs its uneven
 * ranges, which this test is also there to check.  No memory access: nothing for a sanitizer to
 * instrument. */
static void slow_member(void)
{
    for (int k = 0; k < 1024; k++)
        __asm__ volatile("");
}

/* One execution of a loop of form T (bits wide, signed or not) from lb with n iterations of
 * stride incr by the current team; fills got[t] and marks c (n counters). */
#define RUN_FORM(fn, T, S, bits)                                                                   \
    static void run_##fn(T lb, unsigned long long n, S incr, int *c, struct got *got)              \
    {                                                                                              \
        T ub = (T)((unsigned long long)lb + (n - 1) * (unsigned long long)(long long)incr);        \
        _Pragma("omp parallel")                                                                    \
        {                                                                                          \
            int t = omp_get_thread_num();                                                          \
            int32_t gtid = __kmpc_global_thread_num(NULL), last = 0;                               \
            T lo = lb, hi = ub;                                                                    \
            S stride = 0;                                                                          \
            fn(NULL, gtid, KMP_SCH_STATIC, &last, &lo, &hi, &stride, incr, 1);                     \
            unsigned long long mask = ~0ULL >> (64 - bits);                                        \
            unsigned long long step = incr > 0 ? (unsigned long long)(long long)incr               \
                                               : -(unsigned long long)(long long)incr;             \
            got[t].last = last;                                                                    \
            if (incr > 0 ? lo > hi : lo < hi) {                                                    \
                got[t].j0 = got[t].j1 = ~0ULL; /* empty */                                         \
            } else {                                                                               \
                unsigned long long from =                                                          \
                    ((incr > 0 ? (unsigned long long)lo - (unsigned long long)lb                   \
                               : (unsigned long long)lb - (unsigned long long)lo) &                \
                     mask);                                                                        \
                unsigned long long span =                                                          \
                    ((incr > 0 ? (unsigned long long)hi - (unsigned long long)lo                   \
                               : (unsigned long long)lo - (unsigned long long)hi) &                \
                     mask);                                                                        \
                if (from % step || span % step || from / step >= n || span / step >= n)            \
                    FAIL(#fn ": member %d got [%lld, %lld] off the loop's lattice (lb %lld, "      \
                             "n %llu, incr %lld)",                                                 \
                         t, (long long)lo, (long long)hi, (long long)lb, n, (long long)incr);      \
                got[t].j0 = from / step;                                                           \
                got[t].j1 = got[t].j0 + span / step + 1;                                           \
                for (unsigned long long j = got[t].j0; j < got[t].j1 && j < n; j++) {              \
                    cov_hit(c, (long)j);                                                           \
                    if (t == 1)                                                                    \
                        slow_member();                                                             \
                }                                                                                  \
            }                                                                                      \
            __kmpc_for_static_fini(NULL, gtid);                                                    \
        }                                                                                          \
    }

RUN_FORM(__kmpc_for_static_init_4, int32_t, int32_t, 32)
RUN_FORM(__kmpc_for_static_init_4u, uint32_t, int32_t, 32)
RUN_FORM(__kmpc_for_static_init_8, int64_t, int64_t, 64)
RUN_FORM(__kmpc_for_static_init_8u, uint64_t, int64_t, 64)

static long uneven; /* executions whose split was not the balanced one */

/* Check one execution's reports: ranges tile [0, n) in member order, the last flag. */
static void check_got(const struct got *got, int P, unsigned long long n, const char *what)
{
    unsigned long long at = 0;
    int lasts = 0;
    for (int t = 0; t < P; t++) {
        if (got[t].j0 == ~0ULL) {
            if (got[t].last)
                FAIL("%s: member %d of %d ran nothing yet was told it has the last iteration", what,
                     t, P);
            continue;
        }
        if (got[t].j0 != at)
            FAIL("%s: member %d of %d starts at %llu, after %llu (not contiguous in member "
                 "order; n=%llu)",
                 what, t, P, got[t].j0, at, n);
        at = got[t].j1;
        if (got[t].last != (got[t].j1 == n))
            FAIL("%s: member %d of %d: last=%d for range [%llu,%llu) of n=%llu", what, t, P,
                 got[t].last, got[t].j0, got[t].j1, n);
        lasts += got[t].last;
    }
    if (at != n || lasts != 1)
        FAIL("%s: ranges end at %llu of n=%llu, %d members told last", what, at, n, lasts);
    /* Whether the split differs from the balanced one (the first n % P members one more). */
    for (int t = 0; t < P; t++) {
        unsigned long long q = n / (unsigned long long)P, rem = n % (unsigned long long)P;
        unsigned long long size = got[t].j0 == ~0ULL ? 0 : got[t].j1 - got[t].j0;
        if (size != q + ((unsigned long long)t < rem)) {
            uneven++;
            break;
        }
    }
}

/* Whether the weighted static loops of libloopfarm-kmp are in the process. */
static int weighted_shim(void)
{
    const char *r = getenv("LF_REPLACE");
    return dlsym(RTLD_DEFAULT, "lf_shim_enable") && r && strstr(r, "static:weighted");
}

/* libomp (LLVM 14) writes a member with no iteration (more members than iterations) as
 * lower = upper + incr, which wraps when upper is within one stride of the type's limit: that
 * member then runs the whole type.  Such cases are left out of a run without the weighted shim,
 * and counted. */
static int libomp_wraps(int P, unsigned long long n, unsigned long long ub, long long incr,
                        unsigned long long tmin, unsigned long long tmax, int is_signed)
{
    if (n >= (unsigned long long)P)
        return 0;
    if (is_signed) {
        long long u = (long long)ub;
        return incr > 0 ? u > (long long)tmax - incr : u < (long long)tmin - incr;
    }
    return incr > 0 ? ub > tmax - (unsigned long long)incr : ub < (unsigned long long)-incr;
}

static const int teams[] = {1, 2, 3, 4, 8, 16, 33};
/* Longest first: a weighted shim settles and tries its weights on each call site's first
 * executions, where member 1's slowness shows best. */
static const unsigned long long trips[] = {4096, 1001, 100, 34, 33, 32, 5, 3, 2, 1};

static int *c;
static long loops, skipped;
static int weighted;

/* Run the loop of form fn from lb (n iterations, stride st) at the current team size P, and
 * check it; a case libomp gets wrong is left out when the shim is absent. */
#define CASE(fn, T, lbv, st, tmin, tmax, is_signed, fmt, fmtcast)                                  \
    do {                                                                                           \
        T lb_ = (lbv);                                                                             \
        unsigned long long ub_ =                                                                   \
            (unsigned long long)(T)((unsigned long long)lb_ + (n - 1) * (unsigned long long)(st)); \
        if (is_signed)                                                                             \
            ub_ = (unsigned long long)(long long)(T)ub_;                                           \
        if (!weighted && libomp_wraps(P, n, ub_, (st), (tmin), (tmax), (is_signed))) {             \
            skipped++;                                                                             \
            break;                                                                                 \
        }                                                                                          \
        char what_[160];                                                                           \
        snprintf(what_, sizeof what_, #T " lb " fmt " n %llu incr %lld, %d threads", (fmtcast)lb_, \
                 n, (long long)(st), P);                                                           \
        run_##fn(lb_, n, (st), c, got);                                                            \
        cov_check(c, (long)n, what_);                                                              \
        check_got(got, P, n, what_);                                                               \
        loops++;                                                                                   \
    } while (0)

int main(void)
{
    struct got got[MAXT];
    c = cov_new(4096);
    weighted = weighted_shim();
    omp_set_dynamic(0);
    for (size_t ti = 0; ti < sizeof teams / sizeof *teams; ti++) {
        int P = teams[ti];
        omp_set_num_threads(P);
        for (size_t ni = 0; ni < sizeof trips / sizeof *trips; ni++) {
            unsigned long long n = trips[ni];
            /* Strides: unit, 7, one that spans most of the type, and their negatives; bounds
             * at each limit, one span inside the other limit, and across zero.  Three
             * executions of each loop in a row. */
            long long wide32 = INT32_MAX / (long long)n, wide64 = INT64_MAX / (long long)n;
            long long s32[] = {1, 7, wide32, -1, -7, -wide32};
            long long s64[] = {1, 7, wide64, -1, -7, -wide64};
            for (int si = 0; si < 6; si++)
                for (int rep = 0; rep < 3; rep++) {
                    long long st = s32[si];
                    bool up = st > 0;
                    unsigned long long span = (n - 1) * (unsigned long long)(up ? st : -st);
                    CASE(__kmpc_for_static_init_4, int32_t, up ? INT32_MIN : INT32_MAX, st,
                         (unsigned long long)INT32_MIN, INT32_MAX, 1, "%d", int);
                    CASE(__kmpc_for_static_init_4, int32_t,
                         up ? (int32_t)(INT32_MAX - (long long)span)
                            : (int32_t)(INT32_MIN + (long long)span),
                         st, (unsigned long long)INT32_MIN, INT32_MAX, 1, "%d", int);
                    CASE(__kmpc_for_static_init_4, int32_t,
                         (int32_t)(up ? -(long long)(span / 2) : (long long)(span / 2)), st,
                         (unsigned long long)INT32_MIN, INT32_MAX, 1, "%d", int);
                    CASE(__kmpc_for_static_init_4u, uint32_t, up ? 0u : UINT32_MAX, st, 0,
                         UINT32_MAX, 0, "%u", unsigned);
                    CASE(__kmpc_for_static_init_4u, uint32_t,
                         (uint32_t)(up ? UINT32_MAX - span : span), st, 0, UINT32_MAX, 0, "%u",
                         unsigned);
                    st = s64[si];
                    span = (n - 1) * (unsigned long long)(up ? st : -st);
                    CASE(__kmpc_for_static_init_8, int64_t, up ? INT64_MIN : INT64_MAX, st,
                         (unsigned long long)INT64_MIN, INT64_MAX, 1, "%lld", long long);
                    CASE(__kmpc_for_static_init_8, int64_t,
                         (int64_t)(up ? (unsigned long long)INT64_MAX - span
                                      : (unsigned long long)INT64_MIN + span),
                         st, (unsigned long long)INT64_MIN, INT64_MAX, 1, "%lld", long long);
                    CASE(__kmpc_for_static_init_8, int64_t,
                         up ? -(int64_t)(span / 2) : (int64_t)(span / 2), st,
                         (unsigned long long)INT64_MIN, INT64_MAX, 1, "%lld", long long);
                    CASE(__kmpc_for_static_init_8u, uint64_t, up ? 0u : UINT64_MAX, st, 0,
                         UINT64_MAX, 0, "%llu", unsigned long long);
                    CASE(__kmpc_for_static_init_8u, uint64_t, up ? UINT64_MAX - span : span, st, 0,
                         UINT64_MAX, 0, "%llu", unsigned long long);
                }
        }
    }
    /* With the weighted shim, member 1's slower iterations move some splits: without one, the
     * weighted ranges would go untested. */
    if (weighted && uneven == 0)
        FAIL("LF_REPLACE=static:weighted, yet all %ld splits were even", loops);
    printf("k_static_abi: %ld static loops (%ld split unevenly), every iteration once", loops,
           uneven);
    if (skipped)
        printf("; %ld cases left out (libomp's own empty range wraps at the type's limit)",
               skipped);
    printf("\n");
    return 0;
}
