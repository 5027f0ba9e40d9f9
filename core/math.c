/* The math cglm lacks: reversed-Z projections, bounds, frustum tests, exact
 * sRGB, the ACES fit and seeded gradient noise. */
#include <math.h>
#include <string.h>

#include <oak/vecmath.h>

void oak_perspective_rz(float fovy, float aspect, float znear, float zfar, mat4 out) {
    float f = 1.0f / tanf(fovy * 0.5f);
    memset(out, 0, sizeof(mat4));
    out[0][0] = f / aspect;
    out[1][1] = f;
    out[2][2] = znear / (zfar - znear);
    out[2][3] = -1.0f;
    out[3][2] = znear * zfar / (zfar - znear);
}

void oak_ortho_rz(float l, float r, float b, float t, float znear, float zfar, mat4 out) {
    memset(out, 0, sizeof(mat4));
    out[0][0] = 2.0f / (r - l);
    out[1][1] = 2.0f / (t - b);
    out[2][2] = 1.0f / (zfar - znear);
    out[3][0] = -(r + l) / (r - l);
    out[3][1] = -(t + b) / (t - b);
    out[3][2] = zfar / (zfar - znear);
    out[3][3] = 1.0f;
}

void oak_bounds_empty(oak_bounds *b) {
    for (int i = 0; i < 3; i++) {
        b->min[i] = INFINITY;
        b->max[i] = -INFINITY;
        b->center[i] = 0;
    }
    b->radius = 0;
}

void oak_bounds_add(oak_bounds *b, const float p[3]) {
    for (int i = 0; i < 3; i++) {
        if (p[i] < b->min[i]) b->min[i] = p[i];
        if (p[i] > b->max[i]) b->max[i] = p[i];
    }
}

void oak_bounds_finish(oak_bounds *b) {
    if (b->min[0] > b->max[0]) { /* empty: a point at the origin */
        memset(b, 0, sizeof *b);
        return;
    }
    float r2 = 0;
    for (int i = 0; i < 3; i++) {
        b->center[i] = 0.5f * (b->min[i] + b->max[i]);
        float h = 0.5f * (b->max[i] - b->min[i]);
        r2 += h * h;
    }
    b->radius = sqrtf(r2);
}

void oak_bounds_transform(oak_bounds *out, const oak_bounds *b, mat4 m) {
    oak_bounds r;
    oak_bounds_empty(&r);
    for (int c = 0; c < 8; c++) {
        vec4 p = {c & 1 ? b->max[0] : b->min[0], c & 2 ? b->max[1] : b->min[1],
                  c & 4 ? b->max[2] : b->min[2], 1.0f};
        vec4 q;
        glm_mat4_mulv(m, p, q);
        oak_bounds_add(&r, q);
    }
    oak_bounds_finish(&r);
    *out = r;
}

void oak_frustum_planes(mat4 m, vec4 planes[6]) {
    vec4 row[4];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) row[i][j] = m[j][i];
    for (int k = 0; k < 4; k++) {
        planes[0][k] = row[3][k] + row[0][k]; /* left */
        planes[1][k] = row[3][k] - row[0][k]; /* right */
        planes[2][k] = row[3][k] + row[1][k]; /* bottom */
        planes[3][k] = row[3][k] - row[1][k]; /* top */
        planes[4][k] = row[2][k];             /* z >= 0: far under reversed-Z */
        planes[5][k] = row[3][k] - row[2][k]; /* z <= w: near */
    }
    for (int i = 0; i < 6; i++) {
        float len = sqrtf(planes[i][0] * planes[i][0] + planes[i][1] * planes[i][1] +
                          planes[i][2] * planes[i][2]);
        if (len > 0) glm_vec4_scale(planes[i], 1.0f / len, planes[i]);
    }
}

bool oak_frustum_sphere(const vec4 planes[6], const float c[3], float radius) {
    for (int i = 0; i < 6; i++) {
        float d = planes[i][0] * c[0] + planes[i][1] * c[1] + planes[i][2] * c[2] + planes[i][3];
        if (d < -radius) return false;
    }
    return true;
}

float oak_srgb_to_linear(float c) {
    if (c <= 0.04045f) return c / 12.92f;
    return powf((c + 0.055f) / 1.055f, 2.4f);
}

float oak_linear_to_srgb(float c) {
    if (c <= 0.0031308f) return c * 12.92f;
    return 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

float oak_aces(float x) {
    const float a = 2.51f, b = 0.03f, c = 2.43f, d = 0.59f, e = 0.14f;
    float y = (x * (a * x + b)) / (x * (c * x + d) + e);
    return y < 0 ? 0 : (y > 1 ? 1 : y);
}

/* Gradient noise with Perlin's quintic fade and 12 edge gradients; the
   gradient comes from a hash of the lattice point and seed instead of a
   permutation table, so any seed costs nothing to set up. */
static uint32_t lattice_hash(int32_t x, int32_t y, int32_t z, uint32_t seed) {
    uint32_t h = seed * 0x9E3779B1u;
    h ^= (uint32_t)x * 0x85EBCA77u;
    h = (h << 13) | (h >> 19);
    h ^= (uint32_t)y * 0xC2B2AE3Du;
    h = (h << 13) | (h >> 19);
    h ^= (uint32_t)z * 0x27D4EB2Fu;
    h ^= h >> 15;
    h *= 0x2C1B3C6Du;
    h ^= h >> 12;
    return h;
}

static float grad(uint32_t h, float x, float y, float z) {
    switch (h % 12u) {
    case 0:
        return x + y;
    case 1:
        return -x + y;
    case 2:
        return x - y;
    case 3:
        return -x - y;
    case 4:
        return x + z;
    case 5:
        return -x + z;
    case 6:
        return x - z;
    case 7:
        return -x - z;
    case 8:
        return y + z;
    case 9:
        return -y + z;
    case 10:
        return y - z;
    default:
        return -y - z;
    }
}

static float fade(float t) {
    return t * t * t * (t * (t * 6 - 15) + 10);
}
static float lerpf(float a, float b, float t) {
    return a + (b - a) * t;
}

float oak_noise3(float x, float y, float z, uint32_t seed) {
    float fx = floorf(x), fy = floorf(y), fz = floorf(z);
    int32_t ix = (int32_t)fx, iy = (int32_t)fy, iz = (int32_t)fz;
    x -= fx;
    y -= fy;
    z -= fz;
    float u = fade(x), v = fade(y), w = fade(z);
    float n[8];
    for (int c = 0; c < 8; c++) {
        int dx = c & 1, dy = (c >> 1) & 1, dz = (c >> 2) & 1;
        n[c] = grad(lattice_hash(ix + dx, iy + dy, iz + dz, seed), x - dx, y - dy, z - dz);
    }
    float x00 = lerpf(n[0], n[1], u), x10 = lerpf(n[2], n[3], u);
    float x01 = lerpf(n[4], n[5], u), x11 = lerpf(n[6], n[7], u);
    float r = lerpf(lerpf(x00, x10, v), lerpf(x01, x11, v), w);
    return r < -1 ? -1 : (r > 1 ? 1 : r);
}

float oak_fbm2(float x, float y, uint32_t seed, uint32_t octaves, float lacunarity, float gain) {
    float sum = 0, amp = 1, norm = 0;
    for (uint32_t o = 0; o < octaves; o++) {
        sum += amp * oak_noise3(x, y, 0.5f + (float)o * 17.0f, seed + o);
        norm += amp;
        x *= lacunarity;
        y *= lacunarity;
        amp *= gain;
    }
    return norm > 0 ? sum / norm : 0;
}
