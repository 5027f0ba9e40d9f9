/* Native presentation on Vulkan: the window's surface (made by the app's
 * hook), a swapchain (FIFO, or MAILBOX else IMMEDIATE without vsync) made
 * at the first present and again when the window's size or the surface
 * changes, and per present one small submission after the frame's: the
 * picture's buffer and the panel copied into an RGBA8 image, blitted into
 * the acquired image (any size, any format), presented. */
#include <stdio.h>
#include <string.h>

#include "vk_internal.h"

oak_result _oak_vk_surface_create(_oak_vk *vk, const oak_window_hooks *window, uint32_t family) {
    if (!window->vk_surface)
        return oak_error(OAK_ERROR_UNSUPPORTED, "vulkan: the window gives no surface");
    uint64_t surface = 0;
    oak_result r = window->vk_surface(window->user, (void *)vk->instance, &surface);
    if (r) return r;
    vk->surface = (VkSurfaceKHR)(uintptr_t)surface;
    VkBool32 ok = VK_FALSE;
    VkResult vr = vkGetPhysicalDeviceSurfaceSupportKHR(vk->phys, family, vk->surface, &ok);
    if (vr != VK_SUCCESS || !ok)
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "vulkan: queue family %u cannot present to the window's surface", family);
    vk->swap.window = window;
    return OAK_OK;
}

static const char *mode_name(VkPresentModeKHR m) {
    switch (m) {
    case VK_PRESENT_MODE_FIFO_KHR:
        return "fifo";
    case VK_PRESENT_MODE_MAILBOX_KHR:
        return "mailbox";
    case VK_PRESENT_MODE_IMMEDIATE_KHR:
        return "immediate";
    default:
        return "other";
    }
}

/* FIFO with vsync (every device has it); without, MAILBOX if offered, else
   IMMEDIATE, else FIFO after all. */
static VkPresentModeKHR pick_mode(_oak_vk *vk) {
    if (!vk->swap.window->no_vsync) return VK_PRESENT_MODE_FIFO_KHR;
    VkPresentModeKHR modes[16];
    uint32_t n = 16;
    if (vkGetPhysicalDeviceSurfacePresentModesKHR(vk->phys, vk->surface, &n, modes) < 0) n = 0;
    bool mailbox = false, immediate = false;
    for (uint32_t i = 0; i < n; i++) {
        mailbox |= modes[i] == VK_PRESENT_MODE_MAILBOX_KHR;
        immediate |= modes[i] == VK_PRESENT_MODE_IMMEDIATE_KHR;
    }
    return mailbox     ? VK_PRESENT_MODE_MAILBOX_KHR
           : immediate ? VK_PRESENT_MODE_IMMEDIATE_KHR
                       : VK_PRESENT_MODE_FIFO_KHR;
}

/* An 8-bit UNORM format: the picture is already sRGB-encoded, so the
   swapchain must not encode it again. */
static bool pick_format(_oak_vk *vk, VkSurfaceFormatKHR *out) {
    VkSurfaceFormatKHR fmts[32];
    uint32_t n = 32;
    if (vkGetPhysicalDeviceSurfaceFormatsKHR(vk->phys, vk->surface, &n, fmts) < 0 || !n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if ((fmts[i].format == VK_FORMAT_B8G8R8A8_UNORM ||
             fmts[i].format == VK_FORMAT_R8G8B8A8_UNORM) &&
            fmts[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) {
            *out = fmts[i];
            return true;
        }
    return false;
}

static void destroy_chain(_oak_vk *vk, VkSwapchainKHR chain) {
    _oak_vk_swap *s = &vk->swap;
    for (uint32_t i = 0; i < OAK_VK_SWAP_MAX; i++) {
        if (s->rendered[i]) vkDestroySemaphore(vk->device, s->rendered[i], NULL);
        s->rendered[i] = VK_NULL_HANDLE;
    }
    if (chain) vkDestroySwapchainKHR(vk->device, chain, NULL);
}

/* The swapchain for a width x height window (the surface's own extent
   where it has one); false with no error while the surface is 0 x 0. */
static oak_result make_chain(_oak_vk *vk, uint32_t width, uint32_t height, bool *made) {
    _oak_vk_swap *s = &vk->swap;
    *made = false;
    VkSurfaceCapabilitiesKHR caps;
    OAK_VK_TRY(vk, vkGetPhysicalDeviceSurfaceCapabilitiesKHR(vk->phys, vk->surface, &caps));
    VkExtent2D e = caps.currentExtent;
    if (e.width == UINT32_MAX) { /* the window takes the swapchain's size */
        e.width = width < caps.minImageExtent.width   ? caps.minImageExtent.width
                  : width > caps.maxImageExtent.width ? caps.maxImageExtent.width
                                                      : width;
        e.height = height < caps.minImageExtent.height   ? caps.minImageExtent.height
                   : height > caps.maxImageExtent.height ? caps.maxImageExtent.height
                                                         : height;
    }
    if (!e.width || !e.height) return OAK_OK; /* minimised */
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "vulkan: the window's images cannot be written by a blit");
    s->can_capture = (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) != 0;
    VkSurfaceFormatKHR fmt;
    if (!pick_format(vk, &fmt))
        return oak_error(OAK_ERROR_UNSUPPORTED,
                         "vulkan: the window offers no 8-bit UNORM sRGB-space format");
    uint32_t count = caps.minImageCount + 1;
    if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
    if (count > OAK_VK_SWAP_MAX) count = OAK_VK_SWAP_MAX;
    s->mode = pick_mode(vk);
    /* opaque where offered, else the first way the surface has */
    VkCompositeAlphaFlagBitsKHR alpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    for (uint32_t bit = 1; !(caps.supportedCompositeAlpha & alpha) && bit <= 8; bit <<= 1)
        if (caps.supportedCompositeAlpha & bit) alpha = (VkCompositeAlphaFlagBitsKHR)bit;
    VkSwapchainKHR old = s->chain;
    VkSwapchainCreateInfoKHR ci = {.sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
                                   .surface = vk->surface,
                                   .minImageCount = count,
                                   .imageFormat = fmt.format,
                                   .imageColorSpace = fmt.colorSpace,
                                   .imageExtent = e,
                                   .imageArrayLayers = 1,
                                   .imageUsage =
                                       VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                       (s->can_capture ? VK_IMAGE_USAGE_TRANSFER_SRC_BIT : 0),
                                   .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
                                   .preTransform = caps.currentTransform,
                                   .compositeAlpha = alpha,
                                   .presentMode = s->mode,
                                   .clipped = VK_TRUE,
                                   .oldSwapchain = old};
    /* what the old chain's presents wait on must be done before its
       semaphores go (a resize, not a frame) */
    if (old) OAK_VK_TRY(vk, vkDeviceWaitIdle(vk->device));
    VkSwapchainKHR chain;
    VkResult vr = vkCreateSwapchainKHR(vk->device, &ci, NULL, &chain);
    destroy_chain(vk, old);
    s->chain = VK_NULL_HANDLE;
    if (vr != VK_SUCCESS) return _oak_vk_fail(vk, vr, "vkCreateSwapchainKHR", __FILE__, __LINE__);
    s->chain = chain;
    s->count = OAK_VK_SWAP_MAX;
    vr = vkGetSwapchainImagesKHR(vk->device, chain, &s->count, s->images);
    if (vr != VK_SUCCESS && vr != VK_INCOMPLETE)
        return _oak_vk_fail(vk, vr, "vkGetSwapchainImagesKHR", __FILE__, __LINE__);
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < s->count; i++) {
        s->layouts[i] = VK_IMAGE_LAYOUT_UNDEFINED;
        OAK_VK_TRY(vk, vkCreateSemaphore(vk->device, &si, NULL, &s->rendered[i]));
    }
    s->format = fmt.format;
    s->extent = e;
    s->stale = false;
    if (old) s->recreated++;
    snprintf(s->words, sizeof s->words, "swapchain %s", mode_name(s->mode));
    oak_log_info("vulkan: %s, %u images of %ux%u, %s%s", s->words, s->count, e.width, e.height,
                 fmt.format == VK_FORMAT_B8G8R8A8_UNORM ? "BGRA8" : "RGBA8",
                 old ? " (made again)" : "");
    *made = true;
    return OAK_OK;
}

/* The command pool, fences, semaphores and panel buffers, once. */
static oak_result make_frame_objects(_oak_vk *vk) {
    _oak_vk_swap *s = &vk->swap;
    if (s->pool) return OAK_OK;
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = vk->queue_family};
    OAK_VK_TRY(vk, vkCreateCommandPool(vk->device, &pi, NULL, &s->pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = s->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = OAK_VK_FRAMES};
    OAK_VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &ai, s->cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        OAK_VK_TRY(vk, vkCreateFence(vk->device, &fi, NULL, &s->fence[i]));
        OAK_VK_TRY(vk, vkCreateSemaphore(vk->device, &si, NULL, &s->acquired[i]));
    }
    return OAK_OK;
}

static void to_layout(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                      VkPipelineStageFlags2 src, VkAccessFlags2 src_access,
                      VkPipelineStageFlags2 dst, VkAccessFlags2 dst_access) {
    VkImageMemoryBarrier2 ib = {.sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
                                .srcStageMask = src,
                                .srcAccessMask = src_access,
                                .dstStageMask = dst,
                                .dstAccessMask = dst_access,
                                .oldLayout = from,
                                .newLayout = to,
                                .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
                                .image = image,
                                .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1}};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                           .imageMemoryBarrierCount = 1,
                           .pImageMemoryBarriers = &ib};
    vkCmdPipelineBarrier2(cmd, &di);
}

/* The picture (pw x ph packed RGBA8 in the last frame's output buffer) and
   the panel into the compose image, then blitted into swapchain image i. */
static void record(_oak_vk *vk, VkCommandBuffer cmd, uint32_t i, uint32_t pw, uint32_t ph,
                   const oak_present_panel *panel, bool capture) {
    _oak_vk_swap *s = &vk->swap;
    _oak_vk_frame *f = &vk->frames[vk->last_slot];
    /* the frame's passes wrote the output earlier on this queue */
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
    /* the last present's blit read the compose image: its contents go */
    to_layout(cmd, s->image.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
              VK_PIPELINE_STAGE_2_BLIT_BIT, 0, VK_PIPELINE_STAGE_2_COPY_BIT,
              VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkBufferImageCopy c = {.bufferOffset = 0,
                           .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                           .imageExtent = {pw, ph, 1}};
    vkCmdCopyBufferToImage(cmd, f->output.buffer, s->image.image,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &c);
    if (panel) {
        /* the panel's rows over the picture: a second copy into the same
           texels, ordered after the first */
        _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
        VkBufferImageCopy pc = {.bufferOffset = 0,
                                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageOffset = {(int32_t)panel->x, (int32_t)panel->y, 0},
                                .imageExtent = {panel->width, panel->height, 1}};
        vkCmdCopyBufferToImage(cmd, s->panel[vk->last_slot].buffer, s->image.image,
                               VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &pc);
    }
    to_layout(cmd, s->image.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
              VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_2_COPY_BIT,
              VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_BLIT_BIT,
              VK_ACCESS_2_TRANSFER_READ_BIT);
    /* the acquire's semaphore is waited at the blit stage: the layout
       change waits behind it */
    to_layout(cmd, s->images[i], VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
              VK_PIPELINE_STAGE_2_BLIT_BIT, 0, VK_PIPELINE_STAGE_2_BLIT_BIT,
              VK_ACCESS_2_TRANSFER_WRITE_BIT);
    VkImageBlit b = {
        .srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .srcOffsets = {{0, 0, 0}, {(int32_t)pw, (int32_t)ph, 1}},
        .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
        .dstOffsets = {{0, 0, 0}, {(int32_t)s->extent.width, (int32_t)s->extent.height, 1}}};
    bool same = pw == s->extent.width && ph == s->extent.height;
    vkCmdBlitImage(cmd, s->image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s->images[i],
                   VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &b,
                   same ? VK_FILTER_NEAREST : VK_FILTER_LINEAR);
    VkImageLayout at = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
    if (capture) { /* what the window will show, into the host's buffer */
        to_layout(cmd, s->images[i], at, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                  VK_PIPELINE_STAGE_2_BLIT_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        at = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
        VkBufferImageCopy cc = {.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1},
                                .imageExtent = {s->extent.width, s->extent.height, 1}};
        vkCmdCopyImageToBuffer(cmd, s->images[i], at, s->capture.buffer, 1, &cc);
        _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    }
    to_layout(cmd, s->images[i], at, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR,
              VK_PIPELINE_STAGE_2_BLIT_BIT | VK_PIPELINE_STAGE_2_COPY_BIT,
              VK_ACCESS_2_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_2_NONE, 0);
}

oak_result _oak_vk_present(_oak_vk *vk, uint32_t width, uint32_t height,
                           const oak_present_panel *panel, uint8_t *capture) {
    _oak_vk_swap *s = &vk->swap;
    if (!vk->surface) return oak_error(OAK_ERROR_UNSUPPORTED, "vulkan: no window to present to");
    if (vk->lost) return oak_error(OAK_ERROR_DEVICE, "vulkan: the device was lost");
    if (vk->last_slot < 0 || !vk->frames[vk->last_slot].output_valid)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: no frame to present");
    oak_result r = make_frame_objects(vk);
    if (r) return r;
    bool made = true;
    if (!s->chain || s->stale || s->extent.width != width || s->extent.height != height)
        if ((r = make_chain(vk, width, height, &made))) return r;
    if (!made) return OAK_OK; /* minimised: nothing to show */
    uint32_t pw = vk->pic_width, ph = vk->pic_height;
    /* the compose image follows the picture's size */
    if (!s->image.image || s->image.width != pw || s->image.height != ph) {
        OAK_VK_TRY(vk, vkDeviceWaitIdle(vk->device)); /* a resize, not a frame */
        _oak_vk_image_destroy(vk, &s->image);
        if ((r = _oak_vk_image_create(vk, &s->image, VK_FORMAT_R8G8B8A8_UNORM, pw, ph, 1, 1,
                                      VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                          VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                          VK_IMAGE_USAGE_SAMPLED_BIT, /* for its view */
                                      false)))
            return r;
    }
    /* the render slot whose output this reads: its next frame waits for
       this present's copy (_oak_vk_present_wait) */
    uint32_t slot = (uint32_t)vk->last_slot;
    if (s->submitted[slot]) {
        if ((r = _oak_vk_wait_fence(vk, s->fence[slot], __FILE__, __LINE__))) return r;
        s->submitted[slot] = false;
    }
    /* the panel, clipped to the picture, into this slot's host buffer */
    oak_present_panel clip;
    const oak_present_panel *pp = NULL;
    if (panel && panel->rgba && panel->x < pw && panel->y < ph && panel->width && panel->height) {
        clip = *panel;
        if (clip.width > pw - clip.x) clip.width = pw - clip.x;
        if (clip.height > ph - clip.y) clip.height = ph - clip.y;
        uint64_t bytes = (uint64_t)clip.width * clip.height * 4;
        _oak_vk_buffer *pb = &s->panel[slot];
        if (pb->size < bytes) {
            _oak_vk_buffer_destroy(vk, pb); /* its last copy is done: the fence above */
            if ((r = _oak_vk_buffer_create(vk, pb, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                           OAK_VK_MEM_STAGING)))
                return r;
        }
        for (uint32_t y = 0; y < clip.height; y++)
            memcpy((uint8_t *)pb->mapped + (size_t)y * clip.width * 4,
                   clip.rgba + ((size_t)y * clip.stride) * 4, (size_t)clip.width * 4);
        pp = &clip;
    }
    uint64_t cap_bytes = (uint64_t)s->extent.width * s->extent.height * 4;
    if (capture && (s->extent.width != width || s->extent.height != height))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "vulkan: the window's images are %ux%u, not the %ux%u captured",
                         s->extent.width, s->extent.height, width, height);
    if (capture && !s->can_capture)
        return oak_error(OAK_ERROR_UNSUPPORTED, "vulkan: the window's images cannot be read back");
    if (capture && s->capture.size < cap_bytes) {
        _oak_vk_buffer_destroy(vk, &s->capture);
        if ((r = _oak_vk_buffer_create(vk, &s->capture, cap_bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       OAK_VK_MEM_READBACK)))
            return r;
    }
    uint32_t image;
    VkResult vr = vkAcquireNextImageKHR(vk->device, s->chain, vk->fence_timeout, s->acquired[slot],
                                        VK_NULL_HANDLE, &image);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR) { /* resized under us: next time */
        s->stale = true;
        return OAK_OK;
    }
    if (vr == VK_SUBOPTIMAL_KHR)
        s->stale = true;
    else if (vr != VK_SUCCESS)
        return _oak_vk_fail(vk, vr, "vkAcquireNextImageKHR", __FILE__, __LINE__);
    VkCommandBuffer cmd = s->cmd[slot];
    OAK_VK_TRY(vk, vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    OAK_VK_TRY(vk, vkBeginCommandBuffer(cmd, &bi));
    record(vk, cmd, image, pw, ph, pp, capture != NULL);
    OAK_VK_TRY(vk, vkEndCommandBuffer(cmd));
    OAK_VK_TRY(vk, vkResetFences(vk->device, 1, &s->fence[slot]));
    VkSemaphoreSubmitInfo wait = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                  .semaphore = s->acquired[slot],
                                  .stageMask = VK_PIPELINE_STAGE_2_BLIT_BIT};
    VkSemaphoreSubmitInfo signal = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SUBMIT_INFO,
                                    .semaphore = s->rendered[image],
                                    .stageMask = VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT};
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                     .commandBuffer = cmd};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                        .waitSemaphoreInfoCount = 1,
                        .pWaitSemaphoreInfos = &wait,
                        .commandBufferInfoCount = 1,
                        .pCommandBufferInfos = &cbi,
                        .signalSemaphoreInfoCount = 1,
                        .pSignalSemaphoreInfos = &signal};
    OAK_VK_TRY(vk, vkQueueSubmit2(vk->queue, 1, &si, s->fence[slot]));
    s->submitted[slot] = true;
    if (capture) { /* a test's: wait, then the image's bytes in RGBA order */
        if ((r = _oak_vk_present_wait(vk, slot))) return r;
        const uint8_t *src = s->capture.mapped;
        bool bgra = s->format == VK_FORMAT_B8G8R8A8_UNORM;
        for (uint64_t k = 0; k < cap_bytes; k += 4) {
            capture[k] = src[k + (bgra ? 2 : 0)];
            capture[k + 1] = src[k + 1];
            capture[k + 2] = src[k + (bgra ? 0 : 2)];
            capture[k + 3] = src[k + 3];
        }
    }
    VkPresentInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR,
                           .waitSemaphoreCount = 1,
                           .pWaitSemaphores = &s->rendered[image],
                           .swapchainCount = 1,
                           .pSwapchains = &s->chain,
                           .pImageIndices = &image};
    vr = vkQueuePresentKHR(vk->queue, &pi);
    if (vr == VK_ERROR_OUT_OF_DATE_KHR || vr == VK_SUBOPTIMAL_KHR)
        s->stale = true;
    else if (vr != VK_SUCCESS)
        return _oak_vk_fail(vk, vr, "vkQueuePresentKHR", __FILE__, __LINE__);
    return OAK_OK;
}

oak_result _oak_vk_present_wait(_oak_vk *vk, uint32_t slot) {
    _oak_vk_swap *s = &vk->swap;
    if (!s->submitted[slot]) return OAK_OK;
    oak_result r = _oak_vk_wait_fence(vk, s->fence[slot], __FILE__, __LINE__);
    if (!r) s->submitted[slot] = false;
    return r;
}

void _oak_vk_present_destroy(_oak_vk *vk) {
    _oak_vk_swap *s = &vk->swap;
    if (!vk->device) return;
    vkDeviceWaitIdle(vk->device); /* teardown */
    destroy_chain(vk, s->chain);
    s->chain = VK_NULL_HANDLE;
    _oak_vk_image_destroy(vk, &s->image);
    _oak_vk_buffer_destroy(vk, &s->capture);
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_buffer_destroy(vk, &s->panel[i]);
        if (s->fence[i]) vkDestroyFence(vk->device, s->fence[i], NULL);
        if (s->acquired[i]) vkDestroySemaphore(vk->device, s->acquired[i], NULL);
        s->fence[i] = VK_NULL_HANDLE, s->acquired[i] = VK_NULL_HANDLE;
    }
    if (s->pool) vkDestroyCommandPool(vk->device, s->pool, NULL);
    s->pool = VK_NULL_HANDLE;
}
