/* The CPU backend's shading kernel at every lane width and thread count gives
 * the same bytes: each parity scene drawn with the scalar kernel on one
 * thread, then with SSE4.1 and AVX2 (where the CPU has them) on three, and
 * compared byte for byte. The post pass's and FXAA's lanes at each width
 * against their per-pixel references. Also: OAK_CPU_ISA's names and what
 * `oak info` reports. */
#include "oak_test.h"
#include "fxaa_edges.h"

#include "backend/cpu/cpu_internal.h"
#include "backend/cpu/cpu_post.h"
#include "core/internal.h"
#include "parity_scenes.h"

/* one thread count for the pool, between draws (no job runs then) */
static void use_threads(uint32_t n) {
    _oak_jobs_stop();
    CHECK_OK(_oak_jobs_start(n));
    CHECK_EQ_INT((int)oak_job_threads(), (int)n);
}

static void parity(const char *name, const oak_frame_input *input, oak_scene *scene) {
    static const char *const isa[3] = {"scalar", "sse4", "avx2"};
    static const uint32_t threads[3] = {1, 3, 3};
    uint8_t *img[3] = {oak_alloc(PW * PH * 4), oak_alloc(PW * PH * 4), oak_alloc(PW * PH * 4)};
    const char *cpu = "cpu";
    int drawn = 0;
    for (int k = 0; k < 3; k++) {
        if (!_oak_cpu_isa_set(isa[k])) continue; /* not on this CPU */
        CHECK(!strcmp(_oak_cpu_isa_name(), isa[k]));
        use_threads(threads[k]);
        if (!parity_draw(&cpu, 1, input, scene, &img[drawn])) break;
        drawn++;
    }
    CHECK(drawn >= 2); /* x86-64 has SSE: at least scalar and sse4 ran */
    /* a picture, not a blank: more than one colour */
    size_t varied = 0;
    for (size_t i = 4; drawn && i < (size_t)PW * PH * 4; i += 4)
        varied += memcmp(img[0] + i, img[0], 3) != 0;
    CHECK(varied > 0);
    for (int k = 1; k < drawn; k++) {
        size_t diff = 0;
        for (size_t i = 0; i < (size_t)PW * PH * 4; i++) diff += img[0][i] != img[k][i];
        fprintf(stderr, "  %-14s scalar/1 thread vs %s/%u threads: %zu bytes differ\n", name,
                isa[k], threads[k], diff);
        CHECK_EQ_INT((int)diff, 0);
    }
    for (int k = 0; k < 3; k++) oak_free(img[k]);
    _oak_cpu_isa_set("scalar");
}

TEST(cpuPostAndFxaaLanesAtEveryWidth) {
    /* At each width the CPU has: the post kernel (with its luma plane) over
       radiance from black through the sRGB toe to far past white,
       negatives and NaN, every tone curve and flag, against post_pixel
       (the reference span); then FXAA over edges of many slopes, the
       searched pixels in lanes, against the plain per-pixel path. */
    static const char *const isa[3] = {"scalar", "sse4", "avx2"};
    enum { N = 403, W = 157, H = 96 };
    static float rgb[N * 3];
    static uint8_t ref[N * 4], got[N * 4], lref[N], lgot[N];
    static uint8_t in[W * H * 4], fa[W * H * 4], fb[W * H * 4], lumas[W * H];
    _oak_cpu_post_init();
    uint32_t seed = 2024;
    for (int i = 0; i < N * 3; i++) {
        seed = seed * 1664525u + 1013904223u;
        float u = (float)(seed >> 8) / 16777216.0f;
        static const float scale[7] = {0.01f, 1, 20, -1, 1e6f, 0.003f, 0.2f};
        rgb[i] = u * scale[i % 7];
        if (i % 37 == 4) rgb[i] = NAN;
    }
    seed = fxaa_edges(in, W, H, seed);
    _oak_cpu_fxaa(fa, in, NULL, W, H, 0, H); /* the plain path: no luma plane */
    _oak_cpu_fxaa_luma(lumas, in, W, 0, H);
    int ran = 0;
    for (int k = 0; k < 3; k++) {
        if (!_oak_cpu_isa_set(isa[k])) continue;
        ran++;
        cpu_post_kernels kern = _oak_cpu_post_kernels();
        CHECK_EQ_INT((int)kern.lanes, k == 0 ? 1 : k == 1 ? 4 : 8);
        int diff = 0, ldiff = 0, bright = 0, dark = 0;
        for (int mode = 0; mode < 12; mode++) {
            oak_post post = {0};
            post.exposure = (float)(mode % 3) * 0.9f; /* 0: the default of 1 */
            post.no_tonemap = mode / 3 == 1;
            post.tone = mode / 3 == 2 ? OAK_TONE_NEUTRAL : OAK_TONE_ACES;
            post.no_dither = mode / 3 == 3;
            uint32_t x0 = 5 + 1021 * (uint32_t)mode, y = 17 + 613 * (uint32_t)mode;
            memset(ref, 0, sizeof ref), memset(got, 1, sizeof got);
            _oak_cpu_post_span(rgb, ref, x0, y, N, &post, false);
            _oak_cpu_post_span(rgb, got, x0, y, N, &post, true);
            diff += memcmp(ref, got, sizeof ref) != 0;
            /* the kernel itself, its luma plane against FXAA's */
            cpu_post_args a = {post.exposure > 0 ? post.exposure : 1.0f, !post.no_tonemap,
                               post.tone == OAK_TONE_NEUTRAL && !post.no_tonemap, post.no_dither};
            uint32_t n = N / kern.lanes * kern.lanes;
            memset(got, 1, sizeof got), memset(lgot, 1, sizeof lgot);
            kern.post(rgb, got, lgot, x0, y, n, &a);
            _oak_cpu_fxaa_luma(lref, ref, n, 0, 1);
            diff += memcmp(ref, got, n * 4) != 0;
            ldiff += memcmp(lref, lgot, n) != 0;
            for (int i = 0; i < N * 4; i++) {
                bright += i % 4 < 3 && ref[i] == 255;
                dark += ref[i] == 0;
            }
        }
        fprintf(stderr, "  post at %s: %d spans and %d luma rows differ\n", isa[k], diff, ldiff);
        CHECK_EQ_INT(diff, 0);
        CHECK_EQ_INT(ldiff, 0);
        CHECK(bright > 100 && dark > 100); /* both ends of the range were reached */
        memset(fb, 1, sizeof fb);
        _oak_cpu_fxaa(fb, in, lumas, W, H, 0, H);
        int changed = 0, fdiff = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                fdiff += memcmp(fa + (y * W + x) * 4, fb + (y * W + x) * 4, 4) != 0;
                changed += y >= 8 && y < H - 8 && x >= 8 && x < W - 8 &&
                           memcmp(fa + (y * W + x) * 4, in + (y * W + x) * 4, 3) != 0;
            }
        fprintf(stderr, "  fxaa at %s: %d pixels differ, %d moved in the lanes' window\n", isa[k],
                fdiff, changed);
        CHECK_EQ_INT(fdiff, 0);
        CHECK(changed > 300); /* the lanes ran on many pixels */
    }
    CHECK(ran >= 2);
    _oak_cpu_isa_set("scalar");
}

TEST(cpuIsaNamesAndReport) {
    CHECK(!_oak_cpu_isa_set("avx512"));
    CHECK(!_oak_cpu_isa_set(NULL));
    CHECK(_oak_cpu_isa_set("scalar"));
    CHECK(!strcmp(_oak_cpu_isa_name(), "scalar"));
    char report[1024] = {0};
    CHECK_OK(oak_backend_probe("cpu", report, sizeof report));
    CHECK(strstr(report, "shading kernel: scalar") != NULL);
    __builtin_cpu_init();
    CHECK(_oak_cpu_isa_set("avx2") == (bool)__builtin_cpu_supports("avx2"));
}

int main(void) {
    oak_test_init(0);
    (void)parity_compare; /* bytes are compared exactly here, not at the parity rule */
    RUN(cpuIsaNamesAndReport);
    RUN(cpuPostAndFxaaLanesAtEveryWidth);
    parity_run_part(0);
    oak_shutdown();
    return TEST_SUMMARY();
}
