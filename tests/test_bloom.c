/* The bloom pass on a backend (argv[1]: cpu, vulkan or gl): a flat frame
 * blooms to itself (the pyramid keeps energy); an emitter's glow reaches
 * tens of pixels out and falls with distance, where without bloom the
 * dark stays black; a one-pixel emitter 100 times brighter glows less than
 * 3 times as much (the first level's brightness-weighted boxes), so a
 * firefly cannot flicker; the pass runs only when asked; and on vulkan and
 * gl the picture is the CPU's at the parity rule. */
#include "oak_test.h"

#include "backend_start.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_plane, g_box, g_dot;
static oak_material g_flat;

/* A black world (no lights, black sky and ambient) seen straight down from
 * 5 m; one draw: mesh with material at the origin (or shifted by dx). */
typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh;
    oak_material mat;
    mat4 world;
    oak_environment env;
    oak_post post;
} scene;

static void scene_init(scene *s, oak_mesh mesh, oak_material mat, bool bloom) {
    memset(s, 0, sizeof *s);
    s->mesh = mesh, s->mat = mat;
    glm_mat4_identity(s->world);
    oak_test_dark_world(&s->env, &s->post);
    s->post.bloom = bloom ? OAK_BLOOM_ON : OAK_BLOOM_OFF;
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 100};
    mat4 cam = {{1, 0, 0, 0}, {0, 0, -1, 0}, {0, 1, 0, 0}, {0, 5, 0, 1}};
    glm_mat4_copy(cam, s->in.camera_world);
    s->in.draw_count = 1;
    s->in.meshes = &s->mesh;
    s->in.materials = &s->mat;
    s->in.transforms = (const mat4 *)&s->world;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

static void draw(const scene *s, uint8_t *px) {
    CHECK_OK(oak_renderer_draw(g_main, &s->in));
    CHECK_OK(oak_renderer_read_pixels(g_main, px, (size_t)W * H * 4));
}

static double linear(uint8_t v) {
    double c = v / 255.0;
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* The stage has CPU time of its own (the CPU backend's passes; GPU backends
   time their passes on the GPU, where a skipped row still shows a gap). */
static bool ran(const char *stage) {
    oak_stage_timing t[32];
    uint32_t n = oak_renderer_timings(g_main, t, 32);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(t[i].name, stage) && t[i].cpu_ms > 0) return true;
    return false;
}

/* A uniform radiance of 0.5 over the whole frame: every level of the
   pyramid is 0.5, the mix gives 0.5 back; bytes within 1 of the frame
   without bloom; on the CPU the pass ran (and did not, when off). */
TEST(flatFrameBloomsToItself) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    scene_init(&s, g_plane, g_flat, false);
    draw(&s, off);
    bool cpu = !strcmp(g_backend, "cpu");
    if (cpu) CHECK(!ran("bloom"));
    s.post.bloom = OAK_BLOOM_ON;
    s.post.bloom_strength = 0.5f; /* a strong mix: a wrong normalization would show */
    draw(&s, on);
    if (cpu) CHECK(ran("bloom"));
    int most = 0;
    double sum = 0;
    for (size_t i = 0; i < (size_t)W * H * 4; i++) {
        int d = abs((int)on[i] - (int)off[i]);
        most = d > most ? d : most;
        sum += d;
    }
    fprintf(stderr, "  flat 0.5: byte %d without, max difference %d, mean %.4f/255\n", off[0], most,
            sum / (W * H * 4.0));
    CHECK_EQ_INT(off[0], 188); /* sRGB of 0.5 */
    CHECK(most <= 1);
}

/* Linear light along the emitter's middle row, x from its right edge. */
static void row_profile(const uint8_t *px, uint32_t edge, const uint32_t *at, int n, double *out) {
    for (int i = 0; i < n; i++) {
        size_t p = ((size_t)(H / 2) * W + edge + at[i]) * 4;
        out[i] = (linear(px[p]) + linear(px[p + 1]) + linear(px[p + 2])) / 3;
    }
}

/* A 0.6 m emitter of radiance 50 (about 10 pixels across): without bloom
   the row beyond it is black 3 pixels out; with it the glow is there at 3,
   6, 12, 24 and 48 pixels and falls all the way. */
TEST(glowReachesOutAndFalls) {
    static scene s;
    static uint8_t off[W * H * 4], on[W * H * 4];
    scene_init(&s, g_box, oak_test_emitter(50), false);
    draw(&s, off);
    uint32_t edge = W / 2;
    while (edge < W - 1 && off[((size_t)(H / 2) * W + edge + 1) * 4] > 0) edge++;
    fprintf(stderr, "  emitter's right edge at x = %u\n", edge);
    CHECK(edge > W / 2 + 2 && edge < W / 2 + 10);
    s.post.bloom = OAK_BLOOM_ON;
    draw(&s, on);
    static const uint32_t at[5] = {3, 6, 12, 24, 48};
    double a[5], b[5];
    row_profile(off, edge, at, 5, a);
    row_profile(on, edge, at, 5, b);
    for (int i = 0; i < 5; i++) {
        fprintf(stderr, "  %2u px out: %.5f without bloom, %.5f with\n", at[i], a[i], b[i]);
        CHECK(a[i] == 0);
        CHECK(b[i] > 0);
        if (i) CHECK(b[i] < b[i - 1]);
    }
}

/* Glow around a pixel-sized emitter (an 8 cm box, about 1.4 pixels): linear
   light summed over the frame but the 5 x 5 pixels around it. */
static double dot_glow(float strength, int *lit) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, g_dot, oak_test_emitter(strength), true);
    draw(&s, px);
    double sum = 0;
    *lit = 0;
    for (uint32_t y = 0; y < H; y++) {
        for (uint32_t x = 0; x < W; x++) {
            const uint8_t *p = px + ((size_t)y * W + x) * 4;
            if (abs((int)x - W / 2) <= 2 && abs((int)y - H / 2) <= 2) continue;
            double v = linear(p[0]) + linear(p[1]) + linear(p[2]);
            sum += v;
            *lit += v > 0;
        }
    }
    return sum;
}

TEST(fireflyGlowIsBounded) {
    int lit_dim = 0, lit_bright = 0;
    double dim = dot_glow(50, &lit_dim), bright = dot_glow(5000, &lit_bright);
    fprintf(stderr,
            "  one-pixel emitter: glow %.4f at radiance 50 (%d pixels lit), %.4f at 5000 "
            "(%d): x%.2f for x100\n",
            dim, lit_dim, bright, lit_bright, bright / dim);
    CHECK(dim > 0);
    CHECK(lit_dim > 100);
    CHECK(bright / dim < 3.0);
}

/* The glow scene with the usual post (ACES, dither, FXAA): the backend's
   picture is the CPU's at the parity rule. */
TEST(backendsAgree) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s, g_box, oak_test_emitter(50), true);
    s.post.no_tonemap = s.post.no_dither = s.post.no_fxaa = false;
    if (!oak_test_cpu_picture(&s.in, 1, W, H, a)) return;
    draw(&s, b);
    char what[64];
    snprintf(what, sizeof what, "bloom cpu vs %s", g_backend);
    oak_test_parity(what, a, b, W, H);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!oak_test_backend_has(g_backend, OAK_PASS_BLOOM)) {
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0;
    md.emissive[0] = md.emissive[1] = md.emissive[2] = 1;
    md.emissive_strength = 0.5f;
    CHECK_OK(oak_make_material(&g_flat, &md));
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_plane, &pd));
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {0.6f, 0.6f, 0.6f}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    oak_shape_desc dd = {.type = OAK_SHAPE_BOX, .size = {0.08f, 0.08f, 0.08f}};
    CHECK_OK(oak_make_shape(&g_dot, &dd));
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(flatFrameBloomsToItself);
        RUN(glowReachesOutAndFalls);
        RUN(fireflyGlowIsBounded);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
