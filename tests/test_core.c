/* Core: handles and pools, the job pool's determinism, the frame arena, the
 * hash map, files, errors and the math helpers. */
#include "oak_test.h"

TEST(poolHandlesGoStaleAfterFree) {
    oak_pool p;
    CHECK_OK(oak_pool_init(&p, sizeof(int), 2));
    uint32_t a = oak_pool_alloc(&p), b = oak_pool_alloc(&p);
    CHECK(a && b && a != b);
    *(int *)oak_pool_get(&p, a) = 7;
    oak_pool_free(&p, a);
    CHECK(!oak_pool_valid(&p, a));
    CHECK(oak_pool_get(&p, a) == NULL);
    uint32_t c = oak_pool_alloc(&p); /* reuses a's slot with a new generation */
    CHECK_EQ_INT(oak_handle_index(c), oak_handle_index(a));
    CHECK(c != a);
    CHECK(!oak_pool_valid(&p, a));
    CHECK_EQ_INT(*(int *)oak_pool_get(&p, c), 0); /* zeroed on reuse */
    oak_pool_free(&p, a);                         /* stale free is ignored */
    CHECK(oak_pool_valid(&p, c));
    CHECK(!oak_pool_valid(&p, 0));
    CHECK_EQ_INT(p.live, 2);
    oak_pool_release(&p);
}

TEST(poolGrowsPastInitialCapacity) {
    oak_pool p;
    CHECK_OK(oak_pool_init(&p, 8, 4));
    uint32_t ids[1000];
    for (int i = 0; i < 1000; i++) {
        ids[i] = oak_pool_alloc(&p);
        *(uint64_t *)oak_pool_get(&p, ids[i]) = (uint64_t)i * 3;
    }
    int bad = 0;
    for (int i = 0; i < 1000; i++) bad += *(uint64_t *)oak_pool_get(&p, ids[i]) != (uint64_t)i * 3;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(p.live, 1000);
    uint32_t live = 0;
    for (uint32_t s = 0; s < p.high_water; s++) live += oak_pool_slot_id(&p, s) != 0;
    CHECK_EQ_INT(live, 1000);
    oak_pool_release(&p);
}

/* An alloc takes the lowest free slot whatever order the frees came in,
   so the same allocations after the same frees land in the same slots (a
   world built twice in one process sorts its draws alike: issue 17). */
TEST(poolTakesTheLowestFreeSlot) {
    oak_pool p;
    CHECK_OK(oak_pool_init(&p, 4, 4));
    uint32_t ids[64];
    for (int i = 0; i < 64; i++) ids[i] = oak_pool_alloc(&p);
    /* free a scattered half, in a scrambled order */
    for (int i = 0; i < 64; i++) {
        int k = (i * 37) % 64;
        if (k % 3 != 1) oak_pool_free(&p, ids[k]);
    }
    uint32_t prev = 0, bad = 0, n = 0;
    for (uint32_t k = 0; k < 64; k++) {
        if (k % 3 == 1) continue;
        uint32_t id = oak_pool_alloc(&p); /* the freed slots again, lowest first */
        bad += oak_handle_index(id) != k || (n && oak_handle_index(id) <= prev);
        prev = oak_handle_index(id), n++;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(oak_handle_index(oak_pool_alloc(&p)), 64); /* then past the high water */
    oak_pool_release(&p);
}

typedef struct sum_job {
    const float *values;
    double partial[64];
} sum_job;

static void sum_chunk(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    sum_job *j = user;
    double s = 0;
    for (uint32_t i = begin; i < end; i++) s += j->values[i];
    j->partial[begin / 1000] = s; /* one slot per chunk: reduce in chunk order */
}

static double chunked_sum(const float *v) {
    sum_job j = {.values = v};
    oak_parallel_for(64000, 1000, sum_chunk, &j);
    double total = 0;
    for (int c = 0; c < 64; c++) total += j.partial[c];
    return total;
}

TEST(jobsGiveTheSameSumForAnyThreadCount) {
    static float v[64000];
    for (int i = 0; i < 64000; i++) v[i] = 1.0f / (float)(i + 1) * (i % 3 ? 1.0f : -0.7f);
    double sums[3];
    uint32_t threads[3] = {1, 2, 7};
    oak_shutdown();
    for (int t = 0; t < 3; t++) {
        oak_test_init(threads[t]);
        CHECK_EQ_INT(oak_job_threads(), threads[t]);
        sums[t] = chunked_sum(v);
        oak_shutdown();
    }
    oak_test_init(0);
    CHECK(memcmp(&sums[0], &sums[1], sizeof(double)) == 0);
    CHECK(memcmp(&sums[0], &sums[2], sizeof(double)) == 0);
}

static void mark_inner(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    (void)worker;
    uint8_t *hits = user;
    for (uint32_t i = begin; i < end; i++) hits[i]++;
}

static void mark_chunk(void *user, uint32_t begin, uint32_t end, uint32_t worker) {
    uint8_t *hits = user;
    CHECK(worker < oak_job_threads());
    for (uint32_t i = begin; i < end; i++) hits[i]++;
    /* a nested parallel-for runs inline rather than deadlocking */
    if (begin == 0) oak_parallel_for(4, 1, mark_inner, hits + 10000);
}

TEST(jobsCoverEveryItemOnceAndNestSafely) {
    static uint8_t hits[10004];
    memset(hits, 0, sizeof hits);
    for (int round = 0; round < 50; round++) oak_parallel_for(10000, 37, mark_chunk, hits);
    int wrong = 0;
    for (int i = 0; i < 10000; i++) wrong += hits[i] != 50;
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(hits[10000], 50);
    CHECK_EQ_INT(hits[10003], 50);
}

TEST(arenaFoldsOverflowIntoOneBlock) {
    oak_arena a;
    CHECK_OK(oak_arena_init(&a, 1024));
    void *p = oak_arena_alloc(&a, 100, 64);
    CHECK(((uintptr_t)p & 63) == 0);
    for (int i = 0; i < 10; i++) CHECK(oak_arena_alloc(&a, 500, 16) != NULL);
    CHECK(a.overflow != NULL);
    size_t peak = a.peak;
    CHECK(peak >= 5100);
    oak_arena_reset(&a);
    CHECK(a.overflow == NULL);
    CHECK(a.capacity >= peak);
    for (int i = 0; i < 10; i++) oak_arena_alloc(&a, 500, 16);
    CHECK(a.overflow == NULL); /* the second frame of the same size fits */
    oak_arena_release(&a);
}

TEST(mapSetGetRemoveKeepsEveryOtherKey) {
    oak_map m = {0};
    for (uint64_t k = 1; k <= 5000; k++) CHECK_OK(oak_map_set(&m, k * 2654435761ull, (uint32_t)k));
    CHECK_EQ_INT(m.count, 5000);
    for (uint64_t k = 1; k <= 5000; k += 2) CHECK(oak_map_remove(&m, k * 2654435761ull));
    int bad = 0;
    for (uint64_t k = 1; k <= 5000; k++) {
        uint32_t v = 0;
        bool found = oak_map_get(&m, k * 2654435761ull, &v);
        if (k % 2 == 1)
            bad += found;
        else
            bad += !found || v != k;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(m.count, 2500);
    CHECK(oak_map_set(&m, 0, 1) == OAK_ERROR_INVALID_ARGUMENT);
    oak_map_release(&m);
}

TEST(hashIsStableAcrossRuns) {
    /* a fixed input must hash to a fixed value: caches and files depend on it */
    CHECK(oak_hash_str("oak") == oak_hash("oak", 3, 0));
    CHECK(oak_hash("oak", 3, 0) != oak_hash("oak", 3, 1));
    CHECK(oak_hash("abc", 3, 0) != oak_hash("abd", 3, 0));
}

TEST(readFileMissingNamesTheFile) {
    void *data;
    size_t size;
    CHECK(oak_read_file("tests/no/such/file.bin", &data, &size) == OAK_ERROR_IO);
    CHECK(strstr(oak_last_error(), "tests/no/such/file.bin") != NULL);
    CHECK(data == NULL && size == 0);
    char out[256];
    oak_path_join_dir(out, sizeof out, "models/a/b.obj", "tex/c.png");
    CHECK(strcmp(out, "models/a/tex/c.png") == 0);
    oak_path_join_dir(out, sizeof out, "b.obj", "c.png");
    CHECK(strcmp(out, "c.png") == 0);
    oak_path_join_dir(out, sizeof out, "x/b.obj", "oak://checker");
    CHECK(strcmp(out, "oak://checker") == 0);
}

TEST(srgbAndAcesMatchTheirDefinitions) {
    CHECK_NEAR(oak_srgb_to_linear(0.5f), 0.214041, 1e-6);
    CHECK_NEAR(oak_linear_to_srgb(0.214041f), 0.5, 1e-6);
    CHECK_NEAR(oak_linear_to_srgb(0.002f), 0.002 * 12.92, 1e-7);
    /* ACES fit at 1: 2.54 / 3.16 */
    CHECK_NEAR(oak_aces(1.0f), 2.54 / 3.16, 1e-6);
    CHECK_NEAR(oak_aces(0.0f), 0.0, 0);
    CHECK_NEAR(oak_aces(1000.0f), 1.0, 0);
}

TEST(reversedZPerspectiveMapsNearToOneFarToZero) {
    mat4 p;
    oak_perspective_rz(1.0f, 1.5f, 0.5f, 100.0f, p);
    vec4 n = {0, 0, -0.5f, 1}, f = {0, 0, -100.0f, 1}, cn, cf;
    glm_mat4_mulv(p, n, cn);
    glm_mat4_mulv(p, f, cf);
    CHECK_NEAR(cn[2] / cn[3], 1.0, 1e-6);
    CHECK_NEAR(cf[2] / cf[3], 0.0, 1e-6);
    oak_ortho_rz(-1, 1, -1, 1, 2, 10, p);
    vec4 on = {0, 0, -2, 1}, of = {0, 0, -10, 1};
    glm_mat4_mulv(p, on, cn);
    glm_mat4_mulv(p, of, cf);
    CHECK_NEAR(cn[2], 1.0, 1e-6);
    CHECK_NEAR(cf[2], 0.0, 1e-6);
}

TEST(frustumKeepsInsideAndDropsBehind) {
    mat4 p, v, vp;
    oak_perspective_rz(1.0f, 1.0f, 0.1f, 100.0f, p);
    glm_mat4_identity(v);
    glm_mat4_mul(p, v, vp);
    vec4 planes[6];
    oak_frustum_planes(vp, planes);
    CHECK(oak_frustum_sphere((const vec4 *)planes, (float[3]){0, 0, -10}, 1));
    CHECK(!oak_frustum_sphere((const vec4 *)planes, (float[3]){0, 0, 10}, 1));
    CHECK(!oak_frustum_sphere((const vec4 *)planes, (float[3]){0, 0, -200}, 1));
    CHECK(oak_frustum_sphere((const vec4 *)planes, (float[3]){0, 0, -101}, 2));
    CHECK(!oak_frustum_sphere((const vec4 *)planes, (float[3]){50, 0, -10}, 1));
}

TEST(noiseIsSeededBoundedAndSmooth) {
    float a = oak_noise3(1.3f, 2.7f, 0.1f, 7), b = oak_noise3(1.3f, 2.7f, 0.1f, 7);
    CHECK(a == b);
    CHECK(oak_noise3(1.3f, 2.7f, 0.1f, 8) != a);
    CHECK_NEAR(oak_noise3(3, 4, 5, 1), 0.0, 1e-6); /* zero at lattice points */
    float lo = 1, hi = -1, maxstep = 0, prev = oak_fbm2(0, 0.37f, 3, 6, 2, 0.5f);
    for (int i = 1; i < 20000; i++) {
        float x = (float)i * 0.001f, n = oak_fbm2(x, 0.37f, 3, 6, 2, 0.5f);
        lo = n < lo ? n : lo;
        hi = n > hi ? n : hi;
        maxstep = fabsf(n - prev) > maxstep ? fabsf(n - prev) : maxstep;
        prev = n;
    }
    CHECK(lo >= -1 && hi <= 1 && hi - lo > 0.5f);
    CHECK(maxstep < 0.05f); /* continuous: no jumps between neighbours 1 mm apart */
}

static int g_log_count;
static void count_log(void *u, oak_log_level l, const char *msg) {
    (void)u, (void)l;
    CHECK(strchr(msg, '\n') == NULL);
    g_log_count++;
}

TEST(errorsAreOneLineAndReachTheCallback) {
    oak_shutdown();
    oak_engine_desc d = {.log = count_log, .log_level = OAK_LOG_WARN, .threads = 1};
    CHECK_OK(oak_init(&d));
    g_log_count = 0;
    oak_result r = oak_error(OAK_ERROR_PARSE, "a.obj:3: bad\nnumber");
    CHECK(r == OAK_ERROR_PARSE);
    CHECK(strcmp(oak_last_error(), "a.obj:3: bad\nnumber") == 0);
    oak_log_info("dropped below the threshold");
    CHECK_EQ_INT(g_log_count, 1);
    CHECK(oak_init(&d) != OAK_OK); /* twice is refused */
    oak_shutdown();
    oak_test_init(0);
}

int main(void) {
    oak_test_init(0);
    RUN(poolHandlesGoStaleAfterFree);
    RUN(poolGrowsPastInitialCapacity);
    RUN(poolTakesTheLowestFreeSlot);
    RUN(jobsGiveTheSameSumForAnyThreadCount);
    RUN(jobsCoverEveryItemOnceAndNestSafely);
    RUN(arenaFoldsOverflowIntoOneBlock);
    RUN(mapSetGetRemoveKeepsEveryOtherKey);
    RUN(hashIsStableAcrossRuns);
    RUN(readFileMissingNamesTheFile);
    RUN(srgbAndAcesMatchTheirDefinitions);
    RUN(reversedZPerspectiveMapsNearToOneFarToZero);
    RUN(frustumKeepsInsideAndDropsBehind);
    RUN(noiseIsSeededBoundedAndSmooth);
    RUN(errorsAreOneLineAndReachTheCallback);
    oak_shutdown();
    return TEST_SUMMARY();
}
