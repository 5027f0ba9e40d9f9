/* The lamp grid on Vulkan: the host writes the grid's head into this frame's
 * grid buffer (host-visible, fixed size, so its descriptor never changes),
 * then lightgrid.comp lists each cell's lamps before the resolve and the
 * BLEND pass read them. The buffer is also the debug read-back. The pass
 * table's lightgrid row runs it (render/pass_table.c). */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "vk_internal.h"

#define OAK_VK_GRID_BYTES ((uint64_t)OAK_GPU_LIGHT_GRID_WORDS * sizeof(uint32_t))

oak_result _oak_vk_lightgrid_create(_oak_vk *vk) {
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_frame *f = &vk->frames[i];
        if (f->grid.buffer) continue;
        oak_result r = _oak_vk_buffer_create(vk, &f->grid, OAK_VK_GRID_BYTES,
                                             VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, OAK_VK_MEM_UPLOAD);
        if (r) return r;
        memset(f->grid.mapped, 0, OAK_VK_GRID_BYTES); /* an empty grid until the first frame */
    }
    return OAK_OK;
}

void _oak_vk_lightgrid_destroy(_oak_vk *vk) {
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) _oak_vk_buffer_destroy(vk, &vk->frames[i].grid);
}

oak_result _oak_vk_run_lightgrid(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    uint32_t nl = v->light_count < OAK_MAX_LIGHTS ? v->light_count : OAK_MAX_LIGHTS;
    /* This slot's last frame has finished (its fence was waited): say once
       when its cells dropped lamps at OAK_LIGHT_CELL_MAX. */
    const oak_gpu_light_grid *last = f->grid.mapped;
    if (last->info[2] && !vk->grid_warned) {
        oak_log_warn("vulkan: %u lamp listings over %u per cell were dropped (OAK_LIGHT_CELL_MAX)",
                     last->info[2], OAK_LIGHT_CELL_MAX);
        vk->grid_warned = true;
    }
    /* written before the submit, which makes host writes visible to the device */
    _oak_gpu_light_grid_fill(f->grid.mapped, v, nl);
    if (_oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_LIGHTGRID))
        vkCmdDispatch(f->cmd, (OAK_LIGHT_GRID_CELLS + 63) / 64, 1, 1);
    /* the readers' barriers (resolve, BLEND's fragments, the host) come
       from their rows' uses of the light_grid target (vk_track.c) */
    return OAK_OK;
}

oak_result _oak_vk_lightgrid_read(_oak_vk *vk, uint32_t *words, size_t count) {
    if (count < OAK_GPU_LIGHT_GRID_WORDS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: light grid needs %u words",
                         (unsigned)OAK_GPU_LIGHT_GRID_WORDS);
    if (vk->last_slot < 0) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: nothing drawn");
    oak_result r = _oak_vk_wait_all(vk);
    if (r) return r;
    memcpy(words, vk->frames[vk->last_slot].grid.mapped, OAK_VK_GRID_BYTES);
    return OAK_OK;
}
