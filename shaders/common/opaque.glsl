// The opaque frame's copy and its reads (render/opaque_copy.h is the C of
// the same arithmetic): level 0 the lit frame at the render size, level l
// ceil(w / 2) x ceil(h / 2) of level l - 1, each texel the mean of the
// 2 x 2 above it, coordinates clamped; texels level after level.
#ifndef OAK_OPAQUE_GLSL
#define OAK_OPAQUE_GLSL

#include "common/bindings.glsl"
#include "common/pyramid.glsl"

#ifdef OAK_OPAQUE_WRITE
OAK_SSBO(OAK_B_OPAQUE) buffer OpaqueBlock { vec4 opaque_texels[]; };
#else
OAK_SSBO(OAK_B_OPAQUE) readonly buffer OpaqueBlock { vec4 opaque_texels[]; };
#endif

uvec2 oak_opaque_size(uint level) { return oak_pyramid_size(view.size.xy, level); }

uint oak_opaque_offset(uint level) { return oak_pyramid_span(view.size.xy, 0u, level); }

#ifndef OAK_OPAQUE_WRITE
vec3 oak_opaque_bilinear(uint level, vec2 uv) {
    uvec2 s = oak_opaque_size(level);
    uint at = oak_opaque_offset(level);
    vec2 p = uv * vec2(s) - 0.5;
    vec2 i0 = floor(p);
    vec2 f = p - i0;
    ivec2 hi = ivec2(s) - 1;
    ivec2 a = clamp(ivec2(i0), ivec2(0), hi), b = clamp(ivec2(i0) + 1, ivec2(0), hi);
    vec3 t00 = opaque_texels[at + uint(a.y) * s.x + uint(a.x)].rgb;
    vec3 t10 = opaque_texels[at + uint(a.y) * s.x + uint(b.x)].rgb;
    vec3 t01 = opaque_texels[at + uint(b.y) * s.x + uint(a.x)].rgb;
    vec3 t11 = opaque_texels[at + uint(b.y) * s.x + uint(b.x)].rgb;
    vec3 top = t00 + (t10 - t00) * f.x, bot = t01 + (t11 - t01) * f.x;
    return top + (bot - top) * f.y;
}

// the copy at uv (row 0 at the top) and a fractional level
vec3 oak_opaque_sample(vec2 uv, float lod) {
    lod = clamp(lod, 0.0, float(OAK_GPU_OPAQUE_LEVELS - 1));
    float l0 = floor(lod), f = lod - l0;
    vec3 c = oak_opaque_bilinear(uint(l0), uv);
    if (f > 0.0) c += (oak_opaque_bilinear(uint(l0) + 1u, uv) - c) * f;
    return c;
}
#endif

#endif
