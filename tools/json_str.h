/* tools/json_str.h - print a C string as a JSON string literal on stdout
 * (shared by lf-sim and lf-info, whose --format json output is written by
 * hand). */
#ifndef LF_BENCH_JSON_STR_H
#define LF_BENCH_JSON_STR_H

#include <stdio.h>

/* Quote s, escaping '"', '\' and control characters. */
static inline void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", (unsigned char)*s);
        else
            putchar(*s);
    }
    putchar('"');
}

#endif
