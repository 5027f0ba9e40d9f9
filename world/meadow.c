/* The `meadow` world: endless terrain (world/terrain.c) of fBm hills and
 * ridged mountains to the horizon under a 35-degree sun and a blue sky with
 * haze, a lake in the valleys ahead of the spawn (world/water.c), and a fast
 * low flight for `oak bench`, grass and flowers (world/grass.c) in a breeze
 * from the south-east with gusts, a forest of four species over the
 * hills (world/forest.c) and rocks, most on steep and high ground
 * (world/rocks.c). */
#include <math.h>
#include <string.h>

#include "world/internal.h"
#include "world/rocks_internal.h"

#define SUN_ELEVATION_DEG 35.0f
#define SUN_AZIMUTH_DEG   40.0f
#define SUN_LUX           100000.0f
/* The flight: half a circle of FLIGHT_RADIUS around FLIGHT_CENTRE_X, turning
   past the mountains in the west, FLIGHT_CLEAR metres over the highest
   ground just ahead. It stays inside the rebase distance, because a camera
   path is a function of t alone and cannot know where a rebase has moved
   the scene's origin (docs/WORLD.md). */
#define FLIGHT_RADIUS   1200.0f
#define FLIGHT_CENTRE_X (-600.0f)
#define FLIGHT_CLEAR    30.0f
#define FLIGHT_LOOK     250.0f /* metres ahead the camera looks */
#define WARM_UPDATES    64     /* updates the build runs so the first frame is whole */
/* The lake: the valleys 100-300 m ahead of the spawn lie 10-24 m below the
   ground under it (-8 m is about the middle of the terrain in view, so the
   first frame shows shore and water); a box of 1.2 km round them, so the
   other low ground of the endless terrain stays dry. */
#define LAKE_LEVEL    (-8.0f)
#define LAKE_CENTRE_X 14.0f
#define LAKE_CENTRE_Z (-1037.0f)
#define LAKE_HALF     600.0f
#define LAKE_WIND     4.0f /* m/s */

/* The forest: OAK_FOREST_DENSITY a hectare where it grows, MEADOW_FOREST
   metres around the eye and no tree shadows unless the world desc says
   otherwise: about 10,000 trees, light enough for the CPU backend (every
   tree in reach is a draw there, and alpha-tested casters in the fine
   cascades cost seconds a frame) and CI. The high preset's
   OAK_FOREST_DISTANCE (2 km) gives the meadow 200,000 and more (test_trees). */
#define FOREST_SEED   11
#define MEADOW_FOREST 400.0f

static const float k_sun_color[3] = {1.0f, 0.95f, 0.86f};
static const float k_ambient_sky[3] = {0.15f / 3, 0.20f / 3, 0.30f / 3};
static const float k_ambient_ground[3] = {0.06f / 3, 0.07f / 3, 0.04f / 3};

static oak_terrain_desc meadow_desc(void) {
    oak_terrain_desc d = {0};
    d.seed = 11;
    d.amplitude = 55.0f;
    d.frequency = 1.0f / 600.0f;
    return d;
}

oak_terrain_desc _oak_world_meadow_terrain(void) {
    return meadow_desc();
}

static void flight_point(float t, float p[3]) {
    float a = OAK_PI * (t + 0.25f);
    p[0] = FLIGHT_CENTRE_X + FLIGHT_RADIUS * cosf(a);
    p[1] = 0;
    p[2] = -FLIGHT_RADIUS * sinf(a);
}

void _oak_world_meadow_path(float t, float eye[3], float target[3]) {
    oak_terrain_desc d = meadow_desc();
    flight_point(t, eye);
    float ahead[3];
    flight_point(t + FLIGHT_LOOK / (OAK_PI * FLIGHT_RADIUS), ahead);
    /* clear of the ground here and along the next stretch */
    double ground = -INFINITY;
    for (int k = 0; k <= 4; k++) {
        double s = k / 4.0;
        ground = fmax(ground, _oak_terrain_desc_height(&d, eye[0] + s * (ahead[0] - eye[0]),
                                                       eye[2] + s * (ahead[2] - eye[2])));
    }
    eye[1] = (float)ground + FLIGHT_CLEAR;
    target[0] = ahead[0];
    target[1] = eye[1] - 0.15f * FLIGHT_LOOK; /* a little down, to the hills ahead */
    target[2] = ahead[2];
}

oak_result _oak_world_meadow_sky(oak_scene *scene) {
    /* haze: a quarter of the way to the horizon colour at 2 km, nine tenths
       at the 6 km view distance, where the terrain ends */
    oak_world_day d = {.elevation_deg = SUN_ELEVATION_DEG,
                       .azimuth_deg = SUN_AZIMUTH_DEG,
                       .distance = 100.0f,
                       .sun_lux = SUN_LUX,
                       .zenith = {0.24f, 0.46f, 0.85f},
                       .horizon = {0.70f, 0.80f, 0.92f},
                       .fog_density = 0.00025f};
    memcpy(d.sun_color, k_sun_color, sizeof d.sun_color);
    memcpy(d.ambient_sky, k_ambient_sky, sizeof d.ambient_sky);
    memcpy(d.ambient_ground, k_ambient_ground, sizeof d.ambient_ground);
    return _oak_world_clear_day(scene, &d);
}

/* the breeze the lake's waves come from, with gusts rolling through the grass */
#define GRASS_WIND      1.0f  /* units of sway */
#define CLOUD_WIND      12.0f /* m/s the cloud layer drifts, along the grass wind */
#define GRASS_GUST      0.6f
#define GRASS_GUST_WAVE 35.0f /* metres between gust fronts */
#define GRASS_GUST_RUN  5.0f  /* m/s the fronts travel */
/* the full meadow's reach: 1e8 blade-equivalents in view need about 700 m
   from the flight's 30 m (docs/WORLD.md "The meadow and the count") */
#define GRASS_REACH 1000.0f

static void grass_destroy(void *g) {
    oak_destroy_grass(g);
}

oak_grass *oak_world_grass(const oak_scene *scene) {
    return scene ? oak_scene_attachment(scene, grass_destroy) : NULL;
}

static void water_destroy(void *w) {
    oak_destroy_water(w);
}

static oak_result add_lake(oak_scene *scene) {
    /* the light on a level white card: the sun's share and the sky's */
    float light[3];
    float sun = SUN_LUX * sinf(SUN_ELEVATION_DEG * OAK_PI / 180.0f) / OAK_PI;
    for (int c = 0; c < 3; c++) light[c] = sun * k_sun_color[c] + SUN_LUX * k_ambient_sky[c];
    oak_water_desc d = {.level = LAKE_LEVEL,
                        .extent = {LAKE_CENTRE_X - LAKE_HALF, LAKE_CENTRE_Z - LAKE_HALF,
                                   LAKE_CENTRE_X + LAKE_HALF, LAKE_CENTRE_Z + LAKE_HALF},
                        .wind = {-0.6f, -0.8f},
                        .wind_speed = LAKE_WIND,
                        .seed = 11,
                        .light = {light[0], light[1], light[2]}};
    oak_water *w = NULL;
    oak_result r = oak_make_water(&w, scene, &d);
    if (r) return r;
    if ((r = oak_scene_attach(scene, w, water_destroy))) oak_destroy_water(w);
    return r;
}

static oak_result add_grass(oak_scene *scene, oak_terrain *t, const oak_world_options *given) {
    /* a preset's row where the knobs are not given: its share of the plants
       to its share of the full reach */
    oak_world_options po = *given;
    const oak_world_options *o = &po;
    if (po.preset && !(po.plants > 0)) {
        oak_quality q = oak_preset_quality(po.preset);
        po.plants = q.plants;
        if (!(po.plants_distance > 0)) po.plants_distance = GRASS_REACH * q.plant_distance;
    }
    oak_grass_desc d = {.seed = 11,
                        .plants = o->plants > 0 ? o->plants : (float)OAK_WORLD_PLANTS,
                        .distance = o->plants_distance > 0 ? o->plants_distance
                                    : o->plants > 0        ? GRASS_REACH
                                                           : (float)OAK_WORLD_PLANTS_DISTANCE,
                        .water = true,
                        .water_level = LAKE_LEVEL,
                        .water_extent = {LAKE_CENTRE_X - LAKE_HALF, LAKE_CENTRE_Z - LAKE_HALF,
                                         LAKE_CENTRE_X + LAKE_HALF, LAKE_CENTRE_Z + LAKE_HALF}};
    oak_grass *g = NULL;
    oak_result r = oak_make_grass(&g, scene, t, &d);
    if (r) return r;
    if ((r = oak_scene_attach(scene, g, grass_destroy))) oak_destroy_grass(g);
    oak_environment *env = oak_scene_environment(scene);
    env->wind = (oak_wind){.direction = {-0.6f, -0.8f},
                           .strength = GRASS_WIND,
                           .gust = GRASS_GUST,
                           .gust_wavelength = GRASS_GUST_WAVE,
                           .gust_speed = GRASS_GUST_RUN};
    return r;
}

static void forest_destroy(void *f) {
    oak_destroy_forest(f);
}

oak_forest *_oak_world_meadow_forest(const oak_scene *scene) {
    return oak_scene_attachment(scene, forest_destroy);
}

static oak_result add_forest(oak_scene *scene, oak_terrain *terrain,
                             const oak_world_options *given) {
    /* a preset's row where the knobs are not given: its share of the
       density to its share of the reach */
    oak_world_options wo = *given;
    const oak_world_options *w = &wo;
    if (wo.preset) {
        oak_quality q = oak_preset_quality(wo.preset);
        if (wo.forest_distance == 0) wo.forest_distance = MEADOW_FOREST * q.plant_distance;
        if (wo.forest_density == 0) wo.forest_density = (float)OAK_FOREST_DENSITY * q.plants;
    }
    oak_forest_desc d = {.seed = FOREST_SEED,
                         .distance = w->forest_distance > 0 ? w->forest_distance : MEADOW_FOREST,
                         .density = w->forest_density,
                         .no_shadows = !w->forest_shadows,
                         .water_level = LAKE_LEVEL,
                         .water_box = {LAKE_CENTRE_X - LAKE_HALF, LAKE_CENTRE_Z - LAKE_HALF,
                                       LAKE_CENTRE_X + LAKE_HALF, LAKE_CENTRE_Z + LAKE_HALF}};
    oak_forest *f = NULL;
    oak_result r = oak_make_forest(&f, scene, terrain, &d);
    if (r) return r;
    if ((r = oak_scene_attach(scene, f, forest_destroy))) oak_destroy_forest(f);
    return r;
}

/* The rocks: MEADOW_ROCKS metres around the eye (a 4 m boulder there is
   about 10 pixels across in a 1080-line frame), casting sun shadows. */
#define ROCK_SEED    11
#define MEADOW_ROCKS 400.0f

static void rocks_destroy(void *k) {
    oak_destroy_rocks(k);
}

oak_rocks *oak_world_rocks(const oak_scene *scene) {
    return scene ? oak_scene_attachment(scene, rocks_destroy) : NULL;
}

static oak_result add_rocks(oak_scene *scene, oak_terrain *terrain, const oak_world_options *w) {
    oak_rocks_desc d = {.seed = ROCK_SEED,
                        .density = w->rocks > 0 ? w->rocks : OAK_ROCK_DENSITY,
                        .distance = MEADOW_ROCKS,
                        .water_level = LAKE_LEVEL,
                        .water_box = {LAKE_CENTRE_X - LAKE_HALF, LAKE_CENTRE_Z - LAKE_HALF,
                                      LAKE_CENTRE_X + LAKE_HALF, LAKE_CENTRE_Z + LAKE_HALF}};
    oak_rocks *k = NULL;
    oak_result r = oak_make_rocks(&k, scene, terrain, &d);
    if (r) return r;
    if ((r = oak_scene_attach(scene, k, rocks_destroy))) oak_destroy_rocks(k);
    return r;
}

static oak_result update_terrain(oak_scene *scene, double seconds) {
    oak_terrain *t = _oak_terrain_of(scene);
    oak_entity cam = oak_scene_active_camera(scene);
    if (!t || !cam.id) return OAK_OK;
    oak_scene_update_transforms(scene);
    mat4 m;
    oak_scene_world_matrix(scene, cam, m);
    float eye[3] = {m[3][0], m[3][1], m[3][2]};
    oak_result r = oak_terrain_update(t, eye);
    oak_water *w = oak_scene_attachment(scene, water_destroy);
    if (r || !w) return r;
    /* after the terrain's rebase, which moved the camera with everything */
    double origin[2];
    oak_terrain_origin(t, origin);
    oak_water_set_origin(w, origin);
    oak_scene_update_transforms(scene);
    oak_scene_world_matrix(scene, cam, m);
    const float moved[3] = {m[3][0], m[3][1], m[3][2]};
    if ((r = oak_water_update(w, moved, seconds))) return r;
    oak_forest *f = oak_scene_attachment(scene, forest_destroy);
    if (f && (r = oak_forest_update(f, moved))) return r;
    oak_rocks *k = oak_scene_attachment(scene, rocks_destroy);
    if (k && (r = oak_rocks_update(k, moved))) return r;
    oak_grass *g = oak_scene_attachment(scene, grass_destroy);
    if (!g) return OAK_OK;
    oak_scene_environment(scene)->wind.time = (float)seconds;
    return oak_grass_update(g, moved);
}

oak_result _oak_world_meadow_build(oak_scene *scene, const oak_world_options *opts) {
    oak_result r = _oak_world_meadow_sky(scene);
    if (r) return r;
    /* the clouds (when --clouds or a scene turns them on) drift on the
       grass's wind, at 12 m/s, as the world's clock runs (oak_world_update) */
    oak_clouds *cl = &oak_scene_environment(scene)->clouds;
    cl->wind[0] = -0.6f * CLOUD_WIND, cl->wind[1] = -0.8f * CLOUD_WIND;
    oak_camera cam = {0};
    cam.fov_y = 55.0f * OAK_PI / 180.0f;
    cam.znear = 0.5f;
    cam.zfar = (float)OAK_TERRAIN_VIEW_DISTANCE + 1000.0f;
    float eye[3], target[3];
    _oak_world_meadow_path(0.0f, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world meadow: no room for the camera");
    oak_terrain_desc d = meadow_desc();
    oak_terrain *t = NULL;
    if ((r = oak_make_terrain(&t, scene, &d))) return r;
    if ((r = _oak_terrain_attach(scene, t))) {
        oak_destroy_terrain(t);
        return r;
    }
    if ((r = add_lake(scene)) || (r = add_grass(scene, t, opts))) return r;
    if (opts->forest_distance >= 0 && (r = add_forest(scene, t, opts))) return r;
    if (opts->rocks >= 0 && (r = add_rocks(scene, t, opts))) return r;
    /* grass, flowers and trees keep off the rocks' footprints (docs/WORLD.md
       "Rocks"): linked before the first update grows any of them */
    oak_rocks *rk = oak_scene_attachment(scene, rocks_destroy);
    oak_forest *fr = oak_scene_attachment(scene, forest_destroy);
    if (rk && fr) _oak_forest_set_rocks(fr, rk);
    if (rk && (r = _oak_grass_set_rocks(oak_scene_attachment(scene, grass_destroy), rk))) return r;
    /* build until nothing is pending, so a single frame shows it all (the
       grass grows by its budget: the full meadow takes a few hundred) */
    oak_grass *g = oak_scene_attachment(scene, grass_destroy);
    for (int i = 0; i < WARM_UPDATES + 1024 && !r; i++) {
        r = update_terrain(scene, 0.0);
        oak_terrain_stats st;
        oak_terrain_get_stats(&st, t);
        oak_grass_stats gs;
        oak_grass_get_stats(&gs, g);
        if ((st.pending == 0 || i >= WARM_UPDATES) && gs.pending == 0) break;
    }
    return r;
}

oak_result _oak_world_meadow_update(oak_scene *scene, float seconds) {
    return update_terrain(scene, seconds);
}
