/* The sun's four cascades fitted to the view: split distances (part
 * logarithmic, part uniform), a sphere around each slice (so a map's texel
 * does not change as the camera turns) widened by a margin and snapped to
 * whole texels in a light space anchored at the world origin (so edges do
 * not crawl), its centre kept while the sphere stays inside (so the cached
 * static layer survives camera motion), and per cascade its static casters
 * (all in the map's box) then its movers (those that can shade the slice). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend.h"
#include "stream.h"

#define CASTER_CHUNK 1024

/* A slice of the view seen from the sun: its frustum's outline across the
   light (convex, counter-clockwise, in light-space x, y) and its depth. */
typedef struct cascade_fit {
    float hull[8][2];
    uint32_t hull_count;
    float margin;     /* metres the receivers' read reaches past the outline */
    float zmin, zmax; /* light-space z of the slice (z grows towards the sun) */
    /* the map's box in light space: x, y within half of centre, z from
       zlo to zhi (caster reach included) */
    float centre[2], half, zlo, zhi;
    bool tight;         /* the map moves often: static casters culled as movers are */
    float lo[2], hi[2]; /* the outline's bounding box (a cheap first reject) */
} cascade_fit;

typedef struct caster_job {
    const oak_frame_input *in;
    mat4 light_view;
    uint32_t count;
    cascade_fit fit[OAK_MAX_CASCADES];
    uint8_t *casting; /* per draw: bit c set when it casts into cascade c */
    /* per chunk of CASTER_CHUNK draws, per (cascade, moving): its count,
       then (after the prefix sum) its first place in the caster list */
    uint32_t *slots;
    oak_frontend *fe;
    oak_draw_list *list;
} caster_job;

#define CASTER_SLOTS (2 * OAK_MAX_CASCADES) /* (cascade c, moving m) at c * 2 + m */

/* Whether a circle (x, y, r) meets a convex outline. */
static bool circle_meets(const cascade_fit *f, float x, float y, float r) {
    /* a circle clear of the outline's box is clear of the outline: most
       casters of a wide scene miss a near slice, and this skips the edges */
    float rr = r * 1.001f + 1e-3f; /* slack: the test below rounds differently */
    if (x + rr < f->lo[0] || x - rr > f->hi[0] || y + rr < f->lo[1] || y - rr > f->hi[1])
        return false;
    bool inside = true;
    for (uint32_t i = 0; i < f->hull_count; i++) {
        const float *a = f->hull[i], *b = f->hull[(i + 1) % f->hull_count];
        float ex = b[0] - a[0], ey = b[1] - a[1], len2 = ex * ex + ey * ey;
        if (ex * (y - a[1]) - ey * (x - a[0]) < 0) inside = false;
        float t = len2 > 0 ? ((x - a[0]) * ex + (y - a[1]) * ey) / len2 : 0;
        t = t < 0 ? 0 : t > 1 ? 1 : t;
        float dx = x - (a[0] + t * ex), dy = y - (a[1] + t * ey);
        if (dx * dx + dy * dy <= r * r) return true;
    }
    return inside;
}

/* A mover shadows a receiver in cascade c's slice when, seen along the
   light, its sphere meets the slice's outline widened by the map's border
   (normal offset and filter taps read that far), and it is not wholly behind
   the slice (away from the sun) nor beyond the caster reach towards it. A
   static caster goes into the cached layer when its sphere meets the map's
   box at all: then the layer's list depends on the map and the static
   scene only, not on where in the box the camera is. While the map moves
   often (a fast turn or flight) the layer is redrawn most frames anyway,
   and the box's extra casters would only cost: then static casters are
   culled as movers are (a tight fit). */
static void caster_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    caster_job *j = user;
    for (uint32_t i = begin; i < end; i++) {
        j->casting[i] = 0;
        uint32_t flags = j->in->flags ? j->in->flags[i] : 0;
        float c[3], r;
        if (!_oak_caster_sphere(j->in, (const float(*)[4])j->fe->sphere, i, c, &r)) continue;
        vec4 w = {c[0], c[1], c[2], 1}, l;
        glm_mat4_mulv(j->light_view, w, l);
        bool moving = (flags & OAK_DRAW_MOVING) != 0;
        for (uint32_t k = 0; k < j->count; k++) {
            const cascade_fit *f = &j->fit[k];
            bool in;
            if (moving || f->tight)
                in = l[2] + r >= f->zmin && l[2] - r <= f->zmax + (float)OAK_SHADOW_CASTER_REACH &&
                     circle_meets(f, l[0], l[1], r + f->margin);
            else
                in = l[2] + r >= f->zlo && l[2] - r <= f->zhi &&
                     fabsf(l[0] - f->centre[0]) <= f->half + r &&
                     fabsf(l[1] - f->centre[1]) <= f->half + r;
            if (in) j->casting[i] |= (uint8_t)(1u << k);
        }
    }
    uint32_t *slot = j->slots + (size_t)(begin / CASTER_CHUNK) * CASTER_SLOTS;
    memset(slot, 0, CASTER_SLOTS * sizeof *slot);
    for (uint32_t i = begin; i < end; i++) {
        uint32_t moving = j->in->flags && (j->in->flags[i] & OAK_DRAW_MOVING) ? 1u : 0u;
        for (uint32_t k = 0; k < j->count; k++) slot[k * 2 + moving] += (j->casting[i] >> k) & 1u;
    }
}

/* The caster list's entries of one chunk of draws, each at the place the
   prefix sum gave its (cascade, moving) run: the same order as a serial
   walk (cascade by cascade, static then movers, each in draw order). */
static void caster_write_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    caster_job *j = user;
    const oak_frame_input *in = j->in;
    oak_draw_list *l = j->list;
    uint32_t at[CASTER_SLOTS];
    memcpy(at, j->slots + (size_t)(begin / CASTER_CHUNK) * CASTER_SLOTS, sizeof at);
    for (uint32_t i = begin; i < end; i++) {
        if (!j->casting[i]) continue;
        uint32_t fl = in->flags ? in->flags[i] : 0;
        uint32_t moving = (fl & OAK_DRAW_MOVING) ? 1u : 0u;
        for (uint32_t c = 0; c < j->count; c++) {
            if (!((j->casting[i] >> c) & 1u)) continue;
            uint32_t a = at[c * 2 + moving]++;
            l->mesh[a] = in->meshes[i];
            l->material[a] = in->materials[i];
            memcpy(l->world[a], in->transforms[i], sizeof(mat4));
            memcpy(l->prev_world[a], in->transforms[i], sizeof(mat4));
            l->flags[a] = fl;
            l->pose[a] = _oak_fe_pose(j->fe, in, i);
        }
    }
}

/* The movers' rule as planes in world space (backend.h mover_planes): each
   outline edge a -> b (counter-clockwise) keeps its left side, moved out by
   the margin; light-space x, y, z are rows of light_view. An outline of
   more than OAK_CASCADE_MOVER_PLANES - 2 edges (a slice's eight corners
   seen along the light make at most six) takes the map's box instead. */
static void mover_planes(const cascade_fit *f, mat4 light_view, mat4 view_proj,
                         float out[OAK_CASCADE_MOVER_PLANES][4]) {
    for (uint32_t p = 0; p < OAK_CASCADE_MOVER_PLANES; p++)
        out[p][0] = out[p][1] = out[p][2] = 0, out[p][3] = 1e30f;
    if (f->hull_count + 2 > OAK_CASCADE_MOVER_PLANES) {
        vec4 box[6];
        oak_frustum_planes(view_proj, box);
        memcpy(out, box, sizeof box);
        return;
    }
    float row[3][4];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++) row[k][j] = light_view[j][k];
    for (uint32_t i = 0; i < f->hull_count; i++) {
        const float *a = f->hull[i], *b = f->hull[(i + 1) % f->hull_count];
        float ex = b[0] - a[0], ey = b[1] - a[1], len = sqrtf(ex * ex + ey * ey);
        float nx = len > 0 ? -ey / len : 0, ny = len > 0 ? ex / len : 0;
        for (int j = 0; j < 4; j++) out[i][j] = nx * row[0][j] + ny * row[1][j];
        out[i][3] += f->margin - (nx * a[0] + ny * a[1]);
    }
    float *lo = out[f->hull_count], *hi = out[f->hull_count + 1];
    for (int j = 0; j < 4; j++) lo[j] = row[2][j], hi[j] = -row[2][j];
    lo[3] -= f->zmin;
    hi[3] += f->zmax + (float)OAK_SHADOW_CASTER_REACH;
}

/* Sphere around the view frustum between znear and far, in world space,
   and the frustum's corners. */
static void slice_sphere(const oak_render_view *v, float znear, float far, float center[3],
                         float *radius, vec3 corners[8]) {
    float zs[2] = {znear, far};
    mat4 cam;
    glm_mat4_inv((vec4 *)v->view, cam);
    for (int c = 0; c < 8; c++) {
        float z = zs[c >> 2];
        float hw = v->ortho ? 1.0f / v->proj[0][0] : z / v->proj[0][0];
        float hh = v->ortho ? 1.0f / v->proj[1][1] : z / v->proj[1][1];
        vec4 p = {(c & 1) ? hw : -hw, (c & 2) ? hh : -hh, -z, 1}, w;
        glm_mat4_mulv(cam, p, w);
        glm_vec3_copy(w, corners[c]);
    }
    vec3 mid = {0, 0, 0};
    for (int c = 0; c < 8; c++) glm_vec3_add(mid, corners[c], mid);
    glm_vec3_scale(mid, 1.0f / 8.0f, mid);
    float r = 0;
    for (int c = 0; c < 8; c++) {
        float d = glm_vec3_distance(mid, corners[c]);
        if (d > r) r = d;
    }
    glm_vec3_copy(mid, center);
    *radius = ceilf(r * 16.0f) / 16.0f; /* rounding keeps it steady under float noise */
}

/* The slice's corners in light space: their convex outline (gift wrapping
   eight points) and depth range. */
static void fit_outline(cascade_fit *f, mat4 light_view, vec3 corners[8]) {
    float p[8][2];
    f->zmin = 1e30f, f->zmax = -1e30f;
    for (int c = 0; c < 8; c++) {
        vec4 w = {corners[c][0], corners[c][1], corners[c][2], 1}, l;
        glm_mat4_mulv(light_view, w, l);
        p[c][0] = l[0], p[c][1] = l[1];
        if (l[2] < f->zmin) f->zmin = l[2];
        if (l[2] > f->zmax) f->zmax = l[2];
    }
    int start = 0;
    for (int i = 1; i < 8; i++)
        if (p[i][0] < p[start][0] || (p[i][0] == p[start][0] && p[i][1] < p[start][1])) start = i;
    f->hull_count = 0;
    int cur = start;
    do {
        f->hull[f->hull_count][0] = p[cur][0], f->hull[f->hull_count][1] = p[cur][1];
        f->hull_count++;
        int next = cur == 0 ? 1 : 0;
        for (int i = 0; i < 8; i++) {
            float cr = (p[next][0] - p[cur][0]) * (p[i][1] - p[cur][1]) -
                       (p[next][1] - p[cur][1]) * (p[i][0] - p[cur][0]);
            float dn = fabsf(p[next][0] - p[cur][0]) + fabsf(p[next][1] - p[cur][1]);
            float di = fabsf(p[i][0] - p[cur][0]) + fabsf(p[i][1] - p[cur][1]);
            if (cr < 0 || (cr == 0 && di > dn)) next = i;
        }
        cur = next;
    } while (cur != start && f->hull_count < 8);
    f->lo[0] = f->lo[1] = 1e30f, f->hi[0] = f->hi[1] = -1e30f;
    for (uint32_t i = 0; i < f->hull_count; i++)
        for (int k = 0; k < 2; k++) {
            if (f->hull[i][k] < f->lo[k]) f->lo[k] = f->hull[i][k];
            if (f->hull[i][k] > f->hi[k]) f->hi[k] = f->hull[i][k];
        }
}

/* Keeps the map's light-space centre while the slice's sphere (lc, r) stays
   inside the square and depth it covers (half-extent R less the sphere's
   radius); else re-centres it on the sphere, snapped to the texel grid.
   Only the sequence of views decides, so every backend and thread count
   gets the same matrices. */
static void keep_centre(oak_cascade_keep *k, const vec4 lc, float r, float R, float texel,
                        const vec3 dir, uint32_t map_size) {
    float slack = R - r;
    k->moves <<= 1;
    bool same = k->valid && k->radius == r && k->texel == texel && k->map_size == map_size &&
                k->light_dir[0] == dir[0] && k->light_dir[1] == dir[1] && k->light_dir[2] == dir[2];
    if (same && fabsf(lc[0] - k->centre[0]) <= slack && fabsf(lc[1] - k->centre[1]) <= slack &&
        fabsf(lc[2] - k->centre[2]) <= slack)
        return;
    k->valid = true;
    k->moves |= 1u;
    k->radius = r, k->texel = texel, k->map_size = map_size;
    memcpy(k->light_dir, dir, sizeof k->light_dir);
    k->centre[0] = floorf(lc[0] / texel) * texel;
    k->centre[1] = floorf(lc[1] / texel) * texel;
    k->centre[2] = floorf(lc[2] / texel) * texel;
}

/* The key of what a cascade's static layer holds (oak_shadow_cascade). */
#define KEY_CHUNK 1024
typedef struct key_job {
    const oak_draw_list *l;
    uint32_t first;
    uint64_t *chunk; /* one hash per KEY_CHUNK casters */
    const float (*view_proj)[4];
    uint32_t size;
    uint64_t *hash;      /* per caster: its own hash */
    uint64_t *base;      /* per caster: its hash without the mesh's version */
    uint16_t (*rect)[4]; /* per caster: its bounds in the map */
} key_job;

/* A mesh-space box's bounds in the map's texels (x0, y0, x1, y1, ends
   exclusive, row 0 at clip y = -1): its corners through world and the
   map's matrix, widened by a texel for the raster's snap and clamped to the
   map; non-finite corners cover the map. */
static void box_rect(uint16_t out[4], const oak_bounds *bd, const vec4 *world,
                     const float (*view_proj)[4], uint32_t S) {
    out[0] = out[1] = 0, out[2] = out[3] = (uint16_t)S;
    mat4 m;
    glm_mat4_mul((vec4 *)view_proj, (vec4 *)world, m);
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < 8; k++) {
        float p[3] = {k & 1 ? bd->max[0] : bd->min[0], k & 2 ? bd->max[1] : bd->min[1],
                      k & 4 ? bd->max[2] : bd->min[2]};
        for (int a = 0; a < 2; a++) {
            float c = m[0][a] * p[0] + m[1][a] * p[1] + m[2][a] * p[2] + m[3][a];
            lo[a] = c < lo[a] ? c : lo[a];
            hi[a] = c > hi[a] ? c : hi[a];
        }
    }
    for (int a = 0; a < 2; a++) {
        if (!isfinite(lo[a]) || !isfinite(hi[a])) return; /* the whole map */
        float t0 = floorf((lo[a] * 0.5f + 0.5f) * (float)S) - 1.0f;
        float t1 = ceilf((hi[a] * 0.5f + 0.5f) * (float)S) + 1.0f;
        t0 = t0 < 0 ? 0 : t0 > (float)S ? (float)S : t0;
        t1 = t1 < 0 ? 0 : t1 > (float)S ? (float)S : t1;
        out[a] = (uint16_t)t0;
        out[a + 2] = (uint16_t)(t1 > t0 ? t1 : t0);
    }
}

/* A caster's bounds in the map's texels: its mesh's box (box_rect).
   Unknown bounds (no mesh, a stream instance posed by palettes) cover the
   map. */
static void caster_rect(uint16_t out[4], const oak_mesh_data *md, bool posed, const vec4 *world,
                        const float (*view_proj)[4], uint32_t S) {
    out[0] = out[1] = 0, out[2] = out[3] = (uint16_t)S;
    if (!md || posed) return;
    const oak_bounds *bd = &md->bounds;
    if (!(bd->min[0] <= bd->max[0] && bd->min[1] <= bd->max[1] && bd->min[2] <= bd->max[2])) {
        out[2] = out[3] = 0; /* no vertices: covers nothing */
        return;
    }
    box_rect(out, bd, world, view_proj, S);
}

/* A round of the per-caster hashes below: a word in, multiplied, rotated
   and multiplied again (the step of the xxHash family), so each bit of the
   word reaches the whole state. */
static inline uint64_t key_round(uint64_t h, uint64_t w) {
    h += w * 0xc2b2ae3d27d4eb4full;
    h = h << 31 | h >> 33;
    return h * 0x9e3779b185ebca87ull;
}

/* The hash of n bytes (a multiple of 8) at p after seed, a word at a time.
   oak_hash takes a byte a step through a dependent multiply: the stress
   world's four hashes of 92 bytes a caster were a fifth of its frontend.
   These hashes are compared only within a run (the static key, the held
   casters), never stored, so they need not match oak_hash. */
static uint64_t key_words(const void *p, size_t n, uint64_t seed) {
    const unsigned char *b = p;
    uint64_t h = seed ^ 0x27d4eb2f165667c5ull;
    for (size_t i = 0; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, sizeof w);
        h = key_round(h, w);
    }
    h ^= n; /* the finalizer of oak_hash's mix */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ h >> 33;
}

static void key_range(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    key_job *j = user;
    const oak_draw_list *l = j->l;
    uint64_t h = 0;
    for (uint32_t i = j->first + begin; i < j->first + end; i++) {
        const oak_mesh_data *md = oak_mesh_get(l->mesh[i]);
        const oak_material_data *mt = oak_material_get(l->material[i]);
        oak_texture tex = mt ? mt->desc.base_color_tex.texture : (oak_texture){0};
        const oak_texture_data *td = tex.id ? oak_texture_get(tex) : NULL;
        /* a mesh posed by palettes changes pose_version, not version: the sum
           moves when either does (one counter) */
        uint32_t ver = md ? md->version + md->pose_version : 0;
        uint32_t ids[8] = {l->mesh[i].id, ver,    l->material[i].id,    mt ? mt->version : 0,
                           l->flags[i],   tex.id, td ? td->version : 0, 0};
        /* the matrix once, then the caster on its own (what the dirty
           rectangles compare) and in the chunk's order (the key) */
        uint64_t w = key_words(l->world[i], sizeof(mat4), 0);
        uint64_t own = key_words(ids, sizeof ids, w);
        h = key_round(h, own);
        j->hash[i] = own ? own : 1;
        ids[1] = 0; /* the same caster reposed in place (a terrain tile's morph) */
        j->base[i] = key_words(ids, sizeof ids, w);
        caster_rect(j->rect[i], md, l->pose && l->pose[i], l->world[i], j->view_proj, j->size);
    }
    j->chunk[begin / KEY_CHUNK] = h;
}

/* The static layer's key: the map, then its static casters' meshes,
   materials, textures (versions included) and matrices, hashed on the job
   pool a chunk of KEY_CHUNK casters at a time and the chunks' hashes in
   order (fixed chunks: the same key at any thread count). Each caster's
   own hash and map bounds go to fe->caster_hash and fe->caster_rect. */
static uint64_t static_key(oak_frontend *fe, const oak_shadow_cascade *cas, const oak_draw_list *l,
                           uint32_t size) {
    uint64_t h = oak_hash(cas->view_proj, sizeof(mat4), size);
    uint32_t count = cas->static_count;
    if (count) {
        uint32_t chunks = (count - 1) / KEY_CHUNK + 1;
        if (!OAK_GROW(fe->key_chunks, fe->key_chunks_cap, chunks)) return 0;
        key_job j = {l,    cas->first_caster, fe->key_chunks,  (const float(*)[4])cas->view_proj,
                     size, fe->caster_hash,   fe->caster_base, fe->caster_rect};
        oak_parallel_for(count, KEY_CHUNK, key_range, &j);
        h = oak_hash(fe->key_chunks, chunks * sizeof(uint64_t), h);
    }
    return h ? h : 1; /* 0 means unknown */
}

/* The still streams' LOD picks, once a frame. A natively drawn stream that
   stands still casts into every cascade's static layer from the backend's
   lists (not from the caster list): its records, material and LOD meshes
   (versions included) make *sid, the streams' identity (0: none), and the
   LOD each record's distance from the eye picks (stream_cull.c
   _oak_stream_cull_instance's rule) makes *picks, so the layers follow a
   record that changes LOD and not every step of the eye (a rock field
   redrew every cascade every frame of a flight). The records whose pick
   changed since the last frame go to fe->pick_moved: a layer redraws their
   rectangles (pick_rect). *whole: a change no rectangle follows (a stream
   whose pick the host cannot follow record by record, or one that changed
   under wind, poses or impostor cards, which turn to the eye): the layers
   that hold it redraw whole. A record within a hair of a band's edge, where
   the device's distance may round the other way, is redrawn every frame
   it is there, and puts the eye in *picks; so do streams the host does not
   hold (grass, particles) and those past OAK_SHADOW_LOD_KEY_MAX. */
static void stream_picks(oak_frontend *fe, const oak_render_view *v, uint64_t *sid, uint64_t *picks,
                         bool *whole) {
    uint32_t now = fe->pick_now ^= 1u, last_n = fe->pick_streams[now ^ 1u], n = 0;
    oak_stream_picks *cur = fe->picks[now];
    const oak_stream_picks *last = fe->picks[now ^ 1u];
    uint64_t h = 0, k = 0;
    bool eye = false, any = false;
    *whole = false;
    fe->pick_moved_count = 0;
    for (uint32_t s = 0; s < v->stream_count; s++) {
        const oak_render_stream *rs = &v->streams[s];
        const oak_material_data *mt = oak_material_get(rs->material);
        if (!rs->native || rs->moved || !mt || (rs->flags & (OAK_DRAW_NO_SHADOW | OAK_DRAW_HIDDEN)))
            continue;
        any = true;
        oak_texture tex = mt->desc.base_color_tex.texture;
        const oak_texture_data *td = tex.id ? oak_texture_get(tex) : NULL;
        uint64_t ids[9] = {(uint64_t)(uintptr_t)rs->records,
                           rs->version,
                           rs->count,
                           rs->material.id,
                           mt->version,
                           rs->flags,
                           tex.id,
                           td ? td->version : 0,
                           rs->lod_count};
        uint64_t id = oak_hash(ids, sizeof ids, 0);
        uint32_t nl = rs->lod_count < OAK_STREAM_LODS ? rs->lod_count : OAK_STREAM_LODS;
        for (uint32_t q = 0; q < nl; q++) {
            const oak_mesh_data *md = oak_mesh_get(rs->lods[q]);
            uint32_t m[2] = {rs->lods[q].id, md ? md->version : 0};
            id = oak_hash(m, sizeof m, id);
            id = oak_hash(&rs->lod_distance[q], sizeof(float), id);
        }
        h = oak_hash(&id, sizeof id, h);
        if (!nl || !(nl > 1 || rs->lod_distance[nl - 1] > 0)) continue; /* one pick anywhere */
        oak_stream_picks *p = &cur[n];
        if (!rs->records || rs->grass || rs->particles || rs->count > OAK_SHADOW_LOD_KEY_MAX ||
            !OAK_GROW(p->band, p->cap, rs->count ? rs->count : 1)) {
            eye = true, *whole = true;
            continue;
        }
        n++;
        p->id = id, p->count = rs->count;
        float lastd = rs->lod_distance[nl - 1];
        for (uint32_t i = 0; i < rs->count; i++) {
            const oak_instance *r = &rs->records[i];
            float d[3] = {r->position[0] - v->camera_pos[0], r->position[1] - v->camera_pos[1],
                          r->position[2] - v->camera_pos[2]};
            float dist = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            uint32_t lod = 0;
            while (lod + 1 < nl && dist >= rs->lod_distance[lod]) lod++;
            if (lod + 1 == nl && lastd > 0 && dist >= lastd) lod = nl;
            uint8_t b = (uint8_t)lod;
            for (uint32_t q = 0; q < nl; q++) {
                float e = rs->lod_distance[q];
                if (e > 0 && fabsf(dist - e) <= 1e-4f * e + 1e-3f) b |= OAK_PICK_EDGE;
            }
            eye = eye || (b & OAK_PICK_EDGE);
            p->band[i] = b;
        }
        k = oak_hash(p->band, rs->count, oak_hash(&id, sizeof id, k));
        const oak_stream_picks *was = NULL;
        for (uint32_t q = 0; q < last_n && !was; q++)
            if (last[q].id == id && last[q].count == rs->count) was = &last[q];
        if (!was) continue; /* new here: its identity moves *sid */
        /* rectangles follow a rigid, unbent stream without impostor cards */
        bool follow = !rs->bent && !rs->pose_bank && !rs->impostor_lod;
        for (uint32_t i = 0; i < rs->count && !*whole; i++) {
            uint8_t a = p->band[i], b = was->band[i];
            if (a == b && !((a | b) & OAK_PICK_EDGE)) continue;
            if (!follow ||
                !OAK_GROW(fe->pick_moved, fe->pick_moved_cap, fe->pick_moved_count + 1)) {
                *whole = true;
                break;
            }
            fe->pick_moved[fe->pick_moved_count][0] = s;
            fe->pick_moved[fe->pick_moved_count++][1] = i;
        }
    }
    fe->pick_streams[now] = n;
    if (eye) k = oak_hash(v->camera_pos, 3 * sizeof(float), k);
    *sid = any ? (h ? h : 1) : 0;
    *picks = k;
}

/* A stream record's bounds in the map's texels: every LOD's box at the
   record's matrix (the pick it left and the one it took). */
static void pick_rect(uint16_t out[4], const oak_render_stream *rs, uint32_t i,
                      const float (*view_proj)[4], uint32_t S) {
    oak_bounds box = {{INFINITY, INFINITY, INFINITY}, {-INFINITY, -INFINITY, -INFINITY}};
    uint32_t nl = rs->lod_count < OAK_STREAM_LODS ? rs->lod_count : OAK_STREAM_LODS;
    for (uint32_t q = 0; q < nl; q++) {
        const oak_mesh_data *md = oak_mesh_get(rs->lods[q]);
        if (!md) { /* unknown: the whole map */
            out[0] = out[1] = 0, out[2] = out[3] = (uint16_t)S;
            return;
        }
        for (int a = 0; a < 3; a++) {
            box.min[a] = md->bounds.min[a] < box.min[a] ? md->bounds.min[a] : box.min[a];
            box.max[a] = md->bounds.max[a] > box.max[a] ? md->bounds.max[a] : box.max[a];
        }
    }
    if (!(box.min[0] <= box.max[0] && box.min[1] <= box.max[1] && box.min[2] <= box.max[2])) {
        out[0] = out[1] = out[2] = out[3] = 0; /* no vertices: covers nothing */
        return;
    }
    mat4 world;
    _oak_instance_matrix(NULL, &rs->records[i], world);
    box_rect(out, &box, (const vec4 *)world, view_proj, S);
}

static int held_order(const void *a, const void *b) {
    uint64_t x = ((const oak_held_caster *)a)->hash, y = ((const oak_held_caster *)b)->hash;
    return x < y ? -1 : x > y;
}

static uint32_t rect_area(const uint16_t r[4]) {
    return (uint32_t)(r[2] - r[0]) * (uint32_t)(r[3] - r[1]);
}

/* Adds r to the cascade's dirty rectangles: into the one whose union grows
   least, or as a new one while there is room and that costs less. */
static void add_dirty(oak_shadow_cascade *cas, const uint16_t r[4]) {
    if (r[2] <= r[0] || r[3] <= r[1]) return;
    uint32_t best = UINT32_MAX, best_grow = UINT32_MAX;
    for (uint32_t i = 0; i < cas->dirty_count; i++) {
        uint16_t *d = cas->dirty[i];
        uint16_t u[4] = {r[0] < d[0] ? r[0] : d[0], r[1] < d[1] ? r[1] : d[1],
                         r[2] > d[2] ? r[2] : d[2], r[3] > d[3] ? r[3] : d[3]};
        uint32_t grow = rect_area(u) - rect_area(d);
        if (grow < best_grow) best = i, best_grow = grow;
    }
    if (best == UINT32_MAX ||
        (cas->dirty_count < OAK_SHADOW_DIRTY_RECTS && best_grow > rect_area(r))) {
        memcpy(cas->dirty[cas->dirty_count++], r, 4 * sizeof(uint16_t));
        return;
    }
    uint16_t *d = cas->dirty[best];
    d[0] = r[0] < d[0] ? r[0] : d[0], d[1] = r[1] < d[1] ? r[1] : d[1];
    d[2] = r[2] > d[2] ? r[2] : d[2], d[3] = r[3] > d[3] ? r[3] : d[3];
}

static int base_order(const void *a, const void *b) {
    const oak_held_caster *x = a, *y = b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    return x->hash < y->hash ? -1 : x->hash > y->hash; /* one order at any thread count */
}

/* the same 12 bytes (memcmp's answer, inlined: a call per vertex cost the
   water's every-frame update more than the box) */
static inline bool same_point(const float *a, const float *b) {
    uint32_t x[3], y[3];
    memcpy(x, a, sizeof x), memcpy(y, b, sizeof y);
    return ((x[0] ^ y[0]) | (x[1] ^ y[1]) | (x[2] ^ y[2])) == 0;
}
/* fminf and fmaxf where neither is NaN (positions are finite:
   oak_mesh_update_vertices refuses any other), inlined rather than libm's
   calls; for a signed zero pair either zero bounds the box alike */
static inline float min_finite(float a, float b) {
    return b < a ? b : a;
}
static inline float max_finite(float a, float b) {
    return b > a ? b : a;
}

/* Where a mesh reposed in place (oak_mesh_update_vertices) changed since
   its last version: the mesh-space box (lo, hi: grown, not reset) of every
   triangle with a vertex that moved, at its old and its new place (a
   triangle's raster depends on its own vertices alone), and *moved the
   most any vertex moved along an axis. False: unknown (no previous
   positions, no index list). */
static bool change_box(float lo[3], float hi[3], float *moved, const oak_mesh_data *md) {
    if (!md->prev_positions || !md->indices || !md->index_count) return false;
    const float *now = md->positions, *was = md->prev_positions;
    float most = 0;
    for (uint32_t t = 0; t + 2 < md->index_count; t += 3) {
        const uint32_t *tri = md->indices + t;
        if (tri[0] >= md->vertex_count || tri[1] >= md->vertex_count || tri[2] >= md->vertex_count)
            return false;
        if (same_point(now + 3 * (size_t)tri[0], was + 3 * (size_t)tri[0]) &&
            same_point(now + 3 * (size_t)tri[1], was + 3 * (size_t)tri[1]) &&
            same_point(now + 3 * (size_t)tri[2], was + 3 * (size_t)tri[2]))
            continue;
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++) {
                float p = now[3 * (size_t)tri[k] + a], q = was[3 * (size_t)tri[k] + a];
                lo[a] = min_finite(lo[a], min_finite(p, q));
                hi[a] = max_finite(hi[a], max_finite(p, q));
                most = max_finite(most, fabsf(p - q));
            }
    }
    *moved = most;
    return true;
}

/* A caster of this frame (now) and the one the layer held with the same
   base (was): when it is the same caster, reposed in place since (each
   update seen, frame by frame), now carries what moved since the layer
   drew it, and the answer is whether it stays as drawn (all of it within
   slack metres: now takes was's hash back) or *r, the bounds in the map
   of every triangle that moved, is redrawn. False with *r untouched: not
   such a pair (both are then dirty whole). */
static bool pair_caster(uint16_t r[4], bool *stays, oak_held_caster *now,
                        const oak_held_caster *was, const oak_draw_list *l,
                        const float (*view_proj)[4], uint32_t S, float slack) {
    if (was->mesh != now->mesh || (l->pose && l->pose[now->at])) return false;
    const oak_mesh_data *md = oak_mesh_get(l->mesh[now->at]);
    if (!md || md->pose_version || md->version != now->version) return false;
    float lo[3], hi[3], moved = 0;
    memcpy(lo, was->lo, sizeof lo), memcpy(hi, was->hi, sizeof hi);
    if (now->version != was->seen &&
        (md->prev_version != was->seen || !change_box(lo, hi, &moved, md)))
        return false; /* an update not seen: what moved is unknown */
    float drift = was->drift + moved;
    if (drift <= slack) {
        *stays = true;
        now->hash = was->hash, now->version = was->version;
        memcpy(now->rect, was->rect, sizeof now->rect);
        now->drift = drift;
        memcpy(now->lo, lo, sizeof lo), memcpy(now->hi, hi, sizeof hi);
        return true;
    }
    *stays = false;
    r[0] = r[1] = r[2] = r[3] = 0;
    if (lo[0] <= hi[0]) {
        oak_bounds box;
        memcpy(box.min, lo, sizeof lo), memcpy(box.max, hi, sizeof hi);
        box_rect(r, &box, (const vec4 *)l->world[now->at], view_proj, S);
    }
    return true;
}

/* A held caster as this frame's list has it (nothing deferred). */
static void held_fresh(const oak_frontend *fe, oak_held_caster *e) {
    e->hash = fe->caster_hash[e->at];
    e->version = e->seen;
    e->drift = 0;
    for (int a = 0; a < 3; a++) e->lo[a] = INFINITY, e->hi[a] = -INFINITY;
    memcpy(e->rect, fe->caster_rect[e->at], sizeof e->rect);
}

/* The cascade's dirty rectangles against what its layer held last frame:
   with the same matrix (and no natively drawn stream in the layer, whose
   casters no rectangle follows), the bounds of every caster in one list and
   not the other (a multiset by hash), unless they pass
   OAK_SHADOW_DIRTY_SHARE of the map. A caster whose mesh was reposed in
   place (a terrain tile's morph moves a band of its vertices) stays as
   drawn while it moved within OAK_SHADOW_MORPH_SLACK texels, and then adds
   only the bounds of its triangles that moved. Then this frame's list is
   held; when nothing in the layer changes, under the key it had. */
static void cascade_dirty(oak_frontend *fe, uint32_t c, oak_shadow_cascade *cas, uint32_t S,
                          uint64_t streams, bool whole, bool exact, const oak_draw_list *l,
                          const oak_render_view *v) {
    oak_cascade_held *h = &fe->held[c];
    uint64_t matrix = oak_hash(cas->view_proj, sizeof(mat4), S);
    cas->dirty_base = 0, cas->dirty_count = 0;
    if (h->valid && h->key == cas->static_key && h->matrix == matrix) { /* unchanged */
        h->lagged = false;
        return;
    }
    /* The low preset's far cascade, while the view moves: a layer whose
       casters changed while its map held still keeps last frame's casts
       for one frame (the next frame's change, against the list it holds,
       redraws it). On a flight the terrain's morphs and the rocks placed
       round the eye change the far layer every frame, and its whole
       redraw was most of the shadow pass (docs/PERFORMANCE.md cmead48);
       its texels span metres, so a frame late in motion is the low rung's
       trade (docs/SHADING.md "Quality presets"). A still view never lags
       (a still picture is the same as without it); movers are drawn over
       the layer every frame as ever. */
    bool far = c + 1 == v->cascade_count && v->post.preset == OAK_PRESET_LOW &&
               memcmp(v->view_proj, v->prev_view_proj, sizeof(mat4)) != 0;
    if (far && !exact && !h->lagged && h->valid && h->matrix == matrix && !whole &&
        h->streams == streams) {
        h->lagged = true;
        cas->static_key = h->key; /* the layer's: no redraw */
        return;
    }
    h->lagged = false;
    uint32_t n = cas->static_count;
    if (!cas->static_key || (n && !OAK_GROW(fe->held_tmp, fe->held_tmp_cap, n))) {
        h->valid = false;
        return;
    }
    oak_held_caster *now = fe->held_tmp;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t at = cas->first_caster + i;
        const oak_mesh_data *md = oak_mesh_get(l->mesh[at]);
        oak_held_caster *e = &now[i];
        e->base = fe->caster_base[at];
        e->mesh = l->mesh[at].id;
        e->seen = md ? md->version + md->pose_version : 0;
        e->at = at;
        held_fresh(fe, e);
    }
    bool stayed = false, sorted = false;
    /* the same still streams as the layer drew (one that left, moving,
       would leave its casts where no rectangle goes) */
    if (h->valid && h->matrix == matrix && !whole && h->streams == streams &&
        (!h->count || OAK_GROW(fe->dirty_gone, fe->dirty_gone_cap, h->count))) {
        /* both lists in hash order (a stable sort: one order at any time) */
        if (!h->sorted && h->count > 1) qsort(h->casters, h->count, sizeof *now, held_order);
        if (n > 1) qsort(now, n, sizeof *now, held_order);
        sorted = true;
        /* the multiset difference: what went and what came */
        uint32_t i = 0, k = 0, gone = 0, come = 0;
        while (i < h->count || k < n) {
            if (i < h->count && k < n && h->casters[i].hash == now[k].hash) {
                i++, k++;
            } else if (k == n || (i < h->count && h->casters[i].hash < now[k].hash)) {
                fe->dirty_gone[gone++] = h->casters[i++];
            } else {
                now[k].slot = k;
                fe->dirty_come[come++] = now[k++];
            }
        }
        /* pair each base that went once and came once; the rest is dirty
           at its old and new bounds */
        oak_held_caster *g = fe->dirty_gone, *m = fe->dirty_come;
        if (gone > 1) qsort(g, gone, sizeof *g, base_order);
        if (come > 1) qsort(m, come, sizeof *m, base_order);
        float slack = exact ? -1.0f : (float)OAK_SHADOW_MORPH_SLACK * cas->texel_world;
        i = 0, k = 0;
        while (i < gone || k < come) {
            if (i < gone && k < come && g[i].base == m[k].base) {
                uint32_t i1 = i, k1 = k;
                while (i1 < gone && g[i1].base == g[i].base) i1++;
                while (k1 < come && m[k1].base == m[k].base) k1++;
                uint16_t r[4];
                bool stays = false;
                if (i1 - i == 1 && k1 - k == 1 &&
                    pair_caster(r, &stays, &now[m[k].slot], &g[i], l,
                                (const float(*)[4])cas->view_proj, S, slack)) {
                    if (stays)
                        stayed = true;
                    else
                        add_dirty(cas, r);
                } else {
                    for (; i < i1; i++) add_dirty(cas, g[i].rect);
                    for (; k < k1; k++) add_dirty(cas, m[k].rect);
                }
                i = i1, k = k1;
            } else if (k == come || (i < gone && g[i].base < m[k].base)) {
                add_dirty(cas, g[i++].rect); /* gone: its old bounds */
            } else {
                add_dirty(cas, m[k++].rect); /* come: its new bounds */
            }
        }
        /* the stream records whose LOD pick changed (stream_picks) */
        for (uint32_t q = 0; q < fe->pick_moved_count; q++) {
            uint16_t r[4];
            pick_rect(r, &v->streams[fe->pick_moved[q][0]], fe->pick_moved[q][1],
                      (const float(*)[4])cas->view_proj, S);
            add_dirty(cas, r);
        }
        /* a redraw of the layer's rectangles draws every caster that meets
           them as it is now (whole, on the CPU): the morphs not followed
           yet go with it, at the bounds of all they moved */
        if (stayed && cas->dirty_count) {
            for (uint32_t q = 0; q < n; q++) {
                oak_held_caster *e = &now[q];
                if (e->hash == fe->caster_hash[e->at]) continue;
                if (e->lo[0] <= e->hi[0]) {
                    oak_bounds box;
                    uint16_t r[4];
                    memcpy(box.min, e->lo, sizeof e->lo), memcpy(box.max, e->hi, sizeof e->hi);
                    box_rect(r, &box, (const vec4 *)l->world[e->at],
                             (const float(*)[4])cas->view_proj, S);
                    add_dirty(cas, r);
                }
                held_fresh(fe, e);
            }
            stayed = false;
        }
        uint64_t area = 0;
        for (uint32_t r = 0; r < cas->dirty_count; r++) area += rect_area(cas->dirty[r]);
        if ((double)area <= (double)OAK_SHADOW_DIRTY_SHARE * (double)S * (double)S) {
            cas->dirty_base = h->key;
            /* nothing the layer holds changes (morphs it does not follow
               yet, or ones outside the map): its key stays, no redraw */
            if (!cas->dirty_count) cas->static_key = h->key;
        } else {
            cas->dirty_count = 0;
            /* a whole redraw draws every caster as it is now */
            for (uint32_t q = 0; q < n && stayed; q++) held_fresh(fe, &now[q]);
            stayed = false;
        }
        /* the list keeps the hashes drawn: back in hash order */
        if (stayed && n > 1) qsort(now, n, sizeof *now, held_order);
    }
    fe->held_tmp = h->casters, h->casters = now;
    uint32_t cap = fe->held_tmp_cap;
    fe->held_tmp_cap = h->cap, h->cap = cap;
    h->count = n, h->key = cas->static_key, h->matrix = matrix, h->valid = true;
    h->streams = streams, h->sorted = sorted;
}

static void shadow_splits(float out[OAK_MAX_CASCADES], uint32_t count, float znear, float zfar) {
    float lambda = (float)OAK_SHADOW_SPLIT_LOG;
    for (uint32_t i = 1; i <= count; i++) {
        float t = (float)i / (float)count;
        float lg = znear * powf(zfar / znear, t), un = znear + (zfar - znear) * t;
        out[i - 1] = lambda * lg + (1.0f - lambda) * un;
    }
    out[count - 1] = zfar; /* exactly, whatever powf rounds to */
}

void _oak_frontend_fit_shadows(oak_frontend *fe, const oak_frame_input *in) {
    oak_render_view *v = &fe->view;
    v->cascade_count = 0;
    v->casters.count = 0;
    v->shadows = false;
    if (v->key_light < 0 || !v->shadow_map_size) return;
    const oak_render_light *sun = &v->lights[v->key_light];
    if (!sun->light.cast_shadows) return;

    float far = v->zfar < (float)OAK_SHADOW_DISTANCE ? v->zfar : (float)OAK_SHADOW_DISTANCE;
    float znear = v->znear > 0 ? v->znear : 0.01f;
    if (far <= znear) return;
    uint32_t n = OAK_MAX_CASCADES;
    float splits[OAK_MAX_CASCADES];
    shadow_splits(splits, n, znear, far);

    /* Light space: rotation only, so its texel grid is fixed in the world. */
    vec3 d = {sun->direction[0], sun->direction[1], sun->direction[2]};
    vec3 up = {0, 1, 0};
    if (fabsf(d[1]) > 0.99f) up[1] = 0, up[2] = 1;
    vec3 origin = {0, 0, 0};
    caster_job job = {.in = in, .count = n};
    glm_look(origin, d, up, job.light_view);
    float S = (float)v->shadow_map_size, border = (float)OAK_SHADOW_BORDER;
    if (S <= 4 * border) border = 0; /* tiny test maps: no room for a border */
    float slice_near = znear;
    for (uint32_t c = 0; c < n; c++) {
        /* each slice starts where the last one's blend band does, so the
           band reads both maps */
        float centre[3], r;
        vec3 corners[8];
        slice_sphere(v, slice_near, splits[c], centre, &r, corners);
        vec4 centre4 = {centre[0], centre[1], centre[2], 1}, lc;
        glm_mat4_mulv(job.light_view, centre4, lc);
        float R = r * (1.0f + (float)OAK_SHADOW_CACHE_MARGIN);
        float texel = 2.0f * R / (S - 2.0f * border), half = 0.5f * S * texel;
        oak_cascade_keep *keep = &fe->keep[c];
        keep_centre(keep, lc, r, R, texel, d, v->shadow_map_size);
        float cx = keep->centre[0], cy = keep->centre[1], cz = keep->centre[2];
        /* view-space z grows towards the light; near is on the light's side */
        float zn = -cz - R - (float)OAK_SHADOW_CASTER_REACH, zf = -cz + R;
        mat4 proj;
        oak_ortho_rz(cx - half, cx + half, cy - half, cy + half, zn, zf, proj);
        oak_shadow_cascade *cas = &v->cascades[c];
        glm_mat4_mul(proj, job.light_view, cas->view_proj);
        cas->split_far = splits[c];
        cas->texel_world = texel;
        cas->depth_range = zf - zn;
        cas->first_caster = cas->caster_count = cas->static_count = 0;
        cas->static_key = cas->dirty_base = 0;
        cas->dirty_count = 0;
        fit_outline(&job.fit[c], job.light_view, corners);
        job.fit[c].margin = border * texel;
        mover_planes(&job.fit[c], job.light_view, cas->view_proj, cas->mover_planes);
        job.fit[c].centre[0] = cx, job.fit[c].centre[1] = cy, job.fit[c].half = half;
        job.fit[c].zlo = cz - R, job.fit[c].zhi = cz + R + (float)OAK_SHADOW_CASTER_REACH;
        /* moved in more than one of the last OAK_SHADOW_CACHE_WINDOW frames */
        uint32_t recent = keep->moves & ((1u << OAK_SHADOW_CACHE_WINDOW) - 1);
        job.fit[c].tight = (recent & (recent - 1)) != 0;
        float start = c ? splits[c - 1] : znear;
        slice_near = splits[c] - (float)OAK_SHADOW_BLEND * (splits[c] - start);
    }
    v->cascade_count = n;
    v->shadows = true;

    uint32_t draws = in->draw_count;
    if (!draws) return;
    uint32_t chunks = (draws - 1) / CASTER_CHUNK + 1;
    if (!OAK_GROW(fe->casting, fe->casting_cap, draws) ||
        !OAK_GROW(fe->caster_slots, fe->caster_slots_cap, chunks * CASTER_SLOTS))
        return;
    job.casting = fe->casting;
    job.slots = fe->caster_slots;
    job.fe = fe;
    oak_parallel_for(draws, CASTER_CHUNK, caster_range, &job);
    uint32_t per[OAK_MAX_CASCADES] = {0}, count = 0;
    for (uint32_t k = 0; k < chunks; k++)
        for (uint32_t c = 0; c < n; c++)
            per[c] += job.slots[k * CASTER_SLOTS + c * 2] + job.slots[k * CASTER_SLOTS + c * 2 + 1];
    for (uint32_t c = 0; c < n; c++) count += per[c];
    oak_draw_list *l = &v->casters;
    uint32_t cap = fe->caster_cap, c2 = cap, c3 = cap, c4 = cap, c5 = cap;
    if (!OAK_GROW(l->mesh, cap, count) || !OAK_GROW(l->material, c2, count) ||
        !OAK_GROW(l->world, c3, count) || !OAK_GROW(l->prev_world, c4, count) ||
        !OAK_GROW(l->flags, c5, count) || !OAK_GROW(l->pose, fe->caster_pose_cap, count))
        return;
    fe->caster_cap = cap;
    /* cascade by cascade: its static casters, then its movers, each in
       draw order: each chunk's count of a run becomes its first place */
    uint32_t at = 0;
    for (uint32_t c = 0; c < n; c++) {
        oak_shadow_cascade *cas = &v->cascades[c];
        cas->first_caster = at;
        cas->caster_count = per[c];
        for (uint32_t moving = 0; moving < 2; moving++) {
            for (uint32_t k = 0; k < chunks; k++) {
                uint32_t *slot = &job.slots[k * CASTER_SLOTS + c * 2 + moving];
                uint32_t here = *slot;
                *slot = at;
                at += here;
            }
            if (!moving) cas->static_count = at - cas->first_caster;
        }
    }
    job.list = l;
    oak_parallel_for(draws, CASTER_CHUNK, caster_write_range, &job);
    /* cascade_dirty's lists sized with the cascades' static casters, not
       when a layer first needs them: a warm frame whose casters start to
       move makes no heap call */
    uint32_t most = 0; /* the most static casters one cascade lists */
    for (uint32_t c = 0; c < n; c++)
        most = v->cascades[c].static_count > most ? v->cascades[c].static_count : most;
    if (count && (!OAK_GROW(fe->caster_hash, fe->caster_hash_cap, count) ||
                  !OAK_GROW(fe->caster_base, fe->caster_base_cap, count) ||
                  !OAK_GROW(fe->caster_rect, fe->caster_rect_cap, count)))
        return;
    if (most && (!OAK_GROW(fe->dirty_come, fe->dirty_come_cap, most) ||
                 !OAK_GROW(fe->dirty_gone, fe->dirty_gone_cap, most) ||
                 !OAK_GROW(fe->held_tmp, fe->held_tmp_cap, most)))
        return;
    /* the held lists swap with held_tmp: each as large */
    for (uint32_t c = 0; c < n && most; c++)
        if (!OAK_GROW(fe->held[c].casters, fe->held[c].cap, most)) return;
    v->caster_rects = (const uint16_t(*)[4])fe->caster_rect;
    /* "off": whole layers; "exact": every morph redrawn (A/B measurements) */
    const char *env = getenv("OAK_SHADOW_DIRTY");
    bool dirty_off = env && !strcmp(env, "off"), exact = env && !strcmp(env, "exact");
    uint64_t sid, picks;
    bool whole;
    stream_picks(fe, v, &sid, &picks, &whole);
    for (uint32_t c = 0; c < n; c++) {
        oak_shadow_cascade *cas = &v->cascades[c];
        uint64_t key = static_key(fe, cas, l, v->shadow_map_size);
        if (key && sid) { /* 0: unknown */
            key = oak_hash(&picks, sizeof picks, oak_hash(&sid, sizeof sid, key));
            key = key ? key : 1;
        }
        cas->static_key = key;
        cascade_dirty(fe, c, cas, v->shadow_map_size, sid, whole || dirty_off, exact, l, v);
    }
    l->count = count;
}
