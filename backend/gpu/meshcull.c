/* Per-meshlet culling shared by the backends (meshcull.h): the triangle map
 * made once per mesh upload, and the frustum and cone test made per
 * meshlet per frame. */
#include "meshcull.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <oak/core.h>

bool _oak_meshcull_enabled(void) {
    const char *e = getenv("OAK_MESHCULL");
    return !(e && !strcmp(e, "off"));
}

bool _oak_meshcull_mesh_ok(const oak_mesh_data *d) {
    /* whole triangles only: a cut of a ragged list is refused (and logged) */
    return d && d->index_count >= 3 && d->index_count % 3 == 0 && d->indices && !d->joints &&
           !d->targets && !d->prev_positions && !d->palette;
}

bool _oak_meshcull_cut_ready(const oak_mesh_data *d) {
    return d && ((d->meshlets && d->meshlets_version == d->version) ||
                 d->index_count / 3 <= OAK_MESHCULL_CUT_MAX_TRIANGLES);
}

bool _oak_meshcull_worth(const oak_meshlets *m) {
    if (!m || !m->count) return false;
    if (m->count >= OAK_MESHCULL_MIN_MESHLETS) return true;
    for (uint32_t i = 0; i < m->count; i++)
        if (m->meshlets[i].cone_cutoff + OAK_MESHCULL_CONE_EPS < OAK_MESHCULL_CONE_USEFUL)
            return true;
    return false;
}

/* A triangle keyed by its rotation that starts at its smallest index, so
   meshoptimizer's rotated copies (winding kept) find the original. */
static void canon(const uint32_t in[3], uint32_t out[3]) {
    int s = in[0] <= in[1] ? (in[0] <= in[2] ? 0 : 2) : (in[1] <= in[2] ? 1 : 2);
    for (int k = 0; k < 3; k++) out[k] = in[(s + k) % 3];
}

static uint32_t hash3(const uint32_t t[3]) {
    uint64_t h = (uint64_t)t[0] * 0x9E3779B97F4A7C15ull ^ (uint64_t)t[1] * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)t[2] * 0x165667B19E3779F9ull;
    return (uint32_t)(h ^ (h >> 29));
}

bool _oak_meshcull_triangle_map(uint32_t *tri_of, const oak_meshlets *m, const uint32_t *indices,
                                uint32_t tri_count) {
    uint32_t cap = 1;
    while (cap < tri_count * 2u) cap <<= 1;
    uint32_t *slot = oak_alloc((size_t)cap * sizeof(uint32_t)); /* triangle + 1; 0 empty */
    if (!slot) return false;
    memset(slot, 0, (size_t)cap * sizeof(uint32_t));
    for (uint32_t t = 0; t < tri_count; t++) {
        uint32_t c[3];
        canon(indices + (size_t)t * 3, c);
        uint32_t h = hash3(c) & (cap - 1);
        while (slot[h]) h = (h + 1) & (cap - 1);
        slot[h] = t + 1;
    }
    bool ok = true;
    uint32_t k = 0;
    for (uint32_t i = 0; ok && i < m->count; i++) {
        const oak_meshlet *ml = &m->meshlets[i];
        for (uint32_t j = 0; j < ml->triangle_count; j++, k++) {
            const uint8_t *lt = m->triangles + ml->triangle_offset + (size_t)j * 3;
            uint32_t g[3], c[3];
            for (int e = 0; e < 3; e++) g[e] = m->vertices[ml->vertex_offset + lt[e]];
            canon(g, c);
            uint32_t h = hash3(c) & (cap - 1), found = 0;
            /* the first unclaimed copy: a triangle listed twice maps to both */
            for (; slot[h]; h = (h + 1) & (cap - 1)) {
                if (slot[h] == UINT32_MAX) continue;
                uint32_t o[3];
                canon(indices + (size_t)(slot[h] - 1) * 3, o);
                if (o[0] == c[0] && o[1] == c[1] && o[2] == c[2]) {
                    found = slot[h];
                    slot[h] = UINT32_MAX; /* claimed; keeps the probe chain */
                    break;
                }
            }
            if (!found || k >= tri_count) {
                ok = false;
                break;
            }
            tri_of[k] = found - 1;
        }
    }
    if (ok && k != tri_count) ok = false;
    oak_free(slot);
    if (!ok)
        oak_log_warn("meshlet culling: a mesh's meshlets do not match its triangles; drawn uncut");
    return ok;
}

static void plane_norm(float p[4]) {
    float l = sqrtf(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    if (l > 0)
        for (int k = 0; k < 4; k++) p[k] /= l;
}

void _oak_meshcull_view_make(_oak_meshcull_view *out, const oak_render_view *v, uint32_t width,
                             uint32_t height) {
    const float(*M)[4] = (const float(*)[4])v->view_proj; /* column-major: M[col][row] */
    float row[4][4];
    for (int r = 0; r < 4; r++)
        for (int c = 0; c < 4; c++) row[r][c] = M[c][r];
    /* x >= -k w and the rest, k the margin's stretch of the clip square */
    float kx = 1.0f + 2.0f * OAK_MESHCULL_MARGIN_PX / (float)(width ? width : 1);
    float ky = 1.0f + 2.0f * OAK_MESHCULL_MARGIN_PX / (float)(height ? height : 1);
    for (int c = 0; c < 4; c++) {
        out->planes[0][c] = row[0][c] + kx * row[3][c];
        out->planes[1][c] = -row[0][c] + kx * row[3][c];
        out->planes[2][c] = row[1][c] + ky * row[3][c];
        out->planes[3][c] = -row[1][c] + ky * row[3][c];
        out->planes[4][c] = row[3][c] - row[2][c]; /* reversed-Z: near at z = w */
    }
    for (int i = 0; i < 5; i++) plane_norm(out->planes[i]);
    /* the eye the view matrix was made from (a rigid map: -R^T t) */
    const float(*V)[4] = (const float(*)[4])v->view;
    for (int k = 0; k < 3; k++)
        out->eye[k] = -(V[k][0] * V[3][0] + V[k][1] * V[3][1] + V[k][2] * V[3][2]);
    out->ortho = v->ortho;
    /* proj[1][1]: 1 / tan(half the vertical field) (ortho: 1 / half height) */
    out->lod_px = 0.5f * (float)height * fabsf(v->proj[1][1]);
    out->znear = v->znear > 0 ? v->znear : 1e-3f;
}

void _oak_meshcull_view_shadow(_oak_meshcull_view *out, const float *view_proj, uint32_t size,
                               bool ortho, const float eye[3], float znear) {
    memset(out, 0, sizeof *out);
    /* row 1 of P V is P[1][1] times the view's unit y row (plus the
       projection's y offset times the w row, whose xyz is 0 for an
       orthographic map and for a perspective one centred on its axis) */
    const float *M = view_proj;
    float y = sqrtf(M[1] * M[1] + M[5] * M[5] + M[9] * M[9]);
    out->lod_px = 0.5f * (float)size * y;
    out->ortho = ortho;
    if (!ortho && eye) memcpy(out->eye, eye, sizeof out->eye);
    out->znear = znear > 0 ? znear : 1e-3f;
}

bool _oak_meshcull_draw_make(_oak_meshcull_draw *out, const _oak_meshcull_view *cv,
                             const float world[16], bool single_sided) {
    const float *a = world;
    float sx = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    float sy = sqrtf(a[4] * a[4] + a[5] * a[5] + a[6] * a[6]);
    float sz = sqrtf(a[8] * a[8] + a[9] * a[9] + a[10] * a[10]);
    out->world = world;
    out->scale = fmaxf(sx, fmaxf(sy, sz));
    if (!isfinite(out->scale)) return false;
    /* the eye in mesh space: front and back survive any invertible affine
       map whose determinant is positive (a mirror swaps them: no cone) */
    float det = a[0] * (a[5] * a[10] - a[9] * a[6]) - a[4] * (a[1] * a[10] - a[9] * a[2]) +
                a[8] * (a[1] * a[6] - a[5] * a[2]);
    out->cone = single_sided && !cv->ortho && det > 0 && isfinite(det);
    if (out->cone) {
        float e[3] = {cv->eye[0] - a[12], cv->eye[1] - a[13], cv->eye[2] - a[14]};
        float id = 1.0f / det;
        /* inverse of the 3x3 (columns a0..2, a4..6, a8..10) times e */
        float i00 = (a[5] * a[10] - a[9] * a[6]) * id, i01 = (a[8] * a[6] - a[4] * a[10]) * id,
              i02 = (a[4] * a[9] - a[8] * a[5]) * id;
        float i10 = (a[9] * a[2] - a[1] * a[10]) * id, i11 = (a[0] * a[10] - a[8] * a[2]) * id,
              i12 = (a[8] * a[1] - a[0] * a[9]) * id;
        float i20 = (a[1] * a[6] - a[5] * a[2]) * id, i21 = (a[4] * a[2] - a[0] * a[6]) * id,
              i22 = (a[0] * a[5] - a[4] * a[1]) * id;
        out->eye[0] = i00 * e[0] + i01 * e[1] + i02 * e[2];
        out->eye[1] = i10 * e[0] + i11 * e[1] + i12 * e[2];
        out->eye[2] = i20 * e[0] + i21 * e[1] + i22 * e[2];
        if (!(isfinite(out->eye[0]) && isfinite(out->eye[1]) && isfinite(out->eye[2])))
            out->cone = false;
    }
    return true;
}

float _oak_clod_project(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                        const float sphere[4], float error) {
    if (error >= FLT_MAX) return FLT_MAX; /* a root: its parent is never drawn */
    const float *a = dc->world;
    float w[3];
    for (int r = 0; r < 3; r++)
        w[r] = a[r] * sphere[0] + a[4 + r] * sphere[1] + a[8 + r] * sphere[2] + a[12 + r];
    float e = error * dc->scale * cv->lod_px;
    if (cv->ortho) return e;
    float dx = w[0] - cv->eye[0], dy = w[1] - cv->eye[1], dz = w[2] - cv->eye[2];
    float d = sqrtf(dx * dx + dy * dy + dz * dz) - sphere[3] * dc->scale;
    return e / fmaxf(d, cv->znear);
}

bool _oak_clod_over(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                    const float sphere[4], float error) {
    if (error >= FLT_MAX) return true; /* a root: its parent is never drawn */
    /* clod.glsl's oak_clod_over operation for operation (no division: a
       GPU's may be a reciprocal and a product) */
    float e = error * dc->scale * cv->lod_px;
    if (cv->ortho) return e > OAK_CLOD_THRESHOLD_PX;
    const float *a = dc->world;
    float w[3];
    for (int r = 0; r < 3; r++)
        w[r] = a[r] * sphere[0] + a[4 + r] * sphere[1] + a[8 + r] * sphere[2] + a[12 + r];
    float dx = w[0] - cv->eye[0], dy = w[1] - cv->eye[1], dz = w[2] - cv->eye[2];
    float d = sqrtf(dx * dx + dy * dy + dz * dz) - sphere[3] * dc->scale;
    return e > OAK_CLOD_THRESHOLD_PX * fmaxf(d, cv->znear);
}

bool _oak_clod_keep(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                    const oak_meshlet *ml) {
    return !_oak_clod_over(cv, dc, ml->lod_sphere, ml->lod_error) &&
           _oak_clod_over(cv, dc, ml->parent_sphere, ml->parent_error);
}

int _oak_meshcull_test(const _oak_meshcull_view *cv, const _oak_meshcull_draw *dc,
                       const oak_meshlet *ml) {
    /* a plain mesh's meshlets (error 0 under a root) skip the cut */
    if ((ml->lod_error > 0 || ml->parent_error < FLT_MAX) && !_oak_clod_keep(cv, dc, ml))
        return OAK_MESHCULL_LOD;
    const float *a = dc->world, *c = ml->center;
    float w[3];
    for (int r = 0; r < 3; r++) w[r] = a[r] * c[0] + a[4 + r] * c[1] + a[8 + r] * c[2] + a[12 + r];
    float rad = ml->radius * dc->scale;
    for (int i = 0; i < 5; i++) {
        const float *p = cv->planes[i];
        if (p[0] * w[0] + p[1] * w[1] + p[2] * w[2] + p[3] < -rad) return OAK_MESHCULL_FRUSTUM;
    }
    if (dc->cone && ml->cone_cutoff < 1.0f) {
        float d[3] = {ml->cone_apex[0] - dc->eye[0], ml->cone_apex[1] - dc->eye[1],
                      ml->cone_apex[2] - dc->eye[2]};
        float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        float dp = d[0] * ml->cone_axis[0] + d[1] * ml->cone_axis[1] + d[2] * ml->cone_axis[2];
        if (l > 0 && dp >= (ml->cone_cutoff + OAK_MESHCULL_CONE_EPS) * l) return OAK_MESHCULL_CONE;
    }
    return OAK_MESHCULL_KEEP;
}

/* ---- the GPUs' records ---------------------------------------------------- */

const oak_meshlets *_oak_meshcull_gpu_cut(oak_mesh h, const oak_mesh_data *d, uint32_t **tri_of) {
    *tri_of = NULL;
    if (!_oak_meshcull_enabled() || !_oak_meshcull_mesh_ok(d) || !_oak_meshcull_cut_ready(d))
        return NULL;
    const oak_meshlets *ml = NULL;
    if (oak_mesh_meshlets(h, &ml) != OAK_OK || !_oak_meshcull_worth(ml) || ml->count > UINT16_MAX) {
        oak_clear_error();
        return NULL; /* drawn uncut */
    }
    uint32_t tris = d->index_count / 3;
    uint32_t *map = oak_alloc((size_t)tris * sizeof(uint32_t));
    if (!map) return NULL;
    /* a cluster-LOD mesh's index list is its meshlets' triangles in order
       (asset/clod.c; a triangle a level left whole is listed once per
       level): the identity, as the CPU maps it */
    uint32_t all = 0;
    for (uint32_t i = 0; i < ml->count; i++) all += ml->meshlets[i].triangle_count;
    if (d->finest_index_count && all == tris) {
        for (uint32_t k = 0; k < tris; k++) map[k] = k;
    } else if (!_oak_meshcull_triangle_map(map, ml, d->indices, tris)) {
        oak_free(map);
        return NULL;
    }
    *tri_of = map;
    return ml;
}

void _oak_meshcull_gpu_levels(const oak_meshlets *m, const oak_mesh_data *d, uint32_t *finest,
                              uint32_t *region) {
    uint32_t t = 0, i = 0, all = 0;
    for (uint32_t k = 0; k < m->count; k++) all += m->meshlets[k].triangle_count;
    *region = all;
    *finest = m->count;
    if (!d->finest_index_count || all != d->index_count / 3) return;
    /* the meshlets that hold the first finest_index_count indices, as
       cpu_meshcull.c's ml_finest */
    while (i < m->count && t < d->finest_index_count / 3) t += m->meshlets[i++].triangle_count;
    *finest = i;
    *region = t;
}

uint32_t _oak_meshcull_gpu_uvec4(const oak_meshlets *m) {
    uint32_t tris = 0;
    for (uint32_t i = 0; i < m->count; i++) tris += m->meshlets[i].triangle_count;
    return m->count * OAK_GPU_MESHLET_UVEC4 + (tris + 3) / 4;
}

void _oak_meshcull_gpu_pack(uint32_t (*out)[4], uint32_t first, const oak_meshlets *m,
                            const uint32_t *tri_of) {
    uint32_t words = (first + m->count * OAK_GPU_MESHLET_UVEC4) * 4, k = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        const oak_meshlet *ml = &m->meshlets[i];
        oak_gpu_meshlet g;
        memset(&g, 0, sizeof g);
        memcpy(g.sphere, ml->center, sizeof ml->center);
        g.sphere[3] = ml->radius;
        memcpy(g.cone_apex, ml->cone_apex, sizeof ml->cone_apex);
        g.cone_apex[3] = ml->cone_cutoff;
        memcpy(g.cone_axis, ml->cone_axis, sizeof ml->cone_axis);
        /* cluster LOD's fields (a plain mesh's meshlets: lod_error 0, no
           parent, always their own level) */
        memcpy(g.lod_sphere, ml->lod_sphere, sizeof g.lod_sphere);
        memcpy(g.parent_sphere, ml->parent_sphere, sizeof g.parent_sphere);
        g.error[0] = ml->lod_error;
        g.error[1] = ml->parent_error;
        g.offsets[0] = words + k;
        g.offsets[1] = ml->triangle_count;
        memcpy(out[i * OAK_GPU_MESHLET_UVEC4], &g, sizeof g);
        k += ml->triangle_count;
    }
    uint32_t *tw = out[m->count * OAK_GPU_MESHLET_UVEC4];
    memcpy(tw, tri_of, (size_t)k * sizeof(uint32_t));
    for (uint32_t j = k; j % 4; j++) tw[j] = 0;
}

static uint32_t fbits(float x) {
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

void _oak_meshcull_gpu_head(uint32_t out[OAK_GPU_MESHCULL_HEAD_WORDS], const _oak_meshcull_view *cv,
                            uint32_t jobs, uint32_t index_word, uint32_t map_word) {
    memset(out, 0, OAK_GPU_MESHCULL_HEAD_WORDS * sizeof(uint32_t));
    out[4] = jobs;
    out[5] = index_word;
    out[6] = map_word;
    for (int i = 0; i < 5; i++)
        for (int c = 0; c < 4; c++) out[8 + i * 4 + c] = fbits(cv->planes[i][c]);
    /* cluster LOD's view (the counter it adds to is word 7) */
    for (int k = 0; k < 3; k++) out[28 + k] = fbits(cv->eye[k]);
    out[31] = fbits(cv->lod_px);
    out[32] = fbits(cv->znear);
    out[33] = cv->ortho ? 1u : 0u;
}

bool _oak_meshcull_gpu_job(uint32_t out[OAK_GPU_MESHCULL_JOB_WORDS], const _oak_meshcull_view *cv,
                           const float world[16], bool single_sided, uint32_t draw,
                           uint32_t first_record, uint32_t meshlets, uint32_t finest,
                           uint32_t words, uint32_t cmd_word) {
    _oak_meshcull_draw dc;
    bool ok = _oak_meshcull_draw_make(&dc, cv, world, single_sided);
    /* no cut, frustum or cone: the finest meshlets kept, the rest out of
       the cut (bit 30) */
    if (!ok) dc.cone = false, dc.scale = INFINITY;
    memset(out, 0, OAK_GPU_MESHCULL_JOB_WORDS * sizeof(uint32_t));
    out[0] = draw;
    out[1] = first_record;
    out[2] = meshlets | (dc.cone ? 0x80000000u : 0u) | (ok ? 0u : 0x40000000u);
    out[3] = 0; /* the region: the scan's (meshcull_scan.comp) */
    for (int k = 0; k < 3; k++) out[4 + k] = fbits(dc.cone ? dc.eye[k] : 0.0f);
    out[7] = fbits(dc.scale);
    out[8] = cmd_word;
    out[9] = finest;
    out[10] = words;
    return ok;
}

bool _oak_meshcull_gpu_shadow_job(uint32_t out[OAK_GPU_MESHCULL_JOB_WORDS],
                                  const _oak_meshcull_view *cv, const float world[16],
                                  uint32_t draw, uint32_t first_record, uint32_t meshlets,
                                  uint32_t finest, uint32_t words, uint32_t cmd_word) {
    bool ok = _oak_meshcull_gpu_job(out, cv, world, false, draw, first_record, meshlets, finest,
                                    words, cmd_word);
    out[2] |= 0x20000000u | (cv->ortho ? 0x10000000u : 0u);
    for (int k = 0; k < 3; k++) out[4 + k] = fbits(cv->eye[k]);
    out[OAK_GPU_MESHCULL_JOB_LOD_PX] = fbits(cv->lod_px);
    out[OAK_GPU_MESHCULL_JOB_LOD_PX + 1] = fbits(cv->znear);
    return ok;
}

uint64_t _oak_meshcull_gpu_limit(uint64_t device_bytes) {
    const char *e = getenv("OAK_MESHCULL_MAX_BYTES");
    if (e && *e) {
        unsigned long long v = strtoull(e, NULL, 10);
        if (v && v < device_bytes) return v;
    }
    return device_bytes;
}

uint64_t _oak_meshcull_gpu_room(uint64_t map_word, uint64_t tris, uint64_t limit_words) {
    if (map_word + 4 * tris <= limit_words) return tris;
    return limit_words > map_word ? (limit_words - map_word) / 4 : 0;
}

void _oak_meshcull_gpu_stats(oak_meshlet_stats *out, const uint32_t *head) {
    out->on = true;
    out->tested = head[0];
    out->culled_frustum = head[1];
    out->culled_cone = head[2];
    out->triangles_kept = head[3];
    out->culled_lod = head[7];
    /* two-pass Hi-Z (common/meshcull_hiz.glsl): words 0 to 3 are its second
       step's, which tests every meshlet; 37 those the pyramid hid; 43 the
       triangles its first step kept (both 0 without Hi-Z) */
    out->culled_occluded = head[37];
    out->triangles_pass1 = head[43];
    out->triangles_kept += head[43];
    out->overflow_triangles = head[OAK_GPU_MESHCULL_OVERFLOW_WORD];
    /* the shadow maps' cuts (shadow jobs) */
    out->shadow_triangles = head[OAK_GPU_MESHCULL_SHADOW_TRIS];
    out->shadow_culled_lod = head[OAK_GPU_MESHCULL_SHADOW_LOD];
}
