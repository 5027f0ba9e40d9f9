/* The fog pass on the CPU backend, rows on the job pool: each froxel's
 * extinction and the light it scatters toward the eye (the key light
 * through the cascades and the clouds' shadow, the lamps of its
 * light-grid cell through their shadows, the sky light), then each froxel
 * column integrated front to back; render/fog.c holds the arithmetic
 * shaders/fog.comp.glsl has. The resolve and blend read the result through
 * _oak_fog_apply. */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"
#include "render/clouds.h"
#include "render/fog.h"
#include "render/skylight.h"

#define FOG_ROWS     4   /* froxel rows (or columns' rows) per job */
#define FOG_GRID_MAX 256 /* columns a row at most (_oak_fog_fill's bound) */

/* a ray through the froxel grid (_oak_fog_ray's outputs) */
typedef struct fog_ray {
    float origin[3], dir[3], od, rate;
} fog_ray;

typedef struct fog_ctx {
    cpu_backend *b;
    const oak_render_view *v;
    float ambient[3]; /* the sky light's radiance, as if the same from every side */
    bool sun_shadow;
    /* each column's rays, found once a frame (the same for every slice):
       jit through the frame's sample offset, mid through the centre (nx
       by ny each), corner through the columns' corners ((nx + 1) by
       (ny + 1): the cells' bounds, each shared by 4 columns) */
    fog_ray *jit, *mid, *corner;
} fog_ctx;

/* shading.glsl's oak_light_at for a point or spot lamp (as _oak_gpu_light_fill packs it) */
static void lamp_at(const oak_render_light *l, const float P[3], float E[3], float L[3]) {
    float d3[3] = {l->position[0] - P[0], l->position[1] - P[1], l->position[2] - P[2]};
    float d = sqrtf(d3[0] * d3[0] + d3[1] * d3[1] + d3[2] * d3[2]);
    for (int k = 0; k < 3; k++) L[k] = d3[k] / d;
    float range = l->light.range, W = 1.0f;
    if (range > 0.0f) {
        float q = d / range;
        float c = fminf(fmaxf(1.0f - q * q * q * q, 0.0f), 1.0f);
        W = c * c;
    }
    float k = l->light.intensity;
    for (int c = 0; c < 3; c++) E[c] = l->light.color[c] * k / fmaxf(d * d, 1e-4f) * W;
    if (l->light.type == OAK_LIGHT_SPOT) {
        float outer = l->light.outer_cone > 0 ? l->light.outer_cone : OAK_PI / 4.0f;
        float co = cosf(outer), ci = cosf(l->light.inner_cone);
        float cd = -(L[0] * l->direction[0] + L[1] * l->direction[1] + L[2] * l->direction[2]);
        float t = fminf(fmaxf((cd - co) / fmaxf(ci - co, 1e-4f), 0.0f), 1.0f);
        for (int c = 0; c < 3; c++) E[c] *= t * t;
    }
}

/* the light and extinction at world P on the ray along dir through froxel
   coordinates (cx, cy) */
static void inject_at(const fog_ctx *c, float cx, float cy, const float P[3], const float dir[3],
                      float o[4]) {
    cpu_backend *b = c->b;
    const oak_gpu_fog *f = &b->fog;
    float g = f->height[3], scat[3];
    float sigma = _oak_fog_extinction(f, P, scat);
    o[0] = o[1] = o[2] = 0.0f;
    o[3] = sigma;
    if (!(sigma > 0.0f)) return;
    float Li[3] = {c->ambient[0], c->ambient[1], c->ambient[2]};
    if (f->sun[3] != 0.0f) {
        float vis = 1.0f;
        if (b->cloud.shape[3] != 0.0f) vis *= _oak_clouds_shadow(&b->cloud, b->clouds, P);
        /* the light's own direction as the normal: no normal offset */
        if (c->sun_shadow) vis *= _oak_cpu_sun_shadow(b, P, f->sun);
        float ph = _oak_fog_phase(dir[0] * f->sun[0] + dir[1] * f->sun[1] + dir[2] * f->sun[2], g);
        for (int q = 0; q < 3; q++) Li[q] += f->light[q] * vis * ph;
    }
    if (b->grid_ready && b->grid_lamps_n) {
        /* the cell of the pixel under the sample */
        uint32_t px = (uint32_t)(cx / (float)f->grid[0] * (float)b->width);
        uint32_t py = (uint32_t)(cy / (float)f->grid[1] * (float)b->height);
        px = px < b->width ? px : b->width - 1;
        py = py < b->height ? py : b->height - 1;
        uint32_t listed = 0;
        const uint32_t *cell = _oak_cpu_cell_lamps(b, px, py, P, &listed);
        for (uint32_t li = 0; li < listed; li++) {
            float E[3], L[3];
            lamp_at(&c->v->lights[cell[li]], P, E, L);
            /* its own faces, the way to the lamp as the normal */
            float sh = _oak_cpu_lamp_shadow(b, cell[li], P, L);
            for (int q = 0; q < 3; q++) E[q] *= sh;
            float ph = _oak_fog_phase(dir[0] * L[0] + dir[1] * L[1] + dir[2] * L[2], g);
            for (int q = 0; q < 3; q++) Li[q] += E[q] * ph;
        }
    }
    for (int q = 0; q < 3; q++) o[q] = scat[q] * Li[q];
}

static void ray_at(const fog_ctx *c, float cx, float cy, fog_ray *r) {
    _oak_fog_ray(c->v, &c->b->fog, cx, cy, r->origin, r->dir, &r->od, &r->rate);
}

/* rows 0 .. ny of the corner rays, rows 0 .. ny - 1 of the others */
static void ray_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const fog_ctx *c = user;
    const oak_gpu_fog *f = &c->b->fog;
    uint32_t nx = f->grid[0], ny = f->grid[1];
    for (uint32_t j = begin; j < end; j++) {
        for (uint32_t i = 0; i <= nx; i++)
            ray_at(c, (float)i, (float)j, &c->corner[(size_t)j * (nx + 1) + i]);
        if (j == ny) continue;
        for (uint32_t i = 0; i < nx; i++) {
            size_t at = (size_t)j * nx + i;
            ray_at(c, (float)i + f->history[2], (float)j + f->history[3], &c->jit[at]);
            /* _oak_fog_column_ray's centre */
            ray_at(c, (float)i + 0.5f, (float)j + 0.5f, &c->mid[at]);
        }
    }
}

static void point_on(const fog_ray *r, float z, float P[3]) {
    _oak_fog_point(r->origin, r->dir, r->od, r->rate, z, P);
}

static void inject_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const fog_ctx *c = user;
    cpu_backend *b = c->b;
    const oak_gpu_fog *f = &b->fog;
    uint32_t nx = f->grid[0], ny = f->grid[1];
    size_t count = (size_t)nx * ny * f->grid[2];
    /* the frames held go with the inject grid (none for a view in place) */
    float *held_out =
        f->grids[0] != count ? b->fog_buf + (size_t)_oak_fog_held_texel(f, f->grids[0]) * 4 : NULL;
    /* the row's cell corners: the corner rays of rows j and j + 1 at slice
       boundaries k and k + 1, [e][row][i] (found at the first froxel with
       a history, once) */
    float cp[2][2][FOG_GRID_MAX + 1][3];
    for (uint32_t row = begin; row < end; row++) {
        uint32_t j = row % ny, k = row / ny;
        /* this frame's sample at its offset in the froxel; history at the centre */
        float z = _oak_fog_boundary_depth(f, (float)k + f->history[0]);
        float zc = _oak_fog_boundary_depth(f, (float)k + 0.5f);
        float zb[2] = {_oak_fog_boundary_depth(f, (float)k),
                       _oak_fog_boundary_depth(f, (float)(k + 1))};
        bool corners = false;
        for (uint32_t i = 0; i < nx; i++) {
            float P[3], cur[4], hist[4] = {0, 0, 0, 0};
            const fog_ray *r = &c->jit[(size_t)j * nx + i];
            float cx = (float)i + f->history[2], cy = (float)j + f->history[3];
            point_on(r, z, P);
            inject_at(c, cx, cy, P, r->dir, cur);
            size_t at = ((size_t)k * ny + j) * nx + i;
            float *o = b->fog_buf + (f->grids[0] + at) * 4;
            bool held = false;
            float before = 0.0f, lo = 0.0f, hi = 0.0f;
            if (f->grids[2]) {
                point_on(&c->mid[(size_t)j * nx + i], zc, P);
                held = _oak_fog_history_at(f, b->fog_buf, c->v, P, hist, &before);
            }
            if (held) {
                if (!corners) {
                    for (int e = 0; e < 2; e++)
                        for (uint32_t q = 0; q < 2; q++)
                            for (uint32_t x = 0; x <= nx; x++)
                                point_on(&c->corner[(size_t)(j + q) * (nx + 1) + x], zb[e],
                                         cp[e][q][x]);
                    corners = true;
                }
                /* _oak_fog_bounds' order: corner (i + (n & 1), j + (n >> 1)), then e */
                float Q[8][3];
                for (int n = 0; n < 4; n++)
                    for (int e = 0; e < 2; e++)
                        memcpy(Q[n * 2 + e], cp[e][n >> 1][i + (uint32_t)(n & 1)], sizeof Q[0]);
                _oak_fog_bounds_at(f, (const float(*)[3])Q, cur[3], &lo, &hi);
            }
            float n = _oak_fog_blend(f, cur, hist, held, before, lo, hi, o);
            if (held_out) held_out[at] = n;
        }
    }
}

static void integrate_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const fog_ctx *c = user;
    cpu_backend *b = c->b;
    const oak_gpu_fog *f = &b->fog;
    for (uint32_t j = begin; j < end; j++)
        for (uint32_t i = 0; i < f->grid[0]; i++)
            _oak_fog_integrate(f, b->fog_buf, i, j, c->mid[(size_t)j * f->grid[0] + i].rate);
}

oak_result _oak_cpu_run_fog(cpu_backend *b, const oak_render_view *v) {
    _oak_fog_fill(&b->fog, v);
    if (!b->fog.grid[3]) return OAK_OK;
    uint64_t need = _oak_fog_texels(&b->fog) * 4;
    if (need > b->fog_cap) {
        float *p = oak_realloc(b->fog_buf, (size_t)need * sizeof(float));
        if (!p) {
            b->fog.grid[3] = 0;
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu fog: %llu floats",
                             (unsigned long long)need);
        }
        b->fog_buf = p;
        b->fog_cap = need;
    }
    fog_ctx c = {.b = b, .v = v};
    /* radiance from irradiance up and down: (E_up + E_down) / (2 pi) is a
       uniform sky's radiance exactly */
    const float up[3] = {0, 1, 0}, down[3] = {0, -1, 0};
    float eu[3], ed[3];
    _oak_sky_irradiance(b->sky, up, eu);
    _oak_sky_irradiance(b->sky, down, ed);
    for (int k = 0; k < 3; k++) c.ambient[k] = (eu[k] + ed[k]) / (2.0f * OAK_PI);
    c.sun_shadow = b->fog.light[3] != 0.0f && b->shadow_valid;
    uint32_t nx = b->fog.grid[0], ny = b->fog.grid[1];
    size_t cols = (size_t)nx * ny, corners = (size_t)(nx + 1) * (ny + 1);
    fog_ray *rays = oak_alloc((2 * cols + corners) * sizeof *rays);
    if (!rays) {
        b->fog.grid[3] = 0;
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu fog: %zu rays", 2 * cols + corners);
    }
    c.jit = rays, c.mid = rays + cols, c.corner = rays + 2 * cols;
    oak_parallel_for(ny + 1, FOG_ROWS, ray_rows, &c);
    oak_parallel_for(ny * b->fog.grid[2], FOG_ROWS, inject_rows, &c);
    oak_parallel_for(ny, FOG_ROWS, integrate_rows, &c);
    oak_free(rays);
    return OAK_OK;
}
