/* tests/fuzz/fuzz_sim_platform.c - libFuzzer target: lf-sim platform files
 * (lf__sim_platform_read, lib/sim/platform.c).  Any input is either read
 * into workers whose figures are inside the documented ranges (so sums
 * over them stay finite), or refused with "NAME:" leading the message. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sim/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 1 << 16)
        return 0;
    FILE *f = fmemopen((void *)data, size, "r");
    if (!f)
        return 0;
    struct lf__sim_platform pf;
    char err[512];
    if (lf__sim_platform_read(&pf, f, "fuzz", err, sizeof err) == 0) {
        double sum = 0.0;
        for (int i = 0; i < pf.nworkers; i++) {
            const struct lf__sim_worker *w = &pf.w[i];
            if (!(w->speed > 0) || !isfinite(w->latency) || !isfinite(w->bandwidth) ||
                (w->nseg && w->prof[w->nseg - 1].f <= 0))
                abort();
            sum += w->speed;
        }
        if (!isfinite(sum) || !isfinite(pf.bytes_per_iter))
            abort();
        lf__sim_platform_free(&pf);
    } else if (strncmp(err, "fuzz", 4) != 0) {
        abort();
    }
    fclose(f);
    return 0;
}
