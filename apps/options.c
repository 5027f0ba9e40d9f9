/* Option parsing for every oak command: `--name value` or `--name=value`,
 * each command accepting a subset. Malformed lines end in one stderr line
 * naming the option and what was wrong with it. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "window.h"

typedef struct option_spec {
    const char *name;
    uint64_t flag;
    const char *value; /* NULL for a switch */
    const char *help;
} option_spec;

static const option_spec g_specs[] = {
    {"--world", CLI_OPT_WORLD, "NAME", "a built-in world (default: default)"},
    {"--scene", CLI_OPT_SCENE, "FILE", "a JSON scene file instead of a world"},
    {"--asset-root", CLI_OPT_ASSET_ROOT, "DIR",
     "folder the scene's files must be in (default: its own)"},
    {"--backend", CLI_OPT_BACKEND, "B", "cpu, vulkan, gl, null or auto (default: auto)"},
    {"--device", CLI_OPT_DEVICE, "D", "the backend's device, by name or index"},
    {"--size", CLI_OPT_SIZE, "WxH", "output size (default: 1280x720)"},
    {"--frames", CLI_OPT_FRAMES, "N", "frames to draw (render: 1, bench: 60)"},
    {"--warmup", CLI_OPT_WARMUP, "N", "frames drawn before timing starts (default: 5)"},
    {"--out", CLI_OPT_OUT, "FILE.png", "where the picture goes (default: out/NAME.png)"},
    {"--json", CLI_OPT_JSON, NULL, "print one JSON object on stdout"},
    {"--compare", CLI_OPT_COMPARE, "B1,B2", "bench each backend and compare their pictures"},
    {"--threads", CLI_OPT_THREADS, "N", "job workers incl. the main thread (default: cores)"},
    {"--verbose", CLI_OPT_VERBOSE, NULL, "log info messages too"},
    {"--overlay", CLI_OPT_OVERLAY, "on|off",
     "the window's panel: frame time, its graph and the pass timings (default: on; F1 "
     "toggles)"},
    {"--window", CLI_OPT_WINDOW, NULL, "show the frames in a window until closed or --frames"},
    {"--window-capture", CLI_OPT_WINDOW_CAPTURE, "FILE.png", NULL},
    {"--window-resize", CLI_OPT_WINDOW_RESIZE, "WxH", NULL},
    {"--no-vsync", CLI_OPT_NO_VSYNC, NULL,
     "the window presents without waiting for the display (Vulkan: mailbox, else immediate)"},
    {"--fly-script", CLI_OPT_FLY_SCRIPT, "KEYS:FRAMES,...", NULL},
    {"--sky", CLI_OPT_SKY, "FILE.hdr", "an equirectangular image as the sky and its light"},
    {"--debug", CLI_OPT_DEBUG, "VIEW",
     "draw a debug view instead: cascades (the sun's cascades in colours), clusters (lamps per "
     "cell), lamp-shadows (the lamp shadow atlas), ao (the ambient occlusion term as grey) or "
     "motion (motion vectors: red x, green y, grey still)"},
    {"--ao", CLI_OPT_AO, "on|off", "ground-truth ambient occlusion of the indirect light"},
    {"--ev100", CLI_OPT_EV100, "EV",
     "a fixed camera exposure value at ISO 100 (noon sun: ~15); without it the worlds adapt"},
    {"--exposure-comp", CLI_OPT_EXPOSURE_COMP, "STOPS",
     "exposure compensation (+1: twice as bright)"},
    {"--tone", CLI_OPT_TONE, "aces|neutral", "the tone curve (default: aces)"},
    {"--bloom", CLI_OPT_BLOOM, "on|off",
     "bloom before the tone curve (default: on for render and view, off for bench)"},
    {"--adapt", CLI_OPT_ADAPT, "on|off",
     "eye adaptation (default: on for render's worlds unless --ev100, off for bench)"},
    {"--taa", CLI_OPT_TAA, "on|off",
     "temporal anti-aliasing in place of FXAA (default: off; render then draws 8 still frames)"},
    {"--taa-sharpen", CLI_OPT_TAA_SHARPEN, "S",
     "TAA's sharpen after the resolve, 0..1 (default: the scene's, else 0: off)"},
    {"--preset", CLI_OPT_PRESET, "low|medium|high|ultra",
     "quality preset: render scale, shadow size and filter, AO, TAA, bloom and plant density "
     "from one table; any of them given on its own still wins (default: the scene's)"},
    {"--scale", CLI_OPT_SCALE, "S",
     "render scale: every pass at the size times S (0.25..1, clamped), stretched to the size"},
    {"--channel", CLI_OPT_CHANNEL, "NAME",
     "write a buffer instead of the picture: albedo, normal, ao (PNG), depth or motion (PFM)"},
    {"--hour", CLI_OPT_HOUR, "H",
     "time of day 0..24 (local standard time): sun or moon, sky and light from it"},
    {"--forest", CLI_OPT_FOREST, "M",
     "metres of forest round the eye, casting shadows, in worlds that grow one (0: none; meadow "
     "default: 400, no tree shadows)"},
    {"--count", CLI_OPT_COUNT, "N",
     "figures in worlds with a crowd, particles in the fountain, rocks in dense, 1..1048576 "
     "(crowd default: 20,000; fountain: 100,000; dense: 320, at most 4,096)"},
    {"--terrain", CLI_OPT_TERRAIN, "on|off",
     "the crowd on the meadow's terrain under its sky (default: off, open ground)"},
    {"--foot-ik", CLI_OPT_FOOT_IK, "on|off", "the crowd's near figures' foot IK (default: on)"},
    {"--focus", CLI_OPT_FOCUS, "M", "depth of field: the lens focused this many metres away"},
    {"--clouds", CLI_OPT_CLOUDS, "C",
     "volumetric clouds covering this share of the sky, 0..1, with their shadows (0: none)"},
    {"--fog", CLI_OPT_FOG, "D",
     "volumetric height fog: extinction per metre at y = 0, thinning upward (0: none; 0.02 is "
     "a light haze)"},
    {"--weather", CLI_OPT_WEATHER, "KIND[:AMOUNT]",
     "weather: clear, cloudy, overcast, rain, storm, snow or dust, amount 0..1 (default 1): "
     "fog, clouds, light, wetness or snow, rain and snow falling, lightning"},
    {"--occlusion", CLI_OPT_OCCLUSION, "on|off",
     "occlusion culling: the cpu by a coarse depth grid of the largest draws, vulkan and gl by "
     "two-pass Hi-Z (default: off; the picture is the same)"},
    {"--path", CLI_OPT_PATH, "SHARE",
     "the share of the world's camera path the timed frames cover, 0..1 (default 1: the whole "
     "path, a fast flight; 0.05 over 600 frames is about 0.3 m a frame on the meadow)"},
    {"--plants", CLI_OPT_PLANTS, "SHARE",
     "the meadow's share of grass and flowers, 0..1 but not 0 (default: the preset's; without "
     "one 1 on vulkan and gl, else 0.1); bench reports each stream's instances in view"},
    {"--plant-reach", CLI_OPT_PLANT_REACH, "M",
     "metres the meadow's grass reaches, 1..20000 (default: the preset's; without one 1000 "
     "with --plants or on vulkan and gl, else 300)"},
    {"--rocks", CLI_OPT_ROCKS, "N",
     "the meadow's rocks a hectare where the ground takes the most, 0..1000 (0: the default, "
     "80; -1: none)"},
    {"--lod-scale", CLI_OPT_LOD_SCALE, "X",
     "the factor on every instance stream's LOD distances, 0.125..8 (oak_camera.lod_scale "
     "pinned; default: the render's projected size, 1 at 1080 lines)"},
    {"--aperture", CLI_OPT_APERTURE, "N",
     "the lens's f-number (depth of field; default 2.8; the exposure too unless --ev100 or the "
     "world fixes it)"},
};

#define SPEC_COUNT (sizeof g_specs / sizeof g_specs[0])

void _oak_cli_print_options(FILE *f, uint64_t allowed) {
    for (size_t i = 0; i < SPEC_COUNT; i++) {
        if (!(allowed & g_specs[i].flag) || !g_specs[i].help) continue;
        char left[40];
        snprintf(left, sizeof left, "%s%s%s", g_specs[i].name, g_specs[i].value ? " " : "",
                 g_specs[i].value ? g_specs[i].value : "");
        fprintf(f, "  %-22s %s\n", left, g_specs[i].help);
    }
}

/* A whole decimal number in [lo, hi]; no sign, no spaces, no trailing text. */
static bool parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out) {
    if (!s || *s < '0' || *s > '9') return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = (uint32_t)v;
    return true;
}

/* KIND or KIND:AMOUNT, AMOUNT a number in [0, 1] (1 when not given) */
bool _oak_cli_parse_weather(const char *s, oak_weather_kind *kind, float *amount) {
    const char *colon = strchr(s, ':');
    size_t n = colon ? (size_t)(colon - s) : strlen(s);
    for (uint32_t k = 0; k < OAK_WEATHER_COUNT; k++) {
        const char *name = oak_weather_name((oak_weather_kind)k);
        if (strlen(name) != n || strncmp(name, s, n)) continue;
        float a = 1.0f;
        if (colon) {
            char *end = NULL;
            a = strtof(colon + 1, &end);
            if (!colon[1] || *end || !(a >= 0 && a <= 1)) return false;
        }
        *kind = (oak_weather_kind)k;
        *amount = a;
        return true;
    }
    return false;
}

static int usage_error(const cli_options *o, const char *fmt, ...) OAK_PRINTF(2, 3);
static int usage_error(const cli_options *o, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "oak %s: ", o->command);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (oak help %s lists the options)\n", o->command);
    return CLI_EXIT_USAGE;
}

int _oak_cli_parse_size(const cli_options *o, const char *name, const char *v, uint32_t *w_out,
                        uint32_t *h_out) {
    const char *x = strchr(v, 'x');
    if (!x || x == v || !x[1] || strchr(x + 1, 'x'))
        return usage_error(o, "%s '%s': expected WxH, such as 1280x720", name, v);
    char w[16];
    size_t n = (size_t)(x - v);
    if (n >= sizeof w)
        return usage_error(o, "%s '%s': each side must be 1..%d", name, v, OAK_MAX_OUTPUT_SIZE);
    memcpy(w, v, n);
    w[n] = 0;
    /* Digits only, then the value: 4294967297 is too big, not 1 (no wrap). */
    const char *h = x + 1;
    if (!n || strspn(w, "0123456789") != n || strspn(h, "0123456789") != strlen(h))
        return usage_error(o, "%s '%s': expected WxH, such as 1280x720", name, v);
    if (!parse_u32(w, 1, OAK_MAX_OUTPUT_SIZE, w_out) ||
        !parse_u32(h, 1, OAK_MAX_OUTPUT_SIZE, h_out))
        return usage_error(o, "%s '%s': each side must be 1..%d", name, v, OAK_MAX_OUTPUT_SIZE);
    if ((uint64_t)*w_out * *h_out > OAK_MAX_OUTPUT_PIXELS)
        return usage_error(o, "%s '%s': %llu pixels exceed OAK_MAX_OUTPUT_PIXELS (%d)", name, v,
                           (unsigned long long)*w_out * *h_out, OAK_MAX_OUTPUT_PIXELS);
    return 0;
}

int _oak_cli_parse_float(const cli_options *o, const char *name, const char *v, float lo, float hi,
                         float *out) {
    errno = 0;
    char *end = NULL;
    double d = v && *v ? strtod(v, &end) : NAN;
    /* strtod takes "nan", "inf" and 1e39 (float's infinity): none is a number here. */
    if (!end || *end || errno || !isfinite(d) || d < lo || d > hi)
        return usage_error(o, "%s '%s': expected a finite number %g..%g", name, v ? v : "", lo, hi);
    *out = (float)d;
    return 0;
}

int _oak_cli_parse_camera(cli_options *o, const char *name, const char *v) {
    if (!strcmp(name, "--ev100")) {
        o->ev100_set = true;
        return _oak_cli_parse_float(o, name, v, (float)OAK_EV100_MIN, (float)OAK_EV100_MAX,
                                    &o->ev100);
    }
    if (!strcmp(name, "--exposure-comp"))
        return _oak_cli_parse_float(o, name, v, -16, 16, &o->exposure_comp);
    if (!strcmp(name, "--focus")) return _oak_cli_parse_float(o, name, v, 0.01f, 1e5f, &o->focus);
    if (!strcmp(name, "--taa-sharpen")) {
        o->taa_sharpen_set = true;
        return _oak_cli_parse_float(o, name, v, 0, 1, &o->taa_sharpen);
    }
    if (!strcmp(name, "--clouds")) {
        o->clouds_set = true;
        return _oak_cli_parse_float(o, name, v, 0, 1, &o->clouds);
    }
    if (!strcmp(name, "--fog")) {
        o->fog_set = true;
        return _oak_cli_parse_float(o, name, v, 0, 10, &o->fog);
    }
    /* any positive scale: the setter clamps it to [0.25, 1] and says so */
    if (!strcmp(name, "--scale")) return _oak_cli_parse_float(o, name, v, 0.001f, 1e3f, &o->scale);
    if (!strcmp(name, "--aperture"))
        return _oak_cli_parse_float(o, name, v, 0.5f, 64.0f, &o->aperture);
    if (!strcmp(name, "--preset")) {
        /* by name here (oak_preset_from_name would log its own line too) */
        o->preset = OAK_PRESET_DEFAULT;
        for (int p = OAK_PRESET_LOW; v && p < OAK_PRESET_COUNT; p++)
            if (!strcmp(v, oak_preset_name((oak_preset)p))) o->preset = (oak_preset)p;
        if (!o->preset)
            return usage_error(o, "--preset '%s': expected low, medium, high or ultra", v ? v : "");
        return 0;
    }
    if (!strcmp(name, "--bloom") || !strcmp(name, "--adapt") || !strcmp(name, "--taa")) {
        bool bloom = !strcmp(name, "--bloom");
        if (!v || (strcmp(v, "on") && strcmp(v, "off")))
            return usage_error(o, "%s '%s': expected on or off", name, v ? v : "");
        bool on = !strcmp(v, "on");
        if (!strcmp(name, "--taa"))
            o->taa = on ? OAK_TAA_ON : OAK_TAA_OFF;
        else if (bloom)
            o->bloom = on ? OAK_BLOOM_ON : OAK_BLOOM_OFF;
        else
            o->adapt = on ? 1 : -1;
        return 0;
    }
    if (v && !strcmp(v, "aces"))
        o->tone = OAK_TONE_ACES;
    else if (v && !strcmp(v, "neutral"))
        o->tone = OAK_TONE_NEUTRAL;
    else
        return usage_error(o, "--tone '%s': expected aces or neutral", v ? v : "");
    return 0;
}

void _oak_cli_apply_camera(const cli_options *o, oak_post *post) {
    if (o->ev100_set) {
        post->exposure = 0; /* the scene's own exposure gives way */
        post->ev100 = o->ev100;
        post->ev100_set = true;
    }
    post->exposure_comp += o->exposure_comp;
    if (o->tone) post->tone = o->tone;
    if (o->bloom) post->bloom = o->bloom;
    if (o->taa) post->taa = o->taa;
    if (o->taa_sharpen_set) post->taa_sharpen = o->taa_sharpen;
    if (o->preset) post->preset = o->preset;
    if (o->adapt) post->adapt = o->adapt > 0;
    if (o->focus > 0) post->focus_distance = o->focus;
    if (o->aperture > 0) post->aperture = o->aperture;
    float adopted;
    if (o->scale > 0 && oak_post_set_render_scale(post, o->scale, &adopted) == OAK_OK &&
        adopted != o->scale)
        fprintf(stderr, "oak %s: --scale %g clamped to %g\n", o->command, (double)o->scale,
                (double)adopted);
}

void _oak_cli_apply_clouds(const cli_options *o, oak_environment *env) {
    if (o->clouds_set) env->clouds.coverage = o->clouds;
    /* --fog D: height fog of D per metre at y = 0, thinning by 1/e each
       50 metres up, glowing toward the key light */
    if (o->fog_set) {
        env->fog.density = o->fog;
        if (env->fog.falloff == 0) env->fog.falloff = 1.0f / 50.0f;
        if (env->fog.anisotropy == 0) env->fog.anisotropy = 0.5f;
    }
}

static int set_option(cli_options *o, const option_spec *s, const char *v) {
    switch (s->flag) {
    case CLI_OPT_WORLD:
        o->world = v;
        break;
    case CLI_OPT_SCENE:
        o->scene = v;
        break;
    case CLI_OPT_ASSET_ROOT:
        o->asset_root = v;
        break;
    case CLI_OPT_BACKEND:
        o->backend = v;
        break;
    case CLI_OPT_DEVICE:
        o->device = v;
        break;
    case CLI_OPT_SIZE:
        return _oak_cli_parse_size(o, "--size", v, &o->width, &o->height);
    case CLI_OPT_FRAMES:
        if (!parse_u32(v, 1, 100000, &o->frames))
            return usage_error(o, "--frames '%s': expected a whole number 1..100000", v);
        break;
    case CLI_OPT_WARMUP:
        if (!parse_u32(v, 0, 10000, &o->warmup))
            return usage_error(o, "--warmup '%s': expected a whole number 0..10000", v);
        o->warmup_set = true;
        break;
    case CLI_OPT_OUT:
        o->out = v;
        break;
    case CLI_OPT_JSON:
        o->json = true;
        break;
    case CLI_OPT_COMPARE:
        o->compare = v;
        break;
    case CLI_OPT_THREADS:
        if (!parse_u32(v, 1, OAK_JOB_MAX_THREADS, &o->threads))
            return usage_error(o, "--threads '%s': expected a whole number 1..%d", v,
                               OAK_JOB_MAX_THREADS);
        break;
    case CLI_OPT_VERBOSE:
        o->verbose = true;
        break;
    case CLI_OPT_WINDOW:
        o->window = true;
        break;
    case CLI_OPT_NO_VSYNC:
        o->no_vsync = true;
        break;
    case CLI_OPT_WINDOW_CAPTURE:
        o->window_capture = v;
        break;
    case CLI_OPT_WINDOW_RESIZE:
        return _oak_cli_parse_size(o, "--window-resize", v, &o->window_resize_w,
                                   &o->window_resize_h);
    case CLI_OPT_SKY:
        o->sky = v;
        break;
    case CLI_OPT_FLY_SCRIPT: {
        char why[96];
        if (!_oak_window_script_ok(v, why, sizeof why))
            return usage_error(o, "--fly-script '%s': %s", v, why);
        o->fly_script = v;
        break;
    }
    case CLI_OPT_DEBUG:
        if (strcmp(v, "cascades") == 0)
            o->debug = OAK_DEBUG_CASCADES;
        else if (strcmp(v, "clusters") == 0)
            o->debug = OAK_DEBUG_CLUSTERS;
        else if (strcmp(v, "lamp-shadows") == 0)
            o->debug = OAK_DEBUG_LAMP_SHADOWS;
        else if (strcmp(v, "ao") == 0)
            o->debug = OAK_DEBUG_AO;
        else if (strcmp(v, "motion") == 0)
            o->debug = OAK_DEBUG_MOTION;
        else
            return usage_error(
                o, "--debug '%s': expected cascades, clusters, lamp-shadows, ao or motion", v);
        break;
    case CLI_OPT_OVERLAY:
        if (!v || (strcmp(v, "on") && strcmp(v, "off")))
            return usage_error(o, "--overlay '%s': expected on or off", v ? v : "");
        o->overlay_off = strcmp(v, "on") != 0;
        break;
    case CLI_OPT_TERRAIN:
        if (!v || (strcmp(v, "on") && strcmp(v, "off")))
            return usage_error(o, "--terrain '%s': expected on or off", v ? v : "");
        o->terrain = strcmp(v, "on") ? -1 : 1;
        break;
    case CLI_OPT_FOOT_IK:
        if (!v || (strcmp(v, "on") && strcmp(v, "off")))
            return usage_error(o, "--foot-ik '%s': expected on or off", v ? v : "");
        o->foot_ik = strcmp(v, "on") ? -1 : 1;
        break;
    case CLI_OPT_OCCLUSION:
        if (!v || (strcmp(v, "on") && strcmp(v, "off")))
            return usage_error(o, "--occlusion '%s': expected on or off", v ? v : "");
        o->occlusion = strcmp(v, "on") ? OAK_OCCLUSION_OFF : OAK_OCCLUSION_ON;
        break;
    case CLI_OPT_EV100:
    case CLI_OPT_EXPOSURE_COMP:
    case CLI_OPT_TONE:
    case CLI_OPT_BLOOM:
    case CLI_OPT_TAA:
    case CLI_OPT_ADAPT:
    case CLI_OPT_FOCUS:
    case CLI_OPT_APERTURE:
    case CLI_OPT_PRESET:
    case CLI_OPT_SCALE:
    case CLI_OPT_CLOUDS:
    case CLI_OPT_FOG:
    case CLI_OPT_TAA_SHARPEN:
        return _oak_cli_parse_camera(o, s->name, v);
    case CLI_OPT_CHANNEL:
        o->channel = OAK_CHANNEL_NONE;
        for (uint32_t c = 1; c < OAK_CHANNEL_COUNT; c++)
            if (!strcmp(v, oak_channel_name((oak_channel)c))) o->channel = (oak_channel)c;
        if (!o->channel)
            return usage_error(o, "--channel '%s': expected albedo, normal, depth, motion or ao",
                               v);
        break;
    case CLI_OPT_COUNT:
        if (_oak_cli_parse_float(o, "--count", v, 1, (float)OAK_CROWD_MAX, &o->count))
            return CLI_EXIT_USAGE;
        if (o->count != floorf(o->count))
            return usage_error(o, "--count '%s': expected a whole number of figures", v);
        break;
    case CLI_OPT_PATH:
        o->path_set = true;
        return _oak_cli_parse_float(o, "--path", v, 0, 1, &o->path);
    case CLI_OPT_PLANTS: {
        /* (0, 1]: no meadow grows none of its plants (a world option of 0 is its default) */
        char *end = NULL;
        errno = 0;
        double d = *v ? strtod(v, &end) : NAN;
        if (!end || *end || errno || !isfinite(d) || !(d > 0 && d <= 1) || (float)d <= 0)
            return usage_error(o, "--plants '%s': expected a share of the plants, 0..1 but not 0",
                               v);
        o->plants = (float)d;
        break;
    }
    case CLI_OPT_PLANT_REACH:
        return _oak_cli_parse_float(o, "--plant-reach", v, 1, 20000, &o->plant_reach);
    case CLI_OPT_ROCKS: {
        /* -1 or 0..1000, as oak_world_options.rocks takes them */
        char *end = NULL;
        errno = 0;
        double d = *v ? strtod(v, &end) : NAN;
        if (!end || *end || errno || !isfinite(d) || !(d == -1 || (d >= 0 && d <= 1000)))
            return usage_error(o, "--rocks '%s': expected rocks a hectare, 0..1000, or -1 for none",
                               v);
        o->rocks = (float)d;
        break;
    }
    case CLI_OPT_LOD_SCALE: /* the range oak_camera.lod_scale clamps a pin to */
        return _oak_cli_parse_float(o, "--lod-scale", v, (float)OAK_LOD_SCALE_MIN,
                                    (float)OAK_LOD_SCALE_PIN_MAX, &o->lod_scale);
    case CLI_OPT_FOREST:
        o->forest_set = true;
        return _oak_cli_parse_float(o, "--forest", v, 0, 20000, &o->forest);
    case CLI_OPT_WEATHER:
        /* parsed here, not by oak_weather_parse, whose error would be a
           second line before the usage line */
        if (!_oak_cli_parse_weather(v, &o->weather, &o->weather_amount))
            return usage_error(o,
                               "--weather '%s': expected KIND[:AMOUNT], KIND one of clear, "
                               "cloudy, overcast, rain, storm, snow, dust and AMOUNT 0..1",
                               v);
        o->weather_set = true;
        break;
    case CLI_OPT_HOUR:
        o->hour_set = true;
        return _oak_cli_parse_float(o, "--hour", v, 0, 24, &o->hour);
    case CLI_OPT_AO:
        if (strcmp(v, "on") == 0)
            o->ao = OAK_AO_ON;
        else if (strcmp(v, "off") == 0)
            o->ao = OAK_AO_OFF;
        else
            return usage_error(o, "--ao '%s': expected on or off", v);
        break;
    }
    if (s->value && !*v) return usage_error(o, "%s: empty value", s->name);
    return 0;
}

int _oak_cli_parse(cli_options *o, int argc, char **argv, uint64_t allowed) {
    memset(o, 0, sizeof *o);
    o->command = argv[0];
    o->backend = "auto";
    o->width = 1280;
    o->height = 720;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *eq = strchr(arg, '=');
        size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
        const option_spec *spec = NULL;
        for (size_t k = 0; k < SPEC_COUNT; k++)
            if ((allowed & g_specs[k].flag) && strlen(g_specs[k].name) == len &&
                !strncmp(g_specs[k].name, arg, len))
                spec = &g_specs[k];
        if (!spec) return usage_error(o, "unknown option '%s'", arg);
        const char *value = NULL;
        if (spec->value) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else
                return usage_error(o, "%s needs a value (%s)", spec->name, spec->value);
        } else if (eq) {
            return usage_error(o, "%s takes no value", spec->name);
        }
        int r = set_option(o, spec, value);
        if (r) return r;
    }
    if (o->asset_root && !o->scene)
        return usage_error(o, "--asset-root '%s' needs --scene", o->asset_root);
    if (o->world && o->scene)
        return usage_error(o, "--world and --scene name two things to draw; give one");
    if (o->window_capture && !o->window)
        return usage_error(o, "--window-capture '%s' needs --window", o->window_capture);
    if (o->window_resize_w && !o->window) return usage_error(o, "--window-resize needs --window");
    if (o->fly_script && !o->window) return usage_error(o, "--fly-script needs --window");
    if (o->no_vsync && !o->window) return usage_error(o, "--no-vsync needs --window");
    if ((allowed & CLI_OPT_WORLD) && !o->world && !o->scene) o->world = "default";
    if (o->compare && strcmp(o->backend, "auto") != 0)
        return usage_error(o, "--compare '%s' replaces --backend '%s'; give one", o->compare,
                           o->backend);
    return 0;
}
