/* oak_scene_draw: the scene's gather handed to the renderer. Kept apart from
 * frame.c so tools that only gather link without render/. */
#include "scene_internal.h"

oak_result oak_scene_draw(oak_scene *scene, oak_renderer *renderer) {
    if (!renderer) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_draw: no renderer");
    oak_frame_input in;
    oak_result r = oak_scene_frame_input(scene, &in);
    if (r) return r;
    return oak_renderer_draw(renderer, &in);
}
