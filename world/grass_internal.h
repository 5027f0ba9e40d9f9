/* Test hooks of the grass (world/grass.c). */
#ifndef OAK_GRASS_INTERNAL_H
#define OAK_GRASS_INTERNAL_H

#include <oak/world.h>

/* Grow new squares from one grid of the terrain's finest heights per
   square (on, the default where the square is a whole number of cells)
   or from a height query per patch (off): the same records either way. */
void _oak_grass_use_grid(oak_grass *g, bool on);
/* Records a square's slot holds in the grass (flowers false) or flower
   stream. */
uint32_t _oak_grass_slot_size(const oak_grass *g, bool flowers);

#endif
