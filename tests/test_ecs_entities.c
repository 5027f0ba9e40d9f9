/* Entities and component columns: generational ids, stale handles, slot
 * reuse, dense columns after removal (last item swapped in), user components,
 * names, and destroying a parent taking its children along. */
#include "oak_test.h"

TEST(ecsCreateDestroyMakesHandleStale) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity a = oak_scene_create(s, "a");
    oak_entity b = oak_scene_create(s, NULL);
    CHECK(a.id != 0 && b.id != 0 && a.id != b.id);
    CHECK_EQ_INT(oak_scene_entity_count(s), 2);
    CHECK(oak_scene_alive(s, a));
    oak_scene_destroy_entity(s, a);
    CHECK(!oak_scene_alive(s, a));
    CHECK_EQ_INT(oak_scene_entity_count(s), 1);
    CHECK(oak_scene_get(s, a, OAK_COMPONENT_TRANSFORM) == NULL);
    CHECK(oak_scene_add(s, a, OAK_COMPONENT_CAMERA) == NULL);
    CHECK_EQ_INT(oak_scene_set_name(s, a, "x"), OAK_ERROR_NOT_FOUND);
    oak_scene_destroy_entity(s, a); /* stale: nothing happens */
    CHECK_EQ_INT(oak_scene_entity_count(s), 1);
    CHECK(!oak_scene_alive(s, (oak_entity){0}));
    CHECK(!oak_scene_alive(s, (oak_entity){0xfffff}));
    oak_destroy_scene(s);
}

TEST(ecsReusedSlotGetsNewGeneration) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity a = oak_scene_create(s, NULL);
    oak_scene_destroy_entity(s, a);
    oak_entity b = oak_scene_create(s, NULL);
    CHECK_EQ_INT(oak_handle_index(b.id), oak_handle_index(a.id));
    CHECK(b.id != a.id);
    CHECK(oak_scene_alive(s, b));
    CHECK(!oak_scene_alive(s, a));
    /* Many cycles through one slot never revive an old id. */
    oak_entity first = b;
    for (int i = 0; i < 100; i++) {
        oak_scene_destroy_entity(s, b);
        b = oak_scene_create(s, NULL);
        CHECK(!oak_scene_alive(s, first));
    }
    CHECK_EQ_INT(oak_handle_index(b.id), oak_handle_index(a.id));
    CHECK_EQ_INT(oak_scene_entity_count(s), 1);
    oak_destroy_scene(s);
}

TEST(ecsColumnStaysDenseAfterRemoval) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_component hp = oak_scene_register_component(s, "health", sizeof(int));
    CHECK_EQ_INT(hp, OAK_COMPONENT_BUILTIN_COUNT);
    CHECK_EQ_INT(oak_scene_register_component(s, "health", sizeof(int)), hp);
    CHECK_EQ_INT(oak_scene_register_component(s, "health", 8), OAK_COMPONENT_INVALID);
    oak_entity e[5];
    for (int i = 0; i < 5; i++) {
        e[i] = oak_scene_create(s, NULL);
        int *v = oak_scene_add(s, e[i], hp);
        CHECK(v && *v == 0);
        *v = 100 + i;
    }
    /* Adding again returns the same item, untouched. */
    CHECK_EQ_INT(*(int *)oak_scene_add(s, e[2], hp), 102);
    oak_scene_remove(s, e[1], hp);
    oak_column c = oak_scene_column(s, hp);
    CHECK_EQ_INT(c.count, 4);
    CHECK_EQ_INT(c.stride, sizeof(int));
    /* The last item (e4) moved into e1's hole. */
    const uint32_t want1[4] = {e[0].id, e[4].id, e[2].id, e[3].id};
    const int vals1[4] = {100, 104, 102, 103};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ_INT(c.entities[i].id, want1[i]);
        CHECK_EQ_INT(((int *)c.data)[i], vals1[i]);
    }
    CHECK(oak_scene_get(s, e[1], hp) == NULL);
    CHECK_EQ_INT(*(int *)oak_scene_get(s, e[4], hp), 104);
    oak_scene_remove(s, e[1], hp); /* absent: no change */
    CHECK_EQ_INT(oak_scene_column(s, hp).count, 4);
    /* Destroying an entity removes it from every column. */
    oak_scene_destroy_entity(s, e[0]);
    c = oak_scene_column(s, hp);
    CHECK_EQ_INT(c.count, 3);
    const uint32_t want2[3] = {e[3].id, e[4].id, e[2].id};
    for (int i = 0; i < 3; i++) CHECK_EQ_INT(c.entities[i].id, want2[i]);
    CHECK_EQ_INT(*(int *)oak_scene_get(s, e[3], hp), 103);
    oak_column t = oak_scene_column(s, OAK_COMPONENT_TRANSFORM);
    CHECK_EQ_INT(t.count, 4);
    CHECK_EQ_INT(t.stride, sizeof(oak_transform));
    /* Remove the last item: nothing moves. */
    oak_scene_remove(s, e[2], hp);
    c = oak_scene_column(s, hp);
    CHECK_EQ_INT(c.count, 2);
    CHECK_EQ_INT(c.entities[0].id, e[3].id);
    CHECK_EQ_INT(c.entities[1].id, e[4].id);
    CHECK_EQ_INT(oak_scene_column(s, 999).count, 0);
    oak_destroy_scene(s);
}

TEST(ecsColumnsGrowPastInitialCapacity) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    enum { N = 1000 };
    static oak_entity e[N];
    for (int i = 0; i < N; i++) {
        e[i] = oak_scene_create(s, NULL);
        if (i % 2) oak_scene_set_camera(s, e[i], &(oak_camera){.fov_y = (float)i});
    }
    CHECK_EQ_INT(oak_scene_entity_count(s), N);
    oak_column c = oak_scene_column(s, OAK_COMPONENT_CAMERA);
    CHECK_EQ_INT(c.count, N / 2);
    int ok = 1;
    for (uint32_t i = 0; i < c.count; i++) {
        const oak_camera *cam = (const oak_camera *)((uint8_t *)c.data + i * c.stride);
        ok &= cam->fov_y == (float)(2 * i + 1) && c.entities[i].id == e[2 * i + 1].id;
    }
    CHECK(ok);
    for (int i = 0; i < N; i += 3) oak_scene_destroy_entity(s, e[i]);
    CHECK_EQ_INT(oak_scene_entity_count(s), N - 334);
    CHECK_EQ_INT(oak_scene_column(s, OAK_COMPONENT_TRANSFORM).count, N - 334);
    /* Cameras on odd i not divisible by 3: 500 - 167 */
    CHECK_EQ_INT(oak_scene_column(s, OAK_COMPONENT_CAMERA).count, 333);
    oak_destroy_scene(s);
}

TEST(ecsNamesAndFind) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity a = oak_scene_create(s, "lamp");
    oak_entity b = oak_scene_create(s, "lamp");
    oak_entity c = oak_scene_create(s, NULL);
    CHECK_EQ_INT(oak_scene_find(s, "lamp").id, a.id);
    CHECK(!strcmp(oak_scene_name(s, c), ""));
    CHECK_OK(oak_scene_set_name(s, c, "door"));
    CHECK_EQ_INT(oak_scene_find(s, "door").id, c.id);
    oak_scene_destroy_entity(s, a);
    CHECK_EQ_INT(oak_scene_find(s, "lamp").id, b.id);
    CHECK_EQ_INT(oak_scene_find(s, "nothing").id, 0);
    CHECK(!strcmp(oak_scene_name(s, a), ""));
    CHECK_OK(oak_scene_set_name(s, b, NULL));
    CHECK_EQ_INT(oak_scene_find(s, "lamp").id, 0);
    oak_destroy_scene(s);
}

TEST(ecsDestroyTakesChildrenAlong) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity root = oak_scene_create(s, "root");
    oak_entity a = oak_scene_create(s, "a"), b = oak_scene_create(s, "b");
    oak_entity a1 = oak_scene_create(s, "a1"), a2 = oak_scene_create(s, "a2");
    oak_entity other = oak_scene_create(s, "other");
    CHECK_OK(oak_scene_set_parent(s, a, root));
    CHECK_OK(oak_scene_set_parent(s, b, root));
    CHECK_OK(oak_scene_set_parent(s, a1, a));
    CHECK_OK(oak_scene_set_parent(s, a2, a));
    oak_scene_set_light(s, a1, &(oak_light){.intensity = 2});
    oak_scene_destroy_entity(s, a);
    CHECK(!oak_scene_alive(s, a) && !oak_scene_alive(s, a1) && !oak_scene_alive(s, a2));
    CHECK(oak_scene_alive(s, root) && oak_scene_alive(s, b) && oak_scene_alive(s, other));
    CHECK_EQ_INT(oak_scene_entity_count(s), 3);
    CHECK_EQ_INT(oak_scene_column(s, OAK_COMPONENT_LIGHT).count, 0);
    CHECK_EQ_INT(oak_scene_parent(s, b).id, root.id);
    oak_scene_destroy_entity(s, root);
    CHECK_EQ_INT(oak_scene_entity_count(s), 1);
    CHECK(oak_scene_alive(s, other));
    oak_destroy_scene(s);
}

TEST(ecsActiveCameraFallsBackToFirst) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    CHECK_EQ_INT(oak_scene_active_camera(s).id, 0);
    oak_entity c1 = oak_scene_create(s, "c1"), c2 = oak_scene_create(s, "c2");
    oak_scene_set_camera(s, c1, &(oak_camera){0});
    oak_scene_set_camera(s, c2, &(oak_camera){0});
    CHECK_EQ_INT(oak_scene_active_camera(s).id, c1.id);
    oak_scene_set_active_camera(s, c2);
    CHECK_EQ_INT(oak_scene_active_camera(s).id, c2.id);
    oak_scene_destroy_entity(s, c2);
    CHECK_EQ_INT(oak_scene_active_camera(s).id, c1.id);
    oak_destroy_scene(s);
}

TEST(ecsTransformStartsAtIdentityAndTagsWork) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    oak_entity e = oak_scene_create(s, NULL);
    const oak_transform *t = oak_scene_transform(s, e);
    oak_transform id = oak_transform_identity();
    CHECK(t && !memcmp(t, &id, sizeof id));
    oak_scene_remove(s, e, OAK_COMPONENT_TRANSFORM);
    CHECK(oak_scene_transform(s, e) == NULL);
    oak_transform *t2 = oak_scene_add(s, e, OAK_COMPONENT_TRANSFORM);
    CHECK(t2 && t2->scale[1] == 1 && t2->rotation[3] == 1);
    /* A tag: no data, but membership and a dense column all the same. */
    oak_component tag = oak_scene_register_component(s, "selected", 0);
    CHECK(tag != OAK_COMPONENT_INVALID);
    CHECK(oak_scene_add(s, e, tag) != NULL);
    CHECK(oak_scene_get(s, e, tag) != NULL);
    CHECK_EQ_INT(oak_scene_column(s, tag).count, 1);
    CHECK_EQ_INT(oak_scene_register_component(s, "", 4), OAK_COMPONENT_INVALID);
    CHECK_EQ_INT(oak_scene_register_component(s, NULL, 4), OAK_COMPONENT_INVALID);
    oak_destroy_scene(s);
}

int main(void) {
    oak_test_init(0);
    RUN(ecsCreateDestroyMakesHandleStale);
    RUN(ecsReusedSlotGetsNewGeneration);
    RUN(ecsColumnStaysDenseAfterRemoval);
    RUN(ecsColumnsGrowPastInitialCapacity);
    RUN(ecsNamesAndFind);
    RUN(ecsDestroyTakesChildrenAlong);
    RUN(ecsActiveCameraFallsBackToFirst);
    RUN(ecsTransformStartsAtIdentityAndTagsWork);
    oak_shutdown();
    return TEST_SUMMARY();
}
