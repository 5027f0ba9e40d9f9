/* Private pieces of the terrain (world/terrain*.c): the height function in
 * double-precision world coordinates and one tile's mesh, built from it. */
#ifndef OAK_TERRAIN_INTERNAL_H
#define OAK_TERRAIN_INTERNAL_H

#include <oak/world.h>

/* The resolved noise half of an oak_terrain_desc. */
typedef struct _oak_terrain_noise {
    uint32_t seed, octaves, ridge_octaves;
    double frequency, amplitude, lacunarity, gain;
    double ridge_frequency, ridge_amplitude;
    double offset[2];
} _oak_terrain_noise;

/* Height in metres at world (x, z): fBm hills plus ridged mountains where a
   slow mask field rises. Every lattice coordinate is split into a whole cell
   and a fraction in double, so the result does not coarsen 100 km out. */
double _oak_terrain_noise_height(const _oak_terrain_noise *n, double x, double z);
/* Gradient noise in about [-1, 1] with a period of `period` cells in x and y
   (the painted detail texture tiles with it). */
double _oak_terrain_noise_periodic(double x, double y, int64_t period, uint32_t seed);
/* A count x count grid of heights, out[j * count + i] at (xs[i], zs[j]):
   _oak_terrain_noise_height's floats to the bit, with each column's and
   row's lattice split formed once (a grass square's grid, every arriving
   square). Past OAK_TERRAIN_NOISE_GRID_MAX a side, point by point. */
#define OAK_TERRAIN_NOISE_GRID_MAX 65
void _oak_terrain_noise_grid(const _oak_terrain_noise *n, const double *xs, const double *zs,
                             uint32_t count, float *out);

/* What one tile is: level (0 finest), index of its corner in that level's
   tile grid, in world metres corner = index * size. */
typedef struct _oak_tile_key {
    int32_t level;
    int64_t ix, iz;
} _oak_tile_key;

/* A built tile's mesh and what the morph and the queries keep of it. */
typedef struct _oak_tile_build {
    oak_mesh mesh;
    float *height;        /* (cells + 1)^2 heights, row by row along x */
    float *parent_height; /* the parent's surface under each vertex */
    float skirt;          /* metres the skirts hang below the edge */
    float min_h, max_h;
    void *work; /* between begin and end: the streams being built */
} _oak_tile_build;

typedef struct _oak_tile_params {
    const _oak_terrain_noise *noise;
    uint32_t cells;
    double tile_size; /* of level 0 */
    double uv_scale;  /* metres per repeat of the detail texture */
} _oak_tile_params;

/* A tile is built in three steps so that many can be filled at once on the
   job pool: begin allocates (calling thread), fill computes heights, the
   parent's surface, skirts, normals, UVs and colours (any thread; touches
   nothing but out), end makes the mesh (calling thread: the asset registry
   is not thread-safe). Each frees everything it made on failure; release
   frees a build stopped anywhere. */
oak_result _oak_tile_build_begin(_oak_tile_build *out, uint32_t cells);
void _oak_tile_build_fill(_oak_tile_build *out, const _oak_tile_params *p, _oak_tile_key key);
oak_result _oak_tile_build_end(_oak_tile_build *out, uint32_t cells, const char *name);
void _oak_tile_release(_oak_tile_build *b);
/* Vertex count of a tile: the grid and one skirt row per edge. */
uint32_t _oak_tile_vertex_count(uint32_t cells);
/* Writes morphed positions (grid heights blended to the parent's by
   morph[v] in [0, 1]; an edge whose coarse[e] is n > 0 on the line of the
   tile n levels up across it; skirts following their edge) into pos. */
void _oak_tile_morph_positions(float *pos, const _oak_tile_build *b, uint32_t cells, double spacing,
                               const float *morph, const uint8_t coarse[4]);

/* The materials' shares (0 .. 1, each over the ones before) from slope
   (normal's y), height and variation: dry grass, dirt, rock, snow. The one
   rule the colours and the grass (world/grass.c) follow. */
void _oak_terrain_material_shares(float out[4], float normal_y, float height, float variation);
/* The variation field at world (x, z) + offset (where the noise is). */
float _oak_terrain_variation(double wx, double wz);
/* Height, unit normal (as oak_terrain_height) and the variation field at
   scene (x, z). */
oak_result _oak_terrain_ground(const oak_terrain *t, double x, double z, float *height,
                               float normal[3], float *variation);

/* oak_terrain_height at world (wx, wz), whatever the origin: the same bits
   for the same world point before and after a rebase (the rocks' placement,
   which the plants' exclusion repeats, stands on it). Past
   OAK_TERRAIN_MAX_WORLD: OAK_ERROR_INVALID_ARGUMENT with no message. */
oak_result _oak_terrain_height_world(const oak_terrain *t, double wx, double wz, float *height,
                                     float normal[3]);

/* The noise's world offset (desc.offset): the variation at scene (x, z) is
   _oak_terrain_variation(x + origin + offset) (the grass kernel's input). */
void _oak_terrain_noise_offset(const oak_terrain *t, double out[2]);
/* The variation field alone at scene (x, z) (as _oak_terrain_ground gives it). */
float _oak_terrain_variation_at(const oak_terrain *t, double x, double z);
/* Metres between the finest level's grid points. */
double _oak_terrain_cell(const oak_terrain *t);
/* The finest grid's heights (rounded to float, as oak_terrain_height reads
   them) at world grid points (gx + i, gz + j) x cell for i, j in 0 .. n,
   row by row along x: (n + 1)^2 floats (world/grass.c grows a tile from them). */
void _oak_terrain_grid(const oak_terrain *t, int64_t gx, int64_t gz, uint32_t n, float *out);

/* Terrain colours as linear RGB from slope (normal's y), height and a
   variation value in about [-1, 1]: grass, dirt, rock and snow. */
void _oak_terrain_material_color(float rgb[3], float normal_y, float height, float variation);

/* The painted detail texture "oak://terrain_detail": grey grain near white
   that the vertex colours tint. */
oak_result _oak_terrain_register_detail(void);

#endif
