/* Froxel volumetric fog: the frame's record from the view and the C of
 * shaders/common/fog.glsl and fog.comp.glsl, operation for operation in
 * float, so the CPU backend's fog is the GPUs' (render/fog.h). */
#include <math.h>
#include <string.h>

#include "fog.h"
#include "taa.h"

#define PI_F 3.14159265358979323846f

static inline float clampf(float x, float lo, float hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

static void mul4(const mat4 m, const float in[4], float out[4]);

static inline float lerpf(float a, float b, float t) {
    return a + (b - a) * t;
}

static bool volume_ok(const oak_fog_volume *vol) {
    return (vol->shape == OAK_FOG_SHAPE_BOX || vol->shape == OAK_FOG_SHAPE_ELLIPSOID) &&
           vol->density > 0 && isfinite(vol->density) && vol->half_size[0] > 0 &&
           vol->half_size[1] > 0 && vol->half_size[2] > 0;
}

bool _oak_fog_on(const oak_render_view *v) {
    const oak_fog *f = &v->env.fog;
    if (v->post.channel != OAK_CHANNEL_NONE) return false;
    if (f->density > 0 && isfinite(f->density)) return true;
    uint32_t n = f->volume_count < OAK_FOG_VOLUMES ? f->volume_count : OAK_FOG_VOLUMES;
    for (uint32_t i = 0; i < n; i++)
        if (volume_ok(&f->volumes[i])) return true;
    return false;
}

void _oak_fog_fill(oak_gpu_fog *g, const oak_render_view *v) {
    memset(g, 0, sizeof *g);
    if (!_oak_fog_on(v)) return;
    const oak_fog *in = &v->env.fog;
    oak_quality q = oak_preset_quality(v->post.preset);
    static const uint32_t fallback[3] = {64, 36, 48};
    for (int i = 0; i < 3; i++)
        g->grid[i] = q.fog_grid[i] >= 8 && q.fog_grid[i] <= 256 ? q.fog_grid[i] : fallback[i];
    g->grid[3] = 1;
    float far = in->far > 0 && isfinite(in->far) ? in->far : (float)OAK_FOG_FAR;
    float n = (float)OAK_FOG_SLICE_NEAR;
    g->slices[0] = far;
    g->slices[1] = n;
    g->slices[2] = (float)g->grid[2] / logf(1.0f + far / n);
    g->height[0] = in->density > 0 && isfinite(in->density) ? in->density : 0.0f;
    g->height[1] = isfinite(in->base_height) ? in->base_height : 0.0f;
    g->height[2] = in->falloff > 0 && isfinite(in->falloff) ? in->falloff : 0.0f;
    g->height[3] = isfinite(in->anisotropy) ? clampf(in->anisotropy, -0.95f, 0.95f) : 0.0f;
    bool any = in->albedo[0] > 0 || in->albedo[1] > 0 || in->albedo[2] > 0;
    for (int k = 0; k < 3; k++)
        g->albedo[k] = any ? clampf(isfinite(in->albedo[k]) ? in->albedo[k] : 0.0f, 0.0f, 1.0f)
                           : (float)OAK_FOG_ALBEDO;
    if (v->key_light >= 0 && (uint32_t)v->key_light < v->light_count) {
        const oak_render_light *l = &v->lights[v->key_light];
        float d[3] = {-l->direction[0], -l->direction[1], -l->direction[2]};
        float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if (len > 0 &&
            (l->light.type == OAK_LIGHT_DIRECTIONAL || l->light.type == OAK_LIGHT_DEFAULT)) {
            for (int k = 0; k < 3; k++) {
                g->sun[k] = d[k] / len;
                g->light[k] = l->light.color[k] * l->light.intensity;
            }
            g->sun[3] = 1.0f;
            g->light[3] = v->shadows && v->cascade_count > 0 ? 1.0f : 0.0f;
        }
    }
    uint32_t nv = in->volume_count < OAK_FOG_VOLUMES ? in->volume_count : OAK_FOG_VOLUMES;
    for (uint32_t i = 0; i < nv; i++) {
        const oak_fog_volume *vol = &in->volumes[i];
        if (!volume_ok(vol)) continue;
        for (int k = 0; k < 3; k++) {
            g->vol_center[i][k] = vol->center[k];
            g->vol_size[i][k] = vol->half_size[k];
            g->vol_albedo[i][k] = clampf(isfinite(vol->albedo[k]) ? vol->albedo[k] : 0, 0, 1);
        }
        g->vol_center[i][3] = (float)vol->shape;
        g->vol_size[i][3] = vol->density;
    }
    /* the history (frontend.c build_fog): frame n after a reset samples
       its froxel at Halton (2, 3, 5)'s 1 + n % phases, depth, x and y
       (x and y shifted so index 1 is the middle too: n = 0 is the centre,
       a reset the history-less frame); each froxel's weight is its own
       (1 / (held + 1), render/fog.c _oak_fog_blend) */
    uint32_t held = v->fog_frames, idx = 1 + held % OAK_FOG_JITTER_PHASES;
    g->history[0] = _oak_halton(idx, 2);
    g->history[1] = (float)OAK_FOG_REJECT;
    for (int k = 0; k < 2; k++) {
        uint32_t base = k ? 5u : 3u;
        float o = 0.5f + (_oak_halton(idx, base) - _oak_halton(1, base));
        g->history[2 + k] = o < 0.0f ? o + 1.0f : o >= 1.0f ? o - 1.0f : o;
    }
    memcpy(g->prev_depth, v->fog_prev_depth, sizeof g->prev_depth);
    uint32_t count = g->grid[0] * g->grid[1] * g->grid[2];
    bool b = v->fog_grid == OAK_FOG_GRID_B;
    g->grids[0] = v->fog_grid == OAK_FOG_GRID_IN_PLACE ? count : b ? 2 * count : 0;
    g->grids[1] = b ? 0 : 2 * count;
    g->grids[2] = held > 0 && v->fog_grid != OAK_FOG_GRID_IN_PLACE ? 1u : 0u;
}

bool _oak_fog_history_at(const oak_gpu_fog *f, const float *buf, const oak_render_view *v,
                         const float P[3], float out[4], float *held) {
    float p[4] = {P[0], P[1], P[2], 1.0f}, c[4];
    mul4(v->prev_view_proj, p, c);
    float z = f->prev_depth[0] * P[0] + f->prev_depth[1] * P[1] + f->prev_depth[2] * P[2] +
              f->prev_depth[3];
    if (!(c[3] > 0.0f) || !(z >= 0.0f)) return false;
    float ux = (c[0] / c[3]) * 0.5f + 0.5f, uy = 0.5f - (c[1] / c[3]) * 0.5f;
    float u = logf(1.0f + z / f->slices[1]) * f->slices[2];
    float nx = (float)f->grid[0], ny = (float)f->grid[1], nz = (float)f->grid[2];
    if (!(ux >= 0.0f && ux <= 1.0f && uy >= 0.0f && uy <= 1.0f && u <= nz)) return false;
    /* froxel centres at half-integers: clamped to the outermost */
    float fx = clampf(ux * nx - 0.5f, 0.0f, nx - 1.0f);
    float fy = clampf(uy * ny - 0.5f, 0.0f, ny - 1.0f);
    float fz = clampf(u - 0.5f, 0.0f, nz - 1.0f);
    float flx = floorf(fx), fly = floorf(fy), flz = floorf(fz);
    float wx = fx - flx, wy = fy - fly, wz = fz - flz;
    uint32_t x0 = (uint32_t)flx, y0 = (uint32_t)fly, z0 = (uint32_t)flz;
    uint32_t x1 = x0 + 1 < f->grid[0] ? x0 + 1 : x0, y1 = y0 + 1 < f->grid[1] ? y0 + 1 : y0;
    uint32_t z1 = z0 + 1 < f->grid[2] ? z0 + 1 : z0;
    /* nested lerps (a + (b - a) t) along x, then y, then z: fog.comp.glsl's order */
    size_t nx0 = f->grid[0], nxy = nx0 * f->grid[1], g0 = f->grids[1];
    const float *r00 = buf + (g0 + z0 * nxy + y0 * nx0) * 4,
                *r01 = buf + (g0 + z0 * nxy + y1 * nx0) * 4,
                *r10 = buf + (g0 + z1 * nxy + y0 * nx0) * 4,
                *r11 = buf + (g0 + z1 * nxy + y1 * nx0) * 4;
    for (int k = 0; k < 4; k++) {
        float s00 = lerpf(r00[x0 * 4 + k], r00[x1 * 4 + k], wx);
        float s01 = lerpf(r01[x0 * 4 + k], r01[x1 * 4 + k], wx);
        float s10 = lerpf(r10[x0 * 4 + k], r10[x1 * 4 + k], wx);
        float s11 = lerpf(r11[x0 * 4 + k], r11[x1 * 4 + k], wx);
        out[k] = lerpf(lerpf(s00, s01, wy), lerpf(s10, s11, wy), wz);
    }
    /* the frames held at the nearest of last frame's centres */
    uint32_t hx = (uint32_t)floorf(fx + 0.5f), hy = (uint32_t)floorf(fy + 0.5f),
             hz = (uint32_t)floorf(fz + 0.5f);
    *held = buf[_oak_fog_held_texel(f, f->grids[1]) * 4 + (hz * nxy + hy * nx0 + hx)];
    return true;
}

void _oak_fog_bounds(const oak_render_view *v, const oak_gpu_fog *f, uint32_t i, uint32_t j,
                     uint32_t k, float sigma, float *lo, float *hi) {
    float z[2] = {_oak_fog_boundary_depth(f, (float)k), _oak_fog_boundary_depth(f, (float)(k + 1))};
    float P[8][3];
    for (int c = 0; c < 4; c++) {
        float origin[3], dir[3], od, rate;
        _oak_fog_ray(v, f, (float)(i + (uint32_t)(c & 1)), (float)(j + (uint32_t)(c >> 1)), origin,
                     dir, &od, &rate);
        for (int e = 0; e < 2; e++) _oak_fog_point(origin, dir, od, rate, z[e], P[c * 2 + e]);
    }
    _oak_fog_bounds_at(f, (const float(*)[3])P, sigma, lo, hi);
}

void _oak_fog_bounds_at(const oak_gpu_fog *f, const float P[8][3], float sigma, float *lo,
                        float *hi) {
    float bmin[3] = {INFINITY, INFINITY, INFINITY}, bmax[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int c = 0; c < 8; c++)
        for (int a = 0; a < 3; a++)
            bmin[a] = fminf(bmin[a], P[c][a]), bmax[a] = fmaxf(bmax[a], P[c][a]);
    /* the height fog is monotonic in y: its least and most at corners */
    float mn = 0.0f, mx = 0.0f;
    if (f->height[0] > 0.0f) {
        float e0 = fminf(-f->height[2] * (bmin[1] - f->height[1]), (float)OAK_FOG_MAX_FALLOFF);
        float e1 = fminf(-f->height[2] * (bmax[1] - f->height[1]), (float)OAK_FOG_MAX_FALLOFF);
        float h0 = f->height[0] * expf(e0), h1 = f->height[0] * expf(e1);
        mn = fminf(h0, h1), mx = fmaxf(h0, h1);
    }
    /* a volume (convex) holding all 8 corners fills the cell; one whose
       bounds meet the cell's may fill any part of it */
    for (int vi = 0; vi < OAK_FOG_VOLUMES; vi++) {
        float shape = f->vol_center[vi][3];
        if (shape == 0.0f) continue;
        bool meets = true;
        for (int a = 0; a < 3; a++)
            meets = meets && bmax[a] >= f->vol_center[vi][a] - f->vol_size[vi][a] &&
                    bmin[a] <= f->vol_center[vi][a] + f->vol_size[vi][a];
        if (!meets) continue;
        bool all = true;
        for (int c = 0; c < 8; c++) {
            float q[3];
            for (int a = 0; a < 3; a++)
                q[a] = (P[c][a] - f->vol_center[vi][a]) / f->vol_size[vi][a];
            bool inside = shape == 1.0f
                              ? fmaxf(fmaxf(fabsf(q[0]), fabsf(q[1])), fabsf(q[2])) <= 1.0f
                              : q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= 1.0f;
            all = all && inside;
        }
        float d = f->vol_size[vi][3];
        mx += d;
        if (all) mn += d;
    }
    *lo = fminf(mn, sigma), *hi = fmaxf(mx, sigma);
}

float _oak_fog_blend(const oak_gpu_fog *f, const float cur[4], float hist[4], bool held_ok,
                     float held, float lo, float hi, float out[4]) {
    if (held_ok) {
        /* the history's extinction clamped to what the medium now holds in
           the froxel's cell; its light scaled with it (the same albedo);
           rejected when the clamp moved it by more than the factor */
        float s = hist[3], t = clampf(s, lo, hi), r = f->history[1];
        if (t <= s * r && s <= t * r) {
            if (t != s) {
                float q = t / s;
                for (int c = 0; c < 3; c++) hist[c] *= q;
                hist[3] = t;
            }
        } else {
            held_ok = false;
        }
    }
    if (!held_ok) {
        memcpy(out, cur, 16);
        return 0.0f;
    }
    float n = fminf(held + 1.0f, (float)(1.0 / OAK_FOG_HISTORY_MIN));
    float w = fmaxf(1.0f / (n + 1.0f), (float)OAK_FOG_HISTORY_MIN);
    for (int c = 0; c < 4; c++) out[c] = hist[c] + (cur[c] - hist[c]) * w;
    return n;
}

float _oak_fog_boundary_depth(const oak_gpu_fog *f, float b) {
    return f->slices[1] * (expf(b / f->slices[2]) - 1.0f);
}

float _oak_fog_extinction(const oak_gpu_fog *f, const float P[3], float scatter[3]) {
    float s = 0.0f;
    scatter[0] = scatter[1] = scatter[2] = 0.0f;
    if (f->height[0] > 0.0f) {
        float e = fminf(-f->height[2] * (P[1] - f->height[1]), (float)OAK_FOG_MAX_FALLOFF);
        s = f->height[0] * expf(e);
        for (int k = 0; k < 3; k++) scatter[k] = s * f->albedo[k];
    }
    for (int i = 0; i < OAK_FOG_VOLUMES; i++) {
        float shape = f->vol_center[i][3];
        if (shape == 0.0f) continue;
        float q[3];
        for (int k = 0; k < 3; k++) q[k] = (P[k] - f->vol_center[i][k]) / f->vol_size[i][k];
        bool inside = shape == 1.0f ? fmaxf(fmaxf(fabsf(q[0]), fabsf(q[1])), fabsf(q[2])) <= 1.0f
                                    : q[0] * q[0] + q[1] * q[1] + q[2] * q[2] <= 1.0f;
        if (!inside) continue;
        float d = f->vol_size[i][3];
        s += d;
        for (int k = 0; k < 3; k++) scatter[k] += d * f->vol_albedo[i][k];
    }
    return s;
}

float _oak_fog_phase(float cosv, float g) {
    float x = 1.0f + g * g - 2.0f * g * cosv;
    return (1.0f - g * g) / (4.0f * PI_F * x * sqrtf(x));
}

static void mul4(const mat4 m, const float in[4], float out[4]) {
    for (int r = 0; r < 4; r++)
        out[r] = m[0][r] * in[0] + m[1][r] * in[1] + m[2][r] * in[2] + m[3][r] * in[3];
}

static float view_depth(const oak_render_view *v, const float P[3]) {
    return -(v->view[0][2] * P[0] + v->view[1][2] * P[1] + v->view[2][2] * P[2] + v->view[3][2]);
}

void _oak_fog_column_ray(const oak_render_view *v, const oak_gpu_fog *f, uint32_t i, uint32_t j,
                         float origin[3], float dir[3], float *origin_depth, float *rate) {
    _oak_fog_ray(v, f, (float)i + 0.5f, (float)j + 0.5f, origin, dir, origin_depth, rate);
}

void _oak_fog_ray(const oak_render_view *v, const oak_gpu_fog *f, float cx, float cy,
                  float origin[3], float dir[3], float *origin_depth, float *rate) {
    float nx = cx / (float)f->grid[0] * 2.0f - 1.0f;
    float ny = 1.0f - cy / (float)f->grid[1] * 2.0f;
    float pa[4] = {nx, ny, 0.5f, 1.0f}, pb[4] = {nx, ny, 1.0f, 1.0f}, a[4], b[4];
    mul4(v->inv_view_proj, pa, a);
    mul4(v->inv_view_proj, pb, b);
    float len = 0.0f;
    for (int k = 0; k < 3; k++) {
        origin[k] = b[k] / b[3];
        dir[k] = a[k] / a[3] - origin[k];
        len += dir[k] * dir[k];
    }
    len = sqrtf(len);
    for (int k = 0; k < 3; k++) dir[k] /= len;
    *origin_depth = view_depth(v, origin);
    *rate = -(v->view[0][2] * dir[0] + v->view[1][2] * dir[1] + v->view[2][2] * dir[2]);
}

void _oak_fog_point(const float origin[3], const float dir[3], float origin_depth, float rate,
                    float z, float P[3]) {
    float t = (z - origin_depth) / rate;
    for (int k = 0; k < 3; k++) P[k] = origin[k] + dir[k] * t;
}

void _oak_fog_integrate(const oak_gpu_fog *f, float *buf, uint32_t i, uint32_t j, float rate) {
    uint32_t nx = f->grid[0], ny = f->grid[1], nz = f->grid[2];
    size_t count = (size_t)nx * ny * nz;
    float S[3] = {0, 0, 0}, T = 1.0f;
    float z0 = 0.0f;
    for (uint32_t k = 0; k < nz; k++) {
        size_t at = ((size_t)k * ny + j) * nx + i;
        const float *in = buf + (f->grids[0] + at) * 4;
        float z1 = _oak_fog_boundary_depth(f, (float)(k + 1));
        float ds = (z1 - z0) / rate;
        z0 = z1;
        float sigma = in[3];
        float Ts = expf(-sigma * ds);
        /* the froxel's light integrated over its length, as seen through
           what lies before it (energy-conserving: (1 - Ts) / sigma) */
        float w = sigma > (float)OAK_FOG_MIN_SIGMA ? (1.0f - Ts) / sigma : ds;
        for (int c = 0; c < 3; c++) S[c] += T * in[c] * w;
        T *= Ts;
        float *o = buf + (count + at) * 4;
        o[0] = S[0], o[1] = S[1], o[2] = S[2], o[3] = T;
    }
}

static void at_boundary(const oak_gpu_fog *f, const float *buf, uint32_t x, uint32_t y, uint32_t b,
                        float out[4]) {
    if (b == 0) {
        out[0] = out[1] = out[2] = 0.0f, out[3] = 1.0f;
        return;
    }
    size_t count = (size_t)f->grid[0] * f->grid[1] * f->grid[2];
    size_t at = count + ((size_t)(b - 1) * f->grid[1] + y) * f->grid[0] + x;
    memcpy(out, buf + at * 4, 16);
}

void _oak_fog_lookup(const oak_gpu_fog *f, const float *buf, float ux, float uy, float u,
                     float out[4]) {
    float nx = (float)f->grid[0], ny = (float)f->grid[1], nz = (float)f->grid[2];
    float fx = clampf(ux * nx - 0.5f, 0.0f, nx - 1.0f);
    float fy = clampf(uy * ny - 0.5f, 0.0f, ny - 1.0f);
    float fz = clampf(u, 0.0f, nz);
    float flx = floorf(fx), fly = floorf(fy), flz = floorf(fz);
    float wx = fx - flx, wy = fy - fly, wz = fz - flz;
    uint32_t x0 = (uint32_t)flx, y0 = (uint32_t)fly, b0 = (uint32_t)flz;
    uint32_t x1 = x0 + 1 < f->grid[0] ? x0 + 1 : x0, y1 = y0 + 1 < f->grid[1] ? y0 + 1 : y0;
    uint32_t b1 = b0 + 1 <= f->grid[2] ? b0 + 1 : b0;
    for (int c = 0; c < 4; c++) out[c] = 0.0f;
    for (int q = 0; q < 8; q++) {
        float w =
            ((q & 1) ? wx : 1.0f - wx) * ((q & 2) ? wy : 1.0f - wy) * ((q & 4) ? wz : 1.0f - wz);
        float s[4];
        at_boundary(f, buf, (q & 1) ? x1 : x0, (q & 2) ? y1 : y0, (q & 4) ? b1 : b0, s);
        for (int c = 0; c < 4; c++) out[c] += s[c] * w;
    }
}

void _oak_fog_apply(const oak_gpu_fog *f, const float *buf, const oak_render_view *v,
                    const float P[3], float rgb[3]) {
    float p[4] = {P[0], P[1], P[2], 1.0f}, c[4];
    mul4(v->view_proj, p, c);
    float ux = (c[0] / c[3]) * 0.5f + 0.5f, uy = 0.5f - (c[1] / c[3]) * 0.5f;
    float z = fmaxf(view_depth(v, P), 0.0f);
    float s[4];
    _oak_fog_lookup(f, buf, ux, uy, logf(1.0f + z / f->slices[1]) * f->slices[2], s);
    for (int k = 0; k < 3; k++) rgb[k] = rgb[k] * s[3] + s[k];
}

void _oak_fog_apply_sky(const oak_gpu_fog *f, const float *buf, uint32_t x, uint32_t y,
                        uint32_t width, uint32_t height, float rgb[3]) {
    float s[4];
    _oak_fog_lookup(f, buf, ((float)x + 0.5f) / (float)width, ((float)y + 0.5f) / (float)height,
                    (float)f->grid[2], s);
    for (int k = 0; k < 3; k++) rgb[k] = rgb[k] * s[3] + s[k];
}
