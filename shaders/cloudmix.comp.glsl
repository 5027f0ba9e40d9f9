#version 450
// The cloudmix pass: the clouds' march (clouds.comp) upsampled to the frame
// by depth and laid over it, frame * transmittance + light, the clouds' light
// first seen through the air (aerial perspective) at their mean distance.
// backend/cpu/cpu_pass_clouds.c (mix_rows, render/clouds.c _oak_clouds_air)
// is the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#include "common/clouds.glsl"
#include "common/aerial.glsl"

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
    float wsum = 0.0, dsum = 0.0, dw = 0.0;
    // this frame's slot (by parity: clouds.comp wrote it), its distances after it
    uint at = uint(OAK_GPU_CLOUD_MARCH_AT) + 2u * view.clouds.steps.z * n.x * n.y;
    uint nn = n.x * n.y;
    OAK_DONT_UNROLL for (int q = 0; q < 4; q++) {
        ivec2 t = clamp(b + ivec2(q & 1, q >> 1), ivec2(0), ivec2(n) - 1);
        float w = ((q & 1) != 0 ? f.x : 1.0 - f.x) * ((q >> 1) != 0 ? f.y : 1.0 - f.y);
        float dt = texelFetch(depth, march_pixel(uvec2(t)), 0).r;
        float gap = abs(dt - d) / max(max(dt, d), 1e-30);
        w *= gap <= OAK_CLOUD_DEPTH_EDGE ? 1.0 : 1e-3;
        uint i = at + uint(t.y) * n.x + uint(t.x);
        vec4 m = clouds[i];
        sum += m * w;
        wsum += w;
        // the texel's mean distance, weighed by the light its clouds stop
        float o = w * (1.0 - m.a);
        dsum += clouds[i + nn].x * o;
        dw += o;
    }
    vec4 c = sum / max(wsum, 1e-30);
    // the air between the eye and the clouds (render/clouds.c _oak_clouds_air):
    // their light through its transmittance, and the air's own light over the
    // share of the view they cover
    if ((view.flags.y & OAK_GPU_AERIAL) != 0u && dw > 0.0) {
        float D = dsum / dw;
        vec4 air = oak_aerial_lookup((float(px.x) + 0.5) / float(view.size.x),
                                     (float(px.y) + 0.5) / float(view.size.y),
                                     float(OAK_GPU_AERIAL_GRID) * sqrt(clamp(D / OAK_GPU_AERIAL_FAR_M, 0.0, 1.0)));
        c.rgb = c.rgb * air.a + air.rgb * (1.0 - c.a);
    }
    vec4 o = imageLoad(hdr, px);
    imageStore(hdr, px, vec4(o.rgb * c.a + c.rgb, o.a));
}

