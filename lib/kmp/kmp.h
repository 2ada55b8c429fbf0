/* lib/kmp/kmp.h - what the two parts of libloopfarm-kmp share: the dispatch loops
 * (lib/kmp/shim.c) and the weighted static loops (lib/kmp/static.c) read one configuration,
 * and speak libomp's types (LLVM 14's kmp.h).
 */
#ifndef LF_KMP_H
#define LF_KMP_H

#include <stdint.h>

#include "shim/shim.h"

#define SHIM_API __attribute__((visibility("default")))

/* The modifier bits of enum sched_type (kmp.h). */
#define KMP_SCH_MODIFIER_MONOTONIC    (1 << 29)
#define KMP_SCH_MODIFIER_NONMONOTONIC (1 << 30)

typedef int32_t kmp_int32;
typedef uint32_t kmp_uint32;
typedef int64_t kmp_int64;
typedef uint64_t kmp_uint64;
typedef struct ident ident_t; /* a source location; opaque to the shim */

/* The shim's configuration (LF_SCHEDULE, LF_REPLACE, LF_VERBOSE; lib/shim/common.c), read once
 * by lf__shim_configure. */
extern struct lf__shim lf__kmp_cfg;

/* Resolve libomp's definitions and read the configuration, once per process (the first call
 * of any entry point does it; later calls cost one acquire load). */
void lf__kmp_ready(void);
/* lf__kmp_ready's share in lib/kmp/static.c: libomp's static entry points. */
void lf__kmp_static_resolve(void);

/* Report that the runtime lacks entry point name, which the shim must forward to, and abort. */
_Noreturn void lf__kmp_missing(const char *name);

/* libomp's definition of name in the file's table `real` (which must exist). */
#define REAL(name) (real.name ? real.name : (lf__kmp_missing(#name), real.name))

#endif
