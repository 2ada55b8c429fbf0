/* tests/gomp/g_dlopen.c - a program without OpenMP that loads an OpenMP library with
 * dlopen(RTLD_LOCAL) and runs its loop (tests/test_shim_process.sh runs it with a shim
 * preloaded: the shim, which needs no OpenMP runtime of its own, must find the one that came
 * with the library).
 *
 *   g_dlopen LIBRARY [ROUNDS]
 *
 * With a shim preloaded (and LF_SCHEDULE set, as the test does), it first switches the shim
 * off and on with lf_shim_enable before any OpenMP runtime is in the process: the switch must
 * answer (1, then 0) without one.  Exit 0 when that holds and every round's sum is the closed
 * form, 1 otherwise. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: g_dlopen LIBRARY [ROUNDS]\n");
        return 2;
    }
    int (*enable)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "lf_shim_enable");
    if (enable) {
        int off = enable(0), on = enable(1);
        if (off != 1 || on != 0) {
            fprintf(stderr, "g_dlopen: lf_shim_enable(0), (1) returned %d, %d; expected 1, 0\n",
                    off, on);
            return 1;
        }
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "g_dlopen: %s\n", dlerror());
        return 1;
    }
    long (*sum)(long) = (long (*)(long))dlsym(lib, "g_dlopen_sum");
    if (!sum) {
        fprintf(stderr, "g_dlopen: no g_dlopen_sum in %s\n", argv[1]);
        return 1;
    }
    int rounds = argc == 3 ? atoi(argv[2]) : 3;
    for (int r = 0; r < rounds; r++) {
        long n = 100000 + r;
        long s = sum(n);
        if (s != n * (n - 1) / 2) {
            fprintf(stderr, "g_dlopen: round %d: sum %ld, expected %ld\n", r, s, n * (n - 1) / 2);
            return 1;
        }
    }
    return 0;
}
