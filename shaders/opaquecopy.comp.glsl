#version 450
// The opaque frame's copy, one step per dispatch: step 0 copies the lit
// HDR frame (sky included) into level 0; step l makes level l, each texel
// the mean of the 2 x 2 texels of level l - 1 above it, coordinates clamped
// (render/opaque_copy.h and backend/cpu/cpu_pass_opaquecopy.c are the same).
#extension GL_GOOGLE_include_directive : require
#define OAK_OPAQUE_WRITE 1
#include "common/opaque.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform readonly image2D hdr;
OAK_BINDING(OAK_B_DEPTH) uniform sampler2D depth; // level 0's w: water's reflections march it

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_OPAQUE_STEP, 0u)
#else
layout(location = 0) uniform uint oak_opaque_step; // GL: set per dispatch
#define OAK_OPAQUE_STEP oak_opaque_step
#endif

void main() {
    uint level = OAK_OPAQUE_STEP;
    uvec2 s = oak_opaque_size(level);
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= s.x || p.y >= s.y) return;
    uint at = oak_opaque_offset(level) + p.y * s.x + p.x;
    if (level == 0u) {
        opaque_texels[at] = vec4(imageLoad(hdr, ivec2(p)).rgb, texelFetch(depth, ivec2(p), 0).r);
        return;
    }
    uvec2 u = oak_opaque_size(level - 1u);
    uint from = oak_opaque_offset(level - 1u);
    uint x0 = 2u * p.x, y0 = 2u * p.y;
    uint x1 = min(x0 + 1u, u.x - 1u), y1 = min(y0 + 1u, u.y - 1u);
    vec3 a = opaque_texels[from + y0 * u.x + x0].rgb, b = opaque_texels[from + y0 * u.x + x1].rgb;
    vec3 c = opaque_texels[from + y1 * u.x + x0].rgb, d = opaque_texels[from + y1 * u.x + x1].rgb;
    opaque_texels[at] = vec4((a + b + c + d) * 0.25, 0.0);
}
