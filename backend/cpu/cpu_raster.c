/* The visibility raster: one job per 64x64 tile walks the tile's bin in order
 * and writes reversed-Z depth (test GREATER) and the triangle id. Coverage is
 * exact: fixed-point edge functions with the top-left rule, 4 pixels a step.
 * MASK triangles sample their alpha here and drop pixels below the cutoff. */
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cpu_internal.h"

typedef int32_t v4i __attribute__((vector_size(16)));
typedef float v4f __attribute__((vector_size(16)));

/* whether any lane of a compare's mask is set: one movmskps, not a chain of
   lane extracts */
static inline bool any4(v4i m) {
#ifdef __SSE2__
    return _mm_movemask_ps(_mm_castsi128_ps((__m128i)m)) != 0;
#else
    return (m[0] | m[1] | m[2] | m[3]) != 0;
#endif
}

typedef struct raster_ctx {
    cpu_backend *b;
    cpu_pass *p;
} raster_ctx;

/* see raster_tri: spans up to this many sub-pixels walk in 32 bits */
#define RASTER32 2048

static int64_t edge64(const cpu_tri *t, int i, int64_t px, int64_t py) {
    int j = (i + 1) % 3;
    return (int64_t)(t->x[j] - t->x[i]) * (py - t->y[i]) -
           (int64_t)(t->y[j] - t->y[i]) * (px - t->x[i]) + t->bias[i];
}

/* tx0, ty0: the tile's first pixel */
static void raster_tri(raster_ctx *c, const cpu_tri *t, int32_t tx0, int32_t ty0, float *depth,
                       uint32_t *ids) {
    cpu_pass *p = c->p;
    int32_t rx0 = t->minx > tx0 ? t->minx : tx0, ry0 = t->miny > ty0 ? t->miny : ty0;
    int32_t rx1 = t->maxx < tx0 + CPU_TILE - 1 ? t->maxx : tx0 + CPU_TILE - 1;
    int32_t ry1 = t->maxy < ty0 + CPU_TILE - 1 ? t->maxy : ty0 + CPU_TILE - 1;
    if (rx0 > rx1 || ry0 > ry1) return;

    int32_t e_row[3], step_x[3], step_y[3];
    int n = 0;
    /* A triangle whose snapped bounds span at most RASTER32 sub-pixels a
       side (nearly all: the default world's are a few pixels) has every
       edge value at the pixel centres walked here, those 3 px either side
       of the region included, under 2^23: its edges start in 32 bits and
       go unclassified. Keeping an edge that is all inside, or walking a
       region no pixel of which is inside, changes no pixel's test. */
    int32_t mnx = t->x[0], mxx = t->x[0], mny = t->y[0], mxy = t->y[0];
    for (int i = 1; i < 3; i++) {
        mnx = t->x[i] < mnx ? t->x[i] : mnx;
        mxx = t->x[i] > mxx ? t->x[i] : mxx;
        mny = t->y[i] < mny ? t->y[i] : mny;
        mxy = t->y[i] > mxy ? t->y[i] : mxy;
    }
    if (mxx - mnx <= RASTER32 && mxy - mny <= RASTER32) {
        int32_t px = (rx0 - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
        int32_t py = (ry0 - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
        for (int i = 0; i < 3; i++) {
            int j = i == 2 ? 0 : i + 1;
            int32_t dx = t->x[j] - t->x[i], dy = t->y[j] - t->y[i];
            e_row[i] = dx * (py - t->y[i]) - dy * (px - t->x[i]) + t->bias[i];
            step_x[i] = -dy * CPU_SUBPIXEL;
            step_y[i] = dx * CPU_SUBPIXEL;
        }
        n = 3;
    } else {
        /* Classify each edge over the region's corner pixel centres (64-bit).
           An edge all inside is dropped; a crossing edge is bounded by its
           variation over the tile, small enough for 32-bit steps. */
        int64_t pxa = (int64_t)(rx0 - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
        int64_t pxb = (int64_t)(rx1 - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
        int64_t pya = (int64_t)(ry0 - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
        int64_t pyb = (int64_t)(ry1 - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
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
    }

    const v4i lane = {0, 1, 2, 3};
    const v4f lanef = {0.5f, 1.5f, 2.5f, 3.5f};
    int32_t lx0 = (rx0 - tx0) & ~3, lrx0 = rx0 - tx0, lrx1 = rx1 - tx0;
    bool mask = (t->flags & CPU_TRI_MASK) != 0;
    /* the plane and id in locals: the depth and id stores may alias t */
    const float z0 = t->z0, dzdx = t->dzdx, dzdy = t->dzdy, zx0 = t->zx0, zy0 = t->zy0;
    const int32_t id = (int32_t)t->id;
    /* each edge's values at the first step's four centres, stepped by
       adding: the same integers as e_row + step_x * (lane + dx) */
    const v4i first = lane + (lx0 - lrx0);
    const v4i sx0 = (v4i){0, 0, 0, 0} + step_x[0] * 4, sx1 = (v4i){0, 0, 0, 0} + step_x[1] * 4,
              sx2 = (v4i){0, 0, 0, 0} + step_x[2] * 4;
    cpu_tri_ctx tc;
    tc.id = 0;
    for (int32_t y = ry0; y <= ry1; y++) {
        int32_t ly = y - ty0;
        float zb = z0 + dzdy * ((float)y + 0.5f - zy0);
        v4i e0 = e_row[0] + step_x[0] * first, e1 = e_row[1] + step_x[1] * first,
            e2 = e_row[2] + step_x[2] * first;
        for (int32_t lx = lx0; lx <= lrx1; lx += 4, e0 += sx0, e1 += sx1, e2 += sx2) {
            v4i in = (lane + lx >= lrx0) & (lane + lx <= lrx1) & (e0 >= 0) & (e1 >= 0) & (e2 >= 0);
            if (!any4(in)) continue;
            v4f fx = ((float)(tx0 + lx) - zx0) + lanef;
            v4f z = zb + dzdx * fx;
            float *dp = depth + ly * CPU_TILE + lx;
            v4f old;
            memcpy(&old, dp, sizeof old);
            in &= z > old;
            if (!any4(in)) continue;
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
                v4i nid = ((v4i){0, 0, 0, 0} + id) & in;
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
        int32_t tx0 = (int32_t)(tile % p->tiles_x) * CPU_TILE,
                ty0 = (int32_t)(tile / p->tiles_x) * CPU_TILE;
        for (uint32_t k = p->bin_start[tile]; k < p->bin_start[tile + 1]; k++)
            raster_tri(c, &p->tris[p->bin_tris[k]], tx0, ty0, depth, ids);
    }
}

void _oak_cpu_pass_raster(cpu_backend *b, cpu_pass *p) {
    raster_ctx c = {b, p};
    oak_parallel_for(p->tiles_x * p->tiles_y, 1, raster_job, &c);
}
