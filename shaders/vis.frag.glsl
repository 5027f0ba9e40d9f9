#version 450
// Visibility buffer: writes (draw + 1, triangle) and depth; masked materials
// discard below their cutoff (opaque pipelines skip the test via the mode).
#extension GL_GOOGLE_include_directive : require
#include "common/mask.glsl"

layout(location = 0) out uvec2 o_id;

void main() {
    if (oak_masked_out()) discard;
    o_id = uvec2(v_draw + 1u, uint(gl_PrimitiveID));
}
