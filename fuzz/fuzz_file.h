/* For fuzz targets whose loader takes a path: the input is written to a
 * file in a private folder made once per process, so relative references
 * (mtllib, a scene's mesh source) resolve there and nowhere else. */
#ifndef OAK_FUZZ_FILE_H
#define OAK_FUZZ_FILE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *fuzz_dir(void) {
    static char dir[64];
    if (!dir[0]) {
        /* memory-backed where there is one: a file written per run on a
           disk-backed /tmp cost more than the loaders it feeds */
        snprintf(dir, sizeof dir, "/dev/shm/oak-fuzz-XXXXXX");
        if (!mkdtemp(dir)) {
            snprintf(dir, sizeof dir, "/tmp/oak-fuzz-XXXXXX");
            if (!mkdtemp(dir)) abort();
        }
    }
    return dir;
}

/* Writes n bytes to DIR/name and returns the path (static storage). */
static const char *fuzz_write(const char *name, const void *data, size_t n) {
    static char path[2][128];
    static int which;
    char *p = path[which ^= 1];
    snprintf(p, sizeof path[0], "%s/%s", fuzz_dir(), name);
    FILE *f = fopen(p, "wb");
    if (!f) abort();
    if (n && fwrite(data, 1, n, f) != n) abort();
    fclose(f);
    return p;
}

#endif
