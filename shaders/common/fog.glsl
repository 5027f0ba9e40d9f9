// Froxel volumetric fog: its buffer (OAK_B_FOG, oak_gpu_fog in oak_gpu.h)
// and the read every surface and the sky take of it at their own depth
// (docs/SHADING.md "Volumetric fog"; render/fog.c is the same C).
#ifndef OAK_FOG_GLSL
#define OAK_FOG_GLSL

#include "common/bindings.glsl"

#ifdef OAK_FOG_WRITE
OAK_SSBO(OAK_B_FOG) buffer FogBlock { vec4 fog[]; };
#else
OAK_SSBO(OAK_B_FOG) readonly buffer FogBlock { vec4 fog[]; };
#endif

uint oak_fog_count() {
    return view.fog.grid.x * view.fog.grid.y * view.fog.grid.z;
}

// the integrated volume at slice boundary b of column (x, y): (0, 1) at the eye
vec4 oak_fog_boundary(uint x, uint y, uint b) {
    if (b == 0u) return vec4(0.0, 0.0, 0.0, 1.0);
    return fog[oak_fog_count() + ((b - 1u) * view.fog.grid.y + y) * view.fog.grid.x + x];
}

// screen uv (row 0 at the top), slice coordinate u: (light, transmittance), trilinear
vec4 oak_fog_lookup(vec2 uv, float u) {
    uvec3 g = view.fog.grid.xyz;
    vec3 n = vec3(g);
    vec3 f = vec3(clamp(uv.x * n.x - 0.5, 0.0, n.x - 1.0), clamp(uv.y * n.y - 0.5, 0.0, n.y - 1.0),
                  clamp(u, 0.0, n.z));
    vec3 fl = floor(f);
    vec3 w = f - fl;
    uvec3 a = uvec3(fl);
    uvec3 c = min(a + 1u, uvec3(g.x - 1u, g.y - 1u, g.z));
    vec4 s = vec4(0.0);
    OAK_DONT_UNROLL for (int q = 0; q < 8; q++) {
        float wq = ((q & 1) != 0 ? w.x : 1.0 - w.x) * ((q & 2) != 0 ? w.y : 1.0 - w.y) *
                   ((q & 4) != 0 ? w.z : 1.0 - w.z);
        s += oak_fog_boundary((q & 1) != 0 ? c.x : a.x, (q & 2) != 0 ? c.y : a.y,
                              (q & 4) != 0 ? c.z : a.z) * wq;
    }
    return s;
}

// a surface at world P seen through the fog
vec3 oak_fog_apply(vec3 P, vec3 colour) {
    vec4 c = view.view_proj * vec4(P, 1.0);
    vec2 uv = vec2(c.x / c.w * 0.5 + 0.5, 0.5 - c.y / c.w * 0.5);
    float z = max(dot(view.view_depth, vec4(P, 1.0)), 0.0);
    vec4 s = oak_fog_lookup(uv, log(1.0 + z / view.fog.slices.y) * view.fog.slices.z);
    return colour * s.a + s.rgb;
}

// the sky at pixel px: through the whole volume (its far boundary)
vec3 oak_fog_apply_sky(ivec2 px, vec3 colour) {
    vec2 uv = (vec2(px) + 0.5) / vec2(view.size.xy);
    vec4 s = oak_fog_lookup(uv, float(view.fog.grid.z));
    return colour * s.a + s.rgb;
}

#endif
