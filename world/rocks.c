/* Rocks over a terrain (docs/WORLD.md "Rocks"): OAK_ROCK_KINDS meshes made
 * at load by the dense world's generator (world/dense.c), each with a
 * simplified LOD (meshoptimizer), placed in cells around the eye by noise
 * and by the ground, sunk into it, and drawn through one instance stream
 * per kind that casts sun shadows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <meshoptimizer.h>

#include "world/internal.h"
#include "world/rocks_internal.h"
#include "world/terrain_internal.h"

#define ROCK_SUBDIVISIONS 4     /* 5,120 triangles the full mesh */
#define ROCK_SIMPLIFY     8     /* the simplified mesh: an eighth of them */
#define ROCK_SIMPLIFY_ERR 0.05f /* of the unit rock's extent */
#define ROCK_SEED         101u  /* the generator's seeds: ROCK_SEED + kind */
#define ROCK_MIN_SIZE     0.5f  /* metres across, smallest */
#define ROCK_MAX_SIZE     4.0f  /* and largest */
#define ROCK_WATER_MARGIN 0.3f  /* metres of ground above the water's level */
#define ROCK_SLOPE_SINK   0.3f  /* most share of the height a slope sinks a rock more */

typedef struct rock_rec {
    float local[2]; /* metres from the cell's low corner */
    float y, scale, yaw;
    float reach; /* metres its footprint reaches from its centre (half across) */
    float color[3];
    uint8_t kind;
} rock_rec;

typedef struct rock_cell {
    int64_t ix, iz;
    bool valid;
    uint32_t count;
    rock_rec *rocks; /* cell_cap of them */
} rock_cell;

struct oak_rocks {
    oak_scene *scene;
    oak_terrain *terrain;
    oak_rocks_desc desc;
    oak_mesh lods[OAK_ROCK_KINDS][2];
    float bottom[OAK_ROCK_KINDS]; /* the unit mesh's lowest y */
    float height[OAK_ROCK_KINDS]; /* its extent in y */
    float radius[OAK_ROCK_KINDS]; /* its reach in x-z from its axis */
    oak_material material;
    oak_stream *streams[OAK_ROCK_KINDS];
    uint32_t stream_cap;
    uint32_t grid, reach; /* slots a side; cells each side of the eye's */
    uint32_t cell_cap, strata;
    rock_cell *cells;
    rock_rec *block;
    oak_instance *scratch[OAK_ROCK_KINDS]; /* stream_cap records each */
    uint32_t *order;                       /* wanted slots this update */
    rock_cell **todo;                      /* cells to generate this update */
    int64_t eye_cell[2];
    double origin[2];
    bool placed;
    oak_rocks_stats stats;
};

oak_rocks_desc oak_rocks_desc_defaults(const oak_rocks_desc *desc) {
    oak_rocks_desc d = desc ? *desc : (oak_rocks_desc){0};
    if (d.density == 0) d.density = OAK_ROCK_DENSITY;
    if (d.distance == 0) d.distance = 400.0f;
    if (d.lod_distance == 0) d.lod_distance = 40.0f;
    return d;
}

float oak_rocks_sink(float height, float radius, float normal_y) {
    float ny = normal_y > 0.05f ? (normal_y < 1 ? normal_y : 1) : 0.05f;
    float slope = sqrtf(1 - ny * ny) / ny; /* the ground's drop a metre across */
    float more = fminf(0.5f * slope * radius, ROCK_SLOPE_SINK * height);
    return OAK_ROCK_SINK * height + more;
}

static bool has_water(const oak_rocks_desc *d) {
    return d->water_box[0] != 0 || d->water_box[1] != 0 || d->water_box[2] != 0 ||
           d->water_box[3] != 0;
}

static float smoothf(float a, float b, float x) {
    float t = (x - a) / (b - a);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return t * t * (3 - 2 * t);
}

/* The share of the density the ground at height h with normal n takes:
   steep slopes and high ground the most, level low meadow a little, in
   patches by noise; 0 under water. */
static float ground_weight(const oak_rocks_desc *d, double wx, double wz, float h, const float n[3],
                           uint32_t seed) {
    if (has_water(d) && wx >= d->water_box[0] && wz >= d->water_box[1] && wx <= d->water_box[2] &&
        wz <= d->water_box[3] && h < d->water_level + ROCK_WATER_MARGIN)
        return 0;
    float steep = smoothf(0.01f, 0.08f, 1.0f - n[1]);
    float high = smoothf(15.0f, 60.0f, h);
    float patch = (float)_oak_terrain_noise_periodic(wx / 90.0, wz / 90.0, 0, seed + 53u);
    return (0.2f + 0.8f * fmaxf(steep, high)) * (0.25f + 0.75f * smoothf(-0.3f, 0.3f, patch));
}

/* Rock candidates a cell side holds at most: the density's ceiling (1000 a
   hectare) over a cell, rounded up to a square (make checks it). */
#define ROCK_STRATA_MAX 11

/* One cell's rocks into out (cell_cap of them): a jittered strata x strata
   grid of candidates, each kept by the ground's weight of the density;
   kind, size, turn and tint hashed. With `rect` (world x0, z0, x1, z1), only
   the rocks whose footprint reaches it, the rest turned away before the
   ground is asked (the plants' exclusion asks for a square at a time). The
   ground is asked at the world point, so the rocks are the same at any
   origin. */
static uint32_t fill_rocks(const oak_rocks *k, int64_t ix, int64_t iz, const double *rect,
                           rock_rec *out) {
    const oak_rocks_desc *d = &k->desc;
    double cell = OAK_ROCK_CELL, step = cell / k->strata;
    double x0 = (double)ix * cell, z0 = (double)iz * cell;
    float chance = d->density * (float)(cell * cell / 10000.0) / (float)(k->strata * k->strata);
    uint32_t seed = d->seed * 2654435761u + 0x5bd1e995u, count = 0;
    for (uint32_t j = 0; j < k->strata; j++)
        for (uint32_t i = 0; i < k->strata; i++) {
            uint32_t key = (uint32_t)(ix * 83492791 ^ iz * 50331653) + j * k->strata + i + seed;
            key = _oak_world_hash_u32(key);
            float roll = _oak_world_hash01(key, 1);
            if (roll >= chance) continue;
            double lx = (i + _oak_world_hash01(key, 2)) * step,
                   lz = (j + _oak_world_hash01(key, 3)) * step;
            double wx = x0 + lx, wz = z0 + lz;
            uint8_t kind = (uint8_t)(_oak_world_hash_u32(key + 4u) % OAK_ROCK_KINDS);
            /* most are small: across = min (max/min)^(u^2) */
            float u = _oak_world_hash01(key, 5);
            float across = ROCK_MIN_SIZE * powf(ROCK_MAX_SIZE / ROCK_MIN_SIZE, u * u);
            if (rect) { /* the footprint's nearest point to the rectangle */
                double ex = fmax(fmax(rect[0] - wx, 0), wx - rect[2]),
                       ez = fmax(fmax(rect[1] - wz, 0), wz - rect[3]);
                if (ex * ex + ez * ez > 0.25 * across * across) continue;
            }
            float h, n[3];
            if (_oak_terrain_height_world(k->terrain, wx, wz, &h, n)) continue;
            if (roll >= chance * ground_weight(d, wx, wz, h, n, seed)) continue;
            rock_rec *r = &out[count++];
            r->kind = kind;
            r->reach = 0.5f * across;
            r->scale = across / (2.0f * k->radius[r->kind]);
            float sink =
                oak_rocks_sink(k->height[r->kind] * r->scale, k->radius[r->kind] * r->scale, n[1]);
            r->y = h - sink - k->bottom[r->kind] * r->scale;
            r->local[0] = (float)lx, r->local[1] = (float)lz;
            r->yaw = 2.0f * OAK_PI * _oak_world_hash01(key, 6);
            /* grey-brown: a tone and a little warmth or coolness each */
            float tone = 0.75f + 0.45f * _oak_world_hash01(key, 7),
                  warm = 0.08f * (_oak_world_hash01(key, 8) - 0.5f);
            r->color[0] = tone * (1 + warm), r->color[1] = tone, r->color[2] = tone * (1 - warm);
        }
    return count;
}

static void fill_cell(const oak_rocks *k, rock_cell *c) {
    c->count = fill_rocks(k, c->ix, c->iz, NULL, c->rocks);
}

uint32_t _oak_rocks_discs(const oak_rocks *k, double x0, double z0, double x1, double z1,
                          _oak_rock_disc *out, uint32_t cap) {
    if (!k) return 0;
    rock_rec rocks[ROCK_STRATA_MAX * ROCK_STRATA_MAX];
    const double rect[4] = {x0, z0, x1, z1}, reach = 0.5 * ROCK_MAX_SIZE;
    int64_t cx0 = (int64_t)floor((x0 - reach) / OAK_ROCK_CELL),
            cx1 = (int64_t)floor((x1 + reach) / OAK_ROCK_CELL),
            cz0 = (int64_t)floor((z0 - reach) / OAK_ROCK_CELL),
            cz1 = (int64_t)floor((z1 + reach) / OAK_ROCK_CELL);
    uint32_t n = 0;
    for (int64_t iz = cz0; iz <= cz1; iz++)
        for (int64_t ix = cx0; ix <= cx1; ix++) {
            uint32_t m = fill_rocks(k, ix, iz, rect, rocks);
            for (uint32_t q = 0; q < m; q++, n++)
                if (n < cap)
                    out[n] = (_oak_rock_disc){(double)ix * OAK_ROCK_CELL + rocks[q].local[0],
                                              (double)iz * OAK_ROCK_CELL + rocks[q].local[1],
                                              rocks[q].reach};
        }
    return n;
}

bool _oak_rocks_cover(const oak_rocks *k, double x, double z, float clearance) {
    /* a rock reaching the point's square of the clearance, then the disc */
    _oak_rock_disc d[64];
    double c = clearance;
    uint32_t n = _oak_rocks_discs(k, x - c, z - c, x + c, z + c, d, 64);
    for (uint32_t q = 0; q < n && q < 64; q++) {
        double dx = x - d[q].x, dz = z - d[q].z, r = (double)d[q].r + c;
        if (dx * dx + dz * dz < r * r) return true;
    }
    return false;
}

static void fill_cells(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    oak_rocks *k = user;
    for (uint32_t i = begin; i < end; i++) fill_cell(k, k->todo[i]);
}

void oak_destroy_rocks(oak_rocks *k) {
    if (!k) return;
    /* the scene owns the streams: leave them empty, they draw nothing */
    for (int s = 0; s < OAK_ROCK_KINDS; s++)
        if (k->streams[s]) oak_stream_set_count(k->streams[s], 0);
    for (int s = 0; s < OAK_ROCK_KINDS; s++)
        for (int l = 0; l < 2; l++)
            if (k->lods[s][l].id) oak_destroy_mesh(k->lods[s][l]);
    if (k->material.id) oak_destroy_material(k->material);
    oak_free(k->cells);
    oak_free(k->block);
    for (int s = 0; s < OAK_ROCK_KINDS; s++) oak_free(k->scratch[s]);
    oak_free(k->order);
    oak_free(k->todo);
    oak_free(k);
}

/* Kind s's two meshes from the dense generator: the full one and one
   simplified by edge collapses to about an eighth of its triangles. */
static oak_result make_kind(oak_rocks *k, uint32_t s) {
    _oak_rock_geometry g;
    oak_result r = _oak_world_rock_geometry(&g, ROCK_SUBDIVISIONS, ROCK_SEED + s);
    if (r) return r;
    float lo = INFINITY, hi = -INFINITY, rad = 0;
    for (uint32_t v = 0; v < g.vertex_count; v++) {
        const float *p = g.pos + 3 * (size_t)v;
        lo = fminf(lo, p[1]), hi = fmaxf(hi, p[1]);
        rad = fmaxf(rad, sqrtf(p[0] * p[0] + p[2] * p[2]));
    }
    k->bottom[s] = lo, k->height[s] = hi - lo, k->radius[s] = rad;
    char name[32];
    snprintf(name, sizeof name, "rock %u lod 0", s);
    oak_mesh_desc md = {.vertex_count = g.vertex_count,
                        .positions = g.pos,
                        .normals = g.nrm,
                        .indices = g.ix,
                        .index_count = g.index_count,
                        .name = name};
    r = oak_make_mesh(&k->lods[s][0], &md);
    uint32_t *dst = r ? NULL : oak_alloc(sizeof *dst * g.index_count);
    if (!r && !dst) r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "rocks: no memory");
    if (!r) {
        /* the generator's vertices are shared (a welded, closed surface) */
        size_t n =
            meshopt_simplify(dst, g.ix, g.index_count, g.pos, g.vertex_count, 3 * sizeof(float),
                             g.index_count / ROCK_SIMPLIFY, ROCK_SIMPLIFY_ERR, 0, NULL);
        snprintf(name, sizeof name, "rock %u lod 1", s);
        md.indices = dst, md.index_count = (uint32_t)n;
        r = n ? oak_make_mesh(&k->lods[s][1], &md)
              : oak_error(OAK_ERROR_INVALID_ARGUMENT, "rocks: kind %u simplified to nothing", s);
        k->stats.triangles[s][0] = g.index_count / 3;
        k->stats.triangles[s][1] = (uint32_t)n / 3;
    }
    oak_free(dst);
    _oak_world_rock_geometry_free(&g);
    return r;
}

oak_result oak_make_rocks(oak_rocks **out, oak_scene *scene, oak_terrain *terrain,
                          const oak_rocks_desc *desc) {
    if (!out || !scene || !terrain)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_rocks: NULL %s",
                         !out ? "out" : (!scene ? "scene" : "terrain"));
    *out = NULL;
    oak_rocks_desc d = oak_rocks_desc_defaults(desc);
    if (!(d.density > 0 && d.density <= 1000) || !(d.distance > 0 && d.distance <= 5000) ||
        !(d.lod_distance > 0 && d.lod_distance < d.distance) || !isfinite(d.water_level))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "rocks: density %g (0 .. 1000 a hectare), distance %g (0 .. 5000 m), "
                         "LOD distance %g (0 .. distance) or water level %g out of range",
                         (double)d.density, (double)d.distance, (double)d.lod_distance,
                         (double)d.water_level);
    oak_rocks *k = oak_calloc(1, sizeof *k);
    if (!k) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "rocks: no memory");
    k->scene = scene, k->terrain = terrain, k->desc = d;
    k->reach = (uint32_t)ceil(d.distance / OAK_ROCK_CELL);
    k->grid = 2 * k->reach + 3;
    float expected = d.density * (float)(OAK_ROCK_CELL * OAK_ROCK_CELL / 10000.0);
    k->strata = (uint32_t)ceilf(sqrtf(expected));
    if (k->strata < 1) k->strata = 1;
    if (k->strata > ROCK_STRATA_MAX) k->strata = ROCK_STRATA_MAX; /* not at 1000 a hectare */
    k->cell_cap = k->strata * k->strata;
    size_t slots = (size_t)k->grid * k->grid;
    /* room: every wanted cell at the full density, a kind's share and half
       again (the ground takes the full density only on steep high ground) */
    double area = OAK_PI * pow(d.distance + 1.5 * OAK_ROCK_CELL, 2) / 10000.0;
    double cap = 1.5 * area * d.density / OAK_ROCK_KINDS + 256;
    k->stream_cap = cap > OAK_STREAM_MAX_INSTANCES ? OAK_STREAM_MAX_INSTANCES : (uint32_t)cap;
    k->cells = oak_calloc(slots, sizeof *k->cells);
    k->block = oak_alloc(slots * k->cell_cap * sizeof *k->block);
    k->order = oak_alloc(slots * sizeof *k->order);
    k->todo = oak_alloc(slots * sizeof *k->todo);
    bool scratch = true;
    for (int s = 0; s < OAK_ROCK_KINDS; s++)
        scratch &= (k->scratch[s] = oak_alloc((size_t)k->stream_cap * sizeof(oak_instance))) != 0;
    oak_result r = OAK_OK;
    if (!k->cells || !k->block || !k->order || !k->todo || !scratch)
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "rocks: no memory for %zu cells", slots);
    for (size_t i = 0; i < slots && !r; i++) k->cells[i].rocks = k->block + i * k->cell_cap;
    uint64_t start = oak_time_ns();
    for (uint32_t s = 0; s < OAK_ROCK_KINDS && !r; s++) r = make_kind(k, s);
    if (!r) {
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.base_color[0] = 0.40f, md.base_color[1] = 0.37f, md.base_color[2] = 0.33f;
        md.metallic = 0.0f;
        md.roughness = 0.9f;
        md.name = "rock";
        r = oak_make_material(&k->material, &md);
    }
    if (!r)
        oak_log(OAK_LOG_INFO, "rocks: %u kinds of %u and %u triangles made in %.1f ms",
                OAK_ROCK_KINDS, k->stats.triangles[0][0], k->stats.triangles[0][1],
                oak_ms_since(start));
    for (uint32_t s = 0; s < OAK_ROCK_KINDS && !r; s++) {
        oak_stream_desc sd = {.capacity = k->stream_cap,
                              .lod_count = 2,
                              .material = k->material,
                              .flags = d.no_shadows ? OAK_DRAW_NO_SHADOW : 0};
        sd.lods[0] = (oak_stream_lod){k->lods[s][0], d.lod_distance};
        sd.lods[1] = (oak_stream_lod){k->lods[s][1], d.distance};
        r = oak_make_stream(&k->streams[s], &sd);
        /* the scene owns it from here, also when adding fails */
        if (!r) r = oak_scene_add_stream(scene, k->streams[s]);
        if (r) k->streams[s] = NULL;
    }
    if (r) {
        oak_destroy_rocks(k);
        return r;
    }
    *out = k;
    return OAK_OK;
}

static int64_t floor_div(double x) {
    return (int64_t)floor(x / OAK_ROCK_CELL);
}

oak_result oak_rocks_update(oak_rocks *k, const float eye[3]) {
    if (!k || !eye) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_rocks_update: NULL argument");
    if (!isfinite(eye[0]) || !isfinite(eye[2]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_rocks_update: eye is not finite");
    double origin[2];
    oak_terrain_origin(k->terrain, origin);
    double wx = eye[0] + origin[0], wz = eye[2] + origin[1];
    if (!(fabs(wx) <= OAK_TERRAIN_MAX_WORLD) || !(fabs(wz) <= OAK_TERRAIN_MAX_WORLD))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_rocks_update: eye past %g m from the world origin",
                         OAK_TERRAIN_MAX_WORLD);
    int64_t ex = floor_div(wx), ez = floor_div(wz);
    bool rebased = origin[0] != k->origin[0] || origin[1] != k->origin[1];
    k->stats.generated = 0;
    if (k->placed && ex == k->eye_cell[0] && ez == k->eye_cell[1] && !rebased) return OAK_OK;
    k->origin[0] = origin[0], k->origin[1] = origin[1];
    k->eye_cell[0] = ex, k->eye_cell[1] = ez;
    /* the cells whose square comes within the distance of the eye's cell */
    uint32_t nw = 0, nt = 0, g = k->grid;
    double dist2 = (double)k->desc.distance * k->desc.distance;
    int64_t reach = k->reach;
    for (int64_t j = -reach - 1; j <= reach + 1; j++)
        for (int64_t i = -reach - 1; i <= reach + 1; i++) {
            double dx = fmax(0.0, fabs((double)i) - 1) * OAK_ROCK_CELL,
                   dz = fmax(0.0, fabs((double)j) - 1) * OAK_ROCK_CELL;
            if (dx * dx + dz * dz > dist2) continue;
            int64_t cx = ex + i, cz = ez + j;
            uint32_t slot = (uint32_t)(((cz % g) + g) % g) * g + (uint32_t)(((cx % g) + g) % g);
            rock_cell *c = &k->cells[slot];
            k->order[nw++] = slot;
            if (!c->valid || c->ix != cx || c->iz != cz) {
                c->ix = cx, c->iz = cz, c->valid = true;
                k->todo[nt++] = c;
            }
        }
    /* cells are independent and the terrain query is read-only; a cell's
       heights are world heights (the origin moves in x and z alone), so
       kept cells stay right across a rebase */
    if (nt) oak_parallel_for(nt, 4, fill_cells, k);
    k->stats.generated = nt;
    k->stats.cells = nw;
    /* every stream whole, cells in the wanted order, at the origin now */
    uint32_t n[OAK_ROCK_KINDS] = {0};
    k->stats.dropped = 0;
    for (uint32_t w = 0; w < nw; w++) {
        const rock_cell *c = &k->cells[k->order[w]];
        double cx = (double)c->ix * OAK_ROCK_CELL - origin[0],
               cz = (double)c->iz * OAK_ROCK_CELL - origin[1];
        for (uint32_t q = 0; q < c->count; q++) {
            const rock_rec *t = &c->rocks[q];
            if (n[t->kind] == k->stream_cap) {
                k->stats.dropped++;
                continue;
            }
            oak_instance *rec = &k->scratch[t->kind][n[t->kind]++];
            rec->position[0] = (float)(cx + t->local[0]);
            rec->position[1] = t->y;
            rec->position[2] = (float)(cz + t->local[1]);
            rec->scale = t->scale;
            rec->rotation[0] = rec->rotation[2] = 0;
            rec->rotation[1] = sinf(0.5f * t->yaw);
            rec->rotation[3] = cosf(0.5f * t->yaw);
            memcpy(rec->color, t->color, sizeof rec->color);
            rec->phase = 0;
        }
    }
    oak_result r = OAK_OK;
    k->stats.rocks = 0;
    for (uint32_t s = 0; s < OAK_ROCK_KINDS && !r; s++) {
        r = oak_stream_write(k->streams[s], 0, k->scratch[s], n[s]);
        if (!r) r = oak_stream_set_count(k->streams[s], n[s]);
        k->stats.per_kind[s] = n[s];
        k->stats.rocks += n[s];
    }
    k->placed = !r;
    return r;
}

void oak_rocks_get_stats(oak_rocks_stats *out, const oak_rocks *k) {
    if (!out) return;
    if (k)
        *out = k->stats;
    else
        memset(out, 0, sizeof *out);
}

oak_stream *oak_rocks_stream(const oak_rocks *k, uint32_t kind) {
    return k && kind < OAK_ROCK_KINDS ? k->streams[kind] : NULL;
}
