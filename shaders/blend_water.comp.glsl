#version 450
// Water's BLEND draw, second step (docs/SHADING.md "Water on the GPUs"):
// each pixel blend_water_id.frag kept is shaded by the forward pass's own
// function (oak_shade_pixel, OAK_FORWARD: refraction, reflection, foam,
// glitter) and laid "over" the frame as the blend state does (src * a +
// dst * (1 - a), the frame's alpha kept). Compute, because a GPU's
// fragment units may be few: on the H200 the same shading as a fragment
// shader took 6.1 ms over the meadow's lake. The pixel's slot is cleared
// for the next water draw.
#extension GL_GOOGLE_include_directive : require
#define OAK_FORWARD 1
#include "common/surface.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_IMAGE(OAK_B_HDR, rgba32f) uniform image2D hdr;
OAK_SSBO(OAK_B_CRASTER_DEPTH) buffer WaterIdBlock { uint water_ids[]; };

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    uint W = view.size.x, H = view.size.y;
    if (px.x >= int(W) || px.y >= int(H)) return;
    uint at = uint(px.y) * W + uint(px.x), id = water_ids[at];
    if (id == 0u) return;
    water_ids[at] = 0u;
    vec4 c = oak_shade_pixel(water_ids[W * H], id - 1u, px);
    float a = clamp(c.a, 0.0, 1.0);
    vec4 dst = imageLoad(hdr, px);
    imageStore(hdr, px, vec4(c.rgb * a + dst.rgb * (1.0 - a), dst.a));
}
