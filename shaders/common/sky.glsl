// The sky light in GLSL: render/skylight.c operation for operation (the
// octahedral maps, one texel of the capture, irradiance, prefilter and BRDF
// table, and the shading's reads). Layout: OAK_GPU_SKY_* in oak_gpu.h.
// A pass that writes the maps defines OAK_SKY_WRITE before including this.
#ifndef OAK_SKY_GLSL
#define OAK_SKY_GLSL

#include "common/oak_gpu.h"

#ifdef OAK_SKY_WRITE
OAK_SSBO(OAK_B_SKY) buffer SkyBlock { vec4 sky[]; };
#else
OAK_SSBO(OAK_B_SKY) readonly buffer SkyBlock { vec4 sky[]; };
#endif

#define OAK_SKY_PI 3.14159265358979323846

float oak_sky_sgn(float x) { return x >= 0.0 ? 1.0 : -1.0; }

// ---- octahedral maps ----------------------------------------------------

vec3 oak_sky_oct_point(float u, float v) {
    float px = u * 2.0 - 1.0, pz = v * 2.0 - 1.0;
    float y = 1.0 - abs(px) - abs(pz);
    if (y < 0.0) {
        float fx = (1.0 - abs(pz)) * oak_sky_sgn(px), fz = (1.0 - abs(px)) * oak_sky_sgn(pz);
        px = fx;
        pz = fz;
    }
    return vec3(px, y, pz);
}

vec2 oak_sky_oct_uv(vec3 d) {
    float s = abs(d.x) + abs(d.y) + abs(d.z);
    float px = d.x / s, pz = d.z / s;
    if (d.y < 0.0) {
        float fx = (1.0 - abs(pz)) * oak_sky_sgn(px), fz = (1.0 - abs(px)) * oak_sky_sgn(pz);
        px = fx;
        pz = fz;
    }
    return vec2(px * 0.5 + 0.5, pz * 0.5 + 0.5);
}

// the buffer index of texel (i, j) of an n x n octahedral level at `at`: a
// texel just past an edge is the one mirrored along that edge
uint oak_oct_index(uint at, int n, int i, int j) {
    if (i < 0) {
        i = -1 - i;
        j = n - 1 - j;
    } else if (i >= n) {
        i = 2 * n - 1 - i;
        j = n - 1 - j;
    }
    if (j < 0) {
        j = -1 - j;
        i = n - 1 - i;
    } else if (j >= n) {
        j = 2 * n - 1 - j;
        i = n - 1 - i;
    }
    return at + uint(j) * uint(n) + uint(i);
}

// NaN goes to 0, as render/skylight.c's clampf
float oak_sky_clamp(float x, float lo, float hi) { return x > lo ? (x < hi ? x : hi) : lo; }

// the four texels a bilinear read of direction d takes (a, b on the upper
// row, c, e below) and its weights; every octahedral map reads through this
void oak_oct_taps(uint at, uint n, vec3 d, out uint t[4], out vec2 f) {
    vec2 uv = oak_sky_oct_uv(d);
    uv = vec2(oak_sky_clamp(uv.x, 0.0, 1.0), oak_sky_clamp(uv.y, 0.0, 1.0));
    float x = uv.x * float(n) - 0.5, y = uv.y * float(n) - 0.5;
    float x0 = floor(x), y0 = floor(y);
    f = vec2(x - x0, y - y0);
    int i = int(x0), j = int(y0), N = int(n);
    t[0] = oak_oct_index(at, N, i, j);
    t[1] = oak_oct_index(at, N, i + 1, j);
    t[2] = oak_oct_index(at, N, i, j + 1);
    t[3] = oak_oct_index(at, N, i + 1, j + 1);
}

vec3 oak_oct_mix(vec3 a, vec3 b, vec3 c, vec3 e, vec2 f) {
    vec3 top = a + (b - a) * f.x, bot = c + (e - c) * f.x;
    return top + (bot - top) * f.y;
}

vec3 oak_sky_oct_bilinear(uint at, uint n, vec3 d) {
    uint t[4];
    vec2 f;
    oak_oct_taps(at, n, d, t, f);
    return oak_oct_mix(sky[t[0]].rgb, sky[t[1]].rgb, sky[t[2]].rgb, sky[t[3]].rgb, f);
}

uint oak_sky_capture_at(uint level) {
    uint at = uint(OAK_GPU_SKY_CAPTURE_AT);
    for (uint l = 0u; l < level; l++) {
        uint n = uint(OAK_SKY_CAPTURE_SIZE) >> l;
        at += n * n;
    }
    return at;
}

uint oak_sky_spec_size(uint level) {
    uint n = uint(OAK_SKY_SPECULAR_SIZE) >> level;
    return n > uint(OAK_SKY_SPECULAR_MIN) ? n : uint(OAK_SKY_SPECULAR_MIN);
}

uint oak_sky_spec_at(uint level) {
    uint at = uint(OAK_GPU_SKY_SPEC_AT);
    for (uint l = 0u; l < level; l++) at += oak_sky_spec_size(l) * oak_sky_spec_size(l);
    return at;
}

vec3 oak_sky_capture_lod(vec3 d, float lod) {
    lod = clamp(lod, 0.0, float(OAK_SKY_CAPTURE_MIPS - 1));
    uint l0 = uint(floor(lod));
    uint l1 = l0 + 1u < uint(OAK_SKY_CAPTURE_MIPS) ? l0 + 1u : l0;
    float f = lod - float(l0);
    vec3 a = oak_sky_oct_bilinear(oak_sky_capture_at(l0), uint(OAK_SKY_CAPTURE_SIZE) >> l0, d);
    vec3 b = oak_sky_oct_bilinear(oak_sky_capture_at(l1), uint(OAK_SKY_CAPTURE_SIZE) >> l1, d);
    return a + (b - a) * f;
}

// ---- the sky itself -----------------------------------------------------

vec3 oak_sky_image_at(vec3 d) {
    int w = int(sky[0].w), h = int(sky[1].w);
    float u = oak_sky_clamp(atan(d.x, -d.z) / (2.0 * OAK_SKY_PI) + 0.5, 0.0, 1.0);
    float v = acos(oak_sky_clamp(d.y, -1.0, 1.0)) / OAK_SKY_PI;
    float x = u * float(w) - 0.5, y = v * float(h) - 0.5;
    float x0 = floor(x), y0 = floor(y), fx = x - x0, fy = y - y0;
    int i0 = int(x0), j0 = int(y0);
    // i0 is in [-1, w - 1]: wrap by hand (% of a negative is undefined in GLSL)
    int ia = i0 < 0 ? i0 + w : i0, ib = i0 + 1 >= w ? i0 + 1 - w : i0 + 1;
    int ja = clamp(j0, 0, h - 1), jb = clamp(j0 + 1, 0, h - 1);
    uint img = uint(OAK_GPU_SKY_IMAGE_AT);
    vec3 a = sky[img + uint(ja * w + ia)].rgb, b = sky[img + uint(ja * w + ib)].rgb;
    vec3 c = sky[img + uint(jb * w + ia)].rgb, e = sky[img + uint(jb * w + ib)].rgb;
    vec3 top = a + (b - a) * fx, bot = c + (e - c) * fx;
    return top + (bot - top) * fy;
}

// the background: what the resolve draws where there is no surface
vec3 oak_sky_background(vec3 dir) {
    vec3 d = normalize(dir);
    // the image at the world's brightness (render/skylight.c, head[19])
    if (sky[0].w > 0.0) {
        vec3 c = oak_sky_image_at(d) * (sky[4].w > 0.0 ? sky[4].w : 1.0);
        // an overcast deck: toward the grey of its luminance (head[20])
        if (sky[5].x > 0.0) c += (vec3(dot(c, vec3(0.2126, 0.7152, 0.0722))) - c) * sky[5].x;
        return c;
    }
    vec3 z = sky[0].rgb, h = sky[1].rgb;
    if (d.y > 0.0) return h + (z - h) * sqrt(d.y);
    return h;
}

vec3 oak_sky_light_at(vec3 d) {
    if (sky[2].w > 0.0 && d.y < 0.0) return sky[3].rgb;
    return oak_sky_background(d);
}

// ---- the maps -----------------------------------------------------------

#ifdef OAK_SKY_WRITE
#ifdef OAK_SKY_CLOUDS
// the sky seen through the clouds (skycapture.comp defines it)
vec3 oak_sky_clouded(vec3 d, vec3 c);
#endif

void oak_sky_capture_texel(uint i) {
    uint level = 0u, n = uint(OAK_SKY_CAPTURE_SIZE), at = 0u;
    while (i >= at + n * n) {
        at += n * n;
        n >>= 1u;
        level++;
    }
    uint t = i - at, x = t % n, y = t / n;
    uint taps = (1u << level) < uint(OAK_SKY_CAPTURE_TAPS) ? (1u << level)
                                                            : uint(OAK_SKY_CAPTURE_TAPS);
    vec3 sum = vec3(0.0);
    for (uint b = 0u; b < taps; b++) {
        for (uint a = 0u; a < taps; a++) {
            float u = (float(x) + (float(a) + 0.5) / float(taps)) / float(n);
            float v = (float(y) + (float(b) + 0.5) / float(taps)) / float(n);
            vec3 q = normalize(oak_sky_oct_point(u, v));
#ifdef OAK_SKY_CLOUDS
            sum += oak_sky_clouded(q, oak_sky_light_at(q));
#else
            sum += oak_sky_light_at(q);
#endif
        }
    }
    sky[uint(OAK_GPU_SKY_CAPTURE_AT) + i] = vec4(sum * (1.0 / float(taps * taps)), 1.0);
}

vec2 oak_sky_hammersley(uint i, uint n) {
    return vec2((float(i) + 0.5) / float(n), float(bitfieldReverse(i)) * 2.3283064365386963e-10);
}

vec3 oak_sky_ggx_half(vec2 xi, float a) {
    float phi = 2.0 * OAK_SKY_PI * xi.x;
    float ct = sqrt((1.0 - xi.y) / (1.0 + (a * a - 1.0) * xi.y));
    float st = sqrt(clamp(1.0 - ct * ct, 0.0, 1.0));
    return vec3(st * cos(phi), st * sin(phi), ct);
}

void oak_sky_irradiance_texel(uint i) {
    uint n = uint(OAK_SKY_IRRADIANCE_SIZE);
    uint m = uint(OAK_SKY_CAPTURE_SIZE) >> uint(OAK_SKY_IRRADIANCE_LEVEL);
    vec3 N = normalize(oak_sky_oct_point((float(i % n) + 0.5) / float(n),
                                         (float(i / n) + 0.5) / float(n)));
    uint src = oak_sky_capture_at(uint(OAK_SKY_IRRADIANCE_LEVEL));
    vec3 scale = sky[2].rgb, offset = sky[4].rgb;
    bool ground = sky[2].w > 0.0;
    vec3 sum = vec3(0.0);
    float wsum = 0.0;
    for (uint t = 0u; t < m * m; t++) {
        vec3 q = oak_sky_oct_point((float(t % m) + 0.5) / float(m), (float(t / m) + 0.5) / float(m));
        float l2 = dot(q, q), l = sqrt(l2);
        float c = dot(N, q) / l;
        if (c <= 0.0) continue;
        float w = c / (l2 * l);
        bool sky_part = !ground || q.y >= 0.0;
        vec3 L = sky[src + t].rgb;
        sum += (sky_part ? L * scale + offset : L) * w;
        wsum += w;
    }
    vec3 e = wsum > 0.0 ? OAK_SKY_PI * sum / wsum : vec3(0.0);
    sky[uint(OAK_GPU_SKY_IRR_AT) + i] = vec4(e, 1.0);
}

void oak_sky_specular_texel(uint i) {
    uint level = 0u, at = 0u, n = oak_sky_spec_size(0u);
    while (i >= at + n * n) {
        at += n * n;
        level++;
        n = oak_sky_spec_size(level);
    }
    uint t = i - at;
    float rough = float(level) / float(OAK_SKY_SPECULAR_LEVELS - 1);
    float a = rough * rough > 1e-3 ? rough * rough : 1e-3, a2 = a * a;
    vec3 N = normalize(oak_sky_oct_point((float(t % n) + 0.5) / float(n),
                                         (float(t / n) + 0.5) / float(n)));
    vec3 up = abs(N.y) > 0.999 ? vec3(1.0, 0.0, 0.0) : vec3(0.0, 1.0, 0.0);
    vec3 T = normalize(cross(up, N));
    vec3 B = cross(N, T);
    float texel_sr = 4.0 * OAK_SKY_PI / float(OAK_SKY_CAPTURE_SIZE * OAK_SKY_CAPTURE_SIZE);
    vec3 sum = vec3(0.0);
    float wsum = 0.0;
    for (uint s = 0u; s < uint(OAK_SKY_SPECULAR_SAMPLES); s++) {
        vec3 h = oak_sky_ggx_half(oak_sky_hammersley(s, uint(OAK_SKY_SPECULAR_SAMPLES)), a);
        vec3 H = T * h.x + B * h.y + N * h.z;
        float VdotH = dot(N, H);
        vec3 L = 2.0 * VdotH * H - N;
        float NdotL = dot(N, L);
        if (NdotL <= 0.0) continue;
        float NdotH = h.z, dd = NdotH * NdotH * (a2 - 1.0) + 1.0;
        float D = a2 / (OAK_SKY_PI * dd * dd);
        float sample_sr = 4.0 / (float(OAK_SKY_SPECULAR_SAMPLES) * D);
        float lod = 0.5 * log2(sample_sr / texel_sr) + 1.0;
        sum += oak_sky_capture_lod(L, lod) * NdotL;
        wsum += NdotL;
    }
    vec3 r = wsum > 0.0 ? sum / wsum : vec3(0.0);
    sky[uint(OAK_GPU_SKY_SPEC_AT) + i] = vec4(r, 1.0);
}

void oak_sky_brdf_texel(uint i) {
    uint n = uint(OAK_SKY_BRDF_SIZE);
    float NdotV = (float(i % n) + 0.5) / float(n);
    float rough = (float(i / n) + 0.5) / float(n);
    float a = rough * rough, a2 = a * a;
    vec3 V = vec3(sqrt(1.0 - NdotV * NdotV), 0.0, NdotV);
    float A = 0.0, B = 0.0;
    for (uint s = 0u; s < uint(OAK_SKY_BRDF_SAMPLES); s++) {
        vec3 H = oak_sky_ggx_half(oak_sky_hammersley(s, uint(OAK_SKY_BRDF_SAMPLES)), a);
        float VdotH = dot(V, H);
        vec3 L = 2.0 * VdotH * H - V;
        float NdotL = L.z, NdotH = H.z;
        if (NdotL <= 0.0 || VdotH <= 0.0) continue;
        float den = NdotL * sqrt(NdotV * NdotV * (1.0 - a2) + a2) +
                    NdotV * sqrt(NdotL * NdotL * (1.0 - a2) + a2);
        float vis = 0.5 / (den > 1e-7 ? den : 1e-7);
        float g = vis * 4.0 * NdotL * VdotH / NdotH;
        float om = 1.0 - VdotH, fc = om * om * om * om * om;
        A += (1.0 - fc) * g;
        B += fc * g;
    }
    sky[uint(OAK_GPU_SKY_BRDF_AT) + i] =
        vec4(A / float(OAK_SKY_BRDF_SAMPLES), B / float(OAK_SKY_BRDF_SAMPLES), 0.0, 1.0);
}
#endif

// ---- reads --------------------------------------------------------------

vec3 oak_sky_irradiance(vec3 n) {
    return oak_sky_oct_bilinear(uint(OAK_GPU_SKY_IRR_AT), uint(OAK_SKY_IRRADIANCE_SIZE), n);
}

vec3 oak_sky_specular(vec3 r, float roughness) {
    float lod = oak_sky_clamp(roughness, 0.0, 1.0) * float(OAK_SKY_SPECULAR_LEVELS - 1);
    uint l0 = uint(floor(lod));
    uint l1 = l0 + 1u < uint(OAK_SKY_SPECULAR_LEVELS) ? l0 + 1u : l0;
    float f = lod - float(l0);
    vec3 a = oak_sky_oct_bilinear(oak_sky_spec_at(l0), oak_sky_spec_size(l0), r);
    vec3 b = oak_sky_oct_bilinear(oak_sky_spec_at(l1), oak_sky_spec_size(l1), r);
    return a + (b - a) * f;
}

vec2 oak_sky_brdf(float NdotV, float roughness) {
    int n = OAK_SKY_BRDF_SIZE;
    float x = oak_sky_clamp(NdotV, 0.0, 1.0) * float(n) - 0.5;
    float y = oak_sky_clamp(roughness, 0.0, 1.0) * float(n) - 0.5;
    float x0 = floor(x), y0 = floor(y), fx = x - x0, fy = y - y0;
    int i0 = int(x0), j0 = int(y0);
    int ia = i0 < 0 ? 0 : i0, ib = i0 + 1 > n - 1 ? n - 1 : i0 + 1;
    int ja = j0 < 0 ? 0 : j0, jb = j0 + 1 > n - 1 ? n - 1 : j0 + 1;
    uint t = uint(OAK_GPU_SKY_BRDF_AT);
    vec2 a = sky[t + uint(ja * n + ia)].xy, b = sky[t + uint(ja * n + ib)].xy;
    vec2 c = sky[t + uint(jb * n + ia)].xy, e = sky[t + uint(jb * n + ib)].xy;
    vec2 top = a + (b - a) * fx, bot = c + (e - c) * fx;
    return top + (bot - top) * fy;
}

#endif
