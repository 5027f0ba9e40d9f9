/* Instance streams on Vulkan: the cull-and-LOD kernel (render/stream_cull.c)
 * in compute, the same instcull.comp as GL. Each frame slot keeps its own
 * host-visible records (written again only when a stream's version or
 * place moved since that slot last ran) and its own heads, commands and
 * lists, so the host never writes what a frame in flight reads. The pass
 * leaves per LOD a visible list and an indexed-indirect command whose
 * instance count is the band's; the raster pass draws the native streams
 * (oak_render_stream.native) from them (_oak_vk_draw_streams) and the host
 * reads the counts after the frame (read_stream_counts), through the
 * barrier recorded here. Under two-pass Hi-Z this dispatch is instcull's
 * EARLY step (pass 1's lists); vk_hiz.c runs its LATE step after the
 * pyramid (pass 2's). Still host-visible: on a GPU without a
 * device-local host-visible heap the kernel's writes and the vertex
 * shaders' reads cross the bus (the remaining step: device-local lists
 * with a small copy of the counts back). */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "render/stream.h"
#include "vk_internal.h"

#define HEAD_BYTES ((size_t)OAK_STREAM_MAX_PER_VIEW * sizeof(oak_gpu_instcull))

static oak_result grow(_oak_vk *vk, _oak_vk_buffer *b, uint64_t bytes, VkBufferUsageFlags usage) {
    if (b->buffer && b->size >= bytes) return OAK_OK;
    uint64_t size = b->size ? b->size : 4096;
    while (size < bytes) size *= 2;
    /* this slot's last frame has finished: its buffer can go now */
    _oak_vk_buffer_destroy(vk, b);
    return _oak_vk_buffer_create(vk, b, size, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | usage,
                                 OAK_VK_MEM_UPLOAD);
}

oak_result _oak_vk_instcull_reserve(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint64_t records = 0, words = 0, poses = 0;
    for (uint32_t s = 0; s < ns; s++) {
        records += v->streams[s].count;
        words += _oak_gpu_instcull_words(v->streams[s].count);
        poses += _oak_gpu_pose_records(&v->streams[s]);
    }
    if (records + poses > UINT32_MAX / 2 || words > UINT32_MAX / 4)
        return oak_error(OAK_ERROR_LIMIT, "vulkan: instcull: %llu instances",
                         (unsigned long long)records);
    VkBuffer old = f->instances.buffer;
    oak_result r;
    /* the records, then their last-frame copies (motion vectors), then the
       posed streams' pose blocks */
    if ((r = grow(vk, &f->instances,
                  ((records ? records : 1) * 2 + poses) * sizeof(oak_gpu_instance), 0)) ||
        (r = grow(vk, &f->instance_out, HEAD_BYTES + words * 4,
                  VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT)))
        return r;
    if (f->instances.buffer != old) {
        _oak_gpu_upload_forget(&f->uploads);
        memset(f->instcull_pose_src, 0, sizeof f->instcull_pose_src);
    }
    /* the streams' assets (before the materials' flush) and how each draws;
       none drawn until the pass runs this frame */
    f->instcull_streams = 0;
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        f->instcull_group[s] = UINT32_MAX;
        f->instcull_material[s] = 0;
        const _oak_vk_mesh *m;
        for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++)
            if (oak_mesh_get(rs->lods[k]) && (r = _oak_vk_sync_mesh(vk, rs->lods[k], &m))) return r;
        uint32_t slot;
        if (!oak_material_get(rs->material) || (r = _oak_vk_sync_material(vk, rs->material, &slot)))
            continue;
        const _oak_vk_material *md = &vk->materials[slot];
        f->instcull_material[s] = slot;
        if (rs->native && md->alpha_mode != OAK_ALPHA_BLEND)
            f->instcull_group[s] =
                (md->alpha_mode == OAK_ALPHA_MASK ? 2u : 0u) + (md->double_sided ? 1u : 0u);
        /* an impostor card draws in its own material, masked */
        f->instcull_igroup[s] = f->instcull_group[s];
        f->instcull_imaterial[s] = 0;
        if (rs->impostor_lod && f->instcull_group[s] != UINT32_MAX &&
            oak_material_get(rs->impostor_material) &&
            (r = _oak_vk_sync_material(vk, rs->impostor_material, &slot)) == OAK_OK) {
            const _oak_vk_material *im = &vk->materials[slot];
            if (im->alpha_mode != OAK_ALPHA_BLEND) {
                f->instcull_imaterial[s] = slot;
                f->instcull_igroup[s] =
                    (im->alpha_mode == OAK_ALPHA_MASK ? 2u : 0u) + (im->double_sided ? 1u : 0u);
            }
        }
    }
    return OAK_OK;
}

/* A stream's records into dst (its place in the frame's buffer): when the
   copy there is of these very records (same array, same place) at version
   `since`, only the ranges the stream's log says were written since (a
   grass stream writes a few squares' slots a frame), else all. */
static void copy_records(uint8_t *dst, const oak_render_stream *rs, bool same, uint64_t since) {
    uint32_t ranges[OAK_STREAM_WRITE_LOG][2];
    uint32_t n = same && rs->stream
                     ? _oak_stream_writes_since(rs->stream, since, ranges, OAK_STREAM_WRITE_LOG)
                     : UINT32_MAX;
    if (n == UINT32_MAX) {
        if (rs->count) memcpy(dst, rs->records, (size_t)rs->count * sizeof(oak_gpu_instance));
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lo = ranges[i][0], hi = ranges[i][1] < rs->count ? ranges[i][1] : rs->count;
        if (lo < hi)
            memcpy(dst + (size_t)lo * sizeof(oak_gpu_instance), rs->records + lo,
                   (size_t)(hi - lo) * sizeof(oak_gpu_instance));
    }
}

oak_result _oak_vk_run_instcull(_oak_vk *vk, _oak_vk_frame *f, const oak_render_view *v) {
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint32_t first = 0, word = 0, most = 0;
    oak_gpu_instcull *heads = f->instance_out.mapped;
    uint8_t *rec = f->instances.mapped;
    uint32_t *words = (uint32_t *)((uint8_t *)f->instance_out.mapped + HEAD_BYTES);
    uint32_t total = 0; /* the last-frame copies start after every record */
    for (uint32_t s = 0; s < ns; s++) total += v->streams[s].count;
    /* under Hi-Z each stream's visible bits, after the pyramid */
    uint64_t bits = _oak_gpu_hiz_stream_base(v, vk->width, vk->height);
    uint64_t pose_at = (uint64_t)(total ? total : 1) * 2; /* the pose blocks, as reserved */
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        uint64_t pose_n = _oak_gpu_pose_records(rs);
        if (pose_n &&
            (f->instcull_pose_src[s] != rs->pose_bank ||
             f->instcull_pose_mesh[s] != rs->lods[0].id || f->instcull_pose_first[s] != pose_at ||
             f->instcull_ovr_src[s] != rs->pose_overrides)) {
            _oak_gpu_pose_fill((oak_gpu_instance *)rec + pose_at, rs);
            f->instcull_pose_src[s] = rs->pose_bank;
            f->instcull_pose_mesh[s] = rs->lods[0].id;
            f->instcull_pose_first[s] = pose_at;
            f->instcull_ovr_src[s] = rs->pose_overrides;
            f->instcull_ovr_version[s] = rs->pose_override_version;
        }
        if (pose_n && f->instcull_ovr_version[s] != rs->pose_override_version) {
            uint64_t o, on; /* the override slots alone (foot IK moves them every frame) */
            _oak_gpu_pose_override_span(rs, &o, &on);
            if (on)
                memcpy(rec + (size_t)(pose_at + o) * sizeof(oak_gpu_instance), rs->pose_overrides,
                       (size_t)on * sizeof(oak_gpu_instance));
            f->instcull_ovr_version[s] = rs->pose_override_version;
        }
        /* the records only where they moved or landed somewhere new (the
           grass pass grew its streams' already), their last-frame copy
           whole where it went stale */
        _oak_gpu_upload u = _oak_gpu_upload_step(&f->uploads, s, rs, first, total);
        if (u.cur != OAK_GPU_COPY_KEEP)
            copy_records(rec + (size_t)first * sizeof(oak_gpu_instance), rs,
                         u.cur == OAK_GPU_COPY_SINCE, u.cur_since);
        if (u.prev != OAK_GPU_COPY_KEEP && rs->count)
            memcpy(rec + (size_t)u.prev_at * sizeof(oak_gpu_instance), rs->prev_records,
                   (size_t)rs->count * sizeof(oak_gpu_instance));
        /* VkDrawIndexedIndirectCommand per (view, LOD): the instance count is the kernel's */
        uint32_t mesh[OAK_STREAM_LODS][3] = {{0}};
        for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++) {
            const _oak_vk_mesh *m = NULL;
            if (oak_mesh_get(rs->lods[k]) && _oak_vk_sync_mesh(vk, rs->lods[k], &m) == OAK_OK && m)
                mesh[k][0] = m->index_count, mesh[k][1] = (uint32_t)m->index_first,
                mesh[k][2] = (uint32_t)m->vertex_first;
        }
        oak_gpu_instcull h;
        _oak_gpu_instcull_fill(&h, words + word, v, rs, first, word, mesh, f->instcull_material[s],
                               f->instcull_group[s] != UINT32_MAX);
        h.prev[0] = _oak_gpu_prev_is_records(rs) ? 0 : total; /* own: no copy */
        _oak_gpu_hiz_stream_head(&vk->hiz_streams, &h, v, rs, s, (uint32_t)(bits + first),
                                 f->hiz_on && f->instcull_group[s] != UINT32_MAX);
        _oak_gpu_pose_head(&h, rs, (uint32_t)pose_at);
        h.prev[3] = f->instcull_imaterial[s];
        pose_at += pose_n;
        heads[s] = h;
        f->instcull_moved[s] = rs->moved;
        first += rs->count;
        word += (uint32_t)_oak_gpu_instcull_words(rs->count);
        most = rs->count > most ? rs->count : most;
    }
    f->instcull_streams = ns;
    f->instcull_most = most;
    /* which instances the compute raster takes from bands the hardware draws */
    _oak_vk_craster_split(vk, f, v);
    /* under Hi-Z this step (EARLY) reads the bits last frame's LATE wrote */
    if (f->hiz_on)
        _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                        VK_ACCESS_2_SHADER_STORAGE_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT);
    if (most && _oak_vk_bind(vk, f->cmd, OAK_VK_PIPE_INSTCULL))
        vkCmdDispatch(f->cmd, (most + 63) / 64, ns, 1);
    /* readers: the stream raster's indirect commands and list words, the
       resolve's heads, and the host's counts */
    _oak_vk_barrier(f->cmd, VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT,
                    VK_ACCESS_2_SHADER_STORAGE_WRITE_BIT,
                    VK_PIPELINE_STAGE_2_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_2_VERTEX_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_FRAGMENT_SHADER_BIT |
                        VK_PIPELINE_STAGE_2_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_2_HOST_BIT,
                    VK_ACCESS_2_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_2_SHADER_STORAGE_READ_BIT |
                        VK_ACCESS_2_HOST_READ_BIT);
    return OAK_OK;
}

/* Stream s's commands from `at` (its view's first LOD): the LODs before an
   impostor card through pipeline `pipe`, the card through `card_pipe`;
   none of the LODs in `skip` (bit k: LOD k, which the compute raster drew). */
static void draw_runs(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, uint32_t s, uint64_t at,
                      uint32_t pipe, uint32_t card_pipe, uint32_t skip) {
    const oak_gpu_instcull *h = (const oak_gpu_instcull *)f->instance_out.mapped + s;
    const uint32_t stride = sizeof(VkDrawIndexedIndirectCommand);
    uint32_t lods = h->info[1], imp = h->pose[3] && h->pose[3] < lods ? h->pose[3] : lods;
    for (uint32_t run = 0; run < 2; run++) {
        uint32_t end = run ? lods : imp;
        for (uint32_t k0 = run ? imp : 0; k0 < end;) {
            if (skip >> k0 & 1u) {
                k0++;
                continue;
            }
            uint32_t n = 1; /* the LODs from k0 that are drawn here, in one run */
            while (k0 + n < end && !(skip >> (k0 + n) & 1u)) n++;
            if (!_oak_vk_bind(vk, cmd, run ? card_pipe : pipe)) return;
            uint64_t first = at + (uint64_t)k0 * stride;
            if (vk->multi_draw)
                vkCmdDrawIndexedIndirect(cmd, f->instance_out.buffer, first, n, stride);
            else
                for (uint32_t k = 0; k < n; k++)
                    vkCmdDrawIndexedIndirect(cmd, f->instance_out.buffer, first + k * stride, 1,
                                             stride);
            k0 += n;
        }
    }
}

void _oak_vk_draw_streams(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f, uint32_t view) {
    const oak_gpu_instcull *heads = f->instance_out.mapped;
    for (uint32_t s = 0; s < f->instcull_streams; s++) {
        uint32_t g = f->instcull_group[s];
        if (g == UINT32_MAX || !heads[s].info[0]) continue;
        /* pass 2 draws only the streams that took Hi-Z */
        if (view && heads[s].prev[1] == OAK_GPU_INSTCULL_HIZ_OFF) continue;
        uint64_t at =
            HEAD_BYTES + ((uint64_t)heads[s].info[3] + (uint64_t)view * OAK_STREAM_LODS * 5) * 4;
        draw_runs(vk, cmd, f, s, at, OAK_VK_PIPE_VIS_STREAM + g,
                  OAK_VK_PIPE_VIS_STREAM + f->instcull_igroup[s], f->craster_lods[s]);
    }
}

void _oak_vk_instcull_destroy(_oak_vk *vk) {
    for (uint32_t i = 0; i < OAK_VK_FRAMES; i++) {
        _oak_vk_buffer_destroy(vk, &vk->frames[i].instances);
        _oak_vk_buffer_destroy(vk, &vk->frames[i].instance_out);
        vk->frames[i].instcull_streams = 0;
    }
}

oak_result _oak_vk_instcull_read(_oak_vk *vk, uint32_t per_lod[OAK_STREAM_LODS],
                                 uint32_t *per_stream, uint32_t max_streams, uint32_t *split) {
    memset(per_lod, 0, sizeof(uint32_t) * OAK_STREAM_LODS);
    if (per_stream) memset(per_stream, 0, sizeof(uint32_t) * OAK_STREAM_LODS * max_streams);
    if (split) memset(split, 0, sizeof(uint32_t) * OAK_STREAM_LODS);
    if (vk->last_slot < 0) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "vulkan: nothing drawn");
    oak_result r = _oak_vk_wait_all(vk);
    if (r) return r;
    const _oak_vk_frame *f = &vk->frames[vk->last_slot];
    if (!f->instance_out.mapped) return OAK_OK;
    const oak_gpu_instcull *heads = f->instance_out.mapped;
    const uint32_t *words =
        (const uint32_t *)((const uint8_t *)f->instance_out.mapped + HEAD_BYTES);
    /* the camera's lists: under Hi-Z pass 1's and pass 2's, else its own
       and the small instances the compute raster drew (SMALL) */
    for (uint32_t s = 0; s < f->instcull_streams; s++)
        for (uint32_t k = 0; k < OAK_STREAM_LODS; k++) {
            const uint32_t *c = words + heads[s].info[3];
            uint32_t small = c[(OAK_GPU_INSTCULL_SMALL * OAK_STREAM_LODS + k) * 5 + 1];
            uint32_t n =
                c[k * 5 + 1] + c[(OAK_GPU_INSTCULL_LATE * OAK_STREAM_LODS + k) * 5 + 1] + small;
            if (split) split[k] += small;
            per_lod[k] += n;
            if (per_stream && s < max_streams) per_stream[s * OAK_STREAM_LODS + k] = n;
        }
    return OAK_OK;
}

void _oak_vk_draw_stream_casters(_oak_vk *vk, VkCommandBuffer cmd, _oak_vk_frame *f,
                                 uint32_t cascade, bool movers) {
    const oak_gpu_instcull *heads = f->instance_out.mapped;
    for (uint32_t s = 0; s < f->instcull_streams; s++) {
        const oak_gpu_instcull *h = &heads[s];
        if (cascade >= h->draw[3] || !h->info[0] || f->instcull_moved[s] != movers) continue;
        uint32_t g = f->instcull_group[s], ig = f->instcull_igroup[s];
        uint64_t at = HEAD_BYTES + ((uint64_t)h->info[3] + (cascade + 1) * OAK_STREAM_LODS * 5) * 4;
        draw_runs(vk, cmd, f, s, at,
                  g >= 2 ? OAK_VK_PIPE_SHADOW_STREAM_MASKED : OAK_VK_PIPE_SHADOW_STREAM,
                  ig >= 2 ? OAK_VK_PIPE_SHADOW_STREAM_MASKED : OAK_VK_PIPE_SHADOW_STREAM,
                  f->craster_shadow_lods[cascade][s]);
    }
}

uint32_t _oak_vk_stream_movers(const _oak_vk_frame *f, uint32_t cascade) {
    const oak_gpu_instcull *heads = f->instance_out.mapped;
    uint32_t n = 0;
    for (uint32_t s = 0; s < f->instcull_streams; s++)
        n += f->instcull_moved[s] && cascade < heads[s].draw[3] && heads[s].info[0];
    return n;
}
