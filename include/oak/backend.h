/* The seam between oak's engine half and its renderers: oak_render_view, the
 * whole of what a backend sees each frame, and oak_backend, the vtable each
 * backend fills in one exported function. Backends see this, asset data
 * (through the registry) and core; never the scene or world layers. */
#ifndef OAK_BACKEND_H
#define OAK_BACKEND_H

#include "render.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Set by the frontend on a view draw whose mesh was posed in place since the
 * draw was drawn last frame: the mesh's prev_positions are last frame's
 * pose, and motion vectors read them (docs/SHADING.md "Temporal
 * anti-aliasing"); without it the previous positions are the positions.
 * GPU backends keep a posed mesh's previous positions after its own in the
 * positions pool and name them in the draw record (oak_gpu_draw.prev.x:
 * how far after the first vertex, 0 for none; the record is 224 bytes). */
#define OAK_DRAW_PREV_POSE (1u << 8)
/* Set by the frontend on a posed stream instance drawn as its stream's
 * impostor card: its palette's joint 0 turns the card to the eye and the
 * first two floats of joint 1 are its cell's uv offset
 * (render/pose_stream.h _oak_impostor_pose). */
#define OAK_DRAW_IMPOSTOR (1u << 9)

/* Draws as parallel columns owned by the frontend and reused across frames. */
typedef struct oak_draw_list {
    uint32_t count;
    oak_mesh *mesh;
    oak_material *material;
    mat4 *world;      /* object to world */
    mat4 *prev_world; /* last frame's, for motion */
    uint32_t *flags;  /* oak_draw_flags */
    /* linear RGBA multiplying the vertex colour (a stream instance's colour,
       white for plain draws); the view's draws only, NULL in caster lists */
    float (*color)[4];
    /* per draw: a posed stream instance's palettes in frame memory (bank
       joints x 12 floats at this frame's phase, then as many at last
       frame's; pose[-1] holds the joint count as a float), NULL for a draw
       drawn as its mesh holds it; NULL: none */
    const float **pose;
    /* the view's draws: each one's index in the frame input, the key of its
       visible bit across frames (two-pass Hi-Z); NULL in caster lists */
    uint32_t *key;
    /* the view's draws: a BLEND stream's instance, its stream + 1 (its
       visible instances are consecutive draws, far to near: one instanced
       draw on the GPUs, sorted among the BLEND surfaces as a unit); 0 for
       any other draw; NULL in caster lists */
    uint32_t *unit;
} oak_draw_list;

/* How one stream's instances bend this frame (docs/WORLD.md "Grass"): the
 * environment's wind resolved (unit direction, defaults filled) and scaled
 * by the stream's sway, the benders, and the sink before its last LOD
 * distance (render/stream_cull.c _oak_instance_matrix applies it; GPU
 * backends copy it into the instcull head for shaders/common/bend.glsl). */
typedef struct oak_instance_bend {
    float wind[4];    /* unit direction x, z; strength * sway; gust share */
    float gust[4];    /* wavelength, speed, time, 0 */
    float sink[4];    /* last LOD distance (0: none), sink band metres (0: none), depth, 0 */
    float eye[3];     /* the sink's distances are measured from here */
    uint32_t benders; /* bender spheres in use */
    float bender[OAK_BENDERS_MAX][4]; /* centre xyz, radius */
} oak_instance_bend;

/* An instance stream as the frame sees it (render/stream_cull.c).
 *
 * Record layout (oak_instance in render.h = oak_gpu_instance in
 * shaders/common/oak_gpu.h, 48 bytes, three vec4s):
 *   position_scale  xyz: position in world metres, w: uniform scale
 *   rotation        unit quaternion x, y, z, w (all zero: none)
 *   color_phase     xyz: linear colour times the material's base colour,
 *                   w: phase (the stream owner's; a posed stream's clip and time)
 *
 * The cull-and-LOD kernel (_oak_stream_cull_instance, one function) gives
 * each instance its world matrix, LOD (distance to the camera, or the
 * stream's per-instance override: the crowds' tiers hook) and whether its
 * sphere (the LOD mesh's bounds through that matrix) meets the frustum and
 * passes the occlusion slot (NULL until GPU-driven occlusion plugs in).
 * visible[k] lists the instances inside the camera's frustum at LOD k.
 *
 * How they are drawn. Expanded (the cpu backend; on every backend a
 * stream whose material is BLEND or that has a LOD override; and, while a
 * point or spot light in the input casts shadows, every stream for the
 * lamp atlas only): every live instance (all of count, culled or not, so
 * the shadow views see them) is also a draw in the frontend's input, its
 * LOD's mesh and the record's matrix and colour; those draws are culled,
 * batched and cast like any other, so the visibility buffer's id is (draw
 * + 1, triangle) and the draw record carries the instance's matrix and, in
 * oak_gpu_draw.normal's column 3, its colour. Native (`native`: a backend
 * with OAK_CAP_GPU_STREAMS, vulkan and gl): no per-instance work in the
 * frontend; the backend's instcull pass lists the instances per (view,
 * LOD) (the camera and each cascade) with an indirect command each, the
 * raster and shadow passes draw from those, and the id is
 * (OAK_GPU_ID_INSTANCE | record, triangle | stream << 24 | LOD << 30)
 * (shaders/common/oak_gpu.h "Visibility ids"); visible[] stays empty and
 * the per-LOD counts are the GPU's (oak_renderer_stream_stats). A stream
 * whose version did not move since the last frame casts as static (cached
 * shadow layers; a native one's state joins the cascades' static_key), one
 * that moved as a mover. prev_records is last frame's copy, for motion
 * vectors. */
typedef struct oak_render_stream {
    const oak_instance *records, *prev_records; /* count each; prev: as last frame */
    uint32_t count;
    /* the records' version, and the version prev_records hold (a GPU
       backend uploads its copy of them when this moves) */
    uint64_t version, prev_version;
    bool moved; /* version moved since the last frame (or first seen) */
    uint32_t lod_count;
    oak_mesh lods[OAK_STREAM_LODS];
    float lod_distance[OAK_STREAM_LODS];
    oak_material material;
    uint32_t flags;
    /* its first instance's index among the frontend's input draws
       (UINT32_MAX: a native stream not expanded this frame) */
    uint32_t first_input;
    /* drawn by the backend from its instcull lists (OAK_CAP_GPU_STREAMS and
       a material that is not BLEND): its instances are not among the
       view's draws */
    bool native;
    /* wind, benders and sink this frame (bent false: none, the records'
       own matrices); prev_time: last frame's wind time, for the motion of
       natively drawn instances (their records themselves did not move) */
    bool bent;
    oak_instance_bend bend;
    float prev_time;
    /* instance indices inside the frustum, by LOD (expanded streams only) */
    uint32_t *visible[OAK_STREAM_LODS];
    uint32_t visible_count[OAK_STREAM_LODS];
    /* posed from this bank (NULL: rigid); each LOD mesh's sphere over every
       bank pose (mesh space: centre, radius), which the culls use instead
       of its rest bounds */
    const struct oak_pose_bank *pose_bank;
    float pose_sphere[OAK_STREAM_LODS][4];
    /* > 0: LOD impostor_lod is an impostor card in impostor_material
       (oak_stream_desc) */
    uint32_t impostor_lod;
    oak_material impostor_material;
    /* override palettes (render.h oak_stream_write_pose_overrides): slots
       palettes of the bank's joints x 12 floats, and their version (a GPU
       backend uploads its copy when it moves) */
    const float *pose_overrides;
    uint32_t pose_override_slots;
    uint64_t pose_override_version;
    /* the stream itself, whose write log (render/stream.h
       _oak_stream_writes_since) lets a GPU backend's copy of the records
       catch up by the ranges written since its version alone */
    const struct oak_stream *stream;

    /* a PARTICLES stream the backend writes itself (oak_stream_source; NULL:
       the records above are the host's): the emitter's constants (time.x
       the seconds since the block), the count particles of its block
       (oak_gpu_particle) and the block's version, which moves only at a
       birth or a death (a GPU backend uploads its copy then); the particles
       pass runs the kernel into the stream's records, its last-frame copy
       at time.x - dt */
    const struct oak_gpu_particle_emitter *particle_constants;
    const struct oak_gpu_particle *particles;
    uint64_t particle_version;
    /* a GRASS stream the backend grows itself (oak_stream_source): the grass
       pass runs the grass kernel into the slots written since its copy's
       version (render/stream.h _oak_stream_grass_jobs), this frame's and
       last frame's copies alike; the host's records above are not current */
    bool grass;
    /* a BLEND PARTICLES stream whose draw records the device writes
       (`particles` set too): its instances are ONE view draw (its quad
       and material, unit s + 1) standing for all `count`; a GPU backend
       reserves count draw records after its lists, the particles pass
       turns each record (and last frame's copy) into one there, and the
       blend pass draws the unit as one instanced command over them */
    bool device_blend;
    /* a device_blend stream drawn far to near ("over"): the particles pass
       sorts its records by view depth as the update's host sort does
       (oak_stream.sort_fwd) and the draw kernel writes slot i from the
       i-th farthest; an "over" flipbook's frame streams each count every
       particle (the slots they hold), sorted once by (frame, depth), the
       draw kernel writing each frame's own count into its blend command's
       instance count (docs/WORLD.md "Particles") */
    bool device_sort;
} oak_render_stream;

/* A run of draws in `draws` sharing one mesh and material. */
typedef struct oak_render_batch {
    uint32_t first, count;
    oak_mesh mesh;
    oak_material material;
} oak_render_batch;

typedef struct oak_shadow_cascade {
    mat4 view_proj;    /* world to the map's clip space, reversed-Z orthographic */
    float split_far;   /* view distance this cascade covers up to */
    float texel_world; /* metres per shadow texel, for biasing */
    float depth_range; /* metres from the map's near to its far plane */
    /* which casters fall in it: casters.{...}[first .. first + count), the
       static ones (no OAK_DRAW_MOVING) first, then the movers */
    uint32_t first_caster, caster_count;
    uint32_t static_count; /* of caster_count: drawn into the cached static layer */
    /* what the static layer holds: the matrix, the map's size and each
       static caster (mesh, material and mask texture with their versions,
       matrix, flags); equal keys mean an unchanged layer. 0: unknown,
       redraw every frame (a view built by hand) */
    uint64_t static_key;
    /* A static layer drawn for dirty_base (!= 0) becomes one for static_key
       by redrawing only dirty[0 .. dirty_count): the same matrix and map,
       only casters changed (moved, added, removed, a new mesh version), and
       these rectangles hold each changed caster's old and new bounds. Each
       is x0, y0, x1, y1 in map texels, ends exclusive, row 0 at clip y = -1.
       0: none (redraw the whole layer when the key moved on). */
    uint64_t dirty_base;
    uint32_t dirty_count;
    uint16_t dirty[OAK_SHADOW_DIRTY_RECTS][4];
    /* The movers' rule (docs/SHADING.md "Shadow") as world-space planes for
       casters the backend culls itself (instance streams that moved): the
       slice's outline edges along the light widened by the border, then its
       depth from the far side to the caster reach. A sphere (c, r) passes
       when dot(xyz, c) + w >= -r for all; unused planes pass everything.
       A superset of the frontend's own test (mitred, not rounded, corners). */
    float mover_planes[OAK_CASCADE_MOVER_PLANES][4];
} oak_shadow_cascade;

/* One face of a lamp's shadow: a perspective depth map (reversed-Z, from
 * OAK_LAMP_SHADOW_NEAR to the lamp's reach) in one tile of the lamp atlas. */
typedef struct oak_lamp_face {
    mat4 view_proj; /* world to the face's clip space */
    mat4 view;      /* world to the face's view space (the lamp at the origin, looking down -z) */
    uint32_t tile;  /* atlas tile: column tile % OAK_LAMP_ATLAS_TILES, row tile / it */
    /* its casters: lamp_casters[first_caster ..) the static ones, then the movers */
    uint32_t first_caster, static_count, mover_count;
    /* what stands still in it: the face size, matrix and each static
       caster's mesh, material (versions included), matrix and flags. A
       backend redraws the tile's static layer only when this differs from
       the hash it last drew there. */
    uint64_t static_hash;
} oak_lamp_face;

/* A lamp with a slot in this frame's shadow budget. */
typedef struct oak_lamp_shadow {
    uint32_t light;      /* index into lights */
    uint32_t first_face; /* into lamp_faces */
    uint32_t face_count; /* 1: a spot's tile; 6: a cube, +x -x +y -y +z -z */
    float near, far;     /* metres from the lamp: OAK_LAMP_SHADOW_NEAR, its reach */
    float tan_half;      /* tan of half the faces' field of view */
} oak_lamp_shadow;

typedef struct oak_render_view {
    uint64_t frame; /* counts from 0 */
    uint32_t width, height;

    /* camera */
    mat4 view, proj, view_proj, inv_view_proj, prev_view_proj;
    float camera_pos[3];
    float znear, zfar;
    bool ortho;
    /* the factor on every instance stream's LOD distances (oak_camera
       lod_scale; render/stream_cull.c scales oak_render_stream lod_distance
       and the sink by it, so every backend's kernel reads scaled ones) */
    float lod_scale;
    float jitter[2]; /* sub-pixel offset in pixels, x right, y down (0 without TAA) */
    /* the taa pass starts its history again (first TAA frame, a resize) */
    bool taa_reset;
    /* the size the taa pass writes and every pass after it runs at: the
       renderer's output when TAA upsamples a scaled frame, else width x
       height (0 reads as width x height: render/taa.h _oak_taa_out_size) */
    uint32_t out_width, out_height;

    /* opaque and masked draws inside the frustum, batched by (material, mesh) */
    oak_draw_list draws;
    uint32_t batch_count;
    oak_render_batch *batches;
    /* a drawn material reads the opaque frame behind it (transmission,
       water): the opaquecopy pass runs (render/frontend.c sets it) */
    bool opaque_copy;

    /* the key light's shadow: casters in map order, cascades into them */
    int32_t key_light; /* index into lights, -1 when there is no sun */
    bool shadows;      /* key light casts and there is a map to draw */
    /* texels across one cascade's map; the atlas is 2 x 2 of them */
    uint32_t shadow_map_size;
    uint32_t cascade_count;
    oak_shadow_cascade cascades[OAK_MAX_CASCADES];
    oak_draw_list casters;
    /* per caster, its bounds in its cascade's map as a dirty rectangle
       (x0, y0, x1, y1): read only for the static casters of a cascade with
       a dirty_base, to pick those a dirty rectangle overlaps. May be NULL */
    const uint16_t (*caster_rects)[4];

    /* lamp shadows (render/lamp_shadow.c): the lamps in the budget, their
       faces and the casters of each face (face by face) */
    uint32_t lamp_shadow_count, lamp_face_count;
    oak_lamp_shadow lamp_shadows[OAK_LAMP_SHADOW_MAX];
    oak_lamp_face lamp_faces[OAK_LAMP_ATLAS_FACES];
    oak_draw_list lamp_casters;
    int32_t *light_shadow;       /* per light: its lamp_shadows slot, -1 for none */
    uint32_t lamp_faces_changed; /* faces whose static_hash moved on this frame */

    /* lights, key light included: the directional ones first, then the lamps
       (point and spot) whose reach meets the frustum, each with light.range
       resolved to its reach (docs/SHADING.md "Lamp reach") */
    uint32_t light_count;
    uint32_t directional_count; /* lights[0 .. directional_count) are directional */
    oak_render_light *lights;

    /* environment resolved to linear radiance */
    oak_environment env;
    float sky_zenith[3], sky_horizon[3], fog_color[3];

    /* exposure resolved: the fixed camera's multiplier (display colours and
       lamp reach use it). With post.adapt the exposure pass steers the
       camera's EV100 instead and post shows it at 2^exposure_comp /
       (1.2 * 2^EV100); exposure_comp is kept only then (docs/SHADING.md
       "Eye adaptation") */
    oak_post post;
    float dt;          /* seconds since the last frame (> 0): the adaptation's step */
    bool adapt_settle; /* the adapted camera jumps to its target (first adapting frame) */
    /* depth of field (render/dof.h _oak_dof_params): the circle of
       confusion in half-size pixels is dof[0] + dof[1] * device depth,
       dof[2] its largest radius, dof[3] 1 when the pass runs */
    float dof[4];

    /* reflection probes in view (render/probe_bake.c): probe_data holds the
       OAK_B_PROBES buffer's OAK_GPU_PROBE_TEXELS * 4 floats (records in the
       order a surface takes them, then their maps); probe_version moves
       whenever any of it changed, so GPU backends upload it only then.
       probe_count 0: the sky light alone (probe_data may be NULL). */
    uint32_t probe_count;
    const float *probe_data;
    uint64_t probe_version;

    /* instance streams after the cull-and-LOD kernel (their instances are
       also in draws and the caster lists: see oak_render_stream) */
    uint32_t stream_count;
    oak_render_stream *streams;
    oak_stream_stats stream_stats;
    /* two-pass Hi-Z on the GPU (occlusion on and OAK_CAP_GPU_OCCLUSION,
       for the draws and the natively drawn streams; the frontend's grid is
       then not built): occ_gpu runs it; occ_cut
       empties its first pass (the first frame of it, a resize, an input of
       another shape, a camera jump: last frame's visible set would be
       stale); occ_keys: the keys' range (the frame input's draw count) */
    bool occ_gpu, occ_cut;
    uint32_t occ_keys;
    /* the frontend's occlusion grid when it was built this frame (else
       NULL), as a test: false when a world sphere is hidden behind it
       (render/occlusion.c). The CPU's per-meshlet culling asks it of each
       meshlet the frustum and cone kept. */
    bool (*occ_sphere_visible)(const void *grid, const float center[3], float radius);
    const void *occ_grid;
    /* volumetric fog's history (render/frontend.c build_fog, docs/SHADING.md
       "Volumetric fog"): the frames it holds before this one (0: none, a
       reset), the inject grid this frame writes (OAK_FOG_GRID_*) and last
       frame's view depth row (dot(fog_prev_depth, (P, 1)) is P's depth) */
    uint32_t fog_frames, fog_grid;
    float fog_prev_depth[4];
    /* the clouds' march may blend with last frame's (render/frontend.c
       clouds_history): clouds ran last frame at the same march size and
       record, the camera did not cut, OAK_CLOUD_HISTORY is not 0 */
    bool clouds_history;
    /* aerial perspective (render/aerial.h, docs/SHADING.md "Aerial
       perspective"): OAK_AERIAL_TEXELS RGBA floats (light scattered toward
       the eye, mean transmittance) over the camera's frustum, or NULL
       (none: env.aerial_lux 0, a capture channel, or no OAK_CAP_AERIAL);
       aerial_version moves whenever its contents changed */
    const float *aerial;
    uint64_t aerial_version;
} oak_render_view;

/* the fog's inject grids (render/fog.h): two the main view alternates
   between, one reading the other as last frame's history, or the
   integrated grid itself for a view that keeps no history */
enum { OAK_FOG_GRID_A, OAK_FOG_GRID_B, OAK_FOG_GRID_IN_PLACE };

/* The passes of a frame, in the order every backend runs them. Their rows
 * (the frame targets each reads and writes, when it runs) are the pass table
 * in render/pass_table.h; docs/ARCHITECTURE.md says how to add one. */
typedef enum oak_pass_id {
    OAK_PASS_UPLOAD,     /* assets whose version moved, then the frame's records */
    OAK_PASS_SKIN,       /* meshes posed by joint palettes skinned into the vertex pools (gpus) */
    OAK_PASS_LIGHTGRID,  /* lamps listed per view cluster for the resolve */
    OAK_PASS_PARTICLES,  /* particle streams' records written by the particle kernel (gpus) */
    OAK_PASS_GRASS,      /* grass squares grown into their slots by the grass kernel (gpus) */
    OAK_PASS_INSTCULL,   /* instance streams' cull-and-LOD kernel in compute (gl) */
    OAK_PASS_MESHCULL,   /* plain draws' meshlets culled into an index buffer (gpus) */
    OAK_PASS_SKYCAPTURE, /* the sky into irradiance and prefiltered maps, when it changed */
    OAK_PASS_SHADOW,     /* the key light's casters into its depth map */
    OAK_PASS_LAMPSHADOW, /* the budgeted lamps' faces into the lamp atlas */
    OAK_PASS_RASTER,     /* visibility buffer: depth + (draw, triangle) */
    OAK_PASS_GTAO,       /* ambient occlusion: depth mips, horizon search, denoise */
    OAK_PASS_CLOUDS,     /* clouds: the key light's shadow map, then the march at low size */
    OAK_PASS_FOG,        /* volumetric fog: froxels injected, then integrated front to back */
    OAK_PASS_RESOLVE,    /* each covered pixel shaded once; the sky where empty */
    OAK_PASS_SSR,        /* puddles' reflections marched in screen space against the depth */
    OAK_PASS_OPAQUECOPY, /* the lit frame copied into a mip chain for what refracts it */
    OAK_PASS_BLEND,      /* BLEND surfaces far to near over the resolved frame */
    OAK_PASS_CLOUDMIX,   /* the clouds' march upsampled by depth over the frame */
    OAK_PASS_TAA,        /* temporal AA: history reprojected by motion vectors, clamped, blended */
    OAK_PASS_DOF,        /* depth of field: half-size gather, near field, mixed back */
    OAK_PASS_EXPOSURE,   /* eye adaptation: the luminance histogram steers the camera */
    OAK_PASS_BLOOM,      /* the bloom pyramid: 13-tap downsamples, tent upsamples */
    OAK_PASS_POST,       /* exposure, ACES, sRGB with dither */
    OAK_PASS_FXAA,       /* FXAA over what shows (a copy when it is off) */
    OAK_PASS_READBACK,   /* the picture made readable by read_pixels */
    OAK_PASS_COUNT
} oak_pass_id;

/* oak_backend.caps: bit i (i < OAK_PASS_COUNT) says the backend runs pass i;
 * the bits from 32 up are features. */
#define OAK_CAP_PASS(id)     (1ull << (id))
#define OAK_CAP_ALL_PASSES   ((1ull << OAK_PASS_COUNT) - 1)
#define OAK_CAP_PIXELS       (1ull << 32) /* read_pixels returns what was drawn */
#define OAK_CAP_GPU_TIMINGS  (1ull << 33) /* stage timings carry GPU times */
#define OAK_CAP_SHADOW_CACHE (1ull << 34) /* an unchanged shadow map is not redrawn */
#define OAK_CAP_PROBES       (1ull << 35) /* bakes reflection probes (read_hdr); else the sky */
/* draws instance streams from its instcull pass's lists: the frontend does
   not expand them into the view's draws (oak_render_stream.native) */
#define OAK_CAP_GPU_STREAMS (1ull << 36)
/* culls the view's draws and native streams by two-pass Hi-Z in its raster
   pass when occlusion is on (oak_render_view.occ_gpu); the frontend then
   builds no grid */
#define OAK_CAP_GPU_OCCLUSION (1ull << 37)
/* applies the aerial perspective volume (oak_render_view.aerial); without
   it the frontend builds none and surfaces show no aerial perspective */
#define OAK_CAP_AERIAL    (1ull << 38)
#define OAK_CAP_BIT_COUNT 39

/* "shadow", "raster", ...: a pass's stage name in timings and `oak bench`. */
const char *oak_pass_name(oak_pass_id pass);
/* The name of caps bit `bit` ("pixels", a pass's name), NULL for none. */
const char *oak_cap_name(uint32_t bit);

typedef struct oak_backend_desc {
    uint32_t width, height;
    const char *device;
    uint32_t shadow_map_size;
    /* Set by `auto`: refuse (OAK_ERROR_DEVICE, saying why) when the only
       devices are software ones such as lavapipe or llvmpipe, since the cpu
       backend is the better choice there. An explicit --backend clears it. */
    bool hardware_only;
    /* A window to present into (oak_renderer_attach_window); NULL: headless. */
    const oak_window_hooks *window;
} oak_backend_desc;

typedef struct oak_backend {
    const char *name;
    /* Fills report with device, driver, API and features (one per line); a
       non-OK result means it cannot run here and report says why. */
    oak_result (*probe)(char *report, size_t report_size);
    oak_result (*create)(void **self, const oak_backend_desc *desc);
    void (*destroy)(void *self);
    const char *(*device_name)(void *self);
    oak_result (*resize)(void *self, uint32_t width, uint32_t height);
    /* The sync contract, the same on every backend: render() syncs itself.
       sync() uploads or refreshes every asset the view uses whose version
       moved; it is optional and lets a caller start uploads early. render()
       of a view that was not synced first does what sync() would, so
       render() alone always draws the view with its assets as they are;
       after sync() of the same view and frame it uploads nothing twice.
       Change assets between the two and call sync() again (or skip it).
       tests/test_backend_contract.c holds every backend to this. */
    oak_result (*sync)(void *self, const oak_render_view *view);
    oak_result (*render)(void *self, const oak_render_view *view);
    oak_result (*read_pixels)(void *self, uint8_t *rgba, size_t size);
    uint32_t (*timings)(void *self, oak_stage_timing *out, uint32_t max);
    uint64_t caps; /* OAK_CAP_*: the passes it runs and its features */
    /* Debug read-back of the last frame's lamp grid: OAK_GPU_LIGHT_GRID_WORDS
       words laid out as shaders/common/oak_gpu.h's oak_gpu_light_grid says.
       NULL when the backend builds none. */
    oak_result (*read_light_grid)(void *self, uint32_t *words, size_t count);
    /* The last frame's shadow cache counters; NULL when it keeps none. */
    void (*shadow_stats)(void *self, oak_shadow_stats *out);
    /* Test hook: how many times the sky was captured and, when texels is
       not NULL, the sky maps (OAK_GPU_SKY_TEXELS RGBA32F texels laid out as
       shaders/common/oak_gpu.h says). NULL when the backend keeps none. */
    oak_result (*read_sky)(void *self, float *texels, size_t count, uint32_t *captures);
    /* Test hook: the last frame's instcull pass's visible instances per LOD
       band, summed over the streams, and, when per_stream is not NULL, each
       of the first max_streams streams' (per_stream[s * OAK_STREAM_LODS + k]);
       when split is not NULL, per LOD band the part of per_lod the compute
       raster drew from the per-instance (SMALL) lists. NULL when the backend runs no instcull (the
       CPU's kernel runs in the frontend: oak_renderer_stream_stats). */
    oak_result (*read_stream_counts)(void *self, uint32_t per_lod[OAK_STREAM_LODS],
                                     uint32_t *per_stream, uint32_t max_streams, uint32_t *split);
    /* The last frame's linear colour before post (what the resolve and the
       BLEND pass wrote): width * height RGBA32F texels, top row first, count
       floats at least width * height * 4. Reflection probe bakes read their
       faces through it. NULL when the backend keeps no such picture. */
    oak_result (*read_hdr)(void *self, float *rgba, size_t count);
    /* Test hook: the exposure pass's state after the last frame that ran
       it: EV100 now, the multiplier post applied, the metered EV100 and the
       target (a read-back on GPUs). NULL when the backend runs no exposure pass. */
    oak_result (*read_exposure)(void *self, float state[4]);
    /* Two-pass Hi-Z's counters (OAK_CAP_GPU_OCCLUSION) of the latest frame
       the GPU has finished, read without waiting: draws_tested,
       draws_occluded, drawn_pass1, drawn_pass2, and the natively drawn
       streams' instances_* (the rest zero); false when
       no such frame ran Hi-Z. NULL when the backend has no Hi-Z. */
    bool (*occlusion_stats)(void *self, oak_occlusion_stats *out);
    /* Native presentation into desc.window: the mode in words ("swapchain
       fifo", "default framebuffer"), NULL when not presenting; and the
       present itself (oak_renderer_present). NULL: the backend has none. */
    const char *(*presentation)(void *self);
    oak_result (*present)(void *self, uint32_t width, uint32_t height,
                          const oak_present_panel *panel, uint8_t *capture);
    /* The last frame's blend pass: BLEND surfaces and the draws issued
       for them. NULL when the backend keeps no count. */
    void (*blend_stats)(void *self, oak_blend_stats *out);
    /* The last frame's meshlet culling counters; NULL when the backend culls
       no meshlets. */
    void (*meshlet_stats)(void *self, oak_meshlet_stats *out);
    /* Test hook: the last frame's sampled cascade atlas (the shadow map,
       depth as floats, row 0 first as the resolve samples it), count at
       least its edge squared. NULL when the backend keeps none on a GPU. */
    oak_result (*read_shadow_map)(void *self, float *depth, size_t count);
    /* The last frame's mesh uploads (oak_renderer_upload_stats); NULL when
       the backend keeps none. */
    void (*upload_stats)(void *self, oak_upload_stats *out);
} oak_backend;

/* Each backend exports one of these. */
const oak_backend *oak_backend_cpu(void);
const oak_backend *oak_backend_null(void);
const oak_backend *oak_backend_vulkan(void); /* NULL when not compiled in */
const oak_backend *oak_backend_gl(void);     /* NULL when not compiled in */

#ifdef __cplusplus
}
#endif
#endif
