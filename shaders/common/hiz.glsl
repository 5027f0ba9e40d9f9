// Two-pass Hi-Z's buffers as its kernels read them (oak_gpu.h
// oak_gpu_hiz_head): the head's words, a candidate's first word, the
// pyramid's levels in OAK_B_HIZ_KEEP (after the keys), and the one test of a
// sphere against the pyramid that hiz_cull.comp (draws) and instcull.comp
// (stream instances) both call.
#ifndef OAK_HIZ_GLSL
#define OAK_HIZ_GLSL

#include "common/oak_gpu.h"

// coherent: the compaction's scan reads what its work group wrote
OAK_SSBO(OAK_B_HIZ) coherent buffer HizBlock {
    uint hw[];
};
OAK_SSBO(OAK_B_HIZ_KEEP) buffer HizKeepBlock {
    uint keep[];
};

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_HIZ_STEP, 0u)
#else
layout(location = 0) uniform uint oak_hiz_step; // GL: set per dispatch
#define OAK_HIZ_STEP oak_hiz_step
#endif

// head words
#define H_COUNT   0u
#define H_CUT     1u
#define H_COMPACT 2u
#define H_KEYS    3u
#define H_FIRST   4u
#define H_SIZE    12u
#define H_VP      16u
#define H_EARLY   32u
#define H_LATE    36u
#define H_STATS   40u
#define H_STREAMS 44u

uint cand(uint j) {
    return uint(OAK_GPU_HIZ_HEAD_WORDS) + j * uint(OAK_GPU_HIZ_DRAW_WORDS);
}

// Level k's size and first word in keep[].
uvec3 level_of(uint k) {
    uint w = hw[H_SIZE], h = hw[H_SIZE + 1u], at = hw[H_KEYS];
    for (uint i = 0u; i <= k; i++) {
        w = (w + 1u) / 2u;
        h = (h + 1u) / 2u;
        if (i < k) at += w * h;
    }
    return uvec3(w, h, at);
}

// A texel of level L (size, first word), coordinates clamped to its edges.
float level_texel(uvec3 L, uint x, uint y) {
    return uintBitsToFloat(keep[L.z + min(y, L.y - 1u) * L.x + min(x, L.x - 1u)]);
}

// The screen rectangle and nearest depth of a sphere's world box through
// vp onto a W x H view (the C twin: render/occlusion.c
// _oak_occ_sphere_visible, whose grid has row 0 at the bottom): the eight
// corners' pixels, row 0 at the top when top_row0 (clip y = +1), else at the
// bottom, and the largest reversed-Z depth among them. False when a corner
// lies at or behind the eye, or the box reaches the near plane: nothing can
// be said, and the caller keeps the sphere.
bool oak_sphere_rect(mat4 vp, vec2 size, bool top_row0, vec3 c, float rad, out vec2 lo,
                     out vec2 hi, out float zn) {
    lo = vec2(3.0e38);
    hi = vec2(-3.0e38);
    zn = 0.0;
    for (uint k = 0u; k < 8u; k++) {
        vec3 p = c + rad * vec3((k & 1u) != 0u ? 1.0 : -1.0, (k & 2u) != 0u ? 1.0 : -1.0,
                                (k & 4u) != 0u ? 1.0 : -1.0);
        vec4 q = vp * vec4(p, 1.0);
        if (!(q.w > 1e-6)) return false;
        vec2 n = q.xy / q.w * 0.5;
        vec2 xy = vec2(n.x + 0.5, top_row0 ? 0.5 - n.y : n.y + 0.5) * size;
        lo = min(lo, xy);
        hi = max(hi, xy);
        zn = max(zn, q.z / q.w);
    }
    return zn < 1.0;
}

// False when the sphere lies behind the pyramid: its box's rectangle (row 0
// the picture's top, grown a pixel: TAA's jitter and the raster's snapping
// stay inside, then clamped to the screen) against the level where it spans
// at most span x span texels (hiz_visible: 2 x 2); hidden when its nearest
// depth is behind the farthest of them.
bool hiz_visible_span(vec3 c, float rad, uint span) {
    // column by column: a loop writing vp[k / 4][k % 4] crashed NVIDIA's GL
    // compiler (driver 580) when linking meshcull.comp (hiz_cull and
    // instcull linked; found with a compile-and-link probe of every GL source)
    mat4 vp = mat4(uintBitsToFloat(uvec4(hw[H_VP], hw[H_VP + 1u], hw[H_VP + 2u], hw[H_VP + 3u])),
                   uintBitsToFloat(uvec4(hw[H_VP + 4u], hw[H_VP + 5u], hw[H_VP + 6u], hw[H_VP + 7u])),
                   uintBitsToFloat(uvec4(hw[H_VP + 8u], hw[H_VP + 9u], hw[H_VP + 10u], hw[H_VP + 11u])),
                   uintBitsToFloat(uvec4(hw[H_VP + 12u], hw[H_VP + 13u], hw[H_VP + 14u], hw[H_VP + 15u])));
    float W = float(hw[H_SIZE]), H = float(hw[H_SIZE + 1u]);
    vec2 lo, hi;
    float zn;
    if (!oak_sphere_rect(vp, vec2(W, H), true, c, rad, lo, hi, zn)) return true;
    lo = max(lo - 1.0, vec2(0.0));
    hi = min(hi + 1.0, vec2(W, H) - 1.0);
    if (!(hi.x >= lo.x) || !(hi.y >= lo.y)) return true; // off screen: the frustum's call
    uvec2 p0 = uvec2(lo), p1 = uvec2(hi);
    // the level whose texels (2^(k+1) pixels) it spans at most span of
    uint levels = hw[H_SIZE + 2u], k = 0u;
    while (k + 1u < levels && ((p1.x >> (k + 1u)) - (p0.x >> (k + 1u)) > span - 1u ||
                               (p1.y >> (k + 1u)) - (p0.y >> (k + 1u)) > span - 1u))
        k++;
    uvec3 L = level_of(k);
    uvec2 t0 = p0 >> (k + 1u), t1 = p1 >> (k + 1u);
    float deepest = 1.0;
    for (uint y = t0.y; y <= t1.y; y++)
        for (uint x = t0.x; x <= t1.x; x++) deepest = min(deepest, level_texel(L, x, y));
    // hidden only when its nearest point is behind the farthest depth there
    return !(zn < deepest);
}

bool hiz_visible(vec3 c, float rad) {
    return hiz_visible_span(c, rad, 2u);
}

#endif
