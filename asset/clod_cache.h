/* The cluster-LOD DAG's disk cache (docs/ARCHITECTURE.md "Cluster LOD"):
 * private to the asset layer and its tests. */
#ifndef OAK_ASSET_CLOD_CACHE_H
#define OAK_ASSET_CLOD_CACHE_H

#include <oak/asset.h>

/* Bumped whenever the build's output changes for the same input (a new
   rule in clod.c, meshoptimizer's behaviour aside: its version is keyed) */
#define OAK_CLOD_CACHE_VERSION 1

/* Everything that determines a DAG: the build's own parameters, the
   library and layout it was made with, and the source (sizes and hashes
   of its bytes). A cache file holds its key, and loads only where the key
   is the build's bit for bit. All 4- and 8-byte fields, no padding. */
typedef struct _oak_clod_key {
    uint32_t version, min_triangles, group, max_levels, root_triangles;
    uint32_t meshlet_vertices, meshlet_triangles, meshopt_version, meshlet_bytes;
    float cone_weight, shrink;
    uint32_t vertex_count, index_count, has_indices;
    uint64_t positions_hash, indices_hash;
} _oak_clod_key;

/* The key of a build of this source (shrink: clod.c's CLOD_SHRINK). */
void _oak_clod_key_make(_oak_clod_key *k, float shrink, const float *positions,
                        uint32_t vertex_count, const uint32_t *indices, uint32_t index_count);

/* The cache's file for a key in _oak_cache_dir (core/cache_dir.c:
   $OAK_CACHE_DIR, else $XDG_CACHE_HOME/oak, else $HOME/.cache/oak), made
   on demand; false where there is no folder or OAK_CLOD_CACHE=off. */
bool _oak_clod_cache_path(const _oak_clod_key *k, char *out, size_t size);

typedef enum {
    OAK_CLOD_CACHE_OFF,  /* no folder: built */
    OAK_CLOD_CACHE_MISS, /* no file: built */
    OAK_CLOD_CACHE_HIT,  /* loaded */
    OAK_CLOD_CACHE_BAD   /* a broken, truncated or stale file: one warning, built */
} _oak_clod_cache_outcome;

/* Fills out from the key's file (HIT), else leaves it empty. */
_oak_clod_cache_outcome _oak_clod_cache_load(oak_clod *out, const _oak_clod_key *k,
                                             const char *path);
/* Writes the DAG under the key (a temporary file and a rename, so a crash
   never leaves half a file); false where it could not (info line). */
bool _oak_clod_cache_store(const oak_clod *c, const _oak_clod_key *k, const char *path);

/* What oak_build_clod's calls so far did, for tests (atomic counts). */
typedef struct _oak_clod_cache_stats {
    uint32_t off, miss, hit, bad, stored;
} _oak_clod_cache_stats;
void _oak_clod_cache_stats_get(_oak_clod_cache_stats *out);
void _oak_clod_cache_count(_oak_clod_cache_outcome o, bool stored);

#endif
