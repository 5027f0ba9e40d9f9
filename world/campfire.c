/* The `campfire` world (docs/WORLD.md "Fire"): a fire of three logs in a
 * ring of stones on dark earth at night. Flames are additive particles
 * playing a flipbook baked at build by the stable-fluids run
 * (world/flames.c), glowing as a black body (unlit); smoke rises as lit
 * alpha particles; sparks fly as small unlit additive ones; a point lamp
 * of the fire's colour flickers at the emitter on the world's clock. */
#include <math.h>

#include "world/internal.h"

#define FIRE_KELVIN    1900.0f
#define FIRE_CD        60.0f /* the lamp's candela at a flicker of 1 */
#define FIRE_SEED      0xF1AEu
#define FLAME_GLOW     30.0f /* cd/m^2 of the flipbook's white */
#define SPARK_GLOW     40.0f
#define SMOKE_SOFTNESS 0.3f /* metres over which smoke fades in front of what is behind */
#define CAMP_RADIUS    2.8f /* the camera path's circle */
#define SOFT_TEXELS    32

/* [0, 1) value noise in time: hashed knots every 1/rate s, smoothstepped */
static float value_noise(double t, double rate, uint32_t salt) {
    double x = t * rate, k = floor(x);
    float f = (float)(x - k), s = f * f * (3 - 2 * f);
    uint32_t i = (uint32_t)fmod(k, 4294967296.0);
    float a = _oak_world_hash01(i, salt), b = _oak_world_hash01(i + 1, salt);
    return a + (b - a) * s;
}

float oak_fire_flicker(double seconds, uint32_t seed) {
    float n = 0.5f * value_noise(seconds, 3.0, seed) + 0.3f * value_noise(seconds, 7.0, seed + 1) +
              0.2f * value_noise(seconds, 17.0, seed + 2);
    return 0.7f + 0.4f * n;
}

static oak_result material(oak_material *out, const oak_material_desc *d) {
    return oak_make_material(out, d);
}

/* The campfire's textures are painters ("oak://campfire_disc",
   "oak://campfire_flames"), not pixels made in memory, so a saved campfire
   names them and a loaded one paints the same bytes again. */

/* a round soft spot (alpha 1 - r^2, squared) for smoke and sparks */
static void paint_disc(uint8_t *px, uint32_t w, uint32_t h, void *user) {
    (void)user;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            float u = ((float)x + 0.5f) / (float)w * 2 - 1,
                  v = ((float)y + 0.5f) / (float)h * 2 - 1;
            float a = fmaxf(0, 1 - (u * u + v * v));
            uint8_t *o = px + ((size_t)y * w + x) * 4;
            o[0] = o[1] = o[2] = 255;
            o[3] = (uint8_t)lroundf(a * a * 255);
        }
}

static oak_flames_desc flames_desc(void) {
    return oak_flames_desc_defaults(&(oak_flames_desc){.seed = FIRE_SEED, .kelvin = FIRE_KELVIN});
}

/* the fire's flipbook (a bake that fails, out of memory, leaves the painter's
   cleared texels: transparent, so no flame shows rather than garbage) */
static void paint_flames(uint8_t *px, uint32_t w, uint32_t h, void *user) {
    (void)w, (void)h, (void)user;
    oak_flames_desc fd = flames_desc();
    (void)oak_flames_bake(px, NULL, &fd);
}

oak_result _oak_world_campfire_register(void) {
    oak_flames_desc fd = flames_desc();
    oak_result r =
        oak_register_painter("campfire_disc", SOFT_TEXELS, SOFT_TEXELS, paint_disc, NULL);
    if (!r)
        r = oak_register_painter("campfire_flames", fd.width * fd.columns, fd.height * fd.rows,
                                 paint_flames, NULL);
    return r;
}

static oak_result props(oak_scene *scene) {
    oak_mesh ground, log, stone;
    oak_material earth, wood, rock;
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    oak_shape_desc cd = {
        .type = OAK_SHAPE_CYLINDER, .radius = 0.07f, .height = 0.9f, .segments = 12};
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 0.12f, .segments = 10, .rings = 6};
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0, md.roughness = 0.95f;
    md.base_color[0] = 0.12f, md.base_color[1] = 0.09f, md.base_color[2] = 0.07f,
    md.name = "campfire earth";
    oak_result r = oak_make_shape(&ground, &pd);
    if (!r) r = oak_make_shape(&log, &cd);
    if (!r) r = oak_make_shape(&stone, &sd);
    if (!r) r = material(&earth, &md);
    md.base_color[0] = 0.2f, md.base_color[1] = 0.12f, md.base_color[2] = 0.07f,
    md.name = "campfire wood";
    if (!r) r = material(&wood, &md);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.35f, md.roughness = 0.7f,
    md.name = "campfire stone";
    if (!r) r = material(&rock, &md);
    if (r) return r;
    oak_transform t = oak_transform_identity();
    if (!_oak_world_place(scene, "ground", ground, earth, &t).id) r = OAK_ERROR_OUT_OF_MEMORY;
    for (int i = 0; !r && i < 3; i++) { /* three logs leaning in, 120 degrees apart */
        float a = (float)i * 2.0943951f + 0.3f;
        t = oak_transform_identity();
        t.position[0] = 0.22f * sinf(a), t.position[1] = 0.16f, t.position[2] = 0.22f * cosf(a);
        /* lay the cylinder's y along the log: tip it 65 degrees outward about the axis across */
        float tilt = 1.134f, ax = cosf(a), az = -sinf(a), s = sinf(0.5f * tilt);
        t.rotation[0] = ax * s, t.rotation[1] = 0, t.rotation[2] = az * s,
        t.rotation[3] = cosf(0.5f * tilt);
        if (!_oak_world_place(scene, "log", log, wood, &t).id) r = OAK_ERROR_OUT_OF_MEMORY;
    }
    for (int i = 0; !r && i < 10; i++) { /* a ring of stones */
        float a = (float)i * 0.62831853f;
        t = oak_transform_identity();
        t.position[0] = 0.6f * sinf(a), t.position[1] = 0.05f, t.position[2] = 0.6f * cosf(a);
        t.scale[1] = 0.7f + 0.3f * _oak_world_hash01((uint32_t)i, FIRE_SEED);
        if (!_oak_world_place(scene, "stone", stone, rock, &t).id) r = OAK_ERROR_OUT_OF_MEMORY;
    }
    return r ? oak_error(r, "world campfire: no room for a prop") : OAK_OK;
}

static oak_result emitters(oak_scene *scene) {
    oak_particles *p = NULL;
    oak_texture flames, disc;
    oak_result r = oak_world_particles(scene, &p);
    if (!r) r = _oak_world_campfire_register();
    if (!r) r = oak_load_texture(&flames, "oak://campfire_flames", OAK_FORMAT_RGBA8_SRGB);
    if (!r) r = oak_load_texture(&disc, "oak://campfire_disc", OAK_FORMAT_RGBA8_SRGB);
    if (r) return r;
    float hot[3];
    oak_blackbody(FIRE_KELVIN, hot);
    /* flames: the flipbook's light, unlit, additive: the glow is the base
       colour (its texture's alpha the flame's), so the blend pass runs its
       unlit shader (blend_unlit.frag) and no light, shadow or sky reflection
       is computed for a quad that only gives off light */
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = FLAME_GLOW;
    md.unlit = true, md.double_sided = true;
    md.alpha_mode = OAK_ALPHA_BLEND, md.additive = true;
    md.base_color_tex.texture = flames;
    md.base_color_tex.sampler.wrap_u = md.base_color_tex.sampler.wrap_v = OAK_WRAP_CLAMP;
    md.name = "campfire flames";
    oak_material flame_mat, spark_mat, smoke_mat;
    if ((r = material(&flame_mat, &md))) return r;
    md.base_color_tex.texture = disc;
    for (int c = 0; c < 3; c++) md.base_color[c] = hot[c] * SPARK_GLOW;
    md.name = "campfire sparks";
    if ((r = material(&spark_mat, &md))) return r;
    md = oak_material_desc_defaults(NULL); /* smoke: lit, grey, alpha */
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.25f;
    md.metallic = 0, md.roughness = 1, md.double_sided = true, md.alpha_mode = OAK_ALPHA_BLEND;
    md.base_color_tex.texture = disc, md.name = "campfire smoke";
    md.softness = SMOKE_SOFTNESS; /* no hard line where a puff meets a log or stone */
    if ((r = material(&smoke_mat, &md))) return r;

    oak_emitter_desc fl = {.capacity = 64,
                           .seed = FIRE_SEED,
                           .position = {0, 0.3f, 0},
                           .cone_degrees = 8,
                           .rate = 14,
                           .speed = {0.15f, 0.35f},
                           .life = {0.8f, 1.1f},
                           .size = {0.9f, 1.2f},
                           .material = flame_mat,
                           .flipbook = {4, 4},
                           .lift = 0.4f, /* the flame's foot near the particle */
                           .color_key_count = 4};
    fl.color_keys[0] = (oak_particle_key){0, {1, 1, 1, 0}};
    fl.color_keys[1] = (oak_particle_key){0.15f, {1, 1, 1, 1}};
    fl.color_keys[2] = (oak_particle_key){0.7f, {1, 1, 1, 0.8f}};
    fl.color_keys[3] = (oak_particle_key){1, {1, 1, 1, 0}};
    oak_emitter_desc sm = {.capacity = 64,
                           .seed = FIRE_SEED + 1,
                           .position = {0, 1.0f, 0},
                           .cone_degrees = 15,
                           .rate = 5,
                           .speed = {0.3f, 0.6f},
                           .life = {3, 4},
                           .size = {0.35f, 0.5f},
                           .spin = {-0.5f, 0.5f},
                           .gravity = {0.15f, 0.3f, 0}, /* buoyant, drifting in a light breeze */
                           .drag = 0.3f,
                           .material = smoke_mat,
                           .color_key_count = 3,
                           .size_key_count = 2};
    sm.color_keys[0] = (oak_particle_key){0, {1, 1, 1, 0}};
    sm.color_keys[1] = (oak_particle_key){0.2f, {1, 1, 1, 0.35f}};
    sm.color_keys[2] = (oak_particle_key){1, {1, 1, 1, 0}};
    sm.size_keys[0] = (oak_particle_key){0, {1}};
    sm.size_keys[1] = (oak_particle_key){1, {3}};
    oak_emitter_desc sp = {.capacity = 128,
                           .seed = FIRE_SEED + 2,
                           .position = {0, 0.35f, 0},
                           .cone_degrees = 25,
                           .rate = 20,
                           .speed = {1.5f, 3.0f},
                           .life = {0.6f, 1.4f},
                           .size = {0.025f, 0.04f},
                           .gravity = {0, -1.5f, 0},
                           .drag = 0.8f,
                           .material = spark_mat,
                           .color_key_count = 2};
    sp.color_keys[0] = (oak_particle_key){0, {1, 1, 1, 1}};
    sp.color_keys[1] = (oak_particle_key){1, {1, 1, 1, 0}};
    if (!r) r = oak_particles_add_emitter(p, &sm, NULL); /* smoke first: drawn farthest */
    if (!r) r = oak_particles_add_emitter(p, &fl, NULL);
    if (!r) r = oak_particles_add_emitter(p, &sp, NULL);
    return r;
}

/* the fire's lamp: the flame's colour, flickering (the update sets it) */
static oak_entity fire_lamp(oak_scene *scene) {
    return oak_scene_find(scene, "fire lamp");
}

oak_result _oak_world_campfire_build(oak_scene *scene) {
    oak_result r = props(scene);
    if (!r) r = emitters(scene);
    if (r) return r;
    oak_entity lamp = oak_scene_create(scene, "fire lamp");
    if (!lamp.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world campfire: no room for the lamp");
    oak_transform t = oak_transform_identity();
    t.position[1] = 0.6f;
    oak_scene_set_transform(scene, lamp, &t);
    oak_light l = oak_light_defaults(OAK_LIGHT_POINT);
    oak_blackbody(FIRE_KELVIN, l.color);
    l.intensity = FIRE_CD * oak_fire_flicker(0, FIRE_SEED);
    l.range = 15;
    oak_scene_set_light(scene, lamp, &l);
    /* a faint moon and a dark sky */
    oak_entity moon = oak_scene_create(scene, "moon");
    if (!moon.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world campfire: no room for the moon");
    float from[3] = {-6, 10, -4}, at[3] = {0, 0, 0};
    t = oak_transform_look_at(from, at);
    oak_scene_set_transform(scene, moon, &t);
    oak_light moonlight = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    moonlight.color[0] = 0.6f, moonlight.color[1] = 0.7f, moonlight.color[2] = 1.0f;
    moonlight.intensity = 0.3f;
    oak_scene_set_light(scene, moon, &moonlight);
    oak_environment *env = oak_scene_environment(scene);
    const float zenith[3] = {0.01f, 0.012f, 0.03f}, horizon[3] = {0.02f, 0.022f, 0.04f};
    for (int c = 0; c < 3; c++) {
        env->sky_zenith_display[c] = zenith[c];
        env->sky_horizon_display[c] = horizon[c];
        env->fog_display[c] = horizon[c];
        env->ambient_sky[c] = 0.02f * (c == 2 ? 1.6f : 1.0f);
        env->ambient_ground[c] = 0.01f;
    }
    /* exposed for a card 1.5 m from the lamp */
    _oak_world_grey_card_camera(scene, FIRE_CD / (1.5f * 1.5f) / (float)OAK_PI);
    oak_camera cam = {0};
    float eye[3], target[3];
    _oak_world_campfire_path(0, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world campfire: no room for the camera");
    return _oak_world_campfire_update(scene, 0);
}

oak_result _oak_world_campfire_update(oak_scene *scene, float seconds) {
    oak_entity lamp = fire_lamp(scene);
    oak_light *l = lamp.id ? oak_scene_get(scene, lamp, OAK_COMPONENT_LIGHT) : NULL;
    if (l) l->intensity = FIRE_CD * oak_fire_flicker(seconds, FIRE_SEED);
    return OAK_OK;
}

void _oak_world_campfire_path(float t, float eye[3], float target[3]) {
    float a = 0.6f + 1.2f * t; /* a slow walk round a fifth of the fire */
    eye[0] = CAMP_RADIUS * sinf(a), eye[1] = 1.2f, eye[2] = CAMP_RADIUS * cosf(a);
    target[0] = 0, target[1] = 0.6f, target[2] = 0;
}
