#version 450
// The ssr pass: each mirror pixel the resolve marked (a puddle) marches its
// reflected ray on screen against the depth (common/ssr.glsl); on a hit the
// hit pixel's colour replaces the reflection the resolve gave it, by its
// split-sum weight and the hit's fade, in place. A hit on another mirror
// counts as a miss, so no pixel reads one this pass writes.
// backend/cpu/cpu_pass_ssr.c is the same arithmetic.
#extension GL_GOOGLE_include_directive : require
#define OAK_SSR_READ 1
#include "common/bindings.glsl"
OAK_BINDING(OAK_B_DEPTH) uniform sampler2D depth;
#define OAK_SSR_DEPTH(q) texelFetch(depth, q, 0).r
#include "common/ssr.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform image2D hdr;

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= view.size.x || p.y >= view.size.y) return;
    uint i = p.y * view.size.x + p.x;
    vec4 w = ssr_texels[2u * i];
    if (w.rgb == vec3(0.0)) return;
    vec4 r = ssr_texels[2u * i + 1u];
    ivec2 px = ivec2(p), hit;
    float fade;
    if (!oak_ssr_march(px, texelFetch(depth, px, 0).r, oak_ssr_unoct(vec2(w.w, r.w)), hit, fade))
        return;
    uint j = uint(hit.y) * view.size.x + uint(hit.x);
    if (ssr_texels[2u * j].rgb != vec3(0.0)) return; // another mirror: this pass may change it
    vec3 c = imageLoad(hdr, hit).rgb;
    imageStore(hdr, px, vec4(imageLoad(hdr, px).rgb + w.rgb * fade * (c - r.rgb), 1.0));
}
