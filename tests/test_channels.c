/* Capture channels on a backend (argv[1]: cpu, vulkan or gl), read through
 * oak_renderer_read_channel: a floor's albedo is its base colour and its
 * normal (0, 1, 0); depth grows up the frame and is the metres along the
 * view axis; motion under a known sideways pan is the analytic pixel shift;
 * ao is about 1 on open ground and darker where two walls meet it; nothing
 * of post (bloom, eye adaptation, BLEND surfaces) runs over a channel; a
 * channel that is not one is refused; vulkan and gl give the CPU's numbers. */
#include "oak_test.h"

#include "backend_start.h"

#define W 160
#define H 90

static const char *g_backend = "cpu";
static oak_renderer *g_main;
static oak_mesh g_floor, g_wall_x, g_wall_z, g_glass_mesh;
static oak_material g_floor_mat, g_wall_mat, g_glass;

static const float k_floor_color[3] = {0.2f, 0.5f, 0.8f};

typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[4];
    oak_material mat[4];
    mat4 world[4];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
} scene;

/* A 40 m floor under a sun and the default sky, seen from 2 m up looking
   20 degrees down; two 4 m walls meet at a corner on the floor ahead and
   to the left (x = -3, z = -8); a BLEND pane floats over the floor. Post
   asks for bloom and adaptation, which a channel must not run. */
static void scene_init(scene *s, oak_channel channel) {
    memset(s, 0, sizeof *s);
    s->mesh[0] = g_floor, s->mat[0] = g_floor_mat;
    s->mesh[1] = g_wall_x, s->mat[1] = g_wall_mat;
    s->mesh[2] = g_wall_z, s->mat[2] = g_wall_mat;
    s->mesh[3] = g_glass_mesh, s->mat[3] = g_glass;
    for (int i = 0; i < 4; i++) glm_mat4_identity(s->world[i]);
    /* the wall along x (its face +z) and the wall along z (its face +x) */
    s->world[1][3][0] = -1.0f, s->world[1][3][1] = 1.0f, s->world[1][3][2] = -8.1f;
    s->world[2][3][0] = -3.1f, s->world[2][3][1] = 1.0f, s->world[2][3][2] = -6.0f;
    s->world[3][3][0] = 2.0f, s->world[3][3][1] = 0.5f, s->world[3][3][2] = -5.0f;
    s->sun.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s->sun.direction[0] = 0.3f, s->sun.direction[1] = -0.9f, s->sun.direction[2] = -0.3f;
    glm_vec3_normalize(s->sun.direction);
    s->env = oak_environment_defaults();
    s->post = (oak_post){
        .exposure = 1, .bloom = OAK_BLOOM_ON, .adapt = true, .ao = OAK_AO_OFF, .channel = channel};
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 200};
    glm_mat4_identity(s->in.camera_world);
    glm_rotate_x(s->in.camera_world, glm_rad(-20), s->in.camera_world);
    s->in.camera_world[3][1] = 2.0f;
    s->in.draw_count = 4;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.light_count = 1;
    s->in.lights = &s->sun;
    s->in.environment = &s->env;
    s->in.post = &s->post;
}

static bool draw(oak_renderer *r, const scene *s, int frames, float *out) {
    bool ok = true;
    for (int f = 0; f < frames && ok; f++) ok = oak_renderer_draw(r, &s->in) == OAK_OK;
    ok = ok && oak_renderer_read_channel(r, out, (size_t)W * H * 4) == OAK_OK;
    CHECK(ok);
    return ok;
}

static const float *at(const float *c, uint32_t x, uint32_t y) {
    return c + ((size_t)y * W + x) * 4;
}

/* The world direction of pixel (x, y)'s centre through the scene's camera. */
static void ray(const scene *s, uint32_t x, uint32_t y, float dir[3]) {
    float t = tanf(glm_rad(30)), aspect = (float)W / H;
    vec4 d = {((x + 0.5f) / W * 2 - 1) * t * aspect, (1 - (y + 0.5f) / H * 2) * t, -1, 0}, w;
    glm_mat4_mulv((vec4 *)s->in.camera_world, d, w);
    memcpy(dir, w, 12);
}

/* The floor's pixels (below the horizon, away from the walls and pane). */
static bool floor_pixel(const scene *s, uint32_t x, uint32_t y, float *metres) {
    float d[3];
    ray(s, x, y, d);
    if (d[1] > -0.05f) return false;
    float t = 2.0f / -d[1], P[3] = {d[0] * t, 0, d[2] * t};
    if (P[0] < -2.8f && P[2] < -3.5f) return false; /* behind or by the walls */
    if (P[2] < -7.5f) return false;
    if (P[0] > 0.5f && P[0] < 3.5f && P[2] > -6.5f && P[2] < -3.5f) return false; /* the pane */
    if (metres) *metres = t; /* d's view-axis component is 1: t is the view depth */
    return true;
}

TEST(albedoIsTheBaseColour) {
    static scene s;
    static float c[W * H * 4];
    scene_init(&s, OAK_CHANNEL_ALBEDO);
    if (!draw(g_main, &s, 1, c)) return;
    double worst = 0;
    int n = 0;
    for (uint32_t y = 0; y < H; y += 3)
        for (uint32_t x = 0; x < W; x += 3) {
            if (!floor_pixel(&s, x, y, NULL)) continue;
            for (int k = 0; k < 3; k++)
                worst = fmax(worst, fabs(at(c, x, y)[k] - k_floor_color[k]));
            n++;
        }
    /* the sky holds no surface: 0, not its colour */
    const float *top = at(c, W - 5, 1);
    double sky = fabs(top[0]) + fabs(top[1]) + fabs(top[2]);
    fprintf(stderr, "  albedo: %d floor pixels within %.5f of (0.2, 0.5, 0.8); sky %.3f\n", n,
            worst, sky);
    CHECK(n > 500);
    CHECK(worst < 1e-4);
    CHECK(sky == 0);
}

TEST(normalOfTheFloorIsUp) {
    static scene s;
    static float c[W * H * 4];
    scene_init(&s, OAK_CHANNEL_NORMAL);
    if (!draw(g_main, &s, 1, c)) return;
    double worst = 0;
    int n = 0;
    for (uint32_t y = 0; y < H; y += 3)
        for (uint32_t x = 0; x < W; x += 3) {
            if (!floor_pixel(&s, x, y, NULL)) continue;
            const float *p = at(c, x, y);
            worst = fmax(worst, fmax(fabs(p[0]), fmax(fabs(p[1] - 1), fabs(p[2]))));
            n++;
        }
    fprintf(stderr, "  normal: %d floor pixels within %.5f of (0, 1, 0)\n", n, worst);
    CHECK(n > 500);
    CHECK(worst < 1e-4);
}

/* Depth: up the middle column of floor it only grows, and each pixel is the
   analytic view depth 2 / -dir.y (the ray's view-axis length 1) within
   0.1%. */
TEST(depthIsMetresAlongTheView) {
    static scene s;
    static float c[W * H * 4];
    scene_init(&s, OAK_CHANNEL_DEPTH);
    if (!draw(g_main, &s, 1, c)) return;
    double worst = 0, last = 0;
    bool rising = true;
    int n = 0;
    uint32_t x = W - 20;
    for (uint32_t y = H; y-- > 0;) {
        float want;
        if (!floor_pixel(&s, x, y, &want)) continue;
        double got = at(c, x, y)[0];
        rising &= got > last;
        last = got;
        worst = fmax(worst, fabs(got - want) / want);
        n++;
    }
    fprintf(stderr, "  depth: %d floor pixels up column %u, rising %d, to %.2f m, error %.5f%%\n",
            n, x, rising, last, 100 * worst);
    CHECK(n > 30);
    CHECK(rising);
    CHECK(worst < 1e-3);
}

/* Motion: looking straight down at the floor from 5 m, the camera moves
   0.2 m to +x between two frames; every floor pixel was k = (H/2) /
   (5 tan 30) pixels per metre further right last frame: (0.2 k, 0), valid. */
TEST(motionOfAPan) {
    static scene s;
    static float c[W * H * 4];
    scene_init(&s, OAK_CHANNEL_MOTION);
    s.in.draw_count = 1;
    mat4 cam = {{1, 0, 0, 0}, {0, 0, -1, 0}, {0, 1, 0, 0}, {0, 5, 0, 1}};
    glm_mat4_copy(cam, s.in.camera_world);
    if (!draw(g_main, &s, 1, c)) return;
    s.in.camera_world[3][0] += 0.2f;
    if (!draw(g_main, &s, 1, c)) return;
    double k = (H / 2.0) / (5 * tan(glm_rad(30))), want = 0.2 * k, worst = 0;
    int valid = 0;
    for (uint32_t y = 0; y < H; y += 2)
        for (uint32_t x = 0; x < W; x += 2) {
            const float *p = at(c, x, y);
            worst = fmax(worst, fmax(fabs(p[0] - want), fabs(p[1])));
            valid += p[2] == 1.0f;
        }
    fprintf(stderr, "  motion: pan of %.3f px, largest error %.4f px, %d of %d valid\n", want,
            worst, valid, (W / 2) * (H / 2));
    CHECK(worst < 0.02);
    CHECK_EQ_INT(valid, (W / 2) * (H / 2));
}

/* AO: open floor near the camera reads about 1; the floor in the corner the
   two walls make reads darker. */
TEST(aoDarkensTheCorner) {
    static scene s;
    static float c[W * H * 4];
    scene_init(&s, OAK_CHANNEL_AO);
    if (!draw(g_main, &s, 1, c)) return;
    /* open floor: the bottom rows' middle */
    double open = 0;
    int n = 0;
    for (uint32_t x = W / 2 - 20; x < W / 2 + 20; x++) open += at(c, x, H - 3)[0], n++;
    open /= n;
    /* the corner's floor pixel: (-2.9, 0, -7.9) projected */
    vec4 P = {-2.9f, 0, -7.9f, 1}, v, clip;
    mat4 view, proj;
    glm_mat4_inv(s.in.camera_world, view);
    glm_perspective(glm_rad(60), (float)W / H, 0.1f, 200, proj);
    glm_mat4_mulv(view, P, v);
    glm_mat4_mulv(proj, v, clip);
    uint32_t cx = (uint32_t)((clip[0] / clip[3] * 0.5f + 0.5f) * W);
    uint32_t cy = (uint32_t)((0.5f - clip[1] / clip[3] * 0.5f) * H);
    double corner = at(c, cx, cy)[0];
    fprintf(stderr, "  ao: open floor %.4f, the corner's floor (%u, %u) %.4f\n", open, cx, cy,
            corner);
    CHECK(open > 0.97);
    CHECK(corner < 0.8);
}

/* Over a channel the bloom and exposure passes do not run (the CPU's
   timings) and the BLEND pane is not composited: its pixels hold the floor
   under it. */
TEST(noPostOverAChannel) {
    static scene s;
    static float c[W * H * 4];
    scene_init(&s, OAK_CHANNEL_ALBEDO);
    if (!draw(g_main, &s, 1, c)) return;
    oak_stage_timing t[64];
    uint32_t n = oak_renderer_timings(g_main, t, 64);
    bool post_ran = false;
    for (uint32_t i = 0; i < n; i++)
        post_ran |= (!strcmp(t[i].name, "bloom") || !strcmp(t[i].name, "exposure") ||
                     !strcmp(t[i].name, "blend") || !strcmp(t[i].name, "dof")) &&
                    t[i].cpu_ms > 0;
    /* the pane's middle: (2, 0.5, -5) */
    vec4 P = {2, 0.5f, -5, 1}, v, clip;
    mat4 view, proj;
    glm_mat4_inv(s.in.camera_world, view);
    glm_perspective(glm_rad(60), (float)W / H, 0.1f, 200, proj);
    glm_mat4_mulv(view, P, v);
    glm_mat4_mulv(proj, v, clip);
    uint32_t px = (uint32_t)((clip[0] / clip[3] * 0.5f + 0.5f) * W);
    uint32_t py = (uint32_t)((0.5f - clip[1] / clip[3] * 0.5f) * H);
    const float *p = at(c, px, py);
    fprintf(stderr, "  no post: a post stage ran %d; under the pane (%u, %u) %.3f %.3f %.3f\n",
            post_ran, px, py, p[0], p[1], p[2]);
    if (!strcmp(g_backend, "cpu")) CHECK(!post_ran);
    CHECK(fabs(p[2] - k_floor_color[2]) < 1e-4);
}

TEST(badChannelsRefused) {
    oak_channel ch = OAK_CHANNEL_NONE;
    int errors = g_oak_test_errors;
    CHECK(oak_channel_parse("bogus", &ch) == OAK_ERROR_INVALID_ARGUMENT);
    CHECK_OK(oak_channel_parse("depth", &ch));
    CHECK(ch == OAK_CHANNEL_DEPTH);
    CHECK(!strcmp(oak_channel_name(OAK_CHANNEL_MOTION), "motion"));
    CHECK(oak_channel_name(OAK_CHANNEL_COUNT) == NULL);
    static scene s;
    scene_init(&s, (oak_channel)99);
    CHECK(oak_renderer_draw(g_main, &s.in) == OAK_ERROR_INVALID_ARGUMENT);
    /* a picture frame has no channel to read */
    static float c[W * H * 4];
    scene_init(&s, OAK_CHANNEL_NONE);
    CHECK_OK(oak_renderer_draw(g_main, &s.in));
    CHECK(oak_renderer_read_channel(g_main, c, W * H * 4) == OAK_ERROR_INVALID_ARGUMENT);
    g_oak_test_errors = errors; /* the lines above were asked for */
}

/* On vulkan and gl the channels are the CPU's: albedo, normal and depth
   within 1e-3 (depth relative) on 99.5% of pixels, ao within 0.02. */
TEST(backendsAgree) {
    static scene s;
    static float a[W * H * 4], b[W * H * 4];
    const oak_channel chans[4] = {OAK_CHANNEL_ALBEDO, OAK_CHANNEL_NORMAL, OAK_CHANNEL_DEPTH,
                                  OAK_CHANNEL_AO};
    oak_renderer *rc = NULL;
    oak_renderer_desc d = {.backend = "cpu", .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&rc, &d));
    if (!rc) return;
    for (int i = 0; i < 4; i++) {
        scene_init(&s, chans[i]);
        if (!draw(rc, &s, 1, a) || !draw(g_main, &s, 1, b)) break;
        double tol = chans[i] == OAK_CHANNEL_AO ? 0.02 : 1e-3;
        size_t ok = 0, n = (size_t)W * H;
        for (size_t p = 0; p < n; p++) {
            double e = 0;
            for (int k = 0; k < 3; k++) {
                double diff = fabs(a[p * 4 + k] - b[p * 4 + k]);
                if (chans[i] == OAK_CHANNEL_DEPTH) diff /= fmax(fabs(a[p * 4 + k]), 1e-3);
                e = fmax(e, diff);
            }
            ok += e <= tol;
        }
        fprintf(stderr, "  %s cpu vs %s: %.4f of pixels within %g\n", oak_channel_name(chans[i]),
                g_backend, (double)ok / n, tol);
        CHECK((double)ok / n >= 0.995);
    }
    oak_destroy_renderer(rc);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    fprintf(stderr, "  backend %s\n", g_backend);
    oak_shape_desc fd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_floor, &fd));
    oak_shape_desc wx = {.type = OAK_SHAPE_BOX, .size = {4, 2, 0.2f}};
    CHECK_OK(oak_make_shape(&g_wall_x, &wx));
    oak_shape_desc wz = {.type = OAK_SHAPE_BOX, .size = {0.2f, 2, 4}};
    CHECK_OK(oak_make_shape(&g_wall_z, &wz));
    oak_shape_desc gd = {.type = OAK_SHAPE_BOX, .size = {2, 0.1f, 2}};
    CHECK_OK(oak_make_shape(&g_glass_mesh, &gd));
    oak_material_desc md = oak_material_desc_defaults(NULL);
    memcpy(md.base_color, k_floor_color, 12);
    md.metallic = 0;
    CHECK_OK(oak_make_material(&g_floor_mat, &md));
    md = oak_material_desc_defaults(NULL);
    md.metallic = 0;
    CHECK_OK(oak_make_material(&g_wall_mat, &md));
    md = oak_material_desc_defaults(NULL);
    md.alpha_mode = OAK_ALPHA_BLEND;
    md.base_color[0] = 1, md.base_color[1] = 0, md.base_color[2] = 0, md.base_color[3] = 0.5f;
    CHECK_OK(oak_make_material(&g_glass, &md));
    oak_renderer_desc d = {.backend = g_backend, .width = W, .height = H, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&g_main, &d));
    if (g_main) {
        RUN(albedoIsTheBaseColour);
        RUN(normalOfTheFloorIsUp);
        RUN(depthIsMetresAlongTheView);
        RUN(motionOfAPan);
        RUN(aoDarkensTheCorner);
        RUN(noPostOverAChannel);
        RUN(badChannelsRefused);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgree);
        oak_destroy_renderer(g_main);
    }
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
