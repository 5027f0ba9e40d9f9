/* Post, in jobs over bands of rows: exposure, ACES (Narkowicz) or Khronos
 * PBR Neutral, exact sRGB encode with half a step of dither, into RGBA8;
 * then FXAA over those bytes (cpu_fxaa.c). The arithmetic is docs/SHADING.md "Post". */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include <smmintrin.h>

#include "cpu_internal.h"

#define POST_ROWS 16

/* The exact sRGB encode above the linear toe, tabulated per 1/1024 of each
 * octave from 2^-9 to 1 and interpolated: the error (3e-8 relative) is below
 * powf's own, at a fraction of its cost. */
#define SRGB_BITS    10
#define SRGB_SHIFT   (23 - SRGB_BITS)
#define SRGB_OCTAVES 9
static float g_srgb[(SRGB_OCTAVES << SRGB_BITS) + 2];
/* each entry beside its step to the next, g_srgb[i + 1] - g_srgb[i] as
   srgb_encode computes it: one 8-byte load a lane for srgb4 */
static float g_srgb_pair[(SRGB_OCTAVES << SRGB_BITS) + 1][2];
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
    for (uint32_t i = 0; i + 1 < sizeof g_srgb / sizeof g_srgb[0]; i++)
        g_srgb_pair[i][0] = g_srgb[i], g_srgb_pair[i][1] = g_srgb[i + 1] - g_srgb[i];
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

/* The four-pixel path needs SSE4.1 (blendv, floor, pshufb); Release builds
   assume it (-march=x86-64-v2), other builds compile it for that target and
   ask the CPU at run time, so the tests run it everywhere. */
#define OAK_SSE41 __attribute__((target("sse4.1"))) /* gcc and clang alike */

/* tonemap() on four lanes, operation for operation */
OAK_SSE41 static inline __m128 tonemap4(__m128 x, bool aces) {
    __m128 pos = _mm_cmpgt_ps(x, _mm_setzero_ps()); /* false for NaN too */
    __m128 one = _mm_set1_ps(1.0f), y;
    if (aces) {
        __m128 num =
            _mm_mul_ps(x, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(2.51f), x), _mm_set1_ps(0.03f)));
        __m128 den = _mm_add_ps(
            _mm_mul_ps(x, _mm_add_ps(_mm_mul_ps(_mm_set1_ps(2.43f), x), _mm_set1_ps(0.59f))),
            _mm_set1_ps(0.14f));
        y = _mm_div_ps(num, den);
        y = _mm_blendv_ps(y, one, _mm_cmpgt_ps(y, one)); /* NaN stays NaN, as y > 1 is false */
        y = _mm_blendv_ps(y, _mm_setzero_ps(), _mm_cmplt_ps(y, _mm_setzero_ps()));
    } else {
        y = _mm_blendv_ps(one, x, _mm_cmplt_ps(x, one));
    }
    return _mm_and_ps(y, pos);
}

/* srgb_encode() on four lanes: the toe and the table's interpolation in
   vector arithmetic, only the two table reads per lane scalar */
OAK_SSE41 static inline __m128 srgb4(__m128 t) {
    __m128 toe = _mm_cmple_ps(t, _mm_set1_ps(0.0031308f));
    __m128i d = _mm_sub_epi32(_mm_castps_si128(t), _mm_set1_epi32((int)float_bits(1.0f / 512.0f)));
    __m128i i = _mm_srli_epi32(d, SRGB_SHIFT);
    /* lanes in the toe (and NaN, which only a NaN tonemap gives) read entry 0 */
    i = _mm_min_epu32(_mm_andnot_si128(_mm_castps_si128(toe), i),
                      _mm_set1_epi32((int)(sizeof g_srgb / sizeof g_srgb[0]) - 2));
    __m128 f = _mm_mul_ps(_mm_cvtepi32_ps(_mm_and_si128(d, _mm_set1_epi32((1 << SRGB_SHIFT) - 1))),
                          _mm_set1_ps(1.0f / (float)(1u << SRGB_SHIFT)));
    uint32_t ix[4];
    _mm_storeu_si128((__m128i *)ix, i);
    __m128 p01 = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)g_srgb_pair[ix[0]]),
                              (const __m64 *)g_srgb_pair[ix[1]]);
    __m128 p23 = _mm_loadh_pi(_mm_loadl_pi(_mm_setzero_ps(), (const __m64 *)g_srgb_pair[ix[2]]),
                              (const __m64 *)g_srgb_pair[ix[3]]);
    __m128 g0 = _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(2, 0, 2, 0));
    __m128 step = _mm_shuffle_ps(p01, p23, _MM_SHUFFLE(3, 1, 3, 1));
    __m128 hi = _mm_add_ps(g0, _mm_mul_ps(step, f));
    return _mm_blendv_ps(hi, _mm_mul_ps(t, _mm_set1_ps(12.92f)), toe);
}

/* floor(s * 255 + n) clamped to [0, 255]: the int32 conversion and the two
   saturating packs clamp as the scalar code does (NaN converts to INT_MIN,
   which packs to 0, as the scalar cast's low byte is) */
OAK_SSE41 static inline __m128i quantize4(__m128 s, __m128 n) {
    __m128 v = _mm_floor_ps(_mm_add_ps(_mm_mul_ps(s, _mm_set1_ps(255.0f)), n));
    return _mm_cvttps_epi32(v);
}

/* dither() of pixels x .. x + 3 of row y in four lanes, its operations in
   its order (floor is roundps, exact as floorf is) */
OAK_SSE41 static inline __m128 dither4(uint32_t x, uint32_t y) {
    __m128 xs =
        _mm_cvtepi32_ps(_mm_add_epi32(_mm_set1_epi32((int32_t)x), _mm_setr_epi32(0, 1, 2, 3)));
    __m128 f =
        _mm_add_ps(_mm_mul_ps(_mm_set1_ps(0.06711056f), xs), _mm_set1_ps(0.00583715f * (float)y));
    f = _mm_sub_ps(f, _mm_floor_ps(f));
    __m128 n = _mm_mul_ps(_mm_set1_ps(52.9829189f), f);
    return _mm_sub_ps(n, _mm_floor_ps(n));
}

/* four pixels at a time while four remain; returns how many it did */
OAK_SSE41 static uint32_t post_quads(const float *rgb, uint8_t *out, uint32_t x0, uint32_t y,
                                     uint32_t count, const oak_post *post, float exposure,
                                     bool aces) {
    const __m128i order = _mm_setr_epi8(0, 1, 2, -1, 3, 4, 5, -1, 6, 7, 8, -1, 9, 10, 11, -1);
    const __m128i alpha = _mm_set1_epi32((int)0xff000000u);
    __m128 e = _mm_set1_ps(exposure);
    uint32_t i = 0;
    for (; i + 4 <= count; i += 4) {
        __m128 n = post->no_dither ? _mm_set1_ps(0.5f) : dither4(x0 + i, y);
        /* each pixel's noise on its three channels: n0 n0 n0 n1, n1 n1 n2 n2, n2 n3 n3 n3 */
        __m128 n0 = _mm_shuffle_ps(n, n, _MM_SHUFFLE(1, 0, 0, 0));
        __m128 n1 = _mm_shuffle_ps(n, n, _MM_SHUFFLE(2, 2, 1, 1));
        __m128 n2 = _mm_shuffle_ps(n, n, _MM_SHUFFLE(3, 3, 3, 2));
        const float *c = rgb + (size_t)i * 3;
        __m128i q0 = quantize4(srgb4(tonemap4(_mm_mul_ps(_mm_loadu_ps(c), e), aces)), n0);
        __m128i q1 = quantize4(srgb4(tonemap4(_mm_mul_ps(_mm_loadu_ps(c + 4), e), aces)), n1);
        __m128i q2 = quantize4(srgb4(tonemap4(_mm_mul_ps(_mm_loadu_ps(c + 8), e), aces)), n2);
        __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(q0, q1), _mm_packs_epi32(q2, q2));
        bytes = _mm_or_si128(_mm_shuffle_epi8(bytes, order), alpha);
        _mm_storeu_si128((__m128i *)(out + (size_t)i * 4), bytes);
    }
    return i;
}

void _oak_cpu_post_span(const float *rgb, uint8_t *out, uint32_t x0, uint32_t y, uint32_t count,
                        const oak_post *post, bool simd) {
    float exposure = post->exposure > 0 ? post->exposure : 1.0f;
    bool aces = !post->no_tonemap;
    /* the neutral curve mixes a pixel's channels: the scalar path alone */
    bool neutral = aces && post->tone == OAK_TONE_NEUTRAL;
    if (neutral) simd = false;
    uint32_t i = 0;
#ifdef __SSE4_1__
    if (simd) i = post_quads(rgb, out, x0, y, count, post, exposure, aces);
#else
    if (simd && __builtin_cpu_supports("sse4.1"))
        i = post_quads(rgb, out, x0, y, count, post, exposure, aces);
#endif
    for (; i < count; i++)
        post_pixel(rgb + (size_t)i * 3, out + (size_t)i * 4, exposure,
                   post->no_dither ? 0.5f : dither(x0 + i, y), aces, neutral);
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
    for (uint32_t y = begin; y < end; y++)
        _oak_cpu_post_span(b->color + (size_t)y * W * 3, dst + (size_t)y * W * 4, 0, y, W, post,
                           true);
    if (!post->no_fxaa) _oak_cpu_fxaa_luma(b->luma, b->ldr, W, begin, end);
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
