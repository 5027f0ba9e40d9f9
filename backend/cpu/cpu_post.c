/* Post, in jobs over bands of rows: exposure, ACES (Narkowicz), exact sRGB
 * encode with half a step of dither, into RGBA8; then FXAA over those bytes
 * (cpu_fxaa.c). The arithmetic is docs/SHADING.md "Post". */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "cpu_internal.h"

#define POST_ROWS 16

/* The exact sRGB encode above the linear toe, tabulated per 1/1024 of each
 * octave from 2^-9 to 1 and interpolated: the error (3e-8 relative) is below
 * powf's own, at a fraction of its cost. */
#define SRGB_BITS    10
#define SRGB_SHIFT   (23 - SRGB_BITS)
#define SRGB_OCTAVES 9
static float g_srgb[(SRGB_OCTAVES << SRGB_BITS) + 2];
static pthread_once_t g_srgb_once = PTHREAD_ONCE_INIT;

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void srgb_table_init(void) {
    uint32_t base = float_bits(1.0f / 512.0f);
    for (uint32_t i = 0; i < sizeof g_srgb / sizeof g_srgb[0]; i++) {
        uint32_t u = base + (i << SRGB_SHIFT);
        float t;
        memcpy(&t, &u, sizeof t);
        g_srgb[i] = (float)(1.055 * pow((double)t, 1.0 / 2.4) - 0.055);
    }
}

void _oak_cpu_post_init(void) {
    pthread_once(&g_srgb_once, srgb_table_init);
}

/* t in [0, 1] */
static inline float srgb_encode(float t) {
    if (t <= 0.0031308f) return t * 12.92f;
    uint32_t d = float_bits(t) - float_bits(1.0f / 512.0f);
    uint32_t i = d >> SRGB_SHIFT;
    float f = (float)(d & ((1u << SRGB_SHIFT) - 1)) * (1.0f / (float)(1u << SRGB_SHIFT));
    return g_srgb[i] + (g_srgb[i + 1] - g_srgb[i]) * f;
}

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
                float s = srgb_encode(tonemap(c[k] * exposure, !post->no_tonemap));
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
