/* lib/platform/sysfile.c - reading a small file of the kernel's (sysfs, procfs) in one
 * read, without stdio: no buffer is allocated, so a process's first loop does not
 * make the allocator set up an arena for the thread that reads. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "platform/platform.h"

long lf__read_text(const char *path, char *buf, size_t size)
{
    if (!buf || size == 0)
        return -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got + 1 < size) {
        ssize_t r = read(fd, buf + got, size - 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    return (long)got;
}

long lf__read_long(const char *path)
{
    char buf[64], *end;
    if (lf__read_text(path, buf, sizeof buf) <= 0)
        return -1;
    errno = 0;
    long v = strtol(buf, &end, 10);
    if (end == buf || errno || v < 0)
        return -1;
    return v;
}
