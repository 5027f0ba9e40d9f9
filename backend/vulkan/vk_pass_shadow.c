/* The shadow pass on Vulkan: the key light's casters (plain, then masked)
 * into its reversed-Z depth map with indirect draws; the map is cleared even
 * when no caster falls in it. Barriers come from the table (vk_track.c). */
#include "vk_internal.h"

oak_result _oak_vk_run_shadow(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    (void)v;
    VkCommandBuffer cmd = f->cmd;
    _oak_vk_image *s = &vk->shadow;
    VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = s->view,
                                       .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                       .clearValue = {.depthStencil = {0.0f, 0}}};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {s->width, s->height}},
                          .layerCount = 1,
                          .pDepthAttachment = &depth};
    vkCmdBeginRendering(cmd, &ri);
    /* positive height: map row 0 is clip y = -1, as the contract reads it */
    VkViewport vp = {0, 0, (float)s->width, (float)s->height, 0, 1};
    VkRect2D sc = {{0, 0}, {s->width, s->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_SHADOW, vk->shadow_first[0], vk->shadow_count[0]);
    _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_SHADOW_MASKED, vk->shadow_first[1],
                       vk->shadow_count[1]);
    vkCmdEndRendering(cmd);
    return OAK_OK;
}
