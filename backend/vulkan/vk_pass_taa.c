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
    uint32_t ow, oh;
    _oak_taa_out_size(v, &ow, &oh);
    uint64_t need = _oak_taa_texels(ow, oh) * 16;
    /* a new size resets the history: the frontend says so in taa_reset */
    return _oak_vk_target_buffer_fit(vk, &vk->taa, OAK_TARGET_TAA, need);
}

void _oak_vk_taa_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < 2; s++)
        if (vk->taa_pipes[s]) vkDestroyPipeline(vk->device, vk->taa_pipes[s], NULL);
    memset(vk->taa_pipes, 0, sizeof vk->taa_pipes);
}

oak_result _oak_vk_run_taa(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    /* step 1 (the copy) reads the history image step 0 wrote; the next
       readers' barriers come from their rows (vk_track.c). Both run over
       the output (larger than the frame when upsampling). */
    uint32_t ow, oh;
    _oak_taa_out_size(v, &ow, &oh);
    const uint32_t grid[2][2] = {{ow, oh}, {ow, oh}};
    return _oak_vk_compute_steps(vk, f, k_taa_comp, sizeof k_taa_comp, vk->taa_pipes, 2, grid);
}
