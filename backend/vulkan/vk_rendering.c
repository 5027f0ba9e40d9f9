/* One way to begin dynamic rendering for every raster pass (visibility,
 * blend, the cascades' tiles, the lamp atlas): an optional colour image and
 * a depth image, each cleared (to 0: no id, reversed-Z far) or loaded, and
 * stored; and the main view's viewport, which the visibility and blend
 * passes share. */
#include "vk_internal.h"

void _oak_vk_begin_rendering(VkCommandBuffer cmd, const _oak_vk_image *color, bool clear_color,
                             const _oak_vk_image *depth, bool clear_depth, VkRect2D area) {
    VkRenderingAttachmentInfo c = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                   .imageView = color ? color->view : VK_NULL_HANDLE,
                                   .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                   .loadOp = clear_color ? VK_ATTACHMENT_LOAD_OP_CLEAR
                                                         : VK_ATTACHMENT_LOAD_OP_LOAD,
                                   .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                   .clearValue = {.color = {.uint32 = {0, 0, 0, 0}}}};
    VkRenderingAttachmentInfo d = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                   .imageView = depth->view,
                                   .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                   .loadOp = clear_depth ? VK_ATTACHMENT_LOAD_OP_CLEAR
                                                         : VK_ATTACHMENT_LOAD_OP_LOAD,
                                   .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                   .clearValue = {.depthStencil = {0.0f, 0}}};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = area,
                          .layerCount = 1,
                          .colorAttachmentCount = color ? 1u : 0u,
                          .pColorAttachments = color ? &c : NULL,
                          .pDepthAttachment = &d};
    vkCmdBeginRendering(cmd, &ri);
}

/* The picture's viewport (negative height: clip y = +1 is the top row, as
   on the CPU backend) and scissor, and the index buffer the draws read. */
void _oak_vk_main_view(_oak_vk *vk, VkCommandBuffer cmd) {
    VkViewport vp = {0, (float)vk->height, (float)vk->width, -(float)vk->height, 0, 1};
    VkRect2D sc = {{0, 0}, {vk->width, vk->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
}
