/* Private to the OpenGL backend: the EGL context, KHR_debug capture, and the
 * GPU resources (buffers, mesh pool, texture arrays, materials, passes) the
 * backend's files share. Nothing here is seen above backend/gl. */
#ifndef OAK_GL_INTERNAL_H
#define OAK_GL_INTERNAL_H

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <oak/backend.h>

#include "shaders/common/oak_gpu.h"

/* ---- context (gl_context.c) ------------------------------------------- */

typedef struct _oak_gl_context {
    EGLDisplay display;
    EGLContext context;
    const char *platform; /* "device" or "surfaceless" */
    bool no_config;       /* EGL_KHR_no_config_context was used */
    char vendor[128], renderer[192], version[128], glsl[64];
    bool software; /* llvmpipe / softpipe / swrast */
    GLint max_compute_invocations, max_texture_layers, max_texture_size;
    GLint max_ssbo_bindings, max_compute_texture_units;
    bool has_draw_parameters, has_bindless, has_timer_query;
    bool has_indirect_count; /* ARB_indirect_parameters or GL 4.6: Hi-Z draws by count */
    bool has_int64;          /* ARB_gpu_shader_int64: the compute raster (gl_craster.c) */
    /* a window's context, adopted instead of one of our own (gl_present.c):
       made current through the window's hook, never destroyed here */
    const oak_window_hooks *window;
} _oak_gl_context;

/* Creates a 4.5 core context without a surface on the first EGL device that
 * gives one (hardware devices first), else on the surfaceless platform.
 * With debug, KHR_debug messages are routed to oak_log. */
oak_result _oak_gl_context_create(_oak_gl_context *c, bool debug);
/* The same on a chosen device: NULL or "" the best, "N" EGL device N,
   "surfaceless" Mesa's surfaceless platform (oak_backend_desc.device). */
oak_result _oak_gl_context_create_on(_oak_gl_context *c, bool debug, const char *device);
/* The window's OpenGL 4.5 core context as the backend's (it renders there
   and presents into its default framebuffer). */
oak_result _oak_gl_context_adopt(_oak_gl_context *c, bool debug, const oak_window_hooks *window);
void _oak_gl_context_destroy(_oak_gl_context *c);
oak_result _oak_gl_make_current(const _oak_gl_context *c);

/* Error-severity debug messages seen since start (tests fail on any). */
uint32_t _oak_gl_debug_errors(void);
/* Drains pending GL errors into the log; returns the first one, 0 if none. */
GLenum _oak_gl_check(const char *where);

/* ---- shaders (gl_shader.c) -------------------------------------------- */

/* Compiles and links one program from sources (vertex+fragment, or compute
 * when vs is NULL). The driver's log is in the error message on failure. */
oak_result _oak_gl_program(GLuint *out, const char *name, const char *vs, const char *fs,
                           const char *cs);
/* A compute program from an embedded shader body, behind the GL header
 * (#version 450, OAK_GL): the light grid, gtao and sky passes. */
oak_result _oak_gl_compute(GLuint *out, const char *name, const char *body);

/* ---- buffers (gl_buffer.c) -------------------------------------------- */

/* An immutable-storage buffer replaced by a bigger one when it must grow,
 * the old contents copied on the GPU; capacity doubles and is kept. */
typedef struct _oak_gl_buffer {
    GLuint id;
    size_t capacity, size; /* bytes */
} _oak_gl_buffer;

oak_result _oak_gl_buffer_reserve(_oak_gl_buffer *b, size_t bytes, bool keep);
oak_result _oak_gl_buffer_upload(_oak_gl_buffer *b, size_t offset, const void *data, size_t bytes);
void _oak_gl_buffer_release(_oak_gl_buffer *b);

/* ---- render targets (gl_target.c) ------------------------------------- */

/* The frame's images at the output size. Every raster pass runs with
 * glClipControl(GL_UPPER_LEFT, GL_ZERO_TO_ONE), so memory row 0 is clip
 * y = +1, the top of the picture, and compute passes index rows the same. */
typedef struct _oak_gl_targets {
    uint32_t width, height;
    /* the size hdr, ldr and out are made at (TAA upsampling writes the
       output's size there; the passes before it use the top-left width x
       height), and the last frame's picture size */
    uint32_t out_width, out_height, pic_width, pic_height;
    GLuint depth;            /* DEPTH_COMPONENT32F, reversed-Z (clear 0, GREATER) */
    GLuint vis;              /* RG32UI: (draw + 1, triangle), 0 where nothing drew */
    GLuint hdr;              /* RGBA32F linear colour from the resolve */
    GLuint vis_fbo;          /* depth + vis */
    GLuint blend_fbo;        /* hdr + depth, for BLEND surfaces over the resolved frame */
    _oak_gl_buffer ldr, out; /* RGBA8 a uint per pixel: after dither, after FXAA */
} _oak_gl_targets;

/* Targets for a width x height frame whose taa pass writes out_width x
   out_height (at least the frame's; 0: the frame's). */
oak_result _oak_gl_targets_resize(_oak_gl_targets *t, uint32_t width, uint32_t height,
                                  uint32_t out_width, uint32_t out_height);
void _oak_gl_targets_release(_oak_gl_targets *t);
/* Copies the final picture to rgba, row 0 first (= the top). */
oak_result _oak_gl_read_rgba8(const _oak_gl_targets *t, uint8_t *rgba, size_t size);

/* ---- the backend object (gl_backend.c) -------------------------------- */

typedef struct _oak_gl_backend {
    _oak_gl_context ctx;
    char device[384];
    uint32_t shadow_map_size;
    _oak_gl_targets targets;
    struct _oak_gl_frame *frame; /* passes and per-frame buffers (gl_frame.c) */
    /* native presentation (gl_present.c): the picture and panel composed
       in a texture, blitted into the window's default framebuffer */
    GLuint present_tex, present_fbo;
    uint32_t present_w, present_h;
} _oak_gl_backend;

/* ---- presentation (gl_present.c) -------------------------------------- */

oak_result _oak_gl_present(_oak_gl_backend *b, uint32_t width, uint32_t height,
                           const oak_present_panel *panel, uint8_t *capture);
void _oak_gl_present_destroy(_oak_gl_backend *b);

/* Fills report with the probe's lines for a live context. */
void _oak_gl_report(const _oak_gl_context *c, char *report, size_t size);

/* ---- the frame (gl_frame.c) ------------------------------------------- */

oak_result _oak_gl_frame_create(_oak_gl_backend *b);
void _oak_gl_frame_destroy(_oak_gl_backend *b);
oak_result _oak_gl_frame_sync(_oak_gl_backend *b, const oak_render_view *view);
oak_result _oak_gl_frame_render(_oak_gl_backend *b, const oak_render_view *view);
uint32_t _oak_gl_frame_timings(_oak_gl_backend *b, oak_stage_timing *out, uint32_t max);
/* Compiles every pass (vis, vis-mask, shadow, shadow-mask, resolve, post, fxaa, blend,
   vis-stream, vis-stream-masked, shadow-stream, shadow-stream-masked). */
#define OAK_GL_FRAME_PROGRAMS 13
oak_result _oak_gl_frame_programs(GLuint out[OAK_GL_FRAME_PROGRAMS]);
/* Compiles one shared pass (shaders/<file>) in every SHADOW x MASKED variant;
   on failure *error holds the driver log. */
oak_result _oak_gl_compile_shared(const char *file, const char **error);
/* The embedded body of shaders/<file> (NULL: none). */
const char *_oak_gl_shared_source(const char *file);
/* The particle kernel over n particles on the current context: their
   records and the counts per flipbook frame, read back (gl_particles.c;
   tests/test_particles_gpu.c). */
/* Test hook: n records of the last frame's instance buffer from `first`
   (the particles pass's output where instcull read it; gl_pass_particles.c). */
oak_result _oak_gl_particles_frame_records(void *self, uint64_t first, uint32_t n,
                                           oak_instance *out);
/* Test hook: emitter blocks the particles pass copied up so far. */
uint64_t _oak_gl_particles_uploads(void *self);
/* Test hook: the instance counts the last frame's BLEND commands of the
   "over" books' frames drew (the draw kernel's counts), summed per frame
   over the books, read back. */
oak_result _oak_gl_particles_book_counts(void *self, uint32_t counts[OAK_PARTICLE_FRAMES]);
oak_result _oak_gl_particles_run(const oak_gpu_particle_emitter *c, const oak_gpu_particle *parts,
                                 uint32_t n, oak_instance *records,
                                 uint32_t counts[OAK_PARTICLE_FRAMES]);
/* The order of n records grouped by frame (frames NULL: all 0), far to
   near within one seen from eye along fwd, ties in index order: the
   bitonic sort of shaders/particles_sort.comp.glsl. */
oak_result _oak_gl_particles_sort(const float eye[3], const float fwd[3],
                                  const oak_instance *records, const uint8_t *frames, uint32_t n,
                                  uint32_t *order);
uint32_t _oak_gl_shared_count(void); /* passes embedded from shaders/ */

#endif
