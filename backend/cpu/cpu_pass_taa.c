/* The taa pass on the CPU backend (docs/SHADING.md "Temporal anti-aliasing"):
 * rows on the job pool, the same arithmetic as shaders/taa.comp.glsl step
 * for step: motion vector, history read bilinearly and clamped to the 3 x 3
 * neighbourhood in YCoCg, blended in 1 / (1 + luma) weighted colour into the
 * other history image, then copied into the frame. */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"
#include "cpu_taa.h"
#include "render/taa.h"

#define TAA_ROWS 8
/* motion's per-triangle records a worker keeps (by id; 136 bytes each, on
   its stack): 1,024 rather than 256 keep a row's thin grass blades for the
   rows under it (the meadow's misses 33% -> 26% of covered pixels) */
#define TRI_MEMO 1024

bool _oak_cpu_taa_reference = false;

/* What motion() derives from a pass triangle alone, once rather than at
   every pixel it covers: its object-space corners, the edge functions of
   their clip-space x, y, w, and a posed or OAK_DRAW_PREV_POSE draw's
   previous corners. A worker keeps them by id; the reference makes
   them afresh at each pixel (the same floats either way). */
typedef struct taa_tri {
    uint32_t id; /* pass triangle index + 1; 0 when empty */
    uint32_t src, draw;
    bool prev; /* q holds last frame's corners */
    float Po[3][4], e[3][3], q[3][3];
} taa_tri;

typedef struct taa_ctx {
    cpu_backend *b;
    const oak_render_view *v;
    const float *src; /* the history read (image parity) */
    float *dst;       /* the one written */
    float *ycocg;     /* the frame's weighed YCoCg, 3 planes (the clamp's 3 x 3 reads) */
    float *up;        /* upsampling: the output-sized frame the copy writes (else NULL) */
    /* upsampling: per render pixel its weighed colour and its motion (x, y,
       1 when valid), made once (four or more output pixels read each): 3
       planes each */
    float *wrgb, *mot;
    /* upsampling: per render pixel its 3 x 3 box (lo, hi, mean: 9 planes),
       made once rather than for each output pixel that falls in it; per
       output column its render column (as a float) and its taps' x
       distances, per output row the same in y (4 planes each) */
    float *box, *cols, *rows;
    uint32_t ow, oh; /* the output the pass writes: the render size unless it upsamples */
    bool reset, debug;
    bool ref; /* _oak_cpu_taa_reference: per pixel throughout */
    /* the lanes: their kernels and width, and the output columns [xa, xb)
       whose taps are all inside the render frame across */
    cpu_taa_up_fn up_fn;
    cpu_taa_box_fn box_fn;
    uint32_t lanes, xa, xb;
    cpu_taa_up kin;
} taa_ctx;

static float luma(const float c[3]) {
    return 0.2126f * c[0] + 0.7152f * c[1] + 0.0722f * c[2];
}
static void weigh(const float c[3], float out[3]) {
    float k = 1.0f + luma(c);
    for (int i = 0; i < 3; i++) out[i] = c[i] / k;
}
/* The weighed space holds no negative channel and a luma under 1, but a
   colour rebuilt from a corner of the YCoCg clamp's box may leave it (the
   box's corners are not colours of the neighbourhood), and 1 / (1 - luma)
   would then turn it negative or huge: a black or white speckle wherever
   the neighbourhood's hues differ. So channels are taken at 0 or more and
   1 - luma at 2^-16 or more (the same bits as shaders/taa.comp.glsl). */
static void unweigh(const float t[3], float out[3]) {
    float p[3];
    for (int i = 0; i < 3; i++) p[i] = t[i] > 0 ? t[i] : 0;
    float k = 1.0f - luma(p);
    k = k > 1.0f / 65536.0f ? k : 1.0f / 65536.0f;
    for (int i = 0; i < 3; i++) out[i] = p[i] / k;
}
/* The history's YCoCg point yc pulled toward the neighbourhood's mean until
   it lies in the box [lo, hi]: a point between two colours of the weighed
   space, so still one. A per-channel clamp to the box can leave that space
   at the box's corners (shaders/taa.comp.glsl's clip_box, the same bits). */
static void clip_box(const float lo[3], const float hi[3], const float mean[3], float yc[3]) {
    float d[3], s = 1.0f;
    for (int k = 0; k < 3; k++) {
        d[k] = yc[k] - mean[k];
        float q = s;
        if (d[k] > 0)
            q = (hi[k] - mean[k]) / d[k];
        else if (d[k] < 0)
            q = (lo[k] - mean[k]) / d[k];
        s = q < s ? q : s;
    }
    s = s > 0 ? s : 0;
    for (int k = 0; k < 3; k++) yc[k] = mean[k] + d[k] * s;
}
static void to_ycocg(const float c[3], float y[3]) {
    y[0] = 0.25f * c[0] + 0.5f * c[1] + 0.25f * c[2];
    y[1] = 0.5f * c[0] - 0.5f * c[2];
    y[2] = -0.25f * c[0] + 0.5f * c[1] - 0.25f * c[2];
}
static void from_ycocg(const float y[3], float c[3]) {
    c[0] = y[0] + y[1] - y[2];
    c[1] = y[0] + y[2];
    c[2] = y[0] - y[1] - y[2];
}
static void frame_texel(const cpu_backend *b, uint32_t x, uint32_t y, float c[3]) {
    const float *s = b->color + ((size_t)y * b->width + x) * 3;
    for (int k = 0; k < 3; k++) c[k] = s[k] >= 0 ? (s[k] < 65504.0f ? s[k] : 65504.0f) : 0.0f;
}
/* m p: each row m[0][r] p[0] + m[1][r] p[1] + m[2][r] p[2] + m[3][r] p[3]
   in that order, the four rows at once (the same floats as one by one) */
typedef float taa_v4 __attribute__((vector_size(16)));
static inline void mul4(const mat4 m, const float p[4], float out[4]) {
    taa_v4 c[4], r;
    memcpy(c, m, sizeof c);
    r = c[0] * p[0] + c[1] * p[1] + c[2] * p[2] + c[3] * p[3];
    memcpy(out, &r, sizeof r);
}
static bool to_pixel(const oak_render_view *v, const float c[4], float p[2]) {
    p[0] = p[1] = 0;
    if (!(c[3] > 0)) return false;
    p[0] = (c[0] / c[3] * 0.5f + 0.5f) * (float)v->width;
    p[1] = (0.5f - c[1] / c[3] * 0.5f) * (float)v->height;
    return true;
}
static void cross3(const float a[3], const float b[3], float o[3]) {
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* shaders/taa.comp.glsl's motion() where no triangle covers the pixel:
   the sky's direction, last frame minus now, in pixels */
static bool motion_sky(const taa_ctx *c, uint32_t x, uint32_t y, float m[2]) {
    const oak_render_view *v = c->v;
    m[0] = m[1] = 0;
    float W = (float)v->width, H = (float)v->height;
    float at[2] = {(float)x + 0.5f - v->jitter[0], (float)y + 0.5f - v->jitter[1]};
    float ndc[2] = {at[0] / W * 2.0f - 1.0f, 1.0f - at[1] / H * 2.0f};
    float f4[4] = {ndc[0], ndc[1], 0.5f, 1}, n4[4] = {ndc[0], ndc[1], 1, 1}, far[4], near[4];
    mul4(v->inv_view_proj, f4, far);
    mul4(v->inv_view_proj, n4, near);
    float fp[4], dir[4], cl[4], prev[2];
    for (int k = 0; k < 3; k++) {
        fp[k] = far[k] / far[3];
        dir[k] = fp[k] - near[k] / near[3];
    }
    fp[3] = 1, dir[3] = 0;
    mul4(v->prev_view_proj, dir, cl);
    if (cl[3] == 0) mul4(v->prev_view_proj, fp, cl);
    if (!to_pixel(v, cl, prev)) return false;
    m[0] = prev[0] - at[0], m[1] = prev[1] - at[1];
    return true;
}

/* t's record for pass triangle id: motion()'s per-triangle floats */
static void taa_tri_make(const taa_ctx *c, uint32_t id, taa_tri *t) {
    const oak_render_view *v = c->v;
    const cpu_backend *b = c->b;
    const cpu_pass *p = &b->opaque;
    uint32_t tri = id - 1;
    uint32_t d = t->id ? t->draw : 0; /* neighbours mostly share a draw */
    if (!(t->id && p->tri_base[d] <= tri && tri < p->tri_base[d + 1]))
        d = _oak_cpu_find_draw(p, tri);
    const cpu_draw *cd = &p->draws[d];
    const cpu_mesh *m = &b->meshes[cd->mesh];
    const uint32_t *ix = m->indices + (size_t)(tri - p->tri_base[d]) * 3;
    t->id = id, t->draw = d, t->src = cd->src;
    float rows[3][3];
    for (int k = 0; k < 3; k++) {
        const float *s = m->pos + (size_t)ix[k] * 3;
        float posed[3];
        if (cd->pose) { /* skinned as the vertex stage did (_oak_cpu_tri_ctx) */
            float pr[12];
            _oak_cpu_pose_rows(m, cd->pose, ix[k], pr);
            _oak_pose_apply(pr, s, 1, posed);
            s = posed;
        }
        float w[4], cl[4];
        t->Po[k][0] = s[0], t->Po[k][1] = s[1], t->Po[k][2] = s[2], t->Po[k][3] = 1;
        mul4(v->draws.world[t->src], t->Po[k], w);
        mul4(v->view_proj, w, cl);
        rows[k][0] = cl[0], rows[k][1] = cl[1], rows[k][2] = cl[3];
    }
    cross3(rows[1], rows[2], t->e[0]);
    cross3(rows[2], rows[0], t->e[1]);
    cross3(rows[0], rows[1], t->e[2]);
    t->prev = false;
    if (cd->pose) { /* a posed instance: its vertices at last frame's phase */
        for (int k = 0; k < 3; k++) {
            float pr[12];
            _oak_cpu_pose_rows(m, cd->pose + cd->pose_floats, ix[k], pr);
            _oak_pose_apply(pr, m->pos + (size_t)ix[k] * 3, 1, t->q[k]);
        }
        t->prev = true;
    } else if (v->draws.flags && (v->draws.flags[t->src] & OAK_DRAW_PREV_POSE) && m->has_prev) {
        for (int k = 0; k < 3; k++)
            memcpy(t->q[k], m->prev_pos + (size_t)ix[k] * 3, sizeof t->q[k]);
        t->prev = true;
    }
}

/* shaders/taa.comp.glsl's motion(): where the sampled point was last frame
   minus where it is now, unjittered, in pixels; the covering triangle's
   floats from its record in memo (a worker's, by id), or with memo NULL
   (the reference) from one made for this pixel alone: the same steps on
   the same floats, so the same vector */
static bool motion(const taa_ctx *c, taa_tri *memo, uint32_t x, uint32_t y, float m[2]) {
    const oak_render_view *v = c->v;
    const cpu_backend *b = c->b;
    uint32_t id = b->ids[_oak_cpu_tile_index(&b->opaque, x, y)];
    if (!id) return motion_sky(c, x, y, m);
    m[0] = m[1] = 0;
    float W = (float)v->width, H = (float)v->height;
    float at[2] = {(float)x + 0.5f - v->jitter[0], (float)y + 0.5f - v->jitter[1]};
    float ndc[2] = {at[0] / W * 2.0f - 1.0f, 1.0f - at[1] / H * 2.0f};
    taa_tri own, *t = memo ? &memo[id % TRI_MEMO] : &own;
    if (!memo) own.id = 0;
    if (t->id != id) taa_tri_make(c, id, t);
    uint32_t src = t->src;
    float E[3], S = 0;
    for (int k = 0; k < 3; k++) {
        E[k] = t->e[k][0] * ndc[0] + t->e[k][1] * ndc[1] + t->e[k][2];
        S += E[k];
    }
    if (S == 0) S = 1e-30f;
    float P[4] = {0, 0, 0, 0}, prev[2], now[2];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++) P[j] += E[k] / S * t->Po[k][j];
    float w[4], cl[4];
    mul4(v->draws.world[src], P, w);
    mul4(v->view_proj, w, cl);
    if (!to_pixel(v, cl, now)) return false;
    if (t->prev) {
        P[0] = P[1] = P[2] = 0, P[3] = 0;
        for (int k = 0; k < 3; k++) {
            for (int j = 0; j < 3; j++) P[j] += E[k] / S * t->q[k][j];
            P[3] += E[k] / S;
        }
    }
    mul4(v->draws.prev_world ? v->draws.prev_world[src] : v->draws.world[src], P, w);
    mul4(v->prev_view_proj, w, cl);
    if (!to_pixel(v, cl, prev)) return false;
    m[0] = prev[0] - now[0], m[1] = prev[1] - now[1];
    return true;
}

static void history_at(const taa_ctx *c, float px, float py, float out[4]) {
    int32_t w = (int32_t)c->ow, h = (int32_t)c->oh;
    float qx = px - 0.5f, qy = py - 0.5f;
    float ix = floorf(qx), iy = floorf(qy);
    float fx = qx - ix, fy = qy - iy;
    int32_t x0 = (int32_t)ix, y0 = (int32_t)iy;
    int32_t ax = x0 < 0 ? 0 : x0 > w - 1 ? w - 1 : x0, ay = y0 < 0 ? 0 : y0 > h - 1 ? h - 1 : y0;
    int32_t cx = x0 + 1 < 0 ? 0 : x0 + 1 > w - 1 ? w - 1 : x0 + 1;
    int32_t cy = y0 + 1 < 0 ? 0 : y0 + 1 > h - 1 ? h - 1 : y0 + 1;
    const float *t00 = c->src + ((size_t)ay * w + ax) * 4,
                *t10 = c->src + ((size_t)ay * w + cx) * 4;
    const float *t01 = c->src + ((size_t)cy * w + ax) * 4,
                *t11 = c->src + ((size_t)cy * w + cx) * 4;
    for (int k = 0; k < 4; k++) {
        float top = t00[k] + (t10[k] - t00[k]) * fx, bot = t01[k] + (t11[k] - t01[k]) * fx;
        out[k] = top + (bot - top) * fy;
    }
}

/* The history at (hx, hy) in output pixels, clipped to the neighbourhood's
   box [lo, hi] toward its mean, as a weighed colour in past; returns the
   frames it holds (taa.comp.glsl's one line of the same steps). */
static float history_clipped(const taa_ctx *c, float hx, float hy, const float lo[3],
                             const float hi[3], const float mean[3], float past[3]) {
    float t[4], rgb[3], wt[3], yc[3];
    history_at(c, hx, hy, t);
    for (int k = 0; k < 3; k++) rgb[k] = t[k] > 0 ? t[k] : 0;
    weigh(rgb, wt);
    to_ycocg(wt, yc);
    clip_box(lo, hi, mean, yc);
    from_ycocg(yc, past);
    return t[3];
}

/* shaders/taa.comp.glsl's upsample(): output pixel (ox, oy) gathers the
   render samples of the 3 x 3 around the render pixel it falls in, weighed
   (1 - d^2 / r^2)^2 by their jittered points' distance d in output pixels,
   and blends with the reprojected, clamped history as a running mean
   weighted by the nearest sample's weight. The box and the distances come
   from box_rows and axis_at, the same floats in the same order. */
static void upsample(const taa_ctx *c, uint32_t ox, uint32_t oy, float *dst) {
    const oak_render_view *v = c->v;
    int32_t RW = (int32_t)v->width, RH = (int32_t)v->height;
    float sx = (float)RW / (float)c->ow, sy = (float)RH / (float)c->oh;
    size_t P = (size_t)RW * (size_t)RH;
    float col[4], row[4];
    for (int k = 0; k < 4; k++) col[k] = c->cols[k * c->ow + ox], row[k] = c->rows[k * c->oh + oy];
    int32_t cx = (int32_t)col[0], cy = (int32_t)row[0];
    size_t ci = (size_t)cy * (size_t)RW + (size_t)cx;
    float m[2] = {c->mot[ci], c->mot[P + ci]};
    bool ok = c->mot[2 * P + ci] != 0;
    float sum[3] = {0, 0, 0};
    float wsum = 0, wmax = 0, r2 = (float)(OAK_TAA_UP_RADIUS * OAK_TAA_UP_RADIUS);
    for (int dy = -1; dy <= 1; dy++) {
        int32_t qy = cy + dy;
        if (qy < 0 || qy >= RH) continue;
        float ddy = row[2 + dy];
        for (int dx = -1; dx <= 1; dx++) {
            int32_t qx = cx + dx;
            if (qx < 0 || qx >= RW) continue;
            size_t at = (size_t)qy * (size_t)RW + (size_t)qx;
            float t[3] = {c->wrgb[at], c->wrgb[P + at], c->wrgb[2 * P + at]};
            float ddx = col[2 + dx];
            float u = 1.0f - (ddx * ddx + ddy * ddy) / r2;
            float w = u > 0 ? u * u : 0.0f;
            for (int k = 0; k < 3; k++) sum[k] += t[k] * w;
            wsum += w;
            wmax = w > wmax ? w : wmax;
        }
    }
    float cur[3], past[3];
    if (wsum > 0) {
        for (int k = 0; k < 3; k++) cur[k] = sum[k] / wsum;
    } else {
        for (int k = 0; k < 3; k++) cur[k] = c->wrgb[k * P + ci];
    }
    memcpy(past, cur, sizeof past);
    float hx = (float)ox + 0.5f + m[0] / sx, hy = (float)oy + 0.5f + m[1] / sy;
    float count = 0;
    if (!c->reset && ok && hx >= 0 && hy >= 0 && hx <= (float)c->ow && hy <= (float)c->oh) {
        float box[9];
        for (int k = 0; k < 9; k++) box[k] = c->box[k * P + ci];
        count = history_clipped(c, hx, hy, box, box + 3, box + 6, past);
    }
    float total = count + wmax;
    float a = total > 0 ? wmax / total : 1.0f;
    float outw[3];
    for (int k = 0; k < 3; k++) outw[k] = past[k] + (cur[k] - past[k]) * a;
    unweigh(outw, dst);
    float full = 1.0f / (float)OAK_TAA_WEIGHT;
    dst[3] = total < full ? total : full;
}

/* One output column's (or row's) render pixel, clamped, and its three
   taps' distances to the jittered sample in output pixels: o the output
   index, R and O the render and output sizes, j the jitter on that axis. */
static void axis_at(uint32_t o, int32_t R, uint32_t O, float j, float *out) {
    float s = (float)R / (float)O;
    float r = ((float)o + 0.5f) * s;
    int32_t i = (int32_t)floorf(r);
    i = i < 0 ? 0 : i > R - 1 ? R - 1 : i;
    out[0] = (float)i; /* planes O floats apart */
    for (int d = -1; d <= 1; d++) out[(size_t)(2 + d) * O] = ((float)(i + d) + 0.5f - j - r) / s;
}

/* Each render pixel's 3 x 3 box in the weighed YCoCg: its low and high
   corners and mean over the taps inside the frame. */
static void box_at(const taa_ctx *c, int32_t x, uint32_t y) {
    int32_t RW = (int32_t)c->v->width, RH = (int32_t)c->v->height;
    size_t P = (size_t)RW * (size_t)RH;
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    float ysum[3] = {0, 0, 0}, taps = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int32_t qx = x + dx, qy = (int32_t)y + dy;
            if (qx < 0 || qy < 0 || qx >= RW || qy >= RH) continue;
            size_t at = (size_t)qy * (size_t)RW + (size_t)qx;
            for (int k = 0; k < 3; k++) {
                float yc = c->ycocg[k * P + at];
                lo[k] = yc < lo[k] ? yc : lo[k];
                hi[k] = yc > hi[k] ? yc : hi[k];
                ysum[k] += yc;
            }
            taps += 1.0f;
        }
    size_t at = (size_t)y * (size_t)RW + (size_t)x;
    for (int k = 0; k < 3; k++) {
        c->box[k * P + at] = lo[k];
        c->box[(3 + k) * P + at] = hi[k];
        c->box[(6 + k) * P + at] = ysum[k] / taps;
    }
}

/* The boxes of rows [begin, end): the frame's edge pixels per pixel, the
   rest in lanes (box_at's floats) unless the reference is asked for. */
static void box_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const taa_ctx *c = user;
    int32_t RW = (int32_t)c->v->width, RH = (int32_t)c->v->height;
    bool lanes = !c->ref && RW - 2 >= (int32_t)c->lanes;
    for (uint32_t y = begin; y < end; y++) {
        if (!lanes || y == 0 || (int32_t)y == RH - 1) {
            for (int32_t x = 0; x < RW; x++) box_at(c, x, y);
            continue;
        }
        box_at(c, 0, y);
        c->box_fn(c->ycocg, c->box, RW, RH, y, 1, (uint32_t)RW - 1);
        box_at(c, RW - 1, y);
    }
}

/* Output rows [begin, end): the columns whose taps cross the render
   frame's edge per pixel, the rest in lanes (upsample's floats) unless the
   reference is asked for. */
static void up_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const taa_ctx *c = user;
    bool lanes = !c->ref && c->xb >= c->xa + c->lanes;
    uint32_t xa = lanes ? c->xa : c->ow, xb = lanes ? c->xb : c->ow;
    float *f = c->kin.frame;
    for (uint32_t y = begin; y < end; y++) {
        for (uint32_t x = 0; x < c->ow; x++) {
            if (x == xa && lanes) {
                c->up_fn(&c->kin, y, xa, xb);
                x = xb - 1;
                continue;
            }
            size_t i = (size_t)y * c->ow + x;
            upsample(c, x, y, c->dst + i * 4);
            if (f) memcpy(f + i * 3, c->dst + i * 4, sizeof(float) * 3);
        }
    }
}

static void taa_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const taa_ctx *c = user;
    const cpu_backend *b = c->b;
    uint32_t W = c->v->width, H = c->v->height;
    size_t P = (size_t)W * H;
    taa_tri memo[TRI_MEMO];
    for (int k = 0; k < TRI_MEMO; k++) memo[k].id = 0;
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < W; x++) {
            float *dst = c->dst + ((size_t)y * W + x) * 4;
            float m[2];
            bool ok = motion(c, c->ref ? NULL : memo, x, y, m);
            if (c->debug && c->v->post.channel == OAK_CHANNEL_MOTION) { /* pixels, z valid */
                dst[0] = ok ? m[0] : 0, dst[1] = ok ? m[1] : 0;
                dst[2] = ok ? 1.0f : 0.0f;
                dst[3] = 0;
                continue;
            }
            if (c->debug) {
                for (int k = 0; k < 2; k++) {
                    float s = 0.5f + m[k] / (2.0f * (float)OAK_TAA_MOTION_VIEW);
                    dst[k] = ok ? (s < 0 ? 0 : s > 1 ? 1 : s) : 0.5f;
                }
                dst[2] = ok ? 0.5f : 0.0f;
                dst[3] = 0;
                continue;
            }
            float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
            float ysum[3] = {0, 0, 0};
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int32_t qx = (int32_t)x + dx, qy = (int32_t)y + dy;
                    qx = qx < 0 ? 0 : qx > (int32_t)W - 1 ? (int32_t)W - 1 : qx;
                    qy = qy < 0 ? 0 : qy > (int32_t)H - 1 ? (int32_t)H - 1 : qy;
                    size_t at = (size_t)qy * W + (size_t)qx;
                    for (int k = 0; k < 3; k++) {
                        float yc = c->ycocg[k * P + at];
                        lo[k] = yc < lo[k] ? yc : lo[k];
                        hi[k] = yc > hi[k] ? yc : hi[k];
                        ysum[k] += yc;
                    }
                }
            float f[3], cur[3], past[3];
            frame_texel(b, x, y, f);
            weigh(f, cur);
            memcpy(past, cur, sizeof past);
            float hx = (float)x + 0.5f + m[0], hy = (float)y + 0.5f + m[1];
            float count = 0;
            if (!c->reset && ok && hx >= 0 && hy >= 0 && hx <= (float)W && hy <= (float)H) {
                float mean[3] = {ysum[0] / 9.0f, ysum[1] / 9.0f, ysum[2] / 9.0f};
                count = history_clipped(c, hx, hy, lo, hi, mean, past);
            }
            /* a running mean until the history holds 1 / OAK_TAA_WEIGHT frames */
            float a = 1.0f / (count + 1.0f);
            if (a < (float)OAK_TAA_WEIGHT) a = (float)OAK_TAA_WEIGHT;
            float outw[3];
            for (int k = 0; k < 3; k++) outw[k] = past[k] + (cur[k] - past[k]) * a;
            unweigh(outw, dst);
            float full = 1.0f / (float)OAK_TAA_WEIGHT;
            dst[3] = count + 1.0f < full ? count + 1.0f : full;
        }
}

/* Upsampling: each render pixel's weighed colour and motion once. */
static void prep_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const taa_ctx *c = user;
    uint32_t W = c->v->width;
    size_t P = (size_t)W * c->v->height;
    taa_tri memo[TRI_MEMO];
    for (int k = 0; k < TRI_MEMO; k++) memo[k].id = 0;
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < W; x++) {
            size_t i = (size_t)y * W + x;
            float f[3], wt[3], m[2];
            frame_texel(c->b, x, y, f);
            weigh(f, wt);
            bool ok = motion(c, c->ref ? NULL : memo, x, y, m);
            for (int k = 0; k < 3; k++) c->wrgb[k * P + i] = wt[k];
            c->mot[i] = m[0], c->mot[P + i] = m[1], c->mot[2 * P + i] = ok ? 1.0f : 0.0f;
            if (!c->ref) { /* ycocg_rows's floats, from the same weighed colour */
                float yc[3];
                to_ycocg(wt, yc);
                for (int k = 0; k < 3; k++) c->ycocg[k * P + i] = yc[k];
            }
        }
}

/* Each pixel's weighed YCoCg once (the clamp reads it nine times), the same
   floats the per-read conversion gave. */
static void ycocg_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const taa_ctx *c = user;
    uint32_t W = c->v->width;
    size_t P = (size_t)W * c->v->height;
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < W; x++) {
            float f[3], wt[3], yc[3];
            frame_texel(c->b, x, y, f);
            weigh(f, wt);
            to_ycocg(wt, yc);
            for (int k = 0; k < 3; k++) c->ycocg[k * P + (size_t)y * W + x] = yc[k];
        }
}

static void copy_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const taa_ctx *c = user;
    uint32_t W = c->ow, H = c->oh;
    float *to = c->up ? c->up : c->b->color;
    float s = c->v->post.taa_sharpen;
    if (!(s > 0)) {
        for (size_t i = (size_t)begin * W; i < (size_t)end * W; i++)
            for (int k = 0; k < 3; k++) to[i * 3 + k] = c->dst[i * 4 + k];
        return;
    }
    /* the sharpen (shaders/taa.comp.glsl step 1): 5-tap unsharp, clamped to
       the taps' range */
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < W; x++) {
            const float *h = c->dst;
            size_t i = (size_t)y * W + x;
            const float *t0 = h + ((size_t)y * W + (x ? x - 1 : 0)) * 4;
            const float *t1 = h + ((size_t)y * W + (x + 1 < W ? x + 1 : W - 1)) * 4;
            const float *t2 = h + ((size_t)(y ? y - 1 : 0) * W + x) * 4;
            const float *t3 = h + ((size_t)(y + 1 < H ? y + 1 : H - 1) * W + x) * 4;
            for (int k = 0; k < 3; k++) {
                float v = h[i * 4 + k];
                float lo = fminf(fminf(fminf(t0[k], t1[k]), fminf(t2[k], t3[k])), v);
                float hi = fmaxf(fmaxf(fmaxf(t0[k], t1[k]), fmaxf(t2[k], t3[k])), v);
                float d = v * 4.0f - ((t0[k] + t1[k]) + (t2[k] + t3[k]));
                float o = v + d * (s * 0.25f);
                to[i * 3 + k] = o < lo ? lo : o > hi ? hi : o;
            }
        }
}

/* The kernels at the width cpu_isa.c chose (all three give the same bytes) */
static void pick_lanes(taa_ctx *c) {
    const char *isa = _oak_cpu_isa_name();
    if (!strcmp(isa, "avx2"))
        c->up_fn = _oak_cpu_taa_up_avx2, c->box_fn = _oak_cpu_taa_box_avx2, c->lanes = 8;
    else if (!strcmp(isa, "sse4"))
        c->up_fn = _oak_cpu_taa_up_sse4, c->box_fn = _oak_cpu_taa_box_sse4, c->lanes = 4;
    else
        c->up_fn = _oak_cpu_taa_up_scalar, c->box_fn = _oak_cpu_taa_box_scalar, c->lanes = 1;
}

oak_result _oak_cpu_run_taa(cpu_backend *b, const oak_render_view *v) {
    uint32_t ow, oh;
    _oak_taa_out_size(v, &ow, &oh);
    bool up = ow != v->width || oh != v->height;
    if (up && b->color_up_cap < (size_t)ow * oh * 3) { /* the output-sized frame */
        float *p = oak_realloc(b->color_up, (size_t)ow * oh * 3 * sizeof(float));
        if (!p) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: taa output");
        b->color_up = p, b->color_up_cap = (size_t)ow * oh * 3;
        /* 11 MB at 1280 x 720, written here and read by post: on huge
           pages like the arrays of grass44 (a hint: no value changes) */
        _oak_cpu_huge_pages(b, p, b->color_up_cap * sizeof(float));
    }
    /* the two histories (output-sized), then the YCoCg plane (render-sized),
       then when upsampling the weighed colour and motion planes, the boxes
       (three planes' worth) and the output's columns and rows */
    uint64_t hist = _oak_taa_texels(ow, oh) * 4, plane = (uint64_t)v->width * v->height * 3;
    uint64_t need = hist + plane * (up ? 6 : 1) + (up ? ((uint64_t)ow + oh) * 4 : 0);
    bool fresh = b->taa_cap < need;
    if (fresh) {
        float *p = oak_realloc(b->taa, (size_t)need * sizeof(float));
        if (!p) return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: taa history");
        b->taa = p;
        b->taa_cap = need;
        /* the two histories and the planes, 46 MB at 1280 x 720 from
           640 x 360, each walked once a frame: on 4 KiB pages the
           upsampling's history reads and writes missed the TLB
           (docs/PERFORMANCE.md, cmeadow45). A hint: no value changes. */
        _oak_cpu_huge_pages(b, p, (size_t)need * sizeof(float));
    }
    size_t n = (size_t)ow * oh * 4;
    uint32_t parity = (uint32_t)(v->frame & 1);
    taa_ctx c = {.b = b,
                 .v = v,
                 .src = b->taa + parity * n,
                 .dst = b->taa + (1 - parity) * n,
                 .ycocg = b->taa + hist,
                 .up = up ? b->color_up : NULL,
                 .wrgb = b->taa + hist + plane,
                 .mot = b->taa + hist + 2 * plane,
                 .box = b->taa + hist + 3 * plane,
                 .cols = b->taa + hist + 6 * plane,
                 .rows = b->taa + hist + 6 * plane + (size_t)ow * 4,
                 .ow = ow,
                 .oh = oh,
                 .reset = v->taa_reset || fresh,
                 .debug = v->post.debug == OAK_DEBUG_MOTION,
                 .ref = _oak_cpu_taa_reference};
    pick_lanes(&c);
    /* upsampling makes the YCoCg plane with the weighed colour (prep_rows)
       unless the reference is asked for */
    if ((!c.debug || up) && (!up || c.ref)) oak_parallel_for(v->height, TAA_ROWS, ycocg_rows, &c);
    if (up) {
        for (uint32_t x = 0; x < ow; x++)
            axis_at(x, (int32_t)v->width, ow, v->jitter[0], c.cols + x);
        for (uint32_t y = 0; y < oh; y++)
            axis_at(y, (int32_t)v->height, oh, v->jitter[1], c.rows + y);
        /* the columns whose render column has both neighbours in the frame */
        c.xa = 0, c.xb = ow;
        while (c.xa < ow && c.cols[c.xa] < 1.0f) c.xa++;
        while (c.xb > c.xa && c.cols[c.xb - 1] > (float)v->width - 2.0f) c.xb--;
        c.kin = (cpu_taa_up){.src = c.src,
                             .dst = c.dst,
                             .wrgb = c.wrgb,
                             .mot = c.mot,
                             .box = c.box,
                             .cols = c.cols,
                             .rows = c.rows,
                             .rw = (int32_t)v->width,
                             .rh = (int32_t)v->height,
                             .ow = ow,
                             .oh = oh,
                             .reset = c.reset};
        /* without the sharpen the pixels go to the frame as they are made
           (copy_rows's copy, one pass over the output fewer) */
        if (!c.ref && !(v->post.taa_sharpen > 0)) c.kin.frame = c.up;
        oak_parallel_for(v->height, TAA_ROWS, prep_rows, &c);
        oak_parallel_for(v->height, TAA_ROWS, box_rows, &c);
    }
    oak_parallel_for(up ? oh : v->height, TAA_ROWS, up ? up_rows : taa_rows, &c);
    if (!c.kin.frame) oak_parallel_for(oh, TAA_ROWS, copy_rows, &c);
    return OAK_OK;
}
