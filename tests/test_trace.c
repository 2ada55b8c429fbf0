/* tests/test_trace.c - LF_TRACE: memory stays bounded however many chunks a
 * loop has, a failed write is reported once, "%p" gives each process its
 * own file, and processes sharing one file interleave whole records.
 * Each case runs children of this program with LF_TRACE set (it is read
 * once per process).  Exit 0 pass, 1 fail. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plain.h"
#include "dispatch/dispatch.h"

/* Run `loops` loops of n iterations under spec on two threads, as site name. */
static void run(const char *spec, const char *name, long n, int loops)
{
    if (!plain_run_loops(spec, name, 2, n, loops))
        exit(3);
}

/* Child: the peak resident size grows by less than 8 MB over a loop of
 * 600,000 one-iteration chunks (unbounded buffers would take 19 MB). */
static int child_bounded(void)
{
    run("dynamic,1", "warm", 1000, 1);
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    run("dynamic,1", "big", 600000, 1);
    getrusage(RUSAGE_SELF, &r1);
    long grew_kb = r1.ru_maxrss - r0.ru_maxrss;
    if (grew_kb >= 8 * 1024) {
        fprintf(stderr, "test_trace: tracing 600000 chunks grew the peak RSS by %ld KB\n", grew_kb);
        return 1;
    }
    return 0;
}

/* Run this program as a child: LF_TRACE=trace, mode, site name; its stderr
 * goes to errpath when not NULL.  Returns the child's pid. */
static pid_t spawn(const char *self, const char *trace, const char *mode, const char *name,
                   const char *errpath)
{
    pid_t pid = fork();
    if (pid == 0) {
        setenv("LF_TRACE", trace, 1);
        if (errpath && !freopen(errpath, "w", stderr))
            _exit(4);
        execl(self, self, mode, name, (char *)NULL);
        _exit(5);
    }
    return pid;
}

static int wait_ok(pid_t pid)
{
    int st;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Check a trace file: one header, every other line a whole record; the
 * records of site name (instance 0 .. loops-1) cover [0, n) exactly once
 * each.  Returns the number of records of that site, -1 when malformed. */
static long check_file(const char *path, const char *name, long n, int loops)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    unsigned char *seen = calloc((size_t)n * (size_t)loops, 1);
    char line[512];
    long rows = 0, headers = 0, bad = 0;
    while (fgets(line, sizeof line, f)) {
        if (strcmp(line, "site,instance,thread,lo,hi,start_ns,end_ns,pieces,from,plan\n") == 0) {
            headers++;
            continue;
        }
        char site[64], plan[16], nl;
        unsigned long long inst, lo, hi, t0, t1;
        unsigned pieces;
        int thr, from;
        if (sscanf(line, "%63[^,],%llu,%d,%llu,%llu,%llu,%llu,%u,%d,%15[a-z]%c", site, &inst, &thr,
                   &lo, &hi, &t0, &t1, &pieces, &from, plan, &nl) != 11 ||
            nl != '\n' || pieces < 1 || from < -1 ||
            (strcmp(plan, "dealt") && strcmp(plan, "own") && strcmp(plan, "self") &&
             strcmp(plan, "tiny"))) {
            bad++;
            continue;
        }
        if (strcmp(site, name) != 0)
            continue;
        rows++;
        if (inst >= (unsigned long long)loops || lo >= hi || hi > (unsigned long long)n ||
            t1 < t0) {
            bad++;
            continue;
        }
        for (unsigned long long i = lo; i < hi; i++)
            bad += seen[inst * (unsigned long long)n + i]++ != 0;
    }
    fclose(f);
    for (long i = 0; i < n * loops; i++)
        bad += seen[i] != 1;
    free(seen);
    return headers == 1 && bad == 0 ? rows : -1;
}

/* Lines in a file. */
static int lines_of(const char *path, char *first, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        if (n == 0 && first)
            snprintf(first, len, "%s", line);
        n++;
    }
    fclose(f);
    return n;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--bounded") == 0)
        return child_bounded();
    if (argc == 3 && strcmp(argv[1], "--name") == 0) {
        /* lf_trace_file: this process's name, another's, a short buffer. */
        char mine[256], other[256], tiny[4];
        if (lf_trace_file(0, mine, sizeof mine) != 0 ||
            lf_trace_file(42, other, sizeof other) != 0 ||
            lf_trace_file(42, tiny, sizeof tiny) != -ENAMETOOLONG ||
            lf_trace_file(42, NULL, 8) != -EINVAL)
            return 1;
        fprintf(stderr, "%s\n%s\n", mine, other);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--range") == 0) {
        /* lf_trace_range: two records written, every malformed one refused; times taken
         * after the trace's epoch (lf_trace_file reads LF_TRACE). */
        char name[8];
        (void)lf_trace_file(0, name, sizeof name);
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        unsigned long long now =
            (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
        if (lf_trace_range("kmp:static@x+0x10", 7, 0, 0, 40, now, now + 500, "static") != 0 ||
            lf_trace_range("kmp:static@x+0x10", 7, 1, 40, 100, now, now + 900, "weighted") != 0 ||
            lf_trace_range("a,b", 7, 0, 0, 1, now, now, "static") != -EINVAL ||
            lf_trace_range("s", 7, 0, 0, 1, now, now, "two\nlines") != -EINVAL ||
            lf_trace_range(NULL, 7, 0, 0, 1, now, now, "static") != -EINVAL ||
            lf_trace_range("s", 7, 0, 0, 1, now, now, "") != -EINVAL ||
            lf_trace_range("s", 7, -1, 0, 1, now, now, "static") != -EINVAL ||
            lf_trace_range("s", 7, 0, 5, 4, now, now, "static") != -EINVAL ||
            lf_trace_range("s", 7, 0, 0, 1, now, now - 1, "static") != -EINVAL)
            return 1;
        char big[5000];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = 0;
        return lf_trace_range(big, 7, 0, 0, 1, now, now, "static") == -ENAMETOOLONG ? 0 : 1;
    }
    if (argc == 3 && strcmp(argv[1], "--loops") == 0) {
        run("dynamic,1", argv[2], 150000, 2); /* each loop passes the buffer's size */
        return 0;
    }
    const char *self = argv[0];
    char dir[] = "/tmp/lf-test-trace-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[256], path2[256], err[256], msg[1024];

    /* The name's expansion. */
    CHECK(lf__trace_name("t.%p.csv", 42, path, sizeof path) == 0 && strcmp(path, "t.42.csv") == 0);
    CHECK(lf__trace_name("100%%.%p", 7, path, sizeof path) == 0 && strcmp(path, "100%.7") == 0);
    CHECK(lf__trace_name("plain.csv", 7, path, sizeof path) == 0 && strcmp(path, "plain.csv") == 0);
    CHECK(lf__trace_name("abcdef%p", 123456, path, 8) == -ENAMETOOLONG);
    /* The public lf_trace_file: the names a process and its children use. */
    if (!getenv("LF_TRACE"))
        CHECK(lf_trace_file(0, path, sizeof path) == -ENOENT);
    snprintf(path, sizeof path, "%s/n.%%p.%%%%.csv", dir);
    snprintf(err, sizeof err, "%s/name.err", dir);
    pid_t named = spawn(self, path, "--name", "x", err);
    CHECK(wait_ok(named));
    snprintf(path2, sizeof path2, "%s/n.%ld.%%.csv\n%s/n.42.%%.csv\n", dir, (long)named, dir);
    FILE *nf = fopen(err, "r");
    size_t got = nf ? fread(msg, 1, sizeof msg - 1, nf) : 0;
    msg[got] = 0;
    if (nf)
        fclose(nf);
    CHECK(strcmp(msg, path2) == 0);

    /* lf_trace_range: refused with tracing off; two whole records with tracing on. */
    if (!getenv("LF_TRACE"))
        CHECK(lf_trace_range("s", 0, 0, 0, 1, 0, 1, "static") == -ENOENT);
    snprintf(path, sizeof path, "%s/range.csv", dir);
    CHECK(wait_ok(spawn(self, path, "--range", "x", NULL)));
    {
        FILE *rf = fopen(path, "r");
        char line[256];
        unsigned long long lo, hi, t0, t1;
        int th, rows = 0, ok = 1;
        CHECK(rf != NULL);
        CHECK(fgets(line, sizeof line, rf) && strncmp(line, "site,", 5) == 0);
        while (fgets(line, sizeof line, rf)) {
            char plan[16];
            ok &= sscanf(line, "kmp:static@x+0x10,7,%d,%llu,%llu,%llu,%llu,1,-1,%15s", &th, &lo,
                         &hi, &t0, &t1, plan) == 6;
            ok &= th == rows && lo == (rows ? 40u : 0u) && hi == (rows ? 100u : 40u);
            ok &= t1 - t0 == (rows ? 900u : 500u);
            ok &= strcmp(plan, rows ? "weighted" : "static") == 0;
            rows++;
        }
        fclose(rf);
        CHECK(ok && rows == 2);
    }

    /* Bounded memory: the child checks its own peak resident size. */
    snprintf(path, sizeof path, "%s/big.csv", dir);
    CHECK(wait_ok(spawn(self, path, "--bounded", "x", NULL)));
    CHECK(check_file(path, "big", 600000, 1) > 0);

    /* A device that refuses every write: one message, the loops still run. */
    snprintf(err, sizeof err, "%s/full.err", dir);
    if (access("/dev/full", W_OK) == 0) {
        CHECK(wait_ok(spawn(self, "/dev/full", "--loops", "full", err)));
        CHECK(lines_of(err, msg, sizeof msg) == 1);
        CHECK(strstr(msg, "LF_TRACE=/dev/full") && strstr(msg, "write failed"));
    }

    /* %p: two processes at once, a file each, each complete. */
    snprintf(path, sizeof path, "%s/t.%%p.csv", dir);
    pid_t a = spawn(self, path, "--loops", "a", NULL), b = spawn(self, path, "--loops", "b", NULL);
    CHECK(wait_ok(a) && wait_ok(b));
    snprintf(path, sizeof path, "%s/t.%ld.csv", dir, (long)a);
    snprintf(path2, sizeof path2, "%s/t.%ld.csv", dir, (long)b);
    CHECK(check_file(path, "a", 150000, 2) > 0);
    CHECK(check_file(path2, "b", 150000, 2) > 0);

    /* One file shared by two processes at once: whole records from both. */
    snprintf(path, sizeof path, "%s/shared.csv", dir);
    a = spawn(self, path, "--loops", "a", NULL);
    b = spawn(self, path, "--loops", "b", NULL);
    CHECK(wait_ok(a) && wait_ok(b));
    CHECK(check_file(path, "a", 150000, 2) > 0);
    CHECK(check_file(path, "b", 150000, 2) > 0);

    if (!plain_failures) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "test_trace: could not remove %s\n", dir);
    }
    return plain_failures ? 1 : 0;
}
