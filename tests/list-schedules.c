/* tests/list-schedules.c - print every registered schedule name, one per line
 * (used by scripts/check-install.sh to sweep them all). */
#include <stdio.h>

#include "policy/policy.h"

int main(void)
{
    for (const struct lf__policy *const *p = lf__policies; *p; p++)
        printf("%s\n", (*p)->name);
    return 0;
}
