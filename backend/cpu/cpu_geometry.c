/* The front of a pass: vertices to clip space, triangles clipped (near plane
 * and a guard band), snapped to 1/16 px, culled and set up, then binned into
 * 64x64 tiles. Set-up runs in fixed chunks whose outputs are merged in chunk
 * order, so every tile's list is in draw and triangle order for any thread
 * count. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cpu_internal.h"

uint32_t _oak_cpu_find_draw(const cpu_pass *p, uint32_t tri) {
    uint32_t lo = 0, hi = p->draw_count; /* tri_base[lo] <= tri < tri_base[hi] */
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (p->tri_base[mid] <= tri)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint32_t find_vertex_draw(const cpu_pass *p, uint32_t v) {
    uint32_t lo = 0, hi = p->draw_count;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (p->vtx_base[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

typedef struct geo_ctx {
    cpu_backend *b;
    cpu_pass *p;
    float kx, ky;      /* guard band as multiples of w */
    atomic_int failed; /* out of memory in a job (errors are per thread) */
    int32_t cover_max; /* CPU_COVER_MAX, 0 under $OAK_CPU_NO_COVER */
} geo_ctx;

/* Outcode bits 0-5: outside x-, x+, y-, y+, far, near (a triangle with all
   three vertices past one of them is dropped); 6-9: outside the guard band.
   Near and guard bits mean the triangle must be clipped. */
#define CLIP_BITS 0x3e0u
static uint32_t outcode(const geo_ctx *g, const float *v) {
    float x = v[0], y = v[1], z = v[2], w = v[3];
    if (!(w == w && x == x && y == y && z == z)) return 0x3f; /* NaN: dropped */
    /* w <= 0 never projects: treat it as in front of the near plane, which
       clipping removes (for oak's projections such a point has z > w anyway) */
    return (uint32_t)(w <= 0) << 5 | (uint32_t)(x < -w) | (uint32_t)(x > w) << 1 |
           (uint32_t)(y < -w) << 2 | (uint32_t)(y > w) << 3 | (uint32_t)(z < 0) << 4 |
           (uint32_t)(z > w) << 5 | (uint32_t)(x < -g->kx * w) << 6 |
           (uint32_t)(x > g->kx * w) << 7 | (uint32_t)(y < -g->ky * w) << 8 |
           (uint32_t)(y > g->ky * w) << 9;
}

/* Clip space to 1/16 px relative to the target's centre, and z/w. False
   when the point lands outside the guard band after all (rounding at the
   band's edge, or extreme inputs), so the caller drops its triangle. */
#define SNAP_LIMIT (CPU_GUARD_PX * CPU_SUBPIXEL * 1.01f)
static bool project(const cpu_pass *p, const float *c, int32_t *X, int32_t *Y, float *Z) {
    float iw = 1.0f / c[3];
    float sx = (c[0] * iw * 0.5f + 0.5f) * (float)p->width + p->jitter[0];
    float ny = c[1] * iw * 0.5f;
    float sy = (p->flip_y ? 0.5f - ny : 0.5f + ny) * (float)p->height + p->jitter[1];
    float fx = (sx - (float)p->cx) * CPU_SUBPIXEL, fy = (sy - (float)p->cy) * CPU_SUBPIXEL;
    if (!(fabsf(fx) <= SNAP_LIMIT && fabsf(fy) <= SNAP_LIMIT)) return false; /* NaN too */
    *X = (int32_t)lrintf(fx);
    *Y = (int32_t)lrintf(fy);
    *Z = c[2] * iw;
    return true;
}

/* One vertex: clip position, outcode and (unclipped) its snapped point. */
static void vertex_one(const geo_ctx *g, cpu_pass *p, const cpu_draw *dr, const cpu_mesh *m,
                       uint32_t v, uint32_t vb) {
    const float(*M)[4] = (const float(*)[4])dr->mvp;
    const float *s = m->pos + (size_t)(v - vb) * 3;
    float posed[3];
    if (dr->pose) { /* skinned from the instance's palette (frame memory) */
        float rows[12];
        _oak_cpu_pose_rows(m, dr->pose, v - vb, rows);
        _oak_pose_apply(rows, s, 1, posed);
        s = posed;
    }
    float *o = p->clip + (size_t)v * 4;
    for (int r = 0; r < 4; r++) o[r] = M[0][r] * s[0] + M[1][r] * s[1] + M[2][r] * s[2] + M[3][r];
    cpu_svert *sv = &p->svert[v];
    sv->code = outcode(g, o);
    if (!(sv->code & CLIP_BITS) && !project(p, o, &sv->x, &sv->y, &sv->z))
        sv->code = 0x3f; /* unprojectable: its triangles are dropped */
}

#ifdef __SSE2__
/* Four vertices of a rigid draw at once: vertex_one's operations in its
   order on each lane (no fused multiply-add: the build has none), so the
   clip positions, outcodes and snapped points are the same bits. lrintf is
   cvtss2si in the current rounding mode, as cvtps2dq is. A lane that needs
   clipping or is unprojectable gets its x, y, z computed anyway: they are
   read only when a triangle's vertices have no CLIP_BITS. */
typedef struct vertex_lanes {
    __m128 M[4][4]; /* M[c][r] broadcast */
    __m128 w, h, jx, jy, cx, cy, kx, ky, nkx, nky;
    bool flip;
} vertex_lanes;

static void vertex_lanes_init(vertex_lanes *L, const geo_ctx *g, const cpu_pass *p,
                              const cpu_draw *dr) {
    const float(*M)[4] = (const float(*)[4])dr->mvp;
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) L->M[c][r] = _mm_set1_ps(M[c][r]);
    L->w = _mm_set1_ps((float)p->width);
    L->h = _mm_set1_ps((float)p->height);
    L->jx = _mm_set1_ps(p->jitter[0]);
    L->jy = _mm_set1_ps(p->jitter[1]);
    L->cx = _mm_set1_ps((float)p->cx);
    L->cy = _mm_set1_ps((float)p->cy);
    L->kx = _mm_set1_ps(g->kx);
    L->ky = _mm_set1_ps(g->ky);
    L->nkx = _mm_set1_ps(-g->kx);
    L->nky = _mm_set1_ps(-g->ky);
    L->flip = p->flip_y;
}

/* mask's lanes from b, the others from a (SSE2: every x86-64 build) */
static inline __m128i lane_pick(__m128i a, __m128i b, __m128i mask) {
    return _mm_or_si128(_mm_and_si128(mask, b), _mm_andnot_si128(mask, a));
}

static inline __m128i lane_bit(__m128 m, uint32_t bit) {
    return _mm_and_si128(_mm_castps_si128(m), _mm_set1_epi32((int)bit));
}

static void vertex_four(const vertex_lanes *L, cpu_pass *p, const float *s, uint32_t v) {
    __m128 x = _mm_set_ps(s[9], s[6], s[3], s[0]);
    __m128 y = _mm_set_ps(s[10], s[7], s[4], s[1]);
    __m128 z = _mm_set_ps(s[11], s[8], s[5], s[2]);
    __m128 o[4];
    for (int r = 0; r < 4; r++)
        o[r] =
            _mm_add_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(L->M[0][r], x), _mm_mul_ps(L->M[1][r], y)),
                                  _mm_mul_ps(L->M[2][r], z)),
                       L->M[3][r]);
    __m128 cx = o[0], cy = o[1], cz = o[2], cw = o[3];
    /* outcode */
    const __m128 zero = _mm_setzero_ps();
    __m128 nw = _mm_xor_ps(cw, _mm_set1_ps(-0.0f)); /* -w, as the scalar negates */
    __m128i code =
        _mm_or_si128(lane_bit(_mm_cmple_ps(cw, zero), 1u << 5), lane_bit(_mm_cmplt_ps(cx, nw), 1u));
    code = _mm_or_si128(code, lane_bit(_mm_cmpgt_ps(cx, cw), 1u << 1));
    code = _mm_or_si128(code, lane_bit(_mm_cmplt_ps(cy, nw), 1u << 2));
    code = _mm_or_si128(code, lane_bit(_mm_cmpgt_ps(cy, cw), 1u << 3));
    code = _mm_or_si128(code, lane_bit(_mm_cmplt_ps(cz, zero), 1u << 4));
    code = _mm_or_si128(code, lane_bit(_mm_cmpgt_ps(cz, cw), 1u << 5));
    code = _mm_or_si128(code, lane_bit(_mm_cmplt_ps(cx, _mm_mul_ps(L->nkx, cw)), 1u << 6));
    code = _mm_or_si128(code, lane_bit(_mm_cmpgt_ps(cx, _mm_mul_ps(L->kx, cw)), 1u << 7));
    code = _mm_or_si128(code, lane_bit(_mm_cmplt_ps(cy, _mm_mul_ps(L->nky, cw)), 1u << 8));
    code = _mm_or_si128(code, lane_bit(_mm_cmpgt_ps(cy, _mm_mul_ps(L->ky, cw)), 1u << 9));
    __m128 ord = _mm_and_ps(_mm_cmpord_ps(cw, cx), _mm_cmpord_ps(cy, cz));
    const __m128i k3f = _mm_set1_epi32(0x3f);
    code = lane_pick(k3f, code, _mm_castps_si128(ord)); /* NaN: dropped */
    /* project */
    const __m128 half = _mm_set1_ps(0.5f), sub = _mm_set1_ps((float)CPU_SUBPIXEL);
    __m128 iw = _mm_div_ps(_mm_set1_ps(1.0f), cw);
    __m128 sx =
        _mm_add_ps(_mm_mul_ps(_mm_add_ps(_mm_mul_ps(_mm_mul_ps(cx, iw), half), half), L->w), L->jx);
    __m128 ny = _mm_mul_ps(_mm_mul_ps(cy, iw), half);
    __m128 sy =
        _mm_add_ps(_mm_mul_ps(L->flip ? _mm_sub_ps(half, ny) : _mm_add_ps(half, ny), L->h), L->jy);
    __m128 fx = _mm_mul_ps(_mm_sub_ps(sx, L->cx), sub);
    __m128 fy = _mm_mul_ps(_mm_sub_ps(sy, L->cy), sub);
    const __m128 lim = _mm_set1_ps(SNAP_LIMIT), absm = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    __m128 ok = _mm_and_ps(_mm_cmple_ps(_mm_and_ps(fx, absm), lim),
                           _mm_cmple_ps(_mm_and_ps(fy, absm), lim)); /* NaN too */
    __m128i X = _mm_cvtps_epi32(fx), Y = _mm_cvtps_epi32(fy);
    __m128 Z = _mm_mul_ps(cz, iw);
    /* unclipped and unprojectable: 0x3f */
    __m128i clipped =
        _mm_cmpeq_epi32(_mm_and_si128(code, _mm_set1_epi32((int)CLIP_BITS)), _mm_setzero_si128());
    __m128i bad = _mm_andnot_si128(_mm_castps_si128(ok), clipped);
    code = lane_pick(code, k3f, bad);
    _MM_TRANSPOSE4_PS(cx, cy, cz, cw);
    float *out = p->clip + (size_t)v * 4;
    _mm_storeu_ps(out, cx);
    _mm_storeu_ps(out + 4, cy);
    _mm_storeu_ps(out + 8, cz);
    _mm_storeu_ps(out + 12, cw);
    __m128 a = _mm_castsi128_ps(X), b = _mm_castsi128_ps(Y), c = Z, d = _mm_castsi128_ps(code);
    _MM_TRANSPOSE4_PS(a, b, c, d);
    float *sv = (float *)&p->svert[v];
    _mm_storeu_ps(sv, a);
    _mm_storeu_ps(sv + 4, b);
    _mm_storeu_ps(sv + 8, c);
    _mm_storeu_ps(sv + 12, d);
}
#endif

static void vertex_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    geo_ctx *g = user;
    cpu_pass *p = g->p;
    uint32_t d = find_vertex_draw(p, begin);
    while (begin < end) {
        while (p->vtx_base[d + 1] <= begin) d++;
        const cpu_draw *dr = &p->draws[d];
        const cpu_mesh *m = &g->b->meshes[dr->mesh];
        uint32_t vb = p->vtx_base[d];
        uint32_t stop = p->vtx_base[d + 1] < end ? p->vtx_base[d + 1] : end;
        /* a draw culled by meshlets: a vertex only culled meshlets use is
           never read */
        const uint8_t *need = p->ml_on && p->ml_base[d] != UINT32_MAX ? p->vneed : NULL;
        uint32_t v = begin;
#ifdef __SSE2__
        if (!dr->pose && !g->b->scalar_vertex && stop - begin >= 4) {
            vertex_lanes L;
            vertex_lanes_init(&L, g, p, dr);
            for (; v + 4 <= stop; v += 4) {
                /* four unneeded: skipped; else all four made (an unneeded
                   one is made for nothing and read by no triangle) */
                if (need && !(need[v] | need[v + 1] | need[v + 2] | need[v + 3])) continue;
                vertex_four(&L, p, m->pos + (size_t)(v - vb) * 3, v);
            }
        }
#endif
        for (; v < stop; v++) {
            if (need && !need[v]) continue;
            vertex_one(g, p, dr, m, v, vb);
        }
        begin = stop;
    }
}

/* Sutherland-Hodgman against plane . (x,y,z,w) >= 0. */
static int clip_plane(float in[][4], int n, float out[][4], const float pl[4]) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        const float *a = in[i], *c = in[(i + 1) % n];
        float da = pl[0] * a[0] + pl[1] * a[1] + pl[2] * a[2] + pl[3] * a[3];
        float dc = pl[0] * c[0] + pl[1] * c[1] + pl[2] * c[2] + pl[3] * c[3];
        if (da >= 0) memcpy(out[k++], a, sizeof(float) * 4);
        if ((da >= 0) != (dc >= 0)) {
            float t = da / (da - dc);
            for (int j = 0; j < 4; j++) out[k][j] = a[j] + (c[j] - a[j]) * t;
            k++;
        }
    }
    return k;
}

static int64_t edge_at(int32_t xa, int32_t ya, int32_t xb, int32_t yb, int64_t px, int64_t py) {
    return (int64_t)(xb - xa) * (py - ya) - (int64_t)(yb - ya) * (px - xa);
}

static inline int32_t floor16(int32_t v) {
    return v >> 4;
} /* arithmetic shift */
static inline int32_t ceil16(int32_t v) {
    return -((-v) >> 4);
}

/* Set-up tests a triangle's pixel centres one by one when its bounds hold
   at most this many: enough for the far grass blades, whose thin slivers
   lie round a centre or two and cover none (docs/PERFORMANCE.md, grass43). */
#define CPU_COVER_MAX 16

/* Whether the raster (cpu_raster.c) would find a pixel centre of [minx,
   maxx] x [miny, maxy] inside the triangle of positive area X, Y: its edge
   functions, top-left bias and all, at its centres (i - cx) * 16 + 8, so
   exactly its coverage before the depth and alpha tests, which only take
   pixels away. The jitter is in the snapped points already. */
static bool covers_centre(const cpu_pass *p, const int32_t X[3], const int32_t Y[3], int32_t minx,
                          int32_t maxx, int32_t miny, int32_t maxy) {
    int64_t px0 = (int64_t)(minx - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int64_t py0 = (int64_t)(miny - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int64_t row[3], sx[3], sy[3];
    for (int i = 0; i < 3; i++) {
        int j = i == 2 ? 0 : i + 1;
        int32_t dx = X[j] - X[i], dy = Y[j] - Y[i];
        int64_t bias = (dy < 0 || (dy == 0 && dx > 0)) ? 0 : -1; /* emit's, the raster's */
        row[i] = edge_at(X[i], Y[i], X[j], Y[j], px0, py0) + bias;
        sx[i] = -(int64_t)dy * CPU_SUBPIXEL;
        sy[i] = (int64_t)dx * CPU_SUBPIXEL;
    }
    for (int32_t y = miny; y <= maxy; y++) {
        int64_t e0 = row[0], e1 = row[1], e2 = row[2];
        for (int32_t x = minx; x <= maxx; x++) {
            if ((e0 | e1 | e2) >= 0) return true; /* all three signs clear */
            e0 += sx[0], e1 += sx[1], e2 += sx[2];
        }
        row[0] += sy[0], row[1] += sy[1], row[2] += sy[2];
    }
    return false;
}

/* covers_centre in 32 bits, for a triangle whose snapped bounds span at
   most COVER32 sub-pixels a side: every centre tested lies in those
   bounds, so each product is under 2^22 and each edge value the 64-bit
   one's exactly. (Four centres at a time in SSE2 lanes cost more than
   this: most triangles here hold one to three centres.) */
#define COVER32 2048
static inline __attribute__((always_inline)) bool
covers_centre32(const cpu_pass *p, const int32_t X[3], const int32_t Y[3], int32_t minx,
                int32_t maxx, int32_t miny, int32_t maxy) {
    int32_t px0 = (minx - p->cx) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int32_t py0 = (miny - p->cy) * CPU_SUBPIXEL + CPU_SUBPIXEL / 2;
    int32_t row[3], sx[3], sy[3];
    for (int i = 0; i < 3; i++) {
        int j = i == 2 ? 0 : i + 1;
        int32_t dx = X[j] - X[i], dy = Y[j] - Y[i];
        int32_t bias = (dy < 0 || (dy == 0 && dx > 0)) ? 0 : -1; /* emit's, the raster's */
        row[i] = dx * (py0 - Y[i]) - dy * (px0 - X[i]) + bias;
        sx[i] = -dy * CPU_SUBPIXEL;
        sy[i] = dx * CPU_SUBPIXEL;
    }
    for (int32_t y = miny; y <= maxy; y++) {
        int32_t e0 = row[0], e1 = row[1], e2 = row[2];
        for (int32_t x = minx; x <= maxx; x++) {
            if ((e0 | e1 | e2) >= 0) return true; /* all three signs clear */
            e0 += sx[0], e1 += sx[1], e2 += sx[2];
        }
        row[0] += sy[0], row[1] += sy[1], row[2] += sy[2];
    }
    return false;
}

/* covers_centre, in 32 bits where the snapped bounds (mnx..mxy) allow */
static inline __attribute__((always_inline)) bool
covers(const cpu_pass *p, const int32_t X[3], const int32_t Y[3], int32_t mnx, int32_t mxx,
       int32_t mny, int32_t mxy, int32_t minx, int32_t maxx, int32_t miny, int32_t maxy) {
    if (mxx - mnx <= COVER32 && mxy - mny <= COVER32)
        return covers_centre32(p, X, Y, minx, maxx, miny, maxy);
    return covers_centre(p, X, Y, minx, maxx, miny, maxy);
}

/* What emit did with a triangle: its twin (cpu_mesh.twin, the same points
   in the other winding) meets the same fate when GONE, and is culled when
   this one was KEPT with back faces culled. */
enum { EMIT_OOM = -1, EMIT_GONE = 0, EMIT_BACK = 1, EMIT_KEPT = 2 };

/* Snaps, culls and sets up one triangle; appends it and its tiles to chunk.
   The tests that only drop it come in any order: none writes anything. */
static inline __attribute__((always_inline)) int emit(geo_ctx *g, cpu_chunk *ch, int32_t X[3],
                                                      int32_t Y[3], float Z[3], uint32_t id,
                                                      bool cull, bool mask) {
    cpu_pass *p = g->p;
    /* the bounds first: most far triangles (grass) cover no pixel centre,
       and either test alone makes a triangle GONE */
    int32_t mnx = X[0], mxx = X[0], mny = Y[0], mxy = Y[0];
    for (int i = 1; i < 3; i++) {
        if (X[i] < mnx) mnx = X[i];
        if (X[i] > mxx) mxx = X[i];
        if (Y[i] < mny) mny = Y[i];
        if (Y[i] > mxy) mxy = Y[i];
    }
    /* pixels whose centre (i - cx) * 16 + 8 lies inside the snapped bounds */
    int32_t minx = p->cx + ceil16(mnx - 8), maxx = p->cx + floor16(mxx - 8);
    int32_t miny = p->cy + ceil16(mny - 8), maxy = p->cy + floor16(mxy - 8);
    if (minx < 0) minx = 0;
    if (miny < 0) miny = 0;
    if (maxx > (int32_t)p->width - 1) maxx = (int32_t)p->width - 1;
    if (maxy > (int32_t)p->height - 1) maxy = (int32_t)p->height - 1;
    if (minx > maxx || miny > maxy) return EMIT_GONE;
    int64_t area = edge_at(X[0], Y[0], X[1], Y[1], X[2], Y[2]);
    if (area == 0) return EMIT_GONE;
    bool back = p->flip_y ? area > 0 : area < 0;
    if (area < 0) { /* one winding for the raster: positive area */
        int32_t t;
        float tz;
        t = X[1], X[1] = X[2], X[2] = t;
        t = Y[1], Y[1] = Y[2], Y[2] = t;
        tz = Z[1], Z[1] = Z[2], Z[2] = tz;
        area = -area;
    }
    /* a small triangle that covers no centre draws nothing: GONE, before
       the facing, so its twin (the same edges reversed: the same
       coverage) is skipped too */
    if ((int64_t)(maxx - minx + 1) * (maxy - miny + 1) <= g->cover_max &&
        !covers(p, X, Y, mnx, mxx, mny, mxy, minx, maxx, miny, maxy)) {
        ch->uncovered++;
        return EMIT_GONE;
    }
    if (cull && back) return EMIT_BACK;

    if (!OAK_GROW(ch->tris, ch->tri_cap, ch->tri_count + 1)) return EMIT_OOM;
    cpu_tri *t = &ch->tris[ch->tri_count];
    for (int i = 0; i < 3; i++) {
        t->x[i] = X[i];
        t->y[i] = Y[i];
        int32_t dx = X[(i + 1) % 3] - X[i], dy = Y[(i + 1) % 3] - Y[i];
        t->bias[i] = (dy < 0 || (dy == 0 && dx > 0)) ? 0 : -1; /* top-left rule */
    }
    t->minx = minx, t->maxx = maxx, t->miny = miny, t->maxy = maxy;
    /* the depth plane from vertex 0 and the other two's differences */
    double dX1 = (X[1] - X[0]) / 16.0, dY1 = (Y[1] - Y[0]) / 16.0;
    double dX2 = (X[2] - X[0]) / 16.0, dY2 = (Y[2] - Y[0]) / 16.0;
    double dz1 = (double)Z[1] - Z[0], dz2 = (double)Z[2] - Z[0];
    double D = (double)area / 256.0;
    t->z0 = Z[0];
    t->dzdx = (float)((dz1 * dY2 - dz2 * dY1) / D);
    t->dzdy = (float)((dX1 * dz2 - dX2 * dz1) / D);
    t->zx0 = (float)(X[0] / 16.0 + p->cx);
    t->zy0 = (float)(Y[0] / 16.0 + p->cy);
    t->id = id;
    t->flags = (mask ? CPU_TRI_MASK : 0) | (back ? CPU_TRI_BACK : 0);

    uint32_t tx0 = (uint32_t)minx / CPU_TILE, tx1 = (uint32_t)maxx / CPU_TILE;
    uint32_t ty0 = (uint32_t)miny / CPU_TILE, ty1 = (uint32_t)maxy / CPU_TILE;
    uint32_t need = ch->bin_count + 2 * (tx1 - tx0 + 1) * (ty1 - ty0 + 1);
    if (!OAK_GROW(ch->bins, ch->bin_cap, need)) return EMIT_OOM;
    for (uint32_t ty = ty0; ty <= ty1; ty++)
        for (uint32_t tx = tx0; tx <= tx1; tx++) {
            ch->bins[ch->bin_count++] = ty * p->tiles_x + tx;
            ch->bins[ch->bin_count++] = ch->tri_count;
        }
    ch->tri_count++;
    return EMIT_KEPT;
}

/* Triangles ahead whose points the set-up asks the caches for: the vertex
   stage wrote them out of the caches (tens of MB a frame on the meadow),
   and a triangle's points are found through its indices, a pattern the
   hardware's prefetch does not follow (docs/PERFORMANCE.md, grass44). */
#define CPU_SETUP_AHEAD 16
static void setup_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    geo_ctx *g = user;
    cpu_pass *p = g->p;
    cpu_chunk *ch = &p->chunks[begin / CPU_SETUP_CHUNK];
    ch->tri_count = ch->bin_count = ch->skipped = ch->uncovered = 0;
    const float planes[5][4] = {
        {0, 0, -1, 1}, {-1, 0, 0, g->kx}, {1, 0, 0, g->kx}, {0, -1, 0, g->ky}, {0, 1, 0, g->ky}};
    uint32_t d = _oak_cpu_find_draw(p, begin);
    /* twins known to be rejected: bit k is triangle at + k */
    uint64_t skip = 0;
    uint32_t at = begin;
    uint32_t t = begin;
    while (t < end) {
        /* one draw's run of the chunk: what its triangles share, read once */
        while (p->tri_base[d + 1] <= t) d++;
        const cpu_draw *dr = &p->draws[d];
        const cpu_mesh *m = &g->b->meshes[dr->mesh];
        const uint32_t tb = p->tri_base[d];
        const uint32_t stop = p->tri_base[d + 1] < end ? p->tri_base[d + 1] : end;
        const uint32_t *indices = m->indices;
        const uint8_t *twins = m->twin;
        const cpu_svert *sv = p->svert + p->vtx_base[d];
        const bool cull = dr->cull, mask = dr->mask;
        /* a meshlet culled (cpu_meshcull.c): its triangles make no pixel;
           a cluster-LOD mesh's levels are mostly culled: its runs skipped
           whole (the loop may step past end: the next chunk starts there) */
        const uint8_t *keep =
            p->ml_on && p->ml_base[d] != UINT32_MAX ? p->ml_keep + p->ml_base[d] : NULL;
        const uint16_t *tri_ml = m->tri_ml;
        const uint32_t *ml_end = m->ml_runs ? m->ml_end : NULL;
        for (; t < stop; t++) {
            if (skip) {
                skip = t - at < 64 ? skip >> (t - at) : 0;
                at = t;
                if (skip & 1) {
                    ch->skipped++;
                    continue;
                }
            }
            uint32_t mt = t - tb; /* the mesh's triangle */
            if (keep) {
                uint32_t k = tri_ml[mt];
                if (!keep[k]) {
                    if (ml_end) t = tb + ml_end[k] - 1;
                    continue;
                }
            }
            const uint32_t *ix = indices + (size_t)mt * 3;
            if (t + CPU_SETUP_AHEAD < stop) { /* the points of a triangle ahead */
                const uint32_t *pf = ix + CPU_SETUP_AHEAD * 3;
                __builtin_prefetch(&sv[pf[0]]);
                __builtin_prefetch(&sv[pf[1]]);
                __builtin_prefetch(&sv[pf[2]]);
            }
            const cpu_svert *s0 = &sv[ix[0]], *s1 = &sv[ix[1]], *s2 = &sv[ix[2]];
            uint32_t all = s0->code & s1->code & s2->code, any = s0->code | s1->code | s2->code;
            uint32_t twin = twins ? twins[mt] : 0;
            int e = EMIT_GONE;
            if (all & 0x3f) {
                /* off one plane: so is its twin */
            } else if (!(any & CLIP_BITS)) {
                int32_t X[3] = {s0->x, s1->x, s2->x}, Y[3] = {s0->y, s1->y, s2->y};
                float Z[3] = {s0->z, s1->z, s2->z};
                e = emit(g, ch, X, Y, Z, t + 1, cull, mask);
            } else {
                twin = 0; /* the clipped polygons of the two windings are not known alike */
                const float *base = p->clip + (size_t)p->vtx_base[d] * 4;
                const float *v[3] = {base + ix[0] * 4, base + ix[1] * 4, base + ix[2] * 4};
                float a[9][4], bb[9][4];
                int n = 3;
                for (int i = 0; i < 3; i++) memcpy(a[i], v[i], sizeof a[i]);
                float(*in)[4] = a, (*out)[4] = bb;
                static const uint32_t bit[5] = {1u << 5, 1u << 6, 1u << 7, 1u << 8, 1u << 9};
                /* the near plane when a vertex is past it; then every guard
                   plane, since points made on the near plane may leave the band
                   even when the original vertices did not say so */
                for (int k = 0; k < 5 && n >= 3; k++) {
                    if (k == 0 && !(any & bit[0])) continue;
                    n = clip_plane(in, n, out, planes[k]);
                    float(*tmp)[4] = in;
                    in = out;
                    out = tmp;
                }
                for (int i = 1; e != EMIT_OOM && i + 1 < n; i++) {
                    int32_t X[3], Y[3];
                    float Z[3];
                    if (project(p, in[0], &X[0], &Y[0], &Z[0]) &&
                        project(p, in[i], &X[1], &Y[1], &Z[1]) &&
                        project(p, in[i + 1], &X[2], &Y[2], &Z[2]))
                        e = emit(g, ch, X, Y, Z, t + 1, cull, mask);
                }
            }
            if (e == EMIT_OOM) { /* out of memory: logged by oak_grow */
                atomic_store(&g->failed, 1);
                return;
            }
            if (twin && (e == EMIT_GONE || (e == EMIT_KEPT && cull))) {
                if (!skip) at = t;
                skip |= 1ull << (t + twin - at);
            }
        }
    }
}

/* ---- the merge of chunk outputs into tile bins ---- */

#define CPU_MERGE_COUNTS_MAX (4u << 20) /* chunk x tile counters before the serial merge */

typedef struct merge_ctx {
    cpu_pass *p;
    uint32_t tiles;
} merge_ctx;

static void merge_count_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    merge_ctx *mc = user;
    cpu_pass *p = mc->p;
    for (uint32_t c = begin; c < end; c++) {
        const cpu_chunk *ch = &p->chunks[c];
        if (ch->tri_count) memcpy(p->tris + ch->base, ch->tris, ch->tri_count * sizeof(cpu_tri));
        uint32_t *cnt = p->counts + (size_t)c * mc->tiles;
        memset(cnt, 0, mc->tiles * sizeof(uint32_t));
        for (uint32_t k = 0; k < ch->bin_count; k += 2) cnt[ch->bins[k]]++;
    }
}

static void merge_total_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    merge_ctx *mc = user;
    cpu_pass *p = mc->p;
    for (uint32_t t = begin; t < end; t++) {
        uint32_t sum = 0;
        for (uint32_t c = 0; c < p->chunk_count; c++) sum += p->counts[(size_t)c * mc->tiles + t];
        p->bin_start[t + 1] = sum;
    }
}

static void merge_offset_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    merge_ctx *mc = user;
    cpu_pass *p = mc->p;
    for (uint32_t t = begin; t < end; t++) {
        uint32_t at = p->bin_start[t];
        for (uint32_t c = 0; c < p->chunk_count; c++) {
            uint32_t *n = &p->counts[(size_t)c * mc->tiles + t];
            uint32_t k = *n;
            *n = at;
            at += k;
        }
    }
}

static void merge_scatter_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    merge_ctx *mc = user;
    cpu_pass *p = mc->p;
    for (uint32_t c = begin; c < end; c++) {
        const cpu_chunk *ch = &p->chunks[c];
        uint32_t *at = p->counts + (size_t)c * mc->tiles;
        for (uint32_t k = 0; k < ch->bin_count; k += 2)
            p->bin_tris[at[ch->bins[k]]++] = ch->base + ch->bins[k + 1];
    }
}

oak_result _oak_cpu_pass_geometry(cpu_backend *b, cpu_pass *p, double *vertex_ms, double *bins_ms) {
    uint64_t t0 = oak_time_ns();
    /* prefix sums of vertices and triangles per draw */
    if (!OAK_GROW(p->vtx_base, p->vtx_base_cap, p->draw_count + 1) ||
        !OAK_GROW(p->tri_base, p->tri_base_cap, p->draw_count + 1))
        return OAK_ERROR_OUT_OF_MEMORY;
    uint64_t nv = 0, nt = 0;
    for (uint32_t i = 0; i < p->draw_count; i++) {
        p->vtx_base[i] = (uint32_t)nv;
        p->tri_base[i] = (uint32_t)nt;
        const cpu_mesh *m = &b->meshes[p->draws[i].mesh];
        nv += m->vertex_count;
        nt += m->index_count / 3;
    }
    if (nv >= UINT32_MAX / 4 || nt >= UINT32_MAX - 1)
        return oak_error(OAK_ERROR_LIMIT, "cpu backend: %llu vertices in one pass",
                         (unsigned long long)nv);
    p->vtx_base[p->draw_count] = (uint32_t)nv;
    p->tri_base[p->draw_count] = (uint32_t)nt;
    p->vertex_count = (uint32_t)nv;
    p->tri_count = (uint32_t)nt;
    const float *clip_was = p->clip;
    const cpu_svert *svert_was = p->svert;
    const uint32_t clip_cap_was = p->clip_cap, svert_cap_was = p->svert_cap;
    if (!OAK_GROW(p->clip, p->clip_cap, p->vertex_count * 4 + 4) ||
        !OAK_GROW(p->svert, p->svert_cap, p->vertex_count + 1))
        return OAK_ERROR_OUT_OF_MEMORY;
    if (p->clip != clip_was || p->clip_cap != clip_cap_was)
        _oak_cpu_huge_pages(b, p->clip, (size_t)p->clip_cap * sizeof *p->clip);
    if (p->svert != svert_was || p->svert_cap != svert_cap_was)
        _oak_cpu_huge_pages(b, p->svert, (size_t)p->svert_cap * sizeof *p->svert);

    oak_result r = _oak_cpu_meshcull_vertices(b, p);
    if (r) return r;
    geo_ctx g = {b, p, CPU_GUARD_PX * 2.0f / (float)p->width,
                 CPU_GUARD_PX * 2.0f / (float)p->height, 0};
    g.cover_max = b->no_cover ? 0 : CPU_COVER_MAX;
    oak_parallel_for(p->vertex_count, CPU_VERTEX_CHUNK, vertex_job, &g);
    uint64_t t1 = oak_time_ns();

    uint32_t chunks = (p->tri_count + CPU_SETUP_CHUNK - 1) / CPU_SETUP_CHUNK;
    if (chunks > p->chunk_cap) {
        uint32_t old = p->chunk_cap;
        if (!OAK_GROW(p->chunks, p->chunk_cap, chunks)) return OAK_ERROR_OUT_OF_MEMORY;
        memset(p->chunks + old, 0, (p->chunk_cap - old) * sizeof(cpu_chunk));
    }
    p->chunk_count = chunks;
    oak_parallel_for(p->tri_count, CPU_SETUP_CHUNK, setup_job, &g);
    if (atomic_load(&g.failed))
        return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: triangle set-up ran out of memory");

    /* merge in chunk order: triangles, then a counting sort of bin entries */
    uint32_t tiles = p->tiles_x * p->tiles_y;
    uint64_t total = 0, entries = 0;
    p->twins_skipped = p->uncovered = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        p->twins_skipped += p->chunks[c].skipped;
        p->uncovered += p->chunks[c].uncovered;
        total += p->chunks[c].tri_count;
        entries += p->chunks[c].bin_count / 2;
    }
    if (total >= UINT32_MAX / 2 || entries >= UINT32_MAX / 2)
        return oak_error(OAK_ERROR_LIMIT, "cpu backend: %llu bin entries in one pass",
                         (unsigned long long)entries);
    if (!OAK_GROW(p->tris, p->tris_cap, (uint32_t)total + 1) ||
        !OAK_GROW(p->bin_tris, p->bin_tris_cap, (uint32_t)entries + 1) ||
        !OAK_GROW(p->bin_start, p->bin_start_cap, tiles + 1))
        return OAK_ERROR_OUT_OF_MEMORY;
    uint32_t base = 0;
    for (uint32_t c = 0; c < chunks; c++) {
        p->chunks[c].base = base;
        base += p->chunks[c].tri_count;
    }
    p->tri_total = base;
    if (!b->serial_merge && (uint64_t)chunks * tiles <= CPU_MERGE_COUNTS_MAX &&
        OAK_GROW(p->counts, p->counts_cap, chunks * tiles + 1)) {
        /* per-chunk tile counts, their offsets per tile in chunk order, then a
           scatter per chunk: the serial merge's order, on the job pool */
        merge_ctx mc = {p, tiles};
        oak_parallel_for(chunks, 1, merge_count_job, &mc);
        oak_parallel_for(tiles, 64, merge_total_job, &mc);
        p->bin_start[0] = 0;
        for (uint32_t t = 0; t < tiles; t++) p->bin_start[t + 1] += p->bin_start[t];
        oak_parallel_for(tiles, 64, merge_offset_job, &mc);
        oak_parallel_for(chunks, 1, merge_scatter_job, &mc);
    } else {
        memset(p->bin_start, 0, (tiles + 1) * sizeof(uint32_t));
        for (uint32_t c = 0; c < chunks; c++) {
            const cpu_chunk *ch = &p->chunks[c];
            if (ch->tri_count)
                memcpy(p->tris + ch->base, ch->tris, ch->tri_count * sizeof(cpu_tri));
            for (uint32_t k = 0; k < ch->bin_count; k += 2) p->bin_start[ch->bins[k] + 1]++;
        }
        for (uint32_t t = 0; t < tiles; t++) p->bin_start[t + 1] += p->bin_start[t];
        /* bin_start[t] is used as tile t's cursor, then shifted back */
        for (uint32_t c = 0; c < chunks; c++) {
            const cpu_chunk *ch = &p->chunks[c];
            for (uint32_t k = 0; k < ch->bin_count; k += 2)
                p->bin_tris[p->bin_start[ch->bins[k]]++] = ch->base + ch->bins[k + 1];
        }
        for (uint32_t t = tiles; t > 0; t--) p->bin_start[t] = p->bin_start[t - 1];
        p->bin_start[0] = 0;
    }
    p->bin_total = (uint32_t)entries;
    uint64_t t2 = oak_time_ns();
    if (vertex_ms) *vertex_ms += (double)(t1 - t0) * 1e-6;
    if (bins_ms) *bins_ms += (double)(t2 - t1) * 1e-6;
    return OAK_OK;
}
