/* The crowd's second figure (issue 15): the Fox with fur, made at load. Each
 * triangle is cut into a grid of n x n (n = 5: the Fox's 576 triangles
 * become 14,400), its points pushed out along the smoothed normal by a
 * hashed tuft height, and its skin weights interpolated from the
 * triangle's corners. Deterministic: the same mesh from the same Fox. */
#include <math.h>
#include <string.h>

#include <meshoptimizer.h>

#include "world/internal.h"

/* A hash of a point's exact bits in [0, 1): a point two triangles share
   (computed from the same two corners by the same weights) gets the same
   tuft in both, so the fur opens no crack. */
static float point_hash(const float p[3]) {
    uint32_t h = 2166136261u;
    for (int k = 0; k < 3; k++) {
        uint32_t b;
        memcpy(&b, &p[k], sizeof b);
        h = (h ^ b) * 16777619u;
        h ^= h >> 15;
    }
    h *= 0x2c1b3c6du;
    h ^= h >> 12;
    return (float)(h >> 8) / 16777216.0f;
}

/* The four largest of a point's corner influences (each corner's weights
   times its barycentric share; a joint named twice adds), summing to 1. */
static void blend_skin(const oak_mesh_data *md, const uint32_t c[3], const float l[3],
                       uint16_t joints[4], float weights[4]) {
    uint16_t j[12];
    float w[12];
    uint32_t n = 0;
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < 4; i++) {
            float wi = md->weights[(size_t)c[k] * 4 + i] * l[k];
            uint16_t ji = md->joints[(size_t)c[k] * 4 + i];
            if (!(wi > 0)) continue;
            uint32_t at = 0;
            while (at < n && j[at] != ji) at++;
            if (at == n) j[n] = ji, w[n++] = 0;
            w[at] += wi;
        }
    float sum = 0;
    for (int k = 0; k < 4; k++) {
        uint32_t best = n;
        for (uint32_t i = 0; i < n; i++)
            if (w[i] > 0 && (best == n || w[i] > w[best])) best = i;
        joints[k] = best < n ? j[best] : 0;
        weights[k] = best < n ? w[best] : 0;
        if (best < n) w[best] = 0;
        sum += weights[k];
    }
    if (!(sum > 0)) { /* no influence at all: the first corner's first joint */
        joints[0] = md->joints[(size_t)c[0] * 4], weights[0] = 1, sum = 1;
    }
    for (int k = 0; k < 4; k++) weights[k] /= sum;
}

static void normalize3(float v[3]) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (l > 0)
        for (int k = 0; k < 3; k++) v[k] /= l;
}

oak_result _oak_crowd_fur_figure(oak_mesh *out, oak_mesh fox, uint32_t n, float tuft) {
    *out = (oak_mesh){0};
    const oak_mesh_data *md = oak_mesh_get(fox);
    if (!md || !md->joints || !md->weights || !md->index_count || n < 1 || n > 16)
        return oak_error(OAK_ERROR_INVALID_ARGUMENT,
                         "world crowd: the fur figure needs a skinned mesh and 1 .. 16 cuts");
    uint32_t tris = md->index_count / 3, per = (n + 1) * (n + 2) / 2;
    size_t nv = (size_t)tris * per, ni = (size_t)tris * n * n * 3;
    float *pos = oak_alloc(sizeof(float) * 3 * nv), *nrm = oak_calloc(3 * nv, sizeof(float));
    float *uv = oak_alloc(sizeof(float) * 2 * nv), *wt = oak_alloc(sizeof(float) * 4 * nv);
    uint16_t *jt = oak_alloc(sizeof(uint16_t) * 4 * nv);
    uint32_t *idx = oak_alloc(sizeof(uint32_t) * ni),
             *remap = oak_alloc(sizeof(uint32_t) * md->vertex_count);
    float *smooth = oak_calloc(3 * (size_t)md->vertex_count, sizeof(float));
    oak_result r = OAK_ERROR_OUT_OF_MEMORY;
    if (!pos || !nrm || !uv || !wt || !jt || !idx || !remap || !smooth) goto done;
    /* the smoothed normal of each place: the Fox is flat-shaded (three
       vertices a triangle), so its corners are welded by position and the
       area-weighted face normals summed there */
    meshopt_generateVertexRemap(remap, NULL, md->vertex_count, md->positions, md->vertex_count,
                                3 * sizeof(float));
    for (uint32_t t = 0; t < tris; t++) {
        const uint32_t *c = md->indices + 3 * (size_t)t;
        const float *a = md->positions + 3 * (size_t)c[0], *b = md->positions + 3 * (size_t)c[1],
                    *d = md->positions + 3 * (size_t)c[2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
        float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        for (int k = 0; k < 3; k++)
            for (int e = 0; e < 3; e++) smooth[3 * (size_t)remap[c[k]] + e] += f[e];
    }
    for (uint32_t v = 0; v < md->vertex_count; v++) normalize3(smooth + 3 * (size_t)v);
    size_t at = 0;
    for (uint32_t t = 0; t < tris; t++) {
        const uint32_t *c = md->indices + 3 * (size_t)t;
        uint32_t first = t * per;
        for (uint32_t i = 0; i <= n; i++)
            for (uint32_t j = 0; j + i <= n; j++) {
                /* the same shares, in the same order of corners' terms, for
                   a point on an edge two triangles share */
                float l[3] = {(float)(n - i - j) / (float)n, (float)i / (float)n,
                              (float)j / (float)n};
                size_t v = first + (size_t)(i * (2 * n + 3 - i) / 2 + j);
                float *p = pos + 3 * v, sn[3] = {0, 0, 0};
                for (int e = 0; e < 3; e++) {
                    p[e] = 0;
                    for (int k = 0; k < 3; k++) {
                        p[e] += l[k] * md->positions[3 * (size_t)c[k] + e];
                        sn[e] += l[k] * smooth[3 * (size_t)remap[c[k]] + e];
                    }
                }
                for (int e = 0; e < 2; e++) {
                    uv[2 * v + e] = 0;
                    for (int k = 0; k < 3; k++)
                        uv[2 * v + e] += l[k] * (md->uv0 ? md->uv0[2 * (size_t)c[k] + e] : 0);
                }
                blend_skin(md, c, l, jt + 4 * v, wt + 4 * v);
                /* tufts: none at the Fox's own corners (they stay its
                   vertices), most in the middle of its faces */
                float key[3] = {p[0] + 0.0f, p[1] + 0.0f, p[2] + 0.0f}; /* -0 as +0 */
                float most = l[0] > l[1] ? l[0] : l[1];
                most = most > l[2] ? most : l[2];
                normalize3(sn);
                float h = tuft * (0.35f + 0.65f * point_hash(key)) * 1.5f * (1 - most);
                for (int e = 0; e < 3; e++) p[e] += h * sn[e];
            }
        /* the grid's triangles, wound as the Fox's */
        for (uint32_t i = 0; i < n; i++)
            for (uint32_t j = 0; j + i < n; j++) {
                uint32_t v00 = first + i * (2 * n + 3 - i) / 2 + j;
                uint32_t v10 = first + (i + 1) * (2 * n + 2 - i) / 2 + j;
                idx[at++] = v00, idx[at++] = v10, idx[at++] = v00 + 1;
                if (j + i + 1 < n) idx[at++] = v10, idx[at++] = v10 + 1, idx[at++] = v00 + 1;
            }
    }
    /* shading normals: the small faces' area-weighted normals at their
       points, within each of the Fox's triangles (its flat look, furred) */
    for (size_t k = 0; k < at; k += 3) {
        const float *a = pos + 3 * (size_t)idx[k], *b = pos + 3 * (size_t)idx[k + 1],
                    *d = pos + 3 * (size_t)idx[k + 2];
        float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float e2[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
        float f[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                      e1[0] * e2[1] - e1[1] * e2[0]};
        for (int q = 0; q < 3; q++)
            for (int e = 0; e < 3; e++) nrm[3 * (size_t)idx[k + q] + e] += f[e];
    }
    for (size_t v = 0; v < nv; v++) normalize3(nrm + 3 * v);
    oak_mesh_desc d = {.vertex_count = (uint32_t)nv,
                       .index_count = (uint32_t)at,
                       .positions = pos,
                       .normals = nrm,
                       .uv0 = md->uv0 ? uv : NULL,
                       .joints = jt,
                       .weights = wt,
                       .indices = idx,
                       .name = "fox (fur)"};
    r = oak_make_mesh(out, &d);
done:
    oak_free(pos), oak_free(nrm), oak_free(uv), oak_free(wt), oak_free(jt), oak_free(idx);
    oak_free(remap), oak_free(smooth);
    return r;
}
