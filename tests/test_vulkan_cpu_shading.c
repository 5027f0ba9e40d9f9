/* The CPU backend's numeric image tests (tests/test_cpu_shading.c) run unchanged on
 * the Vulkan backend: the same hand-worked numbers must hold on both, with the
 * validation layer on and any message failing the run. */
#include "vulkan_test.h"

#define oak_test_init(threads) vkt_init()
#define OAK_RERUN_BACKEND      "vulkan"
#include "cpu_rerun.h"

#define oak_backend_cpu oak_backend_vulkan
#define main            cpu_shading_main
#include "test_cpu_shading.c"
#undef main

int main(void) {
    int r = cpu_shading_main();
    if (vkt_validation_messages) {
        fprintf(stderr, "%d validation messages\n", vkt_validation_messages);
        r = 1;
    }
    return r;
}
