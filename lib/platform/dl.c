/* lib/platform/dl.c - a library loaded at run time, by name, with the functions asked of it.
 *
 * libloopfarm links neither PAPI nor hwloc (lib/platform/counters.c,
 * lib/platform/hwloc-load.c): each is opened here the first time it is
 * needed, so that a process that never needs it does not pay for loading it.
 */
#include "config.h"

#if defined(LF_HAVE_PAPI) || defined(LF_HAVE_HWLOC)
#include <dlfcn.h>
#include <stdio.h>

#include "platform/platform.h"

int lf__dl_open(const char *soname, const char *const *names, void **fns, size_t n, char *why,
                size_t whylen)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, whylen, "%s could not be loaded (%s)", soname, e ? e : "no reason given");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        fns[i] = dlsym(h, names[i]);
        if (!fns[i]) {
            snprintf(why, whylen, "%s has no %s", soname, names[i]);
            dlclose(h);
            return -1;
        }
    }
    return 0; /* the library stays loaded for the life of the process */
}
#endif
