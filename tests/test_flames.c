/* Fire (world/flames.c, world/campfire.c): the same seed bakes the same
 * flames to the byte and another seed other ones; the heat's middle climbs
 * over the first 8 frames; the last frame gives off a small share of the
 * brightest frame's light; the black body is red at 1000 K, near white at
 * 6500 K and bluer as it heats; the lamp's flicker stays in [0.7, 1.1],
 * repeats for the same time and moves; the campfire world's emitters are
 * alive and its lamp flickers with the world's clock. */
#include "oak_test.h"

#include <oak/world.h>

static oak_flames_desc g_desc;
static uint32_t g_w, g_h, g_frames;

static uint8_t *bake(uint32_t seed, float *heat) {
    g_desc = oak_flames_desc_defaults(&(oak_flames_desc){.seed = seed});
    g_w = g_desc.width * g_desc.columns, g_h = g_desc.height * g_desc.rows;
    g_frames = g_desc.columns * g_desc.rows;
    uint8_t *px = malloc((size_t)g_w * g_h * 4);
    if (px) CHECK_OK(oak_flames_bake(px, heat, &g_desc));
    return px;
}

TEST(sameSeedSameFlames) {
    uint8_t *a = bake(7, NULL), *b = bake(7, NULL), *c = bake(8, NULL);
    size_t n = (size_t)g_w * g_h * 4;
    CHECK(a && b && c && !memcmp(a, b, n));
    CHECK(a && c && memcmp(a, c, n));
    /* something glows and the frames' edges stay dark */
    size_t lit = 0, edge = 0;
    for (uint32_t y = 0; a && y < g_h; y++)
        for (uint32_t x = 0; x < g_w; x++) {
            const uint8_t *p = a + ((size_t)y * g_w + x) * 4;
            lit += p[3] > 128;
            bool border = x % g_desc.width == 0 || y % g_desc.height == 0 ||
                          x % g_desc.width == g_desc.width - 1 ||
                          y % g_desc.height == g_desc.height - 1;
            edge += border && (p[0] || p[3]);
        }
    fprintf(stderr, "  %zu of %u texels over half alpha\n", lit, g_w * g_h);
    CHECK(lit > 200);
    CHECK_EQ_INT(edge, 0);
    free(a), free(b), free(c);
}

TEST(heatRisesAndFades) {
    oak_flames_desc d = oak_flames_desc_defaults(NULL);
    size_t cells = (size_t)d.width * d.height;
    float *heat = malloc(sizeof(float) * cells * d.columns * d.rows);
    uint8_t *px = heat ? bake(0, heat) : NULL;
    if (!px) return;
    double mid[OAK_PARTICLE_FRAMES], light[OAK_PARTICLE_FRAMES], brightest = 0;
    for (uint32_t k = 0; k < g_frames; k++) {
        double sum = 0, wy = 0, glow = 0;
        for (uint32_t y = 0; y < d.height; y++)
            for (uint32_t x = 0; x < d.width; x++) {
                double h = heat[cells * k + (size_t)y * d.width + x];
                sum += h, wy += h * y, glow += h * h * h * h;
            }
        mid[k] = sum > 0 ? wy / sum : 0;
        light[k] = glow;
        brightest = fmax(brightest, glow);
    }
    fprintf(stderr, "  the heat's middle: %.1f cells at frame 0, %.1f at 7, %.1f at 15\n", mid[0],
            mid[7], mid[g_frames - 1]);
    fprintf(stderr, "  the last frame's light: %.3g of the brightest frame's\n",
            light[g_frames - 1] / brightest);
    CHECK(mid[7] > mid[0] + 8);
    for (int k = 1; k < 8; k++) CHECK(mid[k] >= mid[k - 1]);
    CHECK(light[g_frames - 1] < 0.05 * brightest);
    free(heat), free(px);
}

TEST(blackBodyColours) {
    float c1[3], c19[3], c65[3];
    oak_blackbody(1000, c1);
    oak_blackbody(1900, c19);
    oak_blackbody(6500, c65);
    fprintf(stderr, "  1000 K %.3f %.3f %.3f, 1900 K %.3f %.3f %.3f, 6500 K %.3f %.3f %.3f\n",
            c1[0], c1[1], c1[2], c19[0], c19[1], c19[2], c65[0], c65[1], c65[2]);
    CHECK(c1[0] == 1 && c1[1] < 0.3f && c1[2] < 0.01f);
    CHECK(c19[0] == 1 && c19[1] > c1[1] && c19[2] < c19[1]);
    for (int k = 0; k < 3; k++) CHECK(c65[k] > 0.85f);
    float last = 0;
    for (float t = 1000; t <= 10000; t += 500) {
        float c[3];
        oak_blackbody(t, c);
        float ratio = c[2] / c[0];
        CHECK(ratio > last || (ratio == 0 && last == 0)); /* no blue at all below ~1500 K */
        last = ratio;
    }
    CHECK(last > 1); /* 10,000 K is bluish */
}

TEST(flickerStaysInItsRange) {
    double lo = 2, hi = 0, sum = 0, sum2 = 0;
    for (int i = 0; i < 600; i++) {
        double f = oak_fire_flicker(i / 60.0, 3);
        lo = fmin(lo, f), hi = fmax(hi, f), sum += f, sum2 += f * f;
        CHECK(f == oak_fire_flicker(i / 60.0, 3));
    }
    double sd = sqrt(sum2 / 600 - (sum / 600) * (sum / 600));
    fprintf(stderr, "  flicker over 10 s: %.3f .. %.3f, sd %.3f\n", lo, hi, sd);
    CHECK(lo >= 0.7 && hi <= 1.1 && sd > 0.02);
}

TEST(campfireBurns) {
    oak_scene *sc = NULL;
    CHECK_OK(oak_make_scene(&sc));
    if (!sc) return;
    CHECK_OK(oak_world_build(sc, "campfire"));
    CHECK_OK(oak_world_update(sc, "campfire", 1.0f));
    oak_particles *p = NULL;
    CHECK_OK(oak_world_particles(sc, &p));
    const char *names[3] = {"smoke", "flames", "sparks"};
    for (uint32_t e = 0; e < 3; e++) {
        oak_particle_stats st;
        CHECK_OK(oak_particles_get_stats(p, e, &st));
        fprintf(stderr, "  %s: %u alive at 1 s\n", names[e], st.alive);
        CHECK(st.alive > 3);
    }
    oak_entity lamp = oak_scene_find(sc, "fire lamp");
    const oak_light *l = lamp.id ? oak_scene_get(sc, lamp, OAK_COMPONENT_LIGHT) : NULL;
    CHECK(l != NULL);
    if (l) {
        float at1 = l->intensity;
        CHECK_OK(oak_world_update(sc, "campfire", 1.5f));
        fprintf(stderr, "  the lamp: %.2f cd at 1 s, %.2f at 1.5 s\n", at1, l->intensity);
        CHECK(at1 != l->intensity);
        CHECK_NEAR(l->intensity, 60 * oak_fire_flicker(1.5, 0xF1AEu), 1e-4);
    }
    oak_destroy_scene(sc);
}

TEST(badDescsGiveOneLine) {
    uint8_t px[4];
    oak_flames_desc d = {.width = 4};
    CHECK(oak_flames_bake(px, NULL, &d) == OAK_ERROR_INVALID_ARGUMENT);
    d = (oak_flames_desc){.columns = 5, .rows = 4};
    CHECK(oak_flames_bake(px, NULL, &d) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_flames_bake(NULL, NULL, NULL) == OAK_ERROR_INVALID_ARGUMENT);
}

int main(void) {
    oak_test_init(0);
    RUN(sameSeedSameFlames);
    RUN(heatRisesAndFades);
    RUN(blackBodyColours);
    RUN(flickerStaysInItsRange);
    RUN(campfireBurns);
    RUN(badDescsGiveOneLine);
    oak_shutdown();
    return TEST_SUMMARY();
}
