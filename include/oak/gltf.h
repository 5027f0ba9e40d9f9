/* oak glTF 2.0: the loaded file as oak sees it (engine assets plus the
 * glTF-side description of nodes, skins, clips, cameras, lights and extras),
 * pure animation sampling, and the baked .oakm cache of the same thing. */
#ifndef OAK_GLTF_H
#define OAK_GLTF_H

#include "asset.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- animation sampling (pure functions) ------------------------------- */

typedef enum oak_interp {
    OAK_INTERP_DEFAULT = 0, /* resolves to OAK_INTERP_LINEAR, as glTF */
    OAK_INTERP_STEP,
    OAK_INTERP_LINEAR,      /* slerp for rotations */
    OAK_INTERP_CUBICSPLINE, /* Hermite with per-key in/out tangents */
} oak_interp;

typedef enum oak_anim_path {
    OAK_ANIM_PATH_DEFAULT = 0, /* resolves to OAK_ANIM_PATH_TRANSLATION */
    OAK_ANIM_PATH_TRANSLATION,
    OAK_ANIM_PATH_ROTATION, /* quaternion x, y, z, w */
    OAK_ANIM_PATH_SCALE,
    OAK_ANIM_PATH_WEIGHTS, /* morph target weights */
    /* KHR_animation_pointer's targets beyond a node's transform and weights
       (docs/GLTF.md lists the JSON pointers each one stands for) */
    OAK_ANIM_PATH_VISIBLE, /* KHR_node_visibility: 0 hidden, else shown (STEP) */
    OAK_ANIM_PATH_BASE_COLOR,
    OAK_ANIM_PATH_METALLIC,
    OAK_ANIM_PATH_ROUGHNESS,
    OAK_ANIM_PATH_EMISSIVE,
    OAK_ANIM_PATH_EMISSIVE_STRENGTH,
    OAK_ANIM_PATH_ALPHA_CUTOFF,
    OAK_ANIM_PATH_NORMAL_SCALE,
    OAK_ANIM_PATH_OCCLUSION_STRENGTH,
    OAK_ANIM_PATH_LIGHT_COLOR,
    OAK_ANIM_PATH_LIGHT_INTENSITY,
    OAK_ANIM_PATH_LIGHT_RANGE,
    OAK_ANIM_PATH_LIGHT_INNER_CONE,
    OAK_ANIM_PATH_LIGHT_OUTER_CONE,
    OAK_ANIM_PATH_CAMERA_YFOV,
    OAK_ANIM_PATH_CAMERA_ASPECT,
    OAK_ANIM_PATH_CAMERA_XMAG,
    OAK_ANIM_PATH_CAMERA_YMAG,
    OAK_ANIM_PATH_CAMERA_ZNEAR,
    OAK_ANIM_PATH_CAMERA_ZFAR,
    OAK_ANIM_PATH_COUNT
} oak_anim_path;

/* What a path's channel animates: its `node` field indexes that array. */
typedef enum oak_anim_target {
    OAK_ANIM_TARGET_NODE,
    OAK_ANIM_TARGET_MATERIAL,
    OAK_ANIM_TARGET_LIGHT,
    OAK_ANIM_TARGET_CAMERA,
} oak_anim_target;

/* The array a path indexes, and the floats one key holds (0 for
   OAK_ANIM_PATH_WEIGHTS: the node's morph weight count). */
oak_anim_target oak_anim_path_target(oak_anim_path path, uint32_t *width);
/* The JSON pointer's tail for a path (after "/nodes/N/" and so on), for
   messages and docs; "" for OAK_ANIM_PATH_DEFAULT or past the end. */
const char *oak_anim_path_name(oak_anim_path path);

/* Keyframes of one animated value of `width` floats. values holds
 * key_count * width floats, or for CUBICSPLINE key_count * 3 * width laid out
 * per key as (in-tangent, value, out-tangent) exactly as glTF stores them. */
typedef struct oak_anim_sampler {
    uint32_t key_count, width;
    const float *times; /* strictly increasing seconds */
    const float *values;
    oak_interp interp;
} oak_anim_sampler;

/* Writes the sampler's value at time t into out (width floats). Before the
 * first key it holds the first value, after the last the last value. With
 * rotation set (width 4) LINEAR takes the shorter slerp and every result is
 * normalized. Zero keys leave out untouched. */
void oak_anim_sample(float *out, const oak_anim_sampler *s, float t, bool rotation);

/* ---- the loaded file ---------------------------------------------------- */

typedef struct oak_gltf_channel {
    /* index into nodes, or into materials, lights or cameras for the paths
       oak_anim_path_target says aim there (KHR_animation_pointer) */
    uint32_t node, sampler;
    oak_anim_path path;
} oak_gltf_channel;

typedef struct oak_gltf_clip {
    char *name; /* never NULL; "" when unnamed */
    uint32_t channel_count, sampler_count;
    oak_gltf_channel *channels;
    oak_anim_sampler *samplers;
    float start, end; /* first and last key time over all samplers */
} oak_gltf_clip;

typedef struct oak_gltf_skin {
    char *name;
    uint32_t joint_count;
    uint32_t *joints;    /* node indices */
    float *inverse_bind; /* 16 floats per joint, column-major; identity if absent */
    int32_t skeleton;    /* node index or -1 */
} oak_gltf_skin;

/* Per-vertex deltas of one morph target; NULL streams are absent. */
typedef struct oak_gltf_target {
    float *positions, *normals, *tangents; /* xyz each */
} oak_gltf_target;

/* One primitive: CPU copies of its streams as read from the file (after
 * triangulation and, without normals, un-indexing with flat normals), the
 * registry mesh made from them, and what skinning and morphing need. */
typedef struct oak_gltf_primitive {
    oak_mesh mesh;    /* id 0 when skipped (points, lines) or not made */
    int32_t material; /* index into materials, -1: the default material */
    uint32_t mode;    /* glTF mode as in the file (4 triangles, ...) */
    uint32_t vertex_count, index_count;
    float *positions, *normals, *tangents, *uv0, *uv1, *colors;
    uint32_t *indices;
    uint32_t influence_count; /* joints/weights per vertex: 4 per JOINTS_n set */
    uint16_t *joints;
    float *weights;
    uint32_t max_joint; /* largest joint index used, for checking against a skin */
    uint32_t target_count;
    oak_gltf_target *targets;
    oak_bounds bounds; /* of positions, in mesh space */
    /* KHR_materials_variants: per variant of the file, the material index it
       gives this primitive (-1: `material`); NULL when none is mapped */
    int32_t *variant_material;
    /* a triangle primitive's meshlets as a model cache carries them (the
       cache's bytes; count 0: none, the mesh cuts its own on request) */
    oak_meshlets meshlets;
} oak_gltf_primitive;

typedef struct oak_gltf_mesh {
    char *name;
    uint32_t primitive_count;
    oak_gltf_primitive *primitives;
    uint32_t weight_count; /* default morph weights (target count of its primitives) */
    float *weights;
} oak_gltf_mesh;

#define OAK_GLTF_LOD_MAX 7 /* MSFT_lod levels below a node's own */

/* One placement of EXT_mesh_gpu_instancing: in the node's space. */
typedef struct oak_gltf_trs {
    float translation[3], rotation[4], scale[3]; /* rotation: unit quaternion x, y, z, w */
} oak_gltf_trs;

typedef struct oak_gltf_node {
    char *name;
    int32_t parent; /* -1 for roots */
    uint32_t child_count;
    uint32_t *children;
    int32_t mesh, skin, camera, light;           /* -1: none */
    float translation[3], rotation[4], scale[3]; /* a `matrix` is decomposed into these */
    uint32_t weight_count;
    float *weights; /* the node's morph weights, else the mesh's, else NULL */
    char *extras;   /* the node's "extras" as raw JSON text, NULL if none */
    /* KHR_node_visibility at rest: false hides it and every node below */
    bool visible;
    /* EXT_mesh_gpu_instancing: the node's mesh drawn once per placement
       (each in the node's space, under its own transform); 0 without */
    uint32_t instance_count;
    oak_gltf_trs *instances;
    /* MSFT_lod: the nodes standing for this one at lower detail, best first
       (each placed beside it, never drawn on its own), and from its extras'
       MSFT_screencoverage the smallest coverage of the view's height each
       level (this node's first) is drawn at, lod_count + 1 falling values
       (below the last nothing is drawn); none: this node's level alone */
    uint32_t lod_count;
    uint32_t *lod_nodes;
    uint32_t lod_coverage_count;
    float *lod_coverage;
} oak_gltf_node;

/* Cameras and lights as the file gives them (asset/ sits below render/, so
 * these are plain numbers; the scene side turns them into oak_camera and
 * oak_light components). */
typedef struct oak_gltf_camera {
    char *name;
    bool orthographic;
    float yfov, aspect; /* perspective: radians; aspect 0 when the file gives none */
    float xmag, ymag;   /* orthographic half extents */
    float znear, zfar;  /* zfar 0: infinite (perspective) */
} oak_gltf_camera;

typedef enum oak_gltf_light_type {
    OAK_GLTF_LIGHT_DIRECTIONAL = 0,
    OAK_GLTF_LIGHT_POINT,
    OAK_GLTF_LIGHT_SPOT,
} oak_gltf_light_type;

typedef struct oak_gltf_light { /* KHR_lights_punctual; cones in radians */
    char *name;
    oak_gltf_light_type type;
    float color[3], intensity, range; /* range 0: unlimited */
    float inner_cone, outer_cone;
} oak_gltf_light;

/* Material as read, with texture references by index into images so the
 * cache and tools can see them; materials[i] is the registry material. */
typedef struct oak_gltf_material {
    char *name;
    oak_material_desc desc; /* texture handles filled once assets exist */
    int32_t image[5];       /* base, metal-rough, normal, occlusion, emissive; -1 none */
    int32_t lobe_image[OAK_LOBE_TEX_COUNT]; /* desc.lobes.tex's (oak_lobe_tex); -1 none */
} oak_gltf_material;

typedef struct oak_gltf_image {
    char *name;
    uint32_t width, height;
    uint8_t *rgba; /* decoded RGBA8, NULL when the load skipped images */
    /* From a cache: the registry's levels 1.. as colour (sRGB) and as data,
     * packed, so textures are made without filtering again; else NULL. */
    uint32_t mip_count;
    uint8_t *srgb_chain, *data_chain;
} oak_gltf_image;

typedef struct oak_gltf {
    char *path;
    uint32_t node_count, mesh_count, material_count, image_count, texture_count;
    uint32_t skin_count, clip_count, camera_count, light_count, scene_count;
    oak_gltf_node *nodes;
    oak_gltf_mesh *meshes;
    oak_gltf_material *materials;
    oak_material *material_handles; /* per material; id 0 before assets exist */
    oak_material default_material;  /* for primitives without one */
    oak_gltf_image *images;
    oak_texture *image_textures; /* per image, as colour (sRGB) and as data */
    oak_texture *image_data_textures;
    oak_gltf_skin *skins;
    oak_gltf_clip *clips;
    oak_gltf_camera *cameras;
    oak_gltf_light *lights;
    uint32_t variant_count; /* KHR_materials_variants: the variants' names */
    char **variant_names;
    uint32_t root_count; /* roots of the default scene (or of every node) */
    uint32_t *roots;
    uint32_t primitive_count;
    /* warnings the forgiving rules gave while loading (docs/GLTF.md); not
       kept in an .oakm cache, which stores the model as it was read */
    uint32_t warning_count;
    oak_bounds bounds; /* of the default scene at rest, in model space */
    void *internal_;   /* owner of all the memory above */
} oak_gltf;

typedef struct oak_gltf_desc {
    bool no_assets; /* parse and validate only: no meshes, textures, materials */
    bool no_images; /* skip decoding images (textures left out) */
    /* Folder that external URIs must stay in, symbolic links and ".."
       resolved (NULL: the glTF file's own folder). */
    const char *asset_root;
} oak_gltf_desc;

/* Loads .gltf (external files, data: URIs) or .glb, or an .oakm made by
 * oak_gltf_bake. One line naming the file, the JSON path and the problem on
 * failure; nothing is left allocated then. */
oak_result oak_gltf_load(oak_gltf **out, const char *path, const oak_gltf_desc *desc);
/* Same from memory; name is used in messages and to resolve relative URIs
 * (NULL: external files are refused, as the fuzz target wants). */
oak_result oak_gltf_load_memory(oak_gltf **out, const void *data, size_t size, const char *name,
                                const oak_gltf_desc *desc);
/* Frees the description and destroys the assets it made. */
void oak_gltf_free(oak_gltf *gltf);

/* World matrix of node i in the rest pose (product of local transforms). */
void oak_gltf_node_world(const oak_gltf *gltf, uint32_t node, mat4 out);
/* The one-line summary `oak view --check` prints. */
void oak_gltf_summary(const oak_gltf *gltf, char *out, size_t size);

/* ---- the baked cache (.oakm) ------------------------------------------ */

#define OAK_OAKM_VERSION 11

/* Writes the loaded model (post-processed meshes with all streams, materials,
 * decoded images, nodes, skins, clips, cameras, lights) in oak's binary cache
 * format. oak_gltf_load reads it back when the file starts with the magic. */
oak_result oak_gltf_bake(const oak_gltf *gltf, const char *path);
/* The checksum a cache's header keeps of the bytes after the header. */
uint64_t oak_gltf_cache_checksum(const void *data, size_t size);

#ifdef __cplusplus
}
#endif
#endif
