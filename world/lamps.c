/* The `lamps` world: a town square at night. A paved 60 m square ringed by
 * building blocks, with a fountain, benches and posts, lit by 1,024 lamps of
 * many colours (a 32 x 32 grid of point and spot lamps over the square, reach
 * 5-8 m each) under a faint moon; one lamp in eight drifts on a small circle,
 * moved by the world's update from the time; those within 13 m of the
 * fountain cast shadows (docs/SHADING.md "Lamp shadows"). Placement comes
 * from a hash, so builds repeat. */
#include <math.h>
#include <stdio.h>

#include "world/internal.h"

#define LAMP_GRID    32 /* LAMP_GRID^2 = 1,024 lamps */
#define LAMP_SPACING 2.0f
#define MOVER_EVERY  8 /* one lamp in eight moves */
#define MOVER_RADIUS 0.8f
#define SQUARE       60.0f
#define LAMP_CD      10.0f /* candela per unit of the recipe's first numbers */
#define PATH_RADIUS  22.0f

/* A lamp's resting place: its grid point, jittered, 2.5-4.5 m up. */
static void lamp_home(uint32_t i, float p[3]) {
    float half = 0.5f * (LAMP_GRID - 1) * LAMP_SPACING;
    p[0] = (float)(i % LAMP_GRID) * LAMP_SPACING - half + _oak_world_hash01(i, 1) - 0.5f;
    p[1] = 2.5f + 2.0f * _oak_world_hash01(i, 2);
    p[2] = (float)(i / LAMP_GRID) * LAMP_SPACING - half + _oak_world_hash01(i, 3) - 0.5f;
}

static oak_result material(oak_material *out, float r, float g, float b, float rough,
                           const char *name) {
    oak_material_desc d = oak_material_desc_defaults(NULL);
    d.base_color[0] = r, d.base_color[1] = g, d.base_color[2] = b;
    d.metallic = 0;
    d.roughness = rough;
    d.name = name;
    return oak_make_material(out, &d);
}

static oak_result place(oak_scene *scene, oak_mesh mesh, oak_material mat, float x, float y,
                        float z, float sx, float sy, float sz) {
    oak_transform t = oak_transform_identity();
    t.position[0] = x, t.position[1] = y, t.position[2] = z;
    t.scale[0] = sx, t.scale[1] = sy, t.scale[2] = sz;
    if (!_oak_world_place(scene, NULL, mesh, mat, &t).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world lamps: no room for a prop");
    return OAK_OK;
}

static oak_result add_buildings_and_props(oak_scene *scene) {
    oak_shape_desc box = {.type = OAK_SHAPE_BOX},
                   cyl = {.type = OAK_SHAPE_CYLINDER, .segments = 16};
    oak_mesh mbox, mcyl;
    oak_material wall, stone, wood;
    oak_result r = oak_make_shape(&mbox, &box);
    if (!r) r = oak_make_shape(&mcyl, &cyl);
    if (!r) r = material(&wall, 0.55f, 0.5f, 0.45f, 0.8f, "lamps_wall");
    if (!r) r = material(&stone, 0.6f, 0.6f, 0.62f, 0.5f, "lamps_stone");
    if (!r) r = material(&wood, 0.45f, 0.3f, 0.18f, 0.7f, "lamps_wood");
    if (r) return r;
    /* blocks on the four sides, 8 m deep, 6-16 m tall, gaps for streets */
    for (uint32_t i = 0; i < 24 && !r; i++) {
        uint32_t side = i / 6, k = i % 6;
        float along = -SQUARE * 0.5f + 5.0f + 10.0f * (float)k,
              h = 6.0f + 10.0f * _oak_world_hash01(i, 7);
        float w = 8.0f - 2.0f * _oak_world_hash01(i, 8), off = SQUARE * 0.5f + 4.0f;
        float x = side < 2 ? along : (side == 2 ? -off : off);
        float z = side < 2 ? (side == 0 ? -off : off) : along;
        r = place(scene, mbox, wall, x, 0.5f * h, z, side < 2 ? w : 8, h, side < 2 ? 8 : w);
    }
    /* a fountain: basin and column */
    if (!r) r = place(scene, mcyl, stone, 0, 0.3f, 0, 6, 0.6f, 6);
    if (!r) r = place(scene, mcyl, stone, 0, 1.5f, 0, 0.8f, 3, 0.8f);
    /* benches and posts round it */
    for (uint32_t i = 0; i < 12 && !r; i++) {
        float a = 2.0f * OAK_PI * (float)i / 12.0f;
        r = place(scene, mbox, wood, 7.0f * cosf(a), 0.25f, 7.0f * sinf(a), 1.6f, 0.5f, 0.5f);
        if (!r)
            r = place(scene, mcyl, stone, 12.0f * cosf(a + 0.26f), 1.0f, 12.0f * sinf(a + 0.26f),
                      0.25f, 2.0f, 0.25f);
    }
    return r;
}

static oak_result add_lamps(oak_scene *scene) {
    for (uint32_t i = 0; i < LAMP_GRID * LAMP_GRID; i++) {
        bool spot = _oak_world_hash01(i, 4) < 0.3f;
        oak_light l = oak_light_defaults(spot ? OAK_LIGHT_SPOT : OAK_LIGHT_POINT);
        /* a saturated hue mixed a third towards white */
        float h = _oak_world_hash01(i, 5);
        for (int c = 0; c < 3; c++) {
            float k = fmodf((float)(5 - 2 * c) + h * 6.0f, 6.0f);
            float v = 1.0f - fmaxf(0.0f, fminf(fminf(k, 4.0f - k), 1.0f));
            l.color[c] = 0.33f + 0.67f * v;
        }
        /* candela: garden lamps of 30 to 60 cd and 100 cd spots */
        l.intensity = LAMP_CD * (spot ? 10.0f : 3.0f + 3.0f * _oak_world_hash01(i, 6));
        l.range = 5.0f + 3.0f * _oak_world_hash01(i, 9);
        l.inner_cone = 0.35f, l.outer_cone = 0.7f;
        char name[32];
        snprintf(name, sizeof name, "lamp_%u", i);
        oak_entity e = oak_scene_create(scene, name);
        if (!e.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world lamps: no room for %s", name);
        float p[3], below[3];
        lamp_home(i, p);
        /* the lamps over the fountain, benches and posts (within 13 m of
           the centre) cast: the budget shadows the 16 of them nearest the
           camera */
        l.cast_shadows = p[0] * p[0] + p[2] * p[2] < 13.0f * 13.0f;
        below[0] = p[0] + 0.01f, below[1] = 0, below[2] = p[2]; /* spots point down */
        oak_transform t = oak_transform_look_at(p, below);
        oak_scene_set_transform(scene, e, &t);
        oak_scene_set_light(scene, e, &l);
    }
    return OAK_OK;
}

oak_result _oak_world_lamps_build(oak_scene *scene) {
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE, .uv_scale = 20.0f};
    gd.size[0] = gd.size[2] = SQUARE + 60.0f;
    oak_result r = _oak_world_add_ground(scene, &gd, "ground");
    if (!r) r = add_buildings_and_props(scene);
    if (!r) r = add_lamps(scene);
    if (r) return r;
    /* a faint moon, no shadow, and a dark blue night */
    oak_entity moon = oak_scene_create(scene, "moon");
    if (!moon.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world lamps: no room for the moon");
    float from[3] = {-40, 60, 30}, origin[3] = {0, 0, 0};
    oak_transform t = oak_transform_look_at(from, origin);
    oak_scene_set_transform(scene, moon, &t);
    oak_light light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    light.color[0] = 0.6f, light.color[1] = 0.7f, light.color[2] = 1.0f;
    light.intensity = 0.05f * LAMP_CD; /* 0.5 lux: a bright full moon */
    oak_scene_set_light(scene, moon, &light);
    oak_environment *env = oak_scene_environment(scene);
    static const float zenith[3] = {0.01f, 0.015f, 0.04f}, horizon[3] = {0.04f, 0.05f, 0.09f};
    for (int c = 0; c < 3; c++) {
        env->sky_zenith_display[c] = zenith[c];
        env->sky_horizon_display[c] = horizon[c];
        env->fog_display[c] = horizon[c];
        env->ambient_sky[c] = LAMP_CD * 0.004f * (c == 2 ? 1.6f : 1.0f);
        env->ambient_ground[c] = LAMP_CD * 0.002f;
    }
    env->fog_density = 0.004f;
    /* Lamps overlap: a level card on the square gets about 20 lux from those
       in reach (measured); that shows as mid grey (EV100 2.87). */
    _oak_world_grey_card_camera(scene, LAMP_CD * 2.0f / OAK_PI);
    oak_camera cam = {0};
    cam.fov_y = 60.0f * OAK_PI / 180.0f;
    cam.zfar = 500.0f;
    float eye[3], target[3];
    _oak_world_lamps_path(0.0f, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world lamps: no room for the camera");
    return OAK_OK;
}

/* One lamp in eight drifts on a circle round its home, a turn in 6-10 s. */
oak_result _oak_world_lamps_update(oak_scene *scene, float seconds) {
    char name[32];
    for (uint32_t i = 0; i < LAMP_GRID * LAMP_GRID; i += MOVER_EVERY) {
        snprintf(name, sizeof name, "lamp_%u", i);
        oak_entity e = oak_scene_find(scene, name);
        if (!e.id) continue; /* removed by the user: nothing to move */
        float p[3], below[3];
        lamp_home(i, p);
        float a = 2.0f * OAK_PI *
                  (seconds / (6.0f + 4.0f * _oak_world_hash01(i, 10)) + _oak_world_hash01(i, 11));
        p[0] += MOVER_RADIUS * cosf(a), p[2] += MOVER_RADIUS * sinf(a);
        below[0] = p[0] + 0.01f, below[1] = 0, below[2] = p[2];
        oak_transform t = oak_transform_look_at(p, below);
        oak_scene_set_transform(scene, e, &t);
    }
    return OAK_OK;
}

/* A walk round the fountain at eye height, looking across the square. */
void _oak_world_lamps_path(float t, float eye[3], float target[3]) {
    float a = 2.0f * OAK_PI * (0.125f + 0.5f * t);
    eye[0] = PATH_RADIUS * cosf(a);
    eye[1] = 1.8f;
    eye[2] = PATH_RADIUS * sinf(a);
    target[0] = -0.3f * eye[0];
    target[1] = 1.2f;
    target[2] = -0.3f * eye[2];
}
