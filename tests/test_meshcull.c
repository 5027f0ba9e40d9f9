/* Per-meshlet culling of plain draws (docs/ARCHITECTURE.md "Meshlet
 * culling"). On the CPU (no argument): a scene of spheres (single-sided,
 * double-sided, mirrored, one half off the side) over a large plane drawn
 * with OAK_MESHCULL on and off is the same byte for byte, and the counters
 * say what was culled: a sphere seen from one side loses at least 30% of
 * its meshlets by their cones, a plane mostly off screen at least half by
 * the frustum; a sphere sliding into view is drawn the frame it enters (the
 * pictures on and off agree frame by frame). On vulkan or gl, where the
 * meshcull pass culls in compute into an index buffer: the same tests (the
 * same bytes on and off, the same shares culled, the sphere entering), the
 * counters equal to the CPU's, and the scene against the CPU's under the
 * parity rule, culling on and off. */
#include "oak_test.h"

#include "backend/gpu/meshcull.h"
#include "backend_start.h"
#include "meshlet_test.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_material g_one, g_two;
static oak_mesh g_sphere, g_plane;

enum { DRAWS = OAK_TEST_PLANE + 1 };

typedef OAK_TEST_SUNLIT_SCENE(DRAWS) scene;

static void scene_init(scene *s, uint32_t count) {
    memset(s, 0, sizeof *s);
    oak_test_spheres(OAK_TEST_PARTS(s), count, g_sphere, g_plane, g_one, g_two);
}

/* One frame of s on a backend under OAK_MESHCULL=mode into px, and its
   counters (a GPU's are read once its frame is done: read_pixels waited). */
static bool picture_on(const char *backend, scene *s, const char *mode, uint8_t *px,
                       oak_meshlet_stats *st) {
    setenv("OAK_MESHCULL", mode, 1);
    oak_renderer *r = oak_test_open_renderer(backend, W, H, OAK_OCCLUSION_DEFAULT);
    bool ok = r && oak_renderer_draw(r, &s->in) == OAK_OK &&
              oak_renderer_read_pixels(r, px, (size_t)W * H * 4) == OAK_OK;
    CHECK(ok);
    if (ok && st) CHECK_OK(oak_renderer_meshlet_stats(r, st));
    oak_destroy_renderer(r);
    unsetenv("OAK_MESHCULL");
    return ok;
}

static bool picture(scene *s, const char *mode, uint8_t *px, oak_meshlet_stats *st) {
    return picture_on(g_backend, s, mode, px, st);
}

static size_t differ(const uint8_t *a, const uint8_t *b) {
    return oak_test_bytes_differ(a, b, (size_t)W * H * 4);
}

static uint32_t meshlets_of(oak_mesh m) {
    const oak_meshlets *ml = NULL;
    CHECK_OK(oak_mesh_meshlets(m, &ml));
    return ml ? ml->count : 0;
}

TEST(sameBytesOnAndOff) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s, DRAWS);
    oak_meshlet_stats on, off;
    bool made = picture(&s, "off", a, &off) && picture(&s, "on", b, &on);
    CHECK(made);
    if (!made) return;
    size_t n = differ(a, b);
    if (getenv("OAK_MESHCULL_DUMP")) {
        oak_image_write_png("/tmp/gm_test_off.png", W, H, a);
        oak_image_write_png("/tmp/gm_test_on.png", W, H, b);
    }
    fprintf(stderr,
            "  %u meshlets tested, %u culled by the frustum, %u by cones, %u triangles kept; "
            "%zu bytes differ\n",
            on.tested, on.culled_frustum, on.culled_cone, on.triangles_kept, n);
    CHECK(!off.on && off.tested == 0);
    CHECK(on.on);
    CHECK_EQ_INT((int)on.tested, (int)(4 * meshlets_of(g_sphere) + meshlets_of(g_plane)));
    CHECK(on.culled_frustum > 0 && on.culled_cone > 0);
    CHECK_EQ_INT((int)n, 0);
}

/* One sphere, whole in view from 4 m: the cones drop the far side. */
TEST(coneCullsTheFarSide) {
    static scene s;
    static uint8_t a[W * H * 4];
    scene_init(&s, 1);
    oak_meshlet_stats st;
    if (!picture(&s, "on", a, &st)) return;
    double f = (double)st.culled_cone / (double)(st.tested ? st.tested : 1);
    fprintf(stderr, "  one sphere: %u of %u meshlets culled by cones (%.3f), %u by the frustum\n",
            st.culled_cone, st.tested, f, st.culled_frustum);
    CHECK_EQ_INT((int)st.tested, (int)meshlets_of(g_sphere));
    CHECK(f >= 0.30);
    CHECK_EQ_INT((int)st.culled_frustum, 0);
}

/* The double-sided and the mirrored spheres keep every meshlet by cone
   (their back faces show, or front and back swap). */
TEST(noConeForTwoSidedOrMirrored) {
    static scene s;
    static uint8_t a[W * H * 4];
    scene_init(&s, DRAWS);
    s.meshes[0] = g_sphere, s.mats[0] = g_two;
    s.meshes[1] = g_sphere, s.mats[1] = g_one;
    glm_mat4_copy(s.world[OAK_TEST_SPHERE_TWO], s.world[0]);
    glm_mat4_copy(s.world[OAK_TEST_SPHERE_MIRROR], s.world[1]);
    s.in.draw_count = 2;
    oak_meshlet_stats st;
    if (!picture(&s, "on", a, &st)) return;
    fprintf(stderr, "  two-sided and mirrored: %u tested, %u by cones, %u by the frustum\n",
            st.tested, st.culled_cone, st.culled_frustum);
    CHECK_EQ_INT((int)st.tested, (int)(2 * meshlets_of(g_sphere)));
    CHECK_EQ_INT((int)st.culled_cone, 0);
}

/* The 60 m plane from 1.5 m up: most of it is behind or beside the eye. */
TEST(frustumCullsOffScreen) {
    static scene s;
    static uint8_t a[W * H * 4];
    scene_init(&s, DRAWS);
    s.meshes[0] = g_plane;
    glm_mat4_identity(s.world[0]);
    s.in.draw_count = 1;
    oak_meshlet_stats st;
    if (!picture(&s, "on", a, &st)) return;
    double f = (double)st.culled_frustum / (double)(st.tested ? st.tested : 1);
    fprintf(stderr, "  plane: %u of %u meshlets culled by the frustum (%.3f), %u by cones\n",
            st.culled_frustum, st.tested, f, st.culled_cone);
    CHECK(f >= 0.5);
    CHECK_EQ_INT((int)st.culled_cone, 0); /* seen from above */
}

/* A sphere sliding in from the right, 0.5 m a frame: on and off agree on
   every frame, it shows from the frame its edge crosses the border, and
   while it straddles the border part of it is culled by the frustum. */
TEST(enteringViewIsDrawn) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4], empty[W * H * 4];
    scene_init(&s, 1);
    oak_renderer *r[2] = {NULL, NULL};
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    setenv("OAK_MESHCULL", "off", 1);
    CHECK_OK(oak_make_renderer(&r[0], &d));
    unsetenv("OAK_MESHCULL");
    CHECK_OK(oak_make_renderer(&r[1], &d));
    if (!r[0] || !r[1]) goto out;
    size_t worst = 0;
    int shown = -1, partly = 0;
    for (int f = 0; f < 8; f++) {
        glm_mat4_identity(s.world[0]);
        glm_translate(s.world[0], (vec3){6.0f - 0.5f * (float)f, 1, -1});
        bool ok = oak_renderer_draw(r[0], &s.in) == OAK_OK &&
                  oak_renderer_read_pixels(r[0], a, sizeof a) == OAK_OK &&
                  oak_renderer_draw(r[1], &s.in) == OAK_OK &&
                  oak_renderer_read_pixels(r[1], b, sizeof b) == OAK_OK;
        CHECK(ok);
        if (!ok) break;
        oak_meshlet_stats st;
        CHECK_OK(oak_renderer_meshlet_stats(r[1], &st));
        size_t n = differ(a, b);
        worst = n > worst ? n : worst;
        if (f == 0) memcpy(empty, a, sizeof a); /* the sphere past the edge */
        if (shown < 0 && differ(a, empty) > 0) shown = f;
        partly += shown >= 0 && st.culled_frustum > 0;
    }
    fprintf(stderr,
            "  sliding in: shown from frame %d, %d frames with part of it culled by the "
            "frustum, at most %zu bytes differ\n",
            shown, partly, worst);
    CHECK_EQ_INT((int)worst, 0);
    CHECK(shown > 0 && shown < 8);
    CHECK(partly >= 1);
out:
    for (int i = 0; i < 2; i++) oak_destroy_renderer(r[i]);
}

/* The rule for which meshes are culled by meshlets, and the map from a
   cut back to the mesh's own triangles (a triangle listed twice too). */
TEST(worthRuleAndTriangleMap) {
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .segments = 12, .rings = 6};
    oak_mesh small = {0};
    CHECK_OK(oak_make_shape(&small, &sd));
    const oak_meshlets *ml = NULL;
    CHECK_OK(oak_mesh_meshlets(small, &ml));
    CHECK(ml && !_oak_meshcull_worth(ml)); /* 2 meshlets, cones too wide */
    CHECK_OK(oak_mesh_meshlets(g_sphere, &ml));
    CHECK(ml && _oak_meshcull_worth(ml));
    oak_destroy_mesh(small);
    /* a quad strip with its second triangle listed twice */
    static const float p[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0, 2, 0, 0, 2, 1, 0};
    static const uint32_t ix[] = {0, 1, 2, 1, 3, 2, 1, 3, 2, 1, 4, 3, 4, 5, 3};
    oak_meshlets cut = {0};
    CHECK_OK(oak_build_meshlets(&cut, p, 6, ix, 15));
    uint32_t tri_of[5] = {9, 9, 9, 9, 9}, seen[5] = {0};
    CHECK(_oak_meshcull_triangle_map(tri_of, &cut, ix, 5));
    for (int k = 0; k < 5; k++) seen[tri_of[k] < 5 ? tri_of[k] : 0]++;
    for (int k = 0; k < 5; k++) CHECK_EQ_INT((int)seen[k], 1);
    /* a cut that names a triangle the mesh lacks is refused */
    static const uint32_t other[] = {0, 1, 2, 1, 3, 2, 1, 3, 2, 1, 4, 3, 4, 3, 5};
    CHECK(!_oak_meshcull_triangle_map(tri_of, &cut, other, 5));
    oak_meshlets_release(&cut);
    /* a mesh over the cut limit waits for a cut made elsewhere */
    oak_shape_desc bd = {.type = OAK_SHAPE_PLANE, .size = {10, 1, 10}, .segments = 129};
    oak_mesh big = {0};
    CHECK_OK(oak_make_shape(&big, &bd));
    const oak_mesh_data *bdata = oak_mesh_get(big);
    CHECK(bdata && bdata->index_count / 3 > OAK_MESHCULL_CUT_MAX_TRIANGLES);
    CHECK(!_oak_meshcull_cut_ready(bdata));
    CHECK_OK(oak_mesh_meshlets(big, &ml));
    CHECK(_oak_meshcull_cut_ready(bdata));
    CHECK(_oak_meshcull_cut_ready(oak_mesh_get(g_sphere)));
    oak_destroy_mesh(big);
    setenv("OAK_MESHCULL", "off", 1);
    CHECK(!_oak_meshcull_enabled());
    unsetenv("OAK_MESHCULL");
    CHECK(_oak_meshcull_enabled());
}

/* A GPU backend's counters are the CPU's for the same scene: the same
   planes and draw settings from the host, the same test in GLSL. */
TEST(countersMatchCpu) {
    static scene s;
    static uint8_t a[W * H * 4];
    scene_init(&s, DRAWS);
    oak_meshlet_stats cpu, gpu;
    if (!picture_on("cpu", &s, "on", a, &cpu) || !picture(&s, "on", a, &gpu)) return;
    fprintf(stderr, "  cpu: %u tested, %u frustum, %u cone, %u triangles; %s: %u, %u, %u, %u\n",
            cpu.tested, cpu.culled_frustum, cpu.culled_cone, cpu.triangles_kept, g_backend,
            gpu.tested, gpu.culled_frustum, gpu.culled_cone, gpu.triangles_kept);
    CHECK(gpu.on);
    CHECK_EQ_INT((int)gpu.tested, (int)cpu.tested);
    CHECK_EQ_INT((int)gpu.culled_frustum, (int)cpu.culled_frustum);
    CHECK_EQ_INT((int)gpu.culled_cone, (int)cpu.culled_cone);
    CHECK_EQ_INT((int)gpu.triangles_kept, (int)cpu.triangles_kept);
}

/* A GPU backend's picture of the scene against the CPU's (culling on),
   with its own culling on and off. */
TEST(pictureMatchesCpu) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s, DRAWS);
    oak_test_parity_frame("meshlets on", g_backend, &s.in, W, H, a, b);
    setenv("OAK_MESHCULL", "off", 1);
    oak_renderer *r = oak_test_open_renderer(g_backend, W, H, OAK_OCCLUSION_DEFAULT);
    unsetenv("OAK_MESHCULL");
    if (r && oak_renderer_draw(r, &s.in) == OAK_OK &&
        oak_renderer_read_pixels(r, b, sizeof b) == OAK_OK)
        oak_test_parity("meshlets off vs cpu on", a, b, W, H);
    oak_destroy_renderer(r);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    oak_material_desc md = oak_test_rough_desc();
    CHECK_OK(oak_make_material(&g_one, &md));
    md.double_sided = true;
    md.base_color[0] = 0.3f;
    CHECK_OK(oak_make_material(&g_two, &md));
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 1, .segments = 64, .rings = 32};
    CHECK_OK(oak_make_shape(&g_sphere, &sd));
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {60, 1, 60}, .segments = 64};
    CHECK_OK(oak_make_shape(&g_plane, &pd));
    fprintf(stderr, "  backend %s\n", g_backend);
    if (!strcmp(g_backend, "cpu")) {
        RUN(sameBytesOnAndOff);
        RUN(coneCullsTheFarSide);
        RUN(noConeForTwoSidedOrMirrored);
        RUN(frustumCullsOffScreen);
        RUN(enteringViewIsDrawn);
        RUN(worthRuleAndTriangleMap);
    } else {
        /* vulkan and gl: the same pictures on and off, the counters, a
           sphere entering */
        RUN(sameBytesOnAndOff);
        RUN(coneCullsTheFarSide);
        RUN(noConeForTwoSidedOrMirrored);
        RUN(frustumCullsOffScreen);
        RUN(enteringViewIsDrawn);
        RUN(countersMatchCpu);
        RUN(pictureMatchesCpu);
    }
    oak_destroy_mesh(g_sphere);
    oak_destroy_mesh(g_plane);
    oak_shutdown();
    return g_oak_test_validation || g_oak_test_errors ? 1 : TEST_SUMMARY();
}
