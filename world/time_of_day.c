/* oak_world_set_time: the hour's sun or moon as the key light, its colour and
 * lux through the atmosphere, the sky image baked for the moment (remade only
 * when the sun or moon moved), the ground's light, the fog's colour and a
 * physical camera's exposure, all from the same sun. */
#include <math.h>
#include <string.h>

#include "world/internal.h"
#include "world/sky_internal.h"

/* the defaults: Zurich on 29 June 2026 (the sun 66 degrees up at noon, a
   full moon low in the south-east at night) */
#define DEFAULT_LATITUDE  47.37
#define DEFAULT_LONGITUDE 8.54
#define DEFAULT_UTC       1.0
#define DEFAULT_DAY       180
#define DEFAULT_YEAR      2026
/* below this sun elevation the key light is the moon, rising from nothing
   here to its full light at MOON_FULL_DEG */
#define MOON_FROM_DEG       (-6.0)
#define SUN_DISC_RADIUS_DEG 0.2667 /* the sun's angular radius seen from the earth */
#define MOON_FULL_DEG       (-8.0)
/* the moon lights from at least this high, so it never lights from below */
#define MOON_MIN_ELEVATION_DEG 10.0
/* the sky is baked again once the sun or moon moved this far */
#define REBAKE_DEG 0.1
/* the ground's reflectance under the sky (below the horizon's radiance) */
#define GROUND_ALBEDO 0.2
/* the night keeps half the drop below EV100 5, as eye adaptation does */
#define NIGHT_EV   5.0
#define NIGHT_KEEP 0.5
#define SKY_NAME   "oak://sky-time"
#define DEG        (3.14159265358979323846 / 180.0)

/* what the last bake was made for, kept on the key light */
typedef struct bake_state {
    float sun[3], moon[3];
    float moon_lux;
    uint32_t texture;
} bake_state;

static oak_result check(const oak_time_of_day *t) {
    if (!isfinite(t->hour) || t->hour < 0 || t->hour > 24)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "time of day: hour %g is not in [0, 24]",
                         (double)t->hour);
    if (!isfinite(t->latitude) || fabsf(t->latitude) > 90)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "time of day: latitude %g is not in [-90, 90]",
                         (double)t->latitude);
    if (!isfinite(t->longitude) || fabsf(t->longitude) > 180)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "time of day: longitude %g is not in [-180, 180]", (double)t->longitude);
    if (!isfinite(t->utc_offset) || fabsf(t->utc_offset) > 14)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "time of day: utc_offset %g is not in [-14, 14]", (double)t->utc_offset);
    if (t->day_of_year < 0 || t->day_of_year > 366)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "time of day: day_of_year %d is not in [1, 366] (0: default)",
                         t->day_of_year);
    if (t->year != 0 && (t->year < 1583 || t->year > 9999))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "time of day: year %d is not in [1583, 9999] (0: default)", t->year);
    return OAK_OK;
}

static _oak_sky_when resolve(const oak_time_of_day *t) {
    _oak_sky_when w;
    bool place = t->latitude != 0 || t->longitude != 0 || t->utc_offset != 0;
    w.latitude = place ? t->latitude : DEFAULT_LATITUDE;
    w.longitude = place ? t->longitude : DEFAULT_LONGITUDE;
    w.utc_offset = place ? t->utc_offset : DEFAULT_UTC;
    w.day_of_year = t->day_of_year ? t->day_of_year : DEFAULT_DAY;
    w.year = t->year ? t->year : DEFAULT_YEAR;
    w.hour = t->hour;
    return w;
}

/* the key light: "sun", else the first shadow-casting directional light */
static oak_entity key_light(oak_scene *scene) {
    oak_column col = oak_scene_column(scene, OAK_COMPONENT_LIGHT);
    const oak_light *lights = col.data;
    oak_entity first = {0};
    for (uint32_t i = 0; i < col.count; i++) {
        const oak_light *l = (const oak_light *)((const char *)lights + (size_t)i * col.stride);
        if (l->type != OAK_LIGHT_DIRECTIONAL) continue;
        if (!strcmp(oak_scene_name(scene, col.entities[i]), "sun")) return col.entities[i];
        if (!first.id && l->cast_shadows) first = col.entities[i];
    }
    if (first.id) return first;
    oak_entity e = oak_scene_create(scene, "sun");
    if (!e.id) return e;
    oak_light l = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    l.cast_shadows = true;
    oak_scene_set_light(scene, e, &l);
    return e;
}

static float angle_deg(const float a[3], const float b[3]) {
    float c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    c = c > 1 ? 1 : c < -1 ? -1 : c;
    return acosf(c) * 57.29578f;
}

static double smooth01(double e0, double e1, double x) {
    double t = (x - e0) / (e1 - e0);
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    return t * t * (3 - 2 * t);
}

static float aces(float x) {
    return x * (2.51f * x + 0.03f) / (x * (2.43f * x + 0.59f) + 0.14f);
}

/* the display colour that shows as radiance L through the scene's fixed camera */
static void to_display(const float L[3], const oak_post *post, float out[3]) {
    float e = oak_post_exposure(post);
    for (int c = 0; c < 3; c++) {
        float x = L[c] * e;
        float y = post->no_tonemap ? x : aces(x);
        y = y < 0 ? 0 : y > 1 ? 1 : y;
        out[c] = oak_linear_to_srgb(y);
    }
}

/* the light through the air toward elevation el: colour (luminance 1) and
   the share of its luminance that arrives; the disc sets below the horizon
   over its own width */
static double through_air(const _oak_atmosphere *a, double el, float color[3]) {
    float t[3];
    _oak_atmosphere_transmittance(a, el > 0.3 ? el : 0.3, t);
    double lum = 0.2126 * t[0] + 0.7152 * t[1] + 0.0722 * t[2];
    for (int c = 0; c < 3; c++) color[c] = lum > 0 ? (float)(t[c] / lum) : 1.0f;
    return lum * smooth01(-0.5, 0.3, el);
}

oak_result oak_world_set_time_of_day(oak_scene *scene, const oak_time_of_day *t) {
    if (!scene || !t)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_set_time: scene or time is NULL");
    oak_result r = check(t);
    if (r) return r;
    _oak_sky_when w = resolve(t);
    _oak_sky_body sun = _oak_sun_position(&w);
    double phase = 180;
    _oak_sky_body moon = _oak_moon_position(&w, NULL, NULL, &phase);
    const _oak_atmosphere *air = _oak_atmosphere_get();

    float sun_to[3], moon_to[3], sun_color[3], moon_color[3];
    _oak_sky_direction(sun.elevation, sun.azimuth, sun_to);
    _oak_sky_direction(moon.elevation, moon.azimuth, moon_to);
    double sun_lux = OAK_SKY_SUN_LUX_TOA * through_air(air, sun.elevation, sun_color);
    /* the moon's light by its phase angle i (Allen's magnitude law:
       0.026 |i| + 4e-9 i^4 magnitudes fainter than full) */
    double i = fabs(phase);
    double moon_toa =
        OAK_SKY_FULL_MOON_LUX_TOA * pow(10.0, -0.4 * (0.026 * i + 4e-9 * i * i * i * i));
    double moon_lux = moon_toa * through_air(air, moon.elevation, moon_color);

    /* the key light: the sun down to -6 degrees, then the moon fading in */
    oak_entity key = key_light(scene);
    if (!key.id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_world_set_time: no room for the sun");
    bool is_moon = sun.elevation < MOON_FROM_DEG;
    double moon_w = 1.0 - smooth01(MOON_FULL_DEG, MOON_FROM_DEG, sun.elevation);
    float from[3];
    const oak_light *kl = oak_scene_get(scene, key, OAK_COMPONENT_LIGHT);
    if (!kl) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "oak_world_set_time: no room for the sun");
    oak_light light = *kl;
    if (is_moon) {
        double el =
            moon.elevation > MOON_MIN_ELEVATION_DEG ? moon.elevation : MOON_MIN_ELEVATION_DEG;
        _oak_sky_direction(el, moon.azimuth, from);
        light.intensity = (float)(moon_lux * moon_w);
        memcpy(light.color, moon_color, sizeof moon_color);
    } else {
        memcpy(from, sun_to, sizeof from);
        light.intensity = (float)sun_lux;
        memcpy(light.color, sun_color, sizeof sun_color);
    }
    light.type = OAK_LIGHT_DIRECTIONAL;
    oak_scene_set_light(scene, key, &light);
    oak_transform tr = *oak_scene_transform(scene, key);
    float eye[3] = {tr.position[0], tr.position[1], tr.position[2]};
    if (fabsf(from[1]) > 0.9999f) from[0] += 1e-3f; /* look_at needs a horizontal part */
    float target[3] = {eye[0] - from[0], eye[1] - from[1], eye[2] - from[2]};
    oak_transform look = oak_transform_look_at(eye, target);
    memcpy(tr.rotation, look.rotation, sizeof tr.rotation);
    oak_scene_set_transform(scene, key, &tr);

    /* the sky image, baked again only when the sun or moon moved */
    oak_environment *env = oak_scene_environment(scene);
    /* the sun's disc is drawn by the sky shading from the key light (the
       image's 0.7-degree texels would make it a block); none at night */
    env->sun_disc = is_moon ? 0.0f : (float)(SUN_DISC_RADIUS_DEG * OAK_PI / 180.0);
    oak_component bc = oak_scene_register_component(scene, "oak_sky_time_bake", sizeof(bake_state));
    bake_state *bs = bc == OAK_COMPONENT_INVALID ? NULL : oak_scene_get(scene, key, bc);
    float moon_above = (float)moon_toa;
    bool same = bs && bs->texture == env->sky_image.id && oak_texture_get(env->sky_image) &&
                angle_deg(bs->sun, sun_to) < REBAKE_DEG &&
                angle_deg(bs->moon, moon_to) < REBAKE_DEG &&
                fabsf(bs->moon_lux - moon_above) <= 0.01f * moon_above;
    /* light on a level card from the key light at the bake */
    double direct = light.intensity * fmax(from[1], 0.0);
    float sky_e[3], horizon[3], ground[3];
    if (same) {
        /* only the key light moves between bakes: the environment and the
           camera stay as the bake set them, so the sky's hash stays and the
           sky light is not captured again */
        oak_time_of_day *kept = oak_scene_time_of_day(scene);
        *kept = *t;
        kept->set = true;
        return OAK_OK;
    }
    /* the air between the eye and what it sees, lit by the key light above
       the atmosphere (render/aerial.c); with the bake, so it follows the
       sun in the bake's 0.1-degree steps */
    env->aerial_lux = (float)(is_moon ? moon_toa * moon_w : OAK_SKY_SUN_LUX_TOA);
    memcpy(env->aerial_dir, from, sizeof from);
    {
        _oak_sky_bake_desc bd = {0};
        memcpy(bd.sun_dir, sun_to, sizeof sun_to);
        memcpy(bd.moon_dir, moon_to, sizeof moon_to);
        bd.sun_lux = OAK_SKY_SUN_LUX_TOA;
        bd.moon_lux = moon_toa;
        bd.latitude = w.latitude;
        bd.sidereal_deg = _oak_sky_sidereal(&w);
        _oak_sky_bake bake;
        r = _oak_sky_bake_image(&bake, air, &bd);
        if (r) return r;
        memcpy(sky_e, bake.sky_irradiance, sizeof sky_e);
        memcpy(horizon, bake.horizon, sizeof horizon);
        /* below the horizon: the ground, a grey of GROUND_ALBEDO under it all */
        for (int c = 0; c < 3; c++)
            ground[c] = (float)(GROUND_ALBEDO * (sky_e[c] + direct * light.color[c]) / OAK_PI);
        for (uint32_t y = bake.height / 2; y < bake.height; y++) {
            for (uint32_t x = 0; x < bake.width; x++) {
                float *p = bake.rgba + ((size_t)y * bake.width + x) * 4;
                memcpy(p, ground, sizeof ground);
                p[3] = 1.0f;
            }
        }
        oak_texture_desc td = {0};
        td.width = bake.width;
        td.height = bake.height;
        td.format = OAK_FORMAT_RGBA32F;
        td.pixels = bake.rgba;
        td.name = SKY_NAME;
        oak_texture tex;
        r = oak_make_texture(&tex, &td);
        oak_free(bake.rgba);
        if (r) return r;
        const oak_texture_data *old = oak_texture_get(env->sky_image);
        if (old && old->name && !strcmp(old->name, SKY_NAME)) oak_destroy_texture(env->sky_image);
        env->sky_image = tex;
        if (bc != OAK_COMPONENT_INVALID && (bs = oak_scene_add(scene, key, bc))) {
            memcpy(bs->sun, sun_to, sizeof sun_to);
            memcpy(bs->moon, moon_to, sizeof moon_to);
            bs->moon_lux = moon_above;
            bs->texture = tex.id;
        }
    }
    for (int c = 0; c < 3; c++)
        ground[c] = (float)(GROUND_ALBEDO * (sky_e[c] + direct * light.color[c]) / OAK_PI);
    /* the sky lights as it looks (docs/SHADING.md "Sky and sky light"); the
       ground's radiance lights what faces down */
    for (int c = 0; c < 3; c++) env->ambient_sky[c] = 0, env->ambient_ground[c] = ground[c];

    /* a physical camera follows the light: the grey card's EV100 on a level
       white card's luminance, keeping half the drop below EV100 5 (a night
       stays dark, as eye adaptation keeps it) */
    oak_post *post = oak_scene_post(scene);
    double white = (direct + _oak_luminance(sky_e)) / OAK_PI;
    if (post->ev100_set && !(post->exposure > 0) && white > 0) {
        double ev = oak_ev100_from_exposure(_oak_world_grey_card_exposure((float)white));
        if (ev < NIGHT_EV) ev = NIGHT_EV + NIGHT_KEEP * (ev - NIGHT_EV);
        post->ev100 = (float)ev;
    }
    /* the gradient (if the image cannot be read) and the fog from the sky:
       colours for the fixed camera (the fog is a display colour; under eye
       adaptation it is converted with this camera, not the adapted one) */
    float zenith[3];
    for (int c = 0; c < 3; c++) zenith[c] = sky_e[c] / OAK_PI;
    to_display(zenith, post, env->sky_zenith_display);
    to_display(horizon, post, env->sky_horizon_display);
    to_display(horizon, post, env->fog_display);
    oak_time_of_day *kept = oak_scene_time_of_day(scene);
    *kept = *t;
    kept->set = true;
    return OAK_OK;
}

oak_result oak_world_set_time(oak_scene *scene, float hours) {
    if (!scene) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_set_time: scene is NULL");
    oak_time_of_day t = *oak_scene_time_of_day(scene);
    t.hour = hours;
    return oak_world_set_time_of_day(scene, &t);
}

oak_result oak_world_apply_time(oak_scene *scene) {
    if (!scene) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_apply_time: scene is NULL");
    const oak_time_of_day *t = oak_scene_time_of_day(scene);
    return t->set ? oak_world_set_time_of_day(scene, t) : OAK_OK;
}
