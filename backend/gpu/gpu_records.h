/* The records both GPU backends upload (shaders/common/oak_gpu.h), filled
 * from the render view in one place so Vulkan and OpenGL cannot drift. */
#ifndef OAK_GPU_RECORDS_H
#define OAK_GPU_RECORDS_H

#include <oak/backend.h>

#include "shaders/common/oak_gpu.h"

/* The view block for an output of width x height, light_count lights
   uploaded and cascade maps shadow_size texels square (the atlas is twice
   that across). shadow_first counts casters from the first caster record:
   a backend whose caster records follow others adds their number. */
void _oak_gpu_view_fill(oak_gpu_view *g, const oak_render_view *v, uint32_t width, uint32_t height,
                        uint32_t light_count, uint32_t shadow_size);
void _oak_gpu_light_fill(oak_gpu_light *g, const oak_render_light *l);
/* Every field but the texture slots (tex[]), which name backend resources. */
void _oak_gpu_material_fill(oak_gpu_material *g, const oak_material_desc *d);
/* The refs behind a material's lobe_tex slots (an empty ref where a slot is
   unused), so every GPU backend fills them one way. */
void _oak_gpu_lobe_refs(const oak_material_desc *d, const oak_texture_ref *refs[OAK_GPU_LOBE_TEX]);

/* Vertex v of a mesh posed by its palette as the skin pass reads it (the
   attributes' second half; oak_gpu.h "The skin pass"). */
void _oak_gpu_skin_source(const oak_mesh_data *d, uint32_t v, oak_gpu_vertex *out);
/* The vertices a mesh posed by its palette takes after its 2n (its second
   set of joints, then its morph deltas, n each: oak_gpu.h "The skin
   pass"), and extra vertex i of them. */
uint32_t _oak_gpu_skin_extra(const oak_mesh_data *d);
void _oak_gpu_skin_extra_vertex(const oak_mesh_data *d, uint32_t i, oak_gpu_vertex *out);
/* The meshes the skin pass poses this frame, queued as a backend syncs
   them, with each one's first vertex in its pools and the most vertices
   among them; reset by setting count and vertices to 0. */
typedef struct _oak_gpu_skin_queue {
    const oak_mesh_data **data;
    uint64_t *first;
    uint32_t count, cap, vertices;
} _oak_gpu_skin_queue;
oak_result _oak_gpu_skin_push(_oak_gpu_skin_queue *q, const oak_mesh_data *d, uint64_t first);
void _oak_gpu_skin_queue_free(_oak_gpu_skin_queue *q);
/* The skin pass's block (oak_gpu.h): job j skins meshes[j] (its first
   vertex in the pools first[j]) from its two palettes. `out` holds
   _oak_gpu_skin_words(meshes, count) uvec4s. */
uint64_t _oak_gpu_skin_words(const oak_mesh_data *const *meshes, uint32_t count);
void _oak_gpu_skin_fill(uint32_t (*out)[4], const oak_mesh_data *const *meshes,
                        const uint64_t *first, uint32_t count);

/* The lamp shadow block (slots and faces) and each light's slot (cone.z). */
/* Refuses (one line) a view whose slots or faces do not hold together. */
oak_result _oak_gpu_lamp_shadows_fill(oak_gpu_lamp_shadows *g, const oak_render_view *v);
void _oak_gpu_light_slot(oak_gpu_light *g, const oak_render_view *v, uint32_t light);

/* The lamp grid's head (everything lightgrid.comp and the resolve read
   besides the lights); overflow starts at 0. */
void _oak_gpu_light_grid_fill(oak_gpu_light_grid *g, const oak_render_view *v,
                              uint32_t light_count);

/* Stream s's instcull head and its OAK_GPU_INSTCULL_HEAD_WORDS of indirect
   commands (shaders/common/oak_gpu.h oak_gpu_instcull): its records start at
   `first`, its words at `word`; mesh[k] is LOD k's index count, first index
   and base vertex on the backend (zeros: nothing to draw), material its
   slot; native: the backend draws it from the lists, and then it casts into
   the view's cascades unless its flags or material say it casts nothing. */
void _oak_gpu_instcull_fill(oak_gpu_instcull *h, uint32_t *cmds, const oak_render_view *v,
                            const oak_render_stream *rs, uint32_t first, uint32_t word,
                            const uint32_t mesh[OAK_STREAM_LODS][3], uint32_t material,
                            bool native);
/* Whether a stream's last-frame records are this frame's own (a grass
   stream's, whose records never move while they live: render.h
   oak_stream_source): then the head's prev offset is 0, the kernel and the
   raster read last frame's from the records themselves, and a backend
   keeps no copy of them (a grass stream's writes would be uploaded twice).
   A PARTICLES stream's never are: the particles pass writes both. */
static inline bool _oak_gpu_prev_is_records(const oak_render_stream *rs) {
    return !rs->particles && (!rs->prev_records || rs->prev_records == rs->records);
}
/* The one ledger of what a backend's instance buffer holds of each stream
   slot's records: this frame's copy (at the stream's first record) and the
   last-frame copy (after every record), each as whose records, at which
   version and from which record (src NULL: nothing there worth keeping).
   The grass pass (grows its streams' copies on the GPU) and instcull (copies
   the rest from the host) both bring copies up to date through
   _oak_gpu_upload_step, the only writer besides _oak_gpu_upload_forget: so
   whichever runs first, the other finds the copy current and writes
   nothing again. */
typedef struct _oak_gpu_copy {
    const void *src;
    /* the stream's serial (0 without one): a stream made where a destroyed
       one's records were gets their address and versions again */
    uint64_t serial;
    uint64_t version;
    uint32_t at;
} _oak_gpu_copy;
typedef struct _oak_gpu_upload_ledger {
    _oak_gpu_copy cur[OAK_STREAM_MAX_PER_VIEW], prev[OAK_STREAM_MAX_PER_VIEW];
} _oak_gpu_upload_ledger;
/* How a copy is brought up to date: not at all (it is current), by what
   the stream's write log holds since `since` (these records, same place),
   or whole. */
typedef enum _oak_gpu_copy_kind {
    OAK_GPU_COPY_KEEP,
    OAK_GPU_COPY_SINCE,
    OAK_GPU_COPY_ALL
} _oak_gpu_copy_kind;
typedef struct _oak_gpu_upload {
    _oak_gpu_copy_kind cur, prev;
    uint64_t cur_since, prev_since; /* with OAK_GPU_COPY_SINCE */
    uint32_t cur_at, prev_at;       /* the records' place in the buffer */
} _oak_gpu_upload;
/* A new (or released) buffer holds nothing uploaded. */
static inline void _oak_gpu_upload_forget(_oak_gpu_upload_ledger *L) {
    for (uint32_t s = 0; s < OAK_STREAM_MAX_PER_VIEW; s++) L->cur[s].src = L->prev[s].src = NULL;
}
/* What stream slot s (stream rs, its records from `first`, `total` records
   in the view) needs written this frame, the ledger moved on as though the
   caller writes it. A PARTICLES stream gets nothing (the particles pass
   writes both copies, none kept for later); a stream that is its own last
   frame (_oak_gpu_prev_is_records) no last-frame copy. */
_oak_gpu_upload _oak_gpu_upload_step(_oak_gpu_upload_ledger *L, uint32_t s,
                                     const oak_render_stream *rs, uint32_t first, uint32_t total);
/* The grass pass's jobs for the view's GRASS streams (render/stream.h
   _oak_stream_grass_jobs): for each, this frame's copy and then its
   last-frame copy, each by the slots written since the ledger's version
   (all where the copy is not these records' at this place), into *list
   (grown, *cap its capacity); their number, UINT32_MAX when out of memory.
   The list is padded with empty squares to groups[0] x groups[1], rows of
   at most 65,535 work groups (a dispatch's limit along x). */
uint32_t _oak_gpu_grass_jobs(_oak_gpu_upload_ledger *L, const oak_render_view *v,
                             oak_gpu_grass_square **list, uint32_t *cap, uint32_t groups[2]);
/* A posed stream's pose block (oak_gpu.h "Pose blocks"): the records it
   takes in OAK_B_INSTANCES (0: not posed), the block itself, and the head's
   pose fields for a block at record `at` (its bounds become the spheres
   over every bank pose). The block depends on the bank, the LOD meshes and
   the override slots: a backend writes it again only when those or `at`
   move, and the override slots alone when their version moves. */
uint64_t _oak_gpu_pose_records(const oak_render_stream *rs);
/* Where a pose block's override slots lie (records from the block's first)
   and how many records they take (0: none): what a backend uploads again
   when rs->pose_override_version moves. */
void _oak_gpu_pose_override_span(const oak_render_stream *rs, uint64_t *first, uint64_t *records);
void _oak_gpu_pose_fill(oak_gpu_instance *dst, const oak_render_stream *rs);
void _oak_gpu_pose_head(oak_gpu_instcull *h, const oak_render_stream *rs, uint32_t at);
/* Words of lists and commands a stream of `count` instances takes. */
static inline uint64_t _oak_gpu_instcull_words(uint32_t count) {
    return OAK_GPU_INSTCULL_HEAD_WORDS + (uint64_t)OAK_GPU_INSTCULL_VIEWS * OAK_STREAM_LODS * count;
}

/* Two-pass Hi-Z (shaders/hiz_cull.comp.glsl, oak_gpu.h oak_gpu_hiz_head). The
   pyramid's levels for a width x height depth and their texels in all. */
uint32_t _oak_gpu_hiz_levels(uint32_t width, uint32_t height, uint64_t *texels);
/* The visible-bit words the view's keys take (at least one). */
static inline uint32_t _oak_gpu_hiz_keys(const oak_render_view *v) {
    return v->occ_keys > v->draws.count ? v->occ_keys : (v->draws.count ? v->draws.count : 1);
}
/* Candidate for view draw i: its command, key and its mesh's sphere through
   its matrix (a sphere round everything, always drawn, when its mesh is
   gone). */
void _oak_gpu_hiz_draw_fill(oak_gpu_hiz_draw *out, const oak_render_view *v, uint32_t i,
                            uint32_t group, uint32_t index_count, uint32_t first_index,
                            uint32_t vertex_offset);
/* The natively drawn streams' visible bits in OAK_B_HIZ_KEEP: they start
   after the keys and a width x height pyramid, a word per instance of each
   stream in turn (the view's first OAK_STREAM_MAX_PER_VIEW). */
uint64_t _oak_gpu_hiz_stream_base(const oak_render_view *v, uint32_t width, uint32_t height);
uint64_t _oak_gpu_hiz_stream_words(const oak_render_view *v);
/* What a backend remembers of each stream slot's bits between frames: a
   slot whose stream (records), count or place moved has stale bits. */
typedef struct _oak_gpu_hiz_streams {
    const void *records[OAK_STREAM_MAX_PER_VIEW];
    uint32_t count[OAK_STREAM_MAX_PER_VIEW], at[OAK_STREAM_MAX_PER_VIEW];
} _oak_gpu_hiz_streams;
/* Stream s's head fields for Hi-Z (prev.y, prev.z; oak_gpu.h
   OAK_GPU_INSTCULL_HIZ_*): on when the view runs Hi-Z and the backend draws
   the stream natively (drawn); its bits at word `at`. */
void _oak_gpu_hiz_stream_head(_oak_gpu_hiz_streams *t, oak_gpu_instcull *h,
                              const oak_render_view *v, const oak_render_stream *rs, uint32_t s,
                              uint32_t at, bool drawn);
/* The natively drawn streams' counters of a finished frame's head into
   out's instance fields (tested: every native instance; frustum: those
   outside it or past the last LOD; occluded: hidden by the pyramid; pass1
   and pass2: drawn by each pass). */
void _oak_gpu_hiz_stream_stats(oak_occlusion_stats *out, const oak_gpu_hiz_head *h);
/* The head: count candidates, group g's from group_first[g]; compact: the
   commands are appended for indirect-count draws. */
void _oak_gpu_hiz_head_fill(oak_gpu_hiz_head *h, const oak_render_view *v, uint32_t count,
                            const uint32_t group_first[OAK_GPU_HIZ_GROUPS],
                            const uint32_t group_count[OAK_GPU_HIZ_GROUPS], bool compact,
                            uint32_t width, uint32_t height);

/* The gtao fields of the view block (part of _oak_gpu_view_fill). */
void _oak_gpu_ao_fill(oak_gpu_view *g, const oak_render_view *v);
/* The water volume's records (an extent of all zeros: everywhere). */
void _oak_gpu_water_fill(oak_gpu_view *g, const oak_render_view *v);
/* Floats in the ao target for a width x height output: per pixel the
   denoised AO (at 0), the raw AO (at n), the view normal (3 at 2n), then
   the view-depth levels 0 .. OAK_GTAO_MIPS - 1 from 5n (gtao.glsl). */
uint64_t _oak_gpu_ao_floats(uint32_t width, uint32_t height);

#endif
