/* The depth-of-field pass on Vulkan: shaders/dof.comp, one pipeline per step
 * (the step a specialization constant), made on the first frame that
 * focuses; one dispatch per step, a compute barrier between steps; the
 * frame's depth is sampled through OAK_B_DEPTH and the HDR image changed in
 * place. */
#include <string.h>

#include "render/dof.h"
#include "render/taa.h"
#include "vk_internal.h"

static const uint32_t k_dof_comp[] =
#include "shaders/dof.comp.h"
    ;

oak_result _oak_vk_dof_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_DOF], v, oak_backend_vulkan()->caps);
    if (!runs) return OAK_OK;
    uint32_t ow, oh; /* it runs after taa: at its output size */
    _oak_taa_out_size(v, &ow, &oh);
    uint64_t need = _oak_dof_layout(ow, oh).texels * 16;
    return _oak_vk_target_buffer_fit(vk, &vk->dof, OAK_TARGET_DOF, need);
}

void _oak_vk_dof_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < OAK_DOF_STEPS; s++)
        if (vk->dof_pipes[s]) vkDestroyPipeline(vk->device, vk->dof_pipes[s], NULL);
    memset(vk->dof_pipes, 0, sizeof vk->dof_pipes);
}

oak_result _oak_vk_run_dof(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    oak_dof_layout l = _oak_dof_layout(vk->width, vk->height);
    const uint32_t grid[OAK_DOF_STEPS][2] = {
        {l.hw, l.hh}, {l.tw, l.th}, {l.hw, l.hh}, {vk->width, vk->height}};
    /* each step reads what the one before wrote; the next reader's barrier
       comes from its row (vk_track.c) */
    return _oak_vk_compute_steps(vk, f, k_dof_comp, sizeof k_dof_comp, vk->dof_pipes, OAK_DOF_STEPS,
                                 grid);
}
