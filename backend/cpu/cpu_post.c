/* Post, in jobs over bands of rows: exposure, ACES (Narkowicz) or Khronos
 * PBR Neutral, exact sRGB encode with half a step of dither, into RGBA8;
 * then FXAA over those bytes (cpu_fxaa.c). The arithmetic is docs/SHADING.md "Post". */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "cpu_internal.h"
#include "cpu_post.h"

#define POST_ROWS 16

/* The exact sRGB encode above the linear toe, tabulated per 1/1024 of each
 * octave from 2^-9 to 1 and interpolated (cpu_post.h): the error (3e-8
 * relative) is below powf's own, at a fraction of its cost. Each entry is
 * also stored beside its step to the next, g_srgb[i + 1] - g_srgb[i] as
 * srgb_encode computes it, for the lanes (cpu_post_kernel.inc). */
float _oak_cpu_srgb_pair[CPU_SRGB_SIZE - 1][2];
static float g_srgb[CPU_SRGB_SIZE];
static pthread_once_t g_srgb_once = PTHREAD_ONCE_INIT;

static uint32_t float_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void srgb_table_init(void) {
    uint32_t base = float_bits(1.0f / 512.0f);
    for (uint32_t i = 0; i < sizeof g_srgb / sizeof g_srgb[0]; i++) {
        uint32_t u = base + (i << CPU_SRGB_SHIFT);
        float t;
        memcpy(&t, &u, sizeof t);
        g_srgb[i] = (float)(1.055 * pow((double)t, 1.0 / 2.4) - 0.055);
    }
    for (uint32_t i = 0; i + 1 < sizeof g_srgb / sizeof g_srgb[0]; i++)
        _oak_cpu_srgb_pair[i][0] = g_srgb[i], _oak_cpu_srgb_pair[i][1] = g_srgb[i + 1] - g_srgb[i];
}

void _oak_cpu_post_init(void) {
    pthread_once(&g_srgb_once, srgb_table_init);
}

/* t in [0, 1] */
static inline float srgb_encode(float t) {
    if (t <= CPU_SRGB_TOE) return t * 12.92f;
    uint32_t d = float_bits(t) - float_bits(1.0f / 512.0f);
    uint32_t i = d >> CPU_SRGB_SHIFT;
    float f = (float)(d & ((1u << CPU_SRGB_SHIFT) - 1)) * (1.0f / (float)(1u << CPU_SRGB_SHIFT));
    return g_srgb[i] + (g_srgb[i + 1] - g_srgb[i]) * f;
}

static float tonemap(float x, bool aces) {
    if (!(x > 0)) return 0; /* negative or NaN radiance shows black */
    if (!aces) return x < 1 ? x : 1;
    float y = (x * (2.51f * x + 0.03f)) / (x * (2.43f * x + 0.59f) + 0.14f);
    return y < 0 ? 0 : y > 1 ? 1 : y;
}

/* interleaved gradient noise, in float32 as a shader computes it */
static inline float dither(uint32_t x, uint32_t y) {
    float f = 0.06711056f * (float)x + 0.00583715f * (float)y;
    f = f - floorf(f);
    float n = 52.9829189f * f;
    return n - floorf(n);
}

/* Khronos PBR Neutral (docs/SHADING.md "Tone curves"), on the whole colour:
   a toe offset, then only a peak above 0.76 compressed, hue kept and
   desaturated as it nears white. Negative or NaN channels count as 0. */
void _oak_tone_neutral(const float in[3], float out[3]) {
    const float start = 0.8f - 0.04f, desat = 0.15f, d = 1.0f - start;
    float c[3];
    for (int k = 0; k < 3; k++) c[k] = in[k] > 0 ? in[k] : 0;
    float x = fminf(c[0], fminf(c[1], c[2]));
    float offset = x < 0.08f ? x - 6.25f * x * x : 0.04f;
    for (int k = 0; k < 3; k++) c[k] -= offset;
    float peak = fmaxf(c[0], fmaxf(c[1], c[2]));
    if (peak < start) {
        for (int k = 0; k < 3; k++) out[k] = c[k];
        return;
    }
    float new_peak = 1.0f - d * d / (peak + d - start);
    float g = 1.0f - 1.0f / (desat * (peak - new_peak) + 1.0f);
    for (int k = 0; k < 3; k++) {
        float v = c[k] * (new_peak / peak);
        v = v + (new_peak - v) * g;
        out[k] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
}

static inline void post_pixel(const float *c, uint8_t *o, float exposure, float n, bool aces,
                              bool neutral) {
    float t[3];
    if (neutral) {
        float e[3] = {c[0] * exposure, c[1] * exposure, c[2] * exposure};
        _oak_tone_neutral(e, t);
    } else {
        for (int k = 0; k < 3; k++) t[k] = tonemap(c[k] * exposure, aces);
    }
    for (int k = 0; k < 3; k++) {
        float s = srgb_encode(t[k]);
        float v = floorf(s * 255.0f + n);
        o[k] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    o[3] = 255;
}

/* A span in lanes at the width cpu_isa.c chose (cpu_post_kernel.inc), its
   last pixels short of a group in the kernel's one-lane build: every width
   gives post_pixel's bytes, save where post_pixel itself is undefined (an
   ACES overflowed to NaN, radiance past 1.8e19, which the lanes encode as
   white). With simd false, post_pixel alone: the reference the tests hold
   the lanes to. luma, when not NULL, takes FXAA's luma of the bytes. */
static void post_span(const float *rgb, uint8_t *out, uint8_t *luma, uint32_t x0, uint32_t y,
                      uint32_t count, const oak_post *post, bool simd) {
    float exposure = post->exposure > 0 ? post->exposure : 1.0f;
    bool aces = !post->no_tonemap;
    bool neutral = aces && post->tone == OAK_TONE_NEUTRAL;
    if (!simd) {
        for (uint32_t i = 0; i < count; i++) {
            uint8_t *o = out + (size_t)i * 4;
            post_pixel(rgb + (size_t)i * 3, o, exposure, post->no_dither ? 0.5f : dither(x0 + i, y),
                       aces, neutral);
            if (luma) luma[i] = (uint8_t)((77 * o[0] + 150 * o[1] + 29 * o[2] + 128) >> 8);
        }
        return;
    }
    cpu_post_args a = {exposure, aces, neutral, post->no_dither};
    cpu_post_kernels k = _oak_cpu_post_kernels();
    uint32_t n = count / k.lanes * k.lanes;
    k.post(rgb, out, luma, x0, y, n, &a);
    if (n < count)
        _oak_cpu_post_lanes_scalar(rgb + (size_t)n * 3, out + (size_t)n * 4, luma ? luma + n : NULL,
                                   x0 + n, y, count - n, &a);
}

void _oak_cpu_post_span(const float *rgb, uint8_t *out, uint32_t x0, uint32_t y, uint32_t count,
                        const oak_post *post, bool simd) {
    post_span(rgb, out, NULL, x0, y, count, post, simd);
}

static void post_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cpu_backend *b = user;
    oak_post adapted = b->view->post;
    /* the exposure pass's camera (cpu_pass_exposure.c) instead of the fixed one */
    if (adapted.adapt) adapted.exposure = b->exposure_state[1];
    const oak_post *post = &adapted;
    uint8_t *dst = post->no_fxaa ? b->out : b->ldr;
    uint32_t W = b->width;
    /* FXAA's luma plane written with the bytes, not read back from them */
    for (uint32_t y = begin; y < end; y++)
        post_span(b->color + (size_t)y * W * 3, dst + (size_t)y * W * 4,
                  post->no_fxaa ? NULL : b->luma + (size_t)y * W, 0, y, W, post, true);
}

static void fxaa_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    cpu_backend *b = user;
    _oak_cpu_fxaa(b->out, b->ldr, b->luma, b->width, b->height, begin, end);
}

void _oak_cpu_post(cpu_backend *b) {
    oak_parallel_for(b->height, POST_ROWS, post_job, b);
}

void _oak_cpu_post_fxaa(cpu_backend *b) {
    if (!b->view->post.no_fxaa) oak_parallel_for(b->height, POST_ROWS, fxaa_job, b);
}
