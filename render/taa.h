/* Temporal anti-aliasing, shared by the frontend and the backends: the
 * jitter sequence and the history's layout (the per-pixel arithmetic is
 * shaders/taa.comp.glsl and backend/cpu/cpu_pass_taa.c). */
#ifndef OAK_RENDER_TAA_H
#define OAK_RENDER_TAA_H

#include <stdint.h>

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

/* The jitter of TAA frame n (counted from the history's reset), in pixels
   within (-0.5, 0.5): Halton(2, 3) at index 1 + n % OAK_TAA_SAMPLES (index
   0 would be the corner). x right, y down. */
static inline void _oak_taa_jitter(uint64_t n, float out[2]) {
    uint32_t i = 1 + (uint32_t)(n % OAK_TAA_SAMPLES);
    out[0] = _oak_halton(i, 2) - 0.5f;
    out[1] = _oak_halton(i, 3) - 0.5f;
}

/* The history: two RGBA32F images of the output's size one after the
   other; frame parity p reads image p and writes image 1 - p. Per texel
   linear rgb, and in a how many frames it holds (1 .. 1 / OAK_TAA_WEIGHT). */
static inline uint64_t _oak_taa_texels(uint32_t width, uint32_t height) {
    return 2ull * width * height;
}

#endif
