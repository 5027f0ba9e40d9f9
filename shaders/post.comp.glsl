#version 450
// Post in linear light, then to bytes: the bloom pass's pyramid mixed in,
// exposure (fixed, or the exposure pass's adapted camera), ACES (Narkowicz),
// Khronos PBR Neutral or a clamp, exact sRGB encode and the contract's
// half-step dither (or rounding).
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"
#include "common/exposure.glsl"
#include "common/bloom.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform readonly image2D hdr;
OAK_SSBO(OAK_B_LDR) writeonly buffer LdrBlock { uint ldr[]; };

float oak_srgb_encode(float c) {
    return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

float oak_aces(float x) {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

// Khronos PBR Neutral on the whole colour (cpu_post.c's _oak_tone_neutral).
vec3 oak_neutral(vec3 c) {
    const float start = 0.8 - 0.04, desat = 0.15, d = 1.0 - start;
    c = max(c, vec3(0.0));
    float x = min(c.r, min(c.g, c.b));
    float offset = x < 0.08 ? x - 6.25 * x * x : 0.04;
    c -= offset;
    float peak = max(c.r, max(c.g, c.b));
    if (peak < start) return c;
    float new_peak = 1.0 - d * d / (peak + d - start);
    float g = 1.0 - 1.0 / (desat * (peak - new_peak) + 1.0);
    vec3 v = c * (new_peak / peak);
    return clamp(v + (vec3(new_peak) - v) * g, 0.0, 1.0);
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    uint W = view.out_size.x, H = view.out_size.y;
    if (px.x >= int(W) || px.y >= int(H)) return;
    uint bits = view.flags.y;
    // the fixed camera's multiplier, or the one the exposure pass steered to
    float e = (bits & OAK_GPU_POST_ADAPT) != 0u ? exposure_state.y : view.sky_zenith.w;
    vec3 c = imageLoad(hdr, px).rgb;
    // the bloom pass's pyramid mixed in, before exposure and the curve
    float strength = view.post_params.x;
    if (strength > 0.0) c = c + (oak_bloom_at(px) - c) * strength;
    vec3 x = c * e;
    float n = fract(52.9829189 * fract(0.06711056 * float(px.x) + 0.00583715 * float(px.y)));
    uint rgba = 0xff000000u; // not `packed`: a reserved word in desktop GLSL
    bool neutral = (bits & (OAK_GPU_POST_NO_TONEMAP | OAK_GPU_POST_TONE_NEUTRAL)) ==
                   OAK_GPU_POST_TONE_NEUTRAL;
    vec3 tn = neutral ? oak_neutral(x) : vec3(0.0);
    for (int c = 0; c < 3; c++) {
        float v = neutral ? tn[c]
                  : (bits & OAK_GPU_POST_NO_TONEMAP) != 0u ? clamp(x[c], 0.0, 1.0)
                                                           : oak_aces(x[c]);
        float s = oak_srgb_encode(v);
        float byte_ = (bits & OAK_GPU_POST_NO_DITHER) != 0u ? floor(s * 255.0 + 0.5)
                                                          : clamp(floor(s * 255.0 + n), 0.0, 255.0);
        rgba |= uint(byte_) << (8 * c);
    }
    ldr[uint(px.y) * W + uint(px.x)] = rgba;
}
