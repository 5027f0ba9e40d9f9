#version 450
// The cloudmix pass: the clouds' march (clouds.comp) upsampled to the frame
// by depth and laid over it, frame * transmittance + light. render/clouds.c
// (_oak_clouds_mix_pixel) is the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#include "common/clouds.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform image2D hdr;
OAK_BINDING(OAK_B_DEPTH) uniform sampler2D depth;

// the full-size pixel a march texel stands for
ivec2 march_pixel(uvec2 t) {
    uint k = view.clouds.steps.x;
    return min(ivec2(t * k + k / 2u), ivec2(view.size.xy) - 1);
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= view.size.x || p.y >= view.size.y) return;
    ivec2 px = ivec2(p);
    uvec2 n = view.clouds.size.xy;
    float k = float(view.clouds.steps.x);
    float d = texelFetch(depth, px, 0).r;
    // the march texels around the pixel, bilinear, each kept only where its
    // own pixel's depth is within OAK_CLOUD_DEPTH_EDGE of this one's
    vec2 u = (vec2(px) + 0.5) / k - 0.5;
    vec2 fl = floor(u);
    vec2 f = u - fl;
    ivec2 b = ivec2(fl);
    vec4 sum = vec4(0.0);
    float wsum = 0.0;
    // this frame's slot (by parity: clouds.comp wrote it)
    uint at = uint(OAK_GPU_CLOUD_MARCH_AT) + 2u * view.clouds.steps.z * n.x * n.y;
    OAK_DONT_UNROLL for (int q = 0; q < 4; q++) {
        ivec2 t = clamp(b + ivec2(q & 1, q >> 1), ivec2(0), ivec2(n) - 1);
        float w = ((q & 1) != 0 ? f.x : 1.0 - f.x) * ((q >> 1) != 0 ? f.y : 1.0 - f.y);
        float dt = texelFetch(depth, march_pixel(uvec2(t)), 0).r;
        float gap = abs(dt - d) / max(max(dt, d), 1e-30);
        w *= gap <= OAK_CLOUD_DEPTH_EDGE ? 1.0 : 1e-3;
        sum += clouds[at + uint(t.y) * n.x + uint(t.x)] * w;
        wsum += w;
    }
    vec4 c = sum / max(wsum, 1e-30);
    vec4 o = imageLoad(hdr, px);
    imageStore(hdr, px, vec4(o.rgb * c.a + c.rgb, o.a));
}

