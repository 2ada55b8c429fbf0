/* tests/fuzz/fuzz_fake_numa.c - libFuzzer target: LF_FAKE_NUMA
 * (lf__numa_parse, lib/platform/numa.c).  Any input is either accepted
 * with figures inside the documented ranges, or refused with fake mode off
 * and a message naming the variable. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "platform/numa.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    struct lf__fake_numa f;
    char err[256];
    if (lf__numa_parse(text, &f, err, sizeof err) == 0) {
        if (f.ndom < 0 || !(f.lat_ns >= 0 && f.lat_ns <= 1e7) || !(f.gbps >= 1e-3 && f.gbps <= 1e4))
            abort();
        if (text[0] && f.ndom < 1)
            abort();
    } else if (f.ndom != 0 || !strstr(err, "LF_FAKE_NUMA")) {
        abort();
    }
    free(text);
    return 0;
}
