/* The resolve pass on Vulkan: one compute dispatch (shaders/resolve.comp)
 * shades each pixel once from its id into the HDR image, the sky where none. */
#include "vk_internal.h"

oak_result _oak_vk_run_resolve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    _oak_vk_dispatch(vk, f->cmd, OAK_VK_PIPE_RESOLVE);
    return OAK_OK;
}
