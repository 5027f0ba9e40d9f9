/* The bloom pyramid on the CPU backend, rows of each level on the job pool,
 * the same arithmetic as shaders/bloom.comp.glsl and shaders/common/
 * bloom.glsl, operation for operation: 13-tap downsamples into levels
 * 1 .. L (the first clamps the frame and weights each tap in its box by
 * 1 / (1 + exposed luma)), tent upsamples back to level 1; then the frame
 * gets frame + strength * (pyramid / L - frame), as the GPU post mixes it. */
#include <immintrin.h>
#include <math.h>
#include <string.h>

#include "cpu_internal.h"
#include "render/bloom.h"

#define BLOOM_ROWS 8 /* rows of a level per job */

typedef struct bloom_ctx {
    cpu_backend *b;
    uint32_t level;  /* the level this step writes */
    bool down;       /* a downsample (else an upsample) */
    uint32_t w, h;   /* its size */
    uint64_t at;     /* its first texel */
    uint32_t sw, sh; /* the level it reads */
    uint64_t src_at; /* ... and its first texel (level 0: the frame) */
    float exposure;  /* the camera's multiplier, for the first level's weights */
    float strength;  /* the final mix */
    bool boxed;      /* the source is twice the level: taps from the box image */
    uint32_t w1, h1; /* up level 1, for the mix */
    uint64_t up1_at;
} bloom_ctx;

/* A texel's four channels in one SSE register: every operation below is
   the scalar code's, channel by channel in the same order (no fused
   multiply-add on x86-64-v2), so the bits are those of the GLSL's per
   channel arithmetic as before; the fourth lane rides along. */
typedef float v4 __attribute__((vector_size(16)));

static inline v4 load4(const float *p) {
    v4 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline v4 load3(const float *p) { /* rgb, 0 */
    v4 v = {0, 0, 0, 0};
    memcpy(&v, p, 3 * sizeof(float));
    return v;
}
static inline v4 splat(float x) {
    return (v4){x, x, x, x};
}

/* maxps gives its second operand when either is NaN, so NaN -> 0 as the
   GLSL's c >= 0 ? min(c, max) : 0 does; then the cap. Inline, where
   fminf/fmaxf were library calls. */
static inline v4 clean4(v4 c) {
    return (v4)_mm_min_ps(_mm_max_ps((__m128)c, _mm_setzero_ps()),
                          _mm_set1_ps((float)OAK_BLOOM_MAX));
}
static inline float clean(float c) {
    return clean4(splat(c))[0];
}

static inline int clampi(int v, int hi) {
    return v < 0 ? 0 : v > hi ? hi : v;
}

/* bilinear at p (texel units, centres at i + 0.5), clamped to the edge;
   src == NULL reads the frame (rgb, cleaned), else a level (rgba) */
static void bilinear(const bloom_ctx *c, const float *src, float px, float py, float out[3]) {
    float qx = px - 0.5f, qy = py - 0.5f;
    float ix = floorf(qx), iy = floorf(qy);
    float fx = qx - ix, fy = qy - iy;
    int hx = (int)c->sw - 1, hy = (int)c->sh - 1;
    int ax = clampi((int)ix, hx), bx = clampi((int)ix + 1, hx);
    int ay = clampi((int)iy, hy), by = clampi((int)iy + 1, hy);
    size_t i00 = (size_t)ay * c->sw + (size_t)ax, i10 = (size_t)ay * c->sw + (size_t)bx;
    size_t i01 = (size_t)by * c->sw + (size_t)ax, i11 = (size_t)by * c->sw + (size_t)bx;
    for (int k = 0; k < 3; k++) {
        float t00, t10, t01, t11;
        if (!src) {
            const float *f = c->b->color;
            t00 = clean(f[i00 * 3 + k]), t10 = clean(f[i10 * 3 + k]);
            t01 = clean(f[i01 * 3 + k]), t11 = clean(f[i11 * 3 + k]);
        } else {
            t00 = src[i00 * 4 + k], t10 = src[i10 * 4 + k];
            t01 = src[i01 * 4 + k], t11 = src[i11 * 4 + k];
        }
        float top = t00 + (t10 - t00) * fx, bot = t01 + (t11 - t01) * fx;
        out[k] = top + (bot - top) * fy;
    }
}

static inline float luma(const float c[3]) {
    return 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2];
}

/* taps A B C / D E / F G H / I J / K L M around p, in source texels */
static const int k_off[13][2] = {{-2, -2}, {0, -2}, {2, -2}, {-1, -1}, {1, -1}, {-2, 0}, {0, 0},
                                 {2, 0},   {-1, 1}, {1, 1},  {-2, 2},  {0, 2},  {2, 2}};

/* Taps as (r k, g k, b k, k): k = 1 / (1 + exposed luma) on level 1 (the
   Karis weight), else 1. */
typedef float tap4[4];

static inline void weigh(const bloom_ctx *c, const float rgb[3], float out[4]) {
    float k = c->level == 1 ? 1.0f / (1.0f + luma(rgb) * c->exposure) : 1.0f;
    out[0] = rgb[0] * k, out[1] = rgb[1] * k, out[2] = rgb[2] * k, out[3] = k;
}

/* weigh() on a texel in a register */
static inline v4 weigh4(const bloom_ctx *c, v4 m) {
    float k = c->level == 1
                  ? 1.0f / (1.0f + (0.2126f * m[0] + 0.7152f * m[1] + 0.0722f * m[2]) * c->exposure)
                  : 1.0f;
    v4 o = m * splat(k);
    o[3] = k;
    return o;
}

/* The 13 taps of texel (x, y), bilinear (any size ratio). */
static void taps_bilinear(const bloom_ctx *c, const float *src, uint32_t x, uint32_t y,
                          tap4 t[13]) {
    float px = ((float)x + 0.5f) * ((float)c->sw / (float)c->w);
    float py = ((float)y + 0.5f) * ((float)c->sh / (float)c->h);
    for (int i = 0; i < 13; i++) {
        float rgb[3];
        bilinear(c, src, px + (float)k_off[i][0], py + (float)k_off[i][1], rgb);
        weigh(c, rgb, t[i]);
    }
}

/* Where the source is exactly twice the level, p = 2x + 1: every tap sits
   on a texel corner (f = 0.5) and is the mean of a 2 x 2 block, read
   (weighed already) from the box image (a rounding step from the
   bilinear). */
/* down_texel() on the box image's taps, read in place */
static void down_box(const bloom_ctx *c, uint32_t x, uint32_t y, float out[3]) {
    const float *box = c->b->bloom_box;
    size_t bw = (size_t)c->sw + 3;
    const float *t[13];
    for (int i = 0; i < 13; i++)
        t[i] = box + ((size_t)(2 * (int)y + 2 + k_off[i][1]) * bw +
                      (size_t)(2 * (int)x + 2 + k_off[i][0])) *
                         4;
    enum { A, B, C, D, E, F, G, H, I, J, K, L, M };
    static const int k_box[5][4] = {
        {D, E, I, J}, {A, B, F, G}, {B, C, G, H}, {F, G, K, L}, {G, H, L, M}};
    v4 bx[5];
    for (int b = 0; b < 5; b++) {
        const int *q = k_box[b];
        v4 s = load4(t[q[0]]) + load4(t[q[1]]) + load4(t[q[2]]) + load4(t[q[3]]);
        bx[b] = s * splat(1.0f / s[3]);
    }
    v4 o = bx[0] * splat(0.5f) + bx[1] * splat(0.125f) + bx[2] * splat(0.125f) +
           bx[3] * splat(0.125f) + bx[4] * splat(0.125f);
    memcpy(out, &o, 3 * sizeof(float));
}

/* Each box's weighed taps over its weights (1/4 exactly where k = 1), the
   inner box 0.5, the corners 0.125. */
static void down_texel(tap4 t[13], float out[3]) {
    enum { A, B, C, D, E, F, G, H, I, J, K, L, M };
    static const int k_box[5][4] = {
        {D, E, I, J}, {A, B, F, G}, {B, C, G, H}, {F, G, K, L}, {G, H, L, M}};
    float box[5][3];
    for (int b = 0; b < 5; b++) {
        const int *q = k_box[b];
        float inv = 1.0f / (t[q[0]][3] + t[q[1]][3] + t[q[2]][3] + t[q[3]][3]);
        for (int ch = 0; ch < 3; ch++)
            box[b][ch] = (t[q[0]][ch] + t[q[1]][ch] + t[q[2]][ch] + t[q[3]][ch]) * inv;
    }
    for (int ch = 0; ch < 3; ch++)
        out[ch] = box[0][ch] * 0.5f + box[1][ch] * 0.125f + box[2][ch] * 0.125f +
                  box[3][ch] * 0.125f + box[4][ch] * 0.125f;
}

/* Bilinear taps at p - 1, p, p + 1 share one fraction f, so the 3 x 3
   tent of bilinear reads is a separable 4 x 4 kernel on the texels from
   floor(p - 0.5) - 1: per axis (1 - f, f + 2 (1 - f), 2 f + (1 - f), f) / 4,
   indices clamped as the bilinear read clamps (per axis, so still
   separable). Its sums round a little differently from the GLSL's nine
   reads; within the parity rule. */
static void tent_axis(float p, int n, int idx[4], float w[4]) {
    float q = p - 0.5f, i0 = floorf(q), f = q - i0;
    w[0] = (1 - f) * 0.25f, w[1] = (f + 2 * (1 - f)) * 0.25f;
    w[2] = (2 * f + (1 - f)) * 0.25f, w[3] = f * 0.25f;
    for (int k = 0; k < 4; k++) idx[k] = clampi((int)i0 - 1 + k, n - 1);
}

static void up_texel(const bloom_ctx *c, const float *src, const float *down, uint32_t x,
                     uint32_t y, float out[3]) {
    int ix[4], iy[4];
    float wx[4], wy[4];
    tent_axis(((float)x + 0.5f) * ((float)c->sw / (float)c->w), (int)c->sw, ix, wx);
    tent_axis(((float)y + 0.5f) * ((float)c->sh / (float)c->h), (int)c->sh, iy, wy);
    v4 t = splat(0);
    for (int j = 0; j < 4; j++) {
        const float *row = src + (size_t)iy[j] * c->sw * 4;
        v4 r = splat(0);
        for (int i = 0; i < 4; i++) r += load4(row + (size_t)ix[i] * 4) * splat(wx[i]);
        t += r * splat(wy[j]);
    }
    v4 o = load4(down + ((size_t)y * c->w + x) * 4) + t;
    memcpy(out, &o, 3 * sizeof(float));
}

static void step_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const bloom_ctx *c = user;
    float *levels = c->b->bloom;
    const float *src = c->down && c->level == 1 ? NULL : levels + c->src_at * 4;
    const float *down = levels + _oak_bloom_offset(c->b->width, c->b->height, c->level, false) * 4;
    float *dst = levels + c->at * 4;
    for (uint32_t y = begin; y < end; y++) {
        for (uint32_t x = 0; x < c->w; x++) {
            float *o = dst + ((size_t)y * c->w + x) * 4;
            if (c->down) {
                if (c->boxed) {
                    down_box(c, x, y, o);
                } else {
                    tap4 t[13];
                    taps_bilinear(c, src, x, y, t);
                    down_texel(t, o);
                }
            } else {
                up_texel(c, src, down, x, y, o);
            }
            o[3] = 1.0f;
        }
    }
}

/* Rows j = -2 .. sh of the box image: the mean of the source's 2 x 2 block
   at (i, j), i = -2 .. sw, indices clamped as the bilinear read clamps. */
static void box_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const bloom_ctx *c = user;
    const float *src = c->level == 1 ? NULL : c->b->bloom + c->src_at * 4;
    size_t bw = (size_t)c->sw + 3;
    int hx = (int)c->sw - 1, hy = (int)c->sh - 1;
    for (uint32_t r = begin; r < end; r++) {
        int j = (int)r - 2;
        int j0 = clampi(j, hy), j1 = clampi(j + 1, hy);
        float *row = c->b->bloom_box + (size_t)r * bw * 4;
        for (int i = -2; i <= (int)c->sw; i++) {
            int i0 = clampi(i, hx), i1 = clampi(i + 1, hx);
            size_t a = (size_t)j0 * c->sw + (size_t)i0, b = (size_t)j0 * c->sw + (size_t)i1;
            size_t d = (size_t)j1 * c->sw + (size_t)i0, e = (size_t)j1 * c->sw + (size_t)i1;
            v4 m;
            if (!src) {
                const float *f = c->b->color;
                m = (clean4(load3(f + a * 3)) + clean4(load3(f + b * 3)) +
                     clean4(load3(f + d * 3)) + clean4(load3(f + e * 3))) *
                    splat(0.25f);
            } else {
                m = (load4(src + a * 4) + load4(src + b * 4) + load4(src + d * 4) +
                     load4(src + e * 4)) *
                    splat(0.25f);
            }
            v4 w = weigh4(c, m);
            memcpy(row + (size_t)(i + 2) * 4, &w, sizeof w);
        }
    }
}

/* frame + strength * (pyramid / L - frame), per output row */
static void mix_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const bloom_ctx *c = user;
    cpu_backend *b = c->b;
    uint32_t W = b->width, H = b->height, w1 = c->w1;
    const float *src = b->bloom + c->up1_at * 4;
    float sx = (float)w1 / (float)W, sy = (float)c->h1 / (float)H;
    const float inv = 1.0f / (float)OAK_BLOOM_LEVELS;
    /* bilinear() on up level 1, its row terms taken once per row */
    for (uint32_t y = begin; y < end; y++) {
        float qy = ((float)y + 0.5f) * sy - 0.5f, iy = floorf(qy), fy = qy - iy;
        int hy = (int)c->h1 - 1;
        const float *r0 = src + (size_t)clampi((int)iy, hy) * w1 * 4;
        const float *r1 = src + (size_t)clampi((int)iy + 1, hy) * w1 * 4;
        float *row = b->color + (size_t)y * W * 3;
        for (uint32_t x = 0; x < W; x++) {
            float qx = ((float)x + 0.5f) * sx - 0.5f, ix = floorf(qx), fx = qx - ix;
            int hx = (int)w1 - 1;
            size_t a = (size_t)clampi((int)ix, hx) * 4, e = (size_t)clampi((int)ix + 1, hx) * 4;
            v4 ta = load4(r0 + a), te = load4(r0 + e), ba = load4(r1 + a), be = load4(r1 + e);
            v4 top = ta + (te - ta) * splat(fx), bot = ba + (be - ba) * splat(fx);
            v4 bl = (top + (bot - top) * splat(fy)) * splat(inv);
            v4 f = load3(row + (size_t)x * 3);
            v4 o = f + (bl - f) * splat(c->strength);
            memcpy(row + (size_t)x * 3, &o, 3 * sizeof(float));
        }
    }
}

oak_result _oak_cpu_bloom(cpu_backend *b, const oak_render_view *v) {
    uint32_t W = b->width, H = b->height;
    uint64_t texels = _oak_bloom_texels(W, H);
    if (texels * 4 > b->bloom_cap) {
        float *p = oak_realloc(b->bloom, (size_t)texels * 4 * sizeof(float));
        if (!p)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu bloom: %llu texels",
                             (unsigned long long)texels);
        b->bloom = p;
        b->bloom_cap = texels * 4;
    }
    bloom_ctx c = {.b = b};
    /* the camera's multiplier, as post applies it */
    c.exposure =
        v->post.adapt ? b->exposure_state[1] : (v->post.exposure > 0 ? v->post.exposure : 1);
    c.strength = v->post.bloom_strength;
    for (uint32_t s = 0; s < OAK_BLOOM_STEPS; s++) {
        c.down = _oak_bloom_step_level(s, &c.level);
        _oak_pyramid_size(W, H, c.level, &c.w, &c.h);
        c.at = _oak_bloom_offset(W, H, c.level, !c.down);
        uint32_t from = c.down ? c.level - 1 : c.level + 1;
        _oak_pyramid_size(W, H, from, &c.sw, &c.sh);
        c.src_at =
            from == 0 ? 0 : _oak_bloom_offset(W, H, from, !c.down && from < OAK_BLOOM_LEVELS);
        c.boxed = c.down && c.sw == 2 * c.w && c.sh == 2 * c.h;
        if (c.boxed) {
            size_t need = ((size_t)c.sw + 3) * ((size_t)c.sh + 3) * 4;
            if (need > b->bloom_box_cap) {
                float *p = oak_realloc(b->bloom_box, need * sizeof(float));
                if (!p) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu bloom: box image");
                b->bloom_box = p;
                b->bloom_box_cap = need;
            }
            oak_parallel_for(c.sh + 3, BLOOM_ROWS, box_job, &c);
        }
        oak_parallel_for(c.h, BLOOM_ROWS, step_job, &c);
    }
    _oak_pyramid_size(W, H, 1, &c.w1, &c.h1);
    c.up1_at = _oak_bloom_offset(W, H, 1, true);
    oak_parallel_for(H, BLOOM_ROWS, mix_job, &c);
    return OAK_OK;
}
