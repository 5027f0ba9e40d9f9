/* The grass kernel on Vulkan (lavapipe here) against the host's growth,
 * under the validation layer: tests/grass_gpu.h says what is checked. */
#include "vulkan_test.h"

#include "backend/vulkan/vk_grass.h"

static void *g_vk;

static oak_result gk_run(const oak_gpu_grass_square *squares, uint32_t n, oak_instance *records,
                         uint32_t count) {
    return _oak_vk_grass_run(g_vk, squares, n, records, count);
}

static oak_result gk_frame_records(void *self, uint64_t first, uint32_t n, oak_instance *out) {
    return _oak_vk_particles_frame_records(self, first, n, out);
}

static uint64_t gk_squares(void *self) {
    return _oak_vk_grass_squares(self);
}

#define GK_BACKEND "vulkan"
#include "grass_gpu.h"

int main(void) {
    vkt_init();
    oak_backend_desc d = {.width = 32, .height = 32};
    if (oak_backend_vulkan()->create(&g_vk, &d) != OAK_OK) {
        fprintf(stderr, "skipped: no Vulkan device: %s\n", oak_last_error());
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    RUN(kernelGrowsTheHostsRecords);
    oak_backend_vulkan()->destroy(g_vk);
    RUN(frameGrowsOnlyNewSquaresOnTheDevice);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
