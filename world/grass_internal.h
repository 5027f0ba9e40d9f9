/* Test hooks of the grass (world/grass.c). */
#ifndef OAK_GRASS_INTERNAL_H
#define OAK_GRASS_INTERNAL_H

#include <oak/world.h>

#include "shaders/common/oak_gpu.h"

/* Grow new squares from one grid of the terrain's finest heights per
   square (on, the default where the square is a whole number of cells)
   or from a height query per patch (off): the same records either way. */
void _oak_grass_use_grid(oak_grass *g, bool on);
/* Records a square's slot holds in the grass (flowers false) or flower
   stream. */
uint32_t _oak_grass_slot_size(const oak_grass *g, bool flowers);

/* The grass kernel's job (shaders/grass.comp.glsl) for square (ix, iz) in
   slot `slot` at the terrain's origin `origin`: its grid of heights and
   parameters; false where the kernel cannot grow it (no grid of at most
   OAK_GPU_GRASS_CELLS cells: the host grows it). */
bool _oak_grass_square_job(const oak_grass *g, int64_t ix, int64_t iz, uint32_t slot,
                           const double origin[2], oak_gpu_grass_square *out);
/* The live squares' jobs (at most cap), in the tiles' order: how many. */
uint32_t _oak_grass_live_jobs(const oak_grass *g, oak_gpu_grass_square *out, uint32_t cap);

#endif
