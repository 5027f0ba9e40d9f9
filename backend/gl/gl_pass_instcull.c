/* Instance streams on OpenGL: the cull-and-LOD kernel (render/stream_cull.c)
 * in compute, instcull.comp (the file the Vulkan build compiles too). Records
 * go up only when a stream's version (or its place in the buffer) moved; the
 * heads and each stream's indirect commands every frame; the pass leaves per
 * LOD a visible list and a command whose instance count is the band's, and
 * the raster pass draws the native streams (oak_render_stream.native) from
 * them (_oak_gl_draw_streams). Under two-pass Hi-Z this dispatch is
 * instcull's EARLY step (pass 1's lists); gl_hiz.c runs its LATE step after
 * the pyramid (pass 2's). */
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "render/stream.h"
#include "oak_gl_shaders.h"

static oak_result instcull_setup(_oak_gl_frame *f) {
    if (f->prog_instcull) return OAK_OK;
    GLint bindings = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    /* the highest it names: Hi-Z's kept bits */
    if (bindings <= OAK_B_HIZ_KEEP)
        return oak_error(OAK_ERROR_DEVICE, "gl: %d storage buffer bindings, instcull needs %d",
                         bindings, OAK_B_HIZ_KEEP + 1);
    return _oak_gl_compute(&f->prog_instcull, "instcull", oak_gl_src_instcull_comp);
}

/* A stream's records to instance `at` of the frame's buffer: when the
   copy there is of these very records (same array, same place) at version
   `since`, only what the stream's log says was written since (a grass
   stream writes a few squares' slots a frame), as at most GL_SPANS spans
   (_oak_stream_spans_since: the nearest writes merged, with the few
   unwritten records between them), else all. Few spans, because each
   glNamedBufferSubData on a buffer the queued work reads may flush and
   wait (llvmpipe: 6 frames of the full meadow took 1.4 s a frame in
   instcull's uploads by ranges against 36 ms whole); merged rather than
   whole, because past 8 writes the whole grass streams went up every
   frame (the meadow's instcull on the H200: 3.3 -> 13.5-16.4 ms). */
#define GL_SPANS 8
static oak_result upload_records(_oak_gl_frame *f, uint64_t at, const oak_render_stream *rs,
                                 bool same, uint64_t since) {
    uint32_t spans[GL_SPANS][2];
    uint32_t n = same && rs->stream
                     ? _oak_stream_spans_since(rs->stream, since, rs->count, spans, GL_SPANS)
                     : UINT32_MAX;
    if (n == UINT32_MAX) spans[0][0] = 0, spans[0][1] = rs->count, n = 1;
    for (uint32_t i = 0; i < n; i++) {
        oak_result r;
        if (spans[i][0] < spans[i][1] &&
            (r = _oak_gl_buffer_upload(
                 &f->instances, (size_t)(at + spans[i][0]) * sizeof(oak_gpu_instance),
                 rs->records + spans[i][0],
                 (size_t)(spans[i][1] - spans[i][0]) * sizeof(oak_gpu_instance))))
            return r;
    }
    return OAK_OK;
}

oak_result _oak_gl_instances_reserve(_oak_gl_frame *f, const oak_render_view *v,
                                     uint64_t *records) {
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint64_t n = 0, poses = 0;
    for (uint32_t s = 0; s < ns; s++) {
        n += v->streams[s].count;
        poses += _oak_gpu_pose_records(&v->streams[s]);
    }
    *records = n;
    if (n + poses > UINT32_MAX / 2)
        return oak_error(OAK_ERROR_LIMIT, "gl: instance streams: %llu instances",
                         (unsigned long long)n);
    /* the records, then their last-frame copies (motion vectors), then the
       posed streams' pose blocks */
    size_t bytes = ((size_t)(n ? n : 1) * 2 + poses) * sizeof(oak_gpu_instance);
    size_t old = f->instances.capacity;
    oak_result r = _oak_gl_buffer_reserve(&f->instances, bytes, true);
    if (!r && f->instances.capacity != old) { /* a new buffer holds nothing uploaded */
        _oak_gpu_upload_forget(&f->uploads);
        memset(f->instcull_pose_src, 0, sizeof f->instcull_pose_src);
    }
    return r;
}

oak_result _oak_gl_run_instcull(_oak_gl_backend *b, const oak_render_view *v) {
    _oak_gl_frame *f = b->frame;
    oak_result r = instcull_setup(f);
    if (r) return r;
    uint32_t ns =
        v->stream_count < OAK_STREAM_MAX_PER_VIEW ? v->stream_count : OAK_STREAM_MAX_PER_VIEW;
    uint64_t records = 0, words = 0;
    uint32_t most = 0;
    for (uint32_t s = 0; s < ns; s++) {
        words += _oak_gpu_instcull_words(v->streams[s].count);
        most = v->streams[s].count > most ? v->streams[s].count : most;
    }
    size_t head_bytes = sizeof f->instcull_heads;
    if (words > UINT32_MAX / 4)
        return oak_error(OAK_ERROR_LIMIT, "gl: instcull: %llu command words",
                         (unsigned long long)words);
    if ((r = _oak_gl_instances_reserve(f, v, &records)) ||
        (r = _oak_gl_buffer_reserve(&f->instance_out, head_bytes + words * 4, false)))
        return r;
    uint64_t pose_at = (records ? records : 1) * 2; /* the pose blocks, as reserved */
    uint32_t total = (uint32_t)records;             /* where the last-frame copies start */
    /* under Hi-Z each stream's visible bits, after the pyramid */
    uint64_t bits = _oak_gpu_hiz_stream_base(v, b->targets.width, b->targets.height);

    uint32_t first = 0, word = 0;
    uint32_t cmds[OAK_GPU_INSTCULL_HEAD_WORDS];
    for (uint32_t s = 0; s < ns; s++) {
        const oak_render_stream *rs = &v->streams[s];
        uint64_t pose_n = _oak_gpu_pose_records(rs);
        if (pose_n &&
            (f->instcull_pose_src[s] != rs->pose_bank ||
             f->instcull_pose_mesh[s] != rs->lods[0].id || f->instcull_pose_first[s] != pose_at ||
             f->instcull_ovr_src[s] != rs->pose_overrides)) {
            oak_gpu_instance *block = oak_alloc((size_t)pose_n * sizeof *block);
            if (!block) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: instcull: no memory");
            _oak_gpu_pose_fill(block, rs);
            r = _oak_gl_buffer_upload(&f->instances, (size_t)pose_at * sizeof *block, block,
                                      (size_t)pose_n * sizeof *block);
            oak_free(block);
            if (r) return r;
            f->instcull_pose_src[s] = rs->pose_bank;
            f->instcull_pose_mesh[s] = rs->lods[0].id;
            f->instcull_pose_first[s] = pose_at;
            f->instcull_ovr_src[s] = rs->pose_overrides;
            f->instcull_ovr_version[s] = rs->pose_override_version;
        }
        if (pose_n && f->instcull_ovr_version[s] != rs->pose_override_version) {
            uint64_t o, on; /* the override slots alone (foot IK moves them every frame) */
            _oak_gpu_pose_override_span(rs, &o, &on);
            if (on && (r = _oak_gl_buffer_upload(
                           &f->instances, (size_t)(pose_at + o) * sizeof(oak_gpu_instance),
                           rs->pose_overrides, (size_t)on * sizeof(oak_gpu_instance))))
                return r;
            f->instcull_ovr_version[s] = rs->pose_override_version;
        }
        /* the records only where they moved or landed somewhere new (the
           grass pass grew its streams' already), their last-frame copy
           whole where it went stale */
        _oak_gpu_upload u = _oak_gpu_upload_step(&f->uploads, s, rs, first, total);
        if (u.cur != OAK_GPU_COPY_KEEP &&
            (r = upload_records(f, first, rs, u.cur == OAK_GPU_COPY_SINCE, u.cur_since)))
            return r;
        if (u.prev != OAK_GPU_COPY_KEEP && rs->count &&
            (r = _oak_gl_buffer_upload(&f->instances, (size_t)u.prev_at * sizeof(oak_gpu_instance),
                                       rs->prev_records,
                                       (size_t)rs->count * sizeof(oak_gpu_instance))))
            return r;
        const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, rs->material);
        f->instcull_group[s] = UINT32_MAX;
        if (rs->native && mt && !mt->blend)
            f->instcull_group[s] = (mt->mask ? 2u : 0u) + (mt->double_sided ? 1u : 0u);
        /* an impostor card draws in its own material, masked */
        f->instcull_igroup[s] = f->instcull_group[s];
        uint32_t islot = 0;
        const _oak_gl_mat_slot *it = rs->impostor_lod && oak_material_get(rs->impostor_material)
                                         ? _oak_gl_mat_of(f, rs->impostor_material)
                                         : NULL;
        if (it && !it->blend && f->instcull_group[s] != UINT32_MAX) {
            f->instcull_igroup[s] = (it->mask ? 2u : 0u) + (it->double_sided ? 1u : 0u);
            islot = oak_handle_index(rs->impostor_material.id);
        }
        f->instcull_moved[s] = rs->moved;
        uint32_t mesh[OAK_STREAM_LODS][3] = {{0}};
        for (uint32_t k = 0; k < rs->lod_count && k < OAK_STREAM_LODS; k++) {
            const _oak_gl_mesh_slot *ms =
                oak_mesh_get(rs->lods[k]) ? _oak_gl_mesh_of(f, rs->lods[k]) : NULL;
            if (ms)
                mesh[k][0] = ms->index_count, mesh[k][1] = ms->first_index,
                mesh[k][2] = ms->base_vertex;
        }
        _oak_gpu_instcull_fill(&f->instcull_heads[s], cmds, v, rs, first, word, mesh,
                               mt ? oak_handle_index(rs->material.id) : 0,
                               f->instcull_group[s] != UINT32_MAX);
        f->instcull_heads[s].prev[0] = _oak_gpu_prev_is_records(rs) ? 0 : total; /* own: no copy */
        _oak_gpu_hiz_stream_head(&f->hiz_streams, &f->instcull_heads[s], v, rs, s,
                                 (uint32_t)(bits + first),
                                 f->hiz_on && f->instcull_group[s] != UINT32_MAX);
        _oak_gpu_pose_head(&f->instcull_heads[s], rs, (uint32_t)pose_at);
        f->instcull_heads[s].prev[3] = islot;
        pose_at += pose_n;
        if ((r = _oak_gl_buffer_upload(&f->instance_out, head_bytes + (size_t)word * 4, cmds,
                                       sizeof cmds)))
            return r;
        first += rs->count;
        word += (uint32_t)_oak_gpu_instcull_words(rs->count);
    }
    f->instcull_streams = ns;
    /* which instances the compute raster takes from bands the hardware draws */
    _oak_gl_craster_split(b, v);
    if ((r = _oak_gl_buffer_upload(&f->instance_out, 0, f->instcull_heads,
                                   ns * sizeof f->instcull_heads[0])) ||
        (r = _oak_gl_ensure_draw_ids(f, word)))
        return r;
    f->instcull_most = most;
    /* buffer updates, and under Hi-Z the bits last frame's LATE step wrote */
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCES, f->instances.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCE_OUT, f->instance_out.id);
    if (f->hiz_on) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_HIZ, f->hiz.id);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_HIZ_KEEP, f->hiz_keep.id);
    }
    glUseProgram(f->prog_instcull);
    glUniform1ui(0, OAK_GPU_HIZ_STEP_EARLY); /* gl_hiz.c runs the LATE step */
    if (most) glDispatchCompute((most + 63) / 64, ns, 1);
    /* readers: indirect draws and the stream-count read-back */
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_SHADER_STORAGE_BARRIER_BIT |
                    GL_BUFFER_UPDATE_BARRIER_BIT);
    return OAK_OK;
}

void _oak_gl_instcull_release(_oak_gl_frame *f) {
    if (f->prog_instcull) glDeleteProgram(f->prog_instcull);
    f->prog_instcull = 0;
    _oak_gl_buffer_release(&f->instances);
    _oak_gl_buffer_release(&f->instance_out);
    _oak_gpu_upload_forget(&f->uploads);
    memset(f->instcull_pose_src, 0, sizeof f->instcull_pose_src);
    f->instcull_streams = 0;
}

oak_result _oak_gl_instcull_read(_oak_gl_frame *f, uint32_t per_lod[OAK_STREAM_LODS],
                                 uint32_t *per_stream, uint32_t max_streams, uint32_t *split) {
    memset(per_lod, 0, sizeof(uint32_t) * OAK_STREAM_LODS);
    if (per_stream) memset(per_stream, 0, sizeof(uint32_t) * OAK_STREAM_LODS * max_streams);
    if (split) memset(split, 0, sizeof(uint32_t) * OAK_STREAM_LODS);
    size_t head_bytes = sizeof f->instcull_heads;
    for (uint32_t s = 0; s < f->instcull_streams; s++) {
        uint32_t cmds[OAK_GPU_INSTCULL_HEAD_WORDS];
        glGetNamedBufferSubData(f->instance_out.id,
                                (GLintptr)(head_bytes + (size_t)f->instcull_heads[s].info[3] * 4),
                                sizeof cmds, cmds);
        /* the camera's lists: under Hi-Z pass 1's and pass 2's, else its
           own and the small instances the compute raster drew (SMALL) */
        for (uint32_t k = 0; k < OAK_STREAM_LODS; k++) {
            uint32_t small = cmds[(OAK_GPU_INSTCULL_SMALL * OAK_STREAM_LODS + k) * 5 + 1];
            uint32_t n = cmds[k * 5 + 1] +
                         cmds[(OAK_GPU_INSTCULL_LATE * OAK_STREAM_LODS + k) * 5 + 1] + small;
            if (split) split[k] += small;
            per_lod[k] += n;
            if (per_stream && s < max_streams) per_stream[s * OAK_STREAM_LODS + k] = n;
        }
    }
    return _oak_gl_check("instcull read-back")
               ? oak_error(OAK_ERROR_DEVICE, "gl: instcull read-back failed")
               : OAK_OK;
}

/* Stream s's LODs from one list of indirect commands (at: LOD 0's, 20
   bytes a LOD) but those whose bit is set in skip: the LODs before an
   impostor card in the stream's group, the card in its own, each run of
   drawn LODs in one multi-draw; prog draws a group's opaque LODs,
   prog_mask its masked ones; faces: the group's double-sidedness sets the
   face culling (the camera's lists; the cascades' cull nothing). */
static void draw_lods(const _oak_gl_frame *f, uint32_t s, size_t at, uint32_t skip, GLuint prog,
                      GLuint prog_mask, bool faces) {
    const oak_gpu_instcull *h = &f->instcull_heads[s];
    uint32_t lods = h->info[1], imp = h->pose[3] && h->pose[3] < lods ? h->pose[3] : lods;
    for (uint32_t run = 0; run < 2; run++) {
        uint32_t end = run ? lods : imp;
        uint32_t g = run ? f->instcull_igroup[s] : f->instcull_group[s];
        for (uint32_t k0 = run ? imp : 0; k0 < end;) {
            if (skip >> k0 & 1u) {
                k0++;
                continue;
            }
            uint32_t n = 1; /* the drawn LODs from k0, in one multi-draw */
            while (k0 + n < end && !(skip >> (k0 + n) & 1u)) n++;
            if (faces && g & 1u)
                glDisable(GL_CULL_FACE);
            else if (faces)
                glEnable(GL_CULL_FACE);
            glUseProgram(g >= 2 ? prog_mask : prog);
            glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                        (const void *)(uintptr_t)(at + (size_t)k0 * 20), (GLsizei)n,
                                        0);
            k0 += n;
        }
    }
}

void _oak_gl_draw_streams(_oak_gl_frame *f, uint32_t view) {
    bool any = false;
    /* pass 2 draws only the streams that took Hi-Z */
    for (uint32_t s = 0; s < f->instcull_streams; s++)
        any |= f->instcull_group[s] != UINT32_MAX && f->instcull_heads[s].info[0] &&
               (!view || f->instcull_heads[s].prev[1] != OAK_GPU_INSTCULL_HIZ_OFF);
    if (!any) return;
    size_t head_bytes = sizeof f->instcull_heads;
    glBindVertexArray(f->vao);
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->instance_out.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCES, f->instances.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCE_OUT, f->instance_out.id);
    for (uint32_t s = 0; s < f->instcull_streams; s++) {
        const oak_gpu_instcull *h = &f->instcull_heads[s];
        uint32_t g = f->instcull_group[s];
        if (g == UINT32_MAX || !h->info[0] || (view && h->prev[1] == OAK_GPU_INSTCULL_HIZ_OFF))
            continue;
        /* none the compute raster drew (gl_craster.c) */
        draw_lods(f, s, head_bytes + ((size_t)h->info[3] + (size_t)view * OAK_STREAM_LODS * 5) * 4,
                  f->craster_lods[s], f->prog_vis_stream, f->prog_vis_stream_mask, true);
    }
    glDisable(GL_CULL_FACE);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
}

uint32_t _oak_gl_stream_movers(const _oak_gl_frame *f, uint32_t cascade) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < f->instcull_streams; s++)
        n += f->instcull_moved[s] && cascade < f->instcull_heads[s].draw[3] &&
             f->instcull_heads[s].info[0];
    return n;
}

void _oak_gl_draw_stream_casters(_oak_gl_frame *f, uint32_t cascade, bool movers) {
    size_t head_bytes = sizeof f->instcull_heads;
    bool bound = false;
    for (uint32_t s = 0; s < f->instcull_streams; s++) {
        const oak_gpu_instcull *h = &f->instcull_heads[s];
        if (cascade >= h->draw[3] || !h->info[0] || f->instcull_moved[s] != movers) continue;
        if (!bound) {
            glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->instance_out.id);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCES, f->instances.id);
            glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INSTANCE_OUT, f->instance_out.id);
            bound = true;
        }
        /* the compute raster drew the LODs craster_shadow_lods names */
        draw_lods(f, s, head_bytes + ((size_t)h->info[3] + (cascade + 1) * OAK_STREAM_LODS * 5) * 4,
                  f->craster_shadow_lods[cascade][s], f->prog_shadow_stream,
                  f->prog_shadow_stream_mask, false);
    }
    if (bound) glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
}
