/* Texture sampling on mirrored linear texels: wrap modes, nearest or bilinear
 * taps with texel centres at (i + 0.5) / size, and the mip level from the uv
 * derivatives, as docs/SHADING.md "Textures" specifies. */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"

static int32_t wrap(int32_t i, int32_t n, oak_wrap mode) {
    if ((uint32_t)i < (uint32_t)n) return i; /* inside: every mode agrees */
    switch (mode) {
    case OAK_WRAP_CLAMP:
        return i < 0 ? 0 : i >= n ? n - 1 : i;
    case OAK_WRAP_MIRROR: {
        int32_t p = 2 * n, m = i % p;
        if (m < 0) m += p;
        return m < n ? m : p - 1 - m;
    }
    default: {
        int32_t m = i % n;
        return m < 0 ? m + n : m;
    }
    }
}

/* Texel coordinate as float, kept far from int overflow; uv beyond +-2^20
 * repeats is not meaningful anyway. */
static float coord(float u, uint32_t size) {
    float x = u * (float)size;
    if (!(x > -1048576.0f)) x = -1048576.0f; /* also catches NaN */
    if (x > 1048576.0f) x = 1048576.0f;
    return x;
}

typedef float v4f __attribute__((vector_size(16)));

static inline v4f texel(const cpu_texture *t, uint32_t level, int32_t i, int32_t j) {
    v4f v;
    memcpy(&v, t->texels + (t->offset[level] + (size_t)j * t->mw[level] + (size_t)i) * 4, sizeof v);
    return v;
}

static void sample_level(const cpu_texture *t, const oak_sampler *s, uint32_t level, bool linear,
                         const float uv[2], float out[4]) {
    int32_t w = (int32_t)t->mw[level], h = (int32_t)t->mh[level];
    oak_wrap wu = s->wrap_u, wv = s->wrap_v;
    float x = coord(uv[0], (uint32_t)w), y = coord(uv[1], (uint32_t)h);
    v4f acc;
    if (!linear) {
        int32_t i = wrap((int32_t)floorf(x), w, wu), j = wrap((int32_t)floorf(y), h, wv);
        acc = texel(t, level, i, j);
        memcpy(out, &acc, sizeof acc);
        return;
    }
    x -= 0.5f;
    y -= 0.5f;
    float fx0 = floorf(x), fy0 = floorf(y);
    float fx = x - fx0, fy = y - fy0;
    int32_t i0 = (int32_t)fx0, j0 = (int32_t)fy0;
    int32_t ia = wrap(i0, w, wu), ib = wrap(i0 + 1, w, wu);
    int32_t ja = wrap(j0, h, wv), jb = wrap(j0 + 1, h, wv);
    acc = texel(t, level, ia, ja) * ((1 - fx) * (1 - fy)) +
          texel(t, level, ib, ja) * (fx * (1 - fy)) + texel(t, level, ia, jb) * ((1 - fx) * fy) +
          texel(t, level, ib, jb) * (fx * fy);
    memcpy(out, &acc, sizeof acc);
}

void _oak_cpu_sample(const cpu_texture *t, const oak_sampler *s, const float uv[2],
                     const float duvdx[2], const float duvdy[2], float out[4]) {
    float W = (float)t->width, H = (float)t->height;
    float lx = sqrtf(duvdx[0] * W * duvdx[0] * W + duvdx[1] * H * duvdx[1] * H);
    float ly = sqrtf(duvdy[0] * W * duvdy[0] * W + duvdy[1] * H * duvdy[1] * H);
    float m = lx > ly ? lx : ly;
    float lambda = m > 0 ? log2f(m) : -64.0f;
    if (!(lambda == lambda)) lambda = 0; /* NaN derivatives: base level */
    bool minify = lambda > 0;
    bool linear = (minify ? s->min : s->mag) != OAK_FILTER_NEAREST;
    float maxl = (float)(t->mip_count - 1);
    if (lambda < 0) lambda = 0;
    if (lambda > maxl) lambda = maxl;
    if (s->mip == OAK_FILTER_NEAREST) {
        sample_level(t, s, (uint32_t)floorf(lambda + 0.5f), linear, uv, out);
        return;
    }
    uint32_t l0 = (uint32_t)floorf(lambda);
    float f = lambda - (float)l0;
    sample_level(t, s, l0, linear, uv, out);
    if (f > 0 && l0 + 1 < t->mip_count) {
        float o1[4];
        sample_level(t, s, l0 + 1, linear, uv, o1);
        for (int k = 0; k < 4; k++) out[k] += (o1[k] - out[k]) * f;
    }
}

void _oak_cpu_sample_ref(const cpu_backend *b, const cpu_tex_ref *r, const float uv[2][2],
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
    _oak_cpu_sample(&b->textures[r->tex], &r->sampler, t, tdx, tdy, out);
}
