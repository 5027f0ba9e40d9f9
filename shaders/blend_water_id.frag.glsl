#version 450
// Water's BLEND draw, first step (docs/SHADING.md "Water on the GPUs"):
// the rasterizer finds the water's pixels in front of the opaque depth and
// this keeps, per pixel, the last triangle in draw order that blend.frag
// would have drawn over it; blend_water.comp then shades those pixels in
// compute. Water leaves alpha 1 (it replaces the frame with its refraction
// and reflection), so the last triangle drawn is the one the forward pass
// shows. A side that draws nothing (oak_water_hidden_side) is skipped, as
// blend.frag's alpha 0 leaves the frame. The colour written is 0 with alpha
// 0, which the blend state keeps the frame under exactly.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/water_side.glsl"

// stores only for pixels that pass the depth test
layout(early_fragment_tests) in;

layout(location = 0) flat in uint v_draw;
layout(location = 0) out vec4 o_color;

// per pixel the triangle + 1 (0: none), then the draw's record at W x H
OAK_SSBO(OAK_B_CRASTER_DEPTH) buffer WaterIdBlock { uint water_ids[]; };

void main() {
    o_color = vec4(0.0);
    uint mflags = uint(materials[draws[v_draw].info.x].mode.y);
    if (oak_water_hidden_side(mflags, !gl_FrontFacing)) return;
    uint W = view.size.x;
    atomicMax(water_ids[uint(gl_FragCoord.y) * W + uint(gl_FragCoord.x)], uint(gl_PrimitiveID) + 1u);
    water_ids[W * view.size.y] = v_draw;
}
