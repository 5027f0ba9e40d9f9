/* Writing scene files: a small JSON writer (floats in the fewest digits that
 * read back to the same bits, fixed key order, short arrays on one line) and the
 * walk that writes the environment, post, meshes, materials and entities.
 * Meshes and materials are numbered in the order entities first use them, so
 * loading a file and saving it again gives the same bytes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene_file.h"

#define MAX_DEPTH 16

typedef struct writer {
    char *buf;
    size_t len, cap;
    int depth;
    bool first[MAX_DEPTH];
    const char *scene_path;
    oak_result error; /* the first failure; later writes are skipped */
} writer;

static void put(writer *w, const char *fmt, ...) OAK_PRINTF(2, 3);
static void put(writer *w, const char *fmt, ...) {
    if (w->error) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(w->buf ? w->buf + w->len : NULL, w->buf ? w->cap - w->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            w->error = oak_error(OAK_ERROR_INVALID_ARGUMENT, "scene save: format failed");
            return;
        }
        if (w->buf && (size_t)n < w->cap - w->len) {
            w->len += (size_t)n;
            return;
        }
        size_t cap = w->cap ? w->cap * 2 : 4096;
        while (cap < w->len + (size_t)n + 1) cap *= 2;
        char *b = oak_realloc(w->buf, cap);
        if (!b) {
            w->error = oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene save: out of memory");
            return;
        }
        w->buf = b;
        w->cap = cap;
    }
}

static void indent(writer *w) {
    put(w, "\n%*s", w->depth * 2, "");
}

/* Starts a member (key != NULL) or an array item. */
static void item(writer *w, const char *key) {
    if (!w->first[w->depth]) put(w, ",");
    w->first[w->depth] = false;
    indent(w);
    if (key) put(w, "\"%s\": ", key);
}

static void open_block(writer *w, const char *key, char bracket) {
    item(w, key);
    put(w, "%c", bracket);
    if (w->depth + 1 >= MAX_DEPTH) {
        w->error = oak_error(OAK_ERROR_LIMIT, "scene save: nesting too deep");
        return;
    }
    w->first[++w->depth] = true;
}

static void close_block(writer *w, char bracket) {
    bool empty = w->first[w->depth];
    w->depth--;
    if (!empty) indent(w);
    put(w, "%c", bracket);
}

/* The shortest "%.*g" that reads back to the same float (9 digits always
 * does), so 0.1f is written 0.1, 10 as 10, and files stay hand-editable. */
static void put_float(writer *w, const char *key, float v) {
    if (!isfinite(v) && !w->error)
        w->error = oak_error(OAK_ERROR_INVALID_ARGUMENT,
                             "scene save: %s: %s is not a finite number", w->scene_path, key);
    char text[32], best[32] = "";
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtof(text, NULL) == v && (!*best || strlen(text) < strlen(best)))
            memcpy(best, text, sizeof text);
    }
    put(w, "%s", best);
}

static void w_float(writer *w, const char *key, float v) {
    item(w, key);
    put_float(w, key, v);
}

static void w_floats(writer *w, const char *key, const float *v, int n) {
    item(w, key);
    put(w, "[");
    for (int i = 0; i < n; i++) {
        if (i) put(w, ", ");
        put_float(w, key, v[i]);
    }
    put(w, "]");
}

/* a double in the fewest digits that read back to it (finite, checked by the caller) */
static void w_double(writer *w, const char *key, double v) {
    item(w, key);
    char text[40] = "";
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v) break;
    }
    put(w, "%s", text);
}

static void w_int(writer *w, const char *key, long long v) {
    item(w, key);
    put(w, "%lld", v);
}

static void w_bool(writer *w, const char *key, bool v) {
    item(w, key);
    put(w, "%s", v ? "true" : "false");
}

static void w_string(writer *w, const char *key, const char *s) {
    item(w, key);
    put(w, "\"");
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            put(w, "\\%c", *p);
        else if (*p < 0x20)
            put(w, "\\u%04x", *p);
        else
            put(w, "%c", *p);
    }
    put(w, "\"");
}

/* Values outside the list are written as "default", which loads as 0. */
static void w_enum(writer *w, const char *key, const char *const *names, uint32_t v) {
    uint32_t count = 0;
    while (names[count]) count++;
    w_string(w, key, v < count ? names[v] : "default");
}

/* ---- the parts of a scene ------------------------------------------------- */

static void write_environment(writer *w, const oak_environment *e, bool timed) {
    open_block(w, "environment", '{');
    w_floats(w, "sky_zenith_display", e->sky_zenith_display, 3);
    w_floats(w, "sky_horizon_display", e->sky_horizon_display, 3);
    w_floats(w, "ambient_sky", e->ambient_sky, 3);
    w_floats(w, "ambient_ground", e->ambient_ground, 3);
    w_floats(w, "fog_display", e->fog_display, 3);
    w_float(w, "fog_density", e->fog_density);
    /* a scene with a time of day gets its disc from the hour */
    if (e->sun_disc > 0 && !timed) w_float(w, "sun_disc", e->sun_disc);
    /* a scene with a time of day has its sky baked for the hour, not a file */
    const oak_texture_data *sky = e->sky_image.id && !timed ? oak_texture_get(e->sky_image) : NULL;
    if (sky && sky->name && *sky->name) {
        char rel[4096];
        if (!_oak_scene_relative_path(rel, sizeof rel, w->scene_path, sky->name) && !w->error)
            w->error =
                oak_error(OAK_ERROR_LIMIT, "scene save: %s: environment.sky_image: path too long",
                          w->scene_path);
        w_string(w, "sky_image", rel);
    }
    /* weather on surfaces and the sky's scale only when set */
    if (e->wetness > 0) w_float(w, "wetness", e->wetness);
    if (e->snow > 0) w_float(w, "snow", e->snow);
    if (e->sky_light > 0) w_float(w, "sky_light", e->sky_light);
    if (e->sky_grey > 0) w_float(w, "sky_grey", e->sky_grey);
    if (e->rain > 0) w_float(w, "rain", e->rain); /* its clock starts again at 0 */
    /* aerial perspective set by hand; a timed scene's comes from the hour */
    if (e->aerial_lux > 0 && !timed) {
        w_float(w, "aerial_lux", e->aerial_lux);
        w_floats(w, "aerial_dir", e->aerial_dir, 3);
    }
    /* clouds only when there are any */
    const oak_clouds *c = &e->clouds;
    if (c->coverage > 0) {
        open_block(w, "clouds", '{');
        w_float(w, "coverage", c->coverage);
        w_float(w, "type", c->type);
        w_float(w, "density", c->density);
        w_float(w, "base", c->base);
        w_float(w, "top", c->top);
        w_floats(w, "wind", c->wind, 2);
        w_float(w, "time", c->time);
        if (c->variation > 0) w_float(w, "variation", c->variation);
        close_block(w, '}');
    }
    /* volumetric fog only when it is on (a density or a volume) */
    const oak_fog *f = &e->fog;
    uint32_t nv = f->volume_count < OAK_FOG_VOLUMES ? f->volume_count : OAK_FOG_VOLUMES;
    if (f->density > 0 || nv > 0) {
        static const char *const shapes[] = {"none", "box", "ellipsoid", NULL};
        open_block(w, "fog", '{');
        w_float(w, "density", f->density);
        w_float(w, "base_height", f->base_height);
        w_float(w, "falloff", f->falloff);
        w_floats(w, "albedo", f->albedo, 3);
        w_float(w, "anisotropy", f->anisotropy);
        w_float(w, "far", f->far);
        if (nv) {
            open_block(w, "volumes", '[');
            for (uint32_t i = 0; i < nv; i++) {
                const oak_fog_volume *vol = &f->volumes[i];
                open_block(w, NULL, '{');
                w_enum(w, "shape", shapes, (uint32_t)vol->shape);
                w_floats(w, "center", vol->center, 3);
                w_floats(w, "half_size", vol->half_size, 3);
                w_float(w, "density", vol->density);
                w_floats(w, "albedo", vol->albedo, 3);
                close_block(w, '}');
            }
            close_block(w, ']');
        }
        close_block(w, '}');
    }
    close_block(w, '}');
}

/* written only when set, so files without one stay as they were */
static void write_weather(writer *w, const oak_weather *we) {
    static const char *const names[] = {"clear", "cloudy", "overcast", "rain",
                                        "storm", "snow",   "dust",     NULL};
    if (!we->set || (unsigned)we->kind >= OAK_WEATHER_COUNT) return;
    open_block(w, "weather", '{');
    w_enum(w, "kind", names, (uint32_t)we->kind);
    w_float(w, "amount", we->amount);
    if (we->has_surfaces) { /* the surfaces' memory: what the weather adds now */
        w_float(w, "wetness", we->wetness);
        w_float(w, "snow", we->snow);
    }
    close_block(w, '}');
}

/* The environment without the weather's changes: the scene's own values the
   world's weather keeps (so loading applies the weather once). */
static oak_environment unweathered(const oak_scene *scene) {
    oak_environment e = scene->environment;
    const oak_weather *we = &scene->weather;
    if (!we->has_base) return e;
    const oak_environment *b = &we->base;
    e.fog_density = b->fog_density;
    e.fog.density = b->fog.density;
    memcpy(e.fog.albedo, b->fog.albedo, sizeof e.fog.albedo);
    memcpy(e.fog_display, b->fog_display, sizeof e.fog_display);
    e.clouds.coverage = b->clouds.coverage;
    e.clouds.density = b->clouds.density;
    e.clouds.type = b->clouds.type;
    e.clouds.variation = b->clouds.variation;
    e.sky_light = b->sky_light;
    e.wetness = b->wetness;
    e.snow = b->snow;
    e.sky_grey = b->sky_grey;
    e.rain = b->rain;
    e.rain_time = b->rain_time;
    e.aerial_lux = b->aerial_lux;
    return e;
}

static void write_time(writer *w, const oak_time_of_day *t) {
    if (!t->set) return;
    open_block(w, "time", '{');
    w_float(w, "hour", t->hour);
    w_float(w, "latitude", t->latitude);
    w_float(w, "longitude", t->longitude);
    w_float(w, "utc_offset", t->utc_offset);
    w_int(w, "day_of_year", t->day_of_year);
    w_int(w, "year", t->year);
    close_block(w, '}');
}

static void write_post(writer *w, const oak_post *p) {
    open_block(w, "post", '{');
    w_float(w, "exposure", p->exposure);
    if (p->ev100_set) w_float(w, "ev100", p->ev100);
    w_float(w, "aperture", p->aperture);
    w_float(w, "shutter", p->shutter);
    w_float(w, "iso", p->iso);
    w_float(w, "exposure_comp", p->exposure_comp);
    w_enum(w, "tone", _oak_tone_names, (uint32_t)p->tone);
    w_bool(w, "no_tonemap", p->no_tonemap);
    w_bool(w, "no_dither", p->no_dither);
    w_bool(w, "no_fxaa", p->no_fxaa);
    if (p->adapt) w_bool(w, "adapt", true); /* left out when off, as files before it */
    /* bloom left out at its defaults, as files before it */
    if (p->bloom) w_enum(w, "bloom", _oak_bloom_names, (uint32_t)p->bloom);
    if (p->bloom_strength > 0) w_float(w, "bloom_strength", p->bloom_strength);
    if (p->focus_distance > 0) w_float(w, "focus_distance", p->focus_distance);
    /* taa written only when set (oak_taa_mode: bloom's three words) */
    if (p->taa) w_enum(w, "taa", _oak_bloom_names, (uint32_t)p->taa);
    if (p->taa_sharpen > 0) w_float(w, "taa_sharpen", p->taa_sharpen); /* 0: off, left out */
    /* the preset and the shadow filter likewise, only when set */
    if (p->preset && (unsigned)p->preset < OAK_PRESET_COUNT)
        w_enum(w, "preset", _oak_preset_names, (uint32_t)p->preset);
    if (p->shadow_filter) w_int(w, "shadow_filter", p->shadow_filter);
    if (p->render_scale > 0 && p->render_scale < 1) w_float(w, "render_scale", p->render_scale);
    close_block(w, '}');
}

static void write_mesh(writer *w, oak_mesh mesh, uint32_t index) {
    const oak_mesh_data *md = oak_mesh_get(mesh);
    open_block(w, NULL, '{');
    if (!md) {
        if (!w->error)
            w->error =
                oak_error(OAK_ERROR_NOT_FOUND, "scene save: %s: meshes[%u]: mesh %#x is gone",
                          w->scene_path, index, mesh.id);
    } else if (md->has_recipe) {
        const oak_shape_desc *r = &md->recipe;
        open_block(w, "shape", '{');
        w_enum(w, "type", _oak_shape_names, r->type);
        w_floats(w, "size", r->size, 3);
        w_float(w, "radius", r->radius);
        w_float(w, "height", r->height);
        w_int(w, "segments", r->segments);
        w_int(w, "rings", r->rings);
        w_float(w, "uv_scale", r->uv_scale);
        w_int(w, "seed", r->seed);
        w_int(w, "octaves", r->octaves);
        w_float(w, "frequency", r->frequency);
        w_float(w, "amplitude", r->amplitude);
        w_float(w, "lacunarity", r->lacunarity);
        w_float(w, "gain", r->gain);
        close_block(w, '}');
    } else if (md->source_path && *md->source_path) {
        char rel[4096];
        if (!_oak_scene_relative_path(rel, sizeof rel, w->scene_path, md->source_path) && !w->error)
            w->error = oak_error(OAK_ERROR_LIMIT, "scene save: %s: meshes[%u]: path too long: %s",
                                 w->scene_path, index, md->source_path);
        w_string(w, "source", rel);
        w_int(w, "index", md->source_index);
    } else if (!w->error) {
        w->error = oak_error(OAK_ERROR_UNSUPPORTED,
                             "scene save: %s: meshes[%u] ('%s') has neither a recipe nor a source "
                             "file",
                             w->scene_path, index, md->name ? md->name : "");
    }
    close_block(w, '}');
}

static void write_texture_ref(writer *w, const char *key, const oak_texture_ref *t,
                              uint32_t material) {
    if (!t->texture.id) return;
    const oak_texture_data *td = oak_texture_get(t->texture);
    if (!td || !td->name || !*td->name) {
        if (!w->error)
            w->error = oak_error(OAK_ERROR_UNSUPPORTED,
                                 "scene save: %s: materials[%u].%s: texture %#x has no path",
                                 w->scene_path, material, key, t->texture.id);
        return;
    }
    char rel[4096];
    if (!_oak_scene_relative_path(rel, sizeof rel, w->scene_path, td->name) && !w->error)
        w->error = oak_error(OAK_ERROR_LIMIT, "scene save: %s: materials[%u].%s: path too long",
                             w->scene_path, material, key);
    open_block(w, key, '{');
    w_string(w, "path", rel);
    w_enum(w, "format", _oak_format_names, td->format);
    open_block(w, "sampler", '{');
    w_enum(w, "wrap_u", _oak_wrap_names, t->sampler.wrap_u);
    w_enum(w, "wrap_v", _oak_wrap_names, t->sampler.wrap_v);
    w_enum(w, "mag", _oak_filter_names, t->sampler.mag);
    w_enum(w, "min", _oak_filter_names, t->sampler.min);
    w_enum(w, "mip", _oak_filter_names, t->sampler.mip);
    close_block(w, '}');
    w_int(w, "uv_set", t->uv_set);
    w_floats(w, "offset", t->offset, 2);
    w_float(w, "rotation", t->rotation);
    w_floats(w, "scale", t->scale, 2);
    close_block(w, '}');
}

static void write_material(writer *w, oak_material m, uint32_t index) {
    const oak_material_data *md = oak_material_get(m);
    open_block(w, NULL, '{');
    if (!md) {
        if (!w->error)
            w->error = oak_error(OAK_ERROR_NOT_FOUND,
                                 "scene save: %s: materials[%u]: material %#x is gone",
                                 w->scene_path, index, m.id);
        close_block(w, '}');
        return;
    }
    const oak_material_desc *d = &md->desc;
    w_string(w, "name", md->name);
    w_floats(w, "base_color", d->base_color, 4);
    w_float(w, "metallic", d->metallic);
    w_float(w, "roughness", d->roughness);
    w_floats(w, "emissive", d->emissive, 3);
    w_float(w, "emissive_strength", d->emissive_strength);
    w_float(w, "normal_scale", d->normal_scale);
    w_float(w, "occlusion_strength", d->occlusion_strength);
    w_enum(w, "alpha_mode", _oak_alpha_names, d->alpha_mode);
    w_float(w, "alpha_cutoff", d->alpha_cutoff);
    w_bool(w, "double_sided", d->double_sided);
    w_bool(w, "unlit", d->unlit);
    if (d->additive) w_bool(w, "additive", true);              /* written only when set */
    if (d->softness != 0) w_float(w, "softness", d->softness); /* as additive */
    write_texture_ref(w, "base_color_tex", &d->base_color_tex, index);
    write_texture_ref(w, "metallic_roughness_tex", &d->metallic_roughness_tex, index);
    write_texture_ref(w, "normal_tex", &d->normal_tex, index);
    write_texture_ref(w, "occlusion_tex", &d->occlusion_tex, index);
    write_texture_ref(w, "emissive_tex", &d->emissive_tex, index);
    const oak_material_fx *x = &d->fx;
    if (x->triplanar > 0 || x->breakup > 0 || x->variation > 0 || x->detail > 0) {
        open_block(w, "fx", '{'); /* only when a trick is on: other files stay as they were */
        w_float(w, "triplanar", x->triplanar);
        w_float(w, "triplanar_sharpness", x->triplanar_sharpness);
        w_float(w, "breakup", x->breakup);
        w_float(w, "breakup_rotation", x->breakup_rotation);
        w_float(w, "variation", x->variation);
        w_float(w, "variation_scale", x->variation_scale);
        w_float(w, "detail", x->detail);
        w_float(w, "detail_distance", x->detail_distance);
        close_block(w, '}');
    }
    const oak_material_lobes *lb = &d->lobes;
    bool textured = false;
    for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++) textured |= lb->tex[k].texture.id != 0;
    bool lobed = lb->ior != 0 || lb->specular || lb->clearcoat > 0 || lb->sheen_color[0] > 0 ||
                 lb->sheen_color[1] > 0 || lb->sheen_color[2] > 0 || lb->anisotropy > 0 ||
                 lb->iridescence > 0 || lb->diffuse_transmission > 0 || lb->transmission > 0 ||
                 lb->thickness > 0 || lb->dispersion > 0 || textured;
    if (lobed) { /* only when a lobe is on, as fx: other files stay as they were */
        open_block(w, "lobes", '{');
        w_float(w, "ior", lb->ior);
        w_bool(w, "specular", lb->specular);
        w_float(w, "specular_factor", lb->specular_factor);
        w_floats(w, "specular_color", lb->specular_color, 3);
        w_float(w, "clearcoat", lb->clearcoat);
        w_float(w, "clearcoat_roughness", lb->clearcoat_roughness);
        w_float(w, "clearcoat_normal_scale", lb->clearcoat_normal_scale);
        w_floats(w, "sheen_color", lb->sheen_color, 3);
        w_float(w, "sheen_roughness", lb->sheen_roughness);
        w_float(w, "anisotropy", lb->anisotropy);
        w_float(w, "anisotropy_rotation", lb->anisotropy_rotation);
        w_float(w, "iridescence", lb->iridescence);
        w_float(w, "iridescence_ior", lb->iridescence_ior);
        w_float(w, "iridescence_thickness", lb->iridescence_thickness);
        w_float(w, "diffuse_transmission", lb->diffuse_transmission);
        w_floats(w, "diffuse_transmission_color", lb->diffuse_transmission_color, 3);
        w_float(w, "iridescence_thickness_min", lb->iridescence_thickness_min);
        w_float(w, "transmission", lb->transmission);
        w_float(w, "thickness", lb->thickness);
        w_floats(w, "attenuation_color", lb->attenuation_color, 3);
        w_float(w, "attenuation_distance", lb->attenuation_distance);
        w_float(w, "dispersion", lb->dispersion);
        if (textured) {
            open_block(w, "textures", '{');
            for (int k = 0; k < OAK_LOBE_TEX_COUNT; k++)
                write_texture_ref(w, _oak_lobe_tex_names[k], &lb->tex[k], index);
            close_block(w, '}');
        }
        close_block(w, '}');
    }
    close_block(w, '}');
}

/* Numbers handles in first-use order. */
typedef struct numbering {
    oak_map map;
    uint32_t *ids;
    uint32_t count, capacity;
} numbering;

static long long number_of(numbering *n, uint32_t id, oak_result *err) {
    if (!id) return -1;
    uint32_t v;
    if (oak_map_get(&n->map, id, &v)) return v;
    if (!OAK_GROW(n->ids, n->capacity, n->count + 1) || oak_map_set(&n->map, id, n->count)) {
        if (!*err) *err = oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene save: out of memory");
        return -1;
    }
    n->ids[n->count] = id;
    return n->count++;
}

static void write_keys(writer *w, const char *key, const oak_particle_key *k, uint32_t n) {
    if (!n) return; /* none: the default (white / 1 over the life) */
    open_block(w, key, '[');
    for (uint32_t i = 0; i < n; i++) {
        open_block(w, NULL, '{');
        w_float(w, "t", k[i].t);
        w_floats(w, "value", k[i].value, 4);
        close_block(w, '}');
    }
    close_block(w, ']');
}

/* The scene's particle emitters (docs/SCENE_FILES.md): each desc's fields,
   its material by number (-1: the emitter's own white one). */
static void write_particles(writer *w, const oak_scene *s, numbering *materials) {
    if (!s->emitter_count) return;
    open_block(w, "particles", '{');
    w_double(w, "time", s->particle_time);
    open_block(w, "emitters", '[');
    for (uint32_t i = 0; i < s->emitter_count; i++) {
        const oak_emitter_desc *d = &s->emitters[i];
        open_block(w, NULL, '{');
        w_int(w, "capacity", d->capacity);
        w_int(w, "seed", d->seed);
        w_floats(w, "position", d->position, 3);
        w_floats(w, "direction", d->direction, 3);
        w_float(w, "cone_degrees", d->cone_degrees);
        w_float(w, "rate", d->rate);
        bool bursts = false;
        for (int b = 0; b < OAK_PARTICLE_BURSTS; b++) bursts |= d->bursts[b].count != 0;
        if (bursts) {
            open_block(w, "bursts", '[');
            for (int b = 0; b < OAK_PARTICLE_BURSTS; b++) {
                if (!d->bursts[b].count) continue;
                open_block(w, NULL, '{');
                w_float(w, "at", d->bursts[b].at);
                w_float(w, "every", d->bursts[b].every);
                w_int(w, "count", d->bursts[b].count);
                close_block(w, '}');
            }
            close_block(w, ']');
        }
        w_floats(w, "speed", d->speed, 2);
        w_floats(w, "life", d->life, 2);
        w_floats(w, "size", d->size, 2);
        w_floats(w, "spin", d->spin, 2);
        w_floats(w, "gravity", d->gravity, 3);
        w_float(w, "drag", d->drag);
        write_keys(w, "color_keys", d->color_keys, d->color_key_count);
        write_keys(w, "size_keys", d->size_keys, d->size_key_count);
        w_int(w, "material", number_of(materials, d->material.id, &w->error));
        float book[2] = {(float)d->flipbook[0], (float)d->flipbook[1]};
        if (d->flipbook[0]) w_floats(w, "flipbook", book, 2);
        w_float(w, "lift", d->lift);
        close_block(w, '}');
    }
    close_block(w, ']');
    close_block(w, '}');
}

static void write_entity(writer *w, const oak_scene *s, uint32_t slot, const uint32_t *file_index,
                         numbering *meshes, numbering *materials) {
    oak_entity e = _oak_scene_entity_at(s, slot);
    const _oak_entity_rec *r = _oak_scene_rec(s, slot);
    open_block(w, NULL, '{');
    w_string(w, "name", r->name);
    w_int(w, "parent", r->parent == _OAK_NO_SLOT ? -1 : (long long)file_index[r->parent]);
    const oak_transform *t = oak_scene_get(s, e, OAK_COMPONENT_TRANSFORM);
    if (t) {
        open_block(w, "transform", '{');
        w_floats(w, "position", t->position, 3);
        w_floats(w, "rotation", t->rotation, 4);
        w_floats(w, "scale", t->scale, 3);
        close_block(w, '}');
    } else {
        item(w, "transform");
        put(w, "null");
    }
    const oak_mesh_renderer *mr = oak_scene_get(s, e, OAK_COMPONENT_MESH_RENDERER);
    if (mr) {
        open_block(w, "mesh_renderer", '{');
        w_int(w, "mesh", number_of(meshes, mr->mesh.id, &w->error));
        w_int(w, "material", number_of(materials, mr->material.id, &w->error));
        w_int(w, "flags", mr->flags);
        close_block(w, '}');
    }
    const oak_camera *c = oak_scene_get(s, e, OAK_COMPONENT_CAMERA);
    if (c) {
        open_block(w, "camera", '{');
        w_float(w, "fov_y", c->fov_y);
        w_float(w, "znear", c->znear);
        w_float(w, "zfar", c->zfar);
        w_float(w, "ortho_height", c->ortho_height);
        w_float(w, "aspect", c->aspect);
        close_block(w, '}');
    }
    const oak_light *l = oak_scene_get(s, e, OAK_COMPONENT_LIGHT);
    if (l) {
        open_block(w, "light", '{');
        w_enum(w, "type", _oak_light_names, l->type);
        w_floats(w, "color", l->color, 3);
        /* the key light's own, not as the weather dimmed it */
        const oak_weather *we = &s->weather;
        bool keyed = we->has_base && we->key.id == e.id;
        w_float(w, "intensity", keyed ? we->key_base : l->intensity);
        w_float(w, "range", l->range);
        w_float(w, "inner_cone", l->inner_cone);
        w_float(w, "outer_cone", l->outer_cone);
        w_bool(w, "cast_shadows", l->cast_shadows);
        close_block(w, '}');
    }
    const oak_scene_probe *pr = oak_scene_get(s, e, OAK_COMPONENT_REFLECTION_PROBE);
    if (pr) {
        /* a file the reader would refuse is not written */
        char why[160];
        if (!_oak_scene_probe_ok(pr, why, sizeof why) && !w->error)
            w->error = oak_error(OAK_ERROR_INVALID_ARGUMENT,
                                 "scene save: %s: entities[%u].reflection_probe: %s", w->scene_path,
                                 file_index[slot], why);
        open_block(w, "reflection_probe", '{');
        w_floats(w, "box_min", pr->box_min, 3);
        w_floats(w, "box_max", pr->box_max, 3);
        w_float(w, "margin", pr->margin);
        close_block(w, '}');
    }
    close_block(w, '}');
}

oak_result oak_scene_save(const oak_scene *scene, const char *path) {
    if (!scene || !path)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_scene_save: no scene or path");
    uint32_t probes = scene->columns[OAK_COMPONENT_REFLECTION_PROBE].count;
    if (probes > OAK_PROBE_MAX) /* the reader would refuse the file */
        return oak_error(OAK_ERROR_LIMIT,
                         "scene save: %s: %u reflection probes, more than OAK_PROBE_MAX (%u)", path,
                         probes, (unsigned)OAK_PROBE_MAX);
    writer w = {0};
    w.scene_path = path;
    w.first[0] = true;
    numbering meshes = {0}, materials = {0};
    /* Entities are written in slot order; parents refer to file positions. */
    uint32_t *file_index = oak_alloc((size_t)(scene->entities.high_water + 1) * sizeof(uint32_t));
    if (!file_index) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "scene save: out of memory");
    uint32_t n = 0;
    for (uint32_t slot = 0; slot < scene->entities.high_water; slot++)
        file_index[slot] = oak_pool_slot_id(&scene->entities, slot) ? n++ : _OAK_NO_SLOT;

    put(&w, "{");
    w.first[++w.depth] = true;
    w_int(&w, "oak_scene", _OAK_SCENE_FILE_VERSION);
    oak_environment env = unweathered(scene);
    write_environment(&w, &env, scene->time_of_day.set);
    write_post(&w, &scene->post);
    write_time(&w, &scene->time_of_day);
    write_weather(&w, &scene->weather);
    /* Number meshes and materials in the order entities use them. */
    for (uint32_t slot = 0; slot < scene->entities.high_water && !w.error; slot++) {
        if (file_index[slot] == _OAK_NO_SLOT) continue;
        const oak_mesh_renderer *mr =
            oak_scene_get(scene, _oak_scene_entity_at(scene, slot), OAK_COMPONENT_MESH_RENDERER);
        if (!mr) continue;
        number_of(&meshes, mr->mesh.id, &w.error);
        number_of(&materials, mr->material.id, &w.error);
    }
    /* then the emitters' materials, after every entity's */
    for (uint32_t i = 0; i < scene->emitter_count; i++)
        number_of(&materials, scene->emitters[i].material.id, &w.error);
    open_block(&w, "meshes", '[');
    for (uint32_t i = 0; i < meshes.count; i++) write_mesh(&w, (oak_mesh){meshes.ids[i]}, i);
    close_block(&w, ']');
    open_block(&w, "materials", '[');
    for (uint32_t i = 0; i < materials.count; i++)
        write_material(&w, (oak_material){materials.ids[i]}, i);
    close_block(&w, ']');
    open_block(&w, "entities", '[');
    for (uint32_t slot = 0; slot < scene->entities.high_water; slot++)
        if (file_index[slot] != _OAK_NO_SLOT)
            write_entity(&w, scene, slot, file_index, &meshes, &materials);
    close_block(&w, ']');
    /* Only an explicit choice is saved, so "first camera" stays a default. */
    long long active = -1;
    uint32_t aslot = _oak_scene_slot(scene, scene->active_camera);
    if (aslot != _OAK_NO_SLOT && oak_scene_get(scene, scene->active_camera, OAK_COMPONENT_CAMERA))
        active = file_index[aslot];
    w_int(&w, "active_camera", active);
    write_particles(&w, scene, &materials);
    close_block(&w, '}');
    put(&w, "\n");

    oak_result r = w.error;
    if (!r) {
        r = oak_write_file(path, w.buf, w.len);
        if (r) r = oak_error(r, "scene save: %s: could not write the file", path);
    }
    oak_free(w.buf);
    oak_free(file_index);
    oak_free(meshes.ids);
    oak_free(materials.ids);
    oak_map_release(&meshes.map);
    oak_map_release(&materials.map);
    return r;
}
