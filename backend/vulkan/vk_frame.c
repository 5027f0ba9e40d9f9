/* One frame on the GPU: the slot's fence, command buffer and staging space,
 * and a walk down the pass table (render/pass_table.h) recording each pass
 * from its own vk_pass_<name>.c, with the barriers the rows' reads and writes
 * imply (vk_track.c) and a timestamp after each. */
#include <string.h>

#include "render/taa.h"
#include "vk_grass.h"
#include "vk_internal.h"

void _oak_vk_barrier(VkCommandBuffer cmd, VkPipelineStageFlags2 src, VkAccessFlags2 src_access,
                     VkPipelineStageFlags2 dst, VkAccessFlags2 dst_access) {
    VkMemoryBarrier2 mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER_2,
                           .srcStageMask = src,
                           .srcAccessMask = src_access,
                           .dstStageMask = dst,
                           .dstAccessMask = dst_access};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                           .memoryBarrierCount = 1,
                           .pMemoryBarriers = &mb};
    vkCmdPipelineBarrier2(cmd, &di);
}

void _oak_vk_image_barrier(VkCommandBuffer cmd, _oak_vk_image *img, VkImageLayout layout,
                           VkPipelineStageFlags2 src, VkAccessFlags2 src_access,
                           VkPipelineStageFlags2 dst, VkAccessFlags2 dst_access) {
    bool depth = img->format == VK_FORMAT_D32_SFLOAT;
    VkImageMemoryBarrier2 ib = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER_2,
        .srcStageMask = src,
        .srcAccessMask = src_access,
        .dstStageMask = dst,
        .dstAccessMask = dst_access,
        .oldLayout = img->layout,
        .newLayout = layout,
        .srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED,
        .image = img->image,
        .subresourceRange = {depth ? VK_IMAGE_ASPECT_DEPTH_BIT : VK_IMAGE_ASPECT_COLOR_BIT, 0,
                             img->mips, 0, img->layers}};
    VkDependencyInfo di = {.sType = VK_STRUCTURE_TYPE_DEPENDENCY_INFO,
                           .imageMemoryBarrierCount = 1,
                           .pImageMemoryBarriers = &ib};
    vkCmdPipelineBarrier2(cmd, &di);
    img->layout = layout;
}

void _oak_vk_stamp(_oak_vk *vk, _oak_vk_frame *f, const char *name) {
    if (!vk->timestamps || f->query_count >= OAK_VK_MAX_TIMESTAMPS) return;
    /* query k closes the stage named k - 1 */
    if (f->query_count) f->query_names[f->query_count - 1] = name;
    vkCmdWriteTimestamp2(f->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, f->queries,
                         f->query_count++);
}

/* Waits for a slot's last submission; a hang past the timeout counts as a
 * lost device so callers stop instead of blocking forever. */
static oak_result _oak_vk_wait(_oak_vk *vk, _oak_vk_frame *f) {
    /* a present may still copy this slot's output (vk_present.c) */
    oak_result pr = _oak_vk_present_wait(vk, (uint32_t)(f - vk->frames));
    if (pr) return pr;
    if (!f->submitted) return OAK_OK;
    oak_result r = _oak_vk_wait_fence(vk, f->fence, __FILE__, __LINE__);
    if (r) return r;
    f->submitted = false;
    return OAK_OK;
}

oak_result _oak_vk_wait_fence(_oak_vk *vk, VkFence fence, const char *file, int line) {
    VkResult r = vkWaitForFences(vk->device, 1, &fence, VK_TRUE, vk->fence_timeout);
    return r == VK_SUCCESS ? OAK_OK : _oak_vk_fail(vk, r, "vkWaitForFences", file, line);
}

oak_result _oak_vk_wait_all(_oak_vk *vk) {
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        oak_result r = _oak_vk_wait(vk, &vk->frames[i]);
        if (r) return r;
    }
    return OAK_OK;
}

oak_result _oak_vk_frame_begin(_oak_vk *vk) {
    if (vk->lost) return oak_error(OAK_ERROR_DEVICE, "vulkan: the device was lost");
    if (vk->recording) return OAK_OK;
    uint32_t slot = (uint32_t)(vk->frame_count % OAK_VK_FRAMES);
    _oak_vk_frame *f = &vk->frames[slot];
    /* timed apart from the recording (stage slotwait): with frames in
       flight, the wait is the GPU's time showing through on the host */
    uint64_t w0 = oak_time_ns();
    oak_result res = _oak_vk_wait(vk, f);
    vk->wait_ms += oak_ms_since(w0);
    if (res) return res;
    vk->slot = slot;
    _oak_vk_garbage_collect(vk, f);
    OAK_VK_TRY(vk, vkResetCommandPool(vk->device, f->pool, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    OAK_VK_TRY(vk, vkBeginCommandBuffer(f->cmd, &bi));
    f->staging_used = 0;
    f->output_valid = false;
    f->query_count = 0;
    if (vk->timestamps) vkCmdResetQueryPool(f->cmd, f->queries, 0, OAK_VK_MAX_TIMESTAMPS);
    /* Earlier frames may still read pool ranges and texture layers this
       frame's copies overwrite (their assets were freed): the upload row's
       write, applied before the first copy, makes the copies wait. */
    _oak_vk_track_row(vk, f->cmd, &_oak_pass_table()[OAK_PASS_UPLOAD]);
    vk->recording = true;
    vk->frame_count++;
    vk->skin.count = vk->skin.vertices = 0; /* this frame's mesh syncs queue them */
    _oak_vk_stamp(vk, f, NULL);
    return OAK_OK;
}

oak_result _oak_vk_stage(_oak_vk *vk, const void *data, uint64_t size, uint64_t align,
                         uint64_t *offset) {
    oak_result r = _oak_vk_frame_begin(vk);
    if (r) return r;
    _oak_vk_frame *f = &vk->frames[vk->slot];
    uint64_t off = (f->staging_used + align - 1) / align * align;
    if (!f->staging.buffer || off + size > f->staging.size) {
        /* Copies already recorded read the old buffer: it retires with this
           frame, and the new one (double, or enough) starts empty. */
        uint64_t cap = f->staging.size ? f->staging.size * 2 : (1u << 20);
        while (cap < size) cap *= 2;
        if ((r = _oak_vk_buffer_retire(vk, &f->staging))) return r;
        if ((r = _oak_vk_buffer_create(vk, &f->staging, cap, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                       OAK_VK_MEM_STAGING)))
            return r;
        off = 0;
    }
    if (data) memcpy((uint8_t *)f->staging.mapped + off, data, size);
    f->staging_used = off + size;
    *offset = off;
    return OAK_OK;
}

/* ---- what the passes share ---------------------------------------------- */

void _oak_vk_draw_group(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, uint32_t pipe,
                        uint32_t first, uint32_t count) {
    if (!count || !_oak_vk_bind(vk, cmd, pipe)) return;
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    if (vk->multi_draw) {
        vkCmdDrawIndexedIndirect(cmd, f->indirect.buffer, (uint64_t)first * stride, count, stride);
    } else {
        for (uint32_t i = 0; i < count; i++)
            vkCmdDrawIndexedIndirect(cmd, f->indirect.buffer, (uint64_t)(first + i) * stride, 1,
                                     stride);
    }
}

void _oak_vk_dispatch(_oak_vk *vk, VkCommandBuffer cmd, uint32_t pipe) {
    if (!_oak_vk_bind(vk, cmd, pipe)) return;
    vkCmdDispatch(cmd, (vk->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                  (vk->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
}

oak_result _oak_vk_compute_steps(_oak_vk *vk, _oak_vk_frame *f, const uint32_t *code, size_t size,
                                 VkPipeline *pipes, uint32_t steps, const uint32_t (*grid)[2]) {
    for (uint32_t s = 0; s < steps; s++) {
        if (pipes[s]) continue;
        oak_result r = _oak_vk_compute_spec(vk, code, size, &s, &pipes[s]);
        if (r) return r;
    }
    for (uint32_t s = 0; s < steps; s++) {
        if (s)
            _oak_vk_barrier(
                f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
        vkCmdBindPipeline(f->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipes[s]);
        vkCmdDispatch(f->cmd, (grid[s][0] + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (grid[s][1] + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
    }
    return OAK_OK;
}

/* ---- the frame ------------------------------------------------------------ */

/* One run function per row of the pass table (vk_pass_<name>.c); NULL:
   nothing to record (read_pixels copies the picture; the row's barrier is
   still recorded). */
static const _oak_vk_run_fn k_run[OAK_PASS_COUNT] = {
    [OAK_PASS_UPLOAD] = _oak_vk_run_upload,
    [OAK_PASS_SKIN] = _oak_vk_run_skin, /* vk_pass_skin.c */
    [OAK_PASS_LIGHTGRID] = _oak_vk_run_lightgrid,
    [OAK_PASS_PARTICLES] = _oak_vk_run_particles, /* vk_pass_particles.c */
    [OAK_PASS_GRASS] = _oak_vk_run_grass,         /* vk_grass.c */
    [OAK_PASS_INSTCULL] = _oak_vk_run_instcull,   /* vk_pass_instcull.c */
    [OAK_PASS_MESHCULL] = _oak_vk_run_meshcull,   /* vk_meshcull.c */
    [OAK_PASS_SKYCAPTURE] = _oak_vk_run_skycapture,
    [OAK_PASS_SHADOW] = _oak_vk_run_shadow,
    [OAK_PASS_LAMPSHADOW] = _oak_vk_run_lampshadow, /* vk_pass_lampshadow.c */
    [OAK_PASS_RASTER] = _oak_vk_run_raster,
    /* ambient occlusion, between the raster and the resolve */
    [OAK_PASS_GTAO] = _oak_vk_run_gtao,
    [OAK_PASS_CLOUDS] = _oak_vk_run_clouds, /* vk_pass_clouds.c */
    [OAK_PASS_FOG] = _oak_vk_run_fog,       /* vk_pass_fog.c */
    [OAK_PASS_RESOLVE] = _oak_vk_run_resolve,
    [OAK_PASS_SSR] = _oak_vk_run_ssr,               /* vk_pass_ssr.c */
    [OAK_PASS_OPAQUECOPY] = _oak_vk_run_opaquecopy, /* vk_pass_opaquecopy.c */
    [OAK_PASS_BLEND] = _oak_vk_run_blend,
    [OAK_PASS_CLOUDMIX] = _oak_vk_run_cloudmix, /* vk_pass_clouds.c */
    [OAK_PASS_TAA] = _oak_vk_run_taa,           /* vk_pass_taa.c */
    [OAK_PASS_EXPOSURE] = _oak_vk_run_exposure, /* vk_pass_exposure.c */
    [OAK_PASS_DOF] = _oak_vk_run_dof,           /* vk_pass_dof.c */
    [OAK_PASS_BLOOM] = _oak_vk_run_bloom,       /* vk_pass_bloom.c */
    [OAK_PASS_POST] = _oak_vk_run_post,
    [OAK_PASS_FXAA] = _oak_vk_run_fxaa,
    [OAK_PASS_READBACK] = NULL,
};

/* Nothing to draw this frame although the row runs: no barriers either. */
static bool _oak_vk_idle(_oak_vk *vk, oak_pass_id pass) {
    return (pass == OAK_PASS_BLEND && _oak_vk_blend_idle(vk)) ||
           (pass == OAK_PASS_SKIN && !vk->skin.count);
}

oak_result _oak_vk_render(_oak_vk *vk, const oak_render_view *v) {
    uint64_t t0 = oak_time_ns(), t1 = t0;
    oak_result r = _oak_vk_frame_begin(vk);
    if (r) return r;
    _oak_vk_frame *f = &vk->frames[vk->slot];
    VkCommandBuffer cmd = f->cmd;
    vk->pipe_result = OAK_OK;
    const oak_pass_row *rows = _oak_pass_table();
    /* the passes after taa run at its output size (TAA upsampling: larger) */
    uint32_t rw = vk->width, rh = vk->height, ow, oh;
    _oak_taa_out_size(v, &ow, &oh);
    for (uint32_t i = 0; i < OAK_PASS_COUNT && !r; i++) {
        const oak_pass_row *row = &rows[i];
        if (i == OAK_PASS_TAA + 1) vk->width = ow, vk->height = oh;
        if (_oak_pass_runs(row, v, oak_backend_vulkan()->caps) && !_oak_vk_idle(vk, row->id)) {
            /* the upload's records are built before its barrier: building
               them may stage copies */
            if (i == OAK_PASS_UPLOAD && k_run[i]) r = k_run[i](vk, f, v);
            if (r) break;
            _oak_vk_track_row(vk, cmd, row);
            if (i != OAK_PASS_UPLOAD && k_run[i]) r = k_run[i](vk, f, v);
            if (!r) r = vk->pipe_result;
        }
        if (i == OAK_PASS_UPLOAD) t1 = oak_time_ns();
        if (!row->untimed) _oak_vk_stamp(vk, f, row->name);
    }
    vk->width = rw, vk->height = rh;
    if (r) {
        /* The half-recorded buffer is reset next frame; what it retired may
           still be read by the frame in flight, so let that finish first. */
        vk->recording = false;
        vkEndCommandBuffer(cmd);
        _oak_vk_wait_all(vk);
        return r;
    }
    vk->recording = false;
    OAK_VK_TRY(vk, vkEndCommandBuffer(cmd));
    OAK_VK_TRY(vk, vkResetFences(vk->device, 1, &f->fence));
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                     .commandBuffer = cmd};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                        .commandBufferInfoCount = 1,
                        .pCommandBufferInfos = &cbi};
    OAK_VK_TRY(vk, vkQueueSubmit2(vk->queue, 1, &si, f->fence));
    f->submitted = true;
    f->output_valid = true;
    vk->pic_width = ow, vk->pic_height = oh;
    vk->last_slot = (int32_t)vk->slot;
    f->cpu_ms[0] = (double)(t1 - t0) * 1e-6 + vk->sync_ms;
    f->cpu_ms[1] = (double)(oak_time_ns() - t1) * 1e-6;
    f->wait_ms = vk->wait_ms;
    vk->sync_ms = vk->wait_ms = 0;
    vk->up_last = vk->up_now;
    vk->up_now = (oak_upload_stats){0};
    return OAK_OK;
}
