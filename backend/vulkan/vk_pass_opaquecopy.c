/* The opaquecopy pass on Vulkan: shaders/opaquecopy.comp, one pipeline per
 * level (the level a specialization constant), made on the first frame
 * that copies; one dispatch per level, a compute barrier between them; the
 * blend pass reads the chain (render/opaque_copy.h). */
#include <string.h>

#include "render/opaque_copy.h"
#include "vk_internal.h"

static const uint32_t k_opaquecopy_comp[] =
#include "shaders/opaquecopy.comp.h"
    ;

oak_result _oak_vk_opaquecopy_reserve(_oak_vk *vk, const oak_render_view *v) {
    bool runs =
        _oak_pass_runs(&_oak_pass_table()[OAK_PASS_OPAQUECOPY], v, oak_backend_vulkan()->caps);
    if (!runs) return OAK_OK; /* blend binds the buffer, reading it only after a copy */
    uint64_t need = _oak_opaque_texels(vk->width, vk->height) * 16;
    return _oak_vk_target_buffer_fit(vk, &vk->opaque, OAK_TARGET_OPAQUE, need);
}

void _oak_vk_opaquecopy_destroy(_oak_vk *vk) {
    for (uint32_t s = 0; s < OAK_GPU_OPAQUE_LEVELS; s++)
        if (vk->opaque_pipes[s]) vkDestroyPipeline(vk->device, vk->opaque_pipes[s], NULL);
    memset(vk->opaque_pipes, 0, sizeof vk->opaque_pipes);
}

oak_result _oak_vk_run_opaquecopy(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    uint32_t grid[OAK_GPU_OPAQUE_LEVELS][2];
    for (uint32_t l = 0; l < OAK_GPU_OPAQUE_LEVELS; l++)
        _oak_pyramid_size(vk->width, vk->height, l, &grid[l][0], &grid[l][1]);
    /* each level reads the one before; blend's barrier comes from its row */
    return _oak_vk_compute_steps(vk, f, k_opaquecopy_comp, sizeof k_opaquecopy_comp,
                                 vk->opaque_pipes, OAK_GPU_OPAQUE_LEVELS,
                                 (const uint32_t(*)[2])grid);
}
