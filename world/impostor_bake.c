/* The software impostor baker (world/impostor_bake.h), shared by the trees
 * (world/tree_paint.c) and the crowd's far tier (world/crowd_impostor.c).
 * Every step is plain float arithmetic in a fixed order: the same input
 * gives the same texels on any machine state and thread count. */
#include "world/impostor_bake.h"

#include <math.h>
#include <stdlib.h>
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

/* ---- outlines ------------------------------------------------------------ */

void _oak_bake_spans_init(_oak_bake_spans *s, uint32_t w, uint32_t h) {
    s->w = w, s->h = h < OAK_BAKE_OUTLINE_ROWS ? h : OAK_BAKE_OUTLINE_ROWS;
    for (uint32_t y = 0; y < OAK_BAKE_OUTLINE_ROWS; y++) s->lo[y] = (int)w, s->hi[y] = 0;
}

void _oak_bake_spans_add(_oak_bake_spans *s, const uint8_t *rgba, uint32_t stride, uint32_t rw,
                         uint32_t rh, uint32_t scale, uint8_t min_alpha, uint32_t margin) {
    const int W = (int)s->w, H = (int)s->h, sc = (int)scale, m = (int)margin;
    for (int y = 0; y < (int)rh; y++) {
        const uint8_t *row = rgba + 4 * (size_t)y * stride;
        int xl = -1, xr = -1;
        for (int x = 0; x < (int)rw; x++)
            if (row[4 * x + 3] >= min_alpha) {
                if (xl < 0) xl = x;
                xr = x;
            }
        if (xl < 0) continue;
        int x0 = xl * sc - m, x1 = (xr + 1) * sc + m, y0 = y * sc - m, y1 = (y + 1) * sc + m;
        x0 = x0 > 0 ? x0 : 0, x1 = x1 < W ? x1 : W;
        y0 = y0 > 0 ? y0 : 0, y1 = y1 < H ? y1 : H;
        for (int b = y0; b < y1; b++) {
            s->lo[b] = x0 < s->lo[b] ? x0 : s->lo[b];
            s->hi[b] = x1 > s->hi[b] ? x1 : s->hi[b];
        }
    }
}

/* A point of an outline in slot texels (x right, y down). */
typedef struct outline_pt {
    double x, y;
} outline_pt;

static int outline_cmp(const void *a, const void *b) {
    const outline_pt *p = a, *q = b;
    if (p->x != q->x) return p->x < q->x ? -1 : 1;
    return p->y < q->y ? -1 : p->y > q->y;
}

static double outline_cross(outline_pt o, outline_pt a, outline_pt b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

static double outline_area(const outline_pt *v, uint32_t n) {
    double a = 0;
    for (uint32_t i = 0; i < n; i++) {
        outline_pt p = v[i], q = v[(i + 1) % n];
        a += p.x * q.y - q.x * p.y;
    }
    return 0.5 * fabs(a);
}

uint32_t _oak_bake_outline(float out[2 * OAK_BAKE_OUTLINE], const _oak_bake_spans *s) {
    const int W = (int)s->w, H = (int)s->h;
    /* each band's two ends, top and bottom: the hull of those corners
       holds every span */
    outline_pt pts[4 * OAK_BAKE_OUTLINE_ROWS], hull[4 * OAK_BAKE_OUTLINE_ROWS + 1];
    uint32_t np = 0;
    int bx0 = W, bx1 = 0, by0 = H, by1 = 0;
    for (int y = 0; y < H; y++) {
        int x0 = s->lo[y], x1 = s->hi[y];
        if (x0 >= x1) continue;
        pts[np++] = (outline_pt){x0, y}, pts[np++] = (outline_pt){x0, y + 1};
        pts[np++] = (outline_pt){x1, y}, pts[np++] = (outline_pt){x1, y + 1};
        bx0 = x0 < bx0 ? x0 : bx0, bx1 = x1 > bx1 ? x1 : bx1;
        by0 = y < by0 ? y : by0, by1 = y + 1 > by1 ? y + 1 : by1;
    }
    if (!np) return 0;
    /* the convex hull (monotone chain; integer corners, so exact), turning
       positively in (x, y) */
    qsort(pts, np, sizeof *pts, outline_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < np; i++) {
        while (n >= 2 && outline_cross(hull[n - 2], hull[n - 1], pts[i]) <= 0) n--;
        hull[n++] = pts[i];
    }
    for (uint32_t i = np - 1, lo = n + 1; i-- > 0;) {
        while (n >= lo && outline_cross(hull[n - 2], hull[n - 1], pts[i]) <= 0) n--;
        hull[n++] = pts[i];
    }
    n--; /* the first point closed the chain */
    /* down to OAK_BAKE_OUTLINE vertices: each step drops the edge whose
       neighbours, extended to meet, add the least area (the result still
       holds the hull and stays convex), the meeting point kept inside the
       slot so no texel of the next slot is drawn */
    while (n > OAK_BAKE_OUTLINE) {
        uint32_t best = n;
        double best_add = 0;
        outline_pt best_x = {0, 0};
        for (uint32_t i = 0; i < n; i++) {
            outline_pt a = hull[(i + n - 1) % n], b = hull[i], c = hull[(i + 1) % n],
                       d = hull[(i + 2) % n];
            double d1x = b.x - a.x, d1y = b.y - a.y, d2x = c.x - d.x, d2y = c.y - d.y;
            double den = d1x * d2y - d1y * d2x;
            if (den == 0) continue;
            double ex = c.x - b.x, ey = c.y - b.y;
            double t = (ex * d2y - ey * d2x) / den, u = (ex * d1y - ey * d1x) / den;
            if (!(t >= 0 && u >= 0)) continue;
            outline_pt X = {b.x + t * d1x, b.y + t * d1y};
            if (X.x < 0 || X.x > W || X.y < 0 || X.y > H) continue;
            double add = 0.5 * fabs(outline_cross(b, X, c));
            if (best == n || add < best_add) best = i, best_add = add, best_x = X;
        }
        if (best == n) break;
        hull[best] = best_x;
        uint32_t gone = (best + 1) % n;
        memmove(hull + gone, hull + gone + 1, (size_t)(n - gone - 1) * sizeof *hull);
        n--;
    }
    /* the spans' rectangle where it is smaller (or the outline could not
       be brought to OAK_BAKE_OUTLINE vertices inside the slot) */
    double rect_area = (double)(bx1 - bx0) * (by1 - by0);
    if (n > OAK_BAKE_OUTLINE || outline_area(hull, n) >= rect_area) {
        hull[0] = (outline_pt){bx0, by0}, hull[1] = (outline_pt){bx1, by0};
        hull[2] = (outline_pt){bx1, by1}, hull[3] = (outline_pt){bx0, by1};
        n = 4;
    }
    for (uint32_t i = 0; i < n; i++)
        out[2 * i] = (float)hull[i].x, out[2 * i + 1] = (float)hull[i].y;
    return n;
}
