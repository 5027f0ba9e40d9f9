#version 450
// BLEND surfaces, forward-shaded over the resolved frame with the same
// function as the resolve (rebuilt from gl_PrimitiveID at the pixel centre);
// the pipeline blends premultiplied light: src * a + dst * (1 - a) ("over"),
// or src * a + dst for an additive material (its alpha written as 0).
#extension GL_GOOGLE_include_directive : require
// the forward pass's own: transmission through the opaque frame's copy
// (the resolve never draws it, so its shader does not carry it)
#define OAK_FORWARD 1
#include "common/surface.glsl"

layout(location = 0) flat in uint v_draw;
layout(location = 0) out vec4 o_color;

// View depth (metres) of device depth d (cpu_resolve.c view_depth_of).
float oak_view_depth_of(float d) {
    vec4 p = view.depth_proj;
    return p.z != 0.0 ? (p.y - d) / p.x : p.y / (d + p.x);
}

void main() {
    vec4 c = oak_shade_pixel(v_draw, uint(gl_PrimitiveID), ivec2(gl_FragCoord.xy));
    float a = clamp(c.a, 0.0, 1.0);
    vec4 m = materials[draws[v_draw].info.x].emissive;
    // soft particles: fade in over `softness` metres in front of the opaque
    // surface behind (its depth is the opaque copy's level 0 w; the
    // frontend runs the copy when such a material is drawn)
    if (m.w > 0.0) {
        float scene = opaque_texels[uint(gl_FragCoord.y) * view.size.x + uint(gl_FragCoord.x)].w;
        float gap = oak_view_depth_of(scene) - oak_view_depth_of(gl_FragCoord.z);
        a *= clamp(gap / m.w, 0.0, 1.0);
    }
    bool add = (uint(materials[draws[v_draw].info.x].mode.y) & OAK_GPU_MAT_ADDITIVE) != 0u;
    o_color = vec4(c.rgb * a, add ? 0.0 : a);
}
