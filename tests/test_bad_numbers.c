/* Bad numbers, counts, structure and limits (issue 9, part B): one test per
 * class. Non-finite numbers and framing, sums that must not wrap, .oakm
 * structure behind a right hash, the limits a frame can honour, hierarchies
 * in linear time, and messages that stay one readable line. The hand-made
 * files live in tests/data/bad/{oakm,scene,obj}; each must fail cleanly. */
#include <dirent.h>
#include <stdarg.h>
#include <time.h>

#include <oak/anim.h>

#include "oak_test.h"

static bool error_has(const char *needle) {
    if (strstr(oak_last_error(), needle)) return true;
    fprintf(stderr, "  last error \"%s\" lacks \"%s\"\n", oak_last_error(), needle);
    return false;
}

static double cpu_seconds(void) {
    return (double)clock() / CLOCKS_PER_SEC;
}

/* A growable text buffer for generated JSON. */
typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) OAK_PRINTF(2, 3);
static void put(text *t, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k >= 0 && t->s && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        t->cap = t->cap ? t->cap * 2 + (size_t)k : 4096 + (size_t)k;
        t->s = realloc(t->s, t->cap);
        if (!t->s) abort();
    }
}

/* The base64 triangle of tests/data/gltf/triangle.gltf, for generated models. */
#define TRIANGLE_BUFFERS                                                                           \
    "\"buffers\":[{\"byteLength\":44,\"uri\":\"data:application/octet-stream;base64,"              \
    "AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAABAAIAAAA=\"}],"                            \
    "\"bufferViews\":[{\"buffer\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"           \
    "\"byteLength\":6}],"                                                                          \
    "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","       \
    "\"min\":[0,0,0],\"max\":[1,1,0]},{\"bufferView\":1,\"componentType\":5123,\"count\":3,"       \
    "\"type\":\"SCALAR\"}]"

/* ---- non-finite numbers and framing -------------------------------------- */

TEST(framingRefusesNonFiniteAnglesAndSkipsNonFinitePoints) {
    float pts[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, NAN, 0, 0, INFINITY, 1, 1, 0, 0, 1, -INFINITY, 2, 2};
    oak_transform xf;
    oak_camera cam;
    oak_framing f = {.yaw = NAN, .share = 0.5f, .aspect = 1};
    CHECK(oak_frame_points(&xf, &cam, pts, 7, &f) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("finite"));
    f.yaw = 0.3f, f.pitch = INFINITY;
    CHECK(oak_frame_points(&xf, &cam, pts, 7, &f) == OAK_ERROR_INVALID_ARGUMENT);
    /* Mixed points: the finite four are framed, the camera is finite. */
    f.pitch = 0.2f;
    CHECK_OK(oak_frame_points(&xf, &cam, pts, 7, &f));
    for (int k = 0; k < 3; k++) CHECK(isfinite(xf.position[k]));
    CHECK(isfinite(cam.znear) && isfinite(cam.zfar) && cam.zfar > cam.znear);
    /* Many NaNs (the hull overran its buffer on these before). */
    enum { N = 4096 };
    float *many = malloc(sizeof(float) * 3 * N);
    for (int i = 0; i < 3 * N; i++) many[i] = i % 7 == 0 ? NAN : (float)(i % 13);
    CHECK_OK(oak_frame_points(&xf, &cam, many, N, &f));
    for (int i = 0; i < 3 * N; i++) many[i] = NAN;
    CHECK(oak_frame_points(&xf, &cam, many, N, &f) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("none of the 4096 points is finite"));
    /* Points at float's edge: a clean error or a finite camera, never NaN. */
    for (int i = 0; i < 3 * N; i++) many[i] = (i & 1 ? 3e38f : -3e38f);
    oak_result r = oak_frame_points(&xf, &cam, many, N, &f);
    CHECK(r == OAK_OK || r == OAK_ERROR_LIMIT);
    if (r == OAK_OK)
        for (int k = 0; k < 3; k++) CHECK(isfinite(xf.position[k]));
    free(many);
}

/* A valid glTF whose node scales push the vertices to infinity: it loads,
   its instance's points are not finite, and framing says so cleanly. */
TEST(framingAModelScaledToInfinityFailsCleanly) {
    const char *json = "{\"asset\":{\"version\":\"2.0\"},\"scenes\":[{\"nodes\":[0]}],"
                       "\"nodes\":[{\"scale\":[2e38,2e38,2e38],\"children\":[1]},"
                       "{\"scale\":[2e38,2e38,2e38],\"mesh\":0}],"
                       "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0},\"indices\":"
                       "1}]}]," TRIANGLE_BUFFERS "}";
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_images = true};
    CHECK_OK(oak_gltf_load_memory(&g, json, strlen(json), "inf_scale.gltf", &d));
    if (!g) return;
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "m"));
    oak_scene_update_transforms(scene);
    uint32_t n = oak_gltf_instance_points(inst, NULL, 0);
    CHECK_EQ_INT(n, 3);
    float pts[9];
    oak_gltf_instance_points(inst, pts, 3);
    oak_transform xf;
    oak_camera cam;
    oak_framing f = {.yaw = 0.5f, .pitch = 0.3f};
    oak_result r = oak_frame_points(&xf, &cam, pts, n, &f);
    fprintf(stderr, "  infinite model framing: %s (%s)\n", oak_result_name(r), oak_last_error());
    CHECK(r == OAK_ERROR_INVALID_ARGUMENT || r == OAK_ERROR_LIMIT);
    oak_gltf_instance_free(inst);
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

/* ---- sums that must not wrap --------------------------------------------- */

/* 1,025 nodes of a 1,024-primitive mesh place 1,049,600 entities, past the
   pool's 2^20: the 64-bit sum sees it (65,536 x 65,536 wrapped a uint32 to 0). */
TEST(instantiateSumsPrimitivesWithoutWrapping) {
    text t = {0};
    put(&t, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (int i = 0; i < 1025; i++) put(&t, "%s{\"mesh\":0}", i ? "," : "");
    put(&t, "],\"meshes\":[{\"primitives\":[");
    for (int i = 0; i < 1024; i++)
        put(&t, "%s{\"attributes\":{\"POSITION\":0},\"indices\":1}", i ? "," : "");
    put(&t, "]}]," TRIANGLE_BUFFERS "}");
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, t.s, t.n, "wide.gltf", &d));
    free(t.s);
    if (!g) return;
    oak_scene *scene = NULL;
    CHECK_OK(oak_make_scene(&scene));
    oak_gltf_instance *inst = (oak_gltf_instance *)1;
    CHECK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "m") == OAK_ERROR_LIMIT);
    CHECK(inst == NULL);
    CHECK(error_has("1049600 primitives"));
    CHECK(error_has("OAK_HANDLE_INDEX_BITS"));
    CHECK_EQ_INT(oak_scene_entity_count(scene), 0);
    oak_destroy_scene(scene);
    oak_gltf_free(g);
}

/* ---- .oakm structure behind a right hash --------------------------------- */

/* Bakes triangle.gltf after `spoil` bent its structure: the writer hashes
   what it is given, so only the structural check can refuse the result. */
typedef void (*spoil_fn)(oak_gltf *g, void *keep);

static oak_result bake_spoiled(const char *name, spoil_fn spoil, spoil_fn mend, char *out,
                               size_t out_size) {
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    oak_result r = oak_gltf_load(&g, "tests/data/gltf/triangle.gltf", &d);
    if (r) return r;
    uint8_t keep[256] = {0};
    spoil(g, keep);
    oak_test_out(out, out_size, name);
    r = oak_gltf_bake(g, out);
    mend(g, keep);
    oak_gltf_free(g);
    if (r) return r;
    oak_gltf *back = NULL;
    r = oak_gltf_load(&back, out, &d);
    oak_gltf_free(back);
    return r;
}

static uint32_t g_roots2[2];
static void repeat_root(oak_gltf *g, void *keep) {
    memcpy(keep, &g->roots, sizeof g->roots);
    g_roots2[0] = g_roots2[1] = g->roots[0];
    g->roots = g_roots2;
    g->root_count = 2;
}
static void unrepeat_root(oak_gltf *g, void *keep) {
    memcpy(&g->roots, keep, sizeof g->roots);
    g->root_count = 1;
}
static void far_root(oak_gltf *g, void *keep) {
    (void)keep;
    g->roots[0] = 7;
}
static void near_root(oak_gltf *g, void *keep) {
    (void)keep;
    g->roots[0] = 0;
}
static void drop_roots(oak_gltf *g, void *keep) {
    memcpy(keep, &g->roots, sizeof g->roots);
    g->roots = NULL;
}
static void undrop_roots(oak_gltf *g, void *keep) {
    memcpy(&g->roots, keep, sizeof g->roots);
}
static oak_gltf_clip g_clip;
static void clip_no_channels(oak_gltf *g, void *keep) {
    (void)keep;
    g_clip = (oak_gltf_clip){.name = "walk", .channel_count = 2};
    g->clips = &g_clip;
    g->clip_count = 1;
}
static void clip_gone(oak_gltf *g, void *keep) {
    (void)keep;
    g->clips = NULL;
    g->clip_count = 0;
}
static void nan_translation(oak_gltf *g, void *keep) {
    memcpy(keep, g->nodes[0].translation, 12);
    g->nodes[0].translation[1] = NAN;
}
static void inf_scale(oak_gltf *g, void *keep) {
    memcpy(keep, g->nodes[0].translation, 12);
    g->nodes[0].scale[0] = INFINITY;
}
static void fix_node(oak_gltf *g, void *keep) {
    memcpy(g->nodes[0].translation, keep, 12);
    g->nodes[0].scale[0] = 1;
}
static void index_past_end(oak_gltf *g, void *keep) {
    (void)keep;
    g->meshes[0].primitives[0].indices[2] = 3;
}
static void index_back(oak_gltf *g, void *keep) {
    (void)keep;
    g->meshes[0].primitives[0].indices[2] = 2;
}
static void self_parent(oak_gltf *g, void *keep) {
    (void)keep;
    g->nodes[0].parent = 0;
}
static void no_parent(oak_gltf *g, void *keep) {
    (void)keep;
    g->nodes[0].parent = -1;
}

TEST(oakmStructureIsCheckedAfterItsHash) {
    static const struct {
        const char *file;
        spoil_fn spoil, mend;
        const char *message;
    } cases[] = {
        {"repeated_root.oakm", repeat_root, unrepeat_root, "roots[1] repeats node 0"},
        {"root_out_of_range.oakm", far_root, near_root, "roots[0] = 7 is past the 1 nodes"},
        {"missing_roots.oakm", drop_roots, undrop_roots, "1 roots but no root array"},
        {"clip_without_channels.oakm", clip_no_channels, clip_gone,
         "animations[0] counts 2 channels but has none"},
        {"nan_translation.oakm", nan_translation, fix_node, "nodes[0] has a non-finite transform"},
        {"inf_scale.oakm", inf_scale, fix_node, "nodes[0] has a non-finite transform"},
        {"index_out_of_range.oakm", index_past_end, index_back,
         "meshes[0].primitives[0].indices[2] = 3 is past the 3 vertices"},
        {"parent_cycle.oakm", self_parent, no_parent, "nodes[0]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[512];
        oak_result r =
            bake_spoiled(cases[i].file, cases[i].spoil, cases[i].mend, path, sizeof path);
        fprintf(stderr, "  %s: %s\n", cases[i].file, oak_last_error());
        CHECK_EQ_INT(r, OAK_ERROR_PARSE);
        CHECK(error_has(cases[i].message));
        CHECK(error_has(cases[i].file));
    }
}

/* A cache whose image count says 4294967295 (with the header and checksum
   rewritten to match) fails at once: freeing the half-read model once spun
   through every counted image, 36 s under the fuzzer. */
TEST(oakmHugeCountFailsFast) {
    void *data = NULL;
    size_t size = 0;
    CHECK_OK(oak_read_file("tests/data/oakm/triangle.oakm", &data, &size));
    if (!data || size < 48) return;
    uint8_t *b = data;
    uint32_t huge = UINT32_MAX;
    memcpy(b + 32 + 12, &huge, 4); /* body: node, mesh, material, image counts */
    uint64_t hash = oak_gltf_cache_checksum(b + 32, size - 32);
    memcpy(b + 24, &hash, 8);
    char path[512];
    oak_test_out(path, sizeof path, "image_count_4294967295.oakm");
    CHECK_OK(oak_write_file(path, b, size));
    oak_free(data);
    double t0 = cpu_seconds();
    oak_gltf *g = NULL;
    CHECK_EQ_INT(oak_gltf_load(&g, path, NULL), OAK_ERROR_PARSE);
    double secs = cpu_seconds() - t0;
    fprintf(stderr, "  %s in %.4f s\n", oak_last_error(), secs);
    CHECK(error_has("a count is larger than the cache could hold"));
    CHECK(secs < 1.0);
}

/* The committed corpus: every file fails with one line naming it. */
static void corpus(const char *dir, const char *ext, oak_result (*load)(const char *path),
                   uint32_t *count) {
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name), k = strlen(ext);
        if (n <= k || strcmp(e->d_name + n - k, ext) != 0) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        oak_clear_error();
        double t0 = cpu_seconds();
        oak_result r = load(path);
        double s = cpu_seconds() - t0;
        fprintf(stderr, "  %s: %s in %.3f s: %s\n", path, oak_result_name(r), s, oak_last_error());
        CHECK(r != OAK_OK);
        CHECK(r != OAK_ERROR_OUT_OF_MEMORY);
        CHECK(strstr(oak_last_error(), e->d_name) != NULL);
        CHECK(strchr(oak_last_error(), '\n') == NULL);
        CHECK(s < 5.0);
        (*count)++;
    }
    closedir(d);
}

static oak_result load_gltf(const char *path) {
    oak_gltf *g = NULL;
    oak_result r = oak_gltf_load(&g, path, NULL);
    oak_gltf_free(g);
    return r;
}
static oak_result load_scene(const char *path) {
    oak_scene *s = NULL;
    oak_result r = oak_scene_load(&s, path);
    if (s) oak_destroy_scene(s);
    return r;
}
static oak_result load_obj(const char *path) {
    oak_model m;
    oak_result r = oak_load_obj(&m, path);
    if (!r) {
        for (uint32_t i = 0; i < m.mesh_count; i++) oak_destroy_mesh(m.meshes[i]);
        for (uint32_t i = 0; i < m.material_count; i++) oak_destroy_material(m.materials[i]);
        oak_model_release(&m);
    }
    return r;
}

TEST(badCorpusFailsCleanly) {
    uint32_t n = 0;
    corpus("tests/data/bad/oakm", ".oakm", load_gltf, &n);
    corpus("tests/data/bad/scene", ".json", load_scene, &n);
    corpus("tests/data/bad/obj", ".obj", load_obj, &n);
    fprintf(stderr, "  %u bad files refused\n", n);
    CHECK(n >= 20);
}

/* ---- limits a frame can honour ------------------------------------------- */

TEST(limitsNameTheirConstant) {
    oak_mesh m = {0};
    oak_shape_desc hf = {.type = OAK_SHAPE_HEIGHTFIELD, .octaves = 4294967295u, .amplitude = 1};
    double t0 = cpu_seconds();
    CHECK(oak_make_shape(&m, &hf) == OAK_ERROR_LIMIT);
    CHECK(error_has("OAK_MAX_RECIPE_OCTAVES"));
    CHECK(cpu_seconds() - t0 < 1.0);
    /* oak_shape_height cannot fail: it clamps instead of running 2^32 octaves. */
    CHECK(isfinite(oak_shape_height(&hf, 1, 2)));
    oak_shape_desc sphere = {.type = OAK_SHAPE_SPHERE, .segments = 4096};
    CHECK(oak_make_shape(&m, &sphere) == OAK_ERROR_LIMIT);
    CHECK(error_has("OAK_MAX_SHAPE_SEGMENTS"));
    oak_shape_desc box = {.type = OAK_SHAPE_BOX, .segments = OAK_MAX_SHAPE_SEGMENTS};
    CHECK(oak_make_shape(&m, &box) == OAK_ERROR_LIMIT);
    CHECK(error_has("OAK_MAX_SHAPE_VERTICES"));
    CHECK_EQ_INT(oak_shape_vertex_bound(&box), 6ull * 1025 * 1025);
    /* A scene's recipes in all: 1023-segment heightfields (1,048,576
       vertices each) pass one by one but not three together, refused unmade. */
    t0 = cpu_seconds();
    oak_scene *s = NULL;
    CHECK(oak_scene_load(&s, "tests/data/bad/scene/heightfields_5x1023.json") == OAK_ERROR_LIMIT);
    CHECK(error_has("meshes[2].shape: the file's shapes reach 3145728 vertices; "
                    "OAK_MAX_SCENE_SHAPE_VERTICES allows 2097152"));
    CHECK(cpu_seconds() - t0 < 1.0);
    oak_shape_desc nan_freq = {.type = OAK_SHAPE_HEIGHTFIELD, .frequency = NAN};
    CHECK(oak_make_shape(&m, &nan_freq) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(error_has("finite"));
    /* The largest sphere allowed is made. */
    oak_shape_desc big = {.type = OAK_SHAPE_SPHERE, .segments = 512, .rings = 512};
    CHECK_OK(oak_make_shape(&m, &big));
    if (m.id) oak_destroy_mesh(m);

    oak_renderer *ren = NULL;
    oak_renderer_desc rd = {.backend = "null", .width = 16384, .height = 16384};
    CHECK(oak_make_renderer(&ren, &rd) == OAK_ERROR_LIMIT);
    CHECK(error_has("OAK_MAX_OUTPUT_PIXELS"));
    CHECK(ren == NULL);
    rd.width = 64, rd.height = 32;
    CHECK_OK(oak_make_renderer(&ren, &rd));
    if (ren) {
        CHECK(oak_renderer_resize(ren, 8192, 8192) == OAK_ERROR_LIMIT);
        oak_destroy_renderer(ren);
    }
}

/* ---- hierarchies in linear time ------------------------------------------ */

#define HIER_N 100000

TEST(sceneParentChainIsLinear) {
    text t = {0};
    put(&t, "{\"oak_scene\":1,\"entities\":[{}");
    for (int i = 1; i < HIER_N; i++) put(&t, ",{\"parent\":%d}", i - 1);
    put(&t, "]}");
    char path[512];
    oak_test_out(path, sizeof path, "chain_1e5.json");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(t.s, 1, t.n, f);
    fclose(f);
    free(t.s);
    double t0 = cpu_seconds();
    oak_scene *s = NULL;
    CHECK_OK(oak_scene_load(&s, path));
    if (s) {
        oak_scene_update_transforms(s);
        CHECK_EQ_INT(oak_scene_entity_count(s), HIER_N);
        oak_destroy_scene(s);
    }
    double secs = cpu_seconds() - t0;
    fprintf(stderr, "  scene chain of %d entities: %.3f s CPU\n", HIER_N, secs);
    CHECK(secs < 10.0); /* 44 s before, quadratic; ~0.1 s in Release now */
}

static void gltf_hierarchy(const char *shape) {
    text t = {0};
    put(&t, "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[");
    for (int i = 0; i < HIER_N; i++) {
        if (!strcmp(shape, "chain") && i + 1 < HIER_N)
            put(&t, "%s{\"children\":[%d]}", i ? "," : "", i + 1);
        else if (!strcmp(shape, "fan") && i == 0) {
            put(&t, "{\"children\":[");
            for (int k = 1; k < HIER_N; k++) put(&t, "%s%d", k > 1 ? "," : "", k);
            put(&t, "]}");
        } else
            put(&t, "%s{}", i ? "," : "");
    }
    put(&t, "]");
    if (!strcmp(shape, "flat")) { /* every node a root of the scene */
        put(&t, ",\"scenes\":[{\"nodes\":[");
        for (int i = 0; i < HIER_N; i++) put(&t, "%s%d", i ? "," : "", i);
        put(&t, "]}]");
    }
    put(&t, "}");
    double t0 = cpu_seconds();
    oak_gltf *g = NULL;
    oak_gltf_desc d = {.no_assets = true};
    CHECK_OK(oak_gltf_load_memory(&g, t.s, t.n, shape, &d));
    free(t.s);
    if (!g) return;
    double load = cpu_seconds() - t0;
    oak_scene *scene = NULL;
    oak_gltf_instance *inst = NULL;
    CHECK_OK(oak_make_scene(&scene));
    CHECK_OK(oak_gltf_instantiate(&inst, scene, g, (oak_entity){0}, "m"));
    oak_scene_update_transforms(scene);
    CHECK_EQ_INT(oak_scene_entity_count(scene), HIER_N + 1);
    oak_gltf_instance_free(inst);
    oak_destroy_scene(scene);
    oak_gltf_free(g);
    double all = cpu_seconds() - t0;
    fprintf(stderr, "  glTF %s of %d nodes: load %.3f s, with instance %.3f s CPU\n", shape, HIER_N,
            load, all);
    CHECK(all < 10.0); /* 13-23 s before */
}

TEST(gltfHierarchiesAreLinear) {
    gltf_hierarchy("chain");
    gltf_hierarchy("fan");
    gltf_hierarchy("flat");
}

/* ---- messages ------------------------------------------------------------- */

TEST(messagesStayOneReadableLine) {
    /* oak_last_error() passed to oak_error as its own argument. */
    oak_error(OAK_ERROR_PARSE, "inner reason %d", 42);
    oak_error(OAK_ERROR_PARSE, "model.gltf: images[3]: %s", oak_last_error());
    CHECK(strcmp(oak_last_error(), "model.gltf: images[3]: inner reason 42") == 0);
    /* A 5,000-character path keeps its head and the reason after it. */
    char *path = malloc(5001);
    memset(path, 'a', 5000);
    path[0] = '/', path[5000] = 0;
    oak_error(OAK_ERROR_IO, "%s: cannot create: File name too long", path);
    const char *e = oak_last_error();
    CHECK(strncmp(e, "/aaa", 4) == 0);
    CHECK(strstr(e, "...") != NULL);
    CHECK(error_has("a: cannot create: File name too long"));
    CHECK(strlen(e) < 512);
    free(path);
    /* Text given to the model loader says what it is not (an OBJ opens
       through libassimp now: tests/test_assimp_load.c). */
    oak_gltf *g = NULL;
    CHECK(oak_gltf_load(&g, "tests/data/bad/README.md", NULL) == OAK_ERROR_UNSUPPORTED);
    CHECK(error_has("README.md: not a glTF model"));
    CHECK(strstr(oak_last_error(), "JSON syntax") == NULL);
}

int main(void) {
    oak_test_init(2);
    RUN(framingRefusesNonFiniteAnglesAndSkipsNonFinitePoints);
    RUN(framingAModelScaledToInfinityFailsCleanly);
    RUN(instantiateSumsPrimitivesWithoutWrapping);
    RUN(oakmStructureIsCheckedAfterItsHash);
    RUN(oakmHugeCountFailsFast);
    RUN(badCorpusFailsCleanly);
    RUN(limitsNameTheirConstant);
    RUN(sceneParentChainIsLinear);
    RUN(gltfHierarchiesAreLinear);
    RUN(messagesStayOneReadableLine);
    oak_shutdown();
    return TEST_SUMMARY();
}
