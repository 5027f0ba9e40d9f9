/* The exposure pass (eye adaptation) on a backend (argv[1]: cpu, vulkan or
 * gl): grey planes under 100, 6,830 and 100,000 lux are settled on the
 * first frame and stay within 0.5 EV of the meter; a 6,830-lux sun with a
 * strength-20 emitter clips under 2% of its pixels; a step in brightness is
 * followed with the stated time constants (frames at 60 Hz); a night stays
 * dark; and on vulkan and gl the camera's EV100 and the picture are the
 * CPU's, frame by frame, at the parity rule. */
#include "oak_test.h"

#include "backend_start.h"

#define W 160
#define H 90
/* the step is measured frame by frame at 60 Hz over up to a few seconds: a
   small picture keeps those frames cheap (the meter only needs its mean) */
#define STEP_W 32
#define STEP_H 18

static const char *g_backend = "cpu";
static oak_mesh g_plane, g_box;
static oak_material g_grey, g_white, g_glow;

enum { PLANE, WHITE_BOX, GLOW_BOX, DRAWS };

/* An 18% grey plane filling the view from 5 m above, under a sun of `lux`
 * and a black sky (so the plane's luminance is 0.18 lux / pi, plus a little
 * specular); with `objects` a white box and an emitter (strength 20) on it. */
typedef struct scene {
    oak_frame_input in;
    oak_mesh mesh[DRAWS];
    oak_material mat[DRAWS];
    mat4 world[DRAWS];
    oak_render_light sun;
    oak_environment env;
    oak_post post;
} scene;

static void scene_init(scene *s, float lux, bool objects, bool adapt) {
    memset(s, 0, sizeof *s);
    s->mesh[PLANE] = g_plane, s->mat[PLANE] = g_grey;
    s->mesh[WHITE_BOX] = g_box, s->mat[WHITE_BOX] = g_white;
    s->mesh[GLOW_BOX] = g_box, s->mat[GLOW_BOX] = g_glow;
    for (int i = 0; i < DRAWS; i++) glm_mat4_identity(s->world[i]);
    glm_translate(s->world[WHITE_BOX], (vec3){-1.0f, 0.5f, 0.2f});
    glm_translate(s->world[GLOW_BOX], (vec3){1.2f, 0.5f, -0.3f});
    s->sun.light = oak_light_defaults(OAK_LIGHT_DIRECTIONAL);
    s->sun.light.intensity = lux;
    s->sun.light.cast_shadows = false;
    s->sun.direction[0] = -0.05f, s->sun.direction[1] = -1.0f, s->sun.direction[2] = -0.08f;
    s->env = oak_environment_defaults();
    memset(s->env.sky_zenith_display, 0, sizeof s->env.sky_zenith_display);
    memset(s->env.sky_horizon_display, 0, sizeof s->env.sky_horizon_display);
    memset(s->env.ambient_sky, 0, sizeof s->env.ambient_sky);
    s->post = (oak_post){.adapt = adapt, .ao = OAK_AO_OFF};
    s->in.camera = (oak_camera){.fov_y = glm_rad(60), .znear = 0.1f, .zfar = 100};
    /* looking straight down: camera x is world x, camera y is world -z */
    mat4 cam = {{1, 0, 0, 0}, {0, 0, -1, 0}, {0, 1, 0, 0}, {0, 5, 0, 1}};
    glm_mat4_copy(cam, s->in.camera_world);
    s->in.draw_count = objects ? DRAWS : 1;
    s->in.meshes = s->mesh;
    s->in.materials = s->mat;
    s->in.transforms = (const mat4 *)s->world;
    s->in.light_count = 1;
    s->in.lights = &s->sun;
    s->in.environment = &s->env;
    s->in.post = &s->post;
    s->in.dt = 1.0f / 60.0f;
}

static oak_renderer *open_renderer(const char *backend, uint32_t w, uint32_t h) {
    oak_renderer *r = NULL;
    oak_renderer_desc d = {.backend = backend, .width = w, .height = h, .shadow_map_size = 512};
    CHECK_OK(oak_make_renderer(&r, &d));
    return r;
}

/* One renderer of the backend per size for every test (a GL or Vulkan
   renderer costs more to make than the frames here): a frame with the
   camera fixed between tests makes the next adapting frame the first. */
static oak_renderer *g_main, *g_small;

static oak_exposure_info draw(oak_renderer *r, const scene *s) {
    oak_exposure_info e = {0};
    CHECK_OK(oak_renderer_draw(r, &s->in));
    CHECK_OK(oak_renderer_exposure(r, &e));
    return e;
}

/* The first adapting frame after one with the camera fixed: it settles. */
static oak_exposure_info restart(oak_renderer *r, scene *s) {
    s->post.adapt = false;
    oak_exposure_info e = draw(r, s);
    CHECK(!e.adapting);
    s->post.adapt = true;
    return draw(r, s);
}

/* The meter's exact reading of a uniform grey plane under `lux`. */
static double plane_ev(float lux) {
    return log2(0.18 * lux / OAK_PI * 100.0 / OAK_EXPOSURE_METER_K);
}

/* Grey planes from dusk to noon: the first frame is already settled (its
   EV100 is its target) and within 0.5 EV of the meter's exact reading, and
   a few more frames stay there; the grey shows as mid grey. */
TEST(greyPlanesSettleOnTheirFirstFrame) {
    static scene s;
    static uint8_t px[W * H * 4];
    const float lux[3] = {100, 6830, 100000};
    for (int i = 0; i < 3; i++) {
        scene_init(&s, lux[i], false, true);
        oak_renderer *r = g_main;
        oak_exposure_info e0 = restart(r, &s), e = e0;
        for (int f = 1; f < 4; f++) e = draw(r, &s);
        CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
        double mean = 0;
        for (size_t p = 0; p < (size_t)W * H; p++) mean += px[p * 4 + 1];
        mean /= (double)W * H;
        double exact = plane_ev(lux[i]);
        fprintf(stderr,
                "  %6.0f lux: frame 0 EV100 %.3f (target %.3f, metered %.3f), frame 3 %.3f, "
                "exact meter %.3f, plane shows %.1f/255\n",
                lux[i], e0.ev100, e0.target_ev100, e0.metered_ev100, e.ev100, exact, mean);
        CHECK(e0.adapting);
        CHECK_NEAR(e0.ev100, e0.target_ev100, 1e-4); /* frame 0 is settled */
        CHECK_NEAR(e0.ev100, exact, 0.5);
        CHECK_NEAR(e.ev100, e.target_ev100, 0.5);
        CHECK_NEAR(e.ev100, exact, 0.5);
        CHECK_NEAR(e.exposure, 1.0 / (OAK_EXPOSURE_SATURATION * exp2(e.ev100)), 1e-3 * e.exposure);
        /* the meter's mid grey (K = 12.5): 102/255 for an exact reading; half
           an EV either way moves it about 15 */
        CHECK_NEAR(mean, 102, 20);
    }
}

static double clipped_share(const uint8_t *px) {
    size_t n = 0;
    for (size_t p = 0; p < (size_t)W * H; p++)
        n += px[p * 4] >= 250 && px[p * 4 + 1] >= 250 && px[p * 4 + 2] >= 250;
    return (double)n / ((double)W * H);
}

/* A glTF-style scene lit as exporters write it: a 6,830-lux sun and an
   emitter of strength 20. The fixed camera (exposure 1) shows it white;
   the adapted camera clips under 2% of its pixels once settled. */
TEST(sunAndEmitterClipUnderTwoPercent) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, 6830, true, false);
    oak_renderer *r = g_main;
    draw(r, &s);
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
    double fixed = clipped_share(px);
    s.post.adapt = true;
    oak_exposure_info e = {0};
    for (int f = 0; f < 4; f++) e = draw(r, &s);
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
    double adapted = clipped_share(px);
    fprintf(stderr, "  clipped to white: fixed exposure 1 %.1f%%, adapted (EV100 %.2f) %.2f%%\n",
            100 * fixed, e.ev100, 100 * adapted);
    CHECK(fixed > 0.9);
    CHECK(adapted < 0.02);
}

/* Frames at 60 Hz until the camera has come 63% of the way from `from` lux
   to `to` lux (settled on `from` first). */
static int frames_to_63(float from, float to, double *ev_from, double *ev_to) {
    static scene s;
    scene_init(&s, from, false, true);
    oak_renderer *r = g_small;
    oak_exposure_info e = restart(r, &s);
    *ev_from = e.ev100;
    s.sun.light.intensity = to;
    e = draw(r, &s);
    *ev_to = e.target_ev100;
    int f = 1;
    while (fabs(e.ev100 - *ev_from) < 0.632 * fabs(*ev_to - *ev_from) && f < 400)
        e = draw(r, &s), f++;
    return f;
}

/* A step from 100 to 100,000 lux (about 10 EV) is followed with the
   brightening time constant, OAK_ADAPT_DOWN_S; back down with
   OAK_ADAPT_UP_S, slower; measured in frames at 60 Hz. */
TEST(stepIsFollowedWithItsTimeConstants) {
    double a0 = 0, a1 = 0, b0 = 0, b1 = 0;
    int up = frames_to_63(100, 100000, &a0, &a1);
    int down = frames_to_63(100000, 100, &b0, &b1);
    fprintf(stderr,
            "  brightening %.2f -> %.2f EV: 63%% after %d frames (%.3f s, tau %.1f s); "
            "darkening %.2f -> %.2f: %d frames (%.3f s, tau %.1f s)\n",
            a0, a1, up, up / 60.0, OAK_ADAPT_DOWN_S, b0, b1, down, down / 60.0, OAK_ADAPT_UP_S);
    CHECK(a1 - a0 > 9);
    CHECK_NEAR(up / 60.0, OAK_ADAPT_DOWN_S, 1.5 / 60);
    CHECK_NEAR(down / 60.0, OAK_ADAPT_UP_S, 1.5 / 60);
    CHECK(up < down);
}

/* A plane under 1 lux (a lit street at night, 0.057 cd/m^2) stays dark:
   the camera follows half the drop below EV100 5, so the mean stays under
   40/255 where a camera following the meter would show mid grey (102). */
TEST(nightStaysDark) {
    static scene s;
    static uint8_t px[W * H * 4];
    scene_init(&s, 1, false, true);
    oak_renderer *r = g_main;
    oak_exposure_info e = restart(r, &s);
    for (int f = 1; f < 4; f++) e = draw(r, &s);
    CHECK_OK(oak_renderer_read_pixels(r, px, sizeof px));
    double mean = 0;
    for (size_t p = 0; p < (size_t)W * H; p++) mean += px[p * 4 + 1];
    mean /= (double)W * H;
    fprintf(stderr, "  night: metered EV100 %.2f, camera %.2f, mean %.1f/255\n", e.metered_ev100,
            e.ev100, mean);
    CHECK(e.ev100 > e.metered_ev100 + 2);
    CHECK(mean < 40);
    CHECK(mean > 2); /* dark, not black */
}

/* Adaptation off gives the fixed camera: no exposure pass, its EV100. */
TEST(offKeepsTheFixedCamera) {
    static scene s;
    scene_init(&s, 6830, false, false);
    s.post.ev100 = 11, s.post.ev100_set = true;
    oak_renderer *r = g_main;
    oak_exposure_info e = draw(r, &s);
    CHECK(!e.adapting);
    CHECK_NEAR(e.ev100, 11, 1e-4);
    bool ran = false;
    oak_stage_timing t[32];
    uint32_t n = oak_renderer_timings(r, t, 32);
    for (uint32_t i = 0; i < n; i++) ran |= !strcmp(t[i].name, "exposure") && t[i].cpu_ms > 0;
    CHECK(!ran);
}

/* The parity rule (backend_start.h) on frame `frame`. */
static void compare(int frame, const uint8_t *a, const uint8_t *b) {
    char what[64];
    snprintf(what, sizeof what, "frame %d cpu vs %s", frame, g_backend);
    oak_test_parity(what, a, b, W, H);
}

/* The sun-and-emitter scene over 8 frames, the sun stepping from 6,830 to
   100,000 lux after frame 2 and exposure compensation +0.5: each frame the
   backend's EV100 is the CPU's within 0.02 and its picture is the CPU's at
   the parity rule. */
TEST(backendsAgreeFrameByFrame) {
    static scene s;
    static uint8_t a[W * H * 4], b[W * H * 4];
    scene_init(&s, 6830, true, true);
    s.post.exposure_comp = 0.5f;
    oak_renderer *rc = open_renderer("cpu", W, H), *rb = g_main;
    if (!rc) return;
    s.post.adapt = false;
    draw(rb, &s); /* fixed: the next adapting frame is its first, as the CPU's */
    s.post.adapt = true;
    for (int f = 0; f < 8; f++) {
        if (f == 3) s.sun.light.intensity = 100000;
        oak_exposure_info ec = draw(rc, &s), eb = draw(rb, &s);
        CHECK_OK(oak_renderer_read_pixels(rc, a, sizeof a));
        CHECK_OK(oak_renderer_read_pixels(rb, b, sizeof b));
        fprintf(stderr, "  frame %d EV100 cpu %.4f, %s %.4f (metered %.4f, %.4f)\n", f, ec.ev100,
                g_backend, eb.ev100, ec.metered_ev100, eb.metered_ev100);
        CHECK_NEAR(eb.ev100, ec.ev100, 0.02);
        CHECK_NEAR(eb.metered_ev100, ec.metered_ev100, 0.02);
        CHECK_NEAR(eb.exposure, ec.exposure, 0.02 * ec.exposure);
        compare(f, a, b);
    }
    oak_destroy_renderer(rc);
}

int main(int argc, char **argv) {
    if (argc > 1) g_backend = argv[1];
    int started = oak_test_backend_start(g_backend, oak_test_count_log);
    if (started) return started;
    if (!oak_test_backend_has(g_backend, OAK_PASS_EXPOSURE)) {
        oak_shutdown();
        return OAK_TEST_SKIP;
    }
    oak_material_desc md = oak_material_desc_defaults(NULL);
    md.metallic = 0, md.roughness = 1;
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.18f;
    CHECK_OK(oak_make_material(&g_grey, &md));
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.8f;
    CHECK_OK(oak_make_material(&g_white, &md));
    md.base_color[0] = md.base_color[1] = md.base_color[2] = 0.02f;
    md.emissive[0] = 1, md.emissive[1] = 0.9f, md.emissive[2] = 0.7f;
    md.emissive_strength = 20;
    CHECK_OK(oak_make_material(&g_glow, &md));
    oak_shape_desc pd = {.type = OAK_SHAPE_PLANE, .size = {40, 0, 40}};
    CHECK_OK(oak_make_shape(&g_plane, &pd));
    oak_shape_desc bd = {.type = OAK_SHAPE_BOX, .size = {1, 1, 1}};
    CHECK_OK(oak_make_shape(&g_box, &bd));
    fprintf(stderr, "  backend %s\n", g_backend);
    g_main = open_renderer(g_backend, W, H);
    g_small = open_renderer(g_backend, STEP_W, STEP_H);
    if (g_main && g_small) {
        RUN(greyPlanesSettleOnTheirFirstFrame);
        RUN(sunAndEmitterClipUnderTwoPercent);
        RUN(stepIsFollowedWithItsTimeConstants);
        RUN(nightStaysDark);
        RUN(offKeepsTheFixedCamera);
        if (strcmp(g_backend, "cpu")) RUN(backendsAgreeFrameByFrame);
    }
    oak_destroy_renderer(g_main);
    oak_destroy_renderer(g_small);
    CHECK_EQ_INT(g_oak_test_validation, 0);
    CHECK_EQ_INT(g_oak_test_errors, 0);
    oak_shutdown();
    return TEST_SUMMARY();
}
