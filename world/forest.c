/* Trees as assets (a species: atlas, normal map, one MASK material, three
 * LOD meshes a variant) and the forest that places them over a terrain in
 * cells around the eye, by noise and by the ground, drawn through one
 * instance stream per (species, variant) (docs/WORLD.md "Trees"). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "world/internal.h"
#include "world/rocks_internal.h"
#include "world/terrain_internal.h"
#include "world/tree_internal.h"

/* The trees' sway in the environment's wind (oak_stream_desc.sway: metres
   a point 1 m up moves per unit of wind): a shear, so a 15 m crown's top
   moves 0.3 m in a unit wind where grass (0.12) bends far more. */
#define FOREST_SWAY 0.02f

#define TREE_ALPHA_CUTOFF 0.5f
#define TREE_MAX_SLOPE_NY 0.94f  /* normal's y below this is too steep (dirt starts near 0.95) */
#define TREE_MAX_HEIGHT   115.0f /* metres: the snow line starts at 125 at the lowest */
#define TREE_WATER_MARGIN 1.0f   /* metres above the water's level */
#define TREE_SINK         0.1f   /* metres the trunk goes into the ground */
/* metres a trunk's axis keeps off a rock's footprint: the widest trunk
   (0.36 m at the base, scaled by up to 1.25 and varied by 1.1) and a
   little ground between */
#define TREE_ROCK_CLEARANCE 0.6f

/* ---- species ------------------------------------------------------------- */

static oak_result make_lod_mesh(oak_mesh *out, const _oak_tree_mesh *m, const char *name) {
    oak_mesh_desc md = {.vertex_count = m->vertex_count,
                        .index_count = m->index_count,
                        .positions = m->pos,
                        .normals = m->nrm,
                        .tangents = m->tan,
                        .uv0 = m->uv,
                        .indices = m->idx,
                        .name = name};
    return oak_make_mesh(out, &md);
}

void oak_destroy_tree_species(oak_tree_species *s) {
    if (!s) return;
    for (uint32_t v = 0; v < OAK_TREE_MAX_VARIANTS; v++)
        for (int k = 0; k < 3; k++)
            if (s->lods[v][k].id) oak_destroy_mesh(s->lods[v][k]);
    if (s->material.id) oak_destroy_material(s->material);
    if (s->atlas.id) oak_destroy_texture(s->atlas);
    if (s->normal_map.id) oak_destroy_texture(s->normal_map);
    memset(s, 0, sizeof *s);
}

oak_result oak_make_tree_species(oak_tree_species *out, uint32_t species, uint32_t variants,
                                 uint32_t seed) {
    if (!out) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "tree species: NULL out");
    memset(out, 0, sizeof *out);
    if (species >= OAK_TREE_SPECIES || variants < 1 || variants > OAK_TREE_MAX_VARIANTS)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "tree species: species %u (at most %u) with %u variants (1 .. %u)",
                         species, OAK_TREE_SPECIES - 1, variants, OAK_TREE_MAX_VARIANTS);
    uint64_t start = oak_time_ns();
    size_t texels = (size_t)OAK_TREE_ATLAS_W * OAK_TREE_ATLAS_H;
    uint8_t *albedo = oak_alloc(texels * 4), *normal = oak_alloc(texels * 4);
    _oak_tree trees[OAK_TREE_MAX_VARIANTS];
    memset(trees, 0, sizeof trees);
    oak_result r =
        albedo && normal ? OAK_OK : oak_error(OAK_ERROR_OUT_OF_MEMORY, "tree species: no memory");
    out->species = species, out->variants = variants;
    if (!r) _oak_tree_paint(albedo, normal, species);
    char name[64];
    for (uint32_t v = 0; v < variants && !r; v++) {
        if ((r = _oak_tree_generate(&trees[v], species, seed + 7919u * v))) break;
        if ((r = _oak_tree_bake(albedo, normal, &trees[v], OAK_TREE_VIEWS * v))) break;
        out->height[v] = trees[v].height;
    }
    /* the atlas first: its coverage-kept levels say where the cards' cutout
       keeps a texel (the views are baked, and the mips of the card's slots
       are their own) */
    if (!r) {
        snprintf(name, sizeof name, "oak://tree_atlas/%u", species);
        oak_texture_desc td = {.width = OAK_TREE_ATLAS_W,
                               .height = OAK_TREE_ATLAS_H,
                               .format = OAK_FORMAT_RGBA8_SRGB,
                               .pixels = albedo,
                               .name = name,
                               .coverage_cutoff = TREE_ALPHA_CUTOFF,
                               /* each slot keeps its own coverage */
                               .coverage_cells = {OAK_TREE_ATLAS_W / OAK_TREE_SLOT_W,
                                                  OAK_TREE_ATLAS_H / OAK_TREE_SLOT_H}};
        r = oak_make_texture(&out->atlas, &td);
    }
    float card[2 * OAK_TREE_OUTLINE];
    uint32_t card_n = 0;
    if (!r)
        card_n = _oak_tree_card_outline(card, oak_texture_get(out->atlas), OAK_TREE_CARD_LEVELS,
                                        (uint8_t)(255.0f * TREE_ALPHA_CUTOFF + 0.5f));
    for (uint32_t v = 0; v < variants && !r; v++) {
        /* every LOD's cards (and so every shadow caster's) cut to one outline */
        if (card_n && (r = _oak_tree_cut_cards(&trees[v], card, card_n))) break;
        _oak_tree_mesh lod[3] = {{0}};
        r = _oak_tree_full(&lod[0], &trees[v]);
        if (!r) r = _oak_tree_simplified(&lod[1], &trees[v], seed + v);
        if (!r) r = _oak_tree_impostor(&lod[2], &trees[v], OAK_TREE_VIEWS * v);
        /* the views are baked (above): the cards hug their texels */
        if (!r) r = _oak_tree_impostor_outline(&lod[2], albedo, OAK_TREE_VIEWS * v);
        for (int k = 0; k < 3 && !r; k++) {
            snprintf(name, sizeof name, "tree %u.%u lod %d", species, v, k);
            r = make_lod_mesh(&out->lods[v][k], &lod[k], name);
            out->triangles[v][k] = lod[k].index_count / 3;
        }
        for (int k = 0; k < 3; k++) _oak_tree_mesh_free(&lod[k]);
    }
    if (!r) {
        snprintf(name, sizeof name, "oak://tree_normal/%u", species);
        oak_texture_desc td = {.width = OAK_TREE_ATLAS_W,
                               .height = OAK_TREE_ATLAS_H,
                               .format = OAK_FORMAT_RGBA8,
                               .pixels = normal,
                               .name = name};
        r = oak_make_texture(&out->normal_map, &td);
    }
    if (!r) {
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.metallic = 0.0f;
        md.roughness = 0.85f;
        md.alpha_mode = OAK_ALPHA_MASK;
        md.alpha_cutoff = TREE_ALPHA_CUTOFF;
        md.base_color_tex.texture = out->atlas;
        md.base_color_tex.sampler.wrap_u = md.base_color_tex.sampler.wrap_v = OAK_WRAP_CLAMP;
        md.normal_tex.texture = out->normal_map;
        md.normal_tex.sampler = md.base_color_tex.sampler;
        snprintf(name, sizeof name, "tree %u", species);
        md.name = name;
        r = oak_make_material(&out->material, &md);
    }
    for (uint32_t v = 0; v < OAK_TREE_MAX_VARIANTS; v++) _oak_tree_free(&trees[v]);
    oak_free(albedo);
    oak_free(normal);
    if (r) {
        oak_destroy_tree_species(out);
        return r;
    }
    out->bake_ms = oak_ms_since(start);
    return OAK_OK;
}

/* ---- the forest ---------------------------------------------------------- */

typedef struct forest_tree {
    float local[2]; /* metres from the cell's low corner */
    float y, scale, yaw, phase;
    float color[3];
    uint8_t species, variant;
} forest_tree;

typedef struct forest_cell {
    int64_t ix, iz;
    bool valid;
    bool placed;  /* its trees are in the streams (each record's owner names it) */
    bool leaving; /* this update: its trees leave the streams */
    uint32_t count;
    forest_tree *trees; /* cell_cap of them */
} forest_cell;

/* a record no tree owns (a stream's hole while an update moves records) */
#define FOREST_HOLE UINT32_MAX

struct oak_forest {
    oak_scene *scene;
    oak_terrain *terrain;
    oak_forest_desc desc;
    const oak_rocks *rocks; /* trees keep off their footprints (NULL: none) */
    oak_tree_species species[OAK_TREE_SPECIES];
    oak_stream *streams[OAK_TREE_SPECIES][OAK_TREE_MAX_VARIANTS];
    uint32_t stream_cap;
    uint32_t grid, reach; /* slots a side; cells each side of the eye's */
    uint32_t cell_cap, strata;
    forest_cell *cells;
    forest_tree *tree_block;
    oak_instance *scratch; /* stream_cap records, reused per stream */
    uint32_t *order;       /* wanted slot indices this update */
    forest_cell **todo;    /* cells to generate this update */
    /* per stream, per record: its tree (slot * cell_cap + index in the
       cell), and the stream's count as placed */
    uint32_t *owner[OAK_TREE_SPECIES][OAK_TREE_MAX_VARIANTS];
    uint32_t placed_count[OAK_TREE_SPECIES][OAK_TREE_MAX_VARIANTS];
    uint32_t *holes, *dirty; /* stream_cap each, reused per stream */
    bool overfull;           /* the last refill dropped trees: the next refills all */
    int64_t eye_cell[2];
    double origin[2];
    bool placed;
    oak_forest_stats stats;
};

oak_forest_desc oak_forest_desc_defaults(const oak_forest_desc *desc) {
    oak_forest_desc d = desc ? *desc : (oak_forest_desc){0};
    if (d.density == 0) d.density = (float)OAK_FOREST_DENSITY;
    if (d.distance == 0) d.distance = (float)OAK_FOREST_DISTANCE;
    if (d.lod_distance[0] == 0) d.lod_distance[0] = 30.0f;
    if (d.lod_distance[1] == 0) d.lod_distance[1] = 90.0f;
    if (d.variants == 0) d.variants = 2;
    if (d.cover == 0) d.cover = 0.6f;
    return d;
}

static bool has_water(const oak_forest_desc *d) {
    return d->water_box[0] != 0 || d->water_box[1] != 0 || d->water_box[2] != 0 ||
           d->water_box[3] != 0;
}

/* Whether a tree may stand at world (wx, wz) on ground of height h and
   normal n: not steep (so never on rock), under the snow, out of the water. */
static bool ground_suits(const oak_forest_desc *d, double wx, double wz, float h,
                         const float n[3]) {
    if (!(n[1] >= TREE_MAX_SLOPE_NY) || !(h <= TREE_MAX_HEIGHT)) return false;
    if (has_water(d) && wx >= d->water_box[0] && wz >= d->water_box[1] && wx <= d->water_box[2] &&
        wz <= d->water_box[3] && h < d->water_level + TREE_WATER_MARGIN)
        return false;
    return true;
}

static float smoothf(float a, float b, float x) {
    float t = (x - a) / (b - a);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return t * t * (3 - 2 * t);
}

/* Fills one cell: a jittered strata x strata grid of candidates, each kept
   where the forest noise says wooded and the ground suits; species by
   height and noise; scale, turn and tint hashed. */
static void fill_cell(const oak_forest *f, forest_cell *c) {
    const oak_forest_desc *d = &f->desc;
    double cell = OAK_FOREST_CELL, step = cell / f->strata;
    double x0 = (double)c->ix * cell, z0 = (double)c->iz * cell;
    float expected = d->density * (float)(cell * cell / 10000.0);
    float chance = expected / (float)(f->strata * f->strata);
    /* the wooded share: noise in about [-0.6, 0.6], its median near 0 */
    float edge = 0.6f * (1.0f - 2.0f * d->cover);
    uint32_t seed = d->seed * 2654435761u;
    c->count = 0;
    for (uint32_t j = 0; j < f->strata; j++)
        for (uint32_t i = 0; i < f->strata; i++) {
            uint32_t key =
                (uint32_t)(c->ix * 73856093 ^ c->iz * 19349663) + j * f->strata + i + seed;
            key = _oak_world_hash_u32(key);
            if (_oak_world_hash01(key, 1) >= chance) continue;
            double lx = (i + _oak_world_hash01(key, 2)) * step,
                   lz = (j + _oak_world_hash01(key, 3)) * step;
            double wx = x0 + lx, wz = z0 + lz;
            float wood =
                (float)(0.65 * _oak_terrain_noise_periodic(wx / 420.0, wz / 420.0, 0, seed + 31u) +
                        0.35 * _oak_terrain_noise_periodic(wx / 130.0, wz / 130.0, 0, seed + 37u));
            if (wood < edge + 0.1f * (_oak_world_hash01(key, 4) - 0.5f)) continue;
            float h, n[3];
            if (oak_terrain_height(f->terrain, wx - f->origin[0], wz - f->origin[1], &h, n) ||
                !ground_suits(d, wx, wz, h, n))
                continue;
            /* off the rocks, which may stand anywhere the ground suits a tree */
            if (f->rocks && _oak_rocks_cover(f->rocks, wx, wz, TREE_ROCK_CLEARANCE)) continue;
            float mix = (float)_oak_terrain_noise_periodic(wx / 300.0, wz / 300.0, 0, seed + 41u);
            float w[OAK_TREE_SPECIES];
            w[OAK_TREE_PINE] = 0.12f + 1.6f * smoothf(25.0f, 80.0f, h);
            w[OAK_TREE_OAK] = (1.0f - smoothf(40.0f, 90.0f, h)) * fmaxf(0.0f, 0.5f + mix);
            w[OAK_TREE_BIRCH] = 0.3f + 0.4f * smoothf(-0.1f, 0.4f, wood);
            w[OAK_TREE_MAPLE] = (1.0f - smoothf(30.0f, 70.0f, h)) * fmaxf(0.0f, 0.5f - mix);
            float sum = 0, pick = _oak_world_hash01(key, 5);
            for (int s = 0; s < OAK_TREE_SPECIES; s++) sum += w[s];
            uint32_t sp = 0;
            for (float acc = 0; sp + 1 < OAK_TREE_SPECIES; sp++) {
                acc += w[sp] / sum;
                if (pick < acc) break;
            }
            forest_tree *t = &c->trees[c->count++];
            t->local[0] = (float)lx, t->local[1] = (float)lz;
            t->y = h - TREE_SINK;
            t->species = (uint8_t)sp;
            t->variant = (uint8_t)(_oak_world_hash_u32(key + 6u) % d->variants);
            t->scale = 0.75f + 0.5f * _oak_world_hash01(key, 7);
            t->yaw = 2.0f * OAK_PI * _oak_world_hash01(key, 8);
            t->phase = 2.0f * OAK_PI * _oak_world_hash01(key, 9);
            float tone = 0.85f + 0.3f * _oak_world_hash01(key, 10);
            t->color[0] = tone * (0.92f + 0.16f * _oak_world_hash01(key, 11));
            t->color[1] = tone;
            t->color[2] = tone * (0.9f + 0.1f * _oak_world_hash01(key, 12));
        }
}

static void fill_cells(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_forest *f = user;
    for (uint32_t i = begin; i < end; i++) fill_cell(f, f->todo[i]);
}

void oak_destroy_forest(oak_forest *f) {
    if (!f) return;
    /* the scene owns the streams: leave them empty, they draw nothing */
    for (int s = 0; s < OAK_TREE_SPECIES; s++)
        for (int v = 0; v < OAK_TREE_MAX_VARIANTS; v++)
            if (f->streams[s][v]) oak_stream_set_count(f->streams[s][v], 0);
    for (int s = 0; s < OAK_TREE_SPECIES; s++) oak_destroy_tree_species(&f->species[s]);
    oak_free(f->cells);
    oak_free(f->tree_block);
    oak_free(f->scratch);
    oak_free(f->order);
    oak_free(f->todo);
    for (int s = 0; s < OAK_TREE_SPECIES; s++)
        for (int v = 0; v < OAK_TREE_MAX_VARIANTS; v++) oak_free(f->owner[s][v]);
    oak_free(f->holes);
    oak_free(f->dirty);
    oak_free(f);
}

static int64_t floor_div(double x) {
    return (int64_t)floor(x / OAK_FOREST_CELL);
}

oak_result oak_make_forest(oak_forest **out, oak_scene *scene, oak_terrain *terrain,
                           const oak_forest_desc *desc) {
    if (!out || !scene || !terrain)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_forest: NULL %s",
                         !out ? "out" : (!scene ? "scene" : "terrain"));
    *out = NULL;
    oak_forest_desc d = oak_forest_desc_defaults(desc);
    if (!(d.density > 0 && d.density <= 10000) || !(d.distance > 0 && d.distance <= 20000) ||
        !(d.lod_distance[0] > 0 && d.lod_distance[1] > d.lod_distance[0] &&
          d.lod_distance[1] < d.distance) ||
        d.variants > OAK_TREE_MAX_VARIANTS || !(d.cover > 0 && d.cover <= 1))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "forest: density %g (0 .. 10000 a hectare), distance %g (0 .. 20000 m), "
                         "LOD distances %g < %g < distance, variants %u (1 .. %u), cover %g "
                         "(0 .. 1): out of range",
                         (double)d.density, (double)d.distance, (double)d.lod_distance[0],
                         (double)d.lod_distance[1], d.variants, OAK_TREE_MAX_VARIANTS,
                         (double)d.cover);
    oak_forest *f = oak_calloc(1, sizeof *f);
    if (!f) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "forest: no memory");
    f->scene = scene, f->terrain = terrain, f->desc = d;
    f->reach = (uint32_t)ceil(d.distance / OAK_FOREST_CELL);
    f->grid = 2 * f->reach + 3;
    float expected = d.density * (float)(OAK_FOREST_CELL * OAK_FOREST_CELL / 10000.0);
    f->strata = (uint32_t)ceilf(sqrtf(expected));
    if (f->strata < 1) f->strata = 1;
    f->cell_cap = f->strata * f->strata;
    size_t slots = (size_t)f->grid * f->grid;
    /* cells within the distance, and the streams' room: every tree of them
       could be one (species, variant) only in a forest of one species; a
       stream holds 0.7 / variants of all that the cells could hold */
    uint32_t wanted = 0;
    for (int64_t j = -(int64_t)f->reach - 1; j <= (int64_t)f->reach + 1; j++)
        for (int64_t i = -(int64_t)f->reach - 1; i <= (int64_t)f->reach + 1; i++) {
            double dx = fmax(0.0, fabs((double)i) - 1) * OAK_FOREST_CELL,
                   dz = fmax(0.0, fabs((double)j) - 1) * OAK_FOREST_CELL;
            wanted += dx * dx + dz * dz <= (double)d.distance * d.distance;
        }
    double cap = 0.7 * wanted * (double)expected / d.variants + 1024;
    f->stream_cap = cap > OAK_STREAM_MAX_INSTANCES ? OAK_STREAM_MAX_INSTANCES : (uint32_t)cap;
    f->cells = oak_calloc(slots, sizeof *f->cells);
    f->tree_block = oak_alloc(slots * f->cell_cap * sizeof *f->tree_block);
    f->scratch = oak_alloc((size_t)f->stream_cap * sizeof *f->scratch);
    f->order = oak_alloc(slots * sizeof *f->order);
    f->todo = oak_alloc(slots * sizeof *f->todo);
    f->holes = oak_alloc((size_t)f->stream_cap * sizeof *f->holes);
    f->dirty = oak_alloc((size_t)f->stream_cap * sizeof *f->dirty);
    bool owners = true;
    for (uint32_t s = 0; s < OAK_TREE_SPECIES; s++)
        for (uint32_t v = 0; v < d.variants; v++)
            owners &= (f->owner[s][v] = oak_alloc((size_t)f->stream_cap * sizeof(uint32_t))) != 0;
    oak_result r = OAK_OK;
    if (!f->cells || !f->tree_block || !f->scratch || !f->order || !f->todo || !f->holes ||
        !f->dirty || !owners)
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "forest: no memory for %zu cells", slots);
    for (size_t i = 0; i < slots && !r; i++) f->cells[i].trees = f->tree_block + i * f->cell_cap;
    uint64_t start = oak_time_ns();
    for (uint32_t s = 0; s < OAK_TREE_SPECIES && !r; s++)
        r = oak_make_tree_species(&f->species[s], s, d.variants, d.seed * 31u + s);
    f->stats.bake_ms = oak_ms_since(start);
    if (!r)
        oak_log(OAK_LOG_INFO,
                "forest: %u species of %u variants made in %.1f ms (atlases, meshes, "
                "impostor bakes)",
                OAK_TREE_SPECIES, d.variants, f->stats.bake_ms);
    for (uint32_t s = 0; s < OAK_TREE_SPECIES && !r; s++)
        for (uint32_t v = 0; v < d.variants && !r; v++) {
            oak_stream_desc sd = {.capacity = f->stream_cap,
                                  .lod_count = 3,
                                  .sway = FOREST_SWAY,
                                  .material = f->species[s].material,
                                  .flags = d.no_shadows ? OAK_DRAW_NO_SHADOW : 0};
            float dist[3] = {d.lod_distance[0], d.lod_distance[1], d.distance};
            for (int k = 0; k < 3; k++)
                sd.lods[k] = (oak_stream_lod){f->species[s].lods[v][k], dist[k]};
            r = oak_make_stream(&f->streams[s][v], &sd);
            /* the scene owns it from here, also when adding fails */
            if (!r) r = oak_scene_add_stream(scene, f->streams[s][v]);
            if (r) f->streams[s][v] = NULL;
        }
    if (r) {
        oak_destroy_forest(f);
        return r;
    }
    *out = f;
    return OAK_OK;
}

/* Tree t of the cell at (cx, cz) in scene metres as its stream's record. */
static void tree_record(oak_instance *rec, const forest_tree *t, double cx, double cz) {
    rec->position[0] = (float)(cx + t->local[0]);
    rec->position[1] = t->y;
    rec->position[2] = (float)(cz + t->local[1]);
    rec->scale = t->scale;
    rec->rotation[0] = rec->rotation[2] = 0;
    rec->rotation[1] = sinf(0.5f * t->yaw);
    rec->rotation[3] = cosf(0.5f * t->yaw);
    memcpy(rec->color, t->color, sizeof rec->color);
    rec->phase = t->phase;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* Stream (s, v) brought to the wanted cells by writing only the records
   that change: the leaving cells' records become holes, the arriving
   cells' trees (in the wanted order) fill the lowest holes and then go
   past the count, and holes left under the new count take the stream's
   last records. Each run of changed records is one logged write. False
   (nothing written) when the arrivals would pass the capacity. */
static bool stream_patch(oak_forest *f, uint32_t s, uint32_t v, uint32_t nw, const double o[2],
                         oak_result *r) {
    uint32_t *owner = f->owner[s][v], n = f->placed_count[s][v], nh = 0, nd = 0;
    uint32_t arriving = 0;
    for (uint32_t w = 0; w < nw; w++) {
        const forest_cell *c = &f->cells[f->order[w]];
        if (c->placed) continue;
        for (uint32_t k = 0; k < c->count; k++)
            arriving += c->trees[k].species == s && c->trees[k].variant == v;
    }
    for (uint32_t i = 0; i < n; i++)
        if (f->cells[owner[i] / f->cell_cap].leaving) f->holes[nh++] = i;
    if ((uint64_t)n - nh + arriving > f->stream_cap) return false;
    for (uint32_t i = 0; i < nh; i++) owner[f->holes[i]] = FOREST_HOLE;
    uint32_t lo = 0; /* the next hole to fill, lowest first */
    for (uint32_t w = 0; w < nw; w++) {
        forest_cell *c = &f->cells[f->order[w]];
        if (c->placed) continue;
        for (uint32_t k = 0; k < c->count; k++) {
            forest_tree *t = &c->trees[k];
            if (t->species != s || t->variant != v) continue;
            uint32_t at = lo < nh ? f->holes[lo++] : n++;
            owner[at] = f->order[w] * f->cell_cap + k;
            f->dirty[nd++] = at;
        }
    }
    /* holes left: the last records move down into the lowest of them */
    for (uint32_t hi = nh; lo < hi;) {
        if (owner[n - 1] == FOREST_HOLE) { /* the highest hole is the last record */
            n--, hi--;
            continue;
        }
        uint32_t at = f->holes[lo++], from = --n;
        owner[at] = owner[from];
        f->dirty[nd++] = at;
    }
    qsort(f->dirty, nd, sizeof *f->dirty, cmp_u32);
    for (uint32_t i = 0; i < nd && !*r;) {
        uint32_t j = i;
        do {
            uint32_t t = owner[f->dirty[j]];
            const forest_cell *c = &f->cells[t / f->cell_cap];
            tree_record(&f->scratch[j - i], &f->tree_block[t],
                        (double)c->ix * OAK_FOREST_CELL - o[0],
                        (double)c->iz * OAK_FOREST_CELL - o[1]);
            j++;
        } while (j < nd && f->dirty[j] == f->dirty[j - 1] + 1);
        *r = oak_stream_write(f->streams[s][v], f->dirty[i], f->scratch, j - i);
        i = j;
    }
    if (!*r) *r = oak_stream_set_count(f->streams[s][v], n);
    f->placed_count[s][v] = n;
    return true;
}

/* Stream (s, v) written whole: every wanted cell's trees in the wanted
   order, those past the capacity dropped (and counted). */
static oak_result stream_refill(oak_forest *f, uint32_t s, uint32_t v, uint32_t nw,
                                const double o[2]) {
    uint32_t n = 0, *owner = f->owner[s][v];
    for (uint32_t w = 0; w < nw; w++) {
        forest_cell *c = &f->cells[f->order[w]];
        double cx = (double)c->ix * OAK_FOREST_CELL - o[0],
               cz = (double)c->iz * OAK_FOREST_CELL - o[1];
        for (uint32_t k = 0; k < c->count; k++) {
            forest_tree *t = &c->trees[k];
            if (t->species != s || t->variant != v) continue;
            if (n == f->stream_cap) {
                f->stats.dropped++;
                continue;
            }
            owner[n] = f->order[w] * f->cell_cap + k;
            tree_record(&f->scratch[n++], t, cx, cz);
        }
    }
    f->placed_count[s][v] = n;
    oak_result r = oak_stream_write(f->streams[s][v], 0, f->scratch, n);
    if (!r) r = oak_stream_set_count(f->streams[s][v], n);
    return r;
}

oak_result oak_forest_update(oak_forest *f, const float eye[3]) {
    if (!f || !eye)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_forest_update: NULL argument");
    if (!isfinite(eye[0]) || !isfinite(eye[2]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_forest_update: eye is not finite");
    double origin[2];
    oak_terrain_origin(f->terrain, origin);
    double wx = eye[0] + origin[0], wz = eye[2] + origin[1];
    if (!(fabs(wx) <= OAK_TERRAIN_MAX_WORLD) || !(fabs(wz) <= OAK_TERRAIN_MAX_WORLD))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_forest_update: eye past %g m from the world origin",
                         OAK_TERRAIN_MAX_WORLD);
    int64_t ex = floor_div(wx), ez = floor_div(wz);
    bool rebased = origin[0] != f->origin[0] || origin[1] != f->origin[1];
    f->stats.generated = 0;
    if (f->placed && ex == f->eye_cell[0] && ez == f->eye_cell[1] && !rebased) return OAK_OK;
    bool whole = !f->placed || rebased || f->overfull;
    f->origin[0] = origin[0], f->origin[1] = origin[1];
    f->eye_cell[0] = ex, f->eye_cell[1] = ez;
    /* every kept cell leaves unless wanted again below as it is */
    uint32_t slots = f->grid * f->grid;
    for (uint32_t i = 0; i < slots; i++) f->cells[i].leaving = f->cells[i].placed;
    /* the cells whose square comes within the distance of the eye's cell */
    uint32_t nw = 0, nt = 0, g = f->grid;
    double dist2 = (double)f->desc.distance * f->desc.distance;
    int64_t reach = f->reach;
    for (int64_t j = -reach - 1; j <= reach + 1; j++)
        for (int64_t i = -reach - 1; i <= reach + 1; i++) {
            double dx = fmax(0.0, fabs((double)i) - 1) * OAK_FOREST_CELL,
                   dz = fmax(0.0, fabs((double)j) - 1) * OAK_FOREST_CELL;
            if (dx * dx + dz * dz > dist2) continue;
            int64_t cx = ex + i, cz = ez + j;
            uint32_t slot = (uint32_t)(((cz % g) + g) % g) * g + (uint32_t)(((cx % g) + g) % g);
            forest_cell *c = &f->cells[slot];
            f->order[nw++] = slot;
            if (!c->valid || c->ix != cx || c->iz != cz) {
                c->ix = cx, c->iz = cz, c->valid = true;
                f->todo[nt++] = c;
            } else {
                c->leaving = false; /* stays as it is (placed or not) */
            }
        }
    /* a cell regenerated in its slot left first: placed is false from here
       for every leaving cell (its old records are found by their owner) */
    for (uint32_t i = 0; i < slots; i++)
        if (f->cells[i].leaving) f->cells[i].placed = false;
    /* cells are independent and the terrain query is read-only */
    if (nt) oak_parallel_for(nt, 4, fill_cells, f);
    f->stats.generated = nt;
    f->stats.cells = nw;
    f->stats.trees = f->stats.dropped = 0;
    memset(f->stats.per_species, 0, sizeof f->stats.per_species);
    /* on a crossing each stream writes only what came and went; the first
       placement, a rebase (every position moves) and a stream that would
       pass its capacity write every stream whole, one at a time through the
       scratch records, cells in the wanted order */
    oak_result r = OAK_OK;
    for (uint32_t s = 0; s < OAK_TREE_SPECIES && !whole && !r; s++)
        for (uint32_t v = 0; v < f->desc.variants && !whole && !r; v++)
            whole = !stream_patch(f, s, v, nw, origin, &r);
    if (whole && !r) {
        for (uint32_t i = 0; i < slots; i++) f->cells[i].placed = false;
        for (uint32_t s = 0; s < OAK_TREE_SPECIES && !r; s++)
            for (uint32_t v = 0; v < f->desc.variants && !r; v++)
                r = stream_refill(f, s, v, nw, origin);
        f->overfull = f->stats.dropped > 0;
    }
    for (uint32_t w = 0; w < nw; w++) f->cells[f->order[w]].placed = !r;
    for (uint32_t s = 0; s < OAK_TREE_SPECIES; s++)
        for (uint32_t v = 0; v < f->desc.variants; v++) {
            f->stats.trees += f->placed_count[s][v];
            f->stats.per_species[s] += f->placed_count[s][v];
        }
    f->placed = !r;
    return r;
}

void _oak_forest_set_rocks(oak_forest *f, const oak_rocks *k) {
    if (!f || f->rocks == k) return;
    f->rocks = k;
    /* every cell made again, and every stream written whole, next update */
    for (uint32_t i = 0; i < f->grid * f->grid; i++) f->cells[i].valid = false;
    f->placed = false;
}

void oak_forest_get_stats(oak_forest_stats *out, const oak_forest *f) {
    if (!out) return;
    if (f)
        *out = f->stats;
    else
        memset(out, 0, sizeof *out);
}

const oak_tree_species *oak_forest_species(const oak_forest *f, uint32_t species) {
    return f && species < OAK_TREE_SPECIES ? &f->species[species] : NULL;
}

oak_stream *oak_forest_stream(const oak_forest *f, uint32_t species, uint32_t variant) {
    return f && species < OAK_TREE_SPECIES && variant < f->desc.variants
               ? f->streams[species][variant]
               : NULL;
}
