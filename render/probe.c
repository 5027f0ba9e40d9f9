/* Reflection probes' arithmetic (render/probe.h): box projection, the blend
 * weight and the lookup every backend performs; the GLSL, when it lands in
 * shaders/common/, is this operation for operation. */
#include "render/probe.h"

#include <math.h>

#include "render/skylight.h"

void _oak_probe_box_dir(const oak_gpu_probe *p, const float P[3], const float r[3], float out[3]) {
    /* the nearest exit: per axis, the face r heads for; a ray parallel to an
       axis never leaves through that axis' faces */
    float t = INFINITY;
    for (int k = 0; k < 3; k++) {
        if (r[k] == 0.0f) continue;
        float face = r[k] > 0 ? p->hi[k] : p->lo[k];
        float tk = (face - P[k]) / r[k];
        if (tk < t) t = tk;
    }
    if (!(t < INFINITY) || t < 0) t = 0; /* P on or outside a face: no parallax */
    float d[3], len = 0;
    for (int k = 0; k < 3; k++) {
        d[k] = P[k] + r[k] * t - p->centre[k];
        len += d[k] * d[k];
    }
    if (len <= 1e-12f) { /* the hit is the capture point itself */
        for (int k = 0; k < 3; k++) out[k] = r[k];
        return;
    }
    float inv = 1.0f / sqrtf(len);
    for (int k = 0; k < 3; k++) out[k] = d[k] * inv;
}

float _oak_probe_weight(const oak_gpu_probe *p, const float P[3]) {
    float depth = INFINITY; /* distance to the nearest face, negative outside */
    for (int k = 0; k < 3; k++) {
        float a = P[k] - p->lo[k], b = p->hi[k] - P[k];
        float m = a < b ? a : b;
        if (m < depth) depth = m;
    }
    if (depth < 0) return 0.0f;
    float margin = p->centre[3];
    if (margin <= 0) return 1.0f;
    return depth >= margin ? 1.0f : depth / margin;
}

void _oak_probe_map_specular(const float *map, const float d[3], float roughness, float out[3]) {
    float rough = roughness < 0 ? 0 : roughness > 1 ? 1 : roughness;
    float lod = rough * (float)(OAK_SKY_SPECULAR_LEVELS - 1);
    uint32_t l0 = (uint32_t)floorf(lod);
    uint32_t l1 = l0 + 1 < OAK_SKY_SPECULAR_LEVELS ? l0 + 1 : l0;
    float f = lod - (float)l0, a[3], b[3];
    /* the sky's level offsets, less where the sky's levels start */
    _oak_sky_oct_bilinear(map, _oak_sky_spec_at(l0) - OAK_GPU_SKY_SPEC_AT, _oak_sky_spec_size(l0),
                          d, a);
    _oak_sky_oct_bilinear(map, _oak_sky_spec_at(l1) - OAK_GPU_SKY_SPEC_AT, _oak_sky_spec_size(l1),
                          d, b);
    for (int k = 0; k < 3; k++) out[k] = a[k] + (b[k] - a[k]) * f;
}

void _oak_probe_specular(const oak_gpu_probe *probes, uint32_t count, const float *maps,
                         const float *sky, const float P[3], const float r[3], float roughness,
                         float out[3]) {
    float left = 1.0f; /* what the probes so far have not claimed */
    out[0] = out[1] = out[2] = 0;
    for (uint32_t i = 0; i < count && left > 0; i++) {
        float w = _oak_probe_weight(&probes[i], P) * left;
        if (w <= 0) continue;
        float d[3], c[3];
        _oak_probe_box_dir(&probes[i], P, r, d);
        const float *map = maps + (size_t)probes[i].lo[3] * OAK_GPU_PROBE_MAP_TEXELS * 4;
        _oak_probe_map_specular(map, d, roughness, c);
        for (int k = 0; k < 3; k++) out[k] += c[k] * w;
        left -= w;
    }
    if (left <= 0) return;
    float s[3];
    _oak_sky_specular(sky, r, roughness, s);
    for (int k = 0; k < 3; k++) out[k] += s[k] * left;
}
