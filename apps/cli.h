/* Shared pieces of the oak command line: parsed options, the engine and
 * scene/renderer setup every drawing command needs, and one entry point per
 * command (main.c's table dispatches to them). */
#ifndef OAK_CLI_H
#define OAK_CLI_H

#include <stdio.h>

#include <oak/oak.h>

/* Exit statuses: 1 when the input names something bad or a step fails, 2
   when the command line itself is malformed. */
#define CLI_EXIT_FAIL  1
#define CLI_EXIT_USAGE 2

enum cli_option_flag {
    CLI_OPT_WORLD = 1u << 0,
    CLI_OPT_SCENE = 1u << 1,
    CLI_OPT_BACKEND = 1u << 2,
    CLI_OPT_DEVICE = 1u << 3,
    CLI_OPT_SIZE = 1u << 4,
    CLI_OPT_FRAMES = 1u << 5,
    CLI_OPT_WARMUP = 1u << 6,
    CLI_OPT_OUT = 1u << 7,
    CLI_OPT_JSON = 1u << 8,
    CLI_OPT_COMPARE = 1u << 9,
    CLI_OPT_THREADS = 1u << 10,
    CLI_OPT_VERBOSE = 1u << 11,
    CLI_OPT_WINDOW = 1u << 12,
    CLI_OPT_WINDOW_CAPTURE = 1u << 13, /* for tests; not in help */
    CLI_OPT_WINDOW_RESIZE = 1u << 14,  /* for tests; not in help */
    CLI_OPT_ASSET_ROOT = 1u << 15,
    CLI_OPT_DEBUG = 1u << 16,
    CLI_OPT_AO = 1u << 17,
    CLI_OPT_SKY = 1u << 18,
    CLI_OPT_EV100 = 1u << 19, /* the camera: --ev100, --exposure-comp, --tone */
    CLI_OPT_EXPOSURE_COMP = 1u << 20,
    CLI_OPT_TONE = 1u << 21,
    CLI_OPT_BLOOM = 1u << 22,      /* --bloom on|off */
    CLI_OPT_ADAPT = 1u << 23,      /* --adapt on|off: eye adaptation */
    CLI_OPT_HOUR = 1u << 24,       /* --hour: the time of day */
    CLI_OPT_FOCUS = 1u << 27,      /* --focus M: depth of field focused there */
    CLI_OPT_APERTURE = 1u << 28,   /* --aperture N: the lens's f-number */
    CLI_OPT_TAA = 1u << 25,        /* --taa on|off: temporal anti-aliasing */
    CLI_OPT_FLY_SCRIPT = 1u << 30, /* for tests; not in help */
    CLI_OPT_PRESET = 1u << 31,     /* --preset low|medium|high|ultra */
    CLI_OPT_SCALE = 1u << 26,      /* --scale S: render scale 0.25..1 */
    CLI_OPT_CHANNEL = 1u << 29,    /* --channel NAME: a capture channel instead */
};
/* past the enum's 32 bits (an enum constant must fit an int) */
#define CLI_OPT_FOREST (1ull << 32) /* --forest M: metres of forest a world grows round the eye */
#define CLI_OPT_CLOUDS                                                                             \
    (1ull << 33) /* --clouds C: volumetric clouds covering that share of the sky */
#define CLI_OPT_FOG         (1ull << 34) /* --fog D: volumetric height fog of that density per metre */
#define CLI_OPT_TAA_SHARPEN (1ull << 35) /* --taa-sharpen S: TAA's sharpen, 0..1 */
#define CLI_OPT_OCCLUSION   (1ull << 36) /* --occlusion on|off: occlusion culling */
#define CLI_OPT_WEATHER     (1ull << 37) /* --weather KIND[:AMOUNT]: the scene's weather */
#define CLI_OPT_OVERLAY     (1ull << 38) /* --overlay on|off: the window's timings panel */
#define CLI_OPT_COUNT       (1ull << 39) /* --count N: figures in a world's crowd */
#define CLI_OPT_TERRAIN     (1ull << 40) /* --terrain on|off: the crowd on the meadow's terrain */
#define CLI_OPT_FOOT_IK     (1ull << 41) /* --foot-ik on|off: the crowd's near figures' foot IK */
#define CLI_OPT_NO_VSYNC    (1ull << 42) /* --no-vsync: the window presents without waiting */
#define CLI_OPT_PATH        (1ull << 43) /* --path SHARE: the share of the camera path bench covers */
#define CLI_OPT_PLANTS      (1ull << 44) /* --plants SHARE: the meadow's share of grass and flowers */
#define CLI_OPT_PLANT_REACH (1ull << 45) /* --plant-reach M: metres the meadow's grass reaches */
#define CLI_OPT_ROCKS       (1ull << 46) /* --rocks N: the meadow's rocks a hectare (-1: none) */
#define CLI_OPT_LOD_SCALE   (1ull << 47) /* --lod-scale X: oak_camera.lod_scale pinned */

/* What each command accepts (its parser and `oak help COMMAND` read the same set). */
#define CLI_RENDER_OPTIONS                                                                         \
    (CLI_OPT_WORLD | CLI_OPT_SCENE | CLI_OPT_ASSET_ROOT | CLI_OPT_BACKEND | CLI_OPT_DEVICE |       \
     CLI_OPT_SIZE | CLI_OPT_FRAMES | CLI_OPT_OUT | CLI_OPT_THREADS | CLI_OPT_VERBOSE |             \
     CLI_OPT_WINDOW | CLI_OPT_WINDOW_CAPTURE | CLI_OPT_WINDOW_RESIZE | CLI_OPT_FLY_SCRIPT |        \
     CLI_OPT_NO_VSYNC | CLI_OPT_OVERLAY | CLI_OPT_DEBUG | CLI_OPT_AO | CLI_OPT_SKY |               \
     CLI_OPT_EV100 | CLI_OPT_EXPOSURE_COMP | CLI_OPT_TONE | CLI_OPT_BLOOM | CLI_OPT_ADAPT |        \
     CLI_OPT_HOUR | CLI_OPT_TAA | CLI_OPT_FOCUS | CLI_OPT_APERTURE | CLI_OPT_PRESET |              \
     CLI_OPT_SCALE | CLI_OPT_CHANNEL | CLI_OPT_FOREST | CLI_OPT_CLOUDS | CLI_OPT_FOG |             \
     CLI_OPT_TAA_SHARPEN | CLI_OPT_OCCLUSION | CLI_OPT_WEATHER | CLI_OPT_COUNT | CLI_OPT_TERRAIN | \
     CLI_OPT_FOOT_IK | CLI_OPT_PLANTS | CLI_OPT_PLANT_REACH | CLI_OPT_ROCKS | CLI_OPT_LOD_SCALE)
#define CLI_BENCH_OPTIONS                                                                          \
    (CLI_OPT_WORLD | CLI_OPT_SCENE | CLI_OPT_ASSET_ROOT | CLI_OPT_BACKEND | CLI_OPT_DEVICE |       \
     CLI_OPT_SIZE | CLI_OPT_FRAMES | CLI_OPT_WARMUP | CLI_OPT_JSON | CLI_OPT_COMPARE |             \
     CLI_OPT_THREADS | CLI_OPT_VERBOSE | CLI_OPT_AO | CLI_OPT_EV100 | CLI_OPT_EXPOSURE_COMP |      \
     CLI_OPT_TONE | CLI_OPT_BLOOM | CLI_OPT_ADAPT | CLI_OPT_HOUR | CLI_OPT_TAA | CLI_OPT_FOCUS |   \
     CLI_OPT_APERTURE | CLI_OPT_PRESET | CLI_OPT_SCALE | CLI_OPT_FOREST | CLI_OPT_CLOUDS |         \
     CLI_OPT_FOG | CLI_OPT_TAA_SHARPEN | CLI_OPT_OCCLUSION | CLI_OPT_WEATHER | CLI_OPT_COUNT |     \
     CLI_OPT_TERRAIN | CLI_OPT_FOOT_IK | CLI_OPT_PATH | CLI_OPT_PLANTS | CLI_OPT_PLANT_REACH |     \
     CLI_OPT_ROCKS | CLI_OPT_LOD_SCALE)
#define CLI_INFO_OPTIONS (CLI_OPT_THREADS | CLI_OPT_VERBOSE)

typedef struct cli_options {
    const char *command;
    const char *world; /* NULL with --scene */
    const char *scene;
    const char *asset_root; /* --asset-root: where the scene's files may lie */
    const char *backend;    /* "auto" unless given */
    const char *device;
    uint32_t width, height;
    uint32_t frames; /* 0: the command's default */
    uint32_t warmup;
    bool warmup_set;
    const char *out;
    bool json;
    const char *compare; /* comma-separated backends */
    uint32_t threads;
    bool verbose;
    bool window;                /* --window: show the frames in a GLFW window */
    bool no_vsync;              /* --no-vsync: Vulkan's mailbox/immediate, GL's interval 0 */
    const char *window_capture; /* --window-capture: the window's last frame as a PNG */
    bool overlay_off;           /* --overlay off: no timings panel over the window */
    uint32_t window_resize_w, window_resize_h; /* --window-resize: after the first frame */
    const char *fly_script; /* --fly-script: keys held for frames instead of the user's */
    oak_debug_view debug;   /* --debug: a diagnostic picture */
    oak_ao_mode ao;         /* --ao on|off: ambient occlusion */
    const char *sky;        /* --sky: an equirectangular image as the sky (background and light) */
    float ev100;            /* --ev100, with ev100_set: a fixed camera exposure */
    bool ev100_set;
    float exposure_comp;  /* --exposure-comp: stops on top of the scene's exposure */
    oak_tone_curve tone;  /* --tone aces|neutral */
    oak_bloom_mode bloom; /* --bloom on|off (default: the command's) */
    int adapt;            /* --adapt: 1 on, -1 off, 0 the command's default */
    oak_taa_mode taa;     /* --taa on|off (default: the scene's, else off) */
    float hour;           /* --hour, with hour_set: the time of day (oak_world_set_time) */
    float focus;          /* --focus: metres the lens is focused at (0: no depth of field) */
    float aperture;       /* --aperture: the f-number (0: the scene's) */
    bool hour_set;
    oak_preset preset;   /* --preset (0: the scene's) */
    float scale;         /* --scale: the render scale asked for (0: the scene's) */
    oak_channel channel; /* --channel: a capture channel written instead of the picture */
    float forest;        /* --forest, with forest_set: metres of forest (0: none) */
    float count;         /* --count: figures in a world's crowd (0: the world's default) */
    int32_t terrain;     /* --terrain: 1 on, -1 off, 0 the world's default */
    int32_t foot_ik;     /* --foot-ik: 1 on, -1 off, 0 the world's default */
    bool forest_set;
    float clouds; /* --clouds, with clouds_set: the clouds' coverage (0: none) */
    bool clouds_set;
    float fog; /* --fog, with fog_set: the volumetric fog's density per metre (0: none) */
    bool fog_set;
    float taa_sharpen; /* --taa-sharpen, with taa_sharpen_set: TAA's sharpen (0: off) */
    bool taa_sharpen_set;
    oak_occlusion_mode occlusion; /* --occlusion on|off (default: off) */
    oak_weather_kind weather;     /* --weather, with weather_set (oak_world_set_weather) */
    float weather_amount;
    bool weather_set;
    float path; /* --path, with path_set: the share of the world's camera path the timed frames
                   cover */
    bool path_set;
    float plants;      /* --plants: the meadow's share of its plants, (0, 1] (0: the default) */
    float plant_reach; /* --plant-reach: metres its grass reaches (0: the default) */
    float rocks;       /* --rocks: its rocks a hectare (0: the default, -1: none) */
    /* --lod-scale: the camera's lod_scale pinned (0: the view's own, by its
       projected size) */
    float lod_scale;
} cli_options;

/* The camera options above written over a scene's post settings. */
void _oak_cli_apply_camera(const cli_options *opts, oak_post *post);
/* --clouds and --fog written over a scene's environment (its other cloud
   and fog settings kept). */
void _oak_cli_apply_clouds(const cli_options *opts, oak_environment *env);
/* One camera option (--ev100, --exposure-comp, --tone, --bloom, --adapt, --focus,
   --aperture, --scale) into opts: 0, or one
   usage line and CLI_EXIT_USAGE; also used by `oak view`'s own parser. */
int _oak_cli_parse_camera(cli_options *opts, const char *name, const char *value);

/* Parses argv[1..] (argv[0] is the command name) accepting the options in
   `allowed`; on a malformed line prints one line to stderr and returns
   CLI_EXIT_USAGE, else 0. */
int _oak_cli_parse(cli_options *opts, int argc, char **argv, uint64_t allowed);
void _oak_cli_print_options(FILE *f, uint64_t allowed);
/* WxH within OAK_MAX_OUTPUT_SIZE a side and OAK_MAX_OUTPUT_PIXELS in all, and a
   finite number in [lo, hi]: 0, or one usage line and CLI_EXIT_USAGE. */
int _oak_cli_parse_size(const cli_options *opts, const char *name, const char *value,
                        uint32_t *width, uint32_t *height);
/* --weather's KIND[:AMOUNT] (amount 1 when not given), without logging: false when malformed. */
bool _oak_cli_parse_weather(const char *value, oak_weather_kind *kind, float *amount);
int _oak_cli_parse_float(const cli_options *opts, const char *name, const char *value, float lo,
                         float hi, float *out);

/* Starts the engine with the CLI's log (warnings to stderr, errors held for
   the one line the command prints). Returns 0 or CLI_EXIT_FAIL. */
int _oak_cli_start(const cli_options *opts);
/* Prints "oak <command>: <oak_last_error()>" and returns CLI_EXIT_FAIL. */
int _oak_cli_fail(const cli_options *opts);
int _oak_cli_failf(const cli_options *opts, const char *fmt, ...) OAK_PRINTF(2, 3);

/* Checks a backend name against those compiled in ("auto" is always fine). */
int _oak_cli_check_backend(const cli_options *opts, const char *backend);
/* Builds the world or loads the scene file the options name (with --sky's image as its sky). */
int _oak_cli_open_scene(const cli_options *opts, oak_scene **out);
/* Applies the scene's time of day, or --hour's over it (oak_world_set_time),
   then the scene's weather, or --weather's over it (oak_world_set_weather). */
oak_result _oak_cli_apply_time(const cli_options *opts, oak_scene *scene);
/* Frame `index`'s world time on a 60 Hz tick: the built-in world's update,
   or a scene file's particles stepped on from the clock it was saved at. */
oak_result _oak_cli_world_tick(const cli_options *opts, oak_scene *scene, uint32_t index);
/* The window's [ and ]: the scene's hour (noon if it had none) moved by
   `hours`, wrapped round midnight, and the sun, sky and light set from it;
   *now gets the new hour. */
oak_result _oak_cli_turn_clock(oak_scene *scene, float hours, float *now);
/* Makes the renderer at the scene's quality preset (its cascades' size);
   with auto, a fallback's reason goes to stderr. */
/* The settings the command line picks by the backend drawn on when the
 * user named none: the cpu's clouds at the low preset's march (by_backend
 * false: every backend at the library's, as --compare wants). */
void _oak_cli_backend_defaults(const oak_renderer *r, oak_post *post, bool by_backend);
int _oak_cli_open_renderer(const cli_options *opts, const char *backend, oak_scene *scene,
                           oak_renderer **out);
/* "default" for --world default, the file's stem for --scene dir/x.json. */
void _oak_cli_subject(const cli_options *opts, char *out, size_t size);

int _oak_cmd_render(int argc, char **argv);
int _oak_cmd_info(int argc, char **argv);
int _oak_cmd_view(int argc, char **argv); /* cmd_view.c: glTF viewer and --check */
int _oak_cmd_bake(int argc, char **argv); /* cmd_bake.c: the .oakm cache */
int _oak_cmd_bench(int argc, char **argv);

#endif
