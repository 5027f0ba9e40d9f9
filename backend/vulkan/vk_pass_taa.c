/* The taa pass on Vulkan: shaders/taa.comp, one pipeline per step (the step
 * a specialization constant), made on the first frame that runs it; step 0
 * blends the frame with its history into the other history image, a compute
 * barrier, step 1 copies that image into the HDR frame. The histories live
 * in one buffer (render/taa.h), grown when a view first runs the pass. */
#include <string.h>

#include "render/taa.h"
#include "vk_internal.h"

static const uint32_t k_taa_comp[] =
#include "shaders/taa.comp.h"
    ;

oak_result _oak_vk_taa_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_TAA], v, oak_backend_vulkan()->caps);
    if (!runs) return OAK_OK;
    uint64_t need = _oak_taa_texels(vk->width, vk->height) * 16;
    if (vk->taa.buffer && vk->taa.size >= need) return OAK_OK;
    /* earlier frames may still read the old one: it retires with this frame
       (a new size resets the history: the frontend says so in taa_reset) */
    oak_result r = _oak_vk_buffer_retire(vk, &vk->taa);
    if (r) return r;
    _oak_vk_track_reset(vk, OAK_TARGET_TAA);
    return _oak_vk_buffer_create(vk, &vk->taa, need, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                 OAK_VK_MEM_DEVICE);
}

void _oak_vk_taa_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < 2; s++)
        if (vk->taa_pipes[s]) vkDestroyPipeline(vk->device, vk->taa_pipes[s], NULL);
    memset(vk->taa_pipes, 0, sizeof vk->taa_pipes);
}

oak_result _oak_vk_run_taa(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    for (uint32_t s = 0; s < 2; s++) {
        if (vk->taa_pipes[s]) continue;
        oak_result r =
            _oak_vk_compute_spec(vk, k_taa_comp, sizeof k_taa_comp, &s, &vk->taa_pipes[s]);
        if (r) return r;
    }
    for (uint32_t s = 0; s < 2; s++) {
        /* inside the pass: the copy reads the history image step 0 wrote */
        if (s)
            _oak_vk_barrier(
                f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->taa_pipes[s]);
        vkCmdDispatch(f->cmd, (vk->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (vk->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
    }
    return OAK_OK; /* the next readers' barriers come from their rows (vk_track.c) */
}
