/* oak assets: meshes, textures and materials held in the engine's registry
 * behind generational handles, with a version that moves on every change so
 * backends know when to upload again. Loaders: images, OBJ/MTL. */
#ifndef OAK_ASSET_H
#define OAK_ASSET_H

#include "core.h"
#include "vecmath.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct oak_mesh {
    uint32_t id;
} oak_mesh;
typedef struct oak_texture {
    uint32_t id;
} oak_texture;
typedef struct oak_material {
    uint32_t id;
} oak_material;

/* ---- meshes ----------------------------------------------------------- */

/* Procedural shapes; a mesh made from a recipe keeps it, so scene files can
 * save the recipe instead of the vertices. */
typedef enum oak_shape {
    OAK_SHAPE_DEFAULT = 0, /* resolves to OAK_SHAPE_BOX */
    OAK_SHAPE_PLANE,       /* size[0] x size[2] in XZ, facing +Y, segments per side */
    OAK_SHAPE_BOX,         /* size[0..2] edges, centred */
    OAK_SHAPE_SPHERE,      /* radius; segments around, rings pole to pole */
    OAK_SHAPE_CYLINDER,    /* radius, height along Y, capped; segments around */
    OAK_SHAPE_CAPSULE,     /* radius, height of the straight part; segments, rings per cap */
    OAK_SHAPE_HEIGHTFIELD, /* grid over size[0] x size[2] in XZ, heights from fBm noise */
} oak_shape;

typedef struct oak_shape_desc {
    oak_shape type;
    float size[3]; /* 0: 1 m each */
    float radius;  /* 0: 0.5 m */
    float height;  /* 0: 1 m */
    uint32_t
        segments;   /* 0: 32 around (sphere/cylinder/capsule), 1 (plane/box), 128 (heightfield) */
    uint32_t rings; /* 0: 16 */
    float uv_scale; /* texture repeats across the shape; 0: 1 */
    /* heightfield: h(x,z) = amplitude * fbm(x * frequency, z * frequency) */
    uint32_t seed;
    uint32_t octaves; /* 0: 6 */
    float frequency;  /* 0: 0.01 per metre */
    float amplitude;  /* metres; 0 means flat */
    float lacunarity; /* 0: 2 */
    float gain;       /* 0: 0.5 */
} oak_shape_desc;

oak_shape_desc oak_shape_desc_defaults(const oak_shape_desc *desc);
/* Height of a heightfield recipe at world (x, z) relative to its centre, the
 * same function the mesh was built from (for placing things on terrain). */
float oak_shape_height(const oak_shape_desc *desc, float x, float z);

/* Vertex streams, structure of arrays. Any pointer but positions may be NULL
 * on input: missing normals are computed (area weighted), missing tangents
 * generated when uv0 exists, colours default to white. */
typedef struct oak_mesh_desc {
    uint32_t vertex_count, index_count;
    const float *positions; /* xyz */
    const float *normals;   /* xyz */
    const float *tangents;  /* xyzw, w = bitangent sign */
    const float *uv0, *uv1; /* uv */
    const float *colors;    /* rgba, linear */
    const uint16_t *joints; /* 4 per vertex */
    const float *weights;   /* 4 per vertex */
    /* a second set of 4 joints and weights (influences 5..8, glTF's
       JOINTS_1 / WEIGHTS_1) for a mesh posed by palettes; NULL: none */
    const uint16_t *joints1;
    const float *weights1;
    /* morph targets for a mesh posed by palettes (oak_mesh_update_pose):
       target_count x vertex_count x 9 floats, dense, target by target:
       each vertex's position, normal and tangent deltas (0 where absent) */
    uint32_t target_count;
    const float *targets;
    const uint32_t *indices; /* triangle list; NULL: 0..vertex_count-1 */
    const char *name;
} oak_mesh_desc;

/* Meshlets (docs/ARCHITECTURE.md "Meshlets"; DIGEST 6.4): a triangle mesh cut
 * by meshoptimizer into clusters of at most OAK_MESHLET_VERTICES vertices
 * and OAK_MESHLET_TRIANGLES triangles, each with a bounding sphere and a
 * normal cone in mesh space, for culling a cluster at a time. */
typedef struct oak_meshlet {
    uint32_t vertex_offset;   /* into oak_meshlets.vertices */
    uint32_t triangle_offset; /* into oak_meshlets.triangles, in bytes (a multiple of 4) */
    uint32_t vertex_count, triangle_count;
    float center[3], radius; /* a sphere holding every vertex */
    /* the normal cone: seen from eye, every triangle faces away when
       dot(normalize(apex - eye), axis) >= cutoff (cutoff 1: never) */
    float cone_apex[3], cone_axis[3], cone_cutoff;
    /* cluster LOD (docs/ARCHITECTURE.md "Cluster LOD"): the error (mesh
       units) and sphere of the group this cluster was simplified in, and of
       the group it was simplified into. A cut keeps the cluster where its
       own projected error is under a pixel and its parent's is over. A
       plain mesh's: lod_error 0, parent_error FLT_MAX (always kept), both
       spheres the cluster's own. */
    float lod_sphere[4], parent_sphere[4];
    float lod_error, parent_error;
} oak_meshlet;
typedef struct oak_meshlets {
    uint32_t count, vertex_total, triangle_bytes;
    oak_meshlet *meshlets;
    uint32_t *vertices; /* the mesh's vertex indices, vertex_total */
    uint8_t *triangles; /* 3 local indices (into the meshlet's vertices) a triangle */
} oak_meshlets;
/* Cuts a triangle list (indices NULL: 0..vertex_count-1) into meshlets; out's
   arrays are the caller's (oak_meshlets_release). Fails with one line on a
   bad index or no memory. */
oak_result oak_build_meshlets(oak_meshlets *out, const float *positions, uint32_t vertex_count,
                              const uint32_t *indices, uint32_t index_count);
void oak_meshlets_release(oak_meshlets *m);
/* NULL when the meshlets break their rules for a mesh of vertex_count
   vertices and index_count indices (a cache's are checked), else what does. */
const char *oak_meshlets_problem(const oak_meshlets *m, uint32_t vertex_count,
                                 uint32_t index_count);

/* Cluster LOD (docs/ARCHITECTURE.md "Cluster LOD"; DIGEST 6.6): a DAG of
 * meshlets over one mesh's vertices. Level 0 is the source cut into
 * meshlets; each level above groups about OAK_CLOD_GROUP adjacent clusters,
 * simplifies their triangles to half with the group's border locked and
 * cuts the result again. Meshes under OAK_CLOD_MIN_TRIANGLES get level 0
 * only. Groups of 8 (not 4) leave less of each group on its locked border:
 * the errors a level adds were half as large. */
#define OAK_CLOD_MIN_TRIANGLES 8192
#define OAK_CLOD_GROUP         8
#define OAK_CLOD_MAX_LEVELS    32
/* the DAG stops at one cluster of at most this many triangles (a far
   instance costs no more), or where a level no longer shrinks */
#define OAK_CLOD_ROOT_TRIANGLES 32
typedef struct oak_clod {
    /* every level's triangles over the source's vertices, level 0 (the
       source's own triangles, re-ordered) first, in meshlet order */
    uint32_t *indices;
    uint32_t index_count, finest_index_count;
    oak_meshlets meshlets; /* the clusters of all levels, level by level */
    uint32_t level_count;
    /* level L's meshlets are [level_first[L], level_first[L + 1]) */
    uint32_t level_first[OAK_CLOD_MAX_LEVELS + 1];
    uint32_t level_triangles[OAK_CLOD_MAX_LEVELS];
} oak_clod;
/* Builds the DAG of a triangle list (indices NULL: 0..vertex_count-1);
   out's arrays are the caller's (oak_clod_release). One line and an error
   on a bad index or no memory. */
oak_result oak_build_clod(oak_clod *out, const float *positions, uint32_t vertex_count,
                          const uint32_t *indices, uint32_t index_count);
void oak_clod_release(oak_clod *c);

/* A mesh as the registry holds it; every stream is present except joints and
 * weights (NULL when unskinned). */
typedef struct oak_mesh_data {
    uint32_t vertex_count, index_count;
    float *positions, *normals, *tangents, *uv0, *uv1, *colors;
    uint16_t *joints;
    float *weights;
    uint16_t *joints1; /* influences 5..8 (oak_mesh_desc); NULL: 4 a vertex */
    float *weights1;
    uint32_t target_count; /* morph targets (oak_mesh_desc.targets) */
    float *targets;
    uint32_t *indices;
    oak_bounds bounds;
    uint32_t version; /* moves on every change */
    /* the version at the latest change of anything but the positions: a
       positions-only oak_mesh_update_vertices (normals and tangents NULL)
       leaves it, so a backend holding the mesh at this shape may send the
       positions (and the previous pose) alone (docs/ARCHITECTURE.md
       "Meshes posed in place") */
    uint32_t shape_version;
    /* last pose of a mesh posed in place (oak_mesh_update_vertices): the
       positions before the latest update, and the version they were
       current at; NULL (a static mesh pays nothing) until the first update
       that gives positions, dropped again by oak_mesh_update */
    float *prev_positions;
    uint32_t prev_version;
    /* a mesh posed by joint palettes (oak_mesh_update_palette): joint_count
       3 x 4 rows (12 floats a joint, row-major, mesh space) of the latest
       pose, then as many of the one before (the same again on the first
       update); the streams above stay the rest pose and every backend skins
       the vertices from these (GPUs in compute, the CPU in its vertex
       stage). pose_version moves on each update (version does not).
       0 / NULL until the first update, dropped by oak_mesh_update */
    uint32_t joint_count;
    float *palette;
    /* the morph weights posed with the palette: target_count of the latest
       pose, then as many of the one before; NULL without targets */
    float *morph_weights;
    uint32_t pose_version, prev_pose_version;
    /* its meshlets (oak_mesh_meshlets), made on the first request or handed
       over from a model cache, dropped when the mesh changes (version) */
    oak_meshlets *meshlets;
    uint32_t meshlets_version;
    /* a cluster-LOD mesh (oak_make_clod_mesh): its index list holds every
       level and its finest level is indices [0, finest_index_count); the
       GPU backends draw that range until their cut is wired. 0: a plain
       mesh (every index drawn) */
    uint32_t finest_index_count;
    char *name;
    /* where it came from, for scene files: a recipe, or a file and index */
    bool has_recipe;
    oak_shape_desc recipe;
    char *source_path;
    uint32_t source_index;
} oak_mesh_data;

oak_result oak_make_mesh(oak_mesh *out, const oak_mesh_desc *desc);
oak_result oak_make_shape(oak_mesh *out, const oak_shape_desc *desc);
/* Vertices oak_make_shape makes for desc (checked against OAK_MAX_SHAPE_VERTICES,
 * and a scene file's shapes in all against OAK_MAX_SCENE_SHAPE_VERTICES). */
uint64_t oak_shape_vertex_bound(const oak_shape_desc *desc);
oak_result oak_mesh_update(oak_mesh mesh, const oak_mesh_desc *desc); /* new contents */
/* Replaces positions, normals and tangents in place (vertex_count must be the
 * mesh's; a NULL stream is kept), recomputes the bounds and moves the version
 * on. The positions it replaces become prev_positions (prev_version the
 * version they had), so motion vectors see last frame's pose (the first
 * update allocates that array once; with positions NULL it equals the
 * positions). For streams posed every frame (skinning, morphing): no heap
 * calls after the first.
 * Distinct meshes may be updated from several threads at once (job
 * workers), while no thread makes or destroys assets. */
oak_result oak_mesh_update_vertices(oak_mesh mesh, uint32_t vertex_count, const float *positions,
                                    const float *normals, const float *tangents);
/* Poses a skinned mesh by its joints instead of by its vertices (docs/
 * ARCHITECTURE.md "Skinning on the GPU"): `rows` holds joint_count 3 x 4
 * row-major matrices (12 floats each) taking the rest pose to this pose in
 * mesh space. The mesh must have joints and weights, each vertex's 4
 * weights >= 0 summing to 1 within 1e-3 and naming joints below
 * joint_count; checked on the first update
 * (and when joint_count changes), which allocates once. Later updates make
 * no heap calls: the latest palette becomes the previous one (motion
 * vectors), the bounds are the positions' as skinned (positions only,
 * nothing written) and pose_version moves on; version does not, so no
 * backend uploads the vertices again. Distinct meshes may be updated from
 * several threads. */
oak_result oak_mesh_update_palette(oak_mesh mesh, uint32_t joint_count, const float *rows);
/* oak_mesh_update_palette with morph weights: a mesh with morph targets
 * (target_count) is morphed by `weights` (weight_count = target_count;
 * NULL: all 0) before it is skinned, rest + w x delta target by target
 * (asset/pose_rows.h), and a second set of joints (joints1) adds its 4
 * weighed rows after the first 4; the weights, 8 a vertex, sum to 1. The
 * weights become the previous ones on the next update, as the palette. A
 * mesh morphed only is posed by one joint whose rows are the identity. */
oak_result oak_mesh_update_pose(oak_mesh mesh, uint32_t joint_count, const float *rows,
                                uint32_t weight_count, const float *weights);
/* Positions (xyz, vertex_count of them) of a mesh as every backend draws
 * it: morphed and skinned by its palette (prev: the previous one) when it has one, else
 * its positions (prev: prev_positions where it has them). Returns the count
 * written (at most capacity); 0 for a stale handle. */
uint32_t oak_mesh_posed_positions(oak_mesh mesh, bool prev, float *xyz, uint32_t capacity);
void oak_destroy_mesh(oak_mesh mesh);
const oak_mesh_data *oak_mesh_get(oak_mesh mesh); /* NULL for a stale handle */
/* The mesh's meshlets, cut on the first call and kept until the mesh
   changes; *out NULL and one line for a stale handle. */
oak_result oak_mesh_meshlets(oak_mesh mesh, const oak_meshlets **out);
/* A mesh drawn by cluster LOD: desc's triangles (at least
   OAK_CLOD_MIN_TRIANGLES, else a plain mesh) built into a DAG
   (oak_build_clod) whose levels become the mesh's index list and whose
   clusters become its meshlets. A backend that culls by meshlets draws the
   cut; the others draw the finest level. */
oak_result oak_make_clod_mesh(oak_mesh *out, const oak_mesh_desc *desc);
void oak_mesh_set_source(oak_mesh mesh, const char *path, uint32_t index);

/* ---- textures --------------------------------------------------------- */

typedef enum oak_format {
    OAK_FORMAT_DEFAULT = 0, /* resolves to OAK_FORMAT_RGBA8_SRGB */
    OAK_FORMAT_RGBA8_SRGB,  /* colour: base colour, emissive */
    OAK_FORMAT_RGBA8,       /* data: normals, metal-rough, occlusion */
    OAK_FORMAT_RGBA32F,     /* HDR */
} oak_format;

typedef enum oak_wrap {
    OAK_WRAP_DEFAULT = 0, /* resolves to OAK_WRAP_REPEAT */
    OAK_WRAP_REPEAT,
    OAK_WRAP_CLAMP,
    OAK_WRAP_MIRROR,
} oak_wrap;

typedef enum oak_filter {
    OAK_FILTER_DEFAULT = 0, /* resolves to OAK_FILTER_LINEAR */
    OAK_FILTER_NEAREST,
    OAK_FILTER_LINEAR,
} oak_filter;

typedef struct oak_sampler {
    oak_wrap wrap_u, wrap_v;
    oak_filter mag, min;
    oak_filter mip; /* DEFAULT: LINEAR (trilinear) */
} oak_sampler;

typedef struct oak_texture_desc {
    uint32_t width, height;
    oak_format format;
    const void *pixels; /* level 0, tightly packed rows */
    bool no_mips;       /* default: the full chain is generated */
    const char *name;
    /* Levels 1 .. mip_count-1 made earlier (a baked cache), packed one after
     * another as oak_texture_data holds them; when mip_count is the full
     * chain's length they are copied instead of generated. 0: generate. */
    uint32_t mip_count;
    const void *mip_chain;
    /* > 0: the alpha test's cutoff (a MASK material's alpha_cutoff) the
     * texture is made for; each generated level's alpha is then scaled so
     * the share of texels at or over it is level 0's (coverage-preserving
     * mips, after Castano), so cut-out foliage keeps its coverage far away.
     * 0: plain box-filtered alpha. */
    float coverage_cutoff;
    /* An atlas of [0] x [1] equal cells (dividing the size) keeps each
     * cell's own coverage while its cells are whole texels; 0: one cell. */
    uint32_t coverage_cells[2];
} oak_texture_desc;

/* Every level is stored; level i is max(1, w >> i) x max(1, h >> i). */
typedef struct oak_texture_data {
    uint32_t width, height, mip_count;
    oak_format format;
    uint32_t bytes_per_pixel;
    void *mips[OAK_MAX_MIPS];
    uint32_t mip_width[OAK_MAX_MIPS], mip_height[OAK_MAX_MIPS];
    uint32_t version;
    char *name; /* path or oak:// name it was loaded from */
} oak_texture_data;

oak_result oak_make_texture(oak_texture *out, const oak_texture_desc *desc);
/* Loads a PNG, JPEG or HDR file (oak_image_load), or a painted image by name
 * ("oak://checker", "oak://noise", "oak://ground", "oak://white"). The same
 * path and format give the same handle while it lives. */
oak_result oak_load_texture(oak_texture *out, const char *path, oak_format format);
void oak_destroy_texture(oak_texture texture);
const oak_texture_data *oak_texture_get(oak_texture texture);

/* Decodes an image file to RGBA8 (or RGBA32F for Radiance HDR); free with
 * oak_free. The format is chosen by signature: PNG, JPEG and HDR only; the
 * size is held to OAK_MAX_TEXTURE_SIZE and OAK_MAX_IMAGE_BYTES before
 * anything is decoded (docs/INPUT.md). */
oak_result oak_image_load(const char *path, uint32_t *width, uint32_t *height, bool *is_float,
                          void **pixels);
/* The same from memory; name is used in messages. */
oak_result oak_image_load_memory(uint32_t *width, uint32_t *height, bool *is_float, void **pixels,
                                 const void *data, size_t size, const char *name);
/* Writes RGBA8 as PNG. */
oak_result oak_image_write_png(const char *path, uint32_t width, uint32_t height,
                               const uint8_t *rgba);

/* Painted images: paint fills width*height RGBA8 texels. Built-ins are
 * "checker", "noise" and "ground"; users may register more. */
typedef void (*oak_paint_fn)(uint8_t *rgba, uint32_t width, uint32_t height, void *user);
oak_result oak_register_painter(const char *name, uint32_t width, uint32_t height,
                                oak_paint_fn paint, void *user);

/* ---- materials -------------------------------------------------------- */

typedef enum oak_alpha_mode {
    OAK_ALPHA_DEFAULT = 0, /* resolves to OAK_ALPHA_OPAQUE */
    OAK_ALPHA_OPAQUE,
    OAK_ALPHA_MASK, /* discarded below alpha_cutoff */
    OAK_ALPHA_BLEND,
} oak_alpha_mode;

typedef struct oak_texture_ref {
    oak_texture texture; /* id 0: none */
    oak_sampler sampler;
    uint32_t uv_set;                     /* 0 or 1 */
    float offset[2], rotation, scale[2]; /* KHR_texture_transform; scale 0: 1 */
} oak_texture_ref;

/* Material tricks (docs/SHADING.md "Material tricks"), any material, all
 * zero: off (glTF and OBJ materials keep them off). Under triplanar or
 * breakup every slot reads through the same mapping (uv set 0, or the
 * world planes), each slot's own transform still applied. */
typedef struct oak_material_fx {
    float triplanar;           /* metres per texture repeat on the 3 world planes; 0: the uv */
    float triplanar_sharpness; /* the planes' blend exponent on |normal|; 0: 4 */
    float breakup;             /* hex-tile breakup: triangle-grid cells per repeat; 0: off */
    float breakup_rotation;    /* largest turn of a cell's copy, radians (0: none) */
    float variation;           /* albedo times 1 +- this over world patches; 0: off */
    float variation_scale;     /* metres across a patch; 0: 8 */
    float detail;              /* detail layer: its repeats per base repeat; 0: off */
    float detail_distance;     /* metres from the eye where it has faded out; 0: 10 */
} oak_material_fx;

/* The lobes' textures (oak_material_lobes.tex), each scaling its factor by
 * the channel glTF names (the film's thickness: mixing its range); the
 * colour ones are sRGB, the rest data (linear). The coat's normal map
 * gives the coat its own normal (the base keeps normal_tex's). */
typedef enum oak_lobe_tex {
    OAK_LOBE_TEX_CLEARCOAT = 0,              /* R x clearcoat */
    OAK_LOBE_TEX_CLEARCOAT_ROUGHNESS,        /* G x clearcoat_roughness */
    OAK_LOBE_TEX_SHEEN_COLOR,                /* RGB (sRGB) x sheen_color */
    OAK_LOBE_TEX_SHEEN_ROUGHNESS,            /* A x sheen_roughness */
    OAK_LOBE_TEX_TRANSMISSION,               /* R x transmission */
    OAK_LOBE_TEX_THICKNESS,                  /* G x thickness */
    OAK_LOBE_TEX_DIFFUSE_TRANSMISSION,       /* A x diffuse_transmission */
    OAK_LOBE_TEX_DIFFUSE_TRANSMISSION_COLOR, /* RGB (sRGB) x diffuse_transmission_color */
    OAK_LOBE_TEX_IRIDESCENCE,                /* R x iridescence */
    OAK_LOBE_TEX_IRIDESCENCE_THICKNESS,      /* G: from iridescence_thickness_min (0) to
                                                iridescence_thickness (1) */
    OAK_LOBE_TEX_SPECULAR,                   /* A x specular_factor (with specular) */
    OAK_LOBE_TEX_SPECULAR_COLOR,             /* RGB (sRGB) x specular_color (with specular) */
    OAK_LOBE_TEX_ANISOTROPY,                 /* RG: direction (x 2 - 1, tangent space) turned by
                                                anisotropy_rotation; B x anisotropy */
    OAK_LOBE_TEX_CLEARCOAT_NORMAL,           /* RGB: the coat's normal (x 2 - 1, tangent space,
                                                xy x clearcoat_normal_scale) on the
                                                interpolated normal */
    OAK_LOBE_TEX_COUNT
} oak_lobe_tex;

/* A material's lobe textures may name at most this many distinct (texture,
 * sampler, uv set, transform) refs; refs that are equal share one (glTF
 * packs clearcoat and its roughness, or transmission and thickness, into
 * one image). The GPU record holds that many (docs/SHADING.md "Lobes"). */
#define OAK_LOBE_TEX_DISTINCT 4

/* The glTF material extensions' lobes (docs/SHADING.md "Lobes"), all zero:
 * off, the metallic-roughness material alone. */
typedef struct oak_material_lobes {
    float ior;               /* KHR_materials_ior, >= 1; 0: 1.5 (a dielectric F0 of 0.04) */
    bool specular;           /* KHR_materials_specular given: the two below apply */
    float specular_factor;   /* [0, 1]: scales the dielectric F0 and its F90 (glTF: 1) */
    float specular_color[3]; /* >= 0: tints the dielectric F0 (glTF: white) */
    float clearcoat;         /* KHR_materials_clearcoat: the coat's weight [0, 1]; 0: none */
    float clearcoat_roughness;
    float clearcoat_normal_scale; /* the coat's normal map's xy scale; 0: 1 (glTF's) */
    float sheen_color[3];         /* KHR_materials_sheen, linear [0, 1]; black: no sheen */
    float sheen_roughness;        /* [0, 1] */
    /* KHR_materials_anisotropy: strength [0, 1] (0: none) stretches the GGX
       lobe along the direction `anisotropy_rotation` radians
       counter-clockwise from the tangent, in the tangent plane */
    float anisotropy;
    float anisotropy_rotation;
    /* KHR_materials_iridescence: a thin film over the base, factor [0, 1]
       (0: none), its ior (0: glTF's 1.3) and thickness in nanometres (0:
       glTF's 400; with no thickness texture glTF takes its maximum, with
       one it is the texture's white) */
    float iridescence;
    float iridescence_ior;
    float iridescence_thickness;
    /* the film's thickness (nm) where its thickness texture is black (glTF's
       thicknessMinimum: 100 from glTF; taken as given, 0 included) */
    float iridescence_thickness_min;
    /* KHR_materials_diffuse_transmission: the share of the diffuse lobe
       that passes through a thin surface, [0, 1] (0: none), and the colour
       it takes (linear [0, 1]; glTF: white) */
    float diffuse_transmission;
    float diffuse_transmission_color[3];
    /* KHR_materials_transmission: the share of the light that passes
       through the surface, refracted, [0, 1] (0: none). A transmissive
       material draws in the forward (BLEND) pass, over the opaque frame's
       copy (docs/SHADING.md "Transmission") */
    float transmission;
    /* KHR_materials_volume: the volume's thickness in the mesh's units (0:
       thin-walled, no offset), its attenuation colour (linear [0, 1]; all
       0: white) and distance (0: none, glTF's infinity) */
    float thickness;
    float attenuation_color[3];
    float attenuation_distance;
    /* KHR_materials_dispersion: 20 / the Abbe number (0: none) */
    float dispersion;
    /* the lobes' textures by oak_lobe_tex (id 0: none); a texture scales
       its factor, so a lobe whose factor is 0 stays off */
    oak_texture_ref tex[OAK_LOBE_TEX_COUNT];
} oak_material_lobes;

/* Metallic-roughness PBR as glTF defines it. Factors are taken as given, so
 * start from oak_material_desc_defaults(NULL) (white, metallic 1, rough 1 as
 * glTF) rather than from zero; enums and scales resolve zero to defaults. */
typedef struct oak_material_desc {
    float base_color[4]; /* linear rgba */
    float metallic, roughness;
    float emissive[3];        /* linear */
    float emissive_strength;  /* 0: 1 */
    float normal_scale;       /* 0: 1 */
    float occlusion_strength; /* 0: 1 */
    oak_alpha_mode alpha_mode;
    float alpha_cutoff; /* 0: 0.5 */
    bool double_sided;
    bool unlit;
    /* shaded as water (docs/SHADING.md "Water"): Schlick Fresnel (n = 1.33)
       weighs the sky's reflection and the key light's glitter over the frame
       behind, and the tangent stream's w is the crest foam [0, 1] */
    bool water;
    /* BLEND only: adds the surface's light times its alpha to what lies
       behind instead of blending "over" (flames, sparks; docs/SHADING.md
       "Transparent (BLEND) surfaces"); no order is needed */
    bool additive;
    /* BLEND only: soft particles. Metres of view depth over which the
       surface fades in from the opaque surface behind it: its alpha times
       saturate((scene depth - its depth) / softness); 0: a hard line */
    float softness;
    oak_texture_ref base_color_tex, metallic_roughness_tex, normal_tex, occlusion_tex, emissive_tex;
    const char *name;
    oak_material_fx fx;       /* triplanar, tile breakup, variation, detail */
    oak_material_lobes lobes; /* ior, specular, clearcoat, sheen */
} oak_material_desc;

typedef struct oak_material_data {
    oak_material_desc desc; /* resolved; desc.name points at name below */
    uint32_t version;
    char *name;
} oak_material_data;

oak_material_desc oak_material_desc_defaults(const oak_material_desc *desc);
/* The dielectric part's Fresnel at normal incidence (f0) and at grazing
 * (the return value) from ior and specular, as every backend shades them;
 * 0.04 and 1 without either extension. */
float oak_material_dielectric_f0(const oak_material_desc *desc, float f0[3]);
/* The dielectric's reflectance from ior alone, ((ior - 1) / (ior + 1))^2
 * (exactly 0.04 at ior 0 or 1.5), which specular scales. */
float oak_material_ior_f0(const oak_material_desc *desc);
/* The distinct refs among desc's lobe textures (at most
 * OAK_LOBE_TEX_DISTINCT in a made material), in oak_lobe_tex order of first
 * use: slot[k] is lobe texture k's place among them, -1 when it has none.
 * Returns how many there are. */
uint32_t oak_material_lobe_slots(const oak_material_desc *desc, int slot[OAK_LOBE_TEX_COUNT]);
oak_result oak_make_material(oak_material *out, const oak_material_desc *desc);
oak_result oak_material_update(oak_material material, const oak_material_desc *desc);
void oak_destroy_material(oak_material material);
const oak_material_data *oak_material_get(oak_material material);

/* ---- models (what file loaders return) -------------------------------- */

/* A loaded file's parts: one mesh per (object, material) group. Handles are
 * owned by the registry; oak_model_release frees the arrays only. */
typedef struct oak_model {
    uint32_t mesh_count;
    oak_mesh *meshes;
    oak_material *mesh_materials; /* per mesh */
    uint32_t material_count;
    oak_material *materials;
    oak_bounds bounds;
} oak_model;

/* Wavefront OBJ with its MTL files: positions, normals, UVs, faces of any
 * size (fan-triangulated), negative indices, map_Kd/map_Ks/map_Bump/map_d,
 * Kd/Ke/d/Ns/Pr/Pm. A missing MTL or texture is a warning, not a failure. */
oak_result oak_load_obj(oak_model *out, const char *path);
typedef struct oak_obj_desc {
    /* Folder that mtllib and map_* paths must stay in, symbolic links and
       ".." resolved (NULL: the OBJ's own folder). An mtllib outside it is an
       error; a texture outside it is left out with a warning. */
    const char *asset_root;
} oak_obj_desc;
oak_result oak_load_obj_with(oak_model *out, const char *path, const oak_obj_desc *desc);
void oak_model_release(oak_model *model);

/* Iteration over live assets, for backends that mirror the registry. */
uint32_t oak_mesh_slots(void);            /* slot bound */
oak_mesh oak_mesh_at_slot(uint32_t slot); /* id 0 if the slot is free */

#ifdef __cplusplus
}
#endif
#endif
