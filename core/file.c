/* Whole-file reads and writes, path joining, and the monotonic clock. Inputs
 * are read only from regular files under a size limit, opened so that a FIFO
 * or a device cannot block or feed oak without end. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static const char *not_a_file(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

oak_result oak_open_input(int *fd, size_t *size, const char *path) {
    *fd = -1;
    *size = 0;
    if (!path) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "read: no path given");
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. */
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0) return oak_error(OAK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return oak_error(OAK_ERROR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return oak_error(OAK_ERROR_IO, "%s: is %s, not a file", path, not_a_file(st.st_mode));
    }
    if (st.st_size < 0 || (uint64_t)st.st_size > (uint64_t)OAK_MAX_INPUT_FILE_SIZE) {
        close(f);
        return oak_error(OAK_ERROR_LIMIT,
                         "%s: %lld bytes, over the %llu-byte input limit (OAK_MAX_INPUT_FILE_SIZE)",
                         path, (long long)st.st_size, (unsigned long long)OAK_MAX_INPUT_FILE_SIZE);
    }
    *fd = f;
    *size = (size_t)st.st_size;
    return OAK_OK;
}

oak_result oak_read_file(const char *path, void **data, size_t *size) {
    *data = NULL;
    *size = 0;
    int fd;
    size_t len;
    oak_result r = oak_open_input(&fd, &len, path);
    if (r) return r;
    uint8_t *buf = oak_alloc(len + 1);
    if (!buf) {
        close(fd);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: no memory for its %zu bytes", path, len);
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break; /* an error, or the file shrank since fstat */
        got += (size_t)n;
    }
    close(fd);
    if (got != len) {
        oak_free(buf);
        return oak_error(OAK_ERROR_IO, "%s: short read (%zu of %zu bytes)", path, got, len);
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return OAK_OK;
}

/* Outputs go to regular files (or a character device such as /dev/null):
   opened non-blocking so a FIFO without a reader fails at once instead of
   blocking, checked with fstat, and only then truncated and written. */
oak_result oak_write_file(const char *path, const void *data, size_t size) {
    int fd = open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
    if (fd < 0) {
        if (errno == ENXIO) /* O_NONBLOCK on a FIFO nobody reads */
            return oak_error(OAK_ERROR_IO, "%s: is a FIFO (named pipe), not a file", path);
        if (errno == EISDIR) return oak_error(OAK_ERROR_IO, "%s: is a directory, not a file", path);
        return oak_error(OAK_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return oak_error(OAK_ERROR_IO, "%s: cannot examine: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) { /* a FIFO with a reader, a socket */
        close(fd);
        return oak_error(OAK_ERROR_IO, "%s: is %s, not a file", path, not_a_file(st.st_mode));
    }
    int flags = fcntl(fd, F_GETFL);
    if ((S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0) || flags < 0 ||
        fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return oak_error(OAK_ERROR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    const uint8_t *p = data;
    size_t left = size;
    while (left) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = n < 0 ? errno : EIO;
            close(fd);
            return oak_error(OAK_ERROR_IO, "%s: write failed: %s", path, strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (close(fd) != 0)
        return oak_error(OAK_ERROR_IO, "%s: write failed: %s", path, strerror(errno));
    return OAK_OK;
}

void oak_path_join_dir(char *out, size_t out_size, const char *base_file, const char *rel) {
    if (!out_size) return;
    if (!rel) rel = "";
    const char *slash = base_file ? strrchr(base_file, '/') : NULL;
    if (rel[0] == '/' || !slash || strncmp(rel, "oak://", 6) == 0) {
        snprintf(out, out_size, "%s", rel);
        return;
    }
    int dir_len = (int)(slash - base_file) + 1;
    snprintf(out, out_size, "%.*s%s", dir_len, base_file, rel);
}

uint64_t oak_time_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
