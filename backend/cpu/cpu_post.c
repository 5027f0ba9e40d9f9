/* Post, in jobs over bands of rows: exposure, ACES (Narkowicz), exact sRGB
 * encode with half a step of dither, into RGBA8; then FXAA over those bytes
 * (cpu_fxaa.c). The arithmetic is docs/SHADING.md "Post". */
#include <math.h>

#include "cpu_internal.h"

#define POST_ROWS 16

static float tonemap(float x, bool aces) {
    if (!(x > 0)) return 0; /* negative or NaN radiance shows black */
    if (!aces) return x < 1 ? x : 1;
    float y = (x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f);
    return y < 0 ? 0 : y > 1 ? 1 : y;
}

static void post_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cpu_backend *b = user;
    const oak_post *post = &b->view->post;
    float exposure = post->exposure > 0 ? post->exposure : 1.0f;
    uint8_t *dst = post->no_fxaa ? b->out : b->ldr;
    uint32_t W = b->width;
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < W; x++) {
            const float *c = b->color + ((size_t)y * W + x) * 3;
            uint8_t *o = dst + ((size_t)y * W + x) * 4;
            /* interleaved gradient noise, in float32 as a shader computes it */
            float n = 0.5f;
            if (!post->no_dither) {
                float f = 0.06711056f * (float)x + 0.00583715f * (float)y;
                f = f - floorf(f);
                n = 52.9829189f * f;
                n = n - floorf(n);
            }
            for (int k = 0; k < 3; k++) {
                float s = oak_linear_to_srgb(tonemap(c[k] * exposure, !post->no_tonemap));
                float v = floorf(s * 255.0f + n);
                o[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
            }
            o[3] = 255;
        }
    if (!post->no_fxaa) _oak_cpu_fxaa_luma(b->luma, b->ldr, W, begin, end);
}

static void fxaa_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cpu_backend *b = user;
    _oak_cpu_fxaa(b->out, b->ldr, b->luma, b->width, b->height, begin, end);
}

void _oak_cpu_post(cpu_backend *b) {
    oak_parallel_for(b->height, POST_ROWS, post_job, b);
    if (!b->view->post.no_fxaa) oak_parallel_for(b->height, POST_ROWS, fxaa_job, b);
}
