/* Reflection probes' arithmetic (render/probe.h) on the host: the box
 * projection against hand-worked hits, the weight across a margin, and the
 * lookup taking a probe's map inside its box (along the projected direction,
 * not the raw reflection) and the sky outside, blended across the margin. */
#include <math.h>
#include <stdlib.h>

#include "oak_test.h"
#include "render/probe.h"
#include "render/skylight.h"

/* a room 4 wide (x), 3 high (y), 4 deep (z), captured at its middle */
static oak_gpu_probe room(float margin) {
    oak_gpu_probe p = {{0, 1.5f, 0, margin}, {-2, 0, -2, 0}, {2, 3, 2, 0}};
    return p;
}

static void unit(float v[3]) {
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) v[k] /= l;
}

static void check_dir(const float got[3], float x, float y, float z) {
    float want[3] = {x, y, z};
    unit(want);
    for (int k = 0; k < 3; k++) CHECK_NEAR(got[k], want[k], 1e-5);
}

TEST(boxProjectionAimsAtTheWallHit) {
    oak_gpu_probe p = room(0);
    /* from the floor at (1, 0, 1) up and back: leaves through the ceiling at
       (1, 3, -2), which the capture point sees along (1, 1.5, -2) */
    float P[3] = {1, 0, 1}, r[3] = {0, 1, -1}, d[3];
    unit(r);
    _oak_probe_box_dir(&p, P, r, d);
    check_dir(d, 1, 1.5f, -2);
    /* near the +x wall, heading for +z past it: the hit (1.2, 1.5, 2) lies on
       the +x side of the centre although r leans to -x */
    float Q[3] = {1.8f, 1.5f, 0}, s[3] = {-0.3f, 0, 1};
    unit(s);
    _oak_probe_box_dir(&p, Q, s, d);
    float t = 2.0f / s[2];
    check_dir(d, 1.8f + s[0] * t, 0, 2);
    CHECK(d[0] > 0.5f && s[0] < 0);
    /* at the capture point the projection is the reflection itself */
    float C[3] = {0, 1.5f, 0};
    _oak_probe_box_dir(&p, C, s, d);
    check_dir(d, s[0], s[1], s[2]);
}

TEST(weightFallsAcrossTheMargin) {
    oak_gpu_probe p = room(0.5f);
    float deep[3] = {0, 1.5f, 0}, quarter[3] = {1.75f, 1.5f, 0}, face[3] = {2, 1, 0};
    float out[3] = {2.5f, 1.5f, 0};
    CHECK_NEAR(_oak_probe_weight(&p, deep), 1.0, 1e-6);
    CHECK_NEAR(_oak_probe_weight(&p, quarter), 0.5, 1e-6);
    CHECK_NEAR(_oak_probe_weight(&p, face), 0.0, 1e-6);
    CHECK_NEAR(_oak_probe_weight(&p, out), 0.0, 1e-6);
    oak_gpu_probe hard = room(0);
    CHECK_NEAR(_oak_probe_weight(&hard, quarter), 1.0, 1e-6);
    CHECK_NEAR(_oak_probe_weight(&hard, out), 0.0, 1e-6);
}

/* a probe map red where its texel looks to +x, green to -x (every level) */
static void paint_map(float *map) {
    for (uint32_t l = 0; l < OAK_SKY_SPECULAR_LEVELS; l++) {
        uint32_t n = _oak_sky_spec_size(l), at = _oak_sky_spec_at(l) - OAK_GPU_SKY_SPEC_AT;
        for (uint32_t t = 0; t < n * n; t++) {
            float q[3];
            _oak_sky_oct_point(((float)(t % n) + 0.5f) / (float)n,
                               ((float)(t / n) + 0.5f) / (float)n, q);
            float *o = map + (size_t)(at + t) * 4;
            o[0] = q[0] > 0 ? 1.0f : 0.0f, o[1] = q[0] > 0 ? 0.0f : 1.0f, o[2] = 0, o[3] = 1;
        }
    }
}

TEST(lookupTakesTheProbeInsideAndTheSkyOutside) {
    float *sky = calloc((size_t)OAK_GPU_SKY_TEXELS * 4, sizeof(float));
    float *map = calloc((size_t)OAK_GPU_PROBE_MAP_TEXELS * 4, sizeof(float));
    CHECK(sky && map);
    if (!sky || !map) {
        free(sky), free(map);
        return;
    }
    for (uint32_t i = OAK_GPU_SKY_SPEC_AT; i < OAK_GPU_SKY_SPEC_AT + OAK_GPU_SKY_SPEC_TEXELS; i++)
        sky[(size_t)i * 4 + 2] = 1.0f, sky[(size_t)i * 4 + 3] = 1.0f; /* a blue sky */
    paint_map(map);
    oak_gpu_probe p = room(0.5f);
    float s[3] = {-0.3f, 0, 1}, c[3];
    unit(s);
    /* deep in the box (0.7 from the +x wall, beyond the margin): the wall hit
       is on the red side, where the raw reflection would read green */
    float P[3] = {1.3f, 1.5f, 0};
    _oak_probe_specular(&p, 1, map, sky, P, s, 0.0f, c);
    CHECK_NEAR(c[0], 1.0, 0.02);
    CHECK_NEAR(c[1], 0.0, 0.02);
    CHECK_NEAR(c[2], 0.0, 0.02);
    float raw[3];
    _oak_probe_map_specular(map, s, 0.0f, raw);
    CHECK(raw[1] > 0.98f); /* what an unprojected lookup sees */
    /* outside every box: the sky */
    float Q[3] = {3, 1.5f, 0};
    _oak_probe_specular(&p, 1, map, sky, Q, s, 0.0f, c);
    CHECK_NEAR(c[0], 0.0, 1e-6);
    CHECK_NEAR(c[2], 1.0, 1e-6);
    /* halfway through the margin: half probe, half sky */
    float M[3] = {1.75f, 1.5f, 0};
    _oak_probe_specular(&p, 1, map, sky, M, s, 0.0f, c);
    CHECK_NEAR(c[0], 0.5, 0.02);
    CHECK_NEAR(c[2], 0.5, 0.02);
    /* a second probe over the same point takes only what the first left */
    oak_gpu_probe two[2] = {room(0.5f), room(0)};
    two[1].lo[3] = 0;
    _oak_probe_specular(two, 2, map, sky, M, s, 0.0f, c);
    CHECK_NEAR(c[0], 1.0, 0.02);
    CHECK_NEAR(c[2], 0.0, 1e-6);
    free(sky);
    free(map);
}

int main(void) {
    RUN(boxProjectionAimsAtTheWallHit);
    RUN(weightFallsAcrossTheMargin);
    RUN(lookupTakesTheProbeInsideAndTheSkyOutside);
    return TEST_SUMMARY();
}
