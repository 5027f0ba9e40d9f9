/* The CPU backend's shading kernel at every lane width and thread count gives
 * the same bytes: each parity scene drawn with the scalar kernel on one
 * thread, then with SSE4.1 and AVX2 (where the CPU has them) on three, and
 * compared byte for byte. Also: OAK_CPU_ISA's names and what `oak info`
 * reports. */
#include "oak_test.h"

#include "backend/cpu/cpu_internal.h"
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
    parity_run_part(0);
    oak_shutdown();
    return TEST_SUMMARY();
}
