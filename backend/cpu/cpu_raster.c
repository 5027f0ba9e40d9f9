/* The visibility raster: one job per 64x64 tile walks the tile's bin in order
 * and writes reversed-Z depth (test GREATER) and the triangle id. Coverage is
 * exact: fixed-point edge functions with the top-left rule, 4 pixels a step.
 * MASK triangles sample their alpha here and drop pixels below the cutoff. */
#include <string.h>

#include "cpu_internal.h"

typedef int32_t v4i __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));

typedef struct raster_ctx {
    cpu_backend *b;
    cpu_pass *p;
} raster_ctx;

static int64_t edge64(const cpu_tri *t, int i, int64_t px, int64_t py) {
    int j = (i + 1) % 3;
    return (int64_t)(t->x[j] - t->x[i]) * (py - t->y[i]) -
           (int64_t)(t->y[j] - t->y[i]) * (px - t->x[i]) + t->bias[i];
}

static void raster_tri(raster_ctx *c, const cpu_tri *t, uint32_t tile, float *depth,
                       uint32_t *ids) {
    cpu_pass *p = c->p;
    int32_t tx0 = (int32_t)(tile % p->tiles_x) * CPU_TILE,
            ty0 = (int32_t)(tile / p->tiles_x) * CPU_TILE;
    int32_t rx0 = t->minx > tx0 ? t->minx : tx0, ry0 = t->miny > ty0 ? t->miny : ty0;
    int32_t rx1 = t->maxx < tx0 + CPU_TILE - 1 ? t->maxx : tx0 + CPU_TILE - 1;
    int32_t ry1 = t->maxy < ty0 + CPU_TILE - 1 ? t->maxy : ty0 + CPU_TILE - 1;
    if (rx0 > rx1 || ry0 > ry1) return;

    /* Classify each edge over the region's corner pixel centres (64-bit). An
       edge all inside is dropped; a crossing edge is bounded by its variation
       over the tile, small enough for 32-bit steps. */
    int64_t pxa = (int64_t)(rx0 - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int64_t pxb = (int64_t)(rx1 - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int64_t pya = (int64_t)(ry0 - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int64_t pyb = (int64_t)(ry1 - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int32_t e_row[3], step_x[3], step_y[3];
    int n = 0;
    for (int i = 0; i < 3; i++) {
        int64_t e00 = edge64(t, i, pxa, pya), e10 = edge64(t, i, pxb, pya);
        int64_t e01 = edge64(t, i, pxa, pyb), e11 = edge64(t, i, pxb, pyb);
        int64_t mn = e00, mx = e00;
        int64_t es[3] = {e10, e01, e11};
        for (int k = 0; k < 3; k++) {
            if (es[k] < mn) mn = es[k];
            if (es[k] > mx) mx = es[k];
        }
        if (mx < 0) return;
        if (mn >= 0) continue;
        int j = (i + 1) % 3;
        e_row[n] = (int32_t)e00;
        step_x[n] = -(t->y[j] - t->y[i]) * CPU_SUBPIXEL;
        step_y[n] = (t->x[j] - t->x[i]) * CPU_SUBPIXEL;
        n++;
    }
    for (int i = n; i < 3; i++) e_row[i] = 0, step_x[i] = 0, step_y[i] = 0;

    const v4i lane = {0, 1, 2, 3};
    const v4f lanef = {0.5f, 1.5f, 2.5f, 3.5f};
    int32_t lx0 = (rx0 - tx0) & ~3, lrx0 = rx0 - tx0, lrx1 = rx1 - tx0;
    bool mask = (t->flags & CPU_TRI_MASK) != 0;
    cpu_tri_ctx tc;
    tc.id = 0;
    for (int32_t y = ry0; y <= ry1; y++) {
        int32_t ly = y - ty0;
        float zb = t->z0 + t->dzdy * ((float)y + 0.5f - t->zy0);
        for (int32_t lx = lx0; lx <= lrx1; lx += 4) {
            int32_t dx = lx - lrx0; /* from the region's first column */
            v4i in = (lane + lx >= lrx0) & (lane + lx <= lrx1);
            for (int i = 0; i < 3; i++) {
                v4i e = e_row[i] + step_x[i] * (lane + dx);
                in &= e >= 0;
            }
            if (!(in[0] | in[1] | in[2] | in[3])) continue;
            v4f fx = ((float)(tx0 + lx) - t->zx0) + lanef;
            v4f z = zb + t->dzdx * fx;
            float *dp = depth + ly * CPU_TILE + lx;
            v4f old;
            memcpy(&old, dp, sizeof old);
            in &= z > old;
            if (!(in[0] | in[1] | in[2] | in[3])) continue;
            if (mask) {
                if (!tc.id) _oak_cpu_tri_ctx(c->b, p, t->id, &tc);
                float cutoff = tc.mat->desc.alpha_cutoff;
                for (int k = 0; k < 4; k++)
                    if (in[k] && _oak_cpu_mask_alpha(c->b, p, &tc, (uint32_t)(tx0 + lx + k),
                                                     (uint32_t)y) < cutoff)
                        in[k] = 0;
            }
            v4f nz = (v4f)(((v4i)z & in) | ((v4i)old & ~in));
            memcpy(dp, &nz, sizeof nz);
            if (ids) {
                uint32_t *ip = ids + ly * CPU_TILE + lx;
                v4i oid;
                memcpy(&oid, ip, sizeof oid);
                v4i nid = ((v4i){0, 0, 0, 0} + (int32_t)t->id) & in;
                nid |= oid & ~in;
                memcpy(ip, &nid, sizeof nid);
            }
        }
        for (int i = 0; i < 3; i++) e_row[i] += step_y[i];
    }
}

static void raster_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    raster_ctx *c = user;
    cpu_pass *p = c->p;
    for (uint32_t tile = begin; tile < end; tile++) {
        float *depth = p->depth + (size_t)tile * CPU_TILE_PIXELS;
        uint32_t *ids = p->ids ? p->ids + (size_t)tile * CPU_TILE_PIXELS : NULL;
        if (!p->keep) {
            memset(depth, 0, CPU_TILE_PIXELS * sizeof(float)); /* reversed-Z: 0 is far */
            if (ids) memset(ids, 0, CPU_TILE_PIXELS * sizeof(uint32_t));
        }
        for (uint32_t k = p->bin_start[tile]; k < p->bin_start[tile + 1]; k++)
            raster_tri(c, &p->tris[p->bin_tris[k]], tile, depth, ids);
    }
}

void _oak_cpu_pass_raster(cpu_backend *b, cpu_pass *p) {
    raster_ctx c = {b, p};
    oak_parallel_for(p->tiles_x * p->tiles_y, 1, raster_job, &c);
}
