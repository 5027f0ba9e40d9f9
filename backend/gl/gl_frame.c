/* One frame on OpenGL, the pass list every backend follows (docs/ARCHITECTURE.md):
 *   1. sync      assets whose version moved go up (gl_resources.c)
 *   2. upload    view block, draws, casters, lights, indirect commands
 *   3. shadow    casters into the key light's depth map (multi-draw indirect)
 *   4. vis       depth + (draw, triangle) ids (multi-draw indirect, 4 groups)
 *   5. resolve   compute: rebuild, interpolate and shade each pixel
 *   5b. blend    BLEND surfaces far to near, forward-shaded, blended over
 *   6. post      compute: exposure, ACES, sRGB, dither; then FXAA
 * The passes are the shared GLSL in shaders/, the same files the Vulkan backend
 * compiles; each stage is timed with GL timestamp queries. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "oak_gl_shaders.h"

static const char *const k_stage_names[OAK_GL_STAGE_COUNT] = {"shadow", "raster", "resolve",
                                                              "blend", "post"};

/* GL has no specialization constants: SHADOW and MASKED (OAK_SPEC_CONST in
   oak_gpu.h) become #defines written after the #version line. */
static oak_result program(GLuint *out, const char *name, bool shadow, bool masked, const char *vs,
                          const char *fs, const char *cs) {
    char head[160];
    snprintf(head, sizeof head,
             "#version 450 core\n#define OAK_GL 1\n#define SHADOW %s\n"
             "#define MASKED %s\n",
             shadow ? "true" : "false", masked ? "true" : "false");
    size_t hl = strlen(head);
    const char *src[3] = {vs, fs, cs};
    char *full[3] = {NULL, NULL, NULL};
    oak_result r = OAK_OK;
    for (int i = 0; i < 3 && r == OAK_OK; i++) {
        if (!src[i]) continue;
        size_t n = strlen(src[i]);
        full[i] = oak_alloc(hl + n + 1);
        if (!full[i]) {
            r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for shader %s", name);
            break;
        }
        memcpy(full[i], head, hl);
        memcpy(full[i] + hl, src[i], n + 1);
    }
    if (r == OAK_OK) r = _oak_gl_program(out, name, full[0], full[1], full[2]);
    for (int i = 0; i < 3; i++) oak_free(full[i]);
    return r;
}

oak_result _oak_gl_frame_programs(GLuint out[8]) {
    const char *vs = oak_gl_src_vis_vert, *fs = oak_gl_src_vis_frag;
    oak_result r = program(&out[0], "vis", false, false, vs, fs, NULL);
    if (!r) r = program(&out[1], "vis-masked", false, true, vs, fs, NULL);
    if (!r) r = program(&out[2], "shadow", true, false, vs, NULL, NULL);
    if (!r)
        r = program(&out[3], "shadow-masked", true, true, vs, oak_gl_src_shadow_masked_frag, NULL);
    if (!r) r = program(&out[4], "resolve", false, false, NULL, NULL, oak_gl_src_resolve_comp);
    if (!r) r = program(&out[5], "post", false, false, NULL, NULL, oak_gl_src_post_comp);
    if (!r) r = program(&out[6], "fxaa", false, false, NULL, NULL, oak_gl_src_fxaa_comp);
    if (!r) r = program(&out[7], "blend", false, false, vs, oak_gl_src_blend_frag, NULL);
    return r;
}

oak_result _oak_gl_compile_shared(const char *file, const char **error) {
    static char msg[1024];
    *error = "";
    for (size_t i = 0; i < sizeof oak_gl_sources / sizeof oak_gl_sources[0]; i++) {
        if (strcmp(oak_gl_sources[i].file, file) != 0) continue;
        const char *src = oak_gl_sources[i].source;
        bool comp = strstr(file, ".comp.") != NULL, frag = strstr(file, ".frag.") != NULL;
        GLenum stage = comp ? GL_COMPUTE_SHADER : frag ? GL_FRAGMENT_SHADER : GL_VERTEX_SHADER;
        oak_result worst = OAK_OK;
        /* every specialization: SHADOW x MASKED */
        for (int v = 0; v < 4; v++) {
            char head[160];
            snprintf(head, sizeof head,
                     "#version 450 core\n#define OAK_GL 1\n#define SHADOW %s\n"
                     "#define MASKED %s\n",
                     v & 1 ? "true" : "false", v & 2 ? "true" : "false");
            const char *parts[2] = {head, src};
            GLuint sh = glCreateShader(stage);
            glShaderSource(sh, 2, parts, NULL);
            glCompileShader(sh);
            GLint ok = 0;
            glGetShaderiv(sh, GL_COMPILE_STATUS, &ok);
            if (!ok) {
                glGetShaderInfoLog(sh, sizeof msg - 1, NULL, msg);
                *error = msg;
                worst = oak_error(OAK_ERROR_DEVICE, "gl: shared shader %s failed to compile", file);
            }
            glDeleteShader(sh);
        }
        return worst;
    }
    return oak_error(OAK_ERROR_NOT_FOUND, "gl: %s is not among the embedded passes", file);
}

uint32_t _oak_gl_shared_count(void) {
    return (uint32_t)(sizeof oak_gl_sources / sizeof oak_gl_sources[0]);
}

oak_result _oak_gl_frame_create(_oak_gl_backend *b) {
    _oak_gl_frame *f = oak_calloc(1, sizeof *f);
    if (!f) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for the frame");
    b->frame = f;
    GLuint p[8] = {0};
    oak_result r = _oak_gl_frame_programs(p);
    f->prog_blend = p[7];
    f->prog_vis = p[0], f->prog_vis_mask = p[1], f->prog_shadow = p[2];
    f->prog_shadow_mask = p[3], f->prog_resolve = p[4], f->prog_post = p[5], f->prog_fxaa = p[6];
    if (r != OAK_OK) return r;
    glCreateVertexArrays(1, &f->vao);
    glGenQueries(OAK_GL_STAGE_COUNT + 1, f->queries);
    /* Something at every binding even before the first sync. */
    _oak_gl_buffer *bufs[] = {&f->positions, &f->attributes, &f->indices,    &f->draws,
                              &f->casters,   &f->materials,  &f->lights,     &f->view,
                              &f->draw_ids,  &f->commands,   &f->raster_view};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if ((r = _oak_gl_buffer_reserve(bufs[i], 1024, false)) != OAK_OK) return r;
    return _oak_gl_check("frame create") ? oak_error(OAK_ERROR_DEVICE, "gl: frame setup failed")
                                         : OAK_OK;
}

void _oak_gl_frame_destroy(_oak_gl_backend *b) {
    _oak_gl_frame *f = b->frame;
    if (!f) return;
    GLuint progs[] = {f->prog_vis,     f->prog_vis_mask, f->prog_shadow, f->prog_shadow_mask,
                      f->prog_resolve, f->prog_post,     f->prog_fxaa,   f->prog_blend};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
        if (progs[i]) glDeleteProgram(progs[i]);
    if (f->vao) glDeleteVertexArrays(1, &f->vao);
    if (f->queries[0]) glDeleteQueries(OAK_GL_STAGE_COUNT + 1, f->queries);
    _oak_gl_buffer *bufs[] = {&f->positions, &f->attributes, &f->indices,    &f->draws,
                              &f->casters,   &f->materials,  &f->lights,     &f->view,
                              &f->draw_ids,  &f->commands,   &f->raster_view};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) _oak_gl_buffer_release(bufs[i]);
    if (f->shadow_fbo) glDeleteFramebuffers(1, &f->shadow_fbo);
    if (f->shadow_tex) glDeleteTextures(1, &f->shadow_tex);
    _oak_gl_resources_release(f);
    _oak_gl_lightgrid_release(f);
    oak_free(f->draw_data), oak_free(f->cmds), oak_free(f->light_data), oak_free(f->blend_keys);
    oak_free(f);
    b->frame = NULL;
}

oak_result _oak_gl_frame_sync(_oak_gl_backend *b, const oak_render_view *view) {
    return _oak_gl_sync_view(b->frame, &b->ctx, view);
}

/* ---- per-frame uploads --------------------------------------------------- */

static void copy_mat(float out[16], mat4 m) {
    memcpy(out, m, 64);
}

/* The view block exactly as the Vulkan backend fills it (gpu_records.c). */
static void fill_view(oak_gpu_view *g, const oak_render_view *v, uint32_t shadow_size,
                      uint32_t lights) {
    _oak_gpu_view_fill(g, v, v->width, v->height, lights, shadow_size);
}

#define OAK_GL_MATRIX_CHUNK 512 /* draws per job when filling draw records */

/* Which command group a draw goes to (see build_list); -1: none. */
static int group_of(const _oak_gl_mat_slot *mt, const _oak_gl_mesh_slot *ms, bool main_view,
                    uint32_t flags) {
    if (!ms->index_count) return -1;
    if (mt->blend) return main_view ? 4 : -1;
    if (!main_view && (flags & OAK_DRAW_NO_SHADOW)) return -1;
    return (mt->mask ? 2 : 0) + (mt->double_sided ? 1 : 0);
}

typedef struct matrix_job {
    const oak_draw_list *list;
    oak_gpu_draw *out;
} matrix_job;

static void fill_matrices(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    matrix_job *j = user;
    for (uint32_t i = begin; i < end; i++) {
        mat4 nm;
        glm_mat4_inv(j->list->world[i], nm);
        glm_mat4_transpose(nm);
        copy_mat(j->out[i].world, j->list->world[i]);
        copy_mat(j->out[i].normal, nm);
    }
}

/* Draw records for one list (oak_gpu_draw); commands for the drawable ones
   go into f->cmds from *ncmd on, in groups whose ranges come back in
   group[6]: single-sided opaque, double-sided opaque, single-sided masked,
   double-sided masked (culling and the cutout differ between them), then,
   for the main view (camera given), the BLEND draws far to near. Casters
   (camera NULL) leave out BLEND and OAK_DRAW_NO_SHADOW draws, as the CPU
   backend does. */
static oak_result build_list(_oak_gl_frame *f, const oak_draw_list *l, const float *camera,
                             _oak_gl_buffer *buf, uint32_t *ncmd, uint32_t group[6]) {
    if (l->count && (!OAK_GROW(f->draw_data, f->draw_cap, l->count) ||
                     !OAK_GROW(f->blend_keys, f->blend_key_cap, l->count)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u draws", l->count);
    if (!OAK_GROW(f->cmds, f->cmd_cap, *ncmd + l->count + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u commands", l->count);
    uint32_t counts[5] = {0, 0, 0, 0, 0};
    for (uint32_t i = 0; i < l->count; i++) {
        const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
        const _oak_gl_mat_slot *mt = _oak_gl_mat_of(f, l->material[i]);
        if (!ms)
            return oak_error(OAK_ERROR_NOT_FOUND, "gl: draw %u: mesh %u is not live or not synced",
                             i, l->mesh[i].id);
        if (!mt)
            return oak_error(OAK_ERROR_NOT_FOUND,
                             "gl: draw %u: material %u is not live or not synced", i,
                             l->material[i].id);
        oak_gpu_draw *d = &f->draw_data[i];
        d->info[0] = oak_handle_index(l->material[i].id);
        d->info[1] = ms->first_index;
        d->info[2] = ms->base_vertex;
        d->info[3] = l->flags ? l->flags[i] : 0;
        int g = group_of(mt, ms, camera != NULL, d->info[3]);
        if (g < 0) continue;
        counts[g]++;
        if (g == 4) {
            vec4 c = {ms->center[0], ms->center[1], ms->center[2], 1}, w;
            glm_mat4_mulv(l->world[i], c, w);
            f->blend_keys[i] = (w[0] - camera[0]) * (w[0] - camera[0]) +
                               (w[1] - camera[1]) * (w[1] - camera[1]) +
                               (w[2] - camera[2]) * (w[2] - camera[2]);
        }
    }
    /* the matrices, the heavy part, on the job pool */
    matrix_job job = {l, f->draw_data};
    oak_parallel_for(l->count, OAK_GL_MATRIX_CHUNK, fill_matrices, &job);
    group[0] = *ncmd;
    for (int g = 0; g < 5; g++) group[g + 1] = group[g] + counts[g];
    uint32_t at[5] = {group[0], group[1], group[2], group[3], group[4]};
    for (uint32_t i = 0; i < l->count; i++) {
        const _oak_gl_mesh_slot *ms = _oak_gl_mesh_of(f, l->mesh[i]);
        int g = group_of(_oak_gl_mat_of(f, l->material[i]), ms, camera != NULL,
                         f->draw_data[i].info[3]);
        if (g < 0) continue;
        f->cmds[at[g]++] =
            (_oak_gl_command){ms->index_count, 1, ms->first_index, (int32_t)ms->base_vertex, i};
    }
    /* BLEND far to near, ties in draw order: a stable insertion sort as the
       CPU backend's (blend draws are few) */
    _oak_gl_command *bl = f->cmds + group[4];
    for (uint32_t i = 1; i < counts[4]; i++) {
        _oak_gl_command x = bl[i];
        uint32_t j = i;
        while (j > 0 && f->blend_keys[bl[j - 1].base_instance] < f->blend_keys[x.base_instance]) {
            bl[j] = bl[j - 1];
            j--;
        }
        bl[j] = x;
    }
    *ncmd = group[5];
    return _oak_gl_buffer_upload(buf, 0, f->draw_data, (size_t)l->count * sizeof *f->draw_data);
}

static oak_result upload_lights(_oak_gl_frame *f, const oak_render_view *v, uint32_t n) {
    if (!n) return OAK_OK;
    if (!OAK_GROW(f->light_data, f->light_cap, n))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for %u lights", n);
    for (uint32_t i = 0; i < n; i++) _oak_gpu_light_fill(&f->light_data[i], &v->lights[i]);
    return _oak_gl_buffer_upload(&f->lights, 0, f->light_data, (size_t)n * sizeof *f->light_data);
}

/* The per-instance draw index: a buffer 0, 1, 2, ... read with divisor 1,
   so base_instance picks the draw. */
static oak_result ensure_draw_ids(_oak_gl_frame *f, uint32_t n) {
    if (n <= f->draw_id_count) return OAK_OK;
    uint32_t cap = f->draw_id_count ? f->draw_id_count : 256;
    while (cap < n) cap *= 2;
    uint32_t *ids = oak_alloc((size_t)cap * 4);
    if (!ids) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for draw ids");
    for (uint32_t i = 0; i < cap; i++) ids[i] = i;
    _oak_gl_buffer_release(&f->draw_ids);
    oak_result r = _oak_gl_buffer_upload(&f->draw_ids, 0, ids, (size_t)cap * 4);
    oak_free(ids);
    if (r != OAK_OK) return r;
    f->draw_id_count = cap;
    glVertexArrayVertexBuffer(f->vao, 0, f->draw_ids.id, 0, 4);
    glVertexArrayAttribIFormat(f->vao, 0, 1, GL_UNSIGNED_INT, 0);
    glVertexArrayAttribBinding(f->vao, 0, 0);
    glVertexArrayBindingDivisor(f->vao, 0, 1);
    glEnableVertexArrayAttrib(f->vao, 0);
    return OAK_OK;
}

static oak_result ensure_shadow_map(_oak_gl_frame *f, uint32_t size) {
    if (f->shadow_tex && f->shadow_size == size) return OAK_OK;
    if (f->shadow_fbo) glDeleteFramebuffers(1, &f->shadow_fbo);
    if (f->shadow_tex) glDeleteTextures(1, &f->shadow_tex);
    glCreateTextures(GL_TEXTURE_2D, 1, &f->shadow_tex);
    glTextureStorage2D(f->shadow_tex, 1, GL_DEPTH_COMPONENT32F, (GLsizei)size, (GLsizei)size);
    glTextureParameteri(f->shadow_tex, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(f->shadow_tex, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glCreateFramebuffers(1, &f->shadow_fbo);
    glNamedFramebufferTexture(f->shadow_fbo, GL_DEPTH_ATTACHMENT, f->shadow_tex, 0);
    glNamedFramebufferDrawBuffer(f->shadow_fbo, GL_NONE);
    f->shadow_size = size;
    if (glCheckNamedFramebufferStatus(f->shadow_fbo, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return oak_error(OAK_ERROR_DEVICE, "gl: %ux%u shadow map framebuffer incomplete", size,
                         size);
    return OAK_OK;
}

/* ---- passes -------------------------------------------------------------- */

static void bind_common(_oak_gl_frame *f, _oak_gl_buffer *draws) {
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LIGHTS, f->lights.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, draws->id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MATERIALS, f->materials.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_POSITIONS, f->positions.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_ATTRIBUTES, f->attributes.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INDICES, f->indices.id);
    for (uint32_t c = 0; c < OAK_GPU_TEXTURE_CLASSES; c++)
        glBindTextureUnit(OAK_B_TEXTURES + c, c < f->class_count ? f->classes[c].tex : 0);
}

/* groups as build_list lays them out; culling only in the main view */
static void draw_groups(_oak_gl_frame *f, const uint32_t group[5], GLuint plain, GLuint masked,
                        bool cull_single) {
    glBindVertexArray(f->vao);
    glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
    glVertexArrayElementBuffer(f->vao, f->indices.id);
    for (int g = 0; g < 4; g++) {
        GLsizei n = (GLsizei)(group[g + 1] - group[g]);
        if (!n) continue;
        if (cull_single && (g & 1) == 0)
            glEnable(GL_CULL_FACE);
        else
            glDisable(GL_CULL_FACE);
        glUseProgram(g >= 2 ? masked : plain);
        glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                    (const void *)(uintptr_t)(group[g] * sizeof(_oak_gl_command)),
                                    n, 0);
    }
    glDisable(GL_CULL_FACE);
}

static void stamp(_oak_gl_frame *f, int i) {
    glQueryCounter(f->queries[i], GL_TIMESTAMP);
}

oak_result _oak_gl_frame_render(_oak_gl_backend *b, const oak_render_view *view) {
    _oak_gl_frame *f = b->frame;
    _oak_gl_targets *t = &b->targets;
    uint64_t t0 = oak_time_ns();
    oak_result r;
    /* 2. uploads */
    uint32_t lights = view->light_count < OAK_MAX_LIGHTS ? view->light_count : OAK_MAX_LIGHTS;
    uint32_t shadow_size = view->shadow_map_size ? view->shadow_map_size : b->shadow_map_size;
    bool shadows = view->shadows && view->cascade_count > 0;
    oak_gpu_view gv;
    fill_view(&gv, view, shadows ? shadow_size : 1, lights);
    if ((r = _oak_gl_buffer_upload(&f->view, 0, &gv, sizeof gv)) != OAK_OK) return r;
    /* llvmpipe's GL breaks edge ties against the picture's top edges
       whichever clip origin is set, where the CPU rasterizer's top-left
       rule (and Vulkan's) keeps them. Both raster passes therefore run with
       the LOWER_LEFT origin, which puts memory row 0 at clip y = -1 as the
       shadow map wants; the main view draws with clip y negated (and so
       clockwise front faces) to put the picture's top in row 0 with its
       ties on the CPU's side. */
    for (int c = 0; c < 4; c++) gv.view_proj[c * 4 + 1] = -gv.view_proj[c * 4 + 1];
    if ((r = _oak_gl_buffer_upload(&f->raster_view, 0, &gv, sizeof gv)) != OAK_OK) return r;
    uint32_t ncmd = 0, main_groups[6], shadow_groups[6] = {0, 0, 0, 0, 0, 0};
    if ((r = build_list(f, &view->draws, view->camera_pos, &f->draws, &ncmd, main_groups)) !=
        OAK_OK)
        return r;
    if (shadows &&
        (r = build_list(f, &view->casters, NULL, &f->casters, &ncmd, shadow_groups)) != OAK_OK)
        return r;
    if ((r = _oak_gl_buffer_upload(&f->commands, 0, f->cmds, ncmd * sizeof *f->cmds)) != OAK_OK)
        return r;
    if ((r = upload_lights(f, view, lights)) != OAK_OK) return r;
    uint32_t most =
        view->draws.count > view->casters.count ? view->draws.count : view->casters.count;
    if ((r = ensure_draw_ids(f, most)) != OAK_OK) return r;
    if ((r = ensure_shadow_map(f, shadows ? shadow_size : 1)) != OAK_OK) return r;
    double upload_ms = oak_ms_since(t0);

    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_GREATER);
    glFrontFace(GL_CCW);
    glCullFace(GL_BACK);
    float zero = 0;

    /* 3. shadow map: row 0 is clip y = -1 (docs/SHADING.md) */
    uint64_t ts = oak_time_ns();
    stamp(f, 0);
    glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
    glClearNamedFramebufferfv(f->shadow_fbo, GL_DEPTH, 0, &zero);
    if (shadows && shadow_groups[4] > shadow_groups[0]) { /* groups 0-3: no BLEND casters */
        glBindFramebuffer(GL_FRAMEBUFFER, f->shadow_fbo);
        glViewport(0, 0, (GLsizei)shadow_size, (GLsizei)shadow_size);
        bind_common(f, &f->casters);
        draw_groups(f, shadow_groups, f->prog_shadow, f->prog_shadow_mask, false);
    }
    f->cpu_ms[OAK_GL_STAGE_SHADOW] = oak_ms_since(ts) + upload_ms;

    /* 4. visibility buffer: row 0 is the top (clip y = +1, negated above) */
    ts = oak_time_ns();
    stamp(f, 1);
    GLuint none[4] = {0, 0, 0, 0};
    glClearNamedFramebufferuiv(t->vis_fbo, GL_COLOR, 0, none);
    glClearNamedFramebufferfv(t->vis_fbo, GL_DEPTH, 0, &zero);
    glBindFramebuffer(GL_FRAMEBUFFER, t->vis_fbo);
    glViewport(0, 0, (GLsizei)t->width, (GLsizei)t->height);
    bind_common(f, &f->draws);
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->raster_view.id);
    glFrontFace(GL_CW); /* y negated above */
    draw_groups(f, main_groups, f->prog_vis, f->prog_vis_mask, true);
    glFrontFace(GL_CCW);
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    f->cpu_ms[OAK_GL_STAGE_VIS] = oak_ms_since(ts);

    /* 5. resolve, after the lamp grid (gl_pass_lightgrid.c) */
    ts = oak_time_ns();
    stamp(f, 2);
    if ((r = _oak_gl_pass_lightgrid(f, view, lights)) != OAK_OK) return r;
    GLuint gx = (t->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP;
    GLuint gy = (t->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP;
    glMemoryBarrier(GL_TEXTURE_FETCH_BARRIER_BIT | GL_FRAMEBUFFER_BARRIER_BIT);
    glUseProgram(f->prog_resolve);
    glBindTextureUnit(OAK_B_IDS, t->vis);
    glBindTextureUnit(OAK_B_SHADOW, f->shadow_tex);
    glBindImageTexture(OAK_B_HDR - OAK_B_HDR, t->hdr, 0, GL_FALSE, 0, GL_WRITE_ONLY, GL_RGBA32F);
    glDispatchCompute(gx, gy, 1);
    f->cpu_ms[OAK_GL_STAGE_RESOLVE] = oak_ms_since(ts);

    /* 5b. BLEND surfaces, far to near, forward-shaded over the resolved HDR
       frame: depth-tested against the opaque depth without writing it,
       blended "over" in linear light. The fragment stage rebuilds the
       surface from gl_FragCoord with the real view_proj, so this pass draws
       with the UPPER_LEFT origin and the unflipped view: row 0 at the top. */
    ts = oak_time_ns();
    stamp(f, 3);
    if (main_groups[5] > main_groups[4]) {
        glMemoryBarrier(GL_FRAMEBUFFER_BARRIER_BIT | GL_TEXTURE_FETCH_BARRIER_BIT);
        glClipControl(GL_UPPER_LEFT, GL_ZERO_TO_ONE);
        glBindFramebuffer(GL_FRAMEBUFFER, t->blend_fbo);
        glViewport(0, 0, (GLsizei)t->width, (GLsizei)t->height);
        bind_common(f, &f->draws);
        glBindTextureUnit(OAK_B_SHADOW, f->shadow_tex);
        glDepthMask(GL_FALSE);
        glEnable(GL_BLEND);
        glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
        glUseProgram(f->prog_blend);
        glBindVertexArray(f->vao);
        glBindBuffer(GL_DRAW_INDIRECT_BUFFER, f->commands.id);
        glVertexArrayElementBuffer(f->vao, f->indices.id);
        /* runs of equal sidedness keep the sorted order in one multi-draw each */
        uint32_t k = main_groups[4];
        while (k < main_groups[5]) {
            bool two =
                _oak_gl_mat_of(f, view->draws.material[f->cmds[k].base_instance])->double_sided;
            uint32_t e = k + 1;
            while (
                e < main_groups[5] &&
                _oak_gl_mat_of(f, view->draws.material[f->cmds[e].base_instance])->double_sided ==
                    two)
                e++;
            if (two)
                glDisable(GL_CULL_FACE);
            else
                glEnable(GL_CULL_FACE);
            glMultiDrawElementsIndirect(GL_TRIANGLES, GL_UNSIGNED_INT,
                                        (const void *)(uintptr_t)(k * sizeof(_oak_gl_command)),
                                        (GLsizei)(e - k), 0);
            k = e;
        }
        glDisable(GL_CULL_FACE);
        glDisable(GL_BLEND);
        glDepthMask(GL_TRUE);
        glBindFramebuffer(GL_FRAMEBUFFER, 0);
    }
    f->cpu_ms[OAK_GL_STAGE_BLEND] = oak_ms_since(ts);

    /* 6. post, then FXAA (which copies the bytes through when it is off) */
    ts = oak_time_ns();
    stamp(f, 4);
    glMemoryBarrier(GL_SHADER_IMAGE_ACCESS_BARRIER_BIT);
    glUseProgram(f->prog_post);
    glBindImageTexture(0, t->hdr, 0, GL_FALSE, 0, GL_READ_ONLY, GL_RGBA32F);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LDR, t->ldr.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_OUTPUT, t->out.id);
    glDispatchCompute(gx, gy, 1);
    glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUseProgram(f->prog_fxaa);
    glDispatchCompute(gx, gy, 1);
    glMemoryBarrier(GL_BUFFER_UPDATE_BARRIER_BIT);
    stamp(f, 5);
    glUseProgram(0);
    f->queries_pending = true;
    f->cpu_ms[OAK_GL_STAGE_POST] = oak_ms_since(ts);
    return _oak_gl_check("the frame") ? oak_error(OAK_ERROR_DEVICE, "gl: the frame failed")
                                      : OAK_OK;
}

uint32_t _oak_gl_frame_timings(_oak_gl_backend *b, oak_stage_timing *out, uint32_t max) {
    _oak_gl_frame *f = b->frame;
    if (f->queries_pending) {
        GLuint64 ns[OAK_GL_STAGE_COUNT + 1];
        for (int i = 0; i <= OAK_GL_STAGE_COUNT; i++)
            glGetQueryObjectui64v(f->queries[i], GL_QUERY_RESULT, &ns[i]);
        for (int i = 0; i < OAK_GL_STAGE_COUNT; i++)
            f->gpu_ms[i] = (double)(ns[i + 1] - ns[i]) * 1e-6;
        f->queries_pending = false;
    }
    uint32_t n = max < OAK_GL_STAGE_COUNT ? max : OAK_GL_STAGE_COUNT;
    for (uint32_t i = 0; i < n; i++)
        out[i] = (oak_stage_timing){k_stage_names[i], f->cpu_ms[i], f->gpu_ms[i]};
    return n;
}
