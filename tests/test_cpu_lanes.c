/* The shading kernel's lane lookups held bit for bit to the scalar functions
 * they replace, at every lane width the CPU has (8 AVX2, 4 SSE4.1, 1):
 * the key light's cascade filter (cascade pick, blend band, projection, the
 * receiver plane and every PCF tap, on and off the map and across tiles)
 * against _oak_cpu_sun_shadow, and the sky light's reads (octahedral
 * bilinear across the seams, the two prefiltered levels, the split-sum
 * table) against _oak_sky_irradiance, _oak_sky_specular and _oak_sky_brdf.
 * Random points, plus the edge cases by hand (zero and axis directions,
 * NaN and out-of-range roughness). */
#include "oak_test.h"

#include "backend/cpu/cpu_internal.h"
#include "render/skylight.h"
#include "shaders/common/oak_gpu.h"

typedef void (*sun_fn)(const cpu_backend *, uint32_t, const float *, const float *, float *);
typedef void (*sky_fn)(const float *, uint32_t, const float *, const float *, const float *,
                       float *);

static const char *const k_name[3] = {"avx2", "sse4", "scalar"};
static const sun_fn k_sun[3] = {_oak_cpu_lanes_sun_avx2, _oak_cpu_lanes_sun_sse4,
                                _oak_cpu_lanes_sun_scalar};
static const sky_fn k_sky[3] = {_oak_cpu_lanes_sky_avx2, _oak_cpu_lanes_sky_sse4,
                                _oak_cpu_lanes_sky_scalar};

static bool has_isa(int i) {
    __builtin_cpu_init();
    if (i == 0) return __builtin_cpu_supports("avx2");
    if (i == 1) return __builtin_cpu_supports("sse4.1");
    return true;
}

static uint32_t g_rng = 12345u;
static float rnd(float lo, float hi) { /* uniform in [lo, hi) */
    g_rng = g_rng * 1664525u + 1013904223u;
    return lo + (hi - lo) * (float)(g_rng >> 8) / 16777216.0f;
}

/* the number of floats that differ in bits */
static uint32_t bits_differ(const float *a, const float *b, uint32_t n) {
    uint32_t d = 0;
    for (uint32_t i = 0; i < n; i++) d += memcmp(a + i, b + i, sizeof(float)) != 0;
    return d;
}

#define SUN_N  3000
#define SHADOW 256 /* texels across a cascade: 4 x 4 tiles of 64 */

TEST(laneSunShadowEqualsScalar) {
    static float maps[3][SHADOW * SHADOW];
    static float P[SUN_N * 3], Ng[SUN_N * 3], ref[SUN_N], got[SUN_N];
    cpu_backend *b = calloc(1, sizeof *b);
    oak_render_view *v = calloc(1, sizeof *v);
    oak_render_light sun;
    memset(&sun, 0, sizeof sun);
    float d[3] = {0.3f, -0.8f, 0.2f}, dl = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (int k = 0; k < 3; k++) sun.direction[k] = d[k] / dl;
    sun.light.type = OAK_LIGHT_DIRECTIONAL;
    v->lights = &sun;
    v->light_count = 1;
    v->key_light = 0;
    v->znear = 0.1f;
    /* view depth = 1.5 y + 0.1 z + 20: from before the first slice to past the last */
    v->view[1][2] = -1.5f, v->view[2][2] = -0.1f, v->view[3][2] = -20.0f;
    v->cascade_count = 3;
    for (uint32_t c = 0; c < 3; c++) {
        oak_shadow_cascade *cas = &v->cascades[c];
        float ext = 10.0f * (float)(1u << c);
        cas->split_far = 12.0f * (float)(1u << c);
        cas->texel_world = 2.1f * ext / SHADOW;   /* not a power of two: rounding shows */
        cas->depth_range = c == 1 ? 0.0f : 40.0f; /* 0: read as 1 */
        cas->view_proj[0][0] = 1.0f / ext, cas->view_proj[1][0] = 0.01f;
        cas->view_proj[2][1] = 1.0f / ext, cas->view_proj[0][1] = -0.02f;
        cas->view_proj[1][2] = 1.0f / 40.0f, cas->view_proj[3][2] = 0.5f;
        cas->view_proj[3][3] = 1.0f;
        /* every entry in use, so no sum in the projection is exact by chance */
        cas->view_proj[2][0] = 0.013f, cas->view_proj[1][1] = 0.017f;
        cas->view_proj[0][2] = 0.003f, cas->view_proj[2][2] = -0.002f;
        cas->view_proj[3][0] = 0.031f, cas->view_proj[3][1] = -0.027f;
        if (c == 2) cas->view_proj[0][3] = 0.002f; /* w != 1: the divide */
        /* blocks of 16 x 16 texels near or far, in the tiled layout's order */
        for (uint32_t i = 0; i < SHADOW * SHADOW; i++) {
            uint32_t h = (i / 256) * 2654435761u ^ c * 40503u;
            maps[c][i] = (h >> 13) & 1 ? 0.8f : 0.2f;
        }
        b->shadow_read[c] = maps[c];
    }
    b->view = v;
    b->shadow_edge = SHADOW;
    _oak_cpu_shadow_setup(b, v);
    for (uint32_t i = 0; i < SUN_N; i++) {
        P[i * 3 + 0] = rnd(-12, 12); /* the first cascade's map is +-10 across */
        P[i * 3 + 1] = rnd(-20, 20);
        P[i * 3 + 2] = rnd(-12, 12);
        float n[3] = {rnd(-1, 1), rnd(-1, 1), rnd(-1, 1)};
        if (i % 7 == 0) n[0] = n[2] = 0; /* straight up or down: no slope */
        float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3; k++) Ng[i * 3 + k] = l > 0 ? n[k] / l : 0;
    }
    for (uint32_t K = 1; K <= OAK_SHADOW_PCF_SIZE; K++) {
        v->post.shadow_filter = K;
        uint32_t lit = 0, dark = 0, part = 0;
        for (uint32_t i = 0; i < SUN_N; i++) {
            ref[i] = _oak_cpu_sun_shadow(b, P + i * 3, Ng + i * 3);
            lit += ref[i] == 1.0f, dark += ref[i] == 0.0f, part += ref[i] > 0 && ref[i] < 1;
        }
        fprintf(stderr, "  K=%u: %u lit, %u dark, %u in between of %u\n", K, lit, dark, part,
                SUN_N);
        CHECK(lit >= 300 && dark >= 300 && part >= 150); /* every kind of pixel, in numbers */
        for (int w = 0; w < 3; w++) {
            if (!has_isa(w)) continue;
            for (uint32_t i = 0; i < SUN_N; i++) got[i] = -1;
            k_sun[w](b, SUN_N, P, Ng, got);
            uint32_t diff = bits_differ(ref, got, SUN_N);
            if (diff) fprintf(stderr, "  %s K=%u: %u of %u differ\n", k_name[w], K, diff, SUN_N);
            CHECK_EQ_INT(diff, 0);
            /* a count that is not the width's multiple: the last batch masked */
            k_sun[w](b, 13, P, Ng, got);
            CHECK_EQ_INT(bits_differ(ref, got, 13), 0);
        }
    }
    free(v);
    free(b);
}

#define SKY_N 4000

TEST(laneSkyReadsEqualScalar) {
    size_t floats = ((size_t)OAK_GPU_SKY_SPEC_AT + OAK_GPU_SKY_SPEC_TEXELS) * 4;
    float *sky = malloc(floats * sizeof *sky);
    static float dir[SKY_N * 3], rough[SKY_N], ndv[SKY_N], ref[SKY_N * 8], got[SKY_N * 8];
    for (size_t i = 0; i < floats; i++) sky[i] = rnd(0, 4);
    for (uint32_t i = 0; i < SKY_N; i++) {
        for (int k = 0; k < 3; k++) dir[i * 3 + k] = rnd(-1, 1);
        rough[i] = rnd(-0.1f, 1.1f);
        ndv[i] = rnd(-0.1f, 1.1f);
    }
    /* by hand: the axes, no direction at all, the seams, level boundaries, NaN */
    static const float axes[7][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0},
                                     {0, 0, 1}, {0, 0, -1}, {0, 0, 0}};
    for (uint32_t i = 0; i < 7; i++) memcpy(dir + i * 3, axes[i], sizeof axes[i]);
    for (uint32_t i = 7; i < 200; i++) dir[i * 3 + 1] = -1e-3f * (float)(i % 5); /* the fold */
    for (uint32_t i = 0; i < 6; i++) rough[i] = 0.2f * (float)i, ndv[i] = 0.2f * (float)i;
    rough[6] = ndv[6] = NAN;
    for (uint32_t i = 0; i < SKY_N; i++) {
        _oak_sky_irradiance(sky, dir + i * 3, ref + i * 8);
        _oak_sky_specular(sky, dir + i * 3, rough[i], ref + i * 8 + 3);
        _oak_sky_brdf(sky, ndv[i], rough[i], ref + i * 8 + 6, ref + i * 8 + 7);
    }
    uint32_t varied = 0;
    for (uint32_t i = 1; i < SKY_N; i++) varied += memcmp(ref + i * 8, ref, 8 * sizeof(float)) != 0;
    CHECK(varied == SKY_N - 1); /* no constant answer */
    for (int w = 0; w < 3; w++) {
        if (!has_isa(w)) continue;
        for (uint32_t i = 0; i < SKY_N * 8; i++) got[i] = -1;
        k_sky[w](sky, SKY_N, dir, rough, ndv, got);
        uint32_t diff = bits_differ(ref, got, SKY_N * 8);
        if (diff) fprintf(stderr, "  %s: %u of %u differ\n", k_name[w], diff, SKY_N * 8);
        CHECK_EQ_INT(diff, 0);
    }
    free(sky);
}

int main(void) {
    oak_test_init(0);
    RUN(laneSunShadowEqualsScalar);
    RUN(laneSkyReadsEqualScalar);
    oak_shutdown();
    return TEST_SUMMARY();
}
