#version 450
// Shadow atlas raster: each caster record is projected with its cascade's
// matrix (casters come cascade by cascade; shadow_first says where each
// starts), snapped to 1/16 texel as the CPU rasterizer does, and placed in
// that cascade's tile of the 2 x 2 atlas, clip distances keeping it there.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#define OAK_SNAP_CASCADE_TILE
#include "common/snap.glsl"

OAK_VERTEX_INPUTS

layout(location = 0) flat out uint v_draw;
layout(location = 1) out vec4 v_uv;    // uv0, uv1 (masked casters)
layout(location = 2) out float v_alpha; // vertex colour alpha

void main() {
    oak_gpu_draw d = draws[OAK_INSTANCE_INDEX];
    uint idx = uint(OAK_INSTANCE_INDEX);
    int cascade = int(idx >= view.shadow_first.y) + int(idx >= view.shadow_first.z) +
                  int(idx >= view.shadow_first.w);
    vec4 c = view.shadow_view_proj[cascade] * (d.world * positions[OAK_VERTEX_INDEX]);
    c = oak_cascade_tile(c, cascade);
    gl_Position = c;
    v_draw = uint(OAK_INSTANCE_INDEX);
    oak_gpu_vertex a = attributes[OAK_VERTEX_INDEX];
    v_uv = a.uv;
    v_alpha = a.color.a;
}
