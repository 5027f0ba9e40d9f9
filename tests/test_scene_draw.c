/* The scene feeding the renderer: what oak_scene_draw hands the null
 * backend's view (culled draws, camera, lights) follows the entities. */
#include <oak/backend.h>

#include "oak_test.h"

/* Camera at (0,0,10) looking at the origin: a box at the origin is seen, one
 * behind the camera (z = 20) and one far to the side (x = 100) are not. */
TEST(sceneDrawHandsVisibleDrawsToRenderer) {
    oak_renderer *r = NULL;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "null", .width = 64, .height = 64}));
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    CHECK_EQ_INT(oak_scene_draw(s, r), OAK_ERROR_NOT_FOUND); /* no camera */
    oak_mesh box;
    oak_material mat;
    CHECK_OK(oak_make_shape(&box, &(oak_shape_desc){.type = OAK_SHAPE_BOX}));
    CHECK_OK(oak_make_material(&mat, &(oak_material_desc){.name = "grey"}));
    const float places[3][3] = {{0, 0, 0}, {0, 0, 20}, {100, 0, 0}};
    oak_entity seen = {0};
    for (int i = 0; i < 3; i++) {
        oak_entity e = oak_scene_create(s, NULL);
        oak_transform t = oak_transform_identity();
        memcpy(t.position, places[i], sizeof t.position);
        oak_scene_set_transform(s, e, &t);
        oak_scene_set_mesh_renderer(s, e, &(oak_mesh_renderer){box, mat, 0});
        if (i == 0) seen = e;
    }
    oak_entity cam = oak_scene_create(s, "cam");
    oak_scene_set_camera(s, cam, &(oak_camera){0});
    oak_transform ct = oak_transform_look_at((float[3]){0, 0, 10}, (float[3]){0, 0, 0});
    oak_scene_set_transform(s, cam, &ct);
    oak_entity sun = oak_scene_create(s, "sun");
    oak_scene_set_light(s, sun, &(oak_light){.type = OAK_LIGHT_DIRECTIONAL, .intensity = 3});
    CHECK_OK(oak_scene_draw(s, r));
    const oak_render_view *v = oak_renderer_last_view(r);
    CHECK(v != NULL);
    if (v) {
        CHECK_EQ_INT(v->draws.count, 1);
        CHECK_NEAR(v->camera_pos[2], 10, 1e-5);
        CHECK_EQ_INT(v->light_count, 1);
        if (v->draws.count == 1) CHECK_EQ_INT(v->draws.mesh[0].id, box.id);
    }
    /* Move the seen box behind the camera: nothing is drawn. */
    oak_transform t = oak_transform_identity();
    t.position[2] = 30;
    oak_scene_set_transform(s, seen, &t);
    CHECK_OK(oak_scene_draw(s, r));
    v = oak_renderer_last_view(r);
    if (v) CHECK_EQ_INT(v->draws.count, 0);
    oak_destroy_scene(s);
    oak_destroy_renderer(r);
}

/* Counting hooks: a warm frame of scene + renderer makes no heap calls. */

TEST(sceneDrawWarmFramesMakeNoHeapCalls) {
    oak_renderer *r = NULL;
    CHECK_OK(
        oak_make_renderer(&r, &(oak_renderer_desc){.backend = "null", .width = 64, .height = 64}));
    oak_scene *s = NULL;
    CHECK_OK(oak_scene_load(&s, "tests/data/scene/good.json"));
    if (!r || !s) {
        oak_destroy_scene(s);
        oak_destroy_renderer(r);
        return;
    }
    for (int f = 0; f < 3; f++) CHECK_OK(oak_scene_draw(s, r));
    oak_entity base = oak_scene_find(s, "base");
    size_t before = oak_test_heap_calls();
    for (int f = 0; f < 20; f++) {
        oak_transform t = *oak_scene_transform(s, base);
        t.position[0] = 0.1f * (float)f;
        oak_scene_set_transform(s, base, &t);
        CHECK_OK(oak_scene_draw(s, r));
    }
    CHECK_EQ_INT(oak_test_heap_calls() - before, 0);
    oak_destroy_scene(s);
    oak_destroy_renderer(r);
}

int main(void) {
    oak_engine_desc d = {0};
    d.log_level = OAK_LOG_NONE;
    d.allocator = oak_test_counting_allocator();
    if (oak_init(&d)) return 2;
    RUN(sceneDrawHandsVisibleDrawsToRenderer);
    RUN(sceneDrawWarmFramesMakeNoHeapCalls);
    oak_shutdown();
    return TEST_SUMMARY();
}
