/* The FXAA pass on Vulkan: one compute dispatch (shaders/fxaa.comp) from the
 * tone-mapped bytes into this slot's output (a copy when FXAA is off). */
#include "vk_internal.h"

oak_result _oak_vk_run_fxaa(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    _oak_vk_dispatch(vk, f->cmd, OAK_VK_PIPE_FXAA);
    return OAK_OK;
}
