/* Texture sampling on mirrored linear texels: wrap modes, nearest or bilinear
 * taps with texel centres at (i + 0.5) / size, and the mip level from the uv
 * derivatives, as docs/SHADING.md "Textures" specifies. A header of static
 * functions so that shading (cpu_shade.c, its only user) inlines them. */
#ifndef OAK_CPU_SAMPLE_H
#define OAK_CPU_SAMPLE_H

#include <math.h>
#include <string.h>

#include "cpu_internal.h"

/* out-of-range indices, out of line: most taps fall inside */
static int32_t wrap_outside(int32_t i, int32_t n, oak_wrap mode) {
    switch (mode) {
    case OAK_WRAP_CLAMP:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    case OAK_WRAP_MIRROR: {
        int32_t p = 2 * n, m = i % p;
        if (m < 0) m += p;
        return m < n ? m : p - 1 - m;
    }
    default: {
        if (!(n & (n - 1))) return i & (n - 1); /* a power of two: the same residue */
        int32_t m = i % n;
        return m < 0 ? m + n : m;
    }
    }
}

static inline int32_t wrap(int32_t i, int32_t n, oak_wrap mode) {
    if ((uint32_t)i < (uint32_t)n) return i; /* inside: every mode agrees */
    return wrap_outside(i, n, mode);
}

/* Texel coordinate as float, kept far from int overflow; uv beyond +-2^20
 * repeats is not meaningful anyway. */
static inline float coord(float u, uint32_t size) {
    float x = u * (float)size;
    if (!(x > -1048576.0f)) x = -1048576.0f; /* also catches NaN */
    if (x > 1048576.0f) x = 1048576.0f;
    return x;
}

typedef float v4f __attribute__((vector_size(16)));

static inline v4f texel(const float *level, int32_t w, int32_t i, int32_t j) {
    v4f v;
    memcpy(&v, level + ((size_t)j * (size_t)w + (size_t)i) * 4, sizeof v);
    return v;
}

static inline __attribute__((always_inline)) v4f sample_level(const cpu_texture *t,
                                                              const oak_sampler *s, uint32_t level,
                                                              bool linear, const float uv[2]) {
    int32_t w = (int32_t)t->mw[level], h = (int32_t)t->mh[level];
    const float *lv = t->texels + t->offset[level] * 4;
    oak_wrap wu = s->wrap_u, wv = s->wrap_v;
    float x = coord(uv[0], (uint32_t)w), y = coord(uv[1], (uint32_t)h);
    if (!linear) {
        int32_t i = wrap((int32_t)floorf(x), w, wu), j = wrap((int32_t)floorf(y), h, wv);
        return texel(lv, w, i, j);
    }
    x -= 0.5f;
    y -= 0.5f;
    float fx0 = floorf(x), fy0 = floorf(y);
    float fx = x - fx0, fy = y - fy0;
    int32_t i0 = (int32_t)fx0, j0 = (int32_t)fy0;
    int32_t ia = wrap(i0, w, wu), ib = wrap(i0 + 1, w, wu);
    int32_t ja = wrap(j0, h, wv), jb = wrap(j0 + 1, h, wv);
    return texel(lv, w, ia, ja) * ((1 - fx) * (1 - fy)) + texel(lv, w, ib, ja) * (fx * (1 - fy)) +
           texel(lv, w, ia, jb) * ((1 - fx) * fy) + texel(lv, w, ib, jb) * (fx * fy);
}

/* The mip level's log2 of the footprint, every path's (this scalar one and
   cpu_prep_kernel.inc's lanes do the same operations in the same order, so
   the same bits; libm's log2f is not used because no lane version of it
   gives its bits). For m > 1, finite or +inf (+inf gives 128, clamped to the
   last level as log2f's +inf was): m = 2^e x with x in [sqrt(1/2), sqrt(2)],
   log2 x = (2 / ln 2) (s + s^3 / 3 + s^5 / 5 + s^7 / 7) with
   s = (x - 1) / (x + 1), |s| <= 0.1716; the series' remainder is under
   4e-8 and exact powers of two give e exactly. Measured over every float
   in (1, 2^32): within CPU_LOG2_BOUND plus half an ulp of the result of
   log2 in double (log2f itself is within half an ulp plus 3e-8 there), and
   monotonic; a level's trilinear fraction moves by at most that.
   test_cpu_lanes `log2LevelBound` holds the bound (every mantissa for m in
   (1, 4), a stride of them to 2^32) and each lane width to this function
   bit for bit. */
#define CPU_LOG2_C1    2.88539008f  /* 2 / ln 2 */
#define CPU_LOG2_C3    0.961796694f /* (2 / ln 2) / 3 */
#define CPU_LOG2_C5    0.577078016f /* (2 / ln 2) / 5 */
#define CPU_LOG2_C7    0.412198583f /* (2 / ln 2) / 7 */
#define CPU_LOG2_SQRT2 1.41421356f
#define CPU_LOG2_BOUND 1.3e-7 /* absolute, beyond half an ulp of the result */

static inline float cpu_log2_level(float m) {
    uint32_t u;
    memcpy(&u, &m, sizeof u);
    int32_t e = (int32_t)((u >> 23) & 0xff) - 127;
    uint32_t xb = (u & 0x7fffff) | 0x3f800000;
    float x;
    memcpy(&x, &xb, sizeof x);
    if (x > CPU_LOG2_SQRT2) x = x * 0.5f, e = e + 1;
    float s = (x - 1.0f) / (x + 1.0f), z = s * s;
    return (float)e + s * (CPU_LOG2_C1 + z * (CPU_LOG2_C3 + z * (CPU_LOG2_C5 + z * CPU_LOG2_C7)));
}

/* linear rgba at uv whose footprint's longer side is m texels (cpu_sample's
   m; the lane prep computes it in lanes, cpu_prep_kernel.inc). Always
   inlined: cpu_sample out of line kept its callers' code as before the
   split (without it the meadow's scalar sampling cost 10-20% more). */
static inline __attribute__((always_inline)) void
cpu_sample_m(const cpu_texture *t, const oak_sampler *s, const float uv[2], float m, float out[4]) {
    /* m <= 1 (or NaN) gives lambda <= 0 (or NaN), which clamps to 0 as
       magnification: the log2 is only needed above 1, where it is >= 0 */
    float lambda = 0;
    bool minify = false;
    if (m > 1) {
        lambda = cpu_log2_level(m);
        minify = lambda > 0;
    }
    bool linear = (minify ? s->min : s->mag) != OAK_FILTER_NEAREST;
    float maxl = (float)(t->mip_count - 1);
    if (lambda > maxl) lambda = maxl;
    v4f acc;
    if (s->mip == OAK_FILTER_NEAREST) {
        acc = sample_level(t, s, (uint32_t)floorf(lambda + 0.5f), linear, uv);
    } else {
        uint32_t l0 = (uint32_t)floorf(lambda);
        float f = lambda - (float)l0;
        acc = sample_level(t, s, l0, linear, uv);
        if (f > 0 && l0 + 1 < t->mip_count) {
            v4f o1 = sample_level(t, s, l0 + 1, linear, uv);
            acc += (o1 - acc) * f;
        }
    }
    memcpy(out, &acc, sizeof acc);
}

/* linear rgba at uv with derivatives (in uv units per pixel) */
static inline void cpu_sample(const cpu_texture *t, const oak_sampler *s, const float uv[2],
                              const float duvdx[2], const float duvdy[2], float out[4]) {
    float W = (float)t->width, H = (float)t->height;
    float lx = sqrtf(duvdx[0] * W * duvdx[0] * W + duvdx[1] * H * duvdx[1] * H);
    float ly = sqrtf(duvdy[0] * W * duvdy[0] * W + duvdy[1] * H * duvdy[1] * H);
    cpu_sample_m(t, s, uv, lx > ly ? lx : ly, out);
}

/* a material slot: its uv set through its transform; (1, 1, 1, 1) when empty */
static inline void cpu_sample_ref(const cpu_backend *b, const cpu_tex_ref *r, const float uv[2][2],
                                  const float duvdx[2][2], const float duvdy[2][2], float out[4]) {
    if (r->tex < 0) {
        out[0] = out[1] = out[2] = out[3] = 1;
        return;
    }
    const float *u = uv[r->uv_set], *dx = duvdx[r->uv_set], *dy = duvdy[r->uv_set];
    float t[2] = {r->m[0] * u[0] + r->m[1] * u[1] + r->off[0],
                  r->m[2] * u[0] + r->m[3] * u[1] + r->off[1]};
    float tdx[2] = {r->m[0] * dx[0] + r->m[1] * dx[1], r->m[2] * dx[0] + r->m[3] * dx[1]};
    float tdy[2] = {r->m[0] * dy[0] + r->m[1] * dy[1], r->m[2] * dy[0] + r->m[3] * dy[1]};
    cpu_sample(&b->textures[r->tex], &r->sampler, t, tdx, tdy, out);
}

#endif
