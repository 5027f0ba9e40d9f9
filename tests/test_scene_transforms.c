/* Transforms and hierarchy: world positions worked out by hand for a 3-level
 * chain, the exact number of matrices each update recomputes, cycles refused,
 * look-at orientation, and the frame gather's arrays. */
#include "oak_test.h"

static const float S45 = 0.70710678118654752f; /* sin and cos of 45 degrees */

static void world_pos(oak_scene *s, oak_entity e, float out[3]) {
    mat4 m;
    oak_scene_world_matrix(s, e, m);
    out[0] = m[3][0], out[1] = m[3][1], out[2] = m[3][2];
}

#define CHECK_VEC3(v, x, y, z)                                                                     \
    do {                                                                                           \
        CHECK_NEAR((v)[0], x, 1e-5);                                                               \
        CHECK_NEAR((v)[1], y, 1e-5);                                                               \
        CHECK_NEAR((v)[2], z, 1e-5);                                                               \
    } while (0)

/* A at (10,0,0) turned 90 degrees about +Y (x -> -z, z -> x); B at (0,0,-2)
 * scaled 2; C at (1,0,0). B = (10,0,0) + R(0,0,-2) = (8,0,0);
 * C = (10,0,0) + R((0,0,-2) + 2*(1,0,0)) = (10,0,0) + (-2,0,-2) = (8,0,-2). */
TEST(sceneThreeLevelWorldPositions) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity a = oak_scene_create(s, "a"), b = oak_scene_create(s, "b"),
               c = oak_scene_create(s, "c");
    /* Attach out of creation order so the update must sort parents first. */
    CHECK_OK(oak_scene_set_parent(s, a, (oak_entity){0}));
    CHECK_OK(oak_scene_set_parent(s, c, b));
    CHECK_OK(oak_scene_set_parent(s, b, a));
    oak_transform ta = oak_transform_identity(), tb = ta, tc = ta;
    ta.position[0] = 10;
    ta.rotation[1] = S45, ta.rotation[3] = S45;
    tb.position[2] = -2;
    tb.scale[0] = tb.scale[1] = tb.scale[2] = 2;
    tc.position[0] = 1;
    oak_scene_set_transform(s, c, &tc);
    oak_scene_set_transform(s, b, &tb);
    oak_scene_set_transform(s, a, &ta);
    oak_scene_update_transforms(s);
    float p[3];
    world_pos(s, a, p);
    CHECK_VEC3(p, 10, 0, 0);
    world_pos(s, b, p);
    CHECK_VEC3(p, 8, 0, 0);
    world_pos(s, c, p);
    CHECK_VEC3(p, 8, 0, -2);
    /* C's local +X (1,0,0) ends up along world -Z scaled by 2. */
    mat4 m;
    oak_scene_world_matrix(s, c, m);
    CHECK_VEC3(m[0], 0, 0, -2);
    CHECK_VEC3(m[1], 0, 2, 0);
    CHECK_VEC3(m[2], 2, 0, 0);
    /* Detaching C keeps its local transform as its world one. */
    CHECK_OK(oak_scene_set_parent(s, c, (oak_entity){0}));
    oak_scene_update_transforms(s);
    world_pos(s, c, p);
    CHECK_VEC3(p, 1, 0, 0);
    /* An entity without a transform sits at the identity. */
    oak_scene_remove(s, a, OAK_COMPONENT_TRANSFORM);
    oak_scene_update_transforms(s);
    world_pos(s, a, p);
    CHECK_VEC3(p, 0, 0, 0);
    world_pos(s, b, p);
    CHECK_VEC3(p, 0, 0, -2);
    oak_destroy_scene(s);
}

/* root -> {b -> c, b2}; d is a separate root. */
TEST(sceneUpdateRecomputesExactlyTheMovedSubtree) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity root = oak_scene_create(s, "root"), b = oak_scene_create(s, "b"),
               b2 = oak_scene_create(s, "b2"), c = oak_scene_create(s, "c"),
               d = oak_scene_create(s, "d");
    CHECK_OK(oak_scene_set_parent(s, b, root));
    CHECK_OK(oak_scene_set_parent(s, b2, root));
    CHECK_OK(oak_scene_set_parent(s, c, b));
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 5);
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 0);
    oak_transform t = oak_transform_identity();
    t.position[1] = 3;
    oak_scene_set_transform(s, root, &t);
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 4);
    float p[3];
    world_pos(s, c, p);
    CHECK_VEC3(p, 0, 3, 0);
    oak_scene_set_transform(s, c, &t);
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 1);
    world_pos(s, c, p);
    CHECK_VEC3(p, 0, 6, 0);
    oak_scene_set_transform(s, b, &t);
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 2);
    oak_scene_set_transform(s, d, &t);
    oak_scene_set_transform(s, b2, &t);
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 2);
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 0);
    /* Reparenting moves the entity and what hangs from it. */
    CHECK_OK(oak_scene_set_parent(s, b, d));
    oak_scene_update_transforms(s);
    CHECK_EQ_INT(oak_scene_last_update_count(s), 2);
    world_pos(s, c, p);
    CHECK_VEC3(p, 0, 9, 0);
    oak_destroy_scene(s);
}

TEST(sceneSetParentRefusesCycles) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity a = oak_scene_create(s, "a"), b = oak_scene_create(s, "b"),
               c = oak_scene_create(s, "c");
    CHECK_OK(oak_scene_set_parent(s, b, a));
    CHECK_OK(oak_scene_set_parent(s, c, b));
    CHECK_EQ_INT(oak_scene_set_parent(s, a, c), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "cycle") != NULL);
    CHECK_EQ_INT(oak_scene_set_parent(s, a, a), OAK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(oak_scene_set_parent(s, b, c), OAK_ERROR_INVALID_ARGUMENT);
    CHECK_EQ_INT(oak_scene_parent(s, a).id, 0);
    CHECK_EQ_INT(oak_scene_parent(s, b).id, a.id);
    CHECK_EQ_INT(oak_scene_parent(s, c).id, b.id);
    oak_entity dead = oak_scene_create(s, NULL);
    oak_scene_destroy_entity(s, dead);
    CHECK_EQ_INT(oak_scene_set_parent(s, a, dead), OAK_ERROR_INVALID_ARGUMENT);
    /* Moving c under a (a sibling of b now) is fine. */
    CHECK_OK(oak_scene_set_parent(s, c, a));
    CHECK_EQ_INT(oak_scene_parent(s, c).id, a.id);
    oak_destroy_scene(s);
}

TEST(sceneLookAtPointsMinusZAtTarget) {
    float origin[3] = {0, 0, 0};
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity e = oak_scene_create(s, NULL);
    mat4 m;
    /* From +X looking at the origin: -Z is world -X, so +Z is world +X. */
    oak_transform t = oak_transform_look_at((float[3]){5, 0, 0}, origin);
    oak_scene_set_transform(s, e, &t);
    oak_scene_update_transforms(s);
    oak_scene_world_matrix(s, e, m);
    CHECK_VEC3(m[2], 1, 0, 0);
    CHECK_VEC3(m[1], 0, 1, 0);
    CHECK_VEC3(m[0], 0, 0, -1);
    CHECK_VEC3(m[3], 5, 0, 0);
    /* From (0,0,5) at the origin: identity rotation. */
    t = oak_transform_look_at((float[3]){0, 0, 5}, origin);
    CHECK_NEAR(fabsf(t.rotation[3]), 1, 1e-6);
    /* From above (0,10,0) with a 3-4-5 offset along Z: forward (0,-0.8,-0.6)... */
    t = oak_transform_look_at((float[3]){0, 4, 3}, origin);
    oak_scene_set_transform(s, e, &t);
    oak_scene_update_transforms(s);
    oak_scene_world_matrix(s, e, m);
    CHECK_VEC3(m[2], 0, 0.8f, 0.6f);
    CHECK_VEC3(m[1], 0, 0.6f, -0.8f);
    /* Straight down: still a proper rotation, -Z is world -Y. */
    t = oak_transform_look_at((float[3]){0, 10, 0}, origin);
    oak_scene_set_transform(s, e, &t);
    oak_scene_update_transforms(s);
    oak_scene_world_matrix(s, e, m);
    CHECK_VEC3(m[2], 0, 1, 0);
    CHECK_NEAR(glm_mat4_det(m), 1, 1e-5);
    oak_destroy_scene(s);
}

/* A counting allocator: the gather must stop calling the heap once warm. */

TEST(sceneFrameInputGathersColumnsWithoutAllocating) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_frame_input in;
    CHECK_EQ_INT(oak_scene_frame_input(s, &in), OAK_ERROR_NOT_FOUND);
    oak_entity cam = oak_scene_create(s, "cam");
    oak_scene_set_camera(s, cam, &(oak_camera){.fov_y = 1.0f});
    oak_transform ct = oak_transform_look_at((float[3]){0, 0, 10}, (float[3]){0, 0, 0});
    oak_scene_set_transform(s, cam, &ct);
    oak_entity parent = oak_scene_create(s, "parent");
    oak_transform pt = oak_transform_identity();
    pt.position[0] = 4;
    oak_scene_set_transform(s, parent, &pt);
    enum { N = 3000 };
    for (uint32_t i = 0; i < N; i++) {
        oak_entity e = oak_scene_create(s, NULL);
        oak_transform t = oak_transform_identity();
        t.position[1] = (float)i;
        oak_scene_set_transform(s, e, &t);
        CHECK_OK(oak_scene_set_parent(s, e, parent));
        oak_scene_set_mesh_renderer(
            s, e, &(oak_mesh_renderer){{i + 1}, {i + 7}, i % 2 ? OAK_DRAW_NO_SHADOW : 0});
    }
    /* A spot pointing down: its -Z turned onto -Y (90 degrees about +X). */
    oak_entity lamp = oak_scene_create(s, "lamp");
    oak_transform lt = oak_transform_identity();
    lt.position[1] = 5;
    lt.rotation[0] = -S45, lt.rotation[3] = S45;
    oak_scene_set_transform(s, lamp, &lt);
    oak_scene_set_light(s, lamp, &(oak_light){.type = OAK_LIGHT_SPOT, .intensity = 7});
    CHECK_OK(oak_scene_set_parent(s, lamp, parent));

    CHECK_OK(oak_scene_frame_input(s, &in));
    CHECK_EQ_INT(in.draw_count, N);
    CHECK_NEAR(in.camera.fov_y, 1.0f, 0);
    CHECK_NEAR(in.camera_world[3][2], 10, 1e-6);
    int ok = 1;
    for (uint32_t i = 0; i < N; i++) {
        ok &= in.meshes[i].id == i + 1 && in.materials[i].id == i + 7;
        ok &= in.flags[i] == (i % 2 ? OAK_DRAW_NO_SHADOW : 0u);
        ok &= in.transforms[i][3][0] == 4.0f && in.transforms[i][3][1] == (float)i;
    }
    CHECK(ok);
    CHECK_EQ_INT(in.light_count, 1);
    CHECK_NEAR(in.lights[0].light.intensity, 7, 0);
    CHECK_VEC3(in.lights[0].position, 4, 5, 0);
    CHECK_VEC3(in.lights[0].direction, 0, -1, 0);
    CHECK(in.environment == oak_scene_environment(s));
    CHECK(in.post == oak_scene_post(s));

    /* Warm frames: move things, gather again, count heap calls. */
    size_t before = oak_test_heap_calls();
    for (int f = 0; f < 5; f++) {
        pt.position[2] = (float)f;
        oak_scene_set_transform(s, parent, &pt);
        CHECK_OK(oak_scene_frame_input(s, &in));
        CHECK_EQ_INT(oak_scene_last_update_count(s), N + 2);
    }
    CHECK_EQ_INT(oak_test_heap_calls() - before, 0);
    CHECK_NEAR(in.transforms[N - 1][3][2], 4, 0);
    oak_destroy_scene(s);
}

int main(void) {
    oak_engine_desc d = {0};
    d.log_level = OAK_LOG_NONE;
    d.allocator = oak_test_counting_allocator();
    if (oak_init(&d)) return 2;
    RUN(sceneThreeLevelWorldPositions);
    RUN(sceneUpdateRecomputesExactlyTheMovedSubtree);
    RUN(sceneSetParentRefusesCycles);
    RUN(sceneLookAtPointsMinusZAtTarget);
    RUN(sceneFrameInputGathersColumnsWithoutAllocating);
    oak_shutdown();
    return TEST_SUMMARY();
}
