// Post, per pixel (docs/SHADING.md "Post"): exposure, ACES (or clamp), exact
// sRGB encode, dither to bytes. Writes packed RGBA bytes for FXAA, or the
// final picture directly when FXAA is off.
#include "gl_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(rgba32f, binding = 0) uniform readonly image2D oak_hdr;
layout(r32ui, binding = 1) uniform writeonly uimage2D oak_ldr;
layout(rgba8, binding = 2) uniform writeonly image2D oak_out;

float oak_aces(float x) {
    return clamp((x * (2.51 * x + 0.03)) / (x * (2.43 * x + 0.59) + 0.14), 0.0, 1.0);
}

float oak_srgb_encode(float s) {
    return s < 0.0031308 ? 12.92 * s : 1.055 * pow(s, 1.0 / 2.4) - 0.055;
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    if (px.x >= oak_v.counts.z || px.y >= oak_v.counts.w) return;
    vec3 x = imageLoad(oak_hdr, px).rgb * oak_v.post.x;
    precise float n = fract(52.9829189 * fract(0.06711056 * float(px.x) + 0.00583715 * float(px.y)));
    uvec3 byte;
    for (int c = 0; c < 3; c++) {
        float t = oak_v.post.y != 0.0 ? clamp(x[c], 0.0, 1.0) : oak_aces(x[c]);
        float s = oak_srgb_encode(t);
        float q = oak_v.post.z != 0.0 ? floor(s * 255.0 + 0.5) : floor(s * 255.0 + n);
        byte[c] = uint(clamp(q, 0.0, 255.0));
    }
    if (oak_v.post.w != 0.0)
        imageStore(oak_out, px, vec4(vec3(byte) / 255.0, 1.0));
    else
        imageStore(oak_ldr, px, uvec4(byte.r | (byte.g << 8) | (byte.b << 16) | (255u << 24)));
}
