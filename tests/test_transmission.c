/* The opaque frame's copy and what reads it (docs/SHADING.md "Transmission")
 * on a backend (argv[1]: cpu, vulkan or gl): the opaquecopy pass runs only
 * for a view with a material that reads it (none: the pass is skipped, and
 * on the CPU no copy is made); on the CPU the copy is the resolved frame and
 * each mip the 2 x 2 box of the level above, to the bit. Raw light:
 * exposure 1, no tone curve, dither, FXAA. */
#include "oak_test.h"

#include "backend/cpu/cpu_internal.h"
#include "backend_start.h"
#include "render/opaque_copy.h"
#include "render/pass_table.h"
#include "render/renderer_internal.h"

#define W 160
#define H 96

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_sphere, g_pane;

typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[3];
    oak_material mat[3];
    mat4 world[3];
    oak_environment env;
    oak_post post;
} scene;

static oak_material make(const oak_material_desc *md) {
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, md));
    return m;
}

static oak_material_desc plain(float r, float g, float b, float rough) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = r, md.base_color[1] = g, md.base_color[2] = b;
    md.metallic = 0, md.roughness = rough;
    return md;
}

/* An orthographic camera 2.4 m tall at z = 5 looking down -Z over a grey
   sky; draw 0 a sphere of radius 1 at the origin, the others the caller's. */
static void base_scene(scene *s, uint32_t count) {
    memset(s, 0, sizeof *s);
    s->post = (oak_post){.exposure = 1,
                         .ao = OAK_AO_OFF,
                         .no_tonemap = true,
                         .no_dither = true,
                         .no_fxaa = true,
                         .bloom = OAK_BLOOM_OFF};
    s->env = oak_environment_defaults();
    for (int k = 0; k < 3; k++) {
        s->env.sky_zenith_display[k] = 0.3f + 0.1f * (float)k;
        s->env.sky_horizon_display[k] = 0.6f;
    }
    s->in.camera = (oak_camera){.ortho_height = 2.4f, .znear = 0.1f, .zfar = 100};
    glm_mat4_identity(s->in.camera_world);
    s->in.camera_world[3][2] = 5;
    for (int i = 0; i < 3; i++) glm_mat4_identity(s->world[i]);
    s->mesh[0] = g_sphere;
    s->in.draw_count = count;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

static bool copy_ran(void) {
    return _oak_pass_runs(&_oak_pass_table()[OAK_PASS_OPAQUECOPY], &g_main->frontend.view,
                          g_main->backend->caps);
}

/* A sphere with a half-transparent pane in front of it runs no copy (a
   plain BLEND surface does not read the frame behind it); a water pane
   does. On the CPU the copy's level 0 is the resolved frame where no pane
   lies, and each texel of levels 1 .. 7 is the mean of its 2 x 2. */
TEST(copyOnlyWhenNeeded) {
    static scene s;
    oak_material_desc sd = plain(0.8f, 0.3f, 0.2f, 0.5f);
    oak_material_desc gd = plain(0.2f, 0.4f, 0.9f, 0.5f);
    gd.alpha_mode = OAK_ALPHA_BLEND, gd.base_color[3] = 0.5f;
    oak_material_desc wd = gd;
    wd.water = true;
    oak_material sphere = make(&sd), glass = make(&gd), water = make(&wd);
    base_scene(&s, 2);
    s.mat[0] = sphere, s.mat[1] = glass;
    s.mesh[1] = g_pane; /* a 1 m pane at z = 2 right of the sphere */
    s.world[1][3][0] = 1.2f, s.world[1][3][2] = 2;
    CHECK_OK(oak_renderer_draw(g_main, &s.in));
    bool ran = copy_ran();
    fprintf(stderr, "  sphere + plain BLEND pane: the copy runs %d\n", ran);
    CHECK(!ran);
    if (!strcmp(g_backend, "cpu")) CHECK(!((cpu_backend *)g_main->self)->opaque_valid);
    s.mat[1] = water;
    CHECK_OK(oak_renderer_draw(g_main, &s.in));
    ran = copy_ran();
    fprintf(stderr, "  sphere + water pane: the copy runs %d\n", ran);
    CHECK(ran);
    if (!strcmp(g_backend, "cpu")) {
        const cpu_backend *b = g_main->self;
        CHECK(b->opaque_valid);
        if (!b->opaque_valid) return;
        /* level 0 against the frame where the pane is not (x < 120) */
        size_t diff0 = 0;
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < 100; x++)
                for (int k = 0; k < 3; k++)
                    diff0 += b->opaque_copy[((size_t)y * W + x) * 3 + k] !=
                             b->color[((size_t)y * W + x) * 3 + k];
        size_t diff = 0, texels = 0;
        for (uint32_t l = 1; l < OAK_GPU_OPAQUE_LEVELS; l++) {
            uint32_t w, h, uw, uh;
            _oak_opaque_size(W, H, l, &w, &h);
            _oak_opaque_size(W, H, l - 1, &uw, &uh);
            const float *t = b->opaque_copy + 3 * _oak_opaque_offset(W, H, l);
            const float *u = b->opaque_copy + 3 * _oak_opaque_offset(W, H, l - 1);
            for (uint32_t y = 0; y < h; y++)
                for (uint32_t x = 0; x < w; x++, texels++) {
                    uint32_t x1 = 2 * x + 1 < uw ? 2 * x + 1 : uw - 1;
                    uint32_t y1 = 2 * y + 1 < uh ? 2 * y + 1 : uh - 1;
                    for (int k = 0; k < 3; k++) {
                        float m = (u[((size_t)2 * y * uw + 2 * x) * 3 + k] +
                                   u[((size_t)2 * y * uw + x1) * 3 + k] +
                                   u[((size_t)y1 * uw + 2 * x) * 3 + k] +
                                   u[((size_t)y1 * uw + x1) * 3 + k]) *
                                  0.25f;
                        diff += t[((size_t)y * w + x) * 3 + k] != m;
                    }
                }
        }
        fprintf(stderr, "  copy: level 0 %zu floats off the frame, %zu mip texels, %zu off\n",
                diff0, texels, diff);
        CHECK_EQ_INT((int)diff0, 0);
        CHECK_EQ_INT((int)diff, 0);
        CHECK(texels > 0);
    }
    oak_destroy_material(sphere);
    oak_destroy_material(glass);
    oak_destroy_material(water);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_shape_desc sd = {.type = OAK_SHAPE_SPHERE, .radius = 1, .segments = 64, .rings = 32};
    CHECK_OK(oak_make_shape(&g_sphere, &sd));
    oak_shape_desc qd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 0.02f}};
    CHECK_OK(oak_make_shape(&g_pane, &qd));
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(copyOnlyWhenNeeded);
    }
    oak_destroy_renderer(g_main);
    oak_destroy_mesh(g_sphere);
    oak_destroy_mesh(g_pane);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    int rc = TEST_SUMMARY();
    return rc ? rc : oak_test_failures_ ? 1 : 0;
}
