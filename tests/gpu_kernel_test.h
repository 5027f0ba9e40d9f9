/* The device a GPU kernel's tests run on (test_gl_grass.c and
 * test_vulkan_grass.c; the particles tests have the same shape): define
 * GKT_VULKAN before including it for Vulkan under the validation layer,
 * else it is OpenGL. The kernel tests run on an opened device (a GL
 * context current, or gkt_vk, a Vulkan backend); the frame tests after
 * gkt_close make renderers of their own and read what the last frame left
 * in the instance buffer through gkt_frame_records. */
#ifndef OAK_TEST_GPU_KERNEL_H
#define OAK_TEST_GPU_KERNEL_H

#ifdef GKT_VULKAN
#include "vulkan_test.h"

#include "backend/vulkan/vk_internal.h"
#define GKT_BACKEND "vulkan"

static void *gkt_vk; /* the backend's, as created */

static bool gkt_open(void) {
    vkt_init();
    oak_backend_desc d = {.width = 32, .height = 32};
    if (oak_backend_vulkan()->create(&gkt_vk, &d) == OAK_OK) return true;
    fprintf(stderr, "skipped: no Vulkan device: %s\n", oak_last_error());
    oak_shutdown();
    return false;
}
static void gkt_close(void) {
    oak_backend_vulkan()->destroy(gkt_vk);
    gkt_vk = NULL;
}
static oak_result gkt_frame_records(void *self, uint64_t first, uint32_t n, oak_instance *out) {
    return _oak_vk_particles_frame_records(self, first, n, out);
}
#else
#include "oak_test.h"

#include "backend/gl/gl_internal.h"
#define GKT_BACKEND "gl"

static _oak_gl_context gkt_ctx;

static bool gkt_open(void) {
    oak_test_init(0);
    if (_oak_gl_context_create(&gkt_ctx, true) == OAK_OK) return true;
    fprintf(stderr, "skipped: no GL context: %s\n", oak_last_error());
    oak_shutdown();
    return false;
}
static void gkt_close(void) {
    _oak_gl_context_destroy(&gkt_ctx);
}
static oak_result gkt_frame_records(void *self, uint64_t first, uint32_t n, oak_instance *out) {
    return _oak_gl_particles_frame_records(self, first, n, out);
}
#endif

/* The end of main: (on Vulkan, no validation message) the summary. */
static int gkt_end(void) {
#ifdef GKT_VULKAN
    CHECK_EQ_INT(vkt_validation_messages, 0);
#endif
    oak_shutdown();
    return TEST_SUMMARY();
}

#endif
