#version 450
// Sky capture, first half: each thread one texel of the octahedral capture's
// mips (the sky, averaged over the texel's footprint), then, when the head
// asks (the first capture), one texel of the split-sum BRDF table.
#extension GL_GOOGLE_include_directive : require
#define OAK_SKY_WRITE 1
#include "common/sky.glsl"

layout(local_size_x = 64) in;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i < uint(OAK_GPU_SKY_CAPTURE_TEXELS)) {
        oak_sky_capture_texel(i);
        return;
    }
    i -= uint(OAK_GPU_SKY_CAPTURE_TEXELS);
    if (sky[3].w > 0.0 && i < uint(OAK_SKY_BRDF_SIZE * OAK_SKY_BRDF_SIZE)) oak_sky_brdf_texel(i);
}
