/* Procedural trees: a pine (a trunk cone under stacked whorls of needle
 * cards) and three broadleaves (recursive tapered branches, each a closed
 * tube whose segments share their rings, with leaf cards on the thinnest),
 * and the LOD meshes made from them: full, simplified (meshoptimizer on the
 * branches, a hashed share of the cards grown to keep the crown's area) and
 * the impostor's crossed cards, each cut to an outline round its baked
 * texels; the leaf cards cut to the outline of the texels their cutout
 * keeps. Deterministic from (species, seed). */
#include <math.h>
#include <meshoptimizer.h>
#include <stdlib.h>
#include <string.h>

#include "world/impostor_bake.h"
#include "world/internal.h"
#include "world/tree_internal.h"

#define MAX_LEVELS 4
#define MAX_SEGS   6

typedef struct species_params {
    uint32_t levels; /* branch levels, the trunk included */
    float trunk_length, trunk_radius;
    uint32_t children[MAX_LEVELS]; /* children a branch of each level carries */
    float angle[MAX_LEVELS];       /* radians between a child and its parent */
    float length[MAX_LEVELS];      /* child length over its parent's */
    float bare;                    /* share of the trunk that carries no children */
    float up;                      /* turn towards +y over a branch (negative: droop) */
    float wander;                  /* random bend per segment */
    float cone;                    /* 1: children shorter up their parent (a cone) */
    float leaf_size;               /* card side, metres */
    uint32_t leaves;               /* cards a terminal branch carries */
} species_params;

/* oak: short trunk, wide spreading limbs; birch: one tall stem of short
   drooping branches; maple: a round crown on a short trunk */
static const species_params k_broadleaf[OAK_TREE_SPECIES] = {
    [OAK_TREE_OAK] = {.levels = 4,
                      .trunk_length = 5.0f,
                      .trunk_radius = 0.36f,
                      .children = {5, 4, 3},
                      .angle = {0.95f, 0.75f, 0.7f},
                      .length = {0.78f, 0.6f, 0.55f},
                      .bare = 0.4f,
                      .up = 0.12f,
                      .wander = 0.18f,
                      .cone = 0.3f,
                      .leaf_size = 1.3f,
                      .leaves = 7},
    [OAK_TREE_BIRCH] = {.levels = 3,
                        .trunk_length = 12.0f,
                        .trunk_radius = 0.17f,
                        .children = {14, 4},
                        .angle = {0.75f, 0.6f},
                        .length = {0.34f, 0.55f},
                        .bare = 0.3f,
                        .up = -0.25f,
                        .wander = 0.15f,
                        .cone = 1.0f,
                        .leaf_size = 1.0f,
                        .leaves = 7},
    [OAK_TREE_MAPLE] = {.levels = 4,
                        .trunk_length = 4.2f,
                        .trunk_radius = 0.3f,
                        .children = {4, 4, 3},
                        .angle = {0.7f, 0.8f, 0.75f},
                        .length = {0.9f, 0.6f, 0.55f},
                        .bare = 0.55f,
                        .up = 0.35f,
                        .wander = 0.15f,
                        .cone = 0.0f,
                        .leaf_size = 1.3f,
                        .leaves = 7},
};

typedef struct rng {
    uint32_t n, salt;
} rng;
static float rnd(rng *r) {
    return _oak_world_hash01(r->n++, r->salt);
}
static float rnd_in(rng *r, float a, float b) {
    return a + (b - a) * rnd(r);
}

static void v3_norm(float v[3]) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0) v[0] /= l, v[1] /= l, v[2] /= l;
}
static void v3_cross(const float a[3], const float b[3], float o[3]) {
    float t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
    memcpy(o, t, sizeof t);
}
static float v3_dot(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
/* a unit vector perpendicular to unit d */
static void v3_perp(const float d[3], float o[3]) {
    float a[3] = {0, 0, 0};
    a[fabsf(d[0]) < 0.6f ? 0 : (fabsf(d[1]) < 0.6f ? 1 : 2)] = 1;
    v3_cross(d, a, o);
    v3_norm(o);
}

/* ---- growing meshes ------------------------------------------------------ */

void _oak_tree_mesh_free(_oak_tree_mesh *m) {
    oak_free(m->pos);
    oak_free(m->nrm);
    oak_free(m->tan);
    oak_free(m->uv);
    oak_free(m->idx);
    memset(m, 0, sizeof *m);
}

static bool mesh_reserve(_oak_tree_mesh *m, uint32_t verts, uint32_t idx) {
    if (m->vertex_count + verts > m->vertex_cap) {
        uint32_t cap = m->vertex_cap ? m->vertex_cap : 256;
        while (cap < m->vertex_count + verts) cap *= 2;
        float *p = oak_realloc(m->pos, (size_t)cap * 3 * sizeof(float));
        if (p) m->pos = p;
        float *n = p ? oak_realloc(m->nrm, (size_t)cap * 3 * sizeof(float)) : NULL;
        if (n) m->nrm = n;
        float *t = n ? oak_realloc(m->tan, (size_t)cap * 4 * sizeof(float)) : NULL;
        if (t) m->tan = t;
        float *u = t ? oak_realloc(m->uv, (size_t)cap * 2 * sizeof(float)) : NULL;
        if (u) m->uv = u;
        if (!u) return false;
        m->vertex_cap = cap;
    }
    if (m->index_count + idx > m->index_cap) {
        uint32_t cap = m->index_cap ? m->index_cap : 768;
        while (cap < m->index_count + idx) cap *= 2;
        uint32_t *i = oak_realloc(m->idx, (size_t)cap * sizeof(uint32_t));
        if (!i) return false;
        m->idx = i;
        m->index_cap = cap;
    }
    return true;
}

/* The caller reserved room. */
static uint32_t mesh_vertex(_oak_tree_mesh *m, const float p[3], const float n[3], const float t[3],
                            float u, float v) {
    uint32_t i = m->vertex_count++;
    memcpy(m->pos + 3 * i, p, 3 * sizeof(float));
    memcpy(m->nrm + 3 * i, n, 3 * sizeof(float));
    m->tan[4 * i] = t[0], m->tan[4 * i + 1] = t[1], m->tan[4 * i + 2] = t[2], m->tan[4 * i + 3] = 1;
    m->uv[2 * i] = u, m->uv[2 * i + 1] = v;
    return i;
}

static void mesh_tri(_oak_tree_mesh *m, uint32_t a, uint32_t b, uint32_t c) {
    m->idx[m->index_count++] = a;
    m->idx[m->index_count++] = b;
    m->idx[m->index_count++] = c;
}

static bool mesh_append(_oak_tree_mesh *dst, const _oak_tree_mesh *src, uint32_t first_index,
                        uint32_t index_count) {
    if (!mesh_reserve(dst, src->vertex_count, index_count)) return false;
    uint32_t base = dst->vertex_count;
    memcpy(dst->pos + 3 * base, src->pos, (size_t)src->vertex_count * 3 * sizeof(float));
    memcpy(dst->nrm + 3 * base, src->nrm, (size_t)src->vertex_count * 3 * sizeof(float));
    memcpy(dst->tan + 4 * base, src->tan, (size_t)src->vertex_count * 4 * sizeof(float));
    memcpy(dst->uv + 2 * base, src->uv, (size_t)src->vertex_count * 2 * sizeof(float));
    dst->vertex_count += src->vertex_count;
    for (uint32_t i = 0; i < index_count; i++)
        dst->idx[dst->index_count++] = base + src->idx[first_index + i];
    return true;
}

/* Leaves only the vertices the indices use, in first-use order. */
static bool mesh_compact(_oak_tree_mesh *m) {
    if (!m->vertex_count) return true;
    _oak_tree_mesh c = {0};
    uint32_t *remap = oak_alloc((size_t)m->vertex_count * sizeof(uint32_t));
    if (!remap || !mesh_reserve(&c, m->vertex_count, 0)) {
        oak_free(remap);
        _oak_tree_mesh_free(&c);
        return false;
    }
    for (uint32_t i = 0; i < m->vertex_count; i++) remap[i] = UINT32_MAX;
    for (uint32_t i = 0; i < m->index_count; i++) {
        uint32_t v = m->idx[i];
        if (remap[v] == UINT32_MAX)
            remap[v] = mesh_vertex(&c, m->pos + 3 * v, m->nrm + 3 * v, m->tan + 4 * v, m->uv[2 * v],
                                   m->uv[2 * v + 1]);
        m->idx[i] = remap[v];
    }
    oak_free(remap);
    c.idx = m->idx, c.index_count = m->index_count, c.index_cap = m->index_cap;
    m->idx = NULL;
    _oak_tree_mesh_free(m);
    *m = c;
    return true;
}

/* ---- the atlas's UV rectangles ------------------------------------------- */

#define BARK_U0 (0.0f)
#define BARK_U1 ((float)OAK_TREE_SLOT_W / OAK_TREE_ATLAS_W)
#define CARD_U0 ((float)OAK_TREE_SLOT_W / OAK_TREE_ATLAS_W)
#define CARD_U1 (3.0f * OAK_TREE_SLOT_W / OAK_TREE_ATLAS_W)
#define TOP_V1  ((float)OAK_TREE_SLOT_H / OAK_TREE_ATLAS_H)
/* half a texel in from the bark's edges, so the bilinear never reads the card */
#define BARK_INSET (0.5f / OAK_TREE_ATLAS_W)

void _oak_tree_view_rect(uint32_t j, uint32_t rect[4]) {
    /* the bottom row's 8 slots first, then the top row's slots 3-7 */
    uint32_t slot = j < 8 ? j : 3 + (j - 8), row = j < 8 ? 1u : 0u;
    rect[0] = slot * OAK_TREE_SLOT_W;
    rect[1] = row * OAK_TREE_SLOT_H;
    rect[2] = OAK_TREE_SLOT_W;
    rect[3] = OAK_TREE_SLOT_H;
}

/* ---- generation ---------------------------------------------------------- */

typedef struct card {
    float anchor[3], out[3], side[3];
    float length, width;
} card;

typedef struct gen {
    _oak_tree *t;
    const species_params *sp;
    rng r;
    _oak_tree_mesh level[MAX_LEVELS]; /* branches by level, joined at the end */
    card *cards;
    uint32_t card_count, card_cap;
    uint32_t children_made;
    bool failed;
} gen;

static void add_card(gen *g, const float anchor[3], const float out[3], const float side[3],
                     float length, float width) {
    if (g->card_count == g->card_cap) {
        uint32_t cap = g->card_cap ? 2 * g->card_cap : 256;
        card *c = oak_realloc(g->cards, (size_t)cap * sizeof *c);
        if (!c) {
            g->failed = true;
            return;
        }
        g->cards = c, g->card_cap = cap;
    }
    card *c = &g->cards[g->card_count++];
    memcpy(c->anchor, anchor, sizeof c->anchor);
    memcpy(c->out, out, sizeof c->out);
    memcpy(c->side, side, sizeof c->side);
    c->length = length, c->width = width;
}

/* A closed tube along centre points c[0..segs] (radius r[k], r at segs
   ignored: the tip is one apex vertex), sides around, with a cap at the
   base. Rings are shared by the segments either side, so the surface is
   welded along the branch; the seam vertex repeats ring vertex 0's exact
   position with u = 1. Bark v runs 0, 1, 0, ... ring by ring (mirrored
   repeats fit the atlas slot). */
static void tube(gen *g, _oak_tree_mesh *m, float (*c)[3], const float *r, uint32_t segs,
                 uint32_t sides) {
    uint32_t verts = segs * (sides + 1) + 2, idx = 3 * (2 * sides * (segs - 1) + 2 * sides);
    if (!mesh_reserve(m, verts, idx)) {
        g->failed = true;
        return;
    }
    float d[3], a[3], b[3];
    for (int k = 0; k < 3; k++) d[k] = c[1][k] - c[0][k];
    v3_norm(d);
    v3_perp(d, a);
    uint32_t first = m->vertex_count;
    for (uint32_t k = 0; k < segs; k++) {
        /* the ring's direction: along the centre line around it */
        uint32_t k0 = k ? k - 1 : 0, k1 = k + 1;
        for (int q = 0; q < 3; q++) d[q] = c[k1][q] - c[k0][q];
        v3_norm(d);
        /* parallel transport of the frame, so the ring does not twist */
        float dd = v3_dot(a, d);
        for (int q = 0; q < 3; q++) a[q] -= d[q] * dd;
        v3_norm(a);
        v3_cross(d, a, b);
        float v = (k & 1u) ? TOP_V1 : 0.0f;
        uint32_t ring = m->vertex_count;
        for (uint32_t s = 0; s <= sides; s++) {
            float p[3], n[3], t[3];
            if (s == sides) {
                memcpy(p, m->pos + 3 * ring, sizeof p);
                memcpy(n, m->nrm + 3 * ring, sizeof n);
                memcpy(t, m->tan + 4 * ring, sizeof t);
            } else {
                float ang = 2.0f * OAK_PI * (float)s / (float)sides;
                float ca = cosf(ang), sa = sinf(ang);
                for (int q = 0; q < 3; q++) {
                    n[q] = ca * a[q] + sa * b[q];
                    p[q] = c[k][q] + r[k] * n[q];
                    t[q] = -sa * a[q] + ca * b[q];
                }
            }
            float u = BARK_U0 + BARK_INSET + (BARK_U1 - BARK_U0 - 2 * BARK_INSET) * s / sides;
            mesh_vertex(m, p, n, t, u, v);
        }
    }
    float tip_n[3] = {d[0], d[1], d[2]}, base_n[3] = {-d[0], -d[1], -d[2]};
    /* the base cap's normal points back along the first segment */
    for (int q = 0; q < 3; q++) base_n[q] = -(c[1][q] - c[0][q]);
    v3_norm(base_n);
    uint32_t apex = mesh_vertex(m, c[segs], tip_n, a, 0.5f * (BARK_U0 + BARK_U1), TOP_V1 * 0.5f);
    uint32_t base = mesh_vertex(m, c[0], base_n, a, 0.5f * (BARK_U0 + BARK_U1), TOP_V1 * 0.5f);
    for (uint32_t k = 0; k + 1 < segs; k++)
        for (uint32_t s = 0; s < sides; s++) {
            uint32_t i0 = first + k * (sides + 1) + s, i1 = i0 + 1;
            uint32_t j0 = i0 + sides + 1, j1 = j0 + 1;
            mesh_tri(m, i0, i1, j0); /* counter-clockwise seen from outside */
            mesh_tri(m, i1, j1, j0);
        }
    uint32_t last = first + (segs - 1) * (sides + 1);
    for (uint32_t s = 0; s < sides; s++) {
        mesh_tri(m, last + s, last + s + 1, apex);
        mesh_tri(m, first + s, base, first + s + 1);
    }
}

/* A point, direction and radius at share t of a centre line. */
static void along(float (*c)[3], const float *r, uint32_t segs, float t, float p[3], float d[3],
                  float *radius) {
    float x = t * (float)segs;
    uint32_t k = (uint32_t)x;
    if (k >= segs) k = segs - 1;
    float f = x - (float)k;
    for (int q = 0; q < 3; q++) {
        p[q] = c[k][q] + f * (c[k + 1][q] - c[k][q]);
        d[q] = c[k + 1][q] - c[k][q];
    }
    v3_norm(d);
    float r1 = k + 1 < segs ? r[k + 1] : 0.0f;
    *radius = r[k] + f * (r1 - r[k]);
}

static void grow(gen *g, uint32_t level, const float base[3], const float dir0[3], float length,
                 float radius) {
    if (g->failed) return;
    const species_params *sp = g->sp;
    static const uint32_t k_segs[MAX_LEVELS] = {6, 5, 4, 3}, k_sides[MAX_LEVELS] = {8, 6, 4, 3};
    uint32_t segs = k_segs[level], sides = k_sides[level];
    float c[MAX_SEGS + 1][3], r[MAX_SEGS + 1], dir[3] = {dir0[0], dir0[1], dir0[2]};
    memcpy(c[0], base, sizeof c[0]);
    for (uint32_t k = 0; k <= segs; k++) {
        r[k] = radius * (1.0f - 0.7f * (float)k / (float)segs);
        if (k == segs) break;
        if (level > 0) { /* bend: towards +y (or down) and a little at random */
            dir[1] += sp->up / (float)segs;
            for (int q = 0; q < 3; q++) dir[q] += sp->wander * rnd_in(&g->r, -1, 1);
        } else {
            for (int q = 0; q < 3; q += 2) dir[q] += 0.3f * sp->wander * rnd_in(&g->r, -1, 1);
        }
        v3_norm(dir);
        for (int q = 0; q < 3; q++) c[k + 1][q] = c[k][q] + dir[q] * length / (float)segs;
    }
    tube(g, &g->level[level], c, r, segs, sides);
    if (level + 1 < sp->levels) {
        uint32_t n = sp->children[level];
        float bare = level == 0 ? sp->bare : 0.25f;
        for (uint32_t i = 0; i < n; i++) {
            float t = bare + (1.0f - bare) * ((float)i + 0.5f + 0.3f * rnd_in(&g->r, -1, 1)) / n;
            float p[3], d[3], rad;
            along(c, r, segs, t, p, d, &rad);
            /* around the parent by the golden angle, out by the species' angle */
            float az = 2.39996f * (float)(g->children_made++) + 0.4f * rnd(&g->r);
            float a[3], b[3], out[3];
            v3_perp(d, a);
            v3_cross(d, a, b);
            float ang = sp->angle[level] * rnd_in(&g->r, 0.8f, 1.15f);
            for (int q = 0; q < 3; q++)
                out[q] = cosf(ang) * d[q] + sinf(ang) * (cosf(az) * a[q] + sinf(az) * b[q]);
            v3_norm(out);
            float len = length * sp->length[level] * (1.0f - sp->cone * 0.75f * t) *
                        rnd_in(&g->r, 0.85f, 1.15f);
            float cr = rad * 0.62f;
            if (cr < 0.012f) cr = 0.012f;
            grow(g, level + 1, p, out, len, cr); /* starts on the axis: inside the parent */
        }
    } else {
        for (uint32_t i = 0; i < sp->leaves; i++) {
            float t = 0.25f + 0.75f * rnd(&g->r), p[3], d[3], rad, side[3], out[3];
            along(c, r, segs, t, p, d, &rad);
            /* the card leans out along the twig, turned at random about it */
            v3_perp(d, side);
            float tw = rnd_in(&g->r, 0, OAK_PI), b[3];
            v3_cross(d, side, b);
            for (int q = 0; q < 3; q++) side[q] = cosf(tw) * side[q] + sinf(tw) * b[q];
            for (int q = 0; q < 3; q++) out[q] = d[q] + rnd_in(&g->r, -0.5f, 0.5f);
            out[1] += 0.3f;
            v3_norm(out);
            float dd = v3_dot(side, out);
            for (int q = 0; q < 3; q++) side[q] -= dd * out[q];
            v3_norm(side);
            float s = sp->leaf_size * rnd_in(&g->r, 0.8f, 1.2f);
            add_card(g, p, out, side, s, s);
        }
    }
}

/* A pine: a trunk cone to the top and whorls of `k_pine_rings` rings of
   k_pine_branches branches, each branch two needle cards (one flat, one
   turned 70 degrees about it), shorter up the stem; two crossed cards on top. */
#define PINE_RINGS    8
#define PINE_BRANCHES 6
static void grow_pine(gen *g) {
    float H = 14.0f * rnd_in(&g->r, 0.85f, 1.15f), reach = 0.28f * H * rnd_in(&g->r, 0.85f, 1.1f);
    float c[5][3], r[5];
    for (int k = 0; k <= 4; k++) {
        c[k][0] = 0.05f * rnd_in(&g->r, -1, 1) * (k > 0),
        c[k][2] = 0.05f * rnd_in(&g->r, -1, 1) * (k > 0);
        c[k][1] = -0.3f + (H + 0.3f) * (float)k / 4.0f;
        r[k] = 0.28f * (1.0f - 0.85f * (float)k / 4.0f);
    }
    tube(g, &g->level[0], c, r, 4, 8);
    float y0 = 0.2f * H, y1 = 0.93f * H;
    for (int i = 0; i < PINE_RINGS; i++) {
        float f = (float)i / (PINE_RINGS - 1);
        float y = y0 + (y1 - y0) * f + 0.3f * rnd_in(&g->r, -1, 1);
        float len = 0.4f + reach * powf(1.0f - f, 0.9f) * rnd_in(&g->r, 0.85f, 1.1f);
        for (int b = 0; b < PINE_BRANCHES; b++) {
            float az = 2.0f * OAK_PI * ((float)b + 0.35f * rnd(&g->r)) / PINE_BRANCHES +
                       2.39996f * (float)i;
            float out[3] = {cosf(az), -0.35f + 0.3f * f, sinf(az)};
            v3_norm(out);
            float a[3] = {0, y, 0}, side[3] = {-sinf(az), 0, cosf(az)}, up[3], tilted[3];
            v3_cross(side, out, up);
            add_card(g, a, out, side, len, 0.75f * len);
            for (int q = 0; q < 3; q++) tilted[q] = 0.34f * side[q] + 0.94f * up[q];
            add_card(g, a, out, tilted, len, 0.6f * len);
        }
    }
    float top[3] = {0, y1 - 0.4f, 0}, upv[3] = {0, 1, 0}, sx[3] = {1, 0, 0}, sz[3] = {0, 0, 1};
    add_card(g, top, upv, sx, H - y1 + 0.6f, 0.9f);
    add_card(g, top, upv, sz, H - y1 + 0.6f, 0.9f);
}

/* Cards to mesh: each a front quad and a back quad (the material is
   one-sided) with the same normals. Normals are the crown's, not the
   card's: out from the crown's centre (the axis, for the pine), bent a
   quarter towards the card's own, so a crown shades as one body. */
static void emit_cards(gen *g, bool pine) {
    _oak_tree_mesh *m = &g->t->leaves;
    g->t->card_centre = oak_alloc((size_t)(g->card_count ? g->card_count : 1) * 3 * sizeof(float));
    if (!g->t->card_centre || !mesh_reserve(m, 8 * g->card_count, 12 * g->card_count)) {
        g->failed = true;
        return;
    }
    float centre[3] = {0, 0, 0};
    for (uint32_t i = 0; i < g->card_count; i++)
        for (int q = 0; q < 3; q++)
            centre[q] += (g->cards[i].anchor[q] + 0.5f * g->cards[i].length * g->cards[i].out[q]) /
                         (float)g->card_count;
    for (uint32_t i = 0; i < g->card_count; i++) {
        const card *c = &g->cards[i];
        float p[4][3], nc[3];
        for (int q = 0; q < 3; q++) {
            float w = 0.5f * c->width * c->side[q], l = c->length * c->out[q];
            p[0][q] = c->anchor[q] - w;
            p[1][q] = c->anchor[q] + w;
            p[2][q] = c->anchor[q] + l + w;
            p[3][q] = c->anchor[q] + l - w;
        }
        v3_cross(c->side, c->out, nc);
        for (int q = 0; q < 3; q++)
            g->t->card_centre[3 * i + q] = 0.25f * (p[0][q] + p[1][q] + p[2][q] + p[3][q]);
        static const float uv[4][2] = {
            {CARD_U0, TOP_V1}, {CARD_U1, TOP_V1}, {CARD_U1, 0}, {CARD_U0, 0}};
        uint32_t base = m->vertex_count;
        for (int side = 0; side < 2; side++)
            for (int k = 0; k < 4; k++) {
                float n[3];
                if (pine) {
                    n[0] = p[k][0],
                    n[1] = 0.6f * sqrtf(p[k][0] * p[k][0] + p[k][2] * p[k][2]) + 0.2f,
                    n[2] = p[k][2];
                } else {
                    for (int q = 0; q < 3; q++) n[q] = p[k][q] - centre[q];
                }
                v3_norm(n);
                float s = v3_dot(n, nc) < 0 ? -0.25f : 0.25f;
                for (int q = 0; q < 3; q++) n[q] = 0.75f * n[q] + s * nc[q];
                v3_norm(n);
                mesh_vertex(m, p[k], n, c->side, uv[k][0], uv[k][1]);
            }
        mesh_tri(m, base, base + 1, base + 2);
        mesh_tri(m, base, base + 2, base + 3);
        mesh_tri(m, base + 4, base + 6, base + 5);
        mesh_tri(m, base + 4, base + 7, base + 6);
    }
    g->t->cards = g->card_count;
    g->t->card_verts = 8, g->t->card_idx = 12;
}

void _oak_tree_free(_oak_tree *t) {
    _oak_tree_mesh_free(&t->branches);
    _oak_tree_mesh_free(&t->leaves);
    oak_free(t->card_centre);
    memset(t, 0, sizeof *t);
}

oak_result _oak_tree_generate(_oak_tree *out, uint32_t species, uint32_t seed) {
    memset(out, 0, sizeof *out);
    if (species >= OAK_TREE_SPECIES)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT, "tree: species %u, at most %u", species,
                         OAK_TREE_SPECIES - 1);
    gen g = {.t = out, .r = {0, seed * 7919u + species * 104729u + 1u}};
    if (species == OAK_TREE_PINE) {
        grow_pine(&g);
    } else {
        g.sp = &k_broadleaf[species];
        float base[3] = {0, -0.3f, 0},
              up[3] = {0.03f * rnd_in(&g.r, -1, 1), 1, 0.03f * rnd_in(&g.r, -1, 1)};
        v3_norm(up);
        grow(&g, 0, base, up, g.sp->trunk_length * rnd_in(&g.r, 0.9f, 1.1f),
             g.sp->trunk_radius * rnd_in(&g.r, 0.9f, 1.1f));
    }
    if (!g.failed) emit_cards(&g, species == OAK_TREE_PINE);
    /* branches by level, the thinnest level last */
    uint32_t levels = species == OAK_TREE_PINE ? 1 : g.sp->levels;
    for (uint32_t l = 0; l < MAX_LEVELS && !g.failed; l++) {
        if (l + 1 == levels && l > 0) out->thin_first = out->branches.index_count;
        if (g.level[l].index_count &&
            !mesh_append(&out->branches, &g.level[l], 0, g.level[l].index_count))
            g.failed = true;
    }
    if (levels == 1) out->thin_first = out->branches.index_count;
    for (uint32_t l = 0; l < MAX_LEVELS; l++) _oak_tree_mesh_free(&g.level[l]);
    oak_free(g.cards);
    if (g.failed) {
        _oak_tree_free(out);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "tree: no memory for species %u", species);
    }
    /* height and reach */
    const _oak_tree_mesh *ms[2] = {&out->branches, &out->leaves};
    for (int k = 0; k < 2; k++)
        for (uint32_t i = 0; i < ms[k]->vertex_count; i++) {
            const float *p = ms[k]->pos + 3 * i;
            float rr = sqrtf(p[0] * p[0] + p[2] * p[2]);
            if (p[1] > out->height) out->height = p[1];
            if (rr > out->radius) out->radius = rr;
        }
    return OAK_OK;
}

/* ---- LODs ---------------------------------------------------------------- */

oak_result _oak_tree_full(_oak_tree_mesh *out, const _oak_tree *t) {
    memset(out, 0, sizeof *out);
    if (!mesh_append(out, &t->branches, 0, t->branches.index_count) ||
        !mesh_append(out, &t->leaves, 0, t->leaves.index_count)) {
        _oak_tree_mesh_free(out);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "tree: no memory for the full mesh");
    }
    return OAK_OK;
}

oak_result _oak_tree_simplified(_oak_tree_mesh *out, const _oak_tree *t, uint32_t seed) {
    memset(out, 0, sizeof *out);
    _oak_tree_mesh leaves = {0};
    uint32_t keep_n = t->thin_first;
    uint32_t *dst = oak_alloc((size_t)(keep_n ? keep_n : 1) * sizeof(uint32_t));
    bool ok = dst != NULL;
    size_t n = 0;
    if (ok && keep_n) {
        /* half the triangles of the kept branches, within 2% of the tree's size */
        n = meshopt_simplify(dst, t->branches.idx, keep_n, t->branches.pos,
                             t->branches.vertex_count, 3 * sizeof(float), keep_n / 2, 0.02f, 0,
                             NULL);
        _oak_tree_mesh br = t->branches;
        br.idx = dst;
        ok = mesh_append(out, &br, 0, (uint32_t)n);
    }
    oak_free(dst);
    /* a hashed share of the cards, each grown about its centre so the kept
       area is the whole's */
    float grow = 1.0f / sqrtf((float)OAK_TREE_LEAF_KEEP);
    ok = ok && mesh_reserve(&leaves, t->leaves.vertex_count, t->leaves.index_count);
    for (uint32_t c = 0; ok && c < t->cards; c++) {
        if (_oak_world_hash01(c, seed * 31u + 977u) >= (float)OAK_TREE_LEAF_KEEP) continue;
        /* about the card's rectangle's centre, cut to an outline or not
           (the outline's own centre would move it) */
        const float *centre = t->card_centre + 3 * c;
        const uint32_t nv = t->card_verts, ni = t->card_idx;
        uint32_t base = leaves.vertex_count;
        for (uint32_t v = 0; v < nv; v++) {
            uint32_t s = nv * c + v;
            float q3[3];
            for (int q = 0; q < 3; q++)
                q3[q] = centre[q] + grow * (t->leaves.pos[3 * s + q] - centre[q]);
            uint32_t i = mesh_vertex(&leaves, q3, t->leaves.nrm + 3 * s, t->leaves.tan + 4 * s,
                                     t->leaves.uv[2 * s], t->leaves.uv[2 * s + 1]);
            (void)i;
        }
        for (uint32_t k = 0; k < ni; k++)
            leaves.idx[leaves.index_count++] = base + t->leaves.idx[ni * c + k] - nv * c;
    }
    ok = ok && mesh_append(out, &leaves, 0, leaves.index_count) && mesh_compact(out);
    _oak_tree_mesh_free(&leaves);
    if (!ok) {
        _oak_tree_mesh_free(out);
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "tree: no memory for the simplified mesh");
    }
    return OAK_OK;
}

oak_result _oak_tree_impostor(_oak_tree_mesh *out, const _oak_tree *t, uint32_t first_view) {
    memset(out, 0, sizeof *out);
    if (!mesh_reserve(out, 16, 24))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "tree: no memory for the impostor");
    /* the frame the bake used (tree_paint.c): texel size s, bottom y0 */
    float y0 = -0.3f;
    float s = fmaxf(2.0f * t->radius / (OAK_TREE_SLOT_W - 2 * OAK_TREE_GUTTER),
                    (t->height - y0) / (OAK_TREE_SLOT_H - 2 * OAK_TREE_GUTTER));
    float hw = 0.5f * OAK_TREE_SLOT_W * s, bottom = y0 - OAK_TREE_GUTTER * s,
          top = bottom + OAK_TREE_SLOT_H * s;
    static const float k_view[OAK_TREE_VIEWS][3] = {{0, 0, 1}, {1, 0, 0}, {0, 0, -1}, {-1, 0, 0}};
    for (uint32_t k = 0; k < OAK_TREE_VIEWS; k++) {
        const float *V = k_view[k], Y[3] = {0, 1, 0};
        float R[3];
        v3_cross(Y, V, R);
        uint32_t rect[4];
        _oak_tree_view_rect(first_view + k, rect);
        float u0 = (float)rect[0] / OAK_TREE_ATLAS_W,
              u1 = (float)(rect[0] + rect[2]) / OAK_TREE_ATLAS_W;
        float v0 = (float)rect[1] / OAK_TREE_ATLAS_H,
              v1 = (float)(rect[1] + rect[3]) / OAK_TREE_ATLAS_H;
        float xs[4] = {-hw, hw, hw, -hw}, ys[4] = {bottom, bottom, top, top};
        float us[4] = {u0, u1, u1, u0}, vs[4] = {v1, v1, v0, v0};
        uint32_t base = out->vertex_count;
        for (int c = 0; c < 4; c++) {
            float p[3] = {R[0] * xs[c], ys[c], R[2] * xs[c]};
            mesh_vertex(out, p, V, R, us[c], vs[c]);
        }
        /* counter-clockwise seen from V */
        mesh_tri(out, base, base + 1, base + 2);
        mesh_tri(out, base, base + 2, base + 3);
    }
    return OAK_OK;
}

void _oak_tree_impostor_crop(_oak_tree_mesh *m, const uint8_t *albedo, uint32_t first_view) {
    for (uint32_t k = 0; k < OAK_TREE_VIEWS && 4 * k + 3 < m->vertex_count; k++) {
        uint32_t rect[4];
        _oak_tree_view_rect(first_view + k, rect);
        /* the texels with any coverage, not only those over the cutoff: the
           coverage-kept mips (forest.c) may lift a faint texel's alpha over
           it, and a texel under the cutoff is only a row or two wider */
        int x0 = (int)rect[2], x1 = -1, y0 = (int)rect[3], y1 = -1;
        for (uint32_t y = 0; y < rect[3]; y++)
            for (uint32_t x = 0; x < rect[2]; x++)
                if (albedo[4 * ((size_t)(rect[1] + y) * OAK_TREE_ATLAS_W + rect[0] + x) + 3]) {
                    x0 = (int)x < x0 ? (int)x : x0, x1 = (int)x > x1 ? (int)x : x1;
                    y0 = (int)y < y0 ? (int)y : y0, y1 = (int)y > y1 ? (int)y : y1;
                }
        if (x1 < 0) continue; /* an empty view keeps its whole slot */
        /* one texel of margin so the bilinear and the first mips see the
           same edge (the slot's gutter keeps it inside the slot) */
        x0 = x0 > 0 ? x0 - 1 : 0, y0 = y0 > 0 ? y0 - 1 : 0;
        x1 = x1 + 2 < (int)rect[2] ? x1 + 2 : (int)rect[2];
        y1 = y1 + 2 < (int)rect[3] ? y1 + 2 : (int)rect[3];
        /* corners as made: 0 bottom left, 1 bottom right, 2 top right, 3 top
           left; position and uv are both affine in the slot texel (x, y down
           from the top), so moving them together keeps every texel where it
           was */
        float fx[2] = {(float)x0 / rect[2], (float)x1 / rect[2]},
              fy[2] = {(float)y0 / rect[3], (float)y1 / rect[3]};
        const uint32_t b = 4 * k;
        float P[3][3]; /* top left, +x edge, +y (down) edge */
        for (int q = 0; q < 3; q++) {
            P[0][q] = m->pos[3 * (b + 3) + q];
            P[1][q] = m->pos[3 * (b + 2) + q] - P[0][q];
            P[2][q] = m->pos[3 * (b + 0) + q] - P[0][q];
        }
        /* corner c at (fx[cx], fy[cy]) */
        static const int cx[4] = {0, 1, 1, 0}, cy[4] = {1, 1, 0, 0};
        for (int c = 0; c < 4; c++) {
            float a = fx[cx[c]], d = fy[cy[c]];
            for (int q = 0; q < 3; q++)
                m->pos[3 * (b + c) + q] = P[0][q] + a * P[1][q] + d * P[2][q];
            /* the uv from the texel edges themselves: exact, no rounding */
            m->uv[2 * (b + c)] = (float)(rect[0] + (cx[c] ? x1 : x0)) / OAK_TREE_ATLAS_W;
            m->uv[2 * (b + c) + 1] = (float)(rect[1] + (cy[c] ? y1 : y0)) / OAK_TREE_ATLAS_H;
        }
    }
}

uint32_t _oak_tree_view_outline(float out[2 * OAK_TREE_OUTLINE], const uint8_t *albedo,
                                const uint32_t rect[4]) {
    /* every texel with any coverage, grown by a texel each way (the
       bilinear's reach). Any coverage, not only over the cutoff: the
       coverage-kept mips may lift a faint texel over it. */
    _oak_bake_spans sp;
    _oak_bake_spans_init(&sp, rect[2], rect[3]);
    _oak_bake_spans_add(&sp, albedo + 4 * ((size_t)rect[1] * OAK_TREE_ATLAS_W + rect[0]),
                        OAK_TREE_ATLAS_W, rect[2], rect[3], 1, 1, 1);
    return _oak_bake_outline(out, &sp);
}

_Static_assert(OAK_TREE_OUTLINE == OAK_BAKE_OUTLINE, "the trees' outlines are the baker's");
_Static_assert(OAK_TREE_CARD_H <= OAK_BAKE_OUTLINE_ROWS, "the card's rows fit the spans");

uint32_t _oak_tree_card_outline(float out[2 * OAK_TREE_OUTLINE], const oak_texture_data *d,
                                uint32_t levels, uint8_t cutoff) {
    _oak_bake_spans sp;
    _oak_bake_spans_init(&sp, OAK_TREE_CARD_W, OAK_TREE_CARD_H);
    if (!d || !d->mip_count || d->width != OAK_TREE_ATLAS_W || d->height != OAK_TREE_ATLAS_H ||
        d->bytes_per_pixel != 4)
        return 0;
    /* level 0: any coverage and a texel of margin, as the impostor's views */
    _oak_bake_spans_add(&sp, (const uint8_t *)d->mips[0] + 4 * OAK_TREE_CARD_X, OAK_TREE_ATLAS_W,
                        OAK_TREE_CARD_W, OAK_TREE_CARD_H, 1, 1, 1);
    /* a coarser level's texel that passes stands for its whole footprint
       (the cutout reads it nearest, with no margin); a level with less
       than a whole texel of the card no longer keeps the card's coverage */
    for (uint32_t l = 1; l < levels && l < d->mip_count; l++) {
        uint32_t cx = OAK_TREE_CARD_X >> l, cw = OAK_TREE_CARD_W >> l, ch = OAK_TREE_CARD_H >> l;
        if (!cw || !ch || (cx << l) != (uint32_t)OAK_TREE_CARD_X ||
            d->mip_width[l] != (uint32_t)OAK_TREE_ATLAS_W >> l)
            break;
        _oak_bake_spans_add(&sp, (const uint8_t *)d->mips[l] + 4 * cx, d->mip_width[l], cw, ch,
                            1u << l, cutoff, 0);
    }
    return _oak_bake_outline(out, &sp);
}

oak_result _oak_tree_cut_cards(_oak_tree *t, const float *xy, uint32_t n) {
    if (n < 3 || n > OAK_TREE_OUTLINE || t->card_verts != 8)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "tree: a card cut to %u vertices (3 .. %u, once)", n, OAK_TREE_OUTLINE);
    /* The outline split along the card's diagonal (corner 0 to 2, where
       x / W + y / H = 1) into the parts the card's two triangles hold, so
       each part's fan interpolates every attribute as its triangle did:
       the crown's normals bend fast across a card (the pine's flip across
       the axis it starts on), and one fan over both triangles would shade
       another picture. part[0] lies in triangle (0, 1, 2), part[1] in (0,
       2, 3); each convex, in the outline's turn. */
    const double W = OAK_TREE_CARD_W, H = OAK_TREE_CARD_H;
    double part[2][2 * (OAK_TREE_OUTLINE + 2)];
    uint32_t pn[2] = {0, 0};
    for (uint32_t i = 0; i < n; i++) {
        const float *p = xy + 2 * i, *q = xy + 2 * ((i + 1) % n);
        double sp = p[0] * H + p[1] * W - W * H, sq = q[0] * H + q[1] * W - W * H;
        if (sp >= 0) part[0][2 * pn[0]] = p[0], part[0][2 * pn[0]++ + 1] = p[1];
        if (sp <= 0) part[1][2 * pn[1]] = p[0], part[1][2 * pn[1]++ + 1] = p[1];
        if ((sp > 0 && sq < 0) || (sp < 0 && sq > 0)) {
            double f = sp / (sp - sq), x = p[0] + f * (q[0] - p[0]), y = p[1] + f * (q[1] - p[1]);
            for (int k = 0; k < 2; k++) part[k][2 * pn[k]] = x, part[k][2 * pn[k]++ + 1] = y;
        }
    }
    uint32_t verts = 0, tris = 0;
    for (int k = 0; k < 2; k++) {
        if (pn[k] < 3) pn[k] = 0; /* a sliver on the diagonal, or nothing */
        verts += pn[k], tris += pn[k] ? pn[k] - 2 : 0;
    }
    _oak_tree_mesh o;
    memset(&o, 0, sizeof o);
    if (!mesh_reserve(&o, 2 * verts * t->cards, 6 * tris * t->cards))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "tree: no memory for the cut cards");
    const _oak_tree_mesh *m = &t->leaves;
    for (uint32_t c = 0; c < t->cards; c++) {
        /* corners as emit_cards made them: 0 bottom left (card texel
           (0, H)), 1 bottom right, 2 top right, 3 top left; 4-7 the back */
        const uint32_t b = 8 * c;
        for (uint32_t side = 0; side < 2; side++)
            for (int k = 0; k < 2; k++) {
                uint32_t base = o.vertex_count;
                for (uint32_t i = 0; i < pn[k]; i++) {
                    double a = part[k][2 * i] / W, d = part[k][2 * i + 1] / H, w[4];
                    /* the weights of corners 0-3 in the part's triangle */
                    if (k == 0)
                        w[0] = 1 - a, w[1] = a + d - 1, w[2] = 1 - d, w[3] = 0;
                    else
                        w[0] = d, w[1] = 0, w[2] = a, w[3] = 1 - a - d;
                    double p[3] = {0, 0, 0}, nr[3] = {0, 0, 0};
                    for (uint32_t j = 0; j < 4; j++)
                        for (int q = 0; q < 3; q++) {
                            p[q] += w[j] * m->pos[3 * (b + 4 * side + j) + q];
                            nr[q] += w[j] * m->nrm[3 * (b + 4 * side + j) + q];
                        }
                    float pf[3] = {(float)p[0], (float)p[1], (float)p[2]},
                          nf[3] = {(float)nr[0], (float)nr[1], (float)nr[2]};
                    /* the uv from the card texel itself (exact at texel edges) */
                    mesh_vertex(&o, pf, nf, m->tan + 4 * b,
                                (float)((OAK_TREE_CARD_X + part[k][2 * i]) / OAK_TREE_ATLAS_W),
                                (float)(part[k][2 * i + 1] / OAK_TREE_ATLAS_H));
                }
                /* the outline turns positively in (x, y down): clockwise
                   seen from the card's front, so the front's fan runs
                   backwards */
                for (uint32_t i = 1; i + 1 < pn[k]; i++) {
                    if (side == 0)
                        mesh_tri(&o, base, base + i + 1, base + i);
                    else
                        mesh_tri(&o, base, base + i, base + i + 1);
                }
            }
    }
    _oak_tree_mesh_free(&t->leaves);
    t->leaves = o;
    t->card_verts = 2 * verts, t->card_idx = 6 * tris;
    return OAK_OK;
}

oak_result _oak_tree_impostor_outline(_oak_tree_mesh *m, const uint8_t *albedo,
                                      uint32_t first_view) {
    _oak_tree_mesh o;
    memset(&o, 0, sizeof o);
    if (!mesh_reserve(&o, OAK_TREE_VIEWS * OAK_TREE_OUTLINE,
                      OAK_TREE_VIEWS * 3 * (OAK_TREE_OUTLINE - 2)))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "tree: no memory for the impostor's outlines");
    for (uint32_t k = 0; k < OAK_TREE_VIEWS && 4 * k + 3 < m->vertex_count; k++) {
        const uint32_t b = 4 * k; /* the whole slot's quad, as _oak_tree_impostor made it */
        uint32_t rect[4];
        _oak_tree_view_rect(first_view + k, rect);
        float xy[2 * OAK_TREE_OUTLINE];
        uint32_t n = _oak_tree_view_outline(xy, albedo, rect);
        if (!n) { /* an empty view keeps its whole slot */
            n = 4;
            const float whole[8] = {
                0, 0, (float)rect[2], 0, (float)rect[2], (float)rect[3], 0, (float)rect[3]};
            memcpy(xy, whole, sizeof whole);
        }
        /* position and uv are both affine in the slot texel, so moving
           them together keeps every texel where it was: P0 the slot's top
           left (corner 3), P1 its +x edge, P2 its +y (down) edge */
        float P[3][3];
        for (int q = 0; q < 3; q++) {
            P[0][q] = m->pos[3 * (b + 3) + q];
            P[1][q] = m->pos[3 * (b + 2) + q] - P[0][q];
            P[2][q] = m->pos[3 * (b + 0) + q] - P[0][q];
        }
        uint32_t base = o.vertex_count;
        for (uint32_t i = 0; i < n; i++) {
            float a = xy[2 * i] / (float)rect[2], d = xy[2 * i + 1] / (float)rect[3], p[3];
            for (int q = 0; q < 3; q++) p[q] = P[0][q] + a * P[1][q] + d * P[2][q];
            mesh_vertex(&o, p, m->nrm + 3 * b, m->tan + 4 * b,
                        ((float)rect[0] + xy[2 * i]) / OAK_TREE_ATLAS_W,
                        ((float)rect[1] + xy[2 * i + 1]) / OAK_TREE_ATLAS_H);
        }
        /* a fan; the outline turns positively in (x, y down), which is
           clockwise seen from the view, so the fan runs backwards to face it */
        for (uint32_t i = 1; i + 1 < n; i++) mesh_tri(&o, base, base + i + 1, base + i);
    }
    _oak_tree_mesh_free(m);
    *m = o;
    return OAK_OK;
}

uint32_t _oak_tree_open_edges(const _oak_tree_mesh *m) {
    if (!m->index_count) return 0;
    uint32_t *remap = oak_alloc((size_t)m->vertex_count * sizeof(uint32_t));
    uint64_t *edges = oak_alloc((size_t)m->index_count * sizeof(uint64_t));
    uint32_t open = UINT32_MAX;
    if (remap && edges) {
        meshopt_generateVertexRemap(remap, NULL, m->vertex_count, m->pos, m->vertex_count,
                                    3 * sizeof(float));
        /* each directed edge once; an edge is open when its reverse is missing */
        for (uint32_t i = 0; i < m->index_count; i++) {
            uint32_t a = remap[m->idx[i]], b = remap[m->idx[i - i % 3 + (i % 3 + 1) % 3]];
            edges[i] = (uint64_t)a << 32 | b;
        }
        /* sort (insertion would be slow: a simple heap sort) */
        uint64_t *e = edges;
        size_t n = m->index_count;
        for (size_t start = n / 2; start-- > 0;)
            for (size_t root = start;;) {
                size_t child = 2 * root + 1;
                if (child >= n) break;
                if (child + 1 < n && e[child] < e[child + 1]) child++;
                if (e[root] >= e[child]) break;
                uint64_t tmp = e[root];
                e[root] = e[child], e[child] = tmp, root = child;
            }
        for (size_t end = n; end-- > 1;) {
            uint64_t tmp = e[0];
            e[0] = e[end], e[end] = tmp;
            for (size_t root = 0;;) {
                size_t child = 2 * root + 1;
                if (child >= end) break;
                if (child + 1 < end && e[child] < e[child + 1]) child++;
                if (e[root] >= e[child]) break;
                tmp = e[root];
                e[root] = e[child], e[child] = tmp, root = child;
            }
        }
        open = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t a = (uint32_t)(e[i] >> 32), b = (uint32_t)e[i];
            if (a == b) continue; /* a collapsed edge */
            uint64_t rev = (uint64_t)b << 32 | a;
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (e[mid] < rev)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == n || e[lo] != rev) open++;
        }
    }
    oak_free(remap);
    oak_free(edges);
    return open;
}
