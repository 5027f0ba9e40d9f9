/* The rocks' footprints for the plants' placement (world/rocks.c; docs/WORLD.md
 * "Rocks"): grass, flowers and trees keep off the discs the rocks stand on,
 * from the same placement the rocks' own cells make, so a square or cell of
 * plants grown anywhere, at any origin, sees the same rocks. */
#ifndef OAK_ROCKS_INTERNAL_H
#define OAK_ROCKS_INTERNAL_H

#include <oak/world.h>

/* One rock's footprint: its centre in world metres and its reach across
   (the widest point of its mesh from its axis, times its scale: the whole
   rock's shadow from straight above lies within it). */
typedef struct _oak_rock_disc {
    double x, z;
    float r;
} _oak_rock_disc;

/* The footprints of every rock (near the eye or not: a pure function of the
   desc, the kinds' meshes and the ground) whose disc reaches the world
   rectangle [x0, x1] x [z0, z1], in a fixed order (cells by z then x, a
   cell's own order), the first `cap` of them written to out: how many there
   are. Safe on the job pool (reads the rocks' desc and the terrain only). */
uint32_t _oak_rocks_discs(const oak_rocks *k, double x0, double z0, double x1, double z1,
                          _oak_rock_disc *out, uint32_t cap);
/* Whether world (x, z) lies within `clearance` metres of a rock's footprint. */
bool _oak_rocks_cover(const oak_rocks *k, double x, double z, float clearance);

/* The plants keep off these rocks (NULL: none). Grass: before its first
   update (an error after, when squares have grown); the forest's cells are
   made again on its next update. */
oak_result _oak_grass_set_rocks(oak_grass *g, const oak_rocks *k);
void _oak_forest_set_rocks(oak_forest *f, const oak_rocks *k);

#endif
