/* The CPU backend's vector paths against the scalar code they replace: the
 * post in lanes (tone map, sRGB, dither, bytes), FXAA's sixteen-pixel early
 * out and its lanes must give the same bytes, and the four-pixel sky the
 * same floats, on inputs chosen to hit every branch (at the widest width
 * the CPU has; test_cpu_isa.c runs every width). */
#include "oak_test.h"
#include "fxaa_edges.h"

#include "backend/cpu/cpu_internal.h"

TEST(cpuPostSimdSpanMatchesScalar) {
    /* the four-lane post against the scalar one over radiance from black
       through the sRGB toe (0.0031308) to far past white, negatives and NaN,
       with every post flag and a row length that leaves a remainder */
    _oak_cpu_post_init(); /* the sRGB table */
    enum { N = 403 };
    static float rgb[N * 3];
    static uint8_t a[N * 4], b[N * 4];
    uint32_t seed = 99;
    for (int i = 0; i < N * 3; i++) {
        seed = seed * 1664525u + 1013904223u;
        float u = (float)(seed >> 8) / 16777216.0f;
        /* around the toe, around 1, bright, negative, far past white,
           straddling the toe at exposure 0.6, dim; every 35th NaN */
        static const float scale[7] = {0.01f, 1, 20, -1, 1e6f, 0, 0.2f};
        rgb[i] = u * scale[i % 7];
        if (i % 7 == 5) rgb[i] = 0.0031308f * (0.999f + 0.002f * u) / 0.6f;
        if (i % 35 == 4) rgb[i] = NAN;
    }
    const float exposures[3] = {0, 0.6f, 2.5f};
    int diff = 0, bright = 0, dark = 0;
    for (int flags = 0; flags < 4; flags++)
        for (int e = 0; e < 3; e++) {
            oak_post post = {0};
            post.exposure = exposures[e];
            post.no_tonemap = flags & 1;
            post.no_dither = (flags & 2) != 0;
            memset(a, 0, sizeof a), memset(b, 1, sizeof b);
            _oak_cpu_post_span(rgb, a, 5, 17 + (uint32_t)flags, N, &post, false);
            _oak_cpu_post_span(rgb, b, 5, 17 + (uint32_t)flags, N, &post, true);
            diff += memcmp(a, b, sizeof a) != 0;
            for (int i = 0; i < N * 4; i++) {
                bright += i % 4 < 3 && a[i] == 255;
                dark += a[i] == 0;
            }
        }
    CHECK_EQ_INT(diff, 0);
    CHECK(bright > 100 && dark > 100); /* both ends of the range were reached */
    /* the dither in lanes at rows and columns up to 8K (where the noise's
       fraction keeps fewer bits), on mid greys so that it decides bytes */
    static float grey[N * 3];
    for (int i = 0; i < N * 3; i++) grey[i] = 0.02f + 0.3f * (float)(i % 97) / 97.0f;
    int moved = 0;
    for (uint32_t r = 0; r < 64; r++) {
        oak_post post = {0};
        uint32_t x0 = r * 127 + (r & 3), y = r * 131 + 3;
        _oak_cpu_post_span(grey, a, x0, y, N, &post, false);
        _oak_cpu_post_span(grey, b, x0, y, N, &post, true);
        diff += memcmp(a, b, sizeof a) != 0;
        post.no_dither = true; /* the dither moved some bytes: the test sees it */
        _oak_cpu_post_span(grey, b, x0, y, N, &post, true);
        moved += memcmp(a, b, sizeof a) != 0;
    }
    CHECK_EQ_INT(diff, 0);
    CHECK_EQ_INT(moved, 64);
    /* black is 0 and radiance far past white 255, in either path */
    float two[6] = {0, 0, 0, 1e5f, 1e5f, 1e5f};
    oak_post post = {0};
    _oak_cpu_post_span(two, a, 0, 0, 2, &post, false);
    CHECK(a[0] == 0 && a[2] == 0 && a[3] == 255 && a[4] == 255 && a[6] == 255 && a[7] == 255);
}

TEST(cpuFxaaSixteenPixelEarlyOutMatchesTheSpec) {
    /* mostly smooth rows (where 16 pixels at a time keep their colour) with
       noise whose range sweeps across both thresholds, range 8 and
       8 range = lmax, and a few sharp spikes: same bytes as the plain path */
    enum { W = 203, H = 48 };
    static uint8_t in[W * H * 4], a[W * H * 4], b[W * H * 4], lumas[W * H];
    uint32_t seed = 777;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            seed = seed * 1664525u + 1013904223u;
            uint8_t *p = in + (y * W + x) * 4;
            int amp = (x / 16 + y) % 12;             /* noise amplitude 0..11 */
            int base = 20 + ((x * 7 + y * 3) % 230); /* lmax from dark to bright */
            int v = base + (int)((seed >> 24) % (uint32_t)(amp + 1));
            if ((seed >> 8) % 97 == 0) v = 255 - v; /* an isolated spike */
            v = v > 255 ? 255 : v;
            p[0] = p[1] = p[2] = (uint8_t)v, p[3] = 255;
        }
    _oak_cpu_fxaa(a, in, NULL, W, H, 0, H);
    _oak_cpu_fxaa_luma(lumas, in, W, 0, H);
    _oak_cpu_fxaa(b, in, lumas, W, H, 0, H);
    CHECK(memcmp(a, b, sizeof a) == 0);
    int changed = 0;
    for (int i = 0; i < W * H; i++) changed += memcmp(a + i * 4, in + i * 4, 3) != 0;
    CHECK(changed > W * H / 50); /* both paths acted */
    CHECK(changed < W * H / 2);  /* and most pixels took the early out */
}

TEST(cpuFxaaFourLanesMatchThePlainPath) {
    /* straight edges of many slopes (searches that stop at once and ones
       that run all 8 pixels, both orientations, either side brighter) over
       a ramp with noise, in colour: the pixels whose search window is
       inside take the four-lane path, whose bytes must be the clamped
       plain path's (no luma plane) */
    enum { W = 157, H = 96 };
    static uint8_t in[W * H * 4], a[W * H * 4], b[W * H * 4], lumas[W * H];
    uint32_t seed = 4321;
    seed = fxaa_edges(in, W, H, seed);
    _oak_cpu_fxaa(a, in, NULL, W, H, 0, H);
    _oak_cpu_fxaa_luma(lumas, in, W, 0, H);
    _oak_cpu_fxaa(b, in, lumas, W, H, 0, H);
    CHECK(memcmp(a, b, sizeof a) == 0);
    int changed = 0; /* inside the four-lane window */
    for (int y = 8; y < H - 8; y++)
        for (int x = 8; x < W - 8; x++)
            changed += memcmp(a + (y * W + x) * 4, in + (y * W + x) * 4, 3) != 0;
    CHECK(changed > 300);
}

TEST(cpuSkyRow4MatchesScalar) {
    /* four sky pixels at once against _oak_cpu_view_ray + _oak_cpu_sky, over
       views whose rays point up (the zenith blend) and down (horizon only),
       with jitter: the same floats */
    oak_render_view v = {0};
    v.width = 37, v.height = 23;
    uint32_t seed = 4242;
    int diff = 0, up = 0, down = 0;
    for (int view = 0; view < 6; view++) {
        for (int k = 0; k < 16; k++) {
            seed = seed * 1664525u + 1013904223u;
            v.inv_view_proj[k / 4][k % 4] =
                (float)(seed >> 8) / 8388608.0f - 1.0f + (k % 5 == 0 ? 2.0f : 0);
        }
        v.jitter[0] = 0.125f * (float)view, v.jitter[1] = -0.25f * (float)view;
        for (int k = 0; k < 3; k++)
            v.sky_horizon[k] = 0.5f + 0.1f * (float)k, v.sky_zenith[k] = 0.1f * (float)(k + view);
        for (uint32_t y = 0; y < v.height; y++)
            for (uint32_t x = 0; x + 4 <= v.width; x++) {
                float four[12], one[3], dir[3];
                _oak_cpu_sky_row4(&v, x, y, four);
                for (uint32_t i = 0; i < 4; i++) {
                    _oak_cpu_view_ray(&v, x + i, y, dir);
                    _oak_cpu_sky(&v, dir, one);
                    diff += memcmp(one, four + i * 3, sizeof one) != 0;
                    up += dir[1] > 0, down += dir[1] <= 0;
                }
            }
    }
    CHECK_EQ_INT(diff, 0);
    CHECK(up > 100 && down > 100);
}

int main(void) {
    oak_test_init(0);
    RUN(cpuPostSimdSpanMatchesScalar);
    RUN(cpuFxaaSixteenPixelEarlyOutMatchesTheSpec);
    RUN(cpuFxaaFourLanesMatchThePlainPath);
    RUN(cpuSkyRow4MatchesScalar);
    oak_shutdown();
    return TEST_SUMMARY();
}
