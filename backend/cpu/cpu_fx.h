/* Material tricks (docs/SHADING.md "Material tricks") on the CPU: triplanar
 * mapping with whiteout normals, hex-tile breakup, the detail layer and
 * albedo variation, the arithmetic of shaders/common/material_fx.glsl in its
 * order. A header of static functions for cpu_shade.c, its only user. */
#ifndef OAK_CPU_FX_H
#define OAK_CPU_FX_H

#include <math.h>

#include "core/hash32.h"
#include "cpu_sample.h"

/* lattice points hash modulo OAK_FX_PERIOD on each axis (material_fx.glsl) */
static inline uint32_t fx_hash(int32_t x, int32_t y, int32_t z, uint32_t seed) {
    const uint32_t m = OAK_FX_PERIOD - 1;
    uint32_t h = ((uint32_t)x & m) * 0x8da6b343u ^ ((uint32_t)y & m) * 0xd8163841u ^
                 ((uint32_t)z & m) * 0xcb1ab31fu ^ seed * 0x9e3779b9u;
    return _oak_lowbias32(h);
}

static inline float fx_unit(uint32_t h) {
    return (float)(h >> 8) * (1.0f / 16777216.0f);
}

/* a lattice coordinate kept far from int overflow (NaN too) */
static inline float fx_clamp_coord(float x) {
    if (!(x > -1048576.0f)) return -1048576.0f;
    return x > 1048576.0f ? 1048576.0f : x;
}

/* value noise in [0, 1) on the integer lattice, smoothstep between corners */
static float fx_noise(const float p[3]) {
    float f[3];
    int32_t i[3];
    for (int k = 0; k < 3; k++) {
        float q = fx_clamp_coord(p[k]), fl = floorf(q);
        f[k] = q - fl;
        f[k] = f[k] * f[k] * (3.0f - 2.0f * f[k]);
        i[k] = (int32_t)fl;
    }
    float c[8];
    for (int n = 0; n < 8; n++)
        c[n] = fx_unit(fx_hash(i[0] + (n & 1), i[1] + ((n >> 1) & 1), i[2] + (n >> 2), 5u));
    float a0 = c[0] + (c[1] - c[0]) * f[0], a1 = c[2] + (c[3] - c[2]) * f[0];
    float a2 = c[4] + (c[5] - c[4]) * f[0], a3 = c[6] + (c[7] - c[6]) * f[0];
    float b0 = a0 + (a1 - a0) * f[1], b1 = a2 + (a3 - a2) * f[1];
    return b0 + (b1 - b0) * f[2];
}

/* albedo variation: the factor on the base colour at world P */
static inline float fx_vary(const oak_material_fx *x, const float P[3]) {
    float s = 1.0f / x->variation_scale;
    float q[3] = {P[0] * s, P[1] * s, P[2] * s};
    return 1.0f + x->variation * (2.0f * fx_noise(q) - 1.0f);
}

/* one read of slot r at uv (before its transform) with its derivatives */
static inline void fx_tap(const cpu_backend *b, const cpu_tex_ref *r, const float u[2],
                          const float dx[2], const float dy[2], float out[4]) {
    float t[2] = {r->m[0] * u[0] + r->m[1] * u[1] + r->off[0],
                  r->m[2] * u[0] + r->m[3] * u[1] + r->off[1]};
    float tdx[2] = {r->m[0] * dx[0] + r->m[1] * dx[1], r->m[2] * dx[0] + r->m[3] * dx[1]};
    float tdy[2] = {r->m[0] * dy[0] + r->m[1] * dy[1], r->m[2] * dy[0] + r->m[3] * dy[1]};
    cpu_sample(&b->textures[r->tex], &r->sampler, t, tdx, tdy, out);
}

static inline float fx_dot(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The hex copies of the texture around uv (see material_fx.glsl): g their
   weights (0: not read), the rest each copy's turn, centre and offset. */
typedef struct fx_hex {
    float g[3], rot[3][2], cen[3][2], off[3][2];
} fx_hex;

static inline void fx_hex_layout(const oak_material_fx *x, const float uv[2], fx_hex *h) {
    float cells = x->breakup;
    h->g[0] = 1, h->g[1] = h->g[2] = 0;
    h->rot[0][0] = 1, h->rot[0][1] = 0, h->cen[0][0] = h->cen[0][1] = 0;
    h->off[0][0] = h->off[0][1] = 0;
    if (!(cells > 0)) return;
    float st0 = fx_clamp_coord(uv[0] * cells), st1 = fx_clamp_coord(uv[1] * cells);
    float sk0 = st0 - 0.5f * st1, sk1 = st1; /* sheared: whole cells repeat */
    float b0 = floorf(sk0), b1 = floorf(sk1);
    float f0 = sk0 - b0, f1 = sk1 - b1, fz = 1.0f - f0 - f1;
    int32_t i0 = (int32_t)b0, i1 = (int32_t)b1, v[3][2];
    float *g = h->g;
    if (fz > 0) {
        g[0] = fz, g[1] = f1, g[2] = f0;
        v[0][0] = i0, v[0][1] = i1, v[1][0] = i0, v[1][1] = i1 + 1;
        v[2][0] = i0 + 1, v[2][1] = i1;
    } else {
        g[0] = -fz, g[1] = 1.0f - f1, g[2] = 1.0f - f0;
        v[0][0] = i0 + 1, v[0][1] = i1 + 1, v[1][0] = i0 + 1, v[1][1] = i1;
        v[2][0] = i0, v[2][1] = i1 + 1;
    }
    for (int j = 0; j < 3; j++) {
        float g2 = g[j] * g[j];
        g[j] = g2 * g2 * g2 * g[j]; /* OAK_FX_HEX_EXP */
    }
    float sum = g[0] + g[1] + g[2];
    for (int j = 0; j < 3; j++) {
        g[j] /= sum;
        if (g[j] < (float)OAK_FX_HEX_MIN) g[j] = 0;
    }
    for (int j = 0; j < 3; j++) {
        if (g[j] == 0) continue;
        uint32_t ho = fx_hash(v[j][0], v[j][1], 0, 11u);
        h->off[j][0] = (float)(ho & 0xffffu) * (1.0f / 65536.0f);
        h->off[j][1] = (float)(ho >> 16) * (1.0f / 65536.0f);
        h->rot[j][0] = 1, h->rot[j][1] = 0;
        if (x->breakup_rotation != 0) { /* no turn: cos 0 and sin 0, as the GPU's */
            float ang =
                x->breakup_rotation * (2.0f * fx_unit(fx_hash(v[j][0], v[j][1], 0, 13u)) - 1.0f);
            h->rot[j][0] = cosf(ang), h->rot[j][1] = sinf(ang);
        }
        h->cen[j][0] = ((float)v[j][0] + 0.5f * (float)v[j][1]) / cells;
        h->cen[j][1] = (float)v[j][1] / cells;
    }
}

/* The material's slots read through the tricks at surface s (P, its screen
   derivatives, Nv facing the eye, T, uv set 0) seen from cam: tex[] gets
   each slot's value ((1, 1, 1, 1) when empty), N the shading normal when
   there is a normal map. */
static void cpu_fx_sample(const cpu_backend *b, const cpu_material *m, const cpu_surface *s,
                          const float cam[3], float tex[CPU_TEX_COUNT][4], float N[3]) {
    const oak_material_fx *x = &m->desc.fx;
    for (int t = 0; t < CPU_TEX_COUNT; t++)
        for (int c = 0; c < 4; c++) tex[t][c] = m->tex[t].tex < 0 ? 1.0f : 0.0f;
    N[0] = N[1] = N[2] = 0;
    const float *Nv = s->Nv, *P = s->P;
    float pw[3] = {1, 0, 0};
    bool tri = x->triplanar > 0;
    float k = m->fx_k;
    if (tri) {
        float a[3] = {fabsf(Nv[0]), fabsf(Nv[1]), fabsf(Nv[2])};
        int mx = a[0] >= a[1] ? (a[0] >= a[2] ? 0 : 2) : (a[1] >= a[2] ? 1 : 2);
        float lim = m->fx_plane_ratio * a[mx];
        if (a[(mx + 1) % 3] < lim && a[(mx + 2) % 3] < lim) {
            /* the other planes' weights fall under OAK_FX_PLANE_MIN: the
               sums below would give this plane 1 exactly */
            pw[0] = 0, pw[mx] = 1;
        } else {
            for (int e = 0; e < 3; e++) pw[e] = powf(a[e], x->triplanar_sharpness);
            float sum = pw[0] + pw[1] + pw[2];
            for (int e = 0; e < 3; e++) {
                pw[e] /= sum;
                if (pw[e] < (float)OAK_FX_PLANE_MIN) pw[e] = 0;
            }
            sum = pw[0] + pw[1] + pw[2];
            for (int e = 0; e < 3; e++) pw[e] /= sum;
        }
    }
    float fade = 0;
    if (x->detail > 0) {
        float d[3] = {P[0] - cam[0], P[1] - cam[1], P[2] - cam[2]};
        fade = 1.0f - sqrtf(fx_dot(d, d)) * m->fx_inv_detail_distance;
        fade = fade < 0 ? 0 : fade > 1 ? 1 : fade;
    }
    float ns = m->desc.normal_scale;
    for (int p = 0; p < 3; p++) {
        if (pw[p] == 0) continue;
        float uv[2] = {s->uv[0][0], s->uv[0][1]};
        float dx[2] = {s->duvdx[0][0], s->duvdx[0][1]}, dy[2] = {s->duvdy[0][0], s->duvdy[0][1]};
        float Tp[3] = {0, 0, 0}, Bp[3] = {0, 0, 0}, Np[3] = {0, 0, 0};
        if (tri) { /* the plane's frame: T x B = its normal, facing Nv */
            float sg = Nv[p] < 0 ? -1.0f : 1.0f;
            for (int a = 0; a < 3; a++) Tp[a] = Bp[a] = Np[a] = 0;
            Np[p] = sg;
            if (p == 0) Tp[2] = -sg, Bp[1] = 1;
            if (p == 1) Tp[0] = 1, Bp[2] = -sg;
            if (p == 2) Tp[0] = sg, Bp[1] = 1;
            uv[0] = fx_dot(P, Tp) * k, uv[1] = fx_dot(P, Bp) * k;
            dx[0] = fx_dot(s->dPdx, Tp) * k, dx[1] = fx_dot(s->dPdx, Bp) * k;
            dy[0] = fx_dot(s->dPdy, Tp) * k, dy[1] = fx_dot(s->dPdy, Bp) * k;
        } else if (m->normal_map) {
            const float *T = s->T;
            for (int a = 0; a < 3; a++) Tp[a] = T[a], Np[a] = Nv[a];
            Bp[0] = (Nv[1] * T[2] - Nv[2] * T[1]) * T[3];
            Bp[1] = (Nv[2] * T[0] - Nv[0] * T[2]) * T[3];
            Bp[2] = (Nv[0] * T[1] - Nv[1] * T[0]) * T[3];
        }
        fx_hex h;
        fx_hex_layout(x, uv, &h);
        const float *g = h.g;
        float W[3], gs = g[0] + g[1] + g[2];
        for (int j = 0; j < 3; j++) W[j] = g[j] / gs;
        float cb[3][4];
        for (uint32_t si = 0; si < m->fx_slot_count; si++) {
            int t = m->fx_slots[si];
            const cpu_tex_ref *r = &m->tex[t];
            bool base = t == CPU_TEX_BASE, nrm = t == CPU_TEX_NORMAL;
            float acc[4] = {0, 0, 0, 0}, c[4];
            for (int j = 0; j < 3; j++) { /* the copies */
                if (g[j] == 0) continue;
                float cs = h.rot[j][0], sn = h.rot[j][1], u[2], ddx[2], ddy[2];
                float du0 = uv[0] - h.cen[j][0], du1 = uv[1] - h.cen[j][1];
                u[0] = (cs * du0 - sn * du1) + h.cen[j][0] + h.off[j][0];
                u[1] = (sn * du0 + cs * du1) + h.cen[j][1] + h.off[j][1];
                ddx[0] = cs * dx[0] - sn * dx[1], ddx[1] = sn * dx[0] + cs * dx[1];
                ddy[0] = cs * dy[0] - sn * dy[1], ddy[1] = sn * dy[0] + cs * dy[1];
                fx_tap(b, r, u, ddx, ddy, base ? cb[j] : c);
                if (base) continue;
                if (nrm) {
                    float n[3] = {c[0] * 2 - 1, c[1] * 2 - 1, c[2] * 2 - 1};
                    n[0] *= ns, n[1] *= ns; /* back from the copy's turn */
                    acc[0] += W[j] * (cs * n[0] + sn * n[1]);
                    acc[1] += W[j] * (-sn * n[0] + cs * n[1]);
                    acc[2] += W[j] * n[2];
                } else {
                    for (int e = 0; e < 4; e++) acc[e] += W[j] * c[e];
                }
            }
            float det[4] = {1, 1, 1, 1};
            if (fade > 0 && (base || nrm)) { /* the detail layer */
                float d = x->detail;
                float u[2] = {uv[0] * d, uv[1] * d}, ddx[2] = {dx[0] * d, dx[1] * d};
                float ddy[2] = {dy[0] * d, dy[1] * d};
                fx_tap(b, r, u, ddx, ddy, det);
            }
            if (base) {
                if (x->breakup > 0) { /* Mikkelsen's weights: bright copies win */
                    float Dw[3] = {1, 1, 1};
                    for (int j = 0; j < 3; j++)
                        if (g[j] > 0)
                            Dw[j] = 1.0f + (float)OAK_FX_HEX_CONTRAST *
                                               ((0.2126f * cb[j][0] + 0.7152f * cb[j][1] +
                                                 0.0722f * cb[j][2]) -
                                                1.0f);
                    for (int j = 0; j < 3; j++) W[j] = g[j] * Dw[j];
                    float ws = W[0] + W[1] + W[2];
                    for (int j = 0; j < 3; j++) W[j] /= ws;
                }
                for (int j = 0; j < 3; j++)
                    if (g[j] > 0)
                        for (int e = 0; e < 4; e++) acc[e] += W[j] * cb[j][e];
                if (fade > 0) { /* the texture's mean: its last level's texel */
                    const cpu_texture *tx = &b->textures[r->tex];
                    const float *mean = tx->texels + tx->offset[tx->mip_count - 1] * 4;
                    for (int e = 0; e < 3; e++)
                        acc[e] *=
                            1.0f + (det[e] / (mean[e] > 1e-4f ? mean[e] : 1e-4f) - 1.0f) * fade;
                }
            }
            if (nrm) {
                if (fade > 0) {
                    float nd[3] = {det[0] * 2 - 1, det[1] * 2 - 1, det[2] * 2 - 1};
                    nd[0] *= ns, nd[1] *= ns;
                    acc[0] = acc[0] + fade * nd[0];
                    acc[1] = acc[1] + fade * nd[1];
                    acc[2] = acc[2] * (1.0f + (nd[2] - 1.0f) * fade);
                }
                float bb[3] = {acc[0], acc[1], acc[2]};
                if (tri) { /* whiteout: the surface's own normal seen in the plane's frame */
                    bb[0] = bb[0] + fx_dot(Nv, Tp);
                    bb[1] = bb[1] + fx_dot(Nv, Bp);
                    bb[2] = bb[2] * fabsf(fx_dot(Nv, Np));
                }
                for (int e = 0; e < 3; e++)
                    N[e] += pw[p] * (Tp[e] * bb[0] + Bp[e] * bb[1] + Np[e] * bb[2]);
            } else {
                for (int e = 0; e < 4; e++) tex[t][e] += pw[p] * acc[e];
            }
        }
    }
    if (!m->normal_map) return;
    float l = sqrtf(fx_dot(N, N));
    if (l > 0)
        for (int e = 0; e < 3; e++) N[e] /= l;
}

#endif
