#version 450
// Lamp atlas raster: each caster record is projected with its face's matrix
// (the face in info.w >> 16) and snapped to 1/16 texel as the CPU
// rasterizer does; the pass sets the viewport to the face's tile.
#extension GL_GOOGLE_include_directive : require
#define OAK_LAMP_SHADOW_BLOCK_ONLY
#include "common/lamp_shadow.glsl"
#include "common/snap.glsl"

OAK_VERTEX_INPUTS

layout(location = 0) flat out uint v_draw;
layout(location = 1) out vec4 v_uv;    // uv0, uv1 (masked casters)
layout(location = 2) out float v_alpha; // vertex colour alpha

void main() {
    oak_gpu_draw d = draws[OAK_INSTANCE_INDEX];
    uint face = d.info.w >> 16;
    vec4 c = lamp.faces[face].view_proj * (d.world * positions[OAK_VERTEX_INDEX]);
    c = oak_snap(c, vec2(float(OAK_LAMP_SHADOW_FACE)), vec2(0.0));
    gl_Position = c;
    v_draw = uint(OAK_INSTANCE_INDEX);
    oak_gpu_vertex a = attributes[OAK_VERTEX_INDEX];
    v_uv = a.uv;
    v_alpha = a.color.a;
}
