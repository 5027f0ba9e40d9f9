/* The clouds and cloudmix passes on the CPU backend, rows on the job pool:
 * the noise table baked once into the buffer, the key light's shadow map,
 * the march at the preset's downscale, then the march upsampled by depth
 * over the frame; render/clouds.c holds the arithmetic the GPUs' shaders
 * have (shaders/clouds.comp.glsl, cloudmix.comp.glsl). */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"
#include "render/clouds.h"
#include "render/skylight.h"

#define CLOUD_ROWS 2 /* rows of a step per job */

typedef struct cloud_ctx {
    cpu_backend *b;
    const oak_render_view *v;
    uint32_t step;
    float ambient[6]; /* the sky light from above and from low (_oak_clouds_ambient) */
} cloud_ctx;

static inline float depth_at(const cpu_backend *b, uint32_t x, uint32_t y) {
    return b->depth[_oak_cpu_tile_index(&b->opaque, x, y)];
}

static void cloud_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const cloud_ctx *c = user;
    cpu_backend *b = c->b;
    const oak_gpu_clouds *cl = &b->cloud;
    for (uint32_t y = begin; y < end; y++) {
        if (c->step == OAK_CLOUD_STEP_BAKE) {
            const uint32_t N = OAK_CLOUD_NOISE_SIZE;
            for (uint32_t x = 0; x < N * N; x++) {
                uint32_t i = y * N * N + x;
                _oak_clouds_noise_texel(i, b->clouds + ((size_t)OAK_GPU_CLOUD_NOISE_AT + i) * 4);
            }
        } else if (c->step == OAK_CLOUD_STEP_SHADOW) {
            for (uint32_t x = 0; x < OAK_CLOUD_SHADOW_SIZE; x++) {
                float *o = b->clouds + ((size_t)y * OAK_CLOUD_SHADOW_SIZE + x) * 4;
                o[0] = _oak_clouds_shadow_texel(cl, b->clouds, x, y);
                o[1] = o[2] = o[3] = 0.0f;
            }
        } else {
            /* this frame's slot; the march reads only the other (the history) */
            size_t n = (size_t)cl->size[0] * cl->size[1];
            size_t at = (size_t)_oak_clouds_slot(cl, cl->steps[2]) + (size_t)y * cl->size[0];
            for (uint32_t x = 0; x < cl->size[0]; x++) {
                uint32_t px[2];
                _oak_clouds_march_pixel(cl, b->width, b->height, x, y, px);
                float *o = b->clouds + (at + x) * 4, *aux = b->clouds + (at + n + x) * 4;
                _oak_clouds_march(cl, b->clouds, c->v, x, y, depth_at(b, px[0], px[1]), c->ambient,
                                  o, aux);
            }
        }
    }
}

/* the buffer at the frame's size, its noise table baked once (realloc keeps it) */
static oak_result reserve(cpu_backend *b, const oak_render_view *v) {
    _oak_clouds_fill(&b->cloud, v, b->width, b->height);
    uint64_t need = _oak_clouds_texels(&b->cloud) * 4;
    if (need > b->clouds_cap) {
        float *p = oak_realloc(b->clouds, (size_t)need * sizeof(float));
        if (!p)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu clouds: %llu floats",
                             (unsigned long long)need);
        b->clouds = p;
        b->clouds_cap = need;
    }
    return OAK_OK;
}

oak_result _oak_cpu_clouds_bake(cpu_backend *b, const oak_render_view *v) {
    oak_result r = reserve(b, v);
    if (r || b->clouds_baked) return r;
    cloud_ctx c = {.b = b, .v = v, .step = OAK_CLOUD_STEP_BAKE};
    oak_parallel_for(OAK_CLOUD_NOISE_SIZE, CLOUD_ROWS, cloud_rows, &c);
    b->clouds_baked = true;
    return OAK_OK;
}

oak_result _oak_cpu_run_clouds(cpu_backend *b, const oak_render_view *v) {
    oak_result r = _oak_cpu_clouds_bake(b, v); /* the sky capture may have baked it */
    if (r) return r;
    cloud_ctx c = {.b = b, .v = v};
    _oak_clouds_ambient(b->sky, c.ambient);
    c.step = OAK_CLOUD_STEP_SHADOW;
    for (; c.step < OAK_CLOUD_STEPS; c.step++) {
        uint32_t rows = c.step == OAK_CLOUD_STEP_BAKE     ? OAK_CLOUD_NOISE_SIZE
                        : c.step == OAK_CLOUD_STEP_SHADOW ? OAK_CLOUD_SHADOW_SIZE
                                                          : b->cloud.size[1];
        oak_parallel_for(rows, CLOUD_ROWS, cloud_rows, &c);
    }
    return OAK_OK;
}

/* cloudmix.comp.glsl: the four march texels around the pixel, bilinear,
   each kept (else weighed 1e-3) where its own pixel's depth is within
   OAK_CLOUD_DEPTH_EDGE of this one's; with the aerial volume, the clouds
   seen through the air at their mean distance (_oak_clouds_air) */
static void mix_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const cloud_ctx *c = user;
    cpu_backend *b = c->b;
    const oak_gpu_clouds *cl = &b->cloud;
    const float *m = b->clouds + (size_t)_oak_clouds_slot(cl, cl->steps[2]) * 4;
    int nx = (int)cl->size[0], ny = (int)cl->size[1];
    size_t n = (size_t)nx * (size_t)ny; /* the slot's distances follow its light */
    float k = (float)cl->steps[0];
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < b->width; x++) {
            float d = depth_at(b, x, y);
            float ux = ((float)x + 0.5f) / k - 0.5f, uy = ((float)y + 0.5f) / k - 0.5f;
            float flx = floorf(ux), fly = floorf(uy);
            float fx = ux - flx, fy = uy - fly;
            int bx = (int)flx, by = (int)fly;
            float sum[4] = {0, 0, 0, 0}, wsum = 0.0f, dsum = 0.0f, dw = 0.0f;
            for (int q = 0; q < 4; q++) {
                int tx = bx + (q & 1), ty = by + (q >> 1);
                tx = tx < 0 ? 0 : tx > nx - 1 ? nx - 1 : tx;
                ty = ty < 0 ? 0 : ty > ny - 1 ? ny - 1 : ty;
                float w = ((q & 1) != 0 ? fx : 1.0f - fx) * ((q >> 1) != 0 ? fy : 1.0f - fy);
                uint32_t px[2];
                _oak_clouds_march_pixel(cl, b->width, b->height, (uint32_t)tx, (uint32_t)ty, px);
                float dt = depth_at(b, px[0], px[1]);
                float gap = fabsf(dt - d) / fmaxf(fmaxf(dt, d), 1e-30f);
                w *= gap <= (float)OAK_CLOUD_DEPTH_EDGE ? 1.0f : 1e-3f;
                const float *s = m + ((size_t)ty * (size_t)nx + (size_t)tx) * 4;
                for (int i = 0; i < 4; i++) sum[i] += s[i] * w;
                wsum += w;
                /* the texel's mean distance, weighed by the light its clouds stop */
                float o = w * (1.0f - s[3]);
                dsum += s[(size_t)n * 4] * o;
                dw += o;
            }
            float inv = fmaxf(wsum, 1e-30f);
            float *f = b->color + ((size_t)y * b->width + x) * 3;
            float cl[4];
            for (int i = 0; i < 4; i++) cl[i] = sum[i] / inv;
            if (c->v->aerial && dw > 0.0f)
                _oak_clouds_air(c->v->aerial, ((float)x + 0.5f) / (float)b->width,
                                ((float)y + 0.5f) / (float)b->height, dsum / dw, cl);
            for (int i = 0; i < 3; i++) f[i] = f[i] * cl[3] + cl[i];
        }
}

oak_result _oak_cpu_run_cloudmix(cpu_backend *b, const oak_render_view *v) {
    if (!b->clouds || b->cloud.shape[3] == 0.0f) return OAK_OK;
    cloud_ctx c = {.b = b, .v = v};
    oak_parallel_for(b->height, CLOUD_ROWS, mix_rows, &c);
    return OAK_OK;
}
