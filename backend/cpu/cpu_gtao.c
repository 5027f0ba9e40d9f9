/* Ground-truth ambient occlusion on the CPU backend, the same four steps and
 * formulas as shaders/gtao_*.comp.glsl (with a few exact identities and
 * per-frame reciprocals where the CPU pays for divisions and trigonometry):
 * view depth and normals from the ids, the view-depth mip chain, the horizon
 * search, the 5 x 5 plane-aware denoise (docs/SHADING.md "Ambient
 * occlusion"). Each step is rows on the job pool; every pixel's result is
 * its own, so the bytes do not depend on the thread count. */
#include <math.h>

#include "backend/gpu/gpu_records.h"
#include "cpu_internal.h"

#define GTAO_ROWS 8  /* rows per job */
#define GTAO_TILE 32 /* pixels across a horizon-search job */
#define GTAO_PI   3.14159265358979f

typedef struct gtao_ctx {
    cpu_backend *b;
    const oak_render_view *v;
    uint32_t w, h, n;
    float proj[4], proj2[3];   /* P00, P11, P20, P21; P30, P31, orthographic */
    float vx[4], vy[4], vz[4]; /* world to view rows; vz is view depth (-z) */
    float radius, exponent;
    float inv_w2, inv_h2, inv_p0, inv_p1; /* 2 / width, 2 / height, 1 / P00, 1 / P11 */
    float turn[16][OAK_GTAO_SLICES][2];   /* cos, sin of each pattern index's slice angles */
    size_t level[OAK_GTAO_MIPS];
    uint32_t lw[OAK_GTAO_MIPS], lh[OAK_GTAO_MIPS];
} gtao_ctx;

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static float clampf(float x, float lo, float hi) {
    return x < lo ? lo : x > hi ? hi : x;
}
static void normalize3(float v[3]) {
    float l = sqrtf(dot3(v, v));
    if (l > 0)
        for (int k = 0; k < 3; k++) v[k] /= l;
}

/* gtao.glsl's oak_ao_view_pos (inlined: it runs at every read) */
static inline __attribute__((always_inline)) void view_pos(const gtao_ctx *c, float pcx, float pcy,
                                                           float z, float out[3]) {
    float ndx = pcx * c->inv_w2 - 1.0f;
    float ndy = 1.0f - pcy * c->inv_h2;
    float w = c->proj2[2] != 0 ? 1.0f : z;
    out[0] = (ndx * w - c->proj2[0] + c->proj[2] * z) * c->inv_p0;
    out[1] = (ndy * w - c->proj2[1] + c->proj[3] * z) * c->inv_p1;
    out[2] = -z;
}

static void view_dir(const gtao_ctx *c, const float P[3], float V[3]) {
    if (c->proj2[2] != 0) {
        V[0] = V[1] = 0, V[2] = 1;
        return;
    }
    for (int k = 0; k < 3; k++) V[k] = -P[k];
    normalize3(V);
}

static float maxf0(float x) {
    return x > 0 ? x : 0.0f;
}

static uint32_t pattern(uint32_t x, uint32_t y) {
    static const uint8_t bayer[16] = {0, 8, 2, 10, 12, 4, 14, 6, 3, 11, 1, 9, 15, 7, 13, 5};
    return bayer[(x & 3) + 4 * (y & 3)];
}

/* ---- step 1: view depth and normal from the triangle ------------------- */

static void prefilter_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const gtao_ctx *c = user;
    const cpu_backend *b = c->b;
    const cpu_pass *p = &b->opaque;
    float *depth = b->ao_words + c->level[0], *normal = b->ao_words + 2 * (size_t)c->n;
    cpu_tri_ctx tc = {0};
    uint32_t y1 = end * GTAO_ROWS < c->h ? end * GTAO_ROWS : c->h;
    for (uint32_t y = begin * GTAO_ROWS; y < y1; y++)
        for (uint32_t x = 0; x < c->w; x++) {
            size_t i = (size_t)y * c->w + x;
            uint32_t id = p->ids[_oak_cpu_tile_index(p, x, y)];
            float *N = normal + 3 * i;
            if (!id) {
                depth[i] = (float)OAK_GTAO_SKY_DEPTH;
                N[0] = N[1] = 0, N[2] = 1;
                continue;
            }
            if (id != tc.id) _oak_cpu_tri_ctx(b, p, id, &tc);
            const float(*W)[4] = (const float(*)[4])tc.d->world;
            float Pv[3][3];
            for (int k = 0; k < 3; k++) {
                const float *s = tc.pos[k];
                float pw[4];
                for (int r = 0; r < 3; r++)
                    pw[r] = W[0][r] * s[0] + W[1][r] * s[1] + W[2][r] * s[2] + W[3][r];
                pw[3] = 1;
                Pv[k][0] = dot3(c->vx, pw) + c->vx[3];
                Pv[k][1] = dot3(c->vy, pw) + c->vy[3];
                Pv[k][2] = -(dot3(c->vz, pw) + c->vz[3]);
            }
            float e1[3], e2[3];
            for (int k = 0; k < 3; k++) e1[k] = Pv[1][k] - Pv[0][k], e2[k] = Pv[2][k] - Pv[0][k];
            float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                          e1[0] * e2[1] - e1[1] * e2[0]};
            normalize3(n);
            float pcx = (float)x + 0.5f, pcy = (float)y + 0.5f, A[3], B[3], P[3], V[3], d0[3];
            view_pos(c, pcx, pcy, 0.0f, A);
            view_pos(c, pcx, pcy, 1.0f, B);
            for (int k = 0; k < 3; k++) B[k] -= A[k], d0[k] = Pv[0][k] - A[k];
            float nb = dot3(n, B);
            float z =
                fabsf(nb) > 1e-12f ? dot3(n, d0) / nb : -(Pv[0][2] + Pv[1][2] + Pv[2][2]) / 3.0f;
            z = z > 0 ? z : 0;
            for (int k = 0; k < 3; k++) P[k] = A[k] + B[k] * z;
            view_dir(c, P, V);
            if (dot3(n, V) < 0)
                for (int k = 0; k < 3; k++) n[k] = -n[k];
            depth[i] = z;
            N[0] = n[0], N[1] = n[1], N[2] = n[2];
        }
}

/* ---- step 2: levels 1.. straight from level 0 -------------------------- */

static void mips_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const gtao_ctx *c = user;
    float *words = c->b->ao_words;
    const float *d0 = words + c->level[0];
    float F = (float)OAK_GTAO_MIP_FALLOFF * c->radius;
    uint32_t ty1 = end * GTAO_ROWS < c->lh[1] ? end * GTAO_ROWS : c->lh[1];
    for (uint32_t ty = begin * GTAO_ROWS; ty < ty1; ty++)
        for (uint32_t tx = 0; tx < c->lw[1]; tx++)
            for (uint32_t l = 1; l < OAK_GTAO_MIPS; l++) {
                uint32_t m = (1u << (l - 1)) - 1;
                if ((tx & m) || (ty & m)) break;
                uint32_t lx = tx >> (l - 1), ly = ty >> (l - 1);
                uint32_t x0 = lx << l, y0 = ly << l;
                uint32_t x1 = x0 + (1u << l) < c->w ? x0 + (1u << l) : c->w;
                uint32_t y1 = y0 + (1u << l) < c->h ? y0 + (1u << l) : c->h;
                float dmin = (float)OAK_GTAO_SKY_DEPTH;
                for (uint32_t y = y0; y < y1; y++)
                    for (uint32_t x = x0; x < x1; x++) {
                        float d = d0[(size_t)y * c->w + x];
                        dmin = d < dmin ? d : dmin;
                    }
                float sum = 0, wsum = 0;
                for (uint32_t y = y0; y < y1; y++)
                    for (uint32_t x = x0; x < x1; x++) {
                        float d = d0[(size_t)y * c->w + x];
                        float w = clampf(1.0f - (d - dmin) / F, 0.0f, 1.0f);
                        sum += w * d;
                        wsum += w;
                    }
                words[c->level[l] + (size_t)ly * c->lw[l] + lx] = sum / wsum;
            }
}

/* ---- step 3: the horizon search ---------------------------------------- */

/* One read of the search at pixel coordinates (qx, qy) from level l: its
   horizon cosine faded towards `low` with distance; `low` itself (which
   raises no horizon) off the picture, on the sky or at P. */
static inline __attribute__((always_inline)) float read_horizon(const gtao_ctx *c, int l, float qx,
                                                                float qy, const float P[3],
                                                                const float V[3], float fade,
                                                                float low) {
    if (qx < 0 || qy < 0 || qx >= (float)c->w || qy >= (float)c->h) return low;
    uint32_t tx = (uint32_t)qx >> l, ty = (uint32_t)qy >> l;
    float zs = c->b->ao_words[c->level[l] + (size_t)ty * c->lw[l] + tx];
    if (zs >= (float)OAK_GTAO_SKY_DEPTH) return low;
    float cell = (float)(1u << l), Q[3], delta[3];
    view_pos(c, ((float)tx + 0.5f) * cell, ((float)ty + 0.5f) * cell, zs, Q);
    for (int k = 0; k < 3; k++) delta[k] = Q[k] - P[k];
    float dist = sqrtf(dot3(delta, delta));
    if (!(dist > 1e-6f)) return low;
    float hc = dot3(delta, V) / dist;
    float w = clampf((c->radius - dist) * fade, 0.0f, 1.0f);
    return low + (hc - low) * w;
}

static float search_pixel(const gtao_ctx *c, uint32_t x, uint32_t y) {
    const float *words = c->b->ao_words;
    size_t i = (size_t)y * c->w + x;
    float z = words[c->level[0] + i];
    if (z >= (float)OAK_GTAO_SKY_DEPTH) return 1.0f;
    float pcx = (float)x + 0.5f, pcy = (float)y + 0.5f, P[3], V[3];
    view_pos(c, pcx, pcy, z, P);
    const float *N = words + 2 * (size_t)c->n + 3 * i;
    view_dir(c, P, V);
    float R = c->radius;
    float ppm = 0.5f * (float)c->w * c->proj[0] / (c->proj2[2] != 0 ? 1.0f : z);
    float Rpx = R * ppm, min_step = (float)OAK_GTAO_MIN_STEP;
    float span = Rpx - min_step > 0 ? Rpx - min_step : 0.0f;
    float rf = R * (1.0f - (float)OAK_GTAO_FALLOFF);
    float fade = 1.0f / (rf > 1e-6f ? rf : 1e-6f);
    uint32_t b = pattern(x, y);
    float jit = ((float)((b * 7u + 3u) & 15u) + 0.5f) / 16.0f;
    /* slices turn evenly about V (not about the screen's axis): over open
       ground their visibilities then average to exactly 1 at any angle */
    float T1[3] = {V[2], 0, -V[0]}, T2[3];
    normalize3(T1);
    T2[0] = V[1] * T1[2] - V[2] * T1[1];
    T2[1] = V[2] * T1[0] - V[0] * T1[2];
    T2[2] = V[0] * T1[1] - V[1] * T1[0];
    bool ortho = c->proj2[2] != 0;
    float vis = 0;
    for (int s = 0; s < OAK_GTAO_SLICES; s++) {
        /* cos and sin of (s + rot) pi / OAK_GTAO_SLICES, from the table */
        float cp = c->turn[b][s][0], sp = c->turn[b][s][1], od[3], axis[3], pn[3];
        for (int k = 0; k < 3; k++) od[k] = cp * T1[k] + sp * T2[k];
        /* where moving P along od goes on the screen */
        float sx = ortho ? od[0] : -P[2] * od[0] + P[0] * od[2];
        float sy = ortho ? od[1] : -P[2] * od[1] + P[1] * od[2];
        float sl = sqrtf(sx * sx + sy * sy);
        sl = sl > 0 ? sl : 1.0f;
        axis[0] = od[1] * V[2] - od[2] * V[1];
        axis[1] = od[2] * V[0] - od[0] * V[2];
        axis[2] = od[0] * V[1] - od[1] * V[0];
        normalize3(axis);
        float na = dot3(N, axis);
        for (int k = 0; k < 3; k++) pn[k] = N[k] - axis[k] * na;
        float pl = sqrtf(dot3(pn, pn));
        float cos_n = clampf(dot3(pn, V) / (pl > 1e-6f ? pl : 1e-6f), -1.0f, 1.0f);
        float sign = dot3(od, pn) < 0 ? -1.0f : 1.0f;
        float nang = sign * acosf(cos_n);
        /* sin(nang), and cos(nang -+ pi/2) = +-sin(nang), without the calls */
        float sn = sign * sqrtf(maxf0(1.0f - cos_n * cos_n));
        float low0 = -sn, low1 = sn;
        float hc0 = low0, hc1 = low1;
        float sdx = sx / sl, sdy = -sy / sl; /* screen rows run down */
        for (int j = 0; j < OAK_GTAO_STEPS; j++) {
            float t = ((float)j + jit) / (float)OAK_GTAO_STEPS;
            float off = min_step + t * t * span;
            int l = (int)floorf(log2f(off) - (float)OAK_GTAO_MIP_OFFSET);
            l = l < 0 ? 0 : l > OAK_GTAO_MIPS - 1 ? OAK_GTAO_MIPS - 1 : l;
            /* both ways at once: two independent reads in flight */
            float m0 = read_horizon(c, l, pcx + off * sdx, pcy + off * sdy, P, V, fade, low0);
            float m1 = read_horizon(c, l, pcx - off * sdx, pcy - off * sdy, P, V, fade, low1);
            hc0 = m0 > hc0 ? m0 : hc0;
            hc1 = m1 > hc1 ? m1 : hc1;
        }
        float h0 = -acosf(clampf(hc1, -1.0f, 1.0f)), h1 = acosf(clampf(hc0, -1.0f, 1.0f));
        h0 = nang + clampf(h0 - nang, -0.5f * GTAO_PI, 0.5f * GTAO_PI);
        h1 = nang + clampf(h1 - nang, -0.5f * GTAO_PI, 0.5f * GTAO_PI);
        float a0 = (cos_n + 2.0f * h0 * sn - cosf(2.0f * h0 - nang)) * 0.25f;
        float a1 = (cos_n + 2.0f * h1 * sn - cosf(2.0f * h1 - nang)) * 0.25f;
        vis += pl * (a0 + a1);
    }
    /* not clamped to 1 yet: a slice pair over open ground may sum past 1,
       and only the average over the pattern's turns is 1 (the denoise's) */
    return vis / (float)OAK_GTAO_SLICES;
}

/* square tiles, not rows: a tile's reads stay in a small window of each
   depth level, which the cache keeps */
static void search_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const gtao_ctx *c = user;
    float *raw = c->b->ao_words + c->n;
    uint32_t tiles_x = (c->w + GTAO_TILE - 1) / GTAO_TILE;
    for (uint32_t t = begin; t < end; t++) {
        uint32_t x0 = (t % tiles_x) * GTAO_TILE, y0 = (t / tiles_x) * GTAO_TILE;
        uint32_t x1 = x0 + GTAO_TILE < c->w ? x0 + GTAO_TILE : c->w;
        uint32_t y1 = y0 + GTAO_TILE < c->h ? y0 + GTAO_TILE : c->h;
        for (uint32_t y = y0; y < y1; y++)
            for (uint32_t x = x0; x < x1; x++) raw[(size_t)y * c->w + x] = search_pixel(c, x, y);
    }
}

/* ---- step 4: the denoise ------------------------------------------------ */

static void denoise_job(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    const gtao_ctx *c = user;
    float *words = c->b->ao_words;
    const float *d0 = words + c->level[0], *raw = words + c->n;
    const float *normal = words + 2 * (size_t)c->n;
    const int K = OAK_GTAO_DENOISE, W = (int)c->w, H = (int)c->h;
    uint32_t y1 = end * GTAO_ROWS < c->h ? end * GTAO_ROWS : c->h;
    for (uint32_t y = begin * GTAO_ROWS; y < y1; y++)
        for (uint32_t x = 0; x < c->w; x++) {
            size_t i = (size_t)y * c->w + x;
            float z = d0[i];
            if (z >= (float)OAK_GTAO_SKY_DEPTH) {
                words[i] = 1.0f;
                continue;
            }
            /* a neighbour's view position is A(q) + z B(q), A and B affine
               in its pixel: dot(N, Q - P) = f(q) + zq g(q) - dot(N, P) with
               f = dot(N, A), g = dot(N, B) stepped per pixel */
            float P[3], A0[3], A1[3], Ax[3], Ay[3], Bx[3], By[3];
            float pcx = (float)x + 0.5f, pcy = (float)y + 0.5f;
            view_pos(c, pcx, pcy, z, P);
            const float *N = normal + 3 * i;
            view_pos(c, pcx, pcy, 0.0f, A0);
            view_pos(c, pcx, pcy, 1.0f, A1);
            view_pos(c, pcx + 1.0f, pcy, 0.0f, Ax);
            view_pos(c, pcx + 1.0f, pcy, 1.0f, Bx);
            view_pos(c, pcx, pcy + 1.0f, 0.0f, Ay);
            view_pos(c, pcx, pcy + 1.0f, 1.0f, By);
            float f0 = dot3(N, A0), g0 = dot3(N, A1) - f0;
            float fx = dot3(N, Ax) - f0, gx = dot3(N, Bx) - dot3(N, Ax) - g0;
            float fy = dot3(N, Ay) - f0, gy = dot3(N, By) - dot3(N, Ay) - g0;
            float np = dot3(N, P);
            float tol = 1.0f / ((float)OAK_GTAO_PLANE_TOL * z);
            float sum = raw[i], wsum = 1.0f;
            for (int dy = -K; dy <= K; dy++)
                for (int dx = -K; dx <= K; dx++) {
                    int qx = (int)x + dx, qy = (int)y + dy;
                    if ((dx == 0 && dy == 0) || qx < 0 || qy < 0 || qx >= W || qy >= H) continue;
                    size_t j = (size_t)qy * c->w + (size_t)qx;
                    float zq = d0[j];
                    if (zq >= (float)OAK_GTAO_SKY_DEPTH) continue;
                    float fdx = (float)dx, fdy = (float)dy;
                    float nq = f0 + fdx * fx + fdy * fy + zq * (g0 + fdx * gx + fdy * gy);
                    float w = clampf(1.0f - fabsf(nq - np) * tol, 0.0f, 1.0f);
                    sum += w * raw[j];
                    wsum += w;
                }
            words[i] = powf(clampf(sum / wsum, 0.0f, 1.0f), c->exponent);
        }
}

oak_result _oak_cpu_gtao(cpu_backend *b, const oak_render_view *v) {
    gtao_ctx c = {.b = b, .v = v, .w = b->width, .h = b->height};
    c.n = c.w * c.h;
    uint64_t floats = _oak_gpu_ao_floats(c.w, c.h);
    if (floats > b->ao_cap) {
        float *words = oak_realloc(b->ao_words, (size_t)floats * sizeof(float));
        if (!words)
            return oak_error(OAK_ERROR_OUT_OF_MEMORY, "cpu backend: no memory for the %ux%u AO",
                             c.w, c.h);
        b->ao_words = words;
        b->ao_cap = floats;
    }
    c.proj[0] = v->proj[0][0], c.proj[1] = v->proj[1][1];
    c.proj[2] = v->proj[2][0], c.proj[3] = v->proj[2][1];
    c.proj2[0] = v->proj[3][0], c.proj2[1] = v->proj[3][1], c.proj2[2] = v->ortho ? 1.0f : 0.0f;
    for (int k = 0; k < 4; k++)
        c.vx[k] = v->view[k][0], c.vy[k] = v->view[k][1], c.vz[k] = -v->view[k][2];
    c.radius = v->post.ao_radius > 0 ? v->post.ao_radius : (float)OAK_GTAO_RADIUS;
    c.exponent = v->post.ao_intensity > 0 ? v->post.ao_intensity : 1.0f;
    c.inv_w2 = 2.0f / (float)c.w, c.inv_h2 = 2.0f / (float)c.h;
    c.inv_p0 = 1.0f / c.proj[0], c.inv_p1 = 1.0f / c.proj[1];
    for (uint32_t b = 0; b < 16; b++)
        for (int s = 0; s < OAK_GTAO_SLICES; s++) {
            float phi = ((float)s + ((float)b + 0.5f) / 16.0f) * GTAO_PI / (float)OAK_GTAO_SLICES;
            c.turn[b][s][0] = cosf(phi), c.turn[b][s][1] = sinf(phi);
        }
    size_t at = 5 * (size_t)c.n;
    for (uint32_t l = 0; l < OAK_GTAO_MIPS; l++) {
        c.lw[l] = (c.w + (1u << l) - 1) >> l, c.lh[l] = (c.h + (1u << l) - 1) >> l;
        c.level[l] = at;
        at += (size_t)c.lw[l] * c.lh[l];
    }
    uint32_t jobs = (c.h + GTAO_ROWS - 1) / GTAO_ROWS;
    oak_parallel_for(jobs, 1, prefilter_job, &c);
    oak_parallel_for((c.lh[1] + GTAO_ROWS - 1) / GTAO_ROWS, 1, mips_job, &c);
    uint32_t tiles = ((c.w + GTAO_TILE - 1) / GTAO_TILE) * ((c.h + GTAO_TILE - 1) / GTAO_TILE);
    oak_parallel_for(tiles, 1, search_job, &c);
    oak_parallel_for(jobs, 1, denoise_job, &c);
    return OAK_OK;
}

/* --debug ao: the term as grey over every pixel (the resolve's place). */
void _oak_cpu_gtao_show(cpu_backend *b) {
    size_t n = (size_t)b->width * b->height;
    for (size_t i = 0; i < n; i++)
        b->color[i * 3] = b->color[i * 3 + 1] = b->color[i * 3 + 2] = b->ao_words[i];
}
