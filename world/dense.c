/* The `dense` world: a field of high-polygon procedural rocks (subdivided
 * icospheres displaced by value-noise fBm, 327,680 triangles each) drawn by
 * cluster LOD (docs/ARCHITECTURE.md "Cluster LOD"): --count N rocks (default
 * 320, 10^8 source triangles) on a square grid the camera sees whole, so the
 * triangles drawn follow the pixels covered, not the source's. */
#include <math.h>
#include <string.h>

#include "asset/clod_cache.h"
#include "world/internal.h"

#define DENSE_DEFAULT 320u
#define DENSE_MAX     4096u
#define DENSE_KINDS   4 /* distinct rock meshes, instanced round the grid */

static float lattice(int32_t x, int32_t y, int32_t z, uint32_t seed) {
    uint32_t h = _oak_world_hash_u32((uint32_t)x * 0x8DA6B343u ^ (uint32_t)y * 0xD8163841u ^
                                     (uint32_t)z * 0xCB1AB31Fu ^ seed);
    return (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

static float smooth(float t) {
    return t * t * (3 - 2 * t);
}

/* value noise in [-1, 1], trilinear over a hashed integer lattice */
static float noise3(const float p[3], uint32_t seed) {
    float f[3], u[3];
    int32_t i[3];
    for (int k = 0; k < 3; k++) {
        float fl = floorf(p[k]);
        i[k] = (int32_t)fl;
        f[k] = p[k] - fl;
        u[k] = smooth(f[k]);
    }
    float c[2][2][2];
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++)
            for (int x = 0; x < 2; x++) c[z][y][x] = lattice(i[0] + x, i[1] + y, i[2] + z, seed);
    float xy[2][2];
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 2; y++) xy[z][y] = c[z][y][0] + (c[z][y][1] - c[z][y][0]) * u[0];
    float a = xy[0][0] + (xy[0][1] - xy[0][0]) * u[1], b = xy[1][0] + (xy[1][1] - xy[1][0]) * u[1];
    return a + (b - a) * u[2];
}

typedef struct edge_map {
    uint64_t *keys;
    uint32_t *vals;
    uint32_t cap;
} edge_map;

/* the midpoint vertex of edge (a, b), made on first sight */
static uint32_t midpoint(edge_map *m, float *pos, uint32_t *vn, uint32_t a, uint32_t b) {
    uint64_t key = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
    uint32_t h = _oak_world_hash_u32((uint32_t)key ^ _oak_world_hash_u32((uint32_t)(key >> 32)));
    for (h &= m->cap - 1; m->keys[h] != UINT64_MAX; h = (h + 1) & (m->cap - 1))
        if (m->keys[h] == key) return m->vals[h];
    uint32_t v = (*vn)++;
    float *p = pos + 3 * (size_t)v, l = 0;
    for (int k = 0; k < 3; k++) {
        p[k] = 0.5f * (pos[3 * (size_t)a + k] + pos[3 * (size_t)b + k]);
        l += p[k] * p[k];
    }
    l = 1.0f / sqrtf(l);
    for (int k = 0; k < 3; k++) p[k] *= l;
    m->keys[h] = key;
    m->vals[h] = v;
    return v;
}

void _oak_world_rock_geometry_free(_oak_rock_geometry *g) {
    if (!g) return;
    oak_free(g->pos), oak_free(g->nrm), oak_free(g->ix);
    memset(g, 0, sizeof *g);
}

oak_result _oak_world_rock_geometry(_oak_rock_geometry *out, uint32_t subdivisions, uint32_t seed) {
    memset(out, 0, sizeof *out);
    if (subdivisions > 8)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "dense rock: %u subdivisions, at most 8",
                         subdivisions);
    uint32_t tris = 20u << (2 * subdivisions), verts = 10u * (1u << (2 * subdivisions)) + 2;
    float *pos = oak_alloc(sizeof *pos * 3 * verts), *nrm = oak_alloc(sizeof *nrm * 3 * verts);
    uint32_t *ix = oak_alloc(sizeof *ix * 3 * tris), *tmp = oak_alloc(sizeof *tmp * 3 * tris);
    edge_map m = {0};
    m.cap = 1;
    while (m.cap < 2 * verts) m.cap <<= 1;
    m.keys = oak_alloc(sizeof *m.keys * m.cap);
    m.vals = oak_alloc(sizeof *m.vals * m.cap);
    oak_result r = OAK_OK;
    if (!pos || !nrm || !ix || !tmp || !m.keys || !m.vals) {
        r = oak_error(OAK_ERROR_OUT_OF_MEMORY, "dense rock: out of memory");
        goto done;
    }
    /* the icosahedron */
    const float t = 1.6180339887f;
    const float iv[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                             {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                             {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    const uint32_t it[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                                {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                                {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                                {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    uint32_t vn = 12, tn = 20;
    for (int v = 0; v < 12; v++) {
        float l = sqrtf(iv[v][0] * iv[v][0] + iv[v][1] * iv[v][1] + iv[v][2] * iv[v][2]);
        for (int k = 0; k < 3; k++) pos[3 * v + k] = iv[v][k] / l;
    }
    memcpy(ix, it, sizeof it);
    for (uint32_t s = 0; s < subdivisions; s++) {
        memset(m.keys, 0xff, sizeof *m.keys * m.cap);
        for (uint32_t f = 0; f < tn; f++) {
            uint32_t a = ix[3 * f], b = ix[3 * f + 1], c = ix[3 * f + 2];
            uint32_t ab = midpoint(&m, pos, &vn, a, b), bc = midpoint(&m, pos, &vn, b, c),
                     ca = midpoint(&m, pos, &vn, c, a);
            const uint32_t q[12] = {a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca};
            memcpy(tmp + 12 * (size_t)f, q, sizeof q);
        }
        tn *= 4;
        uint32_t *sw = ix;
        ix = tmp, tmp = sw;
    }
    /* a lumpy rock: fBm along each direction, a little flattened */
    float ph[3] = {_oak_world_hash01(seed, 1) * 100, _oak_world_hash01(seed, 2) * 100,
                   _oak_world_hash01(seed, 3) * 100};
    for (uint32_t v = 0; v < vn; v++) {
        /* three broad octaves: a boulder smooth at a few pixels (the
           source is far finer than its shape needs: what cluster LOD is
           for; a bumpier one keeps its bumps, a pixel high, to ~30
           triangles a pixel at 5-pixel rocks) */
        float *p = pos + 3 * (size_t)v, h = 0, amp = 0.22f, fr = 0.9f;
        for (int o = 0; o < 3; o++, amp *= 0.4f, fr *= 2.03f) {
            float q[3] = {p[0] * fr + ph[0], p[1] * fr + ph[1], p[2] * fr + ph[2]};
            h += amp * noise3(q, seed * 7919u + (uint32_t)o);
        }
        float rad = 1.0f + h;
        p[0] *= rad, p[1] *= 0.75f * rad, p[2] *= rad;
    }
    /* area-weighted normals of the source (the DAG's coarser levels would
       smear them if the mesh made its own from every level) */
    memset(nrm, 0, sizeof *nrm * 3 * vn);
    for (uint32_t f = 0; f < tn; f++) {
        const float *a = pos + 3 * (size_t)ix[3 * f], *b = pos + 3 * (size_t)ix[3 * f + 1],
                    *c = pos + 3 * (size_t)ix[3 * f + 2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]},
              e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++)
            for (int j = 0; j < 3; j++) nrm[3 * (size_t)ix[3 * f + k] + j] += n[j];
    }
    for (uint32_t v = 0; v < vn; v++) {
        float *n = nrm + 3 * (size_t)v, l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) n[k] = l > 0 ? n[k] / l : (k == 1);
    }
    *out = (_oak_rock_geometry){
        .pos = pos, .nrm = nrm, .ix = ix, .vertex_count = vn, .index_count = 3 * tn};
    pos = nrm = NULL, ix = NULL;
done:
    oak_free(pos), oak_free(nrm), oak_free(ix), oak_free(tmp), oak_free(m.keys), oak_free(m.vals);
    return r;
}

oak_result _oak_world_dense_rock(oak_mesh *out, uint32_t subdivisions, uint32_t seed) {
    out->id = 0;
    _oak_rock_geometry g;
    oak_result r = _oak_world_rock_geometry(&g, subdivisions, seed);
    if (r) return r;
    oak_mesh_desc d = {.vertex_count = g.vertex_count,
                       .positions = g.pos,
                       .normals = g.nrm,
                       .indices = g.ix,
                       .index_count = g.index_count,
                       .name = "dense_rock"};
    r = oak_make_clod_mesh(out, &d);
    _oak_world_rock_geometry_free(&g);
    return r;
}

/* the grid's side for n rocks */
static uint32_t grid_side(uint32_t n) {
    uint32_t k = 1;
    while (k * k < n) k++;
    return k;
}

/* The rocks of earlier builds, kept while their meshes live: a second
   build (a test's next count, a scene made again) pays no DAG. */
static oak_mesh g_rocks[DENSE_KINDS];

oak_result _oak_world_dense_build(oak_scene *scene, const oak_world_options *opts) {
    uint32_t n = opts && opts->count ? opts->count : DENSE_DEFAULT;
    if (n > DENSE_MAX)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "world dense: --count %u, at most %u", n,
                         DENSE_MAX);
    uint64_t t0 = oak_time_ns();
    _oak_clod_cache_stats c0, c1;
    _oak_clod_cache_stats_get(&c0);
    oak_mesh rocks[DENSE_KINDS];
    uint32_t kinds = n < DENSE_KINDS ? n : DENSE_KINDS;
    for (uint32_t i = 0; i < kinds; i++) {
        /* the handle could name another mesh after the registry restarts */
        const oak_mesh_data *had = oak_mesh_get(g_rocks[i]);
        if (had && had->finest_index_count && had->name && !strcmp(had->name, "dense_rock") &&
            had->finest_index_count == 3 * (20u << (2 * OAK_WORLD_DENSE_SUBDIVISIONS))) {
            rocks[i] = g_rocks[i];
            continue;
        }
        oak_result r = _oak_world_dense_rock(&rocks[i], OAK_WORLD_DENSE_SUBDIVISIONS, 11 + i);
        if (r) return r;
        g_rocks[i] = rocks[i];
    }
    _oak_clod_cache_stats_get(&c1);
    oak_log_info("world dense: %u rock meshes of %u triangles made in %.0f ms (%u DAGs loaded "
                 "from the disk cache, %u built)",
                 kinds, 20u << (2 * OAK_WORLD_DENSE_SUBDIVISIONS), oak_ms_since(t0),
                 c1.hit - c0.hit, (c1.off + c1.miss + c1.bad) - (c0.off + c0.miss + c0.bad));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = 0.46f, md.base_color[1] = 0.42f, md.base_color[2] = 0.38f;
    md.roughness = 0.85f;
    md.name = "dense_rock";
    oak_material mat;
    oak_result r = oak_make_material(&mat, &md);
    if (r) return r;
    /* one square field for every count: more rocks are smaller and closer
       together, so the pixels they cover stay about the same while the
       source triangles grow with the count */
    uint32_t k = grid_side(n);
    float half = 0.5f * OAK_WORLD_DENSE_FIELD, step = OAK_WORLD_DENSE_FIELD / (float)k;
    oak_shape_desc gd = {.type = OAK_SHAPE_PLANE,
                         .size = {2 * half + 60, 0, 2 * half + 60},
                         .uv_scale = (2 * half + 60) / 8};
    if ((r = _oak_world_add_ground(scene, &gd, "ground"))) return r;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t gx = i % k, gz = i / k;
        oak_transform t = oak_transform_identity();
        float s = step / 1.9f * (0.7f + 0.6f * _oak_world_hash01(i, 5));
        t.position[0] =
            ((float)gx + 0.5f) * step - half + 0.2f * step * (_oak_world_hash01(i, 6) - 0.5f);
        t.position[2] =
            ((float)gz + 0.5f) * step - half + 0.2f * step * (_oak_world_hash01(i, 7) - 0.5f);
        t.position[1] = 0.45f * s; /* sunk a little into the ground */
        float a = OAK_PI * _oak_world_hash01(i, 8);
        t.rotation[1] = sinf(a), t.rotation[3] = cosf(a);
        t.scale[0] = t.scale[1] = t.scale[2] = s;
        oak_mesh mesh = rocks[_oak_world_hash_u32(i) % kinds];
        oak_entity e = _oak_world_place(scene, NULL, mesh, mat, &t);
        if (!e.id) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world dense: no room for rock %u", i);
        /* they cast: every backend's shadow maps draw each cascade's own
           cut by its texel (docs/ARCHITECTURE.md "Cluster LOD"), coarser
           than the camera's, not the 10^8 triangles of the finest levels */
        oak_mesh_renderer mr = {.mesh = mesh, .material = mat};
        oak_scene_set_mesh_renderer(scene, e, &mr);
    }
    oak_world_day day = {.elevation_deg = 40,
                         .azimuth_deg = 60,
                         .distance = 2 * half + 50,
                         .sun_color = {1, 0.96f, 0.9f},
                         .sun_lux = 100000,
                         .zenith = {0.25f, 0.45f, 0.85f},
                         .horizon = {0.7f, 0.8f, 0.92f},
                         .ambient_sky = {0.05f, 0.0667f, 0.1f},
                         .ambient_ground = {0.0267f, 0.0233f, 0.0183f}};
    if ((r = _oak_world_clear_day(scene, &day))) return r;
    oak_camera cam = {0};
    cam.zfar = 8 * half + 200;
    float eye[3], target[3];
    _oak_world_dense_path(0, eye, target);
    if (!_oak_world_camera(scene, &cam, eye, target).id)
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "world dense: no room for the camera");
    return OAK_OK;
}

/* From above the near edge of the field, looking down at about 55 degrees
   so the whole square is in view and the rocks hide little of each other;
   the bench path swings a little to each side. */
void _oak_world_dense_path(float t, float eye[3], float target[3]) {
    float half = 0.5f * OAK_WORLD_DENSE_FIELD, a = 0.35f * sinf(2 * OAK_PI * t);
    float d = 1.3f * half;
    eye[0] = d * sinf(a), eye[1] = 1.25f * half, eye[2] = d * cosf(a);
    target[0] = 0.15f * eye[0], target[1] = 0, target[2] = 0.2f * half;
}
