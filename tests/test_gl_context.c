/* OpenGL backend infrastructure on whatever EGL gives (llvmpipe in CI): the
 * context and probe, readback orientation (clip y = +1 is row 0), KHR_debug
 * capture, shader errors carrying the driver's log, and growable buffers. */
#include "oak_test.h"

#include "backend/gl/gl_internal.h"

static _oak_gl_backend *make_backend(uint32_t w, uint32_t h) {
    oak_backend_desc d = {.width = w, .height = h};
    void *self = NULL;
    oak_result r = oak_backend_gl()->create(&self, &d);
    if (r != OAK_OK) fprintf(stderr, "gl create failed: %s\n", oak_last_error());
    return self;
}

TEST(glProbeReportsRendererAndVersion) {
    char report[2048];
    CHECK_OK(oak_backend_gl()->probe(report, sizeof report));
    CHECK(strstr(report, "device: ") != NULL);
    CHECK(strstr(report, "api: OpenGL 4.") != NULL);
    CHECK(strstr(report, "egl platform: ") != NULL);
    fprintf(stderr, "%s", report);
}

TEST(glHardwareOnlyRefusesSoftwareRenderer) {
    _oak_gl_context c;
    CHECK_OK(_oak_gl_context_create(&c, false));
    bool software = c.software;
    _oak_gl_context_destroy(&c);
    oak_backend_desc d = {.width = 8, .height = 8, .hardware_only = true};
    void *self = NULL;
    oak_result r = oak_backend_gl()->create(&self, &d);
    if (software) {
        CHECK_EQ_INT(r, OAK_ERROR_DEVICE);
        CHECK(self == NULL);
        CHECK(strstr(oak_last_error(), "software") != NULL);
    } else {
        CHECK_OK(r);
        oak_backend_gl()->destroy(self);
    }
}

static const char *k_vs = "#version 450\n"
                          "void main() {\n"
                          "  vec2 p[3] = vec2[](vec2(-1, 0), vec2(3, 0), vec2(-1, 3));\n"
                          "  gl_Position = vec4(p[gl_VertexID], 0.5, 1);\n"
                          "}\n";
static const char *k_fs = "#version 450\n"
                          "layout(location = 0) out uvec2 id;\n"
                          "void main() { id = uvec2(7, 9); }\n";

/* A triangle covering clip y > 0 must land in rows [0, h/2): the top. */
TEST(glUpperHalfOfClipSpaceIsTopRows) {
    _oak_gl_backend *b = make_backend(16, 8);
    if (!b) {
        CHECK(0);
        return;
    }
    uint32_t err0 = _oak_gl_debug_errors();
    GLuint prog = 0, vao = 0;
    CHECK_OK(_oak_gl_program(&prog, "test-half", k_vs, k_fs, NULL));
    glCreateVertexArrays(1, &vao);
    glClipControl(GL_UPPER_LEFT, GL_ZERO_TO_ONE);
    glBindFramebuffer(GL_FRAMEBUFFER, b->targets.vis_fbo);
    glViewport(0, 0, 16, 8);
    GLuint zero[4] = {0, 0, 0, 0};
    glClearNamedFramebufferuiv(b->targets.vis_fbo, GL_COLOR, 0, zero);
    float depth0 = 0;
    glClearNamedFramebufferfv(b->targets.vis_fbo, GL_DEPTH, 0, &depth0);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_GREATER);
    glUseProgram(prog);
    glBindVertexArray(vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    uint32_t ids[16 * 8 * 2];
    float depth[16 * 8];
    glGetTextureImage(b->targets.vis, 0, GL_RG_INTEGER, GL_UNSIGNED_INT, sizeof ids, ids);
    glGetTextureImage(b->targets.depth, 0, GL_DEPTH_COMPONENT, GL_FLOAT, sizeof depth, depth);
    int top = 0, bottom = 0;
    for (int y = 0; y < 8; y++)
        for (int x = 0; x < 16; x++) {
            bool hit = ids[(y * 16 + x) * 2] == 7 && ids[(y * 16 + x) * 2 + 1] == 9;
            if (y < 4) {
                top += hit;
                CHECK_NEAR(depth[y * 16 + x], 0.5, 1e-7);
            } else {
                bottom += hit;
            }
        }
    CHECK_EQ_INT(top, 64);
    CHECK_EQ_INT(bottom, 0);
    glDeleteProgram(prog);
    glDeleteVertexArrays(1, &vao);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    CHECK_EQ_INT(_oak_gl_debug_errors() - err0, 0);
    oak_backend_gl()->destroy(b);
}

TEST(glReadPixelsGivesRowZeroFirst) {
    _oak_gl_backend *b = make_backend(4, 2);
    if (!b) {
        CHECK(0);
        return;
    }
    uint8_t row1[4 * 4];
    for (int i = 0; i < 16; i++) row1[i] = (uint8_t)(10 + i);
    uint8_t row0[4 * 4];
    for (int i = 0; i < 16; i++) row0[i] = i % 4 == 0 ? 255 : i % 4 == 3 ? 255 : 0;
    glNamedBufferSubData(b->targets.out.id, 0, 16, row0);
    glNamedBufferSubData(b->targets.out.id, 16, 16, row1);
    uint8_t px[4 * 2 * 4];
    CHECK_OK(oak_backend_gl()->read_pixels(b, px, sizeof px));
    CHECK_EQ_INT(px[0], 255);
    CHECK_EQ_INT(px[1], 0);
    CHECK_EQ_INT(px[16], 10);
    CHECK_EQ_INT(px[31], 25);
    CHECK_EQ_INT(oak_backend_gl()->read_pixels(b, px, sizeof px - 1), OAK_ERROR_INVALID_ARGUMENT);
    oak_backend_gl()->destroy(b);
}

static uint32_t g_errors_logged;
static void count_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (level == OAK_LOG_ERROR && strstr(msg, "gl: debug error")) g_errors_logged++;
}

TEST(glDebugErrorIsCapturedAndLogged) {
    oak_shutdown();
    oak_engine_desc d = {.log = count_log, .log_level = OAK_LOG_WARN};
    CHECK_OK(oak_init(&d));
    _oak_gl_backend *b = make_backend(4, 4);
    if (!b) {
        CHECK(0);
        return;
    }
    uint32_t before = _oak_gl_debug_errors();
    glEnable(0x1234); /* not a capability: GL_INVALID_ENUM */
    CHECK_EQ_INT(_oak_gl_debug_errors() - before, 1);
    CHECK_EQ_INT(g_errors_logged, 1);
    CHECK_EQ_INT(glGetError(), GL_INVALID_ENUM);
    oak_backend_gl()->destroy(b);
    oak_shutdown();
    oak_test_init(0);
}

TEST(glShaderCompileErrorCarriesDriverLog) {
    _oak_gl_backend *b = make_backend(4, 4);
    if (!b) {
        CHECK(0);
        return;
    }
    GLuint p = 0;
    const char *bad = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { oops = 1; }\n";
    CHECK_EQ_INT(_oak_gl_program(&p, "broken", NULL, NULL, bad), OAK_ERROR_DEVICE);
    CHECK(p == 0);
    CHECK(strstr(oak_last_error(), "gl: broken (compute) failed to compile") != NULL);
    CHECK(strstr(oak_last_error(), "oops") != NULL);
    CHECK(strchr(oak_last_error(), '\n') == NULL);
    const char *no_main = "#version 450\nlayout(local_size_x = 1) in;\nvoid f() {}\n";
    CHECK_EQ_INT(_oak_gl_program(&p, "nomain", NULL, NULL, no_main), OAK_ERROR_DEVICE);
    oak_backend_gl()->destroy(b);
}

TEST(glBufferGrowKeepsContents) {
    _oak_gl_backend *b = make_backend(4, 4);
    if (!b) {
        CHECK(0);
        return;
    }
    _oak_gl_buffer buf = {0};
    uint32_t a[100], c[300], back[300];
    for (int i = 0; i < 100; i++) a[i] = (uint32_t)i * 3u;
    for (int i = 0; i < 300; i++) c[i] = 1000u + (uint32_t)i;
    CHECK_OK(_oak_gl_buffer_upload(&buf, 0, a, sizeof a));
    CHECK_EQ_INT(buf.capacity, 512);
    GLuint first = buf.id;
    CHECK_OK(_oak_gl_buffer_upload(&buf, sizeof a, c, sizeof c));
    CHECK_EQ_INT(buf.capacity, 2048);
    CHECK(buf.id != first);
    CHECK_EQ_INT(buf.size, 1600);
    glGetNamedBufferSubData(buf.id, 0, sizeof a, back);
    CHECK(memcmp(back, a, sizeof a) == 0);
    glGetNamedBufferSubData(buf.id, sizeof a, sizeof c, back);
    CHECK(memcmp(back, c, sizeof c) == 0);
    _oak_gl_buffer_release(&buf);
    oak_backend_gl()->destroy(b);
}

TEST(glTwoBackendsShareOneThread) {
    _oak_gl_backend *a = make_backend(2, 2), *b = make_backend(2, 2);
    if (!a || !b) {
        CHECK(0);
        return;
    }
    /* identity camera: every view ray is horizontal, so the picture is the
       horizon colour, passed through unchanged */
    oak_render_view v = {.width = 2, .height = 2, .sky_horizon = {1, 0, 0}, .key_light = -1};
    v.post = (oak_post){.exposure = 1, .no_tonemap = true, .no_dither = true, .no_fxaa = true};
    glm_mat4_identity(v.view_proj);
    glm_mat4_identity(v.inv_view_proj);
    CHECK_OK(oak_backend_gl()->render(a, &v));
    v.sky_horizon[0] = 0, v.sky_horizon[2] = 1;
    CHECK_OK(oak_backend_gl()->render(b, &v));
    uint8_t pa[16], pb[16];
    CHECK_OK(oak_backend_gl()->read_pixels(a, pa, sizeof pa));
    CHECK_OK(oak_backend_gl()->read_pixels(b, pb, sizeof pb));
    oak_backend_gl()->destroy(a);
    CHECK_EQ_INT(pa[0], 255);
    CHECK_EQ_INT(pb[2], 255);
    CHECK_EQ_INT(pb[0], 0);
    oak_backend_gl()->destroy(b);
}

TEST(glDeviceChoiceByNumberOrSurfaceless) {
    _oak_gl_context c;
    CHECK_OK(_oak_gl_context_create_on(&c, false, "surfaceless"));
    CHECK(strcmp(c.platform, "surfaceless") == 0);
    _oak_gl_context_destroy(&c);
    CHECK_EQ_INT(_oak_gl_context_create_on(&c, false, "99"), OAK_ERROR_DEVICE);
    CHECK(strstr(oak_last_error(), "EGL device 99") != NULL);
    CHECK_EQ_INT(_oak_gl_context_create_on(&c, false, "gpu"), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "'gpu'") != NULL);
}

int main(void) {
    oak_test_init(0);
    uint32_t base = _oak_gl_debug_errors();
    RUN(glProbeReportsRendererAndVersion);
    RUN(glHardwareOnlyRefusesSoftwareRenderer);
    RUN(glUpperHalfOfClipSpaceIsTopRows);
    RUN(glReadPixelsGivesRowZeroFirst);
    uint32_t before_debug = _oak_gl_debug_errors();
    RUN(glDebugErrorIsCapturedAndLogged);
    base += _oak_gl_debug_errors() - before_debug; /* the one error provoked on purpose */
    RUN(glShaderCompileErrorCarriesDriverLog);
    RUN(glBufferGrowKeepsContents);
    RUN(glTwoBackendsShareOneThread);
    RUN(glDeviceChoiceByNumberOrSurfaceless);
    if (_oak_gl_debug_errors() != base) {
        fprintf(stderr, "FAIL: %u GL debug errors\n", _oak_gl_debug_errors() - base);
        oak_shutdown();
        return 1;
    }
    oak_shutdown();
    return TEST_SUMMARY();
}
