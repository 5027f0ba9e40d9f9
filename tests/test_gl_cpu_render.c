/* The CPU backend's numeric image tests (tests/test_cpu_render.c) run unchanged
 * on the OpenGL backend: the same hand-worked numbers must hold on both, and
 * any error-severity GL debug message fails the run. Skipped: the CPU
 * rasterizer's own thread determinism. */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"

static bool glt_skip(const char *name) {
    return strcmp(name, "cpuThreadCountDeterminism") == 0;
}
#undef RUN
#define RUN(name)                                                                                  \
    do {                                                                                           \
        if (glt_skip(#name)) break;                                                                \
        oak_test_failures_ = 0;                                                                    \
        name();                                                                                    \
        if (oak_test_failures_) {                                                                  \
            oak_test_failed_++;                                                                    \
            fprintf(stderr, "FAIL %s (gl)\n", #name);                                              \
        } else {                                                                                   \
            oak_test_passed_++;                                                                    \
            fprintf(stderr, "ok   %s (gl)\n", #name);                                              \
        }                                                                                          \
    } while (0)
#define oak_backend_cpu oak_backend_gl
#define main            cpu_render_main
#include "test_cpu_render.c"
#undef main

int main(void) {
    uint32_t before = _oak_gl_debug_errors();
    int r = cpu_render_main();
    uint32_t errors = _oak_gl_debug_errors() - before;
    if (errors) {
        fprintf(stderr, "%u GL debug errors\n", errors);
        r = 1;
    }
    return r;
}
