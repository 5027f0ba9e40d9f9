#version 450
// Sky capture, second half: each thread one texel of the irradiance map
// (cosine convolution of the capture's 16-texel mip) or of a GGX-prefiltered
// level (filtered importance sampling of the capture's mips).
#extension GL_GOOGLE_include_directive : require
#define OAK_SKY_WRITE 1
#include "common/sky.glsl"

layout(local_size_x = 64) in;

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= uint(OAK_GPU_SKY_FILTER_TEXELS)) return;
    if (i < uint(OAK_SKY_IRRADIANCE_SIZE * OAK_SKY_IRRADIANCE_SIZE))
        oak_sky_irradiance_texel(i);
    else
        oak_sky_specular_texel(i - uint(OAK_SKY_IRRADIANCE_SIZE * OAK_SKY_IRRADIANCE_SIZE));
}
