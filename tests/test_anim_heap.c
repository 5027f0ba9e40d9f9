/* After warm-up, animating and posing skinned and morphed glTF models makes
 * no heap calls: counted through the engine's allocator hooks. */
#include "oak_test.h"

#include <oak/anim.h>

#include "gltf_test_assets.h"

TEST(animAndSkinFramesMakeNoHeapCallsAfterWarmup) {
    const char *files[] = {"SimpleSkin/SimpleSkin.gltf", "animated/MorphStressTest.gltf"};
    oak_gltf *g[2] = {NULL, NULL};
    oak_gltf_instance *inst[2] = {NULL, NULL};
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    for (int i = 0; i < 2; i++) {
        char path[256];
        CHECK_OK(oak_gltf_load(&g[i], gltf_asset(path, sizeof path, files[i]), NULL));
        if (!g[i]) goto done; /* missing model: the check above named it */
        CHECK_OK(oak_gltf_instantiate(&inst[i], scene, g[i], (oak_entity){0}, files[i]));
        if (!inst[i]) goto done;
        oak_anim_player *p = oak_gltf_instance_player(inst[i]);
        oak_anim_play(p, 0, true);
        p->blend_clip = g[i]->clip_count - 1; /* a blended layer and an additive one too */
        p->blend_weight = 0.3f;
        p->additive_clip = 0;
        p->additive_weight = 0.5f;
    }
    for (int f = 0; f < 3; f++) {
        oak_anim_update(scene, 1.0f / 30);
        CHECK_OK(oak_skin_update(scene));
    }
    long before = oak_test_heap_calls();
    const oak_mesh_data *md = oak_mesh_get(oak_gltf_instance_mesh(inst[0], 0, 0));
    /* a mesh posed by its palette moves pose_version, one posed on the CPU version */
    uint32_t version = md ? md->version + md->pose_version : 0;
    for (int f = 0; f < 10; f++) {
        oak_anim_update(scene, 1.0f / 30);
        CHECK_OK(oak_skin_update(scene));
    }
    long calls = oak_test_heap_calls() - before;
    fprintf(stderr, "  heap calls in 10 animated, posed frames after warm-up: %ld\n", calls);
    CHECK_EQ_INT(calls, 0);
    md = oak_mesh_get(oak_gltf_instance_mesh(inst[0], 0, 0));
    CHECK(md && md->version + md->pose_version != version); /* the posed mesh did change */
    before = oak_test_heap_calls();
    for (int i = 0; i < 2; i++) {
        oak_gltf_instance_free(inst[i]);
        oak_gltf_free(g[i]);
        inst[i] = NULL;
        g[i] = NULL;
    }
    CHECK(oak_test_heap_calls() > before); /* the counter sees the engine's heap calls */
done:
    for (int i = 0; i < 2; i++) {
        oak_gltf_instance_free(inst[i]);
        oak_gltf_free(g[i]);
    }
    oak_destroy_scene(scene);
}

int main(void) {
    oak_engine_desc d = {.log_level = OAK_LOG_WARN, .allocator = oak_test_counting_allocator()};
    if (oak_init(&d) != OAK_OK) return 2;
    RUN(animAndSkinFramesMakeNoHeapCallsAfterWarmup);
    oak_shutdown();
    return TEST_SUMMARY();
}
