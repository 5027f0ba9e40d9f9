/* Weather (docs/WORLD.md "Weather"): kinds with an amount, blended over a
 * transition as oak_world_update advances, applied on top of the scene's own
 * fog, clouds, key light and sky each update (its own values kept, so clear
 * gives them back exactly); wetness and snow cover for the surfaces, which
 * remember (wet in rain, drying by the sun and wind, snow building and
 * melting); rain, snow and dust as instance streams in a box that follows
 * the camera (counts by the quality preset); and a storm's lightning from a
 * seeded schedule. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "world/internal.h"

#define KINDS OAK_WEATHER_COUNT

/* What a kind does at amount 1 (docs/WORLD.md "Weather" gives the reasons);
   every effect is linear in the kinds' weights, so a transition is a blend. */
typedef struct kind_row {
    const char *name;
    float visibility;             /* metres at which the fog leaves 5% (0: no fog of its own) */
    float fog_albedo[3];          /* the fog's colour (single-scattering albedo) */
    float coverage;               /* cloud cover it brings (never lowers the scene's) */
    float cloud_density;          /* times the clouds' extinction */
    float cloud_type;             /* 0 stratus .. 1 cumulus; < 0: the scene's */
    float cloud_vary;             /* the type's variation per place (with cloud_type) */
    float sun;                    /* times the key light */
    float sky;                    /* times the sky and its light */
    float grey;                   /* the sky's pull toward grey (never lowers the scene's) */
    float wetness, snow;          /* the surfaces' (never lowers the scene's) */
    uint32_t rain, flakes, motes; /* stream instances */
} kind_row;

/* clang-format off */
static const kind_row k_kinds[KINDS] = {
    {"clear",    0,    {0, 0, 0},             0,     1,    -1,    0,     1,     1,     0,     0, 0, 0,    0,    0},
    {"cloudy",   0,    {0, 0, 0},             0.55f, 1,    0.75f, 0.3f,  0.8f,  0.9f,  0.3f,  0, 0, 0,    0,    0},
    {"overcast", 6000, {0.9f, 0.9f, 0.9f},    1,     1.5f, 0.2f,  0.1f,  0.3f,  0.6f,  0.9f,  0, 0, 0,    0,    0},
    {"rain",     2000, {0.85f, 0.87f, 0.9f},  0.95f, 2,    0.35f, 0,     0.25f, 0.5f,  0.85f, 1, 0, 6000, 0,    0},
    {"storm",    900,  {0.8f, 0.82f, 0.85f},  1,     3,    1,     0.6f,  0.12f, 0.35f, 0.95f, 1, 0, 9000, 0,    0},
    {"snow",     700,  {0.95f, 0.95f, 0.97f}, 0.9f,  1.5f, 0.3f,  0,     0.4f,  0.75f, 0.8f,  0, 1, 0,    6000, 0},
    {"dust",     500,  {0.85f, 0.65f, 0.42f}, 0,     1,    -1,    0,     0.5f,  0.7f,  0.4f,  0, 0, 0,    0,    3000},
};
/* clang-format on */

/* the streams' boxes around the eye (half extents, metres) and what moves them */
#define RAIN_HALF      20.0f /* x and z */
#define RAIN_BELOW     8.0f  /* metres of the box under the eye ... */
#define RAIN_ABOVE     16.0f /* ... and over it */
#define RAIN_SPEED     9.0f  /* metres a second a drop falls (terminal speed of a 2 mm drop) */
#define STORM_WIND     4.0f  /* metres a second a storm's drops drift along +x */
#define SNOW_SPEED     1.0f  /* a flake's fall */
#define SNOW_SWAY      0.4f  /* metres a flake swings either way */
#define DUST_SPEED     3.0f  /* a mote's drift along the wind (+x) */
#define STREAK_LENGTH  0.7f  /* metres: a drop's path over a 1/13 s shutter */
#define STREAK_WIDTH   0.008f
#define RAIN_NEAR      2.5f /* metres round the eye (across) left without streaks */
#define FLAKE_SIZE     0.03f
#define MOTE_SIZE      0.012f
#define STRIKE_PERIOD  5.0  /* seconds: one strike may fall in each such slot ... */
#define STRIKE_SPREAD  4.0  /* ... at a hashed time within its first 4 s */
#define FLASH_SKY      6.0f /* the sky and its light times 1 + this at a full flash */
#define LIGHTNING_SEED 0x5707u
/* Splashes: a crown where a drop meets the ground, alive SPLASH_LIFE; as
   many at once as drops land in a life (the box's drops cross its height
   every (RAIN_BELOW + RAIN_ABOVE) / RAIN_SPEED seconds). */
#define SPLASH_LIFE       0.25f /* seconds a crown rises and falls */
#define SPLASH_RADIUS     0.02f /* a crown 4 cm across, 1.5 cm high at its peak */
#define SPLASH_HEIGHT     0.015f
#define SPLASH_PER_STREAK (RAIN_SPEED / (RAIN_BELOW + RAIN_ABOVE) * SPLASH_LIFE)
#define STREAMS           4 /* rain, snow, dust, splashes */
/* The surfaces' memory (docs/WORLD.md "Weather: wetness and snow over
   time"): what the weather adds to the scene's wetness and snow moves
   toward its target instead of following the weights. */
#define WET_RISE       300.0f   /* seconds of rain that bring the surfaces to its wetness */
#define DRY_SUN        600.0f   /* half-life of the wetness above the target in a full sun ... */
#define DRY_DARK       3600.0f  /* ... and at night, under a sun 0 strong, in still air */
#define DRY_WIND       14400.0f /* metres: wind v m/s adds v / DRY_WIND to 1 / half-life */
#define DRY_SNAP       1e-3f    /* an excess below this is gone (the scene's own again) */
#define SUN_FULL_SIN   0.5f     /* sin(30 deg): a sun this high (or higher) is full strength */
#define SNOW_BUILD     1200.0f  /* seconds of snowfall that bring the cover to its target */
#define SNOW_MELT      1800.0f  /* seconds a full cover takes to melt under a full sun */
#define SNOW_MELT_FROM 0.25f    /* a sun weaker than this melts nothing */
#define SNOW_MELT_RAIN 3600.0f  /* seconds rain at amount 1 takes to melt a full cover */
/* the streams' counts times this per quality preset (default, low .. ultra) */
static const float k_preset_scale[OAK_PRESET_COUNT] = {1.0f, 0.5f, 0.75f, 1.0f, 1.5f};
#define PRESET_SCALE_MAX 1.5f

/* the environment's floats weather writes, each kept as the scene's own */
static const size_t k_slots[] = {
    offsetof(oak_environment, fog_density),     offsetof(oak_environment, fog.density),
    offsetof(oak_environment, fog.albedo[0]),   offsetof(oak_environment, fog.albedo[1]),
    offsetof(oak_environment, fog.albedo[2]),   offsetof(oak_environment, fog_display[0]),
    offsetof(oak_environment, fog_display[1]),  offsetof(oak_environment, fog_display[2]),
    offsetof(oak_environment, clouds.coverage), offsetof(oak_environment, clouds.density),
    offsetof(oak_environment, clouds.type),     offsetof(oak_environment, sky_light),
    offsetof(oak_environment, wetness),         offsetof(oak_environment, snow),
    offsetof(oak_environment, sky_grey),        offsetof(oak_environment, rain),
    offsetof(oak_environment, rain_time),       offsetof(oak_environment, clouds.variation),
    offsetof(oak_environment, aerial_lux),
};
#define SLOTS (sizeof k_slots / sizeof k_slots[0])
enum {
    S_EXP2,
    S_FOG,
    S_ALB,
    S_DISP = S_ALB + 3,
    S_COVER = S_DISP + 3,
    S_CDENS,
    S_CTYPE,
    S_SKY,
    S_WET,
    S_SNOW,
    S_GREY,
    S_RAIN,
    S_RTIME,
    S_CVARY,
    S_AERIAL
};

typedef struct weather_sys {
    oak_scene *scene;
    float from[KINDS], to[KINDS], w[KINDS];
    float duration;
    double t0, now;
    bool started;    /* t0 is the first update's time after a set */
    bool clocked;    /* `now` is a time an update gave (the memory's dt counts from it) */
    float wet, snow; /* what the weather adds to the scene's wetness and snow now */
    float half_life, sun_strength, count_scale;
    float flash;
    float applied[SLOTS];
    float key_applied;
    oak_stream *stream[STREAMS];
    oak_mesh mesh[STREAMS];
    oak_material material[STREAMS];
    oak_instance *records;
    uint32_t capacity[STREAMS], count[STREAMS];
} weather_sys;

static void destroy_sys(void *p) {
    weather_sys *s = p;
    if (!s) return;
    for (int i = 0; i < STREAMS; i++) {
        oak_scene_remove_stream(s->scene, s->stream[i]);
        if (s->mesh[i].id) oak_destroy_mesh(s->mesh[i]);
        if (s->material[i].id) oak_destroy_material(s->material[i]);
    }
    oak_free(s->records);
    oak_free(s);
}

static weather_sys *sys_of(const oak_scene *scene) {
    return oak_scene_attachment(scene, destroy_sys);
}

const char *oak_weather_name(oak_weather_kind kind) {
    return (unsigned)kind < KINDS ? k_kinds[kind].name : NULL;
}

oak_result oak_weather_parse(const char *text, oak_weather_kind *kind, float *amount) {
    if (!text || !kind || !amount)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_weather_parse: NULL argument");
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : strlen(text);
    for (uint32_t k = 0; k < KINDS; k++) {
        if (strlen(k_kinds[k].name) != n || strncmp(k_kinds[k].name, text, n)) continue;
        float a = 1.0f;
        if (colon) {
            char *end = NULL;
            a = strtof(colon + 1, &end);
            if (!colon[1] || *end || !(a >= 0 && a <= 1))
                return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                 "weather '%s': the amount must be a number in [0, 1]", text);
        }
        *kind = (oak_weather_kind)k;
        *amount = a;
        return OAK_OK;
    }
    return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                     "weather '%s': expected clear, cloudy, overcast, rain, storm, snow or dust, "
                     "with :AMOUNT (0..1) if wanted",
                     text);
}

/* the key light, as oak_world_set_time finds it (none is made here) */
static oak_entity key_light(const oak_scene *scene) {
    oak_column col = oak_scene_column(scene, OAK_COMPONENT_LIGHT);
    oak_entity first = {0};
    for (uint32_t i = 0; i < col.count; i++) {
        const oak_light *l = (const oak_light *)((const char *)col.data + (size_t)i * col.stride);
        if (l->type != OAK_LIGHT_DIRECTIONAL) continue;
        if (!strcmp(oak_scene_name(scene, col.entities[i]), "sun")) return col.entities[i];
        if (!first.id && l->cast_shadows) first = col.entities[i];
    }
    return first;
}

/* Lightning at `t` seconds for a storm of weight w: slot i of STRIKE_PERIOD
   holds a strike with chance w, at a hashed time; a strike is three pulses
   over about 10 frames at 60 Hz (bright, dim, bright), so a run repeats. */
static float lightning(double t, float w) {
    if (!(w > 0) || !(t >= 0)) return 0;
    double slot = floor(t / STRIKE_PERIOD);
    uint32_t i = (uint32_t)fmod(slot, 4294967296.0);
    if (_oak_world_hash01(i, LIGHTNING_SEED) >= w) return 0;
    double at = slot * STRIKE_PERIOD + _oak_world_hash01(i, LIGHTNING_SEED + 1) * STRIKE_SPREAD;
    double d = t - at;
    if (d < 0) return 0;
    if (d < 0.05) return 1.0f; /* three frames */
    if (d < 0.10) return 0.25f;
    if (d < 0.17) return 0.7f;
    return 0;
}

/* the splashes alive for `streaks` drops in the box */
static uint32_t splashes_of(float streaks) {
    return (uint32_t)lroundf(streaks * SPLASH_PER_STREAK);
}

static oak_result make_streams(weather_sys *s) {
    static const char *const names[STREAMS] = {"weather rain", "weather snow", "weather dust",
                                               "weather splash"};
    const float size[3][3] = {{STREAK_WIDTH, STREAK_LENGTH, STREAK_WIDTH},
                              {FLAKE_SIZE, FLAKE_SIZE, FLAKE_SIZE},
                              {MOTE_SIZE, MOTE_SIZE, MOTE_SIZE}};
    const float colour[STREAMS][3] = {
        {0.45f, 0.5f, 0.55f}, {0.95f, 0.95f, 0.97f}, {0.7f, 0.55f, 0.38f}, {0.6f, 0.65f, 0.7f}};
    const float rough[STREAMS] = {0.15f, 0.8f, 0.9f, 0.1f};
    uint32_t total = 0;
    for (int i = 0; i < STREAMS; i++) {
        uint32_t cap = 0;
        for (uint32_t k = 0; k < KINDS; k++) {
            uint32_t c = i == 0   ? k_kinds[k].rain
                         : i == 1 ? k_kinds[k].flakes
                         : i == 2 ? k_kinds[k].motes
                                  : splashes_of((float)k_kinds[k].rain);
            if (c > cap) cap = c;
        }
        cap = (uint32_t)ceilf((float)cap * PRESET_SCALE_MAX);
        s->capacity[i] = cap;
        total += cap;
    }
    s->records = oak_alloc(sizeof(oak_instance) * total);
    if (!s->records) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "weather: no memory for streams");
    for (int i = 0; i < STREAMS; i++) {
        oak_shape_desc sd = {.type = OAK_SHAPE_BOX};
        if (i < 3) memcpy(sd.size, size[i], sizeof sd.size);
        if (i == 3) /* a low crown: 8 sides are round enough at a few pixels */
            sd = (oak_shape_desc){.type = OAK_SHAPE_CYLINDER,
                                  .radius = SPLASH_RADIUS,
                                  .height = SPLASH_HEIGHT,
                                  .segments = 8};
        oak_result r = oak_make_shape(&s->mesh[i], &sd);
        if (r) return r;
        oak_material_desc md = oak_material_desc_defaults(NULL);
        memcpy(md.base_color, colour[i], sizeof colour[i]);
        md.metallic = 0;
        md.roughness = rough[i];
        md.name = names[i];
        if ((r = oak_make_material(&s->material[i], &md))) return r;
        oak_stream_desc d = {.capacity = s->capacity[i],
                             .lod_count = 1,
                             .material = s->material[i],
                             .flags = OAK_DRAW_NO_SHADOW};
        d.lods[0] = (oak_stream_lod){s->mesh[i], 0};
        oak_stream *st;
        if ((r = oak_make_stream(&st, &d))) return r;
        if ((r = oak_scene_add_stream(s->scene, st))) return r; /* the scene destroyed it */
        s->stream[i] = st;
    }
    return OAK_OK;
}

/* x wrapped into [lo, lo + size) */
static float wrap(double x, double lo, double size) {
    double m = fmod(x - lo, size);
    if (m < 0) m += size;
    return (float)(lo + m);
}

/* The records of stream i (0 rain, 1 snow, 2 dust) at time t around eye:
   each a hashed start in the box moved by its velocity (a function of
   time only, so any frame's records are the same on every run). */
static void write_stream(weather_sys *s, int i, uint32_t n, const float eye[3], double t,
                         float storm_share) {
    oak_instance *rec = s->records;
    const float half = i == 0 ? RAIN_HALF : i == 1 ? 0.6f * RAIN_HALF : RAIN_HALF;
    const float below = i == 0 ? RAIN_BELOW : 0.6f * RAIN_BELOW;
    const float above = i == 0 ? RAIN_ABOVE : 0.6f * RAIN_ABOVE;
    const double lo[3] = {eye[0] - half, eye[1] - below, eye[2] - half};
    const double ext[3] = {2.0 * half, below + above, 2.0 * half};
    float vel[3] = {0, 0, 0};
    if (i == 0) vel[0] = STORM_WIND * storm_share, vel[1] = -RAIN_SPEED;
    if (i == 1) vel[1] = -SNOW_SPEED;
    if (i == 2) vel[0] = DUST_SPEED;
    /* a streak lies along its fall: +y turned onto -velocity */
    float q[4] = {0, 0, 0, 1};
    if (i == 0) {
        float l = sqrtf(vel[0] * vel[0] + vel[1] * vel[1]), u[3] = {-vel[0] / l, -vel[1] / l, 0};
        float half_angle = 0.5f * acosf(u[1]);
        /* axis: +y x u = (u.z, 0, -u.x), normalized */
        float ax = u[2], az = -u[0], al = sqrtf(ax * ax + az * az);
        if (al > 1e-6f) q[0] = ax / al * sinf(half_angle), q[2] = az / al * sinf(half_angle);
        q[3] = cosf(half_angle);
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t salt = 0x3100u * (uint32_t)(i + 1);
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = _oak_world_hash01(j, salt + (uint32_t)k) * 4096.0 + vel[k] * t;
        /* drops fall at 0.8 .. 1.2 of the speed */
        float jitter = 0.8f + 0.4f * _oak_world_hash01(j, salt + 3);
        p[1] = _oak_world_hash01(j, salt + 1) * 4096.0 + vel[1] * jitter * t;
        float phase = _oak_world_hash01(j, salt + 4) * 6.2831853f;
        if (i == 1) { /* flakes swing as they fall */
            p[0] += SNOW_SWAY * sin(0.9 * t + phase);
            p[2] += SNOW_SWAY * cos(0.7 * t + phase);
        }
        if (i == 2) p[1] += 0.3 * sin(0.5 * t + phase);
        oak_instance *r = &rec[j];
        for (int k = 0; k < 3; k++) r->position[k] = wrap(p[k], lo[k], ext[k]);
        float dx = r->position[0] - eye[0], dz = r->position[2] - eye[2];
        r->scale = i == 0 && dx * dx + dz * dz < RAIN_NEAR * RAIN_NEAR ? 0.0f : 1.0f;
        memcpy(r->rotation, q, sizeof q);
        if (i != 0) { /* flakes and motes tumble */
            float a = phase + (float)fmod(t, 6.2831853), c = cosf(0.5f * a), sn = sinf(0.5f * a);
            r->rotation[0] = sn * 0.577f, r->rotation[1] = sn * 0.577f;
            r->rotation[2] = sn * 0.577f, r->rotation[3] = c;
        }
        r->color[0] = r->color[1] = r->color[2] = 1.0f;
        r->phase = phase;
    }
    oak_stream_write(s->stream[i], 0, rec, n);
    oak_stream_set_count(s->stream[i], n);
    s->count[i] = n;
}

/* The ground under (x, z): the scene's terrain where it has one, else the
   plane y = 0 every built-in world without terrain stands on. */
static float ground_at(const oak_terrain *terrain, double x, double z) {
    float h = 0;
    if (terrain && oak_terrain_height(terrain, x, z, &h, NULL) != OAK_OK) h = 0;
    return h;
}

/* The n splashes at time t: splash j lives in cycles of SPLASH_LIFE from a
   hashed offset; each cycle lands it at a new hashed place in the box
   round the eye (wrapped in world metres, as the drops are), on the
   ground, its crown's scale rising and falling as sin(pi f) over the life. */
static void write_splashes(weather_sys *s, uint32_t n, const float eye[3], double t) {
    oak_instance *rec = s->records;
    const oak_terrain *terrain = _oak_terrain_of(s->scene);
    const uint32_t salt = 0x5900u;
    for (uint32_t j = 0; j < n; j++) {
        double u = t / SPLASH_LIFE + _oak_world_hash01(j, salt);
        double cycle = floor(u);
        float f = (float)(u - cycle);
        uint32_t c = (uint32_t)fmod(cycle, 4294967296.0);
        uint32_t key = _oak_world_hash_u32(j * 0x9E3779B9u ^ c);
        oak_instance *r = &rec[j];
        r->position[0] =
            wrap(_oak_world_hash01(key, salt + 1) * 4096.0, eye[0] - RAIN_HALF, 2.0 * RAIN_HALF);
        r->position[2] =
            wrap(_oak_world_hash01(key, salt + 2) * 4096.0, eye[2] - RAIN_HALF, 2.0 * RAIN_HALF);
        r->position[1] = ground_at(terrain, r->position[0], r->position[2]);
        r->scale = sinf(3.14159265f * f);
        float yaw = _oak_world_hash01(key, salt + 3) * 3.14159265f;
        r->rotation[0] = r->rotation[2] = 0;
        r->rotation[1] = sinf(yaw), r->rotation[3] = cosf(yaw);
        r->color[0] = r->color[1] = r->color[2] = 1.0f;
        r->phase = f;
    }
    oak_stream_write(s->stream[3], 0, rec, n);
    oak_stream_set_count(s->stream[3], n);
    s->count[3] = n;
}

static float resolved(float v, float dflt) {
    return v > 0 ? v : dflt;
}

/* The sun's strength for drying and melting, [0, 1]: the key light's
   height (full from 30 degrees up, none at or below the horizon) times the
   weather's dimming of it; none at night (a scene with a time of day whose
   key light is the moon: no sun disc) or without a key light. */
static float sun_strength(oak_scene *scene, oak_entity key, float weather_sun) {
    if (!key.id) return 0;
    const oak_time_of_day *tod = oak_scene_time_of_day(scene);
    if (tod->set && !(oak_scene_environment(scene)->sun_disc > 0)) return 0;
    mat4 m;
    oak_scene_update_transforms(scene);
    oak_scene_world_matrix(scene, key, m);
    /* a light shines along its -z: the sun lies along +z */
    float len = sqrtf(m[2][0] * m[2][0] + m[2][1] * m[2][1] + m[2][2] * m[2][2]);
    float up = len > 0 ? m[2][1] / len / SUN_FULL_SIN : 0;
    up = up < 0 ? 0 : up > 1 ? 1 : up;
    float w = weather_sun < 0 ? 0 : weather_sun > 1 ? 1 : weather_sun;
    return up * w;
}

/* The surfaces' memory over dt seconds toward the targets the weights give
   (added wetness wet_to and snow snow_to): a wetness below its target
   rises at wet_to / WET_RISE a second, one above it falls toward it with
   the half-life the sun and wind give (exactly, whatever the step); snow
   builds at snow_to / SNOW_BUILD a second and melts, above its target, by
   the sun over SNOW_MELT_FROM and by rain. */
static void remember(weather_sys *s, double dt, float wet_to, float snow_to, float sun, float wind,
                     float rain) {
    float k = 1.0f / DRY_DARK + sun * (1.0f / DRY_SUN - 1.0f / DRY_DARK) + wind / DRY_WIND;
    s->half_life = 1.0f / k;
    s->sun_strength = sun;
    if (!(dt > 0)) return;
    if (s->wet < wet_to) {
        s->wet = fminf(wet_to, s->wet + (float)(wet_to / WET_RISE * dt));
    } else if (s->wet > wet_to) {
        float excess = (s->wet - wet_to) * (float)exp2(-dt * k);
        s->wet = excess < DRY_SNAP ? wet_to : wet_to + excess;
    }
    if (s->snow < snow_to) {
        s->snow = fminf(snow_to, s->snow + (float)(snow_to / SNOW_BUILD * dt));
    } else if (s->snow > snow_to) {
        float melt = fmaxf(0, sun - SNOW_MELT_FROM) / (1 - SNOW_MELT_FROM) / SNOW_MELT +
                     rain / SNOW_MELT_RAIN;
        s->snow = fmaxf(snow_to, s->snow - (float)(melt * dt));
        if (s->snow - snow_to < DRY_SNAP) s->snow = snow_to;
    }
}

/* The scene's values with the weights w on top, at time t, dt seconds on
   from the last update (jump: the surfaces' memory at its targets at once). */
static oak_result apply(weather_sys *s, double t, double dt, bool jump) {
    oak_scene *scene = s->scene;
    oak_environment *env = oak_scene_environment(scene);
    oak_weather *kept = oak_scene_weather(scene);
    /* the scene's own values: taken again wherever something else wrote
       since (the hour moved the sun, a tool set the fog) */
    for (size_t i = 0; i < SLOTS; i++) {
        float *cur = (float *)((char *)env + k_slots[i]);
        float *base = (float *)((char *)&kept->base + k_slots[i]);
        if (!kept->has_base || memcmp(cur, &s->applied[i], sizeof(float))) *base = *cur;
    }
    oak_entity key = key_light(scene);
    oak_light *kl = key.id ? oak_scene_get(scene, key, OAK_COMPONENT_LIGHT) : NULL;
    if (kl && (!kept->has_base || key.id != kept->key.id ||
               memcmp(&kl->intensity, &s->key_applied, sizeof(float))))
        kept->key_base = kl->intensity;
    kept->key = key;
    kept->has_base = true;

    const float *b = (const float *)&kept->base;
    float v[SLOTS];
    for (size_t i = 0; i < SLOTS; i++) v[i] = *(const float *)((const char *)b + k_slots[i]);
    const oak_environment *be = &kept->base;
    float sun = 1, sky = 0, sigma = 0, dexp = 0, cover = 0, cdens = 0, ctype = 0, wet = 0, snow = 0,
          grey = 0;
    float alb[3] = {0, 0, 0}, disp[3] = {0, 0, 0};
    bool fogged = false, typed = false;
    float base_alb[3], lum = _oak_luminance(be->fog_display);
    for (int c = 0; c < 3; c++)
        base_alb[c] = be->fog.albedo[0] > 0 || be->fog.albedo[1] > 0 || be->fog.albedo[2] > 0
                          ? be->fog.albedo[c]
                          : (float)OAK_FOG_ALBEDO;
    float ctype0 = resolved(be->clouds.type, (float)OAK_CLOUD_TYPE), cvary = 0;
    float cvary0 = fminf(1, fmaxf(0, be->clouds.variation));
    uint32_t counts[3] = {0, 0, 0};
    float cnt[3] = {0, 0, 0};
    for (uint32_t k = 0; k < KINDS; k++) {
        float w = s->w[k];
        if (!(w > 0)) continue;
        const kind_row *r = &k_kinds[k];
        sun -= w * (1 - r->sun);
        sky -= w * (1 - r->sky);
        if (r->visibility > 0) {
            fogged = true;
            sigma += w * 3.0f / r->visibility;      /* exp(-sigma V) = 5% */
            dexp += w * 1.7320508f / r->visibility; /* exp(-(d V)^2) = 5% */
            float al = _oak_luminance(r->fog_albedo);
            for (int c = 0; c < 3; c++) {
                alb[c] += w * (r->fog_albedo[c] - base_alb[c]);
                disp[c] += w * (lum * r->fog_albedo[c] / al - be->fog_display[c]);
            }
        }
        cover += w * fmaxf(0, r->coverage - be->clouds.coverage);
        cdens += w * (r->cloud_density - 1);
        if (r->cloud_type >= 0) {
            typed = true;
            ctype += w * (r->cloud_type - ctype0);
            cvary += w * (r->cloud_vary - cvary0);
        }
        wet += w * fmaxf(0, r->wetness - be->wetness);
        snow += w * fmaxf(0, r->snow - be->snow);
        grey += w * fmaxf(0, r->grey - be->sky_grey);
        cnt[0] += w * (float)r->rain, cnt[1] += w * (float)r->flakes, cnt[2] += w * (float)r->motes;
    }
    /* storm's lightning lifts the sky, its light and the clouds' glow (their
       ambient is the sky's) for a few frames */
    s->flash = lightning(t, s->w[OAK_WEATHER_STORM]);
    if (fogged) {
        if (be->fog.density > 0 || be->fog.volume_count > 0) {
            v[S_FOG] = be->fog.density + sigma;
            for (int c = 0; c < 3; c++) v[S_ALB + c] = fminf(1, fmaxf(0, base_alb[c] + alb[c]));
        } else {
            v[S_EXP2] = sqrtf(be->fog_density * be->fog_density + dexp * dexp);
        }
        for (int c = 0; c < 3; c++)
            v[S_DISP + c] = fminf(1, fmaxf(0, be->fog_display[c] + disp[c]));
    }
    if (cover > 0) v[S_COVER] = be->clouds.coverage + cover;
    if (cdens != 0)
        v[S_CDENS] = resolved(be->clouds.density, (float)OAK_CLOUD_EXTINCTION) * (1 + cdens);
    if (typed) {
        v[S_CTYPE] = fminf(1, fmaxf(0.001f, ctype0 + ctype));
        /* a storm's cells tall among lower ones, overcast one flat deck */
        v[S_CVARY] = fminf(1, fmaxf(0, cvary0 + cvary));
    }
    if (sky != 0 || s->flash > 0)
        v[S_SKY] =
            resolved(be->sky_light, 1.0f) * fmaxf(0.02f, 1 + sky) * (1 + FLASH_SKY * s->flash);
    /* wetness and snow remember: they move toward what the weights give */
    float rain_w = s->w[OAK_WEATHER_RAIN] + s->w[OAK_WEATHER_STORM];
    float wind = STORM_WIND * s->w[OAK_WEATHER_STORM] + DUST_SPEED * s->w[OAK_WEATHER_DUST];
    if (jump) s->wet = wet, s->snow = snow;
    remember(s, jump ? 0 : dt, wet, snow, sun_strength(scene, key, sun), wind, rain_w);
    /* never more than full where the scene's own rose since */
    s->wet = fminf(s->wet, fmaxf(0, 1 - be->wetness));
    s->snow = fminf(s->snow, fmaxf(0, 1 - be->snow));
    if (s->wet > 0) v[S_WET] = be->wetness + s->wet;
    if (s->snow > 0) v[S_SNOW] = be->snow + s->snow;
    kept->has_surfaces = true;
    kept->wetness = s->wet, kept->snow = s->snow;
    if (grey > 0) v[S_GREY] = be->sky_grey + grey;
    /* the puddles' ripples: rain and storm at their weights, on a clock that
       wraps where a float still holds a period's fraction */
    float rain = rain_w;
    if (rain > 0) {
        v[S_RAIN] = fminf(1, be->rain + rain);
        v[S_RTIME] = (float)fmod(t, OAK_RIPPLE_WRAP);
    }
    /* the air's light (aerial perspective) is the key light's: under the
       weather's cloud it is dimmed as the key light is */
    if (sun < 1) v[S_AERIAL] = be->aerial_lux * fmaxf(0.0f, sun);
    for (size_t i = 0; i < SLOTS; i++) {
        memcpy((char *)env + k_slots[i], &v[i], sizeof(float));
        s->applied[i] = v[i];
    }
    if (kl) {
        kl->intensity = sun < 1 ? kept->key_base * fmaxf(0.0f, sun) : kept->key_base;
        s->key_applied = kl->intensity;
    }

    /* the streams, made the first time any is wanted */
    /* the quality preset scales every stream (the splashes follow the rain) */
    oak_preset preset = oak_scene_post(scene)->preset;
    s->count_scale = (unsigned)preset < OAK_PRESET_COUNT ? k_preset_scale[preset] : 1.0f;
    for (int i = 0; i < 3; i++) cnt[i] *= s->count_scale;
    for (int i = 0; i < 3; i++) counts[i] = (uint32_t)lroundf(cnt[i]);
    bool want = counts[0] || counts[1] || counts[2]; /* splashes come with the rain */
    if (want && !s->records) {
        oak_result r = make_streams(s);
        if (r) return r;
    }
    if (!s->records) return OAK_OK;
    float eye[3] = {0, 0, 0};
    oak_entity cam = oak_scene_active_camera(scene);
    if (cam.id) {
        mat4 m;
        oak_scene_update_transforms(scene); /* the eye as it is now, not as last drawn */
        oak_scene_world_matrix(scene, cam, m);
        eye[0] = m[3][0], eye[1] = m[3][1], eye[2] = m[3][2];
    }
    float total = s->w[OAK_WEATHER_RAIN] + s->w[OAK_WEATHER_STORM];
    float storm_share = total > 0 ? s->w[OAK_WEATHER_STORM] / total : 0;
    for (int i = 0; i < 3; i++) {
        uint32_t n = counts[i] < s->capacity[i] ? counts[i] : s->capacity[i];
        if (n || s->count[i]) write_stream(s, i, n, eye, t, storm_share);
    }
    uint32_t ns = splashes_of(cnt[0]);
    ns = ns < s->capacity[3] ? ns : s->capacity[3];
    if (ns || s->count[3]) write_splashes(s, ns, eye, t);
    return OAK_OK;
}

static oak_result update(weather_sys *s, double seconds, bool jump) {
    /* the memory's step: the time since the last update (none for the
       first, or when the clock went back; a set at once is no update) */
    double dt = s->clocked && seconds > s->now ? seconds - s->now : 0;
    if (!jump) s->clocked = true;
    s->now = seconds;
    if (!s->started) s->t0 = seconds, s->started = true;
    float f = s->duration > 0 ? (float)((seconds - s->t0) / s->duration) : 1.0f;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    for (uint32_t k = 0; k < KINDS; k++) s->w[k] = s->from[k] + (s->to[k] - s->from[k]) * f;
    if (f >= 1) memcpy(s->w, s->to, sizeof s->w); /* exactly the target */
    return apply(s, seconds, dt, jump);
}

oak_result oak_world_set_weather(oak_scene *scene, oak_weather_kind kind, float amount,
                                 float transition_seconds) {
    if (!scene)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_set_weather: scene is NULL");
    if ((unsigned)kind >= KINDS || !(amount >= 0 && amount <= 1) ||
        !(transition_seconds >= 0 && transition_seconds <= 1e6f))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_world_set_weather: kind %d (0 .. %d), amount %g ([0, 1]) or "
                         "transition %g s ([0, 1e6]) out of range",
                         (int)kind, KINDS - 1, (double)amount, (double)transition_seconds);
    weather_sys *s = sys_of(scene);
    if (!s) {
        s = oak_calloc(1, sizeof *s);
        if (!s) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "weather: no memory");
        s->scene = scene;
        oak_result r = oak_scene_attach(scene, s, destroy_sys);
        if (r) {
            oak_free(s);
            return r;
        }
    }
    memcpy(s->from, s->w, sizeof s->from);
    memset(s->to, 0, sizeof s->to);
    s->to[kind] = amount;
    s->duration = transition_seconds;
    oak_weather *kept = oak_scene_weather(scene);
    kept->set = true;
    kept->kind = kind;
    kept->amount = amount;
    if (transition_seconds > 0) {
        s->started = false; /* the blend starts at the next update's time */
        return OAK_OK;
    }
    s->started = true;
    s->t0 = s->now;
    return update(s, s->now, true);
}

oak_result oak_world_apply_weather(oak_scene *scene) {
    if (!scene)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_apply_weather: scene is NULL");
    const oak_weather *w = oak_scene_weather(scene);
    if (!w->set) return OAK_OK;
    /* the surfaces' memory as the file (or the running weather) had it */
    bool had = w->has_surfaces;
    float wet = w->wetness, snow = w->snow;
    oak_result r = oak_world_set_weather(scene, w->kind, w->amount, 0);
    if (r || !had) return r;
    weather_sys *s = sys_of(scene);
    s->wet = wet, s->snow = snow;
    return apply(s, s->now, 0, false);
}

oak_result oak_world_update_weather(oak_scene *scene, float seconds) {
    if (!scene)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_update_weather: scene is NULL");
    if (!isfinite(seconds))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_world_update_weather: time is not finite");
    weather_sys *s = sys_of(scene);
    return s ? update(s, seconds, false) : OAK_OK;
}

oak_result oak_world_weather_stats(oak_scene *scene, oak_weather_stats *out) {
    if (!scene || !out)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_world_weather_stats: NULL");
    memset(out, 0, sizeof *out);
    weather_sys *s = sys_of(scene);
    if (!s) return OAK_OK;
    memcpy(out->weights, s->w, sizeof out->weights);
    out->flash = s->flash;
    out->rain = s->count[0], out->flakes = s->count[1], out->motes = s->count[2];
    out->splashes = s->count[3];
    out->fall_speed = RAIN_SPEED;
    out->splash_life = SPLASH_LIFE;
    out->count_scale = s->count_scale;
    out->wetness = s->wet, out->snow = s->snow;
    out->dry_half_life = s->half_life;
    out->sun = s->sun_strength;
    out->box_half[0] = RAIN_HALF, out->box_half[1] = 0.5f * (RAIN_BELOW + RAIN_ABOVE);
    out->box_half[2] = RAIN_HALF;
    return OAK_OK;
}

oak_stream *oak_world_weather_stream(oak_scene *scene, uint32_t which) {
    weather_sys *s = scene ? sys_of(scene) : NULL;
    return s && which < STREAMS ? s->stream[which] : NULL;
}

float oak_weather_lightning(double seconds, float storm) {
    return lightning(seconds, storm);
}
