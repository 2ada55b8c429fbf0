/* tests/test_params.c - schedule specs: accepted forms parse, malformed ones
 * are rejected with a message naming what was expected. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lfcu.h"
#include "loopfarm.h"
#include "policy/policy.h"

static void test_split_reads_name_chunk_and_keys(void)
{
    struct lf__params p;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(lf__params_split(" guided , 4 , a=1,b = x ", &p, err, sizeof err), 0);
    CU_ASSERT_STRING_EQUAL(p.name, "guided");
    CU_ASSERT(p.has_chunk);
    CU_ASSERT_EQUAL(p.chunk, 4);
    CU_ASSERT_EQUAL(p.nkv, 2);
    CU_ASSERT_STRING_EQUAL(p.kv[1].key, "b");
    CU_ASSERT_STRING_EQUAL(p.kv[1].val, "x");
    double d;
    uint64_t u;
    CU_ASSERT_EQUAL(lf__params_get_double(&p, "a", 0, 10, &d, err, sizeof err), 1);
    CU_ASSERT_DOUBLE_EQUAL(d, 1.0, 0);
    CU_ASSERT_EQUAL(lf__params_get_u64(&p, "zz", 0, 10, &u, err, sizeof err), 0);
    CU_ASSERT_EQUAL(lf__params_check_unused(&p, err, sizeof err), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "\"b\""));
}

static void test_malformed_specs_are_rejected_with_a_message(void)
{
    static const char *bad[] = {"",
                                ",4",
                                "dynamic,0",
                                "dynamic,-3",
                                "dynamic,4,5",
                                "dynamic,,",
                                "dynamic,x",
                                "dynamic,=3",
                                "dynamic,k=",
                                "nosuch",
                                "dynamic,k=1,k=2",
                                "dynamic,cal=sometimes",
                                "dynamic,memory=maybe",
                                "dynamic,calns=0",
                                "dynamic,unknown=1",
                                NULL};
    for (const char **s = bad; *s; s++) {
        char err[512] = "";
        lf_schedule *sc = NULL;
        CU_ASSERT_EQUAL(lf_schedule_parse(*s, &sc, err, sizeof err), -EINVAL);
        CU_ASSERT_PTR_NULL(sc);
        CU_ASSERT(strlen(err) > 10);
    }
    char err[512];
    lf_schedule *sc;
    CU_ASSERT_EQUAL(lf_schedule_parse("nosuch", &sc, err, sizeof err), -EINVAL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "dynamic[,c]")); /* names the accepted forms */
    CU_ASSERT_EQUAL(lf_schedule_parse(NULL, &sc, err, sizeof err), -EINVAL);
    CU_ASSERT_EQUAL(lf_schedule_parse("dynamic", NULL, err, sizeof err), -EINVAL);
}

static void test_every_registered_policy_parses_by_name(void)
{
    for (const struct lf__policy *const *p = lf__policies; *p; p++) {
        char err[512];
        lf_schedule *sc;
        int rc = lf_schedule_parse((*p)->name, &sc, err, sizeof err);
        if (rc)
            fprintf(stderr, "%s: %s\n", (*p)->name, err);
        CU_ASSERT_EQUAL(rc, 0);
        if (!rc) {
            CU_ASSERT_STRING_EQUAL(lf_schedule_name(sc), (*p)->name);
            CU_ASSERT_STRING_EQUAL(lf_schedule_spec(sc), (*p)->name);
            lf_schedule_free(sc);
        }
        CU_ASSERT_PTR_NOT_NULL((*p)->synopsis);
        CU_ASSERT_PTR_NOT_NULL((*p)->help);
        CU_ASSERT_PTR_NOT_NULL((*p)->chunk);
    }
}

static void test_executor_keys_are_read(void)
{
    struct lf__sched s;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(
        lf__sched_parse("dynamic,3,cal=paper,memory=off,calns=500", &s, err, sizeof err), 0);
    CU_ASSERT(s.cal_paper);
    CU_ASSERT(!s.memory);
    CU_ASSERT_EQUAL(s.cal_ns, 500);
    CU_ASSERT_EQUAL_FATAL(lf__sched_parse("dynamic", &s, err, sizeof err), 0);
    CU_ASSERT(!s.cal_paper);
    CU_ASSERT(s.memory);
}

static void test_help_lists_every_policy(void)
{
    size_t need = lf_schedule_help(NULL, 0);
    char *buf = malloc(need + 1);
    CU_ASSERT_EQUAL(lf_schedule_help(buf, need + 1), need);
    for (const struct lf__policy *const *p = lf__policies; *p; p++)
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, (*p)->synopsis));
    free(buf);
}

int main(void)
{
    static const struct lfcu_test tests[] = {
        {"split_reads_name_chunk_and_keys", test_split_reads_name_chunk_and_keys},
        {"malformed_specs_are_rejected_with_a_message",
         test_malformed_specs_are_rejected_with_a_message},
        {"every_registered_policy_parses_by_name", test_every_registered_policy_parses_by_name},
        {"executor_keys_are_read", test_executor_keys_are_read},
        {"help_lists_every_policy", test_help_lists_every_policy},
        {0, 0},
    };
    return lfcu_run("params", tests);
}
