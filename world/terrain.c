/* The terrain system: which quadtree tiles to show around the eye (finer
 * near, coarser far, endless), the cache of built tiles with its per-update
 * build budget and LRU cap, the morph toward each tile's parent, the rebase
 * that keeps the scene near its origin, and the CPU height query. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "world/internal.h"
#include "world/terrain_internal.h"

#define NO_TILE 0xffffffffu

typedef struct tile {
    _oak_tile_key key;
    _oak_tile_build b;
    oak_entity entity;
    uint64_t used;             /* update number that last wanted it */
    uint32_t next;             /* hash chain */
    bool shown;                /* shown after the last update */
    bool show;                 /* chosen in this update */
    bool morph_set;            /* morph computed since shown */
    float *morph;              /* per grid vertex, the blend its mesh holds (0: its own height) */
    uint8_t coarse_written[4]; /* the coarse[] the mesh was last written with */
    uint8_t coarse[4];  /* per edge (-z, +x, +z, -x): levels up to the shown tile across it, 0: none
                           coarser */
    uint32_t morph_gen; /* its level's morph eye it was computed for */
} tile;

typedef struct request {
    _oak_tile_key key;
    double distance; /* coarsest tiles of the ring ahead: negative, so they go first */
} request;

struct oak_terrain {
    oak_scene *scene;
    oak_terrain_desc desc;
    _oak_terrain_noise noise;
    oak_material material;
    double origin[2];
    double eye[3]; /* world */
    double hag;    /* eye height above the ground */
    uint64_t update;
    tile *tiles;
    uint32_t tile_cap, tile_count, free_head;
    uint32_t *buckets;
    uint32_t bucket_mask;
    request *req;
    uint32_t req_count, req_cap;
    uint32_t *build_slots; /* one update's builds, filled at once */
    uint32_t build_slot_cap;
    /* per job worker, one tile's positions and morph */
    float *scratch_pos, *scratch_morph;
    /* one update's shown tiles to morph, their results */
    uint32_t *morph_list;
    oak_result *morph_results;
    bool *morph_morphed;
    /* per level, the eye (x, y, z, height above ground) its tiles are
       morphed for, moved on by OAK_TERRAIN_MORPH_STEP of its cell, and
       a count of its moves: tiles of a level always agree */
    double morph_eye[OAK_TERRAIN_MAX_LEVELS][4];
    uint32_t morph_gen[OAK_TERRAIN_MAX_LEVELS];
    oak_terrain_stats stats;
};

/* ---- desc ----------------------------------------------------------------- */

static _oak_terrain_noise noise_of(const oak_terrain_desc *d) {
    return (_oak_terrain_noise){
        .seed = d->seed,
        .octaves = d->octaves,
        .ridge_octaves = d->ridge_amplitude > 0 ? d->ridge_octaves : 0,
        .frequency = d->frequency,
        .amplitude = d->amplitude,
        .lacunarity = d->lacunarity,
        .gain = d->gain,
        .ridge_frequency = d->ridge_frequency,
        .ridge_amplitude = d->ridge_amplitude > 0 ? d->ridge_amplitude : 0,
        .offset = {d->offset[0], d->offset[1]},
    };
}

double _oak_terrain_desc_height(const oak_terrain_desc *desc, double x, double z) {
    oak_terrain_desc d = oak_terrain_desc_defaults(desc);
    _oak_terrain_noise n = noise_of(&d);
    return _oak_terrain_noise_height(&n, x, z);
}

oak_terrain_desc oak_terrain_desc_defaults(const oak_terrain_desc *desc) {
    oak_terrain_desc d = desc ? *desc : (oak_terrain_desc){0};
    if (d.octaves == 0) d.octaves = 7;
    if (d.frequency == 0) d.frequency = 1.0f / 700.0f;
    if (d.amplitude == 0) d.amplitude = 45.0f;
    if (d.lacunarity == 0) d.lacunarity = 2.0f;
    if (d.gain == 0) d.gain = 0.5f;
    if (d.ridge_octaves == 0) d.ridge_octaves = 5;
    if (d.ridge_frequency == 0) d.ridge_frequency = 1.0f / 2400.0f;
    if (d.ridge_amplitude == 0) d.ridge_amplitude = 260.0f;
    if (d.tile_size == 0) d.tile_size = (float)OAK_TERRAIN_TILE_SIZE;
    if (d.cells == 0) d.cells = OAK_TERRAIN_CELLS;
    if (d.levels == 0) d.levels = OAK_TERRAIN_LEVELS;
    if (d.lod_factor == 0) d.lod_factor = (float)OAK_TERRAIN_LOD_FACTOR;
    if (d.view_distance == 0) d.view_distance = (float)OAK_TERRAIN_VIEW_DISTANCE;
    if (d.build_budget == 0) d.build_budget = OAK_TERRAIN_BUILD_BUDGET;
    if (d.cache_tiles == 0) d.cache_tiles = OAK_TERRAIN_CACHE_TILES;
    if (d.uv_scale == 0) d.uv_scale = 8.0f;
    return d;
}

static bool finite_pos(float v, float max) {
    return isfinite(v) && v > 0 && v <= max;
}

/* One line naming the first field out of range, or OAK_OK. */
static oak_result check_desc(const oak_terrain_desc *d) {
    const char *bad = NULL;
    char why[96] = "";
    double root = (double)d->tile_size * ldexp(1.0, (int)d->levels - 1);
    if (!finite_pos(d->tile_size, (float)OAK_TERRAIN_MAX_VIEW))
        bad = "tile_size", snprintf(why, sizeof why, "%g m", (double)d->tile_size);
    else if (d->cells < 2 || d->cells > OAK_TERRAIN_MAX_CELLS || (d->cells & 1u))
        bad = "cells",
        snprintf(why, sizeof why, "%u (even, 2 to %d)", d->cells, OAK_TERRAIN_MAX_CELLS);
    else if (d->levels > OAK_TERRAIN_MAX_LEVELS)
        bad = "levels",
        snprintf(why, sizeof why, "%u (at most %d)", d->levels, OAK_TERRAIN_MAX_LEVELS);
    else if (!(root <= OAK_TERRAIN_MAX_VIEW))
        bad = "tile_size",
        snprintf(why, sizeof why, "%g m makes %g m coarsest tiles", (double)d->tile_size, root);
    else if (!finite_pos(d->lod_factor, 64.0f) || d->lod_factor < 1.0f)
        bad = "lod_factor", snprintf(why, sizeof why, "%g (1 to 64)", (double)d->lod_factor);
    else if (!finite_pos(d->view_distance, (float)OAK_TERRAIN_MAX_VIEW))
        bad = "view_distance", snprintf(why, sizeof why, "%g m", (double)d->view_distance);
    else if (!finite_pos(d->frequency, 1e3f) || !finite_pos(d->ridge_frequency, 1e3f))
        bad = "frequency", snprintf(why, sizeof why, "%g, ridges %g", (double)d->frequency,
                                    (double)d->ridge_frequency);
    else if (!isfinite(d->amplitude) || fabsf(d->amplitude) > 1e5f ||
             !isfinite(d->ridge_amplitude) || fabsf(d->ridge_amplitude) > 1e5f)
        bad = "amplitude", snprintf(why, sizeof why, "%g, ridges %g", (double)d->amplitude,
                                    (double)d->ridge_amplitude);
    else if (!finite_pos(d->lacunarity, 16.0f) || !finite_pos(d->gain, 4.0f))
        bad = "lacunarity",
        snprintf(why, sizeof why, "%g, gain %g", (double)d->lacunarity, (double)d->gain);
    else if (d->octaves > OAK_TERRAIN_MAX_OCTAVES || d->ridge_octaves > OAK_TERRAIN_MAX_OCTAVES)
        bad = "octaves", snprintf(why, sizeof why, "%u, ridges %u (at most %d)", d->octaves,
                                  d->ridge_octaves, OAK_TERRAIN_MAX_OCTAVES);
    else if (!isfinite(d->offset[0]) || !isfinite(d->offset[1]) || fabs(d->offset[0]) > 1e9 ||
             fabs(d->offset[1]) > 1e9)
        bad = "offset", snprintf(why, sizeof why, "(%g, %g)", d->offset[0], d->offset[1]);
    else if (!finite_pos(d->uv_scale, 1e4f))
        bad = "uv_scale", snprintf(why, sizeof why, "%g", (double)d->uv_scale);
    else if (d->build_budget > 4096 || d->cache_tiles > (1u << 20))
        bad = "build_budget",
        snprintf(why, sizeof why, "%u, cache %u", d->build_budget, d->cache_tiles);
    if (!bad) {
        /* the finest octave bounds the lattice coordinates the noise sees */
        double fine = d->frequency * pow(d->lacunarity, (double)d->octaves - 1);
        double ridge = d->ridge_frequency * pow(d->lacunarity, (double)d->ridge_octaves - 1);
        if (!(fine <= OAK_TERRAIN_MAX_FREQUENCY) || !(ridge <= OAK_TERRAIN_MAX_FREQUENCY))
            bad = "lacunarity",
            snprintf(why, sizeof why, "%g makes the finest octave %g per metre (at most %g)",
                     (double)d->lacunarity, fmax(fine, ridge), OAK_TERRAIN_MAX_FREQUENCY);
    }
    if (bad) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "terrain: %s out of range: %s", bad, why);
    double span = 2.0 * ((double)d->view_distance + root) / root + 2.0;
    if (span * span > OAK_TERRAIN_MAX_ROOTS)
        return oak_error(
            OAK_ERROR_LIMIT,
            "terrain: view_distance %g m needs %.0f coarsest tiles of %g m (at most %d)",
            (double)d->view_distance, span * span, root, OAK_TERRAIN_MAX_ROOTS);
    return OAK_OK;
}

/* ---- make and destroy --------------------------------------------------- */

static void attached_destroy(void *t) {
    oak_destroy_terrain(t);
}

/* The ground's material: vertex colours from slope and height (grass, dirt,
   rock, snow) times a grain texture read through the material tricks
   (docs/WORLD.md "The ground's material"): on the world's planes, so steep
   rock is not stretched; hex breakup, so no repeat shows in the distance;
   the grain again 8 times finer near the eye. No albedo variation: the
   vertex colours already vary over patches, and the CPU's resolve would
   pay for it at every pixel (docs/PERFORMANCE.md). */
static oak_result default_material(oak_material *out, float uv_scale) {
    oak_result r = _oak_terrain_register_detail();
    oak_texture tex;
    if (!r) r = oak_load_texture(&tex, "oak://terrain_detail", OAK_FORMAT_RGBA8_SRGB);
    if (r) return r;
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0.0f;
    md.roughness = 0.92f;
    md.base_color_tex.texture = tex;
    md.name = "terrain";
    md.fx = (oak_material_fx){.triplanar = uv_scale,
                              .triplanar_sharpness = (float)OAK_TERRAIN_FX_SHARPNESS,
                              .breakup = 1, /* unturned: the grain has no direction to hide */
                              .detail = (float)OAK_TERRAIN_FX_DETAIL,
                              .detail_distance = (float)OAK_TERRAIN_FX_DETAIL_DISTANCE};
    return oak_make_material(out, &md);
}

oak_result oak_make_terrain(oak_terrain **out, oak_scene *scene, const oak_terrain_desc *desc) {
    if (!out || !scene)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_terrain: NULL %s",
                         out ? "scene" : "out");
    *out = NULL;
    oak_terrain_desc d = oak_terrain_desc_defaults(desc);
    oak_result r = check_desc(&d);
    if (r) return r;
    oak_terrain *t = oak_calloc(1, sizeof *t);
    if (!t) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "terrain: out of memory");
    t->scene = scene;
    t->desc = d;
    t->noise = noise_of(&d);
    /* room for the cache plus one update's worth of new tiles */
    t->tile_cap = d.cache_tiles + d.build_budget + OAK_TERRAIN_MAX_ROOTS;
    uint32_t buckets = 1;
    while (buckets < 2 * t->tile_cap) buckets *= 2;
    t->bucket_mask = buckets - 1;
    uint32_t nv = _oak_tile_vertex_count(d.cells);
    t->tiles = oak_calloc(t->tile_cap, sizeof(tile));
    t->buckets = oak_alloc(sizeof(uint32_t) * buckets);
    size_t workers = oak_job_threads() ? oak_job_threads() : 1;
    t->scratch_pos = oak_alloc(sizeof(float) * 3 * nv * workers);
    t->scratch_morph = oak_alloc(sizeof(float) * nv * workers);
    t->morph_list = oak_alloc(sizeof(uint32_t) * t->tile_cap);
    t->morph_results = oak_alloc(sizeof(oak_result) * t->tile_cap);
    t->morph_morphed = oak_alloc(sizeof(bool) * t->tile_cap);
    if (!t->tiles || !t->buckets || !t->scratch_pos || !t->scratch_morph || !t->morph_list ||
        !t->morph_results || !t->morph_morphed) {
        oak_destroy_terrain(t);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "terrain: out of memory");
    }
    for (uint32_t i = 0; i < buckets; i++) t->buckets[i] = NO_TILE;
    for (uint32_t i = 0; i < t->tile_cap; i++)
        t->tiles[i].next = i + 1 < t->tile_cap ? i + 1 : NO_TILE;
    t->free_head = 0;
    if (d.material.id)
        t->material = d.material;
    else if ((r = default_material(&t->material, d.uv_scale))) {
        oak_destroy_terrain(t);
        return r;
    }
    *out = t;
    return OAK_OK;
}

static void free_tile(oak_terrain *t, uint32_t i) {
    tile *tl = &t->tiles[i];
    if (tl->entity.id) oak_scene_destroy_entity(t->scene, tl->entity);
    _oak_tile_release(&tl->b);
    oak_free(tl->morph);
    memset(tl, 0, sizeof *tl);
}

void oak_destroy_terrain(oak_terrain *t) {
    if (!t) return;
    if (t->tiles && t->buckets)
        for (uint32_t b = 0; b <= t->bucket_mask; b++)
            for (uint32_t i = t->buckets[b], next; i != NO_TILE; i = next) {
                next = t->tiles[i].next;
                free_tile(t, i);
            }
    if (!t->desc.material.id && t->material.id) oak_destroy_material(t->material);
    oak_free(t->tiles);
    oak_free(t->buckets);
    oak_free(t->req);
    oak_free(t->build_slots);
    oak_free(t->scratch_pos);
    oak_free(t->scratch_morph);
    oak_free(t->morph_list);
    oak_free(t->morph_results);
    oak_free(t->morph_morphed);
    oak_free(t);
}

oak_result _oak_terrain_attach(oak_scene *scene, oak_terrain *t) {
    return oak_scene_attach(scene, t, attached_destroy);
}

oak_terrain *_oak_terrain_of(const oak_scene *scene) {
    return oak_scene_attachment(scene, attached_destroy);
}

/* ---- the tile cache ----------------------------------------------------- */

static uint32_t key_hash(_oak_tile_key k) {
    uint64_t h = (uint64_t)k.ix * 0x9E3779B97F4A7C15ull ^ (uint64_t)k.iz * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)k.level * 0x165667B19E3779F9ull;
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    return (uint32_t)(h >> 32);
}

static bool key_eq(_oak_tile_key a, _oak_tile_key b) {
    return a.level == b.level && a.ix == b.ix && a.iz == b.iz;
}

static tile *find(const oak_terrain *t, _oak_tile_key k) {
    for (uint32_t i = t->buckets[key_hash(k) & t->bucket_mask]; i != NO_TILE; i = t->tiles[i].next)
        if (key_eq(t->tiles[i].key, k)) return &t->tiles[i];
    return NULL;
}

static void unlink_tile(oak_terrain *t, uint32_t i) {
    uint32_t *at = &t->buckets[key_hash(t->tiles[i].key) & t->bucket_mask];
    while (*at != i) at = &t->tiles[*at].next;
    *at = t->tiles[i].next;
    free_tile(t, i);
    t->tiles[i].next = t->free_head;
    t->free_head = i;
    t->tile_count--;
}

static double level_size(const oak_terrain *t, int32_t level) {
    return (double)t->desc.tile_size * ldexp(1.0, level);
}

static void place_tile(oak_terrain *t, tile *tl) {
    double size = level_size(t, tl->key.level);
    oak_transform tr = oak_transform_identity();
    tr.position[0] = (float)((double)tl->key.ix * size - t->origin[0]);
    tr.position[2] = (float)((double)tl->key.iz * size - t->origin[1]);
    oak_scene_set_transform(t->scene, tl->entity, &tr);
}

static _oak_tile_params tile_params(const oak_terrain *t) {
    return (_oak_tile_params){.noise = &t->noise,
                              .cells = t->desc.cells,
                              .tile_size = t->desc.tile_size,
                              .uv_scale = t->desc.uv_scale};
}

/* Takes a free slot for key k and allocates its build; the slot leaves the
   free list (commit_tile links it, or gives it back on failure). */
static oak_result reserve_tile(oak_terrain *t, _oak_tile_key k, uint32_t *out) {
    if (t->free_head == NO_TILE)
        return oak_error(OAK_ERROR_LIMIT, "terrain: more than %u tiles at once", t->tile_cap);
    uint32_t i = t->free_head;
    tile *tl = &t->tiles[i];
    oak_result r = _oak_tile_build_begin(&tl->b, t->desc.cells);
    if (r) return r;
    t->free_head = tl->next;
    tl->key = k;
    *out = i;
    return OAK_OK;
}

static void unreserve_tile(oak_terrain *t, uint32_t i) {
    tile *tl = &t->tiles[i];
    _oak_tile_release(&tl->b);
    oak_free(tl->morph);
    memset(tl, 0, sizeof *tl);
    tl->next = t->free_head;
    t->free_head = i;
}

/* Makes the filled tile's mesh and entity and links it into the cache. */
static oak_result commit_tile(oak_terrain *t, uint32_t i) {
    tile *tl = &t->tiles[i];
    _oak_tile_key k = tl->key;
    char name[80];
    snprintf(name, sizeof name, "terrain L%d %lld %lld", (int)k.level, (long long)k.ix,
             (long long)k.iz);
    oak_result r = _oak_tile_build_end(&tl->b, t->desc.cells, name);
    uint32_t g = t->desc.cells + 1;
    if (!r) {
        tl->morph = oak_calloc((size_t)g * g, sizeof(float)); /* the mesh holds its own heights */
        if (!tl->morph) r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "terrain: out of memory for a tile");
    }
    if (!r) {
        tl->entity = oak_scene_create(t->scene, name);
        if (!tl->entity.id)
            r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "terrain: no room for a tile entity");
    }
    if (r) {
        unreserve_tile(t, i);
        return r;
    }
    oak_mesh_renderer mr = {.mesh = tl->b.mesh,
                            .material = t->material,
                            .flags =
                                OAK_DRAW_HIDDEN | (t->desc.no_shadows ? OAK_DRAW_NO_SHADOW : 0u)};
    oak_scene_set_mesh_renderer(t->scene, tl->entity, &mr);
    tl->used = t->update;
    tl->shown = tl->show = tl->morph_set = false;
    memset(tl->coarse, 0, sizeof tl->coarse);
    uint32_t *bucket = &t->buckets[key_hash(k) & t->bucket_mask];
    tl->next = *bucket;
    *bucket = i;
    t->tile_count++;
    place_tile(t, tl);
    return OAK_OK;
}

typedef struct fill_job {
    oak_terrain *t;
    const uint32_t *slots;
} fill_job;

static void fill_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    fill_job *j = user;
    _oak_tile_params p = tile_params(j->t);
    for (uint32_t i = begin; i < end; i++) {
        tile *tl = &j->t->tiles[j->slots[i]];
        _oak_tile_build_fill(&tl->b, &p, tl->key);
    }
}

/* Builds n tiles: slots and allocations on this thread, the heights,
   normals and colours of all of them at once on the job pool (one tile a
   chunk), then meshes and entities here in key order. *built counts the
   tiles that made it in. */
static oak_result build_tiles(oak_terrain *t, const _oak_tile_key *keys, size_t key_stride,
                              uint32_t n, uint32_t *built) {
    *built = 0;
    if (!OAK_GROW(t->build_slots, t->build_slot_cap, n ? n : 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "terrain: out of memory");
    uint32_t reserved = 0;
    oak_result r = OAK_OK;
    for (; reserved < n && !r; reserved++) {
        const _oak_tile_key *k = (const void *)((const char *)keys + reserved * key_stride);
        r = reserve_tile(t, *k, &t->build_slots[reserved]);
        if (r) break;
    }
    fill_job job = {t, t->build_slots};
    oak_parallel_for(reserved, 1, fill_range, &job);
    for (uint32_t i = 0; i < reserved; i++) {
        if (r) {
            unreserve_tile(t, t->build_slots[i]);
            continue;
        }
        r = commit_tile(t, t->build_slots[i]);
        if (!r) (*built)++;
    }
    return r;
}

static oak_result build_tile(oak_terrain *t, _oak_tile_key k) {
    uint32_t built;
    return build_tiles(t, &k, sizeof k, 1, &built);
}

/* ---- selection ------------------------------------------------------------ */

/* Distance from the eye to the tile's square (xz), with the eye's height
   above the ground: flying high coarsens everything below. */
static double tile_distance(const oak_terrain *t, _oak_tile_key k) {
    double size = level_size(t, k.level);
    double x0 = (double)k.ix * size, z0 = (double)k.iz * size;
    double dx = fmax(fmax(x0 - t->eye[0], t->eye[0] - (x0 + size)), 0);
    double dz = fmax(fmax(z0 - t->eye[2], t->eye[2] - (z0 + size)), 0);
    return sqrt(dx * dx + dz * dz + t->hag * t->hag);
}

static bool wants_split(const oak_terrain *t, _oak_tile_key k) {
    return k.level > 0 && tile_distance(t, k) < t->desc.lod_factor * level_size(t, k.level);
}

static _oak_tile_key child(_oak_tile_key k, int c) {
    return (_oak_tile_key){k.level - 1, 2 * k.ix + (c & 1), 2 * k.iz + (c >> 1)};
}

/* Whether the tile's square can be drawn this update from built tiles at or
   under it, as the selection wants it; marks what it finds as in use. */
static bool ready(oak_terrain *t, _oak_tile_key k) {
    tile *tl = find(t, k);
    if (tl) tl->used = t->update;
    if (wants_split(t, k)) {
        bool all = true;
        for (int c = 0; c < 4; c++) all &= ready(t, child(k, c));
        if (all) return true;
    }
    return tl != NULL;
}

static oak_result want(oak_terrain *t, _oak_tile_key k, bool first) {
    for (uint32_t i = 0; i < t->req_count; i++)
        if (key_eq(t->req[i].key, k)) return OAK_OK;
    if (!OAK_GROW(t->req, t->req_cap, t->req_count + 1))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "terrain: out of memory");
    double d = tile_distance(t, k);
    t->req[t->req_count++] = (request){k, first ? d - 1e30 : d};
    return OAK_OK;
}

/* Shows the tile's square from what is built (show = true) or lists what
   is missing (show = false). A parent stays until all four children can
   cover it. */
static oak_result select_tile(oak_terrain *t, _oak_tile_key k, bool show) {
    tile *tl = find(t, k);
    if (tl) tl->used = t->update; /* kept while in view, shown or not */
    if (wants_split(t, k)) {
        bool all = true;
        for (int c = 0; c < 4; c++) all &= ready(t, child(k, c));
        if (all) {
            for (int c = 0; c < 4; c++) {
                oak_result r = select_tile(t, child(k, c), show);
                if (r) return r;
            }
            return OAK_OK;
        }
        if (!show)
            for (int c = 0; c < 4; c++)
                if (!find(t, child(k, c))) {
                    oak_result r = want(t, child(k, c), false);
                    if (r) return r;
                }
    }
    if (tl && show) tl->show = true;
    if (!tl && !show) return want(t, k, false);
    return OAK_OK;
}

static int cmp_request(const void *a, const void *b) {
    double x = ((const request *)a)->distance, y = ((const request *)b)->distance;
    return (x > y) - (x < y);
}

/* ---- rebase --------------------------------------------------------------- */

/* Moves the world origin by whole coarsest tiles when the eye is past the
   rebase distance on x or z, and every root entity the other way. */
static void rebase(oak_terrain *t, float eye[3]) {
    double root = level_size(t, (int32_t)t->desc.levels - 1);
    double shift[2] = {0, 0};
    for (int a = 0; a < 2; a++) {
        double e = eye[a * 2];
        if (fabs(e) > OAK_TERRAIN_REBASE_DISTANCE) shift[a] = floor(e / root + 0.5) * root;
    }
    if (shift[0] == 0 && shift[1] == 0) return;
    t->origin[0] += shift[0];
    t->origin[1] += shift[1];
    eye[0] = (float)(eye[0] - shift[0]);
    eye[2] = (float)(eye[2] - shift[1]);
    oak_column col = oak_scene_column(t->scene, OAK_COMPONENT_TRANSFORM);
    for (uint32_t i = 0; i < col.count; i++) {
        oak_entity e = col.entities[i];
        if (oak_scene_parent(t->scene, e).id) continue;
        oak_transform tr = *(const oak_transform *)((const uint8_t *)col.data + i * col.stride);
        tr.position[0] = (float)(tr.position[0] - shift[0]);
        tr.position[2] = (float)(tr.position[2] - shift[1]);
        oak_scene_set_transform(t->scene, e, &tr);
    }
    /* tiles exactly where the origin now puts them */
    for (uint32_t i = 0; i < t->tile_cap; i++)
        if (t->tiles[i].entity.id) place_tile(t, &t->tiles[i]);
    t->stats.rebases++;
}

/* ---- morph ------------------------------------------------------------------ */

/* CDLOD's morph: over the outer band of a level's range a vertex's height
   slides to its parent's surface, reaching it where the parent's level
   begins, so neighbours a level apart meet. Recomputed when the eye has
   moved OAK_TERRAIN_MORPH_STEP of the tile's cell since. */
static oak_result morph_tile(oak_terrain *t, tile *tl, float *scratch_pos, float *scratch_morph,
                             bool *morphed) {
    uint32_t c = t->desc.cells, g = c + 1;
    int32_t level = tl->key.level;
    double size = level_size(t, level), ds = size / c;
    if (tl->morph_set && tl->morph_gen == t->morph_gen[level]) return OAK_OK;
    const double *eye = t->morph_eye[level], hag = t->morph_eye[level][3];
    /* ends where the parent's level begins (2F s); starts past the farthest
       a finer neighbour's vertex can be, (F + sqrt 2) s, so that a finer
       tile's edge meets this one unmorphed (docs/WORLD.md) */
    double f = t->desc.lod_factor, end = f * 2.0 * size;
    double start = fmin((f + 1.41421356 + OAK_TERRAIN_MORPH_MARGIN) * size, end - 1e-6 * size);
    double x0 = (double)tl->key.ix * size, z0 = (double)tl->key.iz * size;
    /* a tile wholly inside the start (or past the end) morphs by 0 (1)
       everywhere: no distance per vertex (most tiles of a level) */
    double nx = fmax(fmax(x0 - eye[0], eye[0] - (x0 + size)), 0);
    double nz = fmax(fmax(z0 - eye[2], eye[2] - (z0 + size)), 0);
    double fx = fmax(fabs(x0 - eye[0]), fabs(x0 + size - eye[0]));
    double fz = fmax(fabs(z0 - eye[2]), fabs(z0 + size - eye[2]));
    double near = sqrt(nx * nx + nz * nz + hag * hag), far = sqrt(fx * fx + fz * fz + hag * hag);
    float flat = far <= start ? 0.0f : (near >= end ? 1.0f : -1.0f);
    for (uint32_t j = 0; j < g; j++)
        for (uint32_t i = 0; i < g; i++) {
            float mf = flat;
            if (flat < 0) {
                double dx = x0 + i * ds - eye[0], dz = z0 + j * ds - eye[2];
                double d = sqrt(dx * dx + dz * dz + hag * hag);
                double m = (d - start) / (end - start);
                mf = (float)(m < 0 ? 0 : (m > 1 ? 1 : m));
            }
            scratch_morph[j * g + i] = mf;
        }
    bool edges_moved = memcmp(tl->coarse, tl->coarse_written, 4) != 0;
    tl->morph_set = true;
    tl->morph_gen = t->morph_gen[level];
    /* the mesh is rewritten (and re-uploaded) only where the blend moved on
       by more than OAK_TERRAIN_MORPH_EPSILON since it was last written */
    float moved = 0;
    for (uint32_t v = 0; v < g * g; v++) {
        float d = fabsf(scratch_morph[v] - tl->morph[v]);
        moved = d > moved ? d : moved;
    }
    if (moved <= (float)OAK_TERRAIN_MORPH_EPSILON && !edges_moved) return OAK_OK;
    memcpy(tl->morph, scratch_morph, sizeof(float) * g * g);
    memcpy(tl->coarse_written, tl->coarse, 4);
    uint32_t nv = _oak_tile_vertex_count(c);
    _oak_tile_morph_positions(scratch_pos, &tl->b, c, ds, scratch_morph, tl->coarse);
    *morphed = true;
    return oak_mesh_update_vertices(tl->b.mesh, nv, scratch_pos, NULL, NULL);
}

typedef struct morph_job {
    oak_terrain *t;
    oak_result *results;
    bool *morphed;
} morph_job;

/* Each worker morphs whole tiles through its own scratch (mesh vertex
   updates of distinct meshes may run at once: asset.h). */
static void morph_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    morph_job *j = user;
    oak_terrain *t = j->t;
    uint32_t nv = _oak_tile_vertex_count(t->desc.cells);
    float *pos = t->scratch_pos + (size_t)worker * 3 * nv,
          *m = t->scratch_morph + (size_t)worker * nv;
    for (uint32_t i = begin; i < end; i++)
        j->results[i] = morph_tile(t, &t->tiles[t->morph_list[i]], pos, m, &j->morphed[i]);
}

/* For each of the tile's edges, how many levels coarser the tile shown
   across it in this update is (0: the same or finer): the first shown tile
   above it in level that holds a point just across the edge's middle. */
static void coarse_edges(uint8_t out[4], const oak_terrain *t, const tile *tl) {
    double size = level_size(t, tl->key.level);
    double x0 = (double)tl->key.ix * size, z0 = (double)tl->key.iz * size, h = 0.5 * size;
    double in = 0.125 * size / t->desc.cells; /* an eighth of a cell across */
    double probe[4][2] = {
        {x0 + h, z0 - in}, {x0 + size + in, z0 + h}, {x0 + h, z0 + size + in}, {x0 - in, z0 + h}};
    for (int e = 0; e < 4; e++) {
        out[e] = 0;
        for (int32_t l = tl->key.level + 1; l < (int32_t)t->desc.levels; l++) {
            double ls = level_size(t, l);
            _oak_tile_key k = {l, (int64_t)floor(probe[e][0] / ls),
                               (int64_t)floor(probe[e][1] / ls)};
            const tile *n = find(t, k);
            if (n && n->show) {
                out[e] = (uint8_t)(l - tl->key.level);
                break;
            }
        }
    }
}

/* ---- update ------------------------------------------------------------------ */

oak_result oak_terrain_update(oak_terrain *t, const float eye_in[3]) {
    if (!t || !eye_in)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_terrain_update: NULL argument");
    if (!isfinite(eye_in[0]) || !isfinite(eye_in[1]) || !isfinite(eye_in[2]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_terrain_update: eye is not finite");
    float eye[3] = {eye_in[0], eye_in[1], eye_in[2]};
    if (fabs(eye[0] + t->origin[0]) > OAK_TERRAIN_MAX_WORLD ||
        fabs(eye[2] + t->origin[1]) > OAK_TERRAIN_MAX_WORLD ||
        fabsf(eye[1]) > OAK_TERRAIN_MAX_WORLD)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_terrain_update: eye (%g, %g, %g) is past %g m from the world origin",
                         eye[0] + t->origin[0], (double)eye[1], eye[2] + t->origin[1],
                         OAK_TERRAIN_MAX_WORLD);
    t->update++;
    uint32_t rebases = t->stats.rebases;
    memset(&t->stats, 0, sizeof t->stats);
    t->stats.rebases = rebases;
    if (!t->desc.no_rebase) rebase(t, eye);
    t->eye[0] = eye[0] + t->origin[0];
    t->eye[1] = eye[1];
    t->eye[2] = eye[2] + t->origin[1];
    t->hag = fabs(t->eye[1] - _oak_terrain_noise_height(&t->noise, t->eye[0], t->eye[2]));

    /* the coarsest tiles within view, and a ring one tile further that is
       built ahead (within the budget) so it is there when it comes in */
    int32_t top = (int32_t)t->desc.levels - 1;
    double root = level_size(t, top), view = t->desc.view_distance;
    int64_t x_lo = (int64_t)floor((t->eye[0] - view - root) / root);
    int64_t x_hi = (int64_t)floor((t->eye[0] + view + root) / root);
    int64_t z_lo = (int64_t)floor((t->eye[2] - view - root) / root);
    int64_t z_hi = (int64_t)floor((t->eye[2] + view + root) / root);
    t->req_count = 0;
    oak_result r = OAK_OK;
    for (int pass = 0; pass < 2 && !r; pass++) {
        for (int64_t iz = z_lo; iz <= z_hi && !r; iz++)
            for (int64_t ix = x_lo; ix <= x_hi && !r; ix++) {
                _oak_tile_key k = {top, ix, iz};
                double d = tile_distance(t, k);
                double dxz = sqrt(fmax(d * d - t->hag * t->hag, 0));
                if (dxz > view + root) continue;
                tile *tl = find(t, k);
                if (dxz > view) { /* the ring ahead */
                    if (tl)
                        tl->used = t->update;
                    else if (pass == 0)
                        r = want(t, k, true); /* coverage before refinement */
                    continue;
                }
                if (!tl && pass == 0) {
                    /* nothing may be a hole: a missing coarsest tile in view
                       is built now, past the budget */
                    if ((r = build_tile(t, k))) break;
                    t->stats.forced++;
                }
                if (!r) r = select_tile(t, k, pass == 1);
            }
        if (pass == 0 && !r) {
            /* build the nearest missing tiles, up to the budget */
            qsort(t->req, t->req_count, sizeof *t->req, cmp_request);
            uint32_t n = t->req_count < t->desc.build_budget ? t->req_count : t->desc.build_budget;
            uint32_t built = 0;
            r = build_tiles(t, &t->req[0].key, sizeof *t->req, n, &built);
            t->stats.built += built;
            t->stats.pending = t->req_count - n;
            for (uint32_t i = 0; i < t->tile_cap; i++) t->tiles[i].show = false;
        }
    }
    if (r) return r;

    /* each level's morph eye follows the eye in steps of its cell */
    for (uint32_t l = 0; l < t->desc.levels; l++) {
        double *m = t->morph_eye[l], ds = level_size(t, (int32_t)l) / t->desc.cells;
        double dx = t->eye[0] - m[0], dy = t->eye[1] - m[1], dz = t->eye[2] - m[2];
        if (t->morph_gen[l] && sqrt(dx * dx + dy * dy + dz * dz) < OAK_TERRAIN_MORPH_STEP * ds)
            continue;
        m[0] = t->eye[0], m[1] = t->eye[1], m[2] = t->eye[2], m[3] = t->hag;
        t->morph_gen[l]++;
    }

    /* show and hide; list what is shown for the morph */
    uint32_t morphs = 0;
    for (uint32_t i = 0; i < t->tile_cap && !r; i++) {
        tile *tl = &t->tiles[i];
        if (!tl->entity.id) continue;
        if (tl->show != tl->shown) {
            oak_mesh_renderer *mr =
                oak_scene_get(t->scene, tl->entity, OAK_COMPONENT_MESH_RENDERER);
            if (mr)
                mr->flags =
                    tl->show ? mr->flags & ~(uint32_t)OAK_DRAW_HIDDEN : mr->flags | OAK_DRAW_HIDDEN;
            tl->shown = tl->show;
            tl->morph_set = false;
        }
        if (tl->shown) {
            uint8_t coarse[4];
            coarse_edges(coarse, t, tl);
            if (memcmp(coarse, tl->coarse, 4)) tl->morph_set = false;
            memcpy(tl->coarse, coarse, 4);
            tl->used = t->update;
            t->stats.shown++;
            t->stats.shown_per_level[tl->key.level]++;
            /* the coarsest level has no parent to morph to */
            if (!t->desc.no_morph && tl->key.level < (int32_t)t->desc.levels - 1)
                t->morph_list[morphs++] = i;
        }
    }
    if (r) return r;
    if (morphs) {
        memset(t->morph_morphed, 0, morphs * sizeof *t->morph_morphed);
        morph_job job = {t, t->morph_results, t->morph_morphed};
        oak_parallel_for(morphs, OAK_TERRAIN_MORPH_CHUNK, morph_range, &job);
        for (uint32_t i = 0; i < morphs && !r; i++) {
            r = t->morph_results[i];
            t->stats.morphed += t->morph_morphed[i];
        }
        if (r) return r;
    }

    /* past the cap, free the least recently wanted (never one shown) */
    while (t->tile_count > t->desc.cache_tiles) {
        uint32_t victim = NO_TILE;
        for (uint32_t i = 0; i < t->tile_cap; i++) {
            tile *tl = &t->tiles[i];
            if (!tl->entity.id || tl->shown || tl->used == t->update) continue;
            if (victim == NO_TILE || tl->used < t->tiles[victim].used) victim = i;
        }
        if (victim == NO_TILE) break; /* everything is in use: the cap gives way */
        unlink_tile(t, victim);
        t->stats.freed++;
    }
    t->stats.cached = t->tile_count;
    return OAK_OK;
}

/* ---- queries -------------------------------------------------------------- */

oak_result oak_terrain_height(const oak_terrain *t, double x, double z, float *height,
                              float normal[3]) {
    if (!t || !height)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_terrain_height: NULL argument");
    if (!(fabs(x + t->origin[0]) <= OAK_TERRAIN_MAX_WORLD) ||
        !(fabs(z + t->origin[1]) <= OAK_TERRAIN_MAX_WORLD))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_terrain_height: (%g, %g) is not finite or past %g m from the world "
                         "origin",
                         x, z, OAK_TERRAIN_MAX_WORLD);
    return _oak_terrain_height_world(t, x + t->origin[0], z + t->origin[1], height, normal);
}

oak_result _oak_terrain_height_world(const oak_terrain *t, double wx, double wz, float *height,
                                     float normal[3]) {
    /* no message: placement asks past the edge on the job pool and skips */
    if (!(fabs(wx) <= OAK_TERRAIN_MAX_WORLD) || !(fabs(wz) <= OAK_TERRAIN_MAX_WORLD))
        return OAK_ERROR_INVALID_ARGUMENT;
    /* the finest grid's cell under the point, split as the tiles split it */
    double ds = (double)t->desc.tile_size / t->desc.cells;
    double cx = floor(wx / ds), cz = floor(wz / ds);
    double fx = wx / ds - cx, fz = wz / ds - cz;
    double x0 = cx * ds, z0 = cz * ds;
    /* heights rounded to float, as the tile meshes store them */
    double h00 = (float)_oak_terrain_noise_height(&t->noise, x0, z0);
    double h11 = (float)_oak_terrain_noise_height(&t->noise, x0 + ds, z0 + ds);
    double h, gx, gz;
    if (fz >= fx) { /* triangle v00, v01, v11 */
        double h01 = (float)_oak_terrain_noise_height(&t->noise, x0, z0 + ds);
        gx = h11 - h01, gz = h01 - h00;
    } else { /* triangle v00, v11, v10 */
        double h10 = (float)_oak_terrain_noise_height(&t->noise, x0 + ds, z0);
        gx = h10 - h00, gz = h11 - h10;
    }
    h = h00 + gx * fx + gz * fz;
    *height = (float)h;
    if (normal) {
        double nx = -gx / ds, nz = -gz / ds, inv = 1.0 / sqrt(nx * nx + 1 + nz * nz);
        normal[0] = (float)(nx * inv), normal[1] = (float)inv, normal[2] = (float)(nz * inv);
    }
    return OAK_OK;
}

double _oak_terrain_cell(const oak_terrain *t) {
    return (double)t->desc.tile_size / t->desc.cells;
}

void _oak_terrain_grid(const oak_terrain *t, int64_t gx, int64_t gz, uint32_t n, float *out) {
    /* the same doubles oak_terrain_height forms (cell index times spacing) */
    double ds = _oak_terrain_cell(t);
    if (n + 1 > OAK_TERRAIN_NOISE_GRID_MAX) {
        for (uint32_t j = 0; j <= n; j++)
            for (uint32_t i = 0; i <= n; i++)
                out[j * (n + 1) + i] = (float)_oak_terrain_noise_height(
                    &t->noise, (double)(gx + (int64_t)i) * ds, (double)(gz + (int64_t)j) * ds);
        return;
    }
    double xs[OAK_TERRAIN_NOISE_GRID_MAX], zs[OAK_TERRAIN_NOISE_GRID_MAX];
    for (uint32_t i = 0; i <= n; i++) {
        xs[i] = (double)(gx + (int64_t)i) * ds;
        zs[i] = (double)(gz + (int64_t)i) * ds;
    }
    _oak_terrain_noise_grid(&t->noise, xs, zs, n + 1, out);
}

oak_result _oak_terrain_ground(const oak_terrain *t, double x, double z, float *height,
                               float normal[3], float *variation) {
    oak_result r = oak_terrain_height(t, x, z, height, normal);
    if (r) return r;
    *variation = _oak_terrain_variation_at(t, x, z);
    return OAK_OK;
}

float _oak_terrain_variation_at(const oak_terrain *t, double x, double z) {
    return _oak_terrain_variation(x + t->origin[0] + t->noise.offset[0],
                                  z + t->origin[1] + t->noise.offset[1]);
}

void _oak_terrain_noise_offset(const oak_terrain *t, double out[2]) {
    out[0] = t->noise.offset[0], out[1] = t->noise.offset[1];
}

void oak_terrain_origin(const oak_terrain *t, double origin[2]) {
    origin[0] = t ? t->origin[0] : 0;
    origin[1] = t ? t->origin[1] : 0;
}

void oak_terrain_get_stats(oak_terrain_stats *out, const oak_terrain *t) {
    if (!out) return;
    if (t)
        *out = t->stats;
    else
        memset(out, 0, sizeof *out);
}

uint32_t oak_terrain_tiles(oak_terrain_tile *out, uint32_t capacity, const oak_terrain *t) {
    uint32_t n = 0;
    for (uint32_t i = 0; t && i < t->tile_cap; i++) {
        const tile *tl = &t->tiles[i];
        if (!tl->entity.id || !tl->shown) continue;
        if (out && n < capacity) {
            double size = level_size(t, tl->key.level);
            out[n] =
                (oak_terrain_tile){.level = (uint32_t)tl->key.level,
                                   .entity = tl->entity,
                                   .mesh = tl->b.mesh,
                                   .corner = {(double)tl->key.ix * size, (double)tl->key.iz * size},
                                   .size = size};
        }
        n++;
    }
    return n;
}
