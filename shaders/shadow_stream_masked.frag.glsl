#version 450
// Stream casters with an alpha cutout (shadow_stream.vert passes the
// stream's material slot): depth only, discarding cut texels.
#extension GL_GOOGLE_include_directive : require
#define OAK_MASK_MATERIAL v_draw
#include "common/mask.glsl"

void main() {
    if (oak_masked_out()) discard;
}
