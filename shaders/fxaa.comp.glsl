#version 450
// FXAA over the tone-mapped bytes, integer for integer as docs/SHADING.md's
// FXAA section defines it (so every backend writes the same bytes); copies
// the bytes through when the view turns it off.
#extension GL_GOOGLE_include_directive : require
#include "common/bindings.glsl"

layout(local_size_x = OAK_GPU_GROUP, local_size_y = OAK_GPU_GROUP) in;

OAK_SSBO(OAK_B_LDR) readonly buffer LdrBlock { uint ldr[]; };
OAK_SSBO(OAK_B_OUTPUT) writeonly buffer OutBlock { uint outp[]; };

int W, H;

uint pix(ivec2 p) {
    p = clamp(p, ivec2(0), ivec2(W - 1, H - 1));
    return ldr[p.y * W + p.x];
}

int luma(ivec2 p) {
    uint c = pix(p);
    return int((77u * (c & 255u) + 150u * ((c >> 8) & 255u) + 29u * ((c >> 16) & 255u) + 128u) >> 8);
}

void main() {
    ivec2 xy = ivec2(gl_GlobalInvocationID.xy);
    W = int(view.out_size.x);
    H = int(view.out_size.y);
    if (xy.x >= W || xy.y >= H) return;
    uint i = uint(xy.y * W + xy.x);
    uint C = ldr[i];
    if ((view.flags.y & OAK_GPU_POST_NO_FXAA) != 0u) {
        outp[i] = C;
        return;
    }
    int M = luma(xy), N = luma(xy + ivec2(0, -1)), S = luma(xy + ivec2(0, 1));
    int Wl = luma(xy + ivec2(-1, 0)), E = luma(xy + ivec2(1, 0));
    int lmax = max(max(max(M, N), max(S, Wl)), E);
    int lmin = min(min(min(M, N), min(S, Wl)), E);
    int range = lmax - lmin;
    if (range < 8 || 8 * range < lmax) {
        outp[i] = C;
        return;
    }
    int NW = luma(xy + ivec2(-1, -1)), NE = luma(xy + ivec2(1, -1));
    int SW = luma(xy + ivec2(-1, 1)), SE = luma(xy + ivec2(1, 1));
    int Hs = abs(NW - 2 * Wl + SW) + 2 * abs(N - 2 * M + S) + abs(NE - 2 * E + SE);
    int Vs = abs(NW - 2 * N + NE) + 2 * abs(Wl - 2 * M + E) + abs(SW - 2 * S + SE);
    bool horizontal = Hs >= Vs;
    ivec2 step_, along;
    int grad, Lo;
    if (horizontal) {
        int g1 = abs(N - M), g2 = abs(S - M);
        if (g1 >= g2) { step_ = ivec2(0, -1); grad = g1; Lo = N; }
        else { step_ = ivec2(0, 1); grad = g2; Lo = S; }
        along = ivec2(1, 0);
    } else {
        int g1 = abs(Wl - M), g2 = abs(E - M);
        if (g1 >= g2) { step_ = ivec2(-1, 0); grad = g1; Lo = Wl; }
        else { step_ = ivec2(1, 0); grad = g2; Lo = E; }
        along = ivec2(0, 1);
    }
    int ref = M + Lo;
    int dist[2], endv[2];
    for (int s = 0; s < 2; s++) {
        ivec2 dir = s == 0 ? -along : along;
        dist[s] = 8;
        endv[s] = 0;
        for (int k = 1; k <= 8; k++) {
            ivec2 q = xy + dir * k;
            int e = luma(q) + luma(q + step_) - ref;
            endv[s] = e;
            if (2 * abs(e) >= grad) {
                dist[s] = k;
                break;
            }
        }
    }
    int endsel = dist[0] < dist[1] ? endv[0] : endv[1];
    int dmin = min(dist[0], dist[1]), dsum = dist[0] + dist[1];
    int q_edge = ((endsel < 0) != (M < Lo)) ? 0 : 32 - (128 * dmin + dsum) / (2 * dsum);
    int num = abs(2 * (N + S + Wl + E) + NW + NE + SW + SE - 12 * M);
    int den = 12 * range;
    int t = min(num, den);
    int s1 = (256 * t) / den;
    int s2 = ((768 - 2 * s1) * s1 * s1) >> 16;
    int q_sub = (48 * s2 * s2 + 32768) >> 16;
    int q = max(q_edge, q_sub);
    uint Co = pix(xy + step_);
    uint o = 0xff000000u;
    for (int c = 0; c < 3; c++) {
        int a = int((C >> (8 * c)) & 255u), b = int((Co >> (8 * c)) & 255u);
        o |= uint((a * (64 - q) + b * q + 32) >> 6) << (8 * c);
    }
    outp[i] = o;
}
