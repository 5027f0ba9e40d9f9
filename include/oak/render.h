/* oak render: what the engine half hands the renderer each frame (camera, draw
 * columns, lights, environment, post settings) and the renderer object that
 * turns it into an oak_render_view and has the chosen backend draw it. */
#ifndef OAK_RENDER_H
#define OAK_RENDER_H

#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- camera, lights, environment, post -------------------------------- */

typedef struct oak_camera {
    float fov_y;        /* radians; 0: 60 degrees */
    float znear, zfar;  /* 0: 0.1 m and 2000 m */
    float ortho_height; /* > 0: orthographic, this many metres tall */
    float aspect;       /* 0: from the output size */
    /* the factor on every instance stream's LOD distances (config.h
       OAK_LOD_REFERENCE_HEIGHT): 0 (or NaN, negative) automatic, the
       render's pixels per radian over 1080 lines at 60 degrees, clamped to
       [1/8, 1], 1 when orthographic; > 0 pins it (1: distances as
       authored), clamped to [1/8, 8] */
    float lod_scale;
} oak_camera;

typedef enum oak_light_type {
    OAK_LIGHT_DEFAULT = 0, /* resolves to OAK_LIGHT_DIRECTIONAL */
    OAK_LIGHT_DIRECTIONAL,
    OAK_LIGHT_POINT,
    OAK_LIGHT_SPOT,
} oak_light_type;

/* Physical units as KHR_lights_punctual defines them: a directional light's
 * intensity is in lux, the illuminance it gives a surface facing it (a white
 * Lambert surface then shows intensity * cos(theta) / pi cd/m^2); point and
 * spot intensities are in candela, giving intensity / d^2 lux at distance d.
 * A clear noon sun is about 100,000 lux, seen through an EV100 near 15
 * (oak_post). The defaults below are small numbers meant for exposure 1. */
typedef struct oak_light {
    oak_light_type type;
    float color[3]; /* linear; start from oak_light_defaults() for white */
    float intensity;
    float range;      /* point/spot: smooth cut-off distance; 0: unlimited */
    float inner_cone; /* spot: radians from the axis at full strength */
    float outer_cone; /* spot: radians where it reaches zero; 0: pi/4 */
    /* directional key light: the sun's shadow map; point and spot: a slot
       in the lamp shadow budget (docs/SHADING.md "Lamp shadows") */
    bool cast_shadows;
} oak_light;

oak_light oak_light_defaults(oak_light_type type); /* white, intensity 1 (3 for the sun) */

/* Sky, ambient and fog. Colours named `_display` are given as they should
 * look on screen (sRGB); the frontend converts them to the radiance that
 * shows as that colour through exposure and the tone curve. */
/* A wind field (docs/WORLD.md "Grass"): a steady wind along `direction`
 * with gust fronts that travel along it at gust_speed, gust_wavelength
 * apart. oak_wind_shear gives its value at a place and time. */
typedef struct oak_wind {
    float direction[2];    /* (x, z), need not be unit; 0: +x */
    float strength;        /* steady wind, in the units a stream's sway is per; 0: still */
    float gust;            /* the gusts' share of strength on top, [0, 1] */
    float gust_wavelength; /* metres between gust fronts; 0: 40 */
    float gust_speed;      /* metres a second the fronts travel; 0: 6 */
    float time;            /* seconds */
} oak_wind;
/* A sphere that pushes and flattens swaying instances inside it (a
 * walker, a floater): outwards from its centre, more the nearer. */
typedef struct oak_bender {
    float center[3]; /* world metres */
    float radius;    /* metres; 0: none */
} oak_bender;
/* The wind's horizontal shear at world (x, z): metres a point 1 m above an
 * instance of sway 1 moves (out[0] along x, out[1] along z). The one CPU
 * evaluation of the field; shaders/common/bend.glsl is its GLSL twin. */
void oak_wind_shear(const oak_wind *wind, float x, float z, float out[2]);

/* Volumetric clouds (docs/SHADING.md "Volumetric clouds"): a layer between
 * two altitudes, its cover (and, with variation, its type) drawn from a
 * weather map over world XZ that the wind carries along; lit by the key
 * light and the sky, shadowing the ground. coverage 0: none (no pass runs,
 * the picture is as without). */
typedef struct oak_clouds {
    float coverage;  /* share of the sky covered, [0, 1]; 0: no clouds */
    float type;      /* 0 .. 1: flat stratus to tall cumulus; 0: OAK_CLOUD_TYPE */
    float density;   /* extinction per metre at full density; 0: OAK_CLOUD_EXTINCTION */
    float base;      /* metres above y = 0; 0: OAK_CLOUD_BASE */
    float top;       /* metres, above base; 0: OAK_CLOUD_TOP */
    float wind[2];   /* drift in metres a second along x and z; 0: still */
    float time;      /* seconds: the drift is wind * time */
    float variation; /* the weather map's type per place: type moved by up to this either way,
                        [0, 1]; 0: one type for the whole sky */
} oak_clouds;

/* Froxel volumetric fog (docs/SHADING.md "Volumetric fog"): height fog
 * plus up to OAK_FOG_VOLUMES local volumes, lit by the key light through
 * its cascades (and the clouds' shadow), the lamps of the light grid and
 * the sky light, integrated front to back and read by every surface and
 * the sky at its own depth. density 0 and no volume: off (the exp2 fog of
 * fog_density, if any, as before; volumetric fog replaces it when on). */
typedef enum oak_fog_shape {
    OAK_FOG_SHAPE_NONE = 0,
    OAK_FOG_SHAPE_BOX,       /* |P - center| <= half_size on each axis */
    OAK_FOG_SHAPE_ELLIPSOID, /* sum ((P - center) / half_size)^2 <= 1 */
} oak_fog_shape;
typedef struct oak_fog_volume {
    oak_fog_shape shape;
    float center[3];    /* world metres */
    float half_size[3]; /* metres, each > 0 */
    float density;      /* extinction per metre inside, added to the height fog's */
    float albedo[3];    /* single-scattering albedo, linear rgb in [0, 1] */
} oak_fog_volume;
typedef struct oak_fog {
    float density;         /* extinction per metre at base_height; 0: no height fog */
    float base_height;     /* metres */
    float falloff;         /* per metre: density * exp(-falloff (y - base_height)); 0: uniform */
    float albedo[3];       /* single-scattering albedo (its colour), rgb; 0: OAK_FOG_ALBEDO */
    float anisotropy;      /* Henyey-Greenstein g in (-1, 1): > 0 glows toward the light */
    float far;             /* view depth the froxels reach, metres; 0: OAK_FOG_FAR */
    uint32_t volume_count; /* at most OAK_FOG_VOLUMES */
    oak_fog_volume volumes[OAK_FOG_VOLUMES];
} oak_fog;

typedef struct oak_environment {
    float sky_zenith_display[3];  /* background straight up */
    float sky_horizon_display[3]; /* background at the horizon and below */
    /* The sky light (docs/SHADING.md "Sky and sky light"): the sky is captured and
       lights every surface (irradiance and prefiltered reflection). */
    float ambient_sky[3];    /* a level white card's diffuse sky light, linear (the
                                sky's captured light is scaled to give it); 0: as is */
    float ambient_ground[3]; /* radiance of the ground below the horizon, linear;
                                0: the sky below the horizon lights too */
    oak_texture sky_image;   /* equirectangular sky (an .hdr); id 0: the gradient */
    float fog_display[3];    /* colour far objects fade to */
    float fog_density;       /* exp2 fog: f = exp(-(density * distance)^2); 0: none */
    /* The key light's disc drawn over an image sky (docs/SHADING.md "Sky and
       sky light"): its angular radius in radians, its radiance the key
       light's illuminance over the disc's solid angle; 0: none. */
    float sun_disc;
    /* A water body's volume (docs/SHADING.md "Water"; world/water.c sets it
       each update): surfaces below water_level inside water_extent (scene
       min x, min z, max x, max z; all 0: everywhere), seen from above it, are
       seen through the water along the view ray from the still level. */
    bool water;
    float water_level;
    float water_extent[4];
    float water_absorption[3]; /* per metre (Beer-Lambert), linear rgb */
    float water_scatter[3];    /* radiance of deep water seen from above */
    float water_foam[3];       /* radiance of shore foam */
    float water_shore;         /* metres of depth over which shore foam fades out */
    float water_time;          /* seconds in [0, OAK_WATER_CAUSTIC_PERIOD): the caustics' phase */
    /* Wind and benders over instance streams with a `sway` (docs/WORLD.md
       "Grass"): each instance is sheared by oak_wind_shear at its position */
    oak_wind wind;
    uint32_t bender_count; /* at most OAK_BENDERS_MAX */
    oak_bender benders[OAK_BENDERS_MAX];
    oak_clouds clouds;
    oak_fog fog; /* volumetric fog (all 0: off) */
    /* Weather on surfaces (docs/SHADING.md "Weather"): wetness [0, 1] darkens
       and smooths up-facing porous dielectrics and, past half, pools
       puddles from a noise mask in world metres; snow [0, 1] whitens
       up-facing surfaces. 0: dry, bare (nothing extra is shaded). */
    float wetness;
    float snow;
    /* rain on the puddles [0, 1]: rings spread from drops (docs/SHADING.md
       "Weather"); rain_time their clock in seconds, wrapped at
       OAK_RIPPLE_WRAP by whoever sets it (weather does). 0: still water */
    float rain;
    float rain_time;
    /* times the sky (drawn, and as light: irradiance, reflections, what the
       clouds and fog take from it); weather's overcast dims it, lightning
       lifts it. 0: 1 */
    float sky_light;
    /* share of the sky pulled to a grey of its own luminance, [0, 1]: an
       overcast deck (DIGEST 2.3), drawn and as light; 0: none */
    float sky_grey;
    /* Aerial perspective (docs/SHADING.md "Aerial perspective";
       oak_world_set_time sets it): the key light's illuminance above the
       atmosphere in lux (0: none) toward aerial_dir (unit, toward the light);
       the air between the eye and each surface dims it and adds its light. */
    float aerial_lux;
    float aerial_dir[3];
} oak_environment;

oak_environment oak_environment_defaults(void); /* a clear blue day, no fog */

/* Diagnostic pictures (`oak render --debug NAME`). */
typedef enum oak_debug_view {
    OAK_DEBUG_NONE = 0,
    OAK_DEBUG_CASCADES,     /* lit surfaces tinted by their sun cascade: red, green, blue, yellow */
    OAK_DEBUG_CLUSTERS,     /* lit surfaces show their cell's lamp count as a heat map */
    OAK_DEBUG_LAMP_SHADOWS, /* the lamp shadow atlas over the picture (docs/SHADING.md) */
    OAK_DEBUG_AO,           /* the ambient occlusion term as grey (1 white: open) */
    OAK_DEBUG_MOTION,       /* motion vectors: red x, green y, 0.5 still (docs/SHADING.md) */
} oak_debug_view;

/* A capture channel (`oak render --channel NAME`, docs/SHADING.md "Capture
 * channels"): the frame holds that buffer instead of the picture, and no
 * post pass (TAA's blend, depth of field, eye adaptation, bloom, the BLEND
 * surfaces) runs over it; oak_renderer_read_channel gives it as floats. */
typedef enum oak_channel {
    OAK_CHANNEL_NONE = 0,
    OAK_CHANNEL_ALBEDO, /* base colour before light (linear rgb; 0 where no surface) */
    OAK_CHANNEL_NORMAL, /* world-space shading normal (unit xyz; 0 where no surface) */
    OAK_CHANNEL_DEPTH,  /* metres along the view axis (0 where no surface) */
    OAK_CHANNEL_MOTION, /* pixels (x right, y down) from now to last frame; z 1 valid, 0 not */
    OAK_CHANNEL_AO,     /* the gtao term (1: open) */
    OAK_CHANNEL_COUNT
} oak_channel;
/* "albedo", ... ("none" for 0; NULL past the last). */
const char *oak_channel_name(oak_channel channel);
/* The channel called `name`; OAK_ERROR_INVALID_ARGUMENT (one line) for none. */
oak_result oak_channel_parse(const char *name, oak_channel *out);

/* Ground-truth ambient occlusion of the indirect light (oak_post.ao). */
typedef enum oak_ao_mode {
    OAK_AO_DEFAULT = 0, /* resolves to on or off by OAK_GTAO_DEFAULT_ON */
    OAK_AO_ON,
    OAK_AO_OFF,
} oak_ao_mode;

/* Bloom, mixed into the frame before the tone curve (oak_post.bloom). */
typedef enum oak_bloom_mode {
    OAK_BLOOM_DEFAULT = 0, /* resolves to on or off by OAK_BLOOM_DEFAULT_ON */
    OAK_BLOOM_ON,
    OAK_BLOOM_OFF,
} oak_bloom_mode;

/* Temporal anti-aliasing, after the blend pass (oak_post.taa). */
typedef enum oak_taa_mode {
    OAK_TAA_DEFAULT = 0, /* resolves to on or off by OAK_TAA_DEFAULT_ON */
    OAK_TAA_ON,
    OAK_TAA_OFF,
} oak_taa_mode;

/* The tone curve post applies after exposure (docs/SHADING.md "Post"). */
typedef enum oak_tone_curve {
    OAK_TONE_DEFAULT = 0, /* resolves to OAK_TONE_ACES */
    OAK_TONE_ACES,        /* Narkowicz's fit of ACES */
    OAK_TONE_NEUTRAL,     /* Khronos PBR Neutral: hue kept, only highlights compressed */
} oak_tone_curve;

/* Quality presets (docs/SHADING.md "Quality presets"; DIGEST §3.10): one
 * table sets the render's cost knobs together. A preset fills every setting
 * left at its default (0, *_DEFAULT) in oak_post and oak_renderer_desc, so
 * anything set on its own still wins; OAK_PRESET_DEFAULT leaves each
 * setting's own default (today's picture: no AO, bloom or TAA, 2,048-texel
 * cascades, the widest PCF). World systems (grass, trees) read `plants`. */
typedef enum oak_preset {
    OAK_PRESET_DEFAULT = 0,
    OAK_PRESET_LOW,
    OAK_PRESET_MEDIUM,
    OAK_PRESET_HIGH,
    OAK_PRESET_ULTRA,
    OAK_PRESET_COUNT
} oak_preset;

typedef struct oak_quality {
    float render_scale;       /* of the output's width and height, [0.25, 1] */
    uint32_t shadow_map_size; /* texels across one sun cascade */
    uint32_t shadow_filter;   /* PCF taps a side, 1 .. OAK_SHADOW_PCF_SIZE */
    oak_ao_mode ao;
    oak_taa_mode taa;
    oak_bloom_mode bloom;
    float plants;         /* share of grass, flowers and trees grown, (0, 1] */
    float plant_distance; /* times each plant system's own draw distance, (0, 2] */
    uint32_t cloud_steps; /* steps a view ray takes through the cloud layer, [8, 256] */
    uint32_t cloud_scale; /* full-size pixels a side per cloud march texel, [1, 8] */
    uint32_t fog_grid[3]; /* froxels across, down and slices deep, each [8, 256] */
} oak_quality;

/* The table's row for a preset (OAK_PRESET_DEFAULT: each setting's own
 * default, plants 1 and distance 1); an unknown value reads as DEFAULT. */
oak_quality oak_preset_quality(oak_preset preset);
/* "default", "low", "medium", "high", "ultra"; NULL for an unknown value. */
const char *oak_preset_name(oak_preset preset);
/* The preset a name gives; OAK_ERROR_INVALID_ARGUMENT with the names in the
 * one-line error for anything else. */
oak_result oak_preset_from_name(const char *name, oak_preset *out);
/* OAK_OK, or one line naming the first setting outside its range. */
oak_result oak_quality_check(const oak_quality *q);

/* The camera's exposure (docs/SHADING.md "Exposure"). Light is in physical
 * units (lux, candela, cd/m^2); a physical camera turns it into numbers the
 * tone curve takes. The first that is set wins:
 *   exposure > 0      the multiplier itself (scene-referred numbers, tests);
 *   ev100_set         EV100 given: exposure = 1 / (1.2 * 2^ev100);
 *   aperture > 0      EV100 = log2(aperture^2 / shutter * 100 / iso);
 *   otherwise         OAK_EXPOSURE_DEFAULT (1: numbers shown as they are).
 * exposure_comp (stops) multiplies the result by 2^exposure_comp in every case. */
typedef struct oak_post {
    float exposure;      /* multiplies linear radiance before the tone curve; 0: from below */
    float ev100;         /* with ev100_set: the camera's exposure value at ISO 100 */
    bool ev100_set;      /* ev100 is given (0 is a valid EV100, so a flag says it) */
    float aperture;      /* f-number; > 0: EV100 from aperture, shutter and iso */
    float shutter;       /* seconds; 0: 1/125 */
    float iso;           /* 0: 100 */
    float exposure_comp; /* stops added on top (+1 doubles the exposure) */
    oak_tone_curve tone; /* ACES or Khronos PBR Neutral */
    bool no_tonemap;     /* clamp instead of the tone curve (tests of raw light) */
    bool no_dither;
    bool no_fxaa;
    oak_debug_view debug;
    oak_ao_mode ao;     /* ground-truth ambient occlusion of the indirect light */
    float ao_radius;    /* metres the horizon search reaches; 0: OAK_GTAO_RADIUS */
    float ao_intensity; /* exponent on the visibility (1: as measured); 0: 1 */
    /* Eye adaptation (docs/SHADING.md "Eye adaptation"): a luminance
       histogram of each frame steers the camera's EV100 toward what it
       meters (settled on the renderer's first frame, then stepping with
       oak_frame_input.dt); exposure_comp still applies on top. The fixed
       camera above still converts the `_display` colours and sets lamp
       reach. false: the fixed camera alone. */
    bool adapt;
    /* Bloom (docs/SHADING.md "Bloom"): the frame blurred over six octaves
       and mixed in, frame + strength * (blurred - frame), energy kept. */
    oak_bloom_mode bloom;
    float bloom_strength; /* the mix, in (0, 1]; 0: OAK_BLOOM_STRENGTH */
    /* Depth of field (docs/SHADING.md "Depth of field"): a thin lens focused
       at this many metres, its f-number `aperture` (0: OAK_DOF_FNUMBER), its
       focal length what the vertical field of view gives on a sensor
       OAK_DOF_SENSOR_HEIGHT tall. 0: everything sharp (no pass). Not for
       orthographic cameras. */
    float focus_distance;
    /* Temporal anti-aliasing (docs/SHADING.md "Temporal anti-aliasing"): the
       raster jittered, the frame blended with its reprojected history. With
       it on the frontend turns FXAA off (no_fxaa): TAA already smooths edges. */
    oak_taa_mode taa;
    /* The sharpen after TAA's resolve: c + s (4 c - the 4 neighbours) / 4
       per channel, clamped to those 5 texels' range, s in [0, 1]; 0 (the
       default, OAK_TAA_SHARPEN_DEFAULT): off, the resolve as it is. */
    float taa_sharpen;
    /* Sun shadow filter: PCF taps a side, 1 (a hard 2 x 2 texel footprint)
       .. OAK_SHADOW_PCF_SIZE; 0: the preset's, else OAK_SHADOW_PCF_SIZE */
    uint32_t shadow_filter;
    /* fills the settings above left at their default (oak_preset) */
    oak_preset preset;
    /* The clouds' march (docs/SHADING.md "Quality presets"): steps a view
       ray takes through the layer, [8, 256], and full-size pixels a side
       per march texel, [1, 8]; 0: the preset's (oak_quality). The oak
       command line sets the low rung's on the cpu backend when no preset
       is named; a value outside its range makes oak_renderer_draw fail. */
    uint32_t cloud_steps;
    uint32_t cloud_scale;
    /* Render scale (docs/SHADING.md "Render scale"): every pass runs at
       the output size times this, in [0.25, 1] (0: 1), and the picture is
       stretched to the output size (with TAA on, the taa pass upsamples it
       instead and the passes after it run at the output size). Set it through
       oak_post_set_render_scale, which clamps it and says what it took; a NaN or negative value
       left here makes oak_renderer_draw fail. */
    float render_scale;
    oak_channel channel; /* a capture channel instead of the picture; 0: the picture */
} oak_post;

/* Sets post->render_scale to `scale` clamped to [0.25, 1] (0: 1) and
 * writes what it adopted to *adopted (may be NULL): 0.1 gives 0.25, 2 gives
 * 1. NaN, infinities and negative values are refused with
 * OAK_ERROR_INVALID_ARGUMENT and leave post as it was. */
oak_result oak_post_set_render_scale(oak_post *post, float scale, float *adopted);
/* Still frames TAA takes to converge under these settings: its jitter
 * phases, OAK_TAA_SAMPLES times ceil(1 / scale^2) when it upsamples a render
 * scale below 1 (docs/SHADING.md "Render scale"); 1 when TAA is off. */
uint32_t oak_taa_frames(const oak_post *post);

/* The multiplier post applies to linear radiance for these settings (the
 * rules above); always > 0 and finite for finite settings. */
float oak_post_exposure(const oak_post *post);
/* EV100 from aperture (f-number), shutter (seconds) and ISO: log2(N^2/t * 100/S). */
float oak_ev100_from_camera(float aperture, float shutter, float iso);
/* The EV100 whose exposure 1 / (1.2 * 2^ev100) equals `exposure` (> 0). */
float oak_ev100_from_exposure(float exposure);

/* ---- per-frame input -------------------------------------------------- */

enum oak_draw_flags {
    OAK_DRAW_NO_SHADOW = 1u << 0,  /* does not cast into shadow maps */
    OAK_DRAW_NO_RECEIVE = 1u << 1, /* ignores shadows falling on it */
    /* a mover: drawn over the cached static shadow layers every frame
       instead of into them (skinned, morphed or animated draws) */
    OAK_DRAW_MOVING = 1u << 2,
    /* neither drawn nor cast (KHR_node_visibility's hidden nodes) */
    OAK_DRAW_HIDDEN = 1u << 3,
};

/* A light placed in the world. */
typedef struct oak_render_light {
    oak_light light;
    float position[3];
    float direction[3]; /* unit, the way the light travels (spot and directional) */
} oak_render_light;

/* ---- instance streams: the second kind of draw ------------------------- */

/* One instance: 12 floats, the layout of shaders/common/oak_gpu.h's
 * oak_gpu_instance. rotation is a unit quaternion (x, y, z, w; all zero
 * reads as none); scale is uniform (the mesh's bounding sphere times it);
 * color is linear and multiplies the material's base colour; phase is the
 * stream owner's, except in a stream posed from a pose bank, where it picks
 * clip and time: phase = clip * OAK_POSE_CLIP_SECONDS + seconds (seconds
 * wrapped into the clip, so t and t + duration pose the same; a clip past
 * the bank's reads as its last). Keep the seconds small (wrap them) so the
 * float holds them to the microsecond. A negative phase blends two clips
 * (oak_pose_blend_phase; the packing is oak_gpu.h "Pose blocks"); one below
 * -2^24 poses from an override palette the stream holds
 * (oak_pose_override_phase). */
typedef struct oak_instance {
    float position[3];
    float scale;
    float rotation[4];
    float color[3];
    float phase;
} oak_instance;

/* A stream: one material drawn at up to `capacity` instances, each with the
 * LOD mesh its distance to the camera picks: lods[k] while the distance is
 * under lods[k].distance (the last LOD's 0: no limit; past a non-zero last
 * distance the instance is drawn and casts nothing). Owned by whoever made
 * it (a world system); a scene lists it with oak_scene_add_stream. */
typedef struct oak_stream oak_stream;
/* Who writes a stream's records. HOST (0): its owner, through
 * oak_stream_write, and every backend uploads them from the host.
 * PARTICLES: a particle emitter's birth states (world/particles.c,
 * docs/WORLD.md "Particles"): a GPU backend that draws the stream natively
 * runs the particle kernel into its instance buffer (the particles pass)
 * and the host evaluates no record; the host's records (oak_stream_records,
 * the CPU backend, a BLEND stream's draws) are the C evaluation, filled
 * only when something reads them. GRASS: the grass system (world/grass.c,
 * docs/WORLD.md "Grass"), in fixed slots per terrain tile square, each
 * written once when its square arrives and zeroed when it leaves (a zero
 * record, scale 0, draws nothing); a record never moves while its square
 * lives (an origin rebase aside). A GPU backend with the grass pass grows
 * the squares on the device (the grass kernel) into its own copy; the
 * host's records are grown on the job pool only when read (the CPU backend,
 * oak_stream_records), or at every update with OAK_GRASS_KERNEL=off. */
typedef enum oak_stream_source {
    OAK_STREAM_SOURCE_HOST = 0,
    OAK_STREAM_SOURCE_PARTICLES = 1,
    OAK_STREAM_SOURCE_GRASS = 2,
} oak_stream_source;
typedef struct oak_stream_lod {
    oak_mesh mesh;
    float distance; /* metres; increasing down the ladder */
} oak_stream_lod;
typedef struct oak_stream_desc {
    uint32_t capacity;  /* instances it can hold, 1 .. OAK_STREAM_MAX_INSTANCES */
    uint32_t lod_count; /* 1 .. OAK_STREAM_LODS; 0: 1 */
    oak_stream_lod lods[OAK_STREAM_LODS];
    oak_material material;
    uint32_t flags; /* oak_draw_flags for every instance (OAK_DRAW_NO_SHADOW, ...) */
    /* metres the point 1 m above an instance's origin moves per unit of the
       environment's wind (docs/WORLD.md "Grass"); 0: stands still */
    float sway;
    /* metres before a non-zero last LOD distance over which instances sink
       into the ground (their height scaled to 0 and their origin lowered by
       sink_depth); 0: none */
    float sink;
    float sink_depth; /* metres; 0: 0.05 */
    /* posed from this bank (include/oak/anim.h; NULL: rigid): every LOD mesh
       has joints and weights for the bank's skin, and each instance is
       posed in mesh space at its phase (above) before its record places it
       (docs/ARCHITECTURE.md "Pose banks"). Borrowed: it outlives the stream. */
    const struct oak_pose_bank *pose_bank;
    /* > 0, posed streams only: the last LOD, impostor_lod, is an impostor card
       (docs/WORLD.md "Crowds: the far tier"): one upright quad in the x-y
       plane, facing +z, with uvs over cell (0, 0) of an atlas of
       OAK_IMPOSTOR_VIEWS x OAK_IMPOSTOR_FRAMES cells (oak_gpu.h), drawn in
       impostor_material. Each instance turns it about its +y toward the eye
       and shows the cell of the view angle nearest the eye's about +y and
       the walk frame nearest its phase's share of its clip. */
    uint32_t impostor_lod;
    oak_material impostor_material;
    /* posed streams: palettes a write of overrides may hold (foot IK: the
       crowd's near figures, docs/WORLD.md "Crowds"), 0 .. OAK_POSE_OVERRIDES_MAX;
       the stream keeps two generations of them (oak_stream_write_pose_overrides) */
    uint32_t pose_overrides;
    /* the phase packs each instance's opacity (oak_instance_phase_opacity),
       which multiplies the material's alpha; for BLEND materials (such a
       stream is drawn as draws on every backend), not posed streams */
    bool phase_opacity;
    /* who writes the records (oak_stream_source); set by the world system
       that owns the stream */
    oak_stream_source source;
} oak_stream_desc;

/* A phase that packs opacity [0, 1] in 1/255 steps (the integer part, 0 ..
 * 255) and a share [0, 1) for the owner (the fraction, to 2^-15): particles
 * keep the share of life gone there. */
static inline float oak_instance_phase_pack(float opacity, float share) {
    float o = opacity > 0 ? (opacity < 1 ? opacity : 1) : 0;
    float f = share > 0 ? (share < 0.99996f ? share : 0.99996f) : 0;
    return (float)(int)(o * 255.0f + 0.5f) + f;
}
static inline float oak_instance_phase_opacity(float phase) {
    float o = phase > 0 ? (float)(int)phase / 255.0f : 0;
    return o < 1 ? o : 1;
}
static inline float oak_instance_phase_share(float phase) {
    return phase > 0 ? phase - (float)(int)phase : 0;
}

/* Seconds of phase per bank clip in a posed stream (oak_instance.phase). */
#define OAK_POSE_CLIP_SECONDS 256.0f

/* The phase of a posed instance that blends two bank clips: weight of clip
 * b over clip a (1 - weight), both at share `cycle` of their own duration
 * (wrapped into [0, 1)); the palettes are lerped joint by joint, as
 * oak_pose_bank_blend does (a crossfade of the posed vertices). Packed into
 * the phase as a negative exact integer: the weight is held to 1/63, the
 * cycle to 1/1024. A clip past 15 is a one-line error and returns 0 (clip
 * 0 at 0 s). */
float oak_pose_blend_phase(uint32_t clip_a, uint32_t clip_b, float weight, float cycle);

/* Override palettes (docs/ARCHITECTURE.md "Pose banks"): a posed stream
 * made with pose_overrides = N holds 2N palettes (joints x 12 floats, the
 * bank's layout, mesh space), two generations of N. Each write fills the
 * generation the last one did not, so last frame's records (motion
 * vectors) still find theirs; *first_slot gets the first slot written, and
 * an instance whose phase is oak_pose_override_phase(first_slot + i) poses
 * from palette i. count > N is an error. A phase naming a slot past 2N is
 * an error in oak_stream_write. */
oak_result oak_stream_write_pose_overrides(oak_stream *s, uint32_t count, const float *palettes,
                                           uint32_t *first_slot);
/* The same, with `bases`: the count palettes the overrides were corrected
 * from (foot IK: each figure's bank pose), each a pose inside the bank's
 * spheres. The stream bounds how far each override moves any vertex of its
 * LOD meshes from where its base puts it (at every joint, the palettes'
 * difference at the centre of the joint's vertices plus its linear part's
 * Frobenius norm times their reach) and, while a generation with a bound
 * is held, grows the cull sphere of each of its posed LODs (not the card)
 * by the largest, on every backend. Without bases the caller keeps its
 * overrides inside the bank's spheres. */
oak_result oak_stream_write_pose_overrides_from(oak_stream *s, uint32_t count,
                                                const float *palettes, const float *bases,
                                                uint32_t *first_slot);
/* The phase that poses from override slot `slot`: -(2^24 + 2 (slot + 1)),
 * an exact float below every blend's (floats step by 2 there). */
float oak_pose_override_phase(uint32_t slot);

/* Allocates the records once, at capacity; the count starts at 0. */
oak_result oak_make_stream(oak_stream **out, const oak_stream_desc *desc);
void oak_destroy_stream(oak_stream *s);
/* Copies count records into [first, first + count) (no reallocation; past
 * the capacity is an error) and moves the version on. */
oak_result oak_stream_write(oak_stream *s, uint32_t first, const oak_instance *records,
                            uint32_t count);
/* How many of the records are drawn (<= capacity, else an error; never
 * reallocates). 0 draws and casts nothing. Moves the version on when it changes. */
oak_result oak_stream_set_count(oak_stream *s, uint32_t count);
uint32_t oak_stream_count(const oak_stream *s);
uint32_t oak_stream_capacity(const oak_stream *s);
uint64_t oak_stream_version(const oak_stream *s);
/* The host's records. A PARTICLES stream's are the C evaluation of the
 * emitter at its clock, filled here when stale (the frame on a GPU backend
 * drew the device's, within docs/WORLD.md "Particles"'s tolerance). */
const oak_instance *oak_stream_records(const oak_stream *s);
/* Hook for tiers (crowds): per instance a LOD index that replaces the
 * distance pick (0xff: pick by distance). The array is borrowed, capacity
 * long, read every frame; NULL removes it. */
oak_result oak_stream_set_lod_override(oak_stream *s, const uint8_t *lods);
/* World-space positions of instance i's vertices in LOD lod, posed and
 * placed as every backend draws them (no wind or sink): returns how many,
 * writing at most capacity (3 floats each); 0 for a bad index. */
uint32_t oak_stream_instance_points(const oak_stream *s, uint32_t i, uint32_t lod, float *xyz,
                                    uint32_t capacity);

/* A box-projected reflection probe (docs/SHADING.md "Reflection probes"):
 * the scene seen from `position` is baked into a GGX-prefiltered map, and
 * glossy surfaces inside the box reflect it as if it lay on the box's faces
 * (parallax-corrected) instead of the sky. The renderer bakes a probe when it
 * is new or moved (position, box or margin changed) or when the sky changed;
 * what it sees is the scene of that frame, lit, with the sky light as its
 * own reflections (no probe sees another). Boxes are world-aligned. */
typedef struct oak_reflection_probe {
    float position[3]; /* capture point, world metres; inside the box */
    float box_min[3];  /* the box's corners, world metres */
    float box_max[3];
    float margin; /* metres inside the faces over which it fades to what lies beyond */
} oak_reflection_probe;

typedef struct oak_frame_input {
    oak_camera camera;
    mat4 camera_world; /* camera to world; the camera looks down its -Z */
    /* draws as parallel columns, draw_count long */
    uint32_t draw_count;
    const oak_mesh *meshes;
    const oak_material *materials;
    const mat4 *transforms; /* object to world */
    const uint32_t *flags;  /* oak_draw_flags; NULL: all zero */
    const float *colors;    /* linear RGBA per draw (4 floats) times base colour; NULL: white */
    /* instance streams, at most OAK_STREAM_MAX_PER_VIEW */
    uint32_t stream_count;
    oak_stream *const *streams;
    uint32_t light_count;
    const oak_render_light *lights;
    /* reflection probes, at most OAK_PROBE_MAX; a surface inside several
       boxes takes the smallest box first (then the next, for what its
       margin leaves, then the sky) */
    uint32_t probe_count;
    const oak_reflection_probe *probes;
    const oak_environment *environment; /* NULL: defaults */
    const oak_post *post;               /* NULL: defaults */
    float dt; /* seconds since the last frame (eye adaptation's step); 0: 1/60 */
} oak_frame_input;

/* ---- renderer --------------------------------------------------------- */

typedef struct oak_renderer oak_renderer;

/* shadow_map_size: texels across one sun cascade's map (the atlas is 2 x 2). */
/* Occlusion culling of the camera's draws and stream instances
 * (docs/ARCHITECTURE.md "Occlusion culling"); it never changes the picture.
 * The cpu backend culls by a coarse depth grid in the frontend, vulkan and
 * gl (OAK_CAP_GPU_OCCLUSION) the draws by two-pass Hi-Z on the GPU. Off by
 * default: the grid costs the frontend about 2 ms a frame on the H200
 * machine for the default world and 5.6 ms for the meadow, and hides
 * nothing in the built-in worlds (docs/PERFORMANCE.md); the Hi-Z path's
 * cost there is not measured yet. */
typedef enum oak_occlusion_mode {
    OAK_OCCLUSION_DEFAULT = 0, /* off */
    OAK_OCCLUSION_ON,
    OAK_OCCLUSION_OFF
} oak_occlusion_mode;

typedef struct oak_renderer_desc {
    const char *backend;      /* "cpu", "vulkan", "gl", "null", or NULL/"auto" */
    const char *device;       /* backend-specific device name or index; NULL: best */
    uint32_t width, height;   /* 0: 1280 x 720 */
    uint32_t shadow_map_size; /* 0: the preset's, else OAK_SHADOW_MAP_SIZE */
    oak_preset preset;        /* fills shadow_map_size when it is 0 */
    oak_occlusion_mode occlusion;
} oak_renderer_desc;

typedef struct oak_stage_timing {
    /* "frontend", then the pass table's stage names (oak_pass_name; the
       CPU's raster also as its parts "vertex" and "bins"), GPU totals */
    const char *name;
    double cpu_ms;
    double gpu_ms; /* < 0 when the backend has no GPU timer */
} oak_stage_timing;

oak_result oak_make_renderer(oak_renderer **out, const oak_renderer_desc *desc);
void oak_destroy_renderer(oak_renderer *r);
oak_result oak_renderer_resize(oak_renderer *r, uint32_t width, uint32_t height);
/* Builds the view from input (cull, batch, fit shadows, gather lights) and draws it. */
oak_result oak_renderer_draw(oak_renderer *r, const oak_frame_input *input);
/* The last frame as width*height*4 bytes of sRGB RGBA8, top row first. */
oak_result oak_renderer_read_pixels(oak_renderer *r, uint8_t *rgba, size_t size);
/* The last frame's capture channel (oak_post.channel) as width * height
 * RGBA floats of the output size, top row first, decoded as oak_channel
 * says (count at least width * height * 4). A channel is always drawn at
 * render scale 1. OAK_ERROR_INVALID_ARGUMENT when the last frame drew none. */
oak_result oak_renderer_read_channel(oak_renderer *r, float *rgba, size_t count);
/* The render scale the last frame ran at and its size (render_scale's
 * clamped value; width, height: the output's times it, rounded, >= 1). */
float oak_renderer_render_scale(const oak_renderer *r, uint32_t *width, uint32_t *height);
/* The last frame's stages; returns how many were written. */
uint32_t oak_renderer_timings(const oak_renderer *r, oak_stage_timing *out, uint32_t max);
const char *oak_renderer_backend(const oak_renderer *r); /* name of the backend in use */
const char *oak_renderer_device(const oak_renderer *r);  /* its device, in words */
void oak_renderer_size(const oak_renderer *r, uint32_t *width, uint32_t *height);
/* Why `auto` did not take a better backend ("" when it did). */
const char *oak_renderer_fallback_reason(const oak_renderer *r);

/* Native presentation (docs/ARCHITECTURE.md "Windows"). A window system
 * (the command line's GLFW window) fills these hooks; liboak never links
 * it. The vulkan backend uses the vk_ fields (a swapchain on the surface
 * vk_surface makes), the gl backend gl_make_current (it renders in the
 * window's own context and draws into its default framebuffer); the rest
 * present nothing natively and the caller keeps its read-back blit. */
typedef struct oak_window_hooks {
    void *user;
    /* the instance extensions the surface needs (GLFW's list) */
    const char *const *vk_extensions;
    uint32_t vk_extension_count;
    /* makes the window's surface for a VkInstance (passed as a pointer)
       into *surface (a VkSurfaceKHR) */
    oak_result (*vk_surface)(void *user, void *instance, uint64_t *surface);
    /* makes the window's OpenGL 4.5 core context current */
    oak_result (*gl_make_current)(void *user);
    bool no_vsync; /* Vulkan: MAILBOX, else IMMEDIATE, not FIFO; GL: the caller's swap interval 0 */
} oak_window_hooks;

/* The panel a presenter shows over the frame: width x height RGBA8 pixels
 * (top row first, `stride` pixels a row) placed at (x, y) from the top left. */
typedef struct oak_present_panel {
    const uint8_t *rgba;
    uint32_t x, y, width, height, stride;
} oak_present_panel;

/* Starts the backend again with the window's hooks (its assets upload
 * again on the next frame). OAK_OK when it presents natively; otherwise
 * the backend runs headless as before, the result says why in one line
 * (oak_last_error) and the caller presents by read-back. hooks NULL:
 * headless again. */
oak_result oak_renderer_attach_window(oak_renderer *r, const oak_window_hooks *hooks);
/* How the backend presents: "swapchain fifo" (mailbox, immediate),
 * "default framebuffer", or NULL when it does not (read back instead). */
const char *oak_renderer_presentation(const oak_renderer *r);
/* Shows the last frame drawn in the window, fb_width x fb_height, with
 * the panel over it (NULL: none). Vulkan queues the present; GL draws
 * into the back buffer and the caller swaps it. A window of size 0 (while
 * minimised) presents nothing and returns OAK_OK. capture (NULL: none):
 * fb_width * fb_height * 4 bytes that receive the presented image as
 * RGBA8, top row first, read back from the swapchain image or the back
 * buffer (a test's check: it waits for the GPU). */
oak_result oak_renderer_present(oak_renderer *r, uint32_t fb_width, uint32_t fb_height,
                                const oak_present_panel *panel, uint8_t *capture);
/* The lamp grid the backend built for the last frame (debug read-back;
 * slow on GPU backends). counts: OAK_LIGHT_GRID_CELLS lamps per cell, lists:
 * OAK_LIGHT_CELL_MAX indices into the view's lights per cell, cell c's at
 * c * OAK_LIGHT_CELL_MAX; either may be NULL. Cell c = x + 16 (y + 9 z): x
 * across, y down from the top row, z the logarithmic depth slice. */
typedef struct oak_light_grid_info {
    uint32_t lamps;    /* lamps in the view after culling */
    uint32_t listed;   /* sum of the cells' list lengths */
    uint32_t max_cell; /* the longest list */
    uint32_t overflow; /* listings dropped by OAK_LIGHT_CELL_MAX */
} oak_light_grid_info;
oak_result oak_renderer_read_light_grid(oak_renderer *r, oak_light_grid_info *info,
                                        uint32_t *counts, uint32_t *lists);
/* What the shadow cache did in the last frame (docs/SHADING.md "Cascade
 * caching"), as the backend counted it. */
typedef struct oak_shadow_stats {
    uint32_t static_layers;  /* cascades whose static layer was redrawn */
    uint32_t layer_copies;   /* static layers copied into the sampled map */
    uint32_t mover_draws;    /* mover casters drawn over the copies */
    uint32_t redrawn_mask;   /* bit c: cascade c's static layer was redrawn */
    uint32_t partial_layers; /* of static_layers: only their dirty rectangles redrawn */
    uint32_t dirty_texels;   /* texels those rectangles cleared and redrew */
} oak_shadow_stats;
/* OAK_ERROR_UNSUPPORTED when the backend keeps no shadow cache (null). */
oak_result oak_renderer_shadow_stats(const oak_renderer *r, oak_shadow_stats *out);
/* The blend pass of the last frame (docs/SHADING.md "Transparent (BLEND)
 * surfaces"): the BLEND surfaces drawn (each stream instance one) and the
 * draws the backend issued for them (a BLEND stream one on the GPUs);
 * unlit: those draws shaded by the unlit path alone (a plain unlit
 * material: blend_unlit.frag on the GPUs, cpu_shade's unlit branch);
 * compute: those shaded in compute after their pixels were found (water on
 * the GPUs: "Water on the GPUs"; 0 on the cpu, which shades every pixel
 * the same way). */
typedef struct oak_blend_stats {
    uint32_t surfaces, draws, unlit, compute;
} oak_blend_stats;
/* OAK_ERROR_UNSUPPORTED when the backend keeps no count (null). */
oak_result oak_renderer_blend_stats(const oak_renderer *r, oak_blend_stats *out);
/* The sky light's maps (test hook): captures, how many times the backend
 * captured the sky (only when the environment changed); texels, when not
 * NULL, count >= OAK_GPU_SKY_TEXELS * 4 floats laid out as
 * shaders/common/oak_gpu.h's OAK_GPU_SKY_* say (render/skylight.h reads them). */
oak_result oak_renderer_read_sky(oak_renderer *r, float *texels, size_t count, uint32_t *captures);
/* The cascade atlas of the last frame (test hook): (2 x shadow_map_size)
 * squared depths (reversed-Z, 0 where nothing cast), row 0 first, each
 * cascade in its shadow_map_size tile of the 2 x 2 atlas. OAK_ERROR_UNSUPPORTED on a backend
 * without the read (cpu, null). */
oak_result oak_renderer_read_shadow_map(oak_renderer *r, float *depth, size_t count);
/* The streams of the last frame after the cull-and-LOD kernel, summed over
 * every stream: instances given, and those inside the view per LOD band
 * (where the backend draws streams natively, OAK_CAP_GPU_STREAMS, the bands
 * are its instcull pass's counts: a read-back). */
typedef struct oak_stream_stats {
    uint32_t streams, instances;
    uint32_t visible;                  /* sum of per_lod */
    uint32_t per_lod[OAK_STREAM_LODS]; /* inside the camera's frustum, by LOD band */
    /* of per_lod, the instances a GPU's compute raster drew one by one (its
       per-instance split, docs/ARCHITECTURE.md "Compute rasterization": small
       instances of a band the hardware draws); 0 elsewhere */
    uint32_t per_instance[OAK_STREAM_LODS];
    uint32_t moved; /* streams whose version moved since the last frame */
    /* PARTICLES records the frontend evaluated on the host for the frame
       (0 where the device wrote them all) */
    uint32_t host_filled;
} oak_stream_stats;
oak_result oak_renderer_stream_stats(const oak_renderer *r, oak_stream_stats *out);
/* What occlusion culling did in the last frame. Draws are the input's own;
 * instances those of streams. The CPU's coarse depth grid draws everything
 * in one pass (drawn_pass2 and instances_pass1/2 stay 0). Under two-pass
 * Hi-Z (OAK_CAP_GPU_OCCLUSION) draws_occluded, drawn_pass1 and drawn_pass2
 * are the GPU's, and so are the counts of the streams it draws natively
 * (OAK_CAP_GPU_STREAMS; added to the instance fields): of the latest frame
 * it has finished (read back without a wait: a frame or two late while
 * frames run). */
typedef struct oak_occlusion_stats {
    bool on;            /* the grid was built and tested against */
    uint32_t occluders; /* draws rasterized into the grid */
    uint32_t occluder_triangles;
    uint32_t draws_tested;      /* input draws */
    uint32_t draws_frustum;     /* culled by the frustum (or hidden, or stale) */
    uint32_t draws_occluded;    /* in the frustum, hidden behind the occluders */
    uint32_t instances_tested;  /* stream instances */
    uint32_t instances_frustum; /* culled by the frustum or past the last LOD */
    uint32_t instances_occluded;
    uint32_t drawn_pass1, drawn_pass2;         /* the view's draws, by the pass that drew them */
    uint32_t instances_pass1, instances_pass2; /* natively drawn instances, by pass (Hi-Z) */
} oak_occlusion_stats;
oak_result oak_renderer_occlusion_stats(const oak_renderer *r, oak_occlusion_stats *out);
/* Per-meshlet culling of plain draws in the camera's visibility raster
 * (docs/ARCHITECTURE.md "Meshlet culling") in the last frame: meshlets
 * tested, culled by the frustum, culled by their normal cone (every
 * triangle facing away), and the triangles of the meshlets kept. */
typedef struct oak_meshlet_stats {
    bool on; /* the backend culled by meshlets this frame */
    uint32_t tested, culled_frustum, culled_cone;
    uint32_t triangles_kept;
    uint32_t culled_lod; /* out of a cluster-LOD mesh's cut (tested first) */
    /* occlusion on: meshlets past the frustum and cone hidden behind the
       occluders (the CPU's grid, Vulkan's Hi-Z pyramid of pass 1); and of
       triangles_kept those two-pass Hi-Z drew in its first pass (visible
       last frame), the rest being its second's (newly visible) */
    uint32_t culled_occluded;
    uint32_t triangles_pass1;
    /* the shadow maps drawn this frame (cascades, lamp faces): cluster-LOD
       meshlets out of each map's cut and the triangles the cuts kept (the
       cascades on every backend, lamp faces on the cpu) */
    uint32_t shadow_culled_lod, shadow_triangles;
    /* the GPUs' expanded index buffer (docs/ARCHITECTURE.md "Cluster LOD"):
       kept triangles that did not fit their job's region (drawn the frame
       after, the region grown), and draws sent whole because not even
       shrunk regions fit the buffer's limit */
    uint32_t overflow_triangles, fallback_draws;
} oak_meshlet_stats;
/* OAK_ERROR_UNSUPPORTED where the backend culls no meshlets. */
oak_result oak_renderer_meshlet_stats(const oak_renderer *r, oak_meshlet_stats *out);
/* The meshes the last frame sent to the GPU (docs/ARCHITECTURE.md "Meshes
 * posed in place"): whole (vertices, attributes, indices, meshlets), or their
 * positions alone (a mesh posed in place whose shape_version its copy still
 * holds: a terrain tile's morph), and the bytes of vertices, attributes and
 * indices both took. */
typedef struct oak_upload_stats {
    uint32_t meshes_whole, meshes_positions;
    uint64_t mesh_bytes;
} oak_upload_stats;
/* OAK_ERROR_UNSUPPORTED, with no message, where the backend sends nothing
   (the cpu draws from the registry's own arrays). */
oak_result oak_renderer_upload_stats(const oak_renderer *r, oak_upload_stats *out);
/* Turns occlusion culling on or off from the next frame. */
void oak_renderer_set_occlusion(oak_renderer *r, oak_occlusion_mode mode);
/* The same per-LOD counts as the backend's instcull pass (the kernel in
 * compute) found them; slow (a read-back). OAK_ERROR_UNSUPPORTED where the
 * backend runs no instcull (cpu: its kernel is the frontend's). The
 * per-instance LOD override is not applied there yet. */
oak_result oak_renderer_read_stream_counts(oak_renderer *r, uint32_t per_lod[OAK_STREAM_LODS]);
/* One stream of the last frame after the cull-and-LOD kernel: what
 * oak_renderer_stream_stats sums, kept apart per stream. */
typedef struct oak_stream_visibility {
    const oak_stream *stream;
    uint32_t instances; /* records given (its count) */
    uint32_t lod_count;
    uint32_t per_lod[OAK_STREAM_LODS]; /* inside the camera's frustum, by LOD band */
    bool native; /* culled by the backend's instcull pass: per_lod is its read-back */
} oak_stream_visibility;
/* The last frame's streams, one entry each in the view's order (at most
 * max written; *count gets how many the view held). Expanded streams'
 * counts are the frontend's (oak_renderer_last_view's visible_count);
 * natively drawn ones' the GPU's, read back after waiting for the frame:
 * a tool's call after its timed frames, not one for every frame. */
oak_result oak_renderer_stream_counts(oak_renderer *r, oak_stream_visibility *out, uint32_t max,
                                      uint32_t *count);
/* Reflection probe bakes this renderer has made (each draws six faces and
 * prefilters them; the frame that bakes shows a "probebake" stage). */
uint64_t oak_renderer_probe_bakes(const oak_renderer *r);
/* The camera's exposure after the last frame (test hook; a read-back on
 * GPU backends): with post.adapt the EV100 the exposure pass steered to,
 * the EV100 it metered and its target; else the fixed camera's EV100. */
typedef struct oak_exposure_info {
    bool adapting;       /* the last frame ran the exposure pass */
    float ev100;         /* the camera's EV100 the frame was shown at */
    float exposure;      /* the multiplier post applied (exposure_comp in) */
    float metered_ev100; /* adapting: the meter's reading of the frame */
    float target_ev100;  /* adapting: where the camera steers (night kept, limits) */
} oak_exposure_info;
oak_result oak_renderer_exposure(oak_renderer *r, oak_exposure_info *out);
/* The view the last draw built, for tests and tools. */
const struct oak_render_view *oak_renderer_last_view(const oak_renderer *r);

/* Backends compiled in, best first, and whether each can start here. */
uint32_t oak_backend_count(void);
const char *oak_backend_name(uint32_t index);
/* Writes a multi-line report (device, driver, API, features and the path
 * taken for each) or the reason it is unavailable; OAK_OK when usable. */
oak_result oak_backend_probe(const char *name, char *report, size_t report_size);
/* The OAK_CAP_* bits (backend.h) of a backend compiled in: the passes it
 * runs and its features; 0 for a name not compiled in. */
uint64_t oak_backend_caps(const char *name);

#ifdef __cplusplus
}
#endif
#endif
