/* One source, two targets: every pass in shaders/ (the files glslc compiles
 * into the Vulkan backend at build time) is embedded in the GL backend and
 * compiles for OpenGL 4.5 in every specialization, so the two cannot drift. */
#include <dirent.h>

#include "oak_test.h"

#include "backend/gl/gl_internal.h"

TEST(glCompilesEverySharedPass) {
    _oak_gl_context c;
    CHECK_OK(_oak_gl_context_create(&c, true));
    DIR *d = opendir("shaders");
    CHECK(d != NULL);
    if (!d) {
        _oak_gl_context_destroy(&c);
        return;
    }
    uint32_t files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".glsl") != 0) continue;
        files++;
        const char *log = "";
        oak_result r = _oak_gl_compile_shared(e->d_name, &log);
        if (r != OAK_OK) fprintf(stderr, "%s: %s\n%s\n", e->d_name, oak_last_error(), log);
        CHECK_OK(r);
    }
    closedir(d);
    /* a pass added to shaders/ after this build was made fails here too */
    CHECK_EQ_INT(files, _oak_gl_shared_count());
    CHECK(files >= 6);
    _oak_gl_context_destroy(&c);
}

TEST(glUnknownPassIsNotFound) {
    _oak_gl_context c;
    CHECK_OK(_oak_gl_context_create(&c, false));
    const char *log;
    CHECK_EQ_INT(_oak_gl_compile_shared("nope.comp.glsl", &log), OAK_ERROR_NOT_FOUND);
    _oak_gl_context_destroy(&c);
}

int main(void) {
    oak_test_init(0);
    uint32_t base = _oak_gl_debug_errors();
    RUN(glCompilesEverySharedPass);
    RUN(glUnknownPassIsNotFound);
    uint32_t errors = _oak_gl_debug_errors() - base;
    if (errors) fprintf(stderr, "FAIL: %u GL debug errors\n", errors);
    oak_shutdown();
    return errors ? 1 : TEST_SUMMARY();
}
