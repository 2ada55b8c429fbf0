/* Nested parallel regions: loops of inner teams, and inner teams inside a taken loop's body. */
#include "check.h"

int main(void)
{
    const long n = 500;
    omp_set_max_active_levels(3);
    int *c = cov_new(8 * n), *d = cov_new(n * 40);
#pragma omp parallel num_threads(3)
    {
        int o = omp_get_thread_num();
#pragma omp parallel num_threads(2)
        {
#pragma omp for schedule(dynamic, 2)
            for (long i = 0; i < n; i++)
                cov_hit(c, o * n + i);
#pragma omp for schedule(guided) nowait
            for (long i = 0; i < n; i++)
                cov_hit(c, (3 + o) * n + i);
        }
    }
    cov_check(c, 6 * n, "nested inner loops");
    /* A taken loop whose body opens inner teams with loops of their own. */
#pragma omp parallel num_threads(2)
    {
#pragma omp for schedule(dynamic)
        for (long k = 0; k < 40; k++) {
#pragma omp parallel for schedule(dynamic, 3) num_threads(2)
            for (long i = 0; i < n; i++)
                cov_hit(d, k * n + i);
        }
    }
    cov_check(d, 40 * n, "loops inside a loop's body");
    return 0;
}
