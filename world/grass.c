/* Grass and flowers over a terrain (docs/WORLD.md "Grass"; DIGEST 4.2, 4.3):
 * a clump instance per OAK_GRASS_PATCH square where the terrain's material
 * rule says grass, grown per tile square on the job pool within a budget
 * straight into the square's slot of two instance streams (a clump mesh
 * per LOD band, wind, sink); the host keeps only each square's slot and
 * counts. On vulkan and gl the grass kernel grows the squares on the
 * device from each square's job (_oak_grass_square_job, the streams'
 * grass jobs) and the host's copy is grown only when read. */
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "render/stream.h"
#include "world/grass_internal.h"
#include "world/internal.h"
#include "world/rocks_internal.h"
#include "world/terrain_internal.h"

#define LODS         4
#define FLOWER_LODS  2
#define SIDE         32 /* blades a side of the nearest clump's grid: SIDE^2 = OAK_GRASS_BLADES */
#define FLOWER_HEADS 5  /* flowers in one flower clump */
#define FLOWER_SHARE 0.12f  /* of lush patches that also grow a flower clump */
#define FLOWER_REACH 150.0f /* metres flowers reach at most */
#define ROOT_DEPTH   0.03f  /* metres an instance's origin lies under the ground */
#define SINK_SHARE   0.15f  /* of the last band's end over which instances sink */
#define WATER_MARGIN 0.2f   /* metres above the lake's level still too wet */
#define DRY_DENSITY  0.5f   /* dry grass grows half as dense as lush */
/* rock footprints asked for a square before the largest OAK_GPU_GRASS_ROCKS
   are kept (the default density's square meets about ten) */
#define ROCKS_ASKED 512
/* floats in a square's grid of heights (the kernel's largest) */
#define GRID_FLOATS ((OAK_GPU_GRASS_CELLS + 1) * (OAK_GPU_GRASS_CELLS + 1))
#define GRID_MAX    64 /* finest terrain cells a side of a square grown from one height grid */

_Static_assert(SIDE *SIDE == OAK_GRASS_BLADES, "the nearest clump is a SIDE x SIDE grid");

/* one tile square: its slot in both streams (records slot * slot_size[s]
   .. + slot_size[s], grown ones first in patch order, the rest zero, which
   every cull skips) and how many grew */
typedef struct gtile {
    int64_t ix, iz;
    uint32_t slot;
    uint32_t grass_count, flower_count;
    bool host; /* its records grown in the host's copy (else the device's alone) */
} gtile;

typedef struct request {
    int64_t ix, iz;
    double distance;
} request;

struct oak_grass {
    oak_scene *scene;
    oak_terrain *terrain;
    oak_grass_desc desc;
    const oak_rocks *rocks; /* no patch grows inside their footprints (NULL: none) */
    double tile;            /* metres a side of a tile square (the terrain's finest tile) */
    uint32_t per;           /* patches a side of a tile square */
    oak_stream *stream[2];
    oak_mesh meshes[LODS + FLOWER_LODS];
    oak_material material[2];
    float lod_distance[LODS];
    uint32_t blades[LODS];
    gtile *tiles;
    uint32_t tile_count, tile_cap;
    int32_t *table; /* open addressing over tiles: index or -1 */
    uint32_t table_mask;
    request *req;
    uint32_t req_cap;
    uint32_t slot_size[2]; /* records a square's slot holds in each stream */
    uint32_t slots;        /* slots each stream holds */
    uint8_t *slot_used;
    /* highest slot in use + 1 (on the device: ever): the counts are this many slots */
    uint32_t slot_top;
    uint32_t grid;         /* finest terrain cells a side of a square (0: a query per patch) */
    double cell;           /* metres between the finest grid's points */
    uint32_t instances[2]; /* records grown in the live squares */
    double written_origin[2];
    bool written;
    /* the device grows the squares (the grass kernel, through the streams'
       grass jobs); the host grows its copy only when it is read */
    bool device;
    int32_t *slot_tile; /* per slot: its live tile's index, or -1 */
    /* per slot, its square's grid of heights for the device's jobs (made
       on the job pool in the update the square arrived: slot_grid_ok) */
    float *slot_grid;
    uint8_t *slot_grid_ok;
    /* and its rocks' footprints (rock_discs), made with the grid */
    float (*slot_rocks)[OAK_GPU_GRASS_ROCKS][4];
    uint32_t *slot_rock_count;
    /* set by the first device job (a GPU backend grows the squares): from
       then on each update makes the live squares' missing grids; a cpu or
       null frame never asks, and no grid is made */
    atomic_bool *jobs_asked;
    oak_grass_stats stats;
};

oak_grass_desc oak_grass_desc_defaults(const oak_grass_desc *desc) {
    oak_grass_desc d = desc ? *desc : (oak_grass_desc){0};
    if (d.plants == 0) d.plants = 1;
    if (d.distance == 0) d.distance = (float)OAK_GRASS_DISTANCE;
    if (d.height == 0) d.height = 0.45f;
    if (d.sway == 0) d.sway = 0.12f;
    if (d.sway < 0) d.sway = 0;
    if (!d.budget) d.budget = OAK_GRASS_BUDGET;
    return d;
}

/* ---- hashes ---------------------------------------------------------------- */

static uint32_t patch_key(int64_t px, int64_t pz, uint32_t seed) {
    uint32_t h = _oak_world_hash_u32((uint32_t)px ^ seed * 0x27D4EB2Fu);
    h = _oak_world_hash_u32(h ^ (uint32_t)((uint64_t)px >> 32) * 0x165667B1u);
    h = _oak_world_hash_u32(h ^ (uint32_t)pz * 0x9E3779B1u);
    return _oak_world_hash_u32(h ^ (uint32_t)((uint64_t)pz >> 32) * 0x85EBCA77u);
}

static float rnd(uint32_t key, uint32_t k) {
    return _oak_world_hash01(key, 0x51ED270Bu + k * 0x2545F491u);
}

/* ---- the clump meshes -------------------------------------------------------- */

typedef struct blade {
    float x, z, height, width, angle, lean;
} blade;

/* Morton order: blades 2k and 2k + 1 are neighbours, and so are the pairs
   of pairs, so merging runs of 2^k gives neighbours at every LOD. */
static void demorton(uint32_t m, uint32_t *i, uint32_t *j) {
    *i = *j = 0;
    for (uint32_t b = 0; b < 8; b++) {
        *i |= ((m >> (2 * b)) & 1u) << b;
        *j |= ((m >> (2 * b + 1)) & 1u) << b;
    }
}

/* Writes one blade (segments 2: 5 vertices, 3 triangles a side; 1: 3 and 1). */
static void put_blade(const blade *b, uint32_t segments, float *pos, float *nrm, float *col,
                      float *uv, uint32_t *idx, uint32_t *vn, uint32_t *in) {
    float sx = cosf(b->angle), sz = -sinf(b->angle); /* across the blade */
    float fx = sinf(b->angle), fz = cosf(b->angle);  /* the way it leans */
    /* lit mostly as the ground is, a little by its face */
    float nx = 0.35f * fx, ny = 1.0f, nz = 0.35f * fz;
    float inv = 1.0f / sqrtf(nx * nx + ny * ny + nz * nz);
    uint32_t v0 = *vn;
    float ts[3] = {0.0f, 0.5f, 1.0f};
    uint32_t rows = segments == 2 ? 2 : 1;
    for (uint32_t r = 0; r < rows; r++) {
        float t = ts[r], half = 0.5f * b->width * (1.0f - 0.45f * t);
        float off = b->lean * b->height * t * t, y = b->height * t * (1.0f - 0.25f * b->lean * t);
        for (int side = -1; side <= 1; side += 2) {
            uint32_t v = (*vn)++;
            pos[3 * v] = b->x + side * half * sx + off * fx;
            pos[3 * v + 1] = y;
            pos[3 * v + 2] = b->z + side * half * sz + off * fz;
            float c = 0.55f + 0.45f * t;
            col[4 * v] = col[4 * v + 1] = col[4 * v + 2] = c, col[4 * v + 3] = 1;
            uv[2 * v] = side < 0 ? 0.0f : 1.0f, uv[2 * v + 1] = t;
        }
    }
    uint32_t tip = (*vn)++;
    pos[3 * tip] = b->x + b->lean * b->height * fx;
    pos[3 * tip + 1] = b->height * (1.0f - 0.25f * b->lean);
    pos[3 * tip + 2] = b->z + b->lean * b->height * fz;
    col[4 * tip] = col[4 * tip + 1] = col[4 * tip + 2] = 1, col[4 * tip + 3] = 1;
    uv[2 * tip] = 0.5f, uv[2 * tip + 1] = 1;
    for (uint32_t v = v0; v <= tip; v++)
        nrm[3 * v] = nx * inv, nrm[3 * v + 1] = ny * inv, nrm[3 * v + 2] = nz * inv;
    /* each side its own triangles over the same vertices: a back-culled
       material keeps the up-leaning normals on both (a double-sided one
       would turn them down on the back) */
    uint32_t t3[9] = {v0, v0 + 1, v0 + 3, v0, v0 + 3, v0 + 2, v0 + 2, v0 + 3, tip};
    uint32_t t1[3] = {v0, v0 + 1, tip};
    const uint32_t *t = rows == 2 ? t3 : t1;
    uint32_t n = rows == 2 ? 9 : 3;
    for (uint32_t k = 0; k < n; k++) idx[*in + k] = t[k];
    for (uint32_t k = 0; k < n; k += 3) {
        idx[*in + n + k] = t[k];
        idx[*in + n + k + 1] = t[k + 2];
        idx[*in + n + k + 2] = t[k + 1];
    }
    *in += 2 * n;
}

typedef struct mesh_buf {
    float *pos, *nrm, *col, *uv;
    uint32_t *idx;
    uint32_t vn, in;
} mesh_buf;

static bool buf_make(mesh_buf *b, uint32_t verts, uint32_t idx) {
    memset(b, 0, sizeof *b);
    b->pos = oak_alloc(sizeof(float) * 3 * verts);
    b->nrm = oak_alloc(sizeof(float) * 3 * verts);
    b->col = oak_alloc(sizeof(float) * 4 * verts);
    b->uv = oak_alloc(sizeof(float) * 2 * verts);
    b->idx = oak_alloc(sizeof(uint32_t) * idx);
    return b->pos && b->nrm && b->col && b->uv && b->idx;
}

static void buf_free(mesh_buf *b) {
    oak_free(b->pos), oak_free(b->nrm), oak_free(b->col), oak_free(b->uv), oak_free(b->idx);
}

static oak_result buf_mesh(oak_mesh *out, const mesh_buf *b, const char *name) {
    oak_mesh_desc md = {.vertex_count = b->vn,
                        .index_count = b->in,
                        .positions = b->pos,
                        .normals = b->nrm,
                        .uv0 = b->uv,
                        .colors = b->col,
                        .indices = b->idx,
                        .name = name};
    return oak_make_mesh(out, &md);
}

/* The clump ladder: LOD k merges runs of 2^k neighbouring blades of the
   nearest clump into one (position and height averaged, widths summed). */
static oak_result make_clumps(oak_grass *g) {
    static blade base[OAK_GRASS_BLADES];
    float p = (float)OAK_GRASS_PATCH, h = g->desc.height;
    for (uint32_t m = 0; m < OAK_GRASS_BLADES; m++) {
        uint32_t i, j;
        demorton(m, &i, &j);
        uint32_t key = _oak_world_hash_u32(m * 0x9E3779B9u + g->desc.seed);
        base[m] = (blade){.x = ((i + 0.15f + 0.7f * rnd(key, 0)) / SIDE - 0.5f) * p,
                          .z = ((j + 0.15f + 0.7f * rnd(key, 1)) / SIDE - 0.5f) * p,
                          .height = h * (0.55f + 0.9f * rnd(key, 2)),
                          .width = 0.010f + 0.008f * rnd(key, 3),
                          .angle = 6.2831853f * rnd(key, 4),
                          .lean = 0.15f + 0.35f * rnd(key, 5)};
    }
    static const char *names[LODS] = {"grass_lod0", "grass_lod1", "grass_lod2", "grass_lod3"};
    for (uint32_t k = 0; k < LODS; k++) {
        uint32_t run = 1u << k, n = OAK_GRASS_BLADES / run, seg = k < 2 ? 2 : 1;
        mesh_buf b;
        oak_result r = OAK_OK;
        if (!buf_make(&b, n * 5, n * 18)) {
            buf_free(&b);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for the clump meshes");
        }
        for (uint32_t q = 0; q < n; q++) {
            blade m = {0};
            for (uint32_t e = 0; e < run; e++) {
                const blade *s = &base[q * run + e];
                m.x += s->x / run, m.z += s->z / run, m.height += s->height / run;
                m.lean += s->lean / run, m.width += s->width;
            }
            m.angle = base[q * run].angle;
            put_blade(&m, seg, b.pos, b.nrm, b.col, b.uv, b.idx, &b.vn, &b.in);
        }
        r = buf_mesh(&g->meshes[k], &b, names[k]);
        buf_free(&b);
        if (r) return r;
        g->blades[k] = n;
    }
    return OAK_OK;
}

/* A flower clump: FLOWER_HEADS stems with a head of petals (near), or the
   heads alone as flat quads (far). Stems are green by their vertex colour
   times the instance's (the petals' colour). */
static oak_result make_flowers(oak_grass *g) {
    static const char *names[FLOWER_LODS] = {"flowers_lod0", "flowers_lod1"};
    for (uint32_t k = 0; k < FLOWER_LODS; k++) {
        mesh_buf b;
        if (!buf_make(&b, FLOWER_HEADS * 16, FLOWER_HEADS * 24)) {
            buf_free(&b);
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for the flower meshes");
        }
        for (uint32_t f = 0; f < FLOWER_HEADS; f++) {
            uint32_t key = _oak_world_hash_u32(f * 0x632BE5ABu + g->desc.seed + 77u);
            float cx = (rnd(key, 0) - 0.5f) * 1.2f, cz = (rnd(key, 1) - 0.5f) * 1.2f;
            float top = g->desc.height * (0.9f + 0.5f * rnd(key, 2)), r = 0.05f;
            if (k == 0) { /* the stem: one thin blade */
                blade s = {cx, cz, top, 0.008f, 6.2831853f * rnd(key, 3), 0.05f};
                uint32_t v0 = b.vn;
                put_blade(&s, 1, b.pos, b.nrm, b.col, b.uv, b.idx, &b.vn, &b.in);
                for (uint32_t v = v0; v < b.vn; v++)
                    b.col[4 * v] = 0.35f, b.col[4 * v + 1] = 0.9f, b.col[4 * v + 2] = 0.25f;
            }
            /* the head: a flat square of petals, corners on the axes */
            float ty = top * (1.0f - 0.25f * 0.05f);
            uint32_t v0 = b.vn;
            const float cs[4][2] = {{r, 0}, {0, r}, {-r, 0}, {0, -r}};
            for (int c = 0; c < 4; c++) {
                uint32_t v = b.vn++;
                b.pos[3 * v] = cx + cs[c][0], b.pos[3 * v + 1] = ty,
                          b.pos[3 * v + 2] = cz + cs[c][1];
                b.nrm[3 * v] = 0, b.nrm[3 * v + 1] = 1, b.nrm[3 * v + 2] = 0;
                b.col[4 * v] = b.col[4 * v + 1] = b.col[4 * v + 2] = b.col[4 * v + 3] = 1;
                b.uv[2 * v] = cs[c][0] > 0, b.uv[2 * v + 1] = cs[c][1] > 0;
            }
            uint32_t q[6] = {v0, v0 + 2, v0 + 1, v0, v0 + 3, v0 + 2}; /* facing up */
            memcpy(b.idx + b.in, q, sizeof q);
            b.in += 6;
        }
        oak_result r = buf_mesh(&g->meshes[LODS + k], &b, names[k]);
        buf_free(&b);
        if (r) return r;
    }
    return OAK_OK;
}

/* ---- the material rule ----------------------------------------------------- */

/* Density of grass at scene (x, z) by the terrain's material rule, with the
   ground's height, normal and dry share; 0 off grass and under water. */
static float density_rule(const oak_grass *g, double x, double z, float hv, const float n[3],
                          float var, float *dry, float *lush) {
    *dry = 0, *lush = 0;
    if (g->desc.water) {
        const float *e = g->desc.water_extent;
        bool box = e[0] != 0 || e[1] != 0 || e[2] != 0 || e[3] != 0;
        double o[2];
        oak_terrain_origin(g->terrain, o);
        double wx = x + o[0], wz = z + o[1];
        bool inside = !box || (wx >= e[0] && wx <= e[2] && wz >= e[1] && wz <= e[3]);
        if (inside && hv < g->desc.water_level + WATER_MARGIN) return 0;
    }
    float sh[4];
    _oak_terrain_material_shares(sh, n[1], hv, var);
    float grass = (1 - sh[1]) * (1 - sh[2]) * (1 - sh[3]);
    *dry = sh[0];
    *lush = grass * (1 - sh[0]);
    return grass * (1 - (1 - DRY_DENSITY) * sh[0]);
}

static float density_at(const oak_grass *g, double x, double z, float *h, float n[3], float *dry,
                        float *lush) {
    float var;
    *dry = 0, *lush = 0;
    if (_oak_terrain_ground(g->terrain, x, z, h, n, &var)) return 0;
    return density_rule(g, x, z, *h, n, var, dry, lush);
}

/* The ground at scene (x, z) from a square's grid of the finest heights
   (world cells from (gx, gz), grid + 1 a side) by oak_terrain_height's own
   arithmetic, so the same bits; false where the point is off the grid or
   past the world (the caller asks the terrain). */
static bool grid_ground(const oak_grass *g, const float *grid, int64_t gx, int64_t gz, double x,
                        double z, const double origin[2], float *height, float normal[3]) {
    double ds = g->cell, wx = x + origin[0], wz = z + origin[1];
    if (!(fabs(wx) <= OAK_TERRAIN_MAX_WORLD) || !(fabs(wz) <= OAK_TERRAIN_MAX_WORLD)) return false;
    double cx = floor(wx / ds), cz = floor(wz / ds);
    double fx = wx / ds - cx, fz = wz / ds - cz;
    int64_t i = (int64_t)cx - gx, j = (int64_t)cz - gz, n = g->grid;
    if (i < 0 || j < 0 || i >= n || j >= n) return false;
    const float *r0 = grid + j * (n + 1), *r1 = r0 + (n + 1);
    double h00 = r0[i], h11 = r1[i + 1], h, dx, dz;
    if (fz >= fx) { /* triangle v00, v01, v11 */
        double h01 = r1[i];
        dx = h11 - h01, dz = h01 - h00;
    } else { /* triangle v00, v11, v10 */
        double h10 = r0[i + 1];
        dx = h10 - h00, dz = h11 - h10;
    }
    h = h00 + dx * fx + dz * fz;
    *height = (float)h;
    double nx = -dx / ds, nz = -dz / ds, inv = 1.0 / sqrt(nx * nx + 1 + nz * nz);
    normal[0] = (float)(nx * inv), normal[1] = (float)inv, normal[2] = (float)(nz * inv);
    return true;
}

float oak_grass_density(const oak_grass *g, double x, double z) {
    if (!g) return 0;
    float h, n[3], dry, lush;
    return density_at(g, x, z, &h, n, &dry, &lush);
}

/* ---- the rocks' footprints ------------------------------------------------- */

static int cmp_disc(const void *a, const void *b) {
    const _oak_rock_disc *p = a, *q = b;
    if (p->r != q->r) return p->r > q->r ? -1 : 1;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    return p->z < q->z ? -1 : p->z > q->z;
}

/* The footprints of the rocks that reach square (ix, iz), the largest
   OAK_GPU_GRASS_ROCKS of them (ties by position), as the kernel
   reads them: centre x, z from the square's corner, reach squared, 0. */
static uint32_t rock_discs(const oak_grass *g, int64_t ix, int64_t iz,
                           float out[OAK_GPU_GRASS_ROCKS][4]) {
    if (!g->rocks) return 0;
    _oak_rock_disc d[ROCKS_ASKED];
    double cx = (double)ix * g->tile, cz = (double)iz * g->tile;
    uint32_t n = _oak_rocks_discs(g->rocks, cx, cz, cx + g->tile, cz + g->tile, d, ROCKS_ASKED);
    if (n > ROCKS_ASKED) n = ROCKS_ASKED;
    qsort(d, n, sizeof *d, cmp_disc);
    if (n > OAK_GPU_GRASS_ROCKS) n = OAK_GPU_GRASS_ROCKS;
    for (uint32_t q = 0; q < n; q++) {
        out[q][0] = (float)(d[q].x - cx), out[q][1] = (float)(d[q].z - cz);
        out[q][2] = d[q].r * d[q].r, out[q][3] = 0;
    }
    return n;
}

/* Whether a patch centre (lx, lz) from the square's corner lies inside one
   of its rocks' footprints: the kernel's in_rock, the same float steps. */
static bool in_rock(const float rocks[][4], uint32_t n, float lx, float lz) {
    for (uint32_t q = 0; q < n; q++) {
        float dx = lx - rocks[q][0], dz = lz - rocks[q][1];
        if (dx * dx + dz * dz < rocks[q][2]) return true;
    }
    return false;
}

/* ---- growing one tile square ----------------------------------------------- */

typedef struct grow_job {
    const oak_grass *g;
    gtile **tiles;
    oak_instance *rec[2]; /* the streams' records */
    double origin[2];
} grow_job;

/* quaternion (x, y, z, w) turning +y onto n, after a turn of yaw about y */
static void tilt_yaw(float q[4], const float n[3], float yaw) {
    float tx = n[2], ty = 0, tz = -n[0], tw = 1 + n[1];
    float l = sqrtf(tx * tx + tz * tz + tw * tw);
    tx /= l, tz /= l, tw /= l;
    float ys = sinf(0.5f * yaw), yw = cosf(0.5f * yaw);
    /* (tx, 0, tz, tw) * (0, ys, 0, yw) */
    q[0] = tw * 0 + tx * yw + ty * 0 - tz * ys;
    q[1] = tw * ys - tx * 0 + ty * yw + tz * 0;
    q[2] = tw * 0 + tx * ys - ty * 0 + tz * yw;
    q[3] = tw * yw - tx * 0 - ty * ys - tz * 0;
}

static void grow_tiles(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    grow_job *j = user;
    const oak_grass *g = j->g;
    const float plants = g->desc.plants, p = (float)OAK_GRASS_PATCH;
    static const float petals[4][3] = {
        {0.85f, 0.85f, 0.80f}, {0.90f, 0.70f, 0.08f}, {0.55f, 0.20f, 0.65f}, {0.30f, 0.35f, 0.85f}};
    const uint32_t gs = g->slot_size[0], fs = g->slot_size[1];
    float grid[(GRID_MAX + 1) * (GRID_MAX + 1)];
    float rocks[OAK_GPU_GRASS_ROCKS][4];
    for (uint32_t t = begin; t < end; t++) {
        gtile *tl = j->tiles[t];
        tl->grass_count = tl->flower_count = 0;
        oak_instance *gout = j->rec[0] + (size_t)tl->slot * gs;
        oak_instance *fout = fs ? j->rec[1] + (size_t)tl->slot * fs : NULL;
        double cx = (double)tl->ix * g->tile, cz = (double)tl->iz * g->tile;
        /* scene = world - origin, in double before the float records */
        double sx = cx - j->origin[0], sz = cz - j->origin[1];
        /* the square's finest heights once ((grid + 1)^2 noise evaluations
           against three per patch through the query) */
        int64_t gx = tl->ix * (int64_t)g->grid, gz = tl->iz * (int64_t)g->grid;
        const float *hg = grid;
        if (g->grid && g->slot_grid && g->slot_grid_ok[tl->slot] &&
            (double)g->grid == g->tile / g->cell) /* the device's, made on arrival */
            hg = g->slot_grid + (size_t)tl->slot * GRID_FLOATS;
        else if (g->grid)
            _oak_terrain_grid(g->terrain, gx, gz, g->grid, grid);
        /* the rocks' footprints, the device's where it made them */
        const float(*rk)[4] = rocks;
        uint32_t nrk;
        if (g->slot_rocks && g->slot_grid_ok[tl->slot]) {
            rk = g->slot_rocks[tl->slot], nrk = g->slot_rock_count[tl->slot];
        } else {
            nrk = rock_discs(g, tl->ix, tl->iz, rocks);
        }
        for (uint32_t b = 0; b < g->per && tl->grass_count < gs; b++)
            for (uint32_t a = 0; a < g->per && tl->grass_count < gs; a++) {
                int64_t px = tl->ix * (int64_t)g->per + a, pz = tl->iz * (int64_t)g->per + b;
                uint32_t key = patch_key(px, pz, g->desc.seed);
                if (rnd(key, 0) >= plants) continue; /* the plants share, before any query */
                float lx = (a + 0.3f + 0.4f * rnd(key, 1)) * p;
                float lz = (b + 0.3f + 0.4f * rnd(key, 2)) * p;
                if (in_rock(rk, nrk, lx, lz)) continue; /* off the rocks, before the ground */
                float h, n[3], dry, lush, d;
                double x = cx + lx - j->origin[0], z = cz + lz - j->origin[1];
                if (g->grid && grid_ground(g, hg, gx, gz, x, z, j->origin, &h, n))
                    d = density_rule(g, x, z, h, n, _oak_terrain_variation_at(g->terrain, x, z),
                                     &dry, &lush);
                else
                    d = density_at(g, x, z, &h, n, &dry, &lush);
                if (!(rnd(key, 3) < d)) continue;
                oak_instance *r = &gout[tl->grass_count++];
                r->position[0] = (float)(sx + lx), r->position[1] = h - ROOT_DEPTH;
                r->position[2] = (float)(sz + lz);
                r->scale = 0.9f + 0.2f * rnd(key, 4);
                tilt_yaw(r->rotation, n, 6.2831853f * rnd(key, 5));
                /* the ground's own grass colours (terrain_tile.c), lit a little brighter */
                float v = 1.05f + 0.2f * rnd(key, 6);
                const float lushc[3] = {0.090f, 0.180f, 0.035f}, dryc[3] = {0.170f, 0.200f, 0.060f};
                for (int c = 0; c < 3; c++)
                    r->color[c] = v * (lushc[c] + (dryc[c] - lushc[c]) * dry);
                r->phase = rnd(key, 7);
                if (g->desc.no_flowers || !(rnd(key, 8) < FLOWER_SHARE * lush) ||
                    tl->flower_count >= fs)
                    continue;
                oak_instance *f = &fout[tl->flower_count++];
                *f = *r;
                f->scale = 0.8f + 0.4f * rnd(key, 9);
                tilt_yaw(f->rotation, n, 6.2831853f * rnd(key, 10));
                memcpy(f->color, petals[(uint32_t)(4 * rnd(key, 11)) & 3], sizeof f->color);
            }
        /* the slot's rest: zero records (scale 0), which no cull draws */
        memset(gout + tl->grass_count, 0, sizeof *gout * (gs - tl->grass_count));
        if (fs) memset(fout + tl->flower_count, 0, sizeof *fout * (fs - tl->flower_count));
    }
}

/* Grows n tiles' records into the host's copy on the job pool (their
   slots were logged when they were taken) and counts them. */
static void grow_list(oak_grass *g, gtile **list, uint32_t n) {
    grow_job job = {.g = g,
                    .tiles = list,
                    .rec = {g->stream[0]->records, g->stream[1]->records},
                    .origin = {g->written_origin[0], g->written_origin[1]}};
    oak_parallel_for(n, 1, grow_tiles, &job);
    for (uint32_t i = 0; i < n; i++) {
        list[i]->host = true;
        g->instances[0] += list[i]->grass_count, g->instances[1] += list[i]->flower_count;
    }
}

/* ---- the grass kernel's input ------------------------------------------------ */

/* The variation's octaves (terrain_tile.c _oak_terrain_variation): metres
   a lattice cell, as the kernel's var_cell and var_frac take them. */
static const double VARIATION_SCALE[2] = {97.0, 23.0};

/* The job with the square's grid of heights from `heights` when it is not
   NULL (the slot's cache: the same bits _oak_terrain_grid gives). */
static bool square_job(const oak_grass *g, int64_t ix, int64_t iz, uint32_t slot,
                       const double origin[2], const float *heights, oak_gpu_grass_square *out) {
    /* the kernel stands on the square's grid of heights alone (whatever
       the host's own choice of grid or queries: the same bits) */
    double cells = g ? g->tile / g->cell : 0;
    if (!g || !out || cells != floor(cells) || cells < 1 || cells > OAK_GPU_GRASS_CELLS)
        return false;
    uint32_t grid = (uint32_t)cells;
    memset(out, 0, sizeof *out);
    int64_t px = ix * (int64_t)g->per, pz = iz * (int64_t)g->per;
    out->patches[0] = (uint32_t)px, out->patches[1] = (uint32_t)((uint64_t)px >> 32);
    out->patches[2] = (uint32_t)pz, out->patches[3] = (uint32_t)((uint64_t)pz >> 32);
    out->slot[0] = slot * g->slot_size[0], out->slot[1] = slot * g->slot_size[1];
    out->slot[2] = g->slot_size[0], out->slot[3] = g->desc.no_flowers ? 0 : g->slot_size[1];
    out->info[0] = g->desc.seed, out->info[1] = g->per, out->info[2] = grid;
    out->info[3] = (g->desc.water ? OAK_GPU_GRASS_WATER : 0) |
                   (g->desc.no_flowers ? OAK_GPU_GRASS_NO_FLOWERS : 0);
    double cx = (double)ix * g->tile, cz = (double)iz * g->tile, off[2];
    _oak_terrain_noise_offset(g->terrain, off);
    /* the corner's lattice cells and fractions in double; the kernel adds
       each patch's offset / scale in float */
    for (int o = 0; o < 2; o++) {
        double ux = (cx + off[0]) / VARIATION_SCALE[o], uz = (cz + off[1]) / VARIATION_SCALE[o];
        double fx = floor(ux), fz = floor(uz);
        out->var_cell[2 * o] = (uint32_t)(int32_t)fx,
                          out->var_cell[2 * o + 1] = (uint32_t)(int32_t)fz;
        out->var_frac[2 * o] = (float)(ux - fx), out->var_frac[2 * o + 1] = (float)(uz - fz);
    }
    out->corner[0] = (float)(cx - origin[0]), out->corner[1] = g->desc.plants;
    out->corner[2] = (float)(cz - origin[1]), out->corner[3] = (float)g->cell;
    if (g->desc.water) {
        const float *e = g->desc.water_extent;
        bool box = e[0] != 0 || e[1] != 0 || e[2] != 0 || e[3] != 0;
        out->water[0] = g->desc.water_level + WATER_MARGIN, out->water[1] = box ? 1.0f : 0.0f;
        out->box[0] = (float)(e[0] - cx), out->box[1] = (float)(e[1] - cz);
        out->box[2] = (float)(e[2] - cx), out->box[3] = (float)(e[3] - cz);
    }
    if (heights && g->slot_rocks) { /* the slot's, made with its heights */
        out->rock[0] = g->slot_rock_count[slot];
        memcpy(out->rocks, g->slot_rocks[slot], sizeof out->rocks);
    } else {
        out->rock[0] = rock_discs(g, ix, iz, out->rocks);
    }
    if (heights) {
        memcpy(out->heights, heights, sizeof(float) * (grid + 1) * (grid + 1));
    } else {
        float h[GRID_FLOATS];
        _oak_terrain_grid(g->terrain, ix * (int64_t)grid, iz * (int64_t)grid, grid, h);
        memcpy(out->heights, h, sizeof(float) * (grid + 1) * (grid + 1));
    }
    return true;
}

bool _oak_grass_square_job(const oak_grass *g, int64_t ix, int64_t iz, uint32_t slot,
                           const double origin[2], oak_gpu_grass_square *out) {
    return square_job(g, ix, iz, slot, origin, NULL, out);
}

uint32_t _oak_grass_live_jobs(const oak_grass *g, oak_gpu_grass_square *out, uint32_t cap) {
    double origin[2];
    oak_terrain_origin(g->terrain, origin);
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->tile_count && n < cap; i++)
        if (_oak_grass_square_job(g, g->tiles[i].ix, g->tiles[i].iz, g->tiles[i].slot, origin,
                                  &out[n]))
            n++;
    return n;
}

/* ---- the tile table ---------------------------------------------------------- */

static uint32_t tile_hash(int64_t ix, int64_t iz) {
    return _oak_world_hash_u32((uint32_t)ix * 0x9E3779B1u ^ _oak_world_hash_u32((uint32_t)iz));
}

static bool rehash(oak_grass *g) {
    uint32_t size = 64;
    while (size < 2 * (g->tile_count + 1)) size *= 2;
    if (size - 1 != g->table_mask || !g->table) {
        int32_t *t = oak_alloc(sizeof *t * size);
        if (!t) return false;
        oak_free(g->table);
        g->table = t;
        g->table_mask = size - 1;
    }
    memset(g->table, 0xff, sizeof *g->table * (g->table_mask + 1));
    for (uint32_t i = 0; i < g->tile_count; i++) {
        uint32_t h = tile_hash(g->tiles[i].ix, g->tiles[i].iz) & g->table_mask;
        while (g->table[h] >= 0) h = (h + 1) & g->table_mask;
        g->table[h] = (int32_t)i;
    }
    return true;
}

static bool has_tile(const oak_grass *g, int64_t ix, int64_t iz) {
    uint32_t h = tile_hash(ix, iz) & g->table_mask;
    while (g->table[h] >= 0) {
        const gtile *t = &g->tiles[g->table[h]];
        if (t->ix == ix && t->iz == iz) return true;
        h = (h + 1) & g->table_mask;
    }
    return false;
}

static double square_distance(const oak_grass *g, int64_t ix, int64_t iz, const double eye[2]) {
    double x0 = (double)ix * g->tile, z0 = (double)iz * g->tile;
    double dx = fmax(fmax(x0 - eye[0], 0), eye[0] - (x0 + g->tile));
    double dz = fmax(fmax(z0 - eye[1], 0), eye[1] - (z0 + g->tile));
    return sqrt(dx * dx + dz * dz);
}

static int cmp_request(const void *a, const void *b) {
    const request *x = a, *y = b;
    if (x->distance != y->distance) return x->distance < y->distance ? -1 : 1;
    if (x->ix != y->ix) return x->ix < y->ix ? -1 : 1;
    return x->iz < y->iz ? -1 : (x->iz > y->iz);
}

/* Zeroes a square's slot in both streams (records rec) and frees it. */
static void slot_free(oak_grass *g, oak_instance *rec[2], uint32_t slot) {
    for (int s = 0; s < 2; s++)
        if (g->slot_size[s]) {
            _oak_stream_records_to_write_range(g->stream[s], slot * g->slot_size[s],
                                               g->slot_size[s]);
            memset(rec[s] + (size_t)slot * g->slot_size[s], 0,
                   sizeof(oak_instance) * g->slot_size[s]);
        }
    g->slot_used[slot] = 0;
}

/* ---- the device's growth ----------------------------------------------------- */

/* The grass kernel's job for slot `slot` of stream s (the other stream's
   writes skipped), s's records from record `first` of the device's buffer:
   the live square's growth, or zeros for a free slot (plants 0). */
static bool slot_job(void *user, const oak_stream *s, uint32_t slot, uint32_t first,
                     oak_gpu_grass_square *out) {
    const oak_grass *g = user;
    bool flowers = s == g->stream[1];
    int32_t t = slot < g->slots ? g->slot_tile[slot] : -1;
    if (t >= 0) {
        /* the square's heights, made on the job pool by the update
           (oak_grass_update) once jobs are asked; read-only here (a grid
           not made yet is evaluated by square_job, not kept) */
        atomic_store_explicit(g->jobs_asked, true, memory_order_relaxed);
        const float *grid = g->slot_grid && g->slot_grid_ok[slot]
                                ? g->slot_grid + (size_t)slot * GRID_FLOATS
                                : NULL;
        if (!square_job(g, g->tiles[t].ix, g->tiles[t].iz, slot, g->written_origin, grid, out))
            return false;
    } else {
        memset(out, 0, sizeof *out);
        out->slot[0] = slot * g->slot_size[0], out->slot[1] = slot * g->slot_size[1];
        out->slot[2] = g->slot_size[0], out->slot[3] = g->slot_size[1];
        out->info[1] = g->per, out->info[2] = 1, out->corner[3] = 1;
    }
    out->info[3] |= flowers ? OAK_GPU_GRASS_SKIP_GRASS : OAK_GPU_GRASS_SKIP_FLOWERS;
    out->slot[flowers ? 1 : 0] += first;
    return true;
}

static void grow_list(oak_grass *g, gtile **list, uint32_t n);

/* The host's copy made current when it is read (the CPU backend, a reader
   of oak_stream_records, the stats): the squares the device alone grew,
   grown now on the job pool, both streams at once. */
static void host_fill(void *user, oak_stream *s) {
    (void)s;
    oak_grass *g = user;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->tile_count; i++) n += !g->tiles[i].host;
    if (!n) return;
    gtile **list = oak_alloc(sizeof *list * n);
    if (!list) return; /* the host's copy stays behind: only its readers see it */
    n = 0;
    for (uint32_t i = 0; i < g->tile_count; i++)
        if (!g->tiles[i].host) list[n++] = &g->tiles[i];
    grow_list(g, list, n);
    oak_free(list);
    for (int k = 0; k < 2; k++) g->stream[k]->host_stale = false;
}

/* Live squares' grids of heights for the device's jobs, made on the job
   pool in the world's update (the same bits square_job's own
   _oak_terrain_grid call gives): the frame's jobs only read them. */
typedef struct grid_job {
    oak_grass *g;
    gtile **tiles;
} grid_job;

static void make_grids(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    grid_job *j = user;
    oak_grass *g = j->g;
    uint32_t cells = (uint32_t)(g->tile / g->cell);
    for (uint32_t i = begin; i < end; i++) {
        const gtile *q = j->tiles[i];
        _oak_terrain_grid(g->terrain, q->ix * (int64_t)cells, q->iz * (int64_t)cells, cells,
                          g->slot_grid + (size_t)q->slot * GRID_FLOATS);
        g->slot_rock_count[q->slot] = rock_discs(g, q->ix, q->iz, g->slot_rocks[q->slot]);
        g->slot_grid_ok[q->slot] = 1;
    }
}

/* ---- make, update, destroy -------------------------------------------------- */

static oak_result make_streams(oak_grass *g) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0;
    md.roughness = 0.85f;
    md.name = "grass";
    oak_result r = oak_make_material(&g->material[0], &md);
    if (r) return r;
    md.roughness = 0.6f;
    md.name = "flowers";
    if ((r = oak_make_material(&g->material[1], &md))) return r;
    /* the bands: 30, 90 and 270 m (shrunk with a short reach), then the reach */
    float dist = g->desc.distance, k = dist < 300 ? dist / 300 : 1;
    const float bands[LODS - 1] = {30, 90, 270};
    for (uint32_t i = 0; i < LODS - 1; i++) g->lod_distance[i] = bands[i] * k;
    g->lod_distance[LODS - 1] = dist;
    /* A slot per square kept: the squares within keep (reach and a
       square and a half of hysteresis) of any eye are at most the disc
       grown by a square, pi K^2 + 4 K + 1 squares for K = keep / tile. A
       slot holds every patch of the square at plants 1; a smaller share
       holds its expected count and 1.25 times it plus 16 (the binomial's
       tail past that is under 10^-4 of squares; what does not fit is left
       out, on every backend alike). Flowers: their most expected (all
       lush) plus 6 standard deviations plus 4. */
    uint32_t patches = g->per * g->per;
    double kr = (dist + 1.5 * g->tile) / g->tile;
    double slots = ceil(OAK_PI * kr * kr + 4 * kr + 1) + 8;
    double gs = fmin(patches, ceil(patches * g->desc.plants * 1.25) + 16);
    double fm = patches * g->desc.plants * FLOWER_SHARE; /* the most flowers expected */
    double fs = g->desc.no_flowers ? 0 : fmin(patches, ceil(fm + 6 * sqrt(fm) + 4));
    g->slot_size[0] = (uint32_t)gs, g->slot_size[1] = (uint32_t)fs;
    if (slots * gs > OAK_STREAM_MAX_INSTANCES) slots = floor(OAK_STREAM_MAX_INSTANCES / gs);
    g->slots = (uint32_t)slots;
    g->slot_used = oak_calloc(g->slots, 1);
    if (!g->slot_used) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for slots");
    double cap = slots * gs;
    uint32_t flags = g->desc.shadows ? 0 : OAK_DRAW_NO_SHADOW;
    oak_stream_desc sd = {.capacity = (uint32_t)cap,
                          .lod_count = LODS,
                          .material = g->material[0],
                          .flags = flags,
                          .sway = g->desc.sway,
                          .sink = SINK_SHARE * dist,
                          .source = OAK_STREAM_SOURCE_GRASS};
    for (uint32_t i = 0; i < LODS; i++)
        sd.lods[i] = (oak_stream_lod){g->meshes[i], g->lod_distance[i]};
    if ((r = oak_make_stream(&g->stream[0], &sd))) return r;
    /* flowers grow in every square grass does (drawn out to their reach) */
    float fr = fminf(dist, FLOWER_REACH);
    double fcap = fs ? slots * fs : 1;
    oak_stream_desc fd = {.capacity = (uint32_t)fcap,
                          .lod_count = FLOWER_LODS,
                          .material = g->material[1],
                          .flags = flags,
                          .sway = g->desc.sway,
                          .sink = SINK_SHARE * fr,
                          .source = OAK_STREAM_SOURCE_GRASS};
    fd.lods[0] = (oak_stream_lod){g->meshes[LODS], fr * 0.3f};
    fd.lods[1] = (oak_stream_lod){g->meshes[LODS + 1], fr};
    if ((r = oak_make_stream(&g->stream[1], &fd))) return r;
    /* the scene draws them from now on; it destroys them if adding fails */
    oak_stream *s0 = g->stream[0], *s1 = g->stream[1];
    g->stream[0] = g->stream[1] = NULL;
    if ((r = oak_scene_add_stream(g->scene, s0))) {
        oak_destroy_stream(s1);
        return r;
    }
    g->stream[0] = s0;
    if ((r = oak_scene_add_stream(g->scene, s1))) return r;
    g->stream[1] = s1;
    return OAK_OK;
}

oak_result oak_make_grass(oak_grass **out, oak_scene *scene, oak_terrain *terrain,
                          const oak_grass_desc *desc) {
    if (!out || !scene || !terrain)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_make_grass: NULL argument");
    *out = NULL;
    oak_grass_desc d = oak_grass_desc_defaults(desc);
    if (!(d.plants > 0 && d.plants <= 1) || !(d.distance > 0 && d.distance <= 20000) ||
        !(d.height > 0 && d.height <= 10) || !isfinite(d.sway) || !isfinite(d.water_level))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "oak_make_grass: plants %g must be in (0, 1], distance %g in (0, 20000] "
                         "m, height %g in (0, 10] m, sway and water level finite",
                         (double)d.plants, (double)d.distance, (double)d.height);
    oak_grass *g = oak_calloc(1, sizeof *g);
    if (!g) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory");
    g->scene = scene;
    g->terrain = terrain;
    g->desc = d;
    oak_terrain_desc td = oak_terrain_desc_defaults(NULL);
    g->tile = td.tile_size;
    g->per = (uint32_t)lround(g->tile / OAK_GRASS_PATCH);
    /* a square grows from one grid of the finest heights when the square
       is a whole number of the terrain's finest cells and the grid's
       (n + 1)^2 heights cost less than the three a patch the plants share
       queries (the hash turns most patches away before any query at a
       low share: at 0.1 the grid would cost 289 heights against 77) */
    g->cell = _oak_terrain_cell(terrain);
    double n = floor(g->tile / g->cell) + 1;
    _oak_grass_use_grid(g, n * n < 3.0 * g->per * g->per * g->desc.plants);
    oak_result r;
    if ((r = make_clumps(g)) || (r = make_flowers(g)) || (r = make_streams(g)) || !rehash(g)) {
        oak_destroy_grass(g);
        return r ? r : oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory");
    }
    g->stats.capacity = oak_stream_capacity(g->stream[0]);
    /* the device grows the squares unless OAK_GRASS_KERNEL=off or the
       square is not a whole grid of at most OAK_GPU_GRASS_CELLS cells */
    const char *kernel = getenv("OAK_GRASS_KERNEL");
    oak_gpu_grass_square probe;
    double none[2] = {0, 0};
    g->device =
        !(kernel && !strcmp(kernel, "off")) && _oak_grass_square_job(g, 0, 0, 0, none, &probe);
    g->slot_tile = oak_alloc(sizeof *g->slot_tile * (g->slots ? g->slots : 1));
    if (!g->slot_tile) {
        oak_destroy_grass(g);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for slots");
    }
    for (uint32_t i = 0; i < g->slots; i++) g->slot_tile[i] = -1;
    if (g->device) {
        size_t n = g->slots ? g->slots : 1;
        g->slot_grid = oak_alloc(sizeof *g->slot_grid * GRID_FLOATS * n);
        g->slot_grid_ok = oak_calloc(n, 1);
        g->slot_rocks = oak_alloc(sizeof *g->slot_rocks * n);
        g->slot_rock_count = oak_alloc(sizeof *g->slot_rock_count * n);
        g->jobs_asked = oak_calloc(1, sizeof *g->jobs_asked);
        if (g->jobs_asked) atomic_init(g->jobs_asked, false);
        bool ok =
            g->slot_grid && g->slot_grid_ok && g->slot_rocks && g->slot_rock_count && g->jobs_asked;
        for (int k = 0; k < 2 && ok && !r; k++)
            r = _oak_stream_set_grass(g->stream[k], g->slot_size[k], slot_job, g);
        if (r || !ok) {
            oak_destroy_grass(g);
            return r ? r : oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for slots");
        }
    }
    *out = g;
    return OAK_OK;
}

void oak_destroy_grass(oak_grass *g) {
    if (!g) return;
    for (int s = 0; s < 2; s++) oak_scene_remove_stream(g->scene, g->stream[s]);
    for (uint32_t i = 0; i < LODS + FLOWER_LODS; i++)
        if (g->meshes[i].id) oak_destroy_mesh(g->meshes[i]);
    for (int s = 0; s < 2; s++)
        if (g->material[s].id) oak_destroy_material(g->material[s]);
    oak_free(g->tiles);
    oak_free(g->table);
    oak_free(g->req);
    oak_free(g->slot_used);
    oak_free(g->slot_tile);
    oak_free(g->slot_grid);
    oak_free(g->slot_grid_ok);
    oak_free(g->slot_rocks);
    oak_free(g->slot_rock_count);
    oak_free(g->jobs_asked);
    oak_free(g);
}

/* The live squares' records moved by the rebase (scene = world - origin):
   in place, in double, so within a float's rounding of a fresh growth. */
static void rebase_records(oak_grass *g, oak_instance *rec[2], const double origin[2]) {
    double dx = g->written_origin[0] - origin[0], dz = g->written_origin[1] - origin[1];
    for (uint32_t i = 0; i < g->tile_count; i++) {
        const gtile *t = &g->tiles[i];
        uint32_t n[2] = {t->grass_count, t->flower_count};
        for (int s = 0; s < 2; s++)
            for (uint32_t k = 0; k < n[s]; k++) {
                oak_instance *r = &rec[s][(size_t)t->slot * g->slot_size[s] + k];
                r->position[0] = (float)(r->position[0] + dx);
                r->position[2] = (float)(r->position[2] + dz);
            }
    }
}

oak_result oak_grass_update(oak_grass *g, const float eye[3]) {
    if (!g || !eye) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_grass_update: NULL argument");
    if (!isfinite(eye[0]) || !isfinite(eye[2]))
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "oak_grass_update: the eye is not finite");
    double origin[2];
    oak_terrain_origin(g->terrain, origin);
    const double we[2] = {eye[0] + origin[0], eye[2] + origin[1]};
    const double reach = g->desc.distance, keep = reach + 1.5 * g->tile;
    g->stats.grown = g->stats.dropped = 0;
    /* the records are written in place, each write logged by its range
       (render/stream.h), so a GPU backend copies only those */
    oak_instance *rec[2] = {g->stream[0]->records, g->stream[1]->records};
    if (g->written && (origin[0] != g->written_origin[0] || origin[1] != g->written_origin[1])) {
        _oak_stream_records_to_write(g->stream[0]);
        _oak_stream_records_to_write(g->stream[1]);
        rebase_records(g, rec, origin);
    }
    memcpy(g->written_origin, origin, sizeof g->written_origin);
    g->written = true;
    /* drop the squares past reach (with a square of slack, so one standing
       on the line does not come and go), zeroing their slots */
    for (uint32_t i = 0; i < g->tile_count;) {
        gtile *t = &g->tiles[i];
        if (square_distance(g, t->ix, t->iz, we) > keep) {
            slot_free(g, rec, t->slot);
            g->instances[0] -= t->grass_count, g->instances[1] -= t->flower_count;
            g->tiles[i] = g->tiles[--g->tile_count];
            g->stats.dropped++;
        } else {
            i++;
        }
    }
    if (!rehash(g)) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for its table");
    /* the squares within reach that are missing, nearest first */
    int64_t x0 = (int64_t)floor((we[0] - reach) / g->tile),
            x1 = (int64_t)floor((we[0] + reach) / g->tile);
    int64_t z0 = (int64_t)floor((we[1] - reach) / g->tile),
            z1 = (int64_t)floor((we[1] + reach) / g->tile);
    uint32_t nreq = 0;
    for (int64_t iz = z0; iz <= z1; iz++)
        for (int64_t ix = x0; ix <= x1; ix++) {
            double d = square_distance(g, ix, iz, we);
            if (d > reach || has_tile(g, ix, iz)) continue;
            if (!OAK_GROW(g->req, g->req_cap, nreq + 1))
                return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for requests");
            g->req[nreq++] = (request){ix, iz, d};
        }
    qsort(g->req, nreq, sizeof *g->req, cmp_request);
    uint32_t patches = g->per * g->per;
    uint32_t take = g->desc.budget / patches;
    if (take == 0) take = 1;
    if (take > nreq) take = nreq;
    if (take > g->slots - g->tile_count) take = g->slots - g->tile_count; /* slots full: wait */
    g->stats.pending = nreq - take;
    if (take) {
        if (!OAK_GROW(g->tiles, g->tile_cap, g->tile_count + take))
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for tiles");
        gtile **list = oak_alloc(sizeof *list * take);
        if (!list) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for tiles");
        /* the lowest free slots, in request order (the same for any thread count) */
        uint32_t slot = 0;
        for (uint32_t i = 0; i < take; i++) {
            while (g->slot_used[slot]) slot++;
            g->slot_used[slot] = 1;
            if (g->slot_grid_ok) g->slot_grid_ok[slot] = 0; /* a new square here */
            gtile *t = &g->tiles[g->tile_count + i];
            *t = (gtile){.ix = g->req[i].ix, .iz = g->req[i].iz, .slot = slot, .host = !g->device};
            list[i] = t;
            for (int s = 0; s < 2; s++)
                if (g->slot_size[s])
                    _oak_stream_records_to_write_range(g->stream[s], slot * g->slot_size[s],
                                                       g->slot_size[s]);
        }
        /* on the host now, or (the device's growth) only when read */
        if (!g->device) grow_list(g, list, take);
        oak_free(list);
        g->tile_count += take;
        if (g->device)
            for (int k = 0; k < 2; k++) _oak_stream_set_host_fill(g->stream[k], host_fill, g);
        g->stats.grown = take;
    }
    g->stats.tiles = g->tile_count;
    /* the device's jobs read each live square's grid of heights: made here
       on the job pool for the squares that lack one (those that arrived) */
    if (g->device && atomic_load_explicit(g->jobs_asked, memory_order_relaxed)) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < g->tile_count; i++) n += !g->slot_grid_ok[g->tiles[i].slot];
        gtile **list = n ? oak_alloc(sizeof *list * n) : NULL;
        if (n && !list) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "grass: no memory for grids");
        n = 0;
        for (uint32_t i = 0; list && i < g->tile_count; i++)
            if (!g->slot_grid_ok[g->tiles[i].slot]) list[n++] = &g->tiles[i];
        grid_job gj = {.g = g, .tiles = list};
        if (n) oak_parallel_for(n, 1, make_grids, &gj);
        oak_free(list);
    }
    { /* the counts: every slot up to the highest in use; each slot's tile */
        uint32_t top = 0;
        for (uint32_t i = 0; i < g->slots; i++) g->slot_tile[i] = -1;
        for (uint32_t i = 0; i < g->tile_count; i++) {
            top = g->tiles[i].slot + 1 > top ? g->tiles[i].slot + 1 : top;
            g->slot_tile[g->tiles[i].slot] = (int32_t)i;
        }
        /* on the device the counts never shrink: a stream's place in the
           device's buffer follows the counts of the streams before it, and
           the flowers' place moved with the grass's count whenever its top
           slot emptied, so the device regrew every flower square (free slots
           are zeros: scale 0, culled first) */
        if (g->device && g->slot_top > top) top = g->slot_top;
        g->slot_top = top;
        for (int s = 0; s < 2; s++) {
            oak_result r = oak_stream_set_count(g->stream[s], top * g->slot_size[s]);
            if (r) return r;
        }
    }
    return OAK_OK;
}

void oak_grass_get_stats(oak_grass_stats *out, const oak_grass *g) {
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!g) return;
    /* the counts are the host's: on the device's growth its copy is grown
       first (a tool's cost, not a frame's) */
    if (g->device) _oak_stream_host_records(g->stream[0]);
    *out = g->stats;
    out->instances = g->instances[0];
    out->flowers = g->instances[1];
    memcpy(out->blades, g->blades, sizeof out->blades);
    out->blades_each = OAK_GRASS_BLADES;
    memcpy(out->lod_distance, g->lod_distance, sizeof out->lod_distance);
}

oak_stream *oak_grass_stream(const oak_grass *g, bool flowers) {
    return g ? g->stream[flowers ? 1 : 0] : NULL;
}

oak_result _oak_grass_set_rocks(oak_grass *g, const oak_rocks *k) {
    if (!g) return oak_error(OAK_ERROR_INVALID_ARGUMENT, "grass rocks: NULL grass");
    /* a square grown without them would keep its plants in the rocks */
    if (g->written && g->rocks != k)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "grass rocks: set after the grass's first update");
    g->rocks = k;
    return OAK_OK;
}

void _oak_grass_use_grid(oak_grass *g, bool on) {
    double cells = g->tile / g->cell;
    g->grid = on && cells == floor(cells) && cells >= 1 && cells <= GRID_MAX ? (uint32_t)cells : 0;
}

uint32_t _oak_grass_slot_size(const oak_grass *g, bool flowers) {
    return g->slot_size[flowers ? 1 : 0];
}
