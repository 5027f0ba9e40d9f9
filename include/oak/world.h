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
/* Knobs a world takes (the quality presets set them); zero: its default,
 * which the CPU backend draws at CI speed (on it every grass clump and tree
 * in reach is a draw). */
typedef struct oak_world_options {
    /* share of grass and flowers grown, (0, 1] (the `plants` knob; meadow's
       default OAK_WORLD_PLANTS, light enough for the cpu backend; 1 is the
       full meadow the GPU backends draw) */
    float plants;
    float plants_distance; /* metres grass reaches; 0: the world's default */
    float forest_distance; /* metres of forest round the eye; meadow: 400 (-1: none; .. 20000) */
    float forest_density;  /* trees a hectare where it grows; OAK_FOREST_DENSITY (0 .. 10000) */
    /* the trees cast (cut-out) shadows; off by default: on the CPU backend
       alpha-tested casters in the fine cascades cost seconds a frame */
    bool forest_shadows;
    /* a quality preset (render.h): plants, forest density and their
       distances from its row where the fields above are 0 */
    oak_preset preset;
    /* figures in worlds with a crowd (crowd: 20,000; .. OAK_CROWD_MAX) */
    uint32_t count;
    /* crowd: 1 on the meadow's terrain and under its sky, -1 on open
       ground, 0 the world's default: open ground (docs/WORLD.md "Crowds:
       the world") */
    int32_t terrain;
    /* crowd: two-bone foot IK for the near figures, 1 on, -1 off, 0 the
       world's default: on (docs/WORLD.md "Crowds: foot IK") */
    int32_t foot_ik;
    /* meadow: rocks a hectare where the ground takes the most (steep
       slopes, high ground; docs/WORLD.md "Rocks"), 0 the world's default
       (OAK_ROCK_DENSITY), -1 none (.. 1000) */
    float rocks;
} oak_world_options;
oak_result oak_world_build_with(oak_scene *scene, const char *name, const oak_world_options *opts);
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

/* ---- weather (world/weather.c, docs/WORLD.md "Weather") ----------------- */

/* Sets the weather the scene heads for: kind at amount [0, 1], blended from
   what it has now over transition_seconds of the times oak_world_update (or
   oak_world_update_weather) is given, starting at the next one (0: at once).
   Each update it applies the blend on top of the scene's own values, kept
   aside (oak_scene_weather's base): the fog (the froxel fog's density and
   albedo when it is on, else the exp2 fog), its display colour, cloud cover,
   density and type, the key light's intensity, the sky's scale
   (oak_environment.sky_light), wetness and snow (which move toward the
   weather's over the updates' time: wet in rain, drying by the sun and
   wind, snow building and melting; at once for a transition of 0); rain,
   snow and dust (counts by the scene's quality preset) as
   instance streams in a box round the camera; and a storm's lightning.
   Clear at any amount gives the scene's own values back exactly (the
   wetness and snow once dried and melted). Bad
   arguments: one line and OAK_ERROR_INVALID_ARGUMENT, nothing changed. */
oak_result oak_world_set_weather(oak_scene *scene, oak_weather_kind kind, float amount,
                                 float transition_seconds);
/* Applies the scene's own weather at once (after loading a scene file),
   then the surfaces' memory it keeps (oak_weather.has_surfaces); OK and
   nothing done when it has none. */
oak_result oak_world_apply_weather(oak_scene *scene);
/* Moves the weather on to `seconds` of world time (oak_world_update calls
   it for every world); nothing when the scene has no weather. */
oak_result oak_world_update_weather(oak_scene *scene, float seconds);
/* "clear", "cloudy", ...; NULL for an unknown kind. */
const char *oak_weather_name(oak_weather_kind kind);
/* "KIND" or "KIND:AMOUNT" (amount 1 when not given); one line and
   OAK_ERROR_INVALID_ARGUMENT for anything else. */
oak_result oak_weather_parse(const char *text, oak_weather_kind *kind, float *amount);
typedef struct oak_weather_stats {
    float weights[OAK_WEATHER_COUNT]; /* each kind's share now (the blend of the amounts) */
    float flash;                      /* the lightning now, [0, 1] */
    uint32_t rain, flakes, motes;     /* instances in the streams */
    uint32_t splashes;                /* crowns on the ground where drops land */
    float box_half[3];                /* half extents of the rain's box round the eye, metres */
    float fall_speed;                 /* metres a second a drop falls (before its jitter) */
    float splash_life;                /* seconds a splash's crown lasts */
    float count_scale;                /* the streams' counts times this (the quality preset) */
    float wetness, snow;              /* what the weather adds to the scene's own now */
    float dry_half_life;              /* seconds: the wetness's excess halves in this now */
    float sun;                        /* the sun's strength for drying and melting, [0, 1] */
} oak_weather_stats;
oak_result oak_world_weather_stats(oak_scene *scene, oak_weather_stats *out);
/* The rain (0), snow (1), dust (2) or splash (3) stream; NULL before it is
   first wanted. */
oak_stream *oak_world_weather_stream(oak_scene *scene, uint32_t which);
/* The lightning's flash, [0, 1], at `seconds` for a storm of that weight
   (the schedule oak_world_update follows; the same for the same time). */
float oak_weather_lightning(double seconds, float storm);

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

/* ---- water (world/water.c, docs/WORLD.md "Water") ----------------------- */

/* A lake or sea: a level plane moved by a sum of OAK_WATER_WAVES Gerstner
 * waves from a wind-driven spectrum, answered on the CPU (height, normal,
 * floating boxes) by the same function that displaces the drawn grid. */
typedef struct oak_water oak_water;

typedef struct oak_water_desc {
    float level;         /* metres (y) of the still surface */
    float extent[4];     /* world min x, min z, max x, max z; all 0: endless */
    float wind[2];       /* direction (x, z), need not be unit; 0: +x */
    float wind_speed;    /* m/s at 10 m: sets the peak wavelength; 0: 5 */
    float steepness;     /* sum of k A over the waves; 0: 0.3; negative: still water */
    float choppiness;    /* [0, 1]: share of the sideways (Gerstner) motion; 0: 0.7 */
    float spread;        /* radians the waves' directions spread about the wind; 0: 0.6 */
    uint32_t seed;       /* phases and directions */
    uint32_t grid_cells; /* even cells a side of the drawn grid; 0: OAK_WATER_GRID_CELLS */
    float grid_spacing;  /* metres between the grid's finest lines; 0: OAK_WATER_GRID_SPACING */
    float grid_extent;   /* metres from the grid's centre to its edge; 0: OAK_WATER_GRID_EXTENT */
    /* the body (docs/SHADING.md "Water"): what the scene's environment gets */
    float
        absorption[3]; /* per metre, Beer-Lambert; all 0: 0.8, 0.3, 0.22 (a lake: red goes first) */
    float albedo[3];   /* deep water's radiance over the light; all 0: 0.008, 0.03, 0.045 */
    float light[3];    /* radiance of a level white card there (sun and sky); all 0: 1 */
    float shore;       /* metres of depth under which the bottom shows foam; 0: 0.35 */
    oak_material material; /* id 0: a blended material with the water flag */
    bool no_volume;        /* leave the scene's environment alone */
} oak_water_desc;

/* One wave of the sum, as resolved from a desc (for tools and tests). */
typedef struct oak_water_wave {
    float wavelength, amplitude; /* metres */
    float direction[2];          /* unit (x, z) */
    float omega;                 /* rad/s: sqrt(g k) */
    float phase;                 /* radians at t = 0 at the world origin */
    float chop;                  /* sideways amplitude / amplitude */
} oak_water_wave;

oak_water_desc oak_water_desc_defaults(const oak_water_desc *desc);
/* Makes a water body; with a scene it is drawn there as one grid entity
 * (from the first update), with scene NULL it answers queries only.
 * Destroy it before the scene, or hand it over with oak_scene_attach. */
oak_result oak_make_water(oak_water **out, oak_scene *scene, const oak_water_desc *desc);
void oak_destroy_water(oak_water *water);
/* The waves of the sum (OAK_WATER_WAVES of them). */
const oak_water_wave *oak_water_waves(const oak_water *water);
/* World (x, z) of the scene origin (scene = world - origin); the terrain's
 * oak_terrain_origin after each of its updates, so the waves stay put when
 * the scene is rebased. Default (0, 0). */
void oak_water_set_origin(oak_water *water, const double origin[2]);
/* Each frame, eye in scene coordinates, seconds of world time: recentres the
 * grid under the eye and displaces its vertices by the wave sum at t on the
 * job pool (oak_mesh_update_vertices, no heap calls). */
oak_result oak_water_update(oak_water *water, const float eye[3], double seconds);
/* The displaced surface point (scene coordinates) of the rest point (x, z)
 * at time t, its unit normal and the horizontal Jacobian determinant (1 on
 * still water, below 1 where crests bunch up; foam under a threshold): the
 * one function the grid and the queries evaluate. Any output may be NULL. */
void oak_water_point(const oak_water *water, double x, double z, double t, double position[3],
                     float normal[3], float *jacobian);
/* Surface height (and unit normal, may be NULL) over scene (x, z) at time t:
 * the rest point whose displaced position lands on (x, z) is solved by
 * Newton steps (at most OAK_WATER_SOLVE_STEPS, to OAK_WATER_SOLVE_EPSILON);
 * *misses (may be NULL) gets the horizontal distance left. Inside the
 * extent (or everywhere without one); outside it, OAK_ERROR_INVALID_ARGUMENT. */
oak_result oak_water_height(const oak_water *water, double x, double z, double t, double *height,
                            float normal[3], double *misses);
/* The grid entity and mesh (ids 0 before the first update or without a scene). */
oak_entity oak_water_entity(const oak_water *water);
oak_mesh oak_water_mesh(const oak_water *water);
/* Scene (x, z) of the grid's centre after the last update (the entity's
 * position; vertex positions are relative to it and to the level). */
void oak_water_grid_centre(const oak_water *water, double centre[2]);

/* A floating box (no rotation: it moves up and down only) over four columns,
 * one under each quarter of its bottom, each pushed up by the water it displaces
 * (OAK_WATER_DENSITY) and damped at a share of critical damping; integrated
 * by semi-implicit Euler in steps of OAK_WATER_FLOAT_STEP. */
typedef struct oak_floater {
    float half[3];      /* half extents, metres */
    float density;      /* kg/m^3 */
    float damping;      /* share of critical damping; 0: 0.25 */
    double position[3]; /* centre, scene coordinates */
    double velocity;    /* vertical, m/s */
    double time;        /* seconds of world time it has reached */
} oak_floater;
/* Advances f to seconds (from f->time) over water. */
oak_result oak_floater_step(oak_floater *f, const oak_water *water, double seconds);
/* Share of the box's height under the surface at its four columns' mean. */
float oak_floater_submerged(const oak_floater *f, const oak_water *water);

/* ---- grass and flowers (world/grass.c, docs/WORLD.md "Grass") ---------- */

/* Clumps of grass blades over a terrain, one instance per OAK_GRASS_PATCH
 * square where the ground is grass (none on dirt, rock, snow or steep
 * slopes, none under water; dry grass half as dense as lush), generated on
 * the job pool per terrain tile square around the eye within a per-update
 * budget, drawn as an instance stream with a clump mesh per LOD band that
 * sways in the environment's wind and sinks into the ground before the
 * last band; and a sparser stream of flowers. */
typedef struct oak_grass oak_grass;

typedef struct oak_grass_desc {
    uint32_t seed;
    /* the `plants` quality knob: share of grass patches grown (and of
       flowers), (0, 1]; 0: 1 */
    float plants;
    float distance;  /* metres grass reaches (the last LOD band's end); 0: OAK_GRASS_DISTANCE */
    float height;    /* metres of a blade on average; 0: 0.45 */
    float sway;      /* the streams' sway (render.h oak_stream_desc); 0: 0.12; < 0: still */
    uint32_t budget; /* patches evaluated per update; 0: OAK_GRASS_BUDGET */
    bool no_flowers; /* grass only */
    bool shadows;    /* grass and flowers cast sun shadows (off: they only receive) */
    /* a lake: no grass where the ground lies below level + 0.2 m inside extent
       (world min x, min z, max x, max z; all 0: everywhere) */
    bool water;
    float water_level;
    float water_extent[4];
} oak_grass_desc;

oak_grass_desc oak_grass_desc_defaults(const oak_grass_desc *desc);
/* Makes grass over terrain in scene: two streams (grass, flowers) listed in
 * the scene, their meshes and materials; nothing grows before the first
 * update. Destroy it before the scene (it takes its streams out), or hand
 * it over with oak_scene_attach. */
oak_result oak_make_grass(oak_grass **out, oak_scene *scene, oak_terrain *terrain,
                          const oak_grass_desc *desc);
void oak_destroy_grass(oak_grass *grass);
/* Each frame after the terrain's update (eye in scene coordinates): drops
 * tile squares past the distance, grows the missing ones nearest first
 * within the budget (on the job pool; the records do not depend on the
 * number of threads) and writes the streams (their capacity is fixed: the
 * count moves, nothing is reallocated). Follows the terrain's rebase. */
oak_result oak_grass_update(oak_grass *grass, const float eye[3]);

typedef struct oak_grass_stats {
    uint32_t tiles;     /* tile squares grown */
    uint32_t pending;   /* tile squares wanted and not yet grown */
    uint32_t grown;     /* grown in the last update */
    uint32_t dropped;   /* dropped in the last update */
    uint32_t instances; /* grass clumps in the stream */
    uint32_t flowers;   /* flower clumps in theirs */
    uint32_t capacity;  /* the grass stream's */
    /* blades one clump draws at each LOD band, and the blades each stands
       for (LOD 0's: merged blades carry the widths of those they replace);
       blade-equivalents in view = sum of per-LOD visible clumps x blades_each */
    uint32_t blades[OAK_STREAM_LODS];
    uint32_t blades_each;
    float lod_distance[OAK_STREAM_LODS];
} oak_grass_stats;
void oak_grass_get_stats(oak_grass_stats *out, const oak_grass *grass);
/* The grass (flowers false) or flower stream, for tools and tests. */
oak_stream *oak_grass_stream(const oak_grass *grass, bool flowers);
/* The grass a built world grows (meadow's), for tools such as `oak bench`;
 * NULL in a scene without. */
oak_grass *oak_world_grass(const oak_scene *scene);
/* Whether a patch grows at scene (x, z) by the terrain's material rule and
 * the desc (the density before the `plants` share and the hash: lush 1,
 * dry 0.5, dirt, rock and snow 0, under water 0), for tests. */
float oak_grass_density(const oak_grass *grass, double x, double z);
/* ---- crowds (world/crowd_sim.c; docs/WORLD.md "Crowds") -------------- */

/* Figures walking to goals on the ground: positions, velocities, goals and
 * paces as columns (no entity per figure), kept apart through a uniform
 * grid of neighbour_radius cells over `extent`, each step the same bits for
 * any thread count. A figure seeks its goal at its pace (a pose bank's
 * oak_pose_bank_speed), slowing inside `arrive`, is pushed off every figure
 * within 2.5 radii (hard inside two: contact), keeps right of one in its
 * way, turns at turn_rate and is set on the ground by the height query
 * (docs/WORLD.md "Crowds: the simulation"). */
typedef struct oak_crowd oak_crowd;
typedef struct oak_crowd_desc {
    uint32_t capacity;      /* figures, 1 .. OAK_CROWD_MAX */
    float extent[4];        /* min x, min z, max x, max z the figures stay in */
    float radius;           /* metres a figure takes; 0: 0.4 */
    float neighbour_radius; /* metres the separation looks; 0: 4 radius */
    float separation;       /* push per unit of pace; 0: 3 */
    float turn_rate;        /* velocity's approach to the wanted one, per second; 0: 4 */
    float arrive;           /* metres before the goal a figure slows; 0: 1 */
} oak_crowd_desc;
typedef struct oak_crowd_figure {
    float position[3]; /* x, ground height, z */
    float velocity[2]; /* x, z, metres a second */
    float heading;     /* radians about +y from +z, the way it last moved */
} oak_crowd_figure;
/* Ground height at (x, z); called from job threads, so it must be safe to
   call at once from several (a terrain's height query is). */
typedef float (*oak_crowd_height_fn)(void *user, float x, float z);

oak_crowd_desc oak_crowd_desc_defaults(const oak_crowd_desc *desc);
oak_result oak_make_crowd(oak_crowd **out, const oak_crowd_desc *desc);
void oak_destroy_crowd(oak_crowd *crowd);
oak_result oak_crowd_add(oak_crowd *crowd, const float position[2], const float goal[2],
                         float pace);
void oak_crowd_set_goal(oak_crowd *crowd, uint32_t figure, const float goal[2]);
uint32_t oak_crowd_count(const oak_crowd *crowd);
void oak_crowd_get(const oak_crowd *crowd, uint32_t figure, oak_crowd_figure *out);
/* Moves every figure on by dt seconds (0 .. 1); height may be NULL (flat). */
oak_result oak_crowd_step(oak_crowd *crowd, float dt, oak_crowd_height_fn height, void *user);
/* The figures within neighbour_radius of one, as the step sees them (grid
   order); returns how many, writing at most capacity. */
uint32_t oak_crowd_neighbours(oak_crowd *crowd, uint32_t figure, uint32_t *out, uint32_t capacity);
/* ---- trees (world/tree*.c, world/forest.c, docs/WORLD.md "Trees") -------- */

/* Species, an index (not a desc option). */
enum { OAK_TREE_PINE = 0, OAK_TREE_OAK, OAK_TREE_BIRCH, OAK_TREE_MAPLE, OAK_TREE_SPECIES };

/* One species' assets, made at load with no files: variants (different
 * seeds) share one material over a generated atlas (bark, leaf cards and
 * every variant's impostor views, alpha MASK, coverage-preserving mips) and
 * its normal map; each variant has three LOD meshes (full, simplified,
 * impostor) that all map into that atlas, so one stream carries them. */
typedef struct oak_tree_species {
    uint32_t species, variants;
    oak_material material;
    oak_texture atlas, normal_map;
    oak_mesh lods[OAK_TREE_MAX_VARIANTS][3];
    uint32_t triangles[OAK_TREE_MAX_VARIANTS][3];
    float height[OAK_TREE_MAX_VARIANTS]; /* metres at scale 1 */
    double bake_ms;                      /* painting, generating and baking, wall clock */
} oak_tree_species;

/* Makes `variants` (1 .. OAK_TREE_MAX_VARIANTS) of species from seed. */
oak_result oak_make_tree_species(oak_tree_species *out, uint32_t species, uint32_t variants,
                                 uint32_t seed);
void oak_destroy_tree_species(oak_tree_species *s);

/* A forest over a terrain: trees placed by noise and by the ground (none on
 * steep slopes, rock, snow, or under water), species by height and noise,
 * in cells of OAK_FOREST_CELL metres around the eye, drawn through one
 * instance stream per (species, variant) with LODs full, simplified and
 * impostor. The quality presets set density and distance; on the CPU
 * backend every instance in a stream is a draw, so keep them low there. */
typedef struct oak_forest oak_forest;

typedef struct oak_forest_desc {
    uint32_t seed;
    float density;         /* trees a hectare where the forest grows; 0: OAK_FOREST_DENSITY */
    float distance;        /* metres around the eye kept and drawn; 0: OAK_FOREST_DISTANCE */
    float lod_distance[2]; /* full to simplified, simplified to impostor; 0: 30, 90 m */
    uint32_t variants;     /* per species, 1 .. OAK_TREE_MAX_VARIANTS; 0: 2 */
    /* a lake: inside the box (world min x, min z, max x, max z; all 0: no
       water) trees keep 1 m above water_level */
    float water_level;
    float water_box[4];
    float cover;     /* share of the land the forest noise leaves wooded, (0, 1]; 0: 0.6 */
    bool no_shadows; /* the trees cast nothing */
} oak_forest_desc;

typedef struct oak_forest_stats {
    uint32_t trees;     /* in the streams after the last update */
    uint32_t cells;     /* cells kept */
    uint32_t generated; /* cells generated by the last update */
    uint32_t dropped;   /* trees past a stream's capacity (not drawn) */
    uint32_t per_species[OAK_TREE_SPECIES];
    double bake_ms; /* making the species' assets at load */
} oak_forest_stats;

oak_forest_desc oak_forest_desc_defaults(const oak_forest_desc *desc);
/* Makes the species' assets and the streams (listed in the scene, which owns
 * them); nothing is placed until the first update. Destroy it before the
 * scene (it empties its streams and frees its assets), or hand it to the
 * scene with oak_scene_attach. The terrain must outlive its updates. */
oak_result oak_make_forest(oak_forest **out, oak_scene *scene, oak_terrain *terrain,
                           const oak_forest_desc *desc);
void oak_destroy_forest(oak_forest *forest);
/* Each frame after the terrain's update (and the water's origin), eye in
 * scene coordinates: generates the cells that came within the distance (on
 * the job pool); when the eye changed cell, writes only the records of the
 * cells that came and went (the streams' order changes, their set is a
 * whole refill's), and every record when the terrain rebased. */
oak_result oak_forest_update(oak_forest *forest, const float eye[3]);
void oak_forest_get_stats(oak_forest_stats *out, const oak_forest *forest);
/* The species' assets (species < OAK_TREE_SPECIES), for tools and tests. */
const oak_tree_species *oak_forest_species(const oak_forest *forest, uint32_t species);
/* The stream of (species, variant); NULL past the ends. */
oak_stream *oak_forest_stream(const oak_forest *forest, uint32_t species, uint32_t variant);

/* ---- rocks (world/rocks.c, docs/WORLD.md "Rocks") ------------------------ */

/* Rocks over a terrain: OAK_ROCK_KINDS meshes made at load by the dense
 * world's generator (a full mesh and one simplified by meshoptimizer each),
 * one grey-brown rough material, placed in cells of OAK_ROCK_CELL metres
 * around the eye by noise and by the ground (more on steep slopes and high
 * ground, none under water), 0.5 to 4 m across, each turned about y, scaled
 * and tinted by a hash and sunk into the ground by oak_rocks_sink; drawn
 * through one instance stream per kind (LODs full and simplified) that
 * casts sun shadows. */
typedef struct oak_rocks oak_rocks;

#define OAK_ROCK_KINDS   3
#define OAK_ROCK_CELL    32.0  /* metres a side of a placement cell */
#define OAK_ROCK_DENSITY 80.0f /* rocks a hectare where the ground takes the most (default) */
#define OAK_ROCK_SINK    0.25f /* share of a rock's height under the ground at its centre, level */

typedef struct oak_rocks_desc {
    uint32_t seed;
    float density;      /* rocks a hectare where the ground takes the most; 0: OAK_ROCK_DENSITY */
    float distance;     /* metres around the eye kept and drawn; 0: 400 */
    float lod_distance; /* full to simplified; 0: 40 m */
    /* a lake: inside the box (world min x, min z, max x, max z; all 0: no
       water) rocks keep to ground 0.3 m and more above water_level */
    float water_level;
    float water_box[4];
    bool no_shadows; /* the rocks cast nothing */
} oak_rocks_desc;

typedef struct oak_rocks_stats {
    uint32_t rocks;     /* in the streams after the last update */
    uint32_t cells;     /* cells kept */
    uint32_t generated; /* cells generated by the last update */
    uint32_t dropped;   /* rocks past a stream's capacity (not drawn) */
    uint32_t per_kind[OAK_ROCK_KINDS];
    uint32_t triangles[OAK_ROCK_KINDS][2]; /* full and simplified mesh of each kind */
} oak_rocks_stats;

oak_rocks_desc oak_rocks_desc_defaults(const oak_rocks_desc *desc);
/* Makes the kinds' meshes, the material and the streams (listed in the
 * scene, which owns them); nothing is placed until the first update.
 * Destroy it before the scene, or hand it over with oak_scene_attach. The
 * terrain must outlive its updates. */
oak_result oak_make_rocks(oak_rocks **out, oak_scene *scene, oak_terrain *terrain,
                          const oak_rocks_desc *desc);
void oak_destroy_rocks(oak_rocks *rocks);
/* Each frame after the terrain's update, eye in scene coordinates: when
 * the eye changed cell or the terrain rebased, generates the cells that
 * came within the distance (on the job pool) and writes every stream
 * whole, in scene coordinates of the terrain's origin now. */
oak_result oak_rocks_update(oak_rocks *rocks, const float eye[3]);
void oak_rocks_get_stats(oak_rocks_stats *out, const oak_rocks *rocks);
/* The stream of a kind; NULL past the end. */
oak_stream *oak_rocks_stream(const oak_rocks *rocks, uint32_t kind);
/* Metres a rock's lowest point lies under the ground's height at its
 * centre: OAK_ROCK_SINK of its height, and on a slope (normal_y < 1) half
 * the drop of the ground over its radius more, at most 0.3 of its height
 * more; height and radius (across, in x-z) are the placed rock's. */
float oak_rocks_sink(float height, float radius, float normal_y);
/* A world's rocks (the meadow's; NULL where it has none), for tools and tests. */
oak_rocks *oak_world_rocks(const oak_scene *scene);

/* ---- particles (world/particles.c; docs/WORLD.md "Particles") ---------- */

/* The emitter desc (oak_emitter_desc, its keys and bursts) is in scene.h:
   the scene keeps the world's emitters and saves them in scene files. */

/* A set of emitters stepped together on a fixed clock (OAK_PARTICLE_STEP
   seconds), each drawn as one instance stream of camera-facing unit quads
   (record: position, size as scale, the turn to the eye and the spin,
   colour from the keys, phase = the share of the life gone). */
typedef struct oak_particles oak_particles;
/* Makes an empty set over scene (its streams listed in the scene). Destroy
   it before the scene (it takes its streams out), or use the scene's own
   (oak_world_particles). */
oak_result oak_make_particles(oak_particles **out, oak_scene *scene);
void oak_destroy_particles(oak_particles *particles);
/* The scene's own set, made and attached (destroyed with the scene) on the
   first call; oak_world_update moves it to the world's time. Its emitters
   and clock are kept in the scene (oak_scene_emitter, scene.h), so scene
   files save them. */
oak_result oak_world_particles(oak_scene *scene, oak_particles **out);
/* Adds an emitter (its stream, material if none); *index (may be NULL) gets
   its number. Bad descs: one line, OAK_ERROR_INVALID_ARGUMENT, nothing added. */
oak_result oak_particles_add_emitter(oak_particles *particles, const oak_emitter_desc *desc,
                                     uint32_t *index);
/* Steps the set to `seconds` (the last whole step at or before it; a time
   behind the clock starts again from 0, so the state at a time is the same
   whatever came before) on the job pool, and writes the streams facing the
   scene's active camera. Past OAK_PARTICLE_CATCHUP_SECONDS ahead in one
   call: OAK_ERROR_LIMIT, nothing stepped. */
oak_result oak_particles_update(oak_particles *particles, double seconds);
/* Moves an emitter (particles born from the next step on start there). */
oak_result oak_particles_set_position(oak_particles *particles, uint32_t emitter,
                                      const float position[3]);
/* count particles born at the start of the next step (kept until a restart). */
oak_result oak_particles_burst(oak_particles *particles, uint32_t emitter, uint32_t count);
/* The emitter's stream (its flipbook's frame 0's; NULL past the end). */
oak_stream *oak_particles_stream(const oak_particles *particles, uint32_t emitter);
/* The stream of its flipbook's frame (NULL past the end). An "over"
   (alpha BLEND) flipbook's frame streams each count every alive particle:
   the frame's own records first (far to near), then records of no scale,
   which nothing draws (docs/WORLD.md "Particles"). */
oak_stream *oak_particles_frame_stream(const oak_particles *particles, uint32_t emitter,
                                       uint32_t frame);
typedef struct oak_particle_stats {
    uint32_t alive;   /* particles alive now */
    uint64_t born;    /* born since the clock started */
    uint64_t dropped; /* births the capacity turned away */
    double time;      /* the clock, seconds (a whole number of steps) */
} oak_particle_stats;
oak_result oak_particles_get_stats(const oak_particles *particles, uint32_t emitter,
                                   oak_particle_stats *out);
/* Moves the scene's own set (if any) to seconds (oak_world_update calls it). */
oak_result oak_world_update_particles(oak_scene *scene, float seconds);
/* Runs the emitters a scene keeps (a loaded scene file's) as the scene's own
   set, stepped to the scene's particle clock; emitters the set runs already
   are not added again. No emitters: nothing made. A program that loads
   scene files calls it after oak_scene_load (oak render, bench and view do). */
oak_result oak_world_apply_particles(oak_scene *scene);
/* Registers the world's painted textures ("oak://campfire_flames",
   "oak://campfire_disc", "oak://terrain_detail"; docs/WORLD.md) so scene
   files that name them load; call it before oak_scene_load (the worlds
   register what they use themselves). */
oak_result oak_world_register_painters(void);

/* ---- fire (world/flames.c, world/campfire.c; docs/WORLD.md "Fire") ------ */

/* The colour of a black body at `kelvin` in linear sRGB, its largest channel
   1 (the CIE 1931 observer's Gaussian fit over Planck's law). */
void oak_blackbody(float kelvin, float rgb[3]);
typedef struct oak_flames_desc {
    uint32_t seed;            /* the feed's flicker */
    uint32_t width, height;   /* cells of the fluid grid (a frame's texels); 0: 32 x 64 */
    uint32_t columns, rows;   /* frames of the atlas; 0: 4 x 4 (at most OAK_PARTICLE_FRAMES) */
    uint32_t steps_per_frame; /* fluid steps between frames; 0: 3 */
    float kelvin;             /* the hottest texel's temperature; 0: 1900 */
} oak_flames_desc;
oak_flames_desc oak_flames_desc_defaults(const oak_flames_desc *desc);
/* Runs the flame's fluid and bakes it: rgba gets (width x columns) x
   (height x rows) RGBA8 sRGB texels, frame k in cell (k % columns, k /
   columns), each texel the black body at its heat's share h of kelvin
   times h^4, alpha min(1, 2 h); heat (may be NULL) gets the frames' heat
   fields (width x height floats each, bottom row first, not normalized).
   The same desc gives the same bytes. */
oak_result oak_flames_bake(uint8_t *rgba, float *heat, const oak_flames_desc *desc);
/* The campfire's lamp flicker at `seconds`: a factor in [0.7, 1.1] from
   three octaves of hashed value noise (the same for the same time). */
float oak_fire_flicker(double seconds, uint32_t seed);

#ifdef __cplusplus
}
#endif
#endif
