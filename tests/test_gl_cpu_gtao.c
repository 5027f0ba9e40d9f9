/* The gtao tests (tests/test_cpu_gtao.c) run unchanged on the OpenGL
 * backend: the sphere-on-plane profile, open ground and the indirect-only
 * rule must hold there too, and any error-severity GL debug message fails
 * the run. Skipped: the CPU job pool's thread determinism. */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"

#define GTAO_BACKEND "gl"
#define main         cpu_gtao_main
#include "test_cpu_gtao.c"
#undef main

int main(void) {
    uint32_t before = _oak_gl_debug_errors();
    int r = cpu_gtao_main();
    uint32_t errors = _oak_gl_debug_errors() - before;
    if (errors) {
        fprintf(stderr, "%u GL debug errors\n", errors);
        r = 1;
    }
    return r;
}
