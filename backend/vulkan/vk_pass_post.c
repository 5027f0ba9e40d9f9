/* The post pass on Vulkan: one compute dispatch (shaders/post.comp) from the
 * HDR image to packed RGBA8: exposure, ACES, sRGB with dither. */
#include "vk_internal.h"

oak_result _oak_vk_run_post(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    _oak_vk_dispatch(vk, f->cmd, OAK_VK_PIPE_POST);
    return OAK_OK;
}
