/* What every drawing command does before its first frame: start the engine
 * with the command line's log, check the backend name, build the world or
 * load the scene file, make the renderer (saying why auto fell back). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Errors are not printed as they happen: the command prints the last one
   once, as its single line, when it gives up. */
static void cli_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    /* except a validation layer's or GL debug output's finding: it is no
       failure of the command's, and a test wants to see it (cli.cmake) */
    if (level == OAK_LOG_ERROR && strncmp(msg, "vulkan validation:", 18) != 0 &&
        strncmp(msg, "gl: debug error", 15) != 0)
        return;
    fprintf(stderr, "oak: %s%s\n", level == OAK_LOG_WARN ? "warning: " : "", msg);
}

int _oak_cli_start(const cli_options *opts) {
    oak_engine_desc d = {0};
    d.log = cli_log;
    d.log_level = opts->verbose ? OAK_LOG_INFO : OAK_LOG_WARN;
    d.threads = opts->threads;
    if (oak_init(&d) != OAK_OK) return _oak_cli_fail(opts);
    return 0;
}

int _oak_cli_fail(const cli_options *opts) {
    const char *msg = oak_last_error();
    fprintf(stderr, "oak %s: %s\n", opts->command, *msg ? msg : "failed (no message)");
    return CLI_EXIT_FAIL;
}

int _oak_cli_failf(const cli_options *opts, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "oak %s: ", opts->command);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    return CLI_EXIT_FAIL;
}

int _oak_cli_check_backend(const cli_options *opts, const char *backend) {
    if (!strcmp(backend, "auto")) return 0;
    uint32_t n = oak_backend_count();
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(oak_backend_name(i), backend)) return 0;
    char names[256] = "";
    for (uint32_t i = 0; i < n; i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", oak_backend_name(i));
    }
    return _oak_cli_failf(opts, "unknown backend '%s' (compiled in: %s, or auto)", backend, names);
}

static int open_scene(const cli_options *opts, oak_scene **out);

int _oak_cli_open_scene(const cli_options *opts, oak_scene **out) {
    int status = open_scene(opts, out);
    if (status || !opts->sky) return status;
    if (oak_load_texture(&oak_scene_environment(*out)->sky_image, opts->sky, OAK_FORMAT_RGBA32F)) {
        status = _oak_cli_failf(opts, "--sky: %s", oak_last_error());
        oak_destroy_scene(*out);
        *out = NULL;
    }
    return status;
}

oak_result _oak_cli_apply_time(const cli_options *opts, oak_scene *scene) {
    /* the scene file's own hour, then --hour over it; before --ev100, which
       keeps the last word on the camera */
    oak_result r =
        opts->hour_set ? oak_world_set_time(scene, opts->hour) : oak_world_apply_time(scene);
    if (r) return r;
    /* the weather over the hour's light (it keeps the hour's as the base) */
    return opts->weather_set ? oak_world_set_weather(scene, opts->weather, opts->weather_amount, 0)
                             : oak_world_apply_weather(scene);
}

/* A loaded scene file's particle clock at load: its frames step the
   emitters on from there at 60 Hz (_oak_cli_world_tick). */
typedef struct file_clock {
    double base;
} file_clock;

static void free_clock(void *p) {
    oak_free(p);
}

static oak_result start_file_particles(oak_scene *scene) {
    oak_result r = oak_world_apply_particles(scene);
    if (r || !oak_scene_emitter_count(scene)) return r;
    file_clock *c = oak_calloc(1, sizeof *c);
    if (!c) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "particles: out of memory");
    c->base = oak_scene_particle_time(scene);
    if ((r = oak_scene_attach(scene, c, free_clock))) oak_free(c);
    return r;
}

oak_result _oak_cli_world_tick(const cli_options *opts, oak_scene *scene, uint32_t index) {
    if (opts->world) return oak_world_update(scene, opts->world, (float)index / 60.0f);
    const file_clock *c = oak_scene_attachment(scene, free_clock);
    return c ? oak_world_update_particles(scene, (float)(c->base + (double)index / 60.0)) : OAK_OK;
}

/* --lod-scale: the active camera's lod_scale pinned (render/frontend.c
   clamps it as the API says); a scene without a camera draws none */
static void apply_lod_scale(const cli_options *opts, oak_scene *scene) {
    if (!(opts->lod_scale > 0)) return;
    oak_entity e = oak_scene_active_camera(scene);
    const oak_camera *c = e.id ? oak_scene_get(scene, e, OAK_COMPONENT_CAMERA) : NULL;
    if (!c) return;
    oak_camera cam = *c;
    cam.lod_scale = opts->lod_scale;
    oak_scene_set_camera(scene, e, &cam);
}

static int open_scene(const cli_options *opts, oak_scene **out) {
    *out = NULL;
    if (opts->scene) {
        oak_scene_load_desc d = {.asset_root = opts->asset_root};
        /* the world's painted textures a file may name (oak://campfire_flames) */
        if (oak_world_register_painters() != OAK_OK ||
            oak_scene_load_with(out, opts->scene, &d) != OAK_OK)
            return _oak_cli_fail(opts);
        if (start_file_particles(*out)) {
            oak_destroy_scene(*out);
            *out = NULL;
            return _oak_cli_fail(opts);
        }
        if (opts->ao) oak_scene_post(*out)->ao = opts->ao;
        if (_oak_cli_apply_time(opts, *out)) {
            oak_destroy_scene(*out);
            *out = NULL;
            return _oak_cli_fail(opts);
        }
        _oak_cli_apply_camera(opts, oak_scene_post(*out));
        _oak_cli_apply_clouds(opts, oak_scene_environment(*out));
        apply_lod_scale(opts, *out);
        return 0;
    }
    /* check the name first: a typo should not cost a scene */
    bool known = false;
    for (uint32_t i = 0; i < oak_world_count(); i++)
        if (!strcmp(oak_world_name(i), opts->world)) known = true;
    if (!known) {
        char names[256] = "";
        for (uint32_t i = 0; i < oak_world_count(); i++) {
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "", oak_world_name(i));
        }
        return _oak_cli_failf(opts, "unknown world '%s' (worlds: %s)", opts->world, names);
    }
    oak_scene *scene;
    if (oak_make_scene(&scene) != OAK_OK) return _oak_cli_fail(opts);
    /* the GPU backends draw the full meadow (grass to the horizon, about
       1e8 blade-equivalents in view); the cpu backend, and auto, which
       falls back to it, the world's light default (oak_world_options);
       a quality preset sets the plants itself; --plants and --plant-reach
       over all of these; --forest 0: no trees (the
       options' negative), else that many metres of forest with shadows */
    oak_world_options wo = {.preset = opts->preset,
                            .forest_distance = !opts->forest_set  ? 0.0f
                                               : opts->forest > 0 ? opts->forest
                                                                  : -1.0f,
                            .forest_shadows = opts->forest_set,
                            .count = (uint32_t)opts->count,
                            .terrain = opts->terrain,
                            .foot_ik = opts->foot_ik,
                            .plants = opts->plants,
                            .plants_distance = opts->plant_reach,
                            .rocks = opts->rocks};
    if (!opts->preset && !opts->plants && opts->backend &&
        (!strcmp(opts->backend, "vulkan") || !strcmp(opts->backend, "gl")))
        wo.plants = 1;
    if (oak_world_build_with(scene, opts->world, &wo) != OAK_OK) {
        int r = _oak_cli_fail(opts);
        oak_destroy_scene(scene);
        return r;
    }
    if (opts->ao) oak_scene_post(scene)->ao = opts->ao; /* --ao */
    if (_oak_cli_apply_time(opts, scene)) {
        int r = _oak_cli_fail(opts);
        oak_destroy_scene(scene);
        return r;
    }
    _oak_cli_apply_camera(opts, oak_scene_post(scene));
    _oak_cli_apply_clouds(opts, oak_scene_environment(scene));
    apply_lod_scale(opts, scene);
    *out = scene;
    return 0;
}

oak_result _oak_cli_turn_clock(oak_scene *scene, float hours, float *now) {
    const oak_time_of_day *t = oak_scene_time_of_day(scene);
    float h = fmodf((t->set ? t->hour : 12.0f) + hours, 24.0f);
    *now = h < 0 ? h + 24.0f : h;
    return oak_world_set_time(scene, *now);
}

void _oak_cli_backend_defaults(const oak_renderer *r, oak_post *post, bool by_backend) {
    /* the clouds cost the cpu more than the rest of its frame at the
       default rung (docs/PERFORMANCE.md): without a preset it marches them
       at the low rung's size and steps, the GPUs at the default's; the
       parity tests, through the library, run every backend at one rung */
    bool coarse = by_backend && !post->preset && !strcmp(oak_renderer_backend(r), "cpu");
    oak_quality low = oak_preset_quality(OAK_PRESET_LOW);
    post->cloud_steps = coarse ? low.cloud_steps : 0;
    post->cloud_scale = coarse ? low.cloud_scale : 0;
}

int _oak_cli_open_renderer(const cli_options *opts, const char *backend, oak_scene *scene,
                           oak_renderer **out) {
    oak_renderer_desc d = {0};
    d.preset = scene ? oak_scene_post(scene)->preset : opts->preset;
    d.backend = backend;
    d.device = opts->device;
    d.width = opts->width;
    d.height = opts->height;
    d.occlusion = opts->occlusion;
    if (oak_make_renderer(out, &d) != OAK_OK) return _oak_cli_fail(opts);
    /* --compare holds every backend to one picture: the library's rungs */
    if (scene) _oak_cli_backend_defaults(*out, oak_scene_post(scene), !opts->compare);
    const char *why = oak_renderer_fallback_reason(*out);
    if (!strcmp(backend, "auto") && why && *why)
        fprintf(stderr, "oak %s: auto chose %s: %s\n", opts->command, oak_renderer_backend(*out),
                why);
    return 0;
}

void _oak_cli_subject(const cli_options *opts, char *out, size_t size) {
    if (!opts->scene) {
        snprintf(out, size, "%s", opts->world);
        return;
    }
    const char *base = strrchr(opts->scene, '/');
    base = base ? base + 1 : opts->scene;
    const char *dot = strrchr(base, '.');
    int len = dot && dot != base ? (int)(dot - base) : (int)strlen(base);
    snprintf(out, size, "%.*s", len, base);
}
