/* The lamp grid's geometry, shared by the CPU build (backend/cpu/
 * cpu_lightgrid.c) and mirrored line for line by shaders/common/light_grid.glsl:
 * a cell's view-space box and the sphere-against-cell test that lists a lamp. */
#ifndef OAK_LIGHT_GRID_H
#define OAK_LIGHT_GRID_H

#include <math.h>

#include "shaders/common/oak_gpu.h"

/* View depth (metres in front of the camera) where slice k starts (k = Z:
   where the last ends). */
static inline float _oak_grid_slice_depth(const oak_gpu_light_grid *g, uint32_t k) {
    if (k == 0) return g->slices[2];
    if (k == OAK_LIGHT_GRID_Z) return g->slices[3];
    return g->slices[0] * expf((float)(k - 1) / g->slices[1]);
}

/* The slice of view depth d: floor(ln(d / g0) * slices.y) + 1, clamped. */
static inline uint32_t _oak_grid_slice_of(const oak_gpu_light_grid *g, float depth) {
    float s = floorf(logf(depth / g->slices[0]) * g->slices[1]) + 1.0f;
    return !(s > 0) ? 0 : s >= OAK_LIGHT_GRID_Z ? OAK_LIGHT_GRID_Z - 1 : (uint32_t)s;
}

/* View-space coordinate (x: axis 0, y: axis 1) of the plane through ndc at
   view depth z > 0. */
static inline float _oak_grid_view_at(const oak_gpu_light_grid *g, int axis, float ndc, float z) {
    float w = g->proj2[2] != 0 ? 1.0f : z;
    return (ndc * w - g->proj2[axis] + g->proj[2 + axis] * z) / g->proj[axis];
}

/* Cell (x, y, z)'s view-space box: lo[3], hi[3]. */
static inline void _oak_grid_cell_box(const oak_gpu_light_grid *g, uint32_t x, uint32_t y,
                                      uint32_t z, float lo[3], float hi[3]) {
    float z0 = _oak_grid_slice_depth(g, z), z1 = _oak_grid_slice_depth(g, z + 1);
    float nx[2] = {-1.0f + 2.0f * (float)x / OAK_LIGHT_GRID_X,
                   -1.0f + 2.0f * (float)(x + 1) / OAK_LIGHT_GRID_X};
    /* row 0 is the top: clip y = +1 */
    float ny[2] = {1.0f - 2.0f * (float)(y + 1) / OAK_LIGHT_GRID_Y,
                   1.0f - 2.0f * (float)y / OAK_LIGHT_GRID_Y};
    const float *n[2] = {nx, ny};
    for (int a = 0; a < 2; a++) {
        float v[4] = {_oak_grid_view_at(g, a, n[a][0], z0), _oak_grid_view_at(g, a, n[a][1], z0),
                      _oak_grid_view_at(g, a, n[a][0], z1), _oak_grid_view_at(g, a, n[a][1], z1)};
        lo[a] = hi[a] = v[0];
        for (int i = 1; i < 4; i++) {
            lo[a] = v[i] < lo[a] ? v[i] : lo[a];
            hi[a] = v[i] > hi[a] ? v[i] : hi[a];
        }
    }
    lo[2] = -z1, hi[2] = -z0;
}

/* Whether a sphere (view-space centre c, radius r; r <= 0: unlimited) meets
   the box. */
static inline bool _oak_grid_sphere_box(const float c[3], float r, const float lo[3],
                                        const float hi[3]) {
    if (r <= 0) return true;
    float d2 = 0;
    for (int a = 0; a < 3; a++) {
        float e = c[a] < lo[a] ? lo[a] - c[a] : c[a] > hi[a] ? c[a] - hi[a] : 0.0f;
        d2 += e * e;
    }
    return d2 <= r * r;
}

/* Whether the sphere is on the inner side (or within r) of the plane where
   ndc along axis (0: x, 1: y) equals t: lower bound side > 0, upper < 0. */
static inline bool _oak_grid_sphere_side(const oak_gpu_light_grid *g, int axis, float t, float side,
                                         const float c[3], float r) {
    bool ortho = g->proj2[2] != 0;
    float na = g->proj[axis], nz = g->proj[2 + axis] + (ortho ? 0.0f : t);
    float d = g->proj2[axis] - (ortho ? t : 0.0f);
    float f = na * c[axis] + nz * c[2] + d;
    return side * f >= -r * sqrtf(na * na + nz * nz);
}

/* The listing test: the sphere meets cell (x, y)'s box and lies within r of
   the inner side of each of the column's and row's four planes (the box of a
   frustum slice is loose off the axis; the planes are not). */
static inline bool _oak_grid_sphere_cell(const oak_gpu_light_grid *g, uint32_t x, uint32_t y,
                                         const float lo[3], const float hi[3], const float c[3],
                                         float r) {
    if (r <= 0) return true;
    if (!_oak_grid_sphere_box(c, r, lo, hi)) return false;
    float x0 = -1.0f + 2.0f * (float)x / OAK_LIGHT_GRID_X;
    float x1 = -1.0f + 2.0f * (float)(x + 1) / OAK_LIGHT_GRID_X;
    float y0 = 1.0f - 2.0f * (float)(y + 1) / OAK_LIGHT_GRID_Y;
    float y1 = 1.0f - 2.0f * (float)y / OAK_LIGHT_GRID_Y;
    return _oak_grid_sphere_side(g, 0, x0, 1, c, r) && _oak_grid_sphere_side(g, 0, x1, -1, c, r) &&
           _oak_grid_sphere_side(g, 1, y0, 1, c, r) && _oak_grid_sphere_side(g, 1, y1, -1, c, r);
}

#endif
