/* Froxel volumetric fog (docs/SHADING.md "Volumetric fog"): the frame's
 * record from the view, and the C of shaders/common/fog.glsl and
 * shaders/fog.comp.glsl operation for operation (the CPU backend runs
 * these; tests call them for the numbers a picture must show). `buf` is
 * the OAK_B_FOG buffer's floats, laid out as oak_gpu_fog says. */
#ifndef OAK_RENDER_FOG_H
#define OAK_RENDER_FOG_H

#include <oak/backend.h>

#include "shaders/common/oak_gpu.h"

/* A froxel's history is dropped when clamping its extinction to its
   cell's moved it by more than this factor (_oak_fog_blend; the shader
   reads it as oak_gpu_fog.history.y) */
#define OAK_FOG_REJECT 2.0f

/* the fog pass's steps (shaders/fog.comp.glsl), one dispatch each */
enum {
    OAK_FOG_STEP_INJECT,    /* per froxel: extinction and light scattered to the eye */
    OAK_FOG_STEP_INTEGRATE, /* per column: front to back into (light, transmittance) */
    OAK_FOG_STEPS
};

/* whether the view's fog runs (a density or a volume; no capture channel) */
bool _oak_fog_on(const oak_render_view *v);
/* The view's fog resolved: defaults filled, the preset's grid, the key
   light; grid[3] 0 (all else 0 too) when the fog pass does not run. */
void _oak_fog_fill(oak_gpu_fog *f, const oak_render_view *v);
/* the buffer's vec4 texels: inject grid A, the integrated grid, inject
   grid B, then the frames held per froxel of A and of B (one float per
   froxel, four to a texel) */
static inline uint64_t _oak_fog_texels(const oak_gpu_fog *f) {
    uint64_t n = (uint64_t)f->grid[0] * f->grid[1] * f->grid[2];
    return 3ull * n + 2ull * ((n + 3) / 4);
}
/* the first texel of the frames-held grid that goes with the inject grid
   at texel `grid` (0: A, else B); froxel at (k grid.y + j) grid.x + i
   is float [that * 4 + it] */
static inline uint32_t _oak_fog_held_texel(const oak_gpu_fog *f, uint32_t grid) {
    uint32_t n = f->grid[0] * f->grid[1] * f->grid[2];
    return 3u * n + (grid == 0u ? 0u : (n + 3u) / 4u);
}
/* Last frame's inject (the grid at f->grids[1]) at world P: P through
   last frame's view-projection and view depth to its froxel coordinates,
   trilinear between froxel centres, and `held` the frames held at the
   nearest centre; false (out untouched or partly written) when P lay
   outside last frame's volume. */
bool _oak_fog_history_at(const oak_gpu_fog *f, const float *buf, const oak_render_view *v,
                         const float P[3], float out[4], float *held);
/* The extinction this frame's medium has in froxel (i, j, k)'s cell: the
   least and most of its 8 corners' and `sigma` (the sample's). */
void _oak_fog_bounds(const oak_render_view *v, const oak_gpu_fog *f, uint32_t i, uint32_t j,
                     uint32_t k, float sigma, float *lo, float *hi);
/* the same from the cell's 8 corners already found: P[c * 2 + e] the
   point at slice boundary k + e on the corner ray through froxel
   coordinates (i + (c & 1), j + (c >> 1)) (the CPU's inject finds each
   corner ray once a frame and each point once a row, render/fog.c's
   _oak_fog_bounds per froxel; the same floats) */
void _oak_fog_bounds_at(const oak_gpu_fog *f, const float P[8][3], float sigma, float *lo,
                        float *hi);
/* This frame's sample `cur` with the history `hist` (when held_ok; it is
   changed) into `out`: the history's extinction clamped to [lo, hi] and
   its light scaled alike, rejected (cur alone) when the clamp moved it by
   more than f->history[1] times; else weighted 1 / (n + 1), n = held + 1
   (at most 1 / OAK_FOG_HISTORY_MIN). Returns the frames held now (0:
   the sample alone). */
float _oak_fog_blend(const oak_gpu_fog *f, const float cur[4], float hist[4], bool held_ok,
                     float held, float lo, float hi, float out[4]);
/* view depth of slice boundary b (0 the eye, grid.z the far end) */
float _oak_fog_boundary_depth(const oak_gpu_fog *f, float b);
/* extinction per metre at world P; scatter gets the scattering per metre (rgb) */
float _oak_fog_extinction(const oak_gpu_fog *f, const float P[3], float scatter[3]);
/* Henyey-Greenstein's phase for the cosine between the view ray (eye to
   froxel) and the direction toward the light */
float _oak_fog_phase(float cosv, float g);
/* Column (i, j)'s ray: from the near-plane point `origin` along unit `dir`;
   `rate` the view depth gained per metre along it and `origin_depth` the
   origin's view depth. */
void _oak_fog_column_ray(const oak_render_view *v, const oak_gpu_fog *f, uint32_t i, uint32_t j,
                         float origin[3], float dir[3], float *origin_depth, float *rate);
/* the same through froxel coordinates (cx, cy) (column i spans i .. i + 1) */
void _oak_fog_ray(const oak_render_view *v, const oak_gpu_fog *f, float cx, float cy,
                  float origin[3], float dir[3], float *origin_depth, float *rate);
/* the world point at view depth z on column (i, j)'s ray */
void _oak_fog_point(const float origin[3], const float dir[3], float origin_depth, float rate,
                    float z, float P[3]);
/* step 2 for column (i, j): the inject's froxels (at f->grids[0]) into the
   integrated grid */
void _oak_fog_integrate(const oak_gpu_fog *f, float *buf, uint32_t i, uint32_t j, float rate);
/* The integrated volume at screen (ux, uy) in [0, 1] (row 0 at the top)
   and slice coordinate u (boundaries 0 .. grid.z), trilinear: out = light
   rgb, transmittance. */
void _oak_fog_lookup(const oak_gpu_fog *f, const float *buf, float ux, float uy, float u,
                     float out[4]);
/* a surface at world P seen through the fog: rgb * T + light */
void _oak_fog_apply(const oak_gpu_fog *f, const float *buf, const oak_render_view *v,
                    const float P[3], float rgb[3]);
/* the sky at pixel (x, y) of a width x height frame: the far boundary */
void _oak_fog_apply_sky(const oak_gpu_fog *f, const float *buf, uint32_t x, uint32_t y,
                        uint32_t width, uint32_t height, float rgb[3]);

#endif
