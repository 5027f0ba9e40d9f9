/* The sky light's maps, one texel at a time (render/skylight.h): the sky
 * captured into octahedral mips, its cosine convolution, its GGX prefilter
 * with filtered importance sampling, Karis' split-sum table, and the reads the
 * shading makes. shaders/common/sky.glsl mirrors every function here. */
#include "skylight.h"

#include "clouds.h"

#include <math.h>
#include <string.h>

_Static_assert(OAK_GPU_SKY_SPEC_TEXELS ==
                   (OAK_SKY_SPECULAR_SIZE * OAK_SKY_SPECULAR_SIZE +
                    (OAK_SKY_SPECULAR_SIZE / 2) * (OAK_SKY_SPECULAR_SIZE / 2) +
                    (OAK_SKY_SPECULAR_SIZE / 4) * (OAK_SKY_SPECULAR_SIZE / 4) +
                    3 * OAK_SKY_SPECULAR_MIN * OAK_SKY_SPECULAR_MIN),
               "OAK_GPU_SKY_SPEC_TEXELS is the sum of the prefiltered levels");
_Static_assert((1 << (OAK_SKY_CAPTURE_MIPS - 1)) == OAK_SKY_CAPTURE_SIZE,
               "the capture is mipped down to one texel");

#define SKY_PI 3.14159265358979323846f

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static float sgn(float x) {
    return x >= 0 ? 1.0f : -1.0f;
}
/* NaN goes to lo: a hostile normal must not index out of a map */
static float clampf(float x, float lo, float hi) {
    return x > lo ? (x < hi ? x : hi) : lo;
}
static void normalize3(float v[3]) {
    float l = sqrtf(dot3(v, v));
    for (int k = 0; k < 3; k++) v[k] /= l;
}

/* ---- octahedral maps ----------------------------------------------------- */

void _oak_sky_oct_point(float u, float v, float q[3]) {
    float px = u * 2.0f - 1.0f, pz = v * 2.0f - 1.0f;
    float y = 1.0f - fabsf(px) - fabsf(pz);
    if (y < 0) { /* the lower half is folded out to the corners */
        float fx = (1.0f - fabsf(pz)) * sgn(px), fz = (1.0f - fabsf(px)) * sgn(pz);
        px = fx, pz = fz;
    }
    q[0] = px, q[1] = y, q[2] = pz;
}

void _oak_sky_oct_uv(const float d[3], float uv[2]) {
    float s = fabsf(d[0]) + fabsf(d[1]) + fabsf(d[2]);
    float px = d[0] / s, pz = d[2] / s;
    if (d[1] < 0) {
        float fx = (1.0f - fabsf(pz)) * sgn(px), fz = (1.0f - fabsf(px)) * sgn(pz);
        px = fx, pz = fz;
    }
    uv[0] = px * 0.5f + 0.5f;
    uv[1] = pz * 0.5f + 0.5f;
}

/* A texel just past an edge is the one mirrored along that edge: the map's
   edges fold onto themselves about their midpoints. */
static const float *oct_texel(const float *sky, uint32_t at, int n, int i, int j) {
    if (i < 0)
        i = -1 - i, j = n - 1 - j;
    else if (i >= n)
        i = 2 * n - 1 - i, j = n - 1 - j;
    if (j < 0)
        j = -1 - j, i = n - 1 - i;
    else if (j >= n)
        j = 2 * n - 1 - j, i = n - 1 - i;
    return sky + ((size_t)at + (size_t)j * (size_t)n + (size_t)i) * 4;
}

/* a level at an octahedral uv already clamped to [0, 1] */
static void oct_bilinear_uv(const float *sky, uint32_t at, uint32_t n, const float uv[2],
                            float out[3]) {
    float x = uv[0] * (float)n - 0.5f, y = uv[1] * (float)n - 0.5f;
    float x0 = floorf(x), y0 = floorf(y), fx = x - x0, fy = y - y0;
    int i = (int)x0, j = (int)y0, N = (int)n;
    const float *a, *b, *c, *e;
    if (i >= 0 && j >= 0 && i + 1 < N && j + 1 < N) { /* inside: no seam to cross */
        a = sky + ((size_t)at + (size_t)j * n + (size_t)i) * 4;
        b = a + 4, c = a + (size_t)n * 4, e = c + 4;
    } else {
        a = oct_texel(sky, at, N, i, j), b = oct_texel(sky, at, N, i + 1, j);
        c = oct_texel(sky, at, N, i, j + 1), e = oct_texel(sky, at, N, i + 1, j + 1);
    }
    for (int k = 0; k < 3; k++) {
        float top = a[k] + (b[k] - a[k]) * fx, bot = c[k] + (e[k] - c[k]) * fx;
        out[k] = top + (bot - top) * fy;
    }
}

static void oct_uv_clamped(const float d[3], float uv[2]) {
    _oak_sky_oct_uv(d, uv);
    uv[0] = clampf(uv[0], 0.0f, 1.0f), uv[1] = clampf(uv[1], 0.0f, 1.0f);
}

void _oak_sky_oct_bilinear(const float *sky, uint32_t at, uint32_t n, const float d[3],
                           float out[3]) {
    float uv[2];
    oct_uv_clamped(d, uv);
    oct_bilinear_uv(sky, at, n, uv, out);
}

static uint32_t capture_at(uint32_t level) {
    uint32_t at = OAK_GPU_SKY_CAPTURE_AT;
    for (uint32_t l = 0; l < level; l++)
        at += (OAK_SKY_CAPTURE_SIZE >> l) * (OAK_SKY_CAPTURE_SIZE >> l);
    return at;
}

uint32_t _oak_sky_spec_size(uint32_t level) {
    uint32_t n = OAK_SKY_SPECULAR_SIZE >> level;
    return n > OAK_SKY_SPECULAR_MIN ? n : OAK_SKY_SPECULAR_MIN;
}

/* the levels' offsets as constants (the shading reads two levels a pixel) */
#define SPEC_SQ(l) (SPEC_SIZE(l) * SPEC_SIZE(l))
#define SPEC_SIZE(l)                                                                               \
    ((OAK_SKY_SPECULAR_SIZE >> (l)) > OAK_SKY_SPECULAR_MIN ? (OAK_SKY_SPECULAR_SIZE >> (l))        \
                                                           : OAK_SKY_SPECULAR_MIN)
_Static_assert(OAK_SKY_SPECULAR_LEVELS == 6, "k_spec_at lists six levels");
static const uint32_t k_spec_at[OAK_SKY_SPECULAR_LEVELS] = {
    OAK_GPU_SKY_SPEC_AT,
    OAK_GPU_SKY_SPEC_AT + SPEC_SQ(0),
    OAK_GPU_SKY_SPEC_AT + SPEC_SQ(0) + SPEC_SQ(1),
    OAK_GPU_SKY_SPEC_AT + SPEC_SQ(0) + SPEC_SQ(1) + SPEC_SQ(2),
    OAK_GPU_SKY_SPEC_AT + SPEC_SQ(0) + SPEC_SQ(1) + SPEC_SQ(2) + SPEC_SQ(3),
    OAK_GPU_SKY_SPEC_AT + SPEC_SQ(0) + SPEC_SQ(1) + SPEC_SQ(2) + SPEC_SQ(3) + SPEC_SQ(4),
};

uint32_t _oak_sky_spec_at(uint32_t level) {
    return k_spec_at[level];
}

/* the capture trilinearly at a fractional mip */
static void capture_lod(const float *sky, const float d[3], float lod, float out[3]) {
    lod = clampf(lod, 0.0f, (float)(OAK_SKY_CAPTURE_MIPS - 1));
    uint32_t l0 = (uint32_t)floorf(lod);
    uint32_t l1 = l0 + 1 < OAK_SKY_CAPTURE_MIPS ? l0 + 1 : l0;
    float f = lod - (float)l0, a[3], b[3];
    _oak_sky_oct_bilinear(sky, capture_at(l0), OAK_SKY_CAPTURE_SIZE >> l0, d, a);
    _oak_sky_oct_bilinear(sky, capture_at(l1), OAK_SKY_CAPTURE_SIZE >> l1, d, b);
    for (int k = 0; k < 3; k++) out[k] = a[k] + (b[k] - a[k]) * f;
}

/* ---- the sky itself ------------------------------------------------------ */

/* the equirectangular image, bilinear, u wrapping round, v clamped at the poles */
static void image_at(const float *sky, const float d[3], float out[3]) {
    int w = (int)sky[3], h = (int)sky[7];
    float u = clampf(atan2f(d[0], -d[2]) / (2.0f * SKY_PI) + 0.5f, 0.0f, 1.0f);
    float v = acosf(clampf(d[1], -1.0f, 1.0f)) / SKY_PI;
    float x = u * (float)w - 0.5f, y = v * (float)h - 0.5f;
    float x0 = floorf(x), y0 = floorf(y), fx = x - x0, fy = y - y0;
    int i0 = (int)x0, j0 = (int)y0;
    int i[2] = {i0 < 0 ? i0 + w : i0, i0 + 1 >= w ? i0 + 1 - w : i0 + 1}; /* i0 in [-1, w-1] */
    int j[2] = {j0 < 0 ? 0 : j0 >= h ? h - 1 : j0, j0 + 1 < 0 ? 0 : j0 + 1 >= h ? h - 1 : j0 + 1};
    const float *img = sky + (size_t)OAK_GPU_SKY_IMAGE_AT * 4;
    const float *a = img + ((size_t)j[0] * w + i[0]) * 4, *b = img + ((size_t)j[0] * w + i[1]) * 4;
    const float *c = img + ((size_t)j[1] * w + i[0]) * 4, *e = img + ((size_t)j[1] * w + i[1]) * 4;
    for (int k = 0; k < 3; k++) {
        float top = a[k] + (b[k] - a[k]) * fx, bot = c[k] + (e[k] - c[k]) * fx;
        out[k] = top + (bot - top) * fy;
    }
}

void _oak_sky_background(const float *sky, const float dir[3], float out[3]) {
    float d[3] = {dir[0], dir[1], dir[2]};
    normalize3(d);
    if (sky[3] > 0) {
        image_at(sky, d, out);
        float s = sky[19] > 0 ? sky[19] : 1; /* the image at the world's brightness */
        for (int k = 0; k < 3; k++) out[k] *= s;
        if (sky[20] > 0) { /* an overcast deck: toward the grey of its luminance */
            float l = 0.2126f * out[0] + 0.7152f * out[1] + 0.0722f * out[2];
            for (int k = 0; k < 3; k++) out[k] += (l - out[k]) * sky[20];
        }
        return;
    }
    const float *z = sky, *h = sky + 4;
    if (d[1] > 0) {
        float t = sqrtf(d[1]);
        for (int k = 0; k < 3; k++) out[k] = h[k] + (z[k] - h[k]) * t;
    } else {
        for (int k = 0; k < 3; k++) out[k] = h[k];
    }
}

void _oak_sun_disc_params(const oak_render_view *v, float *cos_radius, float *inv_solid_angle) {
    *cos_radius = 0, *inv_solid_angle = 0;
    float r = v->env.sun_disc;
    if (!(r > 0) || r > 0.5f || !v->env.sky_image.id || v->key_light < 0 ||
        (uint32_t)v->key_light >= v->light_count)
        return;
    const oak_render_light *l = &v->lights[v->key_light];
    if (l->light.type != OAK_LIGHT_DIRECTIONAL && l->light.type != OAK_LIGHT_DEFAULT) return;
    *cos_radius = (float)cos((double)r);
    *inv_solid_angle = (float)(1.0 / (2.0 * OAK_PI * (1.0 - cos((double)r))));
}

void _oak_sun_disc_add(const oak_render_view *v, const float dir[3], float out[3]) {
    float c, inv;
    _oak_sun_disc_params(v, &c, &inv);
    if (!(c > 0)) return;
    const oak_render_light *l = &v->lights[v->key_light];
    float d[3] = {dir[0], dir[1], dir[2]};
    normalize3(d);
    /* toward the light: against the way it travels */
    float cd = -(d[0] * l->direction[0] + d[1] * l->direction[1] + d[2] * l->direction[2]);
    if (cd < c) return;
    float k = l->light.intensity * inv;
    for (int i = 0; i < 3; i++) out[i] += l->light.color[i] * k;
}

/* what lights: the sky, with the ground's colour below the horizon when set */
static void light_at(const float *sky, const float d[3], float out[3]) {
    if (sky[11] > 0 && d[1] < 0) {
        for (int k = 0; k < 3; k++) out[k] = sky[12 + k];
        return;
    }
    _oak_sky_background(sky, d, out);
}

/* ---- the maps ------------------------------------------------------------ */

/* The capture's light through the cloud layer (SHADING.md "The sky light
   sees them"): the sky seen through it, T sky(d) + S, S in the units the
   irradiance's scale turns the capture into (so divided by it; a channel
   scaled by 0 keeps no S). The head's floats 21 .. 30 (_oak_sky_prepare):
   the clear sky's irradiance from above and from low, the flag, the point. */
static void through_clouds(const float *sky, const oak_gpu_clouds *c, const float *cbuf,
                           const float d[3], float col[3]) {
    if (!c || !(sky[27] > 0) || !(d[1] > 0)) return;
    float o[4];
    _oak_clouds_sky(c, cbuf, sky + 28, d, sky + 21, o);
    for (int k = 0; k < 3; k++)
        col[k] = col[k] * o[3] + (sky[8 + k] > 0 ? o[k] / sky[8 + k] : 0.0f);
}

void _oak_sky_capture_texel(float *sky, uint32_t i) {
    _oak_sky_capture_texel_clouds(sky, i, NULL, NULL);
}

void _oak_sky_capture_texel_clouds(float *sky, uint32_t i, const oak_gpu_clouds *cl,
                                   const float *cbuf) {
    uint32_t level = 0, n = OAK_SKY_CAPTURE_SIZE, at = 0;
    while (i >= at + n * n) at += n * n, n >>= 1, level++;
    uint32_t t = i - at, x = t % n, y = t / n;
    /* the average over the texel's footprint on level 0, at most TAPS^2 points */
    uint32_t taps = (1u << level) < OAK_SKY_CAPTURE_TAPS ? (1u << level) : OAK_SKY_CAPTURE_TAPS;
    float sum[3] = {0, 0, 0};
    for (uint32_t b = 0; b < taps; b++) {
        for (uint32_t a = 0; a < taps; a++) {
            float u = ((float)x + ((float)a + 0.5f) / (float)taps) / (float)n;
            float v = ((float)y + ((float)b + 0.5f) / (float)taps) / (float)n;
            float q[3], c[3];
            _oak_sky_oct_point(u, v, q);
            normalize3(q);
            light_at(sky, q, c);
            through_clouds(sky, cl, cbuf, q, c);
            for (int k = 0; k < 3; k++) sum[k] += c[k];
        }
    }
    float *o = sky + ((size_t)OAK_GPU_SKY_CAPTURE_AT + i) * 4;
    float inv = 1.0f / (float)(taps * taps);
    for (int k = 0; k < 3; k++) o[k] = sum[k] * inv;
    o[3] = 1.0f;
}

/* Hammersley point i of n */
static void hammersley(uint32_t i, uint32_t n, float xi[2]) {
    uint32_t b = i;
    b = (b << 16) | (b >> 16);
    b = ((b & 0x55555555u) << 1) | ((b & 0xAAAAAAAAu) >> 1);
    b = ((b & 0x33333333u) << 2) | ((b & 0xCCCCCCCCu) >> 2);
    b = ((b & 0x0F0F0F0Fu) << 4) | ((b & 0xF0F0F0F0u) >> 4);
    b = ((b & 0x00FF00FFu) << 8) | ((b & 0xFF00FF00u) >> 8);
    xi[0] = ((float)i + 0.5f) / (float)n;
    xi[1] = (float)b * 2.3283064365386963e-10f;
}

/* a GGX half vector around +Z for a = roughness^2: (x, y, z = NdotH) */
static void ggx_half(const float xi[2], float a, float h[3]) {
    float phi = 2.0f * SKY_PI * xi[0];
    float ct = sqrtf((1.0f - xi[1]) / (1.0f + (a * a - 1.0f) * xi[1]));
    float st = sqrtf(clampf(1.0f - ct * ct, 0.0f, 1.0f));
    h[0] = st * cosf(phi), h[1] = st * sinf(phi), h[2] = ct;
}

static void irradiance_texel(float *sky, uint32_t i) {
    const uint32_t n = OAK_SKY_IRRADIANCE_SIZE,
                   m = OAK_SKY_CAPTURE_SIZE >> OAK_SKY_IRRADIANCE_LEVEL;
    float N[3];
    _oak_sky_oct_point(((float)(i % n) + 0.5f) / (float)n, ((float)(i / n) + 0.5f) / (float)n, N);
    normalize3(N);
    const float *src = sky + (size_t)capture_at(OAK_SKY_IRRADIANCE_LEVEL) * 4;
    const float *scale = sky + 8, *offset = sky + 16;
    bool ground = sky[11] > 0;
    float sum[3] = {0, 0, 0}, wsum = 0;
    for (uint32_t t = 0; t < m * m; t++) {
        float q[3];
        _oak_sky_oct_point(((float)(t % m) + 0.5f) / (float)m, ((float)(t / m) + 0.5f) / (float)m,
                           q);
        /* a texel's solid angle is dA / |q|^3 on the octahedral map */
        float l2 = dot3(q, q), l = sqrtf(l2);
        float c = dot3(N, q) / l;
        if (c <= 0) continue;
        float w = c / (l2 * l);
        /* the scale is the sky's, not the ground's */
        bool sky_part = !ground || q[1] >= 0;
        for (int k = 0; k < 3; k++)
            sum[k] += (sky_part ? src[t * 4 + k] * scale[k] + offset[k] : src[t * 4 + k]) * w;
        wsum += w;
    }
    float *o = sky + ((size_t)OAK_GPU_SKY_IRR_AT + i) * 4;
    for (int k = 0; k < 3; k++) o[k] = wsum > 0 ? SKY_PI * sum[k] / wsum : 0.0f;
    o[3] = 1.0f;
}

static void specular_texel(float *sky, uint32_t i) {
    uint32_t level = 0, at = 0, n = _oak_sky_spec_size(0);
    while (i >= at + n * n) at += n * n, n = _oak_sky_spec_size(++level);
    uint32_t t = i - at;
    float rough = (float)level / (float)(OAK_SKY_SPECULAR_LEVELS - 1);
    float a = rough * rough > 1e-3f ? rough * rough : 1e-3f, a2 = a * a;
    float N[3];
    _oak_sky_oct_point(((float)(t % n) + 0.5f) / (float)n, ((float)(t / n) + 0.5f) / (float)n, N);
    normalize3(N);
    /* a frame around N (V = N: the split sum's assumption) */
    float up[3] = {0, 1, 0};
    if (fabsf(N[1]) > 0.999f) up[0] = 1, up[1] = 0;
    float T[3] = {up[1] * N[2] - up[2] * N[1], up[2] * N[0] - up[0] * N[2],
                  up[0] * N[1] - up[1] * N[0]};
    normalize3(T);
    float B[3] = {N[1] * T[2] - N[2] * T[1], N[2] * T[0] - N[0] * T[2], N[0] * T[1] - N[1] * T[0]};
    /* a capture texel's solid angle at level 0 */
    const float texel_sr = 4.0f * SKY_PI / (float)(OAK_SKY_CAPTURE_SIZE * OAK_SKY_CAPTURE_SIZE);
    float sum[3] = {0, 0, 0}, wsum = 0;
    for (uint32_t s = 0; s < OAK_SKY_SPECULAR_SAMPLES; s++) {
        float xi[2], h[3];
        hammersley(s, OAK_SKY_SPECULAR_SAMPLES, xi);
        ggx_half(xi, a, h);
        float H[3];
        for (int k = 0; k < 3; k++) H[k] = T[k] * h[0] + B[k] * h[1] + N[k] * h[2];
        float VdotH = dot3(N, H);
        float L[3];
        for (int k = 0; k < 3; k++) L[k] = 2.0f * VdotH * H[k] - N[k];
        float NdotL = dot3(N, L);
        if (NdotL <= 0) continue;
        /* filtered importance sampling: read the mip whose texels are as
           large as this sample's share of the lobe (pdf = D / 4 when V = N) */
        float NdotH = h[2], dd = NdotH * NdotH * (a2 - 1.0f) + 1.0f;
        float D = a2 / (SKY_PI * dd * dd);
        float sample_sr = 4.0f / ((float)OAK_SKY_SPECULAR_SAMPLES * D);
        float lod = 0.5f * log2f(sample_sr / texel_sr) + 1.0f;
        float c[3];
        capture_lod(sky, L, lod, c);
        for (int k = 0; k < 3; k++) sum[k] += c[k] * NdotL;
        wsum += NdotL;
    }
    float *o = sky + ((size_t)OAK_GPU_SKY_SPEC_AT + i) * 4;
    for (int k = 0; k < 3; k++) o[k] = wsum > 0 ? sum[k] / wsum : 0.0f;
    o[3] = 1.0f;
}

void _oak_sky_filter_texel(float *sky, uint32_t i) {
    const uint32_t irr = OAK_SKY_IRRADIANCE_SIZE * OAK_SKY_IRRADIANCE_SIZE;
    if (i < irr)
        irradiance_texel(sky, i);
    else
        specular_texel(sky, i - irr);
}

void _oak_sky_brdf_texel(float *sky, uint32_t i) {
    const uint32_t n = OAK_SKY_BRDF_SIZE;
    float NdotV = ((float)(i % n) + 0.5f) / (float)n;
    float rough = ((float)(i / n) + 0.5f) / (float)n;
    float a = rough * rough, a2 = a * a;
    float V[3] = {sqrtf(1.0f - NdotV * NdotV), 0.0f, NdotV};
    float A = 0, B = 0;
    for (uint32_t s = 0; s < OAK_SKY_BRDF_SAMPLES; s++) {
        float xi[2], H[3];
        hammersley(s, OAK_SKY_BRDF_SAMPLES, xi);
        ggx_half(xi, a, H);
        float VdotH = dot3(V, H);
        float L[3];
        for (int k = 0; k < 3; k++) L[k] = 2.0f * VdotH * H[k] - V[k];
        float NdotL = L[2], NdotH = H[2];
        if (NdotL <= 0 || VdotH <= 0) continue;
        /* the direct light's visibility term (SHADING.md "BRDF"), as G / (4 NdotL NdotV) */
        float den = NdotL * sqrtf(NdotV * NdotV * (1.0f - a2) + a2) +
                    NdotV * sqrtf(NdotL * NdotL * (1.0f - a2) + a2);
        float vis = 0.5f / (den > 1e-7f ? den : 1e-7f);
        float g = vis * 4.0f * NdotL * VdotH / NdotH;
        float om = 1.0f - VdotH, fc = om * om * om * om * om;
        A += (1.0f - fc) * g;
        B += fc * g;
    }
    float *o = sky + ((size_t)OAK_GPU_SKY_BRDF_AT + i) * 4;
    o[0] = A / (float)OAK_SKY_BRDF_SAMPLES;
    o[1] = B / (float)OAK_SKY_BRDF_SAMPLES;
    o[2] = 0, o[3] = 1;
}

/* ---- reads --------------------------------------------------------------- */

void _oak_sky_irradiance(const float *sky, const float n[3], float out[3]) {
    _oak_sky_oct_bilinear(sky, OAK_GPU_SKY_IRR_AT, OAK_SKY_IRRADIANCE_SIZE, n, out);
}

void _oak_sky_specular(const float *sky, const float r[3], float roughness, float out[3]) {
    float lod = clampf(roughness, 0.0f, 1.0f) * (float)(OAK_SKY_SPECULAR_LEVELS - 1);
    uint32_t l0 = (uint32_t)floorf(lod);
    uint32_t l1 = l0 + 1 < OAK_SKY_SPECULAR_LEVELS ? l0 + 1 : l0;
    float f = lod - (float)l0, a[3], b[3], uv[2];
    oct_uv_clamped(r, uv); /* one map point for both levels */
    oct_bilinear_uv(sky, _oak_sky_spec_at(l0), _oak_sky_spec_size(l0), uv, a);
    oct_bilinear_uv(sky, _oak_sky_spec_at(l1), _oak_sky_spec_size(l1), uv, b);
    for (int k = 0; k < 3; k++) out[k] = a[k] + (b[k] - a[k]) * f;
}

void _oak_sky_brdf(const float *sky, float NdotV, float roughness, float *A, float *B) {
    const int n = OAK_SKY_BRDF_SIZE;
    float x = clampf(NdotV, 0.0f, 1.0f) * (float)n - 0.5f;
    float y = clampf(roughness, 0.0f, 1.0f) * (float)n - 0.5f;
    float x0 = floorf(x), y0 = floorf(y), fx = x - x0, fy = y - y0;
    int i0 = (int)x0, j0 = (int)y0;
    int i[2] = {i0 < 0 ? 0 : i0, i0 + 1 > n - 1 ? n - 1 : i0 + 1};
    int j[2] = {j0 < 0 ? 0 : j0, j0 + 1 > n - 1 ? n - 1 : j0 + 1};
    const float *t = sky + (size_t)OAK_GPU_SKY_BRDF_AT * 4;
    float r[2];
    for (int k = 0; k < 2; k++) {
        float a = t[(j[0] * n + i[0]) * 4 + k], b = t[(j[0] * n + i[1]) * 4 + k];
        float c = t[(j[1] * n + i[0]) * 4 + k], e = t[(j[1] * n + i[1]) * 4 + k];
        float top = a + (b - a) * fx, bot = c + (e - c) * fx;
        r[k] = top + (bot - top) * fy;
    }
    *A = r[0], *B = r[1];
}

/* ---- the host's part ----------------------------------------------------- */

/* the sky image's level that fits the buffer, or NULL */
static const oak_texture_data *image_level(const oak_render_view *v, uint32_t *level) {
    if (!v->env.sky_image.id) return NULL;
    const oak_texture_data *t = oak_texture_get(v->env.sky_image);
    if (!t) return NULL;
    for (uint32_t l = 0; l < t->mip_count; l++) {
        if (t->mip_width[l] <= OAK_SKY_IMAGE_WIDTH && t->mip_height[l] <= OAK_SKY_IMAGE_HEIGHT) {
            *level = l;
            return t;
        }
    }
    return NULL;
}

bool _oak_sky_cloud_point(const oak_render_view *v, oak_gpu_clouds *c, float P[3]) {
    _oak_clouds_fill(c, v, 1, 1);
    if (c->shape[3] == 0.0f) return false;
    /* the eye in the drifting field (the record's drift is the field's
       offset), snapped to whole cells: the capture moves on only when the
       eye has crossed into another cell of it */
    const float cell = (float)OAK_CLOUD_SKY_CELL;
    float e[3] = {v->camera_pos[0] - c->layer[2], v->camera_pos[1], v->camera_pos[2] - c->layer[3]};
    for (int k = 0; k < 3; k++) {
        float q = roundf(e[k] / cell) * cell;
        P[k] = isfinite(q) && q != 0.0f ? q : 0.0f; /* -0 hashes apart from 0 */
    }
    c->layer[2] = c->layer[3] = 0.0f; /* the capture marches in the field's own frame */
    return true;
}

uint64_t _oak_sky_hash(const oak_render_view *v) {
    float f[17];
    memcpy(f, v->sky_zenith, 12);
    memcpy(f + 3, v->sky_horizon, 12);
    memcpy(f + 6, v->env.ambient_sky, 12);
    memcpy(f + 9, v->env.ambient_ground, 12);
    uint32_t level = 0;
    const oak_texture_data *t = image_level(v, &level);
    uint32_t img[3] = {t ? v->env.sky_image.id : 0, t ? t->version : 0, level};
    memcpy(&f[12], img, sizeof img);
    f[15] = v->env.sky_light;
    f[16] = v->env.sky_grey;
    uint64_t h = oak_hash(f, sizeof f, 0x5c1e);
    /* the clouds: what the capture's march reads of the record, and the
       snapped point (not the drift itself, which moves every frame) */
    oak_gpu_clouds c;
    float P[3];
    if (_oak_sky_cloud_point(v, &c, P)) {
        float g[18];
        memcpy(g, c.shape, 12);
        memcpy(g + 3, c.layer, 8);
        memcpy(g + 5, c.sun, 16);
        memcpy(g + 9, c.light, 12);
        memcpy(g + 12, P, 12);
        g[15] = c.ambient[0];
        g[16] = 1.0f;
        g[17] = c.light[3]; /* the type's variation */
        h = oak_hash(g, sizeof g, h);
    }
    return h ? h : 1;
}

/* the irradiance at normal N of the clear sky the head describes, as
   irradiance_texel sums the capture (scale and offset on the sky's part) */
static void clear_irradiance(const float *sky, const float N[3], float out[3]) {
    const uint32_t m = 32;
    bool ground = sky[11] > 0;
    float sum[3] = {0, 0, 0}, wsum = 0;
    for (uint32_t t = 0; t < m * m; t++) {
        float q[3], c[3];
        _oak_sky_oct_point(((float)(t % m) + 0.5f) / (float)m, ((float)(t / m) + 0.5f) / (float)m,
                           q);
        float l2 = dot3(q, q), l = sqrtf(l2);
        float cs = dot3(N, q) / l;
        if (cs <= 0) continue;
        float w = cs / (l2 * l), d[3] = {q[0] / l, q[1] / l, q[2] / l};
        light_at(sky, d, c);
        bool sky_part = !ground || q[1] >= 0;
        for (int k = 0; k < 3; k++)
            sum[k] += (sky_part ? c[k] * sky[8 + k] + sky[16 + k] : c[k]) * w;
        wsum += w;
    }
    for (int k = 0; k < 3; k++) out[k] = wsum > 0 ? SKY_PI * sum[k] / wsum : 0.0f;
}

static float srgb_to_linear(float c) {
    return c <= 0.04045f ? c / 12.92f : powf((c + 0.055f) / 1.055f, 2.4f);
}

size_t _oak_sky_prepare(float *sky, const oak_render_view *v, bool brdf) {
    memset(sky, 0, OAK_GPU_SKY_HEAD * 4 * sizeof(float));
    memcpy(sky, v->sky_zenith, 12);
    memcpy(sky + 4, v->sky_horizon, 12);
    uint32_t level = 0;
    const oak_texture_data *t = image_level(v, &level);
    size_t texels = 0;
    /* the sky's cosine-weighted mean over the upper hemisphere, to scale its
       diffuse light to ambient_sky */
    double up[3] = {0, 0, 0}, wsum = 0;
    if (t) {
        uint32_t w = t->mip_width[level], h = t->mip_height[level];
        float *img = sky + (size_t)OAK_GPU_SKY_IMAGE_AT * 4;
        texels = (size_t)w * h;
        for (size_t p = 0; p < texels; p++) {
            if (t->format == OAK_FORMAT_RGBA32F) {
                memcpy(img + p * 4, (const float *)t->mips[level] + p * 4, 16);
            } else {
                const uint8_t *b = (const uint8_t *)t->mips[level] + p * 4;
                bool srgb = t->format != OAK_FORMAT_RGBA8;
                for (int k = 0; k < 3; k++)
                    img[p * 4 + k] = srgb ? srgb_to_linear(b[k] / 255.0f) : b[k] / 255.0f;
                img[p * 4 + 3] = b[3] / 255.0f;
            }
        }
        for (uint32_t y = 0; y < h / 2; y++) {
            double theta = ((double)y + 0.5) / h * SKY_PI;
            double wr = cos(theta) * sin(theta);
            for (uint32_t x = 0; x < w; x++)
                for (int k = 0; k < 3; k++) up[k] += wr * img[((size_t)y * w + x) * 4 + k];
            wsum += wr * w;
        }
        for (int k = 0; k < 3; k++) up[k] = wsum > 0 ? up[k] / wsum : 0;
        sky[3] = (float)w, sky[7] = (float)h;
    } else {
        /* mix(h, z, sqrt(y)) weighted by y over the hemisphere: 0.2 h + 0.8 z */
        for (int k = 0; k < 3; k++) up[k] = 0.2 * v->sky_horizon[k] + 0.8 * v->sky_zenith[k];
    }
    const float *as = v->env.ambient_sky, *g = v->env.ambient_ground;
    bool scaled = as[0] > 0 || as[1] > 0 || as[2] > 0;
    /* An image's texels are relative: where the sky light is scaled to
       ambient_sky, the image shows at that brightness too (one factor, so
       its colours stay its own), so a physically lit world under an .hdr
       taken at any exposure shows it as its light says. */
    double lum_up = 0.2126 * up[0] + 0.7152 * up[1] + 0.0722 * up[2];
    double lum_as = 0.2126 * as[0] + 0.7152 * as[1] + 0.0722 * as[2];
    double shown = t && scaled && lum_up > 0 && lum_as > 0 ? lum_as / lum_up : 1;
    sky[19] = (float)shown;
    /* a channel the sky has nothing of (a black sky) lights flat with ambient_sky */
    for (int k = 0; k < 3; k++) {
        double seen = up[k] * shown; /* what the capture reads of the sky */
        sky[8 + k] = !scaled ? 1.0f : seen > 0 ? (float)(as[k] / seen) : 0.0f;
        sky[16 + k] = scaled && !(up[k] > 0) ? as[k] : 0.0f;
    }
    sky[11] = g[0] > 0 || g[1] > 0 || g[2] > 0 ? 1.0f : 0.0f;
    memcpy(sky + 12, g, 12);
    sky[15] = brdf ? 1.0f : 0.0f;
    /* weather's scale of the whole sky (oak_environment.sky_light): what is
       drawn and what the capture reads, so its light follows. The gradient
       comes scaled from the frontend (v->sky_zenith), which the diffuse
       scale above divided out where ambient_sky is given: put it back. */
    float s = v->env.sky_light > 0 ? v->env.sky_light : 1.0f;
    if (s != 1.0f) {
        for (int k = 0; k < 3; k++) {
            sky[12 + k] *= s, sky[16 + k] *= s;
            if (!t && scaled) sky[8 + k] *= s;
        }
        if (t) sky[19] = (float)shown * s;
    }
    sky[20] = t ? v->env.sky_grey : 0.0f; /* the gradient comes grey from the frontend */
    oak_gpu_clouds c;
    float P[3];
    if (_oak_sky_cloud_point(v, &c, P)) {
        /* what lights the captured clouds: the clear sky's irradiance from
           above and from low, as _oak_clouds_ambient reads the maps (which
           are being made), summed here over a 32 x 32 octahedral grid as
           the irradiance map sums the capture */
        const float up[3] = {0, 1, 0};
        static const float dirs[5][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}, {0, -1, 0}};
        float e[5][3];
        clear_irradiance(sky, up, sky + 21);
        for (int k = 0; k < 5; k++) clear_irradiance(sky, dirs[k], e[k]);
        for (int i = 0; i < 3; i++)
            sky[24 + i] = 0.125f * (e[0][i] + e[1][i] + e[2][i] + e[3][i]) + 0.5f * e[4][i];
        sky[27] = 1.0f;
        memcpy(sky + 28, P, 12);
    }
    return texels;
}
