/* `oak render`: draws a world or scene file for --frames frames and writes
 * the last one as a PNG; prints one line: backend, device, size, ms/frame.
 * With --window the frames show in a window, the world's camera moving
 * along its path, until it is closed or --frames were shown. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "window.h"

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The frames the path takes to go round once in a window (10 s at 60 Hz). */
#define WINDOW_PATH_FRAMES 600

typedef struct window_frame {
    const cli_options *o;
    oak_scene *scene;
    oak_renderer *renderer;
    oak_fly *fly; /* made at the first key or drag */
    float flown;  /* metres it moved the camera */
    float hour;   /* where [ and ] left the clock; < 0: untouched */
    bool weather; /* F2 changed the weather */
} window_frame;

/* F2's weather: the next kind after the one the scene heads for (clear
   after dust), at full amount; over WEATHER_KEY_SECONDS of world time where
   a world moves it on, at once in a scene file (nothing updates it). */
#define WEATHER_KEY_SECONDS 3.0f

static oak_result next_weather(window_frame *f, int steps) {
    const oak_weather *w = oak_scene_weather(f->scene);
    int kind = (w && w->set ? (int)w->kind : (int)OAK_WEATHER_CLEAR) + steps;
    kind %= (int)OAK_WEATHER_COUNT;
    f->weather = true;
    return oak_world_set_weather(f->scene, (oak_weather_kind)kind, 1.0f,
                                 f->o->world ? WEATHER_KEY_SECONDS : 0.0f);
}

/* The fly camera's speeds: a walk, and with Shift a fast flight. */
#define FLY_SPEED      5.0f
#define FLY_SPEED_FAST 20.0f

static oak_result draw_window_frame(void *user, uint32_t index, uint32_t width, uint32_t height,
                                    const _oak_window_input *in) {
    (void)width, (void)height; /* a world's camera takes its aspect from the output */
    window_frame *f = user;
    oak_result r;
    oak_entity cam = oak_scene_active_camera(f->scene);
    /* the first key or drag hands the camera from its path to the user */
    if (in->active && !f->fly && cam.id &&
        (r = oak_fly_create(&f->fly, f->scene, cam, &(oak_fly_desc){0})))
        return r;
    if (f->fly) {
        float before[3];
        memcpy(before, oak_scene_transform(f->scene, cam)->position, 12);
        oak_fly_input fi = {.move = {in->move[0], in->move[1], in->move[2]},
                            .look = {in->look[0], in->look[1]},
                            .speed = (in->fast ? FLY_SPEED_FAST : FLY_SPEED) * in->speed_scale};
        if ((r = oak_fly_update(f->fly, &fi, 1.0f / 60, NULL))) return r;
        const float *after = oak_scene_transform(f->scene, cam)->position;
        float d[3] = {after[0] - before[0], after[1] - before[1], after[2] - before[2]};
        f->flown += sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        if ((r = _oak_cli_world_tick(f->o, f->scene, index))) return r;
    } else if (f->o->world) { /* a scene file's camera stays where the file put it */
        float eye[3], target[3];
        float t = (float)(index % WINDOW_PATH_FRAMES) / WINDOW_PATH_FRAMES;
        r = oak_world_camera_path(f->o->world, t, eye, target);
        if (r) return r;
        oak_transform tr = oak_transform_look_at(eye, target);
        oak_scene_set_transform(f->scene, oak_scene_active_camera(f->scene), &tr);
        r = oak_world_update(f->scene, f->o->world, (float)index / 60.0f);
        if (r) return r;
    } else if ((r = _oak_cli_world_tick(f->o, f->scene, index))) {
        return r;
    }
    if (in->hours != 0 && (r = _oak_cli_turn_clock(f->scene, in->hours, &f->hour))) return r;
    if (in->weather_steps && (r = next_weather(f, in->weather_steps))) return r;
    return oak_scene_draw(f->scene, f->renderer);
}

static int render_window(const cli_options *o, oak_scene *scene, oak_renderer *renderer,
                         const char *out) {
    char title[160];
    window_frame f = {o, scene, renderer, NULL, 0, -1, false};
    snprintf(title, sizeof title, "oak: %s on %s", o->world ? o->world : o->scene,
             oak_renderer_backend(renderer));
    _oak_window_desc d = {.title = title,
                          .renderer = renderer,
                          .width = o->width,
                          .height = o->height,
                          .frames = o->frames,
                          .frame = draw_window_frame,
                          .user = &f,
                          .out = out,
                          .capture = o->window_capture,
                          .overlay = !o->overlay_off,
                          .resize_width = o->window_resize_w,
                          .resize_height = o->window_resize_h,
                          .script = o->fly_script,
                          .no_vsync = o->no_vsync};
    _oak_window_stats st;
    oak_result r = _oak_window_run(&d, &st);
    oak_fly_destroy(f.fly);
    if (r != OAK_OK) return _oak_cli_fail(o);
    char flew[192] = "", pace[64] = "";
    if (f.fly) snprintf(flew, sizeof flew, " | flew %.2f m", f.flown);
    if (f.hour >= 0)
        snprintf(flew + strlen(flew), sizeof flew - strlen(flew), " | hour %.2f", (double)f.hour);
    if (f.weather) {
        const oak_weather *w = oak_scene_weather(scene);
        snprintf(flew + strlen(flew), sizeof flew - strlen(flew), " | weather %s",
                 oak_weather_name(w && w->set ? w->kind : OAK_WEATHER_CLEAR));
    }
    if (st.screenshots)
        snprintf(flew + strlen(flew), sizeof flew - strlen(flew), " | %u screenshot%s",
                 st.screenshots, st.screenshots > 1 ? "s" : "");
    if (st.ms_worst > 0)
        snprintf(pace, sizeof pace, " | jitter %.2f ms, worst %.2f ms", st.ms_jitter, st.ms_worst);
    snprintf(flew + strlen(flew), sizeof flew - strlen(flew), " | present: %s", st.presentation);
    printf("%s | %s | %ux%u | %.2f ms/frame (mean of %u in a window)%s%s | %s\n",
           oak_renderer_backend(renderer), oak_renderer_device(renderer), st.width, st.height,
           st.ms_per_frame, st.frames, pace, flew, st.frames ? out : "nothing shown, no PNG");
    return 0;
}

/* A float as a byte: [0, 1] rounded. */
static uint8_t unorm8(float x) {
    x = x > 0 ? (x < 1 ? x : 1) : 0;
    return (uint8_t)(x * 255.0f + 0.5f);
}

/* The capture channel (docs/SHADING.md "Capture channels"): albedo as sRGB
   bytes, normal as n * 0.5 + 0.5, ao as grey, each a PNG; depth (metres)
   and motion (pixels, x right and y down; z 1 where valid) as PFM, floats. */
static int write_channel(const cli_options *o, oak_renderer *renderer, const char *out) {
    size_t n = (size_t)o->width * o->height;
    float *f = oak_alloc(n * 4 * sizeof(float));
    uint8_t *png = oak_alloc(n * 4);
    int status = 0;
    if (!f || !png || oak_renderer_read_channel(renderer, f, n * 4) != OAK_OK) {
        status = _oak_cli_fail(o);
    } else if (o->channel == OAK_CHANNEL_DEPTH || o->channel == OAK_CHANNEL_MOTION) {
        /* PFM: "PF", the size, -1 (little-endian), then rows bottom first */
        FILE *fp = fopen(out, "wb");
        bool ok = fp && fprintf(fp, "PF\n%u %u\n-1.0\n", o->width, o->height) > 0;
        for (uint32_t y = o->height; ok && y-- > 0;)
            for (uint32_t x = 0; ok && x < o->width; x++) {
                const float *t = f + ((size_t)y * o->width + x) * 4;
                ok = fwrite(t, sizeof(float), 3, fp) == 3;
            }
        if (fp && fclose(fp) != 0) ok = false;
        if (!ok) status = _oak_cli_failf(o, "cannot write %s", out);
    } else {
        for (size_t i = 0; i < n; i++) {
            const float *t = f + i * 4;
            for (int k = 0; k < 3; k++) {
                float c = t[k];
                if (o->channel == OAK_CHANNEL_ALBEDO) /* the exact sRGB curve */
                    c = c <= 0.0031308f ? 12.92f * c : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
                else if (o->channel == OAK_CHANNEL_NORMAL)
                    c = c * 0.5f + 0.5f;
                png[i * 4 + k] = unorm8(c);
            }
            png[i * 4 + 3] = 255;
        }
        if (oak_image_write_png(out, o->width, o->height, png) != OAK_OK) status = _oak_cli_fail(o);
    }
    oak_free(f);
    oak_free(png);
    return status;
}

static int render(const cli_options *o, oak_scene *scene, oak_renderer *renderer) {
    char subject[128], default_out[160];
    _oak_cli_subject(o, subject, sizeof subject);
    const char *out = o->out;
    if (!out) {
        mkdir("out", 0777); /* an existing folder is fine; a failure shows at the write */
        bool pfm = o->channel == OAK_CHANNEL_DEPTH || o->channel == OAK_CHANNEL_MOTION;
        snprintf(default_out, sizeof default_out, "out/%s%s%s.%s", subject, o->channel ? "_" : "",
                 o->channel ? oak_channel_name(o->channel) : "", pfm ? "pfm" : "png");
        out = default_out;
    }
    if (o->window) return render_window(o, scene, renderer, out);
    uint32_t frames = o->frames ? o->frames : 1;
    double *ms = oak_alloc(sizeof(double) * frames);
    size_t bytes = (size_t)o->width * o->height * 4;
    uint8_t *pixels = oak_alloc(bytes);
    int status = 0;
    if (!ms || !pixels) {
        status = _oak_cli_fail(o);
        goto done;
    }
    if (o->debug) {
        /* the debug colours as they are: no exposure, tone curve or FXAA */
        oak_post *post = oak_scene_post(scene);
        *post = (oak_post){.exposure = 1,
                           .no_tonemap = true,
                           .no_dither = true,
                           .no_fxaa = true,
                           .debug = o->debug,
                           .ao = post->ao,
                           .render_scale = post->render_scale};
    }
    for (uint32_t i = 0; i < frames; i++) {
        uint64_t start = oak_time_ns();
        /* world time on a fixed 60 Hz tick */
        if (_oak_cli_world_tick(o, scene, i) != OAK_OK) {
            status = _oak_cli_fail(o);
            goto done;
        }
        if (oak_scene_draw(scene, renderer) != OAK_OK) {
            status = _oak_cli_fail(o);
            goto done;
        }
        ms[i] = oak_ms_since(start);
    }
    /* TAA converges over its jitter phases (OAK_TAA_SAMPLES, more when it
       upsamples a render scale): the last frame's still camera (and world
       time) is drawn again until it has them all */
    uint32_t taa_frames = oak_taa_frames(oak_scene_post(scene));
    for (uint32_t i = frames; taa_frames > 1 && i < taa_frames; i++)
        if (oak_scene_draw(scene, renderer) != OAK_OK) {
            status = _oak_cli_fail(o);
            goto done;
        }
    if (o->channel) {
        status = write_channel(o, renderer, out);
        if (status) goto done;
    } else if (oak_renderer_read_pixels(renderer, pixels, bytes) != OAK_OK ||
               oak_image_write_png(out, o->width, o->height, pixels) != OAK_OK) {
        status = _oak_cli_fail(o);
        goto done;
    }
    qsort(ms, frames, sizeof *ms, cmp_double);
    printf("%s | %s | %ux%u | %.2f ms/frame (median of %u) | %s\n", oak_renderer_backend(renderer),
           oak_renderer_device(renderer), o->width, o->height, ms[frames / 2], frames, out);
done:
    oak_free(ms);
    oak_free(pixels);
    return status;
}

int _oak_cmd_render(int argc, char **argv) {
    cli_options o;
    int status = _oak_cli_parse(&o, argc, argv, CLI_RENDER_OPTIONS);
    if (status) return status;
    if ((status = _oak_cli_start(&o))) return status;
    char why[256];
    if (o.window && !_oak_window_available(why, sizeof why)) {
        oak_shutdown();
        return _oak_cli_failf(&o, "--window: %s", why);
    }
    oak_scene *scene = NULL;
    oak_renderer *renderer = NULL;
    if (!(status = _oak_cli_check_backend(&o, o.backend)) &&
        !(status = _oak_cli_open_scene(&o, &scene)) &&
        !(status = _oak_cli_open_renderer(&o, o.backend, scene, &renderer))) {
        if (o.debug) oak_scene_post(scene)->debug = o.debug;
        if (o.channel) oak_scene_post(scene)->channel = o.channel;
        /* the built-in worlds adapt like an eye (docs/SHADING.md "Eye
           adaptation") unless --ev100 fixes the camera or --adapt says; a
           scene file's post says for itself */
        oak_post *post = oak_scene_post(scene);
        if (!o.scene && !o.ev100_set && !o.adapt) post->adapt = true;
        /* bloom is on unless the scene, its preset or --bloom says otherwise */
        if (post->bloom == OAK_BLOOM_DEFAULT && !post->preset) post->bloom = OAK_BLOOM_ON;
        status = render(&o, scene, renderer);
    }
    if (renderer) oak_destroy_renderer(renderer);
    if (scene) oak_destroy_scene(scene);
    oak_shutdown();
    return status;
}
