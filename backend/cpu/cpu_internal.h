/* Private state of the CPU backend: mirrored assets, the per-pass geometry
 * (clip-space vertices, set-up triangles, tile bins) and the frame buffers.
 * Every array here grows by doubling and keeps its capacity across frames. */
#ifndef OAK_CPU_INTERNAL_H
#define OAK_CPU_INTERNAL_H

#include "render/clouds.h"
#include "render/pose_stream.h"
#include "render/pass_table.h"
#include "render/shadow_layer.h"

#define CPU_TILE         OAK_TILE_SIZE
#define CPU_TILE_PIXELS  (CPU_TILE * CPU_TILE)
#define CPU_SUBPIXEL     16       /* fixed-point steps per pixel */
#define CPU_GUARD_PX     16000.0f /* screen extent kept around the target's centre */
#define CPU_SETUP_CHUNK  1024     /* triangles per set-up job; fixes the bin order */
#define CPU_VERTEX_CHUNK 2048
#define CPU_EVICT_PERIOD 64 /* syncs between sweeps for mirrors of dead assets */
#define CPU_ATTR         16 /* floats per vertex: normal 3, tangent 4, uv0 2, uv1 2, colour 4, pad */
#define CPU_ATTR_N       0
#define CPU_ATTR_T       3
#define CPU_ATTR_UV0     7
#define CPU_ATTR_UV1     9
#define CPU_ATTR_C       11

/* ---- mirrored assets ---------------------------------------------------- */

typedef struct cpu_mesh {
    uint32_t id, version;
    uint32_t vertex_count, index_count;
    float *pos;  /* xyz per vertex */
    float *attr; /* CPU_ATTR per vertex */
    uint32_t *indices;
    /* a posed mesh's previous pose (oak_mesh_data.prev_positions), xyz per
       vertex; NULL for a static one (the taa pass's motion reads pos) */
    float *prev_pos;
    uint32_t pos_cap, attr_cap, index_cap, prev_cap;
    /* a skinned mesh's 4 joints and weights per vertex (NULL: none), for
       the draws posed from a bank (cpu_draw.pose) */
    uint16_t *joints;
    float *weights;
    uint32_t joint_cap, weight_cap;
    bool has_prev; /* prev_pos holds this version's previous pose */
    /* a mesh posed by its palette (oak_mesh_data.palette): the joint count
       as a float, then the latest palette and the one before (joints x 12
       floats each), copied when pose_version moves; its draws skin from it
       as a posed stream instance's do (cpu_draw.pose); NULL: none */
    float *palette;
    uint32_t palette_cap, pose_version;
    /* a mesh posed by palettes with morph targets or 8 influences: posed
       into pos, attr and prev_pos when pose_version moves (cpu_mirror.c),
       then drawn as a mesh posed on the CPU; palette stays NULL */
    bool posed_here;
    oak_bounds bounds;
    /* its meshlets (cpu_meshcull.c), and each triangle's meshlet in the
       mesh's own order; ml_count 0: its draws are not culled by meshlets */
    oak_meshlet *ml;
    uint32_t ml_count, ml_cap;
    uint16_t *tri_ml;
    uint32_t tri_ml_cap;
    uint32_t *ml_verts; /* the meshlets' vertex lists (oak_meshlets.vertices) */
    uint32_t ml_verts_cap;
    /* a cluster-LOD mesh: the meshlets of its finest level (the first
       ones), all a draw keeps when its cut cannot be made; else ml_count */
    uint32_t ml_finest;
    /* a mesh listing each meshlet's triangles together in meshlet order (a
       cluster-LOD mesh): where each meshlet's run ends, so the set-up steps
       over a culled meshlet at once; ml_runs false: not so listed */
    bool ml_runs;
    uint32_t *ml_end;
    uint32_t ml_end_cap;
    /* per triangle: d > 0 when triangle t + d is t's twin, its three
       vertices in the other winding (a blade's back face, cpu_mirror.c);
       0: none. The set-up skips a twin it knows to be rejected. NULL: no
       twins */
    uint8_t *twin;
    uint32_t twin_cap;
} cpu_mesh;

typedef struct cpu_texture {
    uint32_t id, version;
    uint32_t width, height, mip_count;
    uint32_t mw[OAK_MAX_MIPS], mh[OAK_MAX_MIPS];
    size_t offset[OAK_MAX_MIPS]; /* texel offset of each level */
    float *texels;               /* linear rgba per texel, every level */
    size_t cap;
} cpu_texture;

typedef struct cpu_tex_ref {
    int32_t tex; /* texture mirror index, -1 when the slot is empty */
    oak_sampler sampler;
    uint32_t uv_set;
    float m[4]; /* uv' = (m0 u + m1 v, m2 u + m3 v) + off: rotation times scale */
    float off[2];
} cpu_tex_ref;

enum {
    CPU_TEX_BASE,
    CPU_TEX_MR,
    CPU_TEX_NORMAL,
    CPU_TEX_OCCLUSION,
    CPU_TEX_EMISSIVE,
    CPU_TEX_COUNT
};

typedef struct cpu_material {
    uint32_t id, version;
    oak_material_desc desc; /* resolved; name and texture handles not used */
    uint32_t tex_ids[CPU_TEX_COUNT];
    cpu_tex_ref tex[CPU_TEX_COUNT];
    bool textured, uv1, normal_map; /* which surface attributes shading reads */
    bool fx_map, fx_vary;           /* the tricks that read textures (cpu_fx.h); variation */
    uint8_t fx_slots[CPU_TEX_COUNT], fx_slot_count; /* the slots the tricks read, base first */
    float fx_k, fx_inv_detail_distance;             /* 1 / triplanar, 1 / detail_distance */
    float fx_plane_ratio; /* |n| ratios under this give a plane a weight under OAK_FX_PLANE_MIN */
    float f0[3], f90;     /* the dielectric Fresnel (oak_material_dielectric_f0) */
    bool coat, sheen, aniso, irid, difftr; /* the lobes it has (docs/SHADING.md "Lobes") */
    bool transmit; /* KHR_materials_transmission: light from the opaque copy (forward only) */
    /* the lobes' textures by oak_lobe_tex (read through their own uv, as
       surface.glsl's; tex -1: none) */
    uint32_t lobe_tex_ids[OAK_LOBE_TEX_COUNT];
    cpu_tex_ref lobe_tex[OAK_LOBE_TEX_COUNT];
    bool lobe_textured; /* any of them */
    bool coat_normal;   /* a coat with its own normal map (the tangent frame, for it) */
    /* KHR_materials_specular's textures: any (under specular), and the
       ior's reflectance times the specular colour (before the clamp) */
    bool spec_tex;
    float spec_rsc[3];
} cpu_material;

/* ---- passes ------------------------------------------------------------- */

/* A triangle after clipping and snapping, ready for one tile's raster. */
typedef struct cpu_tri {
    int32_t x[3], y[3];             /* 1/16 px, relative to the target's centre pixel corner */
    int32_t bias[3];                /* 0 for top-left edges, -1 otherwise */
    int32_t minx, miny, maxx, maxy; /* pixel bounds, clamped to the target */
    float z0, dzdx, dzdy;           /* depth plane: z0 at vertex 0, per pixel steps */
    float zx0, zy0;                 /* vertex 0 in pixels (absolute) */
    uint32_t id;                    /* pass triangle index + 1 */
    uint32_t flags;                 /* CPU_TRI_* */
} cpu_tri;

enum { CPU_TRI_MASK = 1u, CPU_TRI_BACK = 2u };

/* A vertex after the vertex stage: which clip planes it is outside of, and
 * its snapped screen position and depth when it needs no clipping. */
typedef struct cpu_svert {
    int32_t x, y;
    float z;
    uint32_t code;
} cpu_svert;

/* Per draw in a pass: what shading and setup need, resolved once a frame. */
typedef struct cpu_draw {
    uint32_t src;      /* index into the view's draw list */
    uint32_t mesh;     /* mirror index */
    uint32_t material; /* mirror index */
    uint32_t flags;    /* oak_draw_flags */
    bool cull;         /* back faces dropped */
    bool mask;         /* alpha MASK material */
    mat4 world;
    mat4 mvp;      /* the pass's view_proj times world */
    float nmat[9]; /* inverse transpose of world's 3x3, row-major */
    float sort_key;
    /* the view draw's colour (a stream instance's), times the vertex colour */
    float color[4];
    /* a posed stream instance's palettes (oak_draw_list.pose: this frame's,
       then last frame's at pose + pose_floats); NULL: the mesh as it is */
    const float *pose;
    uint32_t pose_floats;
    /* an impostor card (OAK_DRAW_IMPOSTOR): its cell's offset, added to uv0
       where the posed attributes are made; NULL: none */
    const float *uv_offset;
} cpu_draw;

/* Per set-up chunk output, kept across frames. */
typedef struct cpu_chunk {
    cpu_tri *tris;
    uint32_t tri_count, tri_cap;
    uint32_t *bins; /* pairs (tile, local tri) in triangle order */
    uint32_t bin_count, bin_cap;
    uint32_t base;      /* index of its first triangle in the pass */
    uint32_t skipped;   /* twins skipped (cpu_mesh.twin) */
    uint32_t uncovered; /* bounds round a pixel centre, edges round none */
} cpu_chunk;

typedef struct cpu_pass {
    /* target */
    uint32_t width, height, tiles_x, tiles_y;
    int32_t cx, cy; /* fixed-point origin in pixels */
    bool flip_y;    /* clip y = +1 at row 0 (the main view); the shadow map is not flipped */
    float jitter[2];
    mat4 view_proj;
    float *depth;  /* tile-major, CPU_TILE_PIXELS per tile */
    uint32_t *ids; /* tile-major, NULL when the pass writes no ids */
    bool keep;     /* draw over what the target holds (movers over a copy), no clear */
    /* device depth to view depth (the blend pass's soft particles): the
       projection's P22, P32, and 1 when orthographic (oak_gpu_view.depth_proj) */
    float depth_proj[3];

    /* draws in raster order */
    cpu_draw *draws;
    uint32_t draw_count, draw_cap;
    uint32_t *vtx_base, *tri_base; /* draw_count + 1 prefix sums */
    uint32_t vtx_base_cap, tri_base_cap;
    float *clip; /* xyzw per vertex of every draw */
    uint32_t clip_cap;
    cpu_svert *svert; /* per vertex: outcode and, when unclipped, its snapped position */
    uint32_t svert_cap;
    uint32_t vertex_count, tri_count;

    /* set-up and bins */
    cpu_chunk *chunks;
    uint32_t chunk_count, chunk_cap;
    cpu_tri *tris;
    uint32_t tri_total, tris_cap;
    uint32_t *bin_start; /* tiles + 1 */
    uint32_t bin_start_cap;
    uint32_t *bin_tris;
    uint32_t bin_total, bin_tris_cap;
    uint32_t twins_skipped; /* the last set-up's, for tests */
    uint32_t uncovered;     /* the last set-up's triangles of no pixel centre, found by edges */
    uint32_t *counts;       /* chunk x tile bin counts, then offsets, for the parallel merge */
    uint32_t counts_cap;

    /* per-meshlet culling (cpu_meshcull.c; the camera's raster only):
       ml_base[d] is draw d's first entry in ml_keep (UINT32_MAX: not culled
       by meshlets), ml_keep 1 for a meshlet kept; ml_cut[d] its counts */
    bool ml_on;
    uint32_t *ml_base, ml_base_cap;
    uint8_t *ml_keep;
    uint32_t ml_keep_cap;
    uint32_t (*ml_cut)[5]; /* frustum, cone, triangles kept, not in the LOD cut, occluded */
    uint32_t ml_cut_cap;
    uint8_t *vneed; /* per vertex of a draw culled by meshlets: 1 when a kept one uses it */
    uint32_t vneed_cap;
} cpu_pass;

typedef struct cpu_backend {
    uint32_t width, height;
    uint32_t shadow_size;

    /* mirrors, keyed by handle id */
    cpu_mesh *meshes;
    uint32_t mesh_count, mesh_cap;
    oak_map mesh_map;
    cpu_texture *textures;
    uint32_t texture_count, texture_cap;
    oak_map texture_map;
    cpu_material *materials;
    uint32_t material_count, material_cap;
    oak_map material_map;
    uint32_t mesh_free, texture_free, material_free; /* evicted slots to reuse */
    uint64_t sync_count;

    cpu_pass shadow, opaque, blend, lamp;

    /* frame buffers */
    float *depth;         /* main view, tile-major */
    uint32_t *ids;        /* main view, tile-major */
    float *shadow_map;    /* the atlas: OAK_MAX_CASCADES tile-major maps, shadow_stride apart */
    float *shadow_static; /* the cached static layers, laid out as shadow_map */
    float *color;         /* linear rgb, row-major, 3 per pixel */
    /* TAA upsampling: the output-sized frame the taa pass writes; the
       passes after it run on it (swapped with color, width and height for
       them: cpu_render) */
    float *color_up;
    size_t color_up_cap;
    uint32_t pic_width, pic_height; /* the last frame's picture in out */
    uint8_t *ldr;                   /* post before FXAA, rgba */
    uint8_t *out;                   /* final rgba */
    uint8_t *luma;                  /* FXAA luma of ldr */
    size_t frame_cap, shadow_cap;

    const oak_render_view *view;        /* during render */
    const oak_render_view *synced_view; /* what the last sync saw, until render */
    uint64_t synced_frame;
    bool serial_merge;    /* $OAK_CPU_SERIAL_MERGE: the one-thread bin merge (tests) */
    bool scalar_vertex;   /* $OAK_CPU_SCALAR_VERTEX: one vertex at a time (tests) */
    bool no_twins;        /* $OAK_CPU_NO_TWINS: meshes synced with no twins (tests) */
    bool no_cover;        /* $OAK_CPU_NO_COVER: small triangles' centres not tested in set-up */
    bool no_huge;         /* $OAK_CPU_NO_HUGE: the vertex arrays not put on huge pages */
    bool shadow_valid;    /* this frame has the key light's maps */
    size_t shadow_stride; /* floats from one cascade's map to the next's */
    uint32_t shadow_edge; /* texels across one cascade's map */
    float shadow_cof[OAK_MAX_CASCADES][9]; /* cofactor rows of each map's 3x3 (cpu_shadow.c) */
    /* each cascade's static layer, and the map its shading reads: the
       layer itself, or shadow_map's copy of it with the movers drawn over */
    oak_shadow_layer shadow_layer[OAK_MAX_CASCADES];
    const float *shadow_read[OAK_MAX_CASCADES];
    uint32_t shadow_cascades;      /* of shadow_read, those the last shadow pass drew */
    oak_shadow_stats shadow_stats; /* the last frame's */
    oak_meshlet_stats ml_stats;    /* the last frame's (cpu_meshcull.c) */
    /* the shadow maps' cluster-LOD cuts this frame (cascades and lamp
       faces drawn): tested, culled_lod, triangles_kept */
    oak_meshlet_stats shadow_lod;
    bool meshcull;                   /* OAK_MESHCULL is not off */
    oak_blend_stats blend_stats;     /* the last frame's: a draw per surface here */
    double stage_ms[OAK_PASS_COUNT]; /* by pass, parts left out */
    double part_ms[OAK_PASS_COUNT][OAK_PASS_MAX_PARTS]; /* the rows' sub-stages */
    double busy_ms[OAK_JOB_MAX_THREADS];                /* each worker's time in jobs, last frame */
    uint32_t busy_count;                                /* workers in busy_ms */

    /* the lamp atlas (cpu_pass_lampshadow.c): per tile a static layer,
       a live copy with the movers drawn over it, and which one to read */
    float *lamp_static[OAK_LAMP_ATLAS_FACES];
    float *lamp_live[OAK_LAMP_ATLAS_FACES];
    const float *lamp_read[OAK_LAMP_ATLAS_FACES];
    uint64_t lamp_hash[OAK_LAMP_ATLAS_FACES]; /* static_hash of the layer held */
    bool lamp_drawn[OAK_LAMP_ATLAS_FACES];
    uint32_t lamp_static_drawn; /* static layers drawn this frame */
    bool lamp_valid;            /* this frame's faces are drawn */

    /* the lamp grid (cpu_lightgrid.c), oak_gpu_light_grid's layout */
    uint32_t *grid;         /* OAK_GPU_LIGHT_GRID_WORDS */
    float *grid_lamps;      /* per lamp: view-space centre, reach (0: everywhere) */
    uint32_t *grid_scratch; /* per slice: the lamps its depth range meets */
    uint32_t grid_lamp_cap, grid_scratch_cap, cone_cap;
    float *cones; /* per view light: cos(outer cone), cos(inner cone) */
    uint32_t grid_slice_over[OAK_LIGHT_GRID_Z];
    uint32_t grid_lamps_n; /* lamps in this frame's grid */
    bool grid_ready;       /* this frame's grid is built: shading reads only its cell */
    bool grid_warned;      /* overflow said once */
    bool lamp_loop_all;    /* $OAK_CPU_LAMP_LOOP=all: every light at every pixel (tests) */

    /* the gtao pass (cpu_gtao.c): the ao target's floats, laid out as
       _oak_gpu_ao_floats says; the denoised AO of pixel (x, y) at y w + x */
    float *ao_words;
    uint64_t ao_cap;

    /* the sky light (cpu_pass_skycapture.c): OAK_GPU_SKY_TEXELS RGBA32F texels
       as oak_gpu.h lays them out, the BRDF table built at create */
    float *sky;
    uint64_t sky_hash;     /* of the environment captured; 0: none yet */
    uint32_t sky_captures; /* how many times it was captured */
    /* eye adaptation (cpu_pass_exposure.c), laid out as OAK_B_EXPOSURE's
       state: EV100 now, post's multiplier, metered EV100, target */
    float exposure_state[4];
    /* the bloom pyramid (cpu_bloom.c), RGBA32F texels as render/bloom.h lays them out */
    float *bloom;
    uint64_t bloom_cap; /* floats */
    /* 2 x 2 means of a source twice its level's size, weighed (r k, g k, b k,
       k; cpu_bloom.c), with a 2-texel border */
    float *bloom_box;
    size_t bloom_box_cap; /* floats */
    /* depth of field's half-size images and tiles (cpu_dof.c, render/dof.h) */
    float *dof;
    uint64_t dof_cap; /* floats */
    /* the clouds (cpu_pass_clouds.c): this frame's record (shape[3] 0: no
       clouds, the resolve reads no shadow) and the OAK_B_CLOUDS floats,
       whose noise table is baked once */
    oak_gpu_clouds cloud;
    float *clouds;
    uint64_t clouds_cap; /* floats */
    bool clouds_baked;
    /* the fog (cpu_pass_fog.c): this frame's record (grid[3] 0: no fog, the
       exp2 fog as before) and the OAK_B_FOG floats */
    oak_gpu_fog fog;
    float *fog_buf;
    uint64_t fog_cap; /* floats */
    /* the taa pass's two histories (render/taa.h), RGBA floats, then the
       frame's weighed YCoCg (cpu_pass_taa.c) */
    float *taa;
    uint64_t taa_cap; /* floats */
    /* the opaque frame's copy (cpu_pass_opaquecopy.c): rgb floats laid out
       as render/opaque_copy.h says; valid once this frame's pass ran */
    float *opaque_copy;
    uint64_t opaque_copy_cap; /* floats */
    bool opaque_valid;
    /* the mirror buffer (render/ssr.h), 8 floats a pixel: written by the
       resolve on frames the ssr pass runs (ssr_on), read by that pass */
    float *ssr;
    uint64_t ssr_cap; /* floats */
    bool ssr_on;
    /* the resolve's tiles in the order they are handed out (cpu_resolve.c):
       dearest last frame first, each tile's time kept (ns / 16) and the
       sort keys beside it; one block, rtile_cap tiles, rtile_n measured */
    uint32_t *rtile_order, *rtile_cost;
    uint64_t *rtile_key;
    uint32_t rtile_cap, rtile_n;
} cpu_backend;

/* ---- the frame: one run function per row of the pass table -------------- */

/* cpu_pass_<name>.c, walked by cpu_render in table order */
typedef oak_result (*cpu_run_fn)(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_upload(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_lightgrid(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_skycapture(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_sky_create(cpu_backend *b); /* the sky buffer and BRDF table */
oak_result _oak_cpu_run_shadow(cpu_backend *b, const oak_render_view *v);
/* cpu_pass_shadow.c: one map cut into a cached static layer and movers
   (casters l[first, first + static_count) static, the rest of count
   movers); *read gets what shading samples: layer, or map with the movers. */
oak_result _oak_cpu_shadow_layered(cpu_backend *b, oak_shadow_layer *state, const float **read,
                                   float *layer, float *map, size_t texels, uint32_t S,
                                   const float view_proj[4][4], const oak_draw_list *l,
                                   uint32_t first, uint32_t static_count, uint32_t count,
                                   uint64_t key);
/* cpu_pass_shadow.c: the cascade atlas test hook (oak_backend.read_shadow_map) */
oak_result _oak_cpu_read_shadow_map(void *self, float *depth, size_t count);
oak_result _oak_cpu_run_lampshadow(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_raster(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_gtao(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_resolve(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_ssr(cpu_backend *b, const oak_render_view *v);
/* cpu_pass_ssr.c: ssr.glsl's oak_ssr_march_from against p's depth, from
   world P0 seen in pixel (px, py) along unit R, in `steps` steps and
   `halvings` halvings: the hit's pixel and fade */
bool _oak_cpu_ssr_march(const cpu_pass *p, const oak_render_view *v, const float P0[3], int32_t px,
                        int32_t py, const float R[3], int steps, int halvings, int32_t hit[2],
                        float *fade);
/* the pixel whose jittered centre NDC (x, y) falls in (ssr.glsl's oak_ssr_pixel) */
void _oak_cpu_ssr_pixel(const oak_render_view *v, uint32_t W, uint32_t H, float x, float y,
                        int32_t q[2]);
/* the world point at a hit pixel's jittered centre at p's depth there (into
   Q); returns that depth (ssr.glsl's oak_ssr_point) */
float _oak_cpu_ssr_hit_point(const cpu_pass *p, const oak_render_view *v, const int32_t hit[2],
                             float Q[3]);
oak_result _oak_cpu_run_opaquecopy(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_blend(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_taa(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_exposure(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_bloom(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_bloom(cpu_backend *b, const oak_render_view *v); /* cpu_bloom.c */
oak_result _oak_cpu_run_dof(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_clouds(cpu_backend *b, const oak_render_view *v); /* cpu_pass_clouds.c */
oak_result _oak_cpu_clouds_bake(cpu_backend *b,
                                const oak_render_view *v); /* the noise table, once */
oak_result _oak_cpu_run_cloudmix(cpu_backend *b, const oak_render_view *v); /* cpu_pass_clouds.c */
oak_result _oak_cpu_run_fog(cpu_backend *b, const oak_render_view *v);      /* cpu_pass_fog.c */
oak_result _oak_cpu_dof(cpu_backend *b, const oak_render_view *v);          /* cpu_dof.c */
oak_result _oak_cpu_run_post(cpu_backend *b, const oak_render_view *v);
oak_result _oak_cpu_run_fxaa(cpu_backend *b, const oak_render_view *v);

/* cpu_draws.c: a pass's target and draw list, shared by the raster passes;
   huge pages asked for a large array (a hint: no value changes) */
void _oak_cpu_huge_pages(const cpu_backend *b, void *ptr, size_t bytes);
size_t _oak_cpu_tiled_pixels(uint32_t w, uint32_t h);
void _oak_cpu_pass_target(cpu_pass *p, uint32_t w, uint32_t h, bool flip, const float jitter[2],
                          float *depth, uint32_t *ids);
bool _oak_cpu_pass_add(cpu_pass *p, uint32_t src);
/* Resolves mirrors and matrices of the pass's draws from list l. */
void _oak_cpu_pass_fill(cpu_backend *b, cpu_pass *p, const oak_draw_list *l, bool cull_ok);

/* cpu_mirror.c */
oak_result _oak_cpu_sync(cpu_backend *b, const oak_render_view *view);
int32_t _oak_cpu_mesh_index(const cpu_backend *b, oak_mesh mesh);
int32_t _oak_cpu_material_index(const cpu_backend *b, oak_material material);
void _oak_cpu_mirrors_release(cpu_backend *b);

/* cpu_geometry.c: vertex transform, clipping, triangle set-up, binning */
/* Meshlets (cpu_meshcull.c): a mesh mirror's, made when it is synced; the
   camera pass's per-meshlet frustum and cone test before its set-up. */
oak_result _oak_cpu_mesh_meshlets(cpu_mesh *m, oak_mesh h, const oak_mesh_data *d);
oak_result _oak_cpu_meshcull(cpu_backend *b, cpu_pass *p, const oak_render_view *v);
/* A shadow map's pass (its draws added, before the geometry): each
   cluster-LOD mesh's cut by the map's view (_oak_meshcull_view_shadow),
   the cut alone; its counts added to b->shadow_lod. Other draws whole. */
struct _oak_meshcull_view;
oak_result _oak_cpu_meshcull_lod(cpu_backend *b, cpu_pass *p, const struct _oak_meshcull_view *cv);
/* After the vertex prefix sums: which vertices the kept meshlets use, so
   the vertex stage skips the rest. */
oak_result _oak_cpu_meshcull_vertices(cpu_backend *b, cpu_pass *p);
void _oak_cpu_meshcull_release(cpu_pass *p);
oak_result _oak_cpu_pass_geometry(cpu_backend *b, cpu_pass *p, double *vertex_ms, double *bins_ms);
/* cpu_raster.c */
void _oak_cpu_pass_raster(cpu_backend *b, cpu_pass *p);

/* Perspective-correct barycentrics of a draw's triangle at a pixel centre. */
typedef struct cpu_bary {
    float adj[9];         /* adjugate of [x;y;w] columns, row-major */
    float ndc_dx, ndc_dy; /* d(ndc)/d(pixel) */
    /* per-triangle products the derivatives reuse at every pixel */
    float gx[3], gy[3]; /* adj[i*3] * ndc_dx, adj[i*3+1] * ndc_dy */
    float sx, sy;       /* their sums' counterparts: (sum of column) * ndc_d */
} cpu_bary;
void _oak_cpu_bary_setup(cpu_bary *out, const cpu_pass *p, const float *c0, const float *c1,
                         const float *c2);
/* b = weights at pixel (x, y); dbdx/dbdy their screen derivatives (may be NULL);
   inline: it runs at every shaded pixel */
static inline void _oak_cpu_bary_eval(const cpu_bary *s, const cpu_pass *p, uint32_t x, uint32_t y,
                                      float b[3], float dbdx[3], float dbdy[3]) {
    float nx = ((float)x + 0.5f - p->jitter[0]) * s->ndc_dx - 1.0f;
    float ny = ((float)y + 0.5f - p->jitter[1]) * s->ndc_dy + (p->flip_y ? 1.0f : -1.0f);
    float u[3], sum = 0;
    for (int i = 0; i < 3; i++) {
        u[i] = s->adj[i * 3] * nx + s->adj[i * 3 + 1] * ny + s->adj[i * 3 + 2];
        sum += u[i];
    }
    if (sum == 0) sum = 1e-30f; /* edge-on: any weights will do */
    float inv = 1.0f / sum;
    for (int i = 0; i < 3; i++) b[i] = u[i] * inv;
    if (dbdx) {
        for (int i = 0; i < 3; i++) {
            dbdx[i] = (s->gx[i] - b[i] * s->sx) * inv;
            dbdy[i] = (s->gy[i] - b[i] * s->sy) * inv;
        }
    }
}
/* The pass draw holding pass triangle `tri` (binary search over tri_base). */
uint32_t _oak_cpu_find_draw(const cpu_pass *p, uint32_t tri);

/* One original triangle of a pass draw, gathered for per-pixel work. */
/* Vertex v of mesh m through a posed draw's palette (this frame's or last
   frame's): its skinning rows (render/pose_stream.h, pose.glsl's twin). */
static inline void _oak_cpu_pose_rows(const cpu_mesh *m, const float *palette, uint32_t v,
                                      float rows[12]) {
    _oak_pose_skin(palette, m->joints + (size_t)v * 4, m->weights + (size_t)v * 4, rows);
}

/* A triangle's constants for the surface set-up in lanes, laid out flat so
   a batch reads them broadcast, or gathers them lane by lane
   (cpu_surface_kernel.inc); vertex i's attribute component k at
   row + i * n + k. */
enum {
    CPU_SC_ADJ = 0,  /* 9: the barycentrics' adjugate */
    CPU_SC_GX = 9,   /* 3 */
    CPU_SC_GY = 12,  /* 3 */
    CPU_SC_SX = 15,  /* 1 */
    CPU_SC_SY = 16,  /* 1 */
    CPU_SC_NDX = 17, /* 1 */
    CPU_SC_NDY = 18, /* 1 */
    CPU_SC_POS = 19, /* 9: object space, vertex-major */
    CPU_SC_W = 28,   /* 12: the world matrix's rows 0-3, columns 0-2 */
    CPU_SC_NM = 40,  /* 9: the normal matrix */
    CPU_SC_N = 49,   /* 9 */
    CPU_SC_T = 58,   /* 12 */
    CPU_SC_C = 70,   /* 12 */
    CPU_SC_UV0 = 82, /* 6 */
    CPU_SC_UV1 = 88, /* 6 */
    CPU_SC_DC = 94,  /* 4: the draw's colour */
    CPU_SC_NG = 98,  /* 3 */
    CPU_SC_COUNT = 101
};
/* what the surface set-up reads for a triangle, from its material */
enum {
    CPU_SF_TEX = 1,   /* textured: uv0 and its derivatives */
    CPU_SF_TAN = 2,   /* the tangent frame */
    CPU_SF_WATER = 4, /* no tangent frame but water: T.w, its foam */
    CPU_SF_FLIP = 8,  /* back-facing and double-sided: Nv turned */
    CPU_SF_TRI = 16,  /* triplanar: P's derivatives */
    CPU_SF_UV1 = 32,  /* the second uv set */
    /* the prep in lanes takes it (cpu_prep_kernel.inc): no tricks, lobes,
       transmission, specular textures, water or unlit */
    CPU_SF_PREP = 64,
};

typedef struct cpu_tri_ctx {
    uint32_t id; /* pass triangle index + 1; 0 when empty */
    uint32_t draw, tri;
    const cpu_draw *d;
    const cpu_material *mat;
    cpu_bary bary;
    float pos[3][3]; /* object space (posed, for a posed draw) */
    const float *attr[3];
    float posed[3][CPU_ATTR]; /* a posed draw's attributes: normal and tangent skinned */
    float Ng[3];              /* world, unit, flipped when back-facing and double-sided */
    bool back;
    uint32_t sflags;        /* CPU_SF_ */
    float sc[CPU_SC_COUNT]; /* the set-up's constants, CPU_SC_ */
} cpu_tri_ctx;
void _oak_cpu_tri_ctx(const cpu_backend *b, const cpu_pass *p, uint32_t id, cpu_tri_ctx *t);
/* t's sflags and sc from its material, bary, pos, attr, draw and Ng (the
   end of _oak_cpu_tri_ctx; tests that fill a context by hand call it) */
void _oak_cpu_surface_consts(cpu_tri_ctx *t);
/* Alpha of a MASK triangle at a pixel: base_color.a * C.a * texBase.a */
float _oak_cpu_mask_alpha(const cpu_backend *b, const cpu_pass *p, const cpu_tri_ctx *t, uint32_t x,
                          uint32_t y);

/* cpu_shade.c: the contract in docs/SHADING.md */
typedef struct cpu_surface {
    float P[3], Nv[3], Ng[3], T[4], C[4];
    float uv[2][2], duvdx[2][2], duvdy[2][2];
    float dPdx[3], dPdy[3]; /* P's screen derivatives, for triplanar materials only */
    uint32_t px, py;        /* the pixel, for its lamp cell */
    bool back;
    float gtao; /* the gtao term of the indirect light (1 unless the resolve sets it) */
} cpu_surface;
/* Where the frame behind water is read (docs/SHADING.md "Water"): the
   surface point P moved by the ray refracted through the wave's normal N
   less the one through still water, OAK_WATER_REFRACT_DEPTH down (V: unit,
   towards the eye); P itself on still water. */
void _oak_cpu_water_refract_point(const float P[3], const float N[3], const float V[3], float e[3]);
/* The eye under the water's level inside its extent: water shows its
   underside, the sky is seen through the water (docs/SHADING.md "Water"). */
bool _oak_cpu_eye_under_water(const oak_render_view *v);
/* The water's surface seen from below at P (N turned to the eye, V towards
   it): Snell's window, then the underwater fog to the eye; surface.glsl's
   oak_water_underside. With px (P's pixel) what stands above the water is
   found along the refracted ray in the opaque copy (the forward pass's). */
void _oak_cpu_water_underside(const cpu_backend *b, const float P[3], const float N[3],
                              const float V[3], float roughness, const int32_t *px, float out[3]);
/* The sky along unit dir seen from under the water (oak_water_sky_below). */
void _oak_cpu_water_sky_below(const cpu_backend *b, const float dir[3], float out[3]);
/* Builds the surface of a triangle at pixel (x, y). */
void _oak_cpu_surface(const cpu_backend *b, const cpu_pass *p, const cpu_tri_ctx *t, uint32_t x,
                      uint32_t y, cpu_surface *s);
/* A capture channel's value at a surface (view.post.channel albedo, normal
   or depth; docs/SHADING.md "Capture channels"). */
void _oak_cpu_channel(const cpu_backend *b, const cpu_tri_ctx *t, const cpu_surface *s,
                      float out[3]);
/* Pixels shaded together by the lane kernel (cpu_light_kernel.inc), one
   lane each, structure of arrays; _oak_cpu_shade_prep fills a lane. */
#define CPU_LANES_MAX 8
typedef struct cpu_lanes {
    uint32_t count; /* lanes in use, from 0 */
    float P[3][CPU_LANES_MAX], Ng[3][CPU_LANES_MAX], N[3][CPU_LANES_MAX], V[3][CPU_LANES_MAX];
    float NdotV[CPU_LANES_MAX], rough[CPU_LANES_MAX], a2[CPU_LANES_MAX], ao[CPU_LANES_MAX];
    float F0[3][CPU_LANES_MAX], dpi[3][CPU_LANES_MAX], emit[3][CPU_LANES_MAX];
    const uint32_t *cell[CPU_LANES_MAX]; /* the lamp cell's list, NULL: lights by index */
    uint32_t first[CPU_LANES_MAX], n[CPU_LANES_MAX]; /* lights before the cell's, in all */
    bool receive[CPU_LANES_MAX], lit[CPU_LANES_MAX]; /* lit: not an unlit material */
    float water_a[CPU_LANES_MAX];                    /* a water material's alpha (0: not water) */
    float F90[CPU_LANES_MAX];                        /* the Fresnel at grazing (1 but specular) */
    /* the lobes (docs/SHADING.md "Lobes"), read where lobed: the coat's
       weight (0: none), a^2, normal, the factor it leaves what is under it
       and its sky light; the sheen's colour (0: none), alpha, the factor it
       leaves the base and its sky light */
    bool lobed[CPU_LANES_MAX];
    float coat[CPU_LANES_MAX], coat_a2[CPU_LANES_MAX], Nc[3][CPU_LANES_MAX];
    float coat_keep[CPU_LANES_MAX], coat_amb[3][CPU_LANES_MAX];
    float sheen[3][CPU_LANES_MAX], sheen_a[CPU_LANES_MAX], sheen_keep[CPU_LANES_MAX];
    float sheen_amb[3][CPU_LANES_MAX];
    /* anisotropy: alpha along At (0: none) and along Ab, the frame; Nr: the
       normal the sky light reflects about (N but under anisotropy) */
    float ani_at[CPU_LANES_MAX], ani_ab[CPU_LANES_MAX], At[3][CPU_LANES_MAX], Ab[3][CPU_LANES_MAX];
    float Nr[3][CPU_LANES_MAX];
    float irid[3][CPU_LANES_MAX],
        irid_f[CPU_LANES_MAX]; /* the film's Fresnel, its factor (0: none) */
    /* diffuse transmission: the diffuse lobe's share through the surface
       over pi (0: none) and the sky's irradiance about -N */
    bool difftr[CPU_LANES_MAX];
    float dt[3][CPU_LANES_MAX], dt_irr[3][CPU_LANES_MAX];
    float tbase[3][CPU_LANES_MAX]; /* transmission's tint, the base colour (where it transmits) */
    /* transmission's factor and the volume's thickness, their textures applied */
    float trans[CPU_LANES_MAX], thick[CPU_LANES_MAX];
    /* screen-space reflections: in, the puddle's share (0: no mirror, or
       lobed); out, the split-sum weight of the sky's reflection (ao x
       envF x share) and that reflection, for the ssr pass */
    float ssr_p[CPU_LANES_MAX], ssr_w[3][CPU_LANES_MAX], ssr_r[3][CPU_LANES_MAX];
    float col[3][CPU_LANES_MAX]; /* out: colour before fog */
    /* out: the exp2 fog's transmittance to P (cpu_fog_transmittance of
       air_fog's distance), only where the view has that fog (no volumetric
       fog, fog_density > 0) */
    float fogt[CPU_LANES_MAX];
} cpu_lanes;
typedef void (*cpu_light_fn)(const cpu_backend *b, cpu_lanes *q);
void _oak_cpu_light_avx2(const cpu_backend *b, cpu_lanes *q);
void _oak_cpu_light_sse4(const cpu_backend *b, cpu_lanes *q);
void _oak_cpu_light_scalar(const cpu_backend *b, cpu_lanes *q);
/* Test hooks: the kernel's lane lookups at each width over n points (xyz
   per point), to be held bit for bit to the scalar functions. sun:
   _oak_cpu_sun_shadow at P, Ng into out[n]. sky: _oak_sky_irradiance at d,
   _oak_sky_specular at d and rough, _oak_sky_brdf at ndv and rough into
   out[8 n] (3 + 3 + 2 a point). */
void _oak_cpu_lanes_sun_avx2(const cpu_backend *b, uint32_t n, const float *P, const float *Ng,
                             float *out);
void _oak_cpu_lanes_sun_sse4(const cpu_backend *b, uint32_t n, const float *P, const float *Ng,
                             float *out);
void _oak_cpu_lanes_sun_scalar(const cpu_backend *b, uint32_t n, const float *P, const float *Ng,
                               float *out);
void _oak_cpu_lanes_sky_avx2(const float *sky, uint32_t n, const float *d, const float *rough,
                             const float *ndv, float *out);
void _oak_cpu_lanes_sky_sse4(const float *sky, uint32_t n, const float *d, const float *rough,
                             const float *ndv, float *out);
void _oak_cpu_lanes_sky_scalar(const float *sky, uint32_t n, const float *d, const float *rough,
                               const float *ndv, float *out);
/* The surface set-up in lanes (cpu_surface_kernel.inc), each width the
   same bits as _oak_cpu_surface: n pixels, pixel i at (x[i], y[i]) on
   triangle tc[i], into s[i] (the fields _oak_cpu_surface writes). */
typedef void (*cpu_surface_fn)(const cpu_backend *b, const cpu_pass *p, uint32_t n,
                               const cpu_tri_ctx *const *tc, const uint32_t *x, const uint32_t *y,
                               cpu_surface *s);
void _oak_cpu_surface_lanes_avx2(const cpu_backend *b, const cpu_pass *p, uint32_t n,
                                 const cpu_tri_ctx *const *tc, const uint32_t *x, const uint32_t *y,
                                 cpu_surface *s);
void _oak_cpu_surface_lanes_sse4(const cpu_backend *b, const cpu_pass *p, uint32_t n,
                                 const cpu_tri_ctx *const *tc, const uint32_t *x, const uint32_t *y,
                                 cpu_surface *s);
void _oak_cpu_surface_lanes_scalar(const cpu_backend *b, const cpu_pass *p, uint32_t n,
                                   const cpu_tri_ctx *const *tc, const uint32_t *x,
                                   const uint32_t *y, cpu_surface *s);
/* The kernel this process runs: AVX2 where the CPU has it, else SSE4.1 where
   it has that, else scalar; $OAK_CPU_ISA (avx2, sse4, scalar) overrides,
   downgraded to what the CPU has. _oak_cpu_isa_set changes it (tests). */
cpu_light_fn _oak_cpu_light_kernel(void);
cpu_surface_fn _oak_cpu_surface_kernel(void); /* the same width's surface set-up */
const char *_oak_cpu_isa_name(void);
bool _oak_cpu_isa_set(const char *name); /* false: unknown or not on this CPU */
/* Fills lane `lane` of q for a pixel (material, textures, normal, lamp cell)
   and returns its base alpha; the kernel then lights it and
   _oak_cpu_shade_finish applies the debug views and fog (and, ssr not
   NULL, writes the pixel's 8 floats of the mirror buffer, render/ssr.h). */
float _oak_cpu_shade_prep(const cpu_backend *b, const cpu_tri_ctx *t, const cpu_surface *s,
                          cpu_lanes *q, uint32_t lane);
/* The prep in lanes (cpu_prep_kernel.inc), each width the same bits as
   _oak_cpu_shade_prep: n pixels on triangles tc[i] at surfaces s[i] into
   lanes o + i of q (those not CPU_SF_PREP, or under weather, through
   _oak_cpu_shade_prep itself). */
typedef void (*cpu_prep_fn)(const cpu_backend *b, uint32_t n, const cpu_tri_ctx *const *tc,
                            const cpu_surface *s, cpu_lanes *q, uint32_t o);
void _oak_cpu_prep_lanes_avx2(const cpu_backend *b, uint32_t n, const cpu_tri_ctx *const *tc,
                              const cpu_surface *s, cpu_lanes *q, uint32_t o);
void _oak_cpu_prep_lanes_sse4(const cpu_backend *b, uint32_t n, const cpu_tri_ctx *const *tc,
                              const cpu_surface *s, cpu_lanes *q, uint32_t o);
void _oak_cpu_prep_lanes_scalar(const cpu_backend *b, uint32_t n, const cpu_tri_ctx *const *tc,
                                const cpu_surface *s, cpu_lanes *q, uint32_t o);
cpu_prep_fn _oak_cpu_prep_kernel(void); /* the kernel's width (cpu_isa.c) */
/* cpu_log2_level (cpu_sample.h) in lanes over n floats (a multiple of 8),
   for test_cpu_lanes */
void _oak_cpu_log2_lanes_avx2(const float *m, float *out, uint32_t n);
void _oak_cpu_log2_lanes_sse4(const float *m, float *out, uint32_t n);
void _oak_cpu_log2_lanes_scalar(const float *m, float *out, uint32_t n);
/* the kernel's lexp2 (cpu_lanes.h) at each width over n values, a whole
   number of its lanes, for the tests */
void _oak_cpu_exp2_lanes_avx2(const float *y, float *out, uint32_t n);
void _oak_cpu_exp2_lanes_sse4(const float *y, float *out, uint32_t n);
void _oak_cpu_exp2_lanes_scalar(const float *y, float *out, uint32_t n);
/* _oak_cpu_shade_finish of lanes 0..q->count-1 (surfaces surf[i]) into
   outs[i], and the mirror buffer where the ssr pass runs; a lane the view
   asks nothing of but the exp2 fog is mixed here, without the call */
void _oak_cpu_shade_finish_lanes(const cpu_backend *b, const cpu_surface *surf, const cpu_lanes *q,
                                 float *const *outs);
void _oak_cpu_shade_finish(const cpu_backend *b, const cpu_surface *s, const cpu_lanes *q,
                           uint32_t lane, float rgb[3], float *ssr);
/* Shaded linear colour (fog included) and base alpha. */
void _oak_cpu_shade(const cpu_backend *b, const cpu_tri_ctx *t, const cpu_surface *s, float rgb[3],
                    float *alpha);
void _oak_cpu_sky(const oak_render_view *v, const float dir[3], float rgb[3]);
void _oak_cpu_heat(uint32_t lamps, float rgb[3]);
void _oak_cpu_view_ray(const oak_render_view *v, uint32_t x, uint32_t y, float dir[3]);
/* the sky of pixels x..x+3 of row y into rgb[12]: _oak_cpu_view_ray and
   _oak_cpu_sky four lanes at a time in SSE2, the same floats */
void _oak_cpu_sky_row4(const oak_render_view *v, uint32_t x, uint32_t y, float *rgb);

/* cpu_shadow.c: the key light's shadow at a surface point (docs/SHADING.md
   "Shadow"); --debug cascades: rgb tinted by the cascade P falls in */
float _oak_cpu_sun_shadow(const cpu_backend *b, const float P[3], const float Ng[3]);
void _oak_cpu_shadow_setup(cpu_backend *b, const oak_render_view *v); /* once a frame */
void _oak_cpu_cascade_tint(const oak_render_view *v, const float P[3], float rgb[3]);
/* cpu_lamp_shadow.c: lamp `light`'s lit fraction at P (docs/SHADING.md
   "Lamp shadows"), 1 without a slot; --debug lamp-shadows: the atlas */
float _oak_cpu_lamp_shadow(const cpu_backend *b, uint32_t light, const float P[3],
                           const float Ng[3]);
bool _oak_cpu_lamp_atlas_debug(const cpu_backend *b, uint32_t x, uint32_t y, float rgb[3]);
void _oak_cpu_lamp_atlas_release(cpu_backend *b);
/* cpu_lightgrid.c */
oak_result _oak_cpu_light_grid(cpu_backend *b);
/* The lamps (view light indices) listed in the cell of pixel (px, py) at P. */
const uint32_t *_oak_cpu_cell_lamps(const cpu_backend *b, uint32_t px, uint32_t py,
                                    const float P[3], uint32_t *count);

/* cpu_gtao.c: the gtao pass into ao_words; --debug ao shows it as grey */
oak_result _oak_cpu_gtao(cpu_backend *b, const oak_render_view *v);
void _oak_cpu_gtao_show(cpu_backend *b);

/* cpu_resolve.c */
void _oak_cpu_resolve(cpu_backend *b);
void _oak_cpu_blend(cpu_backend *b);

/* cpu_post.c / cpu_fxaa.c */
void _oak_cpu_post_init(void);           /* once, before the first post */
void _oak_cpu_post(cpu_backend *b);      /* into ldr (out when FXAA is off) */
void _oak_cpu_post_fxaa(cpu_backend *b); /* ldr into out, when FXAA is on */
/* Post of `count` pixels of row y from column x0: linear rgb floats in, rgba
   bytes out (docs/SHADING.md "Post" steps 1-4). simd: in lanes at the width
   cpu_isa.c picked (cpu_post_kernel.inc), the same bytes as the per-pixel
   path (tests/test_cpu_simd.c, test_cpu_isa.c). */
void _oak_cpu_post_span(const float *rgb, uint8_t *out, uint32_t x0, uint32_t y, uint32_t count,
                        const oak_post *post, bool simd);
/* Khronos PBR Neutral of one exposed colour, into [0, 1] (docs/SHADING.md). */
void _oak_tone_neutral(const float in[3], float out[3]);
/* FXAA of rows [y0, y1) of in into out; lumas (may be NULL) holds the
   whole image's luma (_oak_cpu_fxaa_luma's; the post pass writes it with
   its bytes). With lumas the searched pixels run in lanes at the width
   cpu_isa.c picked; without, per pixel (the reference). */
void _oak_cpu_fxaa(uint8_t *out, const uint8_t *in, const uint8_t *lumas, uint32_t width,
                   uint32_t height, uint32_t y0, uint32_t y1);
void _oak_cpu_fxaa_luma(uint8_t *luma_out, const uint8_t *in, uint32_t width, uint32_t y0,
                        uint32_t y1);

static inline size_t _oak_cpu_tile_index(const cpu_pass *p, uint32_t x, uint32_t y) {
    return ((size_t)(y / CPU_TILE) * p->tiles_x + x / CPU_TILE) * CPU_TILE_PIXELS +
           (y % CPU_TILE) * CPU_TILE + x % CPU_TILE;
}

#endif
