#version 450
// gtao step 2: view-depth levels 1 .. OAK_GTAO_MIPS - 1, each texel straight
// from its 2^l x 2^l block of level 0: a mean weighted towards the block's
// nearest depth (texels OAK_GTAO_MIP_FALLOFF radii behind it weigh nothing,
// so a silhouette does not blend into what lies behind it). The thread of
// level-1 texel (x, y) also does each higher level whose block starts there.
#extension GL_GOOGLE_include_directive : require
#include "common/gtao.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

void main() {
    uvec2 t = gl_GlobalInvocationID.xy;
    uvec2 s1 = oak_ao_level_size(1);
    if (t.x >= s1.x || t.y >= s1.y) return;
    uint W = view.size.x, H = view.size.y, d0 = oak_ao_level_offset(0);
    float F = float(OAK_GTAO_MIP_FALLOFF) * view.ao_params.x;
    for (int l = 1; l < OAK_GTAO_MIPS; l++) {
        uint m = (1u << uint(l - 1)) - 1u;
        if ((t.x & m) != 0u || (t.y & m) != 0u) break;
        uvec2 tl = t >> uint(l - 1), sl = oak_ao_level_size(l);
        uint x0 = tl.x << uint(l), y0 = tl.y << uint(l);
        uint x1 = min(x0 + (1u << uint(l)), W), y1 = min(y0 + (1u << uint(l)), H);
        float dmin = float(OAK_GTAO_SKY_DEPTH);
        for (uint y = y0; y < y1; y++)
            for (uint x = x0; x < x1; x++) dmin = min(dmin, ao_words[d0 + y * W + x]);
        float sum = 0.0, wsum = 0.0;
        for (uint y = y0; y < y1; y++)
            for (uint x = x0; x < x1; x++) {
                float d = ao_words[d0 + y * W + x];
                float w = clamp(1.0 - (d - dmin) / F, 0.0, 1.0);
                sum += w * d;
                wsum += w;
            }
        ao_words[oak_ao_level_offset(l) + tl.y * sl.x + tl.x] = sum / wsum;
    }
}
