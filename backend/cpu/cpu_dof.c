/* Depth of field on the CPU backend, rows of each step on the job pool, the
 * same arithmetic as shaders/dof.comp.glsl and shaders/common/dof.glsl,
 * operation for operation: the frame prefiltered to half size with the
 * nearest texel's circle of confusion, each tile's near-field reach, the
 * gather (far and focus field, near field over it), then the frame mixed
 * toward the gather in place. */
#include <math.h>
#include <string.h>

#include "cpu_internal.h"
#include "render/dof.h"
#include "render/taa.h"

#define DOF_ROWS 4 /* rows of a step per job */

typedef struct dof_ctx {
    cpu_backend *b;
    const oak_render_view *v;
    oak_dof_layout l;
    uint32_t step;
    float taps[OAK_DOF_TAP_COUNT][4]; /* as the GPUs get them in the view */
} dof_ctx;

static inline int clampi(int v, int lo, int hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

static inline float clampf(float v, float lo, float hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* dof.glsl's oak_dof_clean: NaN and negatives 0, the rest clamped */
static inline float clean(float c) {
    return c >= 0 ? fminf(c, (float)OAK_BLOOM_MAX) : 0.0f;
}

static inline float coc(const oak_render_view *v, float d) {
    return clampf(v->dof[0] + v->dof[1] * d, -v->dof[2], v->dof[2]);
}

/* the depth under picture texel (x, y): under TAA's upsampling the render
   texel it falls in (shaders/common/dof.glsl oak_dof_depth_texel) */
static inline float depth_at(const oak_render_view *v, const cpu_backend *b, uint32_t x,
                             uint32_t y) {
    uint32_t ow, oh;
    _oak_taa_out_size(v, &ow, &oh);
    x = (uint32_t)((uint64_t)x * v->width / ow), y = (uint32_t)((uint64_t)y * v->height / oh);
    return b->depth[_oak_cpu_tile_index(&b->opaque, x, y)];
}

static void prefilter(const dof_ctx *c, uint32_t px, uint32_t py) {
    const cpu_backend *b = c->b;
    uint32_t hx = b->width - 1, hy = b->height - 1;
    uint32_t x0 = px * 2 < hx ? px * 2 : hx, y0 = py * 2 < hy ? py * 2 : hy;
    uint32_t x1 = px * 2 + 1 < hx ? px * 2 + 1 : hx, y1 = py * 2 + 1 < hy ? py * 2 + 1 : hy;
    const float *f = b->color;
    size_t i00 = ((size_t)y0 * b->width + x0) * 3, i10 = ((size_t)y0 * b->width + x1) * 3;
    size_t i01 = ((size_t)y1 * b->width + x0) * 3, i11 = ((size_t)y1 * b->width + x1) * 3;
    float *o = b->dof + ((size_t)py * c->l.hw + px) * 4;
    for (int k = 0; k < 3; k++)
        o[k] = ((clean(f[i00 + k]) + clean(f[i10 + k])) + (clean(f[i01 + k]) + clean(f[i11 + k]))) *
               0.25f;
    float k00 = coc(c->v, depth_at(c->v, b, x0, y0)), k10 = coc(c->v, depth_at(c->v, b, x1, y0));
    float k01 = coc(c->v, depth_at(c->v, b, x0, y1)), k11 = coc(c->v, depth_at(c->v, b, x1, y1));
    o[3] = fminf(fminf(k00, k10), fminf(k01, k11));
}

static void tile(const dof_ctx *c, uint32_t tx, uint32_t ty) {
    const oak_dof_layout *l = &c->l;
    uint32_t x1 = (tx + 1) * OAK_DOF_TILE, y1 = (ty + 1) * OAK_DOF_TILE;
    x1 = x1 < l->hw ? x1 : l->hw, y1 = y1 < l->hh ? y1 : l->hh;
    float m = 0;
    for (uint32_t y = ty * OAK_DOF_TILE; y < y1; y++)
        for (uint32_t x = tx * OAK_DOF_TILE; x < x1; x++) {
            float n = -c->b->dof[((size_t)y * l->hw + x) * 4 + 3];
            m = n > m ? n : m;
        }
    float *o = c->b->dof + (l->tiles + (size_t)ty * l->tw + tx) * 4;
    o[0] = m, o[1] = o[2] = o[3] = 0;
}

static void gather(const dof_ctx *c, uint32_t px, uint32_t py) {
    const oak_dof_layout *l = &c->l;
    const float *H = c->b->dof;
    const float *s0 = H + ((size_t)py * l->hw + px) * 4;
    float cc = s0[3], rc = fabsf(cc);
    int tx = (int)(px / OAK_DOF_TILE), ty = (int)(py / OAK_DOF_TILE);
    float near = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int ux = clampi(tx + dx, 0, (int)l->tw - 1), uy = clampi(ty + dy, 0, (int)l->th - 1);
            float n = H[(l->tiles + (size_t)uy * l->tw + (size_t)ux) * 4];
            near = n > near ? n : near;
        }
    float R = fminf(rc > near ? rc : near, c->v->dof[2]);
    float *o = c->b->dof + (l->gathered + (size_t)py * l->hw + px) * 4;
    if (R < 0.5f) {
        o[0] = s0[0], o[1] = s0[1], o[2] = s0[2], o[3] = 0;
        return;
    }
    float far_acc[3] = {0, 0, 0}, near_acc[3] = {0, 0, 0}, far_w = 0, near_w = 0;
    float area = R * R / (float)(OAK_DOF_TAP_COUNT + 1);
    if (cc < 0) {
        float w = area / fmaxf(cc * cc, 1.0f);
        for (int k = 0; k < 3; k++) near_acc[k] = s0[k] * w;
        near_w = w;
    } else {
        for (int k = 0; k < 3; k++) far_acc[k] = s0[k];
        far_w = 1;
    }
    int hx = (int)l->hw - 1, hy = (int)l->hh - 1;
    for (int i = 0; i < OAK_DOF_TAP_COUNT; i++) {
        const float *t = c->taps[i];
        int ox = (int)floorf(t[0] * R + 0.5f), oy = (int)floorf(t[1] * R + 0.5f);
        int qx = clampi((int)px + ox, 0, hx), qy = clampi((int)py + oy, 0, hy);
        const float *s = H + ((size_t)qy * l->hw + (size_t)qx) * 4;
        float dist = t[2] * R, ks = fabsf(s[3]);
        if (s[3] < 0 && s[3] < cc) {
            float w = clampf(ks - dist + 1.0f, 0, 1) * area / fmaxf(s[3] * s[3], 1.0f);
            for (int k = 0; k < 3; k++) near_acc[k] += s[k] * w;
            near_w += w;
        } else {
            float reach = s[3] > cc ? fminf(ks, rc) : ks;
            float w = clampf(reach - dist + 1.0f, 0, 1);
            for (int k = 0; k < 3; k++) far_acc[k] += s[k] * w;
            far_w += w;
        }
    }
    float alpha = fminf(near_w, 1.0f);
    for (int k = 0; k < 3; k++) {
        float fc = far_w > 0 ? far_acc[k] / far_w : s0[k];
        float nc = near_w > 0 ? near_acc[k] / near_w : fc;
        o[k] = fc + (nc - fc) * alpha;
    }
    o[3] = alpha;
}

static void composite(const dof_ctx *c, uint32_t px, uint32_t py) {
    const oak_dof_layout *l = &c->l;
    float qx = ((float)px + 0.5f) * 0.5f - 0.5f, qy = ((float)py + 0.5f) * 0.5f - 0.5f;
    float ix = floorf(qx), iy = floorf(qy);
    float fx = qx - ix, fy = qy - iy;
    int hx = (int)l->hw - 1, hy = (int)l->hh - 1;
    int ax = clampi((int)ix, 0, hx), bx = clampi((int)ix + 1, 0, hx);
    int ay = clampi((int)iy, 0, hy), by = clampi((int)iy + 1, 0, hy);
    const float *P = c->b->dof, *G = P + l->gathered * 4;
    size_t i00 = (size_t)ay * l->hw + (size_t)ax, i10 = (size_t)ay * l->hw + (size_t)bx;
    size_t i01 = (size_t)by * l->hw + (size_t)ax, i11 = (size_t)by * l->hw + (size_t)bx;
    float kc = coc(c->v, depth_at(c->v, c->b, px, py)), kd = fabsf(kc);
    /* bilinear, each texel weighted down as its CoC differs from this pixel's */
    float w00 = (1.0f - fx) * (1.0f - fy) / (1.0f + fabsf(P[i00 * 4 + 3] - kc));
    float w10 = fx * (1.0f - fy) / (1.0f + fabsf(P[i10 * 4 + 3] - kc));
    float w01 = (1.0f - fx) * fy / (1.0f + fabsf(P[i01 * 4 + 3] - kc));
    float w11 = fx * fy / (1.0f + fabsf(P[i11 * 4 + 3] - kc));
    float ws = w00 + w10 + w01 + w11, bl[4];
    for (int k = 0; k < 4; k++)
        bl[k] = (G[i00 * 4 + k] * w00 + G[i10 * 4 + k] * w10 + G[i01 * 4 + k] * w01 +
                 G[i11 * 4 + k] * w11) /
                ws;
    float t = fmaxf(clampf(kd * 2.0f - 1.0f, 0, 1), bl[3]);
    float *f = c->b->color + ((size_t)py * c->b->width + px) * 3;
    for (int k = 0; k < 3; k++) {
        float cl = clean(f[k]);
        f[k] = cl + (bl[k] - cl) * t;
    }
}

static void dof_rows(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const dof_ctx *c = user;
    uint32_t w = c->step == OAK_DOF_STEP_TILES       ? c->l.tw
                 : c->step == OAK_DOF_STEP_COMPOSITE ? c->b->width
                                                     : c->l.hw;
    for (uint32_t y = begin; y < end; y++)
        for (uint32_t x = 0; x < w; x++) {
            if (c->step == OAK_DOF_STEP_PREFILTER)
                prefilter(c, x, y);
            else if (c->step == OAK_DOF_STEP_TILES)
                tile(c, x, y);
            else if (c->step == OAK_DOF_STEP_GATHER)
                gather(c, x, y);
            else
                composite(c, x, y);
        }
}

oak_result _oak_cpu_dof(cpu_backend *b, const oak_render_view *v) {
    oak_dof_layout l = _oak_dof_layout(b->width, b->height);
    if (l.texels * 4 > b->dof_cap) {
        float *p = oak_realloc(b->dof, (size_t)l.texels * 4 * sizeof(float));
        if (!p)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu dof: %llu texels",
                             (unsigned long long)l.texels);
        b->dof = p;
        b->dof_cap = l.texels * 4;
    }
    dof_ctx c = {.b = b, .v = v, .l = l};
    _oak_dof_taps(c.taps);
    for (c.step = 0; c.step < OAK_DOF_STEPS; c.step++) {
        uint32_t rows = c.step == OAK_DOF_STEP_TILES       ? l.th
                        : c.step == OAK_DOF_STEP_COMPOSITE ? b->height
                                                           : l.hh;
        oak_parallel_for(rows, DOF_ROWS, dof_rows, &c);
    }
    return OAK_OK;
}
