/* The gtao tests (tests/test_cpu_gtao.c) run unchanged on the Vulkan backend:
 * the sphere-on-plane profile, open ground and the indirect-only rule must
 * hold there too, with the validation layer on and any message failing the
 * run. Skipped: the CPU job pool's thread determinism. */
#include "vulkan_test.h"

#define oak_test_init(threads) vkt_init()
#define GTAO_BACKEND           "vulkan"
#define main                   cpu_gtao_main
#include "test_cpu_gtao.c"
#undef main

int main(void) {
    int r = cpu_gtao_main();
    if (vkt_validation_messages) {
        fprintf(stderr, "%d validation messages\n", vkt_validation_messages);
        r = 1;
    }
    return r;
}
