/* Registry assets for a loaded glTF: one mesh per drawn primitive, one
 * texture per (image, colour or data) pair used, one material per glTF
 * material plus a default one. Waits for the asset registry on main. */
#include "gltf_internal.h"

oak_result _oak_gltf_make_assets(oak_gltf *g) {
    (void)g;
    return oak_error(OAK_ERROR_UNSUPPORTED, "%s: the asset registry is not built in yet",
                     g->path ? g->path : "glTF");
}

void _oak_gltf_destroy_assets(oak_gltf *g) {
    (void)g;
}
