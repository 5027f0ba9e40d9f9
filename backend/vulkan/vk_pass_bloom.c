/* The bloom pass on Vulkan: shaders/bloom.comp, one pipeline per step (the
 * step a specialization constant, so each folds to its own branch), made on
 * the first frame that blooms; one dispatch per step over that level, a
 * compute barrier between steps; post reads the pyramid. */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "render/bloom.h"
#include "render/taa.h"
#include "vk_internal.h"

static const uint32_t k_bloom_comp[] =
#include "shaders/bloom.comp.h"
    ;

oak_result _oak_vk_bloom_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs = _oak_pass_runs(&_oak_pass_table()[OAK_PASS_BLOOM], v, oak_backend_vulkan()->caps);
    if (!runs) return OAK_OK; /* post reads the buffer only after a bloom */
    uint32_t ow, oh;          /* it runs after taa: at its output size */
    _oak_taa_out_size(v, &ow, &oh);
    uint64_t need = _oak_bloom_texels(ow, oh) * 16;
    return _oak_vk_target_buffer_fit(vk, &vk->bloom, OAK_TARGET_BLOOM, need);
}

void _oak_vk_bloom_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < OAK_BLOOM_STEPS; s++)
        if (vk->bloom_pipes[s]) vkDestroyPipeline(vk->device, vk->bloom_pipes[s], NULL);
    memset(vk->bloom_pipes, 0, sizeof vk->bloom_pipes);
}

oak_result _oak_vk_run_bloom(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    uint32_t grid[OAK_BLOOM_STEPS][2];
    for (uint32_t s = 0; s < OAK_BLOOM_STEPS; s++) {
        uint32_t level;
        _oak_bloom_step_level(s, &level);
        _oak_pyramid_size(vk->width, vk->height, level, &grid[s][0], &grid[s][1]);
    }
    /* each step reads the level the one before wrote; post's barrier comes
       from its row (vk_track.c) */
    return _oak_vk_compute_steps(vk, f, k_bloom_comp, sizeof k_bloom_comp, vk->bloom_pipes,
                                 OAK_BLOOM_STEPS, (const uint32_t(*)[2])grid);
}
