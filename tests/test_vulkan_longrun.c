/* 1000 frames in a row on the Vulkan backend leave no trace: live Vulkan
 * objects, device memory, pool use and heap calls through the engine's hooks
 * are the same after them as after warm-up. */
#include "vulkan_rscene.h"

TEST(vulkanThousandFramesLeakNothing) {
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    static uint8_t px[RW * RH * 4];
    for (int f = 0; f < 10; f++) CHECK_OK(rscene_frame(s, px, RW, RH));
    oak_vk_stats a, b;
    oak_vk_debug_stats(s->vk, &a);
    long heap0 = oak_test_heap_calls();
    int failures = 0;
    uint64_t t0 = oak_time_ns();
    for (int f = 0; f < 1000; f++) {
        s->worlds[1][3][1] = 0.002f * (float)f; /* something moves */
        failures += rscene_frame(s, f % 100 == 99 ? px : NULL, RW, RH) != OAK_OK;
    }
    long heap = oak_test_heap_calls() - heap0;
    oak_vk_debug_stats(s->vk, &b);
    print_stats("after 10 frames", &a);
    print_stats("after 1010 frames", &b);
    fprintf(stderr, "  heap calls in 1000 frames: %ld (%.1f ms a frame)\n", heap,
            oak_ms_since(t0) / 1000.0);
    CHECK_EQ_INT(failures, 0);
    CHECK(same_counts(&a, &b));
    CHECK_EQ_INT(heap, 0);
    rscene_free(s);
}

int main(void) {
    vkt_init_counting();
    RUN(vulkanThousandFramesLeakNothing);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    if (vkt_validation_messages) oak_test_failed_++;
    oak_shutdown();
    return TEST_SUMMARY();
}
