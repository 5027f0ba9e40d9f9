/* Aerial perspective (Hillaire 2020, section 5.6; docs/SHADING.md "Aerial
 * perspective"): a camera-frustum volume built on the host from the
 * atmosphere's tables (world/atmosphere.c) for the view's eye, frustum and
 * key light, and its read at a surface. The volume is OAK_AERIAL_GRID^3
 * RGBA floats, slice by slice, each slice row by row: texel (i, j, k) holds
 * column (i, j)'s light scattered toward the eye (cd/m^2, the key light's
 * illuminance and the sky's scale applied) and its mean transmittance at
 * slice boundary k + 1; boundary b lies OAK_AERIAL_FAR_M * (b / GRID)^2
 * metres from the eye along the column (boundary 0, the eye, is (0, 1)). */
#ifndef OAK_RENDER_AERIAL_H
#define OAK_RENDER_AERIAL_H

#include <oak/backend.h>

#define OAK_AERIAL_GRID   32
#define OAK_AERIAL_FAR_M  32000.0f
#define OAK_AERIAL_TEXELS (OAK_AERIAL_GRID * OAK_AERIAL_GRID * OAK_AERIAL_GRID)

/* whether the view gets aerial perspective: env.aerial_lux > 0 with a
   direction, no capture channel */
bool _oak_aerial_wanted(const oak_render_view *v);
/* Fills vol (OAK_AERIAL_TEXELS * 4 floats) for the view, columns on the
   job pool (each its own: any thread count gives the same bytes). */
void _oak_aerial_build(float *vol, const oak_render_view *v);
/* the distance (metres) of slice boundary b in [0, GRID], and back */
float _oak_aerial_boundary_m(float b);
float _oak_aerial_slice(float dist_m);
/* The volume at screen (ux, uy) in [0, 1] (row 0 at the top) and slice
   coordinate u (boundaries 0 .. GRID), trilinear between column centres
   and boundaries: out = light rgb, transmittance. */
void _oak_aerial_lookup(const float *vol, float ux, float uy, float u, float out[4]);
/* a surface at world P seen through the air: rgb * T + light */
void _oak_aerial_apply(const float *vol, const oak_render_view *v, const float P[3], float rgb[3]);

#endif
