/* The fog pass on Vulkan: shaders/fog.comp, one pipeline per step (the step
 * a specialization constant), the inject then the integrate with a compute
 * barrier between. The buffer is bound at OAK_B_FOG for every pass (the
 * resolve and the BLEND pass read it). */
#include <string.h>

#include "render/fog.h"
#include "vk_internal.h"

static const uint32_t k_fog_comp[] =
#include "shaders/fog.comp.h"
    ;
static const uint32_t k_fog_comp_bl[] = /* bindless textures (vk_resources.c) */
#include "shaders/fog.comp.bindless.h"
    ;

static uint32_t groups(uint32_t n) {
    return (n + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP;
}

oak_result _oak_vk_fog_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_FOG], v, oak_backend_vulkan()->caps);
    if (!runs) return OAK_OK;
    oak_gpu_fog g;
    _oak_fog_fill(&g, v);
    return _oak_vk_target_buffer_fit(vk, &vk->fog, OAK_TARGET_FOG, _oak_fog_texels(&g) * 16);
}

void _oak_vk_fog_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < OAK_FOG_STEPS; s++)
        if (vk->fog_pipes[s]) vkDestroyPipeline(vk->device, vk->fog_pipes[s], NULL);
    memset(vk->fog_pipes, 0, sizeof vk->fog_pipes);
}

oak_result _oak_vk_run_fog(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    oak_gpu_fog g;
    _oak_fog_fill(&g, v);
    const uint32_t grid[OAK_FOG_STEPS][2] = {{g.grid[0], g.grid[1] * g.grid[2]},
                                             {g.grid[0], g.grid[1]}};
    for (uint32_t s = 0; s < OAK_FOG_STEPS; s++) {
        if (vk->fog_pipes[s]) continue;
        oak_result r = vk->bindless ? _oak_vk_compute_spec(vk, k_fog_comp_bl, sizeof k_fog_comp_bl,
                                                           &s, &vk->fog_pipes[s])
                                    : _oak_vk_compute_spec(vk, k_fog_comp, sizeof k_fog_comp, &s,
                                                           &vk->fog_pipes[s]);
        if (r) return r;
    }
    for (uint32_t s = 0; s < OAK_FOG_STEPS; s++) {
        /* the integrate reads what the inject wrote */
        if (s)
            _oak_vk_barrier(
                f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->fog_pipes[s]);
        vkCmdDispatch(f->cmd, groups(grid[s][0]), groups(grid[s][1]), 1);
    }
    return OAK_OK; /* the next reader's barrier comes from its row (vk_track.c) */
}
