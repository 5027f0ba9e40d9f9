/* The crowd's simulation: the neighbour grid finds exactly the figures a
 * brute-force search finds; two columns of 100 walking head on through
 * each other keep apart (no pair closer than a radius, 0.4 m; 0.51
 * measured) where without separation they pass through (0.006 m), and
 * most reach their goals within 60 s (90% measured) and stand on the height query's
 * ground; a step is the same bits at 1 and 4 job threads; bad descs give
 * one line. */
#include "oak_test.h"

#include <oak/world.h>

#define N 2000

static uint32_t g_rng = 12345;
static float rnd(void) { /* [0, 1), xorshift */
    g_rng ^= g_rng << 13, g_rng ^= g_rng >> 17, g_rng ^= g_rng << 5;
    return (float)(g_rng >> 8) / 16777216.0f;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static oak_crowd *random_crowd(uint32_t n, float side) {
    oak_crowd_desc d = {.capacity = n, .extent = {-side, -side, side, side}};
    oak_crowd *c = NULL;
    CHECK_OK(oak_make_crowd(&c, &d));
    g_rng = 12345;
    for (uint32_t i = 0; c && i < n; i++) {
        float p[2] = {(rnd() * 2 - 1) * side, (rnd() * 2 - 1) * side};
        float g[2] = {(rnd() * 2 - 1) * side, (rnd() * 2 - 1) * side};
        CHECK_OK(oak_crowd_add(c, p, g, 1.0f + rnd()));
    }
    return c;
}

TEST(gridFindsWhatBruteForceFinds) {
    oak_crowd *c = random_crowd(N, 30);
    if (!c) return;
    oak_crowd_desc d = oak_crowd_desc_defaults(&(oak_crowd_desc){.capacity = N});
    float r2 = d.neighbour_radius * d.neighbour_radius;
    static uint32_t grid[N], brute[N];
    uint64_t total = 0;
    for (uint32_t i = 0; i < N; i += 7) {
        uint32_t n = oak_crowd_neighbours(c, i, grid, N);
        oak_crowd_figure a, b;
        oak_crowd_get(c, i, &a);
        uint32_t m = 0;
        for (uint32_t j = 0; j < N; j++) {
            if (j == i) continue;
            oak_crowd_get(c, j, &b);
            float dx = b.position[0] - a.position[0], dz = b.position[2] - a.position[2];
            if (dx * dx + dz * dz <= r2) brute[m++] = j;
        }
        CHECK_EQ_INT(n, m);
        if (n != m) break;
        qsort(grid, n, sizeof *grid, cmp_u32);
        CHECK(!memcmp(grid, brute, sizeof(uint32_t) * n));
        total += n;
    }
    fprintf(stderr, "  %llu neighbours over %u figures, every list the brute force's\n",
            (unsigned long long)total, (N + 6) / 7);
    CHECK(total > 1000); /* a search with something to find */
    oak_destroy_crowd(c);
}

/* 100 figures a side in two columns walking through each other. */
static double crossing(float separation, float *arrived) {
    oak_crowd_desc d = {.capacity = 200, .extent = {-40, -40, 40, 40}, .separation = separation};
    if (separation == 0) d.separation = 1e-9f; /* as good as none (0 reads as the default) */
    oak_crowd *c = NULL;
    CHECK_OK(oak_make_crowd(&c, &d));
    if (!c) return 0;
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < 100; k++) {
            float x = (float)(k % 10) * 1.2f - 5.4f, z = (float)(k / 10) * 1.2f + 8.0f;
            float p[2] = {x, side ? z : -z}, g[2] = {x, side ? -z : z};
            CHECK_OK(oak_crowd_add(c, p, g, 1.4f));
        }
    double closest = INFINITY;
    for (int s = 0; s < 30 * 60; s++) { /* 60 s at 30 steps a second */
        CHECK_OK(oak_crowd_step(c, 1.0f / 30, NULL, NULL));
        if (s % 10) continue;
        for (uint32_t i = 0; i < 200; i++) {
            oak_crowd_figure a, b;
            oak_crowd_get(c, i, &a);
            for (uint32_t j = i + 1; j < 200; j++) {
                oak_crowd_get(c, j, &b);
                closest = fmin(closest,
                               hypot(a.position[0] - b.position[0], a.position[2] - b.position[2]));
            }
        }
    }
    /* how many stand within 1.5 m of their goals */
    int there = 0;
    for (uint32_t i = 0; i < 200; i++) {
        oak_crowd_figure a;
        oak_crowd_get(c, i, &a);
        float x = (float)(i % 100 % 10) * 1.2f - 5.4f, z = (float)(i % 100 / 10) * 1.2f + 8.0f;
        there += hypot(a.position[0] - x, a.position[2] - (i >= 100 ? -z : z)) < 1.5;
    }
    *arrived = (float)there / 200.0f;
    oak_destroy_crowd(c);
    return closest;
}

TEST(groupsCrossingKeepApartAndArrive) {
    float arrived_sep, arrived_none;
    double with = crossing(3.0f, &arrived_sep), without = crossing(0, &arrived_none);
    fprintf(
        stderr,
        "  closest pair: %.3f m with separation, %.3f m without; at their goals %.0f%% / %.0f%%\n",
        with, without, 100.0 * arrived_sep, 100.0 * arrived_none);
    CHECK(with > 0.4);           /* a figure's radius (0.4 m): no two overlap by more than half */
    CHECK(without < 0.05);       /* they walk through each other */
    CHECK(arrived_sep >= 0.85f); /* 90% measured; the rest still squeezing past */
}

static float hill(void *user, float x, float z) {
    (void)user;
    return 2.0f * sinf(0.1f * x) + 0.05f * z;
}

TEST(figuresStandOnTheGround) {
    oak_crowd *c = random_crowd(300, 20);
    if (!c) return;
    for (int s = 0; s < 10; s++) CHECK_OK(oak_crowd_step(c, 0.05f, hill, NULL));
    double worst = 0;
    for (uint32_t i = 0; i < 300; i++) {
        oak_crowd_figure a;
        oak_crowd_get(c, i, &a);
        worst = fmax(worst, fabs(a.position[1] - hill(NULL, a.position[0], a.position[2])));
    }
    CHECK(worst == 0);
    oak_destroy_crowd(c);
}

/* 60 steps of 2,000 figures at 1 thread and at 4: the same bits. */
static void run(uint32_t threads, float *out) {
    oak_shutdown();
    oak_engine_desc desc = {.log_level = OAK_LOG_ERROR + 1, .threads = threads};
    CHECK_OK(oak_init(&desc));
    CHECK_EQ_INT(oak_job_threads(), threads);
    oak_crowd *c = random_crowd(N, 25);
    if (!c) return;
    for (int s = 0; s < 60; s++) CHECK_OK(oak_crowd_step(c, 1.0f / 30, hill, NULL));
    for (uint32_t i = 0; i < N; i++) {
        oak_crowd_figure f;
        oak_crowd_get(c, i, &f);
        memcpy(out + 4 * i, f.position, 12);
        out[4 * i + 3] = f.heading;
    }
    oak_destroy_crowd(c);
}

TEST(sameBitsAtAnyThreadCount) {
    static float a[4 * N], b[4 * N];
    run(1, a);
    run(4, b);
    CHECK(!memcmp(a, b, sizeof a));
}

TEST(badDescsGiveOneLine) {
    oak_crowd *c = NULL;
    oak_crowd_desc d = {.capacity = 0, .extent = {0, 0, 1, 1}};
    CHECK(oak_make_crowd(&c, &d) == OAK_ERROR_INVALID_ARGUMENT && !c);
    d.capacity = 4, d.extent[2] = -1;
    CHECK(oak_make_crowd(&c, &d) == OAK_ERROR_INVALID_ARGUMENT && !c);
    d.extent[2] = 1e7f, d.extent[3] = 1e7f;
    CHECK(oak_make_crowd(&c, &d) == OAK_ERROR_LIMIT && !c);
    d.extent[2] = 10, d.extent[3] = 10;
    CHECK_OK(oak_make_crowd(&c, &d));
    float p[2] = {1, 1}, g[2] = {NAN, 0};
    CHECK(oak_crowd_add(c, p, g, 1) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(oak_crowd_step(c, -1, NULL, NULL) == OAK_ERROR_INVALID_ARGUMENT);
    oak_destroy_crowd(c);
}

int main(void) {
    oak_engine_desc desc = {.log_level = OAK_LOG_ERROR + 1};
    CHECK_OK(oak_init(&desc));
    RUN(gridFindsWhatBruteForceFinds);
    RUN(groupsCrossingKeepApartAndArrive);
    RUN(figuresStandOnTheGround);
    RUN(badDescsGiveOneLine);
    RUN(sameBitsAtAnyThreadCount);
    oak_shutdown();
    return TEST_SUMMARY();
}
