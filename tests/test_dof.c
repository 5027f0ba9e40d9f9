/* Depth of field on a backend (argv[1]: cpu, vulkan or gl), with emissive
 * boxes on a black sky seen through a 20-degree lens: the lens's circle of
 * confusion is the thin lens's (a small bright dot 20 m out blurs to the
 * radius the formula gives); a flat frame stays flat; bars at the focus
 * stay sharp while the same bars out of focus lose contrast, more as the
 * aperture opens, keeping their light; a blurred box in front of the focus
 * spreads over the sharp wall behind it; the pass runs only when focused;
 * and on vulkan and gl the picture is the CPU's at the parity rule. */
#include "oak_test.h"

#include "backend_start.h"
#include "render/dof.h"

#define W         160
#define H         90
#define MAX_BOXES 8

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_box;
static oak_material g_white, g_grey;

typedef struct scene {
    oak_frame_input in;
    uint32_t n;
    oak_mesh mesh[MAX_BOXES];
    oak_material mat[MAX_BOXES];
    mat4 world[MAX_BOXES];
    oak_environment env;
    oak_post post;
} scene;

/* Black sky, no lights; the camera at the origin looking down -Z through a
   20-degree lens (a 68 mm focal length on the 24 mm sensor). */
static void scene_init(scene *s, float focus, float fnumber) {
    memset(s, 0, sizeof *s);
    oak_test_dark_world(&s->env, &s->post);
    s->post.aperture = fnumber;
    s->post.focus_distance = focus;
    s->in.camera = (oak_camera){.fov_y = glm_rad(20), .znear = 0.1f, .zfar = 200};
    glm_mat4_identity(s->in.camera_world);
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

/* A unit box scaled to (sx, sy, sz) with its centre at (x, y, z). */
static void add_box(scene *s, oak_material m, float x, float y, float z, float sx, float sy,
                    float sz) {
    if (s->n == MAX_BOXES) return;
    uint32_t i = s->n++;
    s->mesh[i] = g_box, s->mat[i] = m;
    glm_mat4_identity(s->world[i]);
    s->world[i][0][0] = sx, s->world[i][1][1] = sy, s->world[i][2][2] = sz;
    s->world[i][3][0] = x, s->world[i][3][1] = y, s->world[i][3][2] = z;
    s->in.draw_count = s->n;
}

static void draw(const scene *s, uint8_t *px) {
    CHECK_OK(oak_renderer_draw(g_main, &s->in));
    CHECK_OK(oak_renderer_read_pixels(g_main, px, (size_t)W * H * 4));
}

static double linear(uint8_t v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double lin_at(const uint8_t *px, uint32_t x, uint32_t y) {
    return linear(px[((size_t)y * W + x) * 4 + 1]); /* green: every box is grey */
}

static bool ran(const char *stage) {
    oak_stage_timing t[32];
    uint32_t n = oak_renderer_timings(g_main, t, 32);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, stage) && t[i].cpu_ms > 0) return true;
    return false;
}

/* The thin lens's CoC in full-size pixels for an object at z metres. */
static double thin_lens_px(double z, double focus, double fnumber) {
    double f = 0.5 * OAK_DOF_SENSOR_HEIGHT / tan(glm_rad(20) * 0.5), a = f / fnumber;
    return a * f / (focus - f) * fabs(1 - focus / z) / OAK_DOF_SENSOR_HEIGHT * H;
}

/* A 20 cm dot 20 m out (about 2 x 2 px) with the lens focused at 1 m and
   open at f/1.4: its light reaches out as far as the thin lens's circle and
   at most 3.5 px further (the dot's own pixel, and one half-size texel the
   prefilter may straddle); the dot's light is kept within 15%. */
TEST(blurRadiusIsTheThinLens) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    scene_init(&s, 0, 1.4f);
    oak_material hot = oak_test_emitter(1);
    add_box(&s, hot, 0, 0, -20, 0.2f, 0.2f, 0.2f);
    draw(&s, off);
    s.post.focus_distance = 1;
    draw(&s, on);
    double want = thin_lens_px(20, 1, 1.4) / 2; /* a diameter in the formula: half is the radius */
    /* the disc's radius along the middle row: how far the light reaches */
    double sum_off = 0, sum_on = 0;
    int reach = 0;
    for (uint32_t y = 0; y < H; y++)
        for (uint32_t x = 0; x < W; x++) sum_off += lin_at(off, x, y), sum_on += lin_at(on, x, y);
    double peak = 0;
    for (uint32_t x = 0; x < W; x++) peak = fmax(peak, lin_at(on, x, H / 2));
    for (uint32_t x = W / 2; x < W; x++)
        if (lin_at(on, x, H / 2) > 0.1 * peak) reach = (int)(x - W / 2) + 1;
    fprintf(stderr, "  dot: thin lens radius %.2f px, lit to %d px; light %.3f -> %.3f\n", want,
            reach, sum_off, sum_on);
    oak_destroy_material(hot);
    CHECK(want > 5 && want < 20);
    CHECK(reach >= want && reach <= want + 3.5);
    CHECK(sum_on > 0.85 * sum_off && sum_on < 1.15 * sum_off);
}

/* A flat grey wall filling the frame, far out of focus: blurred, it is still
   the same grey everywhere (within a byte). */
TEST(flatFrameStaysFlat) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    scene_init(&s, 0, 1.4f);
    add_box(&s, g_grey, 0, 0, -30, 60, 40, 1);
    draw(&s, off);
    bool cpu = !strcmp(g_backend, "cpu");
    if (cpu) CHECK(!ran("dof"));
    s.post.focus_distance = 1;
    draw(&s, on);
    if (cpu) CHECK(ran("dof"));
    int most = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) {
        int d = abs((int)on[i] - (int)off[i]);
        most = d > most ? d : most;
    }
    fprintf(stderr, "  flat wall at 30 m, focus 1 m: byte %d, max difference %d\n", off[4], most);
    CHECK(off[4] > 100);
    CHECK(most <= 1);
}

/* The middle row's brightest linear light. */
static double peak(const uint8_t *px) {
    double hi = 0;
    for (uint32_t x = 0; x < W; x++) hi = fmax(hi, lin_at(px, x, H / 2));
    return hi;
}

static double row_light(const uint8_t *px) {
    double sum = 0;
    for (uint32_t x = 0; x < W; x++) sum += lin_at(px, x, H / 2);
    return sum;
}

/* White bars 8 cm wide (3.4 px) every 30 cm, 6 m out on a black sky:
   focused there they stay as they are (within 2% of their light: the
   half-size gather leaves the sky beside a sharp edge a faint rim);
   focused at 1 m their peak falls as the aperture opens (f/11, f/4, f/1.4:
   blur radii 0.7, 1.9 and 5.5 px) and the row keeps its light. */
TEST(outOfFocusBarsSpread) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    scene_init(&s, 0, 1.4f);
    for (int i = 0; i < 6; i++) add_box(&s, g_white, -0.75f + 0.3f * i, 0, -6, 0.08f, 3, 0.05f);
    draw(&s, off);
    s.post.focus_distance = 6;
    draw(&s, on);
    double most = 0;
    for (uint32_t x = 0; x < W; x++)
        most = fmax(most, fabs(lin_at(on, x, H / 2) - lin_at(off, x, H / 2)));
    double c_off = peak(off), light_off = row_light(off);
    s.post.focus_distance = 1;
    double c[3];
    const float stops[3] = {11, 4, 1.4f};
    for (int k = 0; k < 3; k++) {
        s.post.aperture = stops[k];
        draw(&s, on);
        c[k] = peak(on);
        if (k == 2) {
            double light = row_light(on);
            fprintf(stderr, "  row light %.3f sharp, %.3f at f/1.4\n", light_off, light);
            CHECK(light > 0.85 * light_off && light < 1.15 * light_off);
        }
    }
    fprintf(stderr,
            "  bars at 6 m: focused there max row difference %.4f; focused at 1 m peak %.3f "
            "sharp, %.3f f/11, %.3f f/4, %.3f f/1.4\n",
            most, c_off, c[0], c[1], c[2]);
    CHECK(most <= 0.02);
    CHECK(c_off > 0.95);
    CHECK(c[0] > c[1] && c[1] > c[2]);
    CHECK(c[2] < 0.6);
}

/* A grey wall at the focus (5 m) and a black box 0.6 m from the lens
   covering the left of the frame: blurred, the box's edge spreads over the
   sharp wall (darker just right of its silhouette), while the wall far
   from it is unchanged. */
TEST(nearFieldSpreadsOverTheFocus) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    oak_material black = oak_test_emitter(0);
    scene_init(&s, 0, 1.4f);
    add_box(&s, g_grey, 0, 0, -5, 10, 10, 0.1f);
    add_box(&s, black, -0.1f, 0, -0.6f, 0.2f, 1, 0.01f);
    draw(&s, off);
    s.post.focus_distance = 5;
    draw(&s, on);
    /* the silhouette: the first lit pixel of the middle row, sharp */
    uint32_t edge = 0;
    while (edge < W && lin_at(off, edge, H / 2) < 0.01) edge++;
    double near_off = lin_at(off, edge + 2, H / 2), near_on = lin_at(on, edge + 2, H / 2);
    double far_off = lin_at(off, W - 10, H / 2), far_on = lin_at(on, W - 10, H / 2);
    fprintf(stderr,
            "  box edge at x %u; 2 px right of it %.3f sharp, %.3f blurred; at x %d %.3f, %.3f\n",
            edge, near_off, near_on, W - 10, far_off, far_on);
    oak_destroy_material(black);
    CHECK(edge > 20 && edge < W / 2 + 10);
    CHECK(near_on < 0.8 * near_off);
    CHECK(fabs(far_on - far_off) <= 0.01 * far_off + 1e-3);
}

TEST(backendsAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s, 2, 1.4f);
    s.post.no_tonemap = s.post.no_dither = false;
    oak_material hot = oak_test_emitter(30);
    add_box(&s, g_grey, 0, 0, -12, 30, 20, 0.1f);
    for (int i = 0; i < 4; i++)
        add_box(&s, g_white, -0.6f + 0.4f * i, 0.1f * i, -2, 0.1f, 0.5f, 0.1f);
    add_box(&s, hot, 0.8f, 0.3f, -8, 0.1f, 0.1f, 0.1f);
    add_box(&s, g_grey, -0.15f, -0.1f, -0.7f, 0.1f, 0.1f, 0.1f);
    if (oak_test_cpu_picture(&s.in, 1, W, H, a)) {
        draw(&s, b);
        char what[64];
        snprintf(what, sizeof what, "dof cpu vs %s", g_backend);
        oak_test_parity(what, a, b, W, H);
    }
    oak_destroy_material(hot);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!oak_test_backend_has(g_backend, OAK_PASS_DOF)) {
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    g_white = oak_test_emitter(1);
    g_grey = oak_test_emitter(0.35f);
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(blurRadiusIsTheThinLens);
        RUN(flatFrameStaysFlat);
        RUN(outOfFocusBarsSpread);
        RUN(nearFieldSpreadsOverTheFocus);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
