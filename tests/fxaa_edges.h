/* An RGBA8 test picture for FXAA (test_cpu_simd, test_cpu_isa): a ramp
 * with noise crossed by six half-planes of different slopes, so edges of
 * every direction; returns the seed after it. */
#ifndef OAK_TEST_FXAA_EDGES_H
#define OAK_TEST_FXAA_EDGES_H

#include <stdint.h>

static inline uint32_t fxaa_edges(uint8_t *in, int W, int H, uint32_t seed) {
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            seed = seed * 1664525u + 1013904223u;
            int v = 20 + x / 4 + (int)(seed >> 29);
            for (int e = 0; e < 6; e++) { /* half-planes: edge e at slope e */
                static const int nx[6] = {1, 1, 20, 3, 1, -7}, ny[6] = {0, 20, 1, 2, -9, 4};
                int d = nx[e] * (x - 20 - 23 * e) + ny[e] * (y - 10 - 13 * e);
                if (d > 0) v += e % 2 ? 40 : -30;
            }
            v = v < 0 ? 0 : v > 255 ? 255 : v;
            uint8_t *p = in + (y * W + x) * 4;
            p[0] = (uint8_t)v, p[1] = (uint8_t)(v / 2 + 60), p[2] = (uint8_t)((v * 3) / 4),
            p[3] = 255;
        }
    return seed;
}

#endif
