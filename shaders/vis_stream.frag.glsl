#version 450
// Visibility buffer for stream instances: their id (x: instance bit and
// record, y: stream and LOD from the vertex shader, the triangle here) and
// depth; masked materials discard below their cutoff as vis.frag does.
#extension GL_GOOGLE_include_directive : require
#define OAK_MASK_MATERIAL v_draw
#include "common/mask.glsl"

layout(location = 3) flat in uvec2 v_id;
layout(location = 0) out uvec2 o_id;

void main() {
    if (oak_masked_out()) discard;
    o_id = uvec2(v_id.x, v_id.y | uint(gl_PrimitiveID));
}
