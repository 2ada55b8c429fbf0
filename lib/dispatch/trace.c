/* lib/dispatch/trace.c - LF_TRACE: a per-chunk CSV trace, in bounded memory.
 *
 * Each member appends its chunks to a buffer of its own in the loop's slot
 * (no I/O, no lock) of at most TRACE_CAP records; a member whose buffer is
 * full writes it out, and the last member out of a loop writes what the
 * others still hold.  Columns: site,instance,thread,lo,hi,start_ns,end_ns,
 * pieces,from,plan with [lo, hi) the chunk's logical iterations (0 ..
 * trip count) that the member ran, times in ns since the library's clock
 * epoch, the number of pieces its body got them in (1 unless the chunk was
 * a lease), the member it was stolen from (-1: claimed from the shared
 * counter), and the execution plan the loop ran under (lf__plan_names:
 * dealt, own, self, tiny; dealt for every schedule but auto; a range from
 * lf_trace_range names its own, "static" or "weighted" from libloopfarm-kmp's
 * static loops).  A schedule that learns a cost
 * profile (auto) also appends it, after each loop, to FILE.profile: site,instance,bin,lo,hi,cost,
 * confidence with [lo, hi) the bin's iterations in that loop and cost the
 * time of its iterations relative to the mean.
 *
 * The file is opened for appending and written only in whole records (one
 * write(2) of whole lines at a time), so processes that share a file
 * interleave records, never bytes; "%p" in the name becomes the process id,
 * giving each process its own file.  A failed open or write, or a record
 * dropped for want of memory, is reported once per process.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dispatch/dispatch.h"
#include "platform/clock.h"
#include "platform/env.h"

/* Records a member holds before it writes them out (32 bytes each). */
#define TRACE_CAP 2048
/* Bytes of CSV formatted before one write(2); a record takes < 160. */
#define TRACE_IOBUF 16384

static const char header[] = "site,instance,thread,lo,hi,start_ns,end_ns,pieces,from,plan\n";
static const char prof_header[] = "site,instance,bin,lo,hi,cost,confidence\n";

static pthread_once_t env_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t trace_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *trace_path;
static int verbose_level;
static uint64_t epoch_ticks;
static uint64_t epoch_ns; /* lf__clock_ns() at epoch_ticks: the epoch of lf_trace_range's times */
/* Under trace_lock: the open file, the process that opened it, whether
 * tracing gave up, and the records dropped that were not reported yet. */
static int trace_fd = -1;
static pid_t trace_pid;
static int prof_fd = -1; /* FILE.profile: the profiles learned */
static pid_t prof_pid;
static int trace_failed;
static int drop_reported;
static lf__au64 dropped; /* records lost to a failed allocation */

static void read_env(void)
{
    trace_path = lf__env(LF__ENV_TRACE);
    verbose_level = lf__env_verbose();
    lf__clock_init();
    epoch_ticks = lf__ticks();
    epoch_ns = lf__clock_ns();
}

int lf__trace_enabled(void)
{
    pthread_once(&env_once, read_env);
    return trace_path != NULL;
}

int lf__verbose(void)
{
    pthread_once(&env_once, read_env);
    return verbose_level;
}

uint64_t lf__dispatch_ns(uint64_t ticks)
{
    pthread_once(&env_once, read_env);
    return ticks >= epoch_ticks ? lf__ticks_to_ns(ticks - epoch_ticks) : 0;
}

int lf__trace_name(const char *pattern, long pid, char *out, size_t len)
{
    size_t n = 0;
    for (const char *p = pattern; *p; p++) {
        char num[24];
        const char *piece = p;
        size_t k = 1;
        if (p[0] == '%' && p[1] == 'p') {
            k = (size_t)snprintf(num, sizeof num, "%ld", pid);
            piece = num;
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            p++;
        }
        if (n + k >= len)
            return -ENAMETOOLONG;
        memcpy(out + n, piece, k);
        n += k;
    }
    if (len == 0)
        return -ENAMETOOLONG;
    out[n] = '\0';
    return 0;
}

int lf_trace_file(long pid, char *buf, size_t len)
{
    if (!buf || len == 0)
        return -EINVAL;
    if (!lf__trace_enabled())
        return -ENOENT;
    return lf__trace_name(trace_path, pid > 0 ? pid : (long)getpid(), buf, len);
}

/* Give up tracing for this process after reporting why (trace_lock held). */
static void trace_give_up(const char *what, int err)
{
    fprintf(stderr, "loopfarm: LF_TRACE=%s: %s (%s); tracing stops, the trace is incomplete\n",
            trace_path, what, strerror(err));
    if (trace_fd >= 0)
        close(trace_fd);
    if (prof_fd >= 0)
        close(prof_fd);
    trace_fd = prof_fd = -1;
    trace_failed = 1;
}

/* Write all of buf[0..n) to fd; 0, or -errno (trace_lock held). */
static int write_fd(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, buf, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return k < 0 ? -errno : -EIO;
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_all(const char *buf, size_t n)
{
    return write_fd(trace_fd, buf, n);
}

/* Open LF_TRACE's file for this process with suffix appended to its name,
 * writing hdr into an empty one: *fd, owned by this process (trace_lock
 * held).  0, or -1 after giving tracing up. */
static int open_appending(const char *suffix, const char *hdr, int *fd, pid_t *owner)
{
    pid_t pid = getpid();
    if (*fd >= 0 && *owner == pid)
        return 0;
    if (trace_failed)
        return -1;
    if (*fd >= 0) /* a forked child: its own file when the name has %p */
        close(*fd);
    *fd = -1;
    char path[4096];
    if (lf__trace_name(trace_path, (long)pid, path, sizeof path - strlen(suffix)) != 0) {
        trace_give_up("file name too long", ENAMETOOLONG);
        return -1;
    }
    strcat(path, suffix);
    *fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    if (*fd < 0) {
        trace_give_up("cannot open for appending", errno);
        return -1;
    }
    *owner = pid;
    /* One header per file, even when several processes create it at once. */
    struct stat sb;
    int locked = flock(*fd, LOCK_EX) == 0;
    int rc = fstat(*fd, &sb) == 0 && sb.st_size == 0 ? write_fd(*fd, hdr, strlen(hdr)) : 0;
    if (locked)
        flock(*fd, LOCK_UN);
    if (rc != 0) {
        trace_give_up("write failed", -rc);
        return -1;
    }
    return 0;
}

/* Open the trace file of this process (trace_lock held); 0, or -1 when
 * tracing is off for good. */
static int trace_open(void)
{
    return open_appending("", header, &trace_fd, &trace_pid);
}

/* Write member t's records of slot s and empty its buffer (trace_lock held). */
static void write_member(struct lf_loop *l, struct lf__slot *s, int t)
{
    struct lf__trace_buf *b = &s->trace[t];
    char io[TRACE_IOBUF];
    size_t n = 0;
    for (size_t i = 0; i < b->len && trace_fd >= 0; i++) {
        const struct lf__trace_rec *r = &b->rec[i];
        int k = snprintf(io + n, sizeof io - n, "%s,%llu,%d,%llu,%llu,%llu,%llu,%u,%d,%s\n",
                         l->name, (unsigned long long)s->instance, t, (unsigned long long)r->lo,
                         (unsigned long long)r->hi, (unsigned long long)lf__dispatch_ns(r->start),
                         (unsigned long long)lf__dispatch_ns(r->end), (unsigned)r->pieces,
                         (int)r->from, lf__plan_names[s->plan.kind]);
        if (k < 0 || (size_t)k >= sizeof io - n) {
            /* The record did not fit: write the whole ones before it. */
            int rc = n ? write_all(io, n) : -EOVERFLOW;
            n = 0;
            if (rc != 0) {
                trace_give_up("write failed", -rc);
                break;
            }
            i--;
            continue;
        }
        n += (size_t)k;
    }
    if (n && trace_fd >= 0) {
        int rc = write_all(io, n);
        if (rc != 0)
            trace_give_up("write failed", -rc);
    }
    b->len = 0;
}

/* Report records dropped since the last report, once per process
 * (trace_lock held). */
static void report_drops(void)
{
    uint64_t d = lf__load_relaxed(&dropped);
    if (d == 0 || drop_reported)
        return;
    drop_reported = 1;
    fprintf(stderr,
            "loopfarm: LF_TRACE=%s: out of memory for trace buffers; %llu chunk record%s "
            "dropped, the trace is incomplete\n",
            trace_path, (unsigned long long)d, d == 1 ? "" : "s");
}

void lf__trace_add(struct lf_loop *l, struct lf__slot *s, int tid, uint64_t lo, uint64_t n,
                   uint64_t start, uint64_t end, uint32_t pieces, int from)
{
    struct lf__trace_buf *b = &s->trace[tid];
    if (!b->rec) {
        b->rec = malloc(TRACE_CAP * sizeof *b->rec);
        b->cap = b->rec ? TRACE_CAP : 0;
    }
    if (b->len == b->cap && b->cap) {
        pthread_mutex_lock(&trace_lock);
        if (trace_open() == 0)
            write_member(l, s, tid);
        b->len = 0; /* written, or tracing has stopped */
        pthread_mutex_unlock(&trace_lock);
    }
    if (b->len < b->cap)
        b->rec[b->len++] = (struct lf__trace_rec){lo, lo + n, start, end, pieces, from};
    else
        lf__fetch_add_relaxed(&dropped, 1);
}

void lf__trace_flush(struct lf_loop *l, struct lf__slot *s)
{
    pthread_mutex_lock(&trace_lock);
    int ok = trace_open() == 0;
    for (int t = 0; t < l->P; t++) {
        if (ok && trace_fd >= 0)
            write_member(l, s, t);
        s->trace[t].len = 0;
    }
    report_drops();
    pthread_mutex_unlock(&trace_lock);
}

void lf__trace_profile(struct lf_loop *l, uint64_t instance, uint64_t n,
                       const struct lf__profile *p)
{
    char io[LF__PROF_BINS * 160];
    size_t len = 0;
    for (int b = 0; b < LF__PROF_BINS && p->valid; b++) {
        uint64_t lo = (uint64_t)((double)n * b / LF__PROF_BINS);
        uint64_t hi = b == LF__PROF_BINS - 1 ? n : (uint64_t)((double)n * (b + 1) / LF__PROF_BINS);
        int k = snprintf(io + len, sizeof io - len, "%s,%llu,%d,%llu,%llu,%.6g,%.4f\n", l->name,
                         (unsigned long long)instance, b, (unsigned long long)lo,
                         (unsigned long long)hi, p->cost[b], p->conf);
        if (k < 0 || (size_t)k >= sizeof io - len)
            break; /* a name too long for the buffer: the bins that fit */
        len += (size_t)k;
    }
    if (!len)
        return;
    pthread_mutex_lock(&trace_lock);
    if (open_appending(".profile", prof_header, &prof_fd, &prof_pid) == 0) {
        int rc = write_fd(prof_fd, io, len);
        if (rc != 0)
            trace_give_up("write failed", -rc);
    }
    pthread_mutex_unlock(&trace_lock);
}

/* A field of a CSV record: not empty, no comma, no line break. */
static int csv_field_ok(const char *f)
{
    return f && *f && !strpbrk(f, ",\n\r");
}

int lf_trace_range(const char *site, unsigned long long instance, int thread, unsigned long long lo,
                   unsigned long long hi, unsigned long long start_ns, unsigned long long end_ns,
                   const char *plan)
{
    if (!lf__trace_enabled())
        return -ENOENT; /* whatever the arguments, as documented */
    if (!csv_field_ok(site) || !csv_field_ok(plan) || thread < 0 || hi < lo || end_ns < start_ns)
        return -EINVAL;
    char line[4096];
    unsigned long long t0 = start_ns >= epoch_ns ? start_ns - epoch_ns : 0;
    unsigned long long t1 = end_ns >= epoch_ns ? end_ns - epoch_ns : 0;
    int k = snprintf(line, sizeof line, "%s,%llu,%d,%llu,%llu,%llu,%llu,1,-1,%s\n", site, instance,
                     thread, lo, hi, t0, t1, plan);
    if (k < 0 || (size_t)k >= sizeof line)
        return -ENAMETOOLONG;
    pthread_mutex_lock(&trace_lock);
    int rc = -EIO;
    if (trace_open() == 0 && trace_fd >= 0) {
        rc = write_all(line, (size_t)k);
        if (rc != 0) {
            trace_give_up("write failed", -rc);
            rc = -EIO;
        }
    }
    pthread_mutex_unlock(&trace_lock);
    return rc;
}
