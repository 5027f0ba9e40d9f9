/* The OpenGL 4.5 backend's vtable: probe (what `oak info` prints), create
 * and destroy around the EGL context, and the calls that hand each frame to
 * gl_frame.c. Every entry makes this backend's context current first, so
 * several backends can live on one thread. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/gpu/craster.h"
#include "gl_gpu.h"
#include "gl_internal.h"
#include "render/taa.h"

void _oak_gl_report(const _oak_gl_context *c, char *report, size_t size) {
    snprintf(
        report, size,
        "device: %s\n"
        "vendor: %s\n"
        "api: OpenGL %s (GLSL %s)\n"
        "egl platform: %s (headless, no surface, %s)\n"
        "software: %s\n"
        "compute: %d invocations a group, %d texture units\n"
        "textures: 2D arrays by size class, %d layers, %d px edge\n"
        "draws: multi-draw indirect, vertex pulling from one pool%s\n"
        "indirect counts: %s\n"
        "64-bit integers: %s%s%s\n"
        "compute raster per instance: %s\n"
        "shadow compute raster: %s\n"
        "water: %s\n"
        "bindless textures: %s (path: texture arrays by size class)\n"
        "gpu timers: %s\n"
        "frame: shadow map, visibility buffer (depth + ids), compute resolve, compute "
        "post + FXAA\n"
        "shaders: the shared GLSL of shaders/ (%u passes, embedded), binding model by macro\n",
        c->renderer, c->vendor, c->version, c->glsl, c->platform,
        c->no_config ? "no config" : "a config chosen but unused",
        c->software ? "yes (a CPU rasterizer)" : "no", c->max_compute_invocations,
        c->max_compute_texture_units, c->max_texture_layers, c->max_texture_size,
        c->has_draw_parameters ? " (ARB_shader_draw_parameters available)" : "",
        c->has_indirect_count ? "yes -> Hi-Z occlusion compacts its draws on the GPU"
                              : "no -> Hi-Z occlusion draws in place (instance count 0 or 1)",
        !c->has_int64 ? "no -> hardware raster (the compute raster needs ARB_gpu_shader_int64)"
        : _oak_craster_mode_get() == OAK_CRASTER_MODE_OFF
            ? "yes -> hardware raster (OAK_CRASTER=off)"
        : _oak_craster_mode_get() == OAK_CRASTER_MODE_ALL
            ? "yes -> compute raster of every stream band it can take (OAK_CRASTER=all, 32-bit "
              "atomics in two "
              "steps; under Hi-Z once a pass)"
            : "yes -> compute raster of small stream triangles (OAK_CRASTER=on, 32-bit "
              "atomics in two steps; under Hi-Z once a pass)",
        c->has_int64 && _oak_craster_mode_get() != OAK_CRASTER_MODE_OFF ? ": " : "",
        c->has_int64 && _oak_craster_mode_get() != OAK_CRASTER_MODE_OFF ? _oak_craster_kinds() : "",
        _oak_craster_instance_words(c->has_int64),
        _oak_craster_shadow_words(c->has_int64, "ARB_gpu_shader_int64"),
        getenv("OAK_GL_WATER_FORWARD") && !strcmp(getenv("OAK_GL_WATER_FORWARD"), "1")
            ? "shaded in the blend pass's fragment shader (OAK_GL_WATER_FORWARD=1)"
            : "its pixels found by its fragments, shaded in compute",
        c->has_bindless ? "available" : "no", c->has_timer_query ? "yes" : "no",
        _oak_gl_shared_count());
}

static oak_result gl_probe(char *report, size_t size) {
    _oak_gl_context c;
    oak_result r = _oak_gl_context_create(&c, false);
    if (r != OAK_OK) {
        if (size) snprintf(report, size, "%s", oak_last_error()); /* one line: the reason */
        return r;
    }
    if (size) _oak_gl_report(&c, report, size);
    _oak_gl_context_destroy(&c);
    return OAK_OK;
}

static void gl_destroy(void *self) {
    _oak_gl_backend *b = self;
    if (!b) return;
    if ((b->ctx.context || b->ctx.window) && _oak_gl_make_current(&b->ctx) == OAK_OK) {
        _oak_gl_present_destroy(b);
        _oak_gl_frame_destroy(b);
        _oak_gl_targets_release(&b->targets);
    }
    _oak_gl_context_destroy(&b->ctx);
    oak_free(b);
}

static oak_result gl_create(void **self, const oak_backend_desc *desc) {
    *self = NULL;
    _oak_gl_backend *b = oak_calloc(1, sizeof *b);
    if (!b) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "gl: out of memory for the backend");
    /* A debug context, its KHR_debug messages in the log, unless
       OAK_GL_DEBUG=0 (drivers may run debug contexts slower: benchmarks). */
    const char *dbg = getenv("OAK_GL_DEBUG");
    bool debug = !(dbg && strcmp(dbg, "0") == 0);
    /* with a window: its own context (gl_present.c says why) */
    oak_result r = desc->window ? _oak_gl_context_adopt(&b->ctx, debug, desc->window)
                                : _oak_gl_context_create_on(&b->ctx, debug, desc->device);
    if (r != OAK_OK) {
        oak_free(b);
        return r;
    }
    if (desc->hardware_only && b->ctx.software) {
        char why[256];
        snprintf(why, sizeof why, "%s", b->ctx.renderer);
        gl_destroy(b);
        return oak_error(OAK_ERROR_DEVICE,
                         "gl: only a software renderer (%s); the cpu backend is faster here", why);
    }
    snprintf(b->device, sizeof b->device, "%s (OpenGL %s)", b->ctx.renderer, b->ctx.version);
    b->shadow_map_size = desc->shadow_map_size ? desc->shadow_map_size : OAK_SHADOW_MAP_SIZE;
    r = _oak_gl_targets_resize(&b->targets, desc->width ? desc->width : 1280,
                               desc->height ? desc->height : 720, 0, 0);
    if (r == OAK_OK) r = _oak_gl_frame_create(b);
    if (r != OAK_OK) {
        gl_destroy(b);
        return r;
    }
    *self = b;
    return OAK_OK;
}

static const char *gl_device_name(void *self) {
    return ((_oak_gl_backend *)self)->device;
}

static oak_result gl_resize(void *self, uint32_t w, uint32_t h) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r : _oak_gl_targets_resize(&b->targets, w, h, 0, 0);
}

static oak_result gl_sync(void *self, const oak_render_view *view) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r : _oak_gl_frame_sync(b, view);
}

static oak_result gl_render(void *self, const oak_render_view *view) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    uint32_t ow, oh; /* TAA upsampling writes the output's size */
    _oak_taa_out_size(view, &ow, &oh);
    if (r == OAK_OK) r = _oak_gl_targets_resize(&b->targets, view->width, view->height, ow, oh);
    if (r == OAK_OK) r = _oak_gl_frame_render(b, view);
    if (r == OAK_OK) {
        b->frame->up_last = b->frame->up_now;
        b->frame->up_now = (oak_upload_stats){0};
    }
    return r;
}

static oak_result gl_read_pixels(void *self, uint8_t *rgba, size_t size) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    if (r != OAK_OK) return r;
    return _oak_gl_read_rgba8(&b->targets, rgba, size);
}

static uint32_t gl_timings(void *self, oak_stage_timing *out, uint32_t max) {
    return _oak_gl_frame_timings(self, out, max);
}

static oak_result gl_read_light_grid(void *self, uint32_t *words, size_t count) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r : _oak_gl_lightgrid_read(b->frame, words, count);
}

static void gl_blend_stats(void *self, oak_blend_stats *out) {
    const _oak_gl_frame *f = ((_oak_gl_backend *)self)->frame;
    *out = (oak_blend_stats){f->blend_surfaces, f->blend_draws, f->blend_unlit, f->blend_compute};
}

static void gl_shadow_stats(void *self, oak_shadow_stats *out) {
    *out = ((_oak_gl_backend *)self)->frame->shadow_stats;
}

static oak_result gl_read_sky(void *self, float *texels, size_t count, uint32_t *captures) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r : _oak_gl_sky_read(b->frame, texels, count, captures);
}

static oak_result gl_read_hdr(void *self, float *rgba, size_t count) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r : _oak_gl_read_hdr(&b->targets, rgba, count);
}

/* The sampled cascade atlas of the last frame (test hook). */
static oak_result gl_read_shadow_map(void *self, float *depth, size_t count) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    if (r) return r;
    const _oak_gl_frame *f = b->frame;
    size_t texels = (size_t)f->shadow_size * f->shadow_size;
    if (!depth || !texels || !f->shadow_tex || count < texels)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "gl: read_shadow_map needs %zu floats, got %zu", texels, count);
    glGetTextureImage(f->shadow_tex, 0, GL_DEPTH_COMPONENT, GL_FLOAT, (GLsizei)(texels * 4), depth);
    return _oak_gl_check("read_shadow_map")
               ? oak_error(OAK_ERROR_DEVICE, "gl: shadow map read failed")
               : OAK_OK;
}

static oak_result gl_read_exposure(void *self, float state[4]) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r : _oak_gl_exposure_read(b->frame, state);
}

static oak_result gl_read_stream_counts(void *self, uint32_t per_lod[OAK_STREAM_LODS],
                                        uint32_t *per_stream, uint32_t max_streams,
                                        uint32_t *split) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r
                       : _oak_gl_instcull_read(b->frame, per_lod, per_stream, max_streams, split);
}

static bool gl_occlusion_stats(void *self, oak_occlusion_stats *out) {
    _oak_gl_backend *b = self;
    return _oak_gl_make_current(&b->ctx) == OAK_OK && _oak_gl_hiz_stats(b->frame, out);
}

static void gl_upload_stats(void *self, oak_upload_stats *out) {
    *out = ((_oak_gl_backend *)self)->frame->up_last;
}

static void gl_meshlet_stats(void *self, oak_meshlet_stats *out) {
    _oak_gl_backend *b = self;
    *out = (oak_meshlet_stats){0};
    if (_oak_gl_make_current(&b->ctx) == OAK_OK) _oak_gl_meshcull_stats(b->frame, out);
}

static const char *gl_presentation(void *self) {
    const oak_window_hooks *w = ((_oak_gl_backend *)self)->ctx.window;
    return !w ? NULL : w->no_vsync ? "default framebuffer, no vsync" : "default framebuffer";
}

static oak_result gl_present(void *self, uint32_t w, uint32_t h, const oak_present_panel *panel,
                             uint8_t *capture) {
    _oak_gl_backend *b = self;
    oak_result r = _oak_gl_make_current(&b->ctx);
    return r != OAK_OK ? r : _oak_gl_present(b, w, h, panel, capture);
}

const oak_backend *oak_backend_gl(void) {
    static const oak_backend b = {"gl",
                                  gl_probe,
                                  gl_create,
                                  gl_destroy,
                                  gl_device_name,
                                  gl_resize,
                                  gl_sync,
                                  gl_render,
                                  gl_read_pixels,
                                  gl_timings,
                                  OAK_CAP_ALL_PASSES | OAK_CAP_PIXELS | OAK_CAP_GPU_TIMINGS |
                                      OAK_CAP_SHADOW_CACHE | OAK_CAP_PROBES | OAK_CAP_GPU_STREAMS |
                                      OAK_CAP_GPU_OCCLUSION | OAK_CAP_AERIAL,
                                  gl_read_light_grid,
                                  gl_shadow_stats,
                                  gl_read_sky,
                                  gl_read_stream_counts,
                                  gl_read_hdr,
                                  gl_read_exposure,
                                  gl_occlusion_stats,
                                  gl_presentation,
                                  gl_present,
                                  gl_blend_stats,
                                  gl_meshlet_stats,
                                  gl_read_shadow_map,
                                  gl_upload_stats};
    return &b;
}
