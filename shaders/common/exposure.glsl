// Eye adaptation on the GPU: the same arithmetic as render/exposure_adapt.c
// (bins, centre weights, meter, night-keeping target, asymmetric step), in
// float where the C works in double, and the buffer both kernels and post
// share (OAK_B_EXPOSURE, laid out as oak_gpu.h's OAK_GPU_EXPOSURE_* say).
#ifndef OAK_EXPOSURE_GLSL
#define OAK_EXPOSURE_GLSL

#include "common/oak_gpu.h"

OAK_SSBO(OAK_B_EXPOSURE) buffer ExposureBlock {
    vec4 exposure_state; // EV100 now, post's multiplier, metered EV100, target
    uint exposure_hist[OAK_METER_BINS];
};

const float OAK_METER_BIN_WIDTH =
    float(OAK_METER_LOG_MAX - OAK_METER_LOG_MIN) / float(OAK_METER_BINS - 1);

// _oak_meter_bin: 0 for black (and NaN), else 1 + floor of the bin position
uint oak_meter_bin(float lum) {
    if (!(lum > 0.0)) return 0u;
    float t = (log2(lum) - float(OAK_METER_LOG_MIN)) / OAK_METER_BIN_WIDTH;
    if (t < 0.0) return 0u;
    if (t >= float(OAK_METER_BINS - 2)) return uint(OAK_METER_BINS - 1);
    return 1u + uint(t);
}

// _oak_meter_weight: pixel centres against the centre ellipse, exactly, in
// 64-bit products made of 32-bit halves (dx^2 b^2 + dy^2 a^2 <= a^2 b^2)
uint oak_meter_weight(uvec2 p, uvec2 size) {
    int dx = 2 * int(p.x) + 1 - int(size.x), dy = 2 * int(p.y) + 1 - int(size.y);
    uint a = size.x > 1u ? size.x / 2u : 1u, b = size.y > 1u ? size.y / 2u : 1u;
    uint a2 = a * a, b2 = b * b;
    uint h1, l1, h2, l2, rh, rl, carry;
    umulExtended(uint(dx * dx), b2, h1, l1);
    umulExtended(uint(dy * dy), a2, h2, l2);
    uint lo = uaddCarry(l1, l2, carry);
    uint hi = h1 + h2 + carry;
    umulExtended(a2, b2, rh, rl);
    bool inside = hi < rh || (hi == rh && lo <= rl);
    return inside ? uint(OAK_METER_CENTRE_WEIGHT) : 1u;
}

// _oak_meter_bin's centre in log2 cd/m^2 (bin i >= 1)
float oak_meter_centre(uint i) {
    return float(OAK_METER_LOG_MIN) + (float(i) - 0.5) * OAK_METER_BIN_WIDTH;
}

// _oak_adapt_target: below OAK_ADAPT_NIGHT_EV only part of the drop
float oak_adapt_target(float metered) {
    float t = metered;
    if (t < float(OAK_ADAPT_NIGHT_EV))
        t = float(OAK_ADAPT_NIGHT_EV) - (float(OAK_ADAPT_NIGHT_EV) - t) * float(OAK_ADAPT_NIGHT_KEEP);
    if (!(t >= float(OAK_ADAPT_EV_MIN))) t = float(OAK_ADAPT_EV_MIN);
    if (t > float(OAK_ADAPT_EV_MAX)) t = float(OAK_ADAPT_EV_MAX);
    return t;
}

// _oak_adapt_step: faster while the scene brightens (EV100 rising)
float oak_adapt_step(float current, float target, float dt) {
    float tau = target > current ? float(OAK_ADAPT_DOWN_S) : float(OAK_ADAPT_UP_S);
    float k = dt > 0.0 ? 1.0 - exp(-dt / tau) : 0.0;
    return current + (target - current) * k;
}

#endif
