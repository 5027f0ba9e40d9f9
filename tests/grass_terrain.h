/* The terrains the grass tests grow on (test_grass.c, grass_gpu.h): gentle
 * meadow hills, and high hills with rock, dirt and snow beside grass; each
 * of `cells` cells a tile side, drawn `view` metres round the eye. */
#ifndef OAK_TEST_GRASS_TERRAIN_H
#define OAK_TEST_GRASS_TERRAIN_H

#include <oak/world.h>

static inline oak_terrain_desc grass_terrain(uint32_t seed, float amplitude, float wavelength,
                                             uint32_t cells, float view) {
    oak_terrain_desc d = {
        .seed = seed, .amplitude = amplitude, .frequency = 1.0f / wavelength, .cells = cells};
    d.ridge_amplitude = -1;
    d.levels = 5;
    d.view_distance = view;
    d.build_budget = 64;
    return d;
}
static inline oak_terrain_desc grass_terrain_soft(uint32_t cells, float view) {
    return grass_terrain(5, 20, 400, cells, view);
}
static inline oak_terrain_desc grass_terrain_rough(uint32_t cells, float view) {
    return grass_terrain(3, 320, 700, cells, view);
}

#endif
