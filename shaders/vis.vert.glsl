#version 450
// Visibility raster (and the BLEND pass): pulls positions from the vertex pool
// by OAK_VERTEX_INDEX and the draw's record by OAK_INSTANCE_INDEX
// (firstInstance is the draw index). The shadow atlas has its own vertex
// shader (shadow.vert.glsl): writing clip distances here too, even as
// constants, halved the H200's visibility raster of the stress world.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/snap.glsl"

OAK_VERTEX_INPUTS

layout(location = 0) flat out uint v_draw;
layout(location = 1) out vec4 v_uv;    // uv0, uv1 (masked materials)
layout(location = 2) out float v_alpha; // vertex colour alpha

void main() {
    oak_gpu_draw d = draws[OAK_INSTANCE_INDEX];
    vec4 c = view.view_proj * (d.world * positions[OAK_VERTEX_INDEX]);
    // snapped as the CPU rasterizer snaps, after TAA's jitter (view.taa.xy,
    // pixels, y down)
    c = oak_snap(c, vec2(view.size.xy), vec2(view.taa.x, -view.taa.y));
    gl_Position = c;
    v_draw = uint(OAK_INSTANCE_INDEX);
    oak_gpu_vertex a = attributes[OAK_VERTEX_INDEX];
    v_uv = a.uv;
    v_alpha = a.color.a;
}
