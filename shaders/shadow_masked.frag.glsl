#version 450
// Shadow map casters with an alpha cutout: depth only, discarding cut texels.
#extension GL_GOOGLE_include_directive : require
#include "common/mask.glsl"

void main() {
    if (oak_masked_out()) discard;
}
