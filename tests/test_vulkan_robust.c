/* The Vulkan backend under churn: resizing; destroying and remaking meshes
 * and textures while drawing; and clean errors when device memory runs out
 * or the device is lost. (1000 frames in a row: test_vulkan_longrun.c.) */

#include "vulkan_rscene.h"

TEST(vulkanResizeKeepsCountsAndPicture) {
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    static uint8_t small[RW * RH * 4], big[RW * 2 * RH * 2 * 4];
    for (int f = 0; f < 3; f++) CHECK_OK(rscene_frame(s, small, RW, RH));
    oak_vk_stats a, b;
    oak_vk_debug_stats(s->vk, &a);
    for (int i = 0; i < 5; i++) {
        CHECK_OK(oak_backend_vulkan()->resize(s->vk, RW * 2, RH * 2));
        CHECK_OK(rscene_frame(s, big, RW * 2, RH * 2));
        CHECK_OK(oak_backend_vulkan()->resize(s->vk, RW, RH));
        CHECK_OK(rscene_frame(s, small, RW, RH));
    }
    CHECK_OK(rscene_frame(s, small, RW, RH));
    CHECK_OK(rscene_frame(s, small, RW, RH));
    oak_vk_debug_stats(s->vk, &b);
    print_stats("before resizing", &a);
    print_stats("after 10 resizes", &b);
    CHECK(b.buffers == a.buffers && b.images == a.images && b.views == a.views);
    CHECK(b.device_bytes <= a.device_bytes + (64u << 20));
    /* the picture scales: the centre pixel of both sizes shows the same surface */
    const uint8_t *c0 = small + ((RH / 2) * RW + RW / 2) * 4;
    const uint8_t *c1 = big + ((RH)*RW * 2 + RW) * 4;
    CHECK_NEAR(c0[1], c1[1], 24);
    /* a view of the wrong size is refused, not drawn */
    const oak_render_view *v = vkt_view(&s->fe, RW * 2, RH, &s->in);
    CHECK(v != NULL);
    if (v) CHECK_EQ_INT(oak_backend_vulkan()->render(s->vk, v), OAK_ERROR_INVALID_ARGUMENT);
    rscene_free(s);
}

static void paint_ramp(uint8_t *rgba, uint32_t w, uint32_t h, uint32_t seed) {
    for (uint32_t i = 0; i < w * h; i++) {
        rgba[i * 4 + 0] = (uint8_t)(i * 7 + seed);
        rgba[i * 4 + 1] = (uint8_t)(i * 3);
        rgba[i * 4 + 2] = (uint8_t)seed;
        rgba[i * 4 + 3] = 255;
    }
}

TEST(vulkanMeshAndTextureChurnWhileDrawing) {
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    static uint8_t texels[64 * 64 * 4];
    CHECK_OK(rscene_frame(s, NULL, RW, RH));
    oak_vk_stats a, b;
    int failures = 0;
    uint32_t slot = s->in.draw_count;
    for (int f = 0; f < 300; f++) {
        /* a new mesh, texture and material each frame, the old ones destroyed */
        oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .segments = 8 + (uint32_t)(f % 5) * 4};
        oak_mesh m;
        uint32_t size = f % 3 == 0 ? 64 : f % 3 == 1 ? 32 : 16;
        paint_ramp(texels, size, size, (uint32_t)f);
        oak_texture t;
        oak_texture_desc td = {.width = size, .height = size, .pixels = texels};
        oak_material_desc md = oak_material_desc_defaults(NULL);
        md.base_color_tex.texture.id = 0;
        failures += oak_make_shape(&m, &sd) != OAK_OK;
        failures += oak_make_texture(&t, &td) != OAK_OK;
        md.base_color_tex.texture = t;
        oak_material mat;
        failures += oak_make_material(&mat, &md) != OAK_OK;
        if (f > 0) {
            oak_destroy_mesh(s->meshes[slot]);
            oak_destroy_material(s->mats[slot]);
            oak_destroy_texture(oak_material_get(s->mats[slot]) ? (oak_texture){0}
                                                                : (oak_texture){0});
        }
        s->meshes[slot] = m;
        s->mats[slot] = mat;
        glm_mat4_identity(s->worlds[slot]);
        s->worlds[slot][3][1] = 1;
        s->in.draw_count = slot + 1;
        failures += rscene_frame(s, NULL, RW, RH) != OAK_OK;
        oak_destroy_texture(t); /* the GPU copy outlives it until swept */
        if (f == 100) oak_vk_debug_stats(s->vk, &a);
    }
    oak_vk_debug_stats(s->vk, &b);
    print_stats("after 100 churned frames", &a);
    print_stats("after 300 churned frames", &b);
    CHECK_EQ_INT(failures, 0);
    CHECK(b.device_bytes == a.device_bytes && b.blocks == a.blocks);
    CHECK(b.buffers == a.buffers && b.images == a.images);
    CHECK(b.vertex_pool_used <= a.vertex_pool_used + 2000);
    CHECK(b.texture_classes <= 3);
    oak_destroy_mesh(s->meshes[slot]);
    oak_destroy_material(s->mats[slot]);
    rscene_free(s);
}

TEST(vulkanOutOfDeviceMemoryIsACleanError) {
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    CHECK_OK(rscene_frame(s, NULL, RW, RH));
    /* growing past the first block needs a new allocation: make it fail */
    oak_vk_debug_fail_alloc(s->vk, 1);
    oak_result r = oak_backend_vulkan()->resize(s->vk, 4096, 4096);
    CHECK_EQ_INT(r, OAK_ERROR_OUT_OF_MEMORY);
    CHECK(strstr(oak_last_error(), "VK_ERROR_OUT_OF_DEVICE_MEMORY") != NULL);
    /* the backend recovers once memory is there again */
    oak_vk_debug_fail_alloc(s->vk, 0);
    CHECK_OK(oak_backend_vulkan()->resize(s->vk, RW, RH));
    static uint8_t px[RW * RH * 4];
    CHECK_OK(rscene_frame(s, px, RW, RH));
    CHECK(px[3] == 255);
    rscene_free(s);
}

TEST(vulkanLostDeviceReportsAndStops) {
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    static uint8_t px[RW * RH * 4];
    CHECK_OK(rscene_frame(s, px, RW, RH));
    oak_vk_debug_lose_device(s->vk);
    const oak_render_view *v = vkt_view(&s->fe, RW, RH, &s->in);
    CHECK_EQ_INT(oak_backend_vulkan()->sync(s->vk, v), OAK_ERROR_DEVICE);
    CHECK_EQ_INT(oak_backend_vulkan()->render(s->vk, v), OAK_ERROR_DEVICE);
    CHECK(strstr(oak_last_error(), "lost") != NULL);
    CHECK_EQ_INT(oak_backend_vulkan()->read_pixels(s->vk, px, sizeof px), OAK_ERROR_DEVICE);
    CHECK_EQ_INT(oak_backend_vulkan()->resize(s->vk, 10, 10), OAK_ERROR_DEVICE);
    rscene_free(s); /* destroy still works */
}

TEST(vulkanTimingsNameEveryPassWithGpuTimes) {
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    static uint8_t px[RW * RH * 4];
    for (int f = 0; f < 3; f++) CHECK_OK(rscene_frame(s, px, RW, RH));
    oak_stage_timing t[32];
    uint32_t n = oak_backend_vulkan()->timings(s->vk, t, 32);
    const char *want[] = {"record",  "upload", "shadow", "raster",
                          "resolve", "blend",  "post",   "gpu_frame"};
    double sum = 0, frame = -1;
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        bool found = false;
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(t[i].name, want[k])) {
                found = true;
                if (k == 0)
                    CHECK(t[i].cpu_ms > 0 && t[i].gpu_ms < 0);
                else if (k + 1 < sizeof want / sizeof *want)
                    CHECK(t[i].gpu_ms >= 0);
                else
                    frame = t[i].gpu_ms;
            }
        if (!found) fprintf(stderr, "  no stage '%s'\n", want[k]);
        CHECK(found);
    }
    for (uint32_t i = 0; i < n; i++)
        if (t[i].gpu_ms >= 0 && strcmp(t[i].name, "gpu_frame")) sum += t[i].gpu_ms;
    fprintf(stderr, "  gpu frame %.3f ms on lavapipe at %dx%d\n", frame, RW, RH);
    CHECK(frame > 0);
    CHECK_NEAR(sum, frame, 1e-9);
    CHECK_EQ_INT(oak_backend_vulkan()->timings(s->vk, t, 1), 1); /* respects max */
    rscene_free(s);
}

/* 40 boxes of one mesh and material (the frontend batches them) go out as
 * one instanced indirect command (one per shadow cascade), not forty. */
TEST(vulkanBatchedDrawsBecomeInstancedCommands) {
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    static uint8_t px[RW * RH * 4];
    CHECK_OK(rscene_frame(s, px, RW, RH));
    oak_vk_stats st;
    oak_vk_debug_stats(s->vk, &st);
    fprintf(stderr, "  %u draws -> %u visibility commands, %u shadow commands\n", s->in.draw_count,
            st.vis_commands, st.shadow_commands);
    CHECK(st.vis_commands >= 1 && st.vis_commands <= 3);
    /* casters come cascade by cascade: a plane and a run of boxes in each */
    CHECK(st.shadow_commands >= 1 && st.shadow_commands <= 2 * OAK_MAX_CASCADES);
    rscene_free(s);
}

/* Without multiDrawIndirect the groups go out as a loop of single indirect
 * draws: the same bytes. */
TEST(vulkanDrawLoopMatchesMultiDraw) {
    static uint8_t a[RW * RH * 4], b[RW * RH * 4];
    rscene *s = rscene_new();
    if (!s) return;
    populate(s);
    CHECK_OK(rscene_frame(s, a, RW, RH));
    oak_vk_stats st;
    oak_vk_debug_stats(s->vk, &st);
    rscene_free(s);
    setenv("OAK_VK_NO_MULTIDRAW", "1", 1);
    s = rscene_new();
    unsetenv("OAK_VK_NO_MULTIDRAW");
    if (!s) return;
    populate(s);
    CHECK_OK(rscene_frame(s, b, RW, RH));
    oak_vk_stats st2;
    oak_vk_debug_stats(s->vk, &st2);
    CHECK(st.multi_draw);
    CHECK(!st2.multi_draw);
    CHECK(memcmp(a, b, sizeof a) == 0);
    rscene_free(s);
}

int main(void) {
    vkt_init_counting();
    RUN(vulkanResizeKeepsCountsAndPicture);
    RUN(vulkanMeshAndTextureChurnWhileDrawing);
    RUN(vulkanOutOfDeviceMemoryIsACleanError);
    RUN(vulkanLostDeviceReportsAndStops);
    RUN(vulkanTimingsNameEveryPassWithGpuTimes);
    RUN(vulkanBatchedDrawsBecomeInstancedCommands);
    RUN(vulkanDrawLoopMatchesMultiDraw);
    CHECK_EQ_INT(vkt_validation_messages, 0);
    if (vkt_validation_messages) oak_test_failed_++;
    oak_shutdown();
    return TEST_SUMMARY();
}
