/* The OpenGL backend's GPU-side state. The records themselves (view, draws,
 * lights, vertices, materials) come from shaders/common/oak_gpu.h, the one
 * header the shared GLSL and C both read. The frame object owns the pools:
 * one vertex/index pool, texture arrays by size class, materials in a
 * storage buffer, per-frame draw, light and indirect-command buffers. */
#ifndef OAK_GL_GPU_H
#define OAK_GL_GPU_H

#include "gl_internal.h"
#include "backend/gpu/gpu_records.h"
#include "backend/gpu/meshcull_hiz.h"
#include "render/pass_table.h"
#include "render/shadow_layer.h"

#include "shaders/common/oak_gpu.h"

typedef struct _oak_gl_command { /* DrawElementsIndirectCommand */
    uint32_t count, instance_count, first_index;
    int32_t base_vertex;
    uint32_t base_instance;
} _oak_gl_command;

typedef struct _oak_gl_mesh_slot {
    uint32_t id, version;
    uint32_t first_index, index_count, base_vertex, vertex_count;
    /* a posed mesh (prev_positions): its previous pose's positions follow
       its own at base_vertex + prev (its vertex count; vertex_count, the
       range, is twice that); 0: none */
    uint32_t prev;
    float center[3]; /* bounding-box centre, for sorting BLEND draws */
    /* a mesh posed by its palette: the pose the skin pass last wrote (0:
       none yet); its range keeps the rest pose after its own (oak_gpu.h) */
    uint32_t pose_version;
    /* culled by meshlets (gl_meshcull.c): its records' first uvec4 in the
       meshlet pool, the uvec4 its range holds, its meshlets (0: uncut) */
    uint32_t ml_first, ml_room, ml_count;
    /* cluster LOD (gl_meshcull.c): its finest level's meshlets, the
       triangles a job's region holds (_oak_meshcull_gpu_levels) and the
       indices its range holds (every level's when meshlet culling is on;
       index_count, what every other pass draws, is the finest's) */
    uint32_t ml_finest, ml_tris, index_room;
    /* the mesh's shape_version when it was last sent whole: while the
       registry's stays the same, a new pose sends the positions alone */
    uint32_t shape_version;
} _oak_gl_mesh_slot;

typedef struct _oak_gl_tex_slot {
    uint32_t id, version;
    int32_t cls, layer;
} _oak_gl_tex_slot;

typedef struct _oak_gl_mat_slot {
    uint32_t id, version, epoch;
    bool double_sided, mask, blend;
} _oak_gl_mat_slot;

typedef struct _oak_gl_tex_class {
    GLuint tex;
    uint32_t width, height, mips, layers, capacity;
    bool is_float;
} _oak_gl_tex_class;

/* What the last passes did to a frame target, for the barriers (gl_track.c). */
typedef struct _oak_gl_track {
    bool written;         /* since the frame targets were made */
    bool incoherent;      /* the last write was an image or buffer store */
    GLbitfield barriered; /* glMemoryBarrier bits issued since that write */
} _oak_gl_track;

/* The lamp atlas (gl_pass_lampshadow.c): the static layers, the atlas the
   resolve reads, and per tile the static_hash of the layer held. */
typedef struct _oak_gl_lamp {
    GLuint prog, prog_mask;
    GLuint static_tex, static_fbo, live_tex, live_fbo;
    _oak_gl_buffer block, casters, commands;
    oak_gpu_draw *draw_data;
    _oak_gl_command *cmds;
    uint32_t draw_cap, cmd_cap;
    uint32_t range[OAK_LAMP_ATLAS_FACES][2][3]; /* per face and layer: plain, masked, end */
    uint64_t hash[OAK_LAMP_ATLAS_FACES];
    bool drawn[OAK_LAMP_ATLAS_FACES], had_movers[OAK_LAMP_ATLAS_FACES];
} _oak_gl_lamp;

/* Frames whose timestamps can be in flight at once: the GPU may run up
   to two frames behind the host before a set is rewritten unread (the
   driver's own queue depth, not a wait of ours). */
#define OAK_GL_QUERY_SETS 3

/* A ring of per-frame slots, one per frame in flight (the timestamps with
   their frame's fence and Hi-Z stamps; the meshcull counters' copies):
   frame n, counted from 1, owns slot _oak_gl_ring_slot(n) until frame
   n + OAK_GL_QUERY_SETS takes it. serial[k]: the frame whose contents
   slot k holds (0: none, or being rewritten); seen: the newest frame a
   reader took from it. */
typedef struct _oak_gl_ring {
    uint64_t serial[OAK_GL_QUERY_SETS];
    uint64_t seen;
} _oak_gl_ring;

static inline uint32_t _oak_gl_ring_slot(uint64_t frame) {
    return (uint32_t)((frame - 1) % OAK_GL_QUERY_SETS);
}

/* A reader of the ring up to frame newest tries frames from newest down
   while above this: the frame it took last, or the newest one whose slot
   a later frame has taken; a slot whose serial is not the frame tried is
   passed over. */
static inline uint64_t _oak_gl_ring_floor(const _oak_gl_ring *r, uint64_t newest) {
    uint64_t gone = newest > OAK_GL_QUERY_SETS ? newest - OAK_GL_QUERY_SETS : 0;
    return r->seen > gone ? r->seen : gone;
}

typedef struct _oak_gl_frame {
    GLuint prog_vis, prog_vis_mask, prog_shadow, prog_shadow_mask;
    GLuint prog_resolve, prog_post, prog_fxaa, prog_blend;
    GLuint prog_blend_unlit; /* plain unlit BLEND materials (shaders/blend_unlit.frag.glsl) */
    /* water's pixels found, then shaded in compute (gl_pass_blend.c; made
       on first use); water_forward: OAK_GL_WATER_FORWARD=1 keeps blend.frag */
    GLuint prog_blend_water_id, prog_blend_water;
    bool water_forward;
    GLuint vao;
    _oak_gl_buffer positions, attributes, indices, draws, casters, materials, lights, view,
        draw_ids, commands, raster_view;
    uint32_t vertex_fill, index_fill; /* pool use, in vertices and indices */
    uint32_t draw_id_count;

    _oak_gl_mesh_slot *meshes;
    uint32_t mesh_cap;
    _oak_gl_tex_slot *texs;
    uint32_t tex_cap;
    _oak_gl_mat_slot *mats;
    uint32_t mat_cap;
    _oak_gl_tex_class classes[OAK_GPU_TEXTURE_CLASSES];
    uint32_t class_count, epoch; /* epoch moves when a texture lands somewhere new */

    GLuint shadow_tex, shadow_fbo;
    uint32_t shadow_size;          /* the atlas edge: 2 x 2 cascade maps */
    GLuint static_tex, static_fbo; /* the cascades' cached static layers, laid out as shadow_tex */
    oak_shadow_layer shadow_layer[OAK_MAX_CASCADES];
    oak_shadow_stats shadow_stats;        /* the last frame's */
    uint32_t blend_surfaces, blend_draws; /* the last frame's (oak_blend_stats) */
    uint32_t blend_unlit;                 /* of those, drawn by prog_blend_unlit */
    uint32_t blend_compute;               /* of those, water shaded by prog_blend_water */

    /* CPU staging with kept capacity: a warm frame allocates nothing */
    oak_gpu_draw *draw_data;
    uint32_t draw_cap;
    _oak_gl_command *cmds;
    uint32_t cmd_cap;
    float *blend_keys; /* per draw: squared distance of its centre from the camera */
    uint32_t blend_key_cap;
    /* per BLEND command: the view draw it stands for (a device-written
       BLEND stream's command starts past the list: its unit's one draw) */
    uint32_t *blend_draw;
    uint32_t blend_draw_cap;
    oak_gpu_light *light_data;
    uint32_t light_cap;

    /* this frame, from the upload pass for the passes after it */
    uint32_t main_groups[6], shadow_groups[6]; /* command ranges (build_list) */
    uint32_t shadow_size_now;
    const oak_render_view *synced_view; /* what sync() last saw, until render */
    uint64_t synced_frame;
    _oak_gl_track track[OAK_TARGET_COUNT];
    /* the timestamps, one set per frame in flight: a frame writes its
       slot's set (_oak_gl_frame_slot: one stamp before each timed pass,
       one after), the timings read the newest set the GPU has finished
       (never waiting). stamps: the frame that wrote each set (0 while it
       is being rewritten) and (seen) the one gpu_ms holds. query_frames:
       the frames recorded (the one being recorded is query_frames + 1). */
    GLuint queries[OAK_GL_QUERY_SETS][OAK_PASS_COUNT + 1];
    _oak_gl_ring stamps;
    bool query_hiz[OAK_GL_QUERY_SETS]; /* that frame ran Hi-Z: hiz_queries too */
    uint64_t query_frames;
    bool gpu_hiz; /* the set gpu_ms holds ran Hi-Z: hiz_ms are its */
    /* the test hook's counters (_oak_gl_frame_overlap): results read
       before they were known available (a wait for the GPU: stays 0), and
       timings that found this frame unfinished and reported an older one */
    uint64_t blocking_reads, lagged_reads;
    double wait_ms; /* polling and reading the stamps (slotwait): no wait for the GPU */
    /* each set's frame's fence: a frame waits for the one two before it
       (slot_ms, part of slotwait), so at most two frames are in flight as
       on Vulkan; without it the host ran as far ahead as the driver let
       it, and no set's stamps were finished before their turn came again */
    GLsync frame_fence[OAK_GL_QUERY_SETS];
    double slot_ms;
    GLuint prog_lightgrid; /* the lamp grid (gl_pass_lightgrid.c) */
    _oak_gl_buffer grid;
    GLuint prog_gtao[4]; /* the gtao pass's steps, in order (gl_pass_gtao.c) */
    _oak_gl_buffer ao;   /* its floats (_oak_gpu_ao_floats), read by the resolve */
    GLuint prog_skycapture, prog_skyfilter; /* the sky light (gl_pass_skycapture.c) */
    _oak_gl_buffer sky;
    uint64_t sky_hash; /* of the environment captured; 0: none yet */
    uint32_t sky_captures;
    bool sky_brdf; /* the BRDF table is built */
    /* eye adaptation (gl_pass_exposure.c): histogram and camera state,
       bound at OAK_B_EXPOSURE from the frame's start (post reads it) */
    GLuint prog_exposure_meter, prog_exposure_step;
    _oak_gl_buffer exposure;
    GLuint prog_bloom;      /* the bloom pass (gl_pass_bloom.c) */
    _oak_gl_buffer bloom;   /* its pyramid (render/bloom.h), read by post */
    GLuint prog_opaquecopy; /* the opaque frame's copy (gl_pass_opaquecopy.c) */
    _oak_gl_buffer opaque;  /* its levels (render/opaque_copy.h), read by blend */
    /* the skin pass (gl_pass_skin.c): the meshes whose pose moved, queued
       by the upload's sync with their first vertex, the most vertices
       among them, the block staged on the host, its buffer and program */
    _oak_gpu_skin_queue skin_q;
    uint32_t (*skin_words)[4];
    uint32_t skin_words_cap;
    _oak_gl_buffer skin;
    GLuint prog_skin;
    GLuint prog_ssr;                   /* screen-space reflections (gl_pass_ssr.c) */
    _oak_gl_buffer ssr;                /* the resolve's mirror buffer (render/ssr.h) */
    GLuint prog_dof;                   /* depth of field (gl_pass_dof.c) */
    _oak_gl_buffer dof;                /* its half-size images and tiles (render/dof.h) */
    GLuint prog_clouds, prog_cloudmix; /* the clouds passes (gl_pass_clouds.c) */
    _oak_gl_buffer clouds;             /* OAK_B_CLOUDS: shadow map, noise table, march */
    GLuint clouds_baked;               /* the buffer whose noise table is baked (0: none) */
    GLuint prog_fog;                   /* the fog pass (gl_pass_fog.c) */
    _oak_gl_buffer fog;                /* OAK_B_FOG: the froxels, injected then integrated */
    GLuint prog_taa;                   /* the taa pass (gl_pass_taa.c) */
    _oak_gl_buffer taa;                /* its two histories (render/taa.h) */
    _oak_gl_buffer probes;             /* OAK_B_PROBES (gl_probes.c) */
    uint64_t probe_version;            /* of the view whose probes it holds */
    _oak_gl_buffer aerial;   /* OAK_B_AERIAL: the aerial perspective volume (gl_probes.c) */
    GLuint aerial_tex;       /* the same buffer as an RGBA32F texture buffer */
    const float *aerial_src; /* whose volume (a frontend's) it holds */
    uint64_t aerial_version; /* at which version (0: none) */
    double cpu_ms[OAK_PASS_COUNT], gpu_ms[OAK_PASS_COUNT];
    _oak_gl_lamp lamp;
    /* instance streams' instcull pass (gl_pass_instcull.c): records, the
       heads, commands and lists, and what each stream slot holds */
    GLuint prog_instcull;
    _oak_gl_buffer instances, instance_out;
    /* the particles pass (gl_pass_particles.c): its program, the emitter
       blocks, and per stream slot whose block it holds, its version, where */
    GLuint prog_particles;
    GLuint prog_particle_draws; /* shaders/particles_draws.comp.glsl */
    GLuint prog_particle_sort;  /* shaders/particles_sort.comp.glsl */
    _oak_gl_buffer particles;
    /* the "over" books' frames whose count the draw kernel wrote, each
       {job, BLEND command past main_groups[4], frame} (gpu_particles.h) */
    uint32_t book_cmd[OAK_STREAM_MAX_PER_VIEW][3], book_cmds;
    const void *particle_src[OAK_STREAM_MAX_PER_VIEW];
    uint64_t particle_version[OAK_STREAM_MAX_PER_VIEW];
    size_t particle_at[OAK_STREAM_MAX_PER_VIEW];
    uint64_t particle_uploads; /* blocks copied up (a test's count) */
    /* the grass pass's own (gl_grass.c), made on first use */
    struct _oak_gl_grass *grass;
    oak_gpu_instcull instcull_heads[OAK_STREAM_MAX_PER_VIEW];
    uint32_t instcull_streams;
    uint32_t instcull_most; /* the most instances of one stream (the dispatch's width) */
    /* the records' copies and their last-frame copies after them: the one
       ledger the grass pass and instcull both bring up to date */
    _oak_gpu_upload_ledger uploads;
    /* a posed stream's pose block after those: whose bank, LOD 0 mesh and where */
    const void *instcull_pose_src[OAK_STREAM_MAX_PER_VIEW];
    uint32_t instcull_pose_mesh[OAK_STREAM_MAX_PER_VIEW];
    uint64_t instcull_pose_first[OAK_STREAM_MAX_PER_VIEW];
    /* and its override slots': whose (the stream's palettes) and version */
    const float *instcull_ovr_src[OAK_STREAM_MAX_PER_VIEW];
    uint64_t instcull_ovr_version[OAK_STREAM_MAX_PER_VIEW];
    /* per stream: the vis program group it draws with from the lists
       (masked 2, double-sided 1), UINT32_MAX when it is not drawn natively;
       the stream raster's programs */
    uint32_t instcull_group[OAK_STREAM_MAX_PER_VIEW];
    /* the impostor LOD's group (its own material's; the stream's without one) */
    uint32_t instcull_igroup[OAK_STREAM_MAX_PER_VIEW];
    bool
        instcull_moved[OAK_STREAM_MAX_PER_VIEW]; /* casts as a mover (else into the static layer) */
    GLuint prog_vis_stream, prog_vis_stream_mask, prog_shadow_stream, prog_shadow_stream_mask;
    /* the compute raster (gl_craster.c): its programs, band table, two
       words per pixel, the bands it drew this frame and per stream their
       LODs (bit k: LOD k, which _oak_gl_draw_streams then skips) */
    GLuint prog_craster, prog_craster_merge, prog_craster_plan;
    _oak_gl_buffer craster, craster_depth;
    uint32_t craster_bands, craster_logged;
    uint32_t craster_split_logged; /* the per-instance bands among craster_logged */
    uint8_t craster_lods[OAK_STREAM_MAX_PER_VIEW];
    uint32_t craster_table[1 + 2 * OAK_GPU_CRASTER_BANDS][4]; /* as uploaded */
    /* ... and in the shadow pass: its programs, texels (a region per
       cascade and kind), (band, cascade) rows, the regions they drew (bit
       cascade * 2 + 1 for movers), per cascade and stream the LODs drawn
       (which _oak_gl_draw_stream_casters skips), its table as uploaded */
    GLuint prog_craster_shadow, prog_craster_shadow_merge;
    _oak_gl_buffer craster_shadow;
    uint32_t craster_shadow_bands, craster_shadow_regions, craster_shadow_logged;
    uint8_t craster_shadow_lods[OAK_MAX_CASCADES][OAK_STREAM_MAX_PER_VIEW];
    uint32_t craster_shadow_table[1 + 2 * OAK_GPU_CRASTER_SHADOW_BANDS][4];
    /* two-pass Hi-Z (gl_hiz.c): this frame runs it; the head and
       candidates as uploaded (hiz_data), the buffer with the commands after
       them, the kept bits and pyramid, its program; the counters' two
       read-back copies with their fences and frames, the latest read */
    bool hiz_on, hiz_compact;
    uint8_t *hiz_data;
    uint32_t hiz_cap;
    _oak_gl_buffer hiz, hiz_keep, hiz_read[2];
    GLuint prog_hiz, prog_hiz_pyramid; /* hiz_cull.comp, hiz_pyramid.comp */
    _oak_gpu_hiz_streams hiz_streams;  /* the native streams' bits in hiz_keep */
    GLsync hiz_fence[2];
    uint64_t hiz_read_serial[2], hiz_serial, hiz_stats_serial;
    oak_occlusion_stats hiz_stats;
    /* timestamps after pass 1 and after the pyramid and test, when this
       frame ran Hi-Z (hiz_timed), and the times they gave */
    GLuint hiz_queries[OAK_GL_QUERY_SETS][2]; /* per set of queries */
    bool hiz_timed;
    double hiz_ms[2];
    /* per-meshlet culling (gl_meshcull.c): on (OAK_MESHCULL not off and
       the bindings there), its program, the meshlet pool and its fill in
       uvec4, the frame's head, jobs, commands, map and indices (mc_words:
       the host's part as uploaded), per view draw whether the meshcull
       commands draw it, their ranges per vis group, the counters' copy
       with its fence and the latest counters read; the programs: the
       count step, the scan, the write step */
    bool mc_on, mc_checked;
    GLuint prog_meshcull, prog_meshcull_scan, prog_meshcull_write;
    _oak_gl_buffer meshlets, meshcull;
    /* the counters' copies, one per frame in flight (the frame's slot):
       each with its fence (NULL: that frame culled nothing, its counters
       zero) and, in mc_ring, its frame; the stats read the newest
       finished one, never waiting (frames run two ahead) */
    _oak_gl_buffer mc_read[OAK_GL_QUERY_SETS];
    GLsync mc_ring_fence[OAK_GL_QUERY_SETS];
    _oak_gl_ring mc_ring;
    uint32_t ml_fill;
    uint32_t *mc_words;
    uint32_t mc_words_cap, mc_jobs, mc_cmd_word;
    uint8_t *mc_take;
    uint32_t mc_take_cap;
    uint32_t mc_first[4], mc_count[4];
    /* under two-pass Hi-Z (common/meshcull_hiz.glsl): the host's part's
       words (uploaded once the meshlets' bits are placed), the placement
       by the draws' keys (backend/gpu/meshcull_hiz.h) and whether the view's
       counters wait for the LATE step (gl_hiz.c) */
    uint32_t mc_host_words;
    _oak_meshcull_hiz_keys mc_keys;
    bool mc_late;
    /* the shadow jobs (a cluster-LOD caster's cut by its cascade's texel,
       as the CPU's): their buffer (head, jobs, commands, map, indices, the
       host's part as uploaded in mcs_words), per caster whether they draw
       it, and their commands per cascade, movers and group (8 a cascade) */
    _oak_gl_buffer meshcull_shadow;
    uint32_t *mcs_words;
    uint32_t mcs_words_cap, mcs_jobs, mcs_cmd_word;
    uint8_t *mcs_take;
    uint32_t mcs_take_cap;
    uint32_t mcs_first[OAK_MAX_CASCADES * 8], mcs_count[OAK_MAX_CASCADES * 8];
    /* the buffers' limit in bytes (gl_meshcull.c) and the draws the last
       plans sent whole */
    uint64_t mc_limit;
    uint32_t mc_fallback[2];
    bool mc_stats_seen;
    oak_meshlet_stats mc_stats;
    oak_upload_stats up_now, up_last; /* this frame's mesh uploads, the last drawn's */
    float *pos_stage;                 /* positions staged for an upload (send_positions), kept */
    uint32_t pos_stage_cap;
} _oak_gl_frame;

/* The slot of the frame being recorded in the frame's rings. */
static inline uint32_t _oak_gl_frame_slot(const _oak_gl_frame *f) {
    return _oak_gl_ring_slot(f->query_frames + 1);
}

/* gl_resources.c: brings every mesh, material and texture the view uses up
   to date on the GPU. */
oak_result _oak_gl_sync_view(_oak_gl_frame *f, const _oak_gl_context *ctx,
                             const oak_render_view *view);
void _oak_gl_resources_release(_oak_gl_frame *f);
/* The uploaded mesh and material for a draw, or NULL when it cannot draw. */
const _oak_gl_mesh_slot *_oak_gl_mesh_of(const _oak_gl_frame *f, oak_mesh mesh);
const _oak_gl_mat_slot *_oak_gl_mat_of(const _oak_gl_frame *f, oak_material material);

/* ---- the frame: one run function per row of the pass table -------------- */

/* gl_pass_<name>.c, walked by _oak_gl_frame_render in table order */
typedef oak_result (*_oak_gl_run_fn)(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_upload(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_lightgrid(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_skycapture(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_shadow(_oak_gl_backend *b, const oak_render_view *v);
/* gl_pass_shadow.c: tiles of a depth atlas (map_tex, drawn through
   map_fbo) cut into a cached static layer (layer_tex, layer_fbo) and movers
   drawn over its copies, as each tile's plan says; draw(i, mover) draws
   tile i's static casters or movers. Adds what it did to stats. */
typedef struct _oak_gl_rect {
    int32_t x, y;
    uint32_t size;
} _oak_gl_rect;
void _oak_gl_shadow_layered(_oak_gl_frame *f, GLuint layer_tex, GLuint layer_fbo, GLuint map_tex,
                            GLuint map_fbo, uint32_t atlas, uint32_t count,
                            const _oak_gl_rect *rects, const oak_shadow_layer_plan *plans,
                            oak_shadow_stats *stats,
                            void (*draw)(_oak_gl_frame *f, uint32_t i, bool mover, void *user),
                            void *user);
oak_result _oak_gl_run_lampshadow(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_raster(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_gtao(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_resolve(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_blend(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_exposure(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_bloom(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_opaquecopy(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_ssr(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_dof(_oak_gl_backend *b, const oak_render_view *v);
void _oak_gl_dof_release(_oak_gl_frame *f);
oak_result _oak_gl_run_clouds(_oak_gl_backend *b, const oak_render_view *v);
/* the clouds buffer at the frame's size, bound, its noise table baked once */
oak_result _oak_gl_clouds_bake(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_cloudmix(_oak_gl_backend *b, const oak_render_view *v);
void _oak_gl_clouds_release(_oak_gl_frame *f);
oak_result _oak_gl_run_fog(_oak_gl_backend *b, const oak_render_view *v); /* gl_pass_fog.c */
void _oak_gl_fog_release(_oak_gl_frame *f);
oak_result _oak_gl_run_taa(_oak_gl_backend *b, const oak_render_view *v);
void _oak_gl_taa_release(_oak_gl_frame *f);
oak_result _oak_gl_run_post(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_run_fxaa(_oak_gl_backend *b, const oak_render_view *v);

/* gl_frame.c: what the raster passes share */
void _oak_gl_bind_common(_oak_gl_frame *f, _oak_gl_buffer *draws);
/* command groups as the upload pass lays them out; culling only in the main view */
void _oak_gl_draw_groups(_oak_gl_frame *f, const uint32_t group[5], GLuint plain, GLuint masked,
                         bool cull_single);
/* compute groups covering the output */
void _oak_gl_dispatch_output(const _oak_gl_targets *t);
/* One step of a pass of several dispatches, each reading what the one
   before wrote: a storage barrier unless it is the first, the step in
   uniform 0 (GL has no specialization constants), groups covering w x h. */
void _oak_gl_dispatch_step(uint32_t step, bool first, uint32_t w, uint32_t h);

/* gl_track.c: glMemoryBarrier from the row's reads and writes: before a
   pass, what its reads need of earlier writes; after it, what it wrote. */
void _oak_gl_track_before(_oak_gl_frame *f, const oak_pass_row *row);
void _oak_gl_track_after(_oak_gl_frame *f, const oak_pass_row *row);

void _oak_gl_lampshadow_release(_oak_gl_frame *f);

/* gl_meshcull.c: a mesh's meshlets into the pool (as it is uploaded); the
   frame's jobs from the main view's draws (build_list, after their records
   and groups: their records' prev.z set, f->mc_take marked); the pass;
   the culled draws in the vis groups (the vis framebuffer bound); the
   counters; release. */
oak_result _oak_gl_meshcull_upload(_oak_gl_frame *f, _oak_gl_mesh_slot *s, oak_mesh h,
                                   const oak_mesh_data *md);
oak_result _oak_gl_meshcull_plan(_oak_gl_frame *f, const oak_render_view *v);
/* The casters' jobs (build_list of the casters, after their records:
   f->mcs_take marked), each cluster-LOD caster by its cascade's texel. */
oak_result _oak_gl_meshcull_shadow_plan(_oak_gl_frame *f, const oak_render_view *v);
/* A cascade's cut casters, static or movers (the shadow pass, its
   framebuffer bound: the element and indirect buffers restored after). */
void _oak_gl_meshcull_shadow_draw(_oak_gl_frame *f, uint32_t cascade, bool movers);
/* whether draws are culled by meshlets here (a cluster-LOD mesh's every
   level is then uploaded) */
bool _oak_gl_meshcull_on(_oak_gl_frame *f);
oak_result _oak_gl_run_meshcull(_oak_gl_backend *b, const oak_render_view *v);
/* Under two-pass Hi-Z (gl_hiz.c): the view's jobs' meshlet bits placed
   from word `base` of the kept buffer and the host's part uploaded (the
   upload pass, after the plan; *words: the words the bits may take); the
   LATE step after the pyramid (Hi-Z's buffers bound; leaves no program
   in use). */
oak_result _oak_gl_meshcull_hiz_place(_oak_gl_frame *f, const oak_render_view *v, uint64_t base,
                                      uint64_t *words);
void _oak_gl_meshcull_late(_oak_gl_frame *f);
void _oak_gl_meshcull_draw(_oak_gl_frame *f);
void _oak_gl_meshcull_stats(_oak_gl_frame *f, oak_meshlet_stats *out);
void _oak_gl_meshcull_release(_oak_gl_frame *f);

/* gl_pass_lightgrid.c: the lamp grid's program and buffer, and its read-back */
void _oak_gl_lightgrid_release(_oak_gl_frame *f);
oak_result _oak_gl_run_particles(_oak_gl_backend *b, const oak_render_view *v);
void _oak_gl_particles_release(_oak_gl_frame *f);
oak_result _oak_gl_run_instcull(_oak_gl_backend *b, const oak_render_view *v);
/* OAK_B_INSTANCES sized for the view's streams (instcull's and the
   particles pass's one formula: every record, then last frame's copies,
   then the posed streams' pose blocks), forgetting what was uploaded when
   it is new; records: the view's record count. Refuses past 2^31. */
oak_result _oak_gl_instances_reserve(_oak_gl_frame *f, const oak_render_view *v, uint64_t *records);
void _oak_gl_instcull_release(_oak_gl_frame *f);
oak_result _oak_gl_instcull_read(_oak_gl_frame *f, uint32_t per_lod[OAK_STREAM_LODS],
                                 uint32_t *per_stream, uint32_t max_streams, uint32_t *split);
/* The raster pass's native streams, from the instcull lists of view `view`
   (0, the camera's; under Hi-Z 0 is pass 1's and OAK_GPU_INSTCULL_LATE
   pass 2's), the vis framebuffer and view bound. */
void _oak_gl_draw_streams(_oak_gl_frame *f, uint32_t view);
/* gl_craster.c: small stream triangles in compute (before the vis
   framebuffer is bound: the targets' width x height, the view block
   f->view), then their pixels into the cleared vis framebuffer (its view
   bound); release. */
/* The per-instance split into the frame's instcull heads (small_at), once
   the instcull pass filled them and before it uploads them */
void _oak_gl_craster_split(_oak_gl_backend *b, const oak_render_view *v);
oak_result _oak_gl_craster_run(_oak_gl_backend *b, const oak_render_view *v);
void _oak_gl_craster_merge(_oak_gl_frame *f);
/* Under two-pass Hi-Z, between the passes: the same bands again from the
   LATE lists, for pass 2's merge (after the streams' LATE step). */
void _oak_gl_craster_late(_oak_gl_frame *f);
void _oak_gl_craster_release(_oak_gl_frame *f);
/* ... the cascades' small stream casters in compute (before the shadow
   pass's draws, for the regions its plans draw; the common buffers and
   f->view bound), and one region's texels into its tile (the shadow
   framebuffer bound). */
oak_result _oak_gl_craster_shadow_run(_oak_gl_backend *b, const oak_render_view *v,
                                      const oak_shadow_layer_plan *plans, uint32_t cascades);
void _oak_gl_craster_shadow_merge(_oak_gl_frame *f, uint32_t cascade, bool mover);
/* A program of the shared GLSL (gl_frame.c's header first), unspecialized. */
oak_result _oak_gl_shared_program(GLuint *out, const char *name, const char *vs, const char *fs,
                                  const char *cs);
/* gl_hiz.c: two-pass Hi-Z. upload (after the commands): the head and a
   candidate per main-view command, the kept buffer sized for width x
   height; raster: pass 1, the pyramid and the test, pass 2 (the vis
   framebuffer, view and common buffers bound, targets cleared); stats:
   the latest finished frame's counters, without waiting. */
oak_result _oak_gl_hiz_upload(_oak_gl_frame *f, const _oak_gl_context *ctx,
                              const oak_render_view *v, uint32_t width, uint32_t height);
oak_result _oak_gl_hiz_raster(_oak_gl_frame *f, _oak_gl_targets *t);
bool _oak_gl_hiz_stats(_oak_gl_frame *f, oak_occlusion_stats *out);
void _oak_gl_hiz_release(_oak_gl_frame *f);
/* The shadow pass's native stream casters into one cascade: the still
   streams (its static layer) or the moved ones; and how many moved streams
   cast into it. */
void _oak_gl_draw_stream_casters(_oak_gl_frame *f, uint32_t cascade, bool movers);
uint32_t _oak_gl_stream_movers(const _oak_gl_frame *f, uint32_t cascade);
/* The per-instance draw index covers 0 .. n - 1 (gl_pass_upload.c). */
oak_result _oak_gl_ensure_draw_ids(_oak_gl_frame *f, uint32_t n);
oak_result _oak_gl_lightgrid_read(_oak_gl_frame *f, uint32_t *words, size_t count);
/* gl_pass_gtao.c: binds the ao buffer, made big enough for the output's
   gtao (t NULL: any size, for the resolve); releases its programs and buffer */
oak_result _oak_gl_gtao_bind(_oak_gl_frame *f, const _oak_gl_targets *t);
void _oak_gl_gtao_release(_oak_gl_frame *f);

/* gl_probes.c: the reflection probes' buffer, and the HDR picture for their bakes */
oak_result _oak_gl_probes_upload(_oak_gl_frame *f, const oak_render_view *v);
/* and the aerial perspective volume (render/aerial.h), when its version moves */
oak_result _oak_gl_aerial_upload(_oak_gl_frame *f, const oak_render_view *v);
oak_result _oak_gl_read_hdr(const _oak_gl_targets *t, float *rgba, size_t count);
/* gl_pass_skycapture.c: the sky maps' programs and buffer, and the test read-back */
/* gl_pass_exposure.c: the exposure buffer (zeroed), its programs and the test read-back */
/* gl_pass_bloom.c: the pyramid's buffer at OAK_B_BLOOM, sized for t (NULL:
   what there is, for post when no bloom ran) */
oak_result _oak_gl_bloom_bind(_oak_gl_frame *f, const _oak_gl_targets *t);
void _oak_gl_bloom_release(_oak_gl_frame *f);
/* gl_pass_opaquecopy.c: the copy's buffer sized for t and bound (t NULL:
   what there is, for blend when no copy ran), and released */
oak_result _oak_gl_opaquecopy_bind(_oak_gl_frame *f, const _oak_gl_targets *t);
void _oak_gl_opaquecopy_release(_oak_gl_frame *f);
/* gl_pass_skin.c: the pass over the meshes queued in skin_q as the upload
   synced them, and its buffers released */
oak_result _oak_gl_run_skin(_oak_gl_backend *b, const oak_render_view *v);
void _oak_gl_skin_release(_oak_gl_frame *f);
/* gl_pass_ssr.c: the mirror buffer sized for the view when the ssr pass
   runs (else what there is) and bound, for the resolve; released */
oak_result _oak_gl_ssr_bind(_oak_gl_frame *f, const _oak_gl_targets *t, const oak_render_view *v);
void _oak_gl_ssr_release(_oak_gl_frame *f);
oak_result _oak_gl_exposure_create(_oak_gl_frame *f);
void _oak_gl_exposure_release(_oak_gl_frame *f);
oak_result _oak_gl_exposure_read(_oak_gl_frame *f, float state[4]);
void _oak_gl_sky_release(_oak_gl_frame *f);
oak_result _oak_gl_sky_read(_oak_gl_frame *f, float *texels, size_t count, uint32_t *captures);

/* Test hook (tests/test_gl_overlap.c): frames drawn, the frame (1 on, 0:
   none yet) whose GPU times the timings report, the stamps read before
   they were available (each a wait for the GPU: 0), and timings that
   reported an older frame than the newest drawn (the host ran ahead). */
typedef struct _oak_gl_overlap {
    uint64_t frames, gpu_frame, blocking_reads, lagged_reads;
} _oak_gl_overlap;
void _oak_gl_frame_overlap(void *self, _oak_gl_overlap *out);

#endif
