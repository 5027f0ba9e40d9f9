/* Private state of one glTF load: the JSON tree, resolved buffers and views,
 * and the checked accessor reader every part of the loader goes through.
 * All results live in the model's arena; scratch dies with the load. */
#ifndef OAK_GLTF_INTERNAL_H
#define OAK_GLTF_INTERNAL_H

#include <stdio.h>

#include <cjson/cJSON.h>
#include <oak/gltf.h>

/* JSON paths go into fixed buffers for messages; a path cut short in a
 * message is harmless, so the truncation warning is off for the loader. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

/* What oak_gltf.internal_ points at: the arena first, so it casts to one. */
typedef struct _oak_gltf_mem {
    oak_arena arena;
    void *owned;  /* a cache's bytes, which its arrays point into ... */
    void *mapped; /* ... or the cache file mapped */
    size_t mapped_size;
} _oak_gltf_mem;

typedef struct gltf_buffer {
    const uint8_t *data; /* NULL: the buffer has no data (reading it fails) */
    size_t size;         /* the declared byteLength (data holds at least this) */
} gltf_buffer;

typedef struct gltf_view {
    uint32_t buffer;
    size_t offset, length;
    uint32_t stride;        /* 0: tightly packed */
    const uint8_t *decoded; /* EXT_meshopt_compression: the view's bytes, decoded (length long) */
} gltf_view;

/* What one load may decode in all (arrays in the model and scratch), so a
 * small file whose accessors are referenced many times cannot ask for
 * unbounded memory; past it the load fails with OAK_ERROR_LIMIT. */
#define GLTF_MAX_DECODED_BYTES ((size_t)2 << 30)
/* Elements of an accessor with no bufferView (zeros plus sparse values). */
#define GLTF_MAX_VIEWLESS_ELEMENTS (1u << 22)

typedef struct gltf_ctx {
    const char *file; /* for messages */
    const char *base; /* for relative URIs; NULL refuses external files */
    const oak_gltf_desc *desc;
    cJSON *root;
    oak_arena *arena;  /* the model's memory */
    oak_arena scratch; /* freed when the load ends */
    oak_gltf *g;
    const uint8_t *glb_bin;
    size_t glb_bin_size;
    bool has_glb_bin;
    uint32_t buffer_count, view_count, accessor_count;
    gltf_buffer *buffers;
    gltf_view *views;
    const cJSON *accessors;
    size_t decoded;         /* bytes taken through _oak_gltf_alloc and _oak_gltf_scratch */
    uint8_t *light_skipped; /* per light: a type oak does not know (nodes drop it) */
    struct _oak_specgloss *specgloss; /* per material, or NULL (gltf_specgloss.c) */
    /* per accessor: values decoded from a KHR_draco_mesh_compression stream,
       read in place of the accessor's own (NULL: none decoded) */
    struct gltf_decoded {
        double *v;
        uint32_t count, comps;
    } * draco;
} gltf_ctx;

/* KHR_draco_mesh_compression on a primitive (its extension object dr):
   decodes the stream and sets the decoded values of the accessors its
   attributes and indices name. */
oak_result _oak_gltf_draco_primitive(gltf_ctx *c, const cJSON *prim, const char *ppath,
                                     const cJSON *dr);
/* The component count an accessor's type gives (0: bad type or index). */
uint32_t _oak_gltf_accessor_comps(gltf_ctx *c, uint32_t accessor);

/* EXT_meshopt_compression on a bufferView (its extension object mo): the
   compressed bytes decoded into scratch and set as the view's bytes. */
oak_result _oak_gltf_meshopt_view(gltf_ctx *c, const cJSON *mo, const char *path, gltf_view *v);

/* A forgiving rule's one-line warning (docs/GLTF.md "Forgiving rules"),
   counted in oak_gltf.warning_count. */
void _oak_gltf_warn(gltf_ctx *c, const char *fmt, ...) OAK_PRINTF(2, 3);
/* KHR_materials_pbrSpecularGlossiness as read, per material, for the
   conversion to metallic-roughness (gltf_specgloss.c). */
typedef struct _oak_specgloss {
    bool used;
    float diffuse[4], specular[3], glossiness;
    int32_t diffuse_image, sg_image; /* -1: none */
    oak_texture_ref diffuse_ref, sg_ref;
} _oak_specgloss;
void _oak_specgloss_convert(const float diffuse[3], const float specular[3], float glossiness,
                            float base[3], float *metallic, float *roughness);
/* The factors into the material now; the textures after images decode. */
void _oak_specgloss_factors(oak_gltf_material *gm, const _oak_specgloss *sg);
oak_result _oak_specgloss_bake(gltf_ctx *c);
/* A glTF texture as the file's textures array names it: its image and sampler. */
typedef struct tex_info {
    int32_t image;
    oak_sampler sampler;
} tex_info;
/* A material's textureInfo `key` of object mat (path mpath) into ref and its
   image index (-1: none); scale_key's float (normal scale, occlusion
   strength) into scale_out when given (gltf_load.c). */
oak_result _oak_gltf_tex_ref(gltf_ctx *c, const cJSON *mat, const char *mpath, const char *key,
                             const tex_info *tex, oak_texture_ref *ref, int32_t *image,
                             float *scale_out, const char *scale_key);
/* KHR_materials_ior, _specular, _clearcoat, _sheen, ... from a material's
   extensions object into gm->desc.lobes, the textures oak reads into
   gm->lobe_image (gltf_lobes.c). */
oak_result _oak_gltf_load_lobes(gltf_ctx *c, const cJSON *ext, const char *path,
                                const tex_info *tex, oak_gltf_material *gm);
/* KHR_materials_variants: the file's list (before meshes), and a
   primitive's mappings from its extensions object (gltf_variants.c). */
oak_result _oak_gltf_load_variants(gltf_ctx *c);
/* MSFT_lod on nodes, after the nodes and the scene's roots (gltf_lod.c). */
oak_result _oak_gltf_load_lods(gltf_ctx *c);
oak_result _oak_gltf_primitive_variants(gltf_ctx *c, const cJSON *ext, const char *ppath,
                                        oak_gltf_primitive *p);
/* A KHR_animation_pointer pointer oak animates: its path, the index in it
   and the length of the array that index must stay below; false for any
   other pointer (gltf_pointer.c). */
bool _oak_gltf_pointer(const char *ptr, const oak_gltf *g, oak_anim_path *path, uint32_t *index,
                       uint32_t *count);
/* *v clamped into [lo, hi], with a warning naming path.key when it moved. */
void _oak_gltf_clamp(gltf_ctx *c, const char *path, const char *key, float *v, float lo, float hi);

/* Memory. */
void *_oak_gltf_alloc(gltf_ctx *c, size_t size);   /* zeroed, in the model arena */
void *_oak_gltf_scratch(gltf_ctx *c, size_t size); /* zeroed, freed at load end */
char *_oak_gltf_strdup(gltf_ctx *c, const char *s);
oak_result _oak_gltf_oom(gltf_ctx *c);
/* Takes size bytes from the load's decode budget; false when it would pass it. */
bool _oak_gltf_budget(gltf_ctx *c, size_t size);

/* Checked JSON access. path names the object ("nodes[3]"); a member of the
 * wrong type is a parse error naming path.key. Absent members give def. */
oak_result _oak_gltf_uint(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                          bool required, uint32_t def, uint32_t *out);
/* An index member checked against limit ("meshes" etc. names the array); -1 if absent. */
oak_result _oak_gltf_index(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                           uint32_t limit, const char *array, int32_t *out);
oak_result _oak_gltf_float(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                           float def, float *out);
oak_result _oak_gltf_floats(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                            uint32_t n, float *out); /* untouched if absent */
oak_result _oak_gltf_bool(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                          bool *out);
oak_result _oak_gltf_string(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                            const char **out); /* NULL if absent */
oak_result _oak_gltf_array(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                           const cJSON **out, uint32_t *count); /* NULL/0 if absent */
oak_result _oak_gltf_object(gltf_ctx *c, const cJSON *obj, const char *path, const char *key,
                            const cJSON **out); /* NULL if absent */

/* Buffers from .glb, data: URIs or files; then views. */
oak_result _oak_gltf_load_buffers(gltf_ctx *c);
/* Bytes of a whole buffer view (images). */
oak_result _oak_gltf_view_bytes(gltf_ctx *c, uint32_t view, const char *path, const uint8_t **data,
                                size_t *size);
/* FBX, Collada, OBJ... through libassimp (assimp_load.c): whether a file
   name is one it opens, and the parse into c->g, validated. */
bool _oak_assimp_handles(const char *name);
oak_result _oak_assimp_parse(gltf_ctx *c, const uint8_t *data, size_t size);
/* The parse in a child process, returned as .oakm bytes (oak_alloc'd) the
   caller loads as a cache; true in that child. */
oak_result _oak_assimp_to_cache(const char *name, const void *data, size_t size,
                                const oak_gltf_desc *desc, void **out, size_t *out_size);
bool _oak_assimp_in_child(void);
/* One image's encoded bytes (NULL: not decoded) and its place for messages. */
typedef struct _oak_gltf_image_src {
    const uint8_t *bytes;
    size_t size;
    char path[64];
} _oak_gltf_image_src;
/* Probes, checks and decodes n sources into g->images[0..n) (gltf_image.c). */
oak_result _oak_gltf_decode_images(gltf_ctx *c, const _oak_gltf_image_src *src, uint32_t n);
/* Bytes of a URI (data: or a file), in scratch. */
oak_result _oak_gltf_uri_bytes(gltf_ctx *c, const char *uri, const char *path, const uint8_t **data,
                               size_t *size);

/* Accessors. Allowed component counts are a bit mask (1 << comps) so callers
 * state what they take; the error names the accessor and where it was used. */
#define GLTF_COMPS(n) (1u << (n))
oak_result _oak_gltf_read_floats(gltf_ctx *c, uint32_t accessor, const char *where,
                                 uint32_t comps_allowed, float **out, uint32_t *count,
                                 uint32_t *comps);
/* Integer accessors (indices, joints): unsigned component types only. */
oak_result _oak_gltf_read_uints(gltf_ctx *c, uint32_t accessor, const char *where,
                                uint32_t comps_allowed, uint32_t **out, uint32_t *count,
                                uint32_t *comps);

/* Meshes: attributes, targets, triangulation, flat normals. */
oak_result _oak_gltf_load_meshes(gltf_ctx *c);
/* Images decoded on the job pool. */
oak_result _oak_gltf_load_images(gltf_ctx *c);
/* Registry assets from the parsed model; frees nothing on failure (the
 * caller's oak_gltf_free does). */
oak_result _oak_gltf_make_assets(oak_gltf *g);
void _oak_gltf_destroy_assets(oak_gltf *g);
/* Model-level bounds and the rest-pose world matrices. */
oak_result _oak_gltf_finish_bounds(oak_gltf *g);
/* The structural rules every model obeys, parsed or read from a cache
   (gltf_validate.c): OAK_ERROR_PARSE naming the file and the place. */
oak_result _oak_gltf_validate(const oak_gltf *g, const char *file);

/* The .oakm reader, called by oak_gltf_load_memory on the magic. */
#define OAK_OAKM_MAGIC "OAKMODEL"
oak_result _oak_oakm_read(oak_gltf *g, oak_arena *arena, uint8_t *data, size_t size,
                          const char *file);

#endif
