#version 450
// gtao step 1: each pixel's view depth and camera-facing view normal from
// its visibility-buffer triangle (the pixel ray meets the triangle's plane);
// the sky gets OAK_GTAO_SKY_DEPTH.
#extension GL_GOOGLE_include_directive : require
#include "common/gtao.glsl"
#include "common/draw.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_BINDING(OAK_B_IDS) uniform usampler2D ids;

vec3 to_view(vec3 Pw) {
    vec4 p = vec4(Pw, 1.0);
    return vec3(dot(view.ao_view_x, p), dot(view.ao_view_y, p), -dot(view.view_depth, p));
}

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    uint W = view.size.x, H = view.size.y;
    if (px.x >= int(W) || px.y >= int(H)) return;
    uint i = uint(px.y) * W + uint(px.x), n = oak_ao_n();
    uint d0 = oak_ao_level_offset(0);
    uvec2 id = texelFetch(ids, px, 0).xy;
    if (id.x == 0u) {
        ao_words[d0 + i] = float(OAK_GTAO_SKY_DEPTH);
        ao_words[2u * n + 3u * i] = 0.0;
        ao_words[2u * n + 3u * i + 1u] = 0.0;
        ao_words[2u * n + 3u * i + 2u] = 1.0;
        return;
    }
    oak_gpu_draw d = oak_fetch_draw(id);
    uint base = d.info.y + oak_id_triangle(id) * 3u;
    vec3 Pv[3];
    for (int k = 0; k < 3; k++) {
        Pv[k] = to_view((d.world * oak_draw_point(d, indices[base + uint(k)], false)).xyz);
    }
    vec3 N = normalize(cross(Pv[1] - Pv[0], Pv[2] - Pv[0]));
    vec2 pc = vec2(px) + 0.5;
    vec3 A = oak_ao_view_pos(pc, 0.0), B = oak_ao_view_pos(pc, 1.0) - A;
    float nb = dot(N, B);
    float z = abs(nb) > 1e-12 ? dot(N, Pv[0] - A) / nb
                              : -(Pv[0].z + Pv[1].z + Pv[2].z) / 3.0; // edge-on: its mean depth
    z = max(z, 0.0);
    vec3 P = A + B * z;
    if (dot(N, oak_ao_view_dir(P)) < 0.0) N = -N;
    ao_words[d0 + i] = z;
    ao_words[2u * n + 3u * i] = N.x;
    ao_words[2u * n + 3u * i + 1u] = N.y;
    ao_words[2u * n + 3u * i + 2u] = N.z;
}
