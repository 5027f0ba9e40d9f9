/* The asset root: files that a model or scene names are opened only when
 * their real path (symbolic links and ".." resolved) lies inside the root,
 * so a downloaded scene cannot make oak read ../../etc/passwd. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"

/* The real path of base_file's folder (the default root). */
static bool folder_of(char *out, const char *base_file) {
    char dir[PATH_MAX];
    const char *slash = base_file ? strrchr(base_file, '/') : NULL;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == base_file)
        snprintf(dir, sizeof dir, "/");
    else if (snprintf(dir, sizeof dir, "%.*s", (int)(slash - base_file), base_file) >=
             (int)sizeof dir)
        return false;
    return realpath(dir, out) != NULL;
}

oak_result oak_path_confine(char *out, size_t out_size, const char *root, const char *base_file,
                            const char *rel) {
    if (!out || !out_size || !rel)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_path_confine: no output or path");
    out[0] = 0;
    if (!strncmp(rel, "oak://", 6)) {
        if (snprintf(out, out_size, "%s", rel) >= (int)out_size)
            return oak_error(OAK_ERROR_LIMIT, "'%.64s...' is longer than %zu bytes", rel, out_size);
        return OAK_OK;
    }
    char joined[PATH_MAX];
    oak_path_join_dir(joined, sizeof joined, base_file, rel);
    size_t len = strlen(joined);
    if (len + 1 >= sizeof joined || len >= out_size)
        return oak_error(OAK_ERROR_LIMIT, "'%.64s...' is longer than %zu bytes", rel,
                         out_size < sizeof joined ? out_size : sizeof joined);
    char top[PATH_MAX], real[PATH_MAX];
    if (root ? !realpath(root, top) : !folder_of(top, base_file))
        return oak_error(OAK_ERROR_NOT_FOUND, "asset root '%s': %s", root ? root : base_file,
                         strerror(errno));
    if (!realpath(joined, real)) {
        if (errno == ENOENT || errno == ENOTDIR)
            return oak_error(OAK_ERROR_NOT_FOUND, "'%s': no such file", rel);
        return oak_error(OAK_ERROR_IO, "'%s': %s", rel, strerror(errno));
    }
    size_t n = strlen(top);
    bool inside = !strcmp(top, "/") || (!strncmp(real, top, n) && (real[n] == '/' || real[n] == 0));
    if (!inside)
        return oak_error(OAK_ERROR_UNSUPPORTED, "'%s' resolves to %s, outside the asset root %s",
                         rel, real, top);
    memcpy(out, joined, len + 1);
    return OAK_OK;
}

oak_result oak_asset_root_check(const char *root) {
    struct stat st;
    if (!root) return OAK_OK;
    if (stat(root, &st) != 0)
        return oak_error(OAK_ERROR_NOT_FOUND, "asset root '%s': %s", root, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "asset root '%s' is not a folder", root);
    return OAK_OK;
}
