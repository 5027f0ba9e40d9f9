/* Starting a test on the backend named on its command line: the Vulkan
 * validation layer on (its findings fail the test), driver and layer pinned
 * so LSan can name their frames, the engine with the test's log. Returns 0
 * to go on, or the exit code: 2 when the engine does not start,
 * OAK_TEST_SKIP when the backend does not run here. */
#ifndef OAK_TEST_BACKEND_START_H
#define OAK_TEST_BACKEND_START_H

#include <dlfcn.h>

#include "oak_test.h"

static inline int oak_test_backend_start(const char *backend, oak_log_fn log) {
    if (!strcmp(backend, "vulkan")) {
        setenv("OAK_VK_VALIDATION", "1", 0);
        dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
        dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
    }
    oak_engine_desc desc = {.log = log, .log_level = OAK_LOG_WARN};
    if (oak_init(&desc) != OAK_OK) {
        fprintf(stderr, "oak_init failed: %s\n", oak_last_error());
        return 2;
    }
    char report[2048];
    if (oak_backend_probe(backend, report, sizeof report) != OAK_OK) {
        fprintf(stderr, "skipped: %s does not run here (%s)\n", backend, oak_last_error());
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    return 0;
}

#endif
