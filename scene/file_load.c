/* Reading scene files: cJSON parses, then every object is checked field by
 * field against what the writer produces. Anything unknown, missing or of the
 * wrong type fails with one line naming the file and the JSON path
 * ("entities[3].transform.position: expected 3 numbers"), and everything the
 * load made so far (scene, meshes, materials) is freed again. */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "scene_file.h"

#define PATH_MAX_LEN 256

typedef struct source_file {
    char *path;
    oak_model model;
    bool *used; /* per model mesh */
} source_file;

typedef struct loader {
    const char *file;
    const char *root; /* the asset root every path must stay in */
    oak_scene *scene;
    oak_mesh *meshes;
    uint32_t mesh_count;
    oak_material *materials;
    uint32_t material_count;
    source_file *sources;
    uint32_t source_count, source_capacity;
    oak_entity *entities;
    uint32_t entity_count;
    uint32_t probe_count; /* reflection probes read so far (<= OAK_PROBE_MAX) */
} loader;

static oak_result fail(loader *l, const char *path, const char *fmt, ...) OAK_PRINTF(3, 4);
static oak_result fail(loader *l, const char *path, const char *fmt, ...) {
    char msg[512], line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(line, sizeof line, "%s: %s: %s", l->file, path, msg);
    /* Keys and values from the file are echoed: keep the message one line. */
    for (char *c = line; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) *c = '?';
    return oak_error(OAK_ERROR_PARSE, "%s", line);
}

/* JSON paths longer than PATH_MAX_LEN are cut short; they only feed messages. */
static void join(char *out, const char *path, const char *key) {
    if (snprintf(out, PATH_MAX_LEN, "%s%s%s", path, *path ? "." : "", key) >= PATH_MAX_LEN)
        out[PATH_MAX_LEN - 1] = 0;
}

static void join_index(char *out, const char *path, const char *key, int i) {
    if (snprintf(out, PATH_MAX_LEN, "%s%s%s[%d]", path, *path && key ? "." : "", key ? key : "",
                 i) >= PATH_MAX_LEN)
        out[PATH_MAX_LEN - 1] = 0;
}

/* ---- typed field readers -------------------------------------------------- */

static oak_result expect_object(loader *l, const cJSON *o, const char *path,
                                const char *const *allowed) {
    if (!cJSON_IsObject(o)) return fail(l, path, "expected an object");
    const cJSON *it;
    cJSON_ArrayForEach(it, o) {
        bool known = false;
        for (const char *const *a = allowed; *a && !known; a++) known = !strcmp(*a, it->string);
        char p[PATH_MAX_LEN];
        join(p, path, it->string);
        if (!known) return fail(l, p, "unknown field");
        /* cJSON keeps duplicates; a second copy would be silently ignored. */
        for (const cJSON *o2 = it->next; o2; o2 = o2->next)
            if (!strcmp(o2->string, it->string)) return fail(l, p, "appears twice");
    }
    return OAK_OK;
}

/* Missing fields keep the default already in *out unless required. */
static const cJSON *field(loader *l, const cJSON *o, const char *path, const char *key,
                          bool required, oak_result *r) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v && required) {
        char p[PATH_MAX_LEN];
        join(p, path, key);
        *r = fail(l, p, "missing");
    }
    return v;
}

/* A JSON number a float holds: 1e308 and 1e999 (infinity to cJSON) do not. */
static bool finite_float(double d) {
    return isfinite(d) && fabs(d) <= FLT_MAX;
}

static oak_result read_floats(loader *l, const cJSON *o, const char *path, const char *key,
                              float *out, int n, bool required) {
    oak_result r = OAK_OK;
    const cJSON *v = field(l, o, path, key, required, &r);
    if (!v) return r;
    char p[PATH_MAX_LEN];
    join(p, path, key);
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != n)
        return fail(l, p, "expected %d numbers", n);
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v) {
        if (!cJSON_IsNumber(it)) return fail(l, p, "expected %d numbers", n);
        if (!finite_float(it->valuedouble))
            return fail(l, p, "[%d] = %g is not a finite float (|x| <= %g)", i, it->valuedouble,
                        (double)FLT_MAX);
        out[i++] = (float)it->valuedouble;
    }
    return OAK_OK;
}

static oak_result read_float(loader *l, const cJSON *o, const char *path, const char *key,
                             float *out) {
    oak_result r = OAK_OK;
    const cJSON *v = field(l, o, path, key, false, &r);
    if (!v) return r;
    if (!cJSON_IsNumber(v) || !finite_float(v->valuedouble)) {
        char p[PATH_MAX_LEN];
        join(p, path, key);
        if (!cJSON_IsNumber(v)) return fail(l, p, "expected a number");
        return fail(l, p, "%g is not a finite float (|x| <= %g)", v->valuedouble, (double)FLT_MAX);
    }
    *out = (float)v->valuedouble;
    return OAK_OK;
}

/* An integer in [lo, hi]. */
static oak_result read_int(loader *l, const cJSON *o, const char *path, const char *key,
                           long long lo, long long hi, bool required, long long *out) {
    oak_result r = OAK_OK;
    const cJSON *v = field(l, o, path, key, required, &r);
    if (!v) return r;
    char p[PATH_MAX_LEN];
    join(p, path, key);
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble))
        return fail(l, p, "expected an integer");
    if (v->valuedouble < (double)lo || v->valuedouble > (double)hi)
        return fail(l, p, "%.17g is out of range [%lld, %lld]", v->valuedouble, lo, hi);
    *out = (long long)v->valuedouble;
    return OAK_OK;
}

static oak_result read_u32(loader *l, const cJSON *o, const char *path, const char *key,
                           uint32_t *out) {
    long long v = *out;
    oak_result r = read_int(l, o, path, key, 0, UINT32_MAX, false, &v);
    *out = (uint32_t)v;
    return r;
}

static oak_result read_bool(loader *l, const cJSON *o, const char *path, const char *key,
                            bool *out) {
    oak_result r = OAK_OK;
    const cJSON *v = field(l, o, path, key, false, &r);
    if (!v) return r;
    if (!cJSON_IsBool(v)) {
        char p[PATH_MAX_LEN];
        join(p, path, key);
        return fail(l, p, "expected true or false");
    }
    *out = cJSON_IsTrue(v);
    return OAK_OK;
}

static oak_result read_string(loader *l, const cJSON *o, const char *path, const char *key,
                              bool required, const char **out) {
    oak_result r = OAK_OK;
    const cJSON *v = field(l, o, path, key, required, &r);
    if (!v) return r;
    if (!cJSON_IsString(v)) {
        char p[PATH_MAX_LEN];
        join(p, path, key);
        return fail(l, p, "expected a string");
    }
    *out = v->valuestring;
    return OAK_OK;
}

static oak_result read_enum(loader *l, const cJSON *o, const char *path, const char *key,
                            const char *const *names, uint32_t *out) {
    const char *s = NULL;
    oak_result r = read_string(l, o, path, key, false, &s);
    if (r || !s) return r;
    for (uint32_t i = 0; names[i]; i++)
        if (!strcmp(names[i], s)) {
            *out = i;
            return OAK_OK;
        }
    char p[PATH_MAX_LEN], list[256] = "";
    join(p, path, key);
    for (uint32_t i = 0; names[i]; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    }
    return fail(l, p, "'%s' is not one of %s", s, list);
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        oak_result r_ = (expr);                                                                    \
        if (r_) return r_;                                                                         \
    } while (0)

/* ---- environment and post -------------------------------------------------- */

/* environment.clouds (docs/SHADING.md "Volumetric clouds"): oak_clouds */
static oak_result read_clouds(loader *l, const cJSON *o, oak_clouds *c) {
    static const char *const keys[] = {"coverage", "type", "density",   "base", "top",
                                       "wind",     "time", "variation", NULL};
    const char *p = "environment.clouds";
    TRY(expect_object(l, o, p, keys));
    TRY(read_float(l, o, p, "coverage", &c->coverage));
    TRY(read_float(l, o, p, "type", &c->type));
    TRY(read_float(l, o, p, "density", &c->density));
    TRY(read_float(l, o, p, "base", &c->base));
    TRY(read_float(l, o, p, "top", &c->top));
    TRY(read_floats(l, o, p, "wind", c->wind, 2, false));
    TRY(read_float(l, o, p, "time", &c->time));
    TRY(read_float(l, o, p, "variation", &c->variation));
    const struct {
        const char *key;
        float v, lo, hi;
    } ranges[] = {{"coverage", c->coverage, 0, 1}, {"type", c->type, 0, 1},
                  {"density", c->density, 0, 10},  {"base", c->base, 0, 20000},
                  {"top", c->top, 0, 30000},       {"variation", c->variation, 0, 1}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (!(ranges[i].v >= ranges[i].lo && ranges[i].v <= ranges[i].hi)) {
            char q[PATH_MAX_LEN];
            join(q, p, ranges[i].key);
            return fail(l, q, "%g is outside %g .. %g", (double)ranges[i].v, (double)ranges[i].lo,
                        (double)ranges[i].hi);
        }
    if (c->top > 0 && c->top <= (c->base > 0 ? c->base : (float)OAK_CLOUD_BASE))
        return fail(l, "environment.clouds.top", "%g is not above the base", (double)c->top);
    return OAK_OK;
}

/* environment.fog (docs/SHADING.md "Volumetric fog"): oak_fog, its volumes an array */
static oak_result read_fog(loader *l, const cJSON *o, oak_fog *f) {
    static const char *const keys[] = {"density",    "base_height", "falloff", "albedo",
                                       "anisotropy", "far",         "volumes", NULL};
    static const char *const vkeys[] = {"shape", "center", "half_size", "density", "albedo", NULL};
    static const char *const shapes[] = {"none", "box", "ellipsoid", NULL};
    const char *p = "environment.fog";
    TRY(expect_object(l, o, p, keys));
    TRY(read_float(l, o, p, "density", &f->density));
    TRY(read_float(l, o, p, "base_height", &f->base_height));
    TRY(read_float(l, o, p, "falloff", &f->falloff));
    TRY(read_floats(l, o, p, "albedo", f->albedo, 3, false));
    TRY(read_float(l, o, p, "anisotropy", &f->anisotropy));
    TRY(read_float(l, o, p, "far", &f->far));
    if (!(f->density >= 0 && f->density <= 10))
        return fail(l, "environment.fog.density", "%g is outside 0 .. 10", (double)f->density);
    if (!(f->falloff >= 0 && f->falloff <= 10))
        return fail(l, "environment.fog.falloff", "%g is outside 0 .. 10", (double)f->falloff);
    if (!(f->anisotropy > -1 && f->anisotropy < 1))
        return fail(l, "environment.fog.anisotropy", "%g is outside (-1, 1)",
                    (double)f->anisotropy);
    if (!(f->far >= 0 && f->far <= 100000))
        return fail(l, "environment.fog.far", "%g is outside 0 .. 100000", (double)f->far);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "volumes");
    if (!arr) return OAK_OK;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > OAK_FOG_VOLUMES)
        return fail(l, "environment.fog.volumes", "expected an array of at most %d",
                    OAK_FOG_VOLUMES);
    const cJSON *it;
    int i = 0;
    cJSON_ArrayForEach(it, arr) {
        char q[PATH_MAX_LEN];
        join_index(q, p, "volumes", i);
        oak_fog_volume *vol = &f->volumes[i++];
        uint32_t shape = OAK_FOG_SHAPE_BOX;
        TRY(expect_object(l, it, q, vkeys));
        TRY(read_enum(l, it, q, "shape", shapes, &shape));
        vol->shape = (oak_fog_shape)shape;
        TRY(read_floats(l, it, q, "center", vol->center, 3, false));
        TRY(read_floats(l, it, q, "half_size", vol->half_size, 3, true));
        TRY(read_float(l, it, q, "density", &vol->density));
        TRY(read_floats(l, it, q, "albedo", vol->albedo, 3, false));
        if (!(vol->half_size[0] > 0 && vol->half_size[1] > 0 && vol->half_size[2] > 0))
            return fail(l, q, "half_size must be above 0 on each axis");
        if (!(vol->density >= 0 && vol->density <= 10))
            return fail(l, q, "density %g is outside 0 .. 10", (double)vol->density);
    }
    f->volume_count = (uint32_t)i;
    return OAK_OK;
}

static oak_result read_environment(loader *l, const cJSON *o, oak_environment *e) {
    static const char *const keys[] = {"sky_zenith_display",
                                       "sky_horizon_display",
                                       "ambient_sky",
                                       "ambient_ground",
                                       "fog_display",
                                       "fog_density",
                                       "sky_image",
                                       "sun_disc",
                                       "clouds",
                                       "fog",
                                       "wetness",
                                       "snow",
                                       "sky_light",
                                       "sky_grey",
                                       "rain",
                                       "aerial_lux",
                                       "aerial_dir",
                                       NULL};
    const char *p = "environment";
    TRY(expect_object(l, o, p, keys));
    /* an equirectangular sky image (an .hdr), relative to the scene file */
    const char *rel = NULL;
    TRY(read_string(l, o, p, "sky_image", false, &rel));
    if (rel) {
        char resolved[4096], why[512];
        if (oak_path_confine(resolved, sizeof resolved, l->root, l->file, rel) ||
            oak_load_texture(&e->sky_image, resolved, OAK_FORMAT_RGBA32F)) {
            snprintf(why, sizeof why, "%s", oak_last_error());
            return fail(l, "environment.sky_image", "could not load '%s' (%s)", rel, why);
        }
    }
    TRY(read_floats(l, o, p, "sky_zenith_display", e->sky_zenith_display, 3, false));
    TRY(read_floats(l, o, p, "sky_horizon_display", e->sky_horizon_display, 3, false));
    TRY(read_floats(l, o, p, "ambient_sky", e->ambient_sky, 3, false));
    TRY(read_floats(l, o, p, "ambient_ground", e->ambient_ground, 3, false));
    TRY(read_floats(l, o, p, "fog_display", e->fog_display, 3, false));
    TRY(read_float(l, o, p, "fog_density", &e->fog_density));
    TRY(read_float(l, o, p, "sun_disc", &e->sun_disc));
    if (e->sun_disc < 0 || e->sun_disc > OAK_SUN_DISC_MAX)
        return fail(l, "environment.sun_disc", "%g is outside 0 .. %g (radians)",
                    (double)e->sun_disc, OAK_SUN_DISC_MAX);
    TRY(read_float(l, o, p, "wetness", &e->wetness));
    TRY(read_float(l, o, p, "snow", &e->snow));
    TRY(read_float(l, o, p, "sky_light", &e->sky_light));
    TRY(read_float(l, o, p, "sky_grey", &e->sky_grey));
    TRY(read_float(l, o, p, "rain", &e->rain));
    if (!(e->rain >= 0 && e->rain <= 1))
        return fail(l, "environment.rain", "%g is outside 0 .. 1", (double)e->rain);
    if (!(e->wetness >= 0 && e->wetness <= 1) || !(e->snow >= 0 && e->snow <= 1) ||
        !(e->sky_grey >= 0 && e->sky_grey <= 1) || !(e->sky_light >= 0 && e->sky_light <= 100))
        return fail(l, "environment",
                    "wetness %g, snow %g, sky_grey %g (0 .. 1) or sky_light %g (0 .. 100) "
                    "out of range",
                    (double)e->wetness, (double)e->snow, (double)e->sky_grey, (double)e->sky_light);
    /* aerial perspective (docs/SHADING.md "Aerial perspective"): a light
       above the atmosphere toward a direction; the time of day, when the
       file has one, sets both again from the hour */
    TRY(read_float(l, o, p, "aerial_lux", &e->aerial_lux));
    TRY(read_floats(l, o, p, "aerial_dir", e->aerial_dir, 3, false));
    if (!(e->aerial_lux >= 0 && e->aerial_lux <= OAK_AERIAL_LUX_MAX))
        return fail(l, "environment.aerial_lux", "%g is outside 0 .. %g (lux)",
                    (double)e->aerial_lux, OAK_AERIAL_LUX_MAX);
    float dl = sqrtf(e->aerial_dir[0] * e->aerial_dir[0] + e->aerial_dir[1] * e->aerial_dir[1] +
                     e->aerial_dir[2] * e->aerial_dir[2]);
    if (e->aerial_lux > 0 && !(fabsf(dl - 1.0f) <= 1e-3f))
        return fail(l, "environment.aerial_dir",
                    "length %g is not 1 (a unit vector toward the light)", (double)dl);
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "clouds");
    if (c) TRY(read_clouds(l, c, &e->clouds));
    const cJSON *fg = cJSON_GetObjectItemCaseSensitive(o, "fog");
    return fg ? read_fog(l, fg, &e->fog) : OAK_OK;
}

/* The weather: a kind and an amount the scene keeps; the world layer
   applies it (oak_world_apply_weather). */
static const char *const k_weather_names[] = {"clear", "cloudy", "overcast", "rain",
                                              "storm", "snow",   "dust",     NULL};
static oak_result read_weather(loader *l, const cJSON *o, oak_weather *w) {
    static const char *const keys[] = {"kind", "amount", "wetness", "snow", NULL};
    const char *p = "weather";
    TRY(expect_object(l, o, p, keys));
    uint32_t kind = 0;
    float amount = 1, wet = 0, snow = 0;
    TRY(read_enum(l, o, p, "kind", k_weather_names, &kind));
    TRY(read_float(l, o, p, "amount", &amount));
    if (!(amount >= 0 && amount <= 1))
        return fail(l, "weather.amount", "%g is out of range [0, 1]", (double)amount);
    /* the surfaces' memory: both or neither (older files: the weather's own) */
    bool has_wet = cJSON_GetObjectItemCaseSensitive(o, "wetness") != NULL;
    bool has_snow = cJSON_GetObjectItemCaseSensitive(o, "snow") != NULL;
    if (has_wet != has_snow)
        return fail(l, has_wet ? "weather.snow" : "weather.wetness",
                    "missing (wetness and snow come together)");
    TRY(read_float(l, o, p, "wetness", &wet));
    TRY(read_float(l, o, p, "snow", &snow));
    if (has_wet && !(wet >= 0 && wet <= 1))
        return fail(l, "weather.wetness", "%g is out of range [0, 1]", (double)wet);
    if (has_snow && !(snow >= 0 && snow <= 1))
        return fail(l, "weather.snow", "%g is out of range [0, 1]", (double)snow);
    w->has_surfaces = has_wet;
    w->wetness = has_wet ? wet : 0;
    w->snow = has_wet ? snow : 0;
    w->set = true;
    w->kind = (oak_weather_kind)kind;
    w->amount = amount;
    return OAK_OK;
}

/* The time of day: plain numbers the scene keeps; the world layer applies
   them (oak_world_apply_time). */
static oak_result read_time(loader *l, const cJSON *o, oak_time_of_day *t) {
    static const char *const keys[] = {"hour",        "latitude", "longitude", "utc_offset",
                                       "day_of_year", "year",     NULL};
    const char *p = "time";
    TRY(expect_object(l, o, p, keys));
    oak_time_of_day v = {0};
    oak_result r = OAK_OK;
    if (!field(l, o, p, "hour", true, &r)) return r;
    TRY(read_float(l, o, p, "hour", &v.hour));
    TRY(read_float(l, o, p, "latitude", &v.latitude));
    TRY(read_float(l, o, p, "longitude", &v.longitude));
    TRY(read_float(l, o, p, "utc_offset", &v.utc_offset));
    const struct {
        const char *key;
        float value, lo, hi;
    } ranges[] = {{"hour", v.hour, 0, 24},
                  {"latitude", v.latitude, -90, 90},
                  {"longitude", v.longitude, -180, 180},
                  {"utc_offset", v.utc_offset, -14, 14}};
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
        if (ranges[i].value < ranges[i].lo || ranges[i].value > ranges[i].hi) {
            char q[PATH_MAX_LEN];
            join(q, p, ranges[i].key);
            return fail(l, q, "%g is out of range [%g, %g]", (double)ranges[i].value,
                        (double)ranges[i].lo, (double)ranges[i].hi);
        }
    }
    long long day = 0, year = 0;
    TRY(read_int(l, o, p, "day_of_year", 0, 366, false, &day));
    TRY(read_int(l, o, p, "year", 0, 9999, false, &year));
    v.day_of_year = (int)day;
    v.year = (int)year;
    v.set = true;
    *t = v;
    return OAK_OK;
}

static oak_result read_post(loader *l, const cJSON *o, oak_post *post) {
    static const char *const keys[] = {
        "exposure",      "ev100",        "aperture",       "shutter",        "iso",
        "exposure_comp", "tone",         "no_tonemap",     "no_dither",      "no_fxaa",
        "adapt",         "bloom",        "bloom_strength", "focus_distance", "taa",
        "taa_sharpen",   "render_scale", "preset",         "shadow_filter",  NULL};
    TRY(expect_object(l, o, "post", keys));
    TRY(read_float(l, o, "post", "exposure", &post->exposure));
    /* the physical camera (docs/SCENE_FILES.md): ev100 present means given */
    if (cJSON_GetObjectItemCaseSensitive(o, "ev100")) {
        TRY(read_float(l, o, "post", "ev100", &post->ev100));
        post->ev100_set = true;
    }
    TRY(read_float(l, o, "post", "aperture", &post->aperture));
    TRY(read_float(l, o, "post", "shutter", &post->shutter));
    TRY(read_float(l, o, "post", "iso", &post->iso));
    TRY(read_float(l, o, "post", "exposure_comp", &post->exposure_comp));
    uint32_t tone = 0;
    TRY(read_enum(l, o, "post", "tone", _oak_tone_names, &tone));
    post->tone = (oak_tone_curve)tone;
    TRY(read_bool(l, o, "post", "no_tonemap", &post->no_tonemap));
    TRY(read_bool(l, o, "post", "no_dither", &post->no_dither));
    TRY(read_bool(l, o, "post", "adapt", &post->adapt));
    uint32_t bloom = 0;
    TRY(read_enum(l, o, "post", "bloom", _oak_bloom_names, &bloom));
    post->bloom = (oak_bloom_mode)bloom;
    TRY(read_float(l, o, "post", "bloom_strength", &post->bloom_strength));
    if (post->bloom_strength < 0 || post->bloom_strength > 1)
        return fail(l, "post.bloom_strength", "%g is outside 0 .. 1", (double)post->bloom_strength);
    TRY(read_float(l, o, "post", "focus_distance", &post->focus_distance));
    if (post->focus_distance < 0)
        return fail(l, "post.focus_distance", "%g is below 0 (metres; 0: no depth of field)",
                    (double)post->focus_distance);
    uint32_t taa = 0; /* oak_taa_mode: the same three words as bloom's */
    TRY(read_enum(l, o, "post", "taa", _oak_bloom_names, &taa));
    post->taa = (oak_taa_mode)taa;
    TRY(read_float(l, o, "post", "taa_sharpen", &post->taa_sharpen));
    if (post->taa_sharpen < 0 || post->taa_sharpen > 1)
        return fail(l, "post.taa_sharpen", "%g is outside 0 .. 1", (double)post->taa_sharpen);
    uint32_t preset = 0; /* oak_preset: fills what is left at its default */
    TRY(read_enum(l, o, "post", "preset", _oak_preset_names, &preset));
    post->preset = (oak_preset)preset;
    long long pcf = 0;
    TRY(read_int(l, o, "post", "shadow_filter", 0, OAK_SHADOW_PCF_SIZE, false, &pcf));
    post->shadow_filter = (uint32_t)pcf;
    /* clamped to [0.25, 1] as the setter does; NaN cannot be JSON, negatives are refused */
    float scale = 0;
    TRY(read_float(l, o, "post", "render_scale", &scale));
    if (scale < 0)
        return fail(l, "post.render_scale", "%g is below 0 (a scale in 0.25 .. 1)", (double)scale);
    if (scale > 0) oak_post_set_render_scale(post, scale, NULL);
    return read_bool(l, o, "post", "no_fxaa", &post->no_fxaa);
}

/* ---- meshes ----------------------------------------------------------------- */

static oak_result read_shape(loader *l, const cJSON *o, const char *path, oak_shape_desc *d) {
    static const char *const keys[] = {"type",      "size",       "radius", "height",  "segments",
                                       "rings",     "uv_scale",   "seed",   "octaves", "frequency",
                                       "amplitude", "lacunarity", "gain",   NULL};
    memset(d, 0, sizeof *d);
    TRY(expect_object(l, o, path, keys));
    uint32_t type = 0;
    TRY(read_enum(l, o, path, "type", _oak_shape_names, &type));
    d->type = (oak_shape)type;
    TRY(read_floats(l, o, path, "size", d->size, 3, false));
    TRY(read_float(l, o, path, "radius", &d->radius));
    TRY(read_float(l, o, path, "height", &d->height));
    TRY(read_u32(l, o, path, "segments", &d->segments));
    TRY(read_u32(l, o, path, "rings", &d->rings));
    TRY(read_float(l, o, path, "uv_scale", &d->uv_scale));
    TRY(read_u32(l, o, path, "seed", &d->seed));
    TRY(read_u32(l, o, path, "octaves", &d->octaves));
    TRY(read_float(l, o, path, "frequency", &d->frequency));
    TRY(read_float(l, o, path, "amplitude", &d->amplitude));
    TRY(read_float(l, o, path, "lacunarity", &d->lacunarity));
    return read_float(l, o, path, "gain", &d->gain);
}

static bool ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

/* One load per source file however many meshes the scene takes from it. */
static oak_result source_mesh(loader *l, const char *path, const char *rel, uint32_t index,
                              oak_mesh *out) {
    char resolved[4096];
    oak_result found = oak_path_confine(resolved, sizeof resolved, l->root, l->file, rel);
    source_file *sf = NULL;
    for (uint32_t i = 0; i < l->source_count && !sf; i++)
        if (!strcmp(l->sources[i].path, resolved)) sf = &l->sources[i];
    if (!sf) {
        char p[PATH_MAX_LEN];
        join(p, path, "source");
        if (!ends_with(rel, ".obj"))
            return fail(l, p, "'%s': only .obj mesh files are supported", rel);
        if (found) {
            char why[512];
            snprintf(why, sizeof why, "%s", oak_last_error());
            return fail(l, p, "could not load '%s' (%s)", rel, why);
        }
        if (!OAK_GROW(l->sources, l->source_capacity, l->source_count + 1))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
        sf = &l->sources[l->source_count];
        memset(sf, 0, sizeof *sf);
        if (oak_load_obj_with(&sf->model, resolved, &(oak_obj_desc){.asset_root = l->root})) {
            char why[512];
            snprintf(why, sizeof why, "%s", oak_last_error());
            return fail(l, p, "could not load '%s' (%s)", rel, why);
        }
        l->source_count++;
        sf->path = oak_strdup(resolved);
        sf->used = oak_calloc(sf->model.mesh_count + 1, sizeof(bool));
        if (!sf->path || !sf->used)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
    }
    if (index >= sf->model.mesh_count) {
        char p[PATH_MAX_LEN];
        join(p, path, "index");
        return fail(l, p, "%u is past the %u meshes of '%s'", index, sf->model.mesh_count, rel);
    }
    sf->used[index] = true;
    *out = sf->model.meshes[index];
    oak_mesh_set_source(*out, resolved, index);
    return OAK_OK;
}

/* Recipes are a few bytes each: the vertices all of them would make are
 * summed before any is made, so 20 big spheres cost nothing to refuse. A
 * recipe that does not read is left to the main pass, which says why. */
static oak_result shape_budget(loader *l, const cJSON *arr) {
    uint64_t total = 0;
    int i = 0;
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) {
        const cJSON *shape = cJSON_IsObject(m) ? cJSON_GetObjectItemCaseSensitive(m, "shape") : 0;
        char p[PATH_MAX_LEN], sp[PATH_MAX_LEN];
        join_index(p, "meshes", NULL, i++);
        join(sp, p, "shape");
        oak_shape_desc d = {0};
        _oak_error_quiet(true);
        oak_result r = shape ? read_shape(l, shape, sp, &d) : OAK_ERROR_PARSE;
        _oak_error_quiet(false);
        uint64_t n = r ? 0 : oak_shape_vertex_bound(&d);
        /* One the shape's own limits refuse is left to them, too. */
        if (n > OAK_MAX_SHAPE_VERTICES || d.segments > OAK_MAX_SHAPE_SEGMENTS ||
            d.rings > OAK_MAX_SHAPE_SEGMENTS)
            continue;
        total += n;
        if (total > OAK_MAX_SCENE_SHAPE_VERTICES) {
            fail(l, sp,
                 "the file's shapes reach %llu vertices; OAK_MAX_SCENE_SHAPE_VERTICES allows %u",
                 (unsigned long long)total, OAK_MAX_SCENE_SHAPE_VERTICES);
            return OAK_ERROR_LIMIT;
        }
    }
    return OAK_OK;
}

static oak_result read_meshes(loader *l, const cJSON *arr) {
    if (!arr) return OAK_OK;
    if (!cJSON_IsArray(arr)) return fail(l, "meshes", "expected an array");
    oak_result budget = shape_budget(l, arr);
    if (budget) return budget;
    uint32_t n = (uint32_t)cJSON_GetArraySize(arr);
    l->meshes = oak_calloc(n + 1, sizeof(oak_mesh));
    if (!l->meshes) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) {
        char p[PATH_MAX_LEN];
        join_index(p, "meshes", NULL, (int)l->mesh_count);
        static const char *const keys[] = {"shape", "source", "index", NULL};
        TRY(expect_object(l, m, p, keys));
        const cJSON *shape = cJSON_GetObjectItemCaseSensitive(m, "shape");
        const cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
        if (!shape == !src) return fail(l, p, "expected either \"shape\" or \"source\"");
        oak_mesh mesh = {0};
        if (shape) {
            char sp[PATH_MAX_LEN];
            join(sp, p, "shape");
            oak_shape_desc d;
            TRY(read_shape(l, shape, sp, &d));
            if (cJSON_GetObjectItemCaseSensitive(m, "index"))
                return fail(l, p, "\"index\" belongs with \"source\"");
            oak_result made = oak_make_shape(&mesh, &d);
            if (made) {
                char why[512];
                snprintf(why, sizeof why, "%s", oak_last_error());
                oak_result r = fail(l, sp, "%s", why);
                return made == OAK_ERROR_LIMIT ? made : r; /* a limit stays a limit */
            }
        } else {
            const char *rel = NULL;
            long long index = 0;
            TRY(read_string(l, m, p, "source", true, &rel));
            TRY(read_int(l, m, p, "index", 0, UINT32_MAX, true, &index));
            TRY(source_mesh(l, p, rel, (uint32_t)index, &mesh));
        }
        l->meshes[l->mesh_count++] = mesh;
    }
    return OAK_OK;
}

/* ---- materials ---------------------------------------------------------------- */

static oak_result read_texture_ref(loader *l, const cJSON *o, const char *path, const char *key,
                                   oak_texture_ref *t) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v) return OAK_OK;
    char p[PATH_MAX_LEN], sp[PATH_MAX_LEN];
    join(p, path, key);
    static const char *const keys[] = {"path",   "format",   "sampler", "uv_set",
                                       "offset", "rotation", "scale",   NULL};
    TRY(expect_object(l, v, p, keys));
    const char *rel = NULL;
    uint32_t format = 0;
    TRY(read_string(l, v, p, "path", true, &rel));
    TRY(read_enum(l, v, p, "format", _oak_format_names, &format));
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(v, "sampler");
    if (s) {
        static const char *const skeys[] = {"wrap_u", "wrap_v", "mag", "min", "mip", NULL};
        join(sp, p, "sampler");
        TRY(expect_object(l, s, sp, skeys));
        uint32_t e[5] = {0};
        TRY(read_enum(l, s, sp, "wrap_u", _oak_wrap_names, &e[0]));
        TRY(read_enum(l, s, sp, "wrap_v", _oak_wrap_names, &e[1]));
        TRY(read_enum(l, s, sp, "mag", _oak_filter_names, &e[2]));
        TRY(read_enum(l, s, sp, "min", _oak_filter_names, &e[3]));
        TRY(read_enum(l, s, sp, "mip", _oak_filter_names, &e[4]));
        t->sampler = (oak_sampler){(oak_wrap)e[0], (oak_wrap)e[1], (oak_filter)e[2],
                                   (oak_filter)e[3], (oak_filter)e[4]};
    }
    long long uv = 0;
    TRY(read_int(l, v, p, "uv_set", 0, OAK_MAX_UV_SETS - 1, false, &uv));
    t->uv_set = (uint32_t)uv;
    TRY(read_floats(l, v, p, "offset", t->offset, 2, false));
    TRY(read_float(l, v, p, "rotation", &t->rotation));
    TRY(read_floats(l, v, p, "scale", t->scale, 2, false));
    char resolved[4096], why[512];
    if (oak_path_confine(resolved, sizeof resolved, l->root, l->file, rel)) {
        snprintf(why, sizeof why, "%s", oak_last_error());
        join(sp, p, "path");
        return fail(l, sp, "could not load '%s' (%s)", rel, why);
    }
    if (oak_load_texture(&t->texture, resolved, (oak_format)format)) {
        join(sp, p, "path");
        snprintf(why, sizeof why, "%s", oak_last_error());
        return fail(l, sp, "could not load '%s' (%s)", rel, why);
    }
    return OAK_OK;
}

/* "fx": the material tricks (oak_material_fx), each key optional */
static oak_result read_material_fx(loader *l, const cJSON *o, const char *path,
                                   oak_material_fx *x) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "fx");
    if (!v) return OAK_OK;
    char p[PATH_MAX_LEN];
    join(p, path, "fx");
    static const char *const keys[] = {"triplanar",        "triplanar_sharpness", "breakup",
                                       "breakup_rotation", "variation",           "variation_scale",
                                       "detail",           "detail_distance",     NULL};
    TRY(expect_object(l, v, p, keys));
    float *f[] = {&x->triplanar, &x->triplanar_sharpness, &x->breakup, &x->breakup_rotation,
                  &x->variation, &x->variation_scale,     &x->detail,  &x->detail_distance};
    for (int i = 0; keys[i]; i++) TRY(read_float(l, v, p, keys[i], f[i]));
    return OAK_OK;
}

/* The material's lobes (desc.lobes, docs/SHADING.md "Lobes"), when given. */
static oak_result read_material_lobes(loader *l, const cJSON *o, const char *path,
                                      oak_material_lobes *x) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "lobes");
    if (!v) return OAK_OK;
    char p[PATH_MAX_LEN];
    join(p, path, "lobes");
    static const char *const keys[] = {"ior",
                                       "specular",
                                       "specular_factor",
                                       "specular_color",
                                       "clearcoat",
                                       "clearcoat_roughness",
                                       "clearcoat_normal_scale",
                                       "sheen_color",
                                       "sheen_roughness",
                                       "anisotropy",
                                       "anisotropy_rotation",
                                       "iridescence",
                                       "iridescence_ior",
                                       "iridescence_thickness",
                                       "iridescence_thickness_min",
                                       "diffuse_transmission",
                                       "diffuse_transmission_color",
                                       "transmission",
                                       "thickness",
                                       "attenuation_color",
                                       "attenuation_distance",
                                       "dispersion",
                                       "textures",
                                       NULL};
    TRY(expect_object(l, v, p, keys));
    TRY(read_float(l, v, p, "ior", &x->ior));
    TRY(read_bool(l, v, p, "specular", &x->specular));
    TRY(read_float(l, v, p, "specular_factor", &x->specular_factor));
    TRY(read_floats(l, v, p, "specular_color", x->specular_color, 3, false));
    TRY(read_float(l, v, p, "clearcoat", &x->clearcoat));
    TRY(read_float(l, v, p, "clearcoat_roughness", &x->clearcoat_roughness));
    TRY(read_float(l, v, p, "clearcoat_normal_scale", &x->clearcoat_normal_scale));
    TRY(read_floats(l, v, p, "sheen_color", x->sheen_color, 3, false));
    TRY(read_float(l, v, p, "sheen_roughness", &x->sheen_roughness));
    TRY(read_float(l, v, p, "anisotropy", &x->anisotropy));
    TRY(read_float(l, v, p, "anisotropy_rotation", &x->anisotropy_rotation));
    TRY(read_float(l, v, p, "iridescence", &x->iridescence));
    TRY(read_float(l, v, p, "iridescence_ior", &x->iridescence_ior));
    TRY(read_float(l, v, p, "iridescence_thickness", &x->iridescence_thickness));
    TRY(read_float(l, v, p, "diffuse_transmission", &x->diffuse_transmission));
    TRY(read_floats(l, v, p, "diffuse_transmission_color", x->diffuse_transmission_color, 3,
                    false));
    TRY(read_float(l, v, p, "iridescence_thickness_min", &x->iridescence_thickness_min));
    TRY(read_float(l, v, p, "transmission", &x->transmission));
    TRY(read_float(l, v, p, "thickness", &x->thickness));
    TRY(read_floats(l, v, p, "attenuation_color", x->attenuation_color, 3, false));
    TRY(read_float(l, v, p, "attenuation_distance", &x->attenuation_distance));
    TRY(read_float(l, v, p, "dispersion", &x->dispersion));
    /* "textures": each lobe texture by its oak_lobe_tex name, as the five maps */
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(v, "textures");
    if (t) {
        char tp[PATH_MAX_LEN];
        join(tp, p, "textures");
        TRY(expect_object(l, t, tp, _oak_lobe_tex_names));
        for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++)
            TRY(read_texture_ref(l, t, tp, _oak_lobe_tex_names[k], &x->tex[k]));
    }
    return OAK_OK;
}

static oak_result read_materials(loader *l, const cJSON *arr) {
    if (!arr) return OAK_OK;
    if (!cJSON_IsArray(arr)) return fail(l, "materials", "expected an array");
    uint32_t n = (uint32_t)cJSON_GetArraySize(arr);
    l->materials = oak_calloc(n + 1, sizeof(oak_material));
    if (!l->materials) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
    static const char *const keys[] = {
        "name",           "base_color",
        "metallic",       "roughness",
        "emissive",       "emissive_strength",
        "normal_scale",   "occlusion_strength",
        "alpha_mode",     "alpha_cutoff",
        "double_sided",   "unlit",
        "base_color_tex", "metallic_roughness_tex",
        "normal_tex",     "occlusion_tex",
        "emissive_tex",   "fx",
        "lobes",          "additive",
        "softness",       NULL,
    };
    const cJSON *m;
    cJSON_ArrayForEach(m, arr) {
        char p[PATH_MAX_LEN];
        join_index(p, "materials", NULL, (int)l->material_count);
        TRY(expect_object(l, m, p, keys));
        oak_material_desc d = oak_material_desc_defaults(NULL);
        const char *name = NULL;
        uint32_t alpha = d.alpha_mode;
        TRY(read_string(l, m, p, "name", false, &name));
        TRY(read_floats(l, m, p, "base_color", d.base_color, 4, false));
        TRY(read_float(l, m, p, "metallic", &d.metallic));
        TRY(read_float(l, m, p, "roughness", &d.roughness));
        TRY(read_floats(l, m, p, "emissive", d.emissive, 3, false));
        TRY(read_float(l, m, p, "emissive_strength", &d.emissive_strength));
        TRY(read_float(l, m, p, "normal_scale", &d.normal_scale));
        TRY(read_float(l, m, p, "occlusion_strength", &d.occlusion_strength));
        TRY(read_enum(l, m, p, "alpha_mode", _oak_alpha_names, &alpha));
        d.alpha_mode = (oak_alpha_mode)alpha;
        TRY(read_float(l, m, p, "alpha_cutoff", &d.alpha_cutoff));
        TRY(read_bool(l, m, p, "double_sided", &d.double_sided));
        TRY(read_bool(l, m, p, "unlit", &d.unlit));
        TRY(read_bool(l, m, p, "additive", &d.additive));
        TRY(read_float(l, m, p, "softness", &d.softness));
        TRY(read_texture_ref(l, m, p, "base_color_tex", &d.base_color_tex));
        TRY(read_texture_ref(l, m, p, "metallic_roughness_tex", &d.metallic_roughness_tex));
        TRY(read_texture_ref(l, m, p, "normal_tex", &d.normal_tex));
        TRY(read_texture_ref(l, m, p, "occlusion_tex", &d.occlusion_tex));
        TRY(read_texture_ref(l, m, p, "emissive_tex", &d.emissive_tex));
        TRY(read_material_fx(l, m, p, &d.fx));
        TRY(read_material_lobes(l, m, p, &d.lobes));
        d.name = name && *name ? name : NULL;
        oak_material mat;
        if (oak_make_material(&mat, &d)) {
            char why[512];
            snprintf(why, sizeof why, "%s", oak_last_error());
            return fail(l, p, "%s", why);
        }
        l->materials[l->material_count++] = mat;
    }
    return OAK_OK;
}

/* ---- entities --------------------------------------------------------------- */

static oak_result read_entity(loader *l, const cJSON *o, const char *p, oak_entity e) {
    static const char *const keys[] = {"name",   "parent", "transform",        "mesh_renderer",
                                       "camera", "light",  "reflection_probe", NULL};
    TRY(expect_object(l, o, p, keys));
    const char *name = NULL;
    TRY(read_string(l, o, p, "name", false, &name));
    if (name && *name && oak_scene_set_name(l->scene, e, name))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
    char cp[PATH_MAX_LEN];
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "transform");
    if (cJSON_IsNull(t)) {
        oak_scene_remove(l->scene, e, OAK_COMPONENT_TRANSFORM);
    } else if (t) {
        static const char *const tkeys[] = {"position", "rotation", "scale", NULL};
        join(cp, p, "transform");
        TRY(expect_object(l, t, cp, tkeys));
        oak_transform tr = oak_transform_identity();
        TRY(read_floats(l, t, cp, "position", tr.position, 3, false));
        TRY(read_floats(l, t, cp, "rotation", tr.rotation, 4, false));
        TRY(read_floats(l, t, cp, "scale", tr.scale, 3, false));
        oak_scene_set_transform(l->scene, e, &tr);
    }
    const cJSON *mr = cJSON_GetObjectItemCaseSensitive(o, "mesh_renderer");
    if (mr) {
        static const char *const mkeys[] = {"mesh", "material", "flags", NULL};
        join(cp, p, "mesh_renderer");
        TRY(expect_object(l, mr, cp, mkeys));
        long long mesh = -1, mat = -1;
        oak_mesh_renderer c = {0};
        TRY(read_int(l, mr, cp, "mesh", -1, (long long)l->mesh_count - 1, true, &mesh));
        TRY(read_int(l, mr, cp, "material", -1, (long long)l->material_count - 1, true, &mat));
        TRY(read_u32(l, mr, cp, "flags", &c.flags));
        if (mesh >= 0) c.mesh = l->meshes[mesh];
        if (mat >= 0) c.material = l->materials[mat];
        oak_scene_set_mesh_renderer(l->scene, e, &c);
    }
    const cJSON *cam = cJSON_GetObjectItemCaseSensitive(o, "camera");
    if (cam) {
        static const char *const ckeys[] = {"fov_y",        "znear",  "zfar",
                                            "ortho_height", "aspect", NULL};
        join(cp, p, "camera");
        TRY(expect_object(l, cam, cp, ckeys));
        oak_camera c = {0};
        TRY(read_float(l, cam, cp, "fov_y", &c.fov_y));
        TRY(read_float(l, cam, cp, "znear", &c.znear));
        TRY(read_float(l, cam, cp, "zfar", &c.zfar));
        TRY(read_float(l, cam, cp, "ortho_height", &c.ortho_height));
        TRY(read_float(l, cam, cp, "aspect", &c.aspect));
        oak_scene_set_camera(l->scene, e, &c);
    }
    const cJSON *li = cJSON_GetObjectItemCaseSensitive(o, "light");
    if (li) {
        static const char *const lkeys[] = {"type",       "color",      "intensity",    "range",
                                            "inner_cone", "outer_cone", "cast_shadows", NULL};
        join(cp, p, "light");
        TRY(expect_object(l, li, cp, lkeys));
        uint32_t type = 0;
        TRY(read_enum(l, li, cp, "type", _oak_light_names, &type));
        oak_light c = oak_light_defaults((oak_light_type)type);
        c.type = (oak_light_type)type;
        TRY(read_floats(l, li, cp, "color", c.color, 3, false));
        TRY(read_float(l, li, cp, "intensity", &c.intensity));
        TRY(read_float(l, li, cp, "range", &c.range));
        TRY(read_float(l, li, cp, "inner_cone", &c.inner_cone));
        TRY(read_float(l, li, cp, "outer_cone", &c.outer_cone));
        TRY(read_bool(l, li, cp, "cast_shadows", &c.cast_shadows));
        oak_scene_set_light(l->scene, e, &c);
    }
    const cJSON *pr = cJSON_GetObjectItemCaseSensitive(o, "reflection_probe");
    if (pr) {
        static const char *const pkeys[] = {"box_min", "box_max", "margin", NULL};
        join(cp, p, "reflection_probe");
        TRY(expect_object(l, pr, cp, pkeys));
        if (l->probe_count == OAK_PROBE_MAX)
            return fail(l, cp, "more than OAK_PROBE_MAX (%u) reflection probes",
                        (unsigned)OAK_PROBE_MAX);
        oak_scene_probe c = {0};
        TRY(read_floats(l, pr, cp, "box_min", c.box_min, 3, true));
        TRY(read_floats(l, pr, cp, "box_max", c.box_max, 3, true));
        TRY(read_float(l, pr, cp, "margin", &c.margin));
        /* the rules the gather applies, so a file that loads also draws */
        char why[160];
        if (!_oak_scene_probe_ok(&c, why, sizeof why)) return fail(l, cp, "%s", why);
        oak_scene_set_probe(l->scene, e, &c);
        l->probe_count++;
    }
    return OAK_OK;
}

static oak_result read_entities(loader *l, const cJSON *arr) {
    if (!arr) return OAK_OK;
    if (!cJSON_IsArray(arr)) return fail(l, "entities", "expected an array");
    uint32_t n = (uint32_t)cJSON_GetArraySize(arr);
    l->entities = oak_calloc(n + 1, sizeof(oak_entity));
    if (!l->entities) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
    /* All entities exist before any parent link, so parents may come later. */
    for (uint32_t i = 0; i < n; i++) {
        l->entities[i] = oak_scene_create(l->scene, NULL);
        if (!l->entities[i].id)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
    }
    l->entity_count = n;
    /* Cycles in near-linear time: a union-find of the trees linked so far.
       Linking i (still a root) under p closes a cycle iff p's tree is i's. */
    uint32_t *tree = oak_alloc(sizeof(uint32_t) * ((size_t)n + 1));
    if (!tree) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "%s: out of memory", l->file);
    for (uint32_t k = 0; k < n; k++) tree[k] = k;
    oak_result r = OAK_OK;
    const cJSON *o;
    uint32_t i = 0;
    cJSON_ArrayForEach(o, arr) {
        char p[PATH_MAX_LEN];
        join_index(p, "entities", NULL, (int)i);
        if ((r = read_entity(l, o, p, l->entities[i]))) break;
        long long parent = -1;
        if ((r = read_int(l, o, p, "parent", -1, (long long)n - 1, false, &parent))) break;
        if (parent >= 0) {
            uint32_t root = (uint32_t)parent;
            while (tree[root] != root) root = tree[root] = tree[tree[root]]; /* path halving */
            if (root == i) {
                char pp[PATH_MAX_LEN];
                join(pp, p, "parent");
                r = fail(l, pp, "entity %lld would make a cycle", parent);
                break;
            }
            tree[i] = root;
            oak_entity self = l->entities[i];
            _oak_scene_link(l->scene, oak_handle_index(self.id),
                            oak_handle_index(l->entities[parent].id));
        }
        i++;
    }
    oak_free(tree);
    return r;
}

/* ---- particle emitters ------------------------------------------------------ */

static oak_result read_keys(loader *l, const cJSON *o, const char *path, const char *key,
                            oak_particle_key *keys, uint32_t *count) {
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!arr) return OAK_OK;
    char p[PATH_MAX_LEN];
    join(p, path, key);
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > OAK_PARTICLE_KEYS)
        return fail(l, p, "expected an array of at most %d keys", OAK_PARTICLE_KEYS);
    static const char *const kkeys[] = {"t", "value", NULL};
    uint32_t n = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char kp[PATH_MAX_LEN];
        join_index(kp, path, key, (int)n);
        TRY(expect_object(l, it, kp, kkeys));
        oak_result r = OAK_OK;
        if (!field(l, it, kp, "t", true, &r)) return r;
        TRY(read_float(l, it, kp, "t", &keys[n].t));
        TRY(read_floats(l, it, kp, "value", keys[n].value, 4, true));
        n++;
    }
    *count = n;
    return OAK_OK;
}

static oak_result read_emitter(loader *l, const cJSON *o, const char *p, oak_emitter_desc *d) {
    static const char *const keys[] = {"capacity",     "seed",       "position",  "direction",
                                       "cone_degrees", "rate",       "bursts",    "speed",
                                       "life",         "size",       "spin",      "gravity",
                                       "drag",         "color_keys", "size_keys", "material",
                                       "flipbook",     "lift",       NULL};
    TRY(expect_object(l, o, p, keys));
    long long v = 0;
    TRY(read_int(l, o, p, "capacity", 0, OAK_PARTICLE_MAX, false, &v));
    d->capacity = (uint32_t)v;
    TRY(read_u32(l, o, p, "seed", &d->seed));
    TRY(read_floats(l, o, p, "position", d->position, 3, false));
    TRY(read_floats(l, o, p, "direction", d->direction, 3, false));
    TRY(read_float(l, o, p, "cone_degrees", &d->cone_degrees));
    TRY(read_float(l, o, p, "rate", &d->rate));
    const cJSON *bursts = cJSON_GetObjectItemCaseSensitive(o, "bursts");
    if (bursts) {
        char bp[PATH_MAX_LEN];
        join(bp, p, "bursts");
        if (!cJSON_IsArray(bursts) || cJSON_GetArraySize(bursts) > OAK_PARTICLE_BURSTS)
            return fail(l, bp, "expected an array of at most %d bursts", OAK_PARTICLE_BURSTS);
        static const char *const bkeys[] = {"at", "every", "count", NULL};
        int b = 0;
        const cJSON *it;
        cJSON_ArrayForEach(it, bursts) {
            char ip[PATH_MAX_LEN];
            join_index(ip, p, "bursts", b);
            TRY(expect_object(l, it, ip, bkeys));
            TRY(read_float(l, it, ip, "at", &d->bursts[b].at));
            TRY(read_float(l, it, ip, "every", &d->bursts[b].every));
            long long c = 0;
            TRY(read_int(l, it, ip, "count", 1, OAK_PARTICLE_MAX, true, &c));
            d->bursts[b++].count = (uint32_t)c;
        }
    }
    TRY(read_floats(l, o, p, "speed", d->speed, 2, false));
    TRY(read_floats(l, o, p, "life", d->life, 2, false));
    TRY(read_floats(l, o, p, "size", d->size, 2, false));
    TRY(read_floats(l, o, p, "spin", d->spin, 2, false));
    TRY(read_floats(l, o, p, "gravity", d->gravity, 3, false));
    TRY(read_float(l, o, p, "drag", &d->drag));
    TRY(read_keys(l, o, p, "color_keys", d->color_keys, &d->color_key_count));
    TRY(read_keys(l, o, p, "size_keys", d->size_keys, &d->size_key_count));
    long long mat = -1;
    TRY(read_int(l, o, p, "material", -1, (long long)l->material_count - 1, false, &mat));
    d->material = mat >= 0 ? l->materials[mat] : (oak_material){0};
    const cJSON *book = cJSON_GetObjectItemCaseSensitive(o, "flipbook");
    if (book) {
        char fp[PATH_MAX_LEN];
        join(fp, p, "flipbook");
        const cJSON *c = cJSON_IsArray(book) && cJSON_GetArraySize(book) == 2 ? book->child : NULL;
        if (!c || !cJSON_IsNumber(c) || !cJSON_IsNumber(c->next) ||
            c->valuedouble != floor(c->valuedouble) ||
            c->next->valuedouble != floor(c->next->valuedouble) || c->valuedouble < 1 ||
            c->next->valuedouble < 1 || c->valuedouble * c->next->valuedouble > OAK_PARTICLE_FRAMES)
            return fail(l, fp, "expected [columns, rows], at least 1 each, at most %d frames",
                        OAK_PARTICLE_FRAMES);
        d->flipbook[0] = (uint32_t)c->valuedouble, d->flipbook[1] = (uint32_t)c->next->valuedouble;
    }
    TRY(read_float(l, o, p, "lift", &d->lift));
    const char *bad = oak_emitter_desc_problem(d);
    if (bad) return fail(l, p, "%s", bad);
    return OAK_OK;
}

/* The emitters the scene keeps and their clock; the world layer runs them
   (oak_world_apply_particles). */
static oak_result read_particles(loader *l, const cJSON *o) {
    static const char *const keys[] = {"time", "emitters", NULL};
    TRY(expect_object(l, o, "particles", keys));
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "time");
    if (t && (!cJSON_IsNumber(t) || !(t->valuedouble >= 0) ||
              !(t->valuedouble <= OAK_PARTICLE_CATCHUP_SECONDS)))
        return fail(l, "particles.time", "expected seconds in [0, %g]",
                    (double)OAK_PARTICLE_CATCHUP_SECONDS);
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "emitters");
    if (!arr) return fail(l, "particles.emitters", "missing");
    if (!cJSON_IsArray(arr)) return fail(l, "particles.emitters", "expected an array");
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr) {
        char p[PATH_MAX_LEN];
        join_index(p, "particles", "emitters", i++);
        oak_emitter_desc d = {0};
        TRY(read_emitter(l, it, p, &d));
        if (oak_scene_add_emitter(l->scene, &d)) return fail(l, p, "%s", oak_last_error());
    }
    oak_scene_set_particle_time(l->scene, t ? t->valuedouble : 0);
    return OAK_OK;
}

/* ---- the file ------------------------------------------------------------------ */

static void *json_alloc(size_t size) {
    return oak_alloc(size);
}
static void json_free(void *p) {
    oak_free(p);
}

static oak_result read_root(loader *l, const cJSON *root) {
    static const char *const keys[] = {"oak_scene", "environment",   "post", "meshes",  "materials",
                                       "entities",  "active_camera", "time", "weather", "particles",
                                       NULL};
    if (!cJSON_IsObject(root)) return fail(l, "(root)", "expected an object");
    long long version = 0;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "oak_scene");
    if (!v) return fail(l, "oak_scene", "missing (not an oak scene file?)");
    if (!cJSON_IsNumber(v)) return fail(l, "oak_scene", "expected an integer");
    TRY(read_int(l, root, "", "oak_scene", 1, 1000000, true, &version));
    if (version != _OAK_SCENE_FILE_VERSION)
        return fail(l, "oak_scene", "version %lld is not supported (this build reads %d)", version,
                    _OAK_SCENE_FILE_VERSION);
    TRY(expect_object(l, root, "", keys));
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(root, "environment");
    if (env) TRY(read_environment(l, env, &l->scene->environment));
    const cJSON *post = cJSON_GetObjectItemCaseSensitive(root, "post");
    if (post) TRY(read_post(l, post, &l->scene->post));
    const cJSON *time = cJSON_GetObjectItemCaseSensitive(root, "time");
    if (time) TRY(read_time(l, time, &l->scene->time_of_day));
    const cJSON *weather = cJSON_GetObjectItemCaseSensitive(root, "weather");
    if (weather) TRY(read_weather(l, weather, &l->scene->weather));
    TRY(read_meshes(l, cJSON_GetObjectItemCaseSensitive(root, "meshes")));
    TRY(read_materials(l, cJSON_GetObjectItemCaseSensitive(root, "materials")));
    TRY(read_entities(l, cJSON_GetObjectItemCaseSensitive(root, "entities")));
    long long active = -1;
    TRY(read_int(l, root, "", "active_camera", -1, (long long)l->entity_count - 1, false, &active));
    if (active >= 0) {
        if (!oak_scene_get(l->scene, l->entities[active], OAK_COMPONENT_CAMERA))
            return fail(l, "active_camera", "entity %lld has no camera", active);
        oak_scene_set_active_camera(l->scene, l->entities[active]);
    }
    const cJSON *particles = cJSON_GetObjectItemCaseSensitive(root, "particles");
    if (particles) TRY(read_particles(l, particles));
    return OAK_OK;
}

/* Line and column of a byte offset, for syntax errors. */
static void locate(const char *text, size_t offset, int *line, int *col) {
    *line = 1, *col = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        if (text[i] == '\n')
            (*line)++, *col = 1;
        else
            (*col)++;
    }
}

oak_result oak_scene_load(oak_scene **out, const char *path) {
    return oak_scene_load_with(out, path, NULL);
}

oak_result oak_scene_load_with(oak_scene **out, const char *path, const oak_scene_load_desc *desc) {
    if (!out || !path) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_load: no path");
    *out = NULL;
    oak_result r = oak_asset_root_check(desc ? desc->asset_root : NULL);
    if (r) return r;
    void *text = NULL;
    size_t size = 0;
    r = oak_read_file(path, &text, &size);
    if (r) return r;
    cJSON_InitHooks(&(cJSON_Hooks){json_alloc, json_free});
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, size, &end, false);
    if (!root) {
        int line, col;
        size_t at = end && end >= (const char *)text ? (size_t)(end - (const char *)text) : 0;
        locate(text, at, &line, &col);
        oak_free(text);
        return oak_error(OAK_ERROR_PARSE, "%s:%d:%d: JSON syntax error", path, line, col);
    }
    /* Only white space may follow the root value. */
    const char *tail = end ? end : (const char *)text + size;
    while (tail < (const char *)text + size && strchr(" \t\r\n", *tail) && *tail) tail++;
    if (tail < (const char *)text + size) {
        int line, col;
        locate(text, (size_t)(tail - (const char *)text), &line, &col);
        cJSON_Delete(root);
        oak_free(text);
        return oak_error(OAK_ERROR_PARSE, "%s:%d:%d: text after the scene's JSON object", path,
                         line, col);
    }
    loader l = {0};
    l.file = path;
    /* The default root is the scene's folder; OBJ files it names get the
       same root, so their textures may sit beside the scene, not the OBJ. */
    char folder[4096];
    const char *slash = strrchr(path, '/');
    if (desc && desc->asset_root)
        snprintf(folder, sizeof folder, "%s", desc->asset_root);
    else if (!slash)
        snprintf(folder, sizeof folder, ".");
    else
        snprintf(folder, sizeof folder, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    l.root = folder;
    r = oak_make_scene(&l.scene);
    if (!r) r = read_root(&l, root);
    /* Meshes of source files the scene did not use go back, as do the
     * files' own materials: the scene file lists the materials it uses. */
    for (uint32_t i = 0; i < l.source_count; i++) {
        source_file *sf = &l.sources[i];
        for (uint32_t m = 0; m < sf->model.mesh_count; m++)
            if (r || !sf->used[m]) oak_destroy_mesh(sf->model.meshes[m]);
        for (uint32_t m = 0; m < sf->model.material_count; m++)
            oak_destroy_material(sf->model.materials[m]);
        oak_model_release(&sf->model);
        oak_free(sf->path);
        oak_free(sf->used);
    }
    if (r) {
        for (uint32_t i = 0; i < l.mesh_count; i++)
            if (oak_mesh_get(l.meshes[i])) oak_destroy_mesh(l.meshes[i]);
        for (uint32_t i = 0; i < l.material_count; i++) oak_destroy_material(l.materials[i]);
        oak_destroy_scene(l.scene);
    } else {
        *out = l.scene;
    }
    oak_free(l.sources);
    oak_free(l.meshes);
    oak_free(l.materials);
    oak_free(l.entities);
    cJSON_Delete(root);
    oak_free(text);
    return r;
}
