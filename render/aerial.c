/* Aerial perspective: the frustum volume from the atmosphere's tables and
 * its read (render/aerial.h). */
#include <math.h>
#include <string.h>

#include "aerial.h"
#include "world/sky_internal.h"

#define N OAK_AERIAL_GRID

static inline float clampf(float x, float lo, float hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

static void mul4(const mat4 m, const float in[4], float out[4]) {
    for (int r = 0; r < 4; r++)
        out[r] = m[0][r] * in[0] + m[1][r] * in[1] + m[2][r] * in[2] + m[3][r] * in[3];
}

bool _oak_aerial_wanted(const oak_render_view *v) {
    const oak_environment *e = &v->env;
    if (v->post.channel != OAK_CHANNEL_NONE) return false;
    if (!(e->aerial_lux > 0) || !isfinite(e->aerial_lux)) return false;
    float l2 = e->aerial_dir[0] * e->aerial_dir[0] + e->aerial_dir[1] * e->aerial_dir[1] +
               e->aerial_dir[2] * e->aerial_dir[2];
    return l2 > 1e-6f && isfinite(l2);
}

float _oak_aerial_boundary_m(float b) {
    float x = b / (float)N;
    return OAK_AERIAL_FAR_M * x * x;
}

float _oak_aerial_slice(float dist_m) {
    return (float)N * sqrtf(clampf(dist_m / OAK_AERIAL_FAR_M, 0.0f, 1.0f));
}

typedef struct build_job {
    const oak_render_view *v;
    const _oak_atmosphere *air;
    float *vol;
    float light[3], scale, grey, eye_km;
    float ends_km[N];
} build_job;

/* column (i, j)'s ray from the eye: through the centre of its cell of the
   near plane (reversed Z: device depth 1 at the near plane) */
static void column_dir(const oak_render_view *v, uint32_t i, uint32_t j, float dir[3]) {
    float nx = ((float)i + 0.5f) / (float)N * 2.0f - 1.0f;
    float ny = 1.0f - ((float)j + 0.5f) / (float)N * 2.0f;
    float pa[4] = {nx, ny, 0.5f, 1.0f}, pb[4] = {nx, ny, 1.0f, 1.0f}, a[4], b[4];
    mul4(v->inv_view_proj, pa, a);
    mul4(v->inv_view_proj, pb, b);
    float len = 0.0f;
    for (int k = 0; k < 3; k++) {
        dir[k] = a[k] / a[3] - b[k] / b[3];
        len += dir[k] * dir[k];
    }
    len = sqrtf(len);
    for (int k = 0; k < 3; k++) dir[k] = len > 0 ? dir[k] / len : (k == 2 ? -1.0f : 0.0f);
}

static void build_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const build_job *job = user;
    float S[N][3], T[N][3];
    for (uint32_t j = begin; j < end; j++) {
        for (uint32_t i = 0; i < N; i++) {
            float dir[3];
            column_dir(job->v, i, j, dir);
            _oak_atmosphere_march(job->air, job->eye_km, dir, job->light, N, job->ends_km, S, T);
            for (uint32_t k = 0; k < N; k++) {
                float *o = job->vol + (((size_t)k * N + j) * N + i) * 4;
                for (int c = 0; c < 3; c++) o[c] = S[k][c] * job->scale;
                /* under a deck the air's light is as grey as the sky's (the
                   frontend's pull of the gradient toward its luminance) */
                float l = 0.2126f * o[0] + 0.7152f * o[1] + 0.0722f * o[2];
                for (int c = 0; c < 3; c++) o[c] += (l - o[c]) * job->grey;
                o[3] = (T[k][0] + T[k][1] + T[k][2]) * (1.0f / 3.0f);
            }
        }
    }
}

void _oak_aerial_build(float *vol, const oak_render_view *v) {
    build_job job = {.v = v, .air = _oak_atmosphere_get(), .vol = vol};
    const float *d = v->env.aerial_dir;
    float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) job.light[k] = d[k] / len;
    float sky = v->env.sky_light > 0 && isfinite(v->env.sky_light) ? v->env.sky_light : 1.0f;
    job.scale = v->env.aerial_lux * sky;
    float g = v->env.sky_grey; /* the frontend clamped it to [0, 1] */
    job.grey = g > 0 && g <= 1 ? g : 0.0f;
    /* the eye's height above the ground (y = 0 is sea level), metres to km */
    job.eye_km = fmaxf(v->camera_pos[1], 1.0f) * 0.001f;
    for (uint32_t k = 0; k < N; k++)
        job.ends_km[k] = _oak_aerial_boundary_m((float)(k + 1)) * 0.001f;
    oak_parallel_for(N, 1, build_rows, &job);
}

static void at_boundary(const float *vol, uint32_t x, uint32_t y, uint32_t b, float out[4]) {
    if (b == 0) {
        out[0] = out[1] = out[2] = 0.0f, out[3] = 1.0f;
        return;
    }
    memcpy(out, vol + (((size_t)(b - 1) * N + y) * N + x) * 4, 16);
}

void _oak_aerial_lookup(const float *vol, float ux, float uy, float u, float out[4]) {
    float n = (float)N;
    float fx = clampf(ux * n - 0.5f, 0.0f, n - 1.0f);
    float fy = clampf(uy * n - 0.5f, 0.0f, n - 1.0f);
    float fz = clampf(u, 0.0f, n);
    float flx = floorf(fx), fly = floorf(fy), flz = floorf(fz);
    float wx = fx - flx, wy = fy - fly, wz = fz - flz;
    uint32_t x0 = (uint32_t)flx, y0 = (uint32_t)fly, b0 = (uint32_t)flz;
    uint32_t x1 = x0 + 1 < N ? x0 + 1 : x0, y1 = y0 + 1 < N ? y0 + 1 : y0;
    uint32_t b1 = b0 + 1 <= N ? b0 + 1 : b0;
    for (int c = 0; c < 4; c++) out[c] = 0.0f;
    for (int q = 0; q < 8; q++) {
        float w =
            ((q & 1) ? wx : 1.0f - wx) * ((q & 2) ? wy : 1.0f - wy) * ((q & 4) ? wz : 1.0f - wz);
        float s[4];
        at_boundary(vol, (q & 1) ? x1 : x0, (q & 2) ? y1 : y0, (q & 4) ? b1 : b0, s);
        for (int c = 0; c < 4; c++) out[c] += s[c] * w;
    }
}

void _oak_aerial_apply(const float *vol, const oak_render_view *v, const float P[3], float rgb[3]) {
    float p[4] = {P[0], P[1], P[2], 1.0f}, c[4];
    mul4(v->view_proj, p, c);
    float ux = (c[0] / c[3]) * 0.5f + 0.5f, uy = 0.5f - (c[1] / c[3]) * 0.5f;
    float d[3] = {P[0] - v->camera_pos[0], P[1] - v->camera_pos[1], P[2] - v->camera_pos[2]};
    float s[4];
    _oak_aerial_lookup(vol, ux, uy,
                       _oak_aerial_slice(sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])), s);
    for (int k = 0; k < 3; k++) rgb[k] = rgb[k] * s[3] + s[k];
}
