/* tests/gomp/g_dlopen_lib.c - an OpenMP library that a program without OpenMP loads with
 * dlopen(RTLD_LOCAL), as Python loads an extension module: its libgomp comes into the process
 * with it, outside the global scope (tests/gomp/g_dlopen.c drives it). */
long g_dlopen_sum(long n);

long g_dlopen_sum(long n)
{
    long s = 0;
#pragma omp parallel for schedule(dynamic, 3) reduction(+ : s)
    for (long i = 0; i < n; i++)
        s += i;
    return s;
}
