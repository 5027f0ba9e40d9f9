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

oak_result _oak_vk_run_blend(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    VkCommandBuffer cmd = f->cmd;
    _oak_vk_begin_rendering(cmd, &vk->hdr, false, &vk->depth, false,
                            (VkRect2D){{0, 0}, {vk->width, vk->height}});
    _oak_vk_main_view(vk, cmd);
    const VkDrawIndexedIndirectCommand *cmds = vk->cmds; /* the CPU copy: never read mapped */
    uint32_t bound = UINT32_MAX;
    for (uint32_t k = 0; k < vk->blend_count; k++) {
        uint32_t i =
            vk->blend_draw[k]; /* not firstInstance: a device stream's lies past the list */
        bool two = (vk->infos[i].group & OAK_VK_TWO_SIDED) != 0;
        uint32_t pipe = unlit(v, i)
                            ? (two ? OAK_VK_PIPE_BLEND_UNLIT_2SIDED : OAK_VK_PIPE_BLEND_UNLIT)
                            : (two ? OAK_VK_PIPE_BLEND_2SIDED : OAK_VK_PIPE_BLEND);
        if (pipe != bound && !_oak_vk_bind(vk, cmd, pipe)) break;
        if (pipe == OAK_VK_PIPE_BLEND_UNLIT || pipe == OAK_VK_PIPE_BLEND_UNLIT_2SIDED)
            vk->blend_unlit++;
        bound = pipe;
        vkCmdDrawIndexedIndirect(cmd, f->indirect.buffer,
                                 (uint64_t)(vk->blend_first + k) * sizeof *cmds, 1, sizeof *cmds);
    }
    vkCmdEndRendering(cmd);
    return OAK_OK;
}
