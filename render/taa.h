/* Temporal anti-aliasing, shared by the frontend and the backends: the
 * jitter sequence and the history's layout (the per-pixel arithmetic is
 * shaders/taa.comp.glsl and backend/cpu/cpu_pass_taa.c). */
#ifndef OAK_RENDER_TAA_H
#define OAK_RENDER_TAA_H

#include <stdint.h>

#include <oak/backend.h>
#include <oak/config.h>

/* Radical inverse of i in base b: Halton's sequence. */
static inline float _oak_halton(uint32_t i, uint32_t b) {
    float f = 1.0f, r = 0.0f;
    while (i > 0) {
        f /= (float)b;
        r += f * (float)(i % b);
        i /= b;
    }
    return r;
}

/* The jitter of TAA frame n (counted from the history's reset), in render
   pixels within (-0.5, 0.5): Halton(2, 3) at index 1 + n % phases (index 0
   would be the corner). x right, y down. */
static inline void _oak_taa_jitter(uint64_t n, uint32_t phases, float out[2]) {
    uint32_t i = 1 + (uint32_t)(n % (phases ? phases : OAK_TAA_SAMPLES));
    out[0] = _oak_halton(i, 2) - 0.5f;
    out[1] = _oak_halton(i, 3) - 0.5f;
}

/* Jitter phases when TAA upsamples render scale s: OAK_TAA_SAMPLES per
   output pixel, so OAK_TAA_SAMPLES * ceil(1 / s^2) per render pixel (32 at
   0.5, 128 at 0.25); OAK_TAA_SAMPLES at 1. */
static inline uint32_t _oak_taa_phases(float scale) {
    if (!(scale > 0) || scale >= 1) return OAK_TAA_SAMPLES;
    float k = 1.0f / (scale * scale) - 1e-3f;
    uint32_t n = (uint32_t)k;
    return OAK_TAA_SAMPLES * (n + ((float)n < k ? 1u : 0u));
}

/* The size the taa pass and the passes after it run at (a view built by
   hand, out_width 0: the render size). */
static inline void _oak_taa_out_size(const struct oak_render_view *v, uint32_t *w, uint32_t *h) {
    *w = v->out_width ? v->out_width : v->width;
    *h = v->out_height ? v->out_height : v->height;
}

/* The history: two RGBA32F images of the output's size one after the
   other; frame parity p reads image p and writes image 1 - p. Per texel
   linear rgb, and in a how many frames it holds (1 .. 1 / OAK_TAA_WEIGHT). */
static inline uint64_t _oak_taa_texels(uint32_t width, uint32_t height) {
    return 2ull * width * height;
}

#endif
