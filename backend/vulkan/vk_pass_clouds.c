/* The clouds and cloudmix passes on Vulkan: shaders/clouds.comp, one
 * pipeline per step (the step a specialization constant), the noise table
 * baked when the buffer is new (by shaders/skycapture.comp's step 1), then the shadow map and the
 * march, a compute barrier between steps; shaders/cloudmix.comp lays the march over the HDR image
 * in place. The buffer is bound at OAK_B_CLOUDS for every pass (the resolve and the BLEND pass read
 * its shadow map). */
#include <string.h>

#include "render/clouds.h"
#include "vk_internal.h"

static const uint32_t k_clouds_comp[] =
#include "shaders/clouds.comp.h"
    ;
/* its step 1 bakes the noise table (a pipeline that reads no depth, so
   the sky capture may run it before the depth is readable) */
static const uint32_t k_skycapture_comp[] =
#include "shaders/skycapture.comp.h"
    ;
static const uint32_t k_cloudmix_comp[] =
#include "shaders/cloudmix.comp.h"
    ;

static uint32_t groups(uint32_t n) {
    return (n + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP;
}

oak_result _oak_vk_clouds_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_CLOUDS], v, oak_backend_vulkan()->caps);
    if (!runs) return OAK_OK;
    oak_gpu_clouds c;
    _oak_clouds_fill(&c, v, vk->width, vk->height);
    VkBuffer old = vk->clouds.buffer;
    oak_result r =
        _oak_vk_target_buffer_fit(vk, &vk->clouds, OAK_TARGET_CLOUDS, _oak_clouds_texels(&c) * 16);
    if (vk->clouds.buffer != old) vk->clouds_baked = false; /* a new buffer starts empty */
    return r;
}

void _oak_vk_clouds_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < OAK_CLOUD_STEPS; s++)
        if (vk->cloud_pipes[s]) vkDestroyPipeline(vk->device, vk->cloud_pipes[s], NULL);
    if (vk->cloudmix_pipe) vkDestroyPipeline(vk->device, vk->cloudmix_pipe, NULL);
    memset(vk->cloud_pipes, 0, sizeof vk->cloud_pipes);
    vk->cloudmix_pipe = VK_NULL_HANDLE;
}

static oak_result pipe(_oak_vk *vk, uint32_t s) {
    if (vk->cloud_pipes[s]) return OAK_OK;
    return _oak_vk_compute_spec(vk, k_clouds_comp, sizeof k_clouds_comp, &s, &vk->cloud_pipes[s]);
}

oak_result _oak_vk_clouds_bake(_oak_vk *vk, _oak_vk_frame *f) {
    if (vk->clouds_baked) return OAK_OK;
    VkPipeline *p = &vk->cloud_pipes[OAK_CLOUD_STEP_BAKE];
    if (!*p) {
        const uint32_t step = 1;
        oak_result r =
            _oak_vk_compute_spec(vk, k_skycapture_comp, sizeof k_skycapture_comp, &step, p);
        if (r) return r;
    }
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, *p);
    vkCmdDispatch(f->cmd, (OAK_GPU_CLOUD_NOISE_TEXELS + 63) / 64, 1, 1);
    /* whoever reads the table next (the sky capture, the shadow map) */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    vk->clouds_baked = true;
    return OAK_OK;
}

oak_result _oak_vk_run_clouds(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    oak_gpu_clouds c;
    _oak_clouds_fill(&c, v, vk->width, vk->height);
    const uint32_t S = OAK_CLOUD_SHADOW_SIZE; /* the bake is the sky capture's kernel */
    uint32_t m[3]; /* blocks x layers: layer 0 the due texels (_oak_clouds_march_grid) */
    _oak_clouds_march_grid(&c, m);
    const uint32_t grid[OAK_CLOUD_STEPS][3] = {{0, 0, 0}, {S, S, 1}, {m[0], m[1], m[2]}};
    /* the table first, unless the sky capture baked it */
    oak_result r = _oak_vk_clouds_bake(vk, f);
    for (uint32_t s = OAK_CLOUD_STEP_SHADOW; !r && s < OAK_CLOUD_STEPS; s++) r = pipe(vk, s);
    if (r) return r;
    const uint32_t first = OAK_CLOUD_STEP_SHADOW;
    for (uint32_t s = first; s < OAK_CLOUD_STEPS; s++) {
        /* each step reads what the one before wrote */
        if (s != first)
            _oak_vk_barrier(
                f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->cloud_pipes[s]);
        vkCmdDispatch(f->cmd, groups(grid[s][0]), groups(grid[s][1]), grid[s][2]);
    }
    return OAK_OK; /* the next reader's barrier comes from its row (vk_track.c) */
}

oak_result _oak_vk_run_cloudmix(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    if (!vk->cloudmix_pipe) {
        oak_result r = _oak_vk_compute_spec(vk, k_cloudmix_comp, sizeof k_cloudmix_comp, NULL,
                                            &vk->cloudmix_pipe);
        if (r) return r;
    }
    vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->cloudmix_pipe);
    vkCmdDispatch(f->cmd, groups(vk->width), groups(vk->height), 1);
    return OAK_OK;
}
