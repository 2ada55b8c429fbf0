/* tests/fuzz/fuzz_replace.c - libFuzzer target: LF_REPLACE
 * (lf__gomp_parse_replace, lib/gomp/shim.c).  Any input fills the map with
 * strings or leaves entries NULL, without crashing or leaking. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

void lf__gomp_parse_replace(const char *text, char **map);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_string(data, size);
    if (!text)
        return 0;
    char *map[8] = {0}; /* the shim's K_COUNT entries, and room to spare */
    lf__gomp_parse_replace(text, map);
    for (int k = 0; k < 8; k++) {
        if (map[k] && strlen(map[k]) > size)
            abort(); /* an entry is made of the input's text */
        free(map[k]);
    }
    free(text);
    return 0;
}
