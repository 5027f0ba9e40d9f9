// Volumetric clouds in GLSL (docs/SHADING.md "Volumetric clouds"):
// render/clouds.c is the C of the same, operation for operation. The
// noise table's bake, the density (weather map's cover and type, height
// gradient by the type there, shape,
// erosion), the light toward the key light (Beer's law over a few steps,
// two Henyey-Greenstein lobes, multiple-scattering octaves, powder) and the
// shadow map's read. Layout of OAK_B_CLOUDS: OAK_GPU_CLOUD_* in oak_gpu.h.
// A pass that writes the buffer defines OAK_CLOUDS_WRITE first.
#ifndef OAK_CLOUDS_GLSL
#define OAK_CLOUDS_GLSL

#include "common/cloud_shadow.glsl"
#include "common/hash.glsl"


#define OAK_CLOUD_PI 3.14159265358979323846

// the field's offset by the wind (the sky capture marches in the field's
// own frame and defines it as 0)
#ifndef OAK_CLOUD_DRIFT
#define OAK_CLOUD_DRIFT view.clouds.layer.zw
#endif

// one integer hash (lowbias32) of a lattice point and a seed
uint oak_cloud_hash(ivec3 p, uint seed) {
    uint h = uint(p.x) * 0x8da6b343u ^ uint(p.y) * 0xd8163841u ^ uint(p.z) * 0xcb1ab31fu ^
             seed * 0x9e3779b9u;
    return oak_lowbias32(h);
}

float oak_cloud_unit(uint h) { return float(h >> 8) * (1.0 / 16777216.0); }

float oak_cloud_sat(float x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; }

// ---- the noise table (baked once) ---------------------------------------

// Perlin's gradient noise on a lattice that repeats every `period` cells
float oak_cloud_perlin(vec3 q, int period) {
    vec3 fl = floor(q);
    ivec3 i = ivec3(fl);
    vec3 f = q - fl;
    vec3 u = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    float c[8];
    OAK_DONT_UNROLL for (int n = 0; n < 8; n++) {
        ivec3 o = ivec3(n & 1, (n >> 1) & 1, n >> 2);
        uint h = oak_cloud_hash((i + o) & (period - 1), 3u) & 15u;
        vec3 d = f - vec3(o);
        float a = h < 8u ? d.x : d.y;
        float b = h < 4u ? d.y : (h == 12u || h == 14u ? d.x : d.z);
        c[n] = ((h & 1u) == 0u ? a : -a) + ((h & 2u) == 0u ? b : -b);
    }
    float x0 = c[0] + (c[1] - c[0]) * u.x, x1 = c[2] + (c[3] - c[2]) * u.x;
    float x2 = c[4] + (c[5] - c[4]) * u.x, x3 = c[6] + (c[7] - c[6]) * u.x;
    float y0 = x0 + (x1 - x0) * u.y, y1 = x2 + (x3 - x2) * u.y;
    return y0 + (y1 - y0) * u.z;
}

// 1 - the distance to the nearest feature point (one per cell), cells
// repeating every `period`; 1 at a point, 0 a cell away
float oak_cloud_worley(vec3 q, int period) {
    vec3 fl = floor(q);
    ivec3 i = ivec3(fl);
    float best = 1.0;
    OAK_DONT_UNROLL for (int n = 0; n < 27; n++) {
        ivec3 o = ivec3(n % 3 - 1, (n / 3) % 3 - 1, n / 9 - 1);
        ivec3 cell = (i + o) & (period - 1);
        vec3 pt = vec3(i + o) + vec3(oak_cloud_unit(oak_cloud_hash(cell, 5u)),
                                     oak_cloud_unit(oak_cloud_hash(cell, 6u)),
                                     oak_cloud_unit(oak_cloud_hash(cell, 7u)));
        vec3 d = pt - q;
        best = min(best, dot(d, d));
    }
    return 1.0 - oak_cloud_sat(sqrt(best));
}

// texel i of the table: x Perlin-Worley (Perlin fbm dilated by Worley fbm),
// y Worley fbm, z Perlin fbm, w 0
vec4 oak_cloud_noise_texel(uint i) {
    uint N = uint(OAK_CLOUD_NOISE_SIZE);
    vec3 q = (vec3(float(i % N), float((i / N) % N), float(i / (N * N))) + 0.5) / float(N);
    float p = oak_cloud_perlin(q * 4.0, 4) + 0.5 * oak_cloud_perlin(q * 8.0, 8) +
              0.25 * oak_cloud_perlin(q * 16.0, 16);
    float p01 = oak_cloud_sat(0.5 + p);
    float w = 0.625 * oak_cloud_worley(q * 4.0, 4) + 0.25 * oak_cloud_worley(q * 8.0, 8) +
              0.125 * oak_cloud_worley(q * 16.0, 16);
    float pw = oak_cloud_sat((p01 - (w - 1.0)) / (2.0 - w));
    return vec4(pw, w, p01, 0.0);
}

// the table at p (in table periods), trilinear, wrapping
vec4 oak_cloud_noise(vec3 p) {
    int N = OAK_CLOUD_NOISE_SIZE;
    vec3 u = p * float(N) - 0.5;
    vec3 fl = floor(u);
    vec3 f = u - fl;
    ivec3 i0 = ivec3(fl) & (N - 1), i1 = (i0 + 1) & (N - 1);
    uint at = uint(OAK_GPU_CLOUD_NOISE_AT);
    vec4 c000 = clouds[at + uint((i0.z * N + i0.y) * N + i0.x)];
    vec4 c100 = clouds[at + uint((i0.z * N + i0.y) * N + i1.x)];
    vec4 c010 = clouds[at + uint((i0.z * N + i1.y) * N + i0.x)];
    vec4 c110 = clouds[at + uint((i0.z * N + i1.y) * N + i1.x)];
    vec4 c001 = clouds[at + uint((i1.z * N + i0.y) * N + i0.x)];
    vec4 c101 = clouds[at + uint((i1.z * N + i0.y) * N + i1.x)];
    vec4 c011 = clouds[at + uint((i1.z * N + i1.y) * N + i0.x)];
    vec4 c111 = clouds[at + uint((i1.z * N + i1.y) * N + i1.x)];
    vec4 x0 = c000 + (c100 - c000) * f.x, x1 = c010 + (c110 - c010) * f.x;
    vec4 x2 = c001 + (c101 - c001) * f.x, x3 = c011 + (c111 - c011) * f.x;
    vec4 y0 = x0 + (x1 - x0) * f.y, y1 = x2 + (x3 - x2) * f.y;
    return y0 + (y1 - y0) * f.z;
}

// ---- density --------------------------------------------------------------

// smooth value noise over world XZ (cells of 1)
float oak_cloud_value(vec2 p, uint seed) {
    vec2 fl = floor(p);
    ivec2 i = ivec2(fl);
    vec2 f = p - fl;
    f = f * f * (3.0 - 2.0 * f);
    float a = oak_cloud_unit(oak_cloud_hash(ivec3(i, 0), seed));
    float b = oak_cloud_unit(oak_cloud_hash(ivec3(i.x + 1, i.y, 0), seed));
    float c = oak_cloud_unit(oak_cloud_hash(ivec3(i.x, i.y + 1, 0), seed));
    float d = oak_cloud_unit(oak_cloud_hash(ivec3(i.x + 1, i.y + 1, 0), seed));
    float x0 = a + (b - a) * f.x, x1 = c + (d - c) * f.x;
    return x0 + (x1 - x0) * f.y;
}

// the weather map's cover at (drifted) world XZ, before the coverage
float oak_cloud_weather(vec2 q) {
    vec2 p = q * (1.0 / OAK_CLOUD_WEATHER_CELL);
    return 0.65 * oak_cloud_value(p, 1u) + 0.35 * oak_cloud_value(p * 2.0, 2u);
}

// the weather map's type at (drifted) world XZ: the layer's type (shape.y)
// moved by up to light.w either way by the type channel's own noise (cells
// OAK_CLOUD_TYPE_CELL across, seeds apart from the cover's), clamped to
// [0, 1]; light.w 0: the layer's type everywhere
float oak_cloud_type(vec2 q) {
    float t = view.clouds.shape.y, v = view.clouds.light.w;
    if (!(v > 0.0)) return t;
    vec2 p = q * (1.0 / OAK_CLOUD_TYPE_CELL);
    float n = 0.65 * oak_cloud_value(p, 11u) + 0.35 * oak_cloud_value(p * 2.0, 12u);
    return oak_cloud_sat(t + v * (2.0 * n - 1.0));
}

// density in [0, 1] at world P (times shape.z: extinction per metre);
// detail: eroded by the Worley detail (the view's march), else the shape
float oak_cloud_density(vec3 P, bool detail) {
    vec4 lay = view.clouds.layer;
    float h = (P.y - lay.x) / (lay.y - lay.x);
    if (!(h > 0.0 && h < 1.0)) return 0.0;
    vec2 q = P.xz - OAK_CLOUD_DRIFT;
    float wcov = oak_cloud_sat(oak_cloud_weather(q) + 2.0 * view.clouds.shape.x - 1.0);
    if (wcov <= 0.0) return 0.0;
    float ttop = OAK_CLOUD_STRATUS_TOP + (1.0 - OAK_CLOUD_STRATUS_TOP) * oak_cloud_type(q);
    float g = oak_cloud_sat(h / OAK_CLOUD_BASE_FADE) * oak_cloud_sat((ttop - h) / (0.5 * ttop));
    if (g <= 0.0) return 0.0;
    vec3 w = vec3(q.x, P.y, q.y);
    float s = oak_cloud_noise(w * (1.0 / OAK_CLOUD_SHAPE_PERIOD)).x;
    float d = oak_cloud_sat((s * g - (1.0 - wcov)) / wcov);
    if (d <= 0.0 || !detail) return d;
    float e = OAK_CLOUD_EROSION * oak_cloud_noise(w * (1.0 / OAK_CLOUD_DETAIL_PERIOD)).y;
    return oak_cloud_sat((d - e) / (1.0 - e));
}

// ---- light ------------------------------------------------------------------

float oak_cloud_hg(float g, float c) {
    float k = 1.0 + g * g - 2.0 * g * c;
    return (1.0 - g * g) / (4.0 * OAK_CLOUD_PI * k * sqrt(k));
}

// light reaching a sample of extinction sigma (per metre) at height share
// hf, the view ray at cosine cosv to the key light: the key light through
// the octaves, with powder, and the sky light: from above (ambient) at the
// top; at the base OAK_CLOUD_AMBIENT_BASE of the mean of that and the light
// from low (ambient_low: the ground and the horizon, render/clouds.c's
// _oak_clouds_ambient), so a base is grey, not the zenith's blue
vec3 oak_cloud_light(vec3 P, float sigma, float hf, float cosv, vec3 ambient, vec3 ambient_low) {
    vec3 Ls = vec3(0.0);
    vec3 L = view.clouds.sun.xyz;
    if (dot(L, L) > 0.0) {
        float tau = 0.0, s0 = 0.0, len = OAK_CLOUD_LIGHT_STEP;
        OAK_DONT_UNROLL for (int i = 0; i < OAK_CLOUD_LIGHT_STEPS; i++) {
            tau += oak_cloud_density(P + L * (s0 + 0.5 * len), true) * len;
            s0 += len;
            len *= 2.0;
        }
        tau *= view.clouds.shape.z;
        float S = 0.0, a = 1.0, b = 1.0, c = 1.0;
        OAK_DONT_UNROLL for (int k = 0; k < OAK_CLOUD_OCTAVES; k++) {
            float ph = (1.0 - OAK_CLOUD_BACK_SHARE) * oak_cloud_hg(OAK_CLOUD_G_FORWARD * c, cosv) +
                       OAK_CLOUD_BACK_SHARE * oak_cloud_hg(OAK_CLOUD_G_BACK * c, cosv);
            S += b * ph * exp(-a * tau);
            a *= OAK_CLOUD_MS_A;
            b *= OAK_CLOUD_MS_B;
            c *= OAK_CLOUD_MS_C;
        }
        float powder = 1.0 - OAK_CLOUD_POWDER * exp(-sigma * OAK_CLOUD_POWDER_DEPTH);
        Ls = view.clouds.light.rgb * (view.clouds.sun.w * S * powder);
    }
    float lo = 0.5 * OAK_CLOUD_AMBIENT_BASE * (1.0 - hf), am = lo + hf;
    return Ls + (ambient * am + ambient_low * lo);
}

// the sky light capture's view through the layer from P along unit d
// (render/clouds.c's _oak_clouds_sky): OAK_CLOUD_SKY_STEPS steps at their
// middles, no hash; light rgb and transmittance, (0, 1) at or below the
// horizon; ambient and ambient_low the clear sky's irradiance
vec4 oak_cloud_sky(vec3 P, vec3 d, vec3 ambient, vec3 ambient_low) {
    if (!(d.y > 1e-6)) return vec4(0.0, 0.0, 0.0, 1.0);
    vec4 lay = view.clouds.layer;
    float ta = (lay.x - P.y) / d.y, tb = (lay.y - P.y) / d.y;
    float t0 = max(ta, 0.0), t1 = min(tb, float(OAK_CLOUD_MAX_DISTANCE));
    if (!(t1 > t0)) return vec4(0.0, 0.0, 0.0, 1.0);
    vec3 amb = ambient * view.clouds.ambient.rgb, amb_low = ambient_low * view.clouds.ambient.rgb;
    float dt = (t1 - t0) / float(OAK_CLOUD_SKY_STEPS), T = 1.0;
    vec3 Lsum = vec3(0.0);
    float cosv = dot(d, view.clouds.sun.xyz);
    float ext = view.clouds.shape.z, h0 = lay.x, hs = 1.0 / (lay.y - lay.x);
    OAK_DONT_UNROLL for (int i = 0; i < OAK_CLOUD_SKY_STEPS && T > OAK_CLOUD_MIN_T; i++) {
        vec3 X = P + d * (t0 + (float(i) + 0.5) * dt);
        float dn = oak_cloud_density(X, true);
        if (dn <= 0.0) continue;
        float sigma = dn * ext;
        vec3 S = oak_cloud_light(X, sigma, (X.y - h0) * hs, cosv, amb, amb_low);
        float Ts = exp(-sigma * dt);
        Lsum += T * S * (1.0 - Ts);
        T *= Ts;
    }
    return vec4(Lsum, T);
}

#endif
