/* The key light's shadow at a surface point, as docs/SHADING.md "Shadow"
 * fixes it: the cascade by view depth, blended into the next over the last
 * tenth of its slice; in a cascade, normal offset, a receiver plane, slope-
 * scaled bias and a bilinear-weighted PCF over the atlas map. */
#include <math.h>

#include "cpu_internal.h"

static float dot3(const float a[3], const float b[3]) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const float a[3], const float b[3], float out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
static float clampf(float x, float lo, float hi) {
    return x < lo ? lo : x > hi ? hi : x;
}

/* View depth: metres along the camera's forward axis. */
static float view_depth(const oak_render_view *v, const float P[3]) {
    return -(v->view[0][2] * P[0] + v->view[1][2] * P[1] + v->view[2][2] * P[2] + v->view[3][2]);
}

static int cascade_of(const oak_render_view *v, const float P[3]) {
    uint32_t n = v->cascade_count < OAK_MAX_CASCADES ? v->cascade_count : OAK_MAX_CASCADES;
    float d = view_depth(v, P);
    for (uint32_t c = 0; c < n; c++)
        if (d <= v->cascades[c].split_far) return (int)c;
    return -1;
}

/* Lit fraction in cascade c. L: unit, towards the sun. */
static float cascade_lit(const cpu_backend *b, uint32_t c, const float P[3], const float Ng[3],
                         const float L[3]) {
    const oak_shadow_cascade *cas = &b->view->cascades[c];
    const float(*M)[4] = (const float(*)[4])cas->view_proj;
    int32_t S = (int32_t)b->shadow_edge;
    float T = cas->texel_world, R = cas->depth_range > 0 ? cas->depth_range : 1.0f;
    float cosT = dot3(Ng, L);
    float sinT = sqrtf(clampf(1.0f - cosT * cosT, 0.0f, 1.0f));
    float tanT = cosT > 0 ? sinT / cosT : (float)OAK_SHADOW_MAX_SLOPE;
    tanT = clampf(tanT, 0.0f, (float)OAK_SHADOW_MAX_SLOPE);
    float off = (float)OAK_SHADOW_NORMAL_OFFSET * T * sinT;
    float pw[3] = {P[0] + Ng[0] * off, P[1] + Ng[1] * off, P[2] + Ng[2] * off};
    float q[4];
    for (int k = 0; k < 4; k++)
        q[k] = M[0][k] * pw[0] + M[1][k] * pw[1] + M[2][k] * pw[2] + M[3][k];
    if (q[3] != 1.0f && q[3] != 0) q[0] /= q[3], q[1] /= q[3], q[2] /= q[3];
    float u = q[0] * 0.5f + 0.5f, w = q[1] * 0.5f + 0.5f, z = q[2];
    if (!(u >= 0 && u <= 1 && w >= 0 && w <= 1 && z >= 0 && z <= 1)) return 1.0f;
    /* The receiver's plane in map space (its normal through the inverse
       transpose of the map's 3x3, by cofactors), so each tap compares the
       plane's depth at that texel rather than the centre's. */
    const float *cof = b->shadow_cof[c];
    float nx = dot3(cof, Ng), ny = dot3(cof + 3, Ng), nz = dot3(cof + 6, Ng);
    float lim = (float)OAK_SHADOW_MAX_SLOPE * T / R, per = 2.0f / (float)S;
    float dzdi = nz != 0 ? clampf(-nx / nz * per, -lim, lim) : 0.0f;
    float dzdj = nz != 0 ? clampf(-ny / nz * per, -lim, lim) : 0.0f;
    float bias = ((float)OAK_SHADOW_CONST_BIAS + (float)OAK_SHADOW_SLOPE_BIAS * tanT) * T / R;
    /* K x K bilinear taps one texel apart share a (K+1)^2 footprint whose
       weights per axis are 1 - g, 1, ..., 1, g */
    const int K = (int)_oak_shadow_pcf(b->view->post.shadow_filter);
    float us = u * (float)S, ws = w * (float)S;
    float tu = us - 0.5f - 0.5f * (float)(K - 1), tw = ws - 0.5f - 0.5f * (float)(K - 1);
    float fi = floorf(tu), fj = floorf(tw);
    float gi = tu - fi, gj = tw - fj;
    int32_t i0 = (int32_t)fi, j0 = (int32_t)fj, tiles_x = (S + CPU_TILE - 1) / CPU_TILE;
    const float *map = b->shadow_read[c];
    float lit = 0;
    if (i0 >= 0 && j0 >= 0 && i0 + K < S && j0 + K < S && i0 / CPU_TILE == (i0 + K) / CPU_TILE &&
        j0 / CPU_TILE == (j0 + K) / CPU_TILE) {
        /* the footprint inside one 64 x 64 tile: rows CPU_TILE apart, the
           same sums in the same order as below */
        float wx[OAK_SHADOW_PCF_SIZE + 1], di[OAK_SHADOW_PCF_SIZE + 1];
        for (int a = 0; a <= K; a++) {
            wx[a] = a == 0 ? 1.0f - gi : a == K ? gi : 1.0f;
            di[a] = dzdi * ((float)(i0 + a) + 0.5f - us);
        }
        const float *m = map +
                         ((size_t)(j0 / CPU_TILE) * (size_t)tiles_x + (size_t)(i0 / CPU_TILE)) *
                             CPU_TILE_PIXELS +
                         (size_t)(j0 % CPU_TILE) * CPU_TILE + (size_t)(i0 % CPU_TILE);
        for (int bj = 0; bj <= K; bj++, m += CPU_TILE) {
            float wy = bj == 0 ? 1.0f - gj : bj == K ? gj : 1.0f;
            float zj = z + bias + dzdj * ((float)(j0 + bj) + 0.5f - ws);
            float row = 0;
            for (int a = 0; a <= K; a++)
                if (zj + di[a] >= m[a]) row += wx[a];
            lit += wy * row;
        }
        return lit / (float)(K * K);
    }
    for (int bj = 0; bj <= K; bj++) {
        float wy = bj == 0 ? 1.0f - gj : bj == K ? gj : 1.0f;
        int32_t jj = j0 + bj;
        float zj = z + bias + dzdj * ((float)jj + 0.5f - ws);
        float row = 0;
        for (int bi = 0; bi <= K; bi++) {
            float wx = bi == 0 ? 1.0f - gi : bi == K ? gi : 1.0f;
            int32_t ii = i0 + bi;
            if (ii < 0 || jj < 0 || ii >= S || jj >= S) {
                row += wx; /* off the map: lit */
                continue;
            }
            size_t at = ((size_t)(jj / CPU_TILE) * (size_t)tiles_x + (size_t)(ii / CPU_TILE)) *
                            CPU_TILE_PIXELS +
                        (size_t)(jj % CPU_TILE) * CPU_TILE + (size_t)(ii % CPU_TILE);
            float zt = zj + dzdi * ((float)ii + 0.5f - us);
            if (zt >= map[at]) row += wx;
        }
        lit += wy * row;
    }
    return lit / (float)(K * K);
}

float _oak_cpu_sun_shadow(const cpu_backend *b, const float P[3], const float Ng[3]) {
    const oak_render_view *v = b->view;
    int c = cascade_of(v, P);
    if (c < 0) return 1.0f;
    const float *d = v->lights[v->key_light].direction;
    float L[3] = {-d[0], -d[1], -d[2]};
    float s = cascade_lit(b, (uint32_t)c, P, Ng, L);
    float far = v->cascades[c].split_far, start = c ? v->cascades[c - 1].split_far : v->znear;
    float band = (float)OAK_SHADOW_BLEND * (far - start), depth = view_depth(v, P);
    if (band > 0 && depth > far - band) {
        float t = (depth - (far - band)) / band;
        uint32_t n = v->cascade_count < OAK_MAX_CASCADES ? v->cascade_count : OAK_MAX_CASCADES;
        float next = (uint32_t)c + 1 < n ? cascade_lit(b, (uint32_t)c + 1, P, Ng, L) : 1.0f;
        s += (next - s) * t;
    }
    return s;
}

void _oak_cpu_cascade_tint(const oak_render_view *v, const float P[3], float rgb[3]) {
    static const float tint[OAK_MAX_CASCADES][3] = {
        {1, 0.25f, 0.25f}, {0.25f, 1, 0.25f}, {0.25f, 0.25f, 1}, {1, 1, 0.25f}};
    int c = v->shadows ? cascade_of(v, P) : -1;
    if (c < 0) return;
    for (int k = 0; k < 3; k++) rgb[k] *= tint[c][k];
}

void _oak_cpu_shadow_setup(cpu_backend *b, const oak_render_view *v) {
    for (uint32_t c = 0; c < v->cascade_count && c < OAK_MAX_CASCADES; c++) {
        const float(*M)[4] = (const float(*)[4])v->cascades[c].view_proj;
        float ax[3] = {M[0][0], M[1][0], M[2][0]}, ay[3] = {M[0][1], M[1][1], M[2][1]};
        float az[3] = {M[0][2], M[1][2], M[2][2]};
        cross3(ay, az, b->shadow_cof[c]);
        cross3(az, ax, b->shadow_cof[c] + 3);
        cross3(ax, ay, b->shadow_cof[c] + 6);
    }
}
