/* The blend pass on Vulkan: BLEND surfaces over the resolved HDR frame,
 * depth-tested against the opaque depth without writing it; one draw at a
 * time, far to near. Idle (no barriers either) when there are none or the
 * device cannot blend into RGBA32F. Barriers come from the table. */
#include "vk_internal.h"

bool _oak_vk_blend_idle(_oak_vk *vk) {
    if (!vk->blend_count) return true;
    if (!vk->blend_ok) {
        if (!vk->blend_warned)
            oak_log_warn("vulkan: %s cannot blend into RGBA32F; BLEND surfaces are not drawn",
                         vk->props.deviceName);
        vk->blend_warned = true;
        return true;
    }
    return false;
}

/* A plain unlit material (no water, no texture tricks): blend_unlit.frag's
   pipeline, whose registers are not sized by the lit path it never runs
   (docs/WORLD.md "Particles", the campfire's blend cost). */
static bool unlit(const oak_render_view *v, uint32_t i) {
    const oak_material_data *m = oak_material_get(v->draws.material[i]);
    if (!m || !m->desc.unlit || m->desc.water) return false;
    const oak_material_fx *x = &m->desc.fx;
    return !(x->triplanar > 0 || x->breakup > 0 || x->detail > 0);
}

/* Water shaded in compute (docs/SHADING.md "Water on the GPUs"): a plain
   draw of a lit water material that lays its refraction over the frame
   (alpha 1: the last triangle drawn is the one seen), not additive, not
   softened. Its fragments only find its pixels; blend_water.comp shades
   them on every compute unit (the H200 has few fragment units). */
static bool water_in_compute(const _oak_vk *vk, const oak_render_view *v, uint32_t i) {
    if (!vk->water_compute || (v->draws.unit && v->draws.unit[i])) return false;
    const oak_material_data *m = oak_material_get(v->draws.material[i]);
    return m && m->desc.water && !m->desc.unlit && !m->desc.additive && !(m->desc.softness > 0);
}

oak_result _oak_vk_blend_reserve(_oak_vk *vk, const oak_render_view *v) {
    for (uint32_t k = 0; k < vk->blend_count; k++)
        if (water_in_compute(vk, v, vk->blend_draw[k])) return _oak_vk_craster_depth_reserve(vk);
    return OAK_OK;
}

/* after a water draw's compute the frame goes back to being the attachment
   (the pass table's barrier made it one for the first) */
static void begin(_oak_vk *vk, VkCommandBuffer cmd, bool again) {
    if (again) _oak_vk_track_use(vk, cmd, OAK_TARGET_HDR, OAK_USE_COLOR_BLEND);
    _oak_vk_begin_rendering(cmd, &vk->hdr, false, &vk->depth, false,
                            (VkRect2D){{0, 0}, {vk->width, vk->height}});
    _oak_vk_main_view(vk, cmd);
}

/* The water draw's pixels, found by the draw just made, shaded over the
   frame; the slots it read are left cleared for the next water draw. */
static void shade_water(_oak_vk *vk, VkCommandBuffer cmd) {
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    _oak_vk_track_use(vk, cmd, OAK_TARGET_HDR, OAK_USE_STORAGE_RW);
    if (_oak_vk_bind(vk, cmd, OAK_VK_PIPE_BLEND_WATER))
        vkCmdDispatch(cmd, (vk->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (vk->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
}

oak_result _oak_vk_run_blend(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    VkCommandBuffer cmd = f->cmd;
    vk->blend_compute = 0;
    bool water = false;
    for (uint32_t k = 0; k < vk->blend_count && !water; k++)
        water = water_in_compute(vk, v, vk->blend_draw[k]) && vk->craster_depth.buffer;
    if (water) { /* the compute raster's merge read it, or last frame's water */
        _oak_vk_barrier(
            cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
            VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
            VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        vkCmdFillBuffer(cmd, vk->craster_depth.buffer, 0,
                        ((uint64_t)vk->width * vk->height + 1) * 4, 0);
        _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_TRANSFER_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    }
    begin(vk, cmd, false);
    const VkDrawIndexedIndirectCommand *cmds = vk->cmds; /* the CPU copy: never read mapped */
    uint32_t bound = UINT32_MAX;
    for (uint32_t k = 0; k < vk->blend_count; k++) {
        uint32_t i =
            vk->blend_draw[k]; /* not firstInstance: a device stream's lies past the list */
        bool two = (vk->infos[i].group & OAK_VK_TWO_SIDED) != 0;
        bool wc = water && water_in_compute(vk, v, i);
        uint32_t pipe = wc ? (two ? OAK_VK_PIPE_BLEND_WATER_ID_2SIDED : OAK_VK_PIPE_BLEND_WATER_ID)
                        : unlit(v, i)
                            ? (two ? OAK_VK_PIPE_BLEND_UNLIT_2SIDED : OAK_VK_PIPE_BLEND_UNLIT)
                            : (two ? OAK_VK_PIPE_BLEND_2SIDED : OAK_VK_PIPE_BLEND);
        if (pipe != bound && !_oak_vk_bind(vk, cmd, pipe)) break;
        if (pipe == OAK_VK_PIPE_BLEND_UNLIT || pipe == OAK_VK_PIPE_BLEND_UNLIT_2SIDED)
            vk->blend_unlit++;
        bound = pipe;
        vkCmdDrawIndexedIndirect(cmd, f->indirect.buffer,
                                 (uint64_t)(vk->blend_first + k) * sizeof *cmds, 1, sizeof *cmds);
        if (!wc) continue;
        vkCmdEndRendering(cmd);
        shade_water(vk, cmd);
        vk->blend_compute++;
        begin(vk, cmd, true);
        bound = UINT32_MAX;
    }
    vkCmdEndRendering(cmd);
    return OAK_OK;
}
