/* Test hooks of the water (world/water.c). */
#ifndef OAK_WATER_INTERNAL_H
#define OAK_WATER_INTERNAL_H

#include <oak/world.h>

/* Grid vertex (i, j) of the last update as the wave sum at its rest point
   gives it alone (sample() at the larger cell beside it, the phase formed
   per point: the grid's arithmetic before its lines shared their terms):
   position from the grid's centre, normal and crest foam (tangent w). */
void _oak_water_grid_reference(const oak_water *w, uint32_t i, uint32_t j, float pos[3],
                               float nrm[3], float *foam);

#endif
