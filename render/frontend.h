/* Private to render/: the frontend's state kept across frames, and the
 * passes that turn an oak_frame_input into an oak_render_view. */
#ifndef OAK_RENDER_FRONTEND_H
#define OAK_RENDER_FRONTEND_H

#include <oak/backend.h>

#include "clouds.h"
#include "occlusion.h"
#include "shaders/common/oak_gpu.h"

/* Where a cascade's map stays while the camera moves (shadow_fit.c): its
   light-space centre, kept until the slice's sphere leaves the square. */
typedef struct oak_cascade_keep {
    bool valid;
    float radius, texel; /* the slice sphere's and the map's, when fitted */
    float centre[3];     /* light-space, x and y on the texel grid */
    float light_dir[3];  /* the sun's direction it was fitted for */
    uint32_t map_size;
    uint32_t moves; /* bit i: re-centred i frames ago (bit 0: this frame) */
} oak_cascade_keep;

/* What a cascade's static layer was last built from (shadow_fit.c): its
   key, its matrix's key, and each static caster's hash with its bounds in
   the map, sorted by hash; and what pairs a caster whose mesh was reposed
   in place with the version the layer drew (base: its hash without the
   mesh version; at: its place in that frame's caster list). A caster whose
   morph the layer has not followed yet (OAK_SHADOW_MORPH_SLACK) keeps the
   hash and version drawn, and the version last seen, the metres its
   vertices may have moved since and the mesh-space box of all that moved. */
typedef struct oak_held_caster {
    uint64_t hash, base;
    uint16_t rect[4];
    uint32_t mesh, version, seen, at, slot;
    float drift;
    float lo[3], hi[3];
} oak_held_caster;
/* A still stream's LOD picks (shadow_fit.c): its identity hash and per
   record the LOD band the eye picks (the stream's lod_count: gone), with
   OAK_PICK_EDGE set within a hair of a band's edge, where the device's
   distance may round the other way. */
#define OAK_PICK_EDGE 0x80u
typedef struct oak_stream_picks {
    uint64_t id;
    uint8_t *band;
    uint32_t count, cap;
} oak_stream_picks;

typedef struct oak_cascade_held {
    bool valid;
    /* the still native streams the layer drew (shadow_fit.c stream_picks'
       identity: records, versions, materials, LOD meshes; 0: none): only
       while they are the same do rectangles follow their LOD picks */
    uint64_t streams;
    uint64_t key, matrix;
    oak_held_caster *casters;
    uint32_t count, cap;
    /* casters in hash order; a list held while the map moved is sorted
       only when a frame compares against it (the stress world's flight
       moves every map every frame: a sort each that nothing read) */
    bool sorted;
    /* the low preset's far layer kept last frame's casts although its
       casters changed (shadow_fit.c cascade_dirty): the next change redraws */
    bool lagged;
} oak_cascade_held;

typedef struct oak_frontend {
    oak_render_view view;
    /* draw columns and their capacities (view.draws / view.casters point here) */
    uint32_t draw_cap, caster_cap, batch_cap, light_cap, sort_cap;
    uint64_t *sort_keys, *sort_tmp_keys;
    uint32_t *sort_index, *sort_tmp_index;
    uint8_t *visible; /* per input draw, filled by the culling jobs */
    /* per input draw (stream_input's indexing), its world sphere as
       _oak_draw_sphere gives it, written once a frame by the culling jobs
       (cull_range, the stream kernel) for the shadow fits to read; radius
       NaN where none was computed (they compute it then) */
    float (*sphere)[4];
    uint32_t sphere_cap;
    uint8_t *casting; /* per input draw, bit c: casts into cascade c */
    uint32_t visible_cap, casting_cap;
    uint32_t *caster_slots; /* shadow_fit.c: per chunk, its runs' counts, then places */
    uint32_t caster_slots_cap;
    uint64_t *key_chunks; /* shadow_fit.c: the static key's hash per chunk of casters */
    uint32_t key_chunks_cap;
    uint32_t radix_count[65536];
    mat4 last_view_proj;
    bool has_last;
    /* last frame's input draws (transforms and meshes by input index), for
       each draw's prev_world; and the taa pass's sequence (render/taa.h) */
    mat4 *last_world;
    oak_mesh *last_mesh;
    uint32_t *last_version; /* the mesh's version last frame (a posed mesh's pose) */
    uint32_t last_count, last_cap, last_cap2, last_cap3;
    uint64_t taa_frame; /* TAA frames since the history's reset */
    bool taa_on;        /* the last frame had TAA */
    uint32_t taa_width, taa_height, taa_out_width, taa_out_height;
    /* the renderer's output size: TAA upsamples a scaled frame to it (0:
       never, as for probe faces) */
    uint32_t out_width, out_height;
    /* volumetric fog's history (frontend.c build_fog): kept only for the
       renderer's own view (probe faces keep none), the frames it holds,
       the grid last written, the medium and size it was made under, and
       last frame's eye, forward and view depth row */
    bool fog_history, fog_was_on;
    uint32_t fog_frames, fog_grid, fog_width, fog_height;
    oak_gpu_fog fog_last;
    float fog_eye[3], fog_forward[3], fog_depth[4];
    bool lights_warned; /* said once that lights past OAK_MAX_LIGHTS were dropped */
    oak_cascade_keep keep[OAK_MAX_CASCADES];
    /* shadow_fit.c: per caster of the list its own hash and its bounds in
       its cascade's map (view.caster_rects), and per cascade what its static
       layer held last frame, for the dirty rectangles */
    uint64_t *caster_hash;
    uint64_t *caster_base; /* the hash without the mesh's version */
    uint16_t (*caster_rect)[4];
    uint32_t caster_hash_cap, caster_rect_cap, caster_base_cap;
    oak_cascade_held held[OAK_MAX_CASCADES];
    /* each still stream's LOD picks by record (shadow_fit.c stream_picks),
       this frame's and last frame's, and the records whose pick changed */
    oak_stream_picks picks[2][OAK_STREAM_MAX_PER_VIEW];
    uint32_t pick_streams[2], pick_now;
    uint32_t (*pick_moved)[2]; /* the view's stream index, the record */
    uint32_t pick_moved_count, pick_moved_cap;
    oak_held_caster *held_tmp; /* this frame's list, swapped into held */
    uint32_t held_tmp_cap;
    /* the casters one cascade gained and lost since its layer was drawn */
    oak_held_caster *dirty_come, *dirty_gone;
    uint32_t dirty_come_cap, dirty_gone_cap;
    /* lamp shadows (lamp_shadow.c): per view light its index in the input
       (a lamp's identity across frames), and who holds each atlas tile */
    uint32_t *light_src;
    uint32_t light_src_cap, light_shadow_cap, lamp_caster_cap, lamp_mask_cap, lamp_keys_cap;
    uint64_t *lamp_mask; /* per input draw: bit f when it casts into face f */
    uint64_t *lamp_keys;
    uint32_t tile_lamp[OAK_LAMP_ATLAS_FACES]; /* holder's input light index + 1; 0: free */
    uint8_t tile_face[OAK_LAMP_ATLAS_FACES];  /* which of its faces */
    uint64_t tile_hash[OAK_LAMP_ATLAS_FACES]; /* static_hash last drawn there */
    bool tile_drawn[OAK_LAMP_ATLAS_FACES];
    /* instance streams (render/stream_cull.c): the input with every stream
       instance appended as a draw, its columns, the kernel's answer per
       instance, the view's stream list and each slot's last-frame copy */
    oak_frame_input stream_input;
    /* the backend draws streams from its instcull lists (OAK_CAP_GPU_STREAMS):
       set by the renderer before each build */
    bool gpu_streams;
    /* the backend runs the particles pass (OAK_PASS_PARTICLES): a native
       PARTICLES stream's records are the device's, the host fills none */
    bool gpu_particles;
    /* the backend runs the grass pass (OAK_PASS_GRASS): a native GRASS
       stream the device can grow has its records grown there, not here */
    bool gpu_grass;
    /* what the view's draws come from: stream_input cut before the native
       streams' instances (they are listed last); the first stream draw */
    oak_frame_input view_input;
    uint32_t stream_draws_from;
    oak_mesh *sx_mesh;
    oak_material *sx_material;
    mat4 *sx_world;
    uint32_t *sx_flags;
    float *sx_color;
    uint8_t *sx_lod;
    uint32_t *sx_visible;
    uint32_t sx_cap, sx_cap2, sx_cap3, sx_cap4, sx_cap5, sx_lod_cap, sx_visible_cap;
    /* posed stream instances: per input draw its palettes (NULL: none), and
       the frame memory they lie in (render/pose_stream.h) */
    const float **sx_pose;
    float *sx_palettes;
    uint32_t sx_pose_cap, sx_palettes_cap;
    /* the pose column of each draw list (oak_draw_list.pose) */
    uint32_t draw_pose_cap, caster_pose_cap, lamp_pose_cap;
    oak_render_stream streams[OAK_STREAM_MAX_PER_VIEW];
    uint64_t stream_seen[OAK_STREAM_MAX_PER_VIEW]; /* the serial each slot held; 0: none */
    uint64_t stream_seen_version[OAK_STREAM_MAX_PER_VIEW];
    float wind_last_time; /* the environment's wind time last frame (motion) */
    bool wind_seen;
    oak_instance *stream_last[OAK_STREAM_MAX_PER_VIEW][2]; /* [0]: as last frame */
    uint32_t stream_last_cap[OAK_STREAM_MAX_PER_VIEW][2];
    /* occlusion culling (render/occlusion.c): on for this frontend (set by
       the renderer; probe faces leave it off), the grid and the counters */
    bool occlusion;
    oak_occ_grid occ;
    oak_occlusion_stats occ_stats;
    /* the backend culls the draws by two-pass Hi-Z (OAK_CAP_GPU_OCCLUSION,
       set by the renderer), and what the last frame that ran it looked
       like, to tell a camera cut (oak_render_view.occ_cut) */
    bool gpu_occlusion, hiz_was_on;
    /* aerial perspective (frontend.c build_aerial): the backend applies it
       (OAK_CAP_AERIAL, set by the renderer), the volume, what it was built
       for (the view-projection, the eye, the light, the sky's scale) and
       its version */
    bool aerial_cap, aerial_valid;
    float *aerial;
    float aerial_key[25];
    uint64_t aerial_version;
    uint32_t hiz_width, hiz_height, hiz_keys;
    float hiz_eye[3], hiz_forward[3];
    /* the clouds' last frame (oak_render_view.clouds_history): its record
       (drift and history bits aside), frame, eye and forward */
    bool cloud_had;
    uint64_t cloud_frame;
    oak_gpu_clouds cloud_last;
    float cloud_eye[3], cloud_forward[3];
    uint32_t key_cap, unit_cap;
} oak_frontend;

void _oak_frontend_release(oak_frontend *fe);
/* Fills fe->view from input for an output of width x height. */
oak_result _oak_frontend_build(oak_frontend *fe, const oak_frame_input *input, uint32_t width,
                               uint32_t height, uint32_t shadow_map_size);
/* Fits the key light's cascades to the view and lists each one's casters. */
void _oak_frontend_fit_shadows(oak_frontend *fe, const oak_frame_input *input);
/* Chooses this frame's shadowed lamps and fits their faces and casters. */
oak_result _oak_frontend_fit_lamp_shadows(oak_frontend *fe, const oak_frame_input *input);
void _oak_lamp_shadows_release(oak_frontend *fe);
/* Runs the cull-and-LOD kernel over input's streams (after the camera) and,
   when there are any, points *input at fe->stream_input: input's draws and
   then every stream instance as a draw. */
oak_result _oak_frontend_streams(oak_frontend *fe, const oak_frame_input **input);
void _oak_streams_release(oak_frontend *fe);
/* World-space bounding sphere of a draw; false for a stale mesh. */
bool _oak_draw_sphere(oak_mesh mesh, mat4 m, float center[3], float *radius);
/* Input draw i's world sphere when it casts shadows (not OAK_DRAW_NO_SHADOW,
   not BLEND, a live mesh and material); false when it casts nothing. The
   cascades and the lamp faces list their casters through this one test.
   spheres (NULL: none) is oak_frontend.sphere: the culling jobs' sphere of
   draw i, used where its radius is not NaN. */
bool _oak_caster_sphere(const oak_frame_input *in, const float (*spheres)[4], uint32_t i,
                        float center[3], float *radius);
/* A lamp's reach in metres (its range, else where its irradiance times
   exposure falls to OAK_LAMP_FLOOR). */
float _oak_lamp_reach(const oak_light *l, float exposure);
void _oak_display_to_radiance(const float display[3], const oak_post *post, float out[3]);

/* Quality presets (render/quality.c): the post settings left at their
   default filled from post->preset's row (shadow_filter clamped). */
void _oak_quality_fill_post(oak_post *post);

/* Input draw i's palettes (oak_draw_list.pose) when `in` is the frame's
   input with streams expanded (its columns the frontend's), else NULL. */
static inline const float *_oak_fe_pose(const oak_frontend *fe, const oak_frame_input *in,
                                        uint32_t i) {
    return fe->sx_pose && in->meshes == fe->sx_mesh ? fe->sx_pose[i] : NULL;
}

#endif
