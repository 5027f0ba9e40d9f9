/* GL against the CPU backend (and against Vulkan where a Vulkan device runs):
 * every scene of parity_scenes.h, with any GL debug error failing the test.
 * argv[1] "1" or "2" runs only that half of the scenes (ctest runs the two
 * as test_gl_parity and test_gl_parity_2: each renderer compiles every GL
 * program and Vulkan pipeline, and all scenes in one process passed 700 s
 * of ctest's 900). */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"
#include "parity_scenes.h"

static bool g_vulkan; /* a Vulkan device runs here too: compare with it as well */

/* Draws the input (or the scene) with cpu, gl and (where it runs) vulkan;
   gl is held against each. */
static void parity(const char *name, const oak_frame_input *input, oak_scene *scene) {
    uint8_t *img[3] = {oak_alloc(PW * PH * 4), oak_alloc(PW * PH * 4), oak_alloc(PW * PH * 4)};
    const char *backends[3] = {"cpu", "gl", "vulkan"};
    int n = g_vulkan ? 3 : 2;
    bool ok = parity_draw(backends, n, input, scene, img);
    if (ok) parity_compare(name, "cpu", "gl", img[0], img[1]);
    if (ok && n == 3) parity_compare(name, "vulkan", "gl", img[2], img[1]);
    for (int b = 0; b < 3; b++) oak_free(img[b]);
}

int main(int argc, char **argv) {
    oak_test_init(0);
    uint32_t base = _oak_gl_debug_errors();
    char report[2048];
    g_vulkan = oak_backend_probe("vulkan", report, sizeof report) == OAK_OK;
    oak_clear_error();
    fprintf(stderr, "  vulkan %s\n", g_vulkan ? "runs here: gl is compared with it too" : "absent");
    parity_run_part(argc > 1 ? atoi(argv[1]) : 0);
    uint32_t errors = _oak_gl_debug_errors() - base;
    if (errors) fprintf(stderr, "FAIL: %u GL debug errors\n", errors);
    oak_shutdown();
    return errors ? 1 : TEST_SUMMARY();
}
