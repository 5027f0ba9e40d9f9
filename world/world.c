/* The world registry: worlds by name, each a recipe that fills a scene and a
 * scripted camera path for `oak bench`. Adding a world is one table row. */
#include <math.h>
#include <string.h>

#include "world/internal.h"
#include "world/terrain_internal.h"

typedef struct world_entry {
    const char *name;
    const char *description;
    oak_result (*build)(oak_scene *scene);
    /* the worlds that take options (NULL: build alone) */
    oak_result (*build_with)(oak_scene *scene, const oak_world_options *opts);
    void (*path)(float t, float eye[3], float target[3]);
    oak_result (*update)(oak_scene *scene, float seconds); /* NULL: nothing moves */
} world_entry;

static const world_entry g_worlds[] = {
    {"default",
     "400 m of fBm hills, sphere rows from matte to mirror and dielectric to metal, "
     "boxes casting shadows, sun at 40 degrees, blue sky",
     _oak_world_default_build, NULL, _oak_world_default_path},
    {"stress", "100,000 objects on a flat ground: half instanced, half mixed meshes and materials",
     _oak_world_stress_build, NULL, _oak_world_stress_path},
    {"lamps",
     "a town square at night: building blocks, a fountain, benches and posts under 1,024 "
     "lamps of many colours, one in eight moving",
     _oak_world_lamps_build, NULL, _oak_world_lamps_path, _oak_world_lamps_update},
    {"meadow",
     "endless terrain: fBm hills and ridged mountains to the horizon in tiles that stream "
     "around the camera, a lake with waves, grass and flowers swaying in the wind, a forest of "
     "pines, oaks, birches and maples, a sun and a blue sky",
     NULL, _oak_world_meadow_build, _oak_world_meadow_path, _oak_world_meadow_update},
    {"crowd",
     "foxes walking, trotting and running on open ground or the meadow's terrain (--count, "
     "default 20,000; --terrain), a Fox in four furred, each posed on the GPU from one pose "
     "bank, kept apart by the crowd simulation; the camera follows a group",
     NULL, _oak_world_crowd_build, _oak_world_crowd_path, _oak_world_crowd_update},
    {"campfire",
     "a fire of three logs in a ring of stones at night: flames baked from a small fluid run "
     "into a flipbook glowing as a black body, smoke and sparks as particles, a flickering lamp",
     _oak_world_campfire_build, NULL, _oak_world_campfire_path, _oak_world_campfire_update},
    {"fountain",
     "a fountain of small opaque particles thrown up in a burst every 4 s (--count, default "
     "100,000, up to 1,048,576): the particles pass's measure, the GPU path against the job pool",
     NULL, _oak_world_fountain_build, _oak_world_fountain_path, NULL},
    {"dense",
     "a field of high-polygon procedural rocks (327,680 triangles each; --count, default 320: "
     "10^8 source triangles in view) drawn by cluster LOD",
     NULL, _oak_world_dense_build, _oak_world_dense_path, NULL},
};

#define WORLD_COUNT (sizeof g_worlds / sizeof g_worlds[0])

uint32_t oak_world_count(void) {
    return (uint32_t)WORLD_COUNT;
}

const char *oak_world_name(uint32_t index) {
    return index < WORLD_COUNT ? g_worlds[index].name : NULL;
}

const char *oak_world_description(uint32_t index) {
    return index < WORLD_COUNT ? g_worlds[index].description : NULL;
}

static const world_entry *find_world(const char *name) {
    for (uint32_t i = 0; name && i < WORLD_COUNT; i++)
        if (strcmp(g_worlds[i].name, name) == 0) return &g_worlds[i];
    return NULL;
}

oak_result oak_world_build(oak_scene *scene, const char *name) {
    return oak_world_build_with(scene, name, NULL);
}

oak_result oak_world_build_with(oak_scene *scene, const char *name, const oak_world_options *opts) {
    if (!scene) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_build: scene is NULL");
    const world_entry *w = find_world(name);
    if (!w) return oak_error(OAK_ERROR_NOT_FOUND, "unknown world '%s'", name ? name : "(null)");
    oak_world_options o = opts ? *opts : (oak_world_options){0};
    if (!(o.plants >= 0 && o.plants <= 1) ||
        !(o.plants_distance >= 0 && o.plants_distance <= 20000))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "world options: plants %g must be in [0, 1] and plants_distance %g in "
                         "[0, 20000] m",
                         (double)o.plants, (double)o.plants_distance);
    if (!(o.forest_distance >= -1 && o.forest_distance <= 20000) ||
        !(o.forest_density >= 0 && o.forest_density <= 10000))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "world '%s': forest distance %g (-1 .. 20000 m) or density %g (0 .. 10000 "
                         "a hectare) out of range",
                         w->name, (double)o.forest_distance, (double)o.forest_density);
    if (!(o.rocks >= -1 && o.rocks <= 1000))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "world '%s': rocks %g a hectare out of range (-1 .. 1000)", w->name,
                         (double)o.rocks);
    return w->build_with ? w->build_with(scene, &o) : w->build(scene);
}

oak_result oak_world_camera_path(const char *name, float t, float eye[3], float target[3]) {
    const world_entry *w = find_world(name);
    if (!w) return oak_error(OAK_ERROR_NOT_FOUND, "unknown world '%s'", name ? name : "(null)");
    if (!eye || !target)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_camera_path: NULL output");
    if (!(t >= 0.0f)) t = 0.0f; /* also catches NaN */
    if (t > 1.0f) t = 1.0f;
    w->path(t, eye, target);
    return OAK_OK;
}

oak_result oak_world_register_painters(void) {
    oak_result r = _oak_world_campfire_register();
    return r ? r : _oak_terrain_register_detail();
}

oak_result oak_world_update(oak_scene *scene, const char *name, float seconds) {
    const world_entry *w = find_world(name);
    if (!w) return oak_error(OAK_ERROR_NOT_FOUND, "unknown world '%s'", name ? name : "(null)");
    if (!scene) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_update: scene is NULL");
    /* the world's clock drives the clouds' drift (clouds.wind x time) */
    oak_scene_environment(scene)->clouds.time = seconds;
    oak_result r = w->update ? w->update(scene, seconds) : OAK_OK;
    if (!r) r = oak_world_update_weather(scene, seconds);
    return r ? r : oak_world_update_particles(scene, seconds);
}

/* ---- shared helpers ------------------------------------------------------ */

oak_entity _oak_world_place(oak_scene *scene, const char *name, oak_mesh mesh,
                            oak_material material, const oak_transform *t) {
    oak_entity e = oak_scene_create(scene, name);
    if (!e.id) return e;
    oak_scene_set_transform(scene, e, t);
    oak_mesh_renderer mr = {.mesh = mesh, .material = material};
    oak_scene_set_mesh_renderer(scene, e, &mr);
    return e;
}

oak_entity _oak_world_camera(oak_scene *scene, const oak_camera *cam, const float eye[3],
                             const float target[3]) {
    oak_entity e = oak_scene_create(scene, "camera");
    if (!e.id) return e;
    oak_transform t = oak_transform_look_at(eye, target);
    oak_scene_set_transform(scene, e, &t);
    oak_scene_set_camera(scene, e, cam);
    oak_scene_set_active_camera(scene, e);
    return e;
}

float _oak_luminance(const float rgb[3]) {
    return 0.2126f * rgb[0] + 0.7152f * rgb[1] + 0.0722f * rgb[2];
}

float _oak_world_grey_card_exposure(float white_radiance) {
    /* Invert Narkowicz's ACES fit y = x(ax+b) / (x(cx+d)+e) at y = 0.18:
       (a - cy)x^2 + (b - dy)x - ey = 0, the positive root. */
    const double a = 2.51, b = 0.03, c = 2.43, d = 0.59, e = 0.14, y = 0.18;
    double qa = a - c * y, qb = b - d * y, qc = -e * y;
    double x = (-qb + sqrt(qb * qb - 4 * qa * qc)) / (2 * qa);
    return white_radiance > 0 ? (float)(x / (0.18 * white_radiance)) : 1.0f;
}

void _oak_world_grey_card_camera(oak_scene *scene, float white_radiance) {
    oak_post *post = oak_scene_post(scene);
    post->exposure = 0;
    post->ev100 = oak_ev100_from_exposure(_oak_world_grey_card_exposure(white_radiance));
    post->ev100_set = true;
}

oak_result _oak_world_add_ground(oak_scene *scene, const oak_shape_desc *recipe, const char *name) {
    oak_mesh mesh;
    oak_result r = oak_make_shape(&mesh, recipe);
    if (r) return r;
    oak_texture ground;
    r = oak_load_texture(&ground, "oak://ground", OAK_FORMAT_RGBA8_SRGB);
    if (r) return r;
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.metallic = 0.0f;
    d.roughness = 0.95f;
    d.base_color_tex.texture = ground;
    d.name = name;
    oak_material mat;
    r = oak_make_material(&mat, &d);
    if (r) return r;
    oak_transform t = oak_transform_identity();
    if (!_oak_world_place(scene, name, mesh, mat, &t).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world: no room for the %s", name);
    return OAK_OK;
}

oak_result _oak_world_clear_day(oak_scene *scene, const oak_world_day *d) {
    float el = d->elevation_deg * OAK_PI / 180.0f, az = d->azimuth_deg * OAK_PI / 180.0f;
    /* the way the light travels */
    float dir[3] = {cosf(el) * sinf(az), -sinf(el), -cosf(el) * cosf(az)};
    float from[3];
    for (int c = 0; c < 3; c++) from[c] = d->target[c] - d->distance * dir[c];
    oak_entity sun = oak_scene_create(scene, "sun");
    if (!sun.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world: no room for the sun");
    oak_transform t = oak_transform_look_at(from, d->target);
    oak_scene_set_transform(scene, sun, &t);
    oak_light light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    for (int c = 0; c < 3; c++) light.color[c] = d->sun_color[c];
    light.intensity = d->sun_lux;
    light.cast_shadows = true;
    oak_scene_set_light(scene, sun, &light);

    oak_environment *env = oak_scene_environment(scene);
    for (int c = 0; c < 3; c++) {
        env->sky_zenith_display[c] = d->zenith[c];
        env->sky_horizon_display[c] = d->horizon[c];
        env->fog_display[c] = d->horizon[c];
        env->ambient_sky[c] = d->ambient_sky[c] * d->sun_lux;
        env->ambient_ground[c] = d->ambient_ground[c] * d->sun_lux;
    }
    env->fog_density = d->fog_density;
    /* a level card gets the sun at its elevation plus the whole sky */
    float white = d->sun_lux * (_oak_luminance(d->sun_color) * sinf(el) / OAK_PI +
                                _oak_luminance(d->ambient_sky));
    _oak_world_grey_card_camera(scene, white);
    return OAK_OK;
}
