/* Whole-file reads and writes, path joining, and the monotonic clock. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "internal.h"

oak_result oak_read_file(const char *path, void **data, size_t *size) {
    *data = NULL;
    *size = 0;
    if (!path) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "read: no path given");
    FILE *f = fopen(path, "rb");
    if (!f) return oak_error(OAK_ERROR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return oak_error(OAK_ERROR_IO, "%s: cannot seek (not a regular file?)", path);
    }
    long len = ftell(f);
    if (len < 0) {
        fclose(f);
        return oak_error(OAK_ERROR_IO, "%s: cannot tell its size", path);
    }
    rewind(f);
    uint8_t *buf = oak_alloc((size_t)len + 1);
    if (!buf) {
        fclose(f);
        return OAK_ERROR_OUT_OF_MEMORY;
    }
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    if (got != (size_t)len) {
        oak_free(buf);
        return oak_error(OAK_ERROR_IO, "%s: short read (%zu of %ld bytes)", path, got, len);
    }
    buf[len] = 0;
    *data = buf;
    *size = (size_t)len;
    return OAK_OK;
}

oak_result oak_write_file(const char *path, const void *data, size_t size) {
    FILE *f = fopen(path, "wb");
    if (!f) return oak_error(OAK_ERROR_IO, "%s: cannot create: %s", path, strerror(errno));
    size_t put = fwrite(data, 1, size, f);
    int closed = fclose(f);
    if (put != size || closed != 0)
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
