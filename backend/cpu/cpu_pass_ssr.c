/* The ssr pass on the CPU backend: each mirror pixel the resolve marked
 * (render/ssr.h) marches its reflected ray on screen against the depth, as
 * shaders/common/ssr.glsl does, operation for operation; on a hit the hit
 * pixel's colour replaces the reflection the resolve gave it, by its
 * split-sum weight and the hit's fade. A hit on another mirror counts as a
 * miss, so no pixel reads one the pass writes: rows split over the job pool
 * give the same bytes at any thread count. */
#include <math.h>

#include "cpu_internal.h"
#include "render/ssr.h"

#define ROWS_PER_JOB 8

typedef struct ssr_ctx {
    cpu_backend *b;
    const oak_render_view *v;
} ssr_ctx;

static void xform(const mat4 M, const float p[3], float out[4]) {
    for (int k = 0; k < 4; k++) out[k] = M[0][k] * p[0] + M[1][k] * p[1] + M[2][k] * p[2] + M[3][k];
}

/* world point of NDC (x, y) at device depth d */
static void unproject(const oak_render_view *v, float x, float y, float d, float out[3]) {
    float p[3] = {x, y, d}, r[4];
    xform(v->inv_view_proj, p, r);
    for (int k = 0; k < 3; k++) out[k] = r[k] / r[3];
}

/* the pixel whose jittered centre NDC (x, y) falls in */
void _oak_cpu_ssr_pixel(const oak_render_view *v, uint32_t W, uint32_t H, float x, float y,
                        int32_t q[2]) {
    q[0] = (int32_t)floorf((x + 1.0f) * 0.5f * (float)W + v->jitter[0]);
    q[1] = (int32_t)floorf((1.0f - y) * 0.5f * (float)H + v->jitter[1]);
}

static float depth_at(const cpu_pass *p, int32_t x, int32_t y) {
    uint32_t tile = ((uint32_t)y / CPU_TILE) * p->tiles_x + (uint32_t)x / CPU_TILE;
    return p->depth[(size_t)tile * CPU_TILE_PIXELS + ((uint32_t)y % CPU_TILE) * CPU_TILE +
                    (uint32_t)x % CPU_TILE];
}

static float clamp01(float x) {
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* ssr.glsl's oak_ssr_march_from: from world P0 seen in pixel (px, py) */
bool _oak_cpu_ssr_march(const cpu_pass *p, const oak_render_view *v, const float P0[3], int32_t px,
                        int32_t py, const float R[3], int steps, int halvings, int32_t hit[2],
                        float *fade) {
    uint32_t W = p->width, H = p->height;
    *fade = 0;
    hit[0] = px, hit[1] = py;
    float c0[4], c1[4], P1[3];
    xform(v->view_proj, P0, c0);
    float L = (float)OAK_SSR_DISTANCE;
    for (int k = 0; k < 3; k++) P1[k] = P0[k] + R[k] * L;
    xform(v->view_proj, P1, c1);
    const float wmin = 0.05f; /* the end kept in front of the eye */
    if (c1[3] < wmin) {
        if (c0[3] <= wmin) return false;
        L *= (c0[3] - wmin) / (c0[3] - c1[3]);
        for (int k = 0; k < 3; k++) P1[k] = P0[k] + R[k] * L;
        xform(v->view_proj, P1, c1);
    }
    float n0[3] = {c0[0] / c0[3], c0[1] / c0[3], c0[2] / c0[3]};
    float n1[3] = {c1[0] / c1[3], c1[1] / c1[3], c1[2] / c1[3]};
    const float(*Vm)[4] = (const float(*)[4])v->view; /* view_depth: minus the view's z row */
    float dz[3] = {-Vm[0][2], -Vm[1][2], -Vm[2][2]};
    float lo = 0, hi = -1;
    for (int i = 1; i <= steps; i++) {
        float s = (float)i * (1.0f / (float)steps), n[3];
        for (int k = 0; k < 3; k++) n[k] = n0[k] + (n1[k] - n0[k]) * s;
        int32_t q[2];
        _oak_cpu_ssr_pixel(v, W, H, n[0], n[1], q);
        if (q[0] < 0 || q[1] < 0 || q[0] >= (int32_t)W || q[1] >= (int32_t)H) return false;
        float ds = depth_at(p, q[0], q[1]);
        if ((q[0] != px || q[1] != py) && ds > 0 && n[2] < ds) { /* behind the surface there */
            float Pr[3], Q[3];
            unproject(v, n[0], n[1], n[2], Pr);
            unproject(v, n[0], n[1], ds, Q);
            float t = dz[0] * (Pr[0] - Q[0]) + dz[1] * (Pr[1] - Q[1]) + dz[2] * (Pr[2] - Q[2]);
            if (t < (float)OAK_SSR_THICKNESS) {
                hi = s;
                break;
            }
        }
        lo = s;
    }
    if (hi < 0) return false;
    for (int i = 0; i < halvings; i++) {
        float s = (lo + hi) * 0.5f, n[3];
        for (int k = 0; k < 3; k++) n[k] = n0[k] + (n1[k] - n0[k]) * s;
        int32_t q[2];
        _oak_cpu_ssr_pixel(v, W, H, n[0], n[1], q);
        float ds = depth_at(p, q[0], q[1]);
        if (ds > 0 && n[2] < ds)
            hi = s;
        else
            lo = s;
    }
    float n[3];
    for (int k = 0; k < 3; k++) n[k] = n0[k] + (n1[k] - n0[k]) * hi;
    _oak_cpu_ssr_pixel(v, W, H, n[0], n[1], hit);
    float ds = depth_at(p, hit[0], hit[1]);
    if ((hit[0] == px && hit[1] == py) || !(ds > 0)) return false;
    float u = ((float)hit[0] + 0.5f) / (float)W, w = ((float)hit[1] + 0.5f) / (float)H;
    float e = fminf(fminf(u, 1.0f - u), fminf(w, 1.0f - w));
    float Q[3];
    unproject(v, n[0], n[1], ds, Q);
    float dist = sqrtf((Q[0] - P0[0]) * (Q[0] - P0[0]) + (Q[1] - P0[1]) * (Q[1] - P0[1]) +
                       (Q[2] - P0[2]) * (Q[2] - P0[2]));
    *fade = clamp01(e * (float)(1.0 / OAK_SSR_EDGE)) *
            clamp01((1.0f - dist * (float)(1.0 / OAK_SSR_DISTANCE)) * (float)(1.0 / OAK_SSR_FADE));
    return true;
}

/* ssr.glsl's oak_ssr_point: the world point at pixel (px, py)'s jittered
   centre at device depth d */
static void pixel_point(const cpu_pass *p, const oak_render_view *v, int32_t px, int32_t py,
                        float d, float out[3]) {
    float x0 = ((float)px + 0.5f - v->jitter[0]) / (float)p->width * 2.0f - 1.0f;
    float y0 = 1.0f - ((float)py + 0.5f - v->jitter[1]) / (float)p->height * 2.0f;
    unproject(v, x0, y0, d, out);
}

float _oak_cpu_ssr_hit_point(const cpu_pass *p, const oak_render_view *v, const int32_t hit[2],
                             float Q[3]) {
    float d = depth_at(p, hit[0], hit[1]);
    pixel_point(p, v, hit[0], hit[1], d, Q);
    return d;
}

/* ssr.glsl's oak_ssr_march: from pixel (px, py) at its depth d0 */
static bool march(const cpu_pass *p, const oak_render_view *v, int32_t px, int32_t py, float d0,
                  const float R[3], int32_t hit[2], float *fade) {
    float P0[3];
    pixel_point(p, v, px, py, d0, P0);
    return _oak_cpu_ssr_march(p, v, P0, px, py, R, OAK_SSR_STEPS, OAK_SSR_HALVINGS, hit, fade);
}

static void ssr_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const ssr_ctx *c = user;
    cpu_backend *b = c->b;
    const cpu_pass *p = &b->opaque;
    uint32_t W = p->width;
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < W; x++) {
            const float *m = b->ssr + ((size_t)y * W + x) * 8;
            if (m[0] == 0 && m[1] == 0 && m[2] == 0) continue;
            float R[3], e[2] = {m[3], m[7]}, fade;
            _oak_ssr_unoct(e, R);
            int32_t hit[2];
            if (!march(p, c->v, (int32_t)x, (int32_t)y, depth_at(p, (int32_t)x, (int32_t)y), R, hit,
                       &fade))
                continue;
            size_t j = (size_t)hit[1] * W + (size_t)hit[0];
            const float *mh = b->ssr + j * 8;
            if (mh[0] != 0 || mh[1] != 0 || mh[2] != 0) continue; /* another mirror */
            const float *h = b->color + j * 3;
            float *o = b->color + ((size_t)y * W + x) * 3;
            for (int k = 0; k < 3; k++) o[k] = o[k] + m[k] * fade * (h[k] - m[4 + k]);
        }
}

oak_result _oak_cpu_run_ssr(cpu_backend *b, const oak_render_view *v) {
    if (!b->ssr_on) return OAK_OK; /* the resolve wrote no mirrors (it ran a debug view) */
    ssr_ctx c = {b, v};
    oak_parallel_for(b->opaque.height, ROWS_PER_JOB, ssr_rows, &c);
    return OAK_OK;
}
