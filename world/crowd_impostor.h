/* Private to liboak: the crowd's far tier (issue 15, DIGEST §5.4;
 * docs/WORLD.md "Crowds: the far tier"). A posed figure baked at load, in
 * software, into an atlas of OAK_IMPOSTOR_VIEWS view angles around the
 * vertical (columns) x OAK_IMPOSTOR_FRAMES walk frames (rows): albedo with
 * coverage as alpha (coverage-keeping mips) and normals in each view's card
 * frame, so every backend samples the same texels; and the card, one upright
 * quad the stream turns to the eye and points at a cell. */
#ifndef OAK_WORLD_CROWD_IMPOSTOR_H
#define OAK_WORLD_CROWD_IMPOSTOR_H

#include <oak/anim.h>
#include <oak/asset.h>

#include "shaders/common/oak_gpu.h"

/* texels of a cell: twice as wide as tall, as a walking quadruped's reach
   about its axis is (a biped's cell would be the other way up) */
#define OAK_IMPOSTOR_CELL_W  128
#define OAK_IMPOSTOR_CELL_H  64
#define OAK_IMPOSTOR_GUTTER  2 /* texels kept clear inside each cell */
#define OAK_IMPOSTOR_ATLAS_W (OAK_IMPOSTOR_VIEWS * OAK_IMPOSTOR_CELL_W)
#define OAK_IMPOSTOR_ATLAS_H (OAK_IMPOSTOR_FRAMES * OAK_IMPOSTOR_CELL_H)
/* The crowd's second figure (world/crowd_figure.c _oak_crowd_fur_figure):
   each Fox triangle cut into CUTS x CUTS, tufts up to 1.5 TUFT metres */
#define OAK_CROWD_FUR_CUTS 5u
#define OAK_CROWD_FUR_TUFT 0.012f

typedef struct _oak_crowd_impostor {
    uint8_t *albedo, *normal; /* the atlases as baked (sRGB RGBA8, RGBA8) */
    /* the card's frame in mesh units: a texel's size, the cell's bottom (y)
       and half its width about the vertical axis, its height */
    float texel, bottom, half_width, height;
    oak_texture albedo_tex, normal_tex;
    oak_material material; /* MASK at 0.5, the figure's roughness */
    oak_mesh card;         /* 4 vertices, cell (0, 0)'s uvs; joint 0 with weight 1 */
    double bake_ms;        /* the bake alone (posing, raster, resolve) */
    uint64_t hash;         /* FNV-1a over both atlases (tests) */
} _oak_crowd_impostor;

/* Bakes mesh (skinned for bank) at OAK_IMPOSTOR_FRAMES evenly spaced times of
   bank clip `clip` (the frame f at f / FRAMES of its duration), each from
   OAK_IMPOSTOR_VIEWS directions (view k from yaw 2 pi k / VIEWS about +y,
   from +z toward +x, in mesh space), with material's base colour (texture
   and factor). On the job pool, a cell a job: the same bytes at any thread
   count. Textures, material and card only when make_assets. */
oak_result _oak_crowd_impostor_bake(_oak_crowd_impostor *out, const oak_pose_bank *bank,
                                    uint32_t clip, oak_mesh mesh, oak_material material,
                                    bool make_assets);
void _oak_crowd_impostor_free(_oak_crowd_impostor *imp);

#endif
