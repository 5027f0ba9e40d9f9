/* A small deterministic fuzzer that CI runs on every build (libFuzzer in
 * fuzz/ goes further but needs clang): seeded byte flips, digit changes in
 * the JSON, cuts and repeats over small real and hand-made models. Each
 * load must either succeed or fail with one line naming the file; the
 * sanitizers catch anything worse. */
#include "oak_test.h"

#include <oak/gltf.h>

#include "gltf_test_assets.h"

static uint64_t g_state = 0x9E3779B97F4A7C15ull;
static uint32_t next_random(void) {
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    return (uint32_t)(g_state >> 16);
}

static void mutate(uint8_t *d, size_t *n, size_t cap) {
    uint32_t op = next_random() % 4;
    if (*n == 0) return;
    if (op == 0) { /* a few random bytes */
        uint32_t k = 1 + next_random() % 4;
        while (k--) d[next_random() % *n] = (uint8_t)next_random();
    } else if (op == 1) { /* a digit in the JSON becomes another digit */
        for (int tries = 0; tries < 64; tries++) {
            size_t at = next_random() % *n;
            if (d[at] >= '0' && d[at] <= '9') {
                d[at] = (uint8_t)('0' + next_random() % 10);
                break;
            }
        }
    } else if (op == 2) { /* cut */
        *n = next_random() % *n;
    } else { /* repeat a piece in place of what follows it */
        size_t at = next_random() % *n, len = 1 + next_random() % 16;
        if (at + 2 * len < *n && *n <= cap) memmove(d + at + len, d + at, len);
    }
}

TEST(gltfSurvivesSeededMutationsOfRealFiles) {
    const char *files[] = {"SimpleSkin/SimpleSkin.gltf", "GltfPrimitives/gltf_primitives.glb",
                           "cubes/Cubes.glb", "CornellBox/CornellBox.glb"};
    const char *local[] = {"tests/data/gltf/triangle.gltf", "tests/data/gltf/features.gltf",
                           "tests/data/gltf/skin8.gltf"};
    uint32_t loads = 0, ok = 0;
    for (int f = 0; f < 7; f++) {
        char path[256];
        const char *p = f < 4 ? gltf_asset(path, sizeof path, files[f]) : local[f - 4];
        void *src;
        size_t size;
        CHECK_OK(oak_read_file(p, &src, &size));
        if (!src) continue;
        uint8_t *buf = oak_alloc(size);
        for (int i = 0; i < 300; i++) {
            memcpy(buf, src, size);
            size_t n = size;
            uint32_t rounds = 1 + next_random() % 3;
            while (rounds--) mutate(buf, &n, size);
            oak_gltf *g = NULL;
            oak_gltf_desc d = {.no_images = true};
            oak_result r = oak_gltf_load_memory(&g, buf, n, "mutant.gltf", &d);
            loads++;
            if (r == OAK_OK) {
                ok++;
                CHECK(g != NULL);
                oak_gltf_free(g);
            } else {
                const char *msg = oak_last_error();
                CHECK(g == NULL);
                if (strncmp(msg, "mutant.gltf", 11) != 0) fprintf(stderr, "  message: %s\n", msg);
                CHECK(strncmp(msg, "mutant.gltf", 11) == 0);
                CHECK(strchr(msg, '\n') == NULL);
            }
        }
        oak_free(buf);
        oak_free(src);
    }
    fprintf(stderr, "  %u mutated loads, %u still loaded, the rest failed cleanly\n", loads, ok);
    CHECK_EQ_INT(loads, 2100);
}

int main(void) {
    oak_engine_desc d = {0};
    d.log_level = OAK_LOG_NONE; /* two thousand expected errors */
    if (oak_init(&d)) return 2;
    RUN(gltfSurvivesSeededMutationsOfRealFiles);
    oak_shutdown();
    return TEST_SUMMARY();
}
