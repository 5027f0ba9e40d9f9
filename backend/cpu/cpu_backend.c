/* oak's CPU backend, the reference renderer: the vtable, buffers and the
 * frame, which reads top to bottom as its pass list. Every pass runs on the
 * job pool in fixed chunks, so the bytes out do not depend on thread count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_internal.h"
#include "shaders/common/oak_gpu.h"

static const char *const g_stage_names[CPU_STAGE_COUNT] = {"shadow",  "vertex", "bins", "raster",
                                                           "resolve", "blend",  "post", "lights"};

static char g_device[96];

static oak_result cpu_probe(char *report, size_t size) {
    if (report && size) {
        __builtin_cpu_init();
        snprintf(report, size,
                 "device: oak CPU rasterizer\nthreads: %u\ntiles: %ux%u px\nsimd: %s\n",
                 oak_job_threads(), CPU_TILE, CPU_TILE,
                 __builtin_cpu_supports("avx2")     ? "sse4.1 (avx2 present, unused)"
                 : __builtin_cpu_supports("sse4.1") ? "sse4.1"
                                                    : "sse2");
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
    memset(p, 0, sizeof *p);
}

static void cpu_destroy(void *self) {
    cpu_backend *b = self;
    if (!b) return;
    _oak_cpu_mirrors_release(b);
    pass_release(&b->shadow);
    pass_release(&b->opaque);
    pass_release(&b->blend);
    oak_free(b->depth);
    oak_free(b->grid);
    oak_free(b->grid_lamps);
    oak_free(b->grid_scratch);
    oak_free(b->cones);
    oak_free(b->ids);
    oak_free(b->shadow_map);
    oak_free(b->color);
    oak_free(b->ldr);
    oak_free(b->out);
    oak_free(b->luma);
    oak_free(b);
}

static size_t tiled_pixels(uint32_t w, uint32_t h) {
    return (size_t)((w + CPU_TILE - 1) / CPU_TILE) * ((h + CPU_TILE - 1) / CPU_TILE) *
           CPU_TILE_PIXELS;
}

static oak_result cpu_resize(void *self, uint32_t width, uint32_t height) {
    cpu_backend *b = self;
    if (!width || !height || width > OAK_MAX_OUTPUT_SIZE || height > OAK_MAX_OUTPUT_SIZE)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: output size %ux%u is outside 1..%u", width, height,
                         OAK_MAX_OUTPUT_SIZE);
    size_t tiled = tiled_pixels(width, height), n = (size_t)width * height;
    if (tiled > b->frame_cap) {
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
    }
    if (b->width != width || b->height != height) memset(b->out, 0, n * 4);
    b->width = width;
    b->height = height;
    return OAK_OK;
}

static oak_result cpu_create(void **self, const oak_backend_desc *desc) {
    *self = NULL;
    cpu_backend *b = oak_calloc(1, sizeof *b);
    if (!b) return OAK_ERROR_OUT_OF_MEMORY;
    _oak_cpu_post_init();
    const char *serial = getenv("OAK_CPU_SERIAL_MERGE");
    b->serial_merge = serial && serial[0] && serial[0] != '0';
    const char *loop = getenv("OAK_CPU_LAMP_LOOP");
    b->lamp_loop_all = loop && strcmp(loop, "all") == 0;
    b->shadow_size = desc && desc->shadow_map_size ? desc->shadow_map_size : OAK_SHADOW_MAP_SIZE;
    oak_result r = cpu_resize(b, desc && desc->width ? desc->width : 1280,
                              desc && desc->height ? desc->height : 720);
    if (r) {
        cpu_destroy(b);
        return r;
    }
    *self = b;
    return OAK_OK;
}

static const char *cpu_device_name(void *self) {
    (void)self;
    snprintf(g_device, sizeof g_device, "oak CPU rasterizer (%u threads)", oak_job_threads());
    return g_device;
}

static oak_result cpu_sync(void *self, const oak_render_view *view) {
    cpu_backend *b = self;
    oak_result r = _oak_cpu_sync(b, view);
    b->synced_view = r ? NULL : view;
    b->synced_frame = view->frame;
    return r;
}

static void pass_target(cpu_pass *p, uint32_t w, uint32_t h, bool flip, const float jitter[2],
                        float *depth, uint32_t *ids) {
    p->width = w;
    p->height = h;
    p->tiles_x = (w + CPU_TILE - 1) / CPU_TILE;
    p->tiles_y = (h + CPU_TILE - 1) / CPU_TILE;
    p->cx = (int32_t)(w / 2);
    p->cy = (int32_t)(h / 2);
    p->flip_y = flip;
    p->jitter[0] = jitter ? jitter[0] : 0;
    p->jitter[1] = jitter ? jitter[1] : 0;
    p->depth = depth;
    p->ids = ids;
}

static bool pass_add(cpu_pass *p, uint32_t src) {
    if (!OAK_GROW(p->draws, p->draw_cap, p->draw_count + 1)) return false;
    p->draws[p->draw_count++].src = src;
    return true;
}

typedef struct fill_ctx {
    cpu_backend *b;
    cpu_pass *p;
    const oak_draw_list *l;
    bool cull_ok;
} fill_ctx;

/* Resolves mirrors and matrices of a pass's draws, on the job pool: with a
   hundred thousand draws this is too much for one thread. */
static void fill_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    fill_ctx *f = user;
    cpu_backend *b = f->b;
    const oak_draw_list *l = f->l;
    const float *cam = b->view->camera_pos;
    for (uint32_t i = begin; i < end; i++) {
        cpu_draw *d = &f->p->draws[i];
        uint32_t src = d->src;
        d->mesh = (uint32_t)_oak_cpu_mesh_index(b, l->mesh[src]);
        d->material = (uint32_t)_oak_cpu_material_index(b, l->material[src]);
        d->flags = l->flags ? l->flags[src] : 0;
        const oak_material_desc *md = &b->materials[d->material].desc;
        d->cull = f->cull_ok && !md->double_sided;
        d->mask = md->alpha_mode == OAK_ALPHA_MASK;
        glm_mat4_copy(l->world[src], d->world);
        glm_mat4_mul(f->p->view_proj, d->world, d->mvp);
        mat3 m3, inv;
        glm_mat4_pick3(d->world, m3);
        glm_mat3_inv(m3, inv);
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) d->nmat[k * 3 + j] = inv[k][j];
        const oak_bounds *bb = &b->meshes[d->mesh].bounds;
        vec4 c = {bb->center[0], bb->center[1], bb->center[2], 1}, wc;
        glm_mat4_mulv(d->world, c, wc);
        d->sort_key = (wc[0] - cam[0]) * (wc[0] - cam[0]) + (wc[1] - cam[1]) * (wc[1] - cam[1]) +
                      (wc[2] - cam[2]) * (wc[2] - cam[2]);
    }
}

static void pass_fill(cpu_backend *b, cpu_pass *p, const oak_draw_list *l, bool cull_ok) {
    fill_ctx f = {b, p, l, cull_ok};
    oak_parallel_for(p->draw_count, 256, fill_job, &f);
}

/* Far to near, ties in draw order: a stable insertion sort (blend draws are
   few, and libc's qsort may allocate outside the engine's hooks). */
static void sort_far_to_near(cpu_draw *d, uint32_t n) {
    for (uint32_t i = 1; i < n; i++) {
        cpu_draw x = d[i];
        uint32_t j = i;
        while (j > 0 && d[j - 1].sort_key < x.sort_key) {
            d[j] = d[j - 1];
            j--;
        }
        d[j] = x;
    }
}

static oak_result draw_shadow(cpu_backend *b, const oak_render_view *v) {
    b->shadow_valid = false;
    if (!v->shadows || v->cascade_count < 1) return OAK_OK;
    uint32_t S = v->shadow_map_size ? v->shadow_map_size : b->shadow_size;
    if (S > OAK_MAX_TEXTURE_SIZE)
        return oak_error(OAK_ERROR_LIMIT, "cpu backend: shadow map of %u texels past %u", S,
                         OAK_MAX_TEXTURE_SIZE);
    size_t need = tiled_pixels(S, S);
    if (need > b->shadow_cap) {
        float *m = oak_realloc(b->shadow_map, need * sizeof(float));
        if (!m) return OAK_ERROR_OUT_OF_MEMORY;
        b->shadow_map = m;
        b->shadow_cap = need;
    }
    cpu_pass *p = &b->shadow;
    pass_target(p, S, S, false, NULL, b->shadow_map, NULL);
    const oak_shadow_cascade *c = &v->cascades[0];
    glm_mat4_copy((vec4 *)c->view_proj, p->view_proj);
    p->draw_count = 0;
    const oak_draw_list *l = &v->casters;
    uint32_t end = c->first_caster + c->caster_count;
    if (end > l->count || end < c->first_caster)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: cascade 0 casters %u..%u past the %u casters",
                         c->first_caster, end, l->count);
    for (uint32_t i = c->first_caster; i < end; i++) {
        int32_t mi = _oak_cpu_material_index(b, l->material[i]);
        if ((l->flags && (l->flags[i] & OAK_DRAW_NO_SHADOW)) ||
            b->materials[mi].desc.alpha_mode == OAK_ALPHA_BLEND)
            continue;
        if (!pass_add(p, i)) return OAK_ERROR_OUT_OF_MEMORY;
    }
    pass_fill(b, p, l, false);
    /* What stands still is drawn once: the map is kept while its inputs
       (size, matrix, and each caster's mesh, material, base texture, matrix
       and flags, versions included) hash the same as last frame's. */
    uint64_t h = oak_hash(p->view_proj, sizeof(mat4), S);
    for (uint32_t i = 0; i < p->draw_count; i++) {
        const cpu_draw *d = &p->draws[i];
        const cpu_mesh *m = &b->meshes[d->mesh];
        const cpu_material *mt = &b->materials[d->material];
        int32_t tex = mt->tex[CPU_TEX_BASE].tex;
        uint32_t ids[7] = {m->id,
                           m->version,
                           mt->id,
                           mt->version,
                           d->flags,
                           tex >= 0 ? b->textures[tex].id : 0,
                           tex >= 0 ? b->textures[tex].version : 0};
        h = oak_hash(ids, sizeof ids, h);
        h = oak_hash(d->world, sizeof(mat4), h);
    }
    if (b->shadow_cached && h == b->shadow_hash) {
        b->shadow_valid = true;
        return OAK_OK;
    }
    b->shadow_cached = false;
    oak_result r = _oak_cpu_pass_geometry(b, p, NULL, NULL);
    if (r) return r;
    _oak_cpu_pass_raster(b, p);
    b->shadow_valid = b->shadow_cached = true;
    b->shadow_hash = h;
    return OAK_OK;
}

static oak_result cpu_render(void *self, const oak_render_view *v) {
    cpu_backend *b = self;
    memset(b->stage_ms, 0, sizeof b->stage_ms);
    if (v->width != b->width || v->height != b->height) {
        oak_result r = cpu_resize(b, v->width, v->height);
        if (r) return r;
    }
    if (v->light_count && !v->lights)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "cpu backend: view has %u lights but no array",
                         v->light_count);
    /* a render without its sync (or of another view) syncs itself */
    oak_result r = OAK_OK;
    if (b->synced_view != v || b->synced_frame != v->frame) r = _oak_cpu_sync(b, v);
    b->synced_view = NULL;
    if (r) return r;
    b->view = v;
    const oak_shadow_cascade *c0 = &v->cascades[0];
    b->shadow_bias = c0->depth_range > 0 ? 1.5f * c0->texel_world / c0->depth_range : 0;

    /* 1. shadow: the key light's cascade 0, casters only, both faces */
    uint64_t t0 = oak_time_ns();
    r = draw_shadow(b, v);
    if (r) return r;
    b->stage_ms[CPU_STAGE_SHADOW] = oak_ms_since(t0);

    /* 2. vertex + bins: opaque and MASK draws in view order */
    cpu_pass *op = &b->opaque, *bl = &b->blend;
    pass_target(op, b->width, b->height, true, v->jitter, b->depth, b->ids);
    pass_target(bl, b->width, b->height, true, v->jitter, b->depth, NULL);
    glm_mat4_copy((vec4 *)v->view_proj, op->view_proj);
    glm_mat4_copy((vec4 *)v->view_proj, bl->view_proj);
    op->draw_count = bl->draw_count = 0;
    for (uint32_t i = 0; i < v->draws.count; i++) {
        int32_t mi = _oak_cpu_material_index(b, v->draws.material[i]);
        bool blend = b->materials[mi].desc.alpha_mode == OAK_ALPHA_BLEND;
        if (!pass_add(blend ? bl : op, i)) return OAK_ERROR_OUT_OF_MEMORY;
    }
    pass_fill(b, op, &v->draws, true);
    pass_fill(b, bl, &v->draws, true);
    r = _oak_cpu_pass_geometry(b, op, &b->stage_ms[CPU_STAGE_VERTEX], &b->stage_ms[CPU_STAGE_BINS]);
    if (r) return r;

    /* 3. raster: depth + triangle id per pixel, one job per tile */
    t0 = oak_time_ns();
    _oak_cpu_pass_raster(b, op);
    b->stage_ms[CPU_STAGE_RASTER] = oak_ms_since(t0);

    /* 4. lights: the lamp grid (cpu_lightgrid.c); then resolve: shade each
       visible pixel once, sky where empty */
    t0 = oak_time_ns();
    if ((r = _oak_cpu_light_grid(b))) return r;
    b->stage_ms[CPU_STAGE_LIGHTS] = oak_ms_since(t0);
    t0 = oak_time_ns();
    _oak_cpu_resolve(b);
    b->stage_ms[CPU_STAGE_RESOLVE] = oak_ms_since(t0);

    /* 5. blend: BLEND draws far to near, over the opaque frame */
    t0 = oak_time_ns();
    if (bl->draw_count) {
        sort_far_to_near(bl->draws, bl->draw_count);
        r = _oak_cpu_pass_geometry(b, bl, NULL, NULL);
        if (r) return r;
        _oak_cpu_blend(b);
    }
    b->stage_ms[CPU_STAGE_BLEND] = oak_ms_since(t0);

    /* 6. post: exposure, ACES, sRGB + dither, FXAA */
    t0 = oak_time_ns();
    _oak_cpu_post(b);
    b->stage_ms[CPU_STAGE_POST] = oak_ms_since(t0);
    b->view = NULL;
    return OAK_OK;
}

static oak_result cpu_read_pixels(void *self, uint8_t *rgba, size_t size) {
    cpu_backend *b = self;
    size_t n = (size_t)b->width * b->height * 4;
    if (!rgba || size < n)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "cpu backend: read_pixels needs %zu bytes for %ux%u, got %zu", n, b->width,
                         b->height, size);
    memcpy(rgba, b->out, n);
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

static uint32_t cpu_timings(void *self, oak_stage_timing *out, uint32_t max) {
    cpu_backend *b = self;
    uint32_t n = 0;
    for (uint32_t i = 0; i < CPU_STAGE_COUNT && n < max; i++, n++) {
        out[n].name = g_stage_names[i];
        out[n].cpu_ms = b->stage_ms[i];
        out[n].gpu_ms = -1;
    }
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
    .timings = cpu_timings,
    .read_light_grid = cpu_read_light_grid,
};

const oak_backend *oak_backend_cpu(void) {
    return &g_cpu;
}
