/* Per-meshlet culling of plain draws (docs/ARCHITECTURE.md "Meshlet
 * culling"): the switch, the map from a mesh's meshlet triangles back to its
 * own triangle order, and the frustum and normal-cone test, one for every
 * backend so their counts agree. */
#ifndef OAK_BACKEND_GPU_MESHCULL_H
#define OAK_BACKEND_GPU_MESHCULL_H

#include <stdbool.h>
#include <stdint.h>

#include <oak/asset.h>
#include <oak/backend.h>

#include "shaders/common/oak_gpu.h"

/* Pixels each side plane is pushed out by: TAA's jitter (half a pixel)
   and the 1/16-pixel snap, with room to spare. */
#define OAK_MESHCULL_MARGIN_PX 2.0f
/* Added to a meshlet's cone cutoff before the test: a triangle seen nearly
   edge-on may snap to a front face, so the cone keeps a little. */
#define OAK_MESHCULL_CONE_EPS 0.01f

/* OAK_MESHCULL=off in the environment turns it off (tests, measuring);
   anything else, or nothing, is on. */
bool _oak_meshcull_enabled(void);

/* Whether a mesh's draws may be culled by its meshlets: its rest positions
   are what is drawn (no joints, morph targets or in-place pose, whose
   meshlets' bounds would be stale) and it has enough triangles to cut. */
bool _oak_meshcull_mesh_ok(const oak_mesh_data *d);

/* Meshes cut into fewer meshlets than this are culled by them only when a
   meshlet's cone culls from a useful share of directions: cutoff (plus
   OAK_MESHCULL_CONE_EPS) below OAK_MESHCULL_CONE_USEFUL, 0.9 being 5% of
   them ((1 - c) / 2). The stress world's 12-sided spheres and capsules are
   two meshlets of cutoff 0.968 and 0.993 that culled none of 96,754 tests
   a frame, and their spheres are little more than the draw's, which the
   frontend tested. */
#define OAK_MESHCULL_MIN_MESHLETS 4
#define OAK_MESHCULL_CONE_USEFUL  0.9f
/* Meshes of more triangles than this are culled by meshlets only when
   their cut exists already (a model cache's, or made on an earlier
   request): meshoptimizer took 0.7-1.0 s to cut the default world's
   131,072-triangle terrain on the 2-core machine, a second added to every
   first frame (a one-frame render, a CLI test). */
#define OAK_MESHCULL_CUT_MAX_TRIANGLES 32768
/* Whether a mesh's cut may be asked for now: it exists, or it is small
   enough to make on the spot. */
bool _oak_meshcull_cut_ready(const oak_mesh_data *d);
/* Whether culling a mesh's draws by these meshlets can pay (the rule above). */
bool _oak_meshcull_worth(const oak_meshlets *m);

/* tri_of[k], for the k-th triangle of the meshlets in meshlet order, gets
   the index of that triangle in the mesh's own list (what the visibility id
   names). False (and one warning) when a meshlet triangle is not among the
   mesh's: the mesh is then drawn uncut. */
bool _oak_meshcull_triangle_map(uint32_t *tri_of, const oak_meshlets *m, const uint32_t *indices,
                                uint32_t tri_count);

/* The camera's frustum for a meshlet test: left, right, bottom, top, near
   in world space, normalised, each pushed out by OAK_MESHCULL_MARGIN_PX
   pixels (TAA's jitter moves the picture after the projection); and the
   eye. No far plane (the CPU keeps what is past it only to drop it). */
typedef struct _oak_meshcull_view {
    float planes[5][4];
    float eye[3];
    bool ortho; /* no cone test without an eye point */
    /* cluster LOD: pixels a mesh unit covers 1 m from the eye (ortho: at
       any distance), and the near plane's distance */
    float lod_px, znear;
} _oak_meshcull_view;
void _oak_meshcull_view_make(_oak_meshcull_view *out, const oak_render_view *v, uint32_t width,
                             uint32_t height);
/* A shadow map's view for cluster LOD's cut alone (docs/ARCHITECTURE.md
   "Cluster LOD", shadows): a square map of `size` texels drawn by
   view_proj (column-major, a rigid view times a projection centred on its
   axis, as the cascades' and lamp faces' are), so lod_px is half the size
   times the length of view_proj's y row (the projection's [1][1]); ortho:
   texels a metre at any distance (a sun cascade), else a lamp face from
   `eye` (world) with its near plane at znear. No planes: the caster lists
   are culled already. */
void _oak_meshcull_view_shadow(_oak_meshcull_view *out, const float *view_proj, uint32_t size,
                               bool ortho, const float eye[3], float znear);

enum {
    OAK_MESHCULL_KEEP = 0,
    OAK_MESHCULL_FRUSTUM = 1,
    OAK_MESHCULL_CONE = 2,
    OAK_MESHCULL_LOD = 3 /* not in the cluster-LOD cut */
};
/* A draw's setting for its meshlets: world (column-major), its largest axis
   scale, whether back faces are culled (single-sided, world not mirrored)
   and the eye in mesh space. */
typedef struct _oak_meshcull_draw {
    const float *world;
    float scale;
    bool cone;
    float eye[3];
} _oak_meshcull_draw;
/* false: the draw is not culled by meshlets (a world that cannot be
   inverted) */
bool _oak_meshcull_draw_make(_oak_meshcull_draw *out, const _oak_meshcull_view *cv,
                             const float world[16], bool single_sided);
/* OAK_MESHCULL_KEEP, _LOD, _FRUSTUM or _CONE for one meshlet of a draw
   (the cut first: a meshlet out of it is never drawn). */
int _oak_meshcull_test(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                       const oak_meshlet *ml);

/* Cluster LOD's cut (docs/ARCHITECTURE.md "Cluster LOD"): a meshlet is
   drawn where its group's error projects to at most OAK_CLOD_THRESHOLD_PX
   pixels and its parent group's to more. An error (mesh units, scaled by
   the draw's largest axis) projects over the distance from the eye to the
   nearest point of its sphere, clamped at the near plane. A group's
   children and its clusters hold the same error and sphere, so both sides
   of the test agree bit for bit (no cracks), and a parent's sphere holds
   its children's with an error no smaller (one cluster on every path).
   shaders/common/clod.glsl is the GLSL twin: the test is made without a
   division (e > threshold * distance, exact for a threshold of 1) in the
   same order of operations, so lavapipe's counts equal the CPU's. */
#define OAK_CLOD_THRESHOLD_PX 1.0f
/* pixels an error projects to (for reports: the cut itself is made by
   _oak_clod_over) */
float _oak_clod_project(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                        const float sphere[4], float error);
/* whether an error projects to more than OAK_CLOD_THRESHOLD_PX */
bool _oak_clod_over(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                    const float sphere[4], float error);
bool _oak_clod_keep(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                    const oak_meshlet *ml);

/* ---- the GPUs' records (oak_gpu.h "Per-meshlet culling on the GPUs") ---- */

/* A mesh's cut for the GPUs: its meshlets when its draws may be culled by
   them (the same rules as the CPU's: enabled, _oak_meshcull_mesh_ok, cut
   ready, worth it, at most 65,535 meshlets) and the map from meshlet order
   to the mesh's own triangles in *tri_of (the caller's, oak_free); NULL
   when the mesh is drawn uncut. */
const oak_meshlets *_oak_meshcull_gpu_cut(oak_mesh h, const oak_mesh_data *d, uint32_t **tri_of);
/* A cluster-LOD mesh's levels on the GPUs (docs/ARCHITECTURE.md "Cluster
   LOD"): *finest, its meshlets of the finest level (the first ones), and
   *region, the most triangles a job of it keeps: its finest level's (a
   cut replaces groups of clusters by their simplified triangles, never
   more; the scan clamps at the buffer's room all the same). A plain mesh: every meshlet and all its
   triangles. */
void _oak_meshcull_gpu_levels(const oak_meshlets *m, const oak_mesh_data *d, uint32_t *finest,
                              uint32_t *region);
/* uvec4 a mesh's records and triangle words take in OAK_B_MESHLETS. */
uint32_t _oak_meshcull_gpu_uvec4(const oak_meshlets *m);
/* Its records and triangle words, written to out (its place in the pool,
   uvec4 `first` of it). */
void _oak_meshcull_gpu_pack(uint32_t (*out)[4], uint32_t first, const oak_meshlets *m,
                            const uint32_t *tri_of);
/* The head of OAK_B_MESHCULL: counters zeroed, the job count, where the
   expanded indices and the triangle map start, the view's planes, and
   cluster LOD's eye, lod_px, znear and ortho. */
void _oak_meshcull_gpu_head(uint32_t out[OAK_GPU_MESHCULL_HEAD_WORDS], const _oak_meshcull_view *cv,
                            uint32_t jobs, uint32_t index_word, uint32_t map_word);
/* A job of OAK_B_MESHCULL for one draw (finest: _oak_meshcull_gpu_levels';
   words: the first of its meshlet words, one a meshlet, where the count
   step leaves what it keeps of each; its region the scan places in the
   frame); false when its world cannot be culled by
   (_oak_meshcull_draw_make refused it): the job then keeps its finest
   meshlets (a plain mesh's every one), as the CPU does. */
bool _oak_meshcull_gpu_job(uint32_t out[OAK_GPU_MESHCULL_JOB_WORDS], const _oak_meshcull_view *cv,
                           const float world[16], bool single_sided, uint32_t draw,
                           uint32_t first_record, uint32_t meshlets, uint32_t finest,
                           uint32_t words, uint32_t cmd_word);
/* A shadow job (oak_gpu.h): a cluster-LOD caster of a map whose view cv
   is _oak_meshcull_view_shadow's, its cut alone as the CPU's
   _oak_cpu_meshcull_lod makes it (no frustum, no cone). */
bool _oak_meshcull_gpu_shadow_job(uint32_t out[OAK_GPU_MESHCULL_JOB_WORDS],
                                  const _oak_meshcull_view *cv, const float world[16],
                                  uint32_t draw, uint32_t first_record, uint32_t meshlets,
                                  uint32_t finest, uint32_t words, uint32_t cmd_word);
/* The expanded buffer's limit in bytes: device_bytes (the backend's own
   bound), or OAK_MESHCULL_MAX_BYTES in the environment (a test hook) when
   smaller. */
uint64_t _oak_meshcull_gpu_limit(uint64_t device_bytes);
/* The triangles the regions share, in a buffer of limit_words words whose
   parts before the triangle map take map_word: every job's worst case
   (tris, so no cut is clipped), or less where that does not fit (the scan
   clamps and counts); 0: not a triangle fits (the draws go whole). The map
   takes a word a triangle, the indices three. */
uint64_t _oak_meshcull_gpu_room(uint64_t map_word, uint64_t tris, uint64_t limit_words);
/* The counters the kernel left in a head. */
void _oak_meshcull_gpu_stats(oak_meshlet_stats *out, const uint32_t *head);

#endif
