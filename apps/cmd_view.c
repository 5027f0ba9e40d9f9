/* `oak view FILE`: loads a glTF (or .oakm), places it in a scene, frames it
 * from a yaw and pitch so it fills 55% of the frame's height (over its whole
 * clip when animated), poses it at --time and renders it to a PNG.
 * `--check` only loads and validates and prints a one-line summary.
 * `--window` shows the framed model in a window until it is closed or
 * --frames N were shown (the PNG is then the last frame). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <oak/anim.h>
#include <oak/oak.h>

#include "cli.h"
#include "window.h"

typedef struct view_args {
    const char *file, *anim, *backend, *out, *capture;
    const char *variant;    /* --variant: a KHR_materials_variants variant */
    const char *asset_root; /* --asset-root: where the model's URIs may point */
    const char *sky;        /* --sky: an equirectangular sky image (.hdr) */
    const char *script;     /* --fly-script: keys held for frames (tests) */
    float time, yaw, pitch;
    float hour; /* --hour, with has_hour */
    bool has_hour;
    cli_options camera; /* --ev100, --exposure-comp, --tone */
    uint32_t width, height, frames;
    bool check, has_time, window, overlay_off, no_vsync;
} view_args;

static int usage(void) {
    fprintf(stderr, "usage: oak view FILE [--check] [--anim NAME|INDEX] [--variant NAME|INDEX]\n"
                    "                [--time T] [--yaw DEG]\n"
                    "                [--pitch DEG] [--backend B] [--size WxH] [--out F.png]\n"
                    "                [--window [--frames N] [--overlay on|off] [--no-vsync]]\n"
                    "                [--asset-root DIR]\n"
                    "                [--sky F.hdr]\n"
                    "                [--ev100 EV] [--exposure-comp STOPS] [--tone aces|neutral]\n"
                    "                [--bloom on|off] [--adapt on|off] [--taa on|off] [--hour H]\n"
                    "                [--weather KIND[:AMOUNT]]\n"
                    "                [--preset low|medium|high|ultra] [--taa-sharpen S]\n"
                    "                [--focus M] [--aperture N] [--scale S] [--clouds C]\n"
                    "                [--fog D]\n");
    return 2;
}

/* Angles in degrees; a time within a day of clips is plenty. */
#define VIEW_MAX_ANGLE 3600.0f
#define VIEW_MAX_TIME  86400.0f
/* The orbit: radians a frame A/D turn, and the share of the distance W/S
   move in a frame. */
#define VIEW_ORBIT_KEY_RATE (1.5f / 60)
#define VIEW_ORBIT_ZOOM     0.02f

static int parse(view_args *a, int argc, char **argv) {
    *a = (view_args){
        .backend = "auto", .out = "view.png", .yaw = 30, .pitch = 20, .width = 960, .height = 540};
    const cli_options co = {.command = "view"};
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(s, "--check") == 0) {
            a->check = true;
            continue;
        }
        if (strcmp(s, "--window") == 0) {
            a->window = true;
            continue;
        }
        if (strcmp(s, "--no-vsync") == 0) {
            a->no_vsync = true;
            continue;
        }
        if (s[0] != '-') {
            if (a->file) return usage();
            a->file = s;
            continue;
        }
        if (!v) return usage();
        i++;
        int bad = 0;
        if (strcmp(s, "--anim") == 0)
            a->anim = v;
        else if (strcmp(s, "--variant") == 0)
            a->variant = v;
        else if (strcmp(s, "--backend") == 0)
            a->backend = v;
        else if (strcmp(s, "--out") == 0)
            a->out = v;
        else if (strcmp(s, "--asset-root") == 0)
            a->asset_root = v;
        else if (strcmp(s, "--sky") == 0)
            a->sky = v;
        else if (strcmp(s, "--window-capture") == 0)
            a->capture = v;
        else if (strcmp(s, "--overlay") == 0) {
            if (strcmp(v, "on") && strcmp(v, "off")) {
                fprintf(stderr, "oak view: --overlay '%s': expected on or off\n", v);
                return 2;
            }
            a->overlay_off = strcmp(v, "off") == 0;
        } else if (strcmp(s, "--fly-script") == 0) {
            char why[96];
            if (!_oak_window_script_ok(v, why, sizeof why)) {
                fprintf(stderr, "oak view: --fly-script '%s': %s\n", v, why);
                return 2;
            }
            a->script = v;
        } else if (strcmp(s, "--frames") == 0) {
            char *end = NULL;
            unsigned long n = strtoul(v, &end, 10);
            if (v[0] < '0' || v[0] > '9' || *end || n < 1 || n > 100000) {
                fprintf(stderr, "oak view: --frames wants a whole number 1..100000, got \"%s\"\n",
                        v);
                return 2;
            }
            a->frames = (uint32_t)n;
        } else if (strcmp(s, "--time") == 0) {
            bad = _oak_cli_parse_float(&co, s, v, -VIEW_MAX_TIME, VIEW_MAX_TIME, &a->time);
            a->has_time = true;
        } else if (strcmp(s, "--yaw") == 0)
            bad = _oak_cli_parse_float(&co, s, v, -VIEW_MAX_ANGLE, VIEW_MAX_ANGLE, &a->yaw);
        else if (strcmp(s, "--pitch") == 0)
            bad = _oak_cli_parse_float(&co, s, v, -VIEW_MAX_ANGLE, VIEW_MAX_ANGLE, &a->pitch);
        else if (strcmp(s, "--size") == 0)
            bad = _oak_cli_parse_size(&co, s, v, &a->width, &a->height);
        else if (strcmp(s, "--hour") == 0) {
            bad = _oak_cli_parse_float(&co, s, v, 0, 24, &a->hour);
            a->has_hour = true;
        } else if (strcmp(s, "--weather") == 0) {
            if (!_oak_cli_parse_weather(v, &a->camera.weather, &a->camera.weather_amount)) {
                fprintf(stderr,
                        "oak view: --weather '%s': expected KIND[:AMOUNT], KIND one of clear, "
                        "cloudy, overcast, rain, storm, snow, dust and AMOUNT 0..1\n",
                        v);
                return 2;
            }
            a->camera.weather_set = true;
        } else if (!strcmp(s, "--ev100") || !strcmp(s, "--exposure-comp") || !strcmp(s, "--tone") ||
                   !strcmp(s, "--bloom") || !strcmp(s, "--adapt") || !strcmp(s, "--taa") ||
                   !strcmp(s, "--focus") || !strcmp(s, "--aperture") || !strcmp(s, "--preset") ||
                   !strcmp(s, "--scale") || !strcmp(s, "--clouds") || !strcmp(s, "--fog") ||
                   !strcmp(s, "--taa-sharpen")) {
            a->camera.command = "view";
            bad = _oak_cli_parse_camera(&a->camera, s, v);
        } else {
            fprintf(stderr, "oak view: unknown option %s\n", s);
            return usage();
        }
        if (bad) return bad;
    }
    if (a->script && !a->window) {
        fprintf(stderr, "oak view: --fly-script needs --window\n");
        return 2;
    }
    if (a->capture && !a->window) {
        fprintf(stderr, "oak view: --window-capture needs --window\n");
        return 2;
    }
    if (a->no_vsync && !a->window) {
        fprintf(stderr, "oak view: --no-vsync needs --window\n");
        return 2;
    }
    return a->file ? 0 : usage();
}

typedef struct view_frame {
    oak_scene *scene;
    oak_renderer *ren;
    oak_entity camera;
    oak_camera cam;
    /* the orbit: round `centre` at `dist`, yaw about +Y, pitch above level */
    float centre[3], dist, yaw, pitch;
    float turned;  /* radians the user turned it, for the summary */
    bool has_hour; /* --hour: [ and ] turn the clock */
    float hour;    /* where they left it; < 0: untouched */
} view_frame;

/* The framed camera's orbit: its distance to the model's centre and its
   angles round it. */
static void orbit_from(view_frame *f, const oak_transform *xf, const float centre[3]) {
    float d[3] = {xf->position[0] - centre[0], xf->position[1] - centre[1],
                  xf->position[2] - centre[2]};
    memcpy(f->centre, centre, 12);
    f->dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    f->yaw = atan2f(d[0], d[2]);
    f->pitch = f->dist > 0 ? asinf(d[1] / f->dist) : 0;
}

/* Keys and drags orbit the model (left/right and up/down turn, W/S move in
   and out); a resized window changes only the camera's aspect, so the
   picture does not stretch. */
static oak_result draw_view_frame(void *user, uint32_t index, uint32_t width, uint32_t height,
                                  const _oak_window_input *input) {
    view_frame *f = user;
    float aspect = (float)width / (float)height;
    if (aspect != f->cam.aspect) {
        f->cam.aspect = aspect;
        oak_scene_set_camera(f->scene, f->camera, &f->cam);
    }
    if (input->active && f->dist > 0) {
        f->yaw -= input->look[0] + input->move[0] * VIEW_ORBIT_KEY_RATE;
        f->pitch -= input->look[1];
        f->turned +=
            fabsf(input->look[0] + input->move[0] * VIEW_ORBIT_KEY_RATE) + fabsf(input->look[1]);
        const float limit = OAK_PI / 2 - 0.01f;
        f->pitch = f->pitch < -limit ? -limit : f->pitch > limit ? limit : f->pitch;
        f->dist *= 1 - VIEW_ORBIT_ZOOM * input->move[2];
        float eye[3] = {f->centre[0] + f->dist * cosf(f->pitch) * sinf(f->yaw),
                        f->centre[1] + f->dist * sinf(f->pitch),
                        f->centre[2] + f->dist * cosf(f->pitch) * cosf(f->yaw)};
        oak_transform t = oak_transform_look_at(eye, f->centre);
        oak_scene_set_transform(f->scene, f->camera, &t);
    }
    oak_result r;
    if (f->has_hour && input->hours != 0 &&
        (r = _oak_cli_turn_clock(f->scene, input->hours, &f->hour)))
        return r;
    /* the weather moves on at the window's 60 Hz tick (rain falls, lightning) */
    r = oak_world_update_weather(f->scene, (float)index / 60.0f);
    return r ? r : oak_scene_draw(f->scene, f->ren);
}

/* Every vertex over the clip (or the rest pose), for framing. */
static float *gather_points(oak_scene *scene, oak_gltf_instance *inst, const oak_gltf *g,
                            int32_t clip, uint32_t *count) {
    const uint32_t samples = clip >= 0 ? 16 : 1;
    uint32_t per = 0, total = 0;
    float *pts = NULL;
    oak_anim_player *p = oak_gltf_instance_player(inst);
    for (uint32_t s = 0; s < samples; s++) {
        if (clip >= 0) {
            const oak_gltf_clip *c = &g->clips[clip];
            p->clip = clip;
            p->playing = false;
            p->time = c->start + (c->end - c->start) * (float)s / (float)(samples - 1);
            oak_anim_update(scene, 0);
        }
        if (oak_skin_update(scene)) break;
        if (!pts) {
            per = oak_gltf_instance_points(inst, NULL, 0);
            if ((uint64_t)per * samples > UINT32_MAX) return NULL; /* "nothing to draw" */
            pts = oak_alloc((size_t)per * samples * 12 + 12);
            if (!pts) return NULL;
        }
        total += oak_gltf_instance_points(inst, pts + (size_t)total * 3, per);
    }
    *count = total;
    return pts;
}

static int view(const view_args *a) {
    oak_gltf *g = NULL;
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    oak_renderer *ren = NULL;
    float *pts = NULL;
    uint8_t *pixels = NULL;
    int code = 1;
    oak_result r = oak_gltf_load(&g, a->file, &(oak_gltf_desc){.asset_root = a->asset_root});
    if (r) goto out;
    int32_t clip = -1;
    if (a->anim && (clip = oak_gltf_find_clip(g, a->anim)) < 0) {
        r = oak_error(OAK_ERROR_NOT_FOUND, "%s: no animation named or numbered \"%s\" (%u clips)",
                      a->file, a->anim, g->clip_count);
        goto out;
    }
    if ((r = oak_make_scene(&scene))) goto out;
    if ((r = oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "model"))) goto out;
    if (a->variant) {
        int32_t v = oak_gltf_find_variant(g, a->variant);
        if (v < 0) {
            r = oak_error(OAK_ERROR_NOT_FOUND,
                          "%s: no material variant named or numbered \"%s\" (%u variants)", a->file,
                          a->variant, g->variant_count);
            goto out;
        }
        if ((r = oak_gltf_instance_set_variant(inst, v))) goto out;
    }
    uint32_t n = 0;
    pts = gather_points(scene, inst, g, clip, &n);
    if (!pts || !n) {
        r = oak_error(OAK_ERROR_INVALID_ARGUMENT, "%s: nothing to draw", a->file);
        goto out;
    }
    oak_framing f = {.yaw = a->yaw * OAK_PI / 180,
                     .pitch = a->pitch * OAK_PI / 180,
                     .share = 0.55f,
                     .aspect = (float)a->width / (float)a->height};
    oak_transform cam_xf;
    oak_camera cam;
    if ((r = oak_frame_points(&cam_xf, &cam, pts, n, &f))) {
        r = oak_error(r, "%s: %s", a->file, oak_last_error()); /* name the model */
        goto out;
    }
    if (clip >= 0) {
        oak_anim_player *p = oak_gltf_instance_player(inst);
        p->time = a->has_time ? a->time : g->clips[clip].start;
        oak_anim_update(scene, 0);
    }
    if ((r = oak_skin_update(scene))) goto out;
    oak_entity ce = oak_scene_create(scene, "view camera");
    oak_scene_set_transform(scene, ce, &cam_xf);
    oak_scene_set_camera(scene, ce, &cam);
    oak_scene_set_active_camera(scene, ce);
    if (!g->light_count) { /* a key light over the viewer's shoulder */
        oak_entity le = oak_scene_create(scene, "view sun");
        float eye[3] = {cam_xf.position[0], cam_xf.position[1], cam_xf.position[2]};
        /* Bounds of a model scaled to infinity are not finite: a unit lift then. */
        float lift = g->bounds.radius > 0 && isfinite(g->bounds.radius) ? g->bounds.radius : 1;
        eye[1] += lift * 2;
        float at[3] = {0, 0, 0};
        if (isfinite(g->bounds.center[0]) && isfinite(g->bounds.center[1]) &&
            isfinite(g->bounds.center[2]))
            memcpy(at, g->bounds.center, sizeof at);
        oak_transform lt = oak_transform_look_at(eye, at);
        oak_scene_set_transform(scene, le, &lt);
        oak_light sun = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
        oak_scene_set_light(scene, le, &sun);
    }
    /* the sky image is both background and light */
    if (a->sky && (r = oak_load_texture(&oak_scene_environment(scene)->sky_image, a->sky,
                                        OAK_FORMAT_RGBA32F)))
        goto out;
    /* --hour: the sun or moon takes the key light (the viewer's own sun too),
       in lux: the camera adapts unless --ev100 fixes it */
    if (a->has_hour) {
        if ((r = oak_world_set_time(scene, a->hour))) goto out;
        if (!a->camera.ev100_set) oak_scene_post(scene)->adapt = true;
    }
    /* --weather over the hour's light */
    if (a->camera.weather_set &&
        (r = oak_world_set_weather(scene, a->camera.weather, a->camera.weather_amount, 0)))
        goto out;
    _oak_cli_apply_camera(&a->camera, oak_scene_post(scene));
    _oak_cli_apply_clouds(&a->camera, oak_scene_environment(scene));
    /* a model's own lights are in physical units (a 6,830-lux sun): the
       camera adapts to them (docs/SHADING.md "Eye adaptation") unless
       --ev100 fixes it; the viewer's sun of 3 keeps exposure 1 */
    if (g->light_count && !a->camera.ev100_set && !a->camera.adapt)
        oak_scene_post(scene)->adapt = true;
    if (oak_scene_post(scene)->bloom == OAK_BLOOM_DEFAULT && !oak_scene_post(scene)->preset)
        oak_scene_post(scene)->bloom = OAK_BLOOM_ON;
    oak_renderer_desc rd = {.backend = a->backend,
                            .width = a->width,
                            .height = a->height,
                            .preset = oak_scene_post(scene)->preset};
    if ((r = oak_make_renderer(&ren, &rd))) goto out;
    _oak_cli_backend_defaults(ren, oak_scene_post(scene), true);
    if (a->window) {
        view_frame vf = {.scene = scene,
                         .ren = ren,
                         .camera = ce,
                         .cam = cam,
                         .has_hour = a->has_hour,
                         .hour = -1};
        double sum[3] = {0, 0, 0}; /* the orbit's centre: the finite points' mean */
        uint32_t finite = 0;
        for (uint32_t i = 0; i < n; i++) {
            const float *q = pts + 3 * (size_t)i;
            if (!isfinite(q[0]) || !isfinite(q[1]) || !isfinite(q[2])) continue;
            for (int k = 0; k < 3; k++) sum[k] += q[k];
            finite++;
        }
        float centre[3] = {0, 0, 0};
        for (int k = 0; finite && k < 3; k++) centre[k] = (float)(sum[k] / finite);
        orbit_from(&vf, &cam_xf, centre);
        char title[160];
        snprintf(title, sizeof title, "oak view: %s", a->file);
        _oak_window_desc wd = {.title = title,
                               .renderer = ren,
                               .width = a->width,
                               .height = a->height,
                               .frames = a->frames,
                               .frame = draw_view_frame,
                               .user = &vf,
                               .out = a->out,
                               .capture = a->capture,
                               .overlay = !a->overlay_off,
                               .script = a->script,
                               .no_vsync = a->no_vsync};
        _oak_window_stats st;
        if ((r = _oak_window_run(&wd, &st))) goto out;
        char orbit[80] = "";
        if (vf.turned > 0)
            snprintf(orbit, sizeof orbit, ", orbited %.1f degrees", vf.turned * 180 / OAK_PI);
        if (vf.hour >= 0)
            snprintf(orbit + strlen(orbit), sizeof orbit - strlen(orbit), ", hour %.2f",
                     (double)vf.hour);
        printf("%s: %ux%u on %s, framed from yaw %g pitch %g, %u frames in a window%s -> %s\n",
               a->file, st.width, st.height, oak_renderer_backend(ren), a->yaw, a->pitch, st.frames,
               orbit, st.frames ? a->out : "nothing shown, no PNG");
        code = 0;
        goto out;
    }
    /* with TAA, its jitter phases of the still camera, so it converges */
    uint32_t draws = oak_taa_frames(oak_scene_post(scene));
    for (uint32_t i = 0; i < draws; i++)
        if ((r = oak_scene_draw(scene, ren))) goto out;
    size_t size = (size_t)a->width * a->height * 4;
    pixels = oak_alloc(size);
    if (!pixels) {
        r = OAK_ERROR_OUT_OF_MEMORY;
        goto out;
    }
    if ((r = oak_renderer_read_pixels(ren, pixels, size))) goto out;
    if ((r = oak_image_write_png(a->out, a->width, a->height, pixels))) goto out;
    printf("%s: %ux%u on %s, framed from yaw %g pitch %g -> %s\n", a->file, a->width, a->height,
           oak_renderer_backend(ren), a->yaw, a->pitch, a->out);
    code = 0;
out:
    if (r) fprintf(stderr, "oak view: %s\n", oak_last_error());
    oak_free(pixels);
    oak_free(pts);
    if (ren) oak_destroy_renderer(ren);
    oak_gltf_instance_free(inst);
    if (scene) oak_destroy_scene(scene);
    oak_gltf_free(g);
    return code;
}

int _oak_cmd_view(int argc, char **argv) {
    view_args a;
    int bad = parse(&a, argc, argv);
    if (bad) return bad;
    cli_options co = {.command = "view"};
    if (_oak_cli_start(&co)) return CLI_EXIT_FAIL; /* errors wait for our one line */
    int code;
    char why[256];
    if (a.window && !a.check && !_oak_window_available(why, sizeof why)) {
        fprintf(stderr, "oak view: --window: %s\n", why);
        code = 1;
    } else if (a.check) {
        oak_gltf *g = NULL;
        oak_gltf_desc d = {.no_assets = true, .asset_root = a.asset_root};
        if (oak_gltf_load(&g, a.file, &d)) {
            fprintf(stderr, "oak view: %s\n", oak_last_error());
            code = 1;
        } else {
            char line[512];
            oak_gltf_summary(g, line, sizeof line);
            printf("%s\n", line);
            oak_gltf_free(g);
            code = 0;
        }
    } else {
        code = view(&a);
    }
    oak_shutdown();
    return code;
}
