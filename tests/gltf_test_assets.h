/* Where the shared glTF test models are: ../shared/assets from a clone's
 * root, or ../../shared/assets from a worktree under a folder of worktrees. */
#ifndef GLTF_TEST_ASSETS_H
#define GLTF_TEST_ASSETS_H

#include <stdio.h>
#include <unistd.h>

static inline const char *gltf_asset(char *buf, size_t size, const char *rel) {
    static const char *const roots[] = {"../shared/assets/gltf", "../../shared/assets/gltf"};
    for (int i = 0; i < 2; i++) {
        snprintf(buf, size, "%s/%s", roots[i], rel);
        if (access(buf, R_OK) == 0) return buf;
    }
    snprintf(buf, size, "%s/%s", roots[0], rel); /* the failure names the usual place */
    return buf;
}

#endif
