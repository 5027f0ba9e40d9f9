/* FXAA on bytes, all in integers, exactly as docs/SHADING.md "FXAA" specifies
 * so that GPU backends reproduce it bit for bit: a luma edge test, the edge's
 * orientation and side, a search of up to 8 pixels each way along it, and
 * the larger of the edge and subpixel blends toward the pixel across it. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <smmintrin.h>

#include "cpu_internal.h"
#include "cpu_post.h"

#define FXAA_SEARCH CPU_FXAA_SEARCH

static inline int32_t luma(const uint8_t *p) {
    return (77 * p[0] + 150 * p[1] + 29 * p[2] + 128) >> 8;
}

typedef struct img {
    const uint8_t *px;
    const uint8_t *luma; /* precomputed luma per pixel, or NULL */
    int32_t w, h;
} img;

static inline const uint8_t *at(const img *m, int32_t x, int32_t y) {
    x = x < 0 ? 0 : x >= m->w ? m->w - 1 : x;
    y = y < 0 ? 0 : y >= m->h ? m->h - 1 : y;
    return m->px + ((size_t)y * m->w + x) * 4;
}

static inline int32_t L(const img *m, int32_t x, int32_t y) {
    return luma(at(m, x, y));
}
static inline int32_t imax(int32_t a, int32_t b) {
    return a > b ? a : b;
}
static inline int32_t imin(int32_t a, int32_t b) {
    return a < b ? a : b;
}

static void fxaa_pixel(uint8_t *o, const img *m, int32_t x, int32_t y) {
    const uint8_t *c = at(m, x, y);
    /* away from the border the luma plane holds the nine values unclamped */
    const uint8_t *lc = m->luma && x > 0 && y > 0 && x + 1 < m->w && y + 1 < m->h
                            ? m->luma + (size_t)y * m->w + x
                            : NULL;
    int32_t M, N, S, W, E;
    if (lc)
        M = lc[0], N = lc[-m->w], S = lc[m->w], W = lc[-1], E = lc[1];
    else
        M = L(m, x, y), N = L(m, x, y - 1), S = L(m, x, y + 1), W = L(m, x - 1, y),
        E = L(m, x + 1, y);
    int32_t lmax = imax(imax(imax(M, N), imax(S, W)), E);
    int32_t lmin = imin(imin(imin(M, N), imin(S, W)), E);
    int32_t range = lmax - lmin;
    o[3] = 255;
    if (range < 8 || 8 * range < lmax) {
        o[0] = c[0], o[1] = c[1], o[2] = c[2];
        return;
    }
    int32_t NW, NE, SW, SE;
    if (lc)
        NW = lc[-m->w - 1], NE = lc[-m->w + 1], SW = lc[m->w - 1], SE = lc[m->w + 1];
    else
        NW = L(m, x - 1, y - 1), NE = L(m, x + 1, y - 1), SW = L(m, x - 1, y + 1),
        SE = L(m, x + 1, y + 1);
    int32_t H = abs(NW - 2 * W + SW) + 2 * abs(N - 2 * M + S) + abs(NE - 2 * E + SE);
    int32_t V = abs(NW - 2 * N + NE) + 2 * abs(W - 2 * M + E) + abs(SW - 2 * S + SE);
    bool horizontal = H >= V;
    int32_t sx, sy, ex, ey, lo, grad;
    if (horizontal) {
        int32_t g1 = abs(N - M), g2 = abs(S - M);
        sx = 0, sy = g1 >= g2 ? -1 : 1;
        lo = g1 >= g2 ? N : S;
        grad = g1 >= g2 ? g1 : g2;
        ex = 1, ey = 0;
    } else {
        int32_t g1 = abs(W - M), g2 = abs(E - M);
        sy = 0, sx = g1 >= g2 ? -1 : 1;
        lo = g1 >= g2 ? W : E;
        grad = g1 >= g2 ? g1 : g2;
        ex = 0, ey = 1;
    }
    int32_t ref = M + lo;
    int32_t dist[2], endv[2];
    /* when the whole search window is inside the image, read lumas without
       clamping (same values, fewer instructions) */
    int32_t wx0 = x - FXAA_SEARCH * ex + (sx < 0 ? sx : 0),
            wx1 = x + FXAA_SEARCH * ex + (sx > 0 ? sx : 0);
    int32_t wy0 = y - FXAA_SEARCH * ey + (sy < 0 ? sy : 0),
            wy1 = y + FXAA_SEARCH * ey + (sy > 0 ? sy : 0);
    bool inside = m->luma && wx0 >= 0 && wy0 >= 0 && wx1 < m->w && wy1 < m->h;
    ptrdiff_t step = (ptrdiff_t)ey * m->w + ex, across = (ptrdiff_t)sy * m->w + sx;
    for (int side = 0; side < 2; side++) {
        int32_t d = side ? 1 : -1;
        dist[side] = FXAA_SEARCH;
        endv[side] = 0;
        const uint8_t *lp = inside ? m->luma + (size_t)y * m->w + x : NULL;
        for (int32_t k = 1; k <= FXAA_SEARCH; k++) {
            int32_t qx = x + d * k * ex, qy = y + d * k * ey, e;
            if (lp) {
                const uint8_t *q = lp + d * k * step;
                e = q[0] + q[across] - ref;
            } else {
                e = L(m, qx, qy) + L(m, qx + sx, qy + sy) - ref;
            }
            endv[side] = e;
            if (2 * abs(e) >= grad) {
                dist[side] = k;
                break;
            }
        }
    }
    int32_t end = dist[0] < dist[1] ? endv[0] : endv[1];
    int32_t dmin = imin(dist[0], dist[1]), dsum = dist[0] + dist[1];
    int32_t q_edge = ((end < 0) != (M < lo)) ? 0 : 32 - (128 * dmin + dsum) / (2 * dsum);
    int32_t num = abs(2 * (N + S + W + E) + NW + NE + SW + SE - 12 * M);
    int32_t den = 12 * range;
    int32_t t = imin(num, den);
    int32_t s1 = (256 * t) / den;
    int32_t s2 = ((768 - 2 * s1) * s1 * s1) >> 16;
    int32_t q_sub = (48 * s2 * s2 + 32768) >> 16;
    int32_t q = imax(q_edge, q_sub);
    const uint8_t *co = at(m, x + sx, y + sy);
    for (int k = 0; k < 3; k++) o[k] = (uint8_t)((c[k] * (64 - q) + co[k] * q + 32) >> 6);
}

void _oak_cpu_fxaa_luma(uint8_t *luma_out, const uint8_t *in, uint32_t width, uint32_t y0,
                        uint32_t y1) {
    for (size_t i = (size_t)y0 * width; i < (size_t)y1 * width; i++)
        luma_out[i] = (uint8_t)luma(in + i * 4);
}

/* Step 2's early out for the 16 pixels at lumas + i (none on the image's
   border): bit k set when pixel i + k keeps its colour. range < 8 or
   8 range < lmax is range <= max(7, (lmax - 1) >> 3) on bytes (for lmax = 0
   the range is 0 and the first test holds). */
static inline uint32_t early_out16(const uint8_t *lumas, size_t i, size_t width) {
    __m128i M = _mm_loadu_si128((const __m128i *)(lumas + i));
    __m128i N = _mm_loadu_si128((const __m128i *)(lumas + i - width));
    __m128i S = _mm_loadu_si128((const __m128i *)(lumas + i + width));
    __m128i W = _mm_loadu_si128((const __m128i *)(lumas + i - 1));
    __m128i E = _mm_loadu_si128((const __m128i *)(lumas + i + 1));
    __m128i hi = _mm_max_epu8(_mm_max_epu8(_mm_max_epu8(M, N), _mm_max_epu8(S, W)), E);
    __m128i lo = _mm_min_epu8(_mm_min_epu8(_mm_min_epu8(M, N), _mm_min_epu8(S, W)), E);
    __m128i range = _mm_sub_epi8(hi, lo);
    __m128i t =
        _mm_and_si128(_mm_srli_epi16(_mm_subs_epu8(hi, _mm_set1_epi8(1)), 3), _mm_set1_epi8(0x1f));
    __m128i lim = _mm_max_epu8(t, _mm_set1_epi8(7));
    __m128i over = _mm_subs_epu8(range, lim); /* 0 where range <= lim */
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(over, _mm_setzero_si128()));
}

void _oak_cpu_fxaa(uint8_t *out, const uint8_t *in, const uint8_t *lumas, uint32_t width,
                   uint32_t height, uint32_t y0, uint32_t y1) {
    img m = {in, lumas, (int32_t)width, (int32_t)height};
    /* the searched pixels in lanes at the width cpu_isa.c chose
       (cpu_post_kernel.inc: fxaa_pixel's bytes at every width) */
    cpu_post_kernels kern = _oak_cpu_post_kernels();
    const uint32_t L = kern.lanes;
    bool lanes = lumas != NULL;
    for (uint32_t y = y0; y < y1; y++) {
        bool inner_row = lumas && y > 0 && y + 1 < height;
        /* rows whose vertical search stays inside: the lanes' */
        bool lane_row = lanes && y >= FXAA_SEARCH && y + FXAA_SEARCH < height;
        int32_t xs[8]; /* the row's pixels waiting for the lanes */
        uint32_t nq = 0;
        for (uint32_t x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            if (inner_row && x > 0 && x + 16 < width) {
                /* 16 pixels at once: those that keep their colour are copied
                   (ldr's alpha is already 255), the others take the search */
                uint32_t keep = early_out16(lumas, i, width);
                if (keep == 0xffff) {
                    memcpy(out + i * 4, in + i * 4, 64);
                } else {
                    for (uint32_t k = 0; k < 16; k++) {
                        uint32_t xk = x + k;
                        if (keep >> k & 1) {
                            memcpy(out + (i + k) * 4, in + (i + k) * 4, 4);
                        } else if (lane_row && xk >= FXAA_SEARCH && xk + FXAA_SEARCH < width) {
                            xs[nq++] = (int32_t)xk; /* L at a time */
                            if (nq == L) kern.fxaa(out, in, lumas, m.w, xs, (int32_t)y), nq = 0;
                        } else {
                            fxaa_pixel(out + (i + k) * 4, &m, (int32_t)xk, (int32_t)y);
                        }
                    }
                }
                x += 15;
                continue;
            }
            if (inner_row && x > 0 && x + 1 < width) {
                /* the common case, step 2's early out without clamping */
                int32_t M = lumas[i], N = lumas[i - width], S = lumas[i + width], W = lumas[i - 1],
                        E = lumas[i + 1];
                int32_t lmax = imax(imax(imax(M, N), imax(S, W)), E);
                int32_t lmin = imin(imin(imin(M, N), imin(S, W)), E);
                int32_t range = lmax - lmin;
                if (range < 8 || 8 * range < lmax) {
                    memcpy(out + i * 4, in + i * 4, 3);
                    out[i * 4 + 3] = 255;
                    continue;
                }
            }
            fxaa_pixel(out + i * 4, &m, (int32_t)x, (int32_t)y);
        }
        if (nq >= 2) { /* the row's last few, the last repeated (the same bytes twice) */
            for (uint32_t j = nq; j < L; j++) xs[j] = xs[nq - 1];
            kern.fxaa(out, in, lumas, m.w, xs, (int32_t)y);
        } else if (nq == 1) {
            fxaa_pixel(out + ((size_t)y * width + (uint32_t)xs[0]) * 4, &m, xs[0], (int32_t)y);
        }
    }
}
