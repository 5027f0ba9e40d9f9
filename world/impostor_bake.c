/* The software impostor baker (world/impostor_bake.h), shared by the trees
 * (world/tree_paint.c) and the crowd's far tier (world/crowd_impostor.c).
 * Every step is plain float arithmetic in a fixed order: the same input
 * gives the same texels on any machine state and thread count. */
#include "world/impostor_bake.h"

#include <math.h>
#include <string.h>

#include "oak/asset.h"

oak_result _oak_bake_target_make(_oak_bake_target *t, uint32_t slot_w, uint32_t slot_h) {
    memset(t, 0, sizeof *t);
    t->w = slot_w * OAK_BAKE_SS, t->h = slot_h * OAK_BAKE_SS;
    size_t n = (size_t)t->w * t->h;
    t->depth = oak_alloc(n * sizeof(float));
    t->color = oak_alloc(n * 3 * sizeof(float));
    t->nrm = oak_alloc(n * 3 * sizeof(float));
    if (t->depth && t->color && t->nrm) return OAK_OK;
    _oak_bake_target_free(t);
    return oak_error(OAK_ERROR_OUT_OF_MEMORY, "impostor bake: no memory for a %ux%u slot", slot_w,
                     slot_h);
}

void _oak_bake_target_free(_oak_bake_target *t) {
    oak_free(t->depth), oak_free(t->color), oak_free(t->nrm);
    t->depth = t->color = t->nrm = NULL;
}

void _oak_bake_clear(_oak_bake_target *t) {
    size_t n = (size_t)t->w * t->h;
    for (size_t i = 0; i < n; i++) t->depth[i] = -INFINITY;
}

void _oak_bake_raster(_oak_bake_target *bt, const _oak_bake_view *v, const _oak_bake_tris *m,
                      const _oak_bake_tex *tex) {
    const float *V = v->V, R[3] = {V[2], 0, -V[0]}; /* up x V */
    /* sRGB bytes to linear: the same function, looked up (a power per
       sample was most of a bake) */
    float lin[256];
    for (int i = 0; i < 256 && tex->rgba; i++) lin[i] = oak_srgb_to_linear(i / 255.0f);
    float s = v->s, top = v->bottom + (float)v->slot_h * s, hw = 0.5f * (float)v->slot_w * s;
    for (uint32_t i = 0; i + 2 < m->index_count; i += 3) {
        float sx[3], sy[3], sz[3];
        for (int k = 0; k < 3; k++) {
            const float *p = m->pos + 3 * (size_t)m->idx[i + k];
            sx[k] = (p[0] * R[0] + p[1] * R[1] + p[2] * R[2] + hw) / s * OAK_BAKE_SS;
            sy[k] = (top - p[1]) / s * OAK_BAKE_SS;
            sz[k] = p[0] * V[0] + p[1] * V[1] + p[2] * V[2];
        }
        float area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
        if (fabsf(area) < 1e-12f) continue;
        int x0 = (int)floorf(fminf(sx[0], fminf(sx[1], sx[2]))),
            x1 = (int)ceilf(fmaxf(sx[0], fmaxf(sx[1], sx[2])));
        int y0 = (int)floorf(fminf(sy[0], fminf(sy[1], sy[2]))),
            y1 = (int)ceilf(fmaxf(sy[0], fmaxf(sy[1], sy[2])));
        if (x0 < 0) x0 = 0;
        if (y0 < 0) y0 = 0;
        if (x1 > (int)bt->w) x1 = (int)bt->w;
        if (y1 > (int)bt->h) y1 = (int)bt->h;
        for (int y = y0; y < y1; y++)
            for (int x = x0; x < x1; x++) {
                float px = x + 0.5f, py = y + 0.5f, b[3];
                b[0] = ((sx[1] - px) * (sy[2] - py) - (sx[2] - px) * (sy[1] - py)) / area;
                b[1] = ((sx[2] - px) * (sy[0] - py) - (sx[0] - px) * (sy[2] - py)) / area;
                b[2] = 1 - b[0] - b[1];
                if (b[0] < 0 || b[1] < 0 || b[2] < 0) continue;
                float z = b[0] * sz[0] + b[1] * sz[1] + b[2] * sz[2];
                size_t o = (size_t)y * bt->w + x;
                if (z <= bt->depth[o]) continue;
                float uv[2] = {0, 0}, n[3] = {0, 0, 0};
                for (int k = 0; k < 3; k++) {
                    uint32_t vi = m->idx[i + k];
                    uv[0] += b[k] * m->uv[2 * (size_t)vi],
                        uv[1] += b[k] * m->uv[2 * (size_t)vi + 1];
                    for (int c = 0; c < 3; c++) n[c] += b[k] * m->nrm[3 * (size_t)vi + c];
                }
                float col[3] = {tex->factor[0], tex->factor[1], tex->factor[2]};
                if (tex->rgba) {
                    int tx = (int)(uv[0] * (float)tex->w), ty = (int)(uv[1] * (float)tex->h);
                    tx = tx < 0 ? 0 : (tx >= (int)tex->w ? (int)tex->w - 1 : tx);
                    ty = ty < 0 ? 0 : (ty >= (int)tex->h ? (int)tex->h - 1 : ty);
                    const uint8_t *t = tex->rgba + 4 * ((size_t)ty * tex->w + tx);
                    if (tex->cutoff && t[3] < tex->cutoff) continue; /* the material's cutoff */
                    for (int c = 0; c < 3; c++) col[c] *= lin[t[c]];
                }
                bt->depth[o] = z;
                for (int c = 0; c < 3; c++) {
                    bt->color[3 * o + c] = col[c];
                    bt->nrm[3 * o + c] = n[c];
                }
            }
    }
}

void _oak_bake_resolve(const _oak_bake_target *bt, const _oak_bake_view *v, uint8_t *albedo,
                       uint8_t *normal, uint32_t atlas_w, uint32_t x0, uint32_t y0) {
    const float *V = v->V, R[3] = {V[2], 0, -V[0]};
    /* B = N x T with N = V, T = R: up */
    double mean[3] = {0, 0, 0}, covered = 0;
    for (uint32_t y = 0; y < v->slot_h; y++)
        for (uint32_t x = 0; x < v->slot_w; x++) {
            float col[3] = {0, 0, 0}, nn[3] = {0, 0, 0};
            int hits = 0;
            for (int sy = 0; sy < OAK_BAKE_SS; sy++)
                for (int sx = 0; sx < OAK_BAKE_SS; sx++) {
                    size_t o = (size_t)(y * OAK_BAKE_SS + sy) * bt->w + x * OAK_BAKE_SS + sx;
                    if (bt->depth[o] == -INFINITY) continue;
                    hits++;
                    for (int c = 0; c < 3; c++)
                        col[c] += bt->color[3 * o + c], nn[c] += bt->nrm[3 * o + c];
                }
            size_t o = 4 * ((size_t)(y0 + y) * atlas_w + x0 + x);
            albedo[o + 3] = _oak_bake_unorm8((float)hits / (OAK_BAKE_SS * OAK_BAKE_SS));
            normal[o + 3] = 255;
            if (!hits) {
                normal[o] = normal[o + 1] = 128, normal[o + 2] = 255;
                continue;
            }
            for (int c = 0; c < 3; c++) {
                col[c] /= (float)hits;
                albedo[o + c] = _oak_bake_srgb8(col[c]);
                mean[c] += col[c];
            }
            covered++;
            float tn[3] = {nn[0] * R[0] + nn[2] * R[2], nn[1], nn[0] * V[0] + nn[2] * V[2]};
            float l = sqrtf(tn[0] * tn[0] + tn[1] * tn[1] + tn[2] * tn[2]);
            if (l > 0)
                for (int c = 0; c < 3; c++)
                    normal[o + c] = _oak_bake_unorm8(0.5f + 0.5f * tn[c] / l);
        }
    /* empty texels: the view's mean colour (filtering never darkens an edge) */
    for (uint32_t y = 0; y < v->slot_h && covered > 0; y++)
        for (uint32_t x = 0; x < v->slot_w; x++) {
            size_t o = 4 * ((size_t)(y0 + y) * atlas_w + x0 + x);
            if (!albedo[o + 3])
                for (int c = 0; c < 3; c++)
                    albedo[o + c] = _oak_bake_srgb8((float)(mean[c] / covered));
        }
}
