/* The `stress` world: 100,000 objects on a flat ground, half of them one
 * instance stream (one box, one material) and half entities in a mix;
 * counted from the scene's own frame gather. */
#include "oak_test.h"

typedef struct pair_count {
    uint32_t mesh, material, count;
} pair_count;

TEST(worldStressHas100000ObjectsInOneStreamAndAMix) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    uint64_t start = oak_time_ns();
    CHECK_OK(oak_world_build(s, "stress"));
    double build_ms = oak_ms_since(start);
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    fprintf(stderr, "  stress: %u draws, built in %.0f ms\n", in.draw_count, build_ms);
    CHECK_EQ_INT(in.draw_count, 50001); /* and the ground */
    CHECK_EQ_INT(in.stream_count, 1);
    if (in.stream_count == 1) CHECK_EQ_INT(oak_stream_count(in.streams[0]), 50000);
    /* count draws per (mesh, material) pair; there are few pairs */
    pair_count pairs[128];
    uint32_t pair_n = 0;
    for (uint32_t i = 0; i < in.draw_count; i++) {
        uint32_t k = 0;
        while (k < pair_n &&
               (pairs[k].mesh != in.meshes[i].id || pairs[k].material != in.materials[i].id))
            k++;
        if (k == pair_n) {
            if (pair_n == 128) break;
            pairs[pair_n++] = (pair_count){in.meshes[i].id, in.materials[i].id, 0};
        }
        pairs[k].count++;
    }
    uint32_t largest = 0, singles = 0;
    for (uint32_t k = 0; k < pair_n; k++) {
        largest = pairs[k].count > largest ? pairs[k].count : largest;
        singles += pairs[k].count == 1;
    }
    fprintf(stderr, "  %u (mesh, material) pairs, largest %u\n", pair_n, largest);
    CHECK(largest < 2000);               /* no big batch left among the entities */
    CHECK(pair_n >= 60 && pair_n <= 65); /* 4 meshes x 16 materials and the ground */
    CHECK_EQ_INT(singles, 1);            /* only the ground stands alone */
    oak_destroy_scene(s);
}

TEST(worldStressObjectsStandOnTheGround) {
    oak_scene *s;
    CHECK_OK(oak_make_scene(&s));
    CHECK_OK(oak_world_build(s, "stress"));
    oak_frame_input in;
    CHECK_OK(oak_scene_frame_input(s, &in));
    uint32_t bad = 0;
    float min_x = INFINITY, max_x = -INFINITY;
    for (uint32_t i = 0; i < in.draw_count; i++) {
        const oak_mesh_data *m = oak_mesh_get(in.meshes[i]);
        if (!m || !m->has_recipe || m->recipe.type == OAK_SHAPE_PLANE) continue;
        oak_bounds b;
        oak_bounds_transform(&b, &m->bounds, (vec4 *)in.transforms[i]);
        /* rotated about Y only, so the box's bottom is the object's lowest point */
        if (fabsf(b.min[1]) > 1e-3f) bad++;
        min_x = fminf(min_x, b.min[0]);
        max_x = fmaxf(max_x, b.max[0]);
    }
    /* the stream's boxes: a unit box's bottom at position.y - scale / 2 */
    const oak_instance *rec = in.stream_count ? oak_stream_records(in.streams[0]) : NULL;
    for (uint32_t i = 0; rec && i < oak_stream_count(in.streams[0]); i++) {
        if (fabsf(rec[i].position[1] - 0.5f * rec[i].scale) > 1e-3f) bad++;
        min_x = fminf(min_x, rec[i].position[0]);
    }
    fprintf(stderr, "  field spans x %.1f..%.1f m\n", min_x, max_x);
    CHECK_EQ_INT(bad, 0);
    CHECK(max_x - min_x > 900.0f);
    oak_destroy_scene(s);
}

TEST(worldStressCameraPathCirclesTheField) {
    float eye[3], target[3], first[3];
    CHECK_OK(oak_world_camera_path("stress", 0.0f, first, target));
    CHECK_OK(oak_world_camera_path("stress", 1.0f, eye, target));
    CHECK(glm_vec3_distance(first, eye) < 1e-2f); /* a closed loop */
    CHECK_OK(oak_world_camera_path("stress", 0.5f, eye, target));
    CHECK_NEAR(eye[0], -first[0], 1e-2); /* half way round */
    CHECK(eye[1] > 10.0f && target[1] == 0.0f);
}

int main(void) {
    oak_test_init(0);
    RUN(worldStressHas100000ObjectsInOneStreamAndAMix);
    RUN(worldStressObjectsStandOnTheGround);
    RUN(worldStressCameraPathCirclesTheField);
    oak_shutdown();
    return TEST_SUMMARY();
}
