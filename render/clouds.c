/* Volumetric clouds: the frame's record from the view and the C of
 * shaders/common/clouds.glsl, cloud_shadow.glsl and clouds.comp.glsl,
 * operation for operation in float, so the CPU backend's clouds are the
 * GPUs' (render/clouds.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aerial.h"
#include "clouds.h"
#include "core/hash32.h"
#include "skylight.h"

#define PI_F 3.14159265358979323846f

static inline float sat(float x) {
    return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f;
}

static inline uint32_t hash3(int32_t x, int32_t y, int32_t z, uint32_t seed) {
    uint32_t h = (uint32_t)x * 0x8da6b343u ^ (uint32_t)y * 0xd8163841u ^ (uint32_t)z * 0xcb1ab31fu ^
                 seed * 0x9e3779b9u;
    return _oak_lowbias32(h);
}

static inline float unit(uint32_t h) {
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/* ---- the noise table ------------------------------------------------------ */

static float perlin(const float q[3], int period) {
    float fl[3], f[3], u[3];
    int i[3];
    for (int k = 0; k < 3; k++) {
        fl[k] = floorf(q[k]);
        i[k] = (int)fl[k];
        f[k] = q[k] - fl[k];
        u[k] = f[k] * f[k] * f[k] * (f[k] * (f[k] * 6.0f - 15.0f) + 10.0f);
    }
    float c[8];
    for (int n = 0; n < 8; n++) {
        int o[3] = {n & 1, (n >> 1) & 1, n >> 2};
        uint32_t h = hash3((i[0] + o[0]) & (period - 1), (i[1] + o[1]) & (period - 1),
                           (i[2] + o[2]) & (period - 1), 3u) &
                     15u;
        float d[3] = {f[0] - (float)o[0], f[1] - (float)o[1], f[2] - (float)o[2]};
        float a = h < 8u ? d[0] : d[1];
        float b = h < 4u ? d[1] : (h == 12u || h == 14u ? d[0] : d[2]);
        c[n] = ((h & 1u) == 0u ? a : -a) + ((h & 2u) == 0u ? b : -b);
    }
    float x0 = c[0] + (c[1] - c[0]) * u[0], x1 = c[2] + (c[3] - c[2]) * u[0];
    float x2 = c[4] + (c[5] - c[4]) * u[0], x3 = c[6] + (c[7] - c[6]) * u[0];
    float y0 = x0 + (x1 - x0) * u[1], y1 = x2 + (x3 - x2) * u[1];
    return y0 + (y1 - y0) * u[2];
}

static float worley(const float q[3], int period) {
    int i[3];
    for (int k = 0; k < 3; k++) i[k] = (int)floorf(q[k]);
    float best = 1.0f;
    for (int n = 0; n < 27; n++) {
        int o[3] = {n % 3 - 1, (n / 3) % 3 - 1, n / 9 - 1};
        int cx = (i[0] + o[0]) & (period - 1), cy = (i[1] + o[1]) & (period - 1);
        int cz = (i[2] + o[2]) & (period - 1);
        float d[3] = {(float)(i[0] + o[0]) + unit(hash3(cx, cy, cz, 5u)) - q[0],
                      (float)(i[1] + o[1]) + unit(hash3(cx, cy, cz, 6u)) - q[1],
                      (float)(i[2] + o[2]) + unit(hash3(cx, cy, cz, 7u)) - q[2]};
        float dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        best = fminf(best, dd);
    }
    return 1.0f - sat(sqrtf(best));
}

void _oak_clouds_noise_texel(uint32_t i, float out[4]) {
    const uint32_t N = OAK_CLOUD_NOISE_SIZE;
    float q[3] = {((float)(i % N) + 0.5f) / (float)N, ((float)((i / N) % N) + 0.5f) / (float)N,
                  ((float)(i / (N * N)) + 0.5f) / (float)N};
    float q4[3], q8[3], q16[3];
    for (int k = 0; k < 3; k++) q4[k] = q[k] * 4.0f, q8[k] = q[k] * 8.0f, q16[k] = q[k] * 16.0f;
    float p = perlin(q4, 4) + 0.5f * perlin(q8, 8) + 0.25f * perlin(q16, 16);
    float p01 = sat(0.5f + p);
    float w = 0.625f * worley(q4, 4) + 0.25f * worley(q8, 8) + 0.125f * worley(q16, 16);
    out[0] = sat((p01 - (w - 1.0f)) / (2.0f - w));
    out[1] = w;
    out[2] = p01;
    out[3] = 0.0f;
}

/* the table at p (in table periods), trilinear, wrapping; channel ch */
static float noise(const float *buf, const float p[3], int ch) {
    const int N = OAK_CLOUD_NOISE_SIZE;
    float f[3];
    int i0[3], i1[3];
    for (int k = 0; k < 3; k++) {
        float u = p[k] * (float)N - 0.5f, fl = floorf(u);
        f[k] = u - fl;
        i0[k] = (int)fl & (N - 1);
        i1[k] = (i0[k] + 1) & (N - 1);
    }
    const float *t = buf + (size_t)OAK_GPU_CLOUD_NOISE_AT * 4 + ch;
#define AT(x, y, z) t[(size_t)(((z)*N + (y)) * N + (x)) * 4]
    float c000 = AT(i0[0], i0[1], i0[2]), c100 = AT(i1[0], i0[1], i0[2]);
    float c010 = AT(i0[0], i1[1], i0[2]), c110 = AT(i1[0], i1[1], i0[2]);
    float c001 = AT(i0[0], i0[1], i1[2]), c101 = AT(i1[0], i0[1], i1[2]);
    float c011 = AT(i0[0], i1[1], i1[2]), c111 = AT(i1[0], i1[1], i1[2]);
#undef AT
    float x0 = c000 + (c100 - c000) * f[0], x1 = c010 + (c110 - c010) * f[0];
    float x2 = c001 + (c101 - c001) * f[0], x3 = c011 + (c111 - c011) * f[0];
    float y0 = x0 + (x1 - x0) * f[1], y1 = x2 + (x3 - x2) * f[1];
    return y0 + (y1 - y0) * f[2];
}

/* ---- density ---------------------------------------------------------------- */

static float value2(float px, float py, uint32_t seed) {
    float flx = floorf(px), fly = floorf(py);
    int ix = (int)flx, iy = (int)fly;
    float fx = px - flx, fy = py - fly;
    fx = fx * fx * (3.0f - 2.0f * fx);
    fy = fy * fy * (3.0f - 2.0f * fy);
    float a = unit(hash3(ix, iy, 0, seed)), b = unit(hash3(ix + 1, iy, 0, seed));
    float c = unit(hash3(ix, iy + 1, 0, seed)), d = unit(hash3(ix + 1, iy + 1, 0, seed));
    float x0 = a + (b - a) * fx, x1 = c + (d - c) * fx;
    return x0 + (x1 - x0) * fy;
}

static float weather(float qx, float qz) {
    float px = qx * (1.0f / (float)OAK_CLOUD_WEATHER_CELL);
    float py = qz * (1.0f / (float)OAK_CLOUD_WEATHER_CELL);
    return 0.65f * value2(px, py, 1u) + 0.35f * value2(px * 2.0f, py * 2.0f, 2u);
}

float _oak_clouds_type(const oak_gpu_clouds *c, float qx, float qz) {
    float t = c->shape[1], v = c->light[3];
    if (!(v > 0.0f)) return t;
    float px = qx * (1.0f / (float)OAK_CLOUD_TYPE_CELL);
    float py = qz * (1.0f / (float)OAK_CLOUD_TYPE_CELL);
    float n = 0.65f * value2(px, py, 11u) + 0.35f * value2(px * 2.0f, py * 2.0f, 12u);
    return sat(t + v * (2.0f * n - 1.0f));
}

float _oak_clouds_cover(const oak_gpu_clouds *c, float qx, float qz) {
    return sat(weather(qx, qz) + 2.0f * c->shape[0] - 1.0f);
}

float _oak_clouds_density(const oak_gpu_clouds *c, const float *buf, const float P[3],
                          bool detail) {
    float h = (P[1] - c->layer[0]) / (c->layer[1] - c->layer[0]);
    if (!(h > 0.0f && h < 1.0f)) return 0.0f;
    float qx = P[0] - c->layer[2], qz = P[2] - c->layer[3];
    float wcov = _oak_clouds_cover(c, qx, qz);
    if (wcov <= 0.0f) return 0.0f;
    float ttop = (float)OAK_CLOUD_STRATUS_TOP +
                 (1.0f - (float)OAK_CLOUD_STRATUS_TOP) * _oak_clouds_type(c, qx, qz);
    float g = sat(h / (float)OAK_CLOUD_BASE_FADE) * sat((ttop - h) / (0.5f * ttop));
    if (g <= 0.0f) return 0.0f;
    float ks = 1.0f / (float)OAK_CLOUD_SHAPE_PERIOD;
    float ws[3] = {qx * ks, P[1] * ks, qz * ks};
    float s = noise(buf, ws, 0);
    float d = sat((s * g - (1.0f - wcov)) / wcov);
    if (d <= 0.0f || !detail) return d;
    float kd = 1.0f / (float)OAK_CLOUD_DETAIL_PERIOD;
    float wd[3] = {qx * kd, P[1] * kd, qz * kd};
    float e = (float)OAK_CLOUD_EROSION * noise(buf, wd, 1);
    return sat((d - e) / (1.0f - e));
}

/* ---- light ---------------------------------------------------------------------- */

static float hg(float g, float c) {
    float k = 1.0f + g * g - 2.0f * g * c;
    return (1.0f - g * g) / (4.0f * PI_F * k * sqrtf(k));
}

double _oak_clouds_gain(void) {
    /* a semi-infinite slab of extinction s seen along -L: octave k gives
       b^k p_k(-1) E int s exp(-s t) exp(-a^k s t) dt = b^k p_k(-1) E / (1 + a^k) */
    double sum = 0, a = 1, b = 1, c = 1;
    for (int k = 0; k < OAK_CLOUD_OCTAVES; k++) {
        double ph = (1 - OAK_CLOUD_BACK_SHARE) * hg((float)(OAK_CLOUD_G_FORWARD * c), -1.0f) +
                    OAK_CLOUD_BACK_SHARE * hg((float)(OAK_CLOUD_G_BACK * c), -1.0f);
        sum += b * ph / (1 + a);
        a *= OAK_CLOUD_MS_A, b *= OAK_CLOUD_MS_B, c *= OAK_CLOUD_MS_C;
    }
    return OAK_CLOUD_ALBEDO_THICK / 3.14159265358979323846 / sum;
}

static void shadow_dir(const oak_gpu_clouds *c, float L[3]) {
    L[0] = c->sun[0], L[1] = c->sun[1], L[2] = c->sun[2];
    if (L[1] >= (float)OAK_CLOUD_SUN_MIN_Y) return;
    L[1] = (float)OAK_CLOUD_SUN_MIN_Y;
    float n = sqrtf(L[0] * L[0] + L[1] * L[1] + L[2] * L[2]);
    L[0] /= n, L[1] /= n, L[2] /= n;
}

static void light(const oak_gpu_clouds *c, const float *buf, const float P[3], float sigma,
                  float hf, float cosv, const float ambient[6], float out[3]) {
    float Ls[3] = {0, 0, 0};
    const float *L = c->sun;
    if (L[0] * L[0] + L[1] * L[1] + L[2] * L[2] > 0.0f) {
        float tau = 0.0f, s0 = 0.0f, len = (float)OAK_CLOUD_LIGHT_STEP;
        for (int i = 0; i < OAK_CLOUD_LIGHT_STEPS; i++) {
            float s = s0 + 0.5f * len;
            float X[3] = {P[0] + L[0] * s, P[1] + L[1] * s, P[2] + L[2] * s};
            tau += _oak_clouds_density(c, buf, X, true) * len;
            s0 += len;
            len *= 2.0f;
        }
        tau *= c->shape[2];
        float S = 0.0f, a = 1.0f, b = 1.0f, cg = 1.0f;
        for (int k = 0; k < OAK_CLOUD_OCTAVES; k++) {
            float ph =
                (1.0f - (float)OAK_CLOUD_BACK_SHARE) * hg((float)OAK_CLOUD_G_FORWARD * cg, cosv) +
                (float)OAK_CLOUD_BACK_SHARE * hg((float)OAK_CLOUD_G_BACK * cg, cosv);
            S += b * ph * expf(-a * tau);
            a *= (float)OAK_CLOUD_MS_A;
            b *= (float)OAK_CLOUD_MS_B;
            cg *= (float)OAK_CLOUD_MS_C;
        }
        float powder =
            1.0f - (float)OAK_CLOUD_POWDER * expf(-sigma * (float)OAK_CLOUD_POWDER_DEPTH);
        float k = c->sun[3] * S * powder;
        for (int i = 0; i < 3; i++) Ls[i] = c->light[i] * k;
    }
    /* the sky from above at the top; at the base OAK_CLOUD_AMBIENT_BASE of
       the mean of that and the light from low (the ground and the horizon),
       so a base is grey, not the zenith's blue; between, a mix by height
       (clouds.glsl) */
    float lo = 0.5f * (float)OAK_CLOUD_AMBIENT_BASE * (1.0f - hf), am = lo + hf;
    for (int i = 0; i < 3; i++) out[i] = Ls[i] + (ambient[i] * am + ambient[3 + i] * lo);
}

/* ---- the shadow map ---------------------------------------------------------------- */

static float shadow_from(const oak_gpu_clouds *c, const float *buf, const float P[3]) {
    float L[3];
    shadow_dir(c, L);
    float ds = (c->layer[1] - c->layer[0]) / L[1] / (float)OAK_CLOUD_SHADOW_STEPS, tau = 0.0f;
    for (int k = 0; k < OAK_CLOUD_SHADOW_STEPS; k++) {
        float s = ((float)k + 0.5f) * ds;
        float X[3] = {P[0] + L[0] * s, P[1] + L[1] * s, P[2] + L[2] * s};
        tau += _oak_clouds_density(c, buf, X, true);
    }
    return expf(-tau * ds * c->shape[2]);
}

float _oak_clouds_shadow_texel(const oak_gpu_clouds *c, const float *buf, uint32_t x, uint32_t y) {
    if (!(c->sun[0] * c->sun[0] + c->sun[1] * c->sun[1] + c->sun[2] * c->sun[2] > 0.0f))
        return 1.0f;
    float P[3] = {c->shadow[0] + ((float)x + 0.5f) * c->shadow[2], c->layer[0],
                  c->shadow[1] + ((float)y + 0.5f) * c->shadow[2]};
    return shadow_from(c, buf, P);
}

float _oak_clouds_sun_transmittance(const oak_gpu_clouds *c, const float *buf, const float P[3]) {
    if (c->shape[3] == 0.0f) return 1.0f;
    float L[3];
    shadow_dir(c, L);
    float k = (c->layer[0] - P[1]) / L[1];
    float B[3] = {P[0] + L[0] * k, c->layer[0], P[2] + L[2] * k};
    return shadow_from(c, buf, B);
}

static inline float map_at(const float *buf, int x, int y) {
    return buf[(size_t)(y * OAK_CLOUD_SHADOW_SIZE + x) * 4];
}

float _oak_clouds_shadow(const oak_gpu_clouds *c, const float *buf, const float P[3]) {
    if (c->shape[3] == 0.0f) return 1.0f;
    float L[3];
    shadow_dir(c, L);
    float k = (c->layer[0] - P[1]) / L[1];
    float ux = (P[0] + L[0] * k - c->shadow[0]) * c->shadow[3] - 0.5f;
    float uy = (P[2] + L[2] * k - c->shadow[1]) * c->shadow[3] - 0.5f;
    const float S1 = (float)(OAK_CLOUD_SHADOW_SIZE - 1);
    ux = ux > 0.0f ? (ux < S1 ? ux : S1) : 0.0f;
    uy = uy > 0.0f ? (uy < S1 ? uy : S1) : 0.0f;
    float flx = fminf(floorf(ux), S1 - 1.0f), fly = fminf(floorf(uy), S1 - 1.0f);
    float fx = ux - flx, fy = uy - fly;
    int x = (int)flx, y = (int)fly;
    float a = map_at(buf, x, y), b = map_at(buf, x + 1, y);
    float cc = map_at(buf, x, y + 1), d = map_at(buf, x + 1, y + 1);
    float r0 = a + (b - a) * fx, r1 = cc + (d - cc) * fx;
    return r0 + (r1 - r0) * fy;
}

/* ---- the march ------------------------------------------------------------------------ */

void _oak_clouds_march_pixel(const oak_gpu_clouds *c, uint32_t width, uint32_t height, uint32_t tx,
                             uint32_t ty, uint32_t out[2]) {
    uint32_t k = c->steps[0], x = tx * k + k / 2, y = ty * k + k / 2;
    out[0] = x < width - 1 ? x : width - 1;
    out[1] = y < height - 1 ? y : height - 1;
}

static void xform(const mat4 m, float x, float y, float z, float out[4]) {
    for (int r = 0; r < 4; r++) out[r] = m[0][r] * x + m[1][r] * y + m[2][r] * z + m[3][r];
}

void _oak_clouds_ambient(const float *sky, float out[6]) {
    static const float dirs[5][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}, {0, -1, 0}};
    const float up[3] = {0, 1, 0};
    float e[5][3];
    _oak_sky_irradiance(sky, up, out);
    for (int k = 0; k < 5; k++) _oak_sky_irradiance(sky, dirs[k], e[k]);
    for (int i = 0; i < 3; i++)
        out[3 + i] = 0.125f * (e[0][i] + e[1][i] + e[2][i] + e[3][i]) + 0.5f * e[4][i];
}

/* The march texel of last frame's slot that world P was seen through:
   P through last frame's view_proj (unjittered), the texel whose march
   pixel is nearest (round, so TAA's half-pixel jitter does not flip it),
   kept where its ray stopped at `depth` (cloudmix's rule); -1 where none
   (off the map, behind last frame's eye, another surface). */
static int64_t history_texel(const oak_gpu_clouds *c, const float *buf, const oak_render_view *v,
                             const float P[3], float depth) {
    float q[4], W = (float)v->width, H = (float)v->height;
    xform(v->prev_view_proj, P[0], P[1], P[2], q);
    if (!(q[3] > 0.0f)) return -1;
    float k = (float)c->steps[0];
    float hx =
        floorf(((q[0] / q[3] * 0.5f + 0.5f) * W - 0.5f - (float)(c->steps[0] / 2u)) / k + 0.5f);
    float hy =
        floorf(((0.5f - q[1] / q[3] * 0.5f) * H - 0.5f - (float)(c->steps[0] / 2u)) / k + 0.5f);
    if (!(hx >= 0.0f && hy >= 0.0f && hx < (float)c->size[0] && hy < (float)c->size[1])) return -1;
    uint64_t nn = (uint64_t)c->size[0] * c->size[1];
    uint64_t at = _oak_clouds_slot(c, c->steps[2] ^ 1u) + (uint64_t)hy * c->size[0] + (uint64_t)hx;
    float hd = buf[(at + nn) * 4 + 1];
    float gap = fabsf(hd - depth) / fmaxf(fmaxf(hd, depth), 1e-30f);
    return gap <= (float)OAK_CLOUD_DEPTH_EDGE ? (int64_t)at : -1;
}

bool _oak_clouds_due(const oak_gpu_clouds *c, uint32_t tx, uint32_t ty) {
    uint32_t B = c->steps[3];
    if (B < 2u) return true;
    /* Bayer order: the texel of rank (x, y) in its B x B block, bits of
       x ^ y and y interleaved, lowest first */
    uint32_t x = tx & (B - 1u), y = ty & (B - 1u), r = 0u;
    for (uint32_t s = 1u; s < B; s <<= 1)
        r = (r << 2) | ((x ^ y) & s ? 2u : 0u) | (y & s ? 1u : 0u);
    return r == (c->size[3] & (B * B - 1u));
}

void _oak_clouds_march(const oak_gpu_clouds *c, const float *buf, const oak_render_view *v,
                       uint32_t tx, uint32_t ty, float depth, const float ambient[6], float out[4],
                       float aux[4]) {
    uint32_t px[2];
    _oak_clouds_march_pixel(c, v->width, v->height, tx, ty, px);
    float W = (float)v->width, H = (float)v->height;
    float nx = ((float)px[0] + 0.5f - v->jitter[0]) / W * 2.0f - 1.0f;
    float ny = 1.0f - ((float)px[1] + 0.5f - v->jitter[1]) / H * 2.0f;
    float a[4], b[4];
    xform(v->inv_view_proj, nx, ny, 0.5f, a);
    xform(v->inv_view_proj, nx, ny, 1.0f, b);
    /* from the near plane (an orthographic camera's rays start apart) */
    float eye[3] = {b[0] / b[3], b[1] / b[3], b[2] / b[3]};
    float dir[3] = {a[0] / a[3] - eye[0], a[1] / a[3] - eye[1], a[2] / a[3] - eye[2]};
    float n = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    dir[0] /= n, dir[1] /= n, dir[2] /= n;
    float tmax = (float)OAK_CLOUD_MAX_DISTANCE;
    if (depth > 0.0f) {
        float s[4];
        xform(v->inv_view_proj, nx, ny, depth, s);
        float e[3] = {s[0] / s[3] - eye[0], s[1] / s[3] - eye[1], s[2] / s[3] - eye[2]};
        tmax = fminf(tmax, sqrtf(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]));
    }
    uint64_t nn = (uint64_t)c->size[0] * c->size[1];
    if (c->steps[1] != 0u && !_oak_clouds_due(c, tx, ty)) {
        /* not this texel's frame: last frame's value carried over, found
           through the distance its own texel had then (exact for a still
           camera); marched after all where that finds no history */
        uint64_t same = _oak_clouds_slot(c, c->steps[2] ^ 1u) + nn + (uint64_t)ty * c->size[0] + tx;
        float D = fminf(buf[same * 4], tmax);
        float P[3] = {eye[0] + dir[0] * D, eye[1] + dir[1] * D, eye[2] + dir[2] * D};
        int64_t at = history_texel(c, buf, v, P, depth);
        if (at >= 0) {
            for (int i = 0; i < 4; i++) out[i] = buf[(uint64_t)at * 4 + (uint64_t)i];
            aux[0] = buf[((uint64_t)at + nn) * 4], aux[1] = depth, aux[2] = 0.0f, aux[3] = 0.0f;
            return;
        }
    }
    float t0 = 0.0f, t1 = tmax;
    if (fabsf(dir[1]) > 1e-6f) {
        float ta = (c->layer[0] - eye[1]) / dir[1], tb = (c->layer[1] - eye[1]) / dir[1];
        t0 = fmaxf(fminf(ta, tb), 0.0f);
        t1 = fminf(fmaxf(ta, tb), tmax);
    } else if (!(eye[1] > c->layer[0] && eye[1] < c->layer[1])) {
        t1 = 0.0f;
    }
    float Ls[3] = {0, 0, 0}, T = 1.0f, wt = 0.0f;
    if (t1 > t0) {
        float amb[6];
        for (int i = 0; i < 6; i++) amb[i] = ambient[i] * c->ambient[i % 3];
        uint32_t steps = c->size[2];
        float dt = (t1 - t0) / (float)steps;
        float j = unit(hash3((int32_t)tx, (int32_t)ty, (int32_t)c->size[3], 9u));
        float cosv = dir[0] * c->sun[0] + dir[1] * c->sun[1] + dir[2] * c->sun[2];
        float ext = c->shape[2], h0 = c->layer[0], hs = 1.0f / (c->layer[1] - c->layer[0]);
        for (uint32_t i = 0; i < steps && T > (float)OAK_CLOUD_MIN_T; i++) {
            float t = t0 + ((float)i + j) * dt;
            float P[3] = {eye[0] + dir[0] * t, eye[1] + dir[1] * t, eye[2] + dir[2] * t};
            float dn = _oak_clouds_density(c, buf, P, true);
            if (dn <= 0.0f) continue;
            float sigma = dn * ext, S[3];
            light(c, buf, P, sigma, (P[1] - h0) * hs, cosv, amb, S);
            float Ts = expf(-sigma * dt);
            for (int k = 0; k < 3; k++) Ls[k] += T * S[k] * (1.0f - Ts);
            wt += t * (T - T * Ts); /* the distance, weighed by the light it stops */
            T *= Ts;
        }
    }
    /* where the march's light comes from: the transmittance-weighted
       distance; none (T = 1): the surface, or the sky at 40 km */
    float D = T < 1.0f ? wt / (1.0f - T) : tmax;
    float now[4] = {Ls[0], Ls[1], Ls[2], T};
    aux[0] = D, aux[1] = depth, aux[2] = 1.0f, aux[3] = 0.0f; /* z: marched this frame */
    for (int i = 0; i < 4; i++) out[i] = now[i];
    if (c->steps[1] == 0u) return;
    /* the history: that point's texel of last frame, blended */
    float P[3] = {eye[0] + dir[0] * D, eye[1] + dir[1] * D, eye[2] + dir[2] * D};
    int64_t at = history_texel(c, buf, v, P, depth);
    if (at < 0) return;
    const float *h = buf + (uint64_t)at * 4;
    for (int i = 0; i < 4; i++) out[i] = h[i] + (now[i] - h[i]) * (float)OAK_CLOUD_HISTORY_WEIGHT;
}

void _oak_clouds_march_grid(const oak_gpu_clouds *c, uint32_t out[3]) {
    uint32_t B = c->steps[3] > 1u ? c->steps[3] : 1u;
    out[0] = (c->size[0] + B - 1u) / B;
    out[1] = (c->size[1] + B - 1u) / B;
    out[2] = B * B;
}

/* ---- the sky light's view of the layer ------------------------------------------------- */

void _oak_clouds_sky(const oak_gpu_clouds *c, const float *buf, const float P[3], const float d[3],
                     const float ambient[6], float out[4]) {
    out[0] = out[1] = out[2] = 0.0f, out[3] = 1.0f;
    if (!(d[1] > 1e-6f)) return; /* above the horizon only: the eye is below the base */
    float ta = (c->layer[0] - P[1]) / d[1], tb = (c->layer[1] - P[1]) / d[1];
    float t0 = fmaxf(ta, 0.0f), t1 = fminf(tb, (float)OAK_CLOUD_MAX_DISTANCE);
    if (!(t1 > t0)) return;
    float amb[6];
    for (int i = 0; i < 6; i++) amb[i] = ambient[i] * c->ambient[i % 3];
    /* a few steps at their middles, no hash: a capture is one picture */
    float dt = (t1 - t0) / (float)OAK_CLOUD_SKY_STEPS, T = 1.0f, Ls[3] = {0, 0, 0};
    float cosv = d[0] * c->sun[0] + d[1] * c->sun[1] + d[2] * c->sun[2];
    float ext = c->shape[2], h0 = c->layer[0], hs = 1.0f / (c->layer[1] - c->layer[0]);
    for (int i = 0; i < OAK_CLOUD_SKY_STEPS && T > (float)OAK_CLOUD_MIN_T; i++) {
        float t = t0 + ((float)i + 0.5f) * dt;
        float X[3] = {P[0] + d[0] * t, P[1] + d[1] * t, P[2] + d[2] * t};
        float dn = _oak_clouds_density(c, buf, X, true);
        if (dn <= 0.0f) continue;
        float sigma = dn * ext, S[3];
        light(c, buf, X, sigma, (X[1] - h0) * hs, cosv, amb, S);
        float Ts = expf(-sigma * dt);
        for (int k = 0; k < 3; k++) Ls[k] += T * S[k] * (1.0f - Ts);
        T *= Ts;
    }
    out[0] = Ls[0], out[1] = Ls[1], out[2] = Ls[2], out[3] = T;
}

/* ---- the record ------------------------------------------------------------------------- */

void _oak_clouds_fill(oak_gpu_clouds *c, const oak_render_view *v, uint32_t width,
                      uint32_t height) {
    memset(c, 0, sizeof *c);
    const oak_clouds *in = &v->env.clouds;
    if (!(in->coverage > 0) || v->post.channel != OAK_CHANNEL_NONE || !width || !height) return;
    oak_quality q = oak_preset_quality(v->post.preset);
    if (v->post.cloud_scale) q.cloud_scale = v->post.cloud_scale; /* the post's over the preset's */
    if (v->post.cloud_steps) q.cloud_steps = v->post.cloud_steps;
    uint32_t k = q.cloud_scale >= 1 && q.cloud_scale <= 8 ? q.cloud_scale : 2;
    uint32_t steps = q.cloud_steps >= 8 && q.cloud_steps <= 256 ? q.cloud_steps : 64;
    float base = in->base > 0 && isfinite(in->base) ? in->base : (float)OAK_CLOUD_BASE;
    float top = in->top > base && isfinite(in->top)
                    ? in->top
                    : base + (float)(OAK_CLOUD_TOP - OAK_CLOUD_BASE);
    c->shape[0] = sat(in->coverage);
    c->shape[1] = in->type > 0 && in->type <= 1 ? in->type : (float)OAK_CLOUD_TYPE;
    c->light[3] = in->variation > 0 ? fminf(in->variation, 1.0f) : 0.0f; /* NaN: 0 */
    c->shape[2] =
        in->density > 0 && isfinite(in->density) ? in->density : (float)OAK_CLOUD_EXTINCTION;
    c->shape[3] = 1;
    c->layer[0] = base, c->layer[1] = top;
    float t = isfinite(in->time) ? in->time : 0.0f;
    for (int i = 0; i < 2; i++) c->layer[2 + i] = isfinite(in->wind[i]) ? in->wind[i] * t : 0.0f;
    c->ambient[0] = c->ambient[1] = c->ambient[2] = 1.0f / PI_F;
    if (v->key_light >= 0 && (uint32_t)v->key_light < v->light_count) {
        const oak_render_light *l = &v->lights[v->key_light];
        float d[3] = {-l->direction[0], -l->direction[1], -l->direction[2]};
        float n = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (n > 0 &&
            (l->light.type == OAK_LIGHT_DIRECTIONAL || l->light.type == OAK_LIGHT_DEFAULT)) {
            for (int i = 0; i < 3; i++) {
                c->sun[i] = d[i] / n;
                c->light[i] = l->light.color[i] * l->light.intensity;
            }
            c->sun[3] = (float)_oak_clouds_gain();
        }
    }
    /* the map's square around where the eye's ray to the key light meets
       the base, snapped to whole texels so its texels do not crawl */
    float L[3];
    shadow_dir(c, L);
    float kk = (base - v->camera_pos[1]) / L[1];
    float cx = v->camera_pos[0] + L[0] * kk, cz = v->camera_pos[2] + L[2] * kk;
    float texel = (float)(OAK_CLOUD_SHADOW_EXTENT / OAK_CLOUD_SHADOW_SIZE);
    float half = 0.5f * (float)OAK_CLOUD_SHADOW_SIZE;
    c->shadow[0] = (floorf(cx / texel) - half) * texel;
    c->shadow[1] = (floorf(cz / texel) - half) * texel;
    c->shadow[2] = texel;
    c->shadow[3] = 1.0f / texel;
    c->size[0] = (width + k - 1) / k;
    c->size[1] = (height + k - 1) / k;
    c->size[2] = steps;
    c->size[3] = (uint32_t)v->frame;
    c->steps[0] = k;
    c->steps[1] = v->clouds_history ? 1u : 0u;
    c->steps[2] = (uint32_t)(v->frame & 1u);
    /* with a history, one texel of each block marched a frame, the rest
       carried (OAK_CLOUD_PARTIAL=0: all marched, the reference) */
    const char *part = getenv("OAK_CLOUD_PARTIAL");
    bool full = part && !strcmp(part, "0");
    c->steps[3] =
        v->clouds_history && !full && OAK_CLOUD_MARCH_BLOCK > 1 ? OAK_CLOUD_MARCH_BLOCK : 0u;
}

/* ---- the air over the clouds ------------------------------------------------------------- */

void _oak_clouds_air(const float *vol, float ux, float uy, float dist, float c[4]) {
    float air[4];
    _oak_aerial_lookup(vol, ux, uy, _oak_aerial_slice(dist), air);
    for (int i = 0; i < 3; i++) c[i] = c[i] * air[3] + air[i] * (1.0f - c[3]);
}
