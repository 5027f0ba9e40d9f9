/* CPU backend through the whole engine: the default world built into a scene
 * and drawn by oak_renderer_draw. Checks no heap calls per frame after
 * warm-up, identical bytes for 1 and 3 threads, the stage list, and prints
 * ms per stage as a small benchmark (not asserted). */
#include <stdatomic.h>

#include "oak_test.h"

static void init_counting(uint32_t threads) {
    oak_engine_desc d = {0};
    d.log_level = OAK_LOG_WARN;
    d.threads = threads;
    d.allocator = oak_test_counting_allocator();
    if (oak_init(&d) != OAK_OK) exit(2);
}

/* Draws `frames` frames of the default world at w x h; the last frame's bytes
 * into px; heap calls of the last frame into *heap. */
static void draw_default(uint32_t w, uint32_t h, int frames, uint8_t *px, int *heap, bool print) {
    oak_scene *scene = NULL;
    oak_renderer *r = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_world_build(scene, "default"));
    oak_renderer_desc rd = {"cpu", NULL, w, h, 1024};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (!scene || !r) return;
    for (int f = 0; f < frames; f++) {
        int before = oak_test_heap_calls();
        CHECK_OK(oak_scene_draw(scene, r));
        *heap = oak_test_heap_calls() - before;
    }
    CHECK_OK(oak_renderer_read_pixels(r, px, (size_t)w * h * 4));
    oak_stage_timing t[32];
    uint32_t n = oak_renderer_timings(r, t, 32);
    bool has[5] = {0};
    const char *names[5] = {"shadow", "bins", "raster", "resolve", "post"};
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 5; k++) has[k] |= strcmp(t[i].name, names[k]) == 0;
    for (int k = 0; k < 5; k++) CHECK(has[k]);
    if (print) {
        fprintf(stderr, "bench default world %ux%u, %u threads:", w, h, oak_job_threads());
        for (uint32_t i = 0; i < n; i++) fprintf(stderr, " %s %.2f ms", t[i].name, t[i].cpu_ms);
        fprintf(stderr, "\n");
    }
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
}

TEST(cpuWorldFrameAllocatesNothingAfterWarmup) {
    static uint8_t px[320 * 180 * 4];
    int heap = -1;
    draw_default(320, 180, 3, px, &heap, false);
    CHECK_EQ_INT(heap, 0);
}

TEST(cpuWorldMovingCameraAllocatesNothingAfterWarmup) {
    /* two camera positions along the world's path, visited in turn: the
       shadow cascade moves with the view, so every frame redraws the map and
       rebins everything; after one visit to each, no heap calls */
    oak_scene *scene = NULL;
    oak_renderer *r = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_world_build(scene, "default"));
    oak_renderer_desc rd = {"cpu", NULL, 320, 180, 1024};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (!scene || !r) return;
    oak_entity cam = oak_scene_active_camera(scene);
    int heap = -1;
    double shadow_ms = 0;
    for (int f = 0; f < 6; f++) {
        float eye[3], target[3];
        CHECK_OK(oak_world_camera_path("default", (f & 1) ? 0.3f : 0.0f, eye, target));
        oak_transform tr = oak_transform_look_at(eye, target);
        oak_scene_set_transform(scene, cam, &tr);
        int before = oak_test_heap_calls();
        CHECK_OK(oak_scene_draw(scene, r));
        heap = oak_test_heap_calls() - before;
        oak_stage_timing t[32];
        uint32_t n = oak_renderer_timings(r, t, 32);
        for (uint32_t i = 0; i < n; i++)
            if (!strcmp(t[i].name, "shadow")) shadow_ms = t[i].cpu_ms;
    }
    CHECK_EQ_INT(heap, 0);
    CHECK(shadow_ms > 0); /* the map was redrawn, not kept */
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
}

TEST(cpuWorldSameBytesForOneAndThreeThreads) {
    enum { W = 320, H = 180 };
    static uint8_t a[W * H * 4], b[W * H * 4];
    int heap;
    oak_shutdown();
    init_counting(1);
    draw_default(W, H, 3, a, &heap, true);
    oak_shutdown();
    init_counting(3);
    draw_default(W, H, 3, b, &heap, true);
    int diff = 0;
    for (size_t i = 0; i < sizeof a; i++) diff += a[i] != b[i];
    CHECK_EQ_INT(diff, 0);
    /* a world, not a blank: the top row is sky and the bottom row ground,
       and they differ */
    CHECK(memcmp(a + (W / 2) * 4, a + ((size_t)(H - 1) * W + W / 2) * 4, 3) != 0);
    char path[512];
    oak_image_write_png(oak_test_out(path, sizeof path, "cpuWorldDefault.png"), W, H, a);
}

/* `oak bench --json` reads per-thread busy time as stages busy.t0..: with
   three workers all three are reported, none is negative, none exceeds the
   frame's wall time, and the frame kept them busy at all */
TEST(cpuWorldReportsBusyPerThread) {
    oak_shutdown();
    init_counting(3);
    oak_scene *scene = NULL;
    oak_renderer *r = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_world_build(scene, "default"));
    oak_renderer_desc rd = {"cpu", NULL, 320, 180, 1024};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (!scene || !r) return;
    CHECK_OK(oak_scene_draw(scene, r));
    uint64_t t0 = oak_time_ns();
    CHECK_OK(oak_scene_draw(scene, r));
    double frame_ms = oak_ms_since(t0);
    oak_stage_timing t[64];
    uint32_t n = oak_renderer_timings(r, t, 64);
    int seen = 0;
    double sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (strncmp(t[i].name, "busy.t", 6)) continue;
        CHECK_EQ_INT(atoi(t[i].name + 6), seen);
        CHECK(t[i].cpu_ms >= 0 && t[i].cpu_ms <= frame_ms);
        sum += t[i].cpu_ms;
        seen++;
    }
    CHECK_EQ_INT(seen, 3);
    CHECK(sum > 0);
    fprintf(stderr, "busy over a %.2f ms frame, 3 threads: %.2f ms in all\n", frame_ms, sum);
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
}

int main(void) {
    init_counting(0);
    RUN(cpuWorldFrameAllocatesNothingAfterWarmup);
    RUN(cpuWorldMovingCameraAllocatesNothingAfterWarmup);
    RUN(cpuWorldSameBytesForOneAndThreeThreads);
    RUN(cpuWorldReportsBusyPerThread);
    oak_shutdown();
    return TEST_SUMMARY();
}
