// Reflection probes in GLSL: render/probe.c operation for operation (the box
// projection, a probe's weight, the lookup that takes the probes in order and
// the sky for what they leave). Layout: OAK_GPU_PROBE_* in oak_gpu.h.
#ifndef OAK_PROBE_GLSL
#define OAK_PROBE_GLSL

#include "common/sky.glsl"

OAK_SSBO(OAK_B_PROBES) readonly buffer ProbeBlock { vec4 probes[]; };

// record p's three texels: centre (w margin), lo (w slot), hi
vec4 oak_probe_texel(uint p, uint k) { return probes[uint(OAK_GPU_PROBE_RECORDS_AT) + 3u * p + k]; }

vec3 oak_probe_box_dir(uint p, vec3 P, vec3 r) {
    vec3 lo = oak_probe_texel(p, 1u).xyz, hi = oak_probe_texel(p, 2u).xyz;
    vec3 C = oak_probe_texel(p, 0u).xyz;
    // the nearest exit: per axis, the face r heads for (1e30 stands for
    // render/probe.c's INFINITY)
    float t = 1e30;
    for (int k = 0; k < 3; k++) {
        if (r[k] == 0.0) continue;
        float face = r[k] > 0.0 ? hi[k] : lo[k];
        float tk = (face - P[k]) / r[k];
        if (tk < t) t = tk;
    }
    if (!(t < 1e30) || t < 0.0) t = 0.0; // P on or outside a face: no parallax
    vec3 d = P + r * t - C;
    float len = dot(d, d);
    if (len <= 1e-12) return r; // the hit is the capture point itself
    return d * (1.0 / sqrt(len));
}

float oak_probe_weight(uint p, vec3 P) {
    vec3 lo = oak_probe_texel(p, 1u).xyz, hi = oak_probe_texel(p, 2u).xyz;
    float depth = 1e30; // distance to the nearest face, negative outside
    for (int k = 0; k < 3; k++) {
        float a = P[k] - lo[k], b = hi[k] - P[k];
        float m = a < b ? a : b;
        if (m < depth) depth = m;
    }
    if (depth < 0.0) return 0.0;
    float margin = oak_probe_texel(p, 0u).w;
    if (margin <= 0.0) return 1.0;
    return depth >= margin ? 1.0 : depth / margin;
}

vec3 oak_probe_level(uint map, uint level, vec3 d) {
    uint t[4];
    vec2 f;
    uint at = map + oak_sky_spec_at(level) - uint(OAK_GPU_SKY_SPEC_AT);
    oak_oct_taps(at, oak_sky_spec_size(level), d, t, f);
    return oak_oct_mix(probes[t[0]].rgb, probes[t[1]].rgb, probes[t[2]].rgb, probes[t[3]].rgb, f);
}

vec3 oak_probe_map_specular(uint map, vec3 d, float roughness) {
    float lod = oak_sky_clamp(roughness, 0.0, 1.0) * float(OAK_SKY_SPECULAR_LEVELS - 1);
    uint l0 = uint(floor(lod));
    uint l1 = l0 + 1u < uint(OAK_SKY_SPECULAR_LEVELS) ? l0 + 1u : l0;
    float f = lod - float(l0);
    vec3 a = oak_probe_level(map, l0, d), b = oak_probe_level(map, l1, d);
    return a + (b - a) * f;
}

// the specular ambient at P along r: each probe in order takes its weight of
// what the earlier ones left, the sky the rest
vec3 oak_probe_specular(vec3 P, vec3 r, float roughness) {
    uint count = uint(probes[0].x);
    float left = 1.0;
    vec3 spec = vec3(0.0);
    for (uint i = 0u; i < count && left > 0.0; i++) {
        float w = oak_probe_weight(i, P) * left;
        if (w <= 0.0) continue;
        vec3 d = oak_probe_box_dir(i, P, r);
        uint map = uint(OAK_GPU_PROBE_MAPS_AT) +
                   uint(oak_probe_texel(i, 1u).w) * uint(OAK_GPU_PROBE_MAP_TEXELS);
        spec += oak_probe_map_specular(map, d, roughness) * w;
        left -= w;
    }
    if (left <= 0.0) return spec;
    return spec + oak_sky_specular(r, roughness) * left;
}

#endif
