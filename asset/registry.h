/* Private to the asset layer: the registry's three pools, created on first
 * use and freed by oak_shutdown, plus the version counter every change bumps
 * and the mesh stream helpers the loaders share. */
#ifndef OAK_ASSET_REGISTRY_H
#define OAK_ASSET_REGISTRY_H

#include <stdatomic.h>
#include <oak/asset.h>

/* A texture slot: the public data first, so a pointer to the slot is a
   pointer to the oak_texture_data handed out by oak_texture_get. */
typedef struct _oak_texture_slot {
    oak_texture_data data;
    uint64_t cache_key; /* (path, format) key in the cache, 0 if not cached */
} _oak_texture_slot;

typedef struct _oak_registry {
    oak_pool meshes;    /* oak_mesh_data */
    oak_pool textures;  /* _oak_texture_slot */
    oak_pool materials; /* oak_material_data */
    oak_map texture_cache;
    atomic_uint version; /* last version handed out (atomic: _oak_next_version) */
} _oak_registry;

/* Creates the pools on first use; NULL when they cannot be made (logged). */
_oak_registry *_oak_registry_get(void);
/* The registry if it exists, without creating it (for lookups). */
_oak_registry *_oak_registry_peek(void);
/* A version no asset has had before, so a slot reused after destroy never
   repeats its predecessor's version. */
uint32_t _oak_next_version(void);

/* Freed by the registry's shutdown hook; each file that keeps state of its
   own (painters) frees it here. */
void _oak_paint_shutdown(void);

void _oak_mesh_data_free(oak_mesh_data *m);
void _oak_texture_data_free(oak_texture_data *t);
void _oak_material_data_free(oak_material_data *m);

/* Fills a mesh from a desc: copies and validates the streams, generates what
   is missing and the bounds. On failure m is left empty. */
oak_result _oak_mesh_data_build(oak_mesh_data *m, const oak_mesh_desc *desc);

/* Meshlets kept with a mesh (asset/meshlets.c): dropped with its data; a
   model cache's handed over (copied) to the mesh made from its primitive. */
void _oak_mesh_drop_meshlets(oak_mesh_data *m);
oak_result _oak_mesh_adopt_meshlets(oak_mesh mesh, const oak_meshlets *src);

/* The input checks oak_build_meshlets and oak_build_clod share (asset/
   meshlets.c), each error one line opened by `who`: out and positions given
   (else nothing is touched), then out (out_size bytes) zeroed, the triangles
   whole and every index below vertex_count. *n: the index count
   (vertex_count without indices); OAK_OK with *n 0 is nothing to build. */
oak_result _oak_triangles_check(const char *who, void *out, size_t out_size, const float *positions,
                                uint32_t vertex_count, const uint32_t *indices,
                                uint32_t index_count, uint32_t *n);

/* Painted images: looks a painter up by name (built-ins included) and paints
   it into a fresh oak_alloc'd RGBA8 buffer. OAK_ERROR_NOT_FOUND if unknown. */
oak_result _oak_paint(const char *name, uint32_t *width, uint32_t *height, uint8_t **rgba);

#endif
