/* The grass kernel on OpenGL (llvmpipe here) against the host's growth:
 * tests/grass_gpu.h says what is checked. */
#include "gpu_kernel_test.h"

#include "backend/gl/gl_grass.h"

static oak_result gk_run(const oak_gpu_grass_square *squares, uint32_t n, oak_instance *records,
                         uint32_t count) {
    return _oak_gl_grass_run(squares, n, records, count);
}

static uint64_t gk_squares(void *self) {
    return _oak_gl_grass_squares(self);
}

#include "grass_gpu.h" /* and main */
