/* The CPU backend's numeric image tests (tests/test_cpu_shading.c) run unchanged
 * on the OpenGL backend: the same hand-worked numbers must hold on both, and
 * any error-severity GL debug message fails the run. Skipped: the CPU
 * rasterizer's own thread determinism. */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"

#define OAK_RERUN_BACKEND "gl"
#include "cpu_rerun.h"

#define oak_backend_cpu oak_backend_gl
#define main            cpu_shading_main
#include "test_cpu_shading.c"
#undef main

int main(void) {
    uint32_t before = _oak_gl_debug_errors();
    int r = cpu_shading_main();
    uint32_t errors = _oak_gl_debug_errors() - before;
    if (errors) {
        fprintf(stderr, "%u GL debug errors\n", errors);
        r = 1;
    }
    return r;
}
