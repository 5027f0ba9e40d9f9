/* A species' atlas painted at load (no files): bark streaks with their
 * normals, a leaf or needle card with alpha, and the impostor views baked
 * in software from the full tree (orthographic, 2 x 2 samples a texel):
 * albedo with coverage as alpha, and the normals in each view quad's own
 * tangent frame, so the impostor is lit like the tree by the ordinary
 * normal-mapped shading (docs/WORLD.md "Trees"). */
#include <math.h>
#include <string.h>

#include "world/impostor_bake.h"
#include "world/internal.h"
#include "world/terrain_internal.h"
#include "world/tree_internal.h"

typedef struct palette {
    float bark[2][3]; /* dark, light (linear) */
    float leaf[2][3];
} palette;

static const palette k_palette[OAK_TREE_SPECIES] = {
    [OAK_TREE_PINE] = {{{0.06f, 0.030f, 0.018f}, {0.17f, 0.085f, 0.045f}},
                       {{0.030f, 0.065f, 0.025f}, {0.050f, 0.095f, 0.035f}}},
    [OAK_TREE_OAK] = {{{0.05f, 0.042f, 0.033f}, {0.15f, 0.13f, 0.10f}},
                      {{0.040f, 0.090f, 0.022f}, {0.065f, 0.125f, 0.030f}}},
    [OAK_TREE_BIRCH] = {{{0.030f, 0.030f, 0.030f}, {0.72f, 0.71f, 0.66f}},
                        {{0.085f, 0.165f, 0.040f}, {0.120f, 0.200f, 0.050f}}},
    [OAK_TREE_MAPLE] = {{{0.07f, 0.065f, 0.06f}, {0.17f, 0.16f, 0.14f}},
                        {{0.075f, 0.135f, 0.028f}, {0.140f, 0.150f, 0.035f}}},
};

static float smooth01(float a, float b, float x) {
    float t = (x - a) / (b - a);
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    return t * t * (3 - 2 * t);
}

/* Bark height in [0, 1] at slot texel (x, y): periodic across the slot's
   width (it wraps round the branch) and its height. */
static float bark_height(float x, float y, uint32_t species) {
    double n1 = _oak_terrain_noise_periodic(x / 16.0, y / 32.0, 8, 71u + species);
    double n2 = _oak_terrain_noise_periodic(x / 8.0, y / 16.0, 16, 73u + species);
    return (float)(0.5 + 0.35 * n1 + 0.2 * n2);
}

static void paint_bark(uint8_t *albedo, uint8_t *normal, uint32_t species) {
    const palette *pal = &k_palette[species];
    for (uint32_t y = 0; y < OAK_TREE_SLOT_H; y++)
        for (uint32_t x = 0; x < OAK_TREE_SLOT_W; x++) {
            float h = bark_height((float)x, (float)y, species), t = smooth01(0.2f, 0.8f, h);
            float col[3];
            for (int c = 0; c < 3; c++)
                col[c] = pal->bark[0][c] + (pal->bark[1][c] - pal->bark[0][c]) * t;
            if (species == OAK_TREE_BIRCH) { /* white with dark dashes across */
                double d = _oak_terrain_noise_periodic(x / 12.8, y / 6.4, 10, 79u);
                float dash = smooth01(0.25f, 0.45f, (float)d);
                for (int c = 0; c < 3; c++)
                    col[c] =
                        pal->bark[1][c] * (0.85f + 0.15f * h) * (1 - dash) + pal->bark[0][c] * dash;
            }
            size_t o = 4 * ((size_t)y * OAK_TREE_ATLAS_W + x);
            for (int c = 0; c < 3; c++) albedo[o + c] = _oak_bake_srgb8(col[c]);
            albedo[o + 3] = 255;
            float gx = bark_height((float)x + 1, (float)y, species) -
                       bark_height((float)x - 1, (float)y, species);
            float gy = bark_height((float)x, (float)y + 1, species) -
                       bark_height((float)x, (float)y - 1, species);
            float n[3] = {-2.0f * gx, -2.0f * gy, 1.0f}, l = sqrtf(n[0] * n[0] + n[1] * n[1] + 1);
            for (int c = 0; c < 3; c++) normal[o + c] = _oak_bake_unorm8(0.5f + 0.5f * n[c] / l);
            normal[o + 3] = 255;
        }
}

/* Distance from p to the segment a-b, and the share along it. */
static float seg_dist(const float p[2], const float a[2], const float b[2], float *t) {
    float d[2] = {b[0] - a[0], b[1] - a[1]}, q[2] = {p[0] - a[0], p[1] - a[1]};
    float l2 = d[0] * d[0] + d[1] * d[1], s = l2 > 0 ? (q[0] * d[0] + q[1] * d[1]) / l2 : 0;
    s = s < 0 ? 0 : (s > 1 ? 1 : s);
    if (t) *t = s;
    float e[2] = {q[0] - s * d[0], q[1] - s * d[1]};
    return sqrtf(e[0] * e[0] + e[1] * e[1]);
}

/* One leaf of the card: base, unit direction, length and width (texels);
   for the pine's needles, base to tip (dir holds the tip). */
typedef struct leaf_shape {
    float base[2], dir[2], length, width, tone;
} leaf_shape;

#define PINE_NEEDLES 72

/* Whether card texel point p (y down) is leaf, twig or nothing: 2 leaf, 1
   twig, 0 empty; *shade gets a tone for the leaf. */
static int card_sample(const float p[2], uint32_t species, const leaf_shape *leaves, int n,
                       float *shade) {
    static const float stem_a[2] = {128, 252}, stem_b[2] = {128, 24};
    if (species == OAK_TREE_PINE) {
        /* a twig with needles in pairs all along it, leaning to the tip */
        float t;
        if (seg_dist(p, stem_a, stem_b, &t) < 2.2f - 1.2f * t) {
            *shade = 0.6f;
            return 1;
        }
        for (int i = 0; i < n; i++) {
            const float *a = leaves[i].base, *b = leaves[i].dir;
            if (p[1] < b[1] - 4 || p[1] > a[1] + 4 || p[0] < fminf(a[0], b[0]) - 4 ||
                p[0] > fmaxf(a[0], b[0]) + 4)
                continue; /* outside the needle's box */
            float u;
            if (seg_dist(p, a, b, &u) < 3.4f - 1.8f * u) {
                *shade = leaves[i].tone;
                return 2;
            }
        }
        return 0;
    }
    float t;
    if (seg_dist(p, stem_a, stem_b, &t) < 2.0f - t) {
        *shade = 0.5f;
        return 1;
    }
    for (int i = 0; i < n; i++) {
        const leaf_shape *l = &leaves[i];
        float q[2] = {p[0] - l->base[0], p[1] - l->base[1]};
        float along = q[0] * l->dir[0] + q[1] * l->dir[1];
        float across = -q[0] * l->dir[1] + q[1] * l->dir[0];
        float u = along / l->length;
        if (u < 0 || u > 1) continue;
        float half;
        if (species == OAK_TREE_MAPLE) { /* five pointed lobes round the leaf's middle */
            float c[2] = {along - 0.5f * l->length, across};
            float r = sqrtf(c[0] * c[0] + c[1] * c[1]), phi = atan2f(c[1], c[0]);
            float lobe = 0.55f + 0.45f * powf(fabsf(cosf(2.5f * phi)), 3.0f);
            if (r > 0.5f * l->length * lobe) continue;
            half = 1e9f;
        } else {
            half = 0.5f * l->width * powf(sinf(OAK_PI * u), 0.75f);
            if (species == OAK_TREE_OAK) half *= 0.72f + 0.28f * fabsf(sinf(u * OAK_PI * 4.5f));
            if (fabsf(across) > half) continue;
        }
        *shade = l->tone * (0.8f + 0.35f * u) * (fabsf(across) < 0.9f ? 0.75f : 1.0f);
        return 2;
    }
    return 0;
}

static void paint_card(uint8_t *albedo, uint8_t *normal, uint32_t species) {
    const palette *pal = &k_palette[species];
    leaf_shape leaves[PINE_NEEDLES];
    int n = species == OAK_TREE_BIRCH ? 11 : (species == OAK_TREE_MAPLE ? 5 : 7);
    float len = species == OAK_TREE_BIRCH ? 72.0f : (species == OAK_TREE_MAPLE ? 136.0f : 112.0f);
    float wid = species == OAK_TREE_BIRCH ? 48.0f : 62.0f;
    for (int i = 0; i < n; i++) {
        float s = 0.12f + 0.8f * (float)i / (float)(n - 1);
        float side = (i & 1) ? 1.0f : -1.0f, ang = i == n - 1 ? 0.0f : 0.95f - 0.35f * s;
        leaf_shape *l = &leaves[i];
        l->base[0] = 128, l->base[1] = 252 - 228 * s;
        l->dir[0] = side * sinf(ang), l->dir[1] = -cosf(ang);
        l->length = len * (1.0f - 0.25f * s), l->width = wid * (1.0f - 0.2f * s);
        l->tone = 0.8f + 0.4f * _oak_world_hash01((uint32_t)i, 61u + species);
    }
    if (species == OAK_TREE_PINE) { /* needle pairs up the twig, leaning to the tip */
        n = PINE_NEEDLES;
        for (int i = 0; i < n; i++) {
            float s = 0.03f + 0.95f * (float)i / (PINE_NEEDLES - 1),
                  len = 92.0f * (1.0f - 0.5f * s);
            float side = (i & 1) ? 1.0f : -1.0f, ang = 0.85f + 0.15f * (float)((i * 7) % 3);
            leaf_shape *l = &leaves[i];
            l->base[0] = 128, l->base[1] = 252 - 228 * s;
            l->dir[0] = l->base[0] + side * len * sinf(ang),
            l->dir[1] = l->base[1] - len * cosf(ang);
            l->tone = 0.75f + 0.25f * (float)((i * 5) % 4) / 3.0f;
        }
    }
    /* 3 x 3 samples a texel: alpha is the leaf's coverage */
    double sum[3] = {0, 0, 0}, weight = 0;
    for (uint32_t y = 0; y < OAK_TREE_SLOT_H; y++)
        for (uint32_t x = 0; x < 2 * OAK_TREE_SLOT_W; x++) {
            float acc[3] = {0, 0, 0}, cover = 0;
            for (int sy = 0; sy < 3; sy++)
                for (int sx = 0; sx < 3; sx++) {
                    float p[2] = {(float)x + (sx + 0.5f) / 3, (float)y + (sy + 0.5f) / 3},
                          shade = 1;
                    int k = card_sample(p, species, leaves, n, &shade);
                    if (!k) continue;
                    cover += 1.0f / 9;
                    for (int c = 0; c < 3; c++) {
                        float base =
                            k == 1 ? pal->bark[0][c] + 0.5f * (pal->bark[1][c] - pal->bark[0][c])
                                   : pal->leaf[0][c] +
                                         (pal->leaf[1][c] - pal->leaf[0][c]) * (shade - 0.6f);
                        acc[c] += (k == 1 ? 1.0f : shade) * base / 9;
                    }
                }
            size_t o = 4 * ((size_t)y * OAK_TREE_ATLAS_W + OAK_TREE_SLOT_W + x);
            for (int c = 0; c < 3; c++) {
                float v = cover > 0 ? acc[c] / cover : 0;
                albedo[o + c] = _oak_bake_srgb8(v);
                sum[c] += acc[c];
            }
            weight += cover;
            albedo[o + 3] = _oak_bake_unorm8(cover);
            normal[o] = normal[o + 1] = 128, normal[o + 2] = 255, normal[o + 3] = 255;
        }
    /* empty texels take the card's mean colour, so filtering never darkens an edge */
    for (uint32_t y = 0; y < OAK_TREE_SLOT_H; y++)
        for (uint32_t x = 0; x < 2 * OAK_TREE_SLOT_W; x++) {
            size_t o = 4 * ((size_t)y * OAK_TREE_ATLAS_W + OAK_TREE_SLOT_W + x);
            if (albedo[o + 3] == 0 && weight > 0)
                for (int c = 0; c < 3; c++)
                    albedo[o + c] = _oak_bake_srgb8((float)(sum[c] / weight));
        }
}

void _oak_tree_paint(uint8_t *albedo, uint8_t *normal, uint32_t species) {
    /* everything starts empty: transparent, flat normal */
    size_t n = (size_t)OAK_TREE_ATLAS_W * OAK_TREE_ATLAS_H;
    for (size_t i = 0; i < n; i++) {
        albedo[4 * i] = albedo[4 * i + 1] = albedo[4 * i + 2] = 40, albedo[4 * i + 3] = 0;
        normal[4 * i] = normal[4 * i + 1] = 128, normal[4 * i + 2] = 255, normal[4 * i + 3] = 255;
    }
    paint_bark(albedo, normal, species);
    paint_card(albedo, normal, species);
}

/* ---- impostor bake (world/impostor_bake.c, shared with the crowd) -------- */

oak_result _oak_tree_bake(uint8_t *albedo, uint8_t *normal, const _oak_tree *t,
                          uint32_t first_view) {
    float y0 = -0.3f; /* as _oak_tree_impostor */
    float s = fmaxf(2.0f * t->radius / (OAK_TREE_SLOT_W - 2 * OAK_TREE_GUTTER),
                    (t->height - y0) / (OAK_TREE_SLOT_H - 2 * OAK_TREE_GUTTER));
    _oak_bake_target bt;
    oak_result r = _oak_bake_target_make(&bt, OAK_TREE_SLOT_W, OAK_TREE_SLOT_H);
    if (r) return r;
    /* the cards' alpha tested as the material does (cutoff 0.5) */
    _oak_bake_tex tex = {.rgba = albedo,
                         .w = OAK_TREE_ATLAS_W,
                         .h = OAK_TREE_ATLAS_H,
                         .cutoff = 128,
                         .factor = {1, 1, 1}};
    const _oak_bake_tris branches = {t->branches.pos, t->branches.nrm, t->branches.uv,
                                     t->branches.idx, t->branches.index_count};
    const _oak_bake_tris leaves = {t->leaves.pos, t->leaves.nrm, t->leaves.uv, t->leaves.idx,
                                   t->leaves.index_count};
    static const float k_view[OAK_TREE_VIEWS][3] = {{0, 0, 1}, {1, 0, 0}, {0, 0, -1}, {-1, 0, 0}};
    for (uint32_t k = 0; k < OAK_TREE_VIEWS; k++) {
        _oak_bake_view v = {.V = {k_view[k][0], k_view[k][1], k_view[k][2]},
                            .s = s,
                            .bottom = y0 - OAK_TREE_GUTTER * s,
                            .slot_w = OAK_TREE_SLOT_W,
                            .slot_h = OAK_TREE_SLOT_H};
        _oak_bake_clear(&bt);
        _oak_bake_raster(&bt, &v, &branches, &tex);
        _oak_bake_raster(&bt, &v, &leaves, &tex);
        uint32_t rect[4];
        _oak_tree_view_rect(first_view + k, rect);
        _oak_bake_resolve(&bt, &v, albedo, normal, OAK_TREE_ATLAS_W, rect[0], rect[1]);
    }
    _oak_bake_target_free(&bt);
    return OAK_OK;
}
