/* Material tricks on a backend (argv[1]: cpu, vulkan or gl), after ae3d's
 * tile-breakup test (DIGEST 1.14), on unlit quads seen square-on through an
 * orthographic camera: a repeating noise floor matches itself shifted by one
 * repeat, and hex-tile breakup takes that away; variation spreads a grey
 * floor's block means; the detail layer raises a magnified floor's grain
 * near the eye and is gone past its distance; triplanar keeps a 60-degree
 * slope's texel density where the world-(x, z) uv mapping halves it down
 * the slope; a normal map shows through every trick at once, lit. On vulkan
 * and gl the pictures with the tricks on are the CPU's at the parity rule. */
#include "oak_test.h"

#include "backend_start.h"
#include "scene_helpers.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_texture g_noise, g_bumps;
static oak_mesh g_floor, g_slope;

typedef oak_test_scene scene;

/* A quad of side 2h centred on c, spanning e1 and e2 (its normal e1 x e2),
   with uv the world's (x, z) over r metres: the terrain's mapping, which a
   slope stretches. */
static oak_mesh quad(const float c[3], const float e1[3], const float e2[3], float h, float r) {
    float pos[12], nrm[12], uv[8];
    const float ab[4][2] = {{-h, -h}, {h, -h}, {h, h}, {-h, h}};
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                  e1[0] * e2[1] - e1[1] * e2[0]};
    for (int v = 0; v < 4; v++) {
        for (int k = 0; k < 3; k++) {
            pos[v * 3 + k] = c[k] + e1[k] * ab[v][0] + e2[k] * ab[v][1];
            nrm[v * 3 + k] = n[k];
        }
        uv[v * 2] = pos[v * 3] / r, uv[v * 2 + 1] = pos[v * 3 + 2] / r;
    }
    static const uint32_t idx[6] = {0, 1, 2, 0, 2, 3};
    oak_mesh_desc d = {.vertex_count = 4,
                       .index_count = 6,
                       .positions = pos,
                       .normals = nrm,
                       .uv0 = uv,
                       .indices = idx};
    oak_mesh m = {0};
    CHECK_OK(oak_make_mesh(&m, &d));
    return m;
}

/* An unlit material reading tex (0: none) on a grey or given base. */
static oak_material_desc unlit(oak_texture tex, float grey) {
    oak_material_desc md = oak_material_desc_defaults(NULL);
    for (int k = 0; k < 3; k++) md.base_color[k] = grey;
    md.unlit = true;
    md.base_color_tex.texture = tex;
    return md;
}

static oak_material make(const oak_material_desc *md) {
    oak_material m = {0};
    CHECK_OK(oak_make_material(&m, md));
    return m;
}

/* One quad seen square-on from `dist` metres along its normal e1 x e2
   (screen right -e2 x ... as the camera's axes below), `tall` metres of it
   in the frame's height. */
static void scene_init(scene *s, oak_mesh mesh, oak_material mat, const float c[3],
                       const float up[3], const float back[3], float dist, float tall) {
    oak_test_scene_begin(s);
    s->in.camera = (oak_camera){.ortho_height = tall, .znear = 0.1f, .zfar = 400};
    float right[3] = {up[1] * back[2] - up[2] * back[1], up[2] * back[0] - up[0] * back[2],
                      up[0] * back[1] - up[1] * back[0]};
    for (int k = 0; k < 3; k++) {
        s->in.camera_world[0][k] = right[k];
        s->in.camera_world[1][k] = up[k];
        s->in.camera_world[2][k] = back[k];
        s->in.camera_world[3][k] = c[k] + back[k] * dist;
    }
    s->in.camera_world[3][3] = 1;
    oak_test_scene_set(s, 0, mesh, mat);
}

static const float k_origin[3] = {0, 0, 0}, k_north[3] = {0, 0, -1}, k_upv[3] = {0, 1, 0};

/* the floor from `dist` metres above, `tall` metres of it across the height */
static void floor_scene(scene *s, oak_material mat, float dist, float tall) {
    scene_init(s, g_floor, mat, k_origin, k_north, k_upv, dist, tall);
}

static bool draw(const scene *s, uint8_t *px) {
    return oak_test_scene_draw(g_main, s, px, (size_t)W * H * 4);
}

/* On a GPU backend: the CPU's picture of the same scene at the parity rule. */
static void parity(const scene *s, const uint8_t *px, const char *what) {
    if (!strcmp(g_backend, "cpu")) return;
    static uint8_t ref[W * H * 4];
    if (!oak_test_cpu_picture(&s->in, 1, W, H, ref)) return;
    char label[96];
    snprintf(label, sizeof label, "%s cpu vs %s", what, g_backend);
    oak_test_parity(label, ref, px, W, H);
}

static double lum(const uint8_t *px, int x, int y) {
    const uint8_t *p = px + ((size_t)y * W + (size_t)x) * 4;
    return (0.2126 * p[0] + 0.7152 * p[1] + 0.0722 * p[2]) / 255.0;
}

/* Pearson correlation of the picture with itself dx pixels over. */
static double shifted_corr(const uint8_t *px, int dx) {
    double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0, n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x + dx < W; x++) {
            double a = lum(px, x, y), b = lum(px, x + dx, y);
            sa += a, sb += b, saa += a * a, sbb += b * b, sab += a * b, n++;
        }
    double cov = sab / n - sa / n * sb / n;
    double va = saa / n - sa / n * sa / n, vb = sbb / n - sb / n * sb / n;
    return cov / sqrt(va * vb + 1e-12);
}

/* A noise floor repeating every 4 m (40 px): one repeat over, the frame
   matches itself at 0.98 or more; broken up into hex cells (1.5 per
   repeat, turned up to 0.5 rad), at 0.3 or less. The noise keeps its
   contrast (the luminance-weighted blend): its standard deviation falls by
   at most 40%. */
TEST(breakupTakesTheRepeatAway) {
    static scene s;
    static uint8_t plain[W * H * 4], broken[W * H * 4];
    oak_material_desc md = unlit(g_noise, 1);
    md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 0.25f; /* the quad's uv is metres */
    oak_material a = make(&md);
    md.fx.breakup = 1.5f;
    md.fx.breakup_rotation = 0.5f;
    oak_material b = make(&md);
    floor_scene(&s, a, 10, 9);
    if (!draw(&s, plain)) return;
    parity(&s, plain, "plain noise");
    s.mat[0] = b;
    if (!draw(&s, broken)) return;
    parity(&s, broken, "broken-up noise");
    double c0 = shifted_corr(plain, 40), c1 = shifted_corr(broken, 40);
    double sd[2];
    const uint8_t *pics[2] = {plain, broken};
    for (int i = 0; i < 2; i++) {
        double s1 = 0, s2 = 0;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++)
                s1 += lum(pics[i], x, y), s2 += lum(pics[i], x, y) * lum(pics[i], x, y);
        double n = (double)W * H;
        sd[i] = sqrt(s2 / n - (s1 / n) * (s1 / n));
    }
    fprintf(stderr, "  one repeat over: correlation %.3f plain, %.3f broken up; std %.3f, %.3f\n",
            c0, c1, sd[0], sd[1]);
    CHECK(c0 >= 0.98);
    CHECK(c1 <= 0.3);
    CHECK(sd[1] >= 0.6 * sd[0]);
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* std of the means of 10 x 10 pixel blocks (1 m squares) */
static double block_spread(const uint8_t *px) {
    double s1 = 0, s2 = 0, n = 0;
    for (int by = 0; by + 10 <= H; by += 10)
        for (int bx = 0; bx + 10 <= W; bx += 10) {
            double m = 0;
            for (int y = by; y < by + 10; y++)
                for (int x = bx; x < bx + 10; x++) m += lum(px, x, y);
            m /= 100;
            s1 += m, s2 += m * m, n++;
        }
    return sqrt(fmax(s2 / n - (s1 / n) * (s1 / n), 0));
}

/* An untextured grey floor (linear 0.5): plain, its 1 m blocks are all one
   value (spread under 0.002); varied by 0.3 over 4 m patches, their spread
   is 0.03 or more, and the mean stays within 0.05 of plain. */
TEST(variationSpreadsAGreyFloor) {
    static scene s;
    static uint8_t plain[W * H * 4], varied[W * H * 4];
    oak_material_desc md = unlit((oak_texture){0}, 0.5f);
    oak_material a = make(&md);
    md.fx.variation = 0.3f;
    md.fx.variation_scale = 4;
    oak_material b = make(&md);
    floor_scene(&s, a, 10, 9);
    if (!draw(&s, plain)) return;
    s.mat[0] = b;
    if (!draw(&s, varied)) return;
    parity(&s, varied, "varied grey");
    double m0 = 0, m1 = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) m0 += lum(plain, x, y), m1 += lum(varied, x, y);
    m0 /= (double)W * H, m1 /= (double)W * H;
    double s0 = block_spread(plain), s1 = block_spread(varied);
    fprintf(stderr, "  block spread %.4f plain, %.4f varied; mean %.3f, %.3f\n", s0, s1, m0, m1);
    CHECK(s0 < 0.002);
    CHECK(s1 >= 0.03);
    CHECK(fabs(m1 - m0) < 0.05);
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* grain: the mean absolute difference of neighbouring pixels' luminance,
   across and down, in 1/255 steps */
static double grain(const uint8_t *px) {
    double g = 0, n = 0;
    for (int y = 0; y + 1 < H; y++)
        for (int x = 0; x + 1 < W; x++) {
            double c = lum(px, x, y);
            g += fabs(lum(px, x + 1, y) - c) + fabs(lum(px, x, y + 1) - c), n += 2;
        }
    return g / n * 255;
}

/* The noise magnified (a repeat of 64 m: 4 texels a metre, 10 px a metre):
   the detail layer (8 repeats per repeat, fading out over 40 m) seen from
   10 m at least doubles the grain; seen from 50 m, past its distance, the
   picture is the plain one's. */
TEST(detailRaisesTheGrainNearTheEye) {
    static scene s;
    static uint8_t plain[W * H * 4], near_px[W * H * 4], far_px[W * H * 4], far_plain[W * H * 4];
    oak_material_desc md = unlit(g_noise, 1);
    md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 1.0f / 64;
    oak_material a = make(&md);
    md.fx.detail = 8;
    md.fx.detail_distance = 40;
    oak_material b = make(&md);
    floor_scene(&s, a, 10, 9);
    if (!draw(&s, plain)) return;
    s.mat[0] = b;
    if (!draw(&s, near_px)) return;
    parity(&s, near_px, "detail near");
    floor_scene(&s, a, 50, 9);
    if (!draw(&s, far_plain)) return;
    s.mat[0] = b;
    if (!draw(&s, far_px)) return;
    double g0 = grain(plain), g1 = grain(near_px);
    int most = 0;
    for (size_t i = 0; i < sizeof far_px; i++) {
        int d = abs((int)far_px[i] - (int)far_plain[i]);
        most = d > most ? d : most;
    }
    fprintf(stderr, "  grain %.2f plain, %.2f with detail at 10 m; at 50 m max difference %d\n", g0,
            g1, most);
    CHECK(g1 >= 2 * g0);
    CHECK(most == 0);
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* mean |difference| of neighbouring pixels along screen x and along y */
static void grain_xy(const uint8_t *px, double *gx, double *gy) {
    double sx = 0, sy = 0, n = 0;
    for (int y = 10; y + 11 < H; y++)
        for (int x = 10; x + 11 < W; x++) {
            double c = lum(px, x, y);
            sx += fabs(lum(px, x + 1, y) - c), sy += fabs(lum(px, x, y + 1) - c), n++;
        }
    *gx = sx / n * 255, *gy = sy / n * 255;
}

/* The noise at 16 m a repeat (magnified: 16 texels a metre, 40 px a metre)
   on a flat floor and on a 60-degree slope, each seen square-on. Mapped by
   the world's (x, z) the slope stretches it twice down the slope: the grain
   down it is under 0.65 of the floor's. Triplanar (16 m a repeat) keeps it
   within 0.85 to 1.15 of the floor's, down and across. */
TEST(triplanarKeepsTheSlopeUnstretched) {
    static scene s;
    static uint8_t px[W * H * 4];
    oak_material_desc md = unlit(g_noise, 1);
    md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 1.0f / 16;
    oak_material a = make(&md);
    md.base_color_tex.scale[0] = md.base_color_tex.scale[1] = 1; /* the planes are in repeats */
    md.fx.triplanar = 16;
    md.fx.triplanar_sharpness = 8;
    oak_material b = make(&md);
    /* the slope: up it is e1 = (-1/2, sqrt(3)/2, 0), its normal (sqrt(3)/2, 1/2, 0) */
    const float up[3] = {-0.5f, 0.8660254f, 0}, n[3] = {0.8660254f, 0.5f, 0};
    double fx0, fy0, ux, uy, tx, ty, fx1, fy1;
    scene_init(&s, g_floor, a, k_origin, k_north, k_upv, 10, 2.25f);
    if (!draw(&s, px)) return;
    grain_xy(px, &fx0, &fy0);
    s.mat[0] = b;
    if (!draw(&s, px)) return;
    grain_xy(px, &fx1, &fy1);
    scene_init(&s, g_slope, a, k_origin, up, n, 10, 2.25f);
    if (!draw(&s, px)) return;
    grain_xy(px, &ux, &uy);
    s.mat[0] = b;
    if (!draw(&s, px)) return;
    parity(&s, px, "triplanar slope");
    grain_xy(px, &tx, &ty);
    fprintf(stderr,
            "  grain across/down: floor uv %.2f/%.2f, triplanar %.2f/%.2f; slope uv %.2f/%.2f, "
            "triplanar %.2f/%.2f\n",
            fx0, fy0, fx1, fy1, ux, uy, tx, ty);
    fprintf(stderr, "  slope/floor down the slope: uv %.3f, triplanar %.3f\n", uy / fy0, ty / fy1);
    CHECK(uy < 0.65 * fy0);
    CHECK(ty >= 0.8 * fy1 && ty <= 1.15 * fy1);
    CHECK(tx >= 0.85 * fx1 && tx <= 1.15 * fx1);
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* Every trick at once, lit by a low sun through a bumpy normal map on the
   slope and the floor beside it: the bumps show (the lit slope's grain is
   at least 1.5 times the same without the normal map) and, on vulkan and
   gl, the picture is the CPU's. */
TEST(everyTrickLitAgrees) {
    static scene s;
    static uint8_t flat[W * H * 4], bumpy[W * H * 4];
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0, md.roughness = 0.7f;
    md.base_color_tex.texture = g_noise;
    md.fx = (oak_material_fx){.triplanar = 4,
                              .breakup = 1.5f,
                              .breakup_rotation = 1,
                              .variation = 0.2f,
                              .detail = 6,
                              .detail_distance = 30};
    oak_material a = make(&md);
    md.normal_tex.texture = g_bumps;
    oak_material b = make(&md);
    const float up[3] = {-0.5f, 0.8660254f, 0}, n[3] = {0.8660254f, 0.5f, 0};
    scene_init(&s, g_slope, a, k_origin, up, n, 12, 6);
    s.light[0].light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s.light[0].light.intensity = 3;
    float d[3] = {-0.2f, -0.3f, -0.93f};
    glm_vec3_normalize(d);
    memcpy(s.light[0].direction, d, sizeof d);
    s.in.light_count = 1;
    s.env.ambient_sky[0] = s.env.ambient_sky[1] = s.env.ambient_sky[2] = 0.1f;
    if (!draw(&s, flat)) return;
    s.mat[0] = b;
    if (!draw(&s, bumpy)) return;
    parity(&s, bumpy, "every trick, lit");
    double g0 = grain(flat), g1 = grain(bumpy);
    fprintf(stderr, "  lit grain %.2f without the normal map, %.2f with it\n", g0, g1);
    CHECK(g1 >= 1.5 * g0);
    oak_destroy_material(a);
    oak_destroy_material(b);
}

/* A bad trick is one line and an error. */
TEST(badNumbersAreRefused) {
    int errors = g_oak_test_errors; /* the two refusals' lines are meant */
    oak_material_desc md = unlit((oak_texture){0}, 1);
    md.fx.variation = 2;
    oak_material m = {0};
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(oak_last_error(), "fx.variation") != NULL);
    md.fx.variation = 0, md.fx.triplanar = NAN;
    CHECK(oak_make_material(&m, &md) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK(m.id == 0);
    g_oak_test_errors = errors;
}

/* A normal map of round bumps, 8 across, from a height field's slopes. */
static oak_texture bumps(void) {
    enum { N = 128 };
    static uint8_t px[N * N * 4];
    for (int y = 0; y < N; y++)
        for (int x = 0; x < N; x++) {
            double u = (x + 0.5) / N * 8 * 2 * OAK_PI, v = (y + 0.5) / N * 8 * 2 * OAK_PI;
            double dx = 0.8 * cos(u) * sin(v), dy = 0.8 * sin(u) * cos(v);
            double l = sqrt(dx * dx + dy * dy + 1);
            uint8_t *p = px + 4 * (y * N + x);
            p[0] = (uint8_t)lround((-dx / l * 0.5 + 0.5) * 255);
            p[1] = (uint8_t)lround((-dy / l * 0.5 + 0.5) * 255);
            p[2] = (uint8_t)lround((1 / l * 0.5 + 0.5) * 255);
            p[3] = 255;
        }
    oak_texture_desc d = {.width = N, .height = N, .format = OAK_FORMAT_RGBA8, .pixels = px};
    oak_texture t = {0};
    CHECK_OK(oak_make_texture(&t, &d));
    return t;
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    CHECK_OK(oak_load_texture(&g_noise, "oak://noise", OAK_FORMAT_RGBA8_SRGB));
    g_bumps = bumps();
    const float ex[3] = {1, 0, 0}, ez[3] = {0, 0, -1};
    g_floor = quad(k_origin, ex, ez, 60, 1);
    const float up[3] = {-0.5f, 0.8660254f, 0}, across[3] = {0, 0, 1};
    g_slope = quad(k_origin, up, across, 60, 1);
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(breakupTakesTheRepeatAway);
        RUN(variationSpreadsAGreyFloor);
        RUN(detailRaisesTheGrainNearTheEye);
        RUN(triplanarKeepsTheSlopeUnstretched);
        RUN(everyTrickLitAgrees);
        RUN(badNumbersAreRefused);
    }
    oak_destroy_renderer(g_main);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    int rc = TEST_SUMMARY();
    return rc ? rc : oak_test_failures_ ? 1 : 0; /* a renderer that did not start fails too */
}
