/* The Vulkan backend starts headless on this machine's device, reports what it
 * found, clears to the sky the contract defines and reads it back, and fails
 * cleanly for devices or sizes it cannot have. Validation is on throughout. */
#include "vulkan_test.h"

TEST(vulkanProbeListsDeviceDriverAndFeatures) {
    char report[4096];
    CHECK_OK(oak_backend_probe("vulkan", report, sizeof report));
    CHECK(strstr(report, "device 0:") != NULL);
    CHECK(strstr(report, "driver:") != NULL);
    CHECK(strstr(report, "api: 1.") != NULL);
    CHECK(strstr(report, "multiDrawIndirect:") != NULL);
    CHECK(strstr(report, "descriptor indexing:") != NULL);
    CHECK(strstr(report, "usable: yes") != NULL);
}

TEST(vulkanCreateRejectsUnknownDevice) {
    void *vk = NULL;
    oak_backend_desc d = {.width = 32, .height = 32, .device = "no-such-gpu"};
    CHECK_EQ_INT(oak_backend_vulkan()->create(&vk, &d), OAK_ERROR_DEVICE);
    CHECK(vk == NULL);
    CHECK(strstr(oak_last_error(), "no-such-gpu") != NULL);
    d.device = "7";
    CHECK_EQ_INT(oak_backend_vulkan()->create(&vk, &d), OAK_ERROR_DEVICE);
}

TEST(vulkanHardwareOnlyRefusesLavapipe) {
    void *vk = NULL;
    oak_backend_desc d = {.width = 32, .height = 32, .hardware_only = true};
    oak_result r = oak_backend_vulkan()->create(&vk, &d);
    /* CI has only lavapipe; a machine with a GPU may start */
    if (r == OAK_OK) {
        CHECK(strstr(oak_backend_vulkan()->device_name(vk), "llvmpipe") == NULL);
        oak_backend_vulkan()->destroy(vk);
    } else {
        CHECK_EQ_INT(r, OAK_ERROR_DEVICE);
        CHECK(strstr(oak_last_error(), "software") != NULL);
    }
}

TEST(vulkanCreateRejectsZeroAndHugeSizes) {
    void *vk = NULL;
    oak_backend_desc d = {.width = OAK_MAX_OUTPUT_SIZE + 1, .height = 4};
    CHECK_EQ_INT(oak_backend_vulkan()->create(&vk, &d), OAK_ERROR_INVALID_ARGUMENT);
    CHECK(vk == NULL);
}

/* The sky the contract defines for a pixel, through exposure 1, clamp, sRGB
 * and rounding (no tone map, no dither, no FXAA). */
static void expected_sky(const oak_render_view *v, uint32_t x, uint32_t y, uint8_t out[3]) {
    float nx = ((float)x + 0.5f) / (float)v->width * 2 - 1;
    float ny = 1 - ((float)y + 0.5f) / (float)v->height * 2;
    vec4 a = {nx, ny, 1, 1}, b = {nx, ny, 0.5f, 1}, pa, pb;
    glm_mat4_mulv((vec4 *)v->inv_view_proj, a, pa);
    glm_mat4_mulv((vec4 *)v->inv_view_proj, b, pb);
    vec3 d = {pb[0] / pb[3] - pa[0] / pa[3], pb[1] / pb[3] - pa[1] / pa[3],
              pb[2] / pb[3] - pa[2] / pa[3]};
    glm_vec3_normalize(d);
    for (int c = 0; c < 3; c++) {
        float s = d[1] > 0
                      ? v->sky_horizon[c] + (v->sky_zenith[c] - v->sky_horizon[c]) * sqrtf(d[1])
                      : v->sky_horizon[c];
        out[c] = vkt_byte_round(s);
    }
}

TEST(vulkanEmptyViewShowsContractSky) {
    const uint32_t W = 96, H = 64;
    vkt_frontend fe = {0};
    oak_frame_input in = {0};
    in.camera.fov_y = 1.2f;
    vkt_look(in.camera_world, 0, 1, 0, 0, 1.4f, -3); /* looking a little up */
    oak_post post = {.no_tonemap = true, .no_dither = true, .no_fxaa = true};
    in.post = &post;
    const oak_render_view *v = vkt_view(&fe, W, H, &in);
    CHECK(v != NULL);
    void *vk = NULL;
    oak_backend_desc d = {.width = W, .height = H, .shadow_map_size = 256};
    CHECK_OK(oak_backend_vulkan()->create(&vk, &d));
    uint8_t *px = oak_alloc(W * H * 4);
    if (v && vk && px) {
        CHECK_OK(vkt_draw(vk, v, px));
        int bad = 0, maxd = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++) {
                uint8_t e[3];
                expected_sky(v, x, y, e);
                const uint8_t *p = px + (y * W + x) * 4;
                for (int c = 0; c < 3; c++) {
                    int dd = abs((int)p[c] - (int)e[c]);
                    if (dd > maxd) maxd = dd;
                    bad += dd > 1;
                }
                bad += p[3] != 255;
            }
        fprintf(stderr, "  sky: max difference %d, %d channels off by more than 1\n", maxd, bad);
        CHECK_EQ_INT(bad, 0);
        /* the top row is nearer the zenith than the bottom: bluer and darker */
        CHECK(px[2] != px[(H - 1) * W * 4 + 2] || px[0] != px[(H - 1) * W * 4]);
    }
    oak_free(px);
    if (vk) oak_backend_vulkan()->destroy(vk);
    vkt_frontend_release(&fe);
}

TEST(vulkanReadPixelsBeforeRenderFails) {
    void *vk = NULL;
    oak_backend_desc d = {.width = 16, .height = 16, .shadow_map_size = 64};
    CHECK_OK(oak_backend_vulkan()->create(&vk, &d));
    uint8_t px[16 * 16 * 4];
    if (vk) {
        CHECK_EQ_INT(oak_backend_vulkan()->read_pixels(vk, px, sizeof px),
                     OAK_ERROR_INVALID_ARGUMENT);
        CHECK_EQ_INT(oak_backend_vulkan()->read_pixels(vk, px, 10), OAK_ERROR_INVALID_ARGUMENT);
        oak_backend_vulkan()->destroy(vk);
    }
}

/* A window whose surface cannot be made (here: the hook refuses) ends the
 * start in the hook's one line; the renderer starts again headless (no
 * surface extension) and draws and reads back as before, presenting
 * nothing. An extension nobody has is refused by name. */
static oak_result refuse_surface(void *user, void *instance, uint64_t *surface) {
    (void)instance, (void)surface;
    ++*(int *)user;
    return oak_error(OAK_ERROR_UNSUPPORTED, "test: no surface here");
}

TEST(vulkanWindowWithoutSurfaceFallsBackHeadless) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = "vulkan", .width = 16, .height = 16, .shadow_map_size = 256};
    CHECK_OK(oak_make_renderer(&r, &d));
    if (!r) return;
    int calls = 0;
    const char *exts[] = {"VK_KHR_surface"};
    oak_window_hooks h = {.user = &calls,
                          .vk_extensions = exts,
                          .vk_extension_count = 1,
                          .vk_surface = refuse_surface};
    CHECK_EQ_INT(oak_renderer_attach_window(r, &h), OAK_ERROR_UNSUPPORTED);
    CHECK_EQ_INT(calls, 1);
    CHECK(strcmp(oak_last_error(), "test: no surface here") == 0);
    CHECK(oak_renderer_presentation(r) == NULL);
    const char *none[] = {"VK_OAK_no_such_extension"};
    h.vk_extensions = none;
    CHECK_EQ_INT(oak_renderer_attach_window(r, &h), OAK_ERROR_UNSUPPORTED);
    CHECK(strstr(oak_last_error(), "VK_OAK_no_such_extension") != NULL);
    CHECK_EQ_INT(calls, 1);
    oak_frame_input in = {0};
    glm_mat4_identity(in.camera_world);
    in.camera.znear = 0.1f, in.camera.zfar = 100.0f;
    CHECK_OK(oak_renderer_draw(r, &in));
    uint8_t px[16 * 16 * 4];
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
    CHECK(px[3] == 255); /* the sky, opaque */
    CHECK_EQ_INT(oak_renderer_present(r, 16, 16, NULL, NULL), OAK_ERROR_UNSUPPORTED);
    oak_destroy_renderer(r);
}

/* With no driver the loader finds no device: a one-line error, no crash, and
 * `auto` falls back to the cpu backend saying why. */
TEST(vulkanNoDeviceIsACleanErrorAndAutoFallsBack) {
    setenv("VK_ICD_FILENAMES", "/nonexistent/oak_no_icd.json", 1);
    setenv("VK_DRIVER_FILES", "/nonexistent/oak_no_icd.json", 1);
    void *vk = NULL;
    oak_backend_desc d = {.width = 16, .height = 16};
    CHECK_EQ_INT(oak_backend_vulkan()->create(&vk, &d), OAK_ERROR_DEVICE);
    CHECK(vk == NULL);
    CHECK(strstr(oak_last_error(), "vulkan") != NULL);
    CHECK(strchr(oak_last_error(), '\n') == NULL);
    char report[512];
    CHECK_EQ_INT(oak_backend_probe("vulkan", report, sizeof report), OAK_ERROR_DEVICE);
    oak_renderer *r = NULL;
    oak_renderer_desc rd = {.width = 16, .height = 16};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (r) {
        CHECK(strcmp(oak_renderer_backend(r), "vulkan") != 0);
        CHECK(strstr(oak_renderer_fallback_reason(r), "vulkan") != NULL);
        fprintf(stderr, "  auto: %s (%s)\n", oak_renderer_backend(r),
                oak_renderer_fallback_reason(r));
        oak_destroy_renderer(r);
    }
    unsetenv("VK_ICD_FILENAMES");
    unsetenv("VK_DRIVER_FILES");
    CHECK_OK(oak_backend_vulkan()->create(&vk, &d)); /* the driver is back */
    if (vk) oak_backend_vulkan()->destroy(vk);
}

/* The pipeline cache on disk: written when the renderer ends, as the
   driver's own data (its header: 32 bytes, version one, this device's ids);
   a damaged file is ignored at start and replaced at the end. */
static long cache_file(const char *dir, uint32_t header[4]) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "ls %s/vulkan-*.bin 2>/dev/null", dir);
    FILE *ls = popen(cmd, "r");
    char path[512] = "";
    if (ls) {
        if (!fgets(path, sizeof path, ls)) path[0] = 0;
        pclose(ls);
    }
    path[strcspn(path, "\n")] = 0;
    FILE *f = path[0] ? fopen(path, "r+b") : NULL;
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (header && fread(header, 4, 4, f) != 4) memset(header, 0, 16);
    if (!header) fwrite("not a pipeline cache, damaged on purpose", 1, 40, f);
    fclose(f);
    return len;
}

TEST(vulkanKeepsItsPipelineCacheOnDisk) {
    char dir[512];
    oak_test_out(dir, sizeof dir, "vkcache");
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    setenv("OAK_CACHE_DIR", dir, 1);
    for (int round = 0; round < 2; round++) {
        void *vk = NULL;
        oak_backend_desc d = {.width = 32, .height = 32};
        CHECK_OK(oak_backend_vulkan()->create(&vk, &d));
        if (vk) oak_backend_vulkan()->destroy(vk);
        uint32_t h[4] = {0};
        long len = cache_file(dir, h);
        fprintf(stderr, "  round %d: %ld bytes, header %u %u vendor 0x%x device 0x%x\n", round, len,
                h[0], h[1], h[2], h[3]);
        CHECK(len >= 32);       /* lavapipe keeps the header alone; NVIDIA's driver its pipelines */
        CHECK_EQ_INT(h[0], 32); /* 16 + VK_UUID_SIZE */
        CHECK_EQ_INT(h[1], 1);  /* VK_PIPELINE_CACHE_HEADER_VERSION_ONE */
        if (round == 0) cache_file(dir, NULL); /* damage it for the second start */
    }
    unsetenv("OAK_CACHE_DIR");
}

int main(void) {
    vkt_init();
    RUN(vulkanProbeListsDeviceDriverAndFeatures);
    RUN(vulkanCreateRejectsUnknownDevice);
    RUN(vulkanHardwareOnlyRefusesLavapipe);
    RUN(vulkanCreateRejectsZeroAndHugeSizes);
    RUN(vulkanEmptyViewShowsContractSky);
    RUN(vulkanReadPixelsBeforeRenderFails);
    RUN(vulkanWindowWithoutSurfaceFallsBackHeadless);
    RUN(vulkanNoDeviceIsACleanErrorAndAutoFallsBack);
    RUN(vulkanKeepsItsPipelineCacheOnDisk);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    if (vkt_validation_messages) oak_test_failed_++;
    oak_shutdown();
    return TEST_SUMMARY();
}
