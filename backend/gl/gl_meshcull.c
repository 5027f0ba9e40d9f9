/* Per-meshlet culling of plain draws on OpenGL (docs/ARCHITECTURE.md
 * "Meshlet culling"): the same meshcull.comp as Vulkan. Each eligible
 * mesh's meshlets go to the meshlet pool once, with its upload; each frame
 * the upload pass makes a job per main-view draw of such a mesh in the vis
 * groups (not under two-pass Hi-Z), the meshcull pass writes the kept
 * meshlets' triangles into the frame's expanded index buffer and each
 * job's index count, and the raster draws those commands with that buffer
 * as the element buffer. The counters are copied aside behind a fence and
 * read once it has passed (a frame or more late, never a stall). */
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
    s->ml_count = s->ml_finest = s->ml_tris = s->mc_need = 0;
    s->mc_need_serial = 0; /* its regions' need is learnt anew */
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

/* ---- regions sized by the cut ---------------------------------------------- */

/* The expanded buffers' limit in bytes: the device's storage block size
   (at most 4 GiB: the kernel's words are 32-bit), or OAK_MESHCULL_MAX_BYTES
   (a test hook) when smaller. */
static uint64_t buffer_limit(_oak_gl_frame *f) {
    if (!f->mc_limit) {
        GLint64 dev = 0;
        glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &dev);
        f->mc_limit = dev > 0 && (uint64_t)dev < UINT32_MAX ? (uint64_t)dev : UINT32_MAX;
    }
    uint64_t lim = f->mc_limit;
    const char *e = getenv("OAK_MESHCULL_MAX_BYTES");
    if (e && *e) {
        unsigned long long v = strtoull(e, NULL, 10);
        if (v && v < lim) lim = v;
    }
    return lim;
}

/* where a draw is: its world's translation, hashed (vk_meshcull.c's) */
static uint32_t place_of(const float world[16]) {
    uint32_t h = 2166136261u, b[3];
    memcpy(b, world + 12, sizeof b);
    for (int k = 0; k < 3; k++) h = (h ^ b[k]) * 16777619u;
    return h;
}

/* A job's region (kind 0 a view draw's, 1 a caster's): its finest level
   while its mesh's need is unknown, else 2 x the need and 256, the need
   being the draw's own when the same draw held the mesh at the same place
   last time, else the most any job of the mesh kept (as vk_meshcull.c:
   past it the kernel clamps and counts, the next frame's region holds it). */
static uint32_t region_for(const _oak_gl_frame *f, uint32_t kind, const _oak_gl_mesh_slot *ms,
                           uint32_t draw, uint32_t place) {
    if (!ms->mc_need_serial) return ms->ml_tris;
    const uint32_t(*dn)[4] = (const uint32_t(*)[4])f->mc_dneed[kind];
    bool same = draw < f->mc_dneed_cap[kind] && dn[draw][3] && dn[draw][0] == ms->id &&
                dn[draw][2] == place;
    uint64_t r = 2 * (uint64_t)(same ? dn[draw][1] : ms->mc_need) + 256;
    return r < ms->ml_tris ? (uint32_t)r : ms->ml_tris;
}

/* A buffer's parts for `jobs` jobs whose regions want `tris` triangles:
   room is what the regions get (tris, or shrunk alike under the limit);
   false when not even a triangle each fits (the draws go whole). */
typedef struct mc_layout {
    uint64_t cmd_word, map_word, index_word, words, room, tris;
} mc_layout;

static bool lay_out(_oak_gl_frame *f, uint32_t jobs, uint64_t tris, mc_layout *o) {
    o->tris = o->room = tris;
    o->cmd_word = OAK_GPU_MESHCULL_HEAD_WORDS + (uint64_t)jobs * OAK_GPU_MESHCULL_JOB_WORDS;
    o->map_word = o->cmd_word + (uint64_t)jobs * CMD_WORDS;
    o->index_word = o->map_word + tris;
    o->words = o->index_word + tris * 3;
    uint64_t limit = buffer_limit(f) / 4;
    if (o->words <= limit) return true;
    o->room = limit > o->map_word ? (limit - o->map_word) / 4 : 0;
    if (o->room < jobs) return false;
    o->index_word = o->map_word + o->room;
    o->words = o->index_word + o->room * 3;
    return true;
}

/* A region under a shrunk layout: its share of the room. */
static uint32_t shrunk(const mc_layout *o, uint32_t reg) {
    return o->room < o->tris ? (uint32_t)((uint64_t)reg * o->room / o->tris) : reg;
}

/* Notes job `job` of this frame's set (kind 0 view, 1 caster) for the read back. */
static void ring_note(_oak_gl_frame *f, uint32_t job, uint32_t draw, uint32_t id, uint32_t place) {
    uint32_t k = _oak_gl_frame_slot(f);
    f->mc_ring_job[k][job][0] = draw;
    f->mc_ring_job[k][job][1] = id;
    f->mc_ring_job[k][job][2] = place;
}

/* Per draw of kind (0 the view's, 1 the casters'), what its job kept:
   grown with zeros. */
static bool dneed_grow(_oak_gl_frame *f, uint32_t kind, uint32_t n) {
    uint32_t had = f->mc_dneed_cap[kind];
    if (!OAK_GROW(f->mc_dneed[kind], f->mc_dneed_cap[kind], n)) return false;
    if (f->mc_dneed_cap[kind] > had)
        memset(f->mc_dneed[kind] + had, 0,
               (f->mc_dneed_cap[kind] - had) * sizeof *f->mc_dneed[kind]);
    return true;
}

/* What read_set will need for a set of `jobs` jobs over `draws` draws of
   kind, grown by the plan: a set is read three frames after it is made,
   and a frame that reads one then makes no heap call. */
static bool reserve_reads(_oak_gl_frame *f, uint32_t kind, uint32_t draws, uint32_t jobs) {
    uint32_t words = 2 * OAK_GPU_MESHCULL_HEAD_WORDS + jobs * OAK_GPU_MESHCULL_JOB_WORDS;
    return OAK_GROW(f->mc_read_buf, f->mc_read_buf_cap, words) && dneed_grow(f, kind, draws);
}

/* Set k's copy (its fence passed): both heads into heads, and what each
   job kept (its word 12, before the clamp) into its mesh's and its draw's
   need. */
static void read_set(_oak_gl_frame *f, uint32_t k, uint32_t heads[2][OAK_GPU_MESHCULL_HEAD_WORDS]) {
    uint32_t nv = f->mc_ring_jobs[k][0], nc = f->mc_ring_jobs[k][1];
    size_t hw = 2 * OAK_GPU_MESHCULL_HEAD_WORDS,
           words = hw + (size_t)(nv + nc) * OAK_GPU_MESHCULL_JOB_WORDS;
    memset(heads, 0, hw * 4);
    /* kept between frames: a warm frame makes no heap call */
    uint32_t *buf =
        OAK_GROW(f->mc_read_buf, f->mc_read_buf_cap, (uint32_t)words) ? f->mc_read_buf : NULL;
    if (!buf) { /* the counters still */
        glGetNamedBufferSubData(f->mc_read[k].id, 0, (GLsizeiptr)hw * 4, heads);
        return;
    }
    glGetNamedBufferSubData(f->mc_read[k].id, 0, (GLsizeiptr)words * 4, buf);
    memcpy(heads, buf, hw * 4);
    uint64_t serial = f->mc_ring.serial[k];
    for (uint32_t j = 0; j < nv + nc; j++) {
        uint32_t kind = j >= nv, kept = buf[hw + (size_t)j * OAK_GPU_MESHCULL_JOB_WORDS + 12];
        const uint32_t *e = f->mc_ring_job[k][j];
        uint32_t slot = oak_handle_index(e[1]);
        if (slot >= f->mesh_cap || f->meshes[slot].id != e[1]) continue;
        _oak_gl_mesh_slot *ms = &f->meshes[slot];
        if (ms->mc_need_serial < serial) ms->mc_need = kept, ms->mc_need_serial = serial;
        if (ms->mc_need_serial == serial && kept > ms->mc_need) ms->mc_need = kept;
        if (!dneed_grow(f, kind, e[0] + 1)) continue;
        uint32_t *d = f->mc_dneed[kind][e[0]];
        if (d[3] <= (uint32_t)serial)
            d[0] = e[1], d[1] = kept, d[2] = e[2], d[3] = (uint32_t)serial;
    }
}

/* The newest frame whose counters are known, once: zero (it culled
   nothing) or its copy's fence passed; its counters into mc_stats, what
   its jobs kept into the needs (read_set). */
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
            read_set(f, k, head);
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
    /* the newest finished set sizes the regions: a frame's need, not the
       one three frames back that this slot held (a sphere sliding into
       view outgrew that region, and the draw lost triangles) */
    read_newest(f);
    if (f->mc_ring_fence[k]) glDeleteSync(f->mc_ring_fence[k]);
    f->mc_ring_fence[k] = NULL;
    f->mc_ring.serial[k] = f->query_frames + 1;
    f->mc_ring_jobs[k][0] = f->mc_ring_jobs[k][1] = 0;
    f->mc_fallback[0] = f->mc_fallback[1] = 0;
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
        tris += region_for(f, 0, ms, i, place_of((const float *)l->world[i]));
    }
    if (!jobs) return OAK_OK;
    mc_layout o;
    if (!lay_out(f, jobs, tris, &o)) { /* not a triangle each: every draw as it is, counted */
        memset(f->mc_take, 0, nd + 1);
        f->mc_fallback[0] = jobs;
        return OAK_OK;
    }
    if (!OAK_GROW(f->mc_words, f->mc_words_cap, (uint32_t)o.map_word) ||
        !OAK_GROW(f->mc_ring_job[k], f->mc_ring_job_cap[k], jobs) ||
        !reserve_reads(f, 0, nd + 1, jobs))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull words");
    uint64_t cmd_word = o.cmd_word, map_word = o.map_word, index_word = o.index_word;
    oak_result r = _oak_gl_buffer_reserve(&f->meshcull, (size_t)o.words * 4, false);
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
            uint32_t place = place_of((const float *)l->world[i]);
            uint32_t reg = shrunk(&o, region_for(f, 0, ms, i, place));
            /* false: a world that cannot be culled keeps its finest meshlets */
            (void)_oak_meshcull_gpu_job(jw, &cv, (const float *)l->world[i], !(g & 1u), i,
                                        ms->ml_first, ms->ml_count, ms->ml_finest, region, reg, cw);
            _oak_gl_command c = {0, 1, (uint32_t)(index_word + (uint64_t)region * 3),
                                 (int32_t)ms->base_vertex, i};
            memcpy(w + cw, &c, sizeof c);
            f->draw_data[i].prev[2] = (uint32_t)map_word + region + 1;
            ring_note(f, job, i, ms->id, place);
            region += reg;
            job++;
        }
        f->mc_count[g] = job - f->mc_first[g];
    }
    _oak_meshcull_gpu_head(w, &cv, jobs, (uint32_t)index_word, (uint32_t)map_word);
    f->mc_jobs = jobs;
    f->mc_ring_jobs[k][0] = jobs;
    f->mc_cmd_word = (uint32_t)cmd_word;
    /* the host's part: head, jobs and commands (the kernel writes the rest) */
    glNamedBufferSubData(f->meshcull.id, 0, (GLsizeiptr)map_word * 4, w);
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
    uint64_t tris = 0;
    for (uint32_t i = 0; i < nc; i++) {
        const _oak_gl_mesh_slot *ms = NULL;
        if (shadow_key(f, v, i, &ms) == UINT32_MAX) continue;
        f->mcs_take[i] = 1;
        jobs++;
        tris += region_for(f, 1, ms, i, place_of((const float *)l->world[i]));
    }
    if (!jobs) return OAK_OK;
    mc_layout o;
    if (!lay_out(f, jobs, tris, &o)) { /* not a triangle each: their finest levels, counted */
        memset(f->mcs_take, 0, nc + 1);
        f->mc_fallback[1] = jobs;
        return OAK_OK;
    }
    uint32_t k = _oak_gl_frame_slot(f), nv = f->mc_ring_jobs[k][0];
    if (!OAK_GROW(f->mcs_words, f->mcs_words_cap, (uint32_t)o.map_word) ||
        !OAK_GROW(f->mc_ring_job[k], f->mc_ring_job_cap[k], nv + jobs) ||
        !reserve_reads(f, 1, nc + 1, nv + jobs))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: meshcull words");
    uint64_t cmd_word = o.cmd_word, map_word = o.map_word, index_word = o.index_word;
    oak_result r = _oak_gl_buffer_reserve(&f->meshcull_shadow, (size_t)o.words * 4, false);
    if (r != OAK_OK) return r;
    uint32_t *w = f->mcs_words;
    uint32_t job = 0, region = 0, tile = f->shadow_size / 2;
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
            uint32_t place = place_of((const float *)l->world[i]);
            uint32_t reg = shrunk(&o, region_for(f, 1, ms, i, place));
            (void)_oak_meshcull_gpu_shadow_job(jw, &sv, (const float *)l->world[i], i, ms->ml_first,
                                               ms->ml_count, ms->ml_finest, region, reg, cw);
            _oak_gl_command c = {0, 1, (uint32_t)(index_word + (uint64_t)region * 3),
                                 (int32_t)ms->base_vertex, i};
            memcpy(w + cw, &c, sizeof c);
            ring_note(f, nv + job, i, ms->id, place);
            region += reg;
            job++;
        }
        f->mcs_count[key] = job - f->mcs_first[key];
    }
    _oak_meshcull_view cv;
    _oak_meshcull_view_make(&cv, v, v->width, v->height); /* the head's (unread by shadow jobs) */
    _oak_meshcull_gpu_head(w, &cv, jobs, (uint32_t)index_word, (uint32_t)map_word);
    f->mcs_jobs = jobs;
    f->mc_ring_jobs[k][1] = jobs;
    f->mcs_cmd_word = (uint32_t)cmd_word;
    glNamedBufferSubData(f->meshcull_shadow.id, 0, (GLsizeiptr)map_word * 4, w);
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

oak_result _oak_gl_run_meshcull(_oak_gl_backend *b, const oak_render_view *v) {
    (void)v;
    _oak_gl_frame *f = b->frame;
    if (!f->mc_jobs && !f->mcs_jobs) return OAK_OK;
    if (!f->prog_meshcull) {
        oak_result r = _oak_gl_compute(&f->prog_meshcull, "meshcull", oak_gl_src_meshcull_comp);
        if (r != OAK_OK) return r;
    }
    glUseProgram(f->prog_meshcull);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INDICES, f->indices.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHLETS, f->meshlets.id);
    /* the casters' cuts: their records, their buffer */
    if (f->mcs_jobs) {
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, f->casters.id);
        glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHCULL, f->meshcull_shadow.id);
        glDispatchCompute(f->mcs_jobs < 65535u ? f->mcs_jobs : 65535u, 1, 1);
    }
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, f->draws.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MESHCULL, f->meshcull.id);
    if (f->mc_jobs)
        glDispatchCompute(f->mc_jobs < 65535u ? f->mc_jobs : 65535u, 1, 1); /* the kernel strides */
    /* readers: the raster's and the shadow pass's commands, elements and
       vis.frag's map; the copy */
    glMemoryBarrier(GL_COMMAND_BARRIER_BIT | GL_ELEMENT_ARRAY_BARRIER_BIT |
                    GL_SHADER_STORAGE_BARRIER_BIT | GL_BUFFER_UPDATE_BARRIER_BIT);
    /* the heads, the view's then the casters' (zero where none ran): the
       counters are words 0-3, 7, 34, Hi-Z's 37 and 43, the maps' 35 and 38 */
    const GLsizeiptr head = OAK_GPU_MESHCULL_HEAD_WORDS * 4;
    uint32_t k = _oak_gl_frame_slot(f);
    /* then the jobs (what each kept sizes its region next time) */
    const GLsizeiptr vj = (GLsizeiptr)f->mc_jobs * OAK_GPU_MESHCULL_JOB_WORDS * 4;
    const GLsizeiptr cj = (GLsizeiptr)f->mcs_jobs * OAK_GPU_MESHCULL_JOB_WORDS * 4;
    oak_result r = _oak_gl_buffer_reserve(&f->mc_read[k], (size_t)(2 * head + vj + cj), false);
    if (r != OAK_OK) return r;
    glClearNamedBufferSubData(f->mc_read[k].id, GL_R32UI, 0, 2 * head, GL_RED_INTEGER,
                              GL_UNSIGNED_INT, NULL);
    if (f->mc_jobs) {
        glCopyNamedBufferSubData(f->meshcull.id, f->mc_read[k].id, 0, 0, head);
        glCopyNamedBufferSubData(f->meshcull.id, f->mc_read[k].id, head, 2 * head, vj);
    }
    if (f->mcs_jobs) {
        glCopyNamedBufferSubData(f->meshcull_shadow.id, f->mc_read[k].id, 0, head, head);
        glCopyNamedBufferSubData(f->meshcull_shadow.id, f->mc_read[k].id, head, 2 * head + vj, cj);
    }
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
    read_newest(f);
    if (f->mc_stats_seen) *out = f->mc_stats;
    out->fallback_draws = f->mc_fallback[0] + f->mc_fallback[1]; /* the last plans' */
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
    _oak_gl_buffer_release(&f->meshcull_shadow);
    for (uint32_t k = 0; k < OAK_GL_QUERY_SETS; k++) oak_free(f->mc_ring_job[k]);
    oak_free(f->mc_dneed[0]);
    oak_free(f->mc_dneed[1]);
    oak_free(f->mcs_words);
    oak_free(f->mc_read_buf);
    oak_free(f->mcs_take);
}
