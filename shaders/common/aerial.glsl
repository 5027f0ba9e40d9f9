// Aerial perspective: the host's frustum volume (OAK_B_AERIAL, render/
// aerial.c builds it, the same floats on every backend) and its read at a
// surface, line for line render/aerial.c's _oak_aerial_lookup and
// _oak_aerial_apply (docs/SHADING.md "Aerial perspective").
#ifndef OAK_AERIAL_GLSL
#define OAK_AERIAL_GLSL

#include "common/bindings.glsl"

#define OAK_GPU_AERIAL_GRID  32u      /* render/aerial.h OAK_AERIAL_GRID */
#define OAK_GPU_AERIAL_FAR_M 32000.0  /* render/aerial.h OAK_AERIAL_FAR_M */

#if defined(OAK_VULKAN_GLSL)
OAK_SSBO(OAK_B_AERIAL) readonly buffer AerialBlock { vec4 aerial[]; };
#define OAK_AERIAL_TEXEL(i) aerial[i]
#else
// GL gives a compute shader 16 storage blocks and the resolve uses them
// all: the same buffer read as a texture buffer (RGBA32F, texelFetch
// returns its floats unchanged) at texture unit OAK_B_AERIAL
OAK_BINDING(OAK_B_AERIAL) uniform samplerBuffer oak_aerial_texels;
#define OAK_AERIAL_TEXEL(i) texelFetch(oak_aerial_texels, int(i))
#endif

// the volume at slice boundary b of column (x, y): (0, 1) at the eye
vec4 oak_aerial_boundary(uint x, uint y, uint b) {
    if (b == 0u) return vec4(0.0, 0.0, 0.0, 1.0);
    return OAK_AERIAL_TEXEL(((b - 1u) * OAK_GPU_AERIAL_GRID + y) * OAK_GPU_AERIAL_GRID + x);
}

// screen uv (row 0 at the top), slice coordinate u: (light, transmittance), trilinear
vec4 oak_aerial_lookup(float ux, float uy, float u) {
    float n = float(OAK_GPU_AERIAL_GRID);
    float fx = clamp(ux * n - 0.5, 0.0, n - 1.0);
    float fy = clamp(uy * n - 0.5, 0.0, n - 1.0);
    float fz = clamp(u, 0.0, n);
    float flx = floor(fx), fly = floor(fy), flz = floor(fz);
    float wx = fx - flx, wy = fy - fly, wz = fz - flz;
    uint x0 = uint(flx), y0 = uint(fly), b0 = uint(flz);
    uint x1 = x0 + 1u < OAK_GPU_AERIAL_GRID ? x0 + 1u : x0;
    uint y1 = y0 + 1u < OAK_GPU_AERIAL_GRID ? y0 + 1u : y0;
    uint b1 = b0 + 1u <= OAK_GPU_AERIAL_GRID ? b0 + 1u : b0;
    vec4 s = vec4(0.0);
    OAK_DONT_UNROLL for (int q = 0; q < 8; q++) {
        float w = ((q & 1) != 0 ? wx : 1.0 - wx) * ((q & 2) != 0 ? wy : 1.0 - wy) *
                  ((q & 4) != 0 ? wz : 1.0 - wz);
        s += oak_aerial_boundary((q & 1) != 0 ? x1 : x0, (q & 2) != 0 ? y1 : y0,
                                 (q & 4) != 0 ? b1 : b0) * w;
    }
    return s;
}

// the light scattered toward the eye and the air's transmittance from the
// eye to world P: (rgb, transmittance), (0, 1) without the volume
vec4 oak_aerial_at(vec3 P) {
    if ((view.flags.y & OAK_GPU_AERIAL) == 0u) return vec4(0.0, 0.0, 0.0, 1.0);
    vec4 c = view.view_proj * vec4(P, 1.0);
    float ux = (c.x / c.w) * 0.5 + 0.5, uy = 0.5 - (c.y / c.w) * 0.5;
    // render/aerial.c _oak_aerial_slice: boundary b lies FAR * (b / GRID)^2
    float d = length(P - view.camera_pos.xyz);
    float u = float(OAK_GPU_AERIAL_GRID) * sqrt(clamp(d / OAK_GPU_AERIAL_FAR_M, 0.0, 1.0));
    return oak_aerial_lookup(ux, uy, u);
}

// a surface at world P seen through the air (after the fog, as the CPU)
vec3 oak_aerial_apply(vec3 P, vec3 colour) {
    vec4 s = oak_aerial_at(P);
    return colour * s.a + s.rgb;
}

#endif
