#version 450
// Visibility raster (and the BLEND pass): pulls positions from the vertex pool
// by OAK_VERTEX_INDEX and the draw's record by OAK_INSTANCE_INDEX
// (firstInstance is the draw index). The shadow atlas has its own vertex
// shader (shadow.vert.glsl): writing clip distances here too, even as
// constants, halved the H200's visibility raster of the stress world.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"

OAK_VERTEX_INPUTS

layout(location = 0) flat out uint v_draw;
layout(location = 1) out vec4 v_uv;    // uv0, uv1 (masked materials)
layout(location = 2) out float v_alpha; // vertex colour alpha

void main() {
    oak_gpu_draw d = draws[OAK_INSTANCE_INDEX];
    vec4 c = view.view_proj * (d.world * positions[OAK_VERTEX_INDEX]);
    // Snap to 1/16 pixel as the CPU rasterizer does, so both cover the same
    // pixels (the hardware's finer grid then lands exactly on these points).
    // TAA's jitter (view.taa.xy, pixels, y down) moves the vertex first.
    if (c.w > 0.0) {
        vec2 size = vec2(view.size.xy);
        vec2 s = (c.xy / c.w * 0.5 + 0.5) * size + vec2(view.taa.x, -view.taa.y);
        s = roundEven(s * 16.0) / 16.0;
        c.xy = (s / size * 2.0 - 1.0) * c.w;
    }
    gl_Position = c;
    v_draw = uint(OAK_INSTANCE_INDEX);
    oak_gpu_vertex a = attributes[OAK_VERTEX_INDEX];
    v_uv = a.uv;
    v_alpha = a.color.a;
}
