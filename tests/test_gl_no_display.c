/* Without any EGL driver (libglvnd pointed at no vendor), the GL backend
 * refuses in one line naming the problem, creating it fails cleanly, and
 * `auto` falls back to a backend that runs, saying why. */
#include <stdlib.h>

#include "oak_test.h"

TEST(glWithoutEglDisplayFailsInOneLine) {
    char report[1024];
    CHECK_EQ_INT(oak_backend_probe("gl", report, sizeof report), OAK_ERROR_DEVICE);
    CHECK(strstr(report, "gl: no EGL display") != NULL);
    CHECK(strchr(report, '\n') == NULL);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "gl", .width = 16, .height = 16};
    CHECK_EQ_INT(oak_make_renderer(&r, &d), OAK_ERROR_DEVICE);
    CHECK(r == NULL);
    CHECK(strstr(oak_last_error(), "EGL") != NULL);
}

TEST(autoFallsBackWhenGlCannotStart) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "auto", .width = 16, .height = 16};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (!r) return;
    CHECK(strcmp(oak_renderer_backend(r), "gl") != 0);
    fprintf(stderr, "auto took %s: %s\n", oak_renderer_backend(r), oak_renderer_fallback_reason(r));
    oak_destroy_renderer(r);
}

int main(void) {
    /* before the first EGL call: libglvnd reads it once */
    setenv("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/oak_no_vendor.json", 1);
    oak_test_init(0);
    RUN(glWithoutEglDisplayFailsInOneLine);
    RUN(autoFallsBackWhenGlCannotStart);
    oak_shutdown();
    return TEST_SUMMARY();
}
