// FXAA on integers, exactly docs/SHADING.md's "FXAA" section, so the bytes
// match the CPU backend's: reads the dithered bytes, writes the picture.
#include "gl_common.glsl"

layout(local_size_x = 8, local_size_y = 8) in;
layout(r32ui, binding = 1) uniform readonly uimage2D oak_ldr;
layout(rgba8, binding = 2) uniform writeonly image2D oak_out;

uint oak_px(ivec2 p) {
    p = clamp(p, ivec2(0), ivec2(oak_v.counts.z - 1, oak_v.counts.w - 1));
    return imageLoad(oak_ldr, p).r;
}

int oak_luma(ivec2 p) {
    uint c = oak_px(p);
    int r = int(c & 255u), g = int((c >> 8) & 255u), b = int((c >> 16) & 255u);
    return (77 * r + 150 * g + 29 * b + 128) >> 8;
}

void main() {
    ivec2 p = ivec2(gl_GlobalInvocationID.xy);
    if (p.x >= oak_v.counts.z || p.y >= oak_v.counts.w) return;
    uint cm = oak_px(p);
    int M = oak_luma(p), N = oak_luma(p + ivec2(0, -1)), S = oak_luma(p + ivec2(0, 1));
    int W = oak_luma(p + ivec2(-1, 0)), E = oak_luma(p + ivec2(1, 0));
    int lmax = max(M, max(max(N, S), max(W, E))), lmin = min(M, min(min(N, S), min(W, E)));
    int range = lmax - lmin;
    vec3 out_rgb = vec3(float(cm & 255u), float((cm >> 8) & 255u), float((cm >> 16) & 255u));
    if (range < 8 || 8 * range < lmax) {
        imageStore(oak_out, p, vec4(out_rgb / 255.0, 1.0));
        return;
    }
    int NW = oak_luma(p + ivec2(-1, -1)), NE = oak_luma(p + ivec2(1, -1));
    int SW = oak_luma(p + ivec2(-1, 1)), SE = oak_luma(p + ivec2(1, 1));
    int Hs = abs(NW - 2 * W + SW) + 2 * abs(N - 2 * M + S) + abs(NE - 2 * E + SE);
    int Vs = abs(NW - 2 * N + NE) + 2 * abs(W - 2 * M + E) + abs(SW - 2 * S + SE);
    bool horizontal = Hs >= Vs;
    ivec2 step_, along;
    int grad, Lo;
    if (horizontal) {
        int g1 = abs(N - M), g2 = abs(S - M);
        if (g1 >= g2) step_ = ivec2(0, -1), grad = g1, Lo = N;
        else step_ = ivec2(0, 1), grad = g2, Lo = S;
        along = ivec2(1, 0);
    } else {
        int g1 = abs(W - M), g2 = abs(E - M);
        if (g1 >= g2) step_ = ivec2(-1, 0), grad = g1, Lo = W;
        else step_ = ivec2(1, 0), grad = g2, Lo = E;
        along = ivec2(0, 1);
    }
    int ref_ = M + Lo;
    int dist[2], endv[2];
    for (int s = 0; s < 2; s++) {
        ivec2 dir = s == 0 ? -along : along;
        dist[s] = 8;
        endv[s] = 0;
        for (int k = 1; k <= 8; k++) {
            ivec2 q = p + dir * k;
            int e = oak_luma(q) + oak_luma(q + step_) - ref_;
            endv[s] = e;
            if (2 * abs(e) >= grad) {
                dist[s] = k;
                break;
            }
        }
    }
    int end_ = dist[0] < dist[1] ? endv[0] : endv[1];
    int dmin = min(dist[0], dist[1]), dsum = dist[0] + dist[1];
    int q_edge = ((end_ < 0) != (M < Lo)) ? 0 : 32 - (128 * dmin + dsum) / (2 * dsum);
    int num = abs(2 * (N + S + W + E) + NW + NE + SW + SE - 12 * M);
    int den = 12 * range;
    int t = min(num, den);
    int s1 = (256 * t) / den;
    int s2 = ((768 - 2 * s1) * s1 * s1) >> 16;
    int q_sub = (48 * s2 * s2 + 32768) >> 16;
    int q = max(q_edge, q_sub);
    uint co = oak_px(p + step_);
    ivec3 C = ivec3(int(cm & 255u), int((cm >> 8) & 255u), int((cm >> 16) & 255u));
    ivec3 Co = ivec3(int(co & 255u), int((co >> 8) & 255u), int((co >> 16) & 255u));
    ivec3 o = (C * (64 - q) + Co * q + 32) >> 6;
    imageStore(oak_out, p, vec4(vec3(o) / 255.0, 1.0));
}
