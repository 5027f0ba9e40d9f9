/* Per-meshlet culling of plain draws on OpenGL (docs/ARCHITECTURE.md
 * "Meshlet culling"): the same meshcull.comp as Vulkan. Each eligible
 * mesh's meshlets go to the meshlet pool once, with its upload; each frame
 * the upload pass makes a job per main-view draw of such a mesh in the vis
 * groups, the meshcull pass counts what each job keeps, places every
 * job's region in the frame at the sum of those before it and writes the
 * kept meshlets' triangles there (meshcull.comp, meshcull_scan.comp,
 * meshcull_write.comp) with each job's index count, and the raster draws
 * those commands with that buffer as the element buffer. Under two-pass
 * Hi-Z (docs/ARCHITECTURE.md "Occlusion per meshlet", as Vulkan's) the
 * meshcull pass is the EARLY step and gl_hiz.c runs the LATE step
 * (_oak_gl_meshcull_late) after the pyramid. The counters are copied aside
 * behind a fence and read once it has passed (a frame or more late, never
 * a stall). */
#include <stdlib.h>
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

/* ---- regions placed in the frame ------------------------------------------ */

/* The expanded buffers' limit in bytes: the device's storage block size
   (at most 4 GiB: the kernel's words are 32-bit), or OAK_MESHCULL_MAX_BYTES
   (a test hook) when smaller. */
static uint64_t buffer_limit(_oak_gl_frame *f) {
    if (!f->mc_limit) {
        GLint64 dev = 0;
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &dev);
        f->mc_limit = dev > 0 && (uint64_t)dev < UINT32_MAX ? (uint64_t)dev : UINT32_MAX;
    }
    return _oak_meshcull_gpu_limit(f->mc_limit);
}

/* A buffer's parts for `jobs` jobs of `mls` meshlets whose worst case is
   `tris` triangles: room is what the regions share (tris, so no cut is
   clipped, or less under the limit: the scan clamps and counts); false
   when not a triangle fits (the draws go whole). */
typedef struct mc_layout {
    uint64_t cmd_word, ml_word, map_word, index_word, words, room;
} mc_layout;

static bool lay_out(_oak_gl_frame *f, uint32_t jobs, uint64_t mls, uint64_t tris, mc_layout *o) {
    o->cmd_word = OAK_GPU_MESHCULL_HEAD_WORDS + (uint64_t)jobs * OAK_GPU_MESHCULL_JOB_WORDS;
    o->ml_word = o->cmd_word + (uint64_t)jobs * CMD_WORDS;
    o->map_word = o->ml_word + mls;
    o->room = _oak_meshcull_gpu_room(o->map_word, tris, buffer_limit(f) / 4);
    o->index_word = o->map_word + o->room;
    o->words = o->index_word + o->room * 3;
    return o->room != 0;
}

/* The newest frame whose counters are known, once: zero (it culled
   nothing) or its copy's fence passed; its counters (its heads' copy)
   into mc_stats. */
static void read_newest(_oak_gl_frame *f) {
    uint64_t newest = f->query_frames + 1;
    for (uint64_t want = newest; want > _oak_gl_ring_floor(&f->mc_ring, newest); want--) {
        uint32_t k = _oak_gl_ring_slot(want);
        if (f->mc_ring.serial[k] != want) continue;
        GLsync fence = f->mc_ring_fence[k];
        if (fence) {
            GLenum s = glClientWaitSync(fence, 0, 0);
            if (s != GL_ALREADY_SIGNALED && s != GL_CONDITION_SATISFIED) continue;
            uint32_t head[2][OAK_GPU_MESHCULL_HEAD_WORDS];
            glGetNamedBufferSubData(f->mc_read[k].id, 0, (GLsizeiptr)sizeof head, head);
            _oak_meshcull_gpu_stats(&f->mc_stats, head[0]);
            f->mc_stats.overflow_triangles += head[1][OAK_GPU_MESHCULL_OVERFLOW_WORD];
            f->mc_stats.shadow_triangles = head[1][OAK_GPU_MESHCULL_SHADOW_TRIS];
            f->mc_stats.shadow_culled_lod = head[1][OAK_GPU_MESHCULL_SHADOW_LOD];
            glDeleteSync(fence);
            f->mc_ring_fence[k] = NULL;
        } else {
            f->mc_stats = (oak_meshlet_stats){0};
        }
        f->mc_stats_seen = true;
        f->mc_ring.seen = want;
        break;
    }
}

oak_result _oak_gl_meshcull_plan(_oak_gl_frame *f, const oak_render_view *v) {
    const oak_draw_list *l = &v->draws;
    uint32_t nd = l->count;
    f->mc_jobs = f->mcs_jobs = 0; /* the casters' plan, when shadows are on, follows */
    memset(f->mcs_count, 0, sizeof f->mcs_count);
    memset(f->mc_count, 0, sizeof f->mc_count);
    memset(f->mc_first, 0, sizeof f->mc_first);
    if (!OAK_GROW(f->mc_take, f->mc_take_cap, nd + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull scratch");
    memset(f->mc_take, 0, nd + 1);
    /* this frame's copy: a frame that culls nothing keeps no fence (its
       counters are zero); the copy three frames old, unread, is dropped */
    uint32_t k = _oak_gl_frame_slot(f);
    read_newest(f); /* the counters only: nothing read back sizes a region */
    if (f->mc_ring_fence[k]) glDeleteSync(f->mc_ring_fence[k]);
    f->mc_ring_fence[k] = NULL;
    f->mc_ring.serial[k] = f->query_frames + 1;
    f->mc_fallback[0] = f->mc_fallback[1] = 0;
    if (!meshcull_on(f)) return OAK_OK;
    /* the vis group as build_list finds it: masked 2, double-sided 1 */
    uint32_t jobs = 0;
    uint64_t tris = 0, mls = 0;
    for (uint32_t i = 0; i < nd; i++) {
        const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
        const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, l->material[i]);
        if (!ms || !mt || !ms->ml_count || !ms->index_count || mt->blend) continue;
        f->mc_take[i] = 1;
        jobs++;
        tris += ms->ml_tris, mls += ms->ml_count;
    }
    if (!jobs) return OAK_OK;
    mc_layout o;
    if (!lay_out(f, jobs, mls, tris, &o)) { /* not a triangle: every draw as it is, counted */
        memset(f->mc_take, 0, nd + 1);
        f->mc_fallback[0] = jobs;
        return OAK_OK;
    }
    if (!OAK_GROW(f->mc_words, f->mc_words_cap, (uint32_t)o.ml_word))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull words");
    uint64_t cmd_word = o.cmd_word, map_word = o.map_word, index_word = o.index_word;
    uint64_t ml_word = o.ml_word;
    oak_result r = _oak_gl_buffer_reserve(&f->meshcull, (size_t)o.words * 4, false);
    if (r != OAK_OK) return r;
    uint32_t *w = f->mc_words;
    _oak_meshcull_view cv;
    _oak_meshcull_view_make(&cv, v, v->width, v->height);
    uint32_t job = 0;
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
                                        ms->ml_first, ms->ml_count, ms->ml_finest,
                                        (uint32_t)ml_word, cw);
            /* the count and first index are the scan's (meshcull_scan.comp) */
            _oak_gl_command c = {0, 1, (uint32_t)index_word, (int32_t)ms->base_vertex, i};
            memcpy(w + cw, &c, sizeof c);
            /* vis.frag finds its region's map through its job */
            f->draw_data[i].prev[2] = (uint32_t)(jw - w) + 1;
            ml_word += ms->ml_count;
            job++;
        }
        f->mc_count[g] = job - f->mc_first[g];
    }
    _oak_meshcull_gpu_head(w, &cv, jobs, (uint32_t)index_word, (uint32_t)map_word);
    f->mc_jobs = jobs;
    f->mc_cmd_word = (uint32_t)cmd_word;
    f->mc_host_words = (uint32_t)o.ml_word;
    /* the host's part: head, jobs and commands (the kernel writes the
       rest); under Hi-Z once the bits are placed (_oak_gl_meshcull_hiz_place) */
    if (!v->occ_gpu) glNamedBufferSubData(f->meshcull.id, 0, (GLsizeiptr)o.ml_word * 4, w);
    return OAK_OK;
}

oak_result _oak_gl_meshcull_hiz_place(_oak_gl_frame *f, const oak_render_view *v, uint64_t base,
                                      uint64_t *words) {
    *words = 0;
    if (!f->mc_jobs) return OAK_OK;
    /* as Vulkan's: one placement (backend/gpu/meshcull_hiz.c) */
    oak_result r =
        _oak_meshcull_hiz_place(&f->mc_keys, f->mc_words, f->mc_jobs, v, base, words, "gl");
    if (r != OAK_OK) return r;
    glNamedBufferSubData(f->meshcull.id, 0, (GLsizeiptr)f->mc_host_words * 4, f->mc_words);
    return OAK_OK;
}

/* A caster's key (cascade x 8 + movers x 4 + its group, as build_list's:
   masked 2, double-sided 1) when it is a cluster-LOD mesh's (more meshlets
   than its finest level's, as the CPU's _oak_cpu_meshcull_lod picks them)
   with a command this frame, else UINT32_MAX. */
static uint32_t shadow_key(_oak_gl_frame *f, const oak_render_view *v, uint32_t i,
                           const _oak_gl_mesh_slot **out) {
    const oak_draw_list *l = &v->casters;
    const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
    const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, l->material[i]);
    if (!ms || !mt || !ms->index_count || mt->blend || !ms->ml_count ||
        ms->ml_finest >= ms->ml_count || (f->draw_data[i].info[3] & OAK_DRAW_NO_SHADOW))
        return UINT32_MAX;
    uint32_t n = v->cascade_count < OAK_MAX_CASCADES ? v->cascade_count : OAK_MAX_CASCADES;
    for (uint32_t c = 0; c < n; c++) {
        const oak_shadow_cascade *cas = &v->cascades[c];
        if (i < cas->first_caster || i >= cas->first_caster + cas->caster_count) continue;
        *out = ms;
        return c * 8 + (i >= cas->first_caster + cas->static_count ? 4u : 0u) +
               (mt->mask ? 2u : 0u) + (mt->double_sided ? 1u : 0u);
    }
    return UINT32_MAX;
}

oak_result _oak_gl_meshcull_shadow_plan(_oak_gl_frame *f, const oak_render_view *v) {
    const oak_draw_list *l = &v->casters;
    uint32_t nc = l->count;
    f->mcs_jobs = 0;
    memset(f->mcs_count, 0, sizeof f->mcs_count);
    memset(f->mcs_first, 0, sizeof f->mcs_first);
    if (!OAK_GROW(f->mcs_take, f->mcs_take_cap, nc + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull scratch");
    memset(f->mcs_take, 0, nc + 1);
    if (!meshcull_on(f)) return OAK_OK;
    uint32_t jobs = 0;
    uint64_t tris = 0, mls = 0;
    for (uint32_t i = 0; i < nc; i++) {
        const _oak_gl_mesh_slot *ms = NULL;
        if (shadow_key(f, v, i, &ms) == UINT32_MAX) continue;
        f->mcs_take[i] = 1;
        jobs++;
        tris += ms->ml_tris, mls += ms->ml_count;
    }
    if (!jobs) return OAK_OK;
    mc_layout o;
    if (!lay_out(f, jobs, mls, tris, &o)) { /* not a triangle: their finest levels, counted */
        memset(f->mcs_take, 0, nc + 1);
        f->mc_fallback[1] = jobs;
        return OAK_OK;
    }
    if (!OAK_GROW(f->mcs_words, f->mcs_words_cap, (uint32_t)o.ml_word))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull words");
    uint64_t cmd_word = o.cmd_word, map_word = o.map_word, index_word = o.index_word;
    uint64_t ml_word = o.ml_word;
    oak_result r = _oak_gl_buffer_reserve(&f->meshcull_shadow, (size_t)o.words * 4, false);
    if (r != OAK_OK) return r;
    uint32_t *w = f->mcs_words;
    uint32_t job = 0, tile = f->shadow_size / 2;
    for (uint32_t key = 0; key < OAK_MAX_CASCADES * 8; key++) {
        f->mcs_first[key] = job;
        if (key / 8 >= v->cascade_count) continue;
        _oak_meshcull_view sv; /* the cascade's texel, as cpu_pass_shadow.c's */
        _oak_meshcull_view_shadow(&sv, (const float *)v->cascades[key / 8].view_proj, tile, true,
                                  NULL, 0);
        for (uint32_t i = 0; i < nc; i++) {
            const _oak_gl_mesh_slot *ms = NULL;
            if (!f->mcs_take[i] || shadow_key(f, v, i, &ms) != key) continue;
            uint32_t *jw =
                w + OAK_GPU_MESHCULL_HEAD_WORDS + (size_t)job * OAK_GPU_MESHCULL_JOB_WORDS;
            uint32_t cw = (uint32_t)(cmd_word + (uint64_t)job * CMD_WORDS);
            (void)_oak_meshcull_gpu_shadow_job(jw, &sv, (const float *)l->world[i], i, ms->ml_first,
                                               ms->ml_count, ms->ml_finest, (uint32_t)ml_word, cw);
            _oak_gl_command c = {0, 1, (uint32_t)index_word, (int32_t)ms->base_vertex, i};
            memcpy(w + cw, &c, sizeof c);
            ml_word += ms->ml_count;
            job++;
        }
        f->mcs_count[key] = job - f->mcs_first[key];
    }
    _oak_meshcull_view cv;
    _oak_meshcull_view_make(&cv, v, v->width, v->height); /* the head's (unread by shadow jobs) */
    _oak_meshcull_gpu_head(w, &cv, jobs, (uint32_t)index_word, (uint32_t)map_word);
    f->mcs_jobs = jobs;
    f->mcs_cmd_word = (uint32_t)cmd_word;
    glNamedBufferSubData(f->meshcull_shadow.id, 0, (GLsizeiptr)o.ml_word * 4, w);
    return OAK_OK;
}

void _oak_gl_meshcull_shadow_draw(_oak_gl_frame *f, uint32_t cascade, bool movers) {
    if (!f->mcs_jobs || cascade >= OAK_MAX_CASCADES) return;
    uint32_t key = cascade * 8 + (movers ? 4u : 0u);
    if (!(f->mcs_count[key] | f->mcs_count[key + 1] | f->mcs_count[key + 2] |
          f->mcs_count[key + 3]))
        return;
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->meshcull_shadow.id);
    glVertexArrayElementBuffer(f->vao, f->meshcull_shadow.id);
    for (uint32_t k = 0; k < 4; k++) { /* casters draw both faces */
        uint32_t n = f->mcs_count[key + k];
        if (!n) continue;
        glUseProgram(k >= 2 ? f->prog_shadow_mask : f->prog_shadow);
        size_t at = ((size_t)f->mcs_cmd_word + (size_t)f->mcs_first[key + k] * CMD_WORDS) * 4;
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT, (const void *)(uintptr_t)at,
                                    (GLsizei)n, 0);
    }
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
}

/* The meshcull pass over one buffer of `jobs` jobs (bound) as two-pass
   Hi-Z's `step` (EARLY: also the step without Hi-Z): the count step, the
   scan that places the regions, the write step. */
static void cull_buffer(_oak_gl_frame *f, uint32_t jobs, uint32_t step) {
    GLuint groups = jobs < 65535u ? jobs : 65535u; /* the kernels stride */
    /* the step: common/hiz.glsl's and common/meshcull_step.glsl's uniform */
    glProgramUniform1ui(f->prog_meshcull, 0, step);
    glProgramUniform1ui(f->prog_meshcull_scan, 0, step);
    glProgramUniform1ui(f->prog_meshcull_write, 0, step);
    glUseProgram(f->prog_meshcull);
    glDispatchCompute(groups, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_meshcull_scan);
    glDispatchCompute(1, 1, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_meshcull_write);
    glDispatchCompute(groups, 1, 1);
}

/* The view's head into this frame's counters' copy, behind its fence. */
static void copy_counters(_oak_gl_frame *f) {
    uint32_t k = _oak_gl_frame_slot(f);
    if (f->mc_jobs)
        glCopyNamedBufferSubData(f->meshcull.id, f->mc_read[k].id, 0, 0,
                                 OAK_GPU_MESHCULL_HEAD_WORDS * 4);
    if (f->mc_ring_fence[k]) glDeleteSync(f->mc_ring_fence[k]);
    f->mc_ring_fence[k] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
}

oak_result _oak_gl_run_meshcull(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    f->mc_late = false;
    if (!f->mc_jobs && !f->mcs_jobs) return OAK_OK;
    oak_result r = OAK_OK;
    if (!f->prog_meshcull)
        r = _oak_gl_compute(&f->prog_meshcull, "meshcull", oak_gl_src_meshcull_comp);
    if (!r && !f->prog_meshcull_scan)
        r = _oak_gl_compute(&f->prog_meshcull_scan, "meshcull_scan", oak_gl_src_meshcull_scan_comp);
    if (!r && !f->prog_meshcull_write)
        r = _oak_gl_compute(&f->prog_meshcull_write, "meshcull_write",
                            oak_gl_src_meshcull_write_comp);
    if (r != OAK_OK) return r;
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INDICES, f->indices.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHLETS, f->meshlets.id);
    /* under Hi-Z this is the view's EARLY step: it reads the cut flag and
       the bits last frame's LATE step wrote (the casters' head says no
       Hi-Z: they read neither) */
    f->mc_late = f->hiz_on && f->mc_jobs;
    if (f->mc_late) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_HIZ, f->hiz.id);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_HIZ_KEEP, f->hiz_keep.id);
        glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    }
    /* the casters' cuts: their records, their buffer */
    if (f->mcs_jobs) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, f->casters.id);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHCULL, f->meshcull_shadow.id);
        cull_buffer(f, f->mcs_jobs, OAK_GPU_HIZ_STEP_EARLY);
    }
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, f->draws.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHCULL, f->meshcull.id);
    if (f->mc_jobs) cull_buffer(f, f->mc_jobs, OAK_GPU_HIZ_STEP_EARLY);
    /* readers: the raster's and the shadow pass's commands, elements and
       vis.frag's map; the copy */
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT |
                    GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    /* the heads, the view's then the casters' (zero where none ran): the
       counters are words 0-3, 7, 34, Hi-Z's 37 and 43, the maps' 35 and 38;
       under Hi-Z the view's once its LATE step has counted */
    const GLsizeiptr head = OAK_GPU_MESHCULL_HEAD_WORDS * 4;
    uint32_t k = _oak_gl_frame_slot(f);
    r = _oak_gl_buffer_reserve(&f->mc_read[k], (size_t)(2 * head), false);
    if (r != OAK_OK) return r;
    glClearNamedBufferSubData(f->mc_read[k].id, GL_R32UI, 0, 2 * head, GL_RED_INTEGER,
                              GL_UNSIGNED_INT, NULL);
    if (f->mcs_jobs)
        glCopyNamedBufferSubData(f->meshcull_shadow.id, f->mc_read[k].id, 0, head, head);
    if (!f->mc_late) copy_counters(f);
    return OAK_OK;
}

void _oak_gl_meshcull_late(_oak_gl_frame *f) {
    if (!f->mc_late) return;
    /* the meshcull pass's bindings, which the passes since may have moved
       (Hi-Z's own are bound); its programs exist (it ran EARLY) */
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INDICES, f->indices.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHLETS, f->meshlets.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, f->draws.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHCULL, f->meshcull.id);
    /* the pyramid and the head words the draws' LATE step wrote */
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    /* each meshlet against the pyramid, its bit written; the view's
       regions placed anew and written over EARLY's (pass 1 drew them
       before these commands: GL keeps a command's reads before a later
       command's writes) */
    cull_buffer(f, f->mc_jobs, OAK_GPU_HIZ_STEP_LATE);
    /* readers: pass 2's commands, elements and vis.frag's map; the copy */
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT |
                    GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    glUseProgram(0);
    copy_counters(f);
    f->mc_late = false;
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
    read_newest(f);
    if (f->mc_stats_seen) *out = f->mc_stats;
    out->fallback_draws = f->mc_fallback[0] + f->mc_fallback[1]; /* the last plans' */
}

void _oak_gl_meshcull_release(_oak_gl_frame *f) {
    if (f->prog_meshcull) glDeleteProgram(f->prog_meshcull);
    if (f->prog_meshcull_scan) glDeleteProgram(f->prog_meshcull_scan);
    if (f->prog_meshcull_write) glDeleteProgram(f->prog_meshcull_write);
    for (uint32_t k = 0; k < OAK_GL_QUERY_SETS; k++) {
        if (f->mc_ring_fence[k]) glDeleteSync(f->mc_ring_fence[k]);
        _oak_gl_buffer_release(&f->mc_read[k]);
    }
    _oak_gl_buffer_release(&f->meshlets);
    _oak_gl_buffer_release(&f->meshcull);
    oak_free(f->mc_words);
    oak_free(f->mc_take);
    _oak_gl_buffer_release(&f->meshcull_shadow);
    oak_free(f->mcs_words);
    oak_free(f->mcs_take);
    _oak_meshcull_hiz_keys_free(&f->mc_keys);
}
