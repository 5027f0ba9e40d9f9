/* The grass kernel on Vulkan (lavapipe here) against the host's growth,
 * under the validation layer: tests/grass_gpu.h says what is checked. */
#define GKT_VULKAN
#include "gpu_kernel_test.h"

#include "backend/vulkan/vk_grass.h"

static oak_result gk_run(const oak_gpu_grass_square *squares, uint32_t n, oak_instance *records,
                         uint32_t count) {
    return _oak_vk_grass_run(gkt_vk, squares, n, records, count);
}

static uint64_t gk_squares(void *self) {
    return _oak_vk_grass_squares(self);
}

#include "grass_gpu.h" /* and main */
