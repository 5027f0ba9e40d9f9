/* Private to render/: an instance stream's state (render/stream.c) and the
 * cull-and-LOD kernel that turns the frame's streams into view lists and
 * frontend input draws (render/stream_cull.c). */
#ifndef OAK_RENDER_STREAM_H
#define OAK_RENDER_STREAM_H

#include <oak/backend.h>

/* Writes a stream logs (the last this many versions' ranges), so a GPU
   backend's copy that is a few versions behind catches up by those ranges
   alone (a grass stream writes a few squares' slots a frame). */
#define OAK_STREAM_WRITE_LOG 256

#include "shaders/common/oak_gpu.h"

struct oak_stream {
    oak_stream_desc desc; /* resolved: lod_count >= 1 */
    oak_instance *records;
    uint32_t count;
    uint64_t version; /* moves on every write and count change */
    /* each version's written records [lo, hi), at log[version % LOG] */
    uint32_t log[OAK_STREAM_WRITE_LOG][2];
    uint64_t serial; /* unique per stream made: who a frontend slot held last frame */
    const uint8_t *lod_override;
    /* a posed stream's (desc.pose_bank): each LOD mesh's sphere over every
       bank pose, mesh space (render/pose_stream.c _oak_pose_sphere) */
    float pose_sphere[OAK_STREAM_LODS][4];
    /* override palettes: 2 x desc.pose_overrides slots of joints x 12
       floats, the generation the next write fills (0, 1) and their version */
    float *overrides;
    uint32_t override_gen;
    uint64_t override_version;
    /* per joint, of the vertices it moves in the posed LODs (mesh space,
       bind): their box's centre, their reach from it (< 0: none) and the
       box's half size (a stream with overrides); each generation's bound on
       how far its overrides move a vertex */
    float (*joint_reach)[8];
    float override_reach[2];
    /* a PARTICLES stream's (oak_stream_source): the emitter's constants
       (time.x: the seconds since its block), its block of count particles
       and the block's version (_oak_stream_set_particles), and who fills
       the host records with the C evaluation when they are read
       (host_stale: not filled since the last set) */
    oak_gpu_particle_emitter particle_constants;
    const oak_gpu_particle *particles;
    uint64_t particle_version;
    void (*particle_fill)(void *user, oak_stream *s);
    void *particle_user;
    bool host_stale;
    /* the point a BLEND stream's unit sorts by among the BLEND surfaces
       (w 1: set, the emitter's position at the update; 0: its first
       instance's, as any stream): known without its records
       (render/particle_eval.h _oak_blend_unit_key) */
    float unit_point[4];
    /* an "over" stream's far-to-near order: the view direction the update
       sorted along from particle_constants' eye (w 1: sorted; 0: particle
       order, no camera), which a device that sorts it repeats */
    float sort_fwd[4];
    /* a GRASS stream the device can grow (_oak_stream_set_grass): records
       a square's slot holds and the owner's job for a slot */
    uint32_t grass_slot_size;
    /* per slot, the version that last wrote any of its records: which
       slots a copy of version v lacks, exactly (the write log holds the
       last OAK_STREAM_WRITE_LOG writes only, and a frame's squares arriving
       and leaving overflowed it, regrowing every slot) */
    uint64_t *slot_version;
    uint32_t slot_versions;
    bool (*grass_job)(void *user, const oak_stream *s, uint32_t slot, uint32_t first,
                      oak_gpu_grass_square *out);
    void *grass_user;
};

/* A GRASS stream the device grows (world/grass.c, docs/WORLD.md "Grass"):
   slot_size records a square's slot, and job(user, s, slot, first, out)
   the grass kernel's job writing slot `slot` of s alone, with s's records
   starting at record `first` of the device's buffer (a free slot: zeros);
   false: the device cannot grow it. job NULL: the host writes every record.
   Fails (out of memory) only when slot_size is not 0. */
oak_result _oak_stream_set_grass(oak_stream *s, uint32_t slot_size,
                                 bool (*job)(void *user, const oak_stream *s, uint32_t slot,
                                             uint32_t first, oak_gpu_grass_square *out),
                                 void *user);
/* The records whose owner fills them only when read (a GRASS stream the
   device grows): fill(user, s) runs at the next _oak_stream_host_records
   (or oak_stream_records); the version does not move (the records it fills
   were logged when they were written on the device). */
void _oak_stream_set_host_fill(oak_stream *s, void (*fill)(void *user, oak_stream *s), void *user);
/* A GPU backend's grass jobs for stream s placed at record `first` of its
   buffer, whose copy there is of version `since` (same false: of nothing):
   one per slot written since, in *jobs from index `at` (grown as needed,
   the caller's to free). How many; UINT32_MAX when out of memory or a
   slot's job failed. */
uint32_t _oak_stream_grass_jobs(const oak_stream *s, bool same, uint64_t since, uint32_t first,
                                oak_gpu_grass_square **jobs, uint32_t *cap, uint32_t at);

/* A PARTICLES stream's state for this frame (the owner calls it each
   update, after the count): the constants, the alive particles' block
   (borrowed: it lives until the next call) and its version, and the hook
   that fills the host records (through _oak_stream_records_to_write) when
   a reader wants them. Moves the version on: the records move. */
void _oak_stream_set_particles(oak_stream *s, const oak_gpu_particle_emitter *c,
                               const oak_gpu_particle *parts, uint64_t block_version,
                               void (*fill)(void *user, oak_stream *s), void *user);
/* The host records made current (a PARTICLES stream's filled by its hook
   when stale; others as they are). */
void _oak_stream_host_records(oak_stream *s);

/* The stream's cull spheres per LOD (mesh space): the bank's, the posed
   LODs' grown by the larger override bound held (oak_stream_write_pose_
   overrides_from). What every backend culls a posed stream with. */
void _oak_stream_cull_spheres(const oak_stream *s, float out[OAK_STREAM_LODS][4]);

/* The records to fill in place, for a writer that fills many on the job
   pool (the crowd world: 24 MB a frame at 500,000 through oak_stream_write
   is one thread's copy); moves the version on as a write does. Unlike
   oak_stream_write it checks no override phase: the writer writes only
   slots oak_stream_write_pose_overrides handed it. */
oak_instance *_oak_stream_records_to_write(oak_stream *s);
/* The same for records [first, first + count) alone (the version moves on
   once, the log holds the range); the caller keeps inside the capacity. */
oak_instance *_oak_stream_records_to_write_range(oak_stream *s, uint32_t first, uint32_t count);
/* The ranges [lo, hi) of records written since version `since` (a copy of
   the records taken at that version, made whole again by copying them),
   at most cap of them; UINT32_MAX when the log no longer reaches back (or
   more than cap): copy everything. Ranges may overlap and run past the
   count (copy what is under it). */
uint32_t _oak_stream_writes_since(const oak_stream *s, uint64_t since, uint32_t (*ranges)[2],
                                  uint32_t cap);
/* The same writes as at most cap disjoint spans [lo, hi) in order, clipped
   to count: overlapping and touching ranges merged, then the narrowest gaps
   closed until cap are left (a copy of the spans copies every written
   record and a few unwritten ones between them, never the whole stream
   for want of room). 0 when nothing under count was written; UINT32_MAX
   when the log no longer reaches back: copy everything. cap >= 1. */
uint32_t _oak_stream_spans_since(const oak_stream *s, uint64_t since, uint32_t count,
                                 uint32_t (*spans)[2], uint32_t cap);

/* The occlusion slot: false hides an instance whose world sphere passed the
   frustum. NULL: every instance passes; the frontend plugs its coarse depth
   grid in (render/occlusion.c) when occlusion is on. */
typedef bool (*oak_instance_test)(void *user, const float center[3], float radius);

/* The bend of stream desc d under wind w (NULL: still) at time t and the
   environment's benders, seen from eye; false when nothing bends (then
   the matrix is the record's own). */
bool _oak_instance_bend_make(oak_instance_bend *out, const oak_stream_desc *d,
                             const oak_environment *env, float time, const float eye[3]);

/* What the kernel needs besides the instance, fixed for one stream and view. */
typedef struct oak_stream_cull_params {
    const vec4 *planes; /* 6 frustum planes (oak_frustum_planes) */
    float eye[3];       /* distances for the LOD pick are measured from here */
    uint32_t lod_count;
    float lod_distance[OAK_STREAM_LODS];
    oak_mesh lods[OAK_STREAM_LODS];
    const uint8_t *lod_override; /* tiers hook: per instance, 0xff = by distance */
    oak_instance_test occlusion; /* the occlusion slot */
    void *occlusion_user;
    const oak_instance_bend *bend; /* NULL: the records stand as they are */
    /* a posed stream's spheres per LOD (mesh space), tested instead of the
       meshes' rest bounds; NULL: the meshes' */
    const float (*pose_sphere)[4];
} oak_stream_cull_params;

#define OAK_STREAM_CULLED   0xffu /* the kernel's answer for an instance not in view */
#define OAK_STREAM_GONE     0xfeu /* past the last LOD's distance: drawn and cast nowhere */
#define OAK_STREAM_OCCLUDED 0xfdu /* in the frustum, hidden by the occlusion slot */

/* Instance i's world matrix from its record: translate * rotate * bend *
   scale, where bend (NULL: none) shears instance-space y by the wind and
   the benders at the instance's position, scales it by the benders'
   flattening and the sink, and lowers the origin as it sinks. The one CPU
   function; shaders/common/bend.glsl's oak_bent_instance is its twin. */
void _oak_instance_matrix(const oak_instance_bend *bend, const oak_instance *rec, mat4 out);
/* The one cull-and-LOD kernel: instance i's LOD (0 .. lod_count - 1) when its
   LOD mesh's sphere through `world` meets the frustum and passes the
   occlusion slot; OAK_STREAM_CULLED when it misses the frustum,
   OAK_STREAM_OCCLUDED when the slot hides it; OAK_STREAM_GONE past
   the last distance. *lod_out gets the LOD whatever the visibility (shadow
   views draw the camera's pick), OAK_STREAM_GONE when gone. sphere gets
   the LOD mesh's sphere through world as _oak_draw_sphere gives it (x, y,
   z, radius) when the kernel computed one; radius NaN when it did not
   (gone, posed: the bank's sphere is another). */
uint32_t _oak_stream_cull_instance(const oak_stream_cull_params *p, const oak_instance *rec,
                                   uint32_t i, mat4 world, uint32_t *lod_out, float sphere[4]);

#endif
