/* The cluster-LOD DAG's disk cache (docs/ARCHITECTURE.md "Cluster LOD",
 * asset/clod_cache.c), in a fresh OAK_CACHE_DIR: a build written then
 * loaded gives the same DAG byte for byte as the build (and as a build with
 * the cache off); a damaged, truncated, foreign or stale file is said in
 * one warning, built again and written over; a changed vertex, index,
 * generator seed or build parameter misses; the dense world's rock mesh
 * made twice loads its DAG the second time. */
#include <dirent.h>
#include <stddef.h>
#include <oak/gltf.h>
#include <unistd.h>

#include "oak_test.h"

#include "asset/clod_cache.h"
#include "world/internal.h"

static int g_warnings, g_errors;
static void count_log(void *user, oak_log_level level, const char *msg) {
    (void)user;
    if (level >= OAK_LOG_ERROR) g_errors++;
    if (level == OAK_LOG_WARN) g_warnings++;
    if (level >= OAK_LOG_WARN) fprintf(stderr, "log: %s\n", msg);
}

static char g_dir[64];

/* a bumpy 73 x 73 grid: 10,368 triangles, over OAK_CLOD_MIN_TRIANGLES */
#define SIDE 73
static float g_pos[3 * SIDE * SIDE];
static uint32_t g_ix[6 * (SIDE - 1) * (SIDE - 1)];
#define NV ((uint32_t)(SIDE * SIDE))
#define NI ((uint32_t)(6 * (SIDE - 1) * (SIDE - 1)))

static void make_grid(void) {
    for (uint32_t z = 0; z < SIDE; z++)
        for (uint32_t x = 0; x < SIDE; x++) {
            float *p = g_pos + 3 * (z * SIDE + x);
            p[0] = (float)x, p[2] = (float)z;
            p[1] = 2.0f * sinf(0.21f * (float)x) * cosf(0.17f * (float)z);
        }
    uint32_t *t = g_ix;
    for (uint32_t z = 0; z + 1 < SIDE; z++)
        for (uint32_t x = 0; x + 1 < SIDE; x++) {
            uint32_t a = z * SIDE + x, b = a + 1, c = a + SIDE, d = c + 1;
            const uint32_t q[6] = {a, c, b, b, c, d};
            memcpy(t, q, sizeof q);
            t += 6;
        }
}

static _oak_clod_cache_stats stats(void) {
    _oak_clod_cache_stats s;
    _oak_clod_cache_stats_get(&s);
    return s;
}

/* the same DAG, byte for byte */
static bool same_dag(const oak_clod *a, const oak_clod *b) {
    const oak_meshlets *x = &a->meshlets, *y = &b->meshlets;
    return a->index_count == b->index_count && a->finest_index_count == b->finest_index_count &&
           a->level_count == b->level_count &&
           !memcmp(a->level_first, b->level_first, sizeof a->level_first) &&
           !memcmp(a->level_triangles, b->level_triangles, sizeof a->level_triangles) &&
           x->count == y->count && x->vertex_total == y->vertex_total &&
           x->triangle_bytes == y->triangle_bytes &&
           !memcmp(a->indices, b->indices, 4 * (size_t)a->index_count) &&
           !memcmp(x->meshlets, y->meshlets, sizeof *x->meshlets * x->count) &&
           !memcmp(x->vertices, y->vertices, 4 * (size_t)x->vertex_total) &&
           !memcmp(x->triangles, y->triangles, x->triangle_bytes);
}

static void grid_path(char *path, size_t size) {
    _oak_clod_key k;
    _oak_clod_key_make(&k, 0.85f, g_pos, NV, g_ix, NI);
    CHECK(_oak_clod_cache_path(&k, path, size));
}

static oak_clod g_built; /* the grid's DAG with the cache off */

TEST(builtThenLoadedIsTheSame) {
    setenv("OAK_CLOD_CACHE", "off", 1);
    _oak_clod_cache_stats s0 = stats();
    CHECK_OK(oak_build_clod(&g_built, g_pos, NV, g_ix, NI));
    unsetenv("OAK_CLOD_CACHE");
    CHECK_EQ_INT(stats().off, s0.off + 1);
    CHECK(g_built.level_count >= 3);
    char path[1200];
    grid_path(path, sizeof path);
    CHECK(access(path, F_OK) != 0); /* nothing written with the cache off */

    oak_clod a, b;
    CHECK_OK(oak_build_clod(&a, g_pos, NV, g_ix, NI)); /* built and written */
    _oak_clod_cache_stats s1 = stats();
    CHECK_EQ_INT(s1.miss, s0.miss + 1);
    CHECK_EQ_INT(s1.stored, s0.stored + 1);
    CHECK(access(path, F_OK) == 0);
    CHECK_OK(oak_build_clod(&b, g_pos, NV, g_ix, NI)); /* loaded */
    _oak_clod_cache_stats s2 = stats();
    CHECK_EQ_INT(s2.hit, s1.hit + 1);
    CHECK_EQ_INT(s2.miss, s1.miss);
    CHECK(same_dag(&a, &g_built));
    CHECK(same_dag(&b, &g_built));
    /* the loaded arrays are the caller's, as a build's */
    CHECK(b.indices != a.indices && b.meshlets.meshlets != a.meshlets.meshlets);
    fprintf(stderr, "  grid: %u levels, %u meshlets, %u indices\n", b.level_count, b.meshlets.count,
            b.index_count);
    oak_clod_release(&a);
    oak_clod_release(&b);
    CHECK_EQ_INT(g_warnings, 0);
}

/* Rewrites the grid's cache file through edit, then builds: one warning,
   counted bad, the build's DAG, and the file good again. */
static void damaged(const char *what, void (*edit)(uint8_t *, size_t *)) {
    char path[1200];
    grid_path(path, sizeof path);
    void *data = NULL;
    size_t size = 0;
    CHECK_OK(oak_read_file(path, &data, &size));
    if (!data) return;
    edit(data, &size);
    CHECK_OK(oak_write_file(path, data, size));
    oak_free(data);
    int w0 = g_warnings;
    _oak_clod_cache_stats s0 = stats();
    oak_clod c;
    CHECK_OK(oak_build_clod(&c, g_pos, NV, g_ix, NI));
    _oak_clod_cache_stats s1 = stats();
    fprintf(stderr, "  %s: %d warning(s)\n", what, g_warnings - w0);
    CHECK_EQ_INT(g_warnings, w0 + 1);
    CHECK_EQ_INT(s1.bad, s0.bad + 1);
    CHECK_EQ_INT(s1.stored, s0.stored + 1);
    CHECK(same_dag(&c, &g_built));
    oak_clod_release(&c);
    /* written over: the next one loads */
    CHECK_OK(oak_build_clod(&c, g_pos, NV, g_ix, NI));
    CHECK_EQ_INT(stats().hit, s1.hit + 1);
    CHECK_EQ_INT(g_warnings, w0 + 1);
    CHECK(same_dag(&c, &g_built));
    oak_clod_release(&c);
}

static void flip_body(uint8_t *d, size_t *n) {
    d[*n / 2] ^= 0x10;
}
static void cut_half(uint8_t *d, size_t *n) {
    (void)d;
    *n /= 2;
}
static void cut_header(uint8_t *d, size_t *n) {
    (void)d;
    *n = 20;
}
static void not_ours(uint8_t *d, size_t *n) {
    memcpy(d, "OAKMODEL", 8);
    (void)n;
}
static void old_version(uint8_t *d, size_t *n) {
    (void)n;
    d[8] ^= 0x7f;
}
/* made for another shrink (the key's), the hash made to match: the file
   is whole, only stale */
static void stale_key(uint8_t *d, size_t *n) {
    float shrink;
    size_t at = 32 + offsetof(_oak_clod_key, shrink);
    memcpy(&shrink, d + at, 4);
    shrink = 0.9f;
    memcpy(d + at, &shrink, 4);
    uint64_t h = oak_gltf_cache_checksum(d + 32, *n - 32);
    memcpy(d + 24, &h, 8);
}
/* a count changed, the hash made to match: the sizes no longer add up */
static void bad_count(uint8_t *d, size_t *n) {
    size_t at = 32 + sizeof(_oak_clod_key) + 12; /* the meshlet count */
    d[at] ^= 1;
    uint64_t h = oak_gltf_cache_checksum(d + 32, *n - 32);
    memcpy(d + 24, &h, 8);
}
/* one index changed, the hash made to match: the DAG's rules catch it */
static void bad_index(uint8_t *d, size_t *n) {
    d[*n - 8] ^= 1;
    uint64_t h = oak_gltf_cache_checksum(d + 32, *n - 32);
    memcpy(d + 24, &h, 8);
}

TEST(brokenFilesAreBuiltAgain) {
    damaged("a flipped bit", flip_body);
    damaged("cut in half", cut_half);
    damaged("cut inside the header", cut_header);
    damaged("another format's magic", not_ours);
    damaged("another version", old_version);
    damaged("a stale key", stale_key);
    damaged("a count that does not add up", bad_count);
    damaged("an index not the meshlets'", bad_index);
}

TEST(changesMissTheCache) {
    char base[1200], path[1200];
    grid_path(base, sizeof base);
    /* one vertex moved by one step of its float */
    float keep = g_pos[3 * 100 + 1];
    g_pos[3 * 100 + 1] = nextafterf(keep, 10.0f);
    grid_path(path, sizeof path);
    CHECK(strcmp(path, base) != 0);
    _oak_clod_cache_stats s0 = stats();
    oak_clod c;
    CHECK_OK(oak_build_clod(&c, g_pos, NV, g_ix, NI));
    CHECK_EQ_INT(stats().miss, s0.miss + 1);
    oak_clod_release(&c);
    g_pos[3 * 100 + 1] = keep;
    /* one triangle's corners rotated (the same triangle, other bytes) */
    uint32_t t0 = g_ix[0];
    g_ix[0] = g_ix[1], g_ix[1] = g_ix[2], g_ix[2] = t0;
    CHECK_OK(oak_build_clod(&c, g_pos, NV, g_ix, NI));
    CHECK_EQ_INT(stats().miss, s0.miss + 2);
    oak_clod_release(&c);
    g_ix[2] = g_ix[1], g_ix[1] = g_ix[0], g_ix[0] = t0;
    /* the same positions without an index list: another source */
    _oak_clod_key k0, k1;
    _oak_clod_key_make(&k0, 0.85f, g_pos, NV, g_ix, NI);
    _oak_clod_key_make(&k1, 0.85f, g_pos, NV, NULL, 0);
    CHECK(memcmp(&k0, &k1, sizeof k0) != 0);
    /* each build parameter in the key names another file */
    _oak_clod_key_make(&k1, 0.86f, g_pos, NV, g_ix, NI);
    char other[1200];
    CHECK(_oak_clod_cache_path(&k1, other, sizeof other) && strcmp(other, base) != 0);
    uint32_t *fields[] = {&k0.version,           &k0.min_triangles,   &k0.group,
                          &k0.max_levels,        &k0.root_triangles,  &k0.meshlet_vertices,
                          &k0.meshlet_triangles, &k0.meshopt_version, &k0.meshlet_bytes};
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        _oak_clod_key k = k0;
        *(uint32_t *)((uint8_t *)&k + ((uint8_t *)fields[i] - (uint8_t *)&k0)) += 1;
        CHECK(_oak_clod_cache_path(&k, other, sizeof other) && strcmp(other, base) != 0);
    }
    /* the unchanged grid still loads */
    s0 = stats();
    CHECK_OK(oak_build_clod(&c, g_pos, NV, g_ix, NI));
    CHECK_EQ_INT(stats().hit, s0.hit + 1);
    CHECK(same_dag(&c, &g_built));
    oak_clod_release(&c);
}

/* The dense world's rock (a generator and its seed): made twice, its DAG
   loads the second time, the same meshlets and indices; another seed
   misses. 5 subdivisions (20,480 triangles) keep it short. */
TEST(denseRockLoadsItsDag) {
    _oak_clod_cache_stats s0 = stats();
    oak_mesh a, b, c;
    CHECK_OK(_oak_world_dense_rock(&a, 5, 3));
    _oak_clod_cache_stats s1 = stats();
    CHECK_EQ_INT(s1.miss, s0.miss + 1);
    CHECK_OK(_oak_world_dense_rock(&b, 5, 3));
    _oak_clod_cache_stats s2 = stats();
    CHECK_EQ_INT(s2.hit, s1.hit + 1);
    CHECK_OK(_oak_world_dense_rock(&c, 5, 4));
    CHECK_EQ_INT(stats().miss, s2.miss + 1);
    const oak_mesh_data *ma = oak_mesh_get(a), *mb = oak_mesh_get(b);
    const oak_meshlets *la = NULL, *lb = NULL;
    CHECK_OK(oak_mesh_meshlets(a, &la));
    CHECK_OK(oak_mesh_meshlets(b, &lb));
    CHECK(ma && mb && la && lb);
    if (ma && mb && la && lb) {
        CHECK_EQ_INT(ma->index_count, mb->index_count);
        CHECK_EQ_INT(ma->finest_index_count, mb->finest_index_count);
        CHECK(ma->index_count == mb->index_count &&
              !memcmp(ma->indices, mb->indices, 4 * (size_t)ma->index_count));
        CHECK(la->count == lb->count &&
              !memcmp(la->meshlets, lb->meshlets, sizeof *la->meshlets * la->count));
        CHECK(la->vertex_total == lb->vertex_total &&
              !memcmp(la->vertices, lb->vertices, 4 * (size_t)la->vertex_total));
        CHECK(la->triangle_bytes == lb->triangle_bytes &&
              !memcmp(la->triangles, lb->triangles, la->triangle_bytes));
    }
    oak_destroy_mesh(a);
    oak_destroy_mesh(b);
    oak_destroy_mesh(c);
}

static void remove_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[1200];
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            remove(p);
        }
    closedir(d);
    rmdir(dir);
}

int main(void) {
    oak_engine_desc desc = {.log = count_log, .log_level = OAK_LOG_WARN};
    if (oak_init(&desc) != OAK_OK) return 2;
    snprintf(g_dir, sizeof g_dir, "/tmp/oak_clod_cache_XXXXXX");
    if (!mkdtemp(g_dir)) return 2;
    setenv("OAK_CACHE_DIR", g_dir, 1);
    make_grid();
    RUN(builtThenLoadedIsTheSame);
    RUN(brokenFilesAreBuiltAgain);
    RUN(changesMissTheCache);
    RUN(denseRockLoadsItsDag);
    oak_clod_release(&g_built);
    remove_dir(g_dir);
    oak_shutdown();
    CHECK_EQ_INT(g_errors, 0);
    return TEST_SUMMARY();
}
