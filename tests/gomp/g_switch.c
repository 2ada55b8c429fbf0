/* tests/gomp/g_switch.c - lf_shim_enable, the switch a preloaded shim exports (loopfarm.h):
 * a plain OpenMP program that looks the switch up with dlsym, as a program that compares a
 * schedule with the runtime's own within one process does, and checks its answers.  Built by
 * gcc for libloopfarm-gomp (g_switch) and by clang for libloopfarm-kmp (k_switch); run by
 * tests/test_shim_process.sh, which checks, from LF_VERBOSE's "taking" lines between the marks
 * this program writes to stderr, that loops started while the switch is off are the runtime's
 * and those started after it is back on are the shim's.
 *
 *   g_switch absent | unconfigured | configured
 *
 * absent: no shim preloaded, so no switch; unconfigured: the shim preloaded without
 * LF_SCHEDULE or LF_REPLACE (off, and it cannot be switched on); configured: LF_SCHEDULE set.
 * Every loop's sum is checked against the closed form in all three.  Exit 0 when all holds,
 * 1 otherwise. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

typedef int enable_fn(int on);

static int fails;

static void expect(const char *what, int got, int want)
{
    if (got != want) {
        fprintf(stderr, "FAIL: %s returned %d, expected %d\n", what, got, want);
        fails++;
    }
}

/* Two loops at two call sites of the program: the shim names each site the first time it
 * takes a loop there. */
static void loop_a(long n)
{
    long s = 0;
#pragma omp parallel for schedule(dynamic, 3) reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += i;
    expect("loop A's sum", s == n * (n - 1) / 2, 1);
}

static void loop_b(long n)
{
    long s = 0;
#pragma omp parallel for schedule(dynamic) reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += i;
    expect("loop B's sum", s == n * (n - 1) / 2, 1);
}

/* Every member of a team asks to switch: refused inside a region, whatever it asks. */
static void inside_a_region(enable_fn *f)
{
    int busy = 0;
#pragma omp parallel reduction(+ : busy)
    busy += f(omp_get_thread_num() & 1) == -EBUSY;
    expect("lf_shim_enable inside a parallel region (members answered -EBUSY)", busy,
           omp_get_max_threads());
}

int main(int argc, char **argv)
{
    const char *mode = argc == 2 ? argv[1] : "";
    enable_fn *f = (enable_fn *)dlsym(RTLD_DEFAULT, "lf_shim_enable");
    if (!strcmp(mode, "absent")) {
        expect("finding lf_shim_enable without a shim (found)", f != NULL, 0);
        loop_a(1000);
        return fails != 0;
    }
    if (strcmp(mode, "unconfigured") && strcmp(mode, "configured")) {
        fprintf(stderr, "usage: g_switch absent | unconfigured | configured\n");
        return 2;
    }
    if (!f) {
        fprintf(stderr, "FAIL: no lf_shim_enable in the process (is a shim preloaded?)\n");
        return 1;
    }
    expect("lf_shim_enable(2)", f(2), -EINVAL);
    expect("lf_shim_enable(-1)", f(-1), -EINVAL);
    if (!strcmp(mode, "unconfigured")) {
        expect("lf_shim_enable(1) with nothing configured", f(1), -ENOENT);
        expect("lf_shim_enable(0) with nothing configured", f(0), 0);
        inside_a_region(f);
        loop_a(1000);
        return fails != 0;
    }
    inside_a_region(f);
    fprintf(stderr, "MARK off\n");
    expect("lf_shim_enable(0) after start-up (the previous state)", f(0), 1);
    expect("lf_shim_enable(0) again", f(0), 0);
    loop_a(100000);
    loop_a(100000);
    fprintf(stderr, "MARK on\n");
    expect("lf_shim_enable(1) (the previous state)", f(1), 0);
    loop_b(100000);
    fprintf(stderr, "MARK again\n");
    loop_a(100000);
    expect("lf_shim_enable(1) again", f(1), 1);
    return fails != 0;
}
