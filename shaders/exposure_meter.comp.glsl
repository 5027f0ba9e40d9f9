#version 450
// The exposure pass's histogram: each pixel's luminance bin gets its integer
// centre weight, first in the group's shared counts, then added to the
// buffer's with atomics, so the sum is the same in any order (and the CPU's).
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/exposure.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform readonly image2D hdr;

shared uint group_hist[OAK_METER_BINS];

void main() {
    uint i = gl_LocalInvocationIndex;
    for (uint k = i; k < uint(OAK_METER_BINS); k += uint(OAK_GPU_GROUP * OAK_GPU_GROUP))
        group_hist[k] = 0u;
    barrier();
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    uvec2 size = view.out_size.xy;
    if (px.x < int(size.x) && px.y < int(size.y)) {
        vec3 c = imageLoad(hdr, px).rgb;
        float lum = 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
        atomicAdd(group_hist[oak_meter_bin(lum)], oak_meter_weight(uvec2(px), size));
    }
    barrier();
    for (uint k = i; k < uint(OAK_METER_BINS); k += uint(OAK_GPU_GROUP * OAK_GPU_GROUP))
        if (group_hist[k] != 0u) atomicAdd(exposure_hist[k], group_hist[k]);
}
