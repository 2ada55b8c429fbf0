/* tests/test_data_check.c - lf_loop_begin_data refuses a data description
 * whose element addresses would overflow (extreme stride, halo, size,
 * indices near LONG_MIN/LONG_MAX, a base near either end of the address
 * space) instead of computing them, accepts the same description within
 * range, and a span() that finds no data gives a NULL input, not an offset
 * null pointer.  Exit 0 pass, 1 fail. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plain.h"

static double arr[1000];

/* Begin a one-member loop over [lo, hi) with one input; run it through
 * when accepted.  Returns lf_loop_begin_data's answer. */
static int try_input(lf_loop *l, long lo, long hi, const void *base, size_t size, long stride,
                     long halo)
{
    struct lf_data d;
    memset(&d, 0, sizeof d);
    d.ninputs = 1;
    d.in[0] = (struct lf_input){base, size, stride, halo, NULL, NULL};
    int rc = lf_loop_begin_data(l, 0, lo, hi, 1, &d);
    if (rc == 0) {
        long first;
        unsigned long cnt;
        unsigned long seen = 0;
        while (lf_loop_next(l, 0, &first, &cnt))
            seen += cnt;
        lf_loop_end(l, 0);
        CHECK(seen == (unsigned long)(hi - lo));
    }
    return rc;
}

static void no_data(long first, long last, const void **addr, size_t *bytes, void *arg)
{
    (void)first, (void)last, (void)arg;
    *addr = NULL;
    *bytes = 0;
}

int main(void)
{
    lf_schedule *s = NULL;
    lf_loop *l = NULL;
    if (lf_schedule_parse("dynamic,7", &s, NULL, 0) != 0 || lf_loop_create(&l, 1, s, "dc") != 0)
        return 1;
    const long M = LONG_MAX;

    /* Within range: accepted and run. */
    CHECK(try_input(l, 0, 1000, arr, sizeof arr[0], 1, 0) == 0);
    CHECK(try_input(l, 2, 998, arr, sizeof arr[0], 1, 2) == 0);
    CHECK(try_input(l, -5, 5, arr + 10, sizeof arr[0], 1, 0) == 0); /* negative indices */
    CHECK(try_input(l, 0, 10, arr, sizeof arr[0], 99, 0) == 0);

    /* Products that overflow long. */
    CHECK(try_input(l, 0, 10, arr, 8, M, 0) == -EINVAL);         /* i * stride * size */
    CHECK(try_input(l, 0, 10, arr, 8, M / 8 + 1, 0) == -EINVAL); /* stride * size */
    CHECK(try_input(l, 0, 10, arr, 4, 1, M / 2) == -EINVAL);     /* halo * size */
    CHECK(try_input(l, 0, 10, arr, 1, 1, M) == -EINVAL);         /* i * stride + halo */
    CHECK(try_input(l, 0, 10, arr, SIZE_MAX, 1, 0) == -EINVAL);  /* size beyond long */
    CHECK(try_input(l, 0, 10, arr, (size_t)M, 2, 0) == -EINVAL); /* span */
    CHECK(try_input(l, M - 10, M, arr, 8, 1, 0) == -EINVAL);     /* indices near LONG_MAX */
    CHECK(try_input(l, LONG_MIN, LONG_MIN + 10, arr, 8, 1, 0) == -EINVAL); /* and LONG_MIN */
    CHECK(try_input(l, -M / 4, 0, arr, 8, 1, 0) == -EINVAL);

    /* Addresses that wrap around the address space. */
    CHECK(try_input(l, 0, 100, (const void *)(UINTPTR_MAX - 100), 8, 1, 0) == -EINVAL);
    CHECK(try_input(l, -100, 0, (const void *)(uintptr_t)64, 8, 1, 0) == -EINVAL);
    CHECK(try_input(l, 0, 10, (const void *)(uintptr_t)64, 8, 1, 16) == -EINVAL); /* halo */

    /* A span() with nothing to say: the input is NULL, the loop runs. */
    struct lf_data d;
    memset(&d, 0, sizeof d);
    d.ninputs = 1;
    d.in[0].span = no_data;
    CHECK(lf_loop_begin_data(l, 0, 0, 100, 1, &d) == 0);
    long first;
    unsigned long cnt, seen = 0;
    while (lf_loop_next(l, 0, &first, &cnt)) {
        CHECK(lf_loop_input(l, 0, 0) == NULL);
        seen += cnt;
    }
    lf_loop_end(l, 0);
    CHECK(seen == 100);

    lf_loop_destroy(l);
    lf_schedule_free(s);
    return plain_failures ? 1 : 0;
}
