/* tests/fuzz/fuzz_replace.c - libFuzzer target: LF_REPLACE
 * (lf__shim_parse_replace, lib/shim/common.c, shared by both preload shims).  Any input fills the
 * map with strings or leaves entries NULL, without crashing or leaking. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#include "shim/shim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    char *map[LF__SHIM_KEYS] = {0};
    struct lf__shim s = {.name = "fuzz", .runtime = "the runtime"};
    lf__shim_parse_replace(&s, text, map);
    for (int k = 0; k < LF__SHIM_KEYS; k++) {
        if (map[k] && strlen(map[k]) > size)
            abort(); /* an entry is made of the input's text */
        free(map[k]);
    }
    free(text);
    return 0;
}
