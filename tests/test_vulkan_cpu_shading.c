/* The CPU backend's numeric image tests (tests/test_cpu_shading.c) run unchanged on
 * the Vulkan backend: the same hand-worked numbers must hold on both, with the
 * validation layer on and any message failing the run. */
#include "vulkan_test.h"

#define oak_test_init(threads) vkt_init()
/* Tests of the CPU rasterizer itself (its thread pool), not of the picture. */
static bool vkt_skip(const char *name) {
    return strcmp(name, "cpuThreadCountDeterminism") == 0;
}
#undef RUN
#define RUN(name)                                                                                  \
    do {                                                                                           \
        if (vkt_skip(#name)) break;                                                                \
        oak_test_failures_ = 0;                                                                    \
        name();                                                                                    \
        if (oak_test_failures_) {                                                                  \
            oak_test_failed_++;                                                                    \
            fprintf(stderr, "FAIL %s (vulkan)\n", #name);                                          \
        } else {                                                                                   \
            oak_test_passed_++;                                                                    \
            fprintf(stderr, "ok   %s (vulkan)\n", #name);                                          \
        }                                                                                          \
    } while (0)
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
