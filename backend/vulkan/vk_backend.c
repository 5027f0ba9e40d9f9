/* The Vulkan backend's vtable: create and destroy (device, frames, pipelines,
 * pools, targets), resize, sync, render, read_pixels through a readback copy
 * made only when asked, and per-pass GPU timings from timestamp queries. */
#include <stdio.h>
#include <string.h>

#include "vk_debug.h"
#include "render/taa.h"
#include "vk_internal.h"

/* What read_pixels needs beyond the frame: kept beside the backend state. */
typedef struct _oak_vk_backend {
    _oak_vk vk;
    VkCommandPool rb_pool;
    VkCommandBuffer rb_cmd;
    VkFence rb_fence;
    _oak_vk_buffer readback;
} _oak_vk_backend;

/* The key light's atlas: 2 x 2 cascade maps of size texels each, and the
   same again for the cached static layers the map's tiles are copied from. */
static oak_result _oak_vk_shadow_map(_oak_vk *vk, uint32_t size) {
    if (size > OAK_MAX_TEXTURE_SIZE / 2)
        return oak_error(OAK_ERROR_LIMIT, "vulkan: shadow map of %u texels past %u", size,
                         OAK_MAX_TEXTURE_SIZE / 2);
    size *= 2;
    if (vk->shadow.image && vk->shadow.width == size && vk->shadow_static.image) return OAK_OK;
    oak_result r;
    if ((r = _oak_vk_image_retire(vk, &vk->shadow)) ||
        (r = _oak_vk_image_retire(vk, &vk->shadow_static)))
        return r;
    /* new images: nothing touched them yet, and no layer is held */
    _oak_vk_track_reset(vk, OAK_TARGET_SHADOW_MAP);
    _oak_vk_track_reset(vk, OAK_TARGET_SHADOW_STATIC);
    for (uint32_t c = 0; c < OAK_MAX_CASCADES; c++) _oak_shadow_layer_reset(&vk->shadow_layer[c]);
    if ((r = _oak_vk_image_create(vk, &vk->shadow, VK_FORMAT_D32_SFLOAT, size, size, 1, 1,
                                  VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT |
                                      VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                      VK_IMAGE_USAGE_TRANSFER_SRC_BIT, /* read_shadow_map */
                                  false)))
        return r;
    return _oak_vk_image_create(
        vk, &vk->shadow_static, VK_FORMAT_D32_SFLOAT, size, size, 1, 1,
        VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, false);
}

static void _oak_vk_destroy(void *self) {
    _oak_vk_backend *b = self;
    if (!b) return;
    _oak_vk *vk = &b->vk;
    if (vk->device) {
        vkDeviceWaitIdle(vk->device); /* teardown, not a frame */
        _oak_vk_present_destroy(vk);
        for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) _oak_vk_garbage_collect(vk, &vk->frames[i]);
        _oak_vk_buffer_destroy(vk, &b->readback);
        _oak_vk_targets_destroy(vk);
        _oak_vk_resources_release(vk);
        for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
            _oak_vk_frame *f = &vk->frames[i];
            _oak_vk_buffer_destroy(vk, &f->view);
            _oak_vk_buffer_destroy(vk, &f->lights);
            _oak_vk_buffer_destroy(vk, &f->lamp_block);
            _oak_vk_buffer_destroy(vk, &f->aerial);
            _oak_vk_buffer_destroy(vk, &f->draws);
            _oak_vk_buffer_destroy(vk, &f->indirect);
            _oak_vk_buffer_destroy(vk, &f->staging);
            _oak_vk_buffer_destroy(vk, &f->skin);
            if (f->queries) vkDestroyQueryPool(vk->device, f->queries, NULL);
            if (f->fence) vkDestroyFence(vk->device, f->fence, NULL);
            if (f->pool) vkDestroyCommandPool(vk->device, f->pool, NULL);
        }
        if (b->rb_fence) vkDestroyFence(vk->device, b->rb_fence, NULL);
        if (b->rb_pool) vkDestroyCommandPool(vk->device, b->rb_pool, NULL);
        _oak_vk_pipelines_destroy(vk);
        if (vk->live_buffers || vk->live_images || vk->live_views || vk->live_allocs)
            oak_log(OAK_LOG_ERROR,
                    "vulkan: leaked at destroy: %lld buffers, %lld images, %lld views, %lld "
                    "sub-allocations",
                    (long long)vk->live_buffers, (long long)vk->live_images,
                    (long long)vk->live_views, (long long)vk->live_allocs);
        _oak_vk_memory_release_all(vk);
    }
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) oak_free(vk->frames[i].garbage);
    oak_free(vk->infos);
    _oak_gpu_skin_queue_free(&vk->skin);
    oak_free(vk->cmds);
    oak_free(vk->keys);
    oak_free(vk->blend_draw);
    _oak_vk_device_destroy(vk);
    oak_free(b);
}

static oak_result _oak_vk_create_frames(_oak_vk_backend *b) {
    _oak_vk *vk = &b->vk;
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_frame *f = &vk->frames[i];
        VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                      .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                      .queueFamilyIndex = vk->queue_family};
        OAK_VK_TRY(vk, vkCreateCommandPool(vk->device, &pi, NULL, &f->pool));
        VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                          .commandPool = f->pool,
                                          .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                          .commandBufferCount = 1};
        OAK_VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &ai, &f->cmd));
        VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        OAK_VK_TRY(vk, vkCreateFence(vk->device, &fi, NULL, &f->fence));
        if (vk->timestamps) {
            VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                        .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                        .queryCount = OAK_VK_MAX_TIMESTAMPS};
            OAK_VK_TRY(vk, vkCreateQueryPool(vk->device, &qi, NULL, &f->queries));
        }
    }
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = vk->queue_family};
    OAK_VK_TRY(vk, vkCreateCommandPool(vk->device, &pi, NULL, &b->rb_pool));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = b->rb_pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    OAK_VK_TRY(vk, vkAllocateCommandBuffers(vk->device, &ai, &b->rb_cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    OAK_VK_TRY(vk, vkCreateFence(vk->device, &fi, NULL, &b->rb_fence));
    return OAK_OK;
}

static oak_result _oak_vk_check_size(uint32_t w, uint32_t h) {
    if (!w || !h || w > OAK_MAX_OUTPUT_SIZE || h > OAK_MAX_OUTPUT_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: output size %ux%u out of range", w,
                         h);
    return OAK_OK;
}

static oak_result _oak_vk_create(void **self, const oak_backend_desc *desc) {
    *self = NULL;
    uint32_t w = desc && desc->width ? desc->width : 1280;
    uint32_t h = desc && desc->height ? desc->height : 720;
    oak_result r = _oak_vk_check_size(w, h);
    if (r) return r;
    _oak_vk_backend *b = oak_calloc(1, sizeof *b);
    if (!b) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: backend state");
    _oak_vk *vk = &b->vk;
    vk->width = w;
    vk->height = h;
    vk->last_slot = -1;
    vk->block_size = OAK_VK_BLOCK_SIZE;
    uint32_t shadow = desc && desc->shadow_map_size ? desc->shadow_map_size : OAK_SHADOW_MAP_SIZE;
    if ((r = _oak_vk_device_create(vk, desc ? desc->device : NULL, desc && desc->hardware_only,
                                   desc ? desc->window : NULL)) ||
        (r = _oak_vk_create_frames(b)) || (r = _oak_vk_pipelines_create(vk)) ||
        (r = _oak_vk_resources_init(vk)) || (r = _oak_vk_targets_create(vk)) ||
        (r = _oak_vk_shadow_map(vk, shadow)) || (r = _oak_vk_lamp_atlas(vk, false))) {
        _oak_vk_destroy(b);
        return r;
    }
    *self = b;
    return OAK_OK;
}

static const char *_oak_vk_device_name(void *self) {
    return self ? ((_oak_vk_backend *)self)->vk.device_name : "";
}

static oak_result _oak_vk_resize(void *self, uint32_t w, uint32_t h) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    oak_result r = _oak_vk_check_size(w, h);
    if (r) return r;
    if (vk->lost) return oak_error(OAK_ERROR_DEVICE, "vulkan: the device was lost");
    if (w == vk->width && h == vk->height) return OAK_OK;
    /* Old targets retire into the current slot; open it so they are
       collected once the frames that used them are done. */
    if ((r = _oak_vk_frame_begin(vk))) return r;
    vk->width = w;
    vk->height = h;
    vk->out_width = vk->out_height = 0; /* the next upsampling view grows them again */
    r = _oak_vk_targets_create(vk);
    vk->targets_bad = r != OAK_OK;
    return r;
}

static oak_result _oak_vk_sync(void *self, const oak_render_view *v) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    uint64_t t0 = oak_time_ns();
    oak_result r = _oak_vk_frame_begin(vk);
    if (r) return r;
    const oak_draw_list *lists[2] = {&v->draws, &v->casters};
    for (int li = 0; li < 2; li++)
        for (uint32_t i = 0; i < lists[li]->count; i++) {
            const _oak_vk_mesh *m;
            uint32_t slot;
            if ((r = _oak_vk_sync_mesh(vk, lists[li]->mesh[i], &m)) ||
                (r = _oak_vk_sync_material(vk, lists[li]->material[i], &slot)))
                return r;
        }
    /* instance streams: their LOD meshes and material (a destroyed one draws nothing) */
    for (uint32_t s = 0; s < v->stream_count; s++) {
        const oak_render_stream *rs = &v->streams[s];
        const _oak_vk_mesh *m;
        uint32_t slot;
        for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++)
            if (oak_mesh_get(rs->lods[k]) && (r = _oak_vk_sync_mesh(vk, rs->lods[k], &m))) return r;
        if (oak_material_get(rs->material) && (r = _oak_vk_sync_material(vk, rs->material, &slot)))
            return r;
    }
    vk->sync_ms += oak_ms_since(t0);
    return OAK_OK;
}

static oak_result _oak_vk_render_vt(void *self, const oak_render_view *v) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    if (!v) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: render without a view");
    if (v->width && v->height && (v->width != vk->width || v->height != vk->height))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "vulkan: view is %ux%u but the output is %ux%u (resize first)", v->width,
                         v->height, vk->width, vk->height);
    if (vk->lost) return oak_error(OAK_ERROR_DEVICE, "vulkan: the device was lost");
    oak_result r = _oak_vk_frame_begin(vk);
    if (r) return r;
    /* TAA upsampling to a larger output than the targets hold: made again
       (the frontend resets the history for a new output size) */
    uint32_t ow, oh;
    _oak_taa_out_size(v, &ow, &oh);
    if (ow > (vk->out_width > vk->width ? vk->out_width : vk->width) ||
        oh > (vk->out_height > vk->height ? vk->out_height : vk->height)) {
        vk->out_width = ow, vk->out_height = oh;
        vk->targets_bad = true;
    }
    if (vk->targets_bad) {
        if ((r = _oak_vk_targets_create(vk))) return r;
        vk->targets_bad = false;
    }
    if (v->shadows && v->shadow_map_size && (r = _oak_vk_shadow_map(vk, v->shadow_map_size)))
        return r;
    vk->shadow_stats = (oak_shadow_stats){0};
    return _oak_vk_render(vk, v);
}

static void _oak_vk_blend_stats(void *self, oak_blend_stats *out) {
    const _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    *out =
        (oak_blend_stats){vk->blend_surfaces, vk->blend_count, vk->blend_unlit, vk->blend_compute};
}

static void _oak_vk_shadow_stats(void *self, oak_shadow_stats *out) {
    *out = ((_oak_vk_backend *)self)->vk.shadow_stats;
}

static oak_result _oak_vk_read_light_grid(void *self, uint32_t *words, size_t count) {
    return _oak_vk_lightgrid_read(&((_oak_vk_backend *)self)->vk, words, count);
}

static oak_result _oak_vk_read_sky(void *self, float *texels, size_t count, uint32_t *captures) {
    return _oak_vk_sky_read(&((_oak_vk_backend *)self)->vk, texels, count, captures);
}

static bool _oak_vk_occlusion_stats(void *self, oak_occlusion_stats *out) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    return !vk->lost && _oak_vk_hiz_stats(vk, out);
}

static void _oak_vk_upload_stats(void *self, oak_upload_stats *out) {
    *out = ((_oak_vk_backend *)self)->vk.up_last;
}

static void _oak_vk_meshlet_stats(void *self, oak_meshlet_stats *out) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    *out = (oak_meshlet_stats){0};
    if (!vk->lost) _oak_vk_meshcull_stats(vk, out);
}

static oak_result _oak_vk_read_exposure(void *self, float state[4]) {
    return _oak_vk_exposure_read(&((_oak_vk_backend *)self)->vk, state);
}

/* The read-back buffer at least `bytes` long, and rb_cmd begun. */
static oak_result readback_begin(_oak_vk_backend *b, uint64_t bytes) {
    _oak_vk *vk = &b->vk;
    oak_result r;
    if (!b->readback.buffer || b->readback.size < bytes) {
        _oak_vk_buffer_destroy(vk, &b->readback); /* only the read-backs ever use it */
        if ((r = _oak_vk_buffer_create(vk, &b->readback, bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                       OAK_VK_MEM_READBACK)))
            return r;
    }
    OAK_VK_TRY(vk, vkResetCommandBuffer(b->rb_cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    OAK_VK_TRY(vk, vkBeginCommandBuffer(b->rb_cmd, &bi));
    return OAK_OK;
}

/* The copy recorded: made visible to the host, submitted, waited for, and
   the first `bytes` of the read-back copied out. */
static oak_result readback_end(_oak_vk_backend *b, void *out, uint64_t bytes) {
    _oak_vk *vk = &b->vk;
    _oak_vk_barrier(b->rb_cmd, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_HOST_BIT, VK_ACCESS_2_HOST_READ_BIT);
    OAK_VK_TRY(vk, vkEndCommandBuffer(b->rb_cmd));
    OAK_VK_TRY(vk, vkResetFences(vk->device, 1, &b->rb_fence));
    VkCommandBufferSubmitInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO,
                                     .commandBuffer = b->rb_cmd};
    VkSubmitInfo2 si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
                        .commandBufferInfoCount = 1,
                        .pCommandBufferInfos = &cbi};
    OAK_VK_TRY(vk, vkQueueSubmit2(vk->queue, 1, &si, b->rb_fence));
    oak_result r = _oak_vk_wait_fence(vk, b->rb_fence, __FILE__, __LINE__);
    if (r) return r;
    memcpy(out, b->readback.mapped, bytes);
    return OAK_OK;
}

static oak_result _oak_vk_read_stream_counts(void *self, uint32_t per_lod[OAK_STREAM_LODS],
                                             uint32_t *per_stream, uint32_t max_streams,
                                             uint32_t *split) {
    return _oak_vk_instcull_read(&((_oak_vk_backend *)self)->vk, per_lod, per_stream, max_streams,
                                 split);
}

static oak_result _oak_vk_read_pixels(void *self, uint8_t *rgba, size_t size) {
    _oak_vk_backend *b = self;
    _oak_vk *vk = &b->vk;
    uint64_t bytes = (uint64_t)vk->pic_width * vk->pic_height * 4;
    if (!rgba || size < bytes)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "vulkan: read_pixels needs %llu bytes, got %zu", (unsigned long long)bytes,
                         size);
    if (vk->lost) return oak_error(OAK_ERROR_DEVICE, "vulkan: the device was lost");
    if (vk->last_slot < 0 || !vk->frames[vk->last_slot].output_valid ||
        vk->frames[vk->last_slot].output.size < bytes)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: no frame rendered at this size");
    _oak_vk_frame *f = &vk->frames[vk->last_slot];
    oak_result r = readback_begin(b, bytes);
    if (r) return r;
    VkBufferCopy c = {0, 0, bytes};
    vkCmdCopyBuffer(b->rb_cmd, f->output.buffer, b->readback.buffer, 1, &c);
    return readback_end(b, rgba, bytes);
}

/* A target image of the last frame (w x h texels, `texel` bytes each, the
   aspect's) into dst: its tracked state gives the barrier and layout after
   the frame that wrote it, earlier on the same queue. `what` names the
   caller; dst is checked by it. */
static oak_result read_image(_oak_vk_backend *b, const char *what, oak_target_id target,
                             VkImage image, VkImageAspectFlags aspect, uint32_t w, uint32_t h,
                             uint32_t texel, void *dst) {
    _oak_vk *vk = &b->vk;
    if (vk->lost) return oak_error(OAK_ERROR_DEVICE, "vulkan: the device was lost");
    if (vk->last_slot < 0)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: %s: no frame rendered", what);
    uint64_t bytes = (uint64_t)w * h * texel;
    oak_result r = readback_begin(b, bytes);
    if (r) return r;
    _oak_vk_track_use(vk, b->rb_cmd, target, OAK_USE_COPY_READ);
    VkBufferImageCopy c = {.imageSubresource = {aspect, 0, 0, 1}, .imageExtent = {w, h, 1}};
    vkCmdCopyImageToBuffer(b->rb_cmd, image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                           b->readback.buffer, 1, &c);
    return readback_end(b, dst, bytes);
}

/* The HDR image of the last frame (a reflection probe bake's face). */
static oak_result _oak_vk_read_hdr(void *self, float *rgba, size_t count) {
    _oak_vk_backend *b = self;
    _oak_vk *vk = &b->vk;
    uint64_t texels = (uint64_t)vk->width * vk->height;
    if (!rgba || count < texels * 4)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: read_hdr needs %llu floats, got %zu",
                         (unsigned long long)(texels * 4), count);
    return read_image(b, "read_hdr", OAK_TARGET_HDR, vk->hdr.image, VK_IMAGE_ASPECT_COLOR_BIT,
                      vk->width, vk->height, 16, rgba);
}

/* The sampled cascade atlas of the last frame (test hook). */
static oak_result _oak_vk_read_shadow_map(void *self, float *depth, size_t count) {
    _oak_vk_backend *b = self;
    _oak_vk *vk = &b->vk;
    uint64_t texels = (uint64_t)vk->shadow.width * vk->shadow.height;
    if (!depth || !texels || count < texels)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "vulkan: read_shadow_map needs %llu floats, got %zu",
                         (unsigned long long)texels, count);
    return read_image(b, "read_shadow_map", OAK_TARGET_SHADOW_MAP, vk->shadow.image,
                      VK_IMAGE_ASPECT_DEPTH_BIT, vk->shadow.width, vk->shadow.height, 4, depth);
}

/* GPU times of the newest frame whose timestamps are ready: the last one if
 * it has finished, else the one before. Never waits, so asking every frame
 * keeps frames in flight (GPU figures then lag a frame). */
static bool _oak_vk_stamps(_oak_vk *vk, uint32_t slot, uint64_t *stamps) {
    _oak_vk_frame *f = &vk->frames[slot];
    return vk->timestamps && !vk->lost && f->query_count > 1 &&
           vkGetQueryPoolResults(vk->device, f->queries, 0, f->query_count,
                                 OAK_VK_MAX_TIMESTAMPS * sizeof(uint64_t), stamps, sizeof(uint64_t),
                                 VK_QUERY_RESULT_64_BIT) == VK_SUCCESS;
}

static uint32_t _oak_vk_timings(void *self, oak_stage_timing *out, uint32_t max) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    if (vk->last_slot < 0 || !out || !max) return 0;
    uint32_t slot = (uint32_t)vk->last_slot;
    _oak_vk_frame *f = &vk->frames[slot];
    uint32_t n = 0;
    /* record: the host's own recording; slotwait: the wait for the slot's
       fence before it (a frame opened by a resize outside sync and render
       waited outside record's clock: the difference is kept at 0 or more) */
    double cpu = f->cpu_ms[0] + f->cpu_ms[1];
    /* Reading the stamps asks for no wait, yet a driver may wait for the
       device there (lavapipe does: 20 s a frame of the meadow at 320x180
       where the fence waits 0.01 ms); that time counts as slotwait too. */
    uint64_t q0 = oak_time_ns();
    uint64_t stamps[OAK_VK_MAX_TIMESTAMPS];
    bool gpu = _oak_vk_stamps(vk, slot, stamps);
    if (!gpu && vk->frame_count > 1) {
        slot = (slot + OAK_VK_FRAMES - 1) % OAK_VK_FRAMES;
        gpu = !(vk->recording && slot == vk->slot) && _oak_vk_stamps(vk, slot, stamps);
    }
    double query_ms = oak_ms_since(q0);
    out[n++] = (oak_stage_timing){"record", cpu > f->wait_ms ? cpu - f->wait_ms : 0.0, -1.0};
    if (n < max) out[n++] = (oak_stage_timing){"slotwait", f->wait_ms + query_ms, -1.0};
    if (!gpu) return n;
    f = &vk->frames[slot];
    double total = 0;
    for (uint32_t k = 0; k + 1 < f->query_count && n < max; k++) {
        double ms = (double)(stamps[k + 1] - stamps[k]) * vk->props.limits.timestampPeriod * 1e-6;
        total += ms;
        out[n++] = (oak_stage_timing){f->query_names[k], 0.0, ms};
    }
    if (n < max) out[n++] = (oak_stage_timing){"gpu_frame", 0.0, total};
    return n;
}

void oak_vk_debug_stats(void *self, oak_vk_stats *out) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    memset(out, 0, sizeof *out);
    out->buffers = vk->live_buffers;
    out->images = vk->live_images;
    out->views = vk->live_views;
    out->suballocations = vk->live_allocs;
    out->device_bytes = vk->device_bytes;
    for (uint32_t i = 0; i < vk->block_count; i++) out->blocks += vk->blocks[i].memory != 0;
    out->vertex_pool_used = vk->vertex_ranges.used;
    out->index_pool_used = vk->index_ranges.used;
    out->texture_classes = vk->class_count;
    out->bindless = vk->bindless;
    out->bindless_textures = vk->bindless_live;
    out->multi_draw = vk->multi_draw;
    out->validation = vk->validation;
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++) out->vis_commands += vk->vis_count[g];
    for (uint32_t g = 0; g < OAK_VK_SHADOW_GROUPS; g++) /* every cascade, static and movers */
        out->shadow_commands += vk->shadow_count[g];
}

void oak_vk_debug_fail_alloc(void *self, int32_t n) {
    ((_oak_vk_backend *)self)->vk.fail_alloc_in = n;
}

void oak_vk_debug_lose_device(void *self) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    _oak_vk_wait_all(vk); /* what was in flight finishes; nothing new starts */
    _oak_vk_fail(vk, VK_ERROR_DEVICE_LOST, "oak_vk_debug_lose_device", __FILE__, __LINE__);
}

static const char *_oak_vk_presentation(void *self) {
    _oak_vk *vk = &((_oak_vk_backend *)self)->vk;
    if (!vk->surface) return NULL;
    if (!vk->swap.words[0]) /* before the first present: what it will be */
        snprintf(vk->swap.words, sizeof vk->swap.words, "swapchain %s",
                 vk->swap.window->no_vsync ? "mailbox or immediate" : "fifo");
    return vk->swap.words;
}

static oak_result _oak_vk_present_vt(void *self, uint32_t w, uint32_t h,
                                     const oak_present_panel *panel, uint8_t *capture) {
    return _oak_vk_present(&((_oak_vk_backend *)self)->vk, w, h, panel, capture);
}

static const oak_backend k_vulkan = {
    .name = "vulkan",
    .probe = _oak_vk_probe,
    .create = _oak_vk_create,
    .destroy = _oak_vk_destroy,
    .device_name = _oak_vk_device_name,
    .resize = _oak_vk_resize,
    .sync = _oak_vk_sync,
    .render = _oak_vk_render_vt,
    .read_pixels = _oak_vk_read_pixels,
    .read_stream_counts = _oak_vk_read_stream_counts,
    .read_hdr = _oak_vk_read_hdr,
    .read_shadow_map = _oak_vk_read_shadow_map,
    .timings = _oak_vk_timings,
    .caps = OAK_CAP_ALL_PASSES | OAK_CAP_PIXELS | OAK_CAP_GPU_TIMINGS | OAK_CAP_SHADOW_CACHE |
            OAK_CAP_PROBES | OAK_CAP_GPU_STREAMS | OAK_CAP_GPU_OCCLUSION | OAK_CAP_AERIAL,
    .read_light_grid = _oak_vk_read_light_grid,
    .shadow_stats = _oak_vk_shadow_stats,
    .blend_stats = _oak_vk_blend_stats,
    .read_sky = _oak_vk_read_sky,
    .read_exposure = _oak_vk_read_exposure,
    .occlusion_stats = _oak_vk_occlusion_stats,
    .meshlet_stats = _oak_vk_meshlet_stats,
    .upload_stats = _oak_vk_upload_stats,
    .presentation = _oak_vk_presentation,
    .present = _oak_vk_present_vt,
};

const oak_backend *oak_backend_vulkan(void) {
    return &k_vulkan;
}
