/* Per-meshlet culling of plain draws on OpenGL (docs/ARCHITECTURE.md
 * "Meshlet culling"): the same meshcull.comp as Vulkan. Each eligible
 * mesh's meshlets go to the meshlet pool once, with its upload; each frame
 * the upload pass makes a job per main-view draw of such a mesh in the vis
 * groups (not under two-pass Hi-Z), the meshcull pass writes the kept
 * meshlets' triangles into the frame's expanded index buffer and each
 * job's index count, and the raster draws those commands with that buffer
 * as the element buffer. The counters are copied aside behind a fence and
 * read once it has passed (a frame or more late, never a stall). */
#include <string.h>

#include "backend/gpu/meshcull.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

#define CMD_WORDS 5u /* DrawElementsIndirectCommand */

/* On when OAK_MESHCULL is not off and the device binds OAK_B_MESHCULL. */
static bool meshcull_on(_oak_gl_frame *f) {
    if (f->mc_checked) return f->mc_on;
    f->mc_checked = true;
    GLint bindings = 0;
    glGetIntegerv(GL_MAX_SHADER_STORAGE_BUFFER_BINDINGS, &bindings);
    /* On llvmpipe the first frame once did not finish (200 s): the vis
       groups' commands had gaps where the draws this pass takes were
       counted (gl_pass_upload.c closes them now), so they drew garbage. */
    f->mc_on = _oak_meshcull_enabled() && bindings > OAK_B_MESHCULL;
    if (_oak_meshcull_enabled() && !f->mc_on)
        oak_log_warn("gl: %d storage buffer bindings, meshlet culling needs %d: off", bindings,
                     OAK_B_MESHCULL + 1);
    return f->mc_on;
}

bool _oak_gl_meshcull_on(_oak_gl_frame *f) {
    return meshcull_on(f);
}

oak_result _oak_gl_meshcull_upload(_oak_gl_frame *f, _oak_gl_mesh_slot *s, oak_mesh h,
                                   const oak_mesh_data *md) {
    s->ml_count = s->ml_finest = s->ml_tris = 0;
    /* a cluster-LOD mesh's other levels must be in its range (gl_resources.c) */
    if (!meshcull_on(f) || !s->index_count || s->prev ||
        (md->finest_index_count && s->index_room != md->index_count))
        return OAK_OK;
    uint32_t *tri_of = NULL;
    const oak_meshlets *ml = _oak_meshcull_gpu_cut(h, md, &tri_of);
    if (!ml) return OAK_OK; /* drawn uncut */
    uint32_t n = _oak_meshcull_gpu_uvec4(ml);
    /* reuse the mesh's old range when the new records fit, else append */
    bool fits = s->ml_room >= n && s->ml_room;
    uint32_t first = fits ? s->ml_first : f->ml_fill;
    oak_result r = OAK_OK;
    uint32_t(*words)[4] = oak_alloc((size_t)n * 16);
    if (!words) r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for meshlets");
    if (!r && (uint64_t)first + n > UINT32_MAX / 4)
        r = oak_error(OAK_ERROR_LIMIT, "gl: meshlet pool");
    if (!r) {
        _oak_meshcull_gpu_pack(words, first, ml, tri_of);
        r = _oak_gl_buffer_upload(&f->meshlets, (size_t)first * 16, words, (size_t)n * 16);
    }
    if (!r) {
        if (!fits) f->ml_fill += n, s->ml_room = n;
        s->ml_first = first;
        s->ml_count = ml->count;
        _oak_meshcull_gpu_levels(ml, md, &s->ml_finest, &s->ml_tris);
    }
    oak_free(words);
    oak_free(tri_of);
    return r;
}

oak_result _oak_gl_meshcull_plan(_oak_gl_frame *f, const oak_render_view *v) {
    const oak_draw_list *l = &v->draws;
    uint32_t nd = l->count;
    f->mc_jobs = 0;
    memset(f->mc_count, 0, sizeof f->mc_count);
    memset(f->mc_first, 0, sizeof f->mc_first);
    if (!OAK_GROW(f->mc_take, f->mc_take_cap, nd + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull scratch");
    memset(f->mc_take, 0, nd + 1);
    /* this frame's copy: a frame that culls nothing keeps no fence (its
       counters are zero); the copy three frames old, unread, is dropped */
    uint32_t k = _oak_gl_frame_slot(f);
    if (f->mc_ring_fence[k]) glDeleteSync(f->mc_ring_fence[k]);
    f->mc_ring_fence[k] = NULL;
    f->mc_ring.serial[k] = f->query_frames + 1;
    if (!meshcull_on(f) || v->occ_gpu) return OAK_OK; /* Hi-Z: a command per draw (gl_hiz.c) */
    /* the vis group as build_list finds it: masked 2, double-sided 1 */
    uint32_t jobs = 0;
    uint64_t tris = 0;
    for (uint32_t i = 0; i < nd; i++) {
        const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
        const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, l->material[i]);
        if (!ms || !mt || !ms->ml_count || !ms->index_count || mt->blend) continue;
        f->mc_take[i] = 1;
        jobs++;
        tris += ms->ml_tris; /* a cluster-LOD mesh: its finest level's */
    }
    if (!jobs) return OAK_OK;
    uint64_t cmd_word = OAK_GPU_MESHCULL_HEAD_WORDS + (uint64_t)jobs * OAK_GPU_MESHCULL_JOB_WORDS;
    uint64_t map_word = cmd_word + (uint64_t)jobs * CMD_WORDS;
    uint64_t index_word = map_word + tris;
    uint64_t words = index_word + tris * 3;
    if (words > UINT32_MAX / 4) { /* too many to cull this frame: every draw as it is */
        memset(f->mc_take, 0, nd + 1);
        return OAK_OK;
    }
    if (!OAK_GROW(f->mc_words, f->mc_words_cap, (uint32_t)map_word))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull words");
    oak_result r = _oak_gl_buffer_reserve(&f->meshcull, (size_t)words * 4, false);
    if (r != OAK_OK) return r;
    uint32_t *w = f->mc_words;
    _oak_meshcull_view cv;
    _oak_meshcull_view_make(&cv, v, v->width, v->height);
    uint32_t job = 0, region = 0;
    for (uint32_t g = 0; g < 4; g++) { /* commands in the vis groups' order */
        f->mc_first[g] = job;
        for (uint32_t i = 0; i < nd; i++) {
            if (!f->mc_take[i]) continue;
            const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, l->material[i]);
            if ((mt->mask ? 2u : 0u) + (mt->double_sided ? 1u : 0u) != g) continue;
            const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
            uint32_t *jw =
                w + OAK_GPU_MESHCULL_HEAD_WORDS + (size_t)job * OAK_GPU_MESHCULL_JOB_WORDS;
            uint32_t cw = (uint32_t)(cmd_word + (uint64_t)job * CMD_WORDS);
            /* false: a world that cannot be culled keeps its finest meshlets */
            (void)_oak_meshcull_gpu_job(jw, &cv, (const float *)l->world[i], !(g & 1u), i,
                                        ms->ml_first, ms->ml_count, ms->ml_finest, region,
                                        ms->ml_tris, cw);
            _oak_gl_command c = {0, 1, (uint32_t)(index_word + (uint64_t)region * 3),
                                 (int32_t)ms->base_vertex, i};
            memcpy(w + cw, &c, sizeof c);
            f->draw_data[i].prev[2] = (uint32_t)map_word + region + 1;
            region += ms->ml_tris;
            job++;
        }
        f->mc_count[g] = job - f->mc_first[g];
    }
    _oak_meshcull_gpu_head(w, &cv, jobs, (uint32_t)index_word, (uint32_t)map_word);
    f->mc_jobs = jobs;
    f->mc_cmd_word = (uint32_t)cmd_word;
    /* the host's part: head, jobs and commands (the kernel writes the rest) */
    glNamedBufferSubData(f->meshcull.id, 0, (GLsizeiptr)map_word * 4, w);
    return OAK_OK;
}

oak_result _oak_gl_run_meshcull(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    if (!f->mc_jobs) return OAK_OK;
    if (!f->prog_meshcull) {
        oak_result r = _oak_gl_compute(&f->prog_meshcull, "meshcull", oak_gl_src_meshcull_comp);
        if (r != OAK_OK) return r;
    }
    glUseProgram(f->prog_meshcull);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, f->draws.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INDICES, f->indices.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHLETS, f->meshlets.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHCULL, f->meshcull.id);
    glDispatchCompute(f->mc_jobs < 65535u ? f->mc_jobs : 65535u, 1, 1); /* the kernel strides */
    /* readers: the raster's commands, elements and vis.frag's map; the copy */
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT |
                    GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    /* the head: its counters are words 0-3, 7, 34 and Hi-Z's 37 and 43 */
    const GLsizeiptr head = OAK_GPU_MESHCULL_HEAD_WORDS * 4;
    uint32_t k = _oak_gl_frame_slot(f);
    oak_result r = _oak_gl_buffer_reserve(&f->mc_read[k], head, false);
    if (r != OAK_OK) return r;
    glCopyNamedBufferSubData(f->meshcull.id, f->mc_read[k].id, 0, 0, head);
    if (f->mc_ring_fence[k]) glDeleteSync(f->mc_ring_fence[k]);
    f->mc_ring_fence[k] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    return OAK_OK;
}

void _oak_gl_meshcull_draw(_oak_gl_frame *f) {
    if (!f->mc_jobs) return;
    glBindVertexArray(f->vao);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHCULL, f->meshcull.id); /* vis.frag's map */
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->meshcull.id);
    glVertexArrayElementBuffer(f->vao, f->meshcull.id);
    for (uint32_t g = 0; g < 4; g++) {
        if (!f->mc_count[g]) continue;
        if ((g & 1u) == 0)
            glEnable(GL_CULL_FACE);
        else
            glDisable(GL_CULL_FACE);
        glUseProgram(g >= 2 ? f->prog_vis_mask : f->prog_vis);
        size_t at = ((size_t)f->mc_cmd_word + (size_t)f->mc_first[g] * CMD_WORDS) * 4;
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, (const void *)(uintptr_t)at,
                                    (GLsizei)f->mc_count[g], 0);
    }
    glDisable(GL_CULL_FACE);
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
}

void _oak_gl_meshcull_stats(_oak_gl_frame *f, oak_meshlet_stats *out) {
    *out = (oak_meshlet_stats){0};
    /* the newest frame whose counters are known: zero (it culled nothing)
       or its copy's fence passed */
    uint64_t newest = f->query_frames + 1;
    for (uint64_t want = newest; want > _oak_gl_ring_floor(&f->mc_ring, newest); want--) {
        uint32_t k = _oak_gl_ring_slot(want);
        if (f->mc_ring.serial[k] != want) continue;
        GLsync fence = f->mc_ring_fence[k];
        if (fence) {
            GLenum s = glClientWaitSync(fence, 0, 0);
            if (s != GL_ALREADY_SIGNALED && s != GL_CONDITION_SATISFIED) continue;
            uint32_t head[OAK_GPU_MESHCULL_HEAD_WORDS] = {0};
            glGetNamedBufferSubData(f->mc_read[k].id, 0, sizeof head, head);
            _oak_meshcull_gpu_stats(&f->mc_stats, head);
            glDeleteSync(fence);
            f->mc_ring_fence[k] = NULL;
        } else {
            f->mc_stats = (oak_meshlet_stats){0};
        }
        f->mc_stats_seen = true;
        f->mc_ring.seen = want;
        break;
    }
    if (f->mc_stats_seen) *out = f->mc_stats;
}

void _oak_gl_meshcull_release(_oak_gl_frame *f) {
    if (f->prog_meshcull) glDeleteProgram(f->prog_meshcull);
    for (uint32_t k = 0; k < OAK_GL_QUERY_SETS; k++) {
        if (f->mc_ring_fence[k]) glDeleteSync(f->mc_ring_fence[k]);
        _oak_gl_buffer_release(&f->mc_read[k]);
    }
    _oak_gl_buffer_release(&f->meshlets);
    _oak_gl_buffer_release(&f->meshcull);
    oak_free(f->mc_words);
    oak_free(f->mc_take);
}
