/* Keyframe sampling against values worked by hand from the glTF 2.0
 * formulas: STEP, LINEAR, slerp and CUBICSPLINE at keys, between keys and
 * past both ends, and a real clip (SimpleSkin) through the loader. */
#include "oak_test.h"

#include <oak/gltf.h>

#include "gltf_test_assets.h"

static const float g_times[3] = {0, 1, 3};
static const float g_values[3] = {0, 10, -10};

TEST(animLinearScalarAtBetweenAndPastKeys) {
    oak_anim_sampler s = {3, 1, g_times, g_values, OAK_INTERP_LINEAR};
    float v = 99;
    float ts[] = {-1, 0, 0.5f, 1, 2, 3, 5}, want[] = {0, 0, 5, 10, 0, -10, -10};
    for (int i = 0; i < 7; i++) {
        oak_anim_sample(&v, &s, ts[i], false);
        CHECK_NEAR(v, want[i], 1e-6);
    }
}

TEST(animStepHoldsKeyUntilNext) {
    oak_anim_sampler s = {3, 1, g_times, g_values, OAK_INTERP_STEP};
    float v = 99;
    float ts[] = {-1, 0.5f, 0.999f, 1, 2.9f, 3, 7}, want[] = {0, 0, 0, 10, 10, -10, -10};
    for (int i = 0; i < 7; i++) {
        oak_anim_sample(&v, &s, ts[i], false);
        CHECK_NEAR(v, want[i], 1e-6);
    }
}

TEST(animLinearRotationSlerpsHalfway) {
    /* identity to 90 degrees about Z: halfway is 45 degrees about Z */
    float times[2] = {0, 2};
    float s45 = sinf(OAK_PI / 4), c45 = cosf(OAK_PI / 4);
    float q[8] = {0, 0, 0, 1, 0, 0, s45, c45};
    oak_anim_sampler s = {2, 4, times, q, OAK_INTERP_LINEAR};
    float v[4];
    oak_anim_sample(v, &s, 1, true);
    CHECK_NEAR(v[0], 0, 1e-6);
    CHECK_NEAR(v[2], 0.38268343, 1e-5);
    CHECK_NEAR(v[3], 0.92387953, 1e-5);
    /* a quarter of the way: 22.5 degrees */
    oak_anim_sample(v, &s, 0.5f, true);
    CHECK_NEAR(v[2], sinf(OAK_PI / 16), 1e-5);
    CHECK_NEAR(v[3], cosf(OAK_PI / 16), 1e-5);
}

TEST(animLinearRotationTakesShorterWay) {
    /* the second key negated is the same rotation: still 45 degrees halfway */
    float times[2] = {0, 2};
    float s45 = sinf(OAK_PI / 4), c45 = cosf(OAK_PI / 4);
    float q[8] = {0, 0, 0, 1, 0, 0, -s45, -c45};
    oak_anim_sampler s = {2, 4, times, q, OAK_INTERP_LINEAR};
    float v[4];
    oak_anim_sample(v, &s, 1, true);
    CHECK_NEAR(v[2], 0.38268343, 1e-5);
    CHECK_NEAR(v[3], 0.92387953, 1e-5);
}

TEST(animCubicSplineMatchesHermiteByHand) {
    /* key 0: in 0, value 1, out 3; key 1: in -1, value 4, out 0; td = 2.
     * t=1 (u=.5): .5*1 + 2*.125*3 + .5*4 + 2*(-.125)*(-1) = 3.5
     * t=.5 (u=.25): .84375 + 2*.140625*3 + .15625*4 + 2*.046875 = 2.40625 */
    float times[2] = {0, 2};
    float vals[6] = {0, 1, 3, -1, 4, 0};
    oak_anim_sampler s = {2, 1, times, vals, OAK_INTERP_CUBICSPLINE};
    float v;
    oak_anim_sample(&v, &s, 1, false);
    CHECK_NEAR(v, 3.5, 1e-6);
    oak_anim_sample(&v, &s, 0.5f, false);
    CHECK_NEAR(v, 2.40625, 1e-6);
    oak_anim_sample(&v, &s, 0, false);
    CHECK_NEAR(v, 1, 1e-6);
    oak_anim_sample(&v, &s, 2, false);
    CHECK_NEAR(v, 4, 1e-6);
    oak_anim_sample(&v, &s, -3, false);
    CHECK_NEAR(v, 1, 1e-6);
    oak_anim_sample(&v, &s, 9, false);
    CHECK_NEAR(v, 4, 1e-6);
}

TEST(animCubicSplineVec3UsesPerComponentTangents) {
    /* x: flat tangents (smoothstep 0->1 gives .5 at u=.5); y: linear ramp
     * with tangent 1/s over td=1 reproduces the line: .25 at u=.25 */
    float times[2] = {0, 1};
    float vals[18] = {
        0, 0, 0, /* in 0 */ 0, 0, 0, /* value 0 */ 0, 1, 0, /* out 0 */
        0, 1, 0, /* in 1 */ 1, 1, 0, /* value 1 */ 0, 0, 0, /* out 1 */
    };
    oak_anim_sampler s = {2, 3, times, vals, OAK_INTERP_CUBICSPLINE};
    float v[3];
    oak_anim_sample(v, &s, 0.5f, false);
    CHECK_NEAR(v[0], 0.5, 1e-6);
    CHECK_NEAR(v[1], 0.5, 1e-6);
    oak_anim_sample(v, &s, 0.25f, false);
    CHECK_NEAR(v[0], 3 * 0.0625 - 2 * 0.015625, 1e-6); /* smoothstep(.25) = .15625 */
    CHECK_NEAR(v[1], 0.25, 1e-6);
    CHECK_NEAR(v[2], 0, 1e-6);
}

TEST(animSimpleSkinClipSlerpsBetweenFileKeys) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    char path[256];
    CHECK_OK(oak_gltf_load(&g, gltf_asset(path, sizeof path, "SimpleSkin/SimpleSkin.gltf"), &d));
    if (!g) return;
    CHECK_EQ_INT(g->clip_count, 1);
    const oak_gltf_clip *c = &g->clips[0];
    CHECK_EQ_INT(c->channel_count, 1);
    CHECK_EQ_INT(c->channels[0].node, 2);
    CHECK_EQ_INT(c->channels[0].path, OAK_ANIM_PATH_ROTATION);
    CHECK_NEAR(c->start, 0, 0);
    CHECK_NEAR(c->end, 5.5, 1e-6);
    const oak_anim_sampler *s = &c->samplers[0];
    CHECK_EQ_INT(s->key_count, 12);
    float q[4];
    /* halfway between 45 degrees (t=.5) and 90 (t=1): 67.5 about Z */
    oak_anim_sample(q, s, 0.75f, true);
    CHECK_NEAR(q[2], sinf(67.5f * OAK_PI / 360), 1e-3);
    CHECK_NEAR(q[3], cosf(67.5f * OAK_PI / 360), 1e-3);
    /* at a key: t=4 holds key 8, -90 degrees (as stored: -.707, .707) */
    oak_anim_sample(q, s, 4, true);
    CHECK_NEAR(q[2], -0.70710678, 1e-6);
    CHECK_NEAR(q[3], 0.70710678, 1e-6);
    oak_gltf_free(g);
}

int main(void) {
    oak_test_init(0);
    RUN(animLinearScalarAtBetweenAndPastKeys);
    RUN(animStepHoldsKeyUntilNext);
    RUN(animLinearRotationSlerpsHalfway);
    RUN(animLinearRotationTakesShorterWay);
    RUN(animCubicSplineMatchesHermiteByHand);
    RUN(animCubicSplineVec3UsesPerComponentTangents);
    RUN(animSimpleSkinClipSlerpsBetweenFileKeys);
    oak_shutdown();
    return TEST_SUMMARY();
}
