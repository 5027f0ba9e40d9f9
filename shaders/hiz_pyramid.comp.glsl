#version 450
// Two-pass Hi-Z's depth pyramid (docs/ARCHITECTURE.md "Occlusion culling"),
// one level per dispatch (step OAK_GPU_HIZ_STEP_LEVEL + k): each texel the
// minimum (reversed-Z: the farthest) of 2 x 2 texels of level k - 1, or of
// pass 1's depth for level 0; reads clamped to the edges, so an odd size
// drops no texel. Its own file: only it samples the depth, which is an
// attachment while hiz_cull.comp runs.
#extension GL_GOOGLE_include_directive : require
#include "common/hiz.glsl"

layout(local_size_x = 64) in;

OAK_BINDING(OAK_B_DEPTH) uniform sampler2D depth;

void main() {
    uint k = OAK_HIZ_STEP - OAK_GPU_HIZ_STEP_LEVEL;
    uvec3 L = level_of(k);
    uint i = gl_GlobalInvocationID.x;
    if (i >= L.x * L.y) return;
    uint x = i % L.x, y = i / L.x;
    float m;
    if (k == 0u) {
        ivec2 last = ivec2(hw[H_SIZE] - 1u, hw[H_SIZE + 1u] - 1u);
        ivec2 a = min(ivec2(2u * x, 2u * y), last), b = min(a + 1, last);
        m = min(min(texelFetch(depth, a, 0).r, texelFetch(depth, ivec2(b.x, a.y), 0).r),
                min(texelFetch(depth, ivec2(a.x, b.y), 0).r, texelFetch(depth, b, 0).r));
    } else {
        uvec3 P = level_of(k - 1u);
        m = min(min(level_texel(P, 2u * x, 2u * y), level_texel(P, 2u * x + 1u, 2u * y)),
                min(level_texel(P, 2u * x, 2u * y + 1u), level_texel(P, 2u * x + 1u, 2u * y + 1u)));
    }
    keep[L.z + i] = floatBitsToUint(m);
}
