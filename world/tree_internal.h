/* Private pieces of the trees (world/tree*.c, world/forest.c): one tree's
 * geometry as generated (branches and leaf cards, before it becomes a mesh),
 * the species' atlas layout, and the steps that make a species' assets
 * (docs/WORLD.md "Trees"). */
#ifndef OAK_TREE_INTERNAL_H
#define OAK_TREE_INTERNAL_H

#include <oak/world.h>

/* The atlas of a species: 1024 x 512 texels in slots of 128 x 256. Slot 0
   of the top row is the bark, slots 1-2 the leaf (or needle) card, slots
   3-7 and the whole bottom row the impostor views (4 per variant). */
#define OAK_TREE_ATLAS_W   1024
#define OAK_TREE_ATLAS_H   512
#define OAK_TREE_SLOT_W    128
#define OAK_TREE_SLOT_H    256
#define OAK_TREE_VIEWS     4  /* impostor views a variant: +z, +x, -z, -x */
#define OAK_TREE_VIEW_SLOT 13 /* view slots in the atlas */
#define OAK_TREE_GUTTER    2  /* texels kept clear inside each impostor slot */
#define OAK_TREE_OUTLINE   8  /* vertices at most of an impostor card's outline */

/* Vertex streams of a growing mesh (structure of arrays, as oak_mesh_desc). */
typedef struct _oak_tree_mesh {
    uint32_t vertex_count, index_count, vertex_cap, index_cap;
    float *pos, *nrm, *tan, *uv;
    uint32_t *idx;
} _oak_tree_mesh;

typedef struct _oak_tree {
    _oak_tree_mesh branches; /* closed tapered tubes, one per branch */
    _oak_tree_mesh leaves;   /* cards, each a front and a back (quads, or outlines once cut) */
    uint32_t thin_first;     /* branch indices from here on are the thinnest level's */
    uint32_t cards;
    uint32_t card_verts;  /* vertices a card in leaves (8 as made: two quads) */
    uint32_t card_idx;    /* indices a card in leaves (12 as made) */
    float *card_centre;   /* each card's rectangle's centre (xyz), to grow it about */
    float height, radius; /* top (y) and reach from the trunk's axis, metres */
} _oak_tree;

/* Generates variant `seed` of species (OAK_TREE_PINE ..): the same bytes for
   the same arguments. */
oak_result _oak_tree_generate(_oak_tree *out, uint32_t species, uint32_t seed);
void _oak_tree_free(_oak_tree *t);
void _oak_tree_mesh_free(_oak_tree_mesh *m);
/* LOD 0: branches then leaves in one mesh. */
oak_result _oak_tree_full(_oak_tree_mesh *out, const _oak_tree *t);
/* LOD 1: the branches without the thinnest level, simplified by
   meshoptimizer; a hashed share (OAK_TREE_LEAF_KEEP) of the cards, each
   grown so the kept area equals the whole. */
oak_result _oak_tree_simplified(_oak_tree_mesh *out, const _oak_tree *t, uint32_t seed);
/* LOD 2: four one-sided vertical quads (two crossed planes, a face each way),
   each showing view slot `first_view` + k of the atlas. */
oak_result _oak_tree_impostor(_oak_tree_mesh *out, const _oak_tree *t, uint32_t first_view);
/* Crops each of the impostor's quads (position and uv together, so the
   picture is unchanged) to the rectangle of its view slot's texels with any
   coverage in the baked atlas `albedo`, plus a texel of margin: most of a
   whole slot is empty and each of its fragments cost a discard. */
void _oak_tree_impostor_crop(_oak_tree_mesh *m, const uint8_t *albedo, uint32_t first_view);
/* The outline of view slot `rect` (atlas x, y, w, h) of the baked atlas
   `albedo`: a convex polygon of at most OAK_TREE_OUTLINE vertices (xy in
   slot texels, x right, y down, turning positively in them) inside the
   slot that holds every texel with any coverage grown by a texel each way.
   Returns its vertex count, 0 for an empty slot. */
uint32_t _oak_tree_view_outline(float out[2 * OAK_TREE_OUTLINE], const uint8_t *albedo,
                                const uint32_t rect[4]);
/* Cuts each of the impostor's whole-slot quads (as _oak_tree_impostor made
   them) to its view's outline, position and uv together (so every texel
   stays where it was), a fan of triangles each: the rasterizer then makes
   few of the empty fragments that each cost the cutout's discard. */
oak_result _oak_tree_impostor_outline(_oak_tree_mesh *m, const uint8_t *albedo,
                                      uint32_t first_view);
/* The leaf card: slots 1-2 of the top row, texels (x, y, w, h). */
#define OAK_TREE_CARD_X OAK_TREE_SLOT_W
#define OAK_TREE_CARD_W (2 * OAK_TREE_SLOT_W)
#define OAK_TREE_CARD_H OAK_TREE_SLOT_H
/* Levels of the atlas's chain the leaf cards' outline holds (forest.c) */
#define OAK_TREE_CARD_LEVELS 8
/* The leaf card's outline (xy in card texels, x right, y down, as
   _oak_tree_view_outline's): round every card texel of level 0 with any
   coverage grown by a texel (the bilinear's reach where a card is
   magnified), and round each texel of levels 1 .. levels - 1 of `d` (the
   atlas as made, its coverage-kept chain) whose alpha passes `cutoff` (a
   minified card's cutout is one nearest tap of one level). Returns its
   vertex count (0: an empty card). */
uint32_t _oak_tree_card_outline(float out[2 * OAK_TREE_OUTLINE], const oak_texture_data *d,
                                uint32_t levels, uint8_t cutoff);
/* Cuts every leaf card of t, front and back, to outline xy (n vertices,
   card texels), position, normal and uv together as the card's two
   triangles interpolate them (so every texel inside stays where it was,
   shaded as it was): the rasterizer then makes few of the fragments the
   cutout only discards. */
oak_result _oak_tree_cut_cards(_oak_tree *t, const float *xy, uint32_t n);
/* Paints the bark and card slots of a species' atlas (sRGB RGBA) and of its
   normal map (RGBA, tangent space). */
void _oak_tree_paint(uint8_t *albedo, uint8_t *normal, uint32_t species);
/* Bakes the four impostor views of t into view slots first_view .. + 3 of
   the atlas (albedo, coverage as alpha) and the normal map, from the full
   mesh t, sampling the painted slots of the same atlas. */
oak_result _oak_tree_bake(uint8_t *albedo, uint8_t *normal, const _oak_tree *t,
                          uint32_t first_view);
/* Atlas texel rectangle (x, y, w, h) of view slot j. */
void _oak_tree_view_rect(uint32_t j, uint32_t rect[4]);
/* Boundary edges of a mesh once vertices at the same position are one:
   0 for a closed surface. */
uint32_t _oak_tree_open_edges(const _oak_tree_mesh *m);

#endif
