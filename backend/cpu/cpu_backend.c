/* oak's CPU backend, the reference renderer: the vtable, buffers and the
 * frame, a walk down the pass table (render/pass_table.h) with each pass in
 * its own file, cpu_pass_<name>.c. Every pass runs on the job pool in fixed
 * chunks, so the bytes out do not depend on the thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/gpu/meshcull.h"
#include "cpu_internal.h"
#include "render/taa.h"
#include "shaders/common/oak_gpu.h"

static char g_device[96];

static oak_result cpu_probe(char *report, size_t size) {
    if (report && size) {
        __builtin_cpu_init();
        snprintf(report, size,
                 "device: oak CPU rasterizer\nthreads: %u\ntiles: %ux%u px\nsimd: %s\n"
                 "shading kernel: %s (OAK_CPU_ISA=avx2|sse4|scalar narrows it)\n",
                 oak_job_threads(), CPU_TILE, CPU_TILE,
                 __builtin_cpu_supports("avx2")     ? "avx2 (sse4.1 for post and fxaa)"
                 : __builtin_cpu_supports("sse4.1") ? "sse4.1"
                                                    : "sse2",
                 _oak_cpu_isa_name());
    }
    return OAK_OK;
}

static void pass_release(cpu_pass *p) {
    oak_free(p->draws);
    oak_free(p->vtx_base);
    oak_free(p->tri_base);
    oak_free(p->clip);
    oak_free(p->svert);
    for (uint32_t i = 0; i < p->chunk_cap; i++) {
        oak_free(p->chunks[i].tris);
        oak_free(p->chunks[i].bins);
    }
    oak_free(p->chunks);
    oak_free(p->tris);
    oak_free(p->bin_start);
    oak_free(p->bin_tris);
    oak_free(p->counts);
    _oak_cpu_meshcull_release(p);
    memset(p, 0, sizeof *p);
}

static void cpu_destroy(void *self) {
    cpu_backend *b = self;
    if (!b) return;
    _oak_cpu_mirrors_release(b);
    pass_release(&b->shadow);
    pass_release(&b->opaque);
    pass_release(&b->blend);
    pass_release(&b->lamp);
    _oak_cpu_lamp_atlas_release(b);
    oak_free(b->depth);
    oak_free(b->grid);
    oak_free(b->grid_lamps);
    oak_free(b->grid_scratch);
    oak_free(b->cones);
    oak_free(b->ao_words);
    oak_free(b->bloom);
    oak_free(b->bloom_box);
    oak_free(b->dof);
    oak_free(b->clouds);
    oak_free(b->fog_buf);
    oak_free(b->taa);
    oak_free(b->opaque_copy);
    oak_free(b->ssr);
    oak_free(b->rtile_key); /* the block rtile_order and rtile_cost point into */
    oak_free(b->ids);
    oak_free(b->shadow_map);
    oak_free(b->shadow_static);
    oak_free(b->color);
    oak_free(b->color_up);
    oak_free(b->ldr);
    oak_free(b->out);
    oak_free(b->luma);
    oak_free(b->sky);
    oak_free(b);
}

/* The frame's buffers for `tiled` pixels (grown only). */
static oak_result grow_frame(cpu_backend *b, size_t tiled) {
    if (tiled <= b->frame_cap) return OAK_OK;
    float *depth = oak_realloc(b->depth, tiled * sizeof(float));
    if (depth) b->depth = depth;
    uint32_t *ids = oak_realloc(b->ids, tiled * sizeof(uint32_t));
    if (ids) b->ids = ids;
    float *color = oak_realloc(b->color, tiled * 3 * sizeof(float));
    if (color) b->color = color;
    uint8_t *ldr = oak_realloc(b->ldr, tiled * 4);
    if (ldr) b->ldr = ldr;
    uint8_t *out = oak_realloc(b->out, tiled * 4);
    if (out) b->out = out;
    uint8_t *luma = oak_realloc(b->luma, tiled);
    if (luma) b->luma = luma;
    if (!depth || !ids || !color || !ldr || !out || !luma) return OAK_ERROR_OUT_OF_MEMORY;
    b->frame_cap = tiled;
    return OAK_OK;
}

static oak_result cpu_resize(void *self, uint32_t width, uint32_t height) {
    cpu_backend *b = self;
    if (!width || !height || width > OAK_MAX_OUTPUT_SIZE || height > OAK_MAX_OUTPUT_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: output size %ux%u is outside 1..%u", width, height,
                         OAK_MAX_OUTPUT_SIZE);
    size_t tiled = _oak_cpu_tiled_pixels(width, height), n = (size_t)width * height;
    oak_result r = grow_frame(b, tiled);
    if (r) return r;
    if (b->width != width || b->height != height) memset(b->out, 0, n * 4);
    b->width = width;
    b->height = height;
    b->pic_width = width, b->pic_height = height;
    return OAK_OK;
}

static oak_result cpu_create(void **self, const oak_backend_desc *desc) {
    *self = NULL;
    cpu_backend *b = oak_calloc(1, sizeof *b);
    if (!b) return OAK_ERROR_OUT_OF_MEMORY;
    _oak_cpu_post_init();
    b->meshcull = _oak_meshcull_enabled();
    const char *serial = getenv("OAK_CPU_SERIAL_MERGE");
    b->serial_merge = serial && serial[0] && serial[0] != '0';
    const char *scalar = getenv("OAK_CPU_SCALAR_VERTEX");
    b->scalar_vertex = scalar && scalar[0] && scalar[0] != '0';
    const char *twins = getenv("OAK_CPU_NO_TWINS");
    b->no_twins = twins && twins[0] && twins[0] != '0';
    const char *cover = getenv("OAK_CPU_NO_COVER");
    b->no_cover = cover && cover[0] && cover[0] != '0';
    const char *huge = getenv("OAK_CPU_NO_HUGE");
    b->no_huge = huge && huge[0] && huge[0] != '0';
    const char *loop = getenv("OAK_CPU_LAMP_LOOP");
    b->lamp_loop_all = loop && strcmp(loop, "all") == 0;
    b->shadow_size = desc && desc->shadow_map_size ? desc->shadow_map_size : OAK_SHADOW_MAP_SIZE;
    oak_result r = cpu_resize(b, desc && desc->width ? desc->width : 1280,
                              desc && desc->height ? desc->height : 720);
    if (!r) r = _oak_cpu_sky_create(b);
    if (r) {
        cpu_destroy(b);
        return r;
    }
    *self = b;
    return OAK_OK;
}

static const char *cpu_device_name(void *self) {
    (void)self;
    snprintf(g_device, sizeof g_device, "oak CPU rasterizer (%u threads, %s shading)",
             oak_job_threads(), _oak_cpu_isa_name());
    return g_device;
}

static oak_result cpu_sync(void *self, const oak_render_view *view) {
    cpu_backend *b = self;
    oak_result r = _oak_cpu_sync(b, view);
    b->synced_view = r ? NULL : view;
    b->synced_frame = view->frame;
    return r;
}

/* One run function per row of the pass table (cpu_pass_<name>.c); NULL:
   nothing to do here (read_pixels copies the picture). */
static const cpu_run_fn k_run[OAK_PASS_COUNT] = {
    [OAK_PASS_UPLOAD] = _oak_cpu_run_upload,
    [OAK_PASS_LIGHTGRID] = _oak_cpu_run_lightgrid,
    [OAK_PASS_SKYCAPTURE] = _oak_cpu_run_skycapture,
    [OAK_PASS_SHADOW] = _oak_cpu_run_shadow,
    [OAK_PASS_LAMPSHADOW] = _oak_cpu_run_lampshadow, /* cpu_pass_lampshadow.c */
    [OAK_PASS_RASTER] = _oak_cpu_run_raster,
    /* ambient occlusion, between the raster and the resolve */
    [OAK_PASS_GTAO] = _oak_cpu_run_gtao,
    [OAK_PASS_CLOUDS] = _oak_cpu_run_clouds, /* cpu_pass_clouds.c */
    [OAK_PASS_FOG] = _oak_cpu_run_fog,       /* cpu_pass_fog.c */
    [OAK_PASS_RESOLVE] = _oak_cpu_run_resolve,
    [OAK_PASS_SSR] = _oak_cpu_run_ssr,               /* cpu_pass_ssr.c */
    [OAK_PASS_OPAQUECOPY] = _oak_cpu_run_opaquecopy, /* cpu_pass_opaquecopy.c */
    [OAK_PASS_BLEND] = _oak_cpu_run_blend,
    [OAK_PASS_CLOUDMIX] = _oak_cpu_run_cloudmix, /* cpu_pass_clouds.c */
    [OAK_PASS_DOF] = _oak_cpu_run_dof,           /* cpu_pass_dof.c */
    [OAK_PASS_TAA] = _oak_cpu_run_taa,           /* cpu_pass_taa.c */
    [OAK_PASS_EXPOSURE] = _oak_cpu_run_exposure, /* cpu_pass_exposure.c */
    [OAK_PASS_BLOOM] = _oak_cpu_run_bloom,       /* cpu_pass_bloom.c */
    [OAK_PASS_POST] = _oak_cpu_run_post,
    [OAK_PASS_FXAA] = _oak_cpu_run_fxaa,
    [OAK_PASS_READBACK] = NULL,
};

/* no instcull: the CPU's cull-and-LOD kernel runs in the frontend; no
   particles or grass pass: the CPU evaluates particle records and grows
   grass on the job pool; no meshcull pass: the CPU tests meshlets in its
   raster's set-up */
#define CPU_CAPS                                                                                   \
    ((OAK_CAP_ALL_PASSES & ~OAK_CAP_PASS(OAK_PASS_INSTCULL) & ~OAK_CAP_PASS(OAK_PASS_SKIN) &       \
      ~OAK_CAP_PASS(OAK_PASS_PARTICLES) & ~OAK_CAP_PASS(OAK_PASS_GRASS) &                          \
      ~OAK_CAP_PASS(OAK_PASS_MESHCULL)) |                                                          \
     OAK_CAP_PIXELS | OAK_CAP_SHADOW_CACHE | OAK_CAP_PROBES | OAK_CAP_AERIAL)

/* The frame: the pass table top to bottom, each pass timed by its row. */
static oak_result cpu_render(void *self, const oak_render_view *v) {
    cpu_backend *b = self;
    memset(b->stage_ms, 0, sizeof b->stage_ms);
    b->shadow_stats = (oak_shadow_stats){0};
    b->shadow_lod = (oak_meshlet_stats){0};
    b->blend_stats = (oak_blend_stats){0};
    memset(b->part_ms, 0, sizeof b->part_ms);
    if (v->width != b->width || v->height != b->height) {
        oak_result r = cpu_resize(b, v->width, v->height);
        if (r) return r;
    }
    if (v->light_count && !v->lights)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: view has %u lights but no array",
                         v->light_count);
    /* TAA upsampling: the passes after taa run at the output size, on
       buffers big enough for it (the taa pass makes the frame: color_up) */
    uint32_t ow, oh;
    _oak_taa_out_size(v, &ow, &oh);
    bool up = ow != v->width || oh != v->height;
    if (up) {
        oak_result g = grow_frame(b, _oak_cpu_tiled_pixels(ow, oh));
        if (g) return g;
    }
    b->view = v;
    b->lamp_valid = false;   /* until this frame's lamp pass draws */
    b->cloud.shape[3] = 0;   /* no cloud shadow until this frame's clouds pass runs */
    b->fog.grid[3] = 0;      /* no volumetric fog until this frame's fog pass runs */
    b->opaque_valid = false; /* no copy until this frame's opaquecopy pass runs */
    const oak_pass_row *rows = _oak_pass_table();
    oak_result r = OAK_OK;
    uint64_t busy0[OAK_JOB_MAX_THREADS], busy1[OAK_JOB_MAX_THREADS];
    uint32_t workers = oak_job_busy_ns(busy0, OAK_JOB_MAX_THREADS);
    bool swapped = false;
    for (uint32_t i = 0; i < OAK_PASS_COUNT && !r; i++) {
        if (!_oak_pass_runs(&rows[i], v, CPU_CAPS) || !k_run[i]) continue;
        uint64_t t0 = oak_time_ns();
        r = k_run[i](b, v);
        if (!r && up && i == OAK_PASS_TAA) { /* the rest sees the output-sized frame */
            float *c = b->color;
            b->color = b->color_up, b->color_up = c;
            b->width = ow, b->height = oh;
            swapped = true;
        }
        double ms = oak_ms_since(t0);
        for (uint32_t k = 0; k < OAK_PASS_MAX_PARTS; k++) ms -= b->part_ms[i][k];
        b->stage_ms[i] = ms > 0 ? ms : 0;
    }
    b->pic_width = b->width, b->pic_height = b->height;
    if (swapped) { /* back to the render size (read_hdr: the frame before taa) */
        float *c = b->color;
        b->color = b->color_up, b->color_up = c;
        b->width = v->width, b->height = v->height;
    }
    /* per-thread busy time: how evenly the frame's jobs spread (bench --json) */
    b->busy_count = oak_job_busy_ns(busy1, workers);
    for (uint32_t i = 0; i < b->busy_count; i++)
        b->busy_ms[i] = (double)(busy1[i] - busy0[i]) * 1e-6;
    b->synced_view = NULL;
    b->view = NULL;
    return r;
}

static oak_result cpu_read_pixels(void *self, uint8_t *rgba, size_t size) {
    cpu_backend *b = self;
    size_t n = (size_t)b->pic_width * b->pic_height * 4;
    if (!rgba || size < n)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: read_pixels needs %zu bytes for %ux%u, got %zu", n,
                         b->pic_width, b->pic_height, size);
    memcpy(rgba, b->out, n);
    return OAK_OK;
}

static oak_result cpu_read_hdr(void *self, float *rgba, size_t count) {
    cpu_backend *b = self;
    size_t n = (size_t)b->width * b->height;
    if (!rgba || count < n * 4)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: read_hdr needs %zu floats for %ux%u, got %zu", n * 4,
                         b->width, b->height, count);
    for (size_t i = 0; i < n; i++) {
        memcpy(rgba + i * 4, b->color + i * 3, 3 * sizeof(float));
        rgba[i * 4 + 3] = 1.0f;
    }
    return OAK_OK;
}

static oak_result cpu_read_light_grid(void *self, uint32_t *words, size_t count) {
    cpu_backend *b = self;
    if (!b->grid_ready)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: no light grid was built");
    if (count < OAK_GPU_LIGHT_GRID_WORDS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: light grid needs %u words",
                         (unsigned)OAK_GPU_LIGHT_GRID_WORDS);
    memcpy(words, b->grid, sizeof(uint32_t) * OAK_GPU_LIGHT_GRID_WORDS);
    return OAK_OK;
}

static oak_result cpu_read_exposure(void *self, float state[4]) {
    memcpy(state, ((cpu_backend *)self)->exposure_state, 4 * sizeof(float));
    return OAK_OK;
}

static void cpu_meshlet_stats(void *self, oak_meshlet_stats *out) {
    const cpu_backend *b = self;
    *out = b->ml_stats;
    out->shadow_culled_lod = b->shadow_lod.culled_lod;
    out->shadow_triangles = b->shadow_lod.triangles_kept;
}

static void cpu_blend_stats(void *self, oak_blend_stats *out) {
    *out = ((cpu_backend *)self)->blend_stats;
}

static void cpu_shadow_stats(void *self, oak_shadow_stats *out) {
    *out = ((cpu_backend *)self)->shadow_stats;
}

static oak_result cpu_read_sky(void *self, float *texels, size_t count, uint32_t *captures) {
    cpu_backend *b = self;
    if (captures) *captures = b->sky_captures;
    if (!texels) return OAK_OK;
    if (count < (size_t)OAK_GPU_SKY_TEXELS * 4)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: the sky maps need %u floats",
                         (unsigned)OAK_GPU_SKY_TEXELS * 4);
    memcpy(texels, b->sky, sizeof(float) * 4 * OAK_GPU_SKY_TEXELS);
    return OAK_OK;
}

/* Stages named by the table: a row's parts, then the row itself. */
static uint32_t cpu_timings(void *self, oak_stage_timing *out, uint32_t max) {
    cpu_backend *b = self;
    const oak_pass_row *rows = _oak_pass_table();
    uint32_t n = 0;
    for (uint32_t i = 0; i < OAK_PASS_COUNT; i++) {
        if (rows[i].untimed) continue;
        for (uint32_t k = 0; k < OAK_PASS_MAX_PARTS && rows[i].parts[k] && n < max; k++)
            out[n++] = (oak_stage_timing){rows[i].parts[k], b->part_ms[i][k], -1};
        if (n < max) out[n++] = (oak_stage_timing){rows[i].name, b->stage_ms[i], -1};
    }
    /* then "busy.tN": worker N's time inside jobs during the frame */
    static const char *const k_busy[] = {
        "busy.t0",  "busy.t1",  "busy.t2",  "busy.t3",  "busy.t4",  "busy.t5",  "busy.t6",
        "busy.t7",  "busy.t8",  "busy.t9",  "busy.t10", "busy.t11", "busy.t12", "busy.t13",
        "busy.t14", "busy.t15", "busy.t16", "busy.t17", "busy.t18", "busy.t19", "busy.t20",
        "busy.t21", "busy.t22", "busy.t23", "busy.t24", "busy.t25", "busy.t26", "busy.t27",
        "busy.t28", "busy.t29", "busy.t30", "busy.t31"};
    for (uint32_t i = 0; i < b->busy_count && i < sizeof k_busy / sizeof *k_busy && n < max; i++)
        out[n++] = (oak_stage_timing){k_busy[i], b->busy_ms[i], -1};
    return n;
}

static const oak_backend g_cpu = {
    .name = "cpu",
    .probe = cpu_probe,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .device_name = cpu_device_name,
    .resize = cpu_resize,
    .sync = cpu_sync,
    .render = cpu_render,
    .read_pixels = cpu_read_pixels,
    .read_hdr = cpu_read_hdr,
    .timings = cpu_timings,
    .caps = CPU_CAPS,
    .read_light_grid = cpu_read_light_grid,
    .shadow_stats = cpu_shadow_stats,
    .blend_stats = cpu_blend_stats,
    .meshlet_stats = cpu_meshlet_stats,
    .read_sky = cpu_read_sky,
    .read_exposure = cpu_read_exposure,
    .read_shadow_map = _oak_cpu_read_shadow_map,
};

const oak_backend *oak_backend_cpu(void) {
    return &g_cpu;
}
