/* One frame on the GPU: the slot's fence, command buffer and staging space;
 * the per-frame buffers (view, lights, draw records, indirect commands); and
 * the pass list, top to bottom:
 *   upload   staged asset copies land before anything reads them
 *   lights   compute: the lamps listed per grid cell
 *   shadow   the key light's casters into its reversed-Z depth map
 *   raster   visibility buffer: depth + (draw, triangle) ids, indirect draws
 *   resolve  compute: shade each pixel once from its id
 *   post     compute: exposure, ACES, sRGB, dither, then FXAA */
#include <string.h>

#include "backend/gpu/gpu_records.h"
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

static void _oak_vk_stamp(_oak_vk *vk, _oak_vk_frame *f, const char *name) {
    if (!vk->timestamps || f->query_count >= OAK_VK_MAX_TIMESTAMPS) return;
    /* query k closes the stage named k - 1 */
    if (f->query_count) f->query_names[f->query_count - 1] = name;
    vkCmdWriteTimestamp2(f->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, f->queries,
                         f->query_count++);
}

/* Waits for a slot's last submission; a hang past the timeout counts as a
 * lost device so callers stop instead of blocking forever. */
static oak_result _oak_vk_wait(_oak_vk *vk, _oak_vk_frame *f) {
    if (!f->submitted) return OAK_OK;
    VkResult r = vkWaitForFences(vk->device, 1, &f->fence, VK_TRUE, OAK_VK_FENCE_TIMEOUT);
    if (r == VK_TIMEOUT) r = VK_ERROR_DEVICE_LOST;
    if (r != VK_SUCCESS) return _oak_vk_fail(vk, r, "vkWaitForFences", __FILE__, __LINE__);
    f->submitted = false;
    return OAK_OK;
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
    oak_result res = _oak_vk_wait(vk, f);
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
       frame's copies overwrite (their assets were freed): copies wait. */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, 0, VK_PIPELINE_STAGE_2_COPY_BIT,
                    VK_ACCESS_2_TRANSFER_WRITE_BIT);
    vk->recording = true;
    vk->frame_count++;
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

/* ---- the frame's records --------------------------------------------- */

static void _oak_vk_mat4(float out[16], const mat4 m) {
    memcpy(out, m, 16 * sizeof(float));
}

static void _oak_vk_normal_matrix(float out[16], mat4 world) {
    mat3 m3, inv;
    glm_mat4_pick3(world, m3);
    glm_mat3_inv(m3, inv);
    /* inverse transpose, stored as a mat4 whose 3x3 GLSL reads with mat3() */
    memset(out, 0, 16 * sizeof(float));
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) out[c * 4 + r] = inv[r][c];
    out[15] = 1.0f;
}

/* Per-draw facts gathered on the CPU side; the mapped GPU buffers are only
 * ever written, front to back (on a discrete GPU they are write-combined
 * memory across the bus, where a read costs a round trip). */
typedef struct _oak_vk_draw_info {
    uint32_t group; /* pipeline group (bit 31: two-sided BLEND), UINT32_MAX: none */
    uint32_t index_count, first_index, first_vertex;
    uint32_t material, flags;
} _oak_vk_draw_info;

typedef struct _oak_vk_record_job {
    const oak_draw_list *list;
    const _oak_vk_draw_info *info;
    oak_gpu_draw *out;
} _oak_vk_record_job;

static void _oak_vk_record_draws(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    _oak_vk_record_job *j = user;
    for (uint32_t i = begin; i < end; i++) {
        oak_gpu_draw d;
        _oak_vk_mat4(d.world, j->list->world[i]);
        _oak_vk_normal_matrix(d.normal, j->list->world[i]);
        const _oak_vk_draw_info *in = &j->info[i];
        d.info[0] = in->material;
        d.info[1] = in->first_index;
        d.info[2] = in->first_vertex;
        d.info[3] = in->flags;
        memcpy(&j->out[i], &d, sizeof d);
    }
}

/* Builds draw records and indirect commands for the view's draws and the
 * key light's casters, grouped by pipeline. Consecutive draws of the same
 * mesh in a group (the frontend batches by material and mesh) become one
 * instanced command: gl_InstanceIndex is then still the draw's index. */
static oak_result _oak_vk_build_draws(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    uint32_t nd = v->draws.count, nc = v->shadows ? v->casters.count : 0;
    uint32_t n = nd + nc;
    oak_result r;
    if ((r = _oak_vk_upload_reserve(vk, &f->draws, (uint64_t)(n ? n : 1) * sizeof(oak_gpu_draw),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)))
        return r;
    if ((r = _oak_vk_upload_reserve(vk, &f->indirect,
                                    (uint64_t)(n ? n : 1) * sizeof(VkDrawIndexedIndirectCommand),
                                    VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT)))
        return r;
    if (!OAK_GROW(vk->infos, vk->infos_capacity, n + 1) ||
        !OAK_GROW(vk->cmds, vk->cmds_capacity, n + 1) ||
        !OAK_GROW(vk->keys, vk->keys_capacity, nd + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: draw scratch");
    _oak_vk_draw_info *info = vk->infos;
    VkDrawIndexedIndirectCommand *cmds = vk->cmds;
    enum { G_BLEND = OAK_VK_VIS_GROUPS + 2, G_COUNT, TWO_SIDED = 0x80000000u };
    uint32_t counts[G_COUNT] = {0};
    const oak_draw_list *lists[2] = {&v->draws, &v->casters};
    for (uint32_t li = 0; li < 2; li++) {
        const oak_draw_list *L = lists[li];
        uint32_t count = li ? nc : nd, base = li ? nd : 0;
        const _oak_vk_mesh *mesh = NULL;
        uint32_t ms = 0;
        for (uint32_t i = 0; i < count; i++) {
            /* draws come batched by material and mesh: a run looks up once */
            if (!i || L->mesh[i].id != L->mesh[i - 1].id) {
                if ((r = _oak_vk_sync_mesh(vk, L->mesh[i], &mesh))) return r;
            }
            if (!i || L->material[i].id != L->material[i - 1].id) {
                if ((r = _oak_vk_sync_material(vk, L->material[i], &ms))) return r;
            }
            const _oak_vk_material *md = &vk->materials[ms];
            bool masked = md->alpha_mode == OAK_ALPHA_MASK;
            bool two = md->double_sided;
            uint32_t g =
                li ? OAK_VK_VIS_GROUPS + (masked ? 1 : 0) : (masked ? 2 : 0) + (two ? 1 : 0);
            /* BLEND surfaces skip the visibility buffer: forward, far to near */
            if (!li && md->alpha_mode == OAK_ALPHA_BLEND) {
                g = G_BLEND;
                const float *c = mesh->center;
                vec4 wc = {0, 0, 0, 1}, cc = {c[0], c[1], c[2], 1};
                glm_mat4_mulv(L->world[i], cc, wc);
                const float *cam = v->camera_pos;
                vk->keys[i] = (wc[0] - cam[0]) * (wc[0] - cam[0]) +
                              (wc[1] - cam[1]) * (wc[1] - cam[1]) +
                              (wc[2] - cam[2]) * (wc[2] - cam[2]);
            }
            if (!mesh->index_count) g = UINT32_MAX; /* nothing to draw */
            if (g != UINT32_MAX) counts[g]++;
            info[base + i] = (_oak_vk_draw_info){.group = g == G_BLEND && two ? g | TWO_SIDED : g,
                                                 .index_count = mesh->index_count,
                                                 .first_index = (uint32_t)mesh->index_first,
                                                 .first_vertex = (uint32_t)mesh->vertex_first,
                                                 .material = ms,
                                                 .flags = L->flags ? L->flags[i] : 0};
        }
        _oak_vk_record_job job = {L, info + base, (oak_gpu_draw *)f->draws.mapped + base};
        oak_parallel_for(count, 1024, _oak_vk_record_draws, &job);
    }
    uint32_t first[G_COUNT], at[G_COUNT];
    uint32_t sum = 0;
    for (uint32_t g = 0; g < G_COUNT; g++) {
        first[g] = at[g] = sum;
        sum += counts[g];
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t g = info[i].group & ~TWO_SIDED;
        if (g == (UINT32_MAX & ~TWO_SIDED)) continue;
        VkDrawIndexedIndirectCommand *prev = at[g] > first[g] ? &cmds[at[g] - 1] : NULL;
        if (g != G_BLEND && prev && prev->firstInstance + prev->instanceCount == i &&
            prev->firstIndex == info[i].first_index &&
            prev->vertexOffset == (int32_t)info[i].first_vertex &&
            prev->indexCount == info[i].index_count) {
            prev->instanceCount++;
            continue;
        }
        cmds[at[g]++] =
            (VkDrawIndexedIndirectCommand){.indexCount = info[i].index_count,
                                           .instanceCount = 1,
                                           .firstIndex = info[i].first_index,
                                           .vertexOffset = (int32_t)info[i].first_vertex,
                                           .firstInstance = i};
    }
    /* Far to near, ties in draw order: a stable insertion sort, as the CPU
       backend does (blend draws are few). */
    VkDrawIndexedIndirectCommand *bl = cmds + first[G_BLEND];
    for (uint32_t i = 1; i < counts[G_BLEND]; i++) {
        VkDrawIndexedIndirectCommand x = bl[i];
        uint32_t j = i;
        while (j > 0 && vk->keys[bl[j - 1].firstInstance] < vk->keys[x.firstInstance]) {
            bl[j] = bl[j - 1];
            j--;
        }
        bl[j] = x;
    }
    if (sum) memcpy(f->indirect.mapped, cmds, (size_t)sum * sizeof *cmds);
    vk->blend_first = first[G_BLEND];
    vk->blend_count = at[G_BLEND] - first[G_BLEND];
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++) {
        vk->vis_first[g] = first[g];
        vk->vis_count[g] = at[g] - first[g];
    }
    for (uint32_t g = 0; g < 2; g++) {
        vk->shadow_first[g] = first[OAK_VK_VIS_GROUPS + g];
        vk->shadow_count[g] = at[OAK_VK_VIS_GROUPS + g] - first[OAK_VK_VIS_GROUPS + g];
    }
    vk->draw_count = nd;
    vk->caster_count = nc;
    return OAK_OK;
}

static oak_result _oak_vk_fill_view(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    oak_result r;
    uint32_t nl = v->light_count < OAK_MAX_LIGHTS ? v->light_count : OAK_MAX_LIGHTS;
    if ((r = _oak_vk_upload_reserve(vk, &f->view, sizeof(oak_gpu_view),
                                    VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT)) ||
        (r = _oak_vk_upload_reserve(vk, &f->lights, (uint64_t)(nl ? nl : 1) * sizeof(oak_gpu_light),
                                    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT)))
        return r;
    oak_gpu_light *gl = f->lights.mapped;
    for (uint32_t i = 0; i < nl; i++) _oak_gpu_light_fill(&gl[i], &v->lights[i]);
    _oak_gpu_view_fill(f->view.mapped, v, vk->width, vk->height, nl, vk->shadow.width);
    return OAK_OK;
}

/* ---- passes ------------------------------------------------------------ */

static void _oak_vk_draw_group(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, uint32_t pipe,
                               uint32_t first, uint32_t count) {
    if (!count) return;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, vk->pipes[pipe]);
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    if (vk->multi_draw) {
        vkCmdDrawIndexedIndirect(cmd, f->indirect.buffer, (uint64_t)first * stride, count, stride);
    } else {
        for (uint32_t i = 0; i < count; i++)
            vkCmdDrawIndexedIndirect(cmd, f->indirect.buffer, (uint64_t)(first + i) * stride, 1,
                                     stride);
    }
}

static void _oak_vk_pass_shadow(_oak_vk *vk, _oak_vk_frame *f, VkCommandBuffer cmd) {
    _oak_vk_image *s = &vk->shadow;
    if (!vk->caster_count) {
        if (s->layout != VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
            _oak_vk_image_barrier(
                cmd, s, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_2_NONE, 0,
                (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT),
                VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
        return;
    }
    s->layout = VK_IMAGE_LAYOUT_UNDEFINED; /* cleared anyway */
    _oak_vk_image_barrier(
        cmd, s, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT), 0,
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
        VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
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
    _oak_vk_image_barrier(
        cmd, s, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT, VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
        (VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT),
        VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
}

static void _oak_vk_pass_raster(_oak_vk *vk, _oak_vk_frame *f, VkCommandBuffer cmd) {
    /* Last frame's resolve read the ids; both targets are cleared. */
    vk->ids.layout = VK_IMAGE_LAYOUT_UNDEFINED;
    vk->depth.layout = VK_IMAGE_LAYOUT_UNDEFINED;
    _oak_vk_image_barrier(cmd, &vk->ids, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                          VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0,
                          VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
                          VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    _oak_vk_image_barrier(
        cmd, &vk->depth, VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
        VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
        VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT | VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
        VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT |
            VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT);
    VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = vk->ids.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE,
                                       .clearValue = {.color = {.uint32 = {0, 0, 0, 0}}}};
    VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = vk->depth.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE, /* blend tests it */
                                       .clearValue = {.depthStencil = {0.0f, 0}}};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {vk->width, vk->height}},
                          .layerCount = 1,
                          .colorAttachmentCount = 1,
                          .pColorAttachments = &color,
                          .pDepthAttachment = &depth};
    vkCmdBeginRendering(cmd, &ri);
    /* negative height: clip y = +1 is the top row, as on the CPU backend */
    VkViewport vp = {0, (float)vk->height, (float)vk->width, -(float)vk->height, 0, 1};
    VkRect2D sc = {{0, 0}, {vk->width, vk->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    for (uint32_t g = 0; g < OAK_VK_VIS_GROUPS; g++)
        _oak_vk_draw_group(vk, cmd, f, OAK_VK_PIPE_VIS + g, vk->vis_first[g], vk->vis_count[g]);
    vkCmdEndRendering(cmd);
    _oak_vk_image_barrier(
        cmd, &vk->ids, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
        VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
}

/* BLEND surfaces over the resolved HDR frame, depth-tested against the
 * opaque depth without writing it; one draw at a time, far to near. */
static void _oak_vk_pass_blend(_oak_vk *vk, _oak_vk_frame *f, VkCommandBuffer cmd) {
    if (!vk->blend_count) return;
    if (!vk->blend_ok) {
        if (!vk->blend_warned)
            oak_log_warn("vulkan: %s cannot blend into RGBA32F; BLEND surfaces are not drawn",
                         vk->props.deviceName);
        vk->blend_warned = true;
        return;
    }
    _oak_vk_image_barrier(
        cmd, &vk->hdr, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
        VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
        VK_ACCESS_2_COLOR_ATTACHMENT_READ_BIT | VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                    VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_EARLY_FRAGMENT_TESTS_BIT |
                        VK_PIPELINE_STAGE_2_LATE_FRAGMENT_TESTS_BIT,
                    VK_ACCESS_2_DEPTH_STENCIL_ATTACHMENT_READ_BIT);
    VkRenderingAttachmentInfo color = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = vk->hdr.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
    VkRenderingAttachmentInfo depth = {.sType = VK_STRUCTURE_TYPE_RENDERING_ATTACHMENT_INFO,
                                       .imageView = vk->depth.view,
                                       .imageLayout = VK_IMAGE_LAYOUT_DEPTH_ATTACHMENT_OPTIMAL,
                                       .loadOp = VK_ATTACHMENT_LOAD_OP_LOAD,
                                       .storeOp = VK_ATTACHMENT_STORE_OP_STORE};
    VkRenderingInfo ri = {.sType = VK_STRUCTURE_TYPE_RENDERING_INFO,
                          .renderArea = {{0, 0}, {vk->width, vk->height}},
                          .layerCount = 1,
                          .colorAttachmentCount = 1,
                          .pColorAttachments = &color,
                          .pDepthAttachment = &depth};
    vkCmdBeginRendering(cmd, &ri);
    VkViewport vp = {0, (float)vk->height, (float)vk->width, -(float)vk->height, 0, 1};
    VkRect2D sc = {{0, 0}, {vk->width, vk->height}};
    vkCmdSetViewport(cmd, 0, 1, &vp);
    vkCmdSetScissor(cmd, 0, 1, &sc);
    vkCmdBindIndexBuffer(cmd, vk->indices.buffer, 0, VK_INDEX_TYPE_UINT32);
    const VkDrawIndexedIndirectCommand *cmds = vk->cmds; /* the CPU copy: never read mapped */
    uint32_t bound = UINT32_MAX;
    for (uint32_t k = 0; k < vk->blend_count; k++) {
        uint32_t i = cmds[vk->blend_first + k].firstInstance;
        uint32_t pipe =
            vk->infos[i].group & 0x80000000u ? OAK_VK_PIPE_BLEND_2SIDED : OAK_VK_PIPE_BLEND;
        if (pipe != bound) vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, vk->pipes[pipe]);
        bound = pipe;
        vkCmdDrawIndexedIndirect(cmd, f->indirect.buffer,
                                 (uint64_t)(vk->blend_first + k) * sizeof *cmds, 1, sizeof *cmds);
    }
    vkCmdEndRendering(cmd);
    _oak_vk_image_barrier(
        cmd, &vk->hdr, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COLOR_ATTACHMENT_OUTPUT_BIT,
        VK_ACCESS_2_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
        VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
}

static void _oak_vk_dispatch(_oak_vk *vk, VkCommandBuffer cmd, uint32_t pipe) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipes[pipe]);
    vkCmdDispatch(cmd, (vk->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                  (vk->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
}

oak_result _oak_vk_render(_oak_vk *vk, const oak_render_view *v) {
    uint64_t t0 = oak_time_ns();
    oak_result r = _oak_vk_frame_begin(vk);
    if (r) return r;
    _oak_vk_frame *f = &vk->frames[vk->slot];
    VkCommandBuffer cmd = f->cmd;
    if ((r = _oak_vk_build_draws(vk, f, v)) || (r = _oak_vk_flush_materials(vk)) ||
        (r = _oak_vk_fill_view(vk, f, v))) {
        /* The half-recorded buffer is reset next frame; what it retired may
           still be read by the frame in flight, so let that finish first. */
        vk->recording = false;
        vkEndCommandBuffer(cmd);
        _oak_vk_wait_all(vk);
        return r;
    }
    _oak_vk_write_descriptors(vk, f);
    uint64_t t1 = oak_time_ns();

    /* upload: staged copies (and writes by the host) before any shader reads */
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COPY_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
                    VK_ACCESS_2_TRANSFER_WRITE_BIT | VK_ACCESS_2_HOST_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                    VK_ACCESS_2_SHADER_READ_BIT | VK_ACCESS_2_INDEX_READ_BIT |
                        VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_UNIFORM_READ_BIT);
    if (vk->dummy_array.layout != VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL)
        _oak_vk_image_barrier(cmd, &vk->dummy_array, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                              VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                              VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, vk->pipe_layout, 0, 1, &f->set, 0,
                            NULL);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipe_layout, 0, 1, &f->set, 0,
                            NULL);
    _oak_vk_stamp(vk, f, "upload");

    /* lights: each cell's lamps (vk_pass_lightgrid.c) */
    _oak_vk_pass_lightgrid(vk, f, cmd, v);
    _oak_vk_stamp(vk, f, "lights");

    _oak_vk_pass_shadow(vk, f, cmd);
    _oak_vk_stamp(vk, f, "shadow");

    _oak_vk_pass_raster(vk, f, cmd);
    _oak_vk_stamp(vk, f, "raster");

    /* resolve: the HDR target is written whole */
    vk->hdr.layout = VK_IMAGE_LAYOUT_UNDEFINED;
    _oak_vk_image_barrier(
        cmd, &vk->hdr, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, 0,
        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT, VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    _oak_vk_dispatch(vk, cmd, OAK_VK_PIPE_RESOLVE);
    _oak_vk_stamp(vk, f, "resolve");

    /* blend: BLEND surfaces forward-shaded over the resolved frame */
    _oak_vk_pass_blend(vk, f, cmd);
    _oak_vk_stamp(vk, f, "blend");

    /* post: tone map to bytes, then FXAA into this slot's output */
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    _oak_vk_dispatch(vk, cmd, OAK_VK_PIPE_POST);
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_READ_BIT);
    _oak_vk_dispatch(vk, cmd, OAK_VK_PIPE_FXAA);
    _oak_vk_stamp(vk, f, "post");
    /* read_pixels copies the output later; make the writes visible to it */
    _oak_vk_barrier(cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT, VK_PIPELINE_STAGE_2_COPY_BIT,
                    VK_ACCESS_2_TRANSFER_READ_BIT);

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
    vk->last_slot = (int32_t)vk->slot;
    f->cpu_ms[0] = (double)(t1 - t0) * 1e-6 + vk->sync_ms;
    f->cpu_ms[1] = (double)(oak_time_ns() - t1) * 1e-6;
    vk->sync_ms = 0;
    return OAK_OK;
}
