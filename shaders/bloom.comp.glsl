#version 450
// The bloom pass, one step per dispatch (Jimenez 2014): steps 0 .. L-1
// downsample into levels 1 .. L with the 13-tap filter (five overlapping
// 2 x 2 boxes; step 0 reads the HDR frame, clamped, and weights each tap in
// its box by 1 / (1 + exposed luma) so one bright pixel cannot flicker); steps L ..
// 2L-2 make up levels L-1 .. 1 as down + a 3 x 3 tent of the level below.
// backend/cpu/cpu_bloom.c is the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#define OAK_BLOOM_WRITE 1
#include "common/bloom.glsl"
#include "common/exposure.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform readonly image2D hdr;

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_BLOOM_STEP, 0u)
#else
layout(location = 0) uniform uint oak_bloom_step; // GL: set per dispatch
#define OAK_BLOOM_STEP oak_bloom_step
#endif

// the frame's radiance, NaN and negatives as 0, the rest clamped
vec3 hdr_texel(ivec2 p) {
    vec3 c = imageLoad(hdr, p).rgb;
    for (int k = 0; k < 3; k++) c[k] = c[k] >= 0.0 ? min(c[k], float(OAK_BLOOM_MAX)) : 0.0;
    return c;
}

vec3 hdr_bilinear(uvec2 size, vec2 p) {
    vec2 q = p - 0.5;
    vec2 i0 = floor(q);
    vec2 f = q - i0;
    ivec2 hi = ivec2(size) - 1;
    ivec2 a = clamp(ivec2(i0), ivec2(0), hi), b = clamp(ivec2(i0) + 1, ivec2(0), hi);
    vec3 t00 = hdr_texel(a), t10 = hdr_texel(ivec2(b.x, a.y));
    vec3 t01 = hdr_texel(ivec2(a.x, b.y)), t11 = hdr_texel(b);
    vec3 top = t00 + (t10 - t00) * f.x, bot = t01 + (t11 - t01) * f.x;
    return top + (bot - top) * f.y;
}

vec3 tap(uint src_at, uvec2 src, vec2 p) {
    return OAK_BLOOM_STEP == 0u ? hdr_bilinear(src, p) : oak_bloom_bilinear(src_at, src, p);
}

float luma(vec3 c) {
    return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

// four taps' mean; on level 1 weighted by 1 / (1 + exposed luma)
vec3 karis4(vec3 a, vec3 b, vec3 c, vec3 d, float e) {
    if (OAK_BLOOM_STEP != 0u) return (a + b + c + d) * 0.25;
    float wa = 1.0 / (1.0 + luma(a) * e), wb = 1.0 / (1.0 + luma(b) * e);
    float wc = 1.0 / (1.0 + luma(c) * e), wd = 1.0 / (1.0 + luma(d) * e);
    return (a * wa + b * wb + c * wc + d * wd) / (wa + wb + wc + wd);
}

void main() {
    uint step = OAK_BLOOM_STEP;
    bool down = step < uint(OAK_BLOOM_LEVELS);
    uint level = down ? step + 1u : uint(2 * OAK_BLOOM_LEVELS - 1) - step;
    uvec2 size = oak_bloom_size(level);
    uvec2 px = gl_GlobalInvocationID.xy;
    if (px.x >= size.x || px.y >= size.y) return;
    uint at = oak_bloom_offset(level, !down);
    vec3 c;
    if (down) {
        uvec2 src = oak_bloom_size(level - 1u);
        uint src_at = level > 1u ? oak_bloom_offset(level - 1u, false) : 0u;
        vec2 p = (vec2(px) + 0.5) * (vec2(src) / vec2(size));
        // taps A B C / D E / F G H / I J / K L M around p
        vec3 A = tap(src_at, src, p + vec2(-2.0, -2.0)), B = tap(src_at, src, p + vec2(0.0, -2.0));
        vec3 C = tap(src_at, src, p + vec2(2.0, -2.0)), D = tap(src_at, src, p + vec2(-1.0, -1.0));
        vec3 E = tap(src_at, src, p + vec2(1.0, -1.0)), F = tap(src_at, src, p + vec2(-2.0, 0.0));
        vec3 G = tap(src_at, src, p), H = tap(src_at, src, p + vec2(2.0, 0.0));
        vec3 I = tap(src_at, src, p + vec2(-1.0, 1.0)), J = tap(src_at, src, p + vec2(1.0, 1.0));
        vec3 K = tap(src_at, src, p + vec2(-2.0, 2.0)), L = tap(src_at, src, p + vec2(0.0, 2.0));
        vec3 M = tap(src_at, src, p + vec2(2.0, 2.0));
        // step 0: each tap weighted by 1 / (1 + its exposed luma) within its
        // box (Karis), so a lone bright pixel, which falls in one tap of a
        // box, counts about as much as a tap at luma 1 and cannot flicker
        float e = (view.flags.y & OAK_GPU_POST_ADAPT) != 0u ? exposure_state.y : view.sky_zenith.w;
        vec3 box[5];
        box[0] = karis4(D, E, I, J, e);
        box[1] = karis4(A, B, F, G, e);
        box[2] = karis4(B, C, G, H, e);
        box[3] = karis4(F, G, K, L, e);
        box[4] = karis4(G, H, L, M, e);
        c = box[0] * 0.5 + box[1] * 0.125 + box[2] * 0.125 + box[3] * 0.125 + box[4] * 0.125;
    } else {
        uvec2 src = oak_bloom_size(level + 1u);
        uint src_at = oak_bloom_offset(level + 1u, level + 1u < uint(OAK_BLOOM_LEVELS));
        vec2 p = (vec2(px) + 0.5) * (vec2(src) / vec2(size));
        vec3 t = vec3(0.0);
        for (int j = -1; j <= 1; j++)
            for (int i = -1; i <= 1; i++)
                t += oak_bloom_bilinear(src_at, src, p + vec2(float(i), float(j))) *
                     (float((2 - abs(i)) * (2 - abs(j))) * (1.0 / 16.0));
        c = bloom[oak_bloom_offset(level, false) + px.y * size.x + px.x].rgb + t;
    }
    bloom[at + px.y * size.x + px.x] = vec4(c, 1.0);
}
