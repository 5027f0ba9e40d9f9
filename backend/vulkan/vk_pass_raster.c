/* The raster pass on Vulkan: opaque and MASK draws into the visibility
 * buffer (depth + (draw, triangle) ids), one indirect group per pipeline
 * (sidedness x cutout), then the instance streams drawn natively from the
 * instcull pass's lists, their small LOD bands rasterized in compute
 * first where the device can (vk_craster.c); the draws culled by meshlets
 * from the meshcull pass's commands after their groups (vk_meshcull.c), or
 * by task and mesh shaders where the device has them (vk_mesh_shader.c); or,
 * under Hi-Z occlusion culling, vk_hiz.c's two passes. Barriers come from the table (vk_track.c).
 */
#include "vk_internal.h"

oak_result _oak_vk_run_raster(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    VkCommandBuffer cmd = f->cmd;
    if (f->hiz_on) { /* two passes around the Hi-Z pyramid (vk_hiz.c) */
        _oak_vk_hiz_raster(vk, f, v);
        return OAK_OK;
    }
    /* small stream triangles in compute first (vk_craster.c) */
    _oak_vk_craster_run(vk, f, v);
    _oak_vk_mesh_barrier_before(f); /* the pools for the task and mesh stages */
    /* ids cleared to 0 (sky), depth to 0 (far); depth is stored: blend tests it */
    _oak_vk_begin_rendering(cmd, &vk->ids, true, &vk->depth, true,
                            (VkRect2D){{0, 0}, {vk->width, vk->height}});
    _oak_vk_main_view(vk, cmd);
    _oak_vk_craster_merge(vk, cmd, f); /* its pixels, before the hardware's */
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++)
        _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_VIS + g, vk->vis_first[g], vk->vis_count[g]);
    _oak_vk_meshcull_draw(vk, cmd, f);   /* draws culled by meshlets (vk_meshcull.c) */
    _oak_vk_draw_streams(vk, cmd, f, 0); /* vk_pass_instcull.c */
    vkCmdEndRendering(cmd);
    _oak_vk_mesh_barrier_after(f); /* the task shader's counters, for the host */
    return OAK_OK;
}
