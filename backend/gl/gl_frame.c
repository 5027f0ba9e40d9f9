/* One frame on OpenGL: the programs, the frame object, and a walk down the
 * pass table (render/pass_table.h), each pass in its own gl_pass_<name>.c,
 * barriers from the rows (gl_track.c), each timed with GL timestamp queries.
 * The passes are the shared GLSL in shaders/, the same files the Vulkan
 * backend compiles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/gpu/gpu_records.h"
#include "gl_gpu.h"
#include "gl_grass.h"
#include "oak_gl_shaders.h"
#include "render/taa.h"

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

oak_result _oak_gl_shared_program(GLuint *out, const char *name, const char *vs, const char *fs,
                                  const char *cs) {
    return program(out, name, false, false, vs, fs, cs);
}

oak_result _oak_gl_frame_programs(GLuint out[OAK_GL_FRAME_PROGRAMS]) {
    const char *vs = oak_gl_src_vis_vert, *fs = oak_gl_src_vis_frag;
    oak_result r = program(&out[0], "vis", false, false, vs, fs, NULL);
    if (!r) r = program(&out[1], "vis-masked", false, true, vs, fs, NULL);
    const char *svs = oak_gl_src_shadow_vert; /* the atlas, clip distances on */
    if (!r) r = program(&out[2], "shadow", true, false, svs, NULL, NULL);
    if (!r)
        r = program(&out[3], "shadow-masked", true, true, svs, oak_gl_src_shadow_masked_frag, NULL);
    if (!r) r = program(&out[4], "resolve", false, false, NULL, NULL, oak_gl_src_resolve_comp);
    if (!r) r = program(&out[5], "post", false, false, NULL, NULL, oak_gl_src_post_comp);
    if (!r) r = program(&out[6], "fxaa", false, false, NULL, NULL, oak_gl_src_fxaa_comp);
    if (!r) r = program(&out[7], "blend", false, false, vs, oak_gl_src_blend_frag, NULL);
    const char *tvs = oak_gl_src_vis_stream_vert, *tfs = oak_gl_src_vis_stream_frag;
    if (!r) r = program(&out[8], "vis-stream", false, false, tvs, tfs, NULL);
    if (!r) r = program(&out[9], "vis-stream-masked", false, true, tvs, tfs, NULL);
    const char *cvs = oak_gl_src_shadow_stream_vert;
    if (!r) r = program(&out[10], "shadow-stream", true, false, cvs, NULL, NULL);
    if (!r)
        r = program(&out[11], "shadow-stream-masked", true, true, cvs,
                    oak_gl_src_shadow_stream_masked_frag, NULL);
    if (!r)
        r = program(&out[12], "blend-unlit", false, false, vs, oak_gl_src_blend_unlit_frag, NULL);
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

const char *_oak_gl_shared_source(const char *file) {
    for (size_t i = 0; i < sizeof oak_gl_sources / sizeof oak_gl_sources[0]; i++)
        if (strcmp(oak_gl_sources[i].file, file) == 0) return oak_gl_sources[i].source;
    return NULL;
}

uint32_t _oak_gl_shared_count(void) {
    return (uint32_t)(sizeof oak_gl_sources / sizeof oak_gl_sources[0]);
}

oak_result _oak_gl_frame_create(_oak_gl_backend *b) {
    _oak_gl_frame *f = oak_calloc(1, sizeof *f);
    if (!f) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for the frame");
    b->frame = f;
    GLuint p[OAK_GL_FRAME_PROGRAMS] = {0};
    oak_result r = _oak_gl_frame_programs(p);
    f->prog_blend = p[7], f->prog_blend_unlit = p[12];
    f->prog_vis_stream = p[8], f->prog_vis_stream_mask = p[9];
    f->prog_shadow_stream = p[10], f->prog_shadow_stream_mask = p[11];
    f->prog_vis = p[0], f->prog_vis_mask = p[1], f->prog_shadow = p[2];
    f->prog_shadow_mask = p[3], f->prog_resolve = p[4], f->prog_post = p[5], f->prog_fxaa = p[6];
    if (r != OAK_OK) return r;
    glCreateVertexArrays(1, &f->vao);
    const char *wf = getenv("OAK_GL_WATER_FORWARD");
    f->water_forward = wf && !strcmp(wf, "1");
    /* OAK_MESHCULL is read as the renderer is made, as on Vulkan: the
       first mesh upload came after a test had set it back */
    (void)_oak_gl_meshcull_on(f);
    for (uint32_t k = 0; k < OAK_GL_QUERY_SETS; k++)
        glGenQueries(OAK_PASS_COUNT + 1, f->queries[k]);
    /* Something at every binding even before the first sync. */
    _oak_gl_buffer *bufs[] = {&f->positions, &f->attributes, &f->indices,    &f->draws,
                              &f->casters,   &f->materials,  &f->lights,     &f->view,
                              &f->draw_ids,  &f->commands,   &f->raster_view};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if ((r = _oak_gl_buffer_reserve(bufs[i], 1024, false)) != OAK_OK) return r;
    /* the lamp shadow block is read (cone.z = 0: not a word of it) before
       any lamp casts */
    if ((r = _oak_gl_buffer_reserve(&f->lamp.block, sizeof(oak_gpu_lamp_shadows), false))) return r;
    if ((r = _oak_gl_exposure_create(f))) return r;
    return _oak_gl_check("frame create") ? oak_error(OAK_ERROR_DEVICE, "gl: frame setup failed")
                                         : OAK_OK;
}

void _oak_gl_frame_destroy(_oak_gl_backend *b) {
    _oak_gl_frame *f = b->frame;
    if (!f) return;
    GLuint progs[] = {f->prog_vis,           f->prog_vis_mask,
                      f->prog_shadow,        f->prog_shadow_mask,
                      f->prog_resolve,       f->prog_post,
                      f->prog_fxaa,          f->prog_blend,
                      f->prog_vis_stream,    f->prog_vis_stream_mask,
                      f->prog_shadow_stream, f->prog_shadow_stream_mask,
                      f->prog_blend_unlit,   f->prog_blend_water_id,
                      f->prog_blend_water};
    for (size_t i = 0; i < sizeof progs / sizeof progs[0]; i++)
        if (progs[i]) glDeleteProgram(progs[i]);
    if (f->vao) glDeleteVertexArrays(1, &f->vao);
    if (f->aerial_tex) glDeleteTextures(1, &f->aerial_tex);
    for (uint32_t k = 0; k < OAK_GL_QUERY_SETS; k++) {
        if (f->queries[k][0]) glDeleteQueries(OAK_PASS_COUNT + 1, f->queries[k]);
        if (f->frame_fence[k]) glDeleteSync(f->frame_fence[k]);
    }
    _oak_gl_buffer *bufs[] = {&f->positions, &f->attributes, &f->indices,     &f->draws,
                              &f->casters,   &f->materials,  &f->lights,      &f->view,
                              &f->draw_ids,  &f->commands,   &f->raster_view, &f->probes,
                              &f->aerial};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) _oak_gl_buffer_release(bufs[i]);
    if (f->shadow_fbo) glDeleteFramebuffers(1, &f->shadow_fbo);
    if (f->shadow_tex) glDeleteTextures(1, &f->shadow_tex);
    if (f->static_fbo) glDeleteFramebuffers(1, &f->static_fbo);
    if (f->static_tex) glDeleteTextures(1, &f->static_tex);
    _oak_gl_resources_release(f);
    _oak_gl_lightgrid_release(f);
    _oak_gl_particles_release(f);
    _oak_gl_grass_release(f);
    _oak_gl_instcull_release(f);
    _oak_gl_meshcull_release(f);
    _oak_gl_craster_release(f);
    _oak_gl_hiz_release(f);
    _oak_gl_lampshadow_release(f);
    _oak_gl_gtao_release(f);
    _oak_gl_sky_release(f);
    _oak_gl_exposure_release(f);
    _oak_gl_bloom_release(f);
    _oak_gl_opaquecopy_release(f);
    _oak_gl_ssr_release(f);
    _oak_gl_skin_release(f);
    _oak_gl_dof_release(f);
    _oak_gl_clouds_release(f);
    _oak_gl_fog_release(f);
    _oak_gl_taa_release(f);
    oak_free(f->draw_data), oak_free(f->cmds), oak_free(f->light_data), oak_free(f->blend_keys);
    oak_free(f->blend_draw);
    oak_free(f);
    b->frame = NULL;
}

/* The sync contract: render() syncs itself; a sync() first lets the upload
   pass skip it for that view and frame. */
oak_result _oak_gl_frame_sync(_oak_gl_backend *b, const oak_render_view *view) {
    _oak_gl_frame *f = b->frame;
    oak_result r = _oak_gl_sync_view(f, &b->ctx, view);
    f->synced_view = r == OAK_OK ? view : NULL;
    f->synced_frame = view->frame;
    return r;
}

/* ---- passes -------------------------------------------------------------- */

void _oak_gl_bind_common(_oak_gl_frame *f, _oak_gl_buffer *draws) {
    glBindBufferBase(GL_UNIFORM_BUFFER, OAK_B_VIEW, f->view.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LIGHTS, f->lights.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_DRAWS, draws->id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_MATERIALS, f->materials.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_POSITIONS, f->positions.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_ATTRIBUTES, f->attributes.id);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_INDICES, f->indices.id);
    if (f->sky.id) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_SKY, f->sky.id);
    if (f->probes.id) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_PROBES, f->probes.id);
    if (f->clouds.id) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_CLOUDS, f->clouds.id);
    if (f->fog.id) glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_FOG, f->fog.id);
    if (f->aerial_tex) glBindTextureUnit(OAK_B_AERIAL, f->aerial_tex);
    for (uint32_t c = 0; c < OAK_GPU_TEXTURE_CLASSES; c++)
        glBindTextureUnit(OAK_B_TEXTURES + c, c < f->class_count ? f->classes[c].tex : 0);
    glBindTextureUnit(OAK_B_LAMP_ATLAS, f->lamp.live_tex);
    glBindBufferBase(GL_SHADER_STORAGE_BUFFER, OAK_B_LAMP_SHADOWS, f->lamp.block.id);
}

/* groups as build_list lays them out; culling only in the main view */
void _oak_gl_draw_groups(_oak_gl_frame *f, const uint32_t group[5], GLuint plain, GLuint masked,
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

void _oak_gl_dispatch_step(uint32_t step, bool first, uint32_t w, uint32_t h) {
    if (!first) glMemoryBarrier(GL_SHADER_STORAGE_BARRIER_BIT);
    glUniform1ui(0, step);
    glDispatchCompute((w + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (h + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
}

void _oak_gl_dispatch_output(const _oak_gl_targets *t) {
    glDispatchCompute((t->width + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP,
                      (t->height + OAK_GPU_GROUP - 1) / OAK_GPU_GROUP, 1);
}

/* ---- the frame ----------------------------------------------------------- */

/* One run function per row of the pass table (gl_pass_<name>.c); NULL:
   nothing to run here (read_pixels copies the picture; its row's barrier
   is still issued). */
static const _oak_gl_run_fn k_run[OAK_PASS_COUNT] = {
    [OAK_PASS_UPLOAD] = _oak_gl_run_upload,
    [OAK_PASS_SKIN] = _oak_gl_run_skin, /* gl_pass_skin.c */
    [OAK_PASS_LIGHTGRID] = _oak_gl_run_lightgrid,
    [OAK_PASS_PARTICLES] = _oak_gl_run_particles, /* gl_pass_particles.c */
    [OAK_PASS_GRASS] = _oak_gl_run_grass,         /* gl_grass.c */
    [OAK_PASS_INSTCULL] = _oak_gl_run_instcull,   /* gl_pass_instcull.c */
    [OAK_PASS_MESHCULL] = _oak_gl_run_meshcull,   /* gl_meshcull.c */
    [OAK_PASS_SKYCAPTURE] = _oak_gl_run_skycapture,
    [OAK_PASS_SHADOW] = _oak_gl_run_shadow,
    [OAK_PASS_LAMPSHADOW] = _oak_gl_run_lampshadow, /* gl_pass_lampshadow.c */
    [OAK_PASS_RASTER] = _oak_gl_run_raster,
    /* ambient occlusion, between the raster and the resolve */
    [OAK_PASS_GTAO] = _oak_gl_run_gtao,
    [OAK_PASS_CLOUDS] = _oak_gl_run_clouds, /* gl_pass_clouds.c */
    [OAK_PASS_FOG] = _oak_gl_run_fog,       /* gl_pass_fog.c */
    [OAK_PASS_RESOLVE] = _oak_gl_run_resolve,
    [OAK_PASS_SSR] = _oak_gl_run_ssr,               /* gl_pass_ssr.c */
    [OAK_PASS_OPAQUECOPY] = _oak_gl_run_opaquecopy, /* gl_pass_opaquecopy.c */
    [OAK_PASS_BLEND] = _oak_gl_run_blend,
    [OAK_PASS_CLOUDMIX] = _oak_gl_run_cloudmix, /* gl_pass_clouds.c */
    [OAK_PASS_DOF] = _oak_gl_run_dof,           /* gl_pass_dof.c */
    [OAK_PASS_TAA] = _oak_gl_run_taa,           /* gl_pass_taa.c */
    [OAK_PASS_EXPOSURE] = _oak_gl_run_exposure, /* gl_pass_exposure.c */
    [OAK_PASS_BLOOM] = _oak_gl_run_bloom,       /* gl_pass_bloom.c */
    [OAK_PASS_POST] = _oak_gl_run_post,
    [OAK_PASS_FXAA] = _oak_gl_run_fxaa,
    [OAK_PASS_READBACK] = NULL,
};

/* The pass table top to bottom: barriers from each row's reads and writes
   (gl_track.c), a timestamp before each timed row (and one after the last),
   CPU time per row. */
/* Waits for set k's frame to finish (and forgets its fence): the time is
   slot_ms. A GPU that finishes nothing for a minute is a lost device. */
static oak_result wait_frame(_oak_gl_frame *f, uint32_t k) {
    f->slot_ms = 0;
    if (!f->frame_fence[k]) return OAK_OK;
    uint64_t t0 = oak_time_ns();
    GLenum s = GL_TIMEOUT_EXPIRED;
    for (int i = 0; i < 60 && s == GL_TIMEOUT_EXPIRED; i++)
        s = glClientWaitSync(f->frame_fence[k], GL_SYNC_FLUSH_COMMANDS_BIT, 1000000000ull);
    glDeleteSync(f->frame_fence[k]);
    f->frame_fence[k] = NULL;
    f->slot_ms = oak_ms_since(t0);
    if (s == GL_ALREADY_SIGNALED || s == GL_CONDITION_SATISFIED) return OAK_OK;
    return oak_error(OAK_ERROR_DEVICE, "gl: a frame did not finish in 60 s (the device is lost)");
}

oak_result _oak_gl_frame_render(_oak_gl_backend *b, const oak_render_view *view) {
    _oak_gl_frame *f = b->frame;
    const oak_pass_row *rows = _oak_pass_table();
    /* state every raster pass assumes */
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_GREATER);
    glFrontFace(GL_CCW);
    glCullFace(GL_BACK);
    f->shadow_stats = (oak_shadow_stats){0};
    /* this frame's set: whatever it held is older than the two sets after
       it, so it is dropped unread rather than waited for */
    uint32_t set = _oak_gl_frame_slot(f);
    oak_result r = wait_frame(f, (set + 1) % OAK_GL_QUERY_SETS); /* two frames before */
    if (r != OAK_OK) return r;
    GLuint *stamps = f->queries[set];
    f->stamps.serial[set] = 0;
    f->hiz_timed = false;
    uint32_t q = 0;
    /* the passes after taa run at its output size (TAA upsampling: larger) */
    _oak_gl_targets *t = &b->targets;
    uint32_t rw = t->width, rh = t->height, ow, oh;
    _oak_taa_out_size(view, &ow, &oh);
    for (uint32_t i = 0; i < OAK_PASS_COUNT && r == OAK_OK; i++) {
        const oak_pass_row *row = &rows[i];
        uint64_t t0 = oak_time_ns();
        if (i == OAK_PASS_TAA + 1) t->width = ow, t->height = oh;
        if (!row->untimed) glQueryCounter(stamps[q++], GL_TIMESTAMP);
        f->cpu_ms[i] = 0;
        if (!_oak_pass_runs(row, view, oak_backend_gl()->caps)) continue;
        /* no pose moved: nothing to skin, and no barrier either */
        if (i == OAK_PASS_SKIN && !f->skin_q.count) continue;
        _oak_gl_track_before(f, row);
        if (k_run[i]) r = k_run[i](b, view);
        _oak_gl_track_after(f, row);
        f->cpu_ms[i] = oak_ms_since(t0);
    }
    t->width = rw, t->height = rh;
    glUseProgram(0);
    if (r != OAK_OK) return r; /* the stamps are incomplete: keep last frame's times */
    t->pic_width = ow, t->pic_height = oh;
    glQueryCounter(stamps[q], GL_TIMESTAMP);
    if (f->frame_fence[set]) glDeleteSync(f->frame_fence[set]); /* a failed frame's */
    f->frame_fence[set] = glFenceSync(GL_SYNC_GPU_COMMANDS_COMPLETE, 0);
    f->stamps.serial[set] = ++f->query_frames;
    f->query_hiz[set] = f->hiz_timed;
    return _oak_gl_check("the frame") ? oak_error(OAK_ERROR_DEVICE, "gl: the frame failed")
                                      : OAK_OK;
}

/* Whether every stamp of a set has its result: GL_QUERY_RESULT_AVAILABLE
   asks without waiting (a driver may flush, never finish). */
static bool set_done(const GLuint *stamps, uint32_t count) {
    for (uint32_t k = count; k-- > 0;) {
        GLuint done = 0;
        glGetQueryObjectuiv(stamps[k], GL_QUERY_RESULT_AVAILABLE, &done);
        if (!done) return false;
    }
    return true;
}

/* A result known available (set_done): reading it does not wait. The
   hook's counter catches a read that was not (a wait for the GPU). */
static GLuint64 stamp(_oak_gl_frame *f, GLuint query) {
    GLuint done = 0;
    glGetQueryObjectuiv(query, GL_QUERY_RESULT_AVAILABLE, &done);
    f->blocking_reads += !done;
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query, GL_QUERY_RESULT, &ns);
    return ns;
}

/* The GPU times of the newest finished set newer than the one gpu_ms
   holds, if any: false leaves gpu_ms as it is. */
static bool read_newest(_oak_gl_frame *f, uint32_t timed) {
    for (uint64_t want = f->query_frames; want > _oak_gl_ring_floor(&f->stamps, f->query_frames);
         want--) {
        uint32_t set = _oak_gl_ring_slot(want);
        if (f->stamps.serial[set] != want) continue;
        bool hiz = f->query_hiz[set];
        if (!set_done(f->queries[set], timed + 1) || (hiz && !set_done(f->hiz_queries[set], 2)))
            continue;
        f->lagged_reads += want != f->query_frames;
        const oak_pass_row *rows = _oak_pass_table();
        GLuint64 ns[OAK_PASS_COUNT + 1];
        for (uint32_t k = 0; k <= timed; k++) ns[k] = stamp(f, f->queries[set][k]);
        for (uint32_t i = 0, k = 0; i < OAK_PASS_COUNT; i++) {
            if (rows[i].untimed) continue;
            f->gpu_ms[i] = (double)(ns[k + 1] - ns[k]) * 1e-6;
            if (i == OAK_PASS_RASTER && hiz) {
                /* Hi-Z's steps inside the row (gl_hiz.c): the row keeps pass 2 */
                GLuint64 a = stamp(f, f->hiz_queries[set][0]);
                GLuint64 c = stamp(f, f->hiz_queries[set][1]);
                f->hiz_ms[0] = (double)(a - ns[k]) * 1e-6;
                f->hiz_ms[1] = (double)(c - a) * 1e-6;
                f->gpu_ms[i] = (double)(ns[k + 1] - c) * 1e-6;
            }
            k++;
        }
        f->gpu_hiz = hiz;
        f->stamps.seen = want;
        return true;
    }
    return false;
}

/* Stages named by the table: this frame's CPU times, and the GPU times of
   the newest frame the GPU has finished (as Vulkan's timings lag), read
   without waiting for the GPU: the host runs ahead by up to
   OAK_GL_QUERY_SETS - 1 frames, the driver's queue permitting. */
uint32_t _oak_gl_frame_timings(_oak_gl_backend *b, oak_stage_timing *out, uint32_t max) {
    _oak_gl_frame *f = b->frame;
    const oak_pass_row *rows = _oak_pass_table();
    uint32_t timed = 0;
    for (uint32_t i = 0; i < OAK_PASS_COUNT; i++) timed += !rows[i].untimed;
    uint64_t w0 = oak_time_ns();
    read_newest(f, timed);
    f->wait_ms = oak_ms_since(w0);
    uint32_t n = 0;
    for (uint32_t i = 0; i < OAK_PASS_COUNT && n < max; i++) {
        if (rows[i].untimed) continue;
        if (i == OAK_PASS_RASTER && f->gpu_hiz && n + 2 < max) {
            out[n++] = (oak_stage_timing){"hiz_pass1", 0.0, f->hiz_ms[0]};
            out[n++] = (oak_stage_timing){"hiz_pyramid", 0.0, f->hiz_ms[1]};
        }
        out[n++] = (oak_stage_timing){rows[i].name, f->cpu_ms[i], f->gpu_ms[i]};
    }
    /* the host's side, as Vulkan reports it: the rows' CPU time (the
       rows' own entries show their GPU time) and slotwait: the wait for
       the frame two before this one (wait_frame) and the polling and
       reading of the stamps above (a driver that finishes the frame to
       answer would show there) */
    double record = 0;
    for (uint32_t i = 0; i < OAK_PASS_COUNT; i++) record += f->cpu_ms[i];
    if (n < max) out[n++] = (oak_stage_timing){"record", record, -1.0};
    if (n < max) out[n++] = (oak_stage_timing){"slotwait", f->slot_ms + f->wait_ms, -1.0};
    return n;
}

void _oak_gl_frame_overlap(void *self, _oak_gl_overlap *out) {
    const _oak_gl_frame *f = ((_oak_gl_backend *)self)->frame;
    *out = (_oak_gl_overlap){.frames = f->query_frames,
                             .gpu_frame = f->stamps.seen,
                             .blocking_reads = f->blocking_reads,
                             .lagged_reads = f->lagged_reads};
}
