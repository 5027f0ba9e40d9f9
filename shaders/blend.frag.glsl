#version 450
// BLEND surfaces, forward-shaded over the resolved frame with the same
// function as the resolve (rebuilt from gl_PrimitiveID at the pixel centre);
// the pipeline blends "over" in linear light: src * a + dst * (1 - a).
#extension GL_GOOGLE_include_directive : require
// the forward pass's own: transmission through the opaque frame's copy
// (the resolve never draws it, so its shader does not carry it)
#define OAK_FORWARD 1
#include "common/surface.glsl"

layout(location = 0) flat in uint v_draw;
layout(location = 0) out vec4 o_color;

void main() {
    vec4 c = oak_shade_pixel(v_draw, uint(gl_PrimitiveID), ivec2(gl_FragCoord.xy));
    o_color = vec4(c.rgb, c.a);
}
