/* The CPU taa pass held byte for byte to its per-pixel reference
 * (_oak_cpu_taa_reference: the pass as first written, motion re-derived at
 * every pixel, no lanes) at every lane width the CPU has (8 AVX2, 4 SSE4.1,
 * 1): along the worlds' camera paths, their movers moving, the meadow at
 * the low preset (render scale 0.5: upsampling, the box and tap kernels),
 * the default world at medium (0.75: some lane groups' taps too far apart
 * for the permute, so gathered) and high (no upsampling: the per-triangle
 * motion records), and the crowd at low (posed instances: last frame's
 * palettes in the records). Both history images and the frame the pass leaves are
 * compared after every frame, so the history the next frame reads is held
 * too (after the first frame, a reset, only the image it wrote: the other
 * holds whatever the allocation held). */
#include "oak_test.h"
#include "huge_pages.h"

#include "backend_start.h"

#include "backend/cpu/cpu_internal.h"
#include "backend/cpu/cpu_taa.h"
#include "render/renderer_internal.h"
#include "render/taa.h"

#define W      200
#define H      112
#define FRAMES 4

static const char *const k_isa[3] = {"avx2", "sse4", "scalar"};

/* FRAMES frames of world `name` at `preset`, both history images after
   each into hist (FRAMES x n floats); n the floats of one frame's pair */
static size_t run(const char *name, oak_preset preset, float *hist, size_t cap) {
    oak_scene *scene = NULL;
    oak_renderer *r = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_world_options wo = {.preset = preset};
    CHECK_OK(oak_world_build_with(scene, name, &wo));
    if (scene) oak_scene_post(scene)->preset = preset; /* what --preset sets */
    oak_renderer_desc rd = {.backend = "cpu", .width = W, .height = H, .preset = preset};
    CHECK_OK(oak_make_renderer(&r, &rd));
    if (!scene || !r) return 0;
    /* both history images, then the frame the pass leaves (output-sized) */
    size_t n = (size_t)_oak_taa_texels(W, H) * 4 + (size_t)W * H * 3;
    for (int f = 0; f < FRAMES; f++) {
        float eye[3], target[3];
        CHECK_OK(oak_world_camera_path(name, 0.35f + 0.02f * (float)f, eye, target));
        oak_transform tr = oak_transform_look_at(eye, target);
        oak_scene_set_transform(scene, oak_scene_active_camera(scene), &tr);
        CHECK_OK(oak_world_update(scene, name, (float)f / 30.0f));
        CHECK_OK(oak_scene_draw(scene, r));
        const cpu_backend *b = r->self;
        CHECK(b->taa && b->taa_cap >= (size_t)_oak_taa_texels(W, H) * 4 &&
              (size_t)(f + 1) * n <= cap);
        size_t h = (size_t)_oak_taa_texels(W, H) * 4;
        const float *frame = b->color_up ? b->color_up : b->color;
        if (b->taa && b->taa_cap >= h && (size_t)(f + 1) * n <= cap && frame) {
            /* the first frame (a reset) wrote only image 1 - p (p its
               parity) and left image p as the allocation left it: zeros
               here, not those bytes (the Release build's heap handed back
               an earlier renderer's history, different at every run) */
            size_t img = h / 2, p = (size_t)((r->frame - 1) & 1);
            memcpy(hist + (size_t)f * n, b->taa, h * sizeof(float));
            if (f == 0) memset(hist + p * img, 0, img * sizeof(float));
            memcpy(hist + (size_t)f * n + h, frame, (size_t)W * H * 3 * sizeof(float));
        }
    }
    oak_destroy_renderer(r);
    oak_destroy_scene(scene);
    return n;
}

static bool has_isa(int i) {
    __builtin_cpu_init();
    if (i == 0) return __builtin_cpu_supports("avx2");
    if (i == 1) return __builtin_cpu_supports("sse4.1");
    return true;
}

/* for each width: the reference and the lanes, every float's bits equal;
   the history must hold something (frames blended, motion on screen) */
static void same_as_reference(const char *name, oak_preset preset) {
    size_t cap = ((size_t)_oak_taa_texels(W, H) * 4 + (size_t)W * H * 3) * FRAMES;
    float *ref = calloc(cap, sizeof(float)), *got = calloc(cap, sizeof(float));
    /* the reference once, at the scalar width (the shading before the pass
       gives the same bytes at every width: test_cpu_lanes) */
    size_t n = 0;
    if (ref && got) {
        CHECK(_oak_cpu_isa_set("scalar"));
        _oak_cpu_taa_reference = true;
        n = run(name, preset, ref, cap);
        _oak_cpu_taa_reference = false;
    }
    for (int i = 0; i < 3 && ref && got; i++) {
        if (!has_isa(i)) continue;
        CHECK(_oak_cpu_isa_set(k_isa[i]));
        run(name, preset, got, cap);
        size_t differ = 0, held = 0, total = n * FRAMES;
        for (size_t k = 0; k < total; k++) differ += memcmp(ref + k, got + k, sizeof(float)) != 0;
        /* the history was read, not reset: texels of the last frame whose
           alpha (the frames' weight they hold) is past any of the first's */
        float first = 0;
        size_t h = (size_t)_oak_taa_texels(W, H) * 4;
        for (size_t k = 3; k < h; k += 4) first = ref[k] > first ? ref[k] : first;
        for (size_t k = 3; k < h; k += 4) held += ref[(size_t)(FRAMES - 1) * n + k] > first;
        fprintf(stderr, "  %s %s at %s: %zu of %zu floats differ (%zu history texels past %.3f)\n",
                name, oak_preset_name(preset), k_isa[i], differ, total, held, (double)first);
        CHECK(n > 0);
        CHECK(held > (size_t)W * H / 8);
        CHECK(differ == 0);
    }
    free(ref);
    free(got);
}

TEST(meadowLowSameBytes) {
    same_as_reference("meadow", OAK_PRESET_LOW);
}
/* The meadow at medium drawn twice in one process, each time a new scene
   and renderer: the same history and frame bytes both times (issue 17's
   nondeterminism: 13-536 floats differed). */
TEST(meadowMediumTwiceSameBytes) {
    size_t cap = ((size_t)_oak_taa_texels(W, H) * 4 + (size_t)W * H * 3) * FRAMES;
    float *a = calloc(cap, sizeof(float)), *b = calloc(cap, sizeof(float));
    CHECK(a && b);
    if (!a || !b) {
        free(a), free(b);
        return;
    }
    size_t n = run("meadow", OAK_PRESET_MEDIUM, a, cap);
    run("meadow", OAK_PRESET_MEDIUM, b, cap);
    size_t differ = 0;
    for (size_t k = 0; k < n * FRAMES; k++) differ += memcmp(a + k, b + k, sizeof(float)) != 0;
    fprintf(stderr, "  meadow medium twice: %zu of %zu floats differ\n", differ, n * FRAMES);
    CHECK(n > 0);
    CHECK(differ == 0);
    free(a);
    free(b);
}
TEST(defaultMediumSameBytes) {
    same_as_reference("default", OAK_PRESET_MEDIUM);
}
/* posed instances: their motion from this and last frame's palettes */
TEST(crowdLowSameBytes) {
    same_as_reference("crowd", OAK_PRESET_LOW);
}
TEST(defaultHighSameBytes) {
    same_as_reference("default", OAK_PRESET_HIGH);
}

/* Upsampling to 1280 x 720 from 640 x 360 (the low preset), the pass's
   histories and planes (46 MB) and the output-sized frame (11 MB) are
   advised into huge pages (cpu_draws.c _oak_cpu_huge_pages; on 4 KiB pages
   the upsampling's reads and writes missed the TLB: docs/PERFORMANCE.md,
   cmeadow45); $OAK_CPU_NO_HUGE leaves them as they were, the same bytes. */
TEST(taaBuffersAskForHugePages) {
#if defined(__linux__)
    enum { OW = 1280, OH = 720 };
    int advised[2] = {-2, -2};
    float *img[2] = {NULL, NULL};
    size_t hn = (size_t)_oak_taa_texels(OW, OH) * 4;
    for (int k = 0; k < 2; k++) {
        if (k == 0) setenv("OAK_CPU_NO_HUGE", "1", 1);
        oak_scene *scene = NULL;
        oak_renderer *r = NULL;
        CHECK_OK(oak_make_scene(&scene));
        oak_world_options wo = {.preset = OAK_PRESET_LOW};
        CHECK_OK(oak_world_build_with(scene, "crowd", &wo));
        if (scene) oak_scene_post(scene)->preset = OAK_PRESET_LOW;
        oak_renderer_desc rd = {
            .backend = "cpu", .width = OW, .height = OH, .preset = OAK_PRESET_LOW};
        CHECK_OK(oak_make_renderer(&r, &rd));
        unsetenv("OAK_CPU_NO_HUGE");
        if (!scene || !r) return;
        for (int f = 0; f < 2; f++) CHECK_OK(oak_scene_draw(scene, r));
        const cpu_backend *b = r->self;
        CHECK(b->taa && b->taa_cap >= hn && b->color_up);
        if (b->taa && b->taa_cap >= hn && b->color_up) {
            /* a page of each past its first 4 MiB */
            int ht = huge_advised((const char *)b->taa + (4u << 20)),
                hc = huge_advised((const char *)b->color_up + (4u << 20));
            advised[k] = ht < 0 || hc < 0 ? -1 : ht && hc;
            img[k] = malloc(hn * sizeof(float));
            if (img[k]) memcpy(img[k], b->taa, hn * sizeof(float));
        }
        oak_destroy_renderer(r);
        oak_destroy_scene(scene);
    }
    if (advised[1] >= 0) { /* smaps readable */
        CHECK_EQ_INT(advised[0], 0);
        CHECK_EQ_INT(advised[1], 1);
    }
    CHECK(img[0] && img[1]);
    if (img[0] && img[1]) { /* both histories: the same bytes, something drawn */
        CHECK(memcmp(img[0], img[1], hn * sizeof(float)) == 0);
        size_t lit = 0;
        for (size_t i = 0; i < hn; i += 4) lit += img[1][i] > 0;
        CHECK(lit > (size_t)OW * OH / 2);
    }
    free(img[0]);
    free(img[1]);
#endif
}

int main(void) {
    oak_engine_desc d = {.log = oak_test_count_log, .log_level = OAK_LOG_WARN, .threads = 2};
    if (oak_init(&d) != OAK_OK) return 2;
    RUN(meadowMediumTwiceSameBytes);
    RUN(meadowLowSameBytes);
    RUN(defaultMediumSameBytes);
    RUN(crowdLowSameBytes);
    RUN(defaultHighSameBytes);
    RUN(taaBuffersAskForHugePages);
    _oak_cpu_isa_set(k_isa[0]);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
