/* tests/lfcu.h - the few lines every CUnit suite shares.
 *
 * A test program lists its tests in a table and calls lfcu_run(); the exit
 * status is 0 when all passed, 1 otherwise, 77 when the suite cannot run on
 * this machine (automake's "skipped").
 */
#ifndef LFCU_H
#define LFCU_H

#include <CUnit/Basic.h>
#include <stdio.h>

struct lfcu_test {
    const char *name;
    void (*fn)(void);
};

/* Run every test of tests[] (terminated by {0}) in one suite named suite. */
static inline int lfcu_run(const char *suite, const struct lfcu_test *tests)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite(suite, NULL, NULL);
    if (!s)
        return 1;
    for (const struct lfcu_test *t = tests; t->name; t++)
        if (!CU_add_test(s, t->name, t->fn))
            return 1;
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

#endif
