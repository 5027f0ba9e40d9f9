/* oak world: content that makes a whole world in a scene. Worlds are looked
 * up by name; each also gives a scripted camera path for benchmarks. */
#ifndef OAK_WORLD_H
#define OAK_WORLD_H

#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

uint32_t oak_world_count(void);
const char *oak_world_name(uint32_t index);
const char *oak_world_description(uint32_t index);

/* Fills an empty scene with the named world, camera included. */
oak_result oak_world_build(oak_scene *scene, const char *name);
/* The world's benchmark camera at t in [0, 1] along its path (eye and the
 * point it looks at). */
oak_result oak_world_camera_path(const char *name, float t, float eye[3], float target[3]);
/* Moves what the named world moves by itself (lamps, ...) to its state at
 * `seconds` of world time; worlds that stand still do nothing. */
oak_result oak_world_update(oak_scene *scene, const char *name, float seconds);

/* ---- time of day (docs/SHADING.md "Time of day and the atmosphere") ----- */

/* Sets the hour (local standard time, [0, 24]) and applies it: the key light
 * (the directional light named "sun", else the first shadow-casting
 * directional one, made if none) where the sun stands, or the moon once the
 * sun is 6 degrees down, its colour and lux through the air; the sky image
 * baked by the CPU atmosphere (stars and the moon's disc at night), the
 * ground's light and the fog's colour from it, and a physical camera's
 * EV100 for the light. The place and date are the scene's
 * (oak_scene_time_of_day); zero fields are the defaults: Zurich (47.37 N,
 * 8.54 E, UTC+1) on day 180 (29 June) of 2026. Bad numbers give one line
 * and OAK_ERROR_INVALID_ARGUMENT, changing nothing. */
oak_result oak_world_set_time(oak_scene *scene, float hours);
/* The same with the place and date too (t->set is ignored; t->hour is used). */
oak_result oak_world_set_time_of_day(oak_scene *scene, const oak_time_of_day *t);
/* Applies the scene's own time of day (after loading a scene file); OK and
 * nothing done when it has none. */
oak_result oak_world_apply_time(oak_scene *scene);

/* ---- terrain (world/terrain*.c, docs/WORLD.md) -------------------------- */

/* An endless noise heightfield drawn as quadtree tiles around the eye: each
 * tile an ordinary mesh entity in the scene (vertices relative to its
 * corner), finer near the eye and coarser far away, skirts on every edge so
 * levels never leave a gap, and the scene kept near its origin by rebasing. */
typedef struct oak_terrain oak_terrain;

typedef struct oak_terrain_desc {
    uint32_t seed;
    /* fBm hills: amplitude * fbm(p * frequency), each octave lacunarity times
       finer and gain times weaker */
    uint32_t octaves; /* 0: 7 */
    float frequency;  /* per metre; 0: 1/700 */
    float amplitude;  /* metres; 0: 45 */
    float lacunarity; /* 0: 2 */
    float gain;       /* 0: 0.5 */
    /* ridged mountains on top, where a slow mask field rises */
    uint32_t ridge_octaves; /* 0: 5 */
    float ridge_frequency;  /* 0: 1/2400 */
    float ridge_amplitude;  /* metres; 0: 260; negative: no ridges */
    /* world (x, z) added before the noise: the same landscape anywhere */
    double offset[2];
    float tile_size;  /* metres a side of a finest tile; 0: OAK_TERRAIN_TILE_SIZE */
    uint32_t cells;   /* even cells a side of a tile; 0: OAK_TERRAIN_CELLS */
    uint32_t levels;  /* 0: OAK_TERRAIN_LEVELS; coarsest tiles are 2^(levels-1) finest */
    float lod_factor; /* split a tile nearer than this times its size; 0: OAK_TERRAIN_LOD_FACTOR */
    float view_distance;   /* metres drawn around the eye; 0: OAK_TERRAIN_VIEW_DISTANCE */
    uint32_t build_budget; /* tiles built per update; 0: OAK_TERRAIN_BUILD_BUDGET */
    uint32_t cache_tiles;  /* tiles kept built; 0: OAK_TERRAIN_CACHE_TILES */
    float uv_scale;        /* metres per repeat of the ground detail texture; 0: 8 */
    oak_material material; /* id 0: a matte material over oak://terrain_detail */
    bool no_rebase;        /* keep the scene origin where it is (tests) */
    bool no_morph;         /* tiles keep their own heights out to their edges */
    bool no_shadows;       /* tiles cast no sun or lamp shadows (they still receive them) */
} oak_terrain_desc;

/* Resolves zeros to the defaults above (desc may be NULL). */
oak_terrain_desc oak_terrain_desc_defaults(const oak_terrain_desc *desc);
/* Makes a terrain over scene; nothing is built until the first update.
 * Destroy it before the scene, or hand it to the scene with
 * oak_scene_attach(scene, terrain, ...) to have it destroyed with it. */
oak_result oak_make_terrain(oak_terrain **out, oak_scene *scene, const oak_terrain_desc *desc);
/* Removes its tiles' entities and meshes and frees it. */
void oak_destroy_terrain(oak_terrain *terrain);
/* Each frame, eye in scene coordinates: rebases when the eye strays past
 * OAK_TERRAIN_REBASE_DISTANCE (moving every root entity, the camera
 * included), picks the tiles around the eye, builds at most the budget of
 * missing ones (nearest first; coarsest tiles within view that are missing
 * are built at once, so nothing is ever a hole), shows the chosen ones,
 * morphs them and frees the least recently used past the cache cap. An eye
 * past OAK_TERRAIN_MAX_WORLD from the world origin is an error. */
oak_result oak_terrain_update(oak_terrain *terrain, const float eye[3]);
/* Height (and the unit normal, may be NULL) of the finest level's triangle
 * under scene (x, z), the way the tiles draw it before morphing. */
oak_result oak_terrain_height(const oak_terrain *terrain, double x, double z, float *height,
                              float normal[3]);
/* World (x, z) of the scene origin: scene = world - origin. */
void oak_terrain_origin(const oak_terrain *terrain, double origin[2]);

typedef struct oak_terrain_stats {
    uint32_t shown;   /* tiles shown after the last update */
    uint32_t built;   /* tiles built in the last update, within the budget */
    uint32_t forced;  /* coarsest tiles built past the budget in the last update */
    uint32_t pending; /* tiles still wanted after the last update */
    uint32_t cached;  /* tiles kept built */
    uint32_t freed;   /* tiles freed in the last update */
    uint32_t morphed; /* tiles whose vertices the last update morphed */
    uint32_t rebases; /* origin moves since the terrain was made */
    uint32_t shown_per_level[OAK_TERRAIN_MAX_LEVELS];
} oak_terrain_stats;
void oak_terrain_get_stats(oak_terrain_stats *out, const oak_terrain *terrain);

/* A shown tile, for tools and tests. */
typedef struct oak_terrain_tile {
    uint32_t level; /* 0: finest */
    oak_entity entity;
    oak_mesh mesh;
    double corner[2]; /* world (x, z) of its low corner */
    double size;      /* metres a side */
} oak_terrain_tile;
/* Copies up to capacity shown tiles into out; returns how many are shown. */
uint32_t oak_terrain_tiles(oak_terrain_tile *out, uint32_t capacity, const oak_terrain *terrain);

#ifdef __cplusplus
}
#endif
#endif
