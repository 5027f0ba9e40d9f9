/* The ssr pass on Vulkan: shaders/ssr.comp, one dispatch over the frame,
 * made on the first frame puddles lie. The resolve wrote the mirror buffer
 * (render/ssr.h) for it; the pass changes the HDR image in place. */
#include "render/ssr.h"
#include "vk_internal.h"

static const uint32_t k_ssr_comp[] =
#include "shaders/ssr.comp.h"
    ;

oak_result _oak_vk_ssr_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_SSR], v, oak_backend_vulkan()->caps);
    if (!runs) return OAK_OK; /* the resolve binds the buffer, writing it only for the pass */
    uint64_t need = _oak_ssr_floats(vk->width, vk->height) * 4;
    return _oak_vk_target_buffer_fit(vk, &vk->ssr, OAK_TARGET_SSR, need);
}

void _oak_vk_ssr_destroy(_oak_vk *vk) {
    if (vk->ssr_pipe) vkDestroyPipeline(vk->device, vk->ssr_pipe, NULL);
    vk->ssr_pipe = VK_NULL_HANDLE;
}

oak_result _oak_vk_run_ssr(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    if (!vk->ssr_pipe) {
        oak_result r = _oak_vk_compute_spec(vk, k_ssr_comp, sizeof k_ssr_comp, NULL, &vk->ssr_pipe);
        if (r) return r;
    }
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->ssr_pipe);
    vkCmdDispatch(f->cmd, (vk->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                  (vk->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
    return OAK_OK; /* the next reader's barrier comes from its row (vk_track.c) */
}
