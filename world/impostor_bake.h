/* Private to liboak: the software impostor baker the forest's trees and the
 * crowd's figures share (docs/WORLD.md "Trees" > "LOD", "Crowds: the far
 * tier"). One view of a mesh is an orthographic raster along a horizontal
 * direction V (the viewer at +V, up +y, right R = up x V) at 2 x 2 samples a
 * texel, then resolved into one slot of an atlas: albedo (sRGB) with the
 * coverage as alpha, and the interpolated normals in the slot quad's own
 * tangent frame (T = R, B = up, N = V) in a second atlas, empty texels
 * filled with the view's mean colour so filtering never darkens an edge. */
#ifndef OAK_WORLD_IMPOSTOR_BAKE_H
#define OAK_WORLD_IMPOSTOR_BAKE_H

#include <oak/core.h>
#include <oak/vecmath.h>
#include <stdint.h>

#define OAK_BAKE_SS 2 /* samples a texel each way */

/* A linear colour channel as an sRGB byte, and a [0, 1] value as a byte
   (both clamped, rounded): the atlases' texels. */
static inline uint8_t _oak_bake_srgb8(float linear) {
    float v = oak_linear_to_srgb(linear < 0 ? 0 : (linear > 1 ? 1 : linear));
    return (uint8_t)(v * 255.0f + 0.5f);
}
static inline uint8_t _oak_bake_unorm8(float v) {
    v = v < 0 ? 0 : (v > 1 ? 1 : v);
    return (uint8_t)(v * 255.0f + 0.5f);
}

/* Triangles to bake: per vertex a position and a normal (xyz, in the frame
   the view's V and R are given in) and a uv. */
typedef struct _oak_bake_tris {
    const float *pos, *nrm, *uv;
    const uint32_t *idx;
    uint32_t index_count;
} _oak_bake_tris;

/* The albedo the triangles sample (nearest texel, uv clamped): sRGB RGBA8
   rows of w texels (NULL: factor alone), times a linear factor; a texel
   whose alpha is under `cutoff` is a hole (0: none). */
typedef struct _oak_bake_tex {
    const uint8_t *rgba;
    uint32_t w, h;
    uint8_t cutoff;
    float factor[3];
} _oak_bake_tex;

/* One view: its direction, the texel size s (metres) and the bottom of the
   slot (y, metres) of a slot_w x slot_h slot centred on the vertical axis. */
typedef struct _oak_bake_view {
    float V[3];
    float s, bottom;
    uint32_t slot_w, slot_h;
} _oak_bake_view;

/* Sample buffers for one slot size (OAK_BAKE_SS times finer). */
typedef struct _oak_bake_target {
    float *depth, *color, *nrm;
    uint32_t w, h;
} _oak_bake_target;

oak_result _oak_bake_target_make(_oak_bake_target *t, uint32_t slot_w, uint32_t slot_h);
void _oak_bake_target_free(_oak_bake_target *t);
/* Empties the samples (before a view's first raster). */
void _oak_bake_clear(_oak_bake_target *t);
/* Rasterizes tris into t along view v (nearest to +V wins). */
void _oak_bake_raster(_oak_bake_target *t, const _oak_bake_view *v, const _oak_bake_tris *tris,
                      const _oak_bake_tex *tex);
/* Resolves t into the slot at texel (x0, y0) of RGBA8 atlases `albedo` and
   `normal` that are atlas_w texels wide. */
void _oak_bake_resolve(const _oak_bake_target *t, const _oak_bake_view *v, uint8_t *albedo,
                       uint8_t *normal, uint32_t atlas_w, uint32_t x0, uint32_t y0);

/* ---- outlines: the convex polygon a cut-out card is cut to -------------- */

#define OAK_BAKE_OUTLINE      8   /* vertices at most of an outline */
#define OAK_BAKE_OUTLINE_ROWS 256 /* rows at most of a slot outlined */

/* What an outline must hold in a w x h slot (texel units, x right, y
   down): band y (between rows y and y + 1) from x = lo[y] to hi[y]
   (lo >= hi: nothing). Only each band's ends matter to a convex hull. */
typedef struct _oak_bake_spans {
    uint32_t w, h;
    int lo[OAK_BAKE_OUTLINE_ROWS], hi[OAK_BAKE_OUTLINE_ROWS];
} _oak_bake_spans;

/* Empty spans of a w x h slot (h at most OAK_BAKE_OUTLINE_ROWS). */
void _oak_bake_spans_init(_oak_bake_spans *s, uint32_t w, uint32_t h);
/* Adds the texels of an RGBA8 image of rw x rh texels (rows `stride`
   texels apart) whose alpha is at least min_alpha: texel (x, y) stands
   for slot texels x * scale .. (x + 1) * scale each way (a mip level's
   texel over level 0's), grown by `margin` texels each way and clamped
   to the slot. */
void _oak_bake_spans_add(_oak_bake_spans *s, const uint8_t *rgba, uint32_t stride, uint32_t rw,
                         uint32_t rh, uint32_t scale, uint8_t min_alpha, uint32_t margin);
/* A convex polygon of at most OAK_BAKE_OUTLINE vertices (xy in slot
   texels, turning positively in x right, y down) inside the slot that
   holds every span: their hull, brought down to OAK_BAKE_OUTLINE vertices
   by dropping, one at a time, the edge whose neighbours extended to meet
   add the least area (the meeting point kept inside the slot); the spans'
   bounding rectangle where that is smaller. Returns its vertex count, 0
   for empty spans. */
uint32_t _oak_bake_outline(float out[2 * OAK_BAKE_OUTLINE], const _oak_bake_spans *s);

#endif
