/* The folder oak keeps its disk caches in (the Vulkan pipeline cache, the
 * cluster-LOD DAGs): $OAK_CACHE_DIR, else $XDG_CACHE_HOME/oak, else
 * $HOME/.cache/oak; an empty variable counts as unset. Made (mkdir -p) when
 * missing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "internal.h"

/* mkdir -p, the last component included; false if it cannot be made. */
static bool make_dirs(char *path) {
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        bool ok = mkdir(path, 0755) == 0 || errno == EEXIST;
        *p = '/';
        if (!ok) return false;
    }
    return mkdir(path, 0755) == 0 || errno == EEXIST;
}

bool _oak_cache_dir_name(char *out, size_t size) {
    const char *env = getenv("OAK_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(out, size, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(out, size, "%s/oak", xdg);
    else if (home && *home)
        n = snprintf(out, size, "%s/.cache/oak", home);
    else
        return false;
    return n > 0 && (size_t)n < size;
}

bool _oak_cache_dir(char *out, size_t size) {
    return _oak_cache_dir_name(out, size) && make_dirs(out);
}
