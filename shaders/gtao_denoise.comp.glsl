#version 450
// gtao step 4: the edge-aware spatial denoise: the raw AO averaged over the
// 5 x 5 pixels around, each neighbour weighted by how near it lies to this
// pixel's plane (nothing past OAK_GTAO_PLANE_TOL of the view depth), which
// also averages the 4 x 4 pattern's 16 turns; then the exponent.
#extension GL_GOOGLE_include_directive : require
#include "common/gtao.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

void main() {
    ivec2 px = ivec2(gl_GlobalInvocationID.xy);
    int W = int(view.size.x), H = int(view.size.y);
    if (px.x >= W || px.y >= H) return;
    uint i = uint(px.y * W + px.x), n = oak_ao_n(), d0 = oak_ao_level_offset(0);
    float z = ao_words[d0 + i];
    if (z >= float(OAK_GTAO_SKY_DEPTH)) {
        ao_words[i] = 1.0;
        return;
    }
    vec3 P = oak_ao_view_pos(vec2(px) + 0.5, z);
    vec3 N = vec3(ao_words[2u * n + 3u * i], ao_words[2u * n + 3u * i + 1u],
                  ao_words[2u * n + 3u * i + 2u]);
    float tol = 1.0 / (float(OAK_GTAO_PLANE_TOL) * z);
    float sum = ao_words[n + i], wsum = 1.0;
    const int K = OAK_GTAO_DENOISE;
    for (int dy = -K; dy <= K; dy++)
        for (int dx = -K; dx <= K; dx++) {
            ivec2 q = px + ivec2(dx, dy);
            if ((dx == 0 && dy == 0) || q.x < 0 || q.y < 0 || q.x >= W || q.y >= H) continue;
            uint j = uint(q.y * W + q.x);
            float zq = ao_words[d0 + j];
            if (zq >= float(OAK_GTAO_SKY_DEPTH)) continue;
            float pd = abs(dot(N, oak_ao_view_pos(vec2(q) + 0.5, zq) - P));
            float w = clamp(1.0 - pd * tol, 0.0, 1.0);
            sum += w * ao_words[n + j];
            wsum += w;
        }
    ao_words[i] = pow(clamp(sum / wsum, 0.0, 1.0), view.ao_params.y);
}
