/* Assets on the GPU: every mesh in one vertex pool (positions + attributes)
 * and one index pool, textures as layers of 2D arrays grouped by size class
 * or, where the device has descriptor indexing, each its own image in one
 * runtime array (bindless), materials as records in one storage buffer
 * indexed by asset slot. Each is uploaded through the frame's staging buffer
 * when its version moves on. */
#include <math.h>
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "vk_internal.h"

#define OAK_VK_POOL_VERTICES   (64u << 10)
#define OAK_VK_POOL_INDICES    (256u << 10)
#define OAK_VK_SWEEP_PER_FRAME 64 /* records checked for dead assets each frame */

static const VkBufferUsageFlags k_pool_usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT;

oak_result _oak_vk_resources_init(_oak_vk *vk) {
    oak_result r;
    if ((r = _oak_vk_buffer_create(vk, &vk->positions, (uint64_t)OAK_VK_POOL_VERTICES * 16,
                                   k_pool_usage, OAK_VK_MEM_DEVICE)) ||
        (r = _oak_vk_buffer_create(vk, &vk->attributes,
                                   (uint64_t)OAK_VK_POOL_VERTICES * sizeof(oak_gpu_vertex),
                                   k_pool_usage, OAK_VK_MEM_DEVICE)) ||
        (r = _oak_vk_buffer_create(vk, &vk->indices, (uint64_t)OAK_VK_POOL_INDICES * 4,
                                   k_pool_usage | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                                   OAK_VK_MEM_DEVICE)) ||
        (r = _oak_vk_buffer_create(vk, &vk->material_buf, 64 * sizeof(oak_gpu_material),
                                   k_pool_usage, OAK_VK_MEM_DEVICE)) ||
        (r = _oak_vk_image_create(vk, &vk->dummy_array, VK_FORMAT_R8G8B8A8_UNORM, 1, 1, 1, 1,
                                  VK_IMAGE_USAGE_SAMPLED_BIT, true)))
        return r;
    if (vk->bindless && (r = _oak_vk_image_create(vk, &vk->dummy_image, VK_FORMAT_R8G8B8A8_UNORM, 1,
                                                  1, 1, 1, VK_IMAGE_USAGE_SAMPLED_BIT, false)))
        return r;
    _oak_vk_ranges_init(&vk->vertex_ranges, OAK_VK_POOL_VERTICES);
    _oak_vk_ranges_init(&vk->index_ranges, OAK_VK_POOL_INDICES);
    return OAK_OK;
}

void _oak_vk_resources_release(_oak_vk *vk) {
    _oak_vk_buffer_destroy(vk, &vk->positions);
    _oak_vk_buffer_destroy(vk, &vk->attributes);
    _oak_vk_buffer_destroy(vk, &vk->indices);
    _oak_vk_buffer_destroy(vk, &vk->material_buf);
    _oak_vk_image_destroy(vk, &vk->dummy_array);
    _oak_vk_image_destroy(vk, &vk->dummy_image);
    for (uint32_t i = 0; i < vk->texture_capacity; i++)
        _oak_vk_image_destroy(vk, &vk->textures[i].image);
    oak_free(vk->bindless_info);
    oak_free(vk->bindless_free);
    vk->bindless_info = NULL;
    vk->bindless_free = NULL;
    vk->bindless_high = vk->bindless_live = vk->bindless_free_count = 0;
    vk->bindless_free_capacity = 0;
    for (uint32_t i = 0; i < vk->class_count; i++) {
        _oak_vk_image_destroy(vk, &vk->classes[i].image);
        oak_free(vk->classes[i].free_layers);
    }
    vk->class_count = 0;
    _oak_vk_ranges_release(&vk->vertex_ranges);
    _oak_vk_ranges_release(&vk->index_ranges);
    oak_free(vk->meshes);
    oak_free(vk->textures);
    oak_free(vk->materials);
    oak_free(vk->material_dirty);
    vk->meshes = NULL;
    vk->textures = NULL;
    vk->materials = NULL;
    vk->material_dirty = NULL;
    vk->mesh_capacity = vk->texture_capacity = vk->material_capacity = 0;
}

static void _oak_vk_copy(_oak_vk *vk, VkBuffer dst, uint64_t dst_off, uint64_t src_off,
                         uint64_t size) {
    _oak_vk_frame *f = &vk->frames[vk->slot];
    VkBufferCopy c = {src_off, dst_off, size};
    vkCmdCopyBuffer(f->cmd, f->staging.buffer, dst, 1, &c);
}

/* ---- meshes -------------------------------------------------------------- */

static void _oak_vk_mesh_free(_oak_vk *vk, _oak_vk_mesh *m) {
    if (m->id) {
        _oak_vk_ranges_free(&vk->vertex_ranges, m->vertex_first, m->vertex_count);
        _oak_vk_ranges_free(&vk->index_ranges, m->index_first,
                            m->index_taken ? m->index_taken : m->index_count);
        _oak_vk_meshcull_free(vk, m);
    }
    memset(m, 0, sizeof *m);
}

/* Takes count items from a pool, doubling the pool's buffers when full. */
static oak_result _oak_vk_pool_take(_oak_vk *vk, _oak_vk_ranges *ranges, uint32_t count,
                                    bool vertices, uint64_t *first) {
    uint64_t at = _oak_vk_ranges_alloc(ranges, count, 1);
    while (at == UINT64_MAX) {
        uint64_t total = ranges->total * 2;
        if (total < ranges->total + count) total = ranges->total + count;
        if (vertices && total * sizeof(oak_gpu_vertex) > vk->props.limits.maxStorageBufferRange)
            return oak_error(OAK_ERROR_LIMIT, "vulkan: vertex pool would exceed %u bytes",
                             vk->props.limits.maxStorageBufferRange);
        if (!vertices && total * 4 > vk->props.limits.maxStorageBufferRange)
            return oak_error(OAK_ERROR_LIMIT, "vulkan: index pool would exceed %u bytes",
                             vk->props.limits.maxStorageBufferRange);
        oak_result r;
        if (vertices) {
            if ((r = _oak_vk_buffer_grow(vk, &vk->positions, total * 16, k_pool_usage,
                                         OAK_VK_MEM_DEVICE, true)) ||
                (r = _oak_vk_buffer_grow(vk, &vk->attributes, total * sizeof(oak_gpu_vertex),
                                         k_pool_usage, OAK_VK_MEM_DEVICE, true)))
                return r;
        } else if ((r = _oak_vk_buffer_grow(vk, &vk->indices, total * 4,
                                            k_pool_usage | VK_BUFFER_USAGE_INDEX_BUFFER_BIT,
                                            OAK_VK_MEM_DEVICE, true))) {
            return r;
        }
        if (!_oak_vk_ranges_grow(ranges, total))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: pool ranges");
        at = _oak_vk_ranges_alloc(ranges, count, 1);
    }
    *first = at;
    return OAK_OK;
}

/* The mesh's positions, then its previous pose's (a palette's rest pose,
   which the skin pass overwrites), into its range of the position pool. */
static oak_result _oak_vk_send_positions(_oak_vk *vk, const _oak_vk_mesh *m, const oak_mesh_data *d,
                                         bool palette) {
    uint32_t vc = d->vertex_count, vn = vc + m->prev;
    uint64_t off;
    oak_result r = _oak_vk_stage(vk, NULL, (uint64_t)vn * 16, 16, &off);
    if (r) return r;
    float *pos = (float *)((uint8_t *)vk->frames[vk->slot].staging.mapped + off);
    for (uint32_t i = 0; i < vn; i++) {
        const float *p = i < vc    ? d->positions + i * 3
                         : palette ? d->positions + (i - vc) * 3 /* the skin pass writes it */
                                   : d->prev_positions + (i - vc) * 3;
        pos[i * 4 + 0] = p[0];
        pos[i * 4 + 1] = p[1];
        pos[i * 4 + 2] = p[2];
        pos[i * 4 + 3] = 1.0f;
    }
    _oak_vk_copy(vk, vk->positions.buffer, m->vertex_first * 16, off, (uint64_t)vn * 16);
    vk->up_now.mesh_bytes += (uint64_t)vn * 16;
    return OAK_OK;
}

/* A mesh posed in place (oak_mesh_update_vertices with positions alone)
   whose copy holds its shape (attributes, indices, no meshlets: a posed
   mesh is drawn uncut) and a previous pose's room: only its positions
   move. The range is rewritten in place; the upload row's barrier makes
   the copy wait for frames still reading it, as for any pool range. */
static bool _oak_vk_positions_only(const _oak_vk_mesh *m, oak_mesh mesh, const oak_mesh_data *d) {
    return m->id == mesh.id && m->shape_version == d->shape_version && d->prev_positions &&
           !(d->palette && d->joints && d->weights) && m->prev && m->prev == d->vertex_count &&
           m->vertex_count == 2 * d->vertex_count && !m->ml_count;
}

static oak_result _oak_vk_mesh_upload(_oak_vk *vk, _oak_vk_mesh *m, oak_mesh mesh,
                                      const oak_mesh_data *d) {
    oak_result r;
    /* a cluster-LOD mesh: every pass draws its finest level (the first
       indices) but the camera's, culled by meshlets over all its levels
       (vk_meshcull.c), so those are uploaded too when culling is on
       (docs/ARCHITECTURE.md "Cluster LOD") */
    uint32_t vc = d->vertex_count,
             ic = d->finest_index_count ? d->finest_index_count : d->index_count;
    uint32_t taken = d->finest_index_count && vk->meshcull ? d->index_count : ic;
    if (!vc || !ic || !d->positions || !d->indices) {
        *m = (_oak_vk_mesh){.id = mesh.id, .version = d->version};
        m->vertex_count = m->index_count = 0;
        return OAK_OK;
    }
    /* a posed mesh takes twice its vertices: its previous pose's positions
       follow its own, staged and copied with them in one step (their
       attributes' half of the range is never written nor read); one posed
       by its palette keeps its rest pose there for the skin pass, then its
       second set of joints and its morph deltas (oak_gpu.h) */
    bool palette = d->palette && d->joints && d->weights;
    uint32_t prev = d->prev_positions || palette ? vc : 0, vn = vc + prev;
    uint32_t extra = palette ? _oak_gpu_skin_extra(d) : 0, range = vn + extra;
    uint64_t vfirst, ifirst;
    if ((r = _oak_vk_pool_take(vk, &vk->vertex_ranges, range, true, &vfirst))) return r;
    if ((r = _oak_vk_pool_take(vk, &vk->index_ranges, taken, false, &ifirst))) {
        _oak_vk_ranges_free(&vk->vertex_ranges, vfirst, range);
        return r;
    }
    *m = (_oak_vk_mesh){mesh.id, d->version, vfirst, range, prev, ifirst, ic};
    m->index_taken = taken;
    m->shape_version = d->shape_version;
    uint64_t attr_off, idx_off;
    if ((r = _oak_vk_send_positions(vk, m, d, palette))) return r;
    uint32_t va = palette ? range : vc; /* attributes staged: the rest pose after */
    if ((r = _oak_vk_stage(vk, NULL, (uint64_t)va * sizeof(oak_gpu_vertex), 16, &attr_off)))
        return r;
    oak_gpu_vertex *attr =
        (oak_gpu_vertex *)((uint8_t *)vk->frames[vk->slot].staging.mapped + attr_off);
    for (uint32_t i = vc; i < vn && palette; i++) _oak_gpu_skin_source(d, i - vc, &attr[i]);
    for (uint32_t i = vn; i < va; i++) _oak_gpu_skin_extra_vertex(d, i - vn, &attr[i]);
    for (uint32_t i = 0; i < vc; i++) {
        oak_gpu_vertex *a = &attr[i];
        memset(a, 0, sizeof *a);
        if (d->normals)
            memcpy(a->normal, d->normals + i * 3, 12);
        else
            a->normal[1] = 1;
        if (d->tangents)
            memcpy(a->tangent, d->tangents + i * 4, 16);
        else
            a->tangent[0] = a->tangent[3] = 1;
        if (d->uv0) memcpy(a->uv, d->uv0 + i * 2, 8);
        if (d->uv1) memcpy(a->uv + 2, d->uv1 + i * 2, 8);
        if (d->colors)
            memcpy(a->color, d->colors + i * 4, 16);
        else
            a->color[0] = a->color[1] = a->color[2] = a->color[3] = 1;
    }
    _oak_vk_copy(vk, vk->attributes.buffer, vfirst * sizeof(oak_gpu_vertex), attr_off,
                 (uint64_t)va * sizeof(oak_gpu_vertex));
    vk->up_now.mesh_bytes += (uint64_t)va * sizeof(oak_gpu_vertex) + (uint64_t)taken * 4;
    if ((r = _oak_vk_stage(vk, NULL, (uint64_t)taken * 4, 4, &idx_off))) return r;
    uint32_t *idx = (uint32_t *)((uint8_t *)vk->frames[vk->slot].staging.mapped + idx_off);
    for (uint32_t i = 0; i < taken; i++) idx[i] = d->indices[i] < vc ? d->indices[i] : 0;
    _oak_vk_copy(vk, vk->indices.buffer, ifirst * 4, idx_off, (uint64_t)taken * 4);
    /* its meshlets, when its draws are culled by them (vk_meshcull.c) */
    return _oak_vk_meshcull_upload(vk, m, mesh, d);
}

oak_result _oak_vk_sync_mesh(_oak_vk *vk, oak_mesh mesh, const _oak_vk_mesh **out) {
    *out = NULL;
    uint32_t at = oak_handle_index(mesh.id);
    if (at < vk->mesh_capacity && vk->meshes[at].id == mesh.id &&
        vk->meshes[at].frame == vk->frame_count) {
        *out = &vk->meshes[at];
        return OAK_OK;
    }
    const oak_mesh_data *d = oak_mesh_get(mesh);
    if (!d) return oak_error(OAK_ERROR_NOT_FOUND, "vulkan: mesh %u is not live", mesh.id);
    uint32_t slot = oak_handle_index(mesh.id);
    if (slot >= vk->mesh_capacity) {
        uint32_t old = vk->mesh_capacity;
        if (!OAK_GROW(vk->meshes, vk->mesh_capacity, slot + 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: mesh table");
        memset(vk->meshes + old, 0, (vk->mesh_capacity - old) * sizeof *vk->meshes);
    }
    _oak_vk_mesh *m = &vk->meshes[slot];
    if (m->version != d->version && _oak_vk_positions_only(m, mesh, d)) {
        oak_result r = _oak_vk_send_positions(vk, m, d, false);
        if (r) return r;
        m->version = d->version;
        memcpy(m->center, d->bounds.center, sizeof m->center);
        vk->up_now.meshes_positions++;
    } else if (m->id != mesh.id || m->version != d->version) {
        vk->up_now.meshes_whole++;
        _oak_vk_mesh_free(vk, m);
        oak_result r = _oak_vk_mesh_upload(vk, m, mesh, d);
        if (r) {
            memset(m, 0, sizeof *m);
            return r;
        }
        memcpy(m->center, d->bounds.center, sizeof m->center);
    }
    /* posed by its palette: skinned this frame when its pose moved (or it
       was uploaded), never uploaded again for it */
    if (m->prev && d->palette && d->joints && m->pose_version != d->pose_version) {
        oak_result r = _oak_gpu_skin_push(&vk->skin, d, m->vertex_first);
        if (r) return r;
        m->pose_version = d->pose_version;
        memcpy(m->center, d->bounds.center, sizeof m->center);
    }
    m->frame = vk->frame_count;
    *out = m;
    return OAK_OK;
}

/* ---- textures ------------------------------------------------------------ */

static oak_result _oak_vk_class_grow(_oak_vk *vk, _oak_vk_texclass *c, uint32_t layers) {
    _oak_vk_image ni;
    oak_result r =
        _oak_vk_image_create(vk, &ni, c->format, c->width, c->height, layers, c->mips,
                             VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT |
                                 VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                             true);
    if (r) return r;
    VkCommandBuffer cmd = vk->frames[vk->slot].cmd;
    _oak_vk_image_barrier(cmd, &ni, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_2_NONE,
                          0, VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    if (c->image.image && c->used) {
        _oak_vk_image_barrier(cmd, &c->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                              VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_READ_BIT);
        VkImageCopy regions[OAK_MAX_MIPS];
        for (uint32_t l = 0; l < c->mips; l++) {
            uint32_t w = c->width >> l ? c->width >> l : 1, h = c->height >> l ? c->height >> l : 1;
            regions[l] = (VkImageCopy){.srcSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, c->used},
                                       .dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, 0, c->used},
                                       .extent = {w, h, 1}};
        }
        vkCmdCopyImage(cmd, c->image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, ni.image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, c->mips, regions);
    }
    _oak_vk_image_barrier(cmd, &ni, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                          VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    if ((r = _oak_vk_image_retire(vk, &c->image))) {
        _oak_vk_image_destroy(vk, &ni);
        return r;
    }
    c->image = ni;
    return OAK_OK;
}

/* Bindless: the texture's own image (its size, its levels) at a free
 * element of the runtime array, the descriptor written with the slot's set
 * each frame (_oak_vk_write_descriptors). */
static oak_result _oak_vk_bindless_place(_oak_vk *vk, _oak_vk_texture *t, VkFormat fmt,
                                         uint32_t mips, const oak_texture_data *d) {
    uint32_t e;
    if (vk->bindless_free_count) {
        e = vk->bindless_free[vk->bindless_free_count - 1];
    } else {
        if (vk->bindless_high == vk->bindless)
            return oak_error(OAK_ERROR_LIMIT,
                             "vulkan: texture '%s' (%ux%u): all %u bindless elements in use",
                             d->name ? d->name : "?", d->width, d->height, vk->bindless);
        e = vk->bindless_high;
        if (!OAK_GROW(vk->bindless_info, vk->bindless_info_capacity, e + 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: bindless table");
    }
    oak_result r =
        _oak_vk_image_create(vk, &t->image, fmt, d->width, d->height, 1, mips,
                             VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, false);
    if (r) return r;
    if (e == vk->bindless_high)
        vk->bindless_high++;
    else
        vk->bindless_free_count--;
    vk->bindless_info[e] = (VkDescriptorImageInfo){vk->sampler, t->image.view,
                                                   VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
    vk->bindless_live++;
    t->klass = e + 1;
    t->layer = 0;
    _oak_vk_image_barrier(vk->frames[vk->slot].cmd, &t->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                          VK_PIPELINE_STAGE_2_NONE, 0, VK_PIPELINE_STAGE_2_COPY_BIT,
                          VK_ACCESS_2_TRANSFER_WRITE_BIT);
    return OAK_OK;
}

/* Size classes: the texture's levels in a layer of its class's array. */
static oak_result _oak_vk_class_place(_oak_vk *vk, _oak_vk_texture *t, oak_texture tex,
                                      const oak_texture_data *d, VkFormat fmt, uint32_t mips,
                                      bool srgb, uint32_t *out_layer) {
    /* Size classes are power-of-two rectangles: a texture sits in the corner
       of a layer at least its size (each of its levels inside the layer's
       level of the same index), so odd sizes share a few arrays (less than
       4x the texels) instead of each taking one of the 16 bindings. */
    uint32_t cw = 1, ch = 1;
    while (cw < d->width) cw *= 2;
    while (ch < d->height) ch *= 2;
    uint32_t cmips = 1;
    while ((cw > ch ? cw : ch) >> cmips) cmips++;
    uint32_t k = 0;
    while (k < vk->class_count && !(vk->classes[k].width == cw && vk->classes[k].height == ch &&
                                    vk->classes[k].format == fmt))
        k++;
    if (k == vk->class_count) {
        if (k == OAK_GPU_TEXTURE_CLASSES)
            return oak_error(OAK_ERROR_LIMIT,
                             "vulkan: texture '%s' (%ux%u): all %d size classes in use",
                             d->name ? d->name : "?", d->width, d->height, OAK_GPU_TEXTURE_CLASSES);
        vk->classes[k] =
            (_oak_vk_texclass){.width = cw, .height = ch, .mips = cmips, .format = fmt};
        vk->class_count++;
    }
    _oak_vk_texclass *c = &vk->classes[k];
    uint32_t layer;
    if (c->free_count) {
        layer = c->free_layers[--c->free_count];
    } else {
        if (c->used == c->image.layers) {
            uint32_t layers = c->image.layers ? c->image.layers * 2 : 4;
            if (layers > vk->props.limits.maxImageArrayLayers)
                layers = vk->props.limits.maxImageArrayLayers;
            if (layers <= c->used)
                return oak_error(OAK_ERROR_LIMIT, "vulkan: texture class %ux%u is full", c->width,
                                 c->height);
            oak_result r = _oak_vk_class_grow(vk, c, layers);
            if (r) return r;
        }
        layer = c->used++;
    }
    *t = (_oak_vk_texture){tex.id, d->version, k + 1, layer, srgb, d->width, d->height, mips};
    *out_layer = layer;
    return OAK_OK;
}

/* Stages every level and copies them into layer of dst (in TRANSFER_DST
 * layout), then makes dst readable by the shaders. */
static oak_result _oak_vk_texture_copy(_oak_vk *vk, _oak_vk_image *dst, uint32_t layer,
                                       VkFormat fmt, uint32_t mips, const oak_texture_data *d) {
    uint32_t bpp = fmt == VK_FORMAT_R8G8B8A8_UNORM ? 4 : 16;
    /* Every level in one staged block: one copy reads them all from the
       staging buffer current at the copy, so a buffer replaced between two
       levels' staging (a full one is retired, the new one starts empty)
       must not be possible, or the earlier levels' offsets would point into
       the new buffer's other bytes. */
    uint64_t at[OAK_MAX_MIPS], total = 0;
    for (uint32_t l = 0; l < mips; l++) {
        at[l] = total;
        total += ((uint64_t)d->mip_width[l] * d->mip_height[l] * bpp + 15) / 16 * 16;
    }
    uint64_t base;
    oak_result r = _oak_vk_stage(vk, NULL, total, 16, &base);
    if (r) return r;
    uint8_t *staged = (uint8_t *)vk->frames[vk->slot].staging.mapped + base;
    VkBufferImageCopy regions[OAK_MAX_MIPS];
    for (uint32_t l = 0; l < mips; l++) {
        uint32_t w = d->mip_width[l], h = d->mip_height[l];
        memcpy(staged + at[l], d->mips[l], (size_t)w * h * bpp);
        regions[l] =
            (VkBufferImageCopy){.bufferOffset = base + at[l],
                                .imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, l, layer, 1},
                                .imageExtent = {w, h, 1}};
    }
    _oak_vk_frame *f = &vk->frames[vk->slot];
    vkCmdCopyBufferToImage(f->cmd, f->staging.buffer, dst->image,
                           VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, mips, regions);
    _oak_vk_image_barrier(f->cmd, dst, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                          VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT,
                          VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT,
                          VK_ACCESS_2_SHADER_SAMPLED_READ_BIT);
    return OAK_OK;
}

static oak_result _oak_vk_texture_upload(_oak_vk *vk, _oak_vk_texture *t, oak_texture tex,
                                         const oak_texture_data *d) {
    VkFormat fmt =
        d->format == OAK_FORMAT_RGBA32F ? VK_FORMAT_R32G32B32A32_SFLOAT : VK_FORMAT_R8G8B8A8_UNORM;
    uint32_t mips = d->mip_count ? d->mip_count : 1;
    bool srgb = d->format == OAK_FORMAT_RGBA8_SRGB || d->format == OAK_FORMAT_DEFAULT;
    _oak_vk_image *dst;
    uint32_t layer = 0;
    if (vk->bindless) {
        *t = (_oak_vk_texture){.id = tex.id,
                               .version = d->version,
                               .srgb = srgb,
                               .width = d->width,
                               .height = d->height,
                               .mips = mips};
        oak_result r = _oak_vk_bindless_place(vk, t, fmt, mips, d);
        if (r) return r;
        dst = &t->image;
    } else {
        oak_result r = _oak_vk_class_place(vk, t, tex, d, fmt, mips, srgb, &layer);
        if (r) return r;
        dst = &vk->classes[t->klass - 1].image;
        /* a class layer may be in use by the frames in flight */
        _oak_vk_image_barrier(vk->frames[vk->slot].cmd, dst, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                              VK_PIPELINE_STAGE_2_ALL_COMMANDS_BIT, VK_ACCESS_2_MEMORY_WRITE_BIT,
                              VK_PIPELINE_STAGE_2_COPY_BIT, VK_ACCESS_2_TRANSFER_WRITE_BIT);
    }
    return _oak_vk_texture_copy(vk, dst, layer, fmt, mips, d);
}

static void _oak_vk_texture_free(_oak_vk *vk, _oak_vk_texture *t) {
    if (t->klass && vk->bindless) {
        /* the frames in flight keep their sets' view until they finish:
           the image is retired, its element shows the dummy from now on */
        uint32_t e = t->klass - 1;
        if (_oak_vk_image_retire(vk, &t->image) != OAK_OK) _oak_vk_image_destroy(vk, &t->image);
        vk->bindless_info[e] = (VkDescriptorImageInfo){vk->sampler, vk->dummy_image.view,
                                                       VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        vk->bindless_live--;
        if (OAK_GROW(vk->bindless_free, vk->bindless_free_capacity, vk->bindless_free_count + 1))
            vk->bindless_free[vk->bindless_free_count++] = e;
    } else if (t->klass) {
        _oak_vk_texclass *c = &vk->classes[t->klass - 1];
        if (OAK_GROW(c->free_layers, c->free_capacity, c->free_count + 1))
            c->free_layers[c->free_count++] = t->layer;
    }
    memset(t, 0, sizeof *t);
}

/* NULL when the texture is missing or could not be placed (a warning, the
 * material then reads it as white). */
static const _oak_vk_texture *_oak_vk_sync_texture(_oak_vk *vk, oak_texture tex) {
    const oak_texture_data *d = oak_texture_get(tex);
    if (!d) return NULL;
    uint32_t slot = oak_handle_index(tex.id);
    if (slot >= vk->texture_capacity) {
        uint32_t old = vk->texture_capacity;
        if (!OAK_GROW(vk->textures, vk->texture_capacity, slot + 1)) return NULL;
        memset(vk->textures + old, 0, (vk->texture_capacity - old) * sizeof *vk->textures);
    }
    _oak_vk_texture *t = &vk->textures[slot];
    if (t->id != tex.id || t->version != d->version) {
        _oak_vk_texture_free(vk, t);
        if (_oak_vk_texture_upload(vk, t, tex, d) != OAK_OK) {
            oak_log_warn("vulkan: texture '%s' not uploaded: %s", d->name ? d->name : "?",
                         oak_last_error());
            _oak_vk_texture_free(vk, t); /* what it was given before the failure */
            *t = (_oak_vk_texture){tex.id, d->version, 0, 0, false};
        }
    }
    return t->klass ? t : NULL;
}

/* ---- materials ----------------------------------------------------------- */

static uint32_t _oak_vk_wrap(oak_wrap w) {
    return w ? (uint32_t)w : OAK_WRAP_REPEAT;
}
static uint32_t _oak_vk_filter(oak_filter f) {
    return f ? (uint32_t)f : OAK_FILTER_LINEAR;
}

static void _oak_vk_texref(_oak_vk *vk, oak_gpu_texref *out, const oak_texture_ref *ref,
                           uint32_t *version) {
    memset(out, 0, sizeof *out);
    oak_gpu_texref_transform(out, (const float[2]){0, 0}, 0, (const float[2]){1, 1});
    *version = 0;
    if (!ref->texture.id) return;
    const _oak_vk_texture *t = _oak_vk_sync_texture(vk, ref->texture);
    if (!t) return;
    *version = t->version ^ (t->klass << 24) ^ (t->layer << 8);
    out->a[0] = t->klass;
    out->a[1] = t->layer;
    out->a[2] = t->width | (t->height << 16);
    out->a[3] = t->mips | _oak_vk_wrap(ref->sampler.wrap_u) << 8 |
                _oak_vk_wrap(ref->sampler.wrap_v) << 10 | _oak_vk_filter(ref->sampler.mag) << 12 |
                _oak_vk_filter(ref->sampler.min) << 14 | _oak_vk_filter(ref->sampler.mip) << 16 |
                (ref->uv_set ? 1u : 0u) << 18 | (t->srgb ? OAK_GPU_TEX_SRGB : 0);
    oak_gpu_texref_transform(out, ref->offset, ref->rotation, ref->scale);
}

oak_result _oak_vk_sync_material(_oak_vk *vk, oak_material material, uint32_t *out) {
    *out = 0;
    uint32_t at = oak_handle_index(material.id);
    if (at < vk->material_capacity && vk->materials[at].id == material.id &&
        vk->materials[at].frame == vk->frame_count) {
        *out = at;
        return OAK_OK;
    }
    const oak_material_data *md = oak_material_get(material);
    if (!md) return oak_error(OAK_ERROR_NOT_FOUND, "vulkan: material %u is not live", material.id);
    uint32_t slot = oak_handle_index(material.id);
    *out = slot;
    if (slot >= vk->material_capacity) {
        uint32_t old = vk->material_capacity;
        if (!OAK_GROW(vk->materials, vk->material_capacity, slot + 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "vulkan: material table");
        memset(vk->materials + old, 0, (vk->material_capacity - old) * sizeof *vk->materials);
    }
    _oak_vk_material *m = &vk->materials[slot];
    const oak_material_desc *d = &md->desc;
    const oak_texture_ref *refs[5] = {&d->base_color_tex, &d->metallic_roughness_tex,
                                      &d->normal_tex, &d->occlusion_tex, &d->emissive_tex};
    oak_gpu_material g;
    uint32_t versions[5 + OAK_GPU_LOBE_TEX];
    for (int i = 0; i < 5; i++) _oak_vk_texref(vk, &g.tex[i], refs[i], &versions[i]);
    const oak_texture_ref *lrefs[OAK_GPU_LOBE_TEX];
    _oak_gpu_lobe_refs(d, lrefs);
    for (int i = 0; i < OAK_GPU_LOBE_TEX; i++)
        _oak_vk_texref(vk, &g.lobe_tex[i], lrefs[i], &versions[5 + i]);
    m->frame = vk->frame_count;
    m->alpha_mode = d->alpha_mode ? d->alpha_mode : OAK_ALPHA_OPAQUE;
    m->double_sided = d->double_sided;
    if (m->id == material.id && m->version == md->version &&
        !memcmp(m->tex_versions, versions, sizeof versions))
        return OAK_OK;
    m->id = material.id;
    m->version = md->version;
    memcpy(m->tex_versions, versions, sizeof versions);
    _oak_gpu_material_fill(&g, d);
    oak_result r =
        _oak_vk_buffer_grow(vk, &vk->material_buf, (uint64_t)(slot + 1) * sizeof(oak_gpu_material),
                            k_pool_usage, OAK_VK_MEM_DEVICE, true);
    if (r) return r;
    uint64_t off;
    if ((r = _oak_vk_stage(vk, &g, sizeof g, 16, &off))) return r;
    _oak_vk_copy(vk, vk->material_buf.buffer, (uint64_t)slot * sizeof g, off, sizeof g);
    return OAK_OK;
}

/* Frees GPU copies of assets destroyed since: a few records each frame, so
 * churn (destroy, make) keeps the pools from filling with the dead. */
oak_result _oak_vk_flush_materials(_oak_vk *vk) {
    static const uint32_t n = OAK_VK_SWEEP_PER_FRAME;
    for (uint32_t k = 0; k < n && vk->mesh_capacity; k++) {
        uint32_t i = (uint32_t)((vk->frame_count * n + k) % vk->mesh_capacity);
        _oak_vk_mesh *m = &vk->meshes[i];
        if (!m->id) continue;
        const oak_mesh_data *d = oak_mesh_get((oak_mesh){m->id});
        if (!d || d->version != m->version) _oak_vk_mesh_free(vk, m);
    }
    for (uint32_t k = 0; k < n && vk->texture_capacity; k++) {
        uint32_t i = (uint32_t)((vk->frame_count * n + k) % vk->texture_capacity);
        _oak_vk_texture *t = &vk->textures[i];
        if (!t->id) continue;
        const oak_texture_data *d = oak_texture_get((oak_texture){t->id});
        if (!d || d->version != t->version) _oak_vk_texture_free(vk, t);
    }
    return OAK_OK;
}
