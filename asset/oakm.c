/* The .oakm baked model cache: a versioned, size-checked binary image of a
 * loaded glTF (post-processed meshes, materials, decoded images, nodes,
 * skins, clips, cameras, lights) that loads without parsing. */
#include "gltf_internal.h"

oak_result _oak_oakm_read(oak_gltf *g, oak_arena *arena, const uint8_t *data, size_t size,
                          const char *file) {
    (void)g, (void)arena, (void)data, (void)size;
    return oak_error(OAK_ERROR_UNSUPPORTED, "%s: .oakm reading is not built in yet", file);
}

oak_result oak_gltf_bake(const oak_gltf *g, const char *path) {
    (void)g;
    return oak_error(OAK_ERROR_UNSUPPORTED, "%s: .oakm writing is not built in yet", path);
}
