/* The mesh path (docs/ARCHITECTURE.md "Mesh shaders"): on a Vulkan device
 * with task and mesh shaders (Mesa 25's lavapipe: this test's
 * _lavapipe25 run), the camera's meshlet jobs culled in a task shader and
 * drawn by a mesh shader give what the expanded index buffer
 * (OAK_MESH_SHADERS=off, the default; the test turns it on) gives: on test_meshcull's spheres and
 * plane and test_clod's rocks, every pixel's surface (albedo, normal and depth channels, bit for
 * bit: the same draw, triangle and depth) and every meshlet counter equal, and the picture within
 * the parity rule of the CPU's; the validation layer says nothing. Under --occlusion on (two-pass
 * Hi-Z) the frame takes the expanded path and its counters are the same
 * as without the mesh path. The rocks cast cluster-LOD shadows: their
 * shadow jobs (expanded by meshcull.comp, first in the buffer, beside the
 * mesh path's chunk table) keep their counters and the final picture is
 * the same byte for byte. Exits 77 where the device has no mesh shaders
 * (the system's lavapipe 22.3) or the backend is not Vulkan (GL keeps the
 * expanded buffer: it has only NV_mesh_shader). */
#include <oak/scene.h>
#include <oak/world.h>

#include "oak_test.h"

#include "backend/vulkan/vk_internal.h"
#include "backend_start.h"
#include "meshlet_test.h"
#include "render/renderer_internal.h"
#include "world/internal.h"

#define W 160
#define H 90

static const char *g_backend = "vulkan";
static oak_material g_one, g_two, g_rock_mat;
static oak_mesh g_sphere, g_plane, g_rock;

/* ---- the scenes ----------------------------------------------------------- */

enum { DRAWS = 10 }; /* the spheres and plane, or the rocks */

typedef struct scene {
    oak_frame_input in;
    oak_render_light sun;
    oak_environment env;
    oak_post post;
    oak_mesh meshes[DRAWS];
    oak_material mats[DRAWS];
    mat4 world[DRAWS];
} scene;

/* test_meshcull's scene: spheres single-sided, half past the right edge,
   double-sided and mirrored over a 60 m plane */
static void spheres_init(scene *s) {
    memset(s, 0, sizeof *s);
    oak_test_spheres(OAK_TEST_PARTS(s), OAK_TEST_PLANE + 1, g_sphere, g_plane, g_one, g_two);
}

/* test_clod's rocks: five 20,480-triangle cluster-LOD rocks from 2 to 30 m,
   one half off the edge */
static void rocks_init(scene *s) {
    memset(s, 0, sizeof *s);
    oak_test_rocks(OAK_TEST_PARTS(s), g_rock, g_rock_mat);
}

/* ---- frames ------------------------------------------------------------- */

static _oak_vk *vk_of(oak_renderer *r) {
    /* the Vulkan backend's state is its self's first member (vk_backend.c) */
    return (_oak_vk *)r->self;
}

/* A renderer on g_backend under OAK_MESH_SHADERS=mode (NULL: unset, the
   expanded path: the mesh path is opt-in). */
static oak_renderer *renderer(const char *mode) {
    if (mode) setenv("OAK_MESH_SHADERS", mode, 1);
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    unsetenv("OAK_MESH_SHADERS");
    return r;
}

typedef struct frame {
    float ch[3][W * H * 4]; /* albedo, normal, depth */
    uint8_t px[W * H * 4];
    oak_meshlet_stats st;
    bool mesh_drew; /* the mesh path drew (its first vis group's pipeline was made) */
} frame;

/* The picture and the counters of s under mode (its first frame: the
   shadow maps are drawn then, cached after), then the three channels. */
static bool frames(scene *s, const char *mode, frame *out) {
    oak_renderer *r = renderer(mode);
    bool ok = r != NULL;
    s->post.channel = OAK_CHANNEL_NONE;
    ok = ok && oak_renderer_draw(r, &s->in) == OAK_OK &&
         oak_renderer_read_pixels(r, out->px, sizeof out->px) == OAK_OK;
    if (ok) CHECK_OK(oak_renderer_meshlet_stats(r, &out->st));
    const oak_channel ch[3] = {OAK_CHANNEL_ALBEDO, OAK_CHANNEL_NORMAL, OAK_CHANNEL_DEPTH};
    for (int c = 0; c < 3 && ok; c++) {
        s->post.channel = ch[c];
        ok = oak_renderer_draw(r, &s->in) == OAK_OK &&
             oak_renderer_read_channel(r, out->ch[c], (size_t)W * H * 4) == OAK_OK;
    }
    s->post.channel = OAK_CHANNEL_NONE;
    if (r) out->mesh_drew = vk_of(r)->mesh_pipes[0] != VK_NULL_HANDLE;
    CHECK(ok);
    oak_destroy_renderer(r);
    return ok;
}

static void counters_equal(const char *what, const oak_meshlet_stats *a,
                           const oak_meshlet_stats *b) {
    fprintf(stderr,
            "  %s: %u tested, %u frustum, %u cone, %u lod, %u triangles against %u, %u, %u, %u, "
            "%u\n",
            what, a->tested, a->culled_frustum, a->culled_cone, a->culled_lod, a->triangles_kept,
            b->tested, b->culled_frustum, b->culled_cone, b->culled_lod, b->triangles_kept);
    CHECK(a->on && b->on);
    CHECK_EQ_INT((int)a->tested, (int)b->tested);
    CHECK_EQ_INT((int)a->culled_frustum, (int)b->culled_frustum);
    CHECK_EQ_INT((int)a->culled_cone, (int)b->culled_cone);
    CHECK_EQ_INT((int)a->culled_lod, (int)b->culled_lod);
    CHECK_EQ_INT((int)a->triangles_kept, (int)b->triangles_kept);
    CHECK_EQ_INT((int)a->overflow_triangles, 0);
    /* the shadow jobs' (cluster-LOD casters, expanded on both paths) */
    fprintf(stderr, "  %s: shadows %u triangles, %u lod against %u, %u\n", what,
            a->shadow_triangles, a->shadow_culled_lod, b->shadow_triangles, b->shadow_culled_lod);
    CHECK_EQ_INT((int)a->shadow_triangles, (int)b->shadow_triangles);
    CHECK_EQ_INT((int)a->shadow_culled_lod, (int)b->shadow_culled_lod);
}

/* The mesh path against the expanded one on scene s: every pixel's
   surface bit for bit, the counters, the picture byte for byte; both
   against the CPU. Returns the mesh path's counters in *st. */
static void mesh_vs_expanded(const char *what, scene *s, uint32_t min_covered,
                             oak_meshlet_stats *st) {
    static frame m, e;
    static uint8_t cpu[W * H * 4];
    if (!frames(s, "on", &m) || !frames(s, "off", &e)) return;
    CHECK(m.mesh_drew);  /* the task and mesh shaders drew it */
    CHECK(!e.mesh_drew); /* OAK_MESH_SHADERS=off: never made */
    size_t same = 0, covered = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) {
        bool eq = true;
        for (int c = 0; c < 3; c++) eq &= !memcmp(&m.ch[c][i * 4], &e.ch[c][i * 4], 16);
        same += eq;
        covered += e.ch[2][i * 4] > 0;
    }
    double frac = (double)same / (double)(W * H);
    fprintf(stderr,
            "  %s: %zu of %d pixels (%.4f) the same surface and depth bit for bit, %zu covered\n",
            what, same, W * H, frac, covered);
    CHECK(covered >= min_covered);
    CHECK_EQ_INT((int)same, W * H);
    size_t px_same = 0;
    for (size_t i = 0; i < (size_t)W * H; i++) px_same += !memcmp(&m.px[i * 4], &e.px[i * 4], 4);
    fprintf(stderr, "  %s: %zu of %d final pixels byte-equal\n", what, px_same, W * H);
    CHECK_EQ_INT((int)px_same, W * H);
    counters_equal("mesh path vs expanded", &m.st, &e.st);
    *st = m.st;
    oak_meshlet_stats cst;
    oak_renderer *c = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&c, &d));
    if (c && oak_renderer_draw(c, &s->in) == OAK_OK &&
        oak_renderer_read_pixels(c, cpu, sizeof cpu) == OAK_OK &&
        oak_renderer_meshlet_stats(c, &cst) == OAK_OK) {
        counters_equal("mesh path vs cpu", &m.st, &cst);
        char label[96];
        snprintf(label, sizeof label, "%s: cpu vs the mesh path", what);
        oak_test_parity(label, cpu, m.px, W, H);
    }
    oak_destroy_renderer(c);
}

TEST(spheresSameAsExpanded) {
    static scene s;
    spheres_init(&s);
    oak_meshlet_stats st;
    mesh_vs_expanded("spheres and plane", &s, W * H / 2, &st);
}

TEST(rocksSameAsExpanded) {
    static scene s;
    rocks_init(&s);
    oak_meshlet_stats st = {0};
    mesh_vs_expanded("rocks' cut", &s, W * H / 10, &st);
    /* the shadow jobs ran beside the mesh path (their cut, some of it out) */
    CHECK(st.shadow_triangles > 0);
    CHECK(st.shadow_culled_lod > 0);
}

/* Under two-pass Hi-Z the expanded path runs (the mesh path is not used
   that frame): the counters match a renderer without the mesh path. */
TEST(occlusionTakesExpandedPath) {
    static scene s;
    spheres_init(&s);
    oak_meshlet_stats st[2];
    for (int k = 0; k < 2; k++) {
        oak_renderer *r = renderer(k ? "off" : "on");
        if (!r) return;
        oak_renderer_set_occlusion(r, OAK_OCCLUSION_ON);
        bool ok = oak_renderer_draw(r, &s.in) == OAK_OK && oak_renderer_draw(r, &s.in) == OAK_OK;
        static uint8_t px[W * H * 4];
        ok = ok && oak_renderer_read_pixels(r, px, sizeof px) == OAK_OK;
        CHECK(ok);
        if (ok) CHECK_OK(oak_renderer_meshlet_stats(r, &st[k]));
        if (!k) CHECK(vk_of(r)->mesh_pipes[0] == VK_NULL_HANDLE); /* never drew */
        oak_destroy_renderer(r);
        if (!ok) return;
    }
    counters_equal("under Hi-Z, mesh shaders on vs off", &st[0], &st[1]);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    if (strcmp(g_backend, "vulkan") != 0) {
        fprintf(stderr, "skipped: the mesh path is Vulkan's (%s keeps the expanded buffer)\n",
                g_backend);
        return OAK_TEST_SKIP;
    }
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    /* does the device take the mesh path? */
    oak_renderer *probe = renderer("on");
    bool has = probe && vk_of(probe)->mesh_shaders;
    if (probe) fprintf(stderr, "  device: %s\n", vk_of(probe)->device_name);
    oak_destroy_renderer(probe);
    if (!has) {
        fprintf(stderr, "skipped: the device has no task and mesh shaders\n");
        oak_shutdown();
        return g_oak_test_validation || g_oak_test_errors ? 1 : OAK_TEST_SKIP;
    }
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.roughness = 0.7f, md.metallic = 0;
    CHECK_OK(oak_make_material(&g_one, &md));
    md.roughness = 0.8f;
    CHECK_OK(oak_make_material(&g_rock_mat, &md));
    md.roughness = 0.7f;
    md.double_sided = true;
    md.base_color[0] = 0.3f;
    CHECK_OK(oak_make_material(&g_two, &md));
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 1, .segments = 64, .rings = 32};
    CHECK_OK(oak_make_shape(&g_sphere, &sd));
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {60, 1, 60}, .segments = 64};
    CHECK_OK(oak_make_shape(&g_plane, &pd));
    CHECK_OK(_oak_world_dense_rock(&g_rock, 5, 3));
    RUN(spheresSameAsExpanded);
    RUN(rocksSameAsExpanded);
    RUN(occlusionTakesExpandedPath);
    oak_destroy_mesh(g_sphere);
    oak_destroy_mesh(g_plane);
    oak_destroy_mesh(g_rock);
    oak_shutdown();
    return g_oak_test_validation || g_oak_test_errors ? 1 : TEST_SUMMARY();
}
