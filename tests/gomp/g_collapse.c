/* collapse(2) loops: every (i, j) once. */
#include "check.h"

static int ni = 37, nj = 23;

int main(void)
{
    int *c = cov_new((long)ni * nj);
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 3) collapse(2)
        for (int i = 0; i < ni; i++)
            for (int j = 0; j < nj; j++)
                cov_hit(c, (long)i * nj + j);
#pragma omp single
        cov_check(c, (long)ni * nj, "collapse(2) dynamic,3");
#pragma omp for schedule(guided) collapse(2)
        for (int i = ni - 1; i >= 0; i--)
            for (int j = 0; j < 2 * nj; j += 2)
                cov_hit(c, (long)i * nj + j / 2);
    }
    cov_check(c, (long)ni * nj, "collapse(2) guided");
#pragma omp parallel for schedule(runtime) collapse(2)
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            cov_hit(c, (long)i * nj + j);
    cov_check(c, (long)ni * nj, "parallel for collapse(2) runtime");
    return 0;
}
