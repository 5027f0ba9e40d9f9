/* The opaque frame's copy, shared by the backends (shaders/common/opaque.glsl
 * is the GLSL of the same arithmetic): level 0 is the lit frame at the render
 * size, level l is ceil(w_{l-1} / 2) x ceil(h_{l-1} / 2), each texel the mean
 * of the 2 x 2 texels above it (the last row or column of an odd level
 * repeats: coordinates clamp). Texels lie level after level; the GPU buffer
 * holds RGBA32F, the CPU rgb floats. Reads are bilinear in a level and
 * linear between two (docs/SHADING.md "Transmission"). */
#ifndef OAK_RENDER_OPAQUE_COPY_H
#define OAK_RENDER_OPAQUE_COPY_H

#include <math.h>
#include <stdint.h>

#include "render/pyramid.h"
#include "shaders/common/oak_gpu.h"

/* The first texel of level l; l = OAK_GPU_OPAQUE_LEVELS: texels in all. */
static inline uint64_t _oak_opaque_offset(uint32_t width, uint32_t height, uint32_t level) {
    return _oak_pyramid_span(width, height, 0, level);
}

static inline uint64_t _oak_opaque_texels(uint32_t width, uint32_t height) {
    return _oak_opaque_offset(width, height, OAK_GPU_OPAQUE_LEVELS);
}

/* Bilinear in level l of rgb texels `t` at uv (0..1 across the frame, row 0
   at the top), coordinates clamped to the level. */
static inline void _oak_opaque_bilinear(const float *t, uint32_t width, uint32_t height,
                                        uint32_t level, float u, float v, float out[3]) {
    uint32_t w, h;
    _oak_pyramid_size(width, height, level, &w, &h);
    const float *base = t + 3 * _oak_opaque_offset(width, height, level);
    float px = u * (float)w - 0.5f, py = v * (float)h - 0.5f;
    float fx0 = floorf(px), fy0 = floorf(py);
    float fx = px - fx0, fy = py - fy0;
    int32_t x0 = (int32_t)fx0, y0 = (int32_t)fy0, x1 = x0 + 1, y1 = y0 + 1;
    int32_t mx = (int32_t)w - 1, my = (int32_t)h - 1;
    x0 = x0 < 0 ? 0 : x0 > mx ? mx : x0;
    x1 = x1 < 0 ? 0 : x1 > mx ? mx : x1;
    y0 = y0 < 0 ? 0 : y0 > my ? my : y0;
    y1 = y1 < 0 ? 0 : y1 > my ? my : y1;
    const float *a = base + 3 * ((size_t)y0 * w + (uint32_t)x0);
    const float *b = base + 3 * ((size_t)y0 * w + (uint32_t)x1);
    const float *c = base + 3 * ((size_t)y1 * w + (uint32_t)x0);
    const float *d = base + 3 * ((size_t)y1 * w + (uint32_t)x1);
    for (int k = 0; k < 3; k++) {
        float top = a[k] + (b[k] - a[k]) * fx, bot = c[k] + (d[k] - c[k]) * fx;
        out[k] = top + (bot - top) * fy;
    }
}

/* The copy at uv and level `lod` (fractional: linear between two levels). */
static inline void _oak_opaque_sample(const float *t, uint32_t width, uint32_t height, float u,
                                      float v, float lod, float out[3]) {
    float top = (float)(OAK_GPU_OPAQUE_LEVELS - 1);
    lod = lod > 0 ? (lod < top ? lod : top) : 0; /* NaN reads level 0 */
    float l0 = floorf(lod), f = lod - l0;
    _oak_opaque_bilinear(t, width, height, (uint32_t)l0, u, v, out);
    if (f > 0) {
        float o1[3];
        _oak_opaque_bilinear(t, width, height, (uint32_t)l0 + 1, u, v, o1);
        for (int k = 0; k < 3; k++) out[k] += (o1[k] - out[k]) * f;
    }
}

#endif
