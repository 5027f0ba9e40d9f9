#version 450
// The depth-of-field pass, one step per dispatch (render/dof.h names them):
// 0 prefilter the frame to half size (2 x 2 mean, the nearest texel's CoC);
// 1 each tile's largest near-field radius; 2 the gather at half size: the
// far and focus field from taps whose blur reaches the pixel (a tap behind
// the pixel blurs no more than the pixel itself, so a sharp object keeps its
// edge), the near field over it with the coverage its taps' discs give;
// 3 the frame mixed toward the gather by its own CoC and the near coverage.
// backend/cpu/cpu_dof.c is the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#include "common/dof.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform image2D hdr;
OAK_BINDING(OAK_B_DEPTH) uniform sampler2D depth;

#ifdef OAK_VULKAN_GLSL
OAK_SPEC_CONST(0, uint, OAK_DOF_STEP, 0u)
#else
layout(location = 0) uniform uint oak_dof_step; // GL: set per dispatch
#define OAK_DOF_STEP oak_dof_step
#endif

void prefilter(uvec2 p) {
    uvec2 h = oak_dof_half();
    if (p.x >= h.x || p.y >= h.y) return;
    ivec2 hi = ivec2(view.out_size.xy) - 1;
    ivec2 q0 = min(ivec2(p * 2u), hi), q1 = min(ivec2(p * 2u) + 1, hi);
    vec3 c00 = oak_dof_clean(imageLoad(hdr, q0).rgb);
    vec3 c10 = oak_dof_clean(imageLoad(hdr, ivec2(q1.x, q0.y)).rgb);
    vec3 c01 = oak_dof_clean(imageLoad(hdr, ivec2(q0.x, q1.y)).rgb);
    vec3 c11 = oak_dof_clean(imageLoad(hdr, q1).rgb);
    float k00 = oak_dof_coc(texelFetch(depth, oak_dof_depth_texel(q0), 0).r);
    float k10 = oak_dof_coc(texelFetch(depth, oak_dof_depth_texel(ivec2(q1.x, q0.y)), 0).r);
    float k01 = oak_dof_coc(texelFetch(depth, oak_dof_depth_texel(ivec2(q0.x, q1.y)), 0).r);
    float k11 = oak_dof_coc(texelFetch(depth, oak_dof_depth_texel(q1), 0).r);
    dof[p.y * h.x + p.x] =
        vec4(((c00 + c10) + (c01 + c11)) * 0.25, min(min(k00, k10), min(k01, k11)));
}

void tiles(uvec2 t) {
    uvec2 n = oak_dof_tiles(), h = oak_dof_half();
    if (t.x >= n.x || t.y >= n.y) return;
    float m = 0.0;
    uint x1 = min((t.x + 1u) * uint(OAK_DOF_TILE), h.x), y1 = min((t.y + 1u) * uint(OAK_DOF_TILE), h.y);
    for (uint y = t.y * uint(OAK_DOF_TILE); y < y1; y++)
        for (uint x = t.x * uint(OAK_DOF_TILE); x < x1; x++) m = max(m, -dof[y * h.x + x].a);
    dof[oak_dof_tiles_at() + t.y * n.x + t.x] = vec4(m, 0.0, 0.0, 0.0);
}

void gather(uvec2 p) {
    uvec2 h = oak_dof_half(), n = oak_dof_tiles();
    if (p.x >= h.x || p.y >= h.y) return;
    vec4 s0 = dof[p.y * h.x + p.x];
    float cc = s0.a, rc = abs(cc);
    // the near field of the tiles around may reach over this pixel
    ivec2 t = ivec2(p / uint(OAK_DOF_TILE));
    float near = 0.0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            ivec2 u = clamp(t + ivec2(dx, dy), ivec2(0), ivec2(n) - 1);
            near = max(near, dof[oak_dof_tiles_at() + uint(u.y) * n.x + uint(u.x)].x);
        }
    float R = min(max(rc, near), view.dof_params.z);
    uint out_at = oak_dof_gathered_at() + p.y * h.x + p.x;
    if (R < 0.5) {
        dof[out_at] = vec4(s0.rgb, 0.0);
        return;
    }
    // the pixel itself: the far and focus field's first sample, or the near field's
    vec3 far_acc = vec3(0.0), near_acc = vec3(0.0);
    float far_w = 0.0, near_w = 0.0;
    float area = R * R / float(OAK_DOF_TAP_COUNT + 1);
    if (cc < 0.0) {
        float w = area / max(cc * cc, 1.0);
        near_acc = s0.rgb * w, near_w = w;
    } else {
        far_acc = s0.rgb, far_w = 1.0;
    }
    ivec2 hi = ivec2(h) - 1;
    // a count the compiler cannot see (dof_params.w is 1 here): llvmpipe
    // and lavapipe would otherwise unroll all the taps and take seconds
    int taps = OAK_DOF_TAP_COUNT * int(view.dof_params.w);
    OAK_DONT_UNROLL for (int i = 0; i < taps; i++) {
        vec4 k = view.dof_taps[i];
        ivec2 o = ivec2(floor(k.x * R + 0.5), floor(k.y * R + 0.5));
        ivec2 q = clamp(ivec2(p) + o, ivec2(0), hi);
        vec4 s = dof[uint(q.y) * h.x + uint(q.x)];
        float dist = k.z * R, ks = abs(s.a);
        if (s.a < 0.0 && s.a < cc) {
            // in front of the pixel: its disc covers it by the share of
            // the gather's area one tap stands for over the disc's area
            float w = clamp(ks - dist + 1.0, 0.0, 1.0) * area / max(s.a * s.a, 1.0);
            near_acc += s.rgb * w, near_w += w;
        } else {
            // behind (or level): it blurs over the pixel no more than the
            // pixel's own circle reaches
            float reach = s.a > cc ? min(ks, rc) : ks;
            float w = clamp(reach - dist + 1.0, 0.0, 1.0);
            far_acc += s.rgb * w, far_w += w;
        }
    }
    vec3 far_c = far_w > 0.0 ? far_acc / far_w : s0.rgb;
    vec3 near_c = near_w > 0.0 ? near_acc / near_w : far_c;
    float alpha = min(near_w, 1.0);
    dof[out_at] = vec4(far_c + (near_c - far_c) * alpha, alpha);
}

void composite(uvec2 px) {
    if (px.x >= view.out_size.x || px.y >= view.out_size.y) return;
    uvec2 h = oak_dof_half();
    // the gathered image bilinear at this pixel's centre (half-size texel units)
    vec2 q = (vec2(px) + 0.5) * 0.5 - 0.5;
    vec2 i0 = floor(q);
    vec2 f = q - i0;
    ivec2 hi = ivec2(h) - 1;
    ivec2 a = clamp(ivec2(i0), ivec2(0), hi), b = clamp(ivec2(i0) + 1, ivec2(0), hi);
    uint g = oak_dof_gathered_at();
    uint i00 = uint(a.y) * h.x + uint(a.x), i10 = uint(a.y) * h.x + uint(b.x);
    uint i01 = uint(b.y) * h.x + uint(a.x), i11 = uint(b.y) * h.x + uint(b.x);
    float kc = oak_dof_coc(texelFetch(depth, oak_dof_depth_texel(ivec2(px)), 0).r), k = abs(kc);
    // bilinear, each texel weighted down as its CoC differs from this
    // pixel's, so a blurred background beside a sharp edge does not take
    // the edge's half-size texels (and the reverse)
    float w00 = (1.0 - f.x) * (1.0 - f.y) / (1.0 + abs(dof[i00].a - kc));
    float w10 = f.x * (1.0 - f.y) / (1.0 + abs(dof[i10].a - kc));
    float w01 = (1.0 - f.x) * f.y / (1.0 + abs(dof[i01].a - kc));
    float w11 = f.x * f.y / (1.0 + abs(dof[i11].a - kc));
    vec4 bl = (dof[g + i00] * w00 + dof[g + i10] * w10 + dof[g + i01] * w01 + dof[g + i11] * w11) /
              (w00 + w10 + w01 + w11);
    // sharp under one half-size pixel of CoC, the gather from two
    float t = max(clamp(k * 2.0 - 1.0, 0.0, 1.0), bl.a);
    vec4 c = imageLoad(hdr, ivec2(px));
    vec3 cl = oak_dof_clean(c.rgb);
    imageStore(hdr, ivec2(px), vec4(cl + (bl.rgb - cl) * t, c.a));
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (OAK_DOF_STEP == 0u)
        prefilter(p);
    else if (OAK_DOF_STEP == 1u)
        tiles(p);
    else if (OAK_DOF_STEP == 2u)
        gather(p);
    else
        composite(p);
}
