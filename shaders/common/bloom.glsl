// The bloom pyramid's layout and its bilinear read (render/bloom.h and
// backend/cpu/cpu_bloom.c are the C of the same arithmetic): level 0 is the
// output, level l is ceil(w / 2) x ceil(h / 2) of level l - 1; the buffer
// holds the down levels 1 .. OAK_BLOOM_LEVELS, then the up levels
// 1 .. OAK_BLOOM_LEVELS - 1.
#ifndef OAK_BLOOM_GLSL
#define OAK_BLOOM_GLSL

#include "common/bindings.glsl"
#include "common/pyramid.glsl"

#ifdef OAK_BLOOM_WRITE
OAK_SSBO(OAK_B_BLOOM) buffer BloomBlock { vec4 bloom[]; };
#else
OAK_SSBO(OAK_B_BLOOM) readonly buffer BloomBlock { vec4 bloom[]; };
#endif

uvec2 oak_bloom_size(uint level) { return oak_pyramid_size(view.out_size.xy, level); }

// the first texel of down level `level` (up: of its up level), level >= 1:
// the down levels 1 .. L first, then the up levels
uint oak_bloom_offset(uint level, bool up) {
    uint at = oak_pyramid_span(view.out_size.xy, 1u, level);
    return up ? at + oak_pyramid_span(view.out_size.xy, 1u, uint(OAK_BLOOM_LEVELS) + 1u) : at;
}

// Bilinear at p (texel units, texel centres at i + 0.5), clamped to the
// edge, from the level at `at` of `size`.
vec3 oak_bloom_bilinear(uint at, uvec2 size, vec2 p) {
    vec2 q = p - 0.5;
    vec2 i0 = floor(q);
    vec2 f = q - i0;
    ivec2 hi = ivec2(size) - 1;
    ivec2 a = clamp(ivec2(i0), ivec2(0), hi), b = clamp(ivec2(i0) + 1, ivec2(0), hi);
    vec3 t00 = bloom[at + uint(a.y) * size.x + uint(a.x)].rgb;
    vec3 t10 = bloom[at + uint(a.y) * size.x + uint(b.x)].rgb;
    vec3 t01 = bloom[at + uint(b.y) * size.x + uint(a.x)].rgb;
    vec3 t11 = bloom[at + uint(b.y) * size.x + uint(b.x)].rgb;
    vec3 top = t00 + (t10 - t00) * f.x, bot = t01 + (t11 - t01) * f.x;
    return top + (bot - top) * f.y;
}

// What post mixes in at output pixel px: up level 1, bilinear, over the
// levels it sums (so a flat frame blooms to itself).
vec3 oak_bloom_at(ivec2 px) {
    uvec2 s1 = oak_bloom_size(1u);
    vec2 p = (vec2(px) + 0.5) * (vec2(s1) / vec2(view.out_size.xy));
    return oak_bloom_bilinear(oak_bloom_offset(1u, true), s1, p) * (1.0 / float(OAK_BLOOM_LEVELS));
}

#endif
