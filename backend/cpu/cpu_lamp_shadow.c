/* A lamp's shadow at a surface point, as docs/SHADING.md "Lamp shadows"
 * fixes it: the face from the lamp-to-point direction, a normal offset of a
 * face texel at that distance, each tap compared in metres from the lamp
 * against the receiver's plane, a bilinear-weighted PCF; and the atlas as
 * --debug lamp-shadows shows it. */
#include <math.h>

#include "cpu_internal.h"

#define F_TEXELS OAK_LAMP_SHADOW_FACE

static float clampf(float x, float lo, float hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

/* Face of a cube (+x -x +y -y +z -z) that direction d falls in. */
static uint32_t cube_face(const float d[3]) {
    float ax = fabsf(d[0]), ay = fabsf(d[1]), az = fabsf(d[2]);
    if (ax >= ay && ax >= az) return d[0] >= 0 ? 0 : 1;
    if (ay >= az) return d[1] >= 0 ? 2 : 3;
    return d[2] >= 0 ? 4 : 5;
}

/* p through the 4x4 m (column-major) */
static void xform(const float (*m)[4], const float p[3], float out[4]) {
    for (int k = 0; k < 4; k++) out[k] = m[0][k] * p[0] + m[1][k] * p[1] + m[2][k] * p[2] + m[3][k];
}

/* Metres from the lamp (along the face's axis) that a stored depth means. */
static float stored_metres(float z, float n, float f) {
    return n * f / (z * (f - n) + n);
}

static float texel_at(const float *map, int32_t i, int32_t j) {
    const int32_t tiles_x = F_TEXELS / CPU_TILE;
    return map[((size_t)(j / CPU_TILE) * (size_t)tiles_x + (size_t)(i / CPU_TILE)) *
                   CPU_TILE_PIXELS +
               (size_t)(j % CPU_TILE) * CPU_TILE + (size_t)(i % CPU_TILE)];
}

float _oak_cpu_lamp_shadow(const cpu_backend *b, uint32_t light, const float P[3],
                           const float Ng[3]) {
    const oak_render_view *v = b->view;
    if (!b->lamp_valid || !v->light_shadow || v->light_shadow[light] < 0 ||
        (uint32_t)v->light_shadow[light] >= v->lamp_shadow_count)
        return 1.0f;
    const oak_lamp_shadow *ls = &v->lamp_shadows[v->light_shadow[light]];
    const float *lp = v->lights[light].position;
    float dv[3] = {P[0] - lp[0], P[1] - lp[1], P[2] - lp[2]};
    float dist = sqrtf(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
    /* fades out over the last OAK_LAMP_SHADOW_FADE of its reach */
    float fade = clampf((dist / ls->far - (1.0f - (float)OAK_LAMP_SHADOW_FADE)) /
                            (float)OAK_LAMP_SHADOW_FADE,
                        0.0f, 1.0f);
    if (fade >= 1.0f) return 1.0f;
    const float F = (float)F_TEXELS, th = ls->tan_half;
    uint32_t k = ls->face_count == 6 ? cube_face(dv) : 0;
    const oak_lamp_face *f = &v->lamp_faces[ls->first_face + k];
    float q[4];
    xform((const float(*)[4])f->view, P, q);
    float texel = 2.0f * th * fmaxf(-q[2], 0.0f) / F; /* metres per texel there */
    float off = (float)OAK_LAMP_SHADOW_NORMAL_OFFSET * texel;
    float Pw[3] = {P[0] + Ng[0] * off, P[1] + Ng[1] * off, P[2] + Ng[2] * off};
    if (ls->face_count == 6) {
        float dw[3] = {Pw[0] - lp[0], Pw[1] - lp[1], Pw[2] - lp[2]};
        f = &v->lamp_faces[ls->first_face + cube_face(dw)];
    }
    /* the offset point and the receiver's normal in the face's view space */
    const float(*V)[4] = (const float(*)[4])f->view;
    float pv[4];
    xform(V, Pw, pv);
    float d = -pv[2];
    if (!(d > ls->near * 0.5f)) return 1.0f;
    float nv[3];
    for (int c = 0; c < 3; c++) nv[c] = V[0][c] * Ng[0] + V[1][c] * Ng[1] + V[2][c] * Ng[2];
    float u = (pv[0] / d / th) * 0.5f + 0.5f, w = (pv[1] / d / th) * 0.5f + 0.5f;
    if (!(u >= 0 && u <= 1 && w >= 0 && w <= 1)) return 1.0f; /* outside a spot's tile */
    texel = 2.0f * th * d / F;
    float bias = (float)OAK_LAMP_SHADOW_BIAS * texel;
    float np = nv[0] * pv[0] + nv[1] * pv[1] + nv[2] * pv[2];
    float lim = 16.0f * texel; /* the plane's depth at a tap, at most this far from d */
    const int K = OAK_LAMP_SHADOW_PCF_SIZE;
    float us = u * F, ws = w * F;
    float tu = us - 0.5f - 0.5f * (float)(K - 1), tw = ws - 0.5f - 0.5f * (float)(K - 1);
    float fi = floorf(tu), fj = floorf(tw), gi = tu - fi, gj = tw - fj;
    int32_t i0 = (int32_t)fi, j0 = (int32_t)fj;
    const float *map = b->lamp_read[f->tile];
    float lit = 0;
    for (int bj = 0; bj <= K; bj++) {
        float wy = bj == 0 ? 1.0f - gj : bj == K ? gj : 1.0f;
        int32_t jj = j0 + bj < 0 ? 0 : j0 + bj >= F_TEXELS ? F_TEXELS - 1 : j0 + bj;
        float ry = (((float)(j0 + bj) + 0.5f) / F * 2.0f - 1.0f) * th;
        float row = 0;
        for (int bi = 0; bi <= K; bi++) {
            float wx = bi == 0 ? 1.0f - gi : bi == K ? gi : 1.0f;
            int32_t ii = i0 + bi < 0 ? 0 : i0 + bi >= F_TEXELS ? F_TEXELS - 1 : i0 + bi;
            /* the receiver's plane along the ray through this texel's centre */
            float rx = (((float)(i0 + bi) + 0.5f) / F * 2.0f - 1.0f) * th;
            float den = nv[0] * rx + nv[1] * ry - nv[2];
            float t = den < -1e-6f ? clampf(np / den, d - lim, d + lim) : d;
            float occ = stored_metres(texel_at(map, ii, jj), ls->near, ls->far);
            if (t - bias <= occ) row += wx;
        }
        lit += wy * row;
    }
    float s = lit / (float)(K * K);
    return s + (1.0f - s) * fade;
}

/* --debug lamp-shadows: the atlas fills a square at the picture's left, as
   tall as the picture: tile t at column t % OAK_LAMP_ATLAS_TILES, row
   t / OAK_LAMP_ATLAS_TILES from the top, each face upright (its clip +y up).
   Grey is nearness, 1 - metres / reach (black: nothing cast); tiles
   unused this frame show dark blue. */
bool _oak_cpu_lamp_atlas_debug(const cpu_backend *b, uint32_t x, uint32_t y, float rgb[3]) {
    const oak_render_view *v = b->view;
    if (x >= v->height) return false;
    const uint32_t A = OAK_LAMP_ATLAS_TILES * F_TEXELS;
    uint32_t ax = (uint32_t)(((uint64_t)x * 2 + 1) * A / (2 * (uint64_t)v->height));
    uint32_t ay = (uint32_t)(((uint64_t)y * 2 + 1) * A / (2 * (uint64_t)v->height));
    uint32_t tile = (ay / F_TEXELS) * OAK_LAMP_ATLAS_TILES + ax / F_TEXELS;
    rgb[0] = rgb[1] = 0, rgb[2] = 0.05f;
    if (!b->lamp_valid) return true;
    for (uint32_t s = 0; s < v->lamp_shadow_count; s++) {
        const oak_lamp_shadow *ls = &v->lamp_shadows[s];
        for (uint32_t k = 0; k < ls->face_count; k++) {
            if (v->lamp_faces[ls->first_face + k].tile != tile) continue;
            int32_t i = (int32_t)(ax % F_TEXELS), j = (int32_t)(F_TEXELS - 1 - ay % F_TEXELS);
            float m = stored_metres(texel_at(b->lamp_read[tile], i, j), ls->near, ls->far);
            float g = clampf(1.0f - m / ls->far, 0.0f, 1.0f);
            rgb[0] = rgb[1] = rgb[2] = g;
            return true;
        }
    }
    return true;
}
