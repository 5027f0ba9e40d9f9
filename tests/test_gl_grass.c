/* The grass kernel on OpenGL (llvmpipe here) against the host's growth:
 * tests/grass_gpu.h says what is checked. */
#include "oak_test.h"

#include "backend/gl/gl_grass.h"
#include "backend/gl/gl_internal.h"

static oak_result gk_run(const oak_gpu_grass_square *squares, uint32_t n, oak_instance *records,
                         uint32_t count) {
    return _oak_gl_grass_run(squares, n, records, count);
}

static oak_result gk_frame_records(void *self, uint64_t first, uint32_t n, oak_instance *out) {
    return _oak_gl_particles_frame_records(self, first, n, out);
}

static uint64_t gk_squares(void *self) {
    return _oak_gl_grass_squares(self);
}

#define GK_BACKEND "gl"
#include "grass_gpu.h"

int main(void) {
    oak_test_init(0);
    _oak_gl_context ctx;
    if (_oak_gl_context_create(&ctx, true) != OAK_OK) {
        fprintf(stderr, "skipped: no GL context: %s\n", oak_last_error());
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    RUN(kernelGrowsTheHostsRecords);
    _oak_gl_context_destroy(&ctx);
    RUN(frameGrowsOnlyNewSquaresOnTheDevice);
    oak_shutdown();
    return TEST_SUMMARY();
}
